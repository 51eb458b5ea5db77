/* pd-window-import.c: Main Menu → Read Other Agents' Sessions, and what
 * the read found, said in a toast
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-import-scanner.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

/* @path with the home folder written as ~. */
static char *
home_shortened (const char *path)
{
  const char *home = g_get_home_dir ();
  gsize len = strlen (home);

  if (len > 1 && strncmp (path, home, len) == 0 && path[len] == G_DIR_SEPARATOR)
    return g_strconcat ("~", path + len, NULL);
  return g_strdup (path);
}

/* The folders the import looked in, as a person reads them: each agent's
 * own (the Cline family's editors' folders said in words). */
static char *
looked_in_folders (void)
{
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_auto(GStrv) roots = pd_import_scanner_dup_roots (scanner);
  const char *dirs[] = {
    pd_import_scanner_get_claude_dir (scanner), pd_import_scanner_get_codex_dir (scanner),
    pd_import_scanner_get_opencode_dir (scanner), pd_import_scanner_get_qwen_dir (scanner),
    pd_import_scanner_get_gemini_dir (scanner),
    roots != NULL && roots[0] != NULL ? roots[g_strv_length (roots) - 1] : NULL,
  };
  g_autoptr(GString) said = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *shown = NULL;

      if (dirs[i] == NULL)
        continue;
      shown = home_shortened (dirs[i]);
      if (said->len > 0)
        g_string_append (said, ", ");
      g_string_append (said, shown);
    }
  /* Translators: after a list of folders; the extensions are Cline, Roo Code and Kilo Code */
  g_string_append (said, _(" and the editors’ extension folders"));
  return g_string_free (g_steal_pointer (&said), FALSE);
}

static void
on_import_done (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(PdWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  PdImportCounts counts;

  if (!pd_source_import_transcripts_finish (PD_SOURCE (object), result, &counts, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        pd_window_show_message (self, error->message);
      return;
    }

  if (counts.transcripts == 0)
    {
      g_autofree char *folders = looked_in_folders ();

      /* Translators: %s is a list of folders */
      message = g_strdup_printf (_("No other agents’ sessions found in %s"), folders);
    }
  else
    {
      /* Sessions, not files: OpenCode's store of two sessions counted one
       * ("6 … read" while 7 were listed, tried as a new user would). */
      guint found = counts.sessions_added + counts.sessions_updated +
                    MAX (counts.sessions_unchanged, counts.unchanged);

      /* Translators: sessions read from other agents' transcripts; “%u new” follows */
      message = g_strdup_printf (ngettext ("%u session of other agents read, %u new",
                                           "%u sessions of other agents read, %u new", found),
                                 found, counts.sessions_added);
    }
  /* The files passed over are said, not only counted as not there: a
   * FIFO, a file of no known agent, one that could not be read (tried as a
   * new user would, the toast said nothing of them while `plandeck-agent
   * import` named each). */
  if (counts.skipped > 0)
    {
      g_autofree char *read = g_steal_pointer (&message);

      /* Translators: %s is the sentence before (“3 sessions of other agents read, 1 new”);
       * `plandeck-agent import` is a command, not translated */
      message = g_strdup_printf (ngettext ("%s; %u file could not be read (`plandeck-agent import` names it and why)",
                                           "%s; %u files could not be read (`plandeck-agent import` names them and why)",
                                           counts.skipped),
                                 read, counts.skipped);
    }
  /* A title wraps: the folders were cut after the second at 1280 px,
   * after "fou…" at 360.  Plain text, never markup. */
  {
    AdwToast *toast = adw_toast_new ("");
    GtkWidget *label = gtk_label_new (message);

    gtk_label_set_wrap (GTK_LABEL (label), TRUE);
    gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
    gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
    /* A wrapping label asks for its whole text as its natural width, and
     * the toast does not shrink it: a few lines of a readable width that
     * fits the window instead (about 8 px a character, the close button
     * and the toast's margins beside). */
    gtk_label_set_max_width_chars (GTK_LABEL (label),
                                   CLAMP ((gtk_widget_get_width (GTK_WIDGET (self)) - 130) / 8, 16, 48));
    gtk_widget_add_css_class (label, "heading");
    adw_toast_set_custom_title (toast, label);
    adw_toast_set_timeout (toast, counts.transcripts == 0 || counts.skipped > 0 ? 10 : 5);
    _pd_toast_add (GTK_WIDGET (self->toast_overlay), toast);
  }

  /* Follow the sessions just found as well. */
  _pd_window_follow_transcripts (self);
}

/**
 * _pd_window_import_transcripts:
 *
 * Reads other agents' transcripts into the window's local database in a
 * worker thread; "Reading…" shows for a second, and the toast that follows
 * says how many sessions were read and how many are new, or names the
 * folders looked in when none was found.
 */
void
_pd_window_import_transcripts (PdWindow *self)
{
  AdwToast *reading = adw_toast_new (_("Reading the transcripts of other agents…"));

  /* Shown for a second: the answer, queued behind it, came 5 s later
   * and the read looked as if it gave no result (tried as a new user
   * would).  Not dismissed when the answer is there: libadwaita 1.2
   * crashed on a toast dismissed as it was being shown (6 runs of 10).
   * Its own timeout came so too when no frame was drawn in its second
   * (the import's work on a loaded machine): _pd_toast_add() holds it. */
  adw_toast_set_timeout (reading, 1);
  _pd_toast_add (GTK_WIDGET (self->toast_overlay), reading);
  /* The source reads them in a worker thread and says ::changed. */
  pd_source_import_transcripts_async (PD_SOURCE (_pd_window_get_local_source (self)), self->cancellable,
                                      on_import_done, g_object_ref (self));
}

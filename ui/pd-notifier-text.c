/* pd-notifier-text.c: what PdNotifier quotes, and where it sends
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The cutting of anyone's text (a title, a step, a reason) to what a
 * notification quotes, and whether GLib sends notifications through the
 * desktop portal (a Flatpak sandbox).
 */
#define G_LOG_DOMAIN "pd-notifier"

#include "config.h"

#include "pd-notifier-private.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

/* In a sandbox (Flatpak) the bus proxy hides the notification servers'
 * names, and GLib sends through the desktop portal, which it does not ask
 * about: nothing was ever sent there while we waited to see a server
 * (tried as a new user would).  GLib decides so when /.flatpak-info exists
 * or GTK_USE_PORTAL is 1 (gio/gportalsupport.c), and so do we. */
static char *flatpak_info_path; /* NULL: "/.flatpak-info" */

/**
 * _pd_notifier_set_flatpak_info:
 * @path: (nullable): the file whose presence means a Flatpak sandbox;
 *   %NULL for "/.flatpak-info"
 */
void
_pd_notifier_set_flatpak_info (const char *path)
{
  g_free (flatpak_info_path);
  flatpak_info_path = g_strdup (path);
}

/**
 * _pd_notifier_in_sandbox:
 *
 * Returns: whether GLib sends notifications through the portal here
 */
gboolean
_pd_notifier_in_sandbox (void)
{
  const char *use_portal = g_getenv ("GTK_USE_PORTAL");

  if (g_file_test (flatpak_info_path != NULL ? flatpak_info_path : "/.flatpak-info", G_FILE_TEST_EXISTS))
    return TRUE;
  return use_portal != NULL && use_portal[0] == '1';
}


/* How much of anyone's text (a title, a failure's reason) a notification
 * quotes: a server shows a few lines, and a 300,000-character title went
 * whole to it (tried as an attacker would). */
/* @text's first PD_NOTIFY_QUOTE_CHARS characters at most, cut at a word (at a
 * character when the last word is long) and ended with "…"; not yet made
 * safe. */
char *
_pd_notifier_cut_quote (const char *text)
{
  const char *end = text;
  const char *cut;
  g_autofree char *head = NULL;

  if (text == NULL)
    return NULL;
  /* Not UTF-8 (a transcript's bytes): made valid, then cut; it went whole. */
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (text, -1);

      return _pd_notifier_cut_quote (valid);
    }
  for (guint n = 0; n < PD_NOTIFY_QUOTE_CHARS - 1 && *end != '\0'; n++)
    end = g_utf8_next_char (end);
  if (*end == '\0' || *g_utf8_next_char (end) == '\0')
    return g_strdup (text);

  cut = end;
  for (const char *p = end; p > text + (end - text) / 2; p = g_utf8_prev_char (p))
    if (g_unichar_isspace (g_utf8_get_char (g_utf8_prev_char (p))))
      {
        cut = p;
        break;
      }
  head = g_strndup (text, cut - text);
  g_strchomp (head);
  return g_strconcat (head, "…", NULL);
}

/* A title in a body: cut, its controls shown, isolated (_pd_isolated_line()). */
char *
_pd_notifier_quote_title (const char *title)
{
  g_autofree char *cut = _pd_notifier_cut_quote (title);

  return _pd_isolated_line (cut);
}

/* A tool's name or a failure's reason: cut, its controls shown. */
char *
_pd_notifier_quote_text (const char *text)
{
  g_autofree char *cut = _pd_notifier_cut_quote (text);

  return pd_safe_text_line (cut);
}

/* test-import.c: reading other agents' sessions from the window — they
 * appear in the session list with their source, and their Now workspace is
 * their checklist.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <sys/stat.h>
#include <sys/types.h>

#include <glib/gstdio.h>

#include "pd-checklist-view.h"
#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-test-ui.h"

static gboolean
has_css_class (GtkWidget     *widget,
               gconstpointer  data)
{
  return gtk_widget_has_css_class (widget, data);
}

static GtkWidget *
find_with_class (GtkWidget  *root,
                 const char *css_class)
{
  return pd_test_find_first (root, has_css_class, css_class);
}

static gboolean
has_claude_session (gpointer data)
{
  return pd_test_find_label (GTK_WIDGET (data), "Claude Code") != NULL;
}

static gboolean
checklist_shown (gpointer data)
{
  PdChecklistView *view = PD_CHECKLIST_VIEW (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_CHECKLIST_VIEW));

  return view != NULL && gtk_widget_get_mapped (GTK_WIDGET (view)) && pd_checklist_view_get_checklist (view) != NULL;
}

static gboolean
transcripts_followed (gpointer data)
{
  PdSource *source = pd_window_get_source (PD_WINDOW (data));

  return PD_IS_LOCAL_SOURCE (source) && pd_local_source_get_n_followed (PD_LOCAL_SOURCE (source)) > 0;
}

static void
check_import (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  PdChecklistView *view;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  pd_test_wait_until (has_claude_session, window, "an imported Claude Code session in the list");

  /* The newest session is selected: its Now workspace is the checklist. */
  pd_test_wait_until (checklist_shown, window, "the checklist of the imported session");
  view = PD_CHECKLIST_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_CHECKLIST_VIEW));
  g_assert_nonnull (pd_checklist_view_get_checklist (view));

  /* The imported transcripts are followed from now on, for live checklists. */
  pd_test_wait_until (transcripts_followed, window, "the imported transcripts to be followed");

  /* Another agent's session is continued in that agent: the message entry
   * is not offered, and sending does nothing. */
  {
    GtkWidget *bar = find_with_class (GTK_WIDGET (window), "pd-message-bar");
    GtkWidget *revealer;

    g_assert_nonnull (bar);
    revealer = gtk_widget_get_parent (bar);
    g_assert_true (GTK_IS_REVEALER (revealer));
    pd_test_flush (GTK_WIDGET (window));
    g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
    g_assert_false (gtk_widget_get_child_visible (bar) && gtk_widget_get_mapped (bar));
  }
}

/* A Claude Code project folder of @root (PD_FIXTURES_DIR, the project's
 * own; or PD_SHARED_FIXTURES_DIR, the shared recordings, an extra check)
 * in a home of the test's own, imported from the window. */
static void
test_import_from_window (gconstpointer project_folder)
{
  const char *project = project_folder;
  gboolean shared = g_str_has_prefix (project, "-Users-");
  const char *fixtures = g_getenv (shared ? "PD_SHARED_FIXTURES_DIR" : "PD_FIXTURES_DIR");
  g_autofree char *home = NULL;
  g_autofree char *projects = NULL;
  g_autofree char *source = NULL;
  g_autofree char *target = NULL;
  g_autofree char *db = NULL;
  const char *args[3];

  if (shared && (fixtures == NULL || !g_file_test (fixtures, G_FILE_TEST_IS_DIR)))
    {
      g_test_skip ("../shared/fixtures (the third-party recordings) is not beside the source tree: this extra "
                   "check is skipped; /pd/ui/import/from-window ran on the project's own fixtures");
      return;
    }
  g_assert_nonnull (fixtures);

  /* A home of the test's own: only the fixture transcripts are found. */
  home = pd_test_make_tmp_dir ();
  projects = g_build_filename (home, "claude", "projects", NULL);
  source = g_build_filename (fixtures, "claude-code", project, NULL);
  g_assert_true (g_file_test (source, G_FILE_TEST_IS_DIR));
  target = g_build_filename (projects, project, NULL);
  pd_test_copy_tree (source, target);
  {
    g_autofree char *claude = g_build_filename (home, "claude", NULL);
    g_autofree char *codex = g_build_filename (home, "codex", NULL);
    g_autofree char *data = g_build_filename (home, "data", NULL);

    g_setenv ("CLAUDE_CONFIG_DIR", claude, TRUE);
    g_setenv ("CODEX_HOME", codex, TRUE);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }

  db = g_build_filename (home, "sessions.db", NULL);
  args[0] = "--db";
  args[1] = db;
  args[2] = NULL;
  {
    g_autoptr(PdDb) created = pd_db_open (db, PD_DB_CREATE, NULL);
    g_assert_nonnull (created);
  }

  g_assert_cmpint (pd_test_run_app (args, check_import, NULL, NULL), ==, 0);
}

/* A label whose text holds a bidi control (U+202A–202E, U+2066–2069) other
 * than the isolate our sentences put around anyone's text (U+2068 …
 * U+2069, never nested). */
static gboolean
is_label_with_bidi (GtkWidget     *widget,
                    gconstpointer  data)
{
  gboolean isolated = FALSE;
  const char *text;

  if (!GTK_IS_LABEL (widget))
    return FALSE;
  text = gtk_label_get_text (GTK_LABEL (widget));
  for (const char *p = text; p && *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == 0x2068 && !isolated)
        isolated = TRUE;
      else if (c == 0x2069 && isolated)
        isolated = FALSE;
      else if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069))
        return TRUE;
    }
  return isolated;
}

static gboolean
has_bidi_title (gpointer data)
{
  return pd_test_find_label (GTK_WIDGET (data), "Deploy <U+202E>txt.exe now") != NULL;
}

static gboolean
has_bidi_item (gpointer data)
{
  return pd_test_find_label (GTK_WIDGET (data), "Check <U+2066>admin<U+2069> rights") != NULL;
}

static void
check_bidi (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  /* The title in the list and the item on the Now page show the controls
   * as <U+…>, so they reorder nothing; no label holds one raw. */
  pd_test_wait_until (has_bidi_title, window, "the imported session's title, its bidi override shown");
  pd_test_wait_until (checklist_shown, window, "the checklist of the imported session");
  pd_test_wait_until (has_bidi_item, window, "the checklist item, its bidi isolates shown");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_null (pd_test_find_first (GTK_WIDGET (window), is_label_with_bidi, NULL));
}

/* Bidi controls in another agent's transcript, as an attacker would write
 * them: a title that reads reversed, an item whose middle is isolated. */
static void
test_import_bidi (void)
{
  g_autofree char *home = pd_test_make_tmp_dir ();
  g_autofree char *project = g_build_filename (home, "claude", "projects", "-work-app", NULL);
  g_autofree char *transcript = g_build_filename (project, "s1.jsonl", NULL);
  g_autofree char *db = g_build_filename (home, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  const char *lines =
    "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:00Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
    "\"message\":{\"role\":\"user\",\"content\":\"Deploy \u202Etxt.exe now\"}}\n"
    "{\"type\":\"assistant\",\"timestamp\":\"2026-03-04T10:00:01Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
    "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"TodoWrite\","
    "\"input\":{\"todos\":[{\"content\":\"Check \u2066admin\u2069 rights\",\"status\":\"pending\"}]}}]}}\n"
    "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:02Z\",\"sessionId\":\"s1\",\"message\":{\"role\":\"user\","
    "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\",\"content\":\"ok\",\"is_error\":false}]}}\n";

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (transcript, lines, -1, NULL));
  {
    g_autofree char *claude = g_build_filename (home, "claude", NULL);
    g_autofree char *codex = g_build_filename (home, "codex", NULL);
    g_autofree char *data = g_build_filename (home, "data", NULL);

    g_setenv ("CLAUDE_CONFIG_DIR", claude, TRUE);
    g_setenv ("CODEX_HOME", codex, TRUE);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  {
    g_autoptr(PdDb) created = pd_db_open (db, PD_DB_CREATE, NULL);
    g_assert_nonnull (created);
  }

  g_assert_cmpint (pd_test_run_app (args, check_bidi, NULL, NULL), ==, 0);
}

/* A label whose text starts with @data. */
static gboolean
is_label_starting (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), data);
}

static gboolean
has_none_found_toast (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_label_starting, "No other agents’ sessions found in ") != NULL;
}

static gboolean
has_read_toast (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_label_starting, "1 session of other agents read, ") != NULL;
}

static void
check_none_found (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  const char *home = user_data;
  g_autofree char *claude = g_build_filename (home, "claude", "projects", NULL);
  g_autofree char *codex = g_build_filename (home, "codex", NULL);
  GtkWidget *label;
  const char *text;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  pd_test_wait_until (has_none_found_toast, window, "the toast that nothing was found, and where");
  label = pd_test_find_first (GTK_WIDGET (window), is_label_starting, "No other agents’ sessions found in ");
  text = gtk_label_get_text (GTK_LABEL (label));
  g_assert_nonnull (strstr (text, claude));
  g_assert_nonnull (strstr (text, codex));
  g_assert_nonnull (strstr (text, "the editors’ extension folders"));
}

static void
check_read_counted (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  pd_test_wait_until (has_read_toast, window, "the toast with the sessions read and how many are new");
}

static gboolean
has_unread_toast (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_label_starting,
                             "1 session of other agents read, 1 new; 2 files could not be read") != NULL;
}

static void
check_unread_said (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWidget *label;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  pd_test_wait_until (has_unread_toast, window, "the toast saying two files could not be read");
  label = pd_test_find_first (GTK_WIDGET (window), is_label_starting, "1 session of other agents read, 1 new; ");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "1 session of other agents read, 1 new; 2 files could not be read "
                   "(`plandeck-agent import` names them and why)");
}

/* Main Menu → Read Other Agents' Sessions said "Reading…", then, 5 s
 * later, either counts or "No transcripts … on this computer", naming no
 * folder (tried as a new user would: it looked as if it gave no result).
 * The answer comes at once and names where it looked. */
static void
test_import_said (gconstpointer data)
{
  int with_session = GPOINTER_TO_INT (data);
  g_autofree char *home = pd_test_make_tmp_dir ();
  g_autofree char *project = g_build_filename (home, "claude", "projects", "-work-app", NULL);
  g_autofree char *db = g_build_filename (home, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  if (with_session)
    {
      g_autofree char *transcript = g_build_filename (project, "s1.jsonl", NULL);
      const char *lines =
        "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:00Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
        "\"message\":{\"role\":\"user\",\"content\":\"Tidy the build\"}}\n";

      g_assert_true (g_file_set_contents (transcript, lines, -1, NULL));
    }
  /* Files the read passes over, which root fails on too: a FIFO named
   * like a transcript and a file of no known agent.  The toast said
   * nothing of them (tried as a new user would); `plandeck-agent import`
   * names both. */
  if (with_session == 2)
    {
      g_autofree char *fifo = g_build_filename (project, "s2.jsonl", NULL);
      g_autofree char *junk = g_build_filename (project, "s3.jsonl", NULL);

      g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
      g_assert_true (g_file_set_contents (junk, "not a transcript\n", -1, NULL));
    }
  {
    g_autofree char *claude = g_build_filename (home, "claude", NULL);
    g_autofree char *codex = g_build_filename (home, "codex", NULL);
    g_autofree char *xdg_data = g_build_filename (home, "data", NULL);
    g_autofree char *xdg_config = g_build_filename (home, "config", NULL);

    g_setenv ("CLAUDE_CONFIG_DIR", claude, TRUE);
    g_setenv ("CODEX_HOME", codex, TRUE);
    g_setenv ("XDG_DATA_HOME", xdg_data, TRUE);
    g_setenv ("XDG_CONFIG_HOME", xdg_config, TRUE);
  }
  {
    g_autoptr(PdDb) created = pd_db_open (db, PD_DB_CREATE, NULL);
    g_assert_nonnull (created);
  }

  g_assert_cmpint (pd_test_run_app (args,
                                    with_session == 2 ? check_unread_said
                                    : with_session ? check_read_counted : check_none_found,
                                    home, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_data_func ("/pd/ui/import/from-window", "-home-dev-src-inkwell", test_import_from_window);
  g_test_add_data_func ("/pd/ui/import/from-window-shared", "-Users-dain-workspace-danieldemmel-me-next",
                        test_import_from_window);
  g_test_add_func ("/pd/ui/import/bidi-shown", test_import_bidi);
  g_test_add_data_func ("/pd/ui/import/none-found-said", GINT_TO_POINTER (FALSE), test_import_said);
  g_test_add_data_func ("/pd/ui/import/read-counted", GINT_TO_POINTER (TRUE), test_import_said);
  g_test_add_data_func ("/pd/ui/import/unreadable-said", GINT_TO_POINTER (2), test_import_said);

  return g_test_run ();
}

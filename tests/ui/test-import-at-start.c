/* test-import-at-start.c: the default window reads other agents' sessions
 * from their default folders by itself — no menu action — unless
 * Preferences turn it off; a folder made later is read by the menu's rescan.
 * Such a session removed from the list leaves the Overview with its row.
 *
 * The home is the test's own, set before anything asks for it: the agents'
 * default folders (~/.claude/projects, ~/.gemini/tmp, ~/.config/Code/…,
 * ~/.qwen/projects) hold the project's fixture transcripts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "pd-local-source.h"
#include "pd-multi-source.h"
#include "pd-overview-card.h"
#include "pd-overview-view.h"
#include "pd-session-list.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

static char *home;

/* Each case starts on a new default database. */
static void
remove_default_database (void)
{
  const char *suffixes[] = { "", "-wal", "-shm" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *path = g_strconcat (home, "/.local/share/plandeck/sessions.db", suffixes[i], NULL);

      g_unlink (path);
    }
}

static gboolean
shows_label (gpointer data)
{
  const char * const *pair = data;

  return pd_test_find_label (GTK_WIDGET (pair[0]), pair[1]) != NULL;
}

static void
wait_for_label (PdWindow   *window,
                const char *text)
{
  const char *pair[] = { (const char *) window, text };
  g_autofree char *what = g_strdup_printf ("a session of %s in the list", text);

  pd_test_wait_until (shows_label, pair, what);
}

static gboolean
read_done (gpointer data)
{
  return !pd_window_get_reading_agent_sessions (PD_WINDOW (data));
}

static gboolean
list_loaded (gpointer data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_SESSION_LIST));

  return list != NULL && pd_session_list_get_loaded (list);
}

static gboolean
transcripts_followed (gpointer data)
{
  PdSource *source = pd_window_get_source (PD_WINDOW (data));
  PdSource *local = source;

  /* The default window lists through its sources: this computer's first. */
  if (PD_IS_MULTI_SOURCE (source))
    local = pd_source_list_lookup (pd_multi_source_get_sources (PD_MULTI_SOURCE (source)),
                                   PD_SOURCE_LIST_LOCAL_ID, NULL);
  return local != NULL && PD_IS_LOCAL_SOURCE (local) &&
         pd_local_source_get_n_followed (PD_LOCAL_SOURCE (local)) > 0;
}

static void
check_read_at_start (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  /* No menu action: the sessions of every agent whose folder exists come
   * by themselves. */
  wait_for_label (window, "Claude Code");
  wait_for_label (window, "Gemini CLI");
  wait_for_label (window, "Cline");
  wait_for_label (window, "Roo Code");
  pd_test_wait_until (read_done, window, "the read at start to end");
  /* Followed live, as after the menu's read. */
  pd_test_wait_until (transcripts_followed, window, "the read transcripts to be followed");
  g_assert_null (pd_test_find_label (GTK_WIDGET (window), "Qwen Code"));

  /* Qwen Code's folder appears while the window runs: the menu item reads
   * the agents' folders again and finds it. */
  pd_test_place_fixture (home, "qwen", ".qwen");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  wait_for_label (window, "Qwen Code");
}

static void
test_read_at_start (void)
{
  remove_default_database ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_read_at_start, NULL, NULL), ==, 0);
}

static void
check_switched_off (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  /* The list is drawn, which is when the read would begin. */
  pd_test_wait_until (list_loaded, window, "the session list");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (pd_window_get_reading_agent_sessions (window));
  g_assert_null (pd_test_find_label (GTK_WIDGET (window), "Claude Code"));
  g_assert_null (pd_test_find_label (GTK_WIDGET (window), "Gemini CLI"));
}

static void
test_switched_off (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  remove_default_database ();
  pd_test_reset_settings ();
  g_settings_set_boolean (settings, "read-agent-sessions-at-start", FALSE);
  g_assert_cmpint (pd_test_run_app (NULL, check_switched_off, NULL, NULL), ==, 0);

  /* Reading agents' plans off turns the read at start off as well. */
  remove_default_database ();
  pd_test_reset_settings ();
  g_settings_set_boolean (settings, "read-agent-plans", FALSE);
  g_assert_cmpint (pd_test_run_app (NULL, check_switched_off, NULL, NULL), ==, 0);
  pd_test_reset_settings ();
}

typedef struct
{
  PdWindow   *window;
  const char *id;
} CardOf;

/* Whether the Overview shows the card of @data's session. */
static gboolean
card_shown (gpointer data)
{
  CardOf *of = data;
  PdOverviewView *view = PD_OVERVIEW_VIEW (pd_test_find_widget (GTK_WIDGET (of->window), PD_TYPE_OVERVIEW_VIEW));
  GListModel *shown = view != NULL ? pd_overview_view_get_shown (view) : NULL;

  for (guint i = 0; shown != NULL && i < g_list_model_get_n_items (shown); i++)
    {
      g_autoptr(PdOverviewCard) card = g_list_model_get_item (shown, i);

      if (g_strcmp0 (pd_overview_card_get_session_id (card), of->id) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
row_listed (gpointer data)
{
  CardOf *of = data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (of->window), PD_TYPE_SESSION_LIST));

  return list != NULL && pd_session_list_select (list, of->id);
}

static gboolean
is_undo_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Undo") == 0;
}

static gboolean
has_undo (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_undo_button, NULL) != NULL;
}

static void
check_removed_card (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  const char *id = user_data;
  CardOf of = { window, id };
  PdSource *listed = pd_window_get_source (window);
  PdSource *local;
  g_autofree char *listed_id = NULL;

  pd_test_wait_until (list_loaded, window, "the session list");
  pd_test_wait_until (card_shown, &of, "the active session's card on the Overview");

  /* The default window lists through its sources: the list's id of the
   * session is the merged one. */
  g_assert_true (PD_IS_MULTI_SOURCE (listed));
  local = pd_source_list_lookup (pd_multi_source_get_sources (PD_MULTI_SOURCE (listed)),
                                 PD_SOURCE_LIST_LOCAL_ID, NULL);
  listed_id = pd_multi_source_make_id (PD_MULTI_SOURCE (listed), local, id);
  {
    CardOf row = { window, listed_id };

    pd_test_wait_until (row_listed, &row, "the session's row in the list");
  }

  /* Remove From List (the row's menu): the card goes at once, as the row does.  It stayed
   * until the toast had gone (tried as a new user would): it was hidden
   * under the merged id, and the card is known by its own source's. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.row-delete-session", "s", listed_id));
  pd_test_wait_until (has_undo, window, "the toast's Undo");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (card_shown (&of));

  /* Undo: it comes back. */
  g_signal_emit_by_name (pd_test_find_first (GTK_WIDGET (window), is_undo_button, NULL), "clicked");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (card_shown (&of));
}

/* An active session of another agent, removed from the default window's
 * list: its Overview card leaves with its row and comes back on Undo. */
static void
test_removed_card (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *db = g_build_filename (home, ".local", "share", "plandeck", "sessions.db", NULL);
  g_autofree char *folder = g_path_get_dirname (db);
  g_autofree char *id = NULL;

  remove_default_database ();
  pd_test_reset_settings ();
  /* Only the session made here: the fixtures are not read. */
  g_settings_set_boolean (settings, "read-agent-sessions-at-start", FALSE);
  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    id = pd_test_add_session (store, "Tidy the build", "claude-code");
  }
  g_assert_cmpint (pd_test_run_app (NULL, check_removed_card, id, NULL), ==, 0);
  pd_test_reset_settings ();
}

int
main (int   argc,
      char *argv[])
{
  /* Before GTK or GLib asks for the home or the XDG folders. */
  home = pd_test_fixture_home ();
  pd_test_place_fixture (home, "claude-code/-home-dev-src-inkwell", ".claude/projects/-home-dev-src-inkwell");
  pd_test_place_fixture (home, "gemini/tmp", ".gemini/tmp");
  pd_test_place_fixture (home, "vscode/User", ".config/Code/User");

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/import-at-start/switched-off", test_switched_off);
  g_test_add_func ("/pd/ui/import-at-start/read", test_read_at_start);
  g_test_add_func ("/pd/ui/import-at-start/removed-card", test_removed_card);

  return g_test_run ();
}

/* test-remote-checklist.c: an endpoint's imported session, opened from the window
 *
 * A real `plandeck-agent serve` serves a database into which a Gemini CLI
 * session was imported (its transcript from tests/fixtures).  A window on
 * the endpoint (`--remote`) opens it: its page shows the agent's checklist
 * as the endpoint serves it (its plan), named by the agent, with the
 * cancelled item cancelled, for reading only (the endpoint keeps no
 * ticks of ours: no tick and no item of the person's offered).  Tried as a new user would, it said "This
 * endpoint does not serve agent checklists" while serve answered its plan.
 * A Claude Code list of 600 items shows the 500 kept and says the other
 * 100 are not shown, as a local one does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-remote-checklist"

#include "config.h"

#include "pd-checklist-view.h"
#include "pd-db.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-test-runs.h"

static char *
import_gemini (const char *db_path)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  g_autofree char *transcript = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) sessions = NULL;
  const char *paths[] = { NULL, NULL };

  g_assert_nonnull (root);
  transcript = g_build_filename (root, "gemini", "tmp", "lantern", "chats", "session-2026-04-05T10-12-3fa9c0d1.jsonl",
                                 NULL);
  paths[0] = transcript;
  db = pd_db_open (db_path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < sessions->len; i++)
    if (g_strcmp0 (((PdSessionInfo *) g_ptr_array_index (sessions, i))->source, "gemini") == 0)
      return g_strdup (((PdSessionInfo *) g_ptr_array_index (sessions, i))->id);
  g_assert_not_reached ();
}

static gboolean
listed (gpointer data)
{
  return pd_session_list_get_loaded (session_list (data)) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (session_list (data)))) > 0;
}

static gboolean
is_mapped_label (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0;
}

static gboolean
is_mapped_label_containing (GtkWidget     *widget,
                            gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

static gboolean
is_sensitive_check (GtkWidget     *widget,
                    gconstpointer  data)
{
  return GTK_IS_CHECK_BUTTON (widget) && gtk_widget_get_mapped (widget) && gtk_widget_is_sensitive (widget);
}

static gboolean
checklist_shown (gpointer data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_CHECKLIST_VIEW);

  return view != NULL && gtk_widget_get_mapped (view) &&
         (pd_test_find_first (view, is_mapped_label, "Document the signal") != NULL ||
          pd_test_find_first (view, is_mapped_label_containing, "does not serve") != NULL);
}

static void
check_remote_checklist (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  GtkWidget *view;
  PdChecklist *checklist;

  pd_test_wait_until (listed, window, "the endpoint's sessions listed");
  g_assert_true (pd_session_list_select (session_list (window), user_data));
  pd_test_wait_until (checklist_shown, window, "the imported session's checklist (or an error) shown");

  view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_CHECKLIST_VIEW);
  g_assert_null (pd_test_find_first (view, is_mapped_label_containing, "does not serve"));
  g_assert_nonnull (pd_test_find_first (view, is_mapped_label, "Document the signal"));
  /* Named by its agent, as a local import is. */
  g_assert_nonnull (pd_test_find_first (view, is_mapped_label, "Gemini CLI"));

  checklist = pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (view));
  g_assert_nonnull (checklist);
  g_assert_cmpint (pd_checklist_get_origin (checklist), ==, PD_CHECKLIST_ORIGIN_GEMINI_TODOS);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 5);
  g_assert_cmpint (pd_checklist_get_agent_item (checklist, 3)->status, ==, PD_CHECKLIST_STATUS_CANCELLED);
  g_assert_cmpint (pd_checklist_get_agent_item (checklist, 4)->status, ==, PD_CHECKLIST_STATUS_IN_PROGRESS);
  /* Read only: no tick or item of the person's that the endpoint could
   * not keep. */
  g_assert_null (pd_test_find_first (view, is_mapped_label, "Your Items"));
  g_assert_null (pd_test_find_first (view, is_sensitive_check, NULL));
  pd_test_screenshot_sizes (GTK_WINDOW (window), "remote-checklist");
}

static void
test_remote_checklist (void)
{
  PdTestServed served = { 0 };
  g_autofree char *id = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  served.fixture = run_fixture_new ("{\"label\": \"test: nothing\", \"turns\": []}");
  id = import_gemini (served.fixture->db);
  pd_test_served_start (&served);
  args[1] = served.url;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_checklist, id, NULL), ==, 0);

  pd_test_served_clear (&served);
  run_fixture_free (served.fixture);
}

/* --- a checklist longer than kept -------------------------------------- */

#define LONG_ITEMS 600

/* A Claude Code transcript whose one TodoWrite lists LONG_ITEMS items,
 * imported into @db_path.  Returns: its session's id. */
static char *
import_long_todos (const char *db_path,
                   const char *dir)
{
  g_autoptr(GString) todos = g_string_new ("[");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *project = g_build_filename (dir, "-work-app", NULL);
  g_autofree char *path = g_build_filename (project, "0b7c1a52-4f1e-4a8e-9a53-3f1d2e6c7a10.jsonl", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) sessions = NULL;
  const char *paths[] = { path, NULL };

  for (guint i = 0; i < LONG_ITEMS; i++)
    g_string_append_printf (todos, "%s{\"content\":\"Long list item %u\",\"status\":\"%s\"}", i ? "," : "", i + 1,
                            i == 0 ? "in_progress" : "pending");
  g_string_append (todos, "]");
  g_string_append (text, "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:00Z\",\"sessionId\":\"s1\","
                         "\"cwd\":\"/work/app\",\"message\":{\"role\":\"user\",\"content\":\"Work the long list\"}}\n");
  g_string_append_printf (text, "{\"type\":\"assistant\",\"timestamp\":\"2026-03-04T10:00:01Z\",\"sessionId\":\"s1\","
                                "\"cwd\":\"/work/app\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":"
                                "\"tool_use\",\"id\":\"tu1\",\"name\":\"TodoWrite\",\"input\":{\"todos\":%s}}]}}\n",
                          todos->str);
  g_string_append (text, "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:02Z\",\"message\":{\"role\":\"user\","
                         "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\",\"content\":\"ok\","
                         "\"is_error\":false}]}}\n");
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, -1, &error));
  g_assert_no_error (error);

  db = pd_db_open (db_path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < sessions->len; i++)
    if (pd_session_info_is_imported (g_ptr_array_index (sessions, i)))
      return g_strdup (((PdSessionInfo *) g_ptr_array_index (sessions, i))->id);
  g_assert_not_reached ();
}

static gboolean
long_checklist_shown (gpointer data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_CHECKLIST_VIEW);

  return view != NULL && gtk_widget_get_mapped (view) &&
         pd_test_find_first (view, is_mapped_label, "Long list item 1") != NULL;
}

static gboolean
more_said (gpointer data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_CHECKLIST_VIEW);

  return pd_test_find_first (view, is_mapped_label, "100 more items of the agent’s list not shown") != NULL;
}

/* An endpoint's imported session whose agent listed 600 items: the page
 * shows the 500 the endpoint keeps and says the other 100 are not shown,
 * as a local one does (tried as a new user would: it said nothing; the
 * endpoint sends the count as the session's plan.hidden). */
static void
check_remote_long (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWidget *view;
  PdChecklist *checklist;

  pd_test_wait_until (listed, window, "the endpoint's sessions listed");
  g_assert_true (pd_session_list_select (session_list (window), user_data));
  pd_test_wait_until (long_checklist_shown, window, "the long checklist shown");
  view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_CHECKLIST_VIEW);
  checklist = pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (view));
  g_test_message ("%u items shown, %u said not shown", pd_checklist_get_n_agent_items (checklist),
                  pd_checklist_get_n_hidden_agent_items (checklist));
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, PD_IMPORT_MAX_ITEMS);
  g_assert_cmpuint (pd_checklist_get_n_hidden_agent_items (checklist), ==, LONG_ITEMS - PD_IMPORT_MAX_ITEMS);
  pd_test_wait_until (more_said, window, "the note of the items not shown");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "remote-checklist-long");
}

static void
test_remote_long (void)
{
  PdTestServed served = { 0 };
  g_autofree char *id = NULL;
  g_autofree char *dir = pd_test_make_tmp_dir ();
  const char *args[] = { "--remote", NULL, NULL };

  served.fixture = run_fixture_new ("{\"label\": \"test: nothing\", \"turns\": []}");
  id = import_long_todos (served.fixture->db, dir);
  pd_test_served_start (&served);
  args[1] = served.url;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_long, id, NULL), ==, 0);

  pd_test_served_clear (&served);
  run_fixture_free (served.fixture);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/remote-checklist/imported", test_remote_checklist);
  g_test_add_func ("/pd/ui/remote-checklist/long", test_remote_long);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}

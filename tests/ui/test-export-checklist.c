/* test-export-checklist.c: another agent's checklist in the export, as
 * the user sees it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tried as a new user would: on a Gemini CLI session the user unticked
 * one of the agent's items, ticked another and added and ticked an own
 * item; the Markdown export listed the agent's statuses only and left the
 * own item out, and the JSON said "plan": {"done": 4, "total": 5} with no
 * item or override that explained the fifth.  Here the session is the
 * fixture's transcript imported by `plandeck-agent import` into a real
 * database, changed through the window's source, and exported as the
 * window exports (pd_session_export_async()) and as `sessions export`.
 */
#define G_LOG_DOMAIN "test-export-checklist"

#include "config.h"

#include <string.h>

#include "pd-session-export.h"
#include "pd-session-list.h"
#include "pd-session-reads.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"
#include "../pd-test-files.h"

#define TASK "Reload lantern's config on SIGHUP"

static void
on_result (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static gboolean
has_result (gpointer user_data)
{
  return *(GAsyncResult **) user_data != NULL;
}

/* The fixture's Gemini CLI session imported into @db: its id. */
static char *
import_gemini (PdTestDb *db)
{
  g_autofree char *gemini = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "gemini", "tmp", NULL);
  const char *argv[] = { g_getenv ("PLANDECK_AGENT"), "import", "--db", db->path, "--gemini-dir", gemini, NULL };
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(GError) error = NULL;
  char *id = NULL;
  guint total = 0;
  int status = -1;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  listed = pd_session_store_list (db->store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < listed->len && id == NULL; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (listed, i);

      if (g_strcmp0 (info->task, TASK) == 0)
        id = g_strdup (info->id);
    }
  g_assert_nonnull (id);
  return id;
}

/* The step of @json's "checklist" titled @title. */
static JsonObject *
find_item (JsonObject *root,
           const char *title)
{
  JsonObject *checklist = json_object_get_object_member (root, "checklist");
  JsonArray *steps;

  g_assert_nonnull (checklist);
  steps = json_object_get_array_member (checklist, "steps");
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *step = json_array_get_object_element (steps, i);

      if (g_strcmp0 (json_object_get_string_member (step, "title"), title) == 0)
        return step;
    }
  g_assert_not_reached ();
  return NULL;
}

static void
check_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *plan, *step;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  /* The fields before stay as they were. */
  g_assert_true (json_object_has_member (root, "messages"));
  g_assert_true (json_object_has_member (root, "plan_versions"));
  g_assert_true (json_object_has_member (root, "events"));
  plan = json_object_get_object_member (root, "plan");
  g_assert_cmpint (json_object_get_int_member (plan, "done"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (plan, "total"), ==, 5);

  /* Each of the five counted is there, with whose it is. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_object_get_object_member (root, "checklist"),
                                                                        "steps")), ==, 6);
  step = find_item (root, "Install a SIGHUP handler");
  g_assert_cmpstr (json_object_get_string_member (step, "origin"), ==, "agent");
  g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "pending");
  g_assert_cmpstr (json_object_get_string_member (step, "agent_status"), ==, "completed");
  g_assert_false (json_object_get_boolean_member (step, "user_checked"));
  step = find_item (root, "Log each reload");
  g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (step, "agent_status"), ==, "in_progress");
  g_assert_true (json_object_get_boolean_member (step, "user_checked"));
  step = find_item (root, "Find where the config is loaded");
  g_assert_cmpstr (json_object_get_string_member (step, "origin"), ==, "agent");
  g_assert_false (json_object_has_member (step, "user_checked"));
  step = find_item (root, "Document the signal");
  g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "cancelled");
  step = find_item (root, "Tell the team about SIGHUP");
  g_assert_cmpstr (json_object_get_string_member (step, "origin"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "done");
}

static void
test_export_user_checklist (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *out_dir = pd_test_make_tmp_dir ();
  g_autofree char *md_path = g_build_filename (out_dir, "s.md", NULL);
  g_autofree char *json_path = g_build_filename (out_dir, "s.json", NULL);
  g_autofree char *id = import_gemini (db);
  g_autoptr(GAsyncResult) got = NULL;
  g_autoptr(GAsyncResult) saved = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *json = NULL;
  g_autofree char *cli = NULL;
  const char *argv[] = { g_getenv ("PLANDECK_AGENT"), "sessions", "export", "--db", db->path, id, NULL };
  int status = -1;

  /* As the Now page does: untick an agent's done item, tick another, add
   * an own item and tick it. */
  pd_source_get_checklist_async (PD_SOURCE (db->source), id, NULL, on_result, &got);
  pd_test_wait_until (has_result, &got, "the checklist");
  checklist = pd_source_get_checklist_finish (PD_SOURCE (db->source), got, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 5);
  g_assert_cmpstr (pd_checklist_get_agent_item (checklist, 1)->text, ==, "Install a SIGHUP handler");
  g_assert_cmpstr (pd_checklist_get_agent_item (checklist, 4)->text, ==, "Log each reload");
  pd_checklist_set_checked (checklist, 1, FALSE);
  pd_checklist_set_checked (checklist, 4, TRUE);
  pd_checklist_add_user_item (checklist, "Tell the team about SIGHUP");
  pd_checklist_set_user_item_done (checklist, 0, TRUE);
  pd_source_save_checklist_async (PD_SOURCE (db->source), id, checklist, NULL, on_result, &saved);
  pd_test_wait_until (has_result, &saved, "the save");
  g_assert_true (pd_source_save_checklist_finish (PD_SOURCE (db->source), saved, &error));
  g_assert_no_error (error);

  markdown = pd_test_export_to (PD_SOURCE (db->source), id, PD_SESSION_EXPORT_MARKDOWN, md_path);
  g_test_message ("%s", markdown);
  g_assert_nonnull (strstr (markdown, "- [ ] Install a SIGHUP handler (Pending, unticked by you; the agent: Done)\n"));
  g_assert_nonnull (strstr (markdown, "- [x] Log each reload (Done, ticked by you; the agent: In progress)\n"));
  g_assert_nonnull (strstr (markdown, "- [x] Find where the config is loaded (Done)\n"));
  g_assert_nonnull (strstr (markdown, "- [ ] Document the signal (Cancelled)\n"));
  g_assert_nonnull (strstr (markdown, "- [x] Tell the team about SIGHUP (Done, yours)\n"));

  json = pd_test_export_to (PD_SOURCE (db->source), id, PD_SESSION_EXPORT_JSON, json_path);
  check_json (json);

  /* `sessions export` writes the same. */
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &cli, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  check_json (cli);

  pd_test_remove_tree (out_dir);
}

/* --- the list row follows the ticks ------------------------------------------- */

typedef struct
{
  PdSessionList *list;
  const char    *id;
  guint          done;
  guint          total;
} RowWait;

static gboolean
row_says (gpointer data)
{
  RowWait *wait = data;
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (wait->list));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      const PdSessionInfo *info = pd_session_item_get_info (item);

      if (g_strcmp0 (pd_session_item_get_id (item), wait->id) == 0)
        return info->plan_done == wait->done && info->plan_total == wait->total;
    }
  return FALSE;
}

static gboolean
list_loaded (gpointer data)
{
  return pd_session_list_get_loaded (data) && !pd_session_list_get_busy (data);
}

/* Tried as a new user would, 577 sessions listed: after a tick on the Now
 * page the page and the CLI said 4/5, the session's row 3/4 until a
 * restart.  A tick is no activity, so the session keeps its place below
 * the first page, and a refresh read the first page only. */
static void
test_row_follows_ticks (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = import_gemini (db);
  g_autoptr(GAsyncResult) got = NULL;
  g_autoptr(GAsyncResult) saved = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  PdSessionList *list;
  RowWait wait;

  /* Newer sessions of this computer above it: more than a page. */
  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *task = g_strdup_printf ("Newer session %u", i);

      g_free (pd_test_db_create_session (db, task));
    }
  pd_local_source_watch (db->source, 1000);
  list = g_object_new (PD_TYPE_SESSION_LIST, NULL);
  window = pd_test_present (GTK_WIDGET (list), 320, 600);
  pd_session_list_set_source (list, PD_SOURCE (db->source));
  pd_test_wait_until (list_loaded, list, "the list");
  wait = (RowWait) { list, id, 3, 4 };
  pd_test_wait_until (row_says, &wait, "the row at 3/4");
  g_assert_true (pd_session_list_select (list, id));

  pd_source_get_checklist_async (PD_SOURCE (db->source), id, NULL, on_result, &got);
  pd_test_wait_until (has_result, &got, "the checklist");
  checklist = pd_source_get_checklist_finish (PD_SOURCE (db->source), got, NULL, &error);
  g_assert_no_error (error);
  pd_checklist_set_checked (checklist, 4, TRUE);
  pd_checklist_add_user_item (checklist, "Tell the team about SIGHUP");
  pd_source_save_checklist_async (PD_SOURCE (db->source), id, checklist, NULL, on_result, &saved);
  pd_test_wait_until (has_result, &saved, "the save");
  g_assert_true (pd_source_save_checklist_finish (PD_SOURCE (db->source), saved, &error));
  g_assert_no_error (error);

  wait = (RowWait) { list, id, 4, 5 };
  pd_test_wait_until (row_says, &wait, "the row at 4/5");
  gtk_window_destroy (window);
}

/* --- Remove From List during a search ------------------------------------------ */

static gboolean
five_matches (gpointer data)
{
  return list_loaded (data)
         && g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (data))) == 5;
}

/* Tried as a new user would: a session removed from the list during a
 * search left no session selected, and the page said "No Matching
 * Sessions — Try other words…" beside 29 matches.  Without a search the
 * next session is selected. */
static void
test_remove_during_search (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdSessionItem) next = NULL;
  g_autofree char *removed = NULL;
  GListModel *model;
  GtkWindow *window;
  PdSessionList *list;
  PdSessionItem *selected;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *match = g_strdup_printf ("Lantern match %u", i);
      g_autofree char *other = g_strdup_printf ("Other work %u", i);

      g_free (pd_test_db_create_session (db, match));
      g_free (pd_test_db_create_session (db, other));
    }
  list = g_object_new (PD_TYPE_SESSION_LIST, NULL);
  window = pd_test_present (GTK_WIDGET (list), 320, 600);
  pd_session_list_set_source (list, PD_SOURCE (db->source));
  pd_test_wait_until (list_loaded, list, "the list");
  pd_session_list_set_query (list, "Lantern", FALSE);
  pd_test_wait_until (five_matches, list, "the five matches");

  model = G_LIST_MODEL (pd_session_list_get_model (list));
  {
    g_autoptr(PdSessionItem) second = g_list_model_get_item (model, 1);

    removed = g_strdup (pd_session_item_get_id (second));
  }
  next = g_list_model_get_item (model, 2);
  g_assert_true (pd_session_list_select (list, removed));

  /* What Remove From List and Delete do while their toast offers Undo. */
  pd_session_list_set_hidden (list, removed, TRUE);
  selected = pd_session_list_get_selected_item (list);
  g_assert_nonnull (selected);
  g_assert_cmpstr (pd_session_item_get_id (selected), ==, pd_session_item_get_id (next));

  /* The last match removed: the one before it. */
  {
    g_autoptr(PdSessionItem) last = g_list_model_get_item (model, 4);
    g_autoptr(PdSessionItem) before = g_list_model_get_item (model, 3);

    g_assert_true (pd_session_list_select (list, pd_session_item_get_id (last)));
    pd_session_list_set_hidden (list, pd_session_item_get_id (last), TRUE);
    selected = pd_session_list_get_selected_item (list);
    g_assert_nonnull (selected);
    g_assert_cmpstr (pd_session_item_get_id (selected), ==, pd_session_item_get_id (before));
  }
  gtk_window_destroy (window);
}

int
main (int    argc,
      char **argv)
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/export-checklist/user-items", test_export_user_checklist);
  g_test_add_func ("/pd/ui/export-checklist/row-follows-ticks", test_row_follows_ticks);
  g_test_add_func ("/pd/ui/export-checklist/remove-during-search", test_remove_during_search);

  return g_test_run ();
}

/* test-transcript-follow.c: the Transcript page of an imported session
 * whose transcript grows, on a real file followed by the local source.
 *
 * A 30 MB Claude Code session grown by 200 lines every 0.5 s (tried as an
 * attacker would): each change read the whole transcript again and the
 * page's rows were rebuilt and compared on the main thread.  The rows the
 * page shows after the appends are a fresh read's, and none is removed
 * from its model on the way: the new ones are appended.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "../pd-import-test.h"
#include "pd-import-index-private.h"
#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-message-item.h"
#include "pd-session-list.h"
#include "pd-session-reads.h"
#include "pd-window.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"
#include "pd-transcript-view-private.h"

#define ROUNDS  5
/* Copies of the fixture the transcript holds when first shown. */
#define INITIAL 4

/* The fixture's lines (a Claude Code session in plan mode: thinking, tool
 * calls and results, ExitPlanMode, TodoWrite), copy @n of them: its ids
 * made the copy's own, as an agent goes on with new messages. */
static char *
fixture_copy (guint n)
{
  g_autofree char *path = pd_import_test_fixture_file ("claude-code/-home-dev-src-inkwell",
                                                       "b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl");
  g_autofree char *text = NULL;
  g_autoptr(GString) copy = NULL;
  const char *members[] = { "\"id\":\"", "\"tool_use_id\":\"", "\"uuid\":\"", "\"parentUuid\":\"" };

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  copy = g_string_new (text);
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      g_autofree char *renamed = g_strdup_printf ("%sr%u-", members[i], n);

      g_string_replace (copy, members[i], renamed, 0);
    }
  return g_string_free (g_steal_pointer (&copy), FALSE);
}

static char *
fixture_copies (guint from,
                guint to)
{
  GString *text = g_string_new (NULL);

  for (guint n = from; n < to; n++)
    {
      g_autofree char *one = fixture_copy (n);

      g_string_append (text, one);
    }
  return g_string_free (text, FALSE);
}

/* The messages a reader of its own reads of @path now. */
static JsonArray *
fresh_messages (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("claude", path, NULL, &error);
  g_autoptr(PdTranscriptPages) pages = NULL;

  g_assert_no_error (error);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  return pd_transcript_pages_dup_messages (pages);
}

typedef struct
{
  GListModel *model;
  JsonArray  *want;
} RowsWait;

static gboolean
rows_are (gpointer data)
{
  RowsWait *wait = data;
  g_autoptr(PdMessageItem) last = NULL;
  g_autoptr(PdMessageItem) want = NULL;
  guint n = g_list_model_get_n_items (wait->model);

  if (n == 0 || n != json_array_get_length (wait->want))
    return FALSE;
  last = g_list_model_get_item (wait->model, n - 1);
  want = pd_message_item_new_from_json (n - 1, json_array_get_object_element (wait->want, n - 1));
  return pd_message_item_equal (last, want);
}

static void
on_items_added (GListModel *model,
                guint       position,
                guint       removed,
                guint       added,
                guint      *n_added)
{
  *n_added += added;
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  guint      *n_removed)
{
  *n_removed += removed;
}

/* The rows shown are a fresh read's: as many, each the same message. */
static void
assert_rows_fresh (GListModel *model,
                   JsonArray  *fresh)
{
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, json_array_get_length (fresh));
  for (guint i = 0; i < json_array_get_length (fresh); i++)
    {
      g_autoptr(PdMessageItem) row = g_list_model_get_item (model, i);
      g_autoptr(PdMessageItem) want = pd_message_item_new_from_json (i, json_array_get_object_element (fresh, i));

      g_assert_true (pd_message_item_equal (row, want));
    }
}

typedef struct
{
  char *home;
  char *path;
  char *db;
} FollowRun;

static PdSessionList *
session_list (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

static gboolean
import_done (gpointer data)
{
  PdWindow *window = data;
  PdSource *source = pd_window_get_source (window);

  return PD_IS_LOCAL_SOURCE (source) && pd_local_source_get_n_followed (PD_LOCAL_SOURCE (source)) > 0 &&
         pd_session_list_get_loaded (session_list (window)) && !pd_session_list_get_busy (session_list (window)) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (session_list (window)))) == 1;
}

static void
check_follow (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  FollowRun *run = user_data;
  AdwViewStack *views = ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  GtkWidget *transcript = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_TRANSCRIPT_VIEW);
  GListModel *model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (transcript));
  g_autoptr(PdSessionItem) item = NULL;
  g_autofree char *id = NULL;
  RowsWait wait = { model, NULL };
  guint n_removed = 0, n_added = 0;
  guint built_before, built, merged_before, merged;
  gulong handler;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  pd_test_wait_until (import_done, window, "the import to end");
  item = g_list_model_get_item (G_LIST_MODEL (pd_session_list_get_model (session_list (window))), 0);
  id = g_strdup (pd_session_item_get_id (item));
  g_assert_true (pd_session_list_select (session_list (window), id));
  adw_view_stack_set_visible_child_name (views, "transcript");

  wait.want = fresh_messages (run->path);
  pd_test_wait_until (rows_are, &wait, "the transcript's rows");
  assert_rows_fresh (model, wait.want);

  built_before = _pd_transcript_view_get_n_built (PD_TRANSCRIPT_VIEW (transcript), &merged_before);
  handler = g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &n_removed);
  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_added), &n_added);
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *more = fixture_copy (INITIAL + round);

      /* The agent writes on; the file's monitor says so, the page follows. */
      pd_import_test_append (run->path, more);
      json_array_unref (wait.want);
      wait.want = fresh_messages (run->path);
      pd_test_wait_until (rows_are, &wait, "the appended rows");
    }
  assert_rows_fresh (model, wait.want);
  /* Appended at the end: no row was taken out of the list and put back
   * (the rows were rebuilt and compared, the changed ones replaced). */
  built = _pd_transcript_view_get_n_built (PD_TRANSCRIPT_VIEW (transcript), &merged) - built_before;
  merged -= merged_before;
  g_test_message ("rows removed %u, added %u, built %u in %u reads, shown %u", n_removed, n_added, built, merged,
                  g_list_model_get_n_items (model));
  g_assert_cmpuint (n_removed, ==, 0);
  /* Built on the main thread: the new rows and, for each read, the newest
   * ones that may still change; never every row for each change. */
  g_assert_cmpuint (merged, >=, ROUNDS);
  g_assert_cmpuint (built, <=, n_added + merged * PD_TRANSCRIPT_VIEW_FOLLOW_TAIL);
  g_signal_handlers_disconnect_by_data (model, &n_added);
  g_signal_handler_disconnect (model, handler);

  /* Rewritten shorter: read whole again and shown as it is now. */
  {
    g_autofree char *shorter = fixture_copy (0);
    FILE *file = fopen (run->path, "w");

    g_assert_nonnull (file);
    fputs (shorter, file);
    fclose (file);
    json_array_unref (wait.want);
    wait.want = fresh_messages (run->path);
    pd_test_wait_until (rows_are, &wait, "the rewritten transcript's rows");
    assert_rows_fresh (model, wait.want);
  }
  json_array_unref (wait.want);
}

static void
test_transcript_follow_appends (void)
{
  FollowRun run = { 0 };
  g_autofree char *claude = NULL;
  g_autofree char *project = NULL;
  g_autofree char *text = fixture_copies (0, INITIAL);
  const char *args[] = { "--db", NULL, NULL };

  run.home = pd_test_make_tmp_dir ();
  claude = g_build_filename (run.home, "claude", NULL);
  project = g_build_filename (claude, "projects", "-work", NULL);
  run.path = g_build_filename (project, "f1.jsonl", NULL);
  run.db = g_build_filename (run.home, "sessions.db", NULL);
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (run.path, text, -1, NULL));
  g_setenv ("CLAUDE_CONFIG_DIR", claude, TRUE);
  {
    g_autoptr(PdDb) created = pd_db_open (run.db, PD_DB_CREATE, NULL);

    g_assert_nonnull (created);
  }
  args[1] = run.db;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_follow, &run, NULL), ==, 0);

  pd_test_remove_tree (run.home);
  g_free (run.home);
  g_free (run.path);
  g_free (run.db);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/transcript-follow/appends", test_transcript_follow_appends);

  return g_test_run ();
}

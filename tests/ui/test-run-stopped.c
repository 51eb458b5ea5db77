/* test-run-stopped.c: a run that stopped short looks the same on every page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Real views on a real database holding what a run its budget stopped
 * leaves, as the engine writes it: two plan versions (and their plan
 * messages) with a step in progress, then budget_exceeded and a
 * run_completed that names the budget.  Tried as a new user would: the
 * Now page showed that step as a square, "In progress when the run
 * stopped", the Transcript's plan card and the History circling arrows;
 * and a run stopped before its plan read "Stopped — its budget ran out"
 * without saying which.  Screenshots with PD_TEST_SCREENSHOT_DIR.
 */
#define G_LOG_DOMAIN "test-run-stopped"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-history-view.h"
#include "pd-now-view.h"
#include "pd-plan-row-item.h"
#include "pd-test-stopped-run.h"
#include "pd-transcript.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"
#include "pd-transcript-view.h"
#include "pd-ui-util-private.h"

#define STOPPED_GLYPH "media-playback-stop-symbolic"
#define STOPPED_WORDS "In progress when the run stopped"

typedef struct
{
  GtkWidget  *view;
  guint       index;
  const char *tooltip;
} GlyphWait;

static gboolean
row_has_glyph (gpointer user_data)
{
  GlyphWait *wait = user_data;
  PdMessageRow *row = pd_test_message_row (wait->view, wait->index);

  return row != NULL && pd_test_find_first (GTK_WIDGET (row), pd_test_is_image_with_tooltip, wait->tooltip) != NULL;
}

/* Two plan versions, each told the model; the run's budget then ran out. */
static char *
budget_stopped_session (PdTestDb *db)
{
  char *id = pd_test_db_create_session (db, "Add the export");
  g_autoptr(PdPlanState) first = pd_test_sample_plan (1);
  g_autoptr(PdPlanState) second = pd_test_sample_plan (2);
  g_autoptr(JsonArray) messages = json_array_new ();

  json_array_add_object_element (messages, pd_test_message ("user", "Add the export"));
  json_array_add_object_element (messages, pd_test_plan_message (first));
  pd_test_db_save (db, id, messages, 0, first);
  json_array_add_object_element (messages, pd_test_message ("assistant", "Writing the export."));
  json_array_add_object_element (messages, pd_test_plan_message (second));
  pd_test_db_save (db, id, messages, 2, second);

  pd_test_db_add_stopped_run (db, id, "iterations", 2, 2, 2, 2000, 30, 10);
  return id;
}

/* As the window decides it for the shown session (pd-window-shown.c). */
static gboolean
run_stopped (PdTestDb   *db,
             const char *id)
{
  g_autoptr(GError) error = NULL;
  PdSessionInfo *info = pd_session_store_get (db->store, id, &error);
  gboolean stopped;

  g_assert_no_error (error);
  g_assert_cmpstr (info->stopped, ==, "budget");
  stopped = _pd_run_left_off (info->status, info->stopped);
  pd_session_info_free (info);
  return stopped;
}

static void
test_transcript_glyph (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = budget_stopped_session (db);
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  GlyphWait glyph = { view, 3, STOPPED_WORDS };
  GtkWidget *image;

  g_assert_true (run_stopped (db, id));
  window = pd_test_show_session (view, db, id, 900, 1400);
  pd_transcript_view_set_run_stopped (PD_TRANSCRIPT_VIEW (view), TRUE);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));

  /* The last plan card: the Now page's square and its words. */
  g_assert_true (pd_test_wait_for (row_has_glyph, &glyph));
  image = pd_test_find_first (GTK_WIDGET (pd_test_message_row (view, 3)), pd_test_is_image_with_tooltip, STOPPED_WORDS);
  g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (image)), ==, STOPPED_GLYPH);
  /* The card before it: a plan the run went on from, in progress then. */
  image = pd_test_find_first (GTK_WIDGET (pd_test_message_row (view, 1)), pd_test_is_image_with_tooltip, "In progress");
  g_assert_nonnull (image);
  g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (image)), ==, pd_plan_step_status_icon_name (PD_PLAN_STEP_IN_PROGRESS));
  pd_test_screenshot_sizes (window, "transcript-run-stopped");

  /* A run goes on again: the arrows. */
  pd_transcript_view_set_run_stopped (PD_TRANSCRIPT_VIEW (view), FALSE);
  glyph.tooltip = "In progress";
  g_assert_true (pd_test_wait_for (row_has_glyph, &glyph));
  g_assert_null (pd_test_find_first (view, pd_test_is_image_with_tooltip, STOPPED_WORDS));

  pd_test_destroy_window (window, view);
}

static void
test_history_glyph (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = budget_stopped_session (db);
  GtkWidget *view = pd_history_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  GtkWidget *image;

  window = pd_test_show_session (view, db, id, 900, 700);
  pd_history_view_set_run_stopped (PD_HISTORY_VIEW (view), run_stopped (db, id));
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 2;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));

  /* The newest version: the plan the run left. */
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 2));
  pd_test_flush (GTK_WIDGET (window));
  image = pd_test_find_first (view, pd_test_is_image_with_tooltip, STOPPED_WORDS);
  g_assert_nonnull (image);
  g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (image)), ==, STOPPED_GLYPH);
  g_assert_null (pd_test_find_first (view, pd_test_is_image_with_tooltip, "In progress"));
  pd_test_screenshot_sizes (window, "history-run-stopped");

  /* An older one: in progress then, worked on after. */
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 1));
  pd_test_flush (GTK_WIDGET (window));
  image = pd_test_find_first (view, pd_test_is_image_with_tooltip, "In progress");
  g_assert_nonnull (image);
  g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (image)), ==, pd_plan_step_status_icon_name (PD_PLAN_STEP_IN_PROGRESS));
  g_assert_null (pd_test_find_first (view, pd_test_is_image_with_tooltip, STOPPED_WORDS));

  pd_test_destroy_window (window, view);
}

static gboolean
shows_budget (gpointer view)
{
  return pd_test_find_first (view, pd_test_is_mapped_label, "Stopped — its token budget ran out") != NULL;
}

/* A run its token budget stopped before it made a plan: the Now page
 * names the budget, from what the store read of its run_completed. */
static void
test_budget_named (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Summarise the project");
  g_autoptr(GError) error = NULL;
  PdSessionInfo *info;
  GtkWidget *view = pd_now_view_new ();
  GtkWindow *window;

  pd_test_db_add_stopped_run (db, id, "tokens", 1, 5000, 4000, 2000, 4000, 1000);
  info = pd_session_store_get (db->store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->stopped, ==, "budget");
  g_assert_cmpstr (info->stopped_error, ==, "tokens");

  window = pd_test_show_session (view, db, id, 900, 600);
  pd_now_view_set_run_end (PD_NOW_VIEW (view), info->status, info->stopped, info->stopped_error);
  g_assert_true (pd_test_wait_for (shows_budget, view));
  g_assert_null (pd_test_find_first (view, pd_test_is_mapped_label, "Stopped — its budget ran out"));
  pd_test_screenshot_sizes (window, "now-budget-named");

  /* The same words with a plan, where no event says it (as its card). */
  {
    g_autofree char *with_plan = _pd_run_ended_short_text (info->status, info->stopped, info->stopped_error, 600);

    g_assert_cmpstr (with_plan, ==, "Stopped — its token budget ran out");
  }
  pd_session_info_free (info);
  pd_test_destroy_window (window, view);
}

static gboolean
shows_time_budget (gpointer view)
{
  return pd_test_find_label_containing (view, "its time budget ran out (2.0 s of 2 s)") != NULL;
}

/* A run its time budget stopped: the Now page's notice names it "time",
 * in seconds.  It read "its wall_time budget is exhausted (2001 of 2000)"
 * (tried as a new user would). */
static void
test_time_budget (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Summarise the project");
  g_autoptr(GError) error = NULL;
  PdSessionInfo *info;
  GtkWidget *view = pd_now_view_new ();
  GtkWindow *window;

  pd_test_db_add_stopped_run (db, id, "wall_time", 1, 2001, 2000, 2001, 40, 10);
  info = pd_session_store_get (db->store, id, &error);
  g_assert_no_error (error);

  window = pd_test_show_session (view, db, id, 900, 600);
  pd_now_view_set_run_end (PD_NOW_VIEW (view), info->status, info->stopped, info->stopped_error);
  g_assert_true (pd_test_wait_for (shows_time_budget, view));
  g_assert_null (pd_test_find_label_containing (view, "wall_time"));
  g_assert_null (pd_test_find_label_containing (view, "2001"));
  pd_test_screenshot_sizes (window, "now-time-budget");
  pd_session_info_free (info);
  pd_test_destroy_window (window, view);
}

static gboolean
shows_note (gpointer view)
{
  PdMessageRow *row = pd_test_message_row (view, 2);

  return row != NULL &&
         pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing,
                             "The run stopped: its iteration budget ran out (2 of 2)") != NULL;
}

/* The note of a run its budget stopped, as the engine keeps it (for the
 * record, the plan's part wrapped): a notice of its own, shown whole.  It
 * was the last message, folded under "System — System prompt (4 lines)"
 * (tried as a new user would). */
static void
test_transcript_note (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Add the export");
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  g_autoptr(JsonArray) messages = json_array_new ();
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  PdMessageRow *row;

  json_array_add_object_element (messages, pd_test_message ("user", "Add the export"));
  json_array_add_object_element (messages, pd_test_plan_message (plan));
  json_array_add_object_element (messages,
                                 pd_message_new_note ("[plandeck: the run stopped because its iterations budget is "
                                                      "exhausted (2 of 2).]\n<untrusted_content_0f1e2d3c "
                                                      "source=\"plan_remaining\">\n[plan remaining: s2 in_progress, s3 pending]\n"
                                                      "</untrusted_content_0f1e2d3c>"));
  pd_test_db_save (db, id, messages, 0, plan);

  window = pd_test_show_session (view, db, id, 900, 900);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  g_assert_true (pd_test_wait_for (shows_note, view));
  row = pd_test_message_row (view, 2);
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label, "Notice"));
  /* The user's words: the engine's ("iterations budget is exhausted",
   * "in_progress") read as said to a model (tried as a new user would). */
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing,
                                        "Steps left: s2 in progress, s3 pending"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "is exhausted"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "in_progress"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "System prompt"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "untrusted_content"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label, "System"));
  pd_test_screenshot_sizes (window, "transcript-note");
  pd_test_destroy_window (window, view);
}

#define CUT_SESSION "0badc0de-7777-4888-9999-aaaabbbbcccd"

static gboolean
shows_cut_notice (gpointer view)
{
  return pd_test_find_first (view, pd_test_is_mapped_label_containing,
                             "The rest of this transcript is not shown") != NULL;
}

/* An imported transcript past its session's budget ends with the import's
 * notice of the rest left out.  It sat folded under "System › System
 * prompt (1 line)", read only when opened (tried as a new user would,
 * nu15): it is a notice, shown whole.  Before, shows_cut_notice timed out
 * (the text was in the closed expander, not mapped). */
static void
test_transcript_cut_notice (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A long imported session");
  g_autofree char *root = g_dir_make_tmp ("pd-cut-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (root, CUT_SESSION ".jsonl", NULL);
  g_autoptr(GString) lines = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdMessageRow *row;
  guint n;

  /* 200 answers of 50 tiny calls each: far past a 64 KiB budget. */
  for (guint i = 0; i < 200; i++)
    {
      g_string_append_printf (lines, "{\"parentUuid\":null,\"sessionId\":\"" CUT_SESSION "\",\"cwd\":\"/home/dev/proj\","
                                     "\"type\":\"assistant\",\"uuid\":\"u%u\",\"timestamp\":\"2026-03-09T14:00:00.000Z\","
                                     "\"message\":{\"role\":\"assistant\",\"content\":[", i);
      for (guint j = 0; j < 50; j++)
        g_string_append_printf (lines, "%s{\"type\":\"tool_use\",\"id\":\"t%u_%u\",\"name\":\"B\",\"input\":{}}",
                                j > 0 ? "," : "", i, j);
      g_string_append (lines, "]}}\n");
    }
  g_assert_true (g_file_set_contents (path, lines->str, (gssize) lines->len, &error));
  g_assert_no_error (error);
  reader = pd_transcript_reader_new_for_format ("claude", path, CUT_SESSION, &error);
  g_assert_no_error (error);
  _pd_transcript_pages_set_budget_bytes (64 * 1024);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  _pd_transcript_pages_set_budget_bytes (0);
  g_assert_no_error (error);
  g_assert_true (_pd_transcript_pages_get_cut (pages, NULL, NULL));
  messages = pd_transcript_pages_dup_messages (pages);
  n = json_array_get_length (messages);
  pd_test_db_save (db, id, messages, 0, NULL);

  window = pd_test_show_session (view, db, id, 360, 700);
  g_assert_true (pd_test_wait_for (shows_cut_notice, view));
  row = pd_test_message_row (view, n - 1);
  g_assert_nonnull (row);
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label, "Notice"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "System prompt"));
  {
    /* In view for the screenshot: the newest, at the end. */
    GtkWidget *scroller = pd_test_find_widget (view, GTK_TYPE_SCROLLED_WINDOW);
    GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
    pd_test_flush (GTK_WIDGET (window));
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
    pd_test_flush (GTK_WIDGET (window));
  }
  pd_test_screenshot (GTK_WIDGET (window), "transcript-cut-notice-360");
  pd_test_destroy_window (window, view);
  g_unlink (path);
  g_rmdir (root);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/run-stopped/transcript-glyph", test_transcript_glyph);
  g_test_add_func ("/pd/ui/run-stopped/history-glyph", test_history_glyph);
  g_test_add_func ("/pd/ui/run-stopped/budget-named", test_budget_named);
  g_test_add_func ("/pd/ui/run-stopped/time-budget", test_time_budget);
  g_test_add_func ("/pd/ui/run-stopped/transcript-note", test_transcript_note);
  g_test_add_func ("/pd/ui/run-stopped/transcript-cut-notice", test_transcript_cut_notice);

  return g_test_run ();
}

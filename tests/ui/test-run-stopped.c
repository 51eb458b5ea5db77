/* test-run-stopped.c: a run that stopped short, as its pages say it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Real views on a real database holding what a run its budget stopped
 * leaves, as the engine writes it: budget_exceeded and a run_completed
 * that names the budget.  Tried as a new user would: a run stopped before
 * its plan read "Stopped — its budget ran out" without saying which.
 * Screenshots with PD_TEST_SCREENSHOT_DIR.
 */
#define G_LOG_DOMAIN "test-run-stopped"

#include "config.h"

#include <string.h>

#include "pd-now-view.h"
#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"

static gboolean
is_mapped_label (GtkWidget     *widget,
                 gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

static gboolean
shows_budget (gpointer view)
{
  return pd_test_find_first (view, is_mapped_label, "Stopped — its tokens budget ran out") != NULL;
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

  pd_test_db_add_event (db, id, PD_EVENT_RUN_STARTED, NULL, 0, "{\"model\":\"test-model\",\"provider\":\"replay\"}");
  pd_test_db_add_event (db, id, PD_EVENT_BUDGET_EXCEEDED, NULL, 1,
                        "{\"limit_name\":\"tokens\",\"observed\":5000,\"limit\":4000}");
  pd_test_db_add_event (db, id, PD_EVENT_RUN_COMPLETED, NULL, 0,
                        "{\"budget_exceeded\":\"tokens\",\"duration_ms\":2000,\"input_tokens\":4000,"
                        "\"output_tokens\":1000}");
  info = pd_session_store_get (db->store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->stopped, ==, "budget");
  g_assert_cmpstr (info->stopped_error, ==, "tokens");

  window = pd_test_present (view, 900, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_now_view_set_run_end (PD_NOW_VIEW (view), info->status, info->stopped, info->stopped_error);
  g_assert_true (pd_test_wait_for (shows_budget, view));
  g_assert_null (pd_test_find_first (view, is_mapped_label, "Stopped — its budget ran out"));
  pd_test_screenshot_sizes (window, "now-budget-named");

  /* The same words with a plan, where no event says it (as its card). */
  {
    g_autofree char *with_plan = _pd_run_ended_short_text (info->status, info->stopped, info->stopped_error, 600);

    g_assert_cmpstr (with_plan, ==, "Stopped — its tokens budget ran out");
  }
  pd_session_info_free (info);
  pd_test_destroy_window (window, view);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/run-stopped/budget-named", test_budget_named);

  return g_test_run ();
}

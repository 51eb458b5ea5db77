/* test-times.c: a moment shown with its day when it is not today
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Real PdHistoryView and PdEventsView widgets on a real database.  Tried as
 * a new user would: an imported Codex session's History listed versions of
 * 14 and 15 March as "09:13:47" then "07:55:11" and seemed to go back in
 * time; the Events page showed times alone too.  A time shows its day when
 * it is not today, and its year when it is not this year, as GNOME's apps
 * show one.
 */
#define G_LOG_DOMAIN "test-times"

#include "config.h"

#include <string.h>

#include "pd-event-item.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-import-index.h"
#include "pd-plan-version-item.h"
#include "pd-session-store.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

typedef struct
{
  GListModel *model;
  guint       n;
} CountWait;

static gboolean
has_n_items (gpointer user_data)
{
  CountWait *wait = user_data;

  return g_list_model_get_n_items (wait->model) == wait->n;
}

static gboolean
is_mapped_label (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_equal (gtk_label_get_text (GTK_LABEL (widget)), data);
}

static gboolean
label_shown (gpointer user_data)
{
  gpointer *args = user_data;

  return pd_test_find_first (args[0], is_mapped_label, args[1]) != NULL;
}

static gboolean
this_year_is (int year)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  return g_date_time_get_year (now) == year;
}

/* The Codex fixture's plan versions: four of 14 March 2026, two of 15
 * March (in UTC, the zone this test runs in). */
static void
test_history_versions_show_their_day (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *rollout = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "codex", "sessions", "2026", "03",
                                               "14",
                                               "rollout-2026-03-14T09-12-40-019ceb9e-8409-72b7-bb14-1b6f441e1673.jsonl",
                                               NULL);
  const char *paths[2] = { rollout, NULL };
  /* "v3 · 14 Mar 09:13:28 · 1/3 done", with "2026 " after "Mar" in any
   * other year. */
  g_autofree char *pattern = g_strdup_printf ("^v[0-9]+ · 1[45] Mar %s[0-9]{2}:[0-9]{2}:[0-9]{2} · ",
                                              this_year_is (2026) ? "" : "2026 ");
  g_autoptr(GRegex) dated = g_regex_new (pattern, 0, 0, NULL);
  GtkWidget *view = pd_history_view_new ();
  guint on_14 = 0, on_15 = 0;
  GtkWindow *window;
  CountWait wait;
  gpointer args[2];

  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 6;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  for (guint i = 0; i < wait.n; i++)
    {
      g_autoptr(PdPlanVersionItem) item = g_list_model_get_item (wait.model, i);
      const char *label = pd_plan_version_item_get_label (item);

      g_test_message ("%s", label);
      if (!g_regex_match (dated, label, 0, NULL))
        g_error ("“%s” does not say its day", label);
      on_14 += strstr (label, " 14 Mar ") != NULL;
      on_15 += strstr (label, " 15 Mar ") != NULL;
    }
  g_assert_cmpuint (on_14, ==, 4);
  g_assert_cmpuint (on_15, ==, 2);

  /* And the list shows them so. */
  {
    g_autoptr(PdPlanVersionItem) last = g_list_model_get_item (wait.model, wait.n - 1);

    args[0] = view;
    args[1] = (gpointer) pd_plan_version_item_get_label (last);
    g_assert_true (pd_test_wait_for (label_shown, args));
  }
  pd_test_screenshot_sizes (window, "times-history-codex");
  pd_test_destroy_window (window, view);
}

static gint64
add_event_at (PdTestDb   *db,
              const char *session_id,
              const char *type,
              gint64      timestamp)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEvent) event = pd_event_new_full (type, "run-1", session_id, 0, NULL, json_object_new ());
  g_autofree char *text = NULL;
  gint64 seq;

  if (timestamp > 0)
    pd_event_set_timestamp (event, timestamp);
  text = pd_event_to_json (event);
  seq = pd_session_store_add_event (db->store, session_id, "run-1", type, pd_event_get_timestamp (event),
                                    text, &error);
  g_assert_no_error (error);
  return seq;
}

/* Three events: one of 1 June 2020, one of yesterday, one now. */
static void
test_events_show_their_day (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A session of several days");
  g_autoptr(GDateTime) old = g_date_time_new_utc (2020, 6, 1, 12, 30, 5);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autoptr(GDateTime) yesterday = g_date_time_add_days (now, -1);
  g_autofree char *yesterday_day = g_date_time_format (yesterday, "%-d %b ");
  g_autoptr(GRegex) clock = g_regex_new ("^[0-9]{2}:[0-9]{2}:[0-9]{2}$", 0, 0, NULL);
  GtkWidget *view = pd_events_view_new ();
  GtkWindow *window = pd_test_present (view, 1000, 600);
  CountWait wait = { pd_events_view_get_model (PD_EVENTS_VIEW (view)), 3 };
  g_autoptr(PdEventItem) first = NULL;
  g_autoptr(PdEventItem) second = NULL;
  g_autoptr(PdEventItem) third = NULL;
  g_autoptr(GDateTime) later = NULL;
  gpointer args[2];

  add_event_at (db, id, PD_EVENT_RUN_STARTED, g_date_time_to_unix (old) * G_USEC_PER_SEC);
  add_event_at (db, id, PD_EVENT_RUN_STARTED, g_date_time_to_unix (yesterday) * G_USEC_PER_SEC);
  add_event_at (db, id, PD_EVENT_RUN_STARTED, 0);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  g_assert_true (pd_test_wait_for (has_n_items, &wait));

  first = g_list_model_get_item (wait.model, 0);
  second = g_list_model_get_item (wait.model, 1);
  third = g_list_model_get_item (wait.model, 2);
  g_assert_cmpstr (pd_event_item_get_time_text (first), ==, "1 Jun 2020 12:30:05");
  /* Yesterday: the day, no year (on 1 January yesterday is last year). */
  g_assert_true (g_str_has_prefix (pd_event_item_get_time_text (second), yesterday_day));
  if (g_date_time_get_year (yesterday) == g_date_time_get_year (now))
    g_assert_cmpuint (strlen (pd_event_item_get_time_text (second)), ==, strlen (yesterday_day) + 8);
  else
    g_assert_cmpuint (strlen (pd_event_item_get_time_text (second)), ==, strlen (yesterday_day) + 13);
  /* Today (unless midnight passed since it was added): the time alone. */
  later = g_date_time_new_now_local ();
  if (g_date_time_get_day_of_year (now) == g_date_time_get_day_of_year (later))
    g_assert_true (g_regex_match (clock, pd_event_item_get_time_text (third), 0, NULL));

  args[0] = view;
  args[1] = (gpointer) "1 Jun 2020 12:30:05";
  g_assert_true (pd_test_wait_for (label_shown, args));
  pd_test_screenshot_sizes (window, "times-events");
  pd_test_destroy_window (window, view);
}

int
main (int   argc,
      char *argv[])
{
  /* The fixture's days are UTC days. */
  g_setenv ("TZ", "UTC", TRUE);
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/times/history-versions-show-their-day", test_history_versions_show_their_day);
  g_test_add_func ("/pd/ui/times/events-show-their-day", test_events_show_their_day);

  return g_test_run ();
}

/* test-overview-card-ended.c: one Overview card, alone in a window, as
 * its run ends
 *
 * A failed or stopped card says where its run ended ("Failed at: …"), a
 * stopped one neutral, a failed one with its icon and reason, one whose
 * endpoint was killed as interrupted; until its sources first answered,
 * the Overview says it is loading.  The time since the last change:
 * test-overview-card-live.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview-card"

#include "config.h"

#include "test-overview-card-util.h"

static gboolean
is_status_label (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "pd-card-status");
}

/* @card with @info, alone at 360 px: a stopped card, its status label
 * reading @text, neither red nor amber. */
static GtkWidget *
show_stopped (Alone               *alone,
              PdOverviewCard      *card,
              const PdSessionInfo *info,
              const char          *text)
{
  GtkWidget *status;

  _pd_overview_card_set_info (card, info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  alone_show (alone, card, 360);
  status = pd_test_find_first (alone->row, is_status_label, NULL);
  g_assert_nonnull (status);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, text);
  g_assert_false (gtk_widget_has_css_class (status, "error"));
  g_assert_false (gtk_widget_has_css_class (status, "warning"));
  return status;
}

/* A run the person stopped reads "Stopped", neutral: not in red as a
 * failure (N21: "Stopped — cancelled" in red among the failed runs); one
 * that failed still reads red. */
static void
test_card_stopped (void)
{
  g_autoptr(PdOverviewCard) card = card_new ("Work on A", "plandeck", "This Computer");
  PdSessionInfo info = { 0 };
  Alone alone = { 0 };
  GtkWidget *status;

  info.id = (char *) "20260402-96aca9fa885c03da29d4f8c5e78be75c";
  info.task = (char *) "Work on A";
  info.source = (char *) "plandeck";
  info.status = PD_SESSION_STATUS_IDLE;
  info.stopped = (char *) "cancelled";
  info.updated_at = g_get_real_time ();
  info.plan_done = 1;
  info.plan_total = 3;
  status = show_stopped (&alone, card, &info, "Stopped");
  g_assert_false (gtk_widget_has_css_class (status, "success"));

  /* A run no person stopped (its endpoint stopped, or the client that
   * followed it went away) reads "Interrupted", neutral too; it read
   * "Stopped" (tried as a new user would). */
  info.stopped_error = (char *) "the endpoint (serve) stopped";
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
  _pd_overview_card_emit_changed (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "Interrupted");
  g_assert_false (gtk_widget_has_css_class (status, "error"));

  /* A failure stays one. */
  info.stopped = (char *) "failed";
  info.stopped_error = (char *) "HTTP 500";
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
  _pd_overview_card_emit_changed (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_FAILED);
  g_assert_true (gtk_widget_has_css_class (status, "error"));
  g_assert_false (gtk_widget_has_css_class (status, "dim-label"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (status)), "HTTP 500"));

  /* A run that completed with steps left: it ended, neutral, with how far
   * it got (it read "Working" while nothing ran: tried as a new user
   * would). */
  info.stopped = NULL;
  info.stopped_error = NULL;
  info.run_ended = TRUE;
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
  _pd_overview_card_emit_changed (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "Run ended · 1/3 done");
  g_assert_true (gtk_widget_has_css_class (status, "dim-label"));
  g_assert_false (gtk_widget_has_css_class (status, "accent"));
  /* A new run on: working again. */
  info.status = PD_SESSION_STATUS_RUNNING;
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
  _pd_overview_card_emit_changed (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_RUNNING);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "Running");
  alone_close (&alone);
}

/* The card's line of the current step, its text. */
static const char *
step_line (GtkWidget *row)
{
  GtkWidget *label = pd_test_find_first (row, label_contains, "Write the tests");

  g_assert_nonnull (label);
  return shown_text (label);
}

static void
card_set_run (PdOverviewCard *card,
              PdSessionInfo  *info,
              PdSessionStatus status,
              const char     *stopped,
              const char     *stopped_error)
{
  info->status = status;
  info->stopped = (char *) stopped;
  info->stopped_error = (char *) stopped_error;
  _pd_overview_card_set_info (card, info);
  _pd_overview_card_update_need (card, g_get_real_time (), G_MAXINT64 / 2);
  _pd_overview_card_emit_changed (card);
}

/* A run that failed or was stopped says where it ended: "Failed at: …",
 * "Stopped at: …"; it said "Now: …" as if the step were still worked on
 * (tried as a new user would).  A run on again says "Now: …". */
static void
test_card_step_ended (void)
{
  g_autoptr(PdOverviewCard) card = card_new ("Work on C", "plandeck", "build-box");
  PdSessionInfo info = { 0 };
  Alone alone = { 0 };
  GtkWidget *status;

  info.id = (char *) "20260402-96aca9fa885c03da29d4f8c5e78be75c";
  info.task = (char *) "Work on C";
  info.source = (char *) "plandeck";
  info.updated_at = g_get_real_time ();
  info.plan_done = 1;
  info.plan_total = 3;
  _pd_overview_card_set_current_step (card, 2, "Write the tests", TRUE, 0, NULL);
  card_set_run (card, &info, PD_SESSION_STATUS_RUNNING, NULL, NULL);
  alone_show (&alone, card, 600);
  g_assert_cmpstr (step_line (alone.row), ==, "Now: \u2068Write the tests\u2069");

  card_set_run (card, &info, PD_SESSION_STATUS_FAILED, "failed", "HTTP 500");
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_FAILED);
  g_assert_cmpstr (step_line (alone.row), ==, "Failed at: \u2068Write the tests\u2069");
  pd_test_screenshot_sizes (GTK_WINDOW (alone.window), "overview-card-failed-at");

  card_set_run (card, &info, PD_SESSION_STATUS_IDLE, "cancelled", NULL);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  g_assert_cmpstr (step_line (alone.row), ==, "Stopped at: \u2068Write the tests\u2069");

  /* Its budget ran out: stopped, neutral, and which budget; it read red
   * "Failed at: …" (tried as a new user would). */
  card_set_run (card, &info, PD_SESSION_STATUS_IDLE, "budget", "iterations");
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  g_assert_cmpstr (step_line (alone.row), ==, "Stopped at: \u2068Write the tests\u2069");
  status = pd_test_find_first (alone.row, is_status_label, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, "Stopped — its iteration budget ran out");
  g_assert_false (gtk_widget_has_css_class (status, "error"));
  g_assert_true (gtk_widget_has_css_class (status, "dim-label"));
  pd_test_screenshot_sizes (GTK_WINDOW (alone.window), "overview-card-budget-stopped");

  /* Its process killed, the run left unended: stopped there too. */
  card_set_run (card, &info, PD_SESSION_STATUS_INTERRUPTED, NULL, NULL);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  g_assert_cmpstr (step_line (alone.row), ==, "Stopped at: \u2068Write the tests\u2069");

  /* Stopped between steps: the step named is the next, never begun; the
   * card said "Stopped at: …" of it (tried as a new user would). */
  _pd_overview_card_set_current_step (card, 3, "Write the tests", FALSE, 0, NULL);
  card_set_run (card, &info, PD_SESSION_STATUS_IDLE, "cancelled", NULL);
  g_assert_cmpstr (step_line (alone.row), ==, "Next step: \u2068Write the tests\u2069");
  pd_test_screenshot_sizes (GTK_WINDOW (alone.window), "overview-card-next-step");
  card_set_run (card, &info, PD_SESSION_STATUS_FAILED, "failed", "HTTP 500");
  g_assert_cmpstr (step_line (alone.row), ==, "Next step: \u2068Write the tests\u2069");
  card_set_run (card, &info, PD_SESSION_STATUS_RUNNING, NULL, NULL);
  g_assert_cmpstr (step_line (alone.row), ==, "Now: \u2068Write the tests\u2069");

  _pd_overview_card_set_current_step (card, 4, "Write the tests", TRUE, 0, NULL);
  card_set_run (card, &info, PD_SESSION_STATUS_RUNNING, NULL, NULL);
  g_assert_cmpstr (step_line (alone.row), ==, "Now: \u2068Write the tests\u2069");
  alone_close (&alone);
}

static gboolean
is_image (GtkWidget     *widget,
          gconstpointer  data)
{
  return GTK_IS_IMAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (widget)), data) == 0;
}

/* A failed card has its icon where the others have their pie, and its
 * reason wraps on up to three lines, whole in its tooltip and in the
 * card's description.  It had no icon, and the reason was one line, cut,
 * with nowhere to read it whole (tried as a new user would). */
static void
test_card_failed_reason (void)
{
  g_autoptr(PdOverviewCard) card = card_new ("Work on D", "plandeck", "This Computer");
  g_autofree char *description = NULL;
  const char *reason = "HTTP 502 from the provider: the upstream gateway closed the connection before "
                       "the response headers were read; retry later or pick another model";
  PdSessionInfo info = { 0 };
  Alone alone = { 0 };
  g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();
  GtkWidget *status, *icon;
  const char *tooltip;

  /* The application's style sheet, as the window has it. */
  gtk_css_provider_load_from_resource (css, "/io/github/plandeck/Plandeck/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  info.id = (char *) "20260402-96aca9fa885c03da29d4f8c5e78be75c";
  info.task = (char *) "Work on D";
  info.source = (char *) "plandeck";
  info.updated_at = g_get_real_time ();
  info.plan_done = 1;
  info.plan_total = 3;
  card_set_run (card, &info, PD_SESSION_STATUS_FAILED, "failed", reason);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_FAILED);
  alone_show (&alone, card, 360);
  pd_test_flush (alone.window);

  icon = pd_test_find_first (alone.row, is_image, "dialog-error-symbolic");
  g_assert_nonnull (icon);
  /* In the red of its reason, as a failed session's row has its icon. */
  {
    GdkRGBA color;

    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_style_context_get_color (gtk_widget_get_style_context (icon), &color);
    G_GNUC_END_IGNORE_DEPRECATIONS
    g_assert_cmpfloat (color.red, >, color.green + 0.3);
  }
  status = pd_test_find_first (alone.row, is_status_label, NULL);
  g_assert_nonnull (status);
  g_assert_true (gtk_label_get_wrap (GTK_LABEL (status)));
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (status))), >, 1);
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (status))), <=, 3);
  tooltip = gtk_widget_get_tooltip_text (status);
  g_assert_nonnull (tooltip);
  g_assert_nonnull (strstr (tooltip, "pick another model"));
  description = pd_test_a11y_description (alone.row);
  g_assert_nonnull (description);
  g_assert_nonnull (strstr (description, "pick another model"));
  pd_test_screenshot_sizes (GTK_WINDOW (alone.window), "overview-card-failed-reason");

  /* Running again: no icon, no tooltip. */
  card_set_run (card, &info, PD_SESSION_STATUS_RUNNING, NULL, NULL);
  pd_test_flush (alone.window);
  g_assert_null (pd_test_find_first (alone.row, is_image, "dialog-error-symbolic"));
  g_assert_null (gtk_widget_get_tooltip_text (status));
  alone_close (&alone);
  gtk_style_context_remove_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css));
}

static gboolean
is_pie (GtkWidget     *widget,
        gconstpointer  data)
{
  return PD_IS_PLAN_PIE (widget);
}

/* A run whose endpoint was killed (kill -9): serve, started again, finds
 * its session left running and reads it interrupted, with no word of how
 * the run ended.  Neutral as a run its endpoint stopped (SIGTERM): with
 * the runs done, its pie shown, no warning sign in the session list, and
 * its Now page says what is known.  It read red "Interrupted" among the
 * failures, its pie gone, a warning sign beside it, and "Last run:
 * Interrupted" alone (tried as a new user would). */
static void
test_card_interrupted_killed (void)
{
  g_autoptr(PdOverviewCard) card = card_new ("Work on B", "plandeck", "build-box");
  g_autoptr(PdSessionItem) item = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *ended = NULL;
  PdSessionInfo info = { 0 };
  Alone alone = { 0 };
  GtkWidget *pie;

  info.id = (char *) "20260402-96aca9fa885c03da29d4f8c5e78be75c";
  info.task = (char *) "Work on B";
  info.source = (char *) "plandeck";
  info.status = PD_SESSION_STATUS_INTERRUPTED;
  info.updated_at = g_get_real_time ();
  info.plan_done = 2;
  info.plan_total = 4;
  show_stopped (&alone, card, &info, "Interrupted");
  pie = pd_test_find_first (alone.row, is_pie, NULL);
  g_assert_nonnull (pie);
  g_assert_true (gtk_widget_get_visible (pie));
  alone_close (&alone);

  item = pd_session_item_new (&info, now);
  g_assert_cmpstr (pd_session_item_get_status_icon (item), !=, "dialog-warning-symbolic");
  g_assert_cmpstr (pd_session_item_get_status_icon (item), !=, "dialog-error-symbolic");

  ended = _pd_run_ended_short_text (info.status, NULL, NULL, 200);
  g_assert_nonnull (strstr (ended, "Interrupted"));
  g_assert_nonnull (strstr (ended, "stopped without ending it"));
}

static const char *
shown_page (PdOverviewView *view)
{
  GtkWidget *stack = pd_test_find_widget (GTK_WIDGET (view), GTK_TYPE_STACK);

  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

static gboolean
overview_loaded (gpointer overview)
{
  return pd_overview_get_loaded (overview);
}

/* Until its sources first answered, the Overview says it is loading, not
 * "No Active Sessions": that was shown for seconds at start-up before the
 * cards came (tried as a new user would).  An endpoint on loopback that
 * takes the connection and answers nothing yet; then a real source on a
 * real, empty database: once it answered, the empty page. */
static void
test_overview_loading (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdLocalSource) source = pd_local_source_new (db, FALSE);
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(GSocketListener) silent = g_socket_listener_new ();
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(PdOverview) overview = NULL;
  g_autofree char *url = NULL;
  g_autoptr(GError) error = NULL;
  PdOverviewView *view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  GtkWindow *window;
  guint16 port;

  port = g_socket_listener_add_any_inet_port (silent, NULL, &error);
  g_assert_no_error (error);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", port,
                         "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00");
  remote = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  g_list_store_append (sources, remote);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  pd_overview_view_set_overview (view, overview);
  window = pd_test_present (GTK_WIDGET (view), 600, 500);
  pd_test_screenshot_sizes (window, "overview-loading");
  g_assert_false (pd_overview_get_loaded (overview));
  g_assert_cmpstr (shown_page (view), ==, "loading");
  g_assert_true (gtk_widget_get_mapped (pd_test_find_widget (GTK_WIDGET (view), GTK_TYPE_SPINNER)));

  /* The endpoint gone, a source that answers. */
  g_list_store_remove_all (sources);
  g_list_store_append (sources, source);
  pd_test_wait_until (overview_loaded, overview, "the source's first answer");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (overview)), ==, 0);
  g_assert_cmpstr (shown_page (view), ==, "empty");
  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/overview/card-stopped", test_card_stopped);
  g_test_add_func ("/pd/ui/overview/card-step-ended", test_card_step_ended);
  g_test_add_func ("/pd/ui/overview/card-failed-reason", test_card_failed_reason);
  g_test_add_func ("/pd/ui/overview/card-interrupted-killed", test_card_interrupted_killed);
  g_test_add_func ("/pd/ui/overview/loading", test_overview_loading);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}

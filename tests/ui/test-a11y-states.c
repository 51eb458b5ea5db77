/* test-a11y-states.c: states a screen reader and a keyboard meet
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does. Alt+1…4 switch a
 * session's pages; on the Overview they did nothing (tried with the
 * keyboard alone). There they open a card's session, the card with the
 * focus or else the first, on the page the key names, and the focus lands
 * in that page. A done step whose checks did not all pass says
 * "Unverified" on screen; its description says it too, with each check's
 * state in words.
 */
#define G_LOG_DOMAIN "test-a11y-states"

#include "config.h"

#include <string.h>

#include "pd-overview-card-row.h"
#include "pd-overview-view.h"
#include "pd-plan-row.h"
#include "pd-plan-row-item.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

static PdOverviewView *
overview_view (PdWindow *window)
{
  return PD_OVERVIEW_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW));
}

/* The Overview shows at least two cards. */
static gboolean
cards_shown (gpointer data)
{
  PdOverviewView *view = overview_view (data);

  return gtk_widget_get_mapped (GTK_WIDGET (view)) &&
         g_list_model_get_n_items (pd_overview_view_get_shown (view)) >= 2 &&
         pd_test_find_widget (GTK_WIDGET (view), PD_TYPE_OVERVIEW_CARD_ROW) != NULL;
}

/* The focus is in the session page shown, on a widget that is drawn. */
static gboolean
focus_in_page (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *page = adw_view_stack_get_visible_child (pd_test_a11y_view_stack (window));

  return focus != NULL && page != NULL && gtk_widget_is_ancestor (focus, page) && gtk_widget_is_drawable (focus);
}

static const char *
content_page (PdWindow *window)
{
  GtkWidget *views = GTK_WIDGET (pd_test_a11y_view_stack (window));
  GtkStack *content = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return gtk_stack_get_visible_child_name (content);
}

/* The session of the card whose row has the focus. */
static const char *
focused_card_session (PdWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus != NULL ? pd_test_find_widget (focus, PD_TYPE_OVERVIEW_CARD_ROW) : NULL;

  g_assert_nonnull (row);
  return pd_overview_card_get_session_id (pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row)));
}

static void
assert_opened (PdWindow   *window,
               const char *session_id,
               const char *page,
               const char *what)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  PdSessionItem *item;

  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("%s: the window shows “%s”, page “%s”", what, content_page (window),
                  adw_view_stack_get_visible_child_name (pd_test_a11y_view_stack (window)));
  g_assert_cmpstr (content_page (window), ==, "session");
  g_assert_false (pd_window_get_overview_shown (window));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (pd_test_a11y_view_stack (window)), ==, page);
  item = pd_session_list_get_selected_item (list);
  g_assert_nonnull (item);
  g_assert_true (g_str_has_suffix (pd_session_item_get_id (item), session_id));
  pd_test_wait_until (focus_in_page, window, what);
}

static void
check_overview_keys (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  GtkWidget *list;
  g_autoptr(PdOverviewCard) first = NULL;
  g_autofree char *second_id = NULL;

  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (cards_shown, window, "the Overview with two cards or more");
  list = pd_test_find_widget (GTK_WIDGET (overview_view (window)), GTK_TYPE_LIST_VIEW);

  /* The focus on the second card: Alt+4 opens its session on the
   * History, the focus in it (the pages every card's session fills: the
   * Now page and the History). */
  gtk_root_set_focus (GTK_ROOT (window), NULL);
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Down, 0));
  second_id = g_strdup (focused_card_session (window));
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_4, GDK_ALT_MASK));
  assert_opened (window, second_id, "history", "Alt+4 on the second card");

  /* Back on the Overview, the focus on no card: Alt+1 opens the first
   * card's session on its Now page. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (cards_shown, window, "the Overview again");
  gtk_root_set_focus (GTK_ROOT (window), NULL);
  first = g_list_model_get_item (pd_overview_view_get_shown (overview_view (window)), 0);
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_1, GDK_ALT_MASK));
  assert_opened (window, pd_overview_card_get_session_id (first), "now", "Alt+1 with no card focused");

  /* And Alt+4 from there switches the session's page as ever. */
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_4, GDK_ALT_MASK));
  assert_opened (window, pd_overview_card_get_session_id (first), "history", "Alt+4 in the session");
}

static void
test_overview_keys (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_overview_keys, NULL), ==, 0);
}

static void
test_overview_keys_folded (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_overview_keys, NULL), ==, 0);
}

/* --- a done step with checks not passed ------------------------------------ */

static void
assert_contains (const char *text,
                 const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("“%s” does not say “%s”", text, part);
}

/* The row in a list, as the Now page shows it. */
static GtkWidget *
in_list (GtkWidget *row)
{
  GtkWidget *list = gtk_list_box_new ();

  gtk_list_box_append (GTK_LIST_BOX (list), row);
  return list;
}

static void
test_step_unverified (void)
{
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (5);
  PdPlanStep *done = g_ptr_array_index (plan->steps, 0);
  g_autoptr(PdPlanRowItem) item = NULL;
  g_autofree char *description = NULL;
  GtkWidget *row;
  GtkWindow *window;

  pd_test_step_add_check (done, "lint", "lint is clean", "shell", "{\"command\":\"make lint\"}",
                          PD_PLAN_CHECK_PENDING);
  ((PdPlanCheck *) g_ptr_array_index (done->checks, 0))->status = PD_PLAN_CHECK_BLOCKED;
  item = pd_plan_row_item_new (done);
  row = pd_plan_row_new (item);
  window = pd_test_present (in_list (row), 600, 300);
  description = pd_test_a11y_description (row);
  g_test_message ("done step, checks blocked and pending: “%s”", description);
  /* On screen: "Unverified: check “store read”: blocked, “lint is
   * clean”: pending"; the description said only "Done" and each check. */
  assert_contains (description, "Unverified");
  assert_contains (description, "“store read”: blocked");
  assert_contains (description, "“lint is clean”: pending");
  assert_contains (description, "Check store read: Blocked");
  gtk_window_destroy (window);

  /* A step not done says no such thing. */
  g_clear_object (&item);
  g_clear_pointer (&description, g_free);
  item = pd_plan_row_item_new (g_ptr_array_index (plan->steps, 1));
  row = pd_plan_row_new (item);
  window = pd_test_present (in_list (row), 600, 300);
  description = pd_test_a11y_description (row);
  g_assert_null (strstr (description, "Unverified"));
  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/overview/page-keys", test_overview_keys);
  g_test_add_func ("/pd/ui/a11y/overview/page-keys-folded", test_overview_keys_folded);
  g_test_add_func ("/pd/ui/a11y/step-unverified", test_step_unverified);
  return g_test_run ();
}

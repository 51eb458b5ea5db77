/* test-a11y-f6.c: F6 between the session list and the session, round trips
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Found by a screen-reader tester with the keyboard alone (issue 23): in a
 * narrow window (360 px, at 1× and 1.5× text) F6 from a session opened
 * with Enter went to the row below the open session, one row further at
 * each F6, and F6 back into the session to the page tabs, never the page;
 * side by side each round trip into the Now page's steps landed one step
 * further (s1, s2, s3).  F6 into the list lands on the open session's row,
 * F6 into the session where the focus was in the page.  Keys are given as
 * GTK gives them (pd_test_a11y_key()).
 */
#define G_LOG_DOMAIN "test-a11y-f6"

#include "config.h"

#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define OPENED "Migrate the config loader to GKeyFile"
#define ROUNDS 3

typedef struct
{
  gboolean   large_text;
  gboolean   real;  /* keys through the X server (xdotool), not given to GTK */
  GtkWidget *was;   /* the focus in the page before F6 left it */
} F6Case;

/* @keyval, as GTK gives it, or through the X server (@keys) as a person
 * presses it: the tester's F6 landed on the row below the open session at
 * 360 px, which the keys given to GTK's shortcuts never showed. */
static void
press (PdWindow   *window,
       F6Case     *f6,
       guint       keyval,
       const char *keys)
{
  if (f6->real)
    g_assert_true (pd_test_a11y_x11_key (GTK_WINDOW (window), keys));
  else
    g_assert_true (pd_test_a11y_key (window, keyval, 0));
}

/* The focus is back on the widget it had in the page. */
static gboolean
focus_back_in_page (gpointer data)
{
  F6Case *f6 = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (gtk_widget_get_root (f6->was)));

  return focus == f6->was && pd_test_a11y_why_unseen (focus) == NULL;
}

static void
tell_focus (PdWindow   *window,
            const char *when)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_autofree char *path = focus != NULL ? pd_test_a11y_describe (focus) : g_strdup ("nothing");
  PdSessionItem *item = pd_test_a11y_focused_item (window);
  GtkWidget *step = focus != NULL ? gtk_widget_get_ancestor (focus, GTK_TYPE_LIST_BOX_ROW) : NULL;

  g_test_message ("%s: the focus is on %s%s%s", when, path, item != NULL ? ", the row of " : "",
                  item != NULL ? pd_session_item_get_title (item) : "");
  if (step != NULL)
    g_test_message ("%s: on the list box's row %d (%p)", when, gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (step)),
                    (void *) step);
}

/* Enter on a session in the list, then F6 to the list and back ROUNDS
 * times: on the open session's row each time, and back where the focus
 * was in the page (moved one step down first, so "the page's first stop"
 * is not where it was). */
static void
check_f6_round_trips (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  F6Case *f6 = user_data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  gboolean folded;

  if (f6->large_text)
    pd_test_a11y_large_text ();
  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  folded = adw_leaflet_get_folded (leaflet);
  adw_view_stack_set_visible_child_name (views, "now");
  if (folded)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_arrow_to (window, rows, OPENED);
  press (window, f6, GDK_KEY_Return, "Return");
  pd_test_wait_until (pd_test_a11y_focus_in_page, window, "the focus in the opened session's page");
  g_assert_nonnull (gtk_widget_get_ancestor (gtk_root_get_focus (GTK_ROOT (window)), GTK_TYPE_LIST_BOX_ROW));
  /* One step down: where the person is, not the page's first stop. */
  press (window, f6, GDK_KEY_Down, "Down");
  pd_test_flush (GTK_WIDGET (window));
  f6->was = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (gtk_widget_get_ancestor (f6->was, GTK_TYPE_LIST_BOX_ROW));
  tell_focus (window, "in the page");

  for (guint round = 0; round < ROUNDS; round++)
    {
      press (window, f6, GDK_KEY_F6, "F6");
      pd_test_wait_until (pd_test_a11y_focus_on_open_row, window, "the focus on the open session's row after F6");
      /* Past the moves of the leaflet and the list: it stays there. */
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      tell_focus (window, "F6 to the list");
      g_assert_true (pd_test_a11y_focus_on_open_row (window));
      g_assert_cmpstr (pd_session_item_get_title (pd_test_a11y_focused_item (window)), ==, OPENED);
      if (round == 0)
        pd_test_screenshot (GTK_WIDGET (window), folded ? "a11y-f6-list-360" : "a11y-f6-list");

      press (window, f6, GDK_KEY_F6, "F6");
      pd_test_wait_until (focus_back_in_page, f6, "the focus back where it was in the page");
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      tell_focus (window, "F6 to the session");
      g_assert_true (focus_back_in_page (f6));
      if (round == 0)
        pd_test_screenshot (GTK_WIDGET (window), folded ? "a11y-f6-page-360" : "a11y-f6-page");
    }
}

static void
test_f6_narrow (void)
{
  F6Case f6 = { FALSE, FALSE, NULL };

  g_assert_cmpint (pd_test_run_showcase (360, 720, check_f6_round_trips, &f6), ==, 0);
}

static void
test_f6_narrow_large (void)
{
  F6Case f6 = { TRUE, FALSE, NULL };

  g_assert_cmpint (pd_test_run_showcase (360, 720, check_f6_round_trips, &f6), ==, 0);
}

/* The same with real keys, through the X server. */
static void
test_f6_narrow_real (gconstpointer data)
{
  F6Case f6 = { GPOINTER_TO_INT (data), TRUE, NULL };

  if (!pd_test_a11y_x11_keys_work ())
    {
      g_test_skip ("needs xdotool and an X server (xvfb-run) for a real key press");
      return;
    }
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_f6_round_trips, &f6), ==, 0);
}

static void
test_f6_wide (void)
{
  F6Case f6 = { FALSE, FALSE, NULL };

  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_f6_round_trips, &f6), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/pd/ui/a11y/f6/narrow", test_f6_narrow);
  g_test_add_func ("/pd/ui/a11y/f6/narrow-large-text", test_f6_narrow_large);
  g_test_add_func ("/pd/ui/a11y/f6/wide-now", test_f6_wide);
  g_test_add_data_func ("/pd/ui/a11y/f6/narrow-real-keys", GINT_TO_POINTER (FALSE), test_f6_narrow_real);
  g_test_add_data_func ("/pd/ui/a11y/f6/narrow-large-text-real-keys", GINT_TO_POINTER (TRUE), test_f6_narrow_real);
  return g_test_run ();
}

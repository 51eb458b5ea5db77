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
 * state in words. New Session grows with the text: at 1.5× text its
 * fields had shrunk to a few characters beside their wrapped titles.
 */
#define G_LOG_DOMAIN "test-a11y-states"

#include "config.h"

#include <string.h>

#include <pango/pangocairo.h>

#include "pd-entry-row.h"
#include "pd-new-session-dialog.h"
#include "pd-overview-card-row.h"
#include "pd-overview-view.h"
#include "pd-plan-row.h"
#include "pd-plan-row-item.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
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

  static GtkWidget *last;

  /* Each place the focus passes, for a failure to tell. */
  if (focus != last)
    {
      g_test_message ("the focus is on %s%s%s", focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing",
                      focus != NULL && gtk_widget_get_parent (focus) != NULL ? " in " : "",
                      focus != NULL && gtk_widget_get_parent (focus) != NULL
                      ? G_OBJECT_TYPE_NAME (gtk_widget_get_parent (focus)) : "");
      last = focus;
    }
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
  /* Its arguments as words, not JSON read out brace by brace (tried as a
   * new user would, with a screen reader). */
  assert_contains (description, "Check lint is clean: Pending, tool shell, with command make lint");
  g_assert_null (strchr (description, '{'));
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

/* --- New Session at 1.5× text ----------------------------------------------- */

static gboolean
new_session_shown (gpointer data)
{
  return pd_test_mapped_toplevel (PD_TYPE_NEW_SESSION_DIALOG) != NULL;
}

static gboolean
new_session_gone (gpointer data)
{
  return pd_test_mapped_toplevel (PD_TYPE_NEW_SESSION_DIALOG) == NULL;
}

typedef struct
{
  int    width;        /* the dialog's */
  int    narrowest;    /* its narrowest text field's */
  double em;           /* of its font, in px */
  guint  n_cut;        /* labels cut, titles ellipsized */
} Measured;

/* Opens New Session from @window, measures it at its own size, closes it. */
static Measured
measure_new_session (PdWindow   *window,
                     const char *where)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  g_autofree char *shot = g_strdup_printf ("a11y-new-session-%s", where);
  Measured m = { 0, G_MAXINT, 0, 0 };
  GtkWindow *dialog;
  PangoContext *context;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-session", NULL));
  pd_test_wait_until (new_session_shown, NULL, "New Session");
  dialog = pd_test_mapped_toplevel (PD_TYPE_NEW_SESSION_DIALOG);
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (dialog));
  context = gtk_widget_get_pango_context (GTK_WIDGET (dialog));
  m.em = pango_font_description_get_size (pango_context_get_font_description (context)) / (double) PANGO_SCALE *
         pango_cairo_context_get_resolution (context) / 72;
  m.width = gtk_widget_get_width (GTK_WIDGET (dialog));
  pd_test_collect (GTK_WIDGET (dialog), PD_TYPE_ENTRY_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      GtkWidget *field = pd_test_find_widget (row, GTK_TYPE_TEXT);
      g_autoptr(PangoLayout) layout = NULL;
      const char *text;
      int drawn = 0;

      if (!gtk_widget_get_mapped (row) || field == NULL)
        continue;
      text = gtk_editable_get_text (GTK_EDITABLE (field));
      layout = gtk_widget_create_pango_layout (field, text);
      pango_layout_get_pixel_size (layout, &drawn, NULL);
      g_test_message ("%s: “%s”: its field %d px wide, its text “%s” %d px", where,
                      adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), gtk_widget_get_width (field), text,
                      drawn);
      m.narrowest = MIN (m.narrowest, gtk_widget_get_width (field));
      /* The text a field holds, shown whole ("http://127.0.0.1:11" was
       * all of the Base URL at 1.5× text). */
      if (drawn > gtk_widget_get_width (field))
        m.n_cut++;
    }
  /* A row's title whole: wrapped if it must, never ellipsized. */
  pd_test_collect (GTK_WIDGET (dialog), GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (gtk_widget_get_mapped (label) && gtk_widget_has_css_class (label, "title") &&
          gtk_widget_get_ancestor (label, ADW_TYPE_PREFERENCES_ROW) != NULL &&
          pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))))
        {
          g_test_message ("%s: the title “%s” is cut", where, gtk_label_get_text (GTK_LABEL (label)));
          m.n_cut++;
        }
    }
  m.n_cut += pd_test_a11y_count_cut_labels (GTK_WIDGET (dialog), where);
  g_test_message ("%s: New Session %d px wide, em %.1f px, narrowest field %d px, %u cut", where, m.width, m.em,
                  m.narrowest, m.n_cut);
  pd_test_screenshot (GTK_WIDGET (dialog), shot);
  gtk_window_destroy (dialog);
  pd_test_wait_until (new_session_gone, NULL, "New Session to close");
  return m;
}

static void
check_new_session_large_text (PdApplication *app,
                              PdWindow      *window,
                              gpointer       user_data)
{
  GtkSettings *settings = gtk_settings_get_default ();
  int dpi = 0;
  Measured normal, large;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  normal = measure_new_session (window, "1x");
  dpi = pd_test_a11y_large_text ();
  pd_test_flush (GTK_WIDGET (window));
  large = measure_new_session (window, "1.5x");
  g_object_set (settings, "gtk-xft-dpi", dpi, NULL);

  g_assert_cmpfloat (large.em, >, normal.em * 1.4);
  /* It grows with the text (it stayed 550 px), and so do its fields (the
   * Base URL's stayed 220 px: "http://127.0.0.1:11"). */
  g_assert_cmpint (large.width, >=, normal.width * 7 / 5);
  g_assert_cmpint (large.narrowest, >, normal.narrowest);
  g_assert_cmpuint (normal.n_cut, ==, 0);
  g_assert_cmpuint (large.n_cut, ==, 0);
}

static void
test_new_session_large_text (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 900, check_new_session_large_text, NULL), ==, 0);
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
  g_test_add_func ("/pd/ui/a11y/new-session-large-text", test_new_session_large_text);
  return g_test_run ();
}

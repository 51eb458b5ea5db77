/* test-a11y-keyboard-landing.c: where the focus lands, with the keyboard alone
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The second half of the a11y-keyboard test (test-a11y-keyboard.c
 * registers these cases): Enter on a session, F6 into the Events page,
 * Tab through every page of every stack, and the sources sidebar.  Keys are
 * given as GTK gives them: to the focus widget's shortcuts, then to each
 * ancestor's, up to the window's (which moves the focus for Tab).
 */
#define G_LOG_DOMAIN "test-a11y-keyboard"

#include "config.h"

#include "pd-events-view.h"
#include "pd-now-view.h"
#include "pd-overview-card-row.h"
#include "pd-overview-view.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-model.h"
#include "pd-session-row.h"
#include "pd-source-sidebar.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "test-a11y-keyboard-landing.h"

/* Tabs through the whole window from its first stop until the focus comes
 * back there: every stop must be seen. Returns the number of stops. */
static guint
assert_tab_cycle_seen (PdWindow   *window,
                       const char *where,
                       gboolean    settle)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();
  guint n_unseen = 0;

  gtk_root_set_focus (GTK_ROOT (window), NULL);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
  for (guint i = 0; i < 400; i++)
    {
      GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
      const char *why;

      g_assert_nonnull (focus);
      if (g_ptr_array_find (seen, focus, NULL))
        break;
      g_ptr_array_add (seen, focus);
      why = pd_test_a11y_why_unseen (focus);
      if (why != NULL)
        {
          g_autofree char *path = pd_test_a11y_describe (focus);

          g_test_message ("%s: Tab stop %u is %s: %s", where, i + 1, why, path);
          n_unseen++;
        }
      if (!pd_test_a11y_key (window, GDK_KEY_Tab, 0))
        {
          g_autofree char *path = pd_test_a11y_describe (focus);
          g_error ("%s: Tab from %s went nowhere", where, path);
        }
      if (settle)
        pd_test_flush (GTK_WIDGET (window));
    }
  g_test_message ("%s: %u Tab stops", where, seen->len);
  g_assert_cmpuint (n_unseen, ==, 0);
  return seen->len;
}

/* Each page of each stack of the window shown, then the one before again,
 * each time Tabbed through at once, while a cross-fade still draws the
 * page going away: no stop in it (Tab went to a plan's steps fading out,
 * and to a status page's scroller; tried with the keyboard alone). */
static void
assert_stacks_tab_shown_only (PdWindow   *window,
                              const char *where)
{
  g_autoptr(GPtrArray) stacks = g_ptr_array_new ();
  guint n_switches = 0;

  pd_test_collect (GTK_WIDGET (window), GTK_TYPE_STACK, stacks);
  for (guint i = 0; i < stacks->len; i++)
    {
      GtkStack *stack = g_ptr_array_index (stacks, i);
      g_autofree char *before = g_strdup (gtk_stack_get_visible_child_name (stack));

      /* Ours: named pages, not a popover's menu. */
      if (before == NULL || !gtk_widget_get_mapped (GTK_WIDGET (stack)) ||
          gtk_widget_get_ancestor (GTK_WIDGET (stack), GTK_TYPE_POPOVER) != NULL)
        continue;
      for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (stack));
           child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          const char *name = gtk_stack_page_get_name (gtk_stack_get_page (stack, child));
          g_autofree char *label = NULL;

          if (name == NULL || g_str_equal (name, before))
            continue;
          label = g_strdup_printf ("%s, %s: %s", where, before, name);
          gtk_stack_set_visible_child_name (stack, name);
          assert_tab_cycle_seen (window, label, FALSE);
          gtk_stack_set_visible_child_name (stack, before);
          assert_tab_cycle_seen (window, label, FALSE);
          n_switches++;
        }
      pd_test_flush (GTK_WIDGET (window));
    }
  g_assert_cmpuint (n_switches, >, 0);
}

static const char * const session_pages[] = { "now", "transcript", "events", "history" };

/* Tab through the window on each session page, on the Overview and on the
 * empty state: no stop in a page that is not shown. */
static void
check_hidden_pages (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  g_autoptr(PdSessionItem) first = NULL;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  first = g_object_ref (pd_session_list_get_selected_item (list));
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (session_pages); i++)
    {
      adw_view_stack_set_visible_child_name (views, session_pages[i]);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_flush (GTK_WIDGET (window));
      assert_tab_cycle_seen (window, session_pages[i], TRUE);
    }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_flush (GTK_WIDGET (window));
  assert_tab_cycle_seen (window, "overview", TRUE);
  assert_stacks_tab_shown_only (window, "overview");
  adw_view_stack_set_visible_child_name (views, "now");
  g_assert_true (pd_session_list_select (list, pd_session_item_get_id (first)));
  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session again");
  pd_test_flush (GTK_WIDGET (window));
  for (guint i = 0; i < G_N_ELEMENTS (session_pages); i++)
    {
      adw_view_stack_set_visible_child_name (views, session_pages[i]);
      pd_test_flush (GTK_WIDGET (window));
      assert_stacks_tab_shown_only (window, session_pages[i]);
    }
}

static void
test_hidden_pages (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_hidden_pages, NULL), ==, 0);
}

static void
test_hidden_pages_narrow (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_hidden_pages, NULL), ==, 0);
}

/* --- Enter on a session ----------------------------------------------------- */

/* The focus is on a control of the session's content one sees (folded:
 * its header or the bars below its page), not the main menu. */
static gboolean
focus_in_content (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *views = GTK_WIDGET (pd_test_a11y_view_stack (window));
  GtkWidget *content = gtk_widget_get_ancestor (gtk_widget_get_parent (views), GTK_TYPE_STACK);

  content = content != NULL ? gtk_widget_get_parent (content) : NULL;
  return focus != NULL && content != NULL && gtk_widget_is_ancestor (focus, content) &&
         pd_test_a11y_why_unseen (focus) == NULL && gtk_widget_get_ancestor (focus, GTK_TYPE_MENU_BUTTON) == NULL &&
         gtk_widget_get_ancestor (focus, ADW_TYPE_STATUS_PAGE) == NULL;
}

static gboolean
focus_on_row_or_content (gpointer data)
{
  return pd_test_a11y_focus_on_open_row (data) || focus_in_content (data);
}

typedef struct
{
  const char *page;
  const char *title;
  GType       lands_in;   /* the focus lands inside one of these */
} Opening;

/* Enter on a session in the list: the focus lands in its page (on the
 * first plan step, the page's main list, the page itself for a session
 * with no plan), not on the main menu button; back from a folded window,
 * on its row again. */
static void
check_enter_opens (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  const Opening openings[] = {
    { "now", "Migrate the config loader to GKeyFile", GTK_TYPE_LIST_BOX_ROW },
    { "history", "Add a --json flag to sessions list", GTK_TYPE_LIST_VIEW },
    /* No plan: a status page, nothing to activate; the focus goes to
     * the content's first control past the main menu (the page's tab),
     * or side by side stays on the row (it went to the status page's
     * scroller). */
    { "now", "Explain how the event bus delivers to listeners", G_TYPE_NONE },
    { "now", "Add an export subcommand with tests and docs", GTK_TYPE_LIST_BOX_ROW },
  };
  gboolean folded;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  folded = adw_leaflet_get_folded (leaflet);
  for (guint i = 0; i < G_N_ELEMENTS (openings); i++)
    {
      GtkWidget *focus;
      g_autofree char *path = NULL;

      adw_view_stack_set_visible_child_name (views, openings[i].page);
      if (folded)
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_a11y_arrow_to (window, rows, openings[i].title);
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_Return, 0));
      g_assert_cmpstr (pd_session_item_get_title (pd_session_list_get_selected_item (list)), ==, openings[i].title);
      if (openings[i].lands_in == G_TYPE_NONE)
        {
          pd_test_wait_until (folded ? focus_in_content : focus_on_row_or_content, window,
                              "the focus on the row or the content's first control");
          /* Past the page's read, the focus is not moved again. */
          pd_test_spin (300);
          pd_test_flush (GTK_WIDGET (window));
          focus = gtk_root_get_focus (GTK_ROOT (window));
          path = pd_test_a11y_describe (focus);
          g_test_message ("%s, %s, no plan: Enter left the focus on %s", folded ? "folded" : "wide",
                          openings[i].page, path);
          g_assert_null (gtk_widget_get_ancestor (focus, ADW_TYPE_STATUS_PAGE));
          g_assert_true (folded ? focus_in_content (window) : focus_on_row_or_content (window));
        }
      else
        {
          pd_test_wait_until (pd_test_a11y_focus_in_page, window, "the focus in the opened session's page");
          focus = gtk_root_get_focus (GTK_ROOT (window));
          path = pd_test_a11y_describe (focus);
          g_test_message ("%s, %s: Enter left the focus on %s", folded ? "folded" : "wide", openings[i].page, path);
          g_assert_nonnull (gtk_widget_get_ancestor (focus, openings[i].lands_in));
        }
      g_assert_null (gtk_widget_get_ancestor (focus, GTK_TYPE_MENU_BUTTON));
      if (i == 0 && !folded)
        pd_test_screenshot (GTK_WIDGET (window), "a11y-enter-opens");
      else if (i == 0)
        pd_test_screenshot (GTK_WIDGET (window), "a11y-enter-opens-360");

      /* Back to the list (Alt+Left): on the open session's row. */
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_Left, GDK_ALT_MASK));
      pd_test_wait_until (pd_test_a11y_focus_on_open_row, window, "the focus on the open session's row");
    }
}

static void
test_enter_opens (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_enter_opens, NULL), ==, 0);
}

static void
test_enter_opens_folded (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_enter_opens, NULL), ==, 0);
}

/* --- F6 into the Events page -------------------------------------------------- */

/* The focus is in the Events page on a widget one sees, its focus ring
 * drawn. */
static gboolean
focus_seen_in_events (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *events = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  static GtkWidget *last;

  /* The ring as a key press shows it: GTK 4.8 hides it 3 s after the last
   * press, and under load a wait outlasted that (the focus stayed on the
   * same Events row, seen but without its ring, until the case timed out).
   * What is asked is where the ring is drawn, not how long ago the key
   * was pressed. */
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);

  /* Each place the focus passes, for a failure to tell. */
  if (focus != last)
    {
      g_autofree char *path = focus != NULL ? pd_test_a11y_describe (focus) : g_strdup ("nothing");

      g_test_message ("the focus is on %s (%s)", path, focus != NULL && pd_test_a11y_why_unseen (focus) ? pd_test_a11y_why_unseen (focus) : "seen");
      last = focus;
    }

  return focus != NULL && gtk_widget_is_ancestor (focus, events) && pd_test_a11y_why_unseen (focus) == NULL &&
         gtk_widget_get_focusable (focus) &&
         (gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_FOCUS_VISIBLE) != 0;
}

/* F6 from the session list into the Events page, at once after the page
 * is shown (its rows still being read and laid out) and once it settled:
 * the focus lands on a widget one sees, with its ring.  Folded, Alt+3
 * itself goes into the page, and F6 back to the list and in again. */
static void
check_f6_events (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  gboolean folded;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  folded = adw_leaflet_get_folded (leaflet);
  g_assert_true (folded == GPOINTER_TO_INT (user_data));
  for (guint round = 0; round < 2; round++)
    {
      GtkWidget *focus;
      g_autofree char *path = NULL;

      g_assert_true (pd_test_a11y_key (window, GDK_KEY_1, GDK_ALT_MASK));
      pd_test_flush (GTK_WIDGET (window));
      gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
      if (!pd_test_a11y_focus_inside (rows))
        g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_3, GDK_ALT_MASK));
      /* Into the page (side by side too: the focus had gone to the main
       * menu button), then F6 back to the list. */
      pd_test_wait_until (focus_seen_in_events, window, "the focus on the Events page after Alt+3, seen");
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_F6, 0));
      pd_test_wait_until (pd_test_a11y_focus_on_open_row, window, "the focus on the open session's row after F6");
      if (round == 1)
        for (guint i = 0; i < 5; i++)
          pd_test_flush (GTK_WIDGET (window));
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_F6, 0));
      focus = gtk_root_get_focus (GTK_ROOT (window));
      path = pd_test_a11y_describe (focus);
      g_test_message ("round %u: F6 put the focus on %s (%s)", round, path,
                      pd_test_a11y_why_unseen (focus) != NULL ? pd_test_a11y_why_unseen (focus) : "seen");
      pd_test_wait_until (focus_seen_in_events, window, "the focus on the Events page, seen");
    }
  if (!folded)
    pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-f6-events");
}

static void
run_f6_events (int width,
               int height)
{
  PdTestDb *db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Tail two hundred events");
  g_autoptr(GSettings) settings = NULL;
  const char *args[] = { "--db", db->path, NULL };

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *data = g_strdup_printf ("{\"n\": %u}", i);

      pd_test_db_add_event (db, id, i % 2 ? "tool_call_completed" : "tool_call_started", "shell", i / 2, data);
    }
  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_int (settings, "window-width", width);
  g_settings_set_int (settings, "window-height", height);
  g_assert_cmpint (pd_test_run_app (args, check_f6_events, GINT_TO_POINTER (width < 400), NULL), ==, 0);
  pd_test_db_free (db);
}

static void
test_f6_events (void)
{
  run_f6_events (1200, 800);
}

static void
test_f6_events_folded (void)
{
  run_f6_events (360, 720);
}

/* --- Alt+1…4 into the page shown ------------------------------------------- */

/* focus_in_page(), telling each place the focus passes. */
static gboolean
focus_in_page_told (gpointer data)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (data));
  static GtkWidget *last;

  if (focus != last)
    {
      g_autofree char *path = focus != NULL ? pd_test_a11y_describe (focus) : g_strdup ("nothing");

      g_test_message ("the focus is on %s", path);
      last = focus;
    }
  return pd_test_a11y_focus_in_page (data);
}

/* The first page tab one sees: of the switcher bar below the pages when
 * folded, of the header's switcher when wide. */
static GtkWidget *
shown_page_tab (GtkWidget *root)
{
  g_autoptr(GPtrArray) switchers = g_ptr_array_new ();

  pd_test_collect (root, ADW_TYPE_VIEW_SWITCHER, switchers);
  for (guint i = 0; i < switchers->len; i++)
    {
      g_autoptr(GPtrArray) tabs = g_ptr_array_new ();

      if (!gtk_widget_get_mapped (g_ptr_array_index (switchers, i)))
        continue;
      pd_test_collect (g_ptr_array_index (switchers, i), GTK_TYPE_TOGGLE_BUTTON, tabs);
      for (guint j = 0; j < tabs->len; j++)
        if (gtk_widget_get_mapped (g_ptr_array_index (tabs, j)))
          return g_ptr_array_index (tabs, j);
    }
  return NULL;
}

/* Alt+1…4, from the session list and from the page before: the focus
 * lands in the page shown, as F6 puts it, never on a header's button
 * ("New Session"; folded, the back button: tried with the keyboard
 * alone). */
static void
check_page_keys (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  /* The pages this session fills (its Transcript and Events are empty). */
  static const char * const pages[] = { "now", "history" };
  static const guint keys[] = { GDK_KEY_1, GDK_KEY_4 };

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  /* A session with something in each page: a plan, messages, events and
   * versions. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_arrow_to (window, rows, "Migrate the config loader to GKeyFile");
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Return, 0));
  pd_test_wait_until (pd_test_a11y_focus_in_page, window, "the focus in the opened session's page");
  for (guint from_list = 0; from_list < 2; from_list++)
    for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
      {
        guint n = from_list ? i : (i + 1) % G_N_ELEMENTS (pages);
        GtkWidget *focus;
        g_autofree char *path = NULL;

        if (from_list)
          {
            gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
            pd_test_flush (GTK_WIDGET (window));
            if (!pd_test_a11y_focus_inside (rows))
              g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
          }
        g_assert_true (pd_test_a11y_key (window, keys[n], GDK_ALT_MASK));
        g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, pages[n]);
        pd_test_wait_until (focus_in_page_told, window, "the focus in the page shown");
        focus = gtk_root_get_focus (GTK_ROOT (window));
        path = pd_test_a11y_describe (focus);
        g_test_message ("Alt+%s from the %s: the focus on %s", pages[n], from_list ? "list" : "page before", path);
        g_assert_null (gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR));
      }
  /* From a page tab (the switcher bar below the pages, folded; the
   * header's, wide): folded, the focus had stayed on the tab left. */
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      guint n = (i + 1) % G_N_ELEMENTS (pages);
      GtkWidget *tab = shown_page_tab (GTK_WIDGET (window));
      GtkWidget *focus;
      g_autofree char *path = NULL;

      g_assert_nonnull (tab);
      g_assert_true (gtk_widget_grab_focus (tab));
      path = pd_test_a11y_describe (tab);
      g_test_message ("from the page tab %s", path);
      g_assert_true (pd_test_a11y_key (window, keys[n], GDK_ALT_MASK));
      g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, pages[n]);
      pd_test_wait_until (focus_in_page_told, window, "the focus in the page shown, from a page tab");
      focus = gtk_root_get_focus (GTK_ROOT (window));
      g_assert_null (gtk_widget_get_ancestor (focus, ADW_TYPE_VIEW_SWITCHER));
      g_assert_null (gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR));
    }
}

static void
test_page_keys (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_page_keys, NULL), ==, 0);
}

static void
test_page_keys_folded (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_page_keys, NULL), ==, 0);
}

/* --- the Overview ------------------------------------------------------------ */

/* The focus is on an Overview card one sees. */
static gboolean
focus_on_card (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW);

  return focus != NULL && gtk_widget_is_ancestor (focus, view) && pd_test_a11y_why_unseen (focus) == NULL &&
         (PD_IS_OVERVIEW_CARD_ROW (focus) || gtk_widget_get_ancestor (focus, PD_TYPE_OVERVIEW_CARD_ROW) != NULL);
}

/* The focus is in the session list, seen. */
static gboolean
focus_in_list (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);

  return focus != NULL && gtk_widget_is_ancestor (focus, list) && pd_test_a11y_why_unseen (focus) == NULL;
}

static gboolean
popover_shown (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

/* Ctrl+Shift+O from a session's page: the focus on the Overview's first
 * card; its menu (the Menu key) closed puts the focus back on it; F6
 * goes to the session list and back to the cards (it stayed in the list);
 * Enter
 * there opens its session with the focus in its page.  The Overview left
 * the focus in the page it hid, and Enter then did nothing; the menu
 * closed put it on a header's button (tried with the keyboard alone). */
static void
check_overview_keys (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  GtkWidget *focus, *menu;
  PdOverviewView *view;
  g_autofree char *path = NULL;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_arrow_to (window, rows, "Migrate the config loader to GKeyFile");
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Return, 0));
  pd_test_wait_until (pd_test_a11y_focus_in_page, window, "the focus in the opened session's page");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (focus_on_card, window, "the focus on an Overview card after Ctrl+Shift+O");
  focus = gtk_root_get_focus (GTK_ROOT (window));
  path = pd_test_a11y_describe (focus);
  g_test_message ("Ctrl+Shift+O: the focus on %s", path);

  /* The card's menu (what the Menu key opens), closed: the focus back on
   * the card. */
  view = PD_OVERVIEW_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW));
  g_assert_true (pd_overview_view_popup_card_menu (view, pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (focus))));
  menu = pd_overview_view_get_card_menu (view);
  g_assert_nonnull (menu);
  pd_test_wait_until (popover_shown, menu, "the card's menu");
  gtk_popover_popdown (GTK_POPOVER (menu));
  pd_test_wait_until (focus_on_card, window, "the focus back on the card once its menu closed");
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == focus);

  /* F6 to the session list and back to the cards. */
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_F6, 0));
  pd_test_wait_until (focus_in_list, window, "the focus in the session list after F6 from the Overview");
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_F6, 0));
  pd_test_wait_until (focus_on_card, window, "the focus on a card after F6 from the session list");
  g_test_message ("F6 twice: on the cards again");

  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Return, 0));
  pd_test_wait_until (pd_test_a11y_focus_in_page, window, "the focus in the page of the card's session");
  g_clear_pointer (&path, g_free);
  path = pd_test_a11y_describe (gtk_root_get_focus (GTK_ROOT (window)));
  g_test_message ("Enter on the card: the focus on %s", path);
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

/* The card the focus is on (or in), or NULL. */
static PdOverviewCard *
focused_card_of (PdWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus == NULL ? NULL : PD_IS_OVERVIEW_CARD_ROW (focus) ? focus
                   : gtk_widget_get_ancestor (focus, PD_TYPE_OVERVIEW_CARD_ROW);

  if (row == NULL && focus != NULL)
    row = pd_test_find_widget (focus, PD_TYPE_OVERVIEW_CARD_ROW);
  return row != NULL ? pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row)) : NULL;
}

/* An asking card first (a run of this window waiting for approval): F6
 * from the session list lands on it, the first card, and Enter on it
 * opens its session with the focus in its page.  F6 landed on the second
 * card, and Enter on the asking card put the focus on the header's "+"
 * (tried with the keyboard alone). */
static void
check_overview_asking_keys (PdApplication *app,
                            PdWindow      *window,
                            gpointer       user_data)
{
  PdOverview *overview = pd_window_get_overview (window);
  g_autoptr(PdOverviewCard) first = NULL;
  g_autofree char *path = NULL;
  GtkWidget *focus;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (focus_on_card, window, "the focus on an Overview card after Ctrl+Shift+O");
  first = g_list_model_get_item (G_LIST_MODEL (overview), 1);
  pd_overview_set_local_approval (overview, pd_overview_card_get_source (first),
                                  pd_overview_card_get_session_id (first), "shell", "make check", NULL, 1);
  pd_test_flush (GTK_WIDGET (window));
  g_clear_object (&first);
  first = g_list_model_get_item (G_LIST_MODEL (overview), 0);
  g_assert_true (pd_overview_card_has_approval (first));

  /* F6 to the session list and back: on the first card, the asking one. */
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_F6, 0));
  pd_test_wait_until (focus_in_list, window, "the focus in the session list after F6 from the Overview");
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_F6, 0));
  pd_test_wait_until (focus_on_card, window, "the focus on a card after F6 from the session list");
  g_test_message ("F6 back to the cards: on “%s”, the first card “%s”",
                  focused_card_of (window) != NULL ? pd_overview_card_get_title (focused_card_of (window)) : "(none)",
                  pd_overview_card_get_title (first));
  g_assert_true (focused_card_of (window) == first);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (PD_IS_OVERVIEW_CARD_ROW (focus) || pd_test_find_widget (focus, PD_TYPE_OVERVIEW_CARD_ROW) != NULL);

  /* Enter on the asking card: its session, the focus in its page. */
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Return, 0));
  pd_test_wait_until (pd_test_a11y_focus_in_page, window, "the focus in the page of the asking card's session");
  path = pd_test_a11y_describe (gtk_root_get_focus (GTK_ROOT (window)));
  g_test_message ("Enter on the asking card: the focus on %s", path);
  g_assert_null (gtk_widget_get_ancestor (gtk_root_get_focus (GTK_ROOT (window)), ADW_TYPE_HEADER_BAR));
}

static void
test_overview_asking_keys (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_overview_asking_keys, NULL), ==, 0);
}

static void
test_overview_asking_keys_folded (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_overview_asking_keys, NULL), ==, 0);
}

/* The card with the focus lies within the Overview's scrolled window. */
static gboolean
focused_card_in_sight (PdWindow  *window,
                       GtkWidget *scroller)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  graphene_rect_t bounds;

  if (focus == NULL || !gtk_widget_compute_bounds (focus, scroller, &bounds))
    return FALSE;
  g_test_message ("the focused card at %.0f–%.0f px of the Overview's %d px", bounds.origin.y,
                  bounds.origin.y + bounds.size.height, gtk_widget_get_height (scroller));
  return bounds.origin.y >= 0 && bounds.origin.y < gtk_widget_get_height (scroller);
}

static gboolean
overview_scrolled (gpointer data)
{
  GtkAdjustment *adjustment = data;

  if (gtk_adjustment_get_upper (adjustment) > 2 * gtk_adjustment_get_page_size (adjustment) &&
      gtk_adjustment_get_value (adjustment) == 0)
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  return gtk_adjustment_get_value (adjustment) > gtk_adjustment_get_page_size (adjustment);
}

/* Ctrl+Shift+O with the Overview scrolled down (a wheel), the focus on the
 * first card, now out of sight: the focus on the first card, scrolled into
 * sight (it stayed on the card out of sight, tried with the keyboard alone). */
static void
check_overview_scrolled_keys (PdApplication *app,
                              PdWindow      *window,
                              gpointer       user_data)
{
  GtkWidget *view, *scroller;
  GtkAdjustment *adjustment;
  g_autoptr(PdOverviewCard) first = NULL;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (focus_on_card, window, "the focus on an Overview card after Ctrl+Shift+O");
  view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW);
  scroller = gtk_widget_get_ancestor (pd_test_find_widget (view, GTK_TYPE_LIST_VIEW), GTK_TYPE_SCROLLED_WINDOW);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  pd_test_wait_until (overview_scrolled, adjustment, "the Overview scrolled down");
  pd_test_flush (GTK_WIDGET (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (focus_on_card, window, "the focus on an Overview card after Ctrl+Shift+O");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  first = g_list_model_get_item (pd_overview_view_get_shown (PD_OVERVIEW_VIEW (view)), 0);
  g_assert_true (focused_card_of (window) == first);
  g_assert_true (focused_card_in_sight (window, scroller));
}

static void
test_overview_scrolled_keys (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_fill_showcase (store);
  for (guint i = 0; i < 16; i++)
    {
      g_autofree char *title = g_strdup_printf ("Work %u", i);
      g_autofree char *id = pd_test_add_session (store, title, "plandeck");
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);

      pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_RUNNING);
    }
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1200);
  g_settings_set_int (settings, "window-height", 800);
  g_assert_cmpint (pd_test_run_app (args, check_overview_scrolled_keys, NULL, NULL), ==, 0);
}

/* --- the sources sidebar ----------------------------------------------------- */

typedef struct
{
  PdSourceSidebar *sidebar;
  guint            n_chosen;   /* notify::selected, which lists the sessions again */
} SidebarWatch;

static void
on_chosen (PdSourceSidebar *sidebar,
           GParamSpec      *pspec,
           SidebarWatch    *watch)
{
  watch->n_chosen++;
}

static gboolean
sidebar_listed (gpointer data)
{
  GtkWidget *rows = pd_test_find_widget (data, GTK_TYPE_LIST_BOX);
  guint n = 0;

  for (GtkWidget *row = gtk_widget_get_first_child (rows); row != NULL; row = gtk_widget_get_next_sibling (row))
    n++;
  return gtk_widget_get_mapped (data) && n == 4;
}

/* The row the focus is on in @rows, by its place (0: All Sources), or -1. */
static int
focused_place (PdWindow  *window,
               GtkWidget *rows)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  int i = 0;

  for (GtkWidget *row = gtk_widget_get_first_child (rows); row != NULL; row = gtk_widget_get_next_sibling (row), i++)
    if (focus == row)
      return i;
  return -1;
}

/* The rows that look selected, as a string of their places ("0"). */
static char *
selected_places (GtkWidget *rows)
{
  GString *places = g_string_new (NULL);
  int i = 0;

  for (GtkWidget *row = gtk_widget_get_first_child (rows); row != NULL; row = gtk_widget_get_next_sibling (row), i++)
    if (gtk_widget_get_state_flags (row) & GTK_STATE_FLAG_SELECTED)
      g_string_append_printf (places, "%d", i);
  return g_string_free (places, FALSE);
}

#define assert_selected(rows, places) \
  G_STMT_START { g_autofree char *shown = selected_places (rows); g_assert_cmpstr (shown, ==, places); } G_STMT_END

/* Tab and the arrows move the focus through the sidebar without choosing a
 * source (each source the focus passed was chosen and its sessions read);
 * Enter and Space choose; the list is one Tab stop, entered on the chosen
 * source. */
static void
check_sidebar_keys (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdSourceSidebar *sidebar = PD_SOURCE_SIDEBAR (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SOURCE_SIDEBAR));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (sidebar), GTK_TYPE_LIST_BOX);
  SidebarWatch watch = { sidebar, 0 };
  gulong handler;

  pd_test_wait_until (sidebar_listed, sidebar, "the sidebar to list four sources");
  pd_test_flush (GTK_WIDGET (window));
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  handler = g_signal_connect (sidebar, "notify::selected", G_CALLBACK (on_chosen), &watch);
  g_assert_null (pd_source_sidebar_get_selected (sidebar));
  assert_selected (rows, "0");

  /* Into the list on All Sources; Tab leaves it, Shift+Tab comes back. */
  gtk_root_set_focus (GTK_ROOT (window), NULL);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (sidebar), GTK_DIR_TAB_FORWARD));
  g_assert_cmpint (focused_place (window, rows), ==, 0);
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Tab, 0));
  g_assert_false (pd_test_a11y_focus_inside (rows));
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_cmpint (focused_place (window, rows), ==, 0);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (watch.n_chosen, ==, 0);

  /* Down to the last endpoint: nothing chosen. */
  for (guint i = 1; i <= 3; i++)
    {
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_Down, 0));
      g_assert_cmpint (focused_place (window, rows), ==, (int) i);
    }
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (watch.n_chosen, ==, 0);
  g_assert_null (pd_source_sidebar_get_selected (sidebar));
  assert_selected (rows, "0");

  /* Enter chooses it; Up and Space choose This Computer. */
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Return, 0));
  g_assert_cmpuint (watch.n_chosen, ==, 1);
  g_assert_nonnull (pd_source_sidebar_get_selected (sidebar));
  assert_selected (rows, "3");
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Up, 0));
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Up, 0));
  g_assert_cmpint (focused_place (window, rows), ==, 1);
  g_assert_cmpuint (watch.n_chosen, ==, 1);
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_space, 0));
  g_assert_cmpuint (watch.n_chosen, ==, 2);
  assert_selected (rows, "1");

  /* Tab out and back in: on This Computer, the chosen one, choosing
   * nothing. */
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Tab, 0));
  g_assert_false (pd_test_a11y_focus_inside (rows));
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_cmpint (focused_place (window, rows), ==, 1);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (watch.n_chosen, ==, 2);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-sidebar-keys");

  pd_source_sidebar_select (sidebar, NULL);
  g_signal_handler_disconnect (sidebar, handler);
}

static void
test_sidebar_keys (void)
{
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  pd_test_reset_settings ();
  /* Two endpoints nobody answers at (the discard port): listed with their
   * state all the same. */
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "build", "Build box", "http://127.0.0.1:9");
  g_variant_builder_add (&builder, "(sss)", "lab", "Lab", "http://127.0.0.1:9/lab");
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check_sidebar_keys, NULL, NULL), ==, 0);
  pd_test_reset_settings ();
}

void
pd_test_a11y_keyboard_add_landing (void)
{
  g_test_add_func ("/pd/ui/a11y/keyboard/hidden-pages", test_hidden_pages);
  g_test_add_func ("/pd/ui/a11y/keyboard/hidden-pages-narrow", test_hidden_pages_narrow);
  g_test_add_func ("/pd/ui/a11y/keyboard/enter-opens", test_enter_opens);
  g_test_add_func ("/pd/ui/a11y/keyboard/enter-opens-folded", test_enter_opens_folded);
  g_test_add_func ("/pd/ui/a11y/keyboard/page-keys", test_page_keys);
  g_test_add_func ("/pd/ui/a11y/keyboard/page-keys-folded", test_page_keys_folded);
  g_test_add_func ("/pd/ui/a11y/keyboard/f6-events", test_f6_events);
  g_test_add_func ("/pd/ui/a11y/keyboard/f6-events-folded", test_f6_events_folded);
  g_test_add_func ("/pd/ui/a11y/keyboard/sidebar", test_sidebar_keys);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-keys", test_overview_keys);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-keys-folded", test_overview_keys_folded);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-asking-keys", test_overview_asking_keys);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-asking-keys-folded", test_overview_asking_keys_folded);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-scrolled-keys", test_overview_scrolled_keys);
}

/* test-a11y-title.c: a session's title read whole at 360 px and 1.5× text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does. At 360 px the header cuts
 * a session's title ("Add an ex…", tried as a new user would) and the
 * sidebar's rows cut it too: the Now page heads its plan, and an imported
 * session's checklist, with the title whole, wrapped. The heading scrolls
 * with the page: pinned above it, an imported session's title took two
 * lines (cut) at 1.5× text and sat on the scrolled list under it. The
 * History page heads its version's detail likewise (it had no title but
 * the header's). The rows of real sessions fit 360 px,
 * History's check chips wrap, and an Overview card's title wraps.
 */
#define G_LOG_DOMAIN "test-a11y-title"

#include "config.h"

#include <math.h>
#include <string.h>

#include "pd-history-view.h"
#include "pd-import-index.h"
#include "pd-overview-card-row.h"
#include "pd-session-list.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

/* 101 characters, as a person writes a task in its first message. */
#define LONG_TITLE "Move every preference of the old INI file to GSettings and keep the migration for one more release"

typedef struct
{
  char *own;        /* a Plandeck session with a plan, LONG_TITLE */
  char *imported;   /* a Claude Code session with a checklist */
  char *imported_title;
  char *empty;      /* the showcase's Claude Code session, no checklist */
  char *no_plan;    /* the showcase's session without a plan */
} Sessions;

typedef struct
{
  PdWindow   *window;
  const char *title;
} TitleWait;

static GtkWidget *title_label (TitleWait *wait);

/* A label of the shown session page (not the header) showing @data. */
static gboolean
is_title_in_page (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

static GtkWidget *
title_label (TitleWait *wait)
{
  GtkWidget *page = adw_view_stack_get_visible_child (pd_test_a11y_view_stack (wait->window));

  return page != NULL ? pd_test_find_first (page, is_title_in_page, wait->title) : NULL;
}

/* The page's scroller, once it has more than a page to scroll. */
static gboolean
is_scrolling (GtkWidget     *widget,
              gconstpointer  data)
{
  GtkAdjustment *adjustment;

  if (!GTK_IS_SCROLLED_WINDOW (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (widget));
  return gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment) + 100;
}

/* The scroller the title is in, once it has more than a page to scroll:
 * a title pinned above the page's scroller has none. */
static GtkWidget *
title_scroller (TitleWait *wait)
{
  GtkWidget *label = title_label (wait);
  GtkWidget *scroller = label != NULL ? gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW) : NULL;

  return scroller != NULL && is_scrolling (scroller, NULL) ? scroller : NULL;
}

static gboolean
page_ready (gpointer data)
{
  TitleWait *wait = data;

  return title_label (wait) != NULL && title_scroller (wait) != NULL;
}

static double
label_top (GtkWidget *label,
           PdWindow  *window)
{
  graphene_point_t point;

  g_assert_true (gtk_widget_compute_point (label, GTK_WIDGET (window), &GRAPHENE_POINT_INIT (0, 0), &point));
  return point.y;
}

/* @id's @page shows @title whole, wrapped, and scrolls it away with the
 * page. */
static void
check_title (PdWindow   *window,
             const char *id,
             const char *title,
             const char *page,
             const char *what)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  TitleWait wait = { window, title };
  g_autofree char *shot = g_strconcat ("a11y-title-", what, NULL);
  g_autofree char *scrolled_shot = g_strconcat (shot, "-scrolled", NULL);
  GtkAdjustment *adjustment;
  GtkWidget *label, *scroller;
  graphene_point_t in_scroller;
  PangoLayout *layout;
  double start, top, moved;
  int drawn = 0;

  g_assert_true (pd_session_list_select (list, id));
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), page);
  pd_test_wait_until (page_ready, &wait, "the page showing the session's title");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));

  /* Whole: neither ellipsized nor wider than it is drawn. */
  label = title_label (&wait);
  layout = gtk_label_get_layout (GTK_LABEL (label));
  pango_layout_get_pixel_size (layout, &drawn, NULL);
  g_test_message ("%s: the title in a %d px label, %d lines, text %d px wide, %s", what,
                  gtk_widget_get_width (label), pango_layout_get_line_count (layout), drawn,
                  pango_layout_is_ellipsized (layout) ? "ELLIPSIZED" : "whole");
  pd_test_screenshot (GTK_WIDGET (window), shot);
  g_assert_false (pango_layout_is_ellipsized (layout));
  g_assert_cmpint (drawn, <=, gtk_widget_get_width (label) + 1);
  g_assert_cmpint (pango_layout_get_line_count (layout), >=, 2);

  /* At the page's top the heading is its first line, in sight. */
  scroller = title_scroller (&wait);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  gtk_adjustment_set_value (adjustment, 0);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_compute_point (label, scroller, &GRAPHENE_POINT_INIT (0, 0), &in_scroller));
  g_test_message ("%s: at the page's top the title is %.0f px under the scroller's top", what, in_scroller.y);
  g_assert_cmpfloat (in_scroller.y, >=, 0);
  g_assert_cmpfloat (in_scroller.y, <, 100);

  /* Scrolled, the heading goes with the page: nothing stays over it. */
  start = gtk_adjustment_get_value (adjustment);
  top = label_top (label, window);
  gtk_adjustment_set_value (adjustment, start + 100);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  moved = top - label_top (label, window);
  g_test_message ("%s: scrolled from %.0f px by %.0f px, the title moved up %.0f px", what, start,
                  gtk_adjustment_get_value (adjustment) - start, moved);
  pd_test_screenshot (GTK_WIDGET (window), scrolled_shot);
  g_assert_cmpfloat (fabs (moved - (gtk_adjustment_get_value (adjustment) - start)), <=, 1);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >, 50);
}

typedef struct
{
  Sessions    sessions;
  gboolean    own;       /* which title is looked at: the own session's, else the imported one's */
  int         scale;     /* the text size, in halves: 2 or 3 */
  const char *page;      /* the page looked at; NULL: Now */
} Case;

static void
check_titles (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  Case *c = user_data;
  const char *page = c->page != NULL ? c->page : "now";
  g_autofree char *what = g_strdup_printf ("%s-%s", c->own ? "own" : "imported", page);

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");

  if (c->own)
    check_title (window, c->sessions.own, LONG_TITLE, page, c->page != NULL ? what : "own");
  else
    check_title (window, c->sessions.imported, c->sessions.imported_title, page,
                 c->page != NULL ? what : "imported");
}

/* The Transcript and Events pages head themselves with the title too
 * (they had none, issue 23): a heading above the page's list that no
 * scroll takes away, two lines at most (whole it took 7 lines of a
 * 360 px window at 1.5× text), named by the whole title. */
static gboolean
pinned_title_shown (gpointer data)
{
  return title_label (data) != NULL;
}

static void
check_pinned_title (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Case *c = user_data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  TitleWait wait = { window, c->sessions.imported_title };
  g_autofree char *shot = g_strconcat ("a11y-title-pinned-", c->page, NULL);
  g_autofree char *spoken = NULL;
  GtkWidget *label, *page;
  PangoLayout *layout;
  int drawn = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  g_assert_true (pd_session_list_select (list, c->sessions.imported));
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), c->page);
  pd_test_wait_until (pinned_title_shown, &wait, "the page headed by the session's title");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  label = title_label (&wait);
  page = adw_view_stack_get_visible_child (pd_test_a11y_view_stack (window));
  layout = gtk_label_get_layout (GTK_LABEL (label));
  pango_layout_get_pixel_size (layout, &drawn, NULL);
  g_test_message ("%s: the title in a %d px label, %d lines, %s, %.0f px under the page's top", c->page,
                  gtk_widget_get_width (label), pango_layout_get_line_count (layout),
                  pango_layout_is_ellipsized (layout) ? "ELLIPSIZED" : "whole",
                  label_top (label, window) - label_top (page, window));
  pd_test_screenshot (GTK_WIDGET (window), shot);
  g_assert_cmpint (drawn, <=, gtk_widget_get_width (label) + 1);
  /* Above the list, not in what scrolls, and no more than two lines of
   * it; a heading for a reader, named by the whole title. */
  g_assert_null (gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW));
  g_assert_cmpfloat (label_top (label, window) - label_top (page, window), <, 40);
  g_assert_cmpint (pango_layout_get_line_count (layout), <=, 2);
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (label)), ==, GTK_ACCESSIBLE_ROLE_HEADING);
  g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL));
  spoken = gtk_test_accessible_check_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                               c->sessions.imported_title);
  if (spoken != NULL)
    g_error ("%s: the heading is not named by the whole title: %s", c->page, spoken);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (label), !=, NULL);
}

/* The least width each pane asks for, below the window's own 360 px. */
static int
least_width (GtkWidget *widget)
{
  int minimum = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  return minimum;
}

static int
children_least_width (GtkWidget *box)
{
  int widest = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (box); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_visible (child))
      widest = MAX (widest, least_width (child));
  return widest;
}

/* An imported session without a checklist: "No Checklist" and its
 * title, whole (pinned above the page it was cut to two lines at 1.5×
 * text, "Refactor the settings dialog int…"). */
#define EMPTY_TITLE "Refactor the settings dialog into pages"
/* A Plandeck session without a plan: "No Plan Yet" had no title at all. */
#define NO_PLAN_TITLE "Explain how the event bus delivers to listeners"

typedef struct
{
  TitleWait   wait;
  const char *status;   /* the status page's title */
} EmptyWait;

static gboolean
empty_title_shown (gpointer data)
{
  EmptyWait *empty = data;
  GtkWidget *page = adw_view_stack_get_visible_child (pd_test_a11y_view_stack (empty->wait.window));
  GtkWidget *status = page != NULL ? pd_test_find_label_containing (page, empty->status) : NULL;

  return title_label (&empty->wait) != NULL && status != NULL && gtk_widget_get_mapped (status);
}

static void
check_empty (PdWindow   *window,
             const char *id,
             const char *title,
             const char *status)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  EmptyWait empty = { { window, title }, status };
  g_autofree char *shot = g_strdelimit (g_strdup_printf ("a11y-title-empty-%s", status), " ", '-');
  PangoLayout *layout;
  GtkWidget *label;
  int drawn = 0;

  g_assert_true (pd_session_list_select (list, id));
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "now");
  pd_test_wait_until (empty_title_shown, &empty, "the status page and the session's title");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  label = title_label (&empty.wait);
  layout = gtk_label_get_layout (GTK_LABEL (label));
  pango_layout_get_pixel_size (layout, &drawn, NULL);
  g_test_message ("%s: the title in a %d px label, %d lines, %s", status, gtk_widget_get_width (label),
                  pango_layout_get_line_count (layout),
                  pango_layout_is_ellipsized (layout) ? "ELLIPSIZED" : "whole");
  pd_test_screenshot (GTK_WIDGET (window), shot);
  g_assert_false (pango_layout_is_ellipsized (layout));
  g_assert_cmpint (drawn, <=, gtk_widget_get_width (label) + 1);
}

static void
check_empty_pages (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  Case *c = user_data;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  check_empty (window, c->sessions.empty, EMPTY_TITLE, "No Checklist");
  check_empty (window, c->sessions.no_plan, NO_PLAN_TITLE, "No Plan Yet");
}

/* The session rows' labels drawn on more than one line. */
static guint
count_wrapped_row_labels (GtkWidget *list)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  guint n_wrapped = 0;

  pd_test_collect (list, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (gtk_widget_get_mapped (label) &&
          pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (label))) > 1)
        {
          g_test_message ("a session row's “%s” on %d lines", gtk_label_get_text (GTK_LABEL (label)),
                          pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (label))));
          n_wrapped++;
        }
    }
  return n_wrapped;
}

/* With the rows of real sessions (an imported one of a date, not "2 min
 * ago", and its agent's name) the window still narrows to 360 px: at 1.5×
 * text a session row needed 382 px. */
static void
check_rows_fit (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  Case *c = user_data;
  const char *pages[] = { "now", "transcript", "events", "history" };
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  GtkWidget *content = adw_leaflet_get_child_by_name (leaflet, "content");
  int widest_page = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  g_assert_true (pd_session_list_select (PD_SESSION_LIST (list), c->sessions.imported));
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      adw_view_stack_set_visible_child_name (views, pages[i]);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      widest_page = MAX (widest_page, children_least_width (content));
    }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("at %s text: the session list needs %d px, a session's pages %d px; the window is %d px",
                  c->scale == 3 ? "1.5×" : "1×", least_width (list), widest_page,
                  gtk_widget_get_width (GTK_WIDGET (window)));
  pd_test_screenshot (GTK_WIDGET (window), c->scale == 3 ? "a11y-title-rows-1.5x" : "a11y-title-rows-1x");
  if (gtk_widget_get_width (GTK_WIDGET (window)) > 360)
    pd_test_a11y_print_wide (GTK_WIDGET (window), 360, 0);
  g_assert_cmpint (least_width (list), <=, 360);
  g_assert_cmpint (widest_page, <=, 360);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), ==, 360);
  g_assert_cmpuint (pd_test_a11y_count_cut_labels (GTK_WIDGET (window), "session list"), ==, 0);

  /* At the default text size in a wide window the list is as wide as
   * its rows: none of their times wraps. */
  if (c->scale == 2)
    {
      gtk_window_set_default_size (GTK_WINDOW (window), 1000, 720);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      g_test_message ("at 1× text, 1000 px: the session list %d px wide", gtk_widget_get_width (list));
      pd_test_screenshot (GTK_WIDGET (window), "a11y-title-rows-1x-wide");
      g_assert_cmpuint (count_wrapped_row_labels (list), ==, 0);
    }
}

/* A showcase database with a Plandeck session of a long title and a plan,
 * and an imported Claude Code session with a checklist; the window at
 * 360 px and the text at @c's scale. */
static void
run_case (Case             *c,
          PdTestWindowFunc  func)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  g_autofree char *fixture = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "claude-code", "-home-dev-src-inkwell",
                                               "b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl", NULL);
  const char *paths[] = { fixture, NULL };
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (2);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(GError) error = NULL;
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = 0;

  pd_test_fill_showcase (store);
  c->sessions.own = pd_test_add_session (store, LONG_TITLE, "plandeck");
  pd_test_save_plan (store, c->sessions.own, plan, PD_SESSION_STATUS_IDLE);
  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  listed = pd_session_store_list (store, NULL, FALSE, 0, 50, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < listed->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (listed, i);
      const char *title = info->name != NULL ? info->name : info->task;

      if (g_strcmp0 (title, EMPTY_TITLE) == 0)
        c->sessions.empty = g_strdup (info->id);
      if (g_strcmp0 (title, NO_PLAN_TITLE) == 0)
        c->sessions.no_plan = g_strdup (info->id);
      if (g_strcmp0 (info->source, "claude-code") == 0 && g_str_has_prefix (title, "Settings are read"))
        {
          c->sessions.imported = g_strdup (info->id);
          c->sessions.imported_title = g_strdup (title);
        }
    }
  g_assert_nonnull (c->sessions.imported);
  /* Long enough to be cut in the header and to wrap in the page. */
  g_assert_cmpuint (strlen (c->sessions.imported_title), >, 60);

  g_object_get (gtk_settings, "gtk-xft-dpi", &dpi, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi * c->scale / 2, NULL);
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 360);
  g_settings_set_int (settings, "window-height", 720);
  g_assert_cmpint (pd_test_run_app (args, func, c, NULL), ==, 0);
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi, NULL);
  g_free (c->sessions.own);
  g_free (c->sessions.imported);
  g_free (c->sessions.imported_title);
  g_free (c->sessions.empty);
  g_free (c->sessions.no_plan);
}

static void
test_title_own (void)
{
  Case c = { { NULL, }, TRUE, 3 };

  run_case (&c, check_titles);
}

static void
test_title_imported (void)
{
  Case c = { { NULL, }, FALSE, 3 };

  run_case (&c, check_titles);
}

/* The History page heads itself with the title as Now does (the header
 * cut it at 360 px, and it had none). */
static void
test_title_page (gconstpointer data)
{
  Case c = { { NULL, }, FALSE, 3, data };

  run_case (&c, check_titles);
}

static void
test_title_pinned (gconstpointer data)
{
  Case c = { { NULL, }, FALSE, 3, data };

  run_case (&c, check_pinned_title);
}

static void
test_empty_pages (void)
{
  Case c = { { NULL, }, FALSE, 3 };

  run_case (&c, check_empty_pages);
}

static void
test_rows_fit (void)
{
  Case normal = { { NULL, }, FALSE, 2 };
  Case large = { { NULL, }, FALSE, 3 };

  run_case (&normal, check_rows_fit);
  run_case (&large, check_rows_fit);
}

/* The History detail shows its step rows' check chips. */
static gboolean
history_chips_shown (gpointer data)
{
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_HISTORY_VIEW);

  return gtk_widget_get_mapped (history) && pd_test_find_label_containing (history, "export tests pass ·") != NULL &&
         gtk_widget_get_mapped (pd_test_find_label_containing (history, "export tests pass ·"));
}

/* The check chips shown below @root drawn cut. */
static guint
count_cut_chips (GtkWidget *root)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  guint n_chips = 0;
  guint n_cut = 0;

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (label));
      int drawn = 0;

      if (!gtk_widget_get_mapped (label) || !gtk_widget_has_css_class (label, "pd-chip"))
        continue;
      n_chips++;
      pango_layout_get_pixel_size (layout, &drawn, NULL);
      if (pango_layout_is_ellipsized (layout) || drawn > gtk_widget_get_width (label) + 1)
        {
          g_test_message ("chip “%s” cut to %d px", gtk_label_get_text (GTK_LABEL (label)),
                          gtk_widget_get_width (label));
          n_cut++;
        }
    }
  g_test_message ("%u of %u check chips cut", n_cut, n_chips);
  g_assert_cmpuint (n_chips, >=, 3);
  return n_cut;
}

/* At 1.5× text in the default window History's detail sits beside the
 * session list and the versions: its check chips were cut to "build · p…"
 * and "tests · f…", their state (passed, failed) unread. They wrap onto
 * more lines, as the Now page's do. */
static void
check_history_chips (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  pd_test_wait_until (history_chips_shown, window, "History's detail with its check chips");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("a chip in History's detail %d px wide, the window %d px",
                  gtk_widget_get_width (pd_test_find_label_containing (history, "export tests pass ·")),
                  gtk_widget_get_width (GTK_WIDGET (window)));
  pd_test_screenshot (GTK_WIDGET (window), "a11y-title-history-chips");
  g_assert_cmpuint (pd_test_a11y_count_cut_labels (history, "History"), ==, 0);
  /* A check's state is read on its chip, whole: said elsewhere (the
   * row's description) is not enough to see it. */
  g_assert_cmpuint (count_cut_chips (history), ==, 0);
}

static void
test_history_chips (void)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = pd_test_a11y_large_text ();

  g_assert_cmpint (pd_test_run_showcase (960, 640, check_history_chips, NULL), ==, 0);
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi, NULL);
}

/* The cards' title labels drawn cut: ellipsized, or wider than drawn. */
static guint
count_cut_card_titles (GtkWidget *window,
                       guint     *n_titles,
                       guint     *n_wrapped)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  guint n_cut = 0;

  pd_test_collect (window, PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();

      if (!gtk_widget_get_mapped (row))
        continue;
      pd_test_collect (row, GTK_TYPE_LABEL, labels);
      for (guint j = 0; j < labels->len; j++)
        {
          GtkWidget *label = g_ptr_array_index (labels, j);
          PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (label));
          int drawn = 0;

          if (!gtk_widget_get_mapped (label) || !gtk_widget_has_css_class (label, "pd-card-title"))
            continue;
          (*n_titles)++;
          pango_layout_get_pixel_size (layout, &drawn, NULL);
          if (pango_layout_get_line_count (layout) > 1)
            (*n_wrapped)++;
          g_test_message ("card title “%s”: %d px, %d lines, %s", gtk_label_get_text (GTK_LABEL (label)),
                          gtk_widget_get_width (label), pango_layout_get_line_count (layout),
                          pango_layout_is_ellipsized (layout) ? "ELLIPSIZED" : "whole");
          if (pango_layout_is_ellipsized (layout) || drawn > gtk_widget_get_width (label) + 1)
            n_cut++;
        }
    }
  return n_cut;
}

static gboolean
overview_has_cards (gpointer data)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  guint n_mapped = 0;

  pd_test_collect (GTK_WIDGET (data), PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    n_mapped += gtk_widget_get_mapped (g_ptr_array_index (rows, i));
  return n_mapped >= 2;
}

/* At 1.5× text and 360 px an Overview card's title had one line beside
 * the time: "Add an expor…". It wraps, and the time goes under it. */
static void
check_card_titles (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  guint n_titles = 0, n_wrapped = 0, n_cut;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (overview_has_cards, window, "the Overview's cards");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (window));
  n_cut = count_cut_card_titles (GTK_WIDGET (window), &n_titles, &n_wrapped);
  g_test_message ("at 1.5× text, %d px: %u of %u card titles cut, %u on more than one line",
                  gtk_widget_get_width (GTK_WIDGET (window)), n_cut, n_titles, n_wrapped);
  pd_test_screenshot (GTK_WIDGET (window), "a11y-title-cards-1.5x");
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), ==, 360);
  g_assert_cmpuint (n_titles, >=, 2);
  g_assert_cmpuint (n_wrapped, >=, 1);
  g_assert_cmpuint (n_cut, ==, 0);
  /* Nothing else of a card cut either (its time, its origin). */
  g_assert_cmpuint (pd_test_a11y_count_cut_labels (GTK_WIDGET (window), "Overview"), ==, 0);
}

static void
test_card_titles (void)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = pd_test_a11y_large_text ();

  g_assert_cmpint (pd_test_run_showcase (360, 720, check_card_titles, NULL), ==, 0);
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/pd/ui/a11y/title/rows-fit", test_rows_fit);
  g_test_add_func ("/pd/ui/a11y/title/own", test_title_own);
  g_test_add_func ("/pd/ui/a11y/title/imported", test_title_imported);
  g_test_add_data_func ("/pd/ui/a11y/title/history", "history", test_title_page);
  g_test_add_func ("/pd/ui/a11y/title/history-chips", test_history_chips);
  g_test_add_data_func ("/pd/ui/a11y/title/transcript", "transcript", test_title_pinned);
  g_test_add_data_func ("/pd/ui/a11y/title/events", "events", test_title_pinned);
  g_test_add_func ("/pd/ui/a11y/title/empty-pages", test_empty_pages);
  g_test_add_func ("/pd/ui/a11y/title/cards", test_card_titles);
  return g_test_run ();
}

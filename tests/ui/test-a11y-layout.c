/* test-a11y-layout.c: contrast and large text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does, and again with high
 * contrast and in the dark style (tests/ui/meson.build). The window is
 * rendered and the contrast of its text and icons measured from the pixels;
 * at 1.5× text (gtk-xft-dpi) the panes grow with the text, nothing that
 * carries text is cut, and the window still fits 360 px.
 */
#define G_LOG_DOMAIN "test-a11y-layout"

#include "config.h"

#include <math.h>
#include <string.h>

#include <libsoup/soup.h>

#include "pd-event.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-import-index.h"
#include "pd-now-view.h"
#include "pd-overview-card-row.h"
#include "pd-plan-pie.h"
#include "pd-overview-view.h"
#include "pd-plan-row.h"
#include "pd-preferences-window.h"
#include "pd-secrets.h"
#include "pd-session-list.h"
#include "pd-session-store.h"
#include "pd-sources-page.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "test-a11y-pixels.h"

static gboolean
has_class (GtkWidget     *widget,
           gconstpointer  name)
{
  return gtk_widget_get_mapped (widget) && gtk_widget_has_css_class (widget, name);
}

static GtkWidget *
label_in (GtkWidget *widget)
{
  return pd_test_find_widget (widget, GTK_TYPE_LABEL);
}

static void
report (const char *what,
        double      contrast,
        double      needed,
        gboolean   *ok)
{
  g_test_message ("contrast %-40s %5.2f:1 (needs %.1f:1)%s", what, contrast, needed,
                  contrast < needed ? "  TOO LOW" : "");
  if (contrast < needed)
    *ok = FALSE;
}

/* Events of the kinds with the longest labels, for the session listed
 * first (the one the window shows). */
static void
add_events (PdSessionStore *store)
{
  g_autoptr(GError) list_error = NULL;
  g_autoptr(GPtrArray) sessions = pd_session_store_list (store, NULL, FALSE, 0, 1, NULL, &list_error);
  const char *id;
  const struct { const char *type; const char *tool; const char *data; } events[] = {
    { PD_EVENT_RUN_STARTED, NULL, "{}" },
    { PD_EVENT_TOOL_CALL_STARTED, "read_file", "{\"call_id\": \"c1\"}" },
    { PD_EVENT_TOOL_CALL_COMPLETED, "read_file", "{\"duration_ms\": 12}" },
    { PD_EVENT_TOOL_CALL_FAILED, "shell", "{\"error\": \"denied\"}" },
    { PD_EVENT_PLAN_VALIDATION_FAILED, NULL, "{}" },
    { PD_EVENT_ITERATION_COMPLETED, NULL, "{\"tools_called\": 2}" },
  };

  g_assert_no_error (list_error);
  g_assert_cmpuint (sessions->len, ==, 1);
  id = ((PdSessionInfo *) g_ptr_array_index (sessions, 0))->id;
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) data = json_from_string (events[i].data, &error);
      g_autoptr(PdEvent) event = NULL;
      g_autofree char *text = NULL;

      g_assert_no_error (error);
      event = pd_event_new_full (events[i].type, "run-1", id, i + 10, events[i].tool,
                                 json_object_ref (json_node_get_object (data)));
      text = pd_event_to_json (event);
      g_assert_cmpint (pd_session_store_add_event (store, id, "run-1", events[i].type,
                                                   pd_event_get_timestamp (event), text, &error), >, 0);
      g_assert_no_error (error);
    }
}

static gboolean
events_listed (gpointer data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_EVENTS_VIEW);
  GtkWidget *table = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  GtkWidget *list = pd_test_find_widget (table, GTK_TYPE_LIST_VIEW);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  pd_test_a11y_collect_rows (list, rows);
  return rows->len >= 6;
}

/* The placeholder label inside the message entry, shown. */
static gboolean
is_message_hint (GtkWidget     *widget,
                 gconstpointer  data)
{
  GtkWidget *entry = gtk_widget_get_ancestor (widget, GTK_TYPE_ENTRY);

  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) && entry != NULL &&
         g_strcmp0 (gtk_entry_get_placeholder_text (GTK_ENTRY (entry)), gtk_label_get_text (GTK_LABEL (widget))) == 0 &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), "Continue the session");
}

static gboolean
in_selected_row (GtkWidget *widget)
{
  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    if (gtk_widget_get_state_flags (widget) & GTK_STATE_FLAG_SELECTED)
      return TRUE;
  return FALSE;
}

/* A session row's pie with nothing done (the first pie of a row not
 * selected, set so): the
 * contrast of what it draws against the row 2 px left of it, so that a
 * pie shows where it is and how big whatever share is done. */
static double
measure_pie (GtkWidget *window,
             GtkWidget *list)
{
  g_autoptr(GPtrArray) pies = g_ptr_array_new ();
  g_auto(Pixels) pixels = { 0 };
  graphene_rect_t bounds;
  GtkWidget *pie = NULL;
  double background;
  double best = 1.0;

  pd_test_collect (list, PD_TYPE_PLAN_PIE, pies);
  for (guint i = 0; i < pies->len && pie == NULL; i++)
    if (gtk_widget_get_mapped (g_ptr_array_index (pies, i)) && !in_selected_row (g_ptr_array_index (pies, i)))
      pie = g_ptr_array_index (pies, i);
  g_assert_nonnull (pie);
  g_object_set (pie, "done", 0, "blocked", 0, "total", 4, NULL);
  pd_test_flush (window);
  render (window, &pixels);
  g_assert_true (gtk_widget_compute_bounds (pie, window, &bounds));
  g_assert_cmpfloat (bounds.origin.x, >=, 2);
  background = luminance (&pixels, (int) bounds.origin.x - 2, (int) (bounds.origin.y + bounds.size.height / 2));
  for (int y = (int) bounds.origin.y; y < (int) (bounds.origin.y + bounds.size.height); y++)
    for (int x = (int) bounds.origin.x; x < (int) (bounds.origin.x + bounds.size.width); x++)
      best = MAX (best, ratio (background, luminance (&pixels, x, y)));
  return best;
}

static void
check_contrast (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_NOW_VIEW);
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  const char *chips[] = { "passed", "failed", "blocked", "pending" };
  g_auto(Pixels) pixels = { 0 };
  gboolean ok = TRUE;
  GtkWidget *widget;
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  AdwStyleManager *style = adw_style_manager_get_default ();

  g_test_message ("high contrast: %s, dark: %s",
                  adw_style_manager_get_high_contrast (style) ? "on" : "off",
                  adw_style_manager_get_dark (style) ? "yes" : "no");
  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  render (GTK_WIDGET (window), &pixels);

  /* The check chips of the Now page: text, then the coloured icon. */
  for (guint i = 0; i < G_N_ELEMENTS (chips); i++)
    {
      g_autoptr(GPtrArray) found = g_ptr_array_new ();
      g_autofree char *what = g_strdup_printf ("%s check chip, text", chips[i]);
      g_autofree char *icon = g_strdup_printf ("%s check chip, icon", chips[i]);
      GtkWidget *chip;

      pd_test_collect (now, GTK_TYPE_BOX, found);
      chip = NULL;
      for (guint j = 0; j < found->len && chip == NULL; j++)
        if (has_class (g_ptr_array_index (found, j), "check-chip") &&
            has_class (g_ptr_array_index (found, j), chips[i]))
          chip = g_ptr_array_index (found, j);
      g_assert_nonnull (chip);
      report (what, measure (GTK_WIDGET (window), &pixels, label_in (chip), 0), 4.5, &ok);
      report (icon, measure (GTK_WIDGET (window), &pixels, pd_test_find_widget (chip, GTK_TYPE_IMAGE), 0),
              3.0, &ok);
    }

  /* Dimmed text: a done step's title, a step's note, a session's time. */
  widget = pd_test_find_first (now, has_class, "step-note");
  g_assert_nonnull (widget);
  report ("step note (dimmed)", measure (GTK_WIDGET (window), &pixels, widget, 0), 4.5, &ok);
  pd_test_collect (now, PD_TYPE_PLAN_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    if (has_class (g_ptr_array_index (rows, i), "done"))
      {
        widget = pd_test_find_first (g_ptr_array_index (rows, i), has_class, "step-title");
        report ("done step title", measure (GTK_WIDGET (window), &pixels, widget, 0), 4.5, &ok);
        break;
      }
  widget = pd_test_find_first (list, has_class, "dim-label");
  g_assert_nonnull (widget);
  report ("session time (dimmed)", measure (GTK_WIDGET (window), &pixels, widget, 0), 4.5, &ok);

  /* The message field's hint, its only visible label (with "/plan"):
   * libadwaita's placeholder measured 3.12:1 in the light style. */
  widget = pd_test_find_first (GTK_WIDGET (window), is_message_hint, NULL);
  g_assert_nonnull (widget);
  report ("message field's hint", measure (GTK_WIDGET (window), &pixels, widget, 0), 4.5, &ok);

  /* Status icons of the session list: an idle session's was 1.33:1. */
  widget = pd_test_find_first (list, has_class, "idle");
  g_assert_nonnull (widget);
  report ("idle session icon", measure (GTK_WIDGET (window), &pixels, widget, 0), 3.0, &ok);
  report ("session pie, nothing done", measure_pie (GTK_WIDGET (window), list), 3.0, &ok);

  /* A pending step's status icon, on the Now page and in the History
   * (drawn at half opacity: 2.5–2.9:1 in light and dark). */
  widget = NULL;
  for (guint i = 0; i < rows->len && widget == NULL; i++)
    if (has_class (g_ptr_array_index (rows, i), "pending"))
      widget = pd_test_find_first (g_ptr_array_index (rows, i), has_class, "step-status");
  g_assert_nonnull (widget);
  report ("pending step icon", measure (GTK_WIDGET (window), &pixels, widget, 0), 3.0, &ok);
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pixels_clear (&pixels);
  render (GTK_WIDGET (window), &pixels);
  widget = pd_test_find_first (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW),
                               has_class, "pd-step-pending");
  g_assert_nonnull (widget);
  report ("pending step icon, History", measure (GTK_WIDGET (window), &pixels, widget, 0), 3.0, &ok);
  /* The Events table's column titles (libadwaita's 0.4 of the text
   * colour measured 2.6:1). */
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "events");
  pd_test_wait_until (events_listed, window, "the events");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pixels_clear (&pixels);
  render (GTK_WIDGET (window), &pixels);
  widget = gtk_widget_get_first_child (pd_test_find_widget (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW),
                                                            GTK_TYPE_COLUMN_VIEW));
  report ("Events column title", measure (GTK_WIDGET (window), &pixels, label_in (widget), 0), 4.5, &ok);
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "now");
  pd_test_flush (GTK_WIDGET (window));

  pd_test_screenshot_sizes (GTK_WINDOW (window), adw_style_manager_get_high_contrast (style)
                                                 ? "a11y-high-contrast"
                                                 : adw_style_manager_get_dark (style) ? "a11y-dark" : "a11y-default");
  g_assert_true (ok);
}

static void
test_contrast (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_fill_showcase (store);
  add_events (store);
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1200);
  g_settings_set_int (settings, "window-height", 800);
  g_assert_cmpint (pd_test_run_app (args, check_contrast, NULL, NULL), ==, 0);
}

/* No Events cell but an event's summary cuts its text ("Tool call st…"
 * read the same for started and completed): in the columns, and in the
 * compact rows of a narrow window. The header's titles neither. */
static guint
count_cut_event_cells (PdWindow *window,
                       guint    *n_checked)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  GtkWidget *table = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  guint n_cut = 0;

  pd_test_a11y_collect_rows (pd_test_find_widget (table, GTK_TYPE_LIST_VIEW), rows);
  g_assert_cmpuint (rows->len, >, 0);
  if (gtk_widget_get_visible (gtk_widget_get_first_child (table)))
    g_ptr_array_insert (rows, 0, gtk_widget_get_first_child (table));
  for (guint i = 0; i < rows->len; i++)
    {
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();
      gboolean header = i == 0 && !pd_test_a11y_is_row (g_ptr_array_index (rows, i), NULL);

      pd_test_collect (g_ptr_array_index (rows, i), GTK_TYPE_LABEL, labels);
      /* A row's last label is its summary: cut to the width by design. */
      for (guint j = 0; j < labels->len - (header ? 0 : 1); j++)
        {
          GtkLabel *label = g_ptr_array_index (labels, j);

          if (!gtk_widget_get_mapped (GTK_WIDGET (label)) || *gtk_label_get_text (label) == '\0')
            continue;
          (*n_checked)++;
          if (pango_layout_is_ellipsized (gtk_label_get_layout (label)))
            {
              g_test_message ("Events: “%s” is cut to %d px", gtk_label_get_text (label),
                              gtk_widget_get_width (GTK_WIDGET (label)));
              n_cut++;
            }
        }
    }
  return n_cut;
}

static gboolean
window_resized (gpointer data)
{
  GtkWidget *window = data;
  int wanted = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "a11y-width"));

  return gtk_widget_get_width (window) <= wanted + 16;
}

static void
assert_event_columns_uncut (PdWindow *window)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  const int widths[] = { 1200, 1000, 900, 360 };
  guint n_cut = 0;

  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "events");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_wait_until (events_listed, window, "the events");
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      g_autofree char *shot = g_strdup_printf ("a11y-large-text-events-%d", widths[i]);
      guint n_checked = 0;
      guint cut;

      g_object_set_data (G_OBJECT (window), "a11y-width", GINT_TO_POINTER (widths[i]));
      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 800);
      pd_test_wait_until (window_resized, window, "the window's new width");
      /* Folded, the session's pages are shown, not the list. */
      adw_leaflet_set_visible_child_name (ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET)),
                                          "content");
      pd_test_spin (300);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_wait_until (events_listed, window, "the events");
      cut = count_cut_event_cells (window, &n_checked);
      g_test_message ("Events at 1.5× text, window %d px (%s): %u of %u cells cut", widths[i],
                      pd_events_view_get_compact (PD_EVENTS_VIEW (view)) ? "compact" : "columns",
                      cut, n_checked);
      g_assert_cmpuint (n_checked, >, 4);
      pd_test_screenshot (GTK_WIDGET (window), shot);
      n_cut += cut;
    }
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  g_assert_cmpuint (n_cut, ==, 0);
}

/* At 1.5× text the session list and the History pane grow with it. */
static void
check_large_text (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  GtkWidget *sidebar = gtk_widget_get_parent (list);
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  GtkPaned *paned = GTK_PANED (pd_test_find_widget (history, GTK_TYPE_PANED));

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpint (gtk_widget_get_width (sidebar), >, 280);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-large-text");
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  pd_test_flush (GTK_WIDGET (window));
  /* The versions pane is as wide as its rows once shown (no position set). */
  g_test_message ("at 1.5× text: session list %d px wide, History versions %d px",
                  gtk_widget_get_width (sidebar), gtk_paned_get_position (paned));
  g_assert_cmpint (gtk_paned_get_position (paned), >, 240);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-large-text-history");
  assert_event_columns_uncut (window);
}

static void
test_large_text (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  g_autofree char *layout = NULL;
  int dpi = 0;

  g_object_get (gtk_settings, "gtk-xft-dpi", &dpi, "gtk-decoration-layout", &layout, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  /* GNOME's window buttons (see test_large_text_narrow), for 360 px. */
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi * 3 / 2, "gtk-decoration-layout", "appmenu:close", NULL);
  pd_test_fill_showcase (store);
  add_events (store);
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1200);
  g_settings_set_int (settings, "window-height", 800);
  g_assert_cmpint (pd_test_run_app (args, check_large_text, NULL, NULL), ==, 0);
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

/* A header bar's New Session button, shown and given its room. */
static gboolean
is_header_new_session (GtkWidget     *widget,
                       gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.new-session") == 0 &&
         gtk_widget_get_ancestor (widget, ADW_TYPE_HEADER_BAR) != NULL &&
         gtk_widget_get_width (widget) >= 24;
}

/* At 1.5× text the window still fits a 360 px screen (GNOME's mobile
 * width), with Minimize and Maximize beside Close (GTK's own default; GNOME
 * and Phosh show Close alone): every page of a session and the session
 * list. Nothing that carries text is cut: the step notes, check chips,
 * the page switcher's tabs and the header's title (the header needed
 * 383 px, the notes, a chip and "Transcript" were cut). */
static void
check_large_text_narrow (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  int widest = 0;
  guint n_cut = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  adw_leaflet_set_visible_child_name (leaflet, "content");
  for (guint i = 0; i <= G_N_ELEMENTS (pages); i++)
    {
      const char *where = i < G_N_ELEMENTS (pages) ? pages[i] : "session list";
      int minimum = 0;

      if (i < G_N_ELEMENTS (pages))
        adw_view_stack_set_visible_child_name (views, pages[i]);
      else
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      g_test_message ("at 1.5× text, %s: the window needs %d px", where, minimum);
      if (minimum > 360)
        pd_test_a11y_print_wide (content, 360, 1);
      widest = MAX (widest, minimum);
      n_cut += pd_test_a11y_count_cut_labels (GTK_WIDGET (window), where);
      if (i < G_N_ELEMENTS (pages))
        {
          g_autofree char *shot = g_strdup_printf ("a11y-large-text-360-%s", pages[i]);

          pd_test_screenshot (GTK_WIDGET (window), shot);
        }
      else
        {
          GtkWidget *new_session = pd_test_find_first (GTK_WIDGET (window), is_header_new_session, NULL);

          pd_test_screenshot (GTK_WIDGET (window), "a11y-large-text-360-sessions");
          /* The sidebar's New Session button stays (it gave way to the
           * main menu, and folded, the sessions' page had no "+"). */
          g_test_message ("at 1.5× text, session list: New Session in the header %s",
                          new_session != NULL ? "shown" : "MISSING");
          g_assert_nonnull (new_session);
        }
    }
  g_assert_cmpint (widest, <=, 360);
  g_assert_cmpuint (n_cut, ==, 0);
}

static void
test_large_text_narrow (void)
{
  int dpi = pd_test_a11y_large_text ();
  g_autofree char *layout = NULL;

  g_object_get (gtk_settings_get_default (), "gtk-decoration-layout", &layout, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", "appmenu:minimize,maximize,close", NULL);
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_large_text_narrow, NULL), ==, 0);
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

/* --- the Events page: what its count says is what its table shows ------------ */

typedef struct
{
  GtkWidget      *view;
  GListModel     *events;
  guint           n_frames;
  guint           n_disagree;
  GString        *seen;       /* each state drawn, once */
} Agreement;

/* @widget and its ancestors are drawn, none see-through. */
static gboolean
drawn_opaque (GtkWidget *widget)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_opacity (w) == 0 || !gtk_widget_get_child_visible (w))
      return FALSE;
  return TRUE;
}

/* The rows of the events' table one sees. */
static guint
n_rows_drawn (GtkWidget *view)
{
  GtkWidget *columns = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (columns); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      for (GtkWidget *row = gtk_widget_get_first_child (child); row != NULL; row = gtk_widget_get_next_sibling (row))
        if (drawn_opaque (row))
          n++;
  return n;
}

static gboolean
is_count_label (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "numeric") &&
         gtk_widget_get_ancestor (widget, GTK_TYPE_COLUMN_VIEW) == NULL;
}

/* What the page shows a person, in words. */
static char *
events_page_state (Agreement *agreement,
                   gboolean  *agrees)
{
  GtkWidget *count = pd_test_find_first (agreement->view, is_count_label, NULL);
  GtkWidget *status = pd_test_find_widget (agreement->view, ADW_TYPE_STATUS_PAGE);
  const char *text = drawn_opaque (count) ? gtk_label_get_text (GTK_LABEL (count)) : "";
  gboolean empty_shown = status != NULL && drawn_opaque (status);
  guint rows = n_rows_drawn (agreement->view);
  guint total = g_list_model_get_n_items (agreement->events);
  gboolean reading = pd_session_view_get_busy (PD_SESSION_VIEW (agreement->view));

  /* A count over no row; "No Events Yet" while there are some, or while
   * the read still goes on. */
  *agrees = !(*text != '\0' && rows == 0) && !(empty_shown && (total > 0 || reading));
  return g_strdup_printf ("count “%s”, %s, %s", text, rows > 0 ? "rows drawn" : "no row drawn",
                          empty_shown ? "“No Events Yet”" : "no status page");
}

/* Each frame painted: what it showed. */
static void
check_agreement (GdkFrameClock *clock,
                 gpointer       data)
{
  Agreement *agreement = data;
  gboolean agrees;
  g_autofree char *state = events_page_state (agreement, &agrees);
  g_autofree char *line = g_strdup_printf ("[%s%s]", agrees ? "" : "DISAGREE: ", state);

  if (clock != NULL)
    agreement->n_frames++;
  if (!agrees)
    agreement->n_disagree++;
  if (strstr (agreement->seen->str, line) == NULL)
    {
      g_string_append (agreement->seen, line);
      g_test_message ("%s", line);
    }
}

/* Frames keep coming while the test looks. */
static gboolean
keep_drawing (GtkWidget     *widget,
              GdkFrameClock *clock,
              gpointer       data)
{
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  Agreement  *agreement;
  const char *count;     /* the count once settled */
} CountShown;

static gboolean
count_shown (gpointer data)
{
  CountShown *wait = data;
  GtkWidget *count = pd_test_find_first (wait->agreement->view, is_count_label, NULL);

  /* Between frames too: what the next one draws. */
  check_agreement (NULL, wait->agreement);

  return g_strcmp0 (gtk_label_get_text (GTK_LABEL (count)), wait->count) == 0 && drawn_opaque (count) &&
         n_rows_drawn (wait->agreement->view) > 0 &&
         !pd_session_view_get_busy (PD_SESSION_VIEW (wait->agreement->view));
}

static gboolean
empty_shown (gpointer data)
{
  Agreement *agreement = data;
  GtkWidget *status = pd_test_find_widget (agreement->view, ADW_TYPE_STATUS_PAGE);

  check_agreement (NULL, agreement);
  return drawn_opaque (status) && !pd_session_view_get_busy (PD_SESSION_VIEW (agreement->view));
}

/* Every frame drawn while the Events page reads 200 events, filters them
 * and reads a session with none: a count only over rows one sees, "No
 * Events Yet" only once the read found none. */
static void
test_events_count_agrees (void)
{
  PdTestDb *db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Two hundred events");
  g_autofree char *quiet = pd_test_db_create_session (db, "No events");
  GtkWidget *view = pd_events_view_new ();
  Agreement agreement = { view, pd_events_view_get_model (PD_EVENTS_VIEW (view)), 0, 0, g_string_new (NULL) };
  CountShown wait = { &agreement, "200 events" };
  GtkWindow *window;
  gulong painted;
  guint tick;

  for (guint i = 0; i < 200; i++)
    pd_test_db_add_event (db, id, i % 2 ? PD_EVENT_TOOL_CALL_COMPLETED : PD_EVENT_TOOL_CALL_STARTED,
                          "shell", i / 2, "{}");
  window = pd_test_present (view, 1000, 640);
  tick = gtk_widget_add_tick_callback (GTK_WIDGET (window), keep_drawing, NULL, NULL);
  painted = g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                              G_CALLBACK (check_agreement), &agreement);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_test_wait_until (count_shown, &wait, "200 events, drawn");
  pd_test_flush (GTK_WIDGET (window));

  pd_events_view_set_type_filter (PD_EVENTS_VIEW (view), PD_EVENT_TOOL_CALL_STARTED);
  wait.count = "100 of 200 events";
  pd_test_wait_until (count_shown, &wait, "100 of 200 events, drawn");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_screenshot_sizes (window, "a11y-events-filtered");
  pd_events_view_set_type_filter (PD_EVENTS_VIEW (view), NULL);
  wait.count = "200 events";
  pd_test_wait_until (count_shown, &wait, "200 events again, drawn");

  pd_session_view_set_session_id (PD_SESSION_VIEW (view), quiet);
  pd_test_wait_until (empty_shown, &agreement, "“No Events Yet”");
  pd_test_flush (GTK_WIDGET (window));

  gtk_widget_remove_tick_callback (GTK_WIDGET (window), tick);
  g_signal_handler_disconnect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), painted);
  g_test_message ("%u frames drawn; %u looks, in frames or between them, where the count and the table disagreed",
                  agreement.n_frames,
                  agreement.n_disagree);
  g_assert_cmpuint (agreement.n_frames, >, 0);
  g_assert_cmpuint (agreement.n_disagree, ==, 0);
  g_string_free (agreement.seen, TRUE);
  pd_test_destroy_window (window, view);
  pd_test_db_free (db);
}

/* --- an imported Cline task at 360 px: no hyphen of Pango's ------------------- */

/* The task's own text: its title and its checklist's items. */
static const char * const cline_texts[] = {
  "Add pagination to the /orders endpoint", "Read the orders handler", "Add limit and offset",
  "Test the pages", "Check the last page",
};

typedef struct
{
  guint n_labels;    /* the task's text shown in a wrapping label */
  guint n_wrapped;   /* of them, wrapped onto more lines */
  guint n_hyphens;   /* of them, free to get a hyphen at a wrap */
} HyphenCount;

static gboolean
shows_cline_text (const char *text)
{
  for (guint i = 0; i < G_N_ELEMENTS (cline_texts); i++)
    if (strstr (text, cline_texts[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Whether Pango may add a hyphen where @label's layout wraps. */
static gboolean
may_hyphenate (GtkLabel *label)
{
  PangoAttrList *attrs = pango_layout_get_attributes (gtk_label_get_layout (label));
  PangoAttrIterator *it;
  PangoAttribute *hyphens;
  gboolean may;

  if (attrs == NULL)
    return TRUE;
  it = pango_attr_list_get_iterator (attrs);
  hyphens = pango_attr_iterator_get (it, PANGO_ATTR_INSERT_HYPHENS);
  may = hyphens == NULL || ((PangoAttrInt *) hyphens)->value;
  pango_attr_iterator_destroy (it);
  return may;
}

static void
count_hyphens (GtkWidget   *widget,
               HyphenCount *count,
               const char  *where)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (GTK_IS_LABEL (widget) && gtk_label_get_wrap (GTK_LABEL (widget)) &&
      shows_cline_text (gtk_label_get_text (GTK_LABEL (widget))))
    {
      int lines = pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (widget)));

      count->n_labels++;
      if (lines > 1)
        count->n_wrapped++;
      if (may_hyphenate (GTK_LABEL (widget)))
        {
          g_test_message ("%s: “%s” (%d lines) may get a hyphen at a wrap", where,
                          gtk_label_get_text (GTK_LABEL (widget)), lines);
          count->n_hyphens++;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    count_hyphens (child, count, where);
}

/* Whether every wrap of @label's text falls between words. */
static gboolean
wraps_between_words (GtkLabel *label)
{
  PangoLayout *layout = gtk_label_get_layout (label);
  const char *text = pango_layout_get_text (layout);
  gboolean between = TRUE;

  for (GSList *l = pango_layout_get_lines_readonly (layout); l != NULL; l = l->next)
    {
      PangoLayoutLine *line = l->data;

      if (line->start_index > 0 && text[line->start_index - 1] != ' ')
        {
          g_test_message ("“%s” wraps inside a word before “%.12s”", text, text + line->start_index);
          between = FALSE;
        }
    }
  return between;
}

/* The shown labels below @root cut short (ellipsized) whose whole text no
 * tooltip shows, on the label or around it: a screen reader may say it
 * whole, one who sees it cannot read it anywhere. */
static guint
count_cut_without_tooltip (GtkWidget  *root,
                           const char *where)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  guint n_cut = 0;

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      const char *text = gtk_label_get_text (GTK_LABEL (label));
      gboolean shown = FALSE;

      if (!gtk_widget_get_mapped (label) || *text == '\0' ||
          !pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))))
        continue;
      for (GtkWidget *w = label; w != NULL && !GTK_IS_WINDOW (w) && !shown; w = gtk_widget_get_parent (w))
        shown = gtk_widget_get_tooltip_text (w) != NULL && strstr (gtk_widget_get_tooltip_text (w), text) != NULL;
      /* A label that gives its tooltip only when cut (a session row's
       * title) answers the query, with its own text. */
      if (!shown && gtk_widget_get_has_tooltip (label) && gtk_widget_get_tooltip_text (label) == NULL)
        {
          g_autoptr(GtkTooltip) tooltip = g_object_new (GTK_TYPE_TOOLTIP, NULL);

          g_signal_emit_by_name (label, "query-tooltip", 1, 1, FALSE, tooltip, &shown);
        }
      if (!shown)
        {
          g_test_message ("%s: “%s” (in %s) is cut to %d px, its whole text in no tooltip", where, text,
                          G_OBJECT_TYPE_NAME (gtk_widget_get_parent (label)), gtk_widget_get_width (label));
          n_cut++;
        }
    }
  return n_cut;
}

static gboolean
checklist_shown (gpointer data)
{
  return pd_test_find_label_containing (data, "Check the last page") != NULL &&
         gtk_widget_get_mapped (pd_test_find_label_containing (data, "Check the last page"));
}

static gboolean
history_shown (gpointer data)
{
  GtkWidget *history = pd_test_find_widget (data, PD_TYPE_HISTORY_VIEW);

  return gtk_widget_get_mapped (history) && pd_test_find_label_containing (history, "Test the pages") != NULL;
}

static void
check_cline_hyphens (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  HyphenCount count = { 0 };
  GtkWidget *hint;
  guint n_cut;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show the task");
  pd_test_wait_until (checklist_shown, window, "the task's checklist");
  pd_test_flush (GTK_WIDGET (window));
  count_hyphens (GTK_WIDGET (adw_view_stack_get_visible_child (views)), &count, "now");
  /* The task's title, whole or said whole: on the Now page's header and
   * in the session list (it was cut, said nowhere else). */
  n_cut = pd_test_a11y_count_cut_labels (GTK_WIDGET (window), "the task, Now") +
          count_cut_without_tooltip (GTK_WIDGET (window), "the task, Now");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  n_cut += pd_test_a11y_count_cut_labels (GTK_WIDGET (window), "the task, session list") +
           count_cut_without_tooltip (GTK_WIDGET (window), "the task, session list");
  pd_test_screenshot (GTK_WIDGET (window), "a11y-cline-sessions-360");
  adw_leaflet_set_visible_child_name (ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET)),
                                      "content");
  pd_test_flush (GTK_WIDGET (window));
  /* The extension's words on going on are words, not a command. */
  hint = pd_test_find_label_containing (GTK_WIDGET (window), "has no command to continue a task");
  g_assert_nonnull (hint);
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (hint))), >, 1);
  g_assert_true (wraps_between_words (GTK_LABEL (hint)));
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-cline-now");
  adw_view_stack_set_visible_child_name (views, "history");
  pd_test_wait_until (history_shown, window, "the task's History");
  pd_test_flush (GTK_WIDGET (window));
  count_hyphens (GTK_WIDGET (adw_view_stack_get_visible_child (views)), &count, "history");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-cline-history");
  g_test_message ("%u labels of the task's text, %u wrapped, %u may get a hyphen",
                  count.n_labels, count.n_wrapped, count.n_hyphens);
  g_assert_cmpuint (count.n_labels, >=, 5);
  g_assert_cmpuint (count.n_wrapped, >, 0);
  g_assert_cmpuint (count.n_hyphens, ==, 0);
  g_assert_cmpuint (n_cut, ==, 0);
}

/* A Cline task read from the project's own fixture into a database, shown
 * at 360 px with large text so that its text wraps. */
static void
test_cline_no_hyphens (void)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  g_autofree char *task = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(GSettings) settings = NULL;
  const char *args[] = { "--db", db, NULL };
  const char *paths[2] = { NULL, NULL };
  int dpi = pd_test_a11y_large_text ();

  g_assert_nonnull (root);
  task = g_build_filename (root, "vscode", "User", "globalStorage", "saoudrizwan.claude-dev", "tasks",
                           "1775300000000", "ui_messages.json", NULL);
  paths[0] = task;
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
    g_assert_no_error (error);
  }
  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_int (settings, "window-width", 360);
  g_settings_set_int (settings, "window-height", 720);
  g_assert_cmpint (pd_test_run_app (args, check_cline_hyphens, NULL, NULL), ==, 0);
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);
}

/* --- the Overview's cards in each state, hovered and focused -------------- */

typedef struct
{
  PdOverview *overview;
  guint       n;
} CardsWait;

static gboolean
cards_listed (gpointer data)
{
  CardsWait *wait = data;

  return pd_overview_get_loaded (wait->overview) &&
         g_list_model_get_n_items (G_LIST_MODEL (wait->overview)) == wait->n;
}

/* A session of two steps, the second @second, its status @status. */
static char *
add_card_session (PdSessionStore   *store,
                  const char       *title,
                  PdPlanStepStatus  second,
                  PdSessionStatus   status)
{
  g_autofree char *id = pd_test_add_session (store, title, "plandeck");
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();

  plan->version = 1;
  g_ptr_array_add (plan->steps, pd_test_step ("s1", "Read the code", PD_PLAN_STEP_DONE, NULL));
  g_ptr_array_add (plan->steps, pd_test_step ("s2", "Change it", second, NULL));
  pd_test_save_plan (store, id, plan, status);
  return g_steal_pointer (&id);
}

/* Sets or unsets @flags on each card (@on_row: on the list's row around
 * it, the way the pointer hovers it). */
static void
cards_set_state (GtkWidget     *view,
                 GtkStateFlags  flags,
                 gboolean       on_row,
                 gboolean       set)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  pd_test_collect (view, PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *widget = g_ptr_array_index (rows, i);

      if (on_row)
        widget = gtk_widget_get_parent (widget);
      if (set)
        gtk_widget_set_state_flags (widget, flags, FALSE);
      else
        gtk_widget_unset_state_flags (widget, flags);
    }
}

/* The texts of every card measured against the card behind them: its
 * status (accent "Working", warning, error, success, dimmed "Run ended"),
 * its source and its time (dimmed captions). A hovered "Working" card
 * measured 4.34:1 in high contrast (tried with a screenshot's pixels). */
static void
measure_cards (GtkWindow  *window,
               GtkWidget  *view,
               const char *state,
               gboolean   *ok)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_auto(Pixels) pixels = { 0 };
  guint n_shown = 0;

  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  render (GTK_WIDGET (window), &pixels);
  pd_test_collect (view, PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      GtkWidget *status = pd_test_find_first (row, has_class, "pd-card-status");
      g_autoptr(GPtrArray) dimmed = g_ptr_array_new ();
      g_autofree char *what = NULL;

      if (status == NULL)
        continue;
      n_shown++;
      what = g_strdup_printf ("card %s, %s", state, gtk_label_get_text (GTK_LABEL (status)));
      report (what, measure (GTK_WIDGET (window), &pixels, status, 0), 4.5, ok);
      pd_test_collect (row, GTK_TYPE_LABEL, dimmed);
      for (guint j = 0; j < dimmed->len; j++)
        {
          GtkWidget *label = g_ptr_array_index (dimmed, j);
          g_autofree char *caption = NULL;

          if (!has_class (label, "dim-label") || *gtk_label_get_text (GTK_LABEL (label)) == '\0' || label == status)
            continue;
          caption = g_strdup_printf ("card %s, caption “%s”", state, gtk_label_get_text (GTK_LABEL (label)));
          report (caption, measure (GTK_WIDGET (window), &pixels, label, 0), 4.5, ok);
        }
    }
  /* Every card on the window, each state among them. */
  g_assert_cmpuint (n_shown, ==, 5);
}

/* The window's own Overview (the app's style sheets loaded), the cards in
 * each state measured plain, hovered, focused, and both. */
static void
check_contrast_cards (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW);
  CardsWait wait = { pd_window_get_overview (window), 5 };
  gboolean ok = TRUE;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_wait_until (cards_listed, &wait, "5 cards");
  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("high contrast: %s, dark: %s",
                  adw_style_manager_get_high_contrast (style) ? "on" : "off",
                  adw_style_manager_get_dark (style) ? "yes" : "no");

  measure_cards (GTK_WINDOW (window), view, "plain", &ok);
  cards_set_state (view, GTK_STATE_FLAG_PRELIGHT, TRUE, TRUE);
  measure_cards (GTK_WINDOW (window), view, "hovered", &ok);
  pd_test_screenshot_sizes (GTK_WINDOW (window), adw_style_manager_get_high_contrast (style) ? "a11y-cards-hovered-hc"
                                                 : adw_style_manager_get_dark (style) ? "a11y-cards-hovered-dark"
                                                 : "a11y-cards-hovered");
  cards_set_state (view, GTK_STATE_FLAG_PRELIGHT, TRUE, FALSE);
  cards_set_state (view, GTK_STATE_FLAG_FOCUSED | GTK_STATE_FLAG_FOCUS_VISIBLE, FALSE, TRUE);
  measure_cards (GTK_WINDOW (window), view, "focused", &ok);
  cards_set_state (view, GTK_STATE_FLAG_PRELIGHT, TRUE, TRUE);
  measure_cards (GTK_WINDOW (window), view, "focused and hovered", &ok);
  cards_set_state (view, GTK_STATE_FLAG_PRELIGHT | GTK_STATE_FLAG_FOCUSED | GTK_STATE_FLAG_FOCUS_VISIBLE, FALSE, FALSE);
  cards_set_state (view, GTK_STATE_FLAG_PRELIGHT, TRUE, FALSE);
  g_assert_true (ok);
}

static void
test_contrast_cards (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *ended = NULL;
  g_autoptr(GError) error = NULL;

  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    g_free (add_card_session (store, "Working card", PD_PLAN_STEP_IN_PROGRESS, PD_SESSION_STATUS_IDLE));
    g_free (add_card_session (store, "Blocked card", PD_PLAN_STEP_BLOCKED, PD_SESSION_STATUS_IDLE));
    g_free (add_card_session (store, "Failed card", PD_PLAN_STEP_IN_PROGRESS, PD_SESSION_STATUS_FAILED));
    g_free (add_card_session (store, "Done card", PD_PLAN_STEP_DONE, PD_SESSION_STATUS_IDLE));
    ended = add_card_session (store, "Ended card", PD_PLAN_STEP_PENDING, PD_SESSION_STATUS_IDLE);
    g_assert_cmpint (pd_session_store_add_event (store, ended, "r1", "run_started", g_get_real_time (), "{}", &error), >, 0);
    g_assert_cmpint (pd_session_store_add_event (store, ended, "r1", "run_completed", g_get_real_time (), "{}", &error), >, 0);
    g_assert_no_error (error);
  }
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1200);
  g_settings_set_int (settings, "window-height", 800);
  g_assert_cmpint (pd_test_run_app (args, check_contrast_cards, NULL, NULL), ==, 0);
}

/* The Sources page's warning that no keyring kept an endpoint's token,
 * in Preferences: it measured 4.33:1 in light (libadwaita's warning
 * colour on the window's background; 4.5:1 is needed for text). */
static gboolean
is_sources_page (GtkWidget     *widget,
                 gconstpointer  data)
{
  return PD_IS_SOURCES_PAGE (widget);
}

static gboolean
mapped_label_says (gpointer data)
{
  GtkWidget *label = pd_test_find_label_containing (data, "lost when Plandeck quits");

  return label != NULL && gtk_widget_get_mapped (label);
}

/* An endpoint on loopback that takes any token: one given is kept (here:
 * no keyring does) once the endpoint took it. */
static void
answer_empty_list (SoupServer        *server,
                   SoupServerMessage *msg,
                   const char        *path,
                   GHashTable        *query,
                   gpointer           data)
{
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, "[]", 2);
}

static void
check_contrast_keyring (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_auto(Pixels) pixels = { 0 };
  PdPreferencesWindow *prefs = pd_preferences_window_new (GTK_WINDOW (window));
  GtkWidget *page, *label;
  gboolean ok = TRUE;
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GSocketAddress) loopback = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  GSList *uris;

  soup_server_add_handler (server, NULL, answer_empty_list, NULL, NULL);
  soup_server_listen (server, loopback, 0, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  url = g_strdup_printf ("http://127.0.0.1:%d/typed", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  gtk_window_present (GTK_WINDOW (prefs));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), "sources");
  page = pd_test_find_first (GTK_WIDGET (prefs), is_sources_page, NULL);
  g_assert_nonnull (page);
  /* No keyring on the test's bus: the token is kept for the session. */
  pd_sources_page_set_token (PD_SOURCES_PAGE (page), url, "typed-secret");
  pd_test_wait_until (mapped_label_says, prefs, "the warning that no keyring kept the token");
  pd_test_flush (GTK_WIDGET (prefs));
  label = pd_test_find_label_containing (GTK_WIDGET (prefs), "lost when Plandeck quits");
  render (GTK_WIDGET (prefs), &pixels);
  g_test_message ("high contrast: %s, dark: %s", adw_style_manager_get_high_contrast (style) ? "on" : "off",
                  adw_style_manager_get_dark (style) ? "yes" : "no");
  report ("keyring warning (Sources page)", measure (GTK_WIDGET (prefs), &pixels, label, 0), 4.5, &ok);
  pd_test_screenshot (GTK_WIDGET (prefs), adw_style_manager_get_high_contrast (style) ? "a11y-keyring-warning-hc"
                                          : adw_style_manager_get_dark (style) ? "a11y-keyring-warning-dark"
                                          : "a11y-keyring-warning");
  gtk_window_destroy (GTK_WINDOW (prefs));
  pd_secrets_keep_for_session (url, NULL);
  soup_server_disconnect (server);
  g_assert_true (ok);
}

static void
test_contrast_keyring (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);

  g_free (pd_test_add_session (store, "A session", "plandeck"));
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_contrast_keyring, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/contrast", test_contrast);
  g_test_add_func ("/pd/ui/a11y/contrast/cards", test_contrast_cards);
  g_test_add_func ("/pd/ui/a11y/contrast/keyring", test_contrast_keyring);
  g_test_add_func ("/pd/ui/a11y/large-text", test_large_text);
  g_test_add_func ("/pd/ui/a11y/large-text-narrow", test_large_text_narrow);
  g_test_add_func ("/pd/ui/a11y/events-count-agrees", test_events_count_agrees);
  g_test_add_func ("/pd/ui/a11y/cline-no-hyphens", test_cline_no_hyphens);

  return g_test_run ();
}

/* test-a11y.c: the window as a screen reader and a keyboard meet it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, so every widget carries the accessible
 * properties and relations GTK 4.8's AT-SPI backend reads; the names are
 * computed the way that backend computes them (pd-test-a11y.c). Each page
 * of the main window, with every kind of session of the showcase, and each
 * dialog is walked: any control a person can reach (focusable, or with a
 * control's role) must have a name that is not empty and not its class.
 */
#define G_LOG_DOMAIN "test-a11y"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-event.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-new-session-dialog.h"
#include "pd-now-view.h"
#include "pd-plan-row.h"
#include "pd-session-row.h"
#include "pd-run-controller.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-model.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"

static gboolean
window_settled (gpointer data)
{
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (data), ADW_TYPE_VIEW_STACK);
  GtkStack *pages = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return g_strcmp0 (gtk_stack_get_visible_child_name (pages), "session") == 0;
}

static AdwViewStack *
view_stack (PdWindow *window)
{
  return ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
}

static GtkWindow *
mapped_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_mapped (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

static gboolean
toplevel_shown (gpointer data)
{
  return mapped_toplevel (GPOINTER_TO_SIZE (data)) != NULL;
}

static GtkWindow *
open_dialog (PdWindow   *window,
             const char *action,
             GType       type)
{
  GtkWindow *dialog;

  gtk_widget_activate_action (GTK_WIDGET (window), action, NULL);
  pd_test_wait_until (toplevel_shown, GSIZE_TO_POINTER (type), action);
  dialog = mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

static gboolean
walk_pages (PdWindow   *window,
            const char *session)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  AdwViewStack *views = view_stack (window);
  gboolean all_named = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *where = g_strdup_printf ("%s, page %s", session, pages[i]);
      guint n_controls = 0;
      g_autoptr(GPtrArray) unnamed = NULL;

      adw_view_stack_set_visible_child_name (views, pages[i]);
      pd_test_flush (GTK_WIDGET (window));
      unnamed = pd_test_a11y_unnamed (GTK_WIDGET (window), &n_controls);
      g_test_message ("%s: %u controls, %u unnamed", where, n_controls, unnamed->len);
      for (guint j = 0; j < unnamed->len; j++)
        g_test_message ("  unnamed: %s", (char *) g_ptr_array_index (unnamed, j));
      all_named = all_named && unnamed->len == 0;
    }
  adw_view_stack_set_visible_child_name (views, "now");
  return all_named;
}

static void
check_window_names (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GListModel *model;
  gboolean all_named = TRUE;

  pd_test_wait_until (window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* The search field, open. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  pd_test_flush (GTK_WIDGET (window));

  /* Every page of every kind of session the showcase holds: running with
   * a blocked step, failed, done, imported from two agents, without a plan. */
  model = G_LIST_MODEL (pd_session_list_get_model (list));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      g_autofree char *id = g_strdup (pd_session_item_get_id (item));
      g_autofree char *title = g_strdup (pd_session_item_get_title (item));

      g_assert_true (pd_session_list_select (list, id));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      all_named = walk_pages (window, title) && all_named;
    }
  g_assert_true (all_named);
}

static void
test_names_window (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_window_names, NULL), ==, 0);
}

static void
check_dialog_names (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (window_settled, window, "the window to show a session");

  dialog = open_dialog (window, "win.preferences", ADW_TYPE_PREFERENCES_WINDOW);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Preferences");
  gtk_window_destroy (dialog);

  dialog = open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "New Session");
  /* It opens on the task: typing goes there. */
  g_assert_true (GTK_IS_TEXT_VIEW (gtk_root_get_focus (GTK_ROOT (dialog))));
  gtk_window_destroy (dialog);
}

static void
test_names_dialogs (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_dialog_names, NULL), ==, 0);
}

/* --- rows ---------------------------------------------------------------- */

static gboolean
is_named (GtkWidget     *widget,
          gconstpointer  name)
{
  g_autofree char *own = NULL;

  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  own = pd_test_a11y_name (widget);
  return g_strcmp0 (own, name) == 0;
}

/* The mapped row of the session @data. */
static gboolean
is_session_row (GtkWidget     *widget,
                gconstpointer  data)
{
  return PD_IS_SESSION_ROW (widget) && gtk_widget_get_mapped (widget) &&
         pd_session_row_get_item (PD_SESSION_ROW (widget)) == data;
}

static void
assert_contains (const char *text,
                 const char *part)
{
  if (text == NULL || strstr (text, part) == NULL)
    g_error ("“%s” does not say “%s”", text ? text : "(null)", part);
}

static void
check_rows (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  PdSessionItem *item;
  GtkWidget *row;
  GtkWidget *history;
  g_autofree char *description = NULL;
  g_autoptr(GPtrArray) images = g_ptr_array_new ();
  guint n_change_icons = 0;

  pd_test_wait_until (window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* The session row: its title as the name; status, agent, time and
   * "1 of 4 steps done, 1 blocked" (only in a tooltip before) as the
   * description, status after the title. */
  item = pd_session_list_get_selected_item (list);
  g_assert_nonnull (item);
  row = pd_test_find_first (GTK_WIDGET (list), is_session_row, item);
  g_assert_true (PD_IS_SESSION_ROW (row));
  g_assert_true (is_named (row, pd_session_item_get_title (item)));
  description = pd_test_a11y_description (row);
  g_test_message ("session row: “%s”, “%s”", pd_session_item_get_title (item), description);
  g_assert_true (g_str_has_prefix (description, pd_session_item_get_status_label (item)));
  assert_contains (description, pd_session_item_get_source_label (item));
  assert_contains (description, "1 of 4 steps done, 1 blocked");
  /* The list item around it takes the focus: a screen reader says its
   * name, and it had none. */
  {
    g_autofree char *item_name = pd_test_a11y_name (gtk_widget_get_parent (row));
    g_autofree char *item_description = pd_test_a11y_description (gtk_widget_get_parent (row));

    g_assert_cmpstr (item_name, ==, pd_session_item_get_title (item));
    g_assert_cmpstr (item_description, ==, description);
  }

  /* A step row of the Now page: "s3: title", then its status, note and
   * checks (tool and arguments were only in tooltips of unfocusable chips). */
  row = pd_test_find_first (GTK_WIDGET (window), is_named, "s3: Document the export format");
  g_assert_true (PD_IS_PLAN_ROW (row));
  g_clear_pointer (&description, g_free);
  description = pd_test_a11y_description (row);
  g_test_message ("step row: “s3: Document the export format”, “%s”", description);
  assert_contains (description, pd_plan_step_status_label (PD_PLAN_STEP_BLOCKED));
  assert_contains (description, "Waiting for the format to be agreed on");
  assert_contains (description, "man page builds");
  assert_contains (description, "make -C docs man");

  /* History: steps named the same way, changes in words, not the diff's
   * ids ("check_evidence", "step_status"). */
  adw_view_stack_set_visible_child_name (view_stack (window), "history");
  pd_test_flush (GTK_WIDGET (window));
  history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  g_assert_nonnull (pd_test_find_first (history, is_named, "s3: Document the export format"));
  /* Each version in the list, which takes the focus, says which one
   * (a list item GTK 4.8 names nothing: it said nothing). */
  {
    GtkWidget *versions = pd_test_find_widget (history, GTK_TYPE_LIST_VIEW);
    guint n_versions = 0;

    for (GtkWidget *child = gtk_widget_get_first_child (versions); child != NULL;
         child = gtk_widget_get_next_sibling (child))
      {
        g_autofree char *name = NULL;

        if (!gtk_widget_get_mapped (child) ||
            gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (child)) != GTK_ACCESSIBLE_ROLE_LIST_ITEM)
          continue;
        name = pd_test_a11y_name (child);
        g_test_message ("History version: “%s”", name);
        if (name[0] != 'v' || !g_ascii_isdigit (name[1]))
          g_error ("a History version is named “%s”", name);
        n_versions++;
      }
    g_assert_cmpuint (n_versions, >=, 1);
  }
  pd_test_collect (history, GTK_TYPE_IMAGE, images);
  for (guint i = 0; i < images->len; i++)
    {
      g_autofree char *name = pd_test_a11y_name (g_ptr_array_index (images, i));

      if (!gtk_widget_get_mapped (g_ptr_array_index (images, i)) || g_str_equal (name, "GtkImage"))
        continue;
      n_change_icons++;
      if (strchr (name, '_') != NULL)
        g_error ("a History icon says the id “%s”", name);
    }
  g_test_message ("History: %u named icons", n_change_icons);
  g_assert_cmpuint (n_change_icons, >, 0);
}

static void
test_rows (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_rows, NULL), ==, 0);
}

static AdwMessageDialog *wait_for_message_dialog (const char *what);

static gboolean
is_row (GtkWidget     *widget,
        gconstpointer  data)
{
  return gtk_widget_get_mapped (widget) &&
         gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget)) == GTK_ACCESSIBLE_ROLE_ROW;
}

static void
collect_rows (GtkWidget *widget,
              GPtrArray *rows)
{
  if (is_row (widget, NULL))
    g_ptr_array_add (rows, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_rows (child, rows);
}

/* --- contrast and large text --------------------------------------------- */

/* The window drawn, as bytes (cairo's premultiplied ARGB32). */
typedef struct
{
  guchar *data;
  gsize   stride;
  int     width;
  int     height;
} Pixels;

static void
pixels_clear (Pixels *pixels)
{
  g_free (pixels->data);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Pixels, pixels_clear)

static void
render (GtkWidget *window,
        Pixels    *pixels)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  gtk_test_widget_wait_for_draw (window);
  pixels->width = gtk_widget_get_width (window);
  pixels->height = gtk_widget_get_height (window);
  gdk_paintable_snapshot (paintable, snapshot, pixels->width, pixels->height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, pixels->width, pixels->height));
  pixels->stride = (gsize) gdk_texture_get_width (texture) * 4;
  pixels->data = g_malloc (pixels->stride * gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels->data, pixels->stride);
}

/* WCAG 2's relative luminance of the pixel at x, y (opaque: a window). */
static double
luminance (const Pixels *pixels,
           int           x,
           int           y)
{
  const guchar *p = pixels->data + (gsize) y * pixels->stride + (gsize) x * 4;
  double rgb[3] = { p[2] / 255.0, p[1] / 255.0, p[0] / 255.0 };   /* B G R A in memory */
  double weights[3] = { 0.2126, 0.7152, 0.0722 };
  double l = 0;

  for (guint i = 0; i < 3; i++)
    {
      double c = rgb[i] <= 0.04045 ? rgb[i] / 12.92 : pow ((rgb[i] + 0.055) / 1.055, 2.4);

      l += weights[i] * c;
    }
  return l;
}

static double
ratio (double a,
       double b)
{
  return (MAX (a, b) + 0.05) / (MIN (a, b) + 0.05);
}

/* The contrast of what @widget draws: its background is the pixel at its
 * left edge, halfway down (inside a chip's padding, beside a label's first
 * glyph), its foreground the pixel inside it that differs most from that
 * (the core of a glyph's stem or of an icon's stroke). */
static double
measure (GtkWidget    *window,
         const Pixels *pixels,
         GtkWidget    *widget,
         int           inset)
{
  graphene_rect_t bounds;
  double background;
  double best = 1.0;
  int x0, y0, x1, y1;

  g_assert_true (gtk_widget_compute_bounds (widget, window, &bounds));
  x0 = (int) bounds.origin.x;
  y0 = (int) bounds.origin.y;
  x1 = MIN ((int) (bounds.origin.x + bounds.size.width), pixels->width);
  y1 = MIN ((int) (bounds.origin.y + bounds.size.height), pixels->height);
  g_assert_cmpint (x1 - x0, >, 2 * inset);
  background = luminance (pixels, x0 + inset, (y0 + y1) / 2);
  for (int y = y0; y < y1; y++)
    for (int x = x0 + inset; x < x1 - inset; x++)
      best = MAX (best, ratio (background, luminance (pixels, x, y)));
  return best;
}

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
  pd_test_wait_until (window_settled, window, "the window to show a session");
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

  /* Status icons of the session list: an idle session's was 1.33:1. */
  widget = pd_test_find_first (list, has_class, "idle");
  g_assert_nonnull (widget);
  report ("idle session icon", measure (GTK_WIDGET (window), &pixels, widget, 0), 3.0, &ok);

  /* A pending step's status icon, on the Now page and in the History
   * (drawn at half opacity: 2.5–2.9:1 in light and dark). */
  widget = NULL;
  for (guint i = 0; i < rows->len && widget == NULL; i++)
    if (has_class (g_ptr_array_index (rows, i), "pending"))
      widget = pd_test_find_first (g_ptr_array_index (rows, i), has_class, "step-status");
  g_assert_nonnull (widget);
  report ("pending step icon", measure (GTK_WIDGET (window), &pixels, widget, 0), 3.0, &ok);
  adw_view_stack_set_visible_child_name (view_stack (window), "history");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pixels_clear (&pixels);
  render (GTK_WIDGET (window), &pixels);
  widget = pd_test_find_first (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW),
                               has_class, "pd-step-pending");
  g_assert_nonnull (widget);
  report ("pending step icon, History", measure (GTK_WIDGET (window), &pixels, widget, 0), 3.0, &ok);
  adw_view_stack_set_visible_child_name (view_stack (window), "now");
  pd_test_flush (GTK_WIDGET (window));

  pd_test_screenshot_sizes (GTK_WINDOW (window), adw_style_manager_get_high_contrast (style)
                                                 ? "a11y-high-contrast"
                                                 : adw_style_manager_get_dark (style) ? "a11y-dark" : "a11y-default");
  g_assert_true (ok);
}

static void
test_contrast (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_contrast, NULL), ==, 0);
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

  collect_rows (list, rows);
  return rows->len >= 6;
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

  collect_rows (pd_test_find_widget (table, GTK_TYPE_LIST_VIEW), rows);
  g_assert_cmpuint (rows->len, >, 0);
  if (gtk_widget_get_visible (gtk_widget_get_first_child (table)))
    g_ptr_array_insert (rows, 0, gtk_widget_get_first_child (table));
  for (guint i = 0; i < rows->len; i++)
    {
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();
      gboolean header = i == 0 && !is_row (g_ptr_array_index (rows, i), NULL);

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

  adw_view_stack_set_visible_child_name (view_stack (window), "events");
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

  pd_test_wait_until (window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("at 1.5× text: session list %d px wide, History versions %d px",
                  gtk_widget_get_width (sidebar), gtk_paned_get_position (paned));
  g_assert_cmpint (gtk_widget_get_width (sidebar), >, 280);
  g_assert_cmpint (gtk_paned_get_position (paned), >, 240);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-large-text");
  adw_view_stack_set_visible_child_name (view_stack (window), "history");
  pd_test_flush (GTK_WIDGET (window));
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

/* Prints, from @widget down, the children whose minimum width passes
 * @limit: what keeps the window from narrowing. */
static void
print_wide (GtkWidget *widget,
            int        limit,
            guint      depth)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int minimum = 0;

      if (!gtk_widget_get_visible (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      if (minimum > limit)
        {
          g_test_message ("%*s%s (%s) needs %d px", (int) depth * 2, "", G_OBJECT_TYPE_NAME (child),
                          gtk_widget_get_css_name (child), minimum);
          print_wide (child, limit, depth + 1);
        }
    }
}

/* At 1.5× text the window still fits a 360 px screen (GNOME's mobile
 * width): every page of a session and the session list. The window has
 * GNOME's buttons, Close alone (GNOME's and Phosh's button layout; GTK's
 * own default adds Minimize and Maximize, 68 px more at this size). */
static void
check_large_text_narrow (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  AdwViewStack *views = view_stack (window);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  int widest = 0;

  pd_test_wait_until (window_settled, window, "the window to show a session");
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
        print_wide (content, 360, 1);
      widest = MAX (widest, minimum);
      if (i < G_N_ELEMENTS (pages))
        {
          g_autofree char *shot = g_strdup_printf ("a11y-large-text-360-%s", pages[i]);

          pd_test_screenshot (GTK_WIDGET (window), shot);
        }
      else
        pd_test_screenshot (GTK_WIDGET (window), "a11y-large-text-360-sessions");
    }
  g_assert_cmpint (widest, <=, 360);
}

/* gtk-xft-dpi at 1.5×, as Large Text or a font scaling of 1.5 sets it. */
static int
set_large_text (void)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = 0;

  g_object_get (gtk_settings, "gtk-xft-dpi", &dpi, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi * 3 / 2, NULL);
  return dpi;
}

static void
test_large_text_narrow (void)
{
  int dpi = set_large_text ();
  g_autofree char *layout = NULL;

  g_object_get (gtk_settings_get_default (), "gtk-decoration-layout", &layout, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", "appmenu:close", NULL);
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_large_text_narrow, NULL), ==, 0);
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

/* --- keyboard ------------------------------------------------------------ */

/* Activates the shortcut @widget has for the key, as pressing it would: the
 * widget's own shortcut controllers are searched for that trigger. */
static gboolean
press (GtkWidget       *widget,
       guint            keyval,
       GdkModifierType  mods)
{
  g_autoptr(GtkShortcutTrigger) wanted = gtk_keyval_trigger_new (keyval, mods);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), wanted))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  return FALSE;
}

static gboolean
focus_inside (GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* Tab from a row of the page's list leaves the list, as does Shift+Tab. */
static void
assert_one_tab_stop (PdWindow   *window,
                     const char *page,
                     GType       view_type,
                     GType       list_type)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), view_type);
  GtkWidget *rows = pd_test_find_widget (view, list_type);

  adw_view_stack_set_visible_child_name (view_stack (window), page);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (rows));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (focus_inside (rows));
  g_assert_true (press (rows, GDK_KEY_Tab, 0));
  g_assert_false (focus_inside (rows));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (press (rows, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_false (focus_inside (rows));
  g_test_message ("%s: its list is one Tab stop", page);
}

static void
check_keyboard (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  AdwViewStack *views = view_stack (window);
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GPtrArray) shortcuts = g_ptr_array_new ();
  g_autoptr(GString) listed = g_string_new (NULL);
  /* Ctrl+Page Up/Down work too, but listed, GTK 4.8's shortcuts window
   * laid out a label at a negative width (a Gtk-WARNING): not listed. */
  const char *wanted[] = { "<Alt>1", "<Alt>2", "<Alt>3", "<Alt>4", "F6", "<Alt>Left" };

  pd_test_wait_until (window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* Alt+1…4 and Ctrl+Page Down/Up switch pages. */
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_2, GDK_ALT_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "transcript");
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_4, GDK_ALT_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "history");
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_Page_Down, GDK_CONTROL_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "now");
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_Page_Up, GDK_CONTROL_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "history");
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_3, GDK_ALT_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "events");
  pd_test_flush (GTK_WIDGET (window));

  /* F6 goes from the session list to the session and back. */
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (focus_inside (list));
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_F6, 0));
  g_assert_false (focus_inside (list));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_F6, 0));
  g_assert_true (focus_inside (list));

  /* The History versions are one Tab stop (each version was one). */
  assert_one_tab_stop (window, "history", PD_TYPE_HISTORY_VIEW, GTK_TYPE_LIST_VIEW);

  /* Alt+Left goes back to the list. */
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_Left, GDK_ALT_MASK));

  /* The shortcuts window lists each of them. */
  builder = gtk_builder_new_from_resource ("/io/github/plandeck/Plandeck/gtk/help-overlay.ui");
  pd_test_collect (GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay")),
                   GTK_TYPE_SHORTCUTS_SHORTCUT, shortcuts);
  for (guint i = 0; i < shortcuts->len; i++)
    {
      g_autofree char *accelerator = NULL;

      g_object_get (g_ptr_array_index (shortcuts, i), "accelerator", &accelerator, NULL);
      g_string_append_printf (listed, "[%s]", accelerator ? accelerator : "");
    }
  for (guint i = 0; i < G_N_ELEMENTS (wanted); i++)
    {
      g_autofree char *entry = g_strdup_printf ("[%s]", wanted[i]);

      if (strstr (listed->str, entry) == NULL)
        g_error ("the shortcuts window does not list %s (it lists %s)", wanted[i], listed->str);
    }
  gtk_window_destroy (GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay")));
}

static gboolean
popover_shown (gpointer data)
{
  GtkWidget *popover = pd_test_find_widget (data, GTK_TYPE_POPOVER_MENU);

  return popover != NULL && gtk_widget_get_mapped (popover);
}

static gboolean
title_is (gpointer data)
{
  PdSessionList *list = data;
  PdSessionItem *item = pd_session_list_get_selected_item (list);

  return item != NULL && g_strcmp0 (pd_session_item_get_title (item), "Renamed by keyboard") == 0;
}

/* The row menu and the rename dialog give the focus back to the row. */
static void
check_focus_returns (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  PdSessionItem *item;
  GtkWidget *popover;
  AdwMessageDialog *dialog;
  GtkWidget *entry;

  pd_test_wait_until (window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));
  item = pd_session_list_get_selected_item (list);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (list), GTK_DIR_TAB_FORWARD));
  g_assert_true (focus_inside (GTK_WIDGET (list)));

  /* The Menu key's menu, closed with Escape. */
  pd_session_list_show_menu (list, item);
  pd_test_wait_until (popover_shown, list, "the row menu");
  popover = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU);
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (focus_inside (GTK_WIDGET (list)));

  /* Rename…, typed and confirmed with Enter. */
  pd_session_list_show_menu (list, item);
  pd_test_wait_until (popover_shown, list, "the row menu");
  popover = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU);
  gtk_popover_popdown (GTK_POPOVER (popover));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (list), "session.rename", NULL));
  dialog = wait_for_message_dialog ("the rename dialog");
  entry = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (entry), "Renamed by keyboard");
  g_signal_emit_by_name (gtk_editable_get_delegate (GTK_EDITABLE (entry)), "activate");
  pd_test_wait_until (title_is, list, "the new name");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (focus_inside (GTK_WIDGET (list)));
}

static void
test_focus_returns (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_focus_returns, NULL), ==, 0);
}

/* Adds to @triggers the accelerator name of each key shortcut of
 * @widget's own shortcut controllers (its class bindings among them). */
static void
collect_key_shortcuts (GtkWidget  *widget,
                       GHashTable *triggers)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger))
            g_hash_table_add (triggers,
                              gtk_accelerator_name (gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)),
                                                    gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger))));
        }
    }
}

/* Adds each accelerator of @accels ("<Control>q F6", or a strv) to
 * @listed in gtk_accelerator_name()'s form. */
static void
add_accelerators (GHashTable  *listed,
                  char       **accels)
{
  for (guint i = 0; accels != NULL && accels[i] != NULL; i++)
    {
      guint keyval = 0;
      GdkModifierType mods = 0;

      if (*accels[i] == '\0')
        continue;
      g_assert_true (gtk_accelerator_parse (accels[i], &keyval, &mods));
      g_hash_table_add (listed, gtk_accelerator_name (keyval, mods));
    }
}

static gboolean
is_in (gpointer key,
       gpointer value,
       gpointer table)
{
  return g_hash_table_contains (table, key);
}

/* Every key the application, the window and the session list bind is in
 * the shortcuts window, so the two cannot drift apart (Ctrl+Page Down and
 * Up switched pages unlisted). GTK's and libadwaita's own window keys (the
 * inspector's) are those a plain AdwApplicationWindow has too. */
static void
check_shortcuts_listed (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  g_autoptr(GHashTable) bound = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) toolkit = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GPtrArray) shortcuts = g_ptr_array_new ();
  GtkWidget *plain = g_object_ref_sink (adw_application_window_new (NULL));
  GHashTableIter iter;
  const char *accel;
  guint n_missing = 0;

  pd_test_wait_until (window_settled, window, "the window to show a session");

  collect_key_shortcuts (plain, toolkit);
  gtk_window_destroy (GTK_WINDOW (plain));
  g_object_unref (plain);
  collect_key_shortcuts (GTK_WIDGET (window), bound);
  g_hash_table_foreach_remove (bound, is_in, toolkit);
  collect_key_shortcuts (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST), bound);
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), actions[i]);

      add_accelerators (bound, accels);
    }
  g_assert_cmpuint (g_hash_table_size (bound), >=, 10);

  builder = gtk_builder_new_from_resource ("/io/github/plandeck/Plandeck/gtk/help-overlay.ui");
  pd_test_collect (GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay")),
                   GTK_TYPE_SHORTCUTS_SHORTCUT, shortcuts);
  for (guint i = 0; i < shortcuts->len; i++)
    {
      g_autofree char *accelerator = NULL;
      g_autofree char *action = NULL;
      g_auto(GStrv) parts = NULL;

      g_object_get (g_ptr_array_index (shortcuts, i), "accelerator", &accelerator,
                    "action-name", &action, NULL);
      parts = g_strsplit (accelerator != NULL ? accelerator : "", " ", -1);
      add_accelerators (listed, parts);
      if (action != NULL)
        {
          g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), action);

          g_assert_true (accels != NULL && accels[0] != NULL);
          add_accelerators (listed, accels);
        }
    }
  gtk_window_destroy (GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay")));

  g_hash_table_iter_init (&iter, bound);
  while (g_hash_table_iter_next (&iter, (gpointer *) &accel, NULL))
    {
      gboolean found = g_hash_table_contains (listed, accel);

      g_test_message ("%-24s %s", accel, found ? "listed" : "NOT LISTED");
      if (!found)
        n_missing++;
    }
  g_assert_cmpuint (n_missing, ==, 0);

  /* Shown, it lays out without a warning (GTK 4.8 warned of a label at a
   * negative width with the page keys listed; warnings are fatal here). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
  pd_test_wait_until (toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_SHORTCUTS_WINDOW),
                      "the shortcuts window");
  pd_test_flush (GTK_WIDGET (mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW)));
  pd_test_screenshot_sizes (mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW), "a11y-shortcuts");
  gtk_window_close (mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW));
}

static void
test_shortcuts_listed (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_shortcuts_listed, NULL), ==, 0);
}

/* The session list is one Tab stop: the arrows move between sessions,
 * Enter and Space open one (in a folded window, its pages), the Menu key
 * and Shift+F10 open the row menu of the session the focus is on. */
static void
check_session_list_keys (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (list));
  g_autoptr(PdSessionItem) first = NULL;
  g_autoptr(PdSessionItem) second = NULL;
  GtkWidget *popover;
  GtkWidget *focused;

  pd_test_wait_until (window_settled, window, "the window to show a session");
  g_assert_true (adw_leaflet_get_folded (leaflet));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "sidebar");
  g_assert_cmpuint (g_list_model_get_n_items (model), >=, 2);
  second = g_list_model_get_item (model, 1);

  /* Tab and Shift+Tab leave the list from its first row (each row was a
   * stop of its own). */
  first = g_list_model_get_item (model, 0);
  g_assert_true (pd_session_list_select (list, pd_session_item_get_id (first)));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (focus_inside (rows));
  g_assert_true (press (rows, GDK_KEY_Tab, 0));
  g_assert_false (focus_inside (rows));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (press (rows, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_false (focus_inside (rows));

  /* Down moves to the next session and picks it. */
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (press (rows, GDK_KEY_Down, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (focus_inside (rows));
  g_assert_true (pd_session_list_get_selected_item (list) == second);

  /* The Menu key, then Shift+F10: the menu of that session. */
  g_assert_true (press (GTK_WIDGET (list), GDK_KEY_Menu, 0));
  pd_test_wait_until (popover_shown, list, "the row menu from the Menu key");
  popover = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU);
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (focus_inside (rows));
  g_assert_true (press (GTK_WIDGET (list), GDK_KEY_F10, GDK_SHIFT_MASK));
  pd_test_wait_until (popover_shown, list, "the row menu from Shift+F10");
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (focus_inside (rows));

  /* Enter opens the session: the folded window shows its pages. */
  g_assert_true (press (gtk_root_get_focus (GTK_ROOT (window)), GDK_KEY_Return, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "content");

  /* Back, then Space opens it too. */
  g_assert_true (press (GTK_WIDGET (window), GDK_KEY_Left, GDK_ALT_MASK));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "sidebar");
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  focused = gtk_widget_get_first_child (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (PD_IS_SESSION_ROW (focused));
  g_assert_true (press (rows, GDK_KEY_space, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "content");
  g_assert_true (pd_session_list_get_selected_item (list) == pd_session_row_get_item (PD_SESSION_ROW (focused)));
}

static void
test_session_list_keys (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_session_list_keys, NULL), ==, 0);
}

static void
test_keyboard (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_keyboard, NULL), ==, 0);
}

/* --- dialogs of a run ---------------------------------------------------- */

typedef struct
{
  char      *dir;
  char      *db;
  char      *project;
  char      *replay;
  gboolean   finished;
  GPtrArray *activities;
} RunFixture;

static RunFixture *
run_fixture_new (const char *replay_json)
{
  RunFixture *fixture = g_new0 (RunFixture, 1);

  fixture->dir = pd_test_make_tmp_dir ();
  fixture->db = g_build_filename (fixture->dir, "sessions.db", NULL);
  fixture->project = g_build_filename (fixture->dir, "project", NULL);
  fixture->replay = g_build_filename (fixture->dir, "replay.json", NULL);
  fixture->activities = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (g_mkdir (fixture->project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fixture->replay, replay_json, -1, NULL));
  g_object_unref (pd_test_open_store (fixture->db));
  return fixture;
}

static void
run_fixture_free (RunFixture *fixture)
{
  g_ptr_array_unref (fixture->activities);
  g_free (fixture->replay);
  g_free (fixture->project);
  g_free (fixture->db);
  g_free (fixture->dir);
  g_free (fixture);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RunFixture, run_fixture_free)

static void
on_run_finished (PdRunController *runs,
                 int              status,
                 const char      *message,
                 RunFixture      *fixture)
{
  fixture->finished = TRUE;
}

static void
on_run_activity (PdRunController *runs,
                 GParamSpec      *pspec,
                 RunFixture      *fixture)
{
  if (pd_run_controller_get_activity (runs) != NULL)
    g_ptr_array_add (fixture->activities, g_strdup (pd_run_controller_get_activity (runs)));
}

static gboolean
run_finished (gpointer data)
{
  return ((RunFixture *) data)->finished;
}

static void
start_replay (PdWindow   *window,
              RunFixture *fixture,
              const char *prompt)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (fixture->replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = PD_APPROVAL_POLICY_ASK;
  settings->planning = TRUE;
  g_signal_connect (runs, "finished", G_CALLBACK (on_run_finished), fixture);
  g_signal_connect (runs, "notify::activity", G_CALLBACK (on_run_activity), fixture);
  g_assert_true (pd_run_controller_start (runs, settings, prompt, &error));
  g_assert_no_error (error);
}

static AdwMessageDialog *
wait_for_message_dialog (const char *what)
{
  GtkWindow *dialog;

  pd_test_wait_until (toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG), what);
  dialog = mapped_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  pd_test_flush (GTK_WIDGET (dialog));
  return ADW_MESSAGE_DIALOG (dialog);
}

static gboolean
activities_contain (RunFixture *fixture,
                    const char *text)
{
  for (guint i = 0; i < fixture->activities->len; i++)
    if (g_strcmp0 (g_ptr_array_index (fixture->activities, i), text) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
focus_on_default (gpointer data)
{
  GtkWindow *dialog = data;

  return gtk_window_get_default_widget (dialog) != NULL &&
         gtk_root_get_focus (GTK_ROOT (dialog)) == gtk_window_get_default_widget (dialog);
}

static void
assert_event_rows_named (PdWindow *window)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  GtkWidget *table = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autofree char *tool_started = g_strdup_printf ("%s: ", _pd_event_type_label ("tool_call_started"));
  guint n_tool_started = 0;

  adw_view_stack_set_visible_child_name (view_stack (window), "events");
  pd_test_flush (GTK_WIDGET (window));
  /* The rows of its list (the header is a row too). */
  collect_rows (pd_test_find_widget (table, GTK_TYPE_LIST_VIEW), rows);
  g_assert_cmpuint (rows->len, >=, 5);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autofree char *name = pd_test_a11y_name (g_ptr_array_index (rows, i));

      g_test_message ("Events row: “%s”", name);
      if (g_str_has_prefix (name, "Gtk") || strstr (name, ", ") == NULL || !g_ascii_isdigit (name[0]))
        g_error ("an Events row is named “%s”, not “time, type: summary”", name);
      if (strstr (name, tool_started) != NULL && strstr (name, "shell") != NULL)
        n_tool_started++;
    }
  g_assert_cmpuint (n_tool_started, >, 0);
}

/* A planned run with a tool call: the approval dialog, then every page. */
static const char *replay_shell =
  "{\"label\": \"test: a11y\", \"turns\": ["
  " {\"content\": \"Planning.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "   {\"id\": \"look\", \"title\": \"Look at the files\"}, {\"id\": \"say\", \"title\": \"Say hello\"}]}}]},"
  " {\"content\": \"Looking.\", \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Saying it.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hello > said.txt\"}}]},"
  " {\"content\": \"Done.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"update\", \"updates\": ["
  "   {\"id\": \"look\", \"status\": \"done\"}, {\"id\": \"say\", \"status\": \"blocked\", \"note\": \"Not allowed\"}]}}]},"
  " {\"content\": \"I could not say it.\"}]}";

static void
check_run_dialogs (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  g_autofree char *said = g_build_filename (fixture->project, "said.txt", NULL);

  start_replay (window, fixture, "Say hello");

  /* The approval: every control named; Enter (the window's default
   * action) denies, it never runs the command. */
  dialog = wait_for_message_dialog ("the approval dialog");
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Approval");
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), !=, "once");
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), !=, "always");
  /* What has the focus takes Enter: once laid out, the dialog's default
   * (never Approve Once or Always). */
  pd_test_wait_until (focus_on_default, dialog, "the focus on the default response");
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (dialog));
    const char *label = GTK_IS_BUTTON (focus) ? gtk_button_get_label (GTK_BUTTON (focus)) : NULL;

    g_test_message ("the approval opens with the focus on %s “%s”",
                    focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing", label ? label : "");
    g_assert_cmpstr (label, !=, "_Approve Once");
    g_assert_cmpstr (label, !=, "Always for This _Session");
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (dialog), "default.activate", NULL));

  pd_test_wait_until (run_finished, fixture, "the run to end");
  g_assert_false (g_file_test (said, G_FILE_TEST_EXISTS));
  g_assert_true (activities_contain (fixture, "Not allowed: shell: echo hello > said.txt"));

  /* The run's session, with its tool calls, events and plan versions. */
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (walk_pages (window, "after the run"));

  /* The Events rows are one Tab stop (each event was one). */
  assert_one_tab_stop (window, "events", PD_TYPE_EVENTS_VIEW, GTK_TYPE_COLUMN_VIEW);

  /* Each Events row is named "time, type: summary" (it said its class). */
  assert_event_rows_named (window);
}

static void
test_run_dialogs (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_shell);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_run_dialogs, fixture, NULL), ==, 0);
}

/* Plan mode's review: Enter in the feedback sends it (Keep Planning). */
static const char *replay_review =
  "{\"label\": \"test: a11y review\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy the README\\n\\n- read it\\n\"}}]},"
  " {\"content\": \"I will say which line.\"}]}";

static void
check_review (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  GtkWidget *feedback;
  GtkEditable *text;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  gboolean feedback_sent = FALSE;

  start_replay (window, fixture, "/plan Tidy the README");
  dialog = wait_for_message_dialog ("the plan review");
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Plan review");

  feedback = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  gtk_widget_grab_focus (feedback);
  gtk_editable_set_text (GTK_EDITABLE (feedback), "Say which line");
  /* Enter in the field: the signal its GtkText binds to the key. */
  text = gtk_editable_get_delegate (GTK_EDITABLE (feedback));
  g_assert_true (GTK_IS_TEXT (text));
  g_signal_emit_by_name (text, "activate");

  pd_test_wait_until (run_finished, fixture, "the run to end");
  store = pd_test_open_store (fixture->db);
  messages = pd_session_store_load_messages (store, pd_run_controller_get_session_id (runs), &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "role", ""), "tool") == 0 &&
          strstr (json_object_get_string_member_with_default (message, "content", ""), "Say which line") != NULL)
        feedback_sent = TRUE;
    }
  g_assert_true (feedback_sent);
}

static void
test_review (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_review);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_review, fixture, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/names/window", test_names_window);
  g_test_add_func ("/pd/ui/a11y/names/dialogs", test_names_dialogs);
  g_test_add_func ("/pd/ui/a11y/rows", test_rows);
  g_test_add_func ("/pd/ui/a11y/contrast", test_contrast);
  g_test_add_func ("/pd/ui/a11y/large-text", test_large_text);
  g_test_add_func ("/pd/ui/a11y/large-text-narrow", test_large_text_narrow);
  g_test_add_func ("/pd/ui/a11y/keyboard/pages", test_keyboard);
  g_test_add_func ("/pd/ui/a11y/keyboard/focus-returns", test_focus_returns);
  g_test_add_func ("/pd/ui/a11y/keyboard/session-list", test_session_list_keys);
  g_test_add_func ("/pd/ui/a11y/keyboard/shortcuts-listed", test_shortcuts_listed);
  g_test_add_func ("/pd/ui/a11y/run-dialogs", test_run_dialogs);
  g_test_add_func ("/pd/ui/a11y/plan-review-enter", test_review);

  return g_test_run ();
}

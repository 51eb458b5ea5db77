/* test-a11y-sources.c: what several sources look like, measured
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test (tests/ui/meson.build).  Contrast is measured
 * from the drawn window as /pd/ui/a11y/contrast measures it
 * (test-a11y-pixels.h): the rows of an endpoint gone away (dimmed twice
 * they were 2.78:1, their pie 2.76:1), the sidebar's unreachable icon (its
 * arrows at 0.35: 1.98:1) and the subtitles of Preferences' rows
 * (libadwaita's 0.55: 3.23:1).  The sidebar's icons say what the words
 * beside them say: a reader met each as "GtkImage".  At 1.5× text, with
 * an endpoint beside this computer, the window fits 360 px.
 */
#define G_LOG_DOMAIN "test-a11y-sources"

#include "config.h"

#include <math.h>
#include <string.h>

#include <libsoup/soup.h>

#include "pd-plan-pie.h"
#include "pd-preferences-window.h"
#include "pd-remote-source.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-row.h"
#include "pd-secrets.h"
#include "pd-sources-page.h"
#include "pd-source-sidebar.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"
#include "test-a11y-pixels.h"

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

static const char *
style_name (void)
{
  AdwStyleManager *style = adw_style_manager_get_default ();

  return adw_style_manager_get_high_contrast (style) ? "hc" : adw_style_manager_get_dark (style) ? "dark" : "light";
}

static gboolean
has_class (GtkWidget     *widget,
           gconstpointer  name)
{
  return gtk_widget_get_mapped (widget) && gtk_widget_has_css_class (widget, name);
}

static gboolean
in_selected_row (GtkWidget *widget)
{
  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    if (gtk_widget_get_state_flags (widget) & GTK_STATE_FLAG_SELECTED)
      return TRUE;
  return FALSE;
}

/* The most contrast anything in @widget's rows @y0 to @y1 (of its height,
 * 0 to 1) has against the pixel @left px left of it, halfway down. */
static double
measure_part (GtkWidget    *window,
              const Pixels *pixels,
              GtkWidget    *widget,
              double        y0,
              double        y1,
              int           left)
{
  graphene_rect_t bounds;
  double background;
  double best = 1.0;
  int top, bottom;

  g_assert_true (gtk_widget_compute_bounds (widget, window, &bounds));
  g_assert_cmpfloat (bounds.origin.x, >=, left);
  background = luminance (pixels, (int) bounds.origin.x - left, (int) (bounds.origin.y + bounds.size.height / 2));
  top = (int) (bounds.origin.y + bounds.size.height * y0);
  bottom = MIN ((int) (bounds.origin.y + bounds.size.height * y1), pixels->height);
  for (int y = top; y < bottom; y++)
    for (int x = (int) bounds.origin.x; x < MIN ((int) (bounds.origin.x + bounds.size.width), pixels->width); x++)
      best = MAX (best, ratio (background, luminance (pixels, x, y)));
  return best;
}

/* --- an endpoint's rows, kept while it is away ---------------------------- */

/* A row not selected that shows a plan: its pie is drawn. */
static GtkWidget *
row_with_pie (GtkWidget *list)
{
  g_autoptr(GPtrArray) pies = g_ptr_array_new ();

  pd_test_collect (list, PD_TYPE_PLAN_PIE, pies);
  for (guint i = 0; i < pies->len; i++)
    {
      GtkWidget *pie = g_ptr_array_index (pies, i);

      if (gtk_widget_get_mapped (pie) && !in_selected_row (pie))
        return gtk_widget_get_ancestor (pie, PD_TYPE_SESSION_ROW);
    }
  return NULL;
}

static void
check_stale_rows (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  g_auto(Pixels) pixels = { 0 };
  g_autoptr(GPtrArray) dimmed = g_ptr_array_new ();
  g_autofree char *shot = NULL;
  PdSessionItem *item;
  GtkWidget *row, *pie, *title;
  gboolean ok = TRUE;
  guint measured = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_spin (300);
  row = row_with_pie (list);
  g_assert_nonnull (row);
  item = pd_session_row_get_item (PD_SESSION_ROW (row));
  /* As PdWindow marks the sessions of an endpoint gone away. */
  pd_session_item_set_origin (item, "Demo box · Unreachable");
  pd_session_item_set_stale (item, TRUE);
  pie = pd_test_find_widget (row, PD_TYPE_PLAN_PIE);
  g_object_set (pie, "done", 0, "blocked", 0, "total", 4, NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  render (GTK_WIDGET (window), &pixels);

  /* Its dimmed labels: the date and "Demo box · Unreachable". */
  pd_test_collect (row, GTK_TYPE_LABEL, dimmed);
  for (guint i = 0; i < dimmed->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (dimmed, i);
      g_autofree char *what = NULL;

      if (!has_class (label, "dim-label") || *gtk_label_get_text (GTK_LABEL (label)) == '\0')
        continue;
      what = g_strdup_printf ("stale row, “%s”", gtk_label_get_text (GTK_LABEL (label)));
      report (what, measure (GTK_WIDGET (window), &pixels, label, 0), 4.5, &ok);
      measured++;
    }
  g_assert_cmpuint (measured, >=, 2);
  g_assert_nonnull (pd_test_find_label_containing (row, "Demo box · Unreachable"));
  title = pd_test_find_first (row, has_class, "session-title");
  g_assert_nonnull (title);
  report ("stale row, title", measure (GTK_WIDGET (window), &pixels, title, 0), 4.5, &ok);
  report ("stale row, pie (nothing done)", measure_part (GTK_WIDGET (window), &pixels, pie, 0, 1, 2), 3.0, &ok);
  /* Still set apart from the rows that answer: its title is dimmed. */
  g_assert_cmpfloat (gtk_widget_get_opacity (title), ==, 1.0);   /* by CSS, not by hand */

  shot = g_strdup_printf ("a11y-stale-rows-%s", style_name ());
  pd_test_screenshot (GTK_WIDGET (window), shot);
  g_assert_true (ok);
}

static void
test_stale_rows (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);

  pd_test_fill_showcase (store);
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_stale_rows, NULL, NULL), ==, 0);
}

/* --- the sidebar with an endpoint that does not answer --------------------- */

static PdSourceSidebar *
sidebar (PdWindow *window)
{
  return PD_SOURCE_SIDEBAR (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SOURCE_SIDEBAR));
}

static gboolean
unreachable (gpointer data)
{
  PdWindow *window = data;
  GListModel *sources = _pd_window_get_sources (window);
  g_autoptr(PdSource) source = g_list_model_get_n_items (sources) > 1 ? g_list_model_get_item (sources, 1) : NULL;
  g_autofree char *state = source != NULL ? pd_source_sidebar_dup_state (sidebar (window), source, NULL) : NULL;

  return g_strcmp0 (state, "Unreachable") == 0 &&
         pd_test_count_shown_labels (GTK_WIDGET (sidebar (window)), "Unreachable", FALSE) >= 1;
}

/* The same, whether or not the sidebar is shown (a narrow window). */
static gboolean
unreachable_state (gpointer data)
{
  PdWindow *window = data;
  GListModel *sources = _pd_window_get_sources (window);
  g_autoptr(PdSource) source = g_list_model_get_n_items (sources) > 1 ? g_list_model_get_item (sources, 1) : NULL;
  g_autofree char *state = source != NULL ? pd_source_sidebar_dup_state (sidebar (window), source, NULL) : NULL;

  return g_strcmp0 (state, "Unreachable") == 0;
}

static void
check_sidebar (PdApplication *app,
               PdWindow      *window,
               gpointer       user_data)
{
  GtkWidget *bar;
  g_autoptr(GPtrArray) images = g_ptr_array_new ();
  g_auto(Pixels) pixels = { 0 };
  g_autofree char *shot = NULL;
  GtkWidget *icon = NULL;
  gboolean ok = TRUE;

  pd_test_wait_until (unreachable, window, "the endpoint unreachable in the sidebar");
  bar = GTK_WIDGET (sidebar (window));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);

  /* Each row's icon is kept from the reader: the row is named by its
   * words ("Demo box, Unreachable"). */
  pd_test_collect (bar, GTK_TYPE_IMAGE, images);
  g_assert_cmpuint (images->len, >=, 3);
  for (guint i = 0; i < images->len; i++)
    {
      GtkWidget *image = g_ptr_array_index (images, i);
      GtkWidget *row = gtk_widget_get_ancestor (image, GTK_TYPE_LIST_BOX_ROW);
      g_autofree char *row_name = row != NULL ? pd_test_a11y_name (row) : NULL;

      g_test_message ("sidebar icon %s in the row “%s”: role %d", gtk_image_get_icon_name (GTK_IMAGE (image)),
                      row_name, (int) gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (image)));
      g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (image)), ==,
                       GTK_ACCESSIBLE_ROLE_PRESENTATION);
      g_assert_nonnull (row_name);
      if (row_name != NULL && g_str_has_suffix (row_name, "Unreachable"))
        icon = image;
    }
  g_assert_nonnull (icon);

  /* Its arrows (the icon's upper half; its × is below) at least 3:1. */
  render (GTK_WIDGET (window), &pixels);
  report ("unreachable icon, its arrows", measure_part (GTK_WIDGET (window), &pixels, icon, 0, 0.5, 0), 3.0, &ok);
  report ("unreachable icon, whole", measure (GTK_WIDGET (window), &pixels, icon, 0), 3.0, &ok);
  shot = g_strdup_printf ("a11y-sidebar-unreachable-%s", style_name ());
  pd_test_screenshot (GTK_WIDGET (window), shot);
  g_assert_true (ok);
}

static void
test_sidebar (void)
{
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *address = NULL;
  GVariantBuilder builder;
  guint16 port;

  /* A port nobody listens on: refused at once, "Unreachable". */
  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_close (listener);
  address = g_strdup_printf ("http://127.0.0.1:%u", port);

  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "demo", "Demo box", address);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check_sidebar, NULL, NULL), ==, 0);
  g_settings_reset (settings, "sources");
}

/* --- Preferences' row subtitles ------------------------------------------- */

static void
check_subtitles (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  PdPreferencesWindow *prefs = pd_preferences_window_new (GTK_WINDOW (window));
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  g_auto(Pixels) pixels = { 0 };
  g_autofree char *shot = NULL;
  gboolean ok = TRUE;
  guint measured = 0;

  gtk_window_present (GTK_WINDOW (prefs));
  pd_test_flush (GTK_WIDGET (prefs));
  pd_test_spin (300);
  render (GTK_WIDGET (prefs), &pixels);
  pd_test_collect (GTK_WIDGET (prefs), GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len && measured < 4; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      g_autofree char *what = NULL;

      if (!has_class (label, "subtitle") || gtk_widget_get_ancestor (label, GTK_TYPE_LIST_BOX_ROW) == NULL ||
          *gtk_label_get_text (GTK_LABEL (label)) == '\0')
        continue;
      what = g_strdup_printf ("row subtitle “%.24s”", gtk_label_get_text (GTK_LABEL (label)));
      report (what, measure (GTK_WIDGET (prefs), &pixels, label, 0), 4.5, &ok);
      measured++;
    }
  g_assert_cmpuint (measured, >=, 1);
  shot = g_strdup_printf ("a11y-preferences-subtitles-%s", style_name ());
  pd_test_screenshot (GTK_WIDGET (prefs), shot);
  gtk_window_destroy (GTK_WINDOW (prefs));
  g_assert_true (ok);
}

static void
test_subtitles (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);

  g_free (pd_test_add_session (store, "A session", "plandeck"));
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_subtitles, NULL, NULL), ==, 0);
}

/* --- the Sources page's keyring warning ----------------------------------- */

static gboolean
is_sources_page (GtkWidget     *widget,
                 gconstpointer  data)
{
  return PD_IS_SOURCES_PAGE (widget);
}

static gboolean
warning_mapped (gpointer data)
{
  GtkWidget *label = pd_test_find_label_containing (data, "lost when Plandeck quits");

  return label != NULL && gtk_widget_get_mapped (label);
}

static void
answer_empty_list (SoupServerMessage *msg)
{
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, "[]", 2);
}

static void
on_request (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           data)
{
  answer_empty_list (msg);
}

/* "No keyring could keep the token…" was a plain label: never announced,
 * not in the Tab order (nu21 #12).  It is an alert, named by its words,
 * that takes the focus. */
static void
check_keyring_note (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdPreferencesWindow *prefs = pd_preferences_window_new (GTK_WINDOW (window));
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GSocketAddress) loopback = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *name = NULL;
  GtkWidget *page, *label, *note;
  GSList *uris;

  soup_server_add_handler (server, NULL, on_request, NULL, NULL);
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
  pd_test_wait_until (warning_mapped, prefs, "the warning that no keyring kept the token");
  label = pd_test_find_label_containing (GTK_WIDGET (prefs), "lost when Plandeck quits");
  for (note = label; note != NULL; note = gtk_widget_get_parent (note))
    if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (note)) == GTK_ACCESSIBLE_ROLE_ALERT)
      break;
  g_assert_nonnull (note);
  g_assert_true (gtk_widget_get_focusable (note));
  name = pd_test_a11y_name (note);
  g_assert_nonnull (name);
  g_assert_nonnull (strstr (name, "lost when Plandeck quits"));
  gtk_widget_grab_focus (note);
  g_assert_true (gtk_widget_has_focus (note));
  gtk_window_destroy (GTK_WINDOW (prefs));
  pd_secrets_keep_for_session (url, NULL);
  soup_server_disconnect (server);
}

static void
test_keyring_note (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);

  g_free (pd_test_add_session (store, "A session", "plandeck"));
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_keyring_note, NULL, NULL), ==, 0);
}

/* --- 1.5× text, several sources, 360 px ----------------------------------- */

/* nu21 #7: with an endpoint beside this computer the window went no
 * narrower than 370 px at 1.5× text ("Fix th…", "This Co…" in the
 * header).  Measured here on each page of a session and on the list. */
static void
check_large_text (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  int widest = 0;

  pd_test_wait_until (unreachable_state, window, "the endpoint unreachable");
  for (guint i = 0; i <= G_N_ELEMENTS (pages); i++)
    {
      const char *where = i < G_N_ELEMENTS (pages) ? pages[i] : "session list";
      int minimum = 0;

      if (i < G_N_ELEMENTS (pages))
        {
          adw_leaflet_set_visible_child_name (leaflet, "content");
          adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), pages[i]);
        }
      else
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      g_test_message ("at 1.5× text with an endpoint, %s: the window needs %d px", where, minimum);
      if (minimum > 360)
        pd_test_a11y_print_wide (content, 360, 1);
      widest = MAX (widest, minimum);
    }
  pd_test_screenshot (GTK_WIDGET (window), "a11y-sources-large-text-360");
  g_assert_cmpint (widest, <=, 360);
}

static void
test_large_text (void)
{
  int dpi = pd_test_a11y_large_text ();
  g_autofree char *layout = NULL;
  g_autofree char *db = g_build_filename (g_get_user_data_dir (), "plandeck", "sessions.db", NULL);
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *address = NULL;
  GVariantBuilder builder;
  guint16 port;
  g_autofree char *folder = g_path_get_dirname (db);

  g_mkdir_with_parents (folder, 0700);
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    pd_test_fill_showcase (store);
  }
  port = g_socket_listener_add_any_inet_port (listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_close (listener);
  address = g_strdup_printf ("http://127.0.0.1:%u", port);
  g_object_get (gtk_settings_get_default (), "gtk-decoration-layout", &layout, NULL);
  g_object_set (gtk_settings_get_default (), "gtk-decoration-layout", "appmenu:minimize,maximize,close", NULL);
  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_int (settings, "window-width", 360);
  g_settings_set_int (settings, "window-height", 720);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "demo", "Demo box", address);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check_large_text, NULL, NULL), ==, 0);
  g_settings_reset (settings, "sources");
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/ui/a11y/sources/stale-rows", test_stale_rows);
  g_test_add_func ("/pd/ui/a11y/sources/sidebar", test_sidebar);
  g_test_add_func ("/pd/ui/a11y/sources/subtitles", test_subtitles);
  g_test_add_func ("/pd/ui/a11y/sources/keyring-note", test_keyring_note);
  g_test_add_func ("/pd/ui/a11y/sources/large-text-narrow", test_large_text);
  return g_test_run ();
}

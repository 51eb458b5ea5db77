/* test-narrow.c: the window fits a phone-sized screen in every language
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run once per language of po/LINGUAS (and once untranslated), with
 * LANGUAGE set by the test definition and the translations of this build
 * bound through PD_TEST_LOCALEDIR.  A translation with longer words must
 * never widen the window past 360 pixels: the switcher bar, the header and
 * every page of a session are measured at that width.
 */
#define G_LOG_DOMAIN "test-narrow"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "pd-event.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-plan-row-item.h"
#include "pd-remote-source.h"
#include "pd-ui-util-private.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define NARROW_WIDTH 360

static const char * const pages[] = { "now", "transcript", "events", "history" };

static gboolean
widget_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
window_shows_session (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  GtkStack *main_pages = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return g_strcmp0 (gtk_stack_get_visible_child_name (main_pages), "session") == 0;
}

/* Names the widgets that make the window too wide: from the content down,
 * each child that alone needs more than the narrow width; where none does,
 * the children whose widths add up past it. */
static void
print_wide_chain (GtkWidget *widget,
                  guint      depth)
{
  gboolean found = FALSE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int minimum = 0;

      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      if (minimum > NARROW_WIDTH)
        {
          g_printerr ("# %*s%s.%s needs %d px\n", (int) depth * 2, "",
                      G_OBJECT_TYPE_NAME (child), gtk_widget_get_css_name (child), minimum);
          print_wide_chain (child, depth + 1);
          found = TRUE;
        }
    }

  if (found)
    return;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int minimum = 0;

      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      g_printerr ("# %*s%s.%s: %d px\n", (int) depth * 2, "",
                  G_OBJECT_TYPE_NAME (child), gtk_widget_get_css_name (child), minimum);
      if (depth < 14 && minimum > NARROW_WIDTH / 2)
        print_wide_chain (child, depth + 1);
    }
}

static void
assert_fits (PdWindow   *window,
             const char *where)
{
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  int minimum = 0;
  int natural = 0;

  pd_test_flush (GTK_WIDGET (window));
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  if (minimum > NARROW_WIDTH)
    print_wide_chain (content, 0);
  if (minimum > NARROW_WIDTH)
    g_error ("%s (LANGUAGE=%s): the window needs %d px, more than %d",
             where, g_getenv ("LANGUAGE"), minimum, NARROW_WIDTH);
  g_assert_cmpint (gtk_widget_get_width (content), <=, NARROW_WIDTH);
}

static void
check_narrow (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  AdwViewStack *views = ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  GtkWidget *bar = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_BAR);

  pd_test_wait_until (window_shows_session, window, "a session to be shown");
  g_assert_true (adw_leaflet_get_folded (leaflet));

  /* Narrow, the views are switched from the bar at the bottom. */
  g_assert_nonnull (bar);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (adw_view_switcher_bar_get_reveal (ADW_VIEW_SWITCHER_BAR (bar)));

  /* Folded, the History stacks its versions above the plan. */
  {
    GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
    GtkWidget *paned = pd_test_find_widget (history, GTK_TYPE_PANED);

    g_assert_true (pd_history_view_get_narrow (PD_HISTORY_VIEW (history)));
    g_assert_cmpint (gtk_orientable_get_orientation (GTK_ORIENTABLE (paned)), ==, GTK_ORIENTATION_VERTICAL);
  }

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *shot = g_strdup_printf ("narrow-%s-%s", pages[i], g_getenv ("LANGUAGE"));

      adw_view_stack_set_visible_child_name (views, pages[i]);
      assert_fits (window, pages[i]);
      pd_test_screenshot (GTK_WIDGET (window), shot);
    }

  /* The Events page's hint, no event chosen, takes a line, not a third of
   * the list's height (tried as a new user would: 160 of 470 px). */
  {
    GtkWidget *events = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
    GtkWidget *paned = pd_test_find_widget (events, GTK_TYPE_PANED);

    adw_view_stack_set_visible_child_name (views, "events");
    pd_test_wait_until (widget_mapped, paned, "the Events page's list");
    pd_test_flush (GTK_WIDGET (window));
    pd_test_screenshot (GTK_WIDGET (window), "narrow-events-list");
    g_test_message ("the hint's pane: %d of %d px", gtk_widget_get_height (gtk_paned_get_end_child (GTK_PANED (paned))),
                    gtk_widget_get_height (paned));
    g_assert_cmpint (gtk_widget_get_height (gtk_paned_get_end_child (GTK_PANED (paned))), <, 80);
    /* An event chosen: its data has the room it had. */
    gtk_selection_model_select_item (gtk_column_view_get_model (GTK_COLUMN_VIEW (pd_test_find_widget (events,
                                                                               GTK_TYPE_COLUMN_VIEW))), 0, TRUE);
    pd_test_flush (GTK_WIDGET (window));
    g_assert_cmpint (gtk_widget_get_height (gtk_paned_get_end_child (GTK_PANED (paned))), >=, 160);
  }

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "sidebar");
  assert_fits (window, "the session list");

  /* The sidebar's page has the main menu too: Preferences and About were
   * reachable only after opening a session (tried as a new user would). */
  {
    g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
    guint menus = 0;

    pd_test_flush (GTK_WIDGET (window));
    pd_test_collect (adw_leaflet_get_visible_child (leaflet), GTK_TYPE_MENU_BUTTON, buttons);
    for (guint i = 0; i < buttons->len; i++)
      if (gtk_widget_get_mapped (g_ptr_array_index (buttons, i)) &&
          g_strcmp0 (gtk_menu_button_get_icon_name (g_ptr_array_index (buttons, i)), "open-menu-symbolic") == 0)
        menus++;
    g_assert_cmpuint (menus, ==, 1);
    pd_test_screenshot (GTK_WIDGET (window), "narrow-sidebar");
  }

  /* The list's title is whole or not there: it read "Sess…" (tried as a
   * new user would). */
  {
    GtkWidget *title = pd_test_find_label (adw_leaflet_get_visible_child (leaflet), _("Sessions"));

    g_assert_nonnull (title);
    g_assert_false (gtk_widget_get_mapped (title) && pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (title))));
  }
}

static void
test_narrow_fits (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *language = g_getenv ("LANGUAGE");

  /* The translation is really in use, or this test would prove nothing. */
  if (g_strcmp0 (language, "en") != 0)
    g_assert_cmpstr (g_dgettext (GETTEXT_PACKAGE, "Events"), !=, "Events");

  pd_test_fill_showcase (store);
  /* An event in every session: the Events page shows its list and hint. */
  {
    g_autoptr(GPtrArray) infos = pd_session_store_list (store, NULL, FALSE, 0, 100, NULL, NULL);

    g_assert_nonnull (infos);
    for (guint i = 0; i < infos->len; i++)
      {
        const char *id = ((PdSessionInfo *) g_ptr_array_index (infos, i))->id;
        g_autoptr(PdEvent) event = pd_event_new_full ("run_started", "run-1", id, 0, NULL, json_object_new ());
        g_autofree char *text = pd_event_to_json (event);

        g_assert_cmpint (pd_session_store_add_event (store, id, "run-1", "run_started", pd_event_get_timestamp (event),
                                                     text, NULL), >, 0);
      }
  }
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", NARROW_WIDTH);
  g_settings_set_int (settings, "window-height", 640);
  g_assert_cmpint (pd_test_run_app (args, check_narrow, NULL, NULL), ==, 0);
}

/* --- the connection banner fits too ---------------------------------------- */

static gboolean
banner_in_state (gpointer data)
{
  PdWindow *window = ((gpointer *) data)[0];
  PdRemoteState state = GPOINTER_TO_INT (((gpointer *) data)[1]);
  PdSource *source = pd_window_get_source (window);

  return source != NULL && pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) == state;
}

static void
check_banner (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  const char *name = user_data;
  gpointer data[2] = { window, GINT_TO_POINTER (g_str_equal (name, "offline") ? PD_REMOTE_OFFLINE : PD_REMOTE_DENIED) };
  g_autofree char *shot = g_strdup_printf ("narrow-banner-%s-%s", name, g_getenv ("LANGUAGE"));

  pd_test_wait_until (banner_in_state, data, "the connection banner");
  /* Its slide over. */
  {
    gint64 end = g_get_monotonic_time () + 500 * G_TIME_SPAN_MILLISECOND;

    while (g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, FALSE);
  }
  assert_fits (window, name);
  pd_test_screenshot (GTK_WIDGET (window), shot);
}

static void
narrow_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", NARROW_WIDTH);
  g_settings_set_int (settings, "window-height", 640);
}

static void
test_narrow_banner (void)
{
  /* Nobody there: offline, with Retry. */
  const char *offline[] = { "--remote", "http://127.0.0.1:9/?token=x", NULL };
  const char *denied[] = { "--remote", NULL, NULL };
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *base = NULL;
  g_autofree char *wrong = NULL;

  narrow_settings ();
  g_assert_cmpint (pd_test_run_app (offline, check_banner, (gpointer) "offline", NULL), ==, 0);

  /* A server with another token: the token is asked for in place. */
  serve = pd_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                         g_getenv ("PLANDECK_AGENT"), "serve", "--db", db, "--listen", "127.0.0.1:0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve));
  url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  base = pd_window_split_endpoint_url (url, NULL);
  wrong = g_strconcat (base, "?token=an-old-token", NULL);
  denied[1] = wrong;
  narrow_settings ();
  g_assert_cmpint (pd_test_run_app (denied, check_banner, (gpointer) "denied", NULL), ==, 0);
  g_subprocess_force_exit (serve);
  g_subprocess_wait (serve, NULL, NULL);
}

/* --- an endpoint that never answered: not a blank page ------------------- */

static gboolean
is_connection_banner (GtkWidget     *widget,
                      gconstpointer  data)
{
  return gtk_widget_has_css_class (widget, "pd-connection-banner") && gtk_widget_get_mapped (widget);
}

typedef struct
{
  GtkWidget *window;
  double     below;   /* window coordinates */
} BelowBanner;

static gboolean
is_text_below (GtkWidget     *widget,
               gconstpointer  data)
{
  const BelowBanner *where = data;
  graphene_rect_t bounds;

  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         gtk_label_get_text (GTK_LABEL (widget))[0] != '\0' &&
         gtk_widget_compute_bounds (widget, where->window, &bounds) &&
         bounds.origin.y >= where->below;
}

static void
check_before_read (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  gpointer data[2] = { window, GINT_TO_POINTER (PD_REMOTE_OFFLINE) };
  g_autofree char *shot = g_strdup_printf ("narrow-banner-before-read-%s", g_getenv ("LANGUAGE"));
  GtkWidget *banner;
  graphene_rect_t bounds;
  BelowBanner below;

  pd_test_wait_until (banner_in_state, data, "the offline banner");
  {
    gint64 end = g_get_monotonic_time () + 500 * G_TIME_SPAN_MILLISECOND;

    while (g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, FALSE);
  }
  assert_fits (window, "offline before the first read");
  pd_test_screenshot (GTK_WIDGET (window), shot);

  /* Nothing was ever read: under the banner the window says it is reading,
   * it is not an empty page. */
  banner = pd_test_find_first (GTK_WIDGET (window), is_connection_banner, NULL);
  g_assert_nonnull (banner);
  g_assert_true (gtk_widget_compute_bounds (banner, GTK_WIDGET (window), &bounds));
  below.window = GTK_WIDGET (window);
  below.below = bounds.origin.y + bounds.size.height;
  /* In what comes after the banner in the main area (not a toast over it). */
  {
    GtkWidget *text = NULL;

    for (GtkWidget *next = gtk_widget_get_next_sibling (gtk_widget_get_parent (banner));
         next != NULL && text == NULL;
         next = gtk_widget_get_next_sibling (next))
      text = pd_test_find_first (next, is_text_below, &below);
    g_assert_nonnull (text);
  }

  /* The endpoint goes: its held requests fail, and the window closes with
   * nothing in flight. */
  g_socket_close (user_data, NULL);
}

/* Issue 15, tried as a new user would at 360 px: an endpoint that takes the
 * connection and never answers (hung, or the network cut) showed the
 * offline banner over a blank page. */
static void
test_narrow_before_read (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) hung = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *url = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  g_assert_no_error (error);
  /* Listening, never accepting: connections are made, requests never answered. */
  g_assert_true (g_socket_bind (hung, any, TRUE, &error));
  g_socket_set_listen_backlog (hung, 64);
  g_assert_true (g_socket_listen (hung, &error));
  bound = g_socket_get_local_address (hung, &error);
  g_assert_no_error (error);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=x", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  args[1] = url;

  narrow_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_before_read, hung, NULL), ==, 0);
}

/* The status words come from tables indexed by the status (they were
 * switches, one a status, written again for each kind): each reads as its
 * context's translation, and a value past the table as the first, the
 * default, as the switches' default did. */
static void
test_status_words (void)
{
  const struct { const char *got; const char *want; } words[] = {
    { _pd_session_status_label (PD_SESSION_STATUS_IDLE), C_("session status", "Idle") },
    { _pd_session_status_label (PD_SESSION_STATUS_RUNNING), C_("session status", "Running") },
    { _pd_session_status_label (PD_SESSION_STATUS_FAILED), C_("session status", "Failed") },
    { _pd_session_status_label (PD_SESSION_STATUS_INTERRUPTED), C_("session status", "Interrupted") },
    { _pd_session_status_label ((PdSessionStatus) 99), C_("session status", "Idle") },
    { pd_plan_step_status_label (PD_PLAN_STEP_PENDING), C_("step status", "Pending") },
    { pd_plan_step_status_label (PD_PLAN_STEP_IN_PROGRESS), C_("step status", "In progress") },
    { pd_plan_step_status_label (PD_PLAN_STEP_DONE), C_("step status", "Done") },
    { pd_plan_step_status_label (PD_PLAN_STEP_BLOCKED), C_("step status", "Blocked") },
    { pd_plan_step_status_label ((PdPlanStepStatus) 99), C_("step status", "Pending") },
    { pd_plan_check_status_label (PD_PLAN_CHECK_PENDING), C_("check status", "Pending") },
    { pd_plan_check_status_label (PD_PLAN_CHECK_PASSED), C_("check status", "Passed") },
    { pd_plan_check_status_label (PD_PLAN_CHECK_FAILED), C_("check status", "Failed") },
    { pd_plan_check_status_label (PD_PLAN_CHECK_BLOCKED), C_("check status", "Blocked") },
    { pd_plan_check_status_label ((PdPlanCheckStatus) 99), C_("check status", "Pending") },
    { _pd_check_status_label (PD_PLAN_CHECK_PENDING), C_("check status", "pending") },
    { _pd_check_status_label (PD_PLAN_CHECK_PASSED), C_("check status", "passed") },
    { _pd_check_status_label (PD_PLAN_CHECK_FAILED), C_("check status", "failed") },
    { _pd_check_status_label (PD_PLAN_CHECK_BLOCKED), C_("check status", "blocked") },
    { _pd_check_status_label ((PdPlanCheckStatus) 99), C_("check status", "pending") },
    { pd_plan_step_status_icon_name (PD_PLAN_STEP_PENDING), "content-loading-symbolic" },
    { pd_plan_step_status_icon_name (PD_PLAN_STEP_IN_PROGRESS), "emblem-synchronizing-symbolic" },
    { pd_plan_step_status_icon_name (PD_PLAN_STEP_DONE), "emblem-ok-symbolic" },
    { pd_plan_step_status_icon_name (PD_PLAN_STEP_BLOCKED), "action-unavailable-symbolic" },
    { pd_plan_step_status_icon_name ((PdPlanStepStatus) 99), "content-loading-symbolic" },
    { pd_plan_check_status_icon_name (PD_PLAN_CHECK_PENDING), "content-loading-symbolic" },
    { pd_plan_check_status_icon_name (PD_PLAN_CHECK_PASSED), "emblem-ok-symbolic" },
    { pd_plan_check_status_icon_name (PD_PLAN_CHECK_FAILED), "process-stop-symbolic" },
    { pd_plan_check_status_icon_name (PD_PLAN_CHECK_BLOCKED), "action-unavailable-symbolic" },
    { pd_plan_check_status_icon_name ((PdPlanCheckStatus) 99), "content-loading-symbolic" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    g_assert_cmpstr (words[i].got, ==, words[i].want);
  /* Translated where the language has them. */
  if (g_strcmp0 (g_getenv ("LANGUAGE"), "de") == 0)
    g_assert_cmpstr (_pd_session_status_label (PD_SESSION_STATUS_RUNNING), !=, "Running");
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("PD_TEST_LOCALEDIR");

  g_assert_nonnull (localedir);
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  /* gtk_test_init sets the locale from the environment; C.UTF-8 lets
   * LANGUAGE choose the translation without a generated locale. */
  setlocale (LC_ALL, "C.UTF-8");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_test_add_func ("/pd/ui/narrow/fits", test_narrow_fits);
  g_test_add_func ("/pd/ui/narrow/connection-banner", test_narrow_banner);
  g_test_add_func ("/pd/ui/narrow/banner-before-read", test_narrow_before_read);
  g_test_add_func ("/pd/ui/narrow/status-words", test_status_words);

  return g_test_run ();
}

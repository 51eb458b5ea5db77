/* test-live-remote.c: a window on a serve endpoint, live through its outages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `plandeck-agent serve` on loopback, and the window on it: killed and
 * restarted with a new token, or stopped (SIGSTOP) so that it says
 * nothing, the banner tells what happened, the views keep what they
 * showed, and once it is back they show what a second process did
 * meanwhile.  What it shares with test-live.c is pd-test-live.h.
 */
#define G_LOG_DOMAIN "test-live-remote"

#include "config.h"

#include <signal.h>

#include "pd-remote-source.h"
#include "pd-session-view.h"
#include "pd-test-live.h"

/* --- a remote endpoint goes away and comes back --------------------------------- */

typedef struct
{
  Second       second;
  GSubprocess *serve;
  char        *url;
  guint        port;
} Remote;

/* Starts `plandeck-agent serve` on @port (0: any) and reads the URL it
 * prints, with its new instance token. */
static void
start_serve (Remote *remote,
             guint   port)
{
  g_autofree char *listen = g_strdup_printf ("127.0.0.1:%u", port);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GUri) uri = NULL;

  remote->serve = pd_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                 g_getenv ("PLANDECK_AGENT"), "serve", "--db", remote->second.db,
                                 "--listen", listen, "--rate-limit", "0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (remote->serve));
  g_free (remote->url);
  remote->url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (remote->url);
  uri = g_uri_parse (remote->url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  remote->port = g_uri_get_port (uri);
}

static void
stop_serve (Remote *remote)
{
  g_subprocess_force_exit (remote->serve);
  g_subprocess_wait (remote->serve, NULL, NULL);
  g_clear_object (&remote->serve);
}

static char *
token_of (const char *url)
{
  g_autofree char *token = NULL;
  g_autofree char *base = pd_window_split_endpoint_url (url, &token);

  return g_steal_pointer (&token);
}

static PdRemoteState
remote_state (PdWindow *window)
{
  return pd_remote_source_get_state (PD_REMOTE_SOURCE (pd_window_get_source (window)));
}

static GtkWidget *
connection_banner (PdWindow *window)
{
  GPtrArray *revealers = g_ptr_array_new ();
  GtkWidget *banner = NULL;

  pd_test_collect (GTK_WIDGET (window), GTK_TYPE_REVEALER, revealers);
  for (guint i = 0; i < revealers->len; i++)
    {
      GtkWidget *child = gtk_revealer_get_child (g_ptr_array_index (revealers, i));

      if (child != NULL && gtk_widget_has_css_class (child, "pd-connection-banner"))
        banner = g_ptr_array_index (revealers, i);
    }
  g_ptr_array_unref (revealers);
  g_assert_nonnull (banner);
  return banner;
}

typedef struct
{
  PdWindow      *window;
  PdRemoteState  state;
} StateWait;

static gboolean
in_state (gpointer data)
{
  StateWait *wait = data;
  gboolean revealed = gtk_revealer_get_reveal_child (GTK_REVEALER (connection_banner (wait->window)));

  gboolean shown = gtk_revealer_get_child_revealed (GTK_REVEALER (connection_banner (wait->window)));
  gboolean wanted = wait->state == PD_REMOTE_OFFLINE || wait->state == PD_REMOTE_DENIED;

  /* The banner's slide is over, whichever way it went. */
  return remote_state (wait->window) == wait->state && revealed == wanted && shown == wanted;
}

static void
wait_for_state (PdWindow      *window,
                PdRemoteState  state,
                const char    *what)
{
  StateWait wait = { window, state };
  gint64 start = g_get_monotonic_time ();

  pd_test_wait_until (in_state, &wait, what);
  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("%s: %" G_GINT64_FORMAT " ms", what, (g_get_monotonic_time () - start) / 1000);
}

static gboolean
reloaded_with_error (gpointer data)
{
  return !pd_session_view_get_busy (data) && pd_session_view_get_error (data) != NULL;
}

/* The view's own error bar (a revealer among its direct children that
 * holds its error), whether it is revealed. */
static gboolean
error_bar_revealed (PdSessionView *view)
{
  const char *error = pd_session_view_get_error (view);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_REVEALER (child) && pd_test_find_label (child, error) != NULL)
      return gtk_revealer_get_reveal_child (GTK_REVEALER (child));
  g_assert_not_reached ();
}

/* The server away: the views keep what they showed, and their reads'
 * error is told once, by the window's banner, not again by each view. */
static void
check_told_once (PdWindow *window)
{
  PdSessionView *now = PD_SESSION_VIEW (now_view (window));

  pd_session_view_reload (now);
  pd_test_wait_until (reloaded_with_error, now, "the Now page's read to fail");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_nonnull (pd_now_view_get_plan (now_view (window)));
  g_assert_false (error_bar_revealed (now));
}

static gboolean
still_unreachable_said (gpointer window)
{
  return pd_test_count_shown_labels (window, "Still cannot reach the endpoint", FALSE) == 1;
}

static GtkWidget *
token_entry (PdWindow *window)
{
  return pd_test_find_widget (connection_banner (window), GTK_TYPE_PASSWORD_ENTRY);
}

static gboolean
remote_listed (gpointer window)
{
  return pd_session_list_get_loaded (session_list (window)) &&
         pd_overview_get_loaded (pd_window_get_overview (window));
}

static void
check_remote (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  Remote *remote = user_data;
  const char *cont[] = { "continue", remote->second.id, "Go on", NULL };
  gpointer data[2] = { window, remote->second.id };
  g_autofree char *token = NULL;
  g_autofree char *label = NULL;
  Stored before;
  Stored after;

  /* It opens on the Overview, as the local window does, no session picked:
   * it opened on the first session's Now page (tried as a new user would,
   * nu19 #7; before: overview-shown FALSE, a session selected). */
  pd_test_wait_until (remote_listed, window, "the endpoint's sessions listed");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_window_get_overview_shown (window));
  g_assert_null (pd_session_list_get_selected_item (session_list (window)));

  pd_test_wait_until (session_selectable, data, "the session in the list");
  before = read_stored (remote->second.db, remote->second.id);
  data[1] = GSIZE_TO_POINTER ((gsize) before.plan_version);
  pd_test_wait_until (now_shows_version, data, "the plan on the Now page");
  wait_for_state (window, PD_REMOTE_ONLINE, "online");
  g_assert_true (pd_remote_source_is_streaming (PD_REMOTE_SOURCE (pd_window_get_source (window))));

  /* The server goes away: the banner says so, with what happened. */
  stop_serve (remote);
  wait_for_state (window, PD_REMOTE_OFFLINE, "the offline banner after the server was killed");
  label = g_strdup (gtk_label_get_text (GTK_LABEL (pd_test_find_widget (connection_banner (window), GTK_TYPE_LABEL))));
  g_assert_nonnull (strstr (label, "refused"));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_action_button (connection_banner (window), "win.retry")));
  check_told_once (window);
  pd_test_screenshot (GTK_WIDGET (window), "remote-offline");
  /* Retry Now while it is away says it tries, then what came of it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.retry", NULL);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Connecting…", FALSE), ==, 1);
  pd_test_wait_until (still_unreachable_said, window, "Retry Now's answer");
  g_clear_pointer (&label, g_free);
  label = g_strdup (gtk_label_get_text (GTK_LABEL (pd_test_find_widget (connection_banner (window), GTK_TYPE_LABEL))));
  g_assert_true (g_str_has_prefix (label, "Still unreachable at "));
  g_assert_nonnull (strstr (label, "refused"));
  pd_test_screenshot_sizes (GTK_WINDOW (window), "remote-retry-still-unreachable");

  /* Meanwhile another process goes on with the session. */
  run_agent (&remote->second, second_turns, cont);
  after = read_stored (remote->second.db, remote->second.id);
  g_assert_cmpint (after.plan_version, >, before.plan_version);

  /* Restarted, with a new token: the banner asks for it, in place. */
  start_serve (remote, remote->port);
  wait_for_state (window, PD_REMOTE_DENIED, "the banner asking for the new token");
  g_assert_true (gtk_widget_get_mapped (token_entry (window)));
  check_told_once (window);
  pd_test_screenshot (GTK_WIDGET (window), "remote-denied");
  token = token_of (remote->url);
  gtk_editable_set_text (GTK_EDITABLE (token_entry (window)), token);
  g_signal_emit_by_name (token_entry (window), "activate");

  /* Back: everything is read again, the other process's work included. */
  wait_for_state (window, PD_REMOTE_ONLINE, "online with the new token");
  data[1] = GSIZE_TO_POINTER ((gsize) after.plan_version);
  pd_test_wait_until (now_shows_version, data, "the Now page after reconnecting");
  pd_test_flush (GTK_WIDGET (window));
  check_every_page (window, remote->second.db, remote->second.id);

  /* Once more, and this time the new token comes through Connect to
   * Endpoint: the window of that address takes it, no second window. */
  stop_serve (remote);
  wait_for_state (window, PD_REMOTE_OFFLINE, "offline again");
  start_serve (remote, remote->port);
  wait_for_state (window, PD_REMOTE_DENIED, "asking for the newest token");
  g_action_group_activate_action (G_ACTION_GROUP (app), "open-remote", g_variant_new_string (remote->url));
  wait_for_state (window, PD_REMOTE_ONLINE, "online through Connect to Endpoint");
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 1);
  g_clear_pointer (&token, g_free);
  token = token_of (remote->url);
  g_assert_cmpstr (pd_remote_source_get_token (PD_REMOTE_SOURCE (pd_window_get_source (window))), ==, token);

  /* And pasted into the banner as `serve` prints it, the whole address:
   * its token is taken (before, the whole address was sent as the token
   * and refused, tried as a new user would).  Another address's token is
   * not sent to this endpoint. */
  stop_serve (remote);
  wait_for_state (window, PD_REMOTE_OFFLINE, "offline a third time");
  start_serve (remote, remote->port);
  wait_for_state (window, PD_REMOTE_DENIED, "asking for the token once more");
  gtk_editable_set_text (GTK_EDITABLE (token_entry (window)), "http://192.0.2.1:9/?token=elsewhere");
  g_signal_emit_by_name (token_entry (window), "activate");
  g_assert_cmpstr (pd_remote_source_get_token (PD_REMOTE_SOURCE (pd_window_get_source (window))), ==, token);
  gtk_editable_set_text (GTK_EDITABLE (token_entry (window)), remote->url);
  g_signal_emit_by_name (token_entry (window), "activate");
  wait_for_state (window, PD_REMOTE_ONLINE, "online with the pasted address's token");
  g_clear_pointer (&token, g_free);
  token = token_of (remote->url);
  g_assert_cmpstr (pd_remote_source_get_token (PD_REMOTE_SOURCE (pd_window_get_source (window))), ==, token);

  stop_serve (remote);
}

/* --- a remote endpoint stops answering and answers again ----------------------- */

/* serve is stopped (SIGSTOP): its connections stay open and say nothing,
 * as with a hung server or a cut network.  The source's HTTP timeout is
 * taken away, so only the watchdog (the stream's keepalive not coming) can
 * tell: the banner shows; continued (SIGCONT), it goes and what another
 * process did meanwhile is shown. */
static void
check_remote_hung (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  Remote *remote = user_data;
  PdRemoteSource *source = PD_REMOTE_SOURCE (pd_window_get_source (window));
  const char *cont[] = { "continue", remote->second.id, "Go on", NULL };
  gpointer data[2] = { window, remote->second.id };
  const char *pid = g_subprocess_get_identifier (remote->serve);
  g_autofree char *label = NULL;
  Stored before;
  Stored after;

  pd_remote_source_set_timeout (source, 0);
  pd_test_wait_until (session_selectable, data, "the session in the list");
  before = read_stored (remote->second.db, remote->second.id);
  data[1] = GSIZE_TO_POINTER ((gsize) before.plan_version);
  pd_test_wait_until (now_shows_version, data, "the plan on the Now page");
  wait_for_state (window, PD_REMOTE_ONLINE, "online");
  g_assert_true (pd_remote_source_is_streaming (source));

  g_assert_nonnull (pid);
  g_assert_cmpint (kill ((pid_t) g_ascii_strtoll (pid, NULL, 10), SIGSTOP), ==, 0);
  wait_for_state (window, PD_REMOTE_OFFLINE, "the offline banner after the server stopped answering");
  label = g_strdup (gtk_label_get_text (GTK_LABEL (pd_test_find_widget (connection_banner (window), GTK_TYPE_LABEL))));
  g_assert_nonnull (strstr (label, "stopped answering"));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_action_button (connection_banner (window), "win.retry")));
  g_assert_nonnull (pd_now_view_get_plan (now_view (window)));
  pd_test_screenshot (GTK_WIDGET (window), "remote-hung");

  /* Meanwhile another process goes on with the session. */
  run_agent (&remote->second, second_turns, cont);
  after = read_stored (remote->second.db, remote->second.id);
  g_assert_cmpint (after.plan_version, >, before.plan_version);

  g_assert_cmpint (kill ((pid_t) g_ascii_strtoll (pid, NULL, 10), SIGCONT), ==, 0);
  wait_for_state (window, PD_REMOTE_ONLINE, "online after the server answers again");
  data[1] = GSIZE_TO_POINTER ((gsize) after.plan_version);
  pd_test_wait_until (now_shows_version, data, "the Now page after the server answers again");
  pd_test_flush (GTK_WIDGET (window));
  check_every_page (window, remote->second.db, remote->second.id);

  stop_serve (remote);
}

/* The window opened on serve, on a session a first run made, checked by
 * @check. */
static void
run_remote (PdTestWindowFunc check)
{
  Remote remote = { { 0 } };
  const char *args[] = { "--remote", NULL, NULL };
  gboolean saw_window = FALSE;

  second_init (&remote.second);
  start_serve (&remote, 0);
  set_longest_polls ();
  args[1] = remote.url;
  g_assert_cmpint (pd_test_run_app (args, check, &remote, &saw_window), ==, 0);
  g_assert_true (saw_window);

  if (remote.serve != NULL)
    stop_serve (&remote);   /* SIGKILL ends a stopped process too */
  g_free (remote.url);
  second_clear (&remote.second);
}

static void
test_live_remote_kill_restart (void)
{
  run_remote (check_remote);
}

static void
test_live_remote_hung (void)
{
  run_remote (check_remote_hung);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/live/remote-kill-restart", test_live_remote_kill_restart);
  g_test_add_func ("/pd/ui/live/remote-hung", test_live_remote_hung);

  return g_test_run ();
}

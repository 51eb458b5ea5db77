/* test-hung-endpoint.c: an endpoint that hangs touches this computer's
 * sessions not at all.
 *
 * Found tried as a new user would: with an endpoint configured that
 * accepts connections and never answers (a socket on loopback), a run
 * started in the window turned every local row into "This Computer ·
 * Cannot be read" within 3 s, the sidebar saying the database "did not
 * answer within 3.0 s"; the run's session was not listed nor opened until
 * the run ended.  The database was fine.
 *
 * The endpoint here is a real socket on loopback that accepts and never
 * answers, the window the default database's, the run a replay asking two
 * approvals, as a person starts one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-hung-endpoint"

#include "config.h"

#include <glib/gstdio.h>

#include "pd-application.h"
#include "pd-multi-source.h"
#include "pd-remote-source.h"
#include "pd-secrets.h"
#include "pd-source-sidebar.h"
#include "pd-test-runs.h"
#include "pd-window-private.h"

/* --- an endpoint that accepts and never answers ---------------------------- */

typedef struct
{
  GSocket      *listener;
  GCancellable *cancellable;
  GThread      *thread;
  GPtrArray    *held;     /* (element-type GSocket) the connections, never answered */
  guint         port;
  char         *base;
} Silent;

static gpointer
silent_accept (gpointer data)
{
  Silent *silent = data;

  for (;;)
    {
      GSocket *connection = g_socket_accept (silent->listener, silent->cancellable, NULL);

      if (connection == NULL)
        break;
      g_ptr_array_add (silent->held, connection);
    }
  return NULL;
}

static void
silent_start (Silent *silent)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  silent->listener = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_assert_true (g_socket_bind (silent->listener, address, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (g_socket_listen (silent->listener, &error));
  g_assert_no_error (error);
  bound = g_socket_get_local_address (silent->listener, &error);
  g_assert_no_error (error);
  silent->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  silent->base = g_strdup_printf ("http://127.0.0.1:%u", silent->port);
  silent->cancellable = g_cancellable_new ();
  silent->held = g_ptr_array_new_with_free_func (g_object_unref);
  silent->thread = g_thread_new ("silent-endpoint", silent_accept, silent);
}

static void
silent_stop (Silent *silent)
{
  g_cancellable_cancel (silent->cancellable);
  g_thread_join (silent->thread);
  g_clear_object (&silent->cancellable);
  g_clear_object (&silent->listener);
  g_clear_pointer (&silent->held, g_ptr_array_unref);
  g_clear_pointer (&silent->base, g_free);
}

/* The setting lists @silent alone, as "Silent box", with no token (as the
 * report's was). */
static void
configure (Silent *silent)
{
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  pd_test_reset_settings ();
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "silent-id", "Silent box", silent->base);
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
}

static char *
fresh_default_database (void)
{
  char *db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (db);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  return db;
}

/* --- a run beside it --------------------------------------------------------- */

static const char *const replay_two_asks =
  "{\"label\": \"test: two approvals\", \"turns\": ["
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"Writing again.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"two.txt\", \"content\": \"2\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

typedef struct
{
  RunFixture *fixture;
  PdWindow   *window;
  guint       watch;
  guint       n_looks;
  guint       n_stale;      /* looks that found this computer stale */
  char       *said;         /* (nullable) what the sidebar said of it then */
} Hung;

static PdSource *
local_source (PdWindow *window)
{
  g_autoptr(PdSource) source = g_list_model_get_item (_pd_window_get_sources (window), 0);

  return source;
}

static PdSource *
silent_source (PdWindow *window)
{
  g_autoptr(PdSource) source = g_list_model_get_item (_pd_window_get_sources (window), 1);

  return source;
}

/* Looks, at every turn of a 50 ms timeout, whether this computer's rows
 * are stale or its sidebar row says anything. */
static gboolean
look_at_local (gpointer data)
{
  Hung *hung = data;
  PdSource *listed = pd_session_list_get_source (hung->window->session_list);
  PdSource *local = local_source (hung->window);
  g_autofree char *state = pd_source_sidebar_dup_state (hung->window->source_sidebar, local, NULL);

  hung->n_looks++;
  if ((PD_IS_MULTI_SOURCE (listed) && pd_multi_source_is_stale (PD_MULTI_SOURCE (listed), local)) || state != NULL)
    {
      hung->n_stale++;
      if (hung->said == NULL)
        hung->said = g_strdup (state != NULL ? state : "(stale rows)");
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
silent_away (gpointer data)
{
  PdSource *source = silent_source (data);

  return source != NULL && PD_IS_REMOTE_SOURCE (source) &&
         pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) == PD_REMOTE_OFFLINE;
}

static void
check_run_beside_hung (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  Hung *hung = user_data;
  AdwMessageDialog *dialog;
  gint64 start;

  hung->window = window;
  start = g_get_monotonic_time ();
  pd_test_wait_until (silent_away, window, "the hung endpoint said unreachable");
  g_test_message ("the endpoint unreachable after %.2f s", (g_get_monotonic_time () - start) / 1e6);
  hung->watch = g_timeout_add (50, look_at_local, hung);

  start = g_get_monotonic_time ();
  start_replay (window, hung->fixture, PD_APPROVAL_POLICY_ASK, "Write two files");
  pd_test_wait_until (run_session_selected, window, "the run's session listed and selected");
  g_test_message ("the run's session selected %.2f s after the run started, the endpoint hung",
                  (g_get_monotonic_time () - start) / 1e6);

  /* The first question stays open longer than the listing's deadline
   * (3 s) twice over: every listing meanwhile waits on the endpoint. */
  dialog = pd_test_wait_for_dialog ("the first approval prompt");
  pd_test_spin (7000);
  g_assert_true (run_session_selected (window));
  pd_test_screenshot (GTK_WIDGET (window), "hung-endpoint-run-asking");
  respond (dialog, "once");
  dialog = pd_test_wait_for_dialog ("the second approval prompt");
  pd_test_spin (1000);
  respond (dialog, "once");
  pd_test_wait_until (run_finished, hung->fixture, "the run to finish");
  g_assert_cmpint (hung->fixture->status, ==, PD_RUN_COMPLETED);

  g_source_remove (hung->watch);
  g_test_message ("%u of %u looks found this computer stale or said \"%s\"", hung->n_stale, hung->n_looks,
                  hung->said != NULL ? hung->said : "");
  /* Before: "Cannot be read", the rows stale, within 3 s of the start. */
  g_assert_cmpuint (hung->n_looks, >, 100);
  g_assert_cmpuint (hung->n_stale, ==, 0);
  g_assert_null (hung->said);
}

static void
test_run_beside_hung (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_two_asks);
  g_autofree char *db = fresh_default_database ();
  Silent silent = { 0 };
  Hung hung = { fixture };

  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    g_free (pd_test_add_session (store, "An older local session", "plandeck"));
  }
  silent_start (&silent);
  configure (&silent);
  g_assert_cmpint (pd_test_run_app (NULL, check_run_beside_hung, &hung, NULL), ==, 0);
  g_free (hung.said);
  silent_stop (&silent);
  pd_test_reset_settings ();
}

/* --- the main loop held past the deadline ---------------------------------- */

typedef struct
{
  PdSource *local;
  char     *said;      /* (nullable) the error a listing gave this computer */
  gboolean  done;
  gboolean  stale;
  guint     n_sessions;
} Stalled;

static void
on_listed_local (PdMultiSource *multi,
                 PdSource      *source,
                 const GError  *error,
                 Stalled       *stalled)
{
  if (source == stalled->local && error != NULL && stalled->said == NULL)
    stalled->said = g_strdup (error->message);
}

static void
on_stalled_listed (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Stalled *stalled = user_data;
  g_autoptr(PdSessionPage) page = pd_source_list_sessions_finish (PD_SOURCE (object), result, NULL);

  stalled->stale = pd_multi_source_is_stale (PD_MULTI_SOURCE (object), stalled->local);
  stalled->n_sessions = page != NULL ? page->sessions->len : 0;
  stalled->done = TRUE;
}

static gboolean
stalled_done (gpointer data)
{
  return ((Stalled *) data)->done;
}

/* The window's listing asked, then its main loop held 3.5 s (a busy
 * machine, a long frame): this computer's answer, in long before, and the
 * listing's 3 s deadline are due together.  Before: the deadline came
 * first, and this computer's rows were listed stale, "did not answer
 * within 3.0 s" (its database read in milliseconds); the sidebar said
 * "Cannot be read".  The hung endpoint alone is left out. */
static void
check_stall_beside_hung (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  PdSource *listed = pd_session_list_get_source (window->session_list);
  Stalled stalled = { local_source (window) };
  g_autofree char *state = NULL;
  gulong handler;

  g_assert_true (PD_IS_MULTI_SOURCE (listed));
  pd_test_wait_until (silent_away, window, "the hung endpoint said unreachable");
  handler = g_signal_connect (listed, "listed", G_CALLBACK (on_listed_local), &stalled);
  /* Its listing is asked again as a listing of the window is: from the
   * top, the endpoint asked anew (not left out from a listing before). */
  g_signal_emit_by_name (silent_source (window), "changed");
  pd_source_list_sessions_async (listed, NULL, FALSE, 0, 50, NULL, on_stalled_listed, &stalled);
  g_usleep (3500 * 1000);
  pd_test_wait_until (stalled_done, &stalled, "the listing after the held main loop");
  pd_test_spin (500);
  g_signal_handler_disconnect (listed, handler);
  state = pd_source_sidebar_dup_state (window->source_sidebar, stalled.local, NULL);
  g_test_message ("this computer after the held main loop: %u sessions, stale %d, said \"%s\", sidebar \"%s\"",
                  stalled.n_sessions, stalled.stale, stalled.said != NULL ? stalled.said : "",
                  state != NULL ? state : "");
  g_assert_null (stalled.said);
  g_assert_false (stalled.stale);
  g_assert_cmpuint (stalled.n_sessions, ==, 1);
  g_assert_null (state);
  g_free (stalled.said);
}

static void
test_stall_beside_hung (void)
{
  g_autofree char *db = fresh_default_database ();
  Silent silent = { 0 };

  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    g_free (pd_test_add_session (store, "An older local session", "plandeck"));
  }
  silent_start (&silent);
  configure (&silent);
  g_assert_cmpint (pd_test_run_app (NULL, check_stall_beside_hung, NULL, NULL), ==, 0);
  silent_stop (&silent);
  pd_test_reset_settings ();
}

/* --- one word for the endpoint's state ------------------------------------- */

typedef struct
{
  PdWindow *window;
  gboolean  away;
  gboolean  noted_then;   /* "Still reading…" shown as the sidebar said "Unreachable" */
  gboolean  noted_before; /* … and while it was connecting */
} Words;

static gboolean
still_reading_shown (PdWindow *window)
{
  GtkWidget *note = pd_test_find_label (GTK_WIDGET (window), "Still reading the sessions of Silent box…");

  return note != NULL && gtk_widget_get_visible (note);
}

/* Connected after the Overview's own handler: what the window shows in
 * the same turn as the sidebar's "Unreachable". */
static void
on_silent_state (PdRemoteSource *source,
                 GParamSpec     *pspec,
                 Words          *words)
{
  g_autofree char *state = NULL;

  if (pd_remote_source_get_state (source) != PD_REMOTE_OFFLINE || words->away)
    return;
  state = pd_source_sidebar_dup_state (words->window->source_sidebar, PD_SOURCE (source), NULL);
  g_assert_cmpstr (state, ==, "Unreachable");
  words->away = TRUE;
  words->noted_then = still_reading_shown (words->window);
}

static gboolean
words_away (gpointer data)
{
  return ((Words *) data)->away;
}

/* The sidebar says the endpoint is "Unreachable": the Overview no longer
 * says it is still reading its sessions.  Before: "Still reading the
 * sessions of Silent box…" stayed until the endpoint's first list timed
 * out (at 26 s the report still saw it; 16 s after "Unreachable" here the
 * list's own timeout). */
static void
check_one_word (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  Words words = { window };
  PdSource *silent = silent_source (window);
  gulong handler;

  g_assert_true (PD_IS_REMOTE_SOURCE (silent));
  g_assert_cmpint (pd_remote_source_get_state (PD_REMOTE_SOURCE (silent)), ==, PD_REMOTE_CONNECTING);
  handler = g_signal_connect (silent, "notify::state", G_CALLBACK (on_silent_state), &words);
  words.noted_before = still_reading_shown (window);
  pd_test_wait_until (words_away, &words, "the hung endpoint said unreachable");
  g_signal_handler_disconnect (silent, handler);
  g_test_message ("\"Still reading…\" while connecting: %d; as \"Unreachable\" came: %d",
                  words.noted_before, words.noted_then);
  pd_test_screenshot (GTK_WIDGET (window), "hung-endpoint-unreachable-overview");
  g_assert_false (words.noted_then);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (still_reading_shown (window));
}

static void
test_one_word (void)
{
  g_autofree char *db = fresh_default_database ();
  Silent silent = { 0 };

  g_object_unref (pd_test_open_store (db));
  silent_start (&silent);
  configure (&silent);
  g_assert_cmpint (pd_test_run_app (NULL, check_one_word, NULL, NULL), ==, 0);
  silent_stop (&silent);
  pd_test_reset_settings ();
}

/* --- the hung endpoint chosen ------------------------------------------------- */

static gboolean
silent_connecting_listed (gpointer data)
{
  PdWindow *window = data;
  PdSource *silent = silent_source (window);

  return silent != NULL && PD_IS_REMOTE_SOURCE (silent) &&
         pd_source_sidebar_get_selected (window->source_sidebar) == silent;
}

/* Chosen in the sidebar while it connects: once the sidebar says
 * "Unreachable", the page says so too.  Before: "Reading the Sessions"
 * spun until the list's own request timed out (about 31 s in the report,
 * while the row said "Unreachable" from 7 s). */
static void
check_chosen_hung (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  PdSource *silent = silent_source (window);
  g_autofree char *state = NULL;
  const char *page;

  g_assert_true (PD_IS_REMOTE_SOURCE (silent));
  pd_source_sidebar_select (window->source_sidebar, silent);
  pd_test_wait_until (silent_connecting_listed, window, "the hung endpoint chosen");
  g_test_message ("chosen while %s, page %s",
                  pd_remote_source_get_state (PD_REMOTE_SOURCE (silent)) == PD_REMOTE_CONNECTING ? "connecting" : "not connecting",
                  gtk_stack_get_visible_child_name (window->content_stack));
  pd_test_wait_until (silent_away, window, "the hung endpoint said unreachable");
  pd_test_flush (GTK_WIDGET (window));
  state = pd_source_sidebar_dup_state (window->source_sidebar, silent, NULL);
  page = gtk_stack_get_visible_child_name (window->content_stack);
  g_test_message ("the sidebar says %s, the page is %s", state, page);
  pd_test_screenshot (GTK_WIDGET (window), "hung-endpoint-chosen");
  g_assert_cmpstr (state, ==, "Unreachable");
  g_assert_cmpstr (page, ==, "error");
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "Silent box"));
}

static void
test_chosen_hung (void)
{
  g_autofree char *db = fresh_default_database ();
  Silent silent = { 0 };

  g_object_unref (pd_test_open_store (db));
  silent_start (&silent);
  configure (&silent);
  g_assert_cmpint (pd_test_run_app (NULL, check_chosen_hung, NULL, NULL), ==, 0);
  silent_stop (&silent);
  pd_test_reset_settings ();
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/hung-endpoint/run-beside-hung", test_run_beside_hung);
  g_test_add_func ("/pd/ui/hung-endpoint/stall-beside-hung", test_stall_beside_hung);
  g_test_add_func ("/pd/ui/hung-endpoint/one-word", test_one_word);
  g_test_add_func ("/pd/ui/hung-endpoint/chosen-hung", test_chosen_hung);

  return g_test_run ();
}

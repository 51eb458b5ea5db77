/* test-runs-remote.c: windows on a serve endpoint
 *
 * The real application opened on a real `serve` (its sessions listed;
 * tokens are test-remote-token-window.c's), and runs there: approved in
 * the window's dialog, stopped, followed when started elsewhere, and a new
 * session.  Questions the window guards (masked, control characters) are
 * test-runs-remote-guard.c's.  The runs use the replay provider on a temporary database and
 * folder (pd-test-runs.h, as test-runs.c's).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-runs-remote"

#include "config.h"

#include "pd-test-runs-remote.h"
#include "../pd-test-count-proxy.h"

/* --- a remote window -------------------------------------------------------- */

static gboolean
remote_listed (gpointer data)
{
  PdSessionList *list = session_list (data);

  return pd_session_list_get_loaded (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == 2;
}

static void
on_finished_message (PdRunController *runs,
                     int              status,
                     const char      *message,
                     char           **slot)
{
  *slot = g_strdup (message ? message : "");
}

static gboolean
string_set (gpointer data)
{
  return *(char **) data != NULL;
}

static void
check_remote_lists (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autofree char *message = NULL;

  pd_test_wait_until (remote_listed, window, "the remote sessions to be listed");
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "Remote task one"));

  /* This server runs nothing (no engine): continuing a session says so. */
  g_assert_nonnull (runs);
  g_signal_connect (runs, "finished", G_CALLBACK (on_finished_message), &message);
  send_from_window (window, user_data, "Go on");
  pd_test_wait_until (string_set, &message, "the run to fail");
  g_assert_nonnull (strstr (message, "does not run sessions for this app"));
  g_assert_nonnull (strstr (message, "this server does not run prompts"));
  g_assert_false (pd_run_controller_get_running (runs));
  /* The message the endpoint did not take is back in the message bar. */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (pd_test_find_first (GTK_WIDGET (window), is_message_entry, NULL))),
                   ==, "Go on");
  /* The token is not part of the shown URL. */
  g_assert_null (strstr (pd_window_get_remote_url (window), "token"));
  g_assert_null (strstr (gtk_window_get_title (GTK_WINDOW (window)), "token"));
}

static void
test_remote_window_lists_sessions (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "served.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *id1 = pd_test_add_session (store, "Remote task one", "plandeck");
  g_autofree char *id2 = pd_test_add_session (store, "Remote task two", "plandeck");
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *remembered_token = NULL;
  g_auto(GStrv) recent = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  server = pd_server_new (db);
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, "test-token");
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);
  url = pd_server_dup_start_url (server);
  g_assert_nonnull (strstr (url, "token="));
  args[1] = url;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_lists, id1, NULL), ==, 0);
  pd_server_stop (server);

  /* The token is never kept in GSettings (the keyring keeps it, see
   * test-secrets.c), and the recent source has none. */
  settings = g_settings_new (APP_ID);
  remembered_token = g_settings_get_string (settings, "endpoint-token");
  g_assert_cmpstr (remembered_token, ==, "");
  recent = g_settings_get_strv (settings, "recent-sources");
  g_assert_null (strstr (recent[0], "token"));
}


/* --- runs on a real serve ---------------------------------------------------- */

/* A session of the endpoint continued from the window: the write asks in
 * the window's own approval dialog, "Approve Once" lets it run there, and
 * the run ends completed with the file written and the answer stored. */
static void
check_remote_run_approved (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  AdwMessageDialog *dialog;
  GtkWidget *command;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) results = NULL;

  g_assert_nonnull (runs);
  g_assert_true (pd_run_controller_is_remote (runs));
  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  send_from_window (window, remote->id, "Write two files");

  dialog = pd_test_wait_for_dialog ("the endpoint's first approval question");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Allow This Change?");
  command = pd_test_find_first (GTK_WIDGET (dialog), is_approval_command, NULL);
  g_assert_nonnull (command);
  /* What the write puts in the file, as a local run's dialog shows it:
   * the endpoint sends its preview. */
  {
    g_autofree char *shown = pd_test_approval_text (GTK_WIDGET (dialog));

    g_autofree char *change = g_strdup_printf ("In %s:\none.txt\n(a new file)\n+ 1", fixture->project);

    g_assert_cmpstr (shown, ==, change);
    g_assert_cmpuint (pd_test_assert_approval_rows (GTK_WIDGET (dialog), NULL), ==, 4);
  }
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (command)));
  g_assert_false (project_file_exists (fixture, "one.txt"));
  /* The run bar says it waits, alone: "Working…" stood under it (tried as
   * a new user would). */
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Waiting for approval: write_file", FALSE), ==, 1);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Working…", FALSE), ==, 0);
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the endpoint's second approval question");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog), "two.txt"));
  respond (dialog, "once");

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_null (fixture->message);
  g_assert_false (project_file_exists (fixture, "one.txt"));
  g_assert_true (project_file_exists (fixture, "two.txt"));
  g_assert_cmpstr (pd_run_controller_get_session_id (runs), ==, remote->id);

  /* What the server stored: the refusal and the write, in order. */
  messages = load_messages (fixture, remote->id);
  results = tool_results (messages);
  g_assert_cmpuint (results->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (results, 0), "denied"));
  g_assert_null (strstr (g_ptr_array_index (results, 1), "denied"));
}

static void
test_remote_run_approved (void)
{
  run_remote_case (check_remote_run_approved, NULL);
}

/* --- plan mode on an endpoint --------------------------------------------------- */

static const char *const replay_plan =
  "{\"label\": \"test: a plan, then its write\", \"turns\": ["
  " {\"content\": \"Reading.\", \"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}]},"
  " {\"content\": \"The plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Say hello\\n\\n1. Write hello.txt\\n\"}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"hello.txt\", \"content\": \"hello\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

/* Found as a new user would: `/plan …` from a window on an endpoint could
 * never leave plan mode (the endpoint had no one to review the plan).  The
 * plan now comes to the window's own plan review dialog: Keep Planning
 * sends the feedback typed (the model reads it, the write is refused in
 * plan mode), Approve leaves plan mode (the plan saved, the write asked and
 * run). */
static void
check_remote_plan_reviewed (PdApplication *app,
                            PdWindow      *window,
                            gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autofree char *plans = g_build_filename (fixture->project, ".plandeck", "plans", NULL);
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) results = NULL;
  AdwMessageDialog *dialog;
  GtkWidget *feedback;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  send_from_window (window, remote->id, "/plan Say hello");

  dialog = pd_test_wait_for_dialog ("the endpoint's plan review");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Review the Plan");
  g_assert_cmpstr (g_object_get_data (G_OBJECT (dialog), "markdown"), ==, "# Say hello\n\n1. Write hello.txt\n");
  feedback = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  g_assert_nonnull (feedback);
  gtk_editable_set_text (GTK_EDITABLE (feedback), "Also say goodbye");
  respond (dialog, "keep");

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_false (project_file_exists (fixture, "hello.txt"));
  g_assert_false (g_file_test (plans, G_FILE_TEST_IS_DIR));
  messages = load_messages (fixture, remote->id);
  results = tool_results (messages);
  g_assert_cmpuint (results->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (results, 1), "their feedback: Also say goodbye"));
  g_assert_nonnull (strstr (g_ptr_array_index (results, 2), "plan mode is active"));

  /* The session is still planning: the next plan approved, its write
   * asked as any change. */
  fixture->finished = FALSE;
  send_from_window (window, remote->id, "Try again");
  dialog = pd_test_wait_for_dialog ("the endpoint's second plan review");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Review the Plan");
  respond (dialog, "approve");
  dialog = pd_test_wait_for_dialog ("the write's approval question");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Allow This Change?");
  respond (dialog, "once");

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_true (project_file_exists (fixture, "hello.txt"));
  g_assert_true (g_file_test (plans, G_FILE_TEST_IS_DIR));
}

static void
test_remote_plan_reviewed (void)
{
  run_remote_case_of (check_remote_plan_reviewed, NULL, replay_plan);
}

/* --- an endpoint that names a change by its file alone ------------------------ */

/* A pass-through to a real serve that drops "approval.preview" from what
 * it answers, as odek's wire does: the dialog gets the file's name and no
 * change.  (Its event stream does not pass: the window polls.) */
typedef struct
{
  SoupServer  *server;
  SoupSession *session;
  char        *upstream;   /* scheme://host:port */
} StripProxy;

static void
copy_header (const char *name,
             const char *value,
             gpointer    user_data)
{
  if (g_ascii_strcasecmp (name, "Host") != 0 && g_ascii_strcasecmp (name, "Connection") != 0 &&
      g_ascii_strcasecmp (name, "Content-Length") != 0 && g_ascii_strcasecmp (name, "Accept-Encoding") != 0 &&
      g_ascii_strcasecmp (name, "Content-Type") != 0 && g_ascii_strcasecmp (name, "Transfer-Encoding") != 0 &&
      g_ascii_strcasecmp (name, "Content-Encoding") != 0)
    soup_message_headers_append (user_data, name, value);
}

static void
on_client_gone (SoupServerMessage *msg)
{
  g_object_set_data (G_OBJECT (msg), "pd-gone", GINT_TO_POINTER (1));
}

static void
on_upstream_read (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SoupServerMessage) msg = user_data;
  SoupMessage *upstream = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *type;
  gsize size = 0;
  const char *data;

  /* The window gave up on it (a poll replaced, a window closed): libsoup
   * 3.2 has no I/O left to unpause, and says so critically. */
  if (g_object_get_data (G_OBJECT (msg), "pd-gone") != NULL)
    return;
  if (body == NULL)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_BAD_GATEWAY, NULL);
      soup_server_message_unpause (msg);
      return;
    }
  soup_message_headers_foreach (soup_message_get_response_headers (upstream), copy_header,
                                soup_server_message_get_response_headers (msg));
  type = soup_message_headers_get_content_type (soup_message_get_response_headers (upstream), NULL);
  data = g_bytes_get_data (body, &size);
  if (g_str_has_prefix (g_uri_get_path (soup_server_message_get_uri (msg)), "/api/runs/") &&
      json_parser_load_from_data (parser, data, size, NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      JsonObject *run = json_node_get_object (json_parser_get_root (parser));
      g_autofree char *text = NULL;

      if (json_object_has_member (run, "approval") &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (run, "approval")))
        json_object_remove_member (json_object_get_object_member (run, "approval"), "preview");
      text = json_to_string (json_parser_get_root (parser), FALSE);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, text, strlen (text));
    }
  else
    {
      soup_server_message_set_response (msg, type != NULL ? type : "application/octet-stream",
                                        SOUP_MEMORY_COPY, data, size);
    }
  soup_server_message_set_status (msg, soup_message_get_status (upstream), NULL);
  soup_server_message_unpause (msg);
}

static void
strip_proxy_handle (SoupServer        *server,
                    SoupServerMessage *msg,
                    const char        *path,
                    GHashTable        *query,
                    gpointer           user_data)
{
  StripProxy *proxy = user_data;
  GUri *uri = soup_server_message_get_uri (msg);
  g_autofree char *url = g_strconcat (proxy->upstream, path,
                                      g_uri_get_query (uri) ? "?" : "",
                                      g_uri_get_query (uri) ? g_uri_get_query (uri) : "", NULL);
  g_autoptr(SoupMessage) upstream = soup_message_new (soup_server_message_get_method (msg), url);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);

  g_assert_nonnull (upstream);
  /* The event stream would hold a connection open for ever: refused, the
   * window polls (what it would do on odek's wire too). */
  if (g_str_has_prefix (path, "/api/events/stream"))
    {
      soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  soup_message_headers_foreach (soup_server_message_get_request_headers (msg), copy_header,
                                soup_message_get_request_headers (upstream));
  if (g_bytes_get_size (bytes) > 0)
    soup_message_set_request_body_from_bytes (upstream,
                                              soup_message_headers_get_content_type (soup_server_message_get_request_headers (msg), NULL),
                                              bytes);
  soup_server_message_pause (msg);
  g_signal_connect (msg, "disconnected", G_CALLBACK (on_client_gone), NULL);
  g_signal_connect (msg, "finished", G_CALLBACK (on_client_gone), NULL);
  soup_session_send_and_read_async (proxy->session, upstream, G_PRIORITY_DEFAULT, NULL,
                                    on_upstream_read, g_object_ref (msg));
}

/* Starts @proxy in front of @served_url; returns the URL to open instead. */
static char *
strip_proxy_start (StripProxy *proxy,
                   const char *served_url)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) served = g_uri_parse (served_url, G_URI_FLAGS_ENCODED, &error);
  g_autoslist(GUri) uris = NULL;
  g_autofree char *base = NULL;

  g_assert_no_error (error);
  proxy->upstream = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (served));
  proxy->session = soup_session_new_with_options ("max-conns-per-host", 8, NULL);
  proxy->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (proxy->server, NULL, strip_proxy_handle, proxy, NULL);
  g_assert_true (soup_server_listen_local (proxy->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (proxy->server);
  base = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  return g_strconcat (base, g_uri_get_path (served),
                      g_uri_get_query (served) ? "?" : "",
                      g_uri_get_query (served) ? g_uri_get_query (served) : "", NULL);
}

static void
strip_proxy_stop (StripProxy *proxy)
{
  soup_server_disconnect (proxy->server);
  soup_session_abort (proxy->session);
  g_clear_object (&proxy->server);
  g_clear_object (&proxy->session);
  g_clear_pointer (&proxy->upstream, g_free);
}

/* A write whose change the endpoint did not send: the dialog offers Deny
 * alone and says why; nothing is written. */
static void
check_remote_change_not_sent (PdApplication *app,
                              PdWindow      *window,
                              gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  AdwMessageDialog *dialog;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  send_from_window (window, remote->id, "Write two files");

  for (guint i = 0; i < 2; i++)
    {
      dialog = pd_test_wait_for_dialog ("the endpoint's approval question");
      g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Allow This Change?");
      g_assert_true (adw_message_dialog_has_response (dialog, "deny"));
      g_assert_false (adw_message_dialog_has_response (dialog, "once"));
      g_assert_false (adw_message_dialog_has_response (dialog, "always"));
      g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_button_labelled, "_Approve Once"));
      g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "change itself was not sent"));
      g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), i == 0 ? "one.txt" : "two.txt"));
      respond (dialog, "deny");
    }

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
  g_assert_false (project_file_exists (fixture, "one.txt"));
  g_assert_false (project_file_exists (fixture, "two.txt"));
}

static void
test_remote_change_not_sent (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *id = pd_test_add_session (store, "Remote work", "plandeck");
  RemoteCase remote = { fixture, id };
  PdTestServed served = { fixture };
  StripProxy proxy = { 0 };
  g_autofree char *url = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  pd_test_served_start (&served);
  url = strip_proxy_start (&proxy, served.url);
  args[1] = url;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_change_not_sent, &remote, NULL), ==, 0);
  strip_proxy_stop (&proxy);
  pd_test_served_clear (&served);
}

/* --- a masked command ------------------------------------------------------------- */

/* Stop while the endpoint's run waits on the window: the run is cancelled
 * there, its question goes away, nothing is written. */
static void
check_remote_run_stopped (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  send_from_window (window, remote->id, "Write two files");
  pd_test_wait_for_dialog ("the endpoint's approval question");
  g_assert_true (action_enabled (window, "win.stop-run"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop-run", NULL));

  pd_test_wait_until (run_finished, fixture, "the remote run to stop");
  g_assert_cmpint (fixture->status, ==, PD_RUN_CANCELLED);
  g_assert_null (pd_test_open_message_dialog ());
  g_assert_false (project_file_exists (fixture, "one.txt"));
}

static void
test_remote_run_stopped (void)
{
  run_remote_case (check_remote_run_stopped, NULL);
}

typedef struct
{
  PdTestServed *served;
  const char   *id;
} DownCase;

static gboolean
entry_holds_unsent (gpointer data)
{
  GtkWidget *entry = pd_test_find_first (data, is_message_entry, NULL);

  return g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (entry)), "hello while it is down") == 0;
}

/* A message sent while serve is gone (killed after the window listed its
 * sessions) fails to start a run, and is back in the message bar: it was
 * lost with the error (tried as a new user would). */
static void
check_message_kept_while_down (PdApplication *app,
                               PdWindow      *window,
                               gpointer       user_data)
{
  DownCase *down = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autofree char *message = NULL;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished_message), &message);
  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  g_assert_true (pd_session_list_select (session_list (window), down->id));
  pd_test_wait_until (send_enabled, window, "the message bar to offer sending");
  pd_test_served_stop (down->served);
  send_from_window (window, down->id, "hello while it is down");
  pd_test_wait_until (string_set, &message, "the run not to start");
  g_test_message ("the run's end: %s", message);
  pd_test_wait_until (entry_holds_unsent, window, "the unsent message back in the message bar");
}

static void
test_remote_message_kept_while_down (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *id = pd_test_add_session (store, "Remote work", "plandeck");
  PdTestServed served = { fixture };
  DownCase down = { &served, id };
  const char *args[] = { "--remote", NULL, NULL };

  pd_test_served_start (&served);
  args[1] = served.url;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_message_kept_while_down, &down, NULL), ==, 0);
  pd_test_served_clear (&served);
}

static gboolean
is_load_error_page (GtkWidget     *widget,
                    gconstpointer  data)
{
  return ADW_IS_STATUS_PAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (widget)), "Could Not Load This Session") == 0;
}

static gboolean
load_error_shown (gpointer window)
{
  return pd_test_find_first (window, is_load_error_page, NULL) != NULL;
}

/* A session opened while serve is gone: its page said "Could Not Load This
 * Session" alone, no reason and no Retry (tried as a new user would). */
static void
check_load_error_says_why (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  DownCase *down = user_data;
  GtkWidget *page;

  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  pd_test_served_stop (down->served);
  g_assert_true (pd_session_list_select (session_list (window), down->id));
  pd_test_wait_until (load_error_shown, window, "the session's error page");
  page = pd_test_find_first (GTK_WIDGET (window), is_load_error_page, NULL);
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (page)), "connection was refused"));
  g_assert_cmpuint (pd_test_count_shown_labels (page, "Retry", FALSE), ==, 1);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "session-load-error-offline");
}

static void
test_remote_load_error_says_why (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *id = pd_test_add_session (store, "Older work", "plandeck");
  g_autofree char *newer = pd_test_add_session (store, "Newer work", "plandeck");
  PdTestServed served = { fixture };
  DownCase down = { &served, id };
  const char *args[] = { "--remote", NULL, NULL };

  pd_test_served_start (&served);
  args[1] = served.url;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_load_error_says_why, &down, NULL), ==, 0);
  pd_test_served_clear (&served);
}

/* A run going on at the endpoint that no open window started (its window
 * was closed, or another client started it): showing its session follows
 * it, its question comes to this window's dialog, and it ends here. */
static void
check_remote_run_followed (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  AdwMessageDialog *dialog;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  g_assert_true (pd_session_list_select (session_list (window), remote->id));

  dialog = pd_test_wait_for_dialog ("the running session's first question");
  g_assert_true (pd_run_controller_get_running (runs));
  g_assert_true (action_enabled (window, "win.stop-run"));
  respond (dialog, "once");
  dialog = pd_test_wait_for_dialog ("the running session's second question");
  respond (dialog, "once");

  pd_test_wait_until (run_finished, fixture, "the followed run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_true (project_file_exists (fixture, "one.txt"));
  g_assert_true (project_file_exists (fixture, "two.txt"));
}

static void
test_remote_run_followed (void)
{
  run_remote_case (check_remote_run_followed, "Write two files");
}

/* Answers the question the run of @id asks now, as another client would
 * (odek's page, another window: POST /api/runs/ID/approval with the
 * session's token), never through this window.  Returns its id. */
static char *
answer_elsewhere (const char *url,
                  const char *id,
                  gboolean    approve)
{
  g_autoptr(SoupSession) http = soup_session_new ();
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  g_autoptr(GHashTable) params = g_uri_parse_params (g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE, NULL);
  const char *token = g_hash_table_lookup (params, "token");
  g_autofree char *record_url = g_strdup_printf ("http://127.0.0.1:%d/api/sessions/%s", g_uri_get_port (uri), id);
  g_autofree char *runs_url = g_strdup_printf ("http://127.0.0.1:%d/api/runs", g_uri_get_port (uri));
  g_autoptr(SoupMessage) get = soup_message_new ("GET", record_url);
  g_autoptr(SoupMessage) list = soup_message_new ("GET", runs_url);
  g_autoptr(SoupMessage) post = NULL;
  g_autoptr(GBytes) got = NULL, listed = NULL, posted = NULL, request = NULL;
  g_autoptr(JsonNode) runs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *answer_url = NULL;
  g_autofree char *body = NULL;
  const char *session_token;
  JsonArray *array;
  char *approval = NULL;

  soup_message_headers_replace (soup_message_get_request_headers (get), "X-Odek-Ws-Token", token);
  got = soup_session_send_and_read (http, get, NULL, &error);
  g_assert_no_error (error);
  session_token = soup_message_headers_get_one (soup_message_get_response_headers (get), "X-Session-Token");
  g_assert_nonnull (session_token);

  soup_message_headers_replace (soup_message_get_request_headers (list), "X-Odek-Ws-Token", token);
  listed = soup_session_send_and_read (http, list, NULL, &error);
  g_assert_no_error (error);
  runs = json_from_string (g_bytes_get_data (listed, NULL), &error);
  g_assert_no_error (error);
  array = json_object_get_array_member (json_node_get_object (runs), "runs");
  for (guint i = 0; i < json_array_get_length (array) && approval == NULL; i++)
    {
      JsonObject *run = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (run, "session_id"), id) == 0 &&
          json_object_has_member (run, "approval"))
        {
          approval = g_strdup (json_object_get_string_member (json_object_get_object_member (run, "approval"), "id"));
          answer_url = g_strdup_printf ("http://127.0.0.1:%d/api/runs/%s/approval", g_uri_get_port (uri),
                                        json_object_get_string_member (run, "id"));
        }
    }
  g_assert_nonnull (approval);

  body = g_strdup_printf ("{\"id\":\"%s\",\"action\":\"%s\"}", approval, approve ? "approve" : "deny");
  request = g_bytes_new (body, strlen (body));
  post = soup_message_new ("POST", answer_url);
  soup_message_headers_replace (soup_message_get_request_headers (post), "X-Odek-Ws-Token", token);
  soup_message_headers_replace (soup_message_get_request_headers (post), "X-Session-Token", session_token);
  soup_message_set_request_body_from_bytes (post, "application/json", request);
  posted = soup_session_send_and_read (http, post, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (post), ==, 200);
  return approval;
}

/* The dialog shown asks about @data's file. */
static gboolean
dialog_asks_about (gpointer data)
{
  AdwMessageDialog *dialog = pd_test_open_message_dialog ();
  GtkWidget *command = dialog != NULL ? pd_test_find_first (GTK_WIDGET (dialog), is_approval_command, NULL) : NULL;

  return command != NULL && pd_test_approval_text_contains (GTK_WIDGET (dialog), data);
}

static gboolean
shown_item_running (gpointer data)
{
  PdSessionItem *item = pd_session_list_get_selected_item (session_list (data));

  return item != NULL && pd_session_item_get_running (item);
}

/* The run a window follows, its questions answered elsewhere: the dialog
 * of each goes when it is answered there, and the next question comes to
 * the window's dialog (the Now page of the endpoint's session). */
static void
answer_both_elsewhere (PdWindow   *window,
                       RemoteCase *remote)
{
  RunFixture *fixture = remote->fixture;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  pd_test_wait_until (dialog_asks_about, (gpointer) "one.txt", "the running session's first question");
  first = answer_elsewhere (remote->url, remote->id, TRUE);
  pd_test_wait_until (dialog_asks_about, (gpointer) "two.txt", "the second question, the first answered elsewhere");
  /* The session list has it running meanwhile (it shows no question). */
  pd_test_wait_until (shown_item_running, window, "the session's row to say it runs");
  second = answer_elsewhere (remote->url, remote->id, FALSE);
  g_assert_cmpstr (first, !=, second);

  pd_test_wait_until (run_finished, fixture, "the followed run to finish");
  g_assert_null (pd_test_open_message_dialog ());
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_true (project_file_exists (fixture, "one.txt"));
  g_assert_false (project_file_exists (fixture, "two.txt"));
}

/* Shown after another client started the run (the window follows it). */
static void
check_remote_run_answered_elsewhere (PdApplication *app,
                                     PdWindow      *window,
                                     gpointer       user_data)
{
  RemoteCase *remote = user_data;

  g_signal_connect (pd_window_get_run_controller (window), "finished", G_CALLBACK (on_finished), remote->fixture);
  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  g_assert_true (pd_session_list_select (session_list (window), remote->id));
  answer_both_elsewhere (window, remote);
}

static void
test_remote_run_answered_elsewhere (void)
{
  run_remote_case (check_remote_run_answered_elsewhere, "Write two files");
}

/* Shown before another client starts the run: the window follows it once
 * the endpoint says the session runs. */
static void
check_remote_run_started_while_shown (PdApplication *app,
                                      PdWindow      *window,
                                      gpointer       user_data)
{
  RemoteCase *remote = user_data;

  g_signal_connect (pd_window_get_run_controller (window), "finished", G_CALLBACK (on_finished), remote->fixture);
  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  g_assert_true (pd_session_list_select (session_list (window), remote->id));
  pd_test_flush (GTK_WIDGET (window));
  start_run_elsewhere (remote->url, remote->id, "Write two files");
  pd_test_wait_until (dialog_asks_about, (gpointer) "one.txt", "the first question of the run started elsewhere");
  pd_test_screenshot_sizes (GTK_WINDOW (pd_test_open_message_dialog ()), "remote-question-started-while-shown");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "remote-session-started-while-shown");
  answer_both_elsewhere (window, remote);
}

static void
test_remote_run_started_while_shown (void)
{
  run_remote_case (check_remote_run_started_while_shown, NULL);
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

/* A run the window follows, waiting on its question: the window asks
 * nothing more of it (GET /api/runs/ID, GET /api/runs) until the
 * endpoint's stream says it was answered (then the next question comes at
 * once) or ends, and asks again only every few seconds in case an event was
 * lost.  Counted at a pass-through in front of the real serve over 4 s of
 * the question on screen, 2 s after it came (the event stream opening
 * meanwhile has everything read again): 16 before (it was asked every
 * 250 ms, four requests a second for each window following a run). */
static void
check_remote_run_not_polled (PdApplication *app,
                             PdWindow      *window,
                             gpointer       user_data)
{
  RemoteCase *remote = user_data;
  gboolean settled = FALSE, waited = FALSE;
  guint from, asked;

  g_signal_connect (pd_window_get_run_controller (window), "finished", G_CALLBACK (on_finished), remote->fixture);
  pd_test_wait_until (remote_one_listed, window, "the endpoint's sessions to be listed");
  g_assert_true (pd_session_list_select (session_list (window), remote->id));
  pd_test_wait_until (dialog_asks_about, (gpointer) "one.txt", "the running session's first question");

  g_timeout_add (2000, set_flag, &settled);
  pd_test_wait_until (flag_set, &settled, "2 s of the question on screen");
  from = remote->proxy->requests->len;
  g_timeout_add (4000, set_flag, &waited);
  pd_test_wait_until (flag_set, &waited, "4 s more");
  asked = pd_test_count_proxy_count (remote->proxy, from, "GET /api/runs");
  g_test_message ("the run asked for %u times in 4 s of %u requests", asked, remote->proxy->requests->len - from);
  for (guint i = from; i < remote->proxy->requests->len; i++)
    g_test_message ("  %s", (char *) g_ptr_array_index (remote->proxy->requests, i));
  g_assert_cmpuint (asked, <=, 1);

  /* Still told at once of its answer, its next question and its end. */
  answer_both_elsewhere (window, remote);
}

static void
test_remote_run_not_polled (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *id = pd_test_add_session (store, "Remote work", "plandeck");
  g_autoptr(PdTestCountProxy) proxy = NULL;
  g_autofree char *url = NULL;
  RemoteCase remote = { fixture, id };
  PdTestServed served = { fixture };
  const char *args[] = { "--remote", NULL, NULL };

  pd_test_served_start (&served);
  proxy = pd_test_count_proxy_new ((guint16) served.port);
  url = pd_test_count_proxy_url (proxy, served.url);
  remote.url = served.url;
  remote.proxy = proxy;
  start_run_elsewhere (served.url, id, "Write two files");
  args[1] = url;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_run_not_polled, &remote, NULL), ==, 0);
  pd_test_count_proxy_stop (proxy);
  pd_test_served_clear (&served);
}

static gboolean
new_session_enabled (gpointer data)
{
  return gtk_widget_is_sensitive (pd_test_find_action_button (GTK_WIDGET (data), "win.new-session")) &&
         remote_one_listed (data);
}

/* New Session on an endpoint: the dialog asks for the task only (the
 * server has its folder and model), the run starts there, asks here, and
 * its new session is selected. */
static void
check_remote_new_session (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  PdNewSessionDialog *dialog;
  GtkWidget *folder;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  pd_test_wait_until (new_session_enabled, window, "New Session to be offered");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-session", NULL));
  dialog = PD_NEW_SESSION_DIALOG (pd_test_find_toplevel (PD_TYPE_NEW_SESSION_DIALOG));
  g_assert_nonnull (dialog);
  pd_test_flush (GTK_WIDGET (dialog));
  folder = pd_test_find_label (GTK_WIDGET (dialog), "Working Directory");
  g_assert_true (folder == NULL || !gtk_widget_get_mapped (folder));
  g_assert_false (pd_new_session_dialog_activate_start (dialog));
  pd_new_session_dialog_set_task (dialog, "Write two files");
  g_assert_true (pd_new_session_dialog_activate_start (dialog));

  respond (pd_test_wait_for_dialog ("the new remote session's first question"), "once");
  respond (pd_test_wait_for_dialog ("the new remote session's second question"), "once");
  pd_test_wait_until (run_finished, fixture, "the new remote run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_nonnull (pd_run_controller_get_session_id (runs));
  g_assert_cmpstr (pd_run_controller_get_session_id (runs), !=, remote->id);
  pd_test_wait_until (run_session_selected, window, "the new session to be selected");
  g_assert_true (project_file_exists (fixture, "one.txt"));
  g_assert_true (project_file_exists (fixture, "two.txt"));
}

static void
test_remote_new_session (void)
{
  run_remote_case (check_remote_new_session, NULL);
}


int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/remote/lists-sessions", test_remote_window_lists_sessions);
  g_test_add_func ("/pd/ui/remote/run-approved-in-dialog", test_remote_run_approved);
  g_test_add_func ("/pd/ui/remote/plan-reviewed-in-dialog", test_remote_plan_reviewed);
  g_test_add_func ("/pd/ui/remote/change-not-sent", test_remote_change_not_sent);
  g_test_add_func ("/pd/ui/remote/run-stopped", test_remote_run_stopped);
  g_test_add_func ("/pd/ui/remote/message-kept-while-down", test_remote_message_kept_while_down);
  g_test_add_func ("/pd/ui/remote/load-error-says-why", test_remote_load_error_says_why);
  g_test_add_func ("/pd/ui/remote/run-followed", test_remote_run_followed);
  g_test_add_func ("/pd/ui/remote/new-session", test_remote_new_session);
  g_test_add_func ("/pd/ui/remote/run-answered-elsewhere", test_remote_run_answered_elsewhere);
  g_test_add_func ("/pd/ui/remote/run-started-while-shown", test_remote_run_started_while_shown);
  g_test_add_func ("/pd/ui/remote/run-not-polled", test_remote_run_not_polled);

  status = g_test_run ();
  pd_test_runs_finish (config_home);

  return status;
}

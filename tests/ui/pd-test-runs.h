/* pd-test-runs.h: what the runs tests share
 *
 * A run of the real application on a temporary database and folder with
 * the replay provider (RunFixture), the dialogs it asks through, answered
 * as a person would, the widgets the tests look at, and a real `serve`
 * (PdTestServed).  Shared by test-runs.c (the demo, local runs, their
 * config, the dialogs), test-runs-remote.c (windows on a serve endpoint),
 * test-run-states.c and test-overview.c.  Header-only, as the
 * other test helpers, because each test is one source file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "pd-local-source.h"
#include "pd-new-session-dialog.h"
#include "pd-now-view-private.h"
#include "pd-preferences-window.h"
#include "pd-server.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "../pd-test-server.h"

typedef struct
{
  const char *prefix;
  const char *suffix;
} Affixes;

static inline gboolean
is_label_with_affixes (GtkWidget     *widget,
                       gconstpointer  data)
{
  const Affixes *affixes = data;
  const char *text;

  if (!GTK_IS_LABEL (widget))
    return FALSE;
  text = gtk_label_get_text (GTK_LABEL (widget));
  return g_str_has_prefix (text, affixes->prefix) && g_str_has_suffix (text, affixes->suffix);
}

static inline GtkWidget *
find_label_matching (GtkWidget  *root,
                     const char *prefix,
                     const char *suffix)
{
  Affixes affixes = { prefix, suffix };

  return pd_test_find_first (root, is_label_with_affixes, &affixes);
}

static inline gboolean
is_plan_toggle (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_TOGGLE_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "Plan") == 0;
}

static inline GtkToggleButton *
find_plan_toggle (GtkWidget *root)
{
  return GTK_TOGGLE_BUTTON (pd_test_find_first (root, is_plan_toggle, NULL));
}

static inline gboolean
action_enabled (PdWindow   *window,
                const char *action)
{
  GtkWidget *button = pd_test_find_action_button (GTK_WIDGET (window), action);

  g_assert_nonnull (button);
  return gtk_widget_get_sensitive (button);
}

static inline PdSessionList *
session_list (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}



typedef struct
{
  char     *dir;
  char     *db;
  char     *project;
  char     *replay;
  gboolean  finished;
  int       status;
  char     *message;
} RunFixture;

static inline void
run_fixture_free (RunFixture *fixture)
{
  g_free (fixture->dir);
  g_free (fixture->db);
  g_free (fixture->project);
  g_free (fixture->replay);
  g_free (fixture->message);
  g_free (fixture);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RunFixture, run_fixture_free)

static inline RunFixture *
run_fixture_new (const char *replay_json)
{
  RunFixture *fixture = g_new0 (RunFixture, 1);
  g_autofree char *readme = NULL;

  fixture->dir = pd_test_make_tmp_dir ();
  fixture->db = g_build_filename (fixture->dir, "sessions.db", NULL);
  fixture->project = g_build_filename (fixture->dir, "project", NULL);
  fixture->replay = g_build_filename (fixture->dir, "replay.json", NULL);
  g_assert_cmpint (g_mkdir (fixture->project, 0700), ==, 0);
  readme = g_build_filename (fixture->project, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "A small project.\n", -1, NULL));
  g_assert_true (g_file_set_contents (fixture->replay, replay_json, -1, NULL));
  g_object_unref (pd_test_open_store (fixture->db));

  return fixture;
}

static inline void
on_finished (PdRunController *runs,
             int              status,
             const char      *message,
             RunFixture      *fixture)
{
  fixture->finished = TRUE;
  fixture->status = status;
  g_free (fixture->message);
  fixture->message = g_strdup (message);
}

static inline PdRunController *
start_replay (PdWindow         *window,
              RunFixture       *fixture,
              PdApprovalPolicy  policy,
              const char       *message)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (runs);
  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (fixture->replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = policy;
  settings->planning = TRUE;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  g_assert_true (pd_run_controller_start (runs, settings, message, &error));
  g_assert_no_error (error);
  g_assert_true (pd_run_controller_get_running (runs));

  return runs;
}

static inline gboolean
run_finished (gpointer data)
{
  return ((RunFixture *) data)->finished;
}

static inline gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static inline gboolean
widget_sensitive (gpointer data)
{
  return gtk_widget_is_sensitive (data);
}

/* Answers with a click on a response button: the dialog closes and emits
 * the response (adw_message_dialog_response() alone would only emit it and
 * leave the dialog open), and is freed: nothing keeps it.  A person's
 * click lands once the dialog's guard lets the button take it. */
static inline void
respond (AdwMessageDialog *dialog,
         const char       *response)
{
  const char *label = adw_message_dialog_get_response_label (dialog, response);
  GtkWidget *button = pd_test_find_first (GTK_WIDGET (dialog), is_button_labelled, label);

  g_assert_nonnull (button);
  pd_test_wait_until (widget_sensitive, button, "the dialog's guard to let its buttons take a click");
  g_object_set_data (G_OBJECT (dialog), "test-answered", GINT_TO_POINTER (TRUE));
  g_object_ref (dialog);
  g_signal_emit_by_name (button, "clicked");
  pd_test_assert_finalized (dialog);
}

static inline JsonArray *
load_messages (RunFixture *fixture,
               const char *session_id)
{
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autoptr(GError) error = NULL;
  JsonArray *messages = pd_session_store_load_messages (store, session_id, &error);

  g_assert_no_error (error);
  return messages;
}

/* The content of the tool result messages, in order. */
static inline GPtrArray *
tool_results (JsonArray *messages)
{
  GPtrArray *results = g_ptr_array_new ();

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "role", ""), "tool") == 0)
        g_ptr_array_add (results, (gpointer) json_object_get_string_member_with_default (message, "content", ""));
    }

  return results;
}

static inline gboolean
run_session_selected (gpointer data)
{
  PdWindow *window = data;
  PdRunController *runs = pd_window_get_run_controller (window);
  PdSessionItem *item = pd_session_list_get_selected_item (session_list (window));

  return item != NULL && pd_run_controller_get_session_id (runs) != NULL &&
         g_strcmp0 (pd_session_item_get_id (item), pd_run_controller_get_session_id (runs)) == 0;
}

static inline gboolean
run_plan_shown (gpointer data)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_NOW_VIEW);
  GtkWidget *header = find_label_matching (now, "Plan — v", " · 2/2 done");

  return header != NULL && gtk_widget_get_mapped (header);
}

static inline gboolean
list_loaded_with_selection (gpointer data)
{
  return pd_session_list_get_selected_item (session_list (data)) != NULL;
}


static const char *const replay_writes =
  "{\"label\": \"test: two writes\", \"turns\": ["
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"Writing again.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"two.txt\", \"content\": \"2\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

static inline gboolean
project_file_exists (RunFixture *fixture,
                     const char *name)
{
  g_autofree char *path = g_build_filename (fixture->project, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}


static inline void
remove_global_config (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_config_dir (), "plandeck", NULL);
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);

  g_unlink (path);
  g_rmdir (dir);
}

/* Starts a run of @id on the endpoint the way another client does (odek's
 * REST API, with the session's token), so that no window started it.
 * Shared by test-runs-remote.c, test-run-states.c and test-overview.c. */
static inline void
start_run_elsewhere (const char *url,
                     const char *id,
                     const char *message)
{
  g_autoptr(SoupSession) http = soup_session_new ();
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  g_autoptr(GHashTable) params = g_uri_parse_params (g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE, NULL);
  const char *token = g_hash_table_lookup (params, "token");
  g_autofree char *record_url = g_strdup_printf ("http://127.0.0.1:%d/api/sessions/%s", g_uri_get_port (uri), id);
  g_autofree char *prompt_url = g_strdup_printf ("http://127.0.0.1:%d/api/prompt", g_uri_get_port (uri));
  g_autofree char *body = g_strdup_printf ("{\"message\":\"%s\",\"session_id\":\"%s\"}", message, id);
  g_autoptr(SoupMessage) get = soup_message_new ("GET", record_url);
  g_autoptr(GBytes) got = NULL, posted = NULL;
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GError) error = NULL;
  const char *session_token;

  soup_message_headers_replace (soup_message_get_request_headers (get), "X-Odek-Ws-Token", token);
  got = soup_session_send_and_read (http, get, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (get), ==, 200);
  session_token = soup_message_headers_get_one (soup_message_get_response_headers (get), "X-Session-Token");
  g_assert_nonnull (session_token);

  /* A run the test saw end (its last event, its card done) may still hold
   * the session in serve's run table for a moment: 409 "session is busy"
   * is asked again until the hang detector's wait is over. */
  for (gint64 deadline = g_get_monotonic_time () + PD_TEST_WAIT_MS * 1000;;)
    {
      g_autoptr(SoupMessage) post = soup_message_new ("POST", prompt_url);

      soup_message_headers_replace (soup_message_get_request_headers (post), "X-Odek-Ws-Token", token);
      soup_message_headers_replace (soup_message_get_request_headers (post), "X-Session-Token", session_token);
      soup_message_set_request_body_from_bytes (post, "application/json", request);
      g_clear_pointer (&posted, g_bytes_unref);
      posted = soup_session_send_and_read (http, post, NULL, &error);
      g_assert_no_error (error);
      if (soup_message_get_status (post) == 409 && g_get_monotonic_time () < deadline)
        {
          g_usleep (50 * 1000);
          continue;
        }
      g_assert_cmpuint (soup_message_get_status (post), ==, 202);
      break;
    }
}

/* `plandeck-agent serve` on loopback with the replay provider and the
 * fixture's folder, as a person starts it; its URL read from its stdout.
 * Shared by test-runs-remote.c, test-run-states.c and test-overview.c. */
typedef struct
{
  RunFixture  *fixture;
  GSubprocess *process;
  char        *url;     /* as serve prints it, with its token */
  guint        port;    /* 0 at the first start: any; a restart keeps it */
  char        *base;    /* the URL without its token */
  char        *token;
} PdTestServed;

/* Starts serve on @served's fixture (again on the same port after
 * pd_test_served_stop()). */
static inline void
pd_test_served_start (PdTestServed *served)
{
  /* A test that fails aborts before pd_test_served_stop(): the server goes
   * with it. */
  g_autoptr(GSubprocessLauncher) launcher = pd_test_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log = g_build_filename (served->fixture->dir, "serve.log", NULL);
  g_autofree char *listen = g_strdup_printf ("127.0.0.1:%u", served->port);
  const char *agent = g_getenv ("PLANDECK_AGENT");

  g_assert_nonnull (agent);
  g_subprocess_launcher_set_stderr_file_path (launcher, log);
  served->process = g_subprocess_launcher_spawn (launcher, &error, agent, "serve", "--db", served->fixture->db,
                                                 "--listen", listen, "--rate-limit", "0",
                                                 "--provider", "replay", "--replay", served->fixture->replay,
                                                 "-C", served->fixture->project, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (served->process));
  g_free (served->url);
  served->url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (served->url);
  g_assert_true (g_str_has_prefix (served->url, "http://127.0.0.1:"));
  served->port = (guint) atoi (served->url + strlen ("http://127.0.0.1:"));
  g_clear_pointer (&served->base, g_free);
  g_clear_pointer (&served->token, g_free);
  served->base = g_strdup_printf ("http://127.0.0.1:%u", served->port);
  g_free (pd_window_split_endpoint_url (served->url, &served->token));
  g_assert_nonnull (served->token);
}

/* Kills serve (as a crash would: the endpoint just goes away); its URL,
 * port and token stay for a restart or a look after. */
static inline void
pd_test_served_stop (PdTestServed *served)
{
  if (served->process != NULL)
    {
      g_subprocess_send_signal (served->process, SIGKILL);
      g_subprocess_wait (served->process, NULL, NULL);
    }
  g_clear_object (&served->process);
}

/* Stops serve and frees what it was; the fixture stays the caller's. */
static inline void
pd_test_served_clear (PdTestServed *served)
{
  pd_test_served_stop (served);
  g_clear_pointer (&served->url, g_free);
  g_clear_pointer (&served->base, g_free);
  g_clear_pointer (&served->token, g_free);
  served->port = 0;
}

/* The runs read the person's config.json (and the config cases write
 * one): a folder of this process's own, set before GLib caches it, so no
 * real config is read or written.  (gtk_test_init() ignores
 * G_TEST_OPTION_ISOLATE_DIRS.)  Returns the folder, for
 * pd_test_runs_finish(). */
static inline char *
pd_test_runs_init (int    *argc,
                   char ***argv)
{
  char *config_home = g_dir_make_tmp ("plandeck-ui-config-XXXXXX", NULL);

  g_assert_nonnull (config_home);
  g_setenv ("XDG_CONFIG_HOME", config_home, TRUE);

  gtk_test_init (argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_assert_cmpstr (g_get_user_config_dir (), ==, config_home);
  return config_home;
}

static inline void
pd_test_runs_finish (char *config_home)
{
  remove_global_config ();
  g_rmdir (config_home);
  g_free (config_home);
}

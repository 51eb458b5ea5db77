/* test-overview-endpoint.c: a PdOverview card of a run on a real
 * `plandeck-agent serve`, whose questions are answered elsewhere
 *
 * Real parts: `plandeck-agent serve` in its own process on loopback (the
 * replay provider, with a model's pause before each turn, and the real
 * tools in a folder of the test's own), followed by a PdRemoteSource (its
 * event stream) in a PdOverview, as the window's Overview follows it.
 * Another client (the test's own SoupSession, as odek's page or another
 * window would) starts the run and answers its questions through serve's
 * REST API, never through the card.
 *
 * The card learned of a question only when something else made it list
 * the endpoint again: a question asked after the model's pause, with no
 * save around it, reached the card only when a plan's held-back step read
 * came due (up to a minute; about 50 s on the tester's machine), often
 * after serve had denied it (60 s).  The waits here end either way, when
 * the card shows the question or when serve no longer asks it; the test
 * then says which came first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview-endpoint"

#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-overview.h"
#include "pd-remote-source.h"
#include "pd-session-store.h"

/* Three calls that ask (two writes, then a command that takes long), each
 * after the model's pause, then the answer. */
static const char *const replay_three_questions =
  "{\"label\": \"test: three questions\", \"turns\": ["
  " {\"delay_ms\": 1500, \"content\": \"Writing.\","
  "  \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"delay_ms\": 1500, \"content\": \"Writing again.\","
  "  \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"two.txt\", \"content\": \"2\\n\"}}]},"
  " {\"delay_ms\": 1500, \"content\": \"Checking.\","
  "  \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"sleep 20; touch slept.txt\"}}]},"
  " {\"content\": \"All done.\"}]}";

typedef struct
{
  char           *dir;
  char           *project;
  char           *session_id;
  GSubprocess    *serve;
  char           *base;
  char           *token;
  /* The other client, asking serve as it goes. */
  SoupSession    *http;
  char           *session_token;
  guint           poll;
  gboolean        polling;      /* a GET /api/runs is out */
  char           *run_id;       /* the session's run, once listed */
  char           *asked;        /* (nullable) the question serve asks now */
  gboolean        over;         /* the run has ended */
  /* What the window does. */
  GListStore     *sources;
  PdRemoteSource *source;
  PdOverview     *overview;
} Fixture;

/* --- serve, and the other client -------------------------------------------- */

static void
die_with_test (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static void
serve_start (Fixture *f)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *db = g_build_filename (f->dir, "served.db", NULL);
  g_autofree char *replay = g_build_filename (f->dir, "replay.json", NULL);
  g_autofree char *log = g_build_filename (f->dir, "serve.log", NULL);
  g_autofree char *config = g_build_filename (f->dir, "config", NULL);
  g_autofree char *url = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GHashTable) params = NULL;
  const char *agent = g_getenv ("PLANDECK_AGENT");

  g_assert_nonnull (agent);
  g_assert_true (g_file_set_contents (replay, replay_three_questions, -1, &error));
  /* No config of the person running the tests. */
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", config, TRUE);
  g_subprocess_launcher_set_stderr_file_path (launcher, log);
  g_subprocess_launcher_set_child_setup (launcher, die_with_test, NULL, NULL);
  f->serve = g_subprocess_launcher_spawn (launcher, &error, agent, "serve", "--db", db, "--listen", "127.0.0.1:0",
                                          "--provider", "replay", "--replay", replay, "-C", f->project, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (f->serve));
  url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (url);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  params = g_uri_parse_params (g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE, &error);
  g_assert_no_error (error);
  f->token = g_strdup (g_hash_table_lookup (params, "token"));
  g_assert_nonnull (f->token);
  f->base = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uri));
}

/* The other client's request, answered before it returns. */
static JsonObject *
other_client (Fixture    *f,
              const char *method,
              const char *path,
              const char *body,
              guint       expected)
{
  g_autofree char *url = g_strconcat (f->base, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new (method, url);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  const char *token;

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", f->token);
  if (f->session_token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Session-Token", f->session_token);
  if (body != NULL)
    {
      g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));

      soup_message_set_request_body_from_bytes (msg, "application/json", request);
    }
  bytes = soup_session_send_and_read (f->http, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, expected);
  token = soup_message_headers_get_one (soup_message_get_response_headers (msg), "X-Session-Token");
  if (token != NULL && f->session_token == NULL)
    f->session_token = g_strdup (token);
  node = json_from_string (g_bytes_get_data (bytes, NULL), &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/* Reads the session's run from a GET /api/runs: its question, or its end. */
static void
note_runs (Fixture    *f,
           JsonObject *object)
{
  JsonArray *runs = json_object_get_array_member (object, "runs");

  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      const char *status = json_object_get_string_member (run, "status");

      if (g_strcmp0 (json_object_get_string_member (run, "session_id"), f->session_id) != 0)
        continue;
      if (f->run_id == NULL)
        f->run_id = g_strdup (json_object_get_string_member (run, "id"));
      g_clear_pointer (&f->asked, g_free);
      if (json_object_has_member (run, "approval"))
        f->asked = g_strdup (json_object_get_string_member (json_object_get_object_member (run, "approval"), "id"));
      f->over = g_strcmp0 (status, "running") != 0 && g_strcmp0 (status, "waiting_approval") != 0;
    }
}

static void
on_runs_read (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GBytes) bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, NULL);
  g_autoptr(JsonNode) node = bytes != NULL ? json_from_string (g_bytes_get_data (bytes, NULL), NULL) : NULL;

  f->polling = FALSE;
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    note_runs (f, json_node_get_object (node));
}

/* The other client keeps asking serve how the run goes, on the main
 * context, beside the overview. */
static gboolean
poll_runs (gpointer data)
{
  Fixture *f = data;
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  if (f->polling)
    return G_SOURCE_CONTINUE;
  url = g_strconcat (f->base, "/api/runs", NULL);
  msg = soup_message_new ("GET", url);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", f->token);
  f->polling = TRUE;
  soup_session_send_and_read_async (f->http, msg, G_PRIORITY_DEFAULT, NULL, on_runs_read, f);
  return G_SOURCE_CONTINUE;
}

/* --- the fixture --------------------------------------------------------------- */

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *db = NULL;
  g_autoptr(PdDb) handle = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  f->dir = g_dir_make_tmp ("pd-overview-endpoint-XXXXXX", &error);
  g_assert_no_error (error);
  f->project = g_build_filename (f->dir, "project", NULL);
  g_assert_cmpint (g_mkdir (f->project, 0700), ==, 0);
  db = g_build_filename (f->dir, "served.db", NULL);
  handle = pd_db_open (db, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (handle);
  info = pd_session_store_create (store, "Remote work", "m", "replay", "plandeck", f->project, &error);
  g_assert_no_error (error);
  f->session_id = g_strdup (info->id);

  serve_start (f);
  f->http = soup_session_new ();
  f->poll = g_timeout_add (100, poll_runs, f);

  f->source = pd_remote_source_new (f->base, f->token, &error);
  g_assert_no_error (error);
  pd_remote_source_set_timeout (f->source, 5);
  pd_remote_source_watch (f->source, PD_REMOTE_SOURCE_WATCH_MS);
  f->sources = g_list_store_new (PD_TYPE_SOURCE);
  g_list_store_append (f->sources, f->source);
  f->overview = pd_overview_new (G_LIST_MODEL (f->sources));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_clear_object (&f->overview);
  g_clear_object (&f->sources);
  if (f->source != NULL)
    pd_remote_source_watch (f->source, 0);
  g_clear_object (&f->source);
  g_clear_handle_id (&f->poll, g_source_remove);
  if (f->http != NULL)
    soup_session_abort (f->http);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&f->http);
  /* Stopping cancels the run, and the command it waits on. */
  g_subprocess_send_signal (f->serve, SIGTERM);
  g_assert_true (g_subprocess_wait (f->serve, NULL, NULL));
  g_clear_object (&f->serve);

  dir = g_dir_open (f->project, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->project, name, NULL);

      g_unlink (path);
    }
  g_rmdir (f->project);
  g_clear_pointer (&dir, g_dir_close);
  dir = g_dir_open (f->dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);

      if (g_rmdir (path) != 0)
        g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->project);
  g_free (f->session_id);
  g_free (f->base);
  g_free (f->token);
  g_free (f->session_token);
  g_free (f->run_id);
  g_free (f->asked);
}

/* --- waits ------------------------------------------------------------------------ */

typedef gboolean (*Condition) (Fixture *f, gconstpointer data);

/* A hang detector, not a time limit: 90 s (PD_TEST_WAIT_SCALE times it),
 * far beyond serve's 60 s for an answer, after which each wait here ends
 * by itself. */
static void
wait_until (Fixture       *f,
            Condition      condition,
            gconstpointer  data,
            const char    *what)
{
  const char *scale = g_getenv ("PD_TEST_WAIT_SCALE");
  gint64 wait = 90 * G_USEC_PER_SEC * MAX (1, scale != NULL ? atoi (scale) : 1);
  gint64 deadline = g_get_monotonic_time () + wait;

  while (!condition (f, data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (!condition (f, data))
    g_error ("Hung waiting for %s", what);
}

static PdOverviewCard *
card (Fixture *f)
{
  return pd_overview_find (f->overview, PD_SOURCE (f->source), f->session_id);
}

static const char *
card_question (Fixture *f)
{
  const PdRemoteRun *run = card (f) != NULL ? pd_overview_card_get_remote_run (card (f)) : NULL;

  return run != NULL ? run->approval_id : NULL;
}

static gboolean
card_shown (Fixture       *f,
            gconstpointer  data)
{
  return pd_overview_get_loaded (f->overview) && card (f) != NULL;
}

/* serve asks a question other than @data (the one answered before). */
static gboolean
serve_asks_anew (Fixture       *f,
                 gconstpointer  data)
{
  return f->asked != NULL && g_strcmp0 (f->asked, data) != 0;
}

/* The card shows the question @data, or serve asks it no more (it denied
 * it, unanswered, after its 60 s). */
static gboolean
card_shows_or_gone (Fixture       *f,
                    gconstpointer  data)
{
  return g_strcmp0 (card_question (f), data) == 0 || g_strcmp0 (f->asked, data) != 0;
}

/* The card asks nothing, or the command approved has run (its file is
 * there: the card was cleared only by what the command's end saved). */
static gboolean
card_clear_or_ran (Fixture       *f,
                   gconstpointer  data)
{
  return (card (f) != NULL && !pd_overview_card_has_approval (card (f))) || g_file_test (data, G_FILE_TEST_EXISTS);
}

/* serve asks a new question; the card shows it before serve gives up on
 * it; the other client answers it.  Returns the question's id. */
static char *
question_answered_elsewhere (Fixture    *f,
                             const char *before,
                             const char *what)
{
  g_autofree char *question = NULL;
  g_autofree char *path = NULL;
  g_autofree char *body = NULL;
  g_autoptr(JsonObject) answer = NULL;

  wait_until (f, serve_asks_anew, before, what);
  question = g_strdup (f->asked);
  wait_until (f, card_shows_or_gone, question, what);
  g_assert_cmpstr (card_question (f), ==, question);
  g_assert_cmpuint (pd_overview_card_get_need (card (f)), ==, PD_OVERVIEW_NEED_APPROVAL);
  /* The card's question is the run's own, answered where the window would. */
  g_assert_cmpstr (pd_overview_card_get_remote_run (card (f))->run_id, ==, f->run_id);

  path = g_strdup_printf ("/api/runs/%s/approval", f->run_id);
  body = g_strdup_printf ("{\"id\":\"%s\",\"action\":\"approve\"}", question);
  answer = other_client (f, "POST", path, body, 200);
  return g_steal_pointer (&question);
}

/* --- the case --------------------------------------------------------------------- */

/* A run started and answered by another client: each question reaches the
 * card while serve still asks it, the second after the first was answered
 * elsewhere too; an answered question leaves the card at once, not when
 * the approved command ends. */
static void
test_questions_answered_elsewhere (Fixture       *f,
                                   gconstpointer  data)
{
  g_autofree char *record = g_strdup_printf ("/api/sessions/%s", f->session_id);
  g_autofree char *prompt = g_strdup_printf ("{\"message\":\"Write two files\",\"session_id\":\"%s\"}",
                                             f->session_id);
  g_autofree char *slept = g_build_filename (f->project, "slept.txt", NULL);
  g_autofree char *two = g_build_filename (f->project, "two.txt", NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autoptr(JsonObject) session = NULL;
  g_autoptr(JsonObject) started = NULL;

  wait_until (f, card_shown, NULL, "the session's card");
  g_assert_false (pd_overview_card_has_approval (card (f)));

  /* Another client starts the run (odek's REST API, with the session's
   * token), so nothing of the window's started it or follows it. */
  session = other_client (f, "GET", record, NULL, 200);
  g_assert_nonnull (f->session_token);
  started = other_client (f, "POST", "/api/prompt", prompt, 202);

  first = question_answered_elsewhere (f, NULL, "the first question on the card");
  /* The next one, after the first was answered elsewhere: the defect's. */
  second = question_answered_elsewhere (f, first, "the second question on the card");
  g_assert_cmpstr (second, !=, first);
  third = question_answered_elsewhere (f, second, "the third question on the card");
  g_assert_true (g_file_test (two, G_FILE_TEST_EXISTS));

  /* The command approved runs for a while: its question leaves the card
   * now, not when the command ends. */
  wait_until (f, card_clear_or_ran, slept, "the answered question to leave the card");
  g_assert_false (pd_overview_card_has_approval (card (f)));
  g_assert_false (g_file_test (slept, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (pd_overview_card_get_need (card (f)), ==, PD_OVERVIEW_NEED_RUNNING);
}

/* The real `plandeck-agent` with @argv after it; its standard output. */
static char *
agent_output (const char * const *argv)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocess) agent = NULL;
  g_autoptr(GError) error = NULL;
  char *out = NULL;

  g_assert_nonnull (g_getenv ("PLANDECK_AGENT"));
  g_ptr_array_add (args, (gpointer) g_getenv ("PLANDECK_AGENT"));
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) argv[i]);
  g_ptr_array_add (args, NULL);
  agent = g_subprocess_newv ((const char * const *) args->pdata, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (agent, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (agent));
  return out;
}

static gboolean
on_hang (gpointer data)
{
  g_error ("timed out waiting for %s", (const char *) data);
  return G_SOURCE_REMOVE;
}

/* A Claude Code session with an unfinished step, its transcript written
 * at @written: `plandeck-agent sessions list` says @state in its row (with
 * @updated in its time column) and its Overview card comes to @need (-1:
 * it has none, the session not active). */
static void
check_imported_state (GDateTime      *written,
                      const char     *state,
                      const char     *updated,
                      PdOverviewNeed  need)
{
  g_autofree char *dir = g_dir_make_tmp ("pd-overview-working-XXXXXX", NULL);
  g_autofree char *project = g_build_filename (dir, "claude", "projects", "-work-app", NULL);
  g_autofree char *transcript = g_build_filename (project, "0f1e2d3c-0000-4000-8000-00000000000a.jsonl", NULL);
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autofree char *stamp = g_date_time_format (written, "%Y-%m-%dT%H:%M:%SZ");
  g_autofree char *lines = g_strdup_printf (
    "{\"type\":\"user\",\"timestamp\":\"%s\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
    "\"message\":{\"role\":\"user\",\"content\":\"Fix the parser\"}}\n"
    "{\"type\":\"assistant\",\"timestamp\":\"%s\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
    "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu1\","
    "\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"Read the logs\",\"status\":\"completed\"},"
    "{\"content\":\"Fix the parser\",\"status\":\"in_progress\"}]}}]}}\n"
    "{\"type\":\"user\",\"timestamp\":\"%s\",\"message\":{\"role\":\"user\","
    "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\",\"content\":\"ok\"}]}}\n",
    stamp, stamp, stamp);
  const char *import_args[] = { "import", "--db", db, transcript, NULL };
  const char *list_args[] = { "sessions", "list", "--db", db, NULL };
  g_autofree char *imported = NULL;
  g_autofree char *listed = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdLocalSource) local = NULL;
  g_autoptr(PdOverview) overview = NULL;
  PdOverviewCard *card = NULL;
  guint hang;

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (transcript, lines, -1, NULL));
  {
    g_autoptr(PdDb) created = pd_db_open (db, PD_DB_CREATE, NULL);

    g_assert_nonnull (created);
  }
  imported = agent_output (import_args);
  g_assert_nonnull (strstr (imported, "1 sessions added"));

  /* The CLI's list: the row of the session says @state. */
  listed = agent_output (list_args);
  {
    g_auto(GStrv) rows = g_strsplit (listed, "\n", -1);
    g_autofree char *word = g_strdup_printf (" %s ", state);
    guint found = 0;

    for (guint i = 0; rows[i] != NULL; i++)
      if (strstr (rows[i], "Fix the parser") != NULL)
        {
          g_assert_nonnull (strstr (rows[i], word));
          if (updated != NULL)
            g_assert_nonnull (strstr (rows[i], updated));
          found++;
        }
    g_assert_cmpuint (found, ==, 1);
  }

  /* The Overview's card of the same session. */
  local = pd_local_source_new (db, FALSE);
  g_list_store_append (sources, local);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  hang = g_timeout_add_seconds (90, on_hang, (gpointer) "the session's card");
  /* No card (@need -1): none once the source's sessions are read. */
  while ((int) need < 0 && !pd_overview_get_loaded (overview))
    g_main_context_iteration (NULL, TRUE);
  while ((int) need >= 0 && (card == NULL || pd_overview_card_get_need (card) != need))
    {
      g_main_context_iteration (NULL, TRUE);
      g_clear_object (&card);
      if (g_list_model_get_n_items (G_LIST_MODEL (overview)) > 0)
        card = g_list_model_get_item (G_LIST_MODEL (overview), 0);
    }
  g_source_remove (hang);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (overview)), ==, (int) need < 0 ? 0 : 1);
  g_clear_object (&card);
  g_clear_object (&overview);
  g_clear_object (&local);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  {
    const char *suffixes[] = { "", "-wal", "-shm" };

    for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
      {
        g_autofree char *path = g_strconcat (db, suffixes[i], NULL);

        g_unlink (path);
      }
    g_unlink (transcript);
    g_rmdir (project);
    {
      g_autofree char *projects = g_path_get_dirname (project);
      g_autofree char *claude = g_path_get_dirname (projects);

      g_rmdir (projects);
      g_rmdir (claude);
    }
    g_rmdir (dir);
  }
}

/* A Claude Code session whose transcript was written a minute ago, with an
 * unfinished step: its Overview card said "Working" while `plandeck-agent
 * sessions list` said "idle" (tried as a new user would).  Both read it by
 * one rule, pd_session_info_is_working(): "working". */
static void
test_imported_working_agrees (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) minute_ago = g_date_time_add_minutes (now, -1);

  check_imported_state (minute_ago, "working", NULL, PD_OVERVIEW_NEED_RUNNING);
}

/* The same transcript written twenty minutes ago: its card says "Stalled"
 * (unchanged for the Overview's 15 minutes, still active for its 30) while
 * `plandeck-agent sessions list` said "idle" (tried as a new user would).
 * Both read it by one rule, pd_session_info_is_stalled(): "stalled". */
static void
test_imported_stalled_agrees (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) twenty_ago = g_date_time_add_minutes (now, -20);

  check_imported_state (twenty_ago, "stalled", NULL, PD_OVERVIEW_NEED_STALLED);
}

/* The same transcript dated 2099 (tried as an attacker would: its lines'
 * timestamps are anyone's): it said "working" in the list and on its card
 * for ever.  More than PD_SESSION_FUTURE_MINUTES ahead of the clock, a
 * change is no sign of work: the list says "idle" with its date, and the
 * session is not active, so it has no card (its card said "Stalled" and
 * never left the Overview, where a card unchanged for the Overview's
 * minutes leaves).  Ten minutes ahead is as far; four minutes ahead is a
 * clock a little fast: working. */
static void
test_imported_future_not_working (void)
{
  g_autoptr(GDateTime) far = g_date_time_new_utc (2099, 6, 15, 12, 0, 0);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) ahead = g_date_time_add_minutes (now, 10);
  g_autoptr(GDateTime) fast = g_date_time_add_minutes (now, 4);

  check_imported_state (far, "idle", "2099-06-15", (PdOverviewNeed) -1);
  check_imported_state (ahead, "idle", NULL, (PdOverviewNeed) -1);
  check_imported_state (fast, "working", NULL, PD_OVERVIEW_NEED_RUNNING);
}

int
main (int   argc,
      char *argv[])
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);

  g_test_add ("/pd/overview-endpoint/questions-answered-elsewhere", Fixture, NULL, fixture_set_up,
              test_questions_answered_elsewhere, fixture_tear_down);
  g_test_add_func ("/pd/overview-endpoint/imported-working-agrees", test_imported_working_agrees);
  g_test_add_func ("/pd/overview-endpoint/imported-future-not-working", test_imported_future_not_working);
  g_test_add_func ("/pd/overview-endpoint/imported-stalled-agrees", test_imported_stalled_agrees);
  return g_test_run ();
}

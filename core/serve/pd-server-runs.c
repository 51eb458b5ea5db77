/* pd-server-runs.c: runs through the embedded engine.
 *
 * POST /api/prompt starts one (202 once its session is known), GET
 * /api/runs[/ID] lists them (the last RUNS_KEPT finished ones kept), POST
 * /api/cancel?session_id= cancels the active run of a session.
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-server-private.h"
#include "pd-plan.h"
#include "pd-random.h"
#include "pd-redact.h"

#define RUNS_KEPT            100

struct _Run
{
  gatomicrefcount    ref;
  PdServer          *server;      /* (unowned) cleared when the server goes */
  char              *id;
  char              *session_id;
  char              *model;
  char              *status;
  gint64             started_at;
  gint64             ended_at;
  gint64             input_tokens;
  gint64             output_tokens;
  char              *result;      /* redacted: anyone with the instance token reads runs */
  char              *error;       /* redacted too */
  GCancellable      *cancellable;
  PdEngine          *engine;
  SoupServerMessage *pending;     /* the POST waiting for its 202 */
  gboolean           active;
};

static Run *
run_ref (Run *run)
{
  g_atomic_ref_count_inc (&run->ref);
  return run;
}

void
_pd_server_run_unref (Run *run)
{
  if (!g_atomic_ref_count_dec (&run->ref))
    return;
  g_free (run->id);
  g_free (run->session_id);
  g_free (run->model);
  g_free (run->status);
  g_free (run->result);
  g_free (run->error);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->engine);
  g_clear_object (&run->pending);
  g_free (run);
}

static JsonObject *
run_to_json (Run *run)
{
  JsonObject *object = json_object_new ();
  g_autofree char *started = pd_session_time_to_string (run->started_at);

  json_object_set_string_member (object, "id", run->id);
  json_object_set_string_member (object, "session_id", run->session_id ? run->session_id : "");
  json_object_set_string_member (object, "model", run->model ? run->model : "");
  json_object_set_string_member (object, "status", run->status);
  json_object_set_string_member (object, "started_at", started);
  if (run->ended_at > 0)
    {
      g_autofree char *ended = pd_session_time_to_string (run->ended_at);
      json_object_set_string_member (object, "ended_at", ended);
    }
  else
    json_object_set_null_member (object, "ended_at");
  json_object_set_int_member (object, "input_tokens", run->input_tokens);
  json_object_set_int_member (object, "output_tokens", run->output_tokens);
  json_object_set_string_member (object, "result", run->result ? run->result : "");
  json_object_set_string_member (object, "error", run->error ? run->error : "");
  return object;
}

static void
run_answer_accepted (Run *run)
{
  JsonObject *object;

  if (run->pending == NULL)
    return;
  object = json_object_new ();
  json_object_set_string_member (object, "run_id", run->id);
  json_object_set_string_member (object, "session_id", run->session_id ? run->session_id : "");
  json_object_set_string_member (object, "status", "running");
  _pd_server_respond_json (run->pending, 202, object);
  soup_server_message_unpause (run->pending);
  g_clear_object (&run->pending);
}

typedef struct
{
  Run  *run;
  char *session_id;
} SessionKnown;

static gboolean
on_session_known (gpointer user_data)
{
  SessionKnown *known = user_data;
  Run *run = known->run;

  if (run->session_id == NULL)
    run->session_id = g_strdup (known->session_id);
  run_answer_accepted (run);
  return G_SOURCE_REMOVE;
}

static void
session_known_free (gpointer data)
{
  SessionKnown *known = data;

  _pd_server_run_unref (known->run);
  g_free (known->session_id);
  g_free (known);
}

/* On the engine's worker thread. */
static void
on_run_progress (PdEngineProgress  kind,
                 const char       *text,
                 gpointer          user_data)
{
  Run *run = user_data;
  SessionKnown *known;
  GSource *source;

  if (kind != PD_ENGINE_PROGRESS_SESSION || run->server == NULL)
    return;

  known = g_new0 (SessionKnown, 1);
  known->run = run_ref (run);
  known->session_id = g_strdup (text);
  source = g_idle_source_new ();
  g_source_set_callback (source, on_session_known, known, session_known_free);
  g_source_attach (source, run->server->context);
  g_source_unref (source);
}

static void
forget_finished_runs (PdServer *self)
{
  while (g_queue_get_length (&self->finished_runs) > RUNS_KEPT)
    {
      char *id = g_queue_pop_head (&self->finished_runs);

      g_hash_table_remove (self->runs, id);
      g_free (id);
    }
}

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  PdServer *self = run->server;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRunResult) outcome = pd_engine_run_finish (PD_ENGINE (object), result, &error);

  run->ended_at = g_get_real_time ();
  run->active = FALSE;
  /* The engine's progress func holds a reference to the run. */
  pd_engine_set_progress_func (run->engine, NULL, NULL, NULL);
  g_clear_object (&run->engine);
  g_clear_pointer (&run->status, g_free);

  if (outcome == NULL)
    {
      run->status = g_strdup ("failed");
      run->error = pd_redact (error->message, NULL);
      if (run->pending != NULL)
        {
          gboolean not_found = g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);

          _pd_server_respond_error (run->pending, not_found ? 404 : 400, not_found ? "session not found" : run->error);
          soup_server_message_unpause (run->pending);
          g_clear_object (&run->pending);
        }
    }
  else
    {
      if (run->session_id == NULL && outcome->session_id != NULL)
        run->session_id = g_strdup (outcome->session_id);
      run_answer_accepted (run);
      run->input_tokens = outcome->input_tokens;
      run->output_tokens = outcome->output_tokens;
      run->result = outcome->final_text ? pd_redact (outcome->final_text, NULL) : NULL;
      switch (outcome->status)
        {
        case PD_RUN_COMPLETED:
          run->status = g_strdup ("completed");
          break;
        case PD_RUN_CANCELLED:
          run->status = g_strdup ("cancelled");
          break;
        case PD_RUN_BUDGET_EXCEEDED:
          run->status = g_strdup ("failed");
          run->error = g_strdup_printf ("budget exceeded: %s", outcome->budget_name ? outcome->budget_name : "");
          break;
        case PD_RUN_FAILED:
        default:
          run->status = g_strdup ("failed");
          run->error = pd_redact (outcome->error_message ? outcome->error_message : "failed", NULL);
          break;
        }
    }

  _pd_server_bump_generation (self);
  self->active_runs--;
  g_queue_push_tail (&self->finished_runs, g_strdup (run->id));
  forget_finished_runs (self);
  _pd_server_run_unref (run);
  _pd_server_maybe_quit (self);
}

static Run *
find_active_run (PdServer   *self,
                 const char *session_id)
{
  GHashTableIter iter;
  Run *run;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    if (run->active && g_strcmp0 (run->session_id, session_id) == 0)
      return run;
  return NULL;
}

/* What a POST /api/prompt asked for, kept while its session is looked up. */
typedef struct
{
  char *message;
  char *session_id;   /* (nullable) a session to continue */
  char *model;        /* (nullable) */
} Prompt;

static void
prompt_free (gpointer data)
{
  Prompt *prompt = data;

  g_free (prompt->message);
  g_free (prompt->session_id);
  g_free (prompt->model);
  g_free (prompt);
}

/* Starts the run.  Returns TRUE when the run took @msg (it answers 202 once
 * the session is known), FALSE when @msg was answered with an error. */
static gboolean
prompt_start (PdServer          *self,
              SoupServerMessage *msg,
              Prompt            *prompt)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEngine) engine = NULL;
  PdServerRunRequest request = { 0 };
  g_autofree char *run_id = NULL;
  Run *run;

  if (prompt->session_id != NULL && find_active_run (self, prompt->session_id) != NULL)
    {
      _pd_server_respond_error (msg, 409, "session is busy");
      return FALSE;
    }
  if (self->active_runs >= PD_SERVER_MAX_ACTIVE_RUNS)
    {
      _pd_server_respond_error (msg, 503, "too many active runs");
      return FALSE;
    }

  run_id = pd_random_hex (16);
  request.session_id = prompt->session_id;
  request.message = prompt->message;
  request.model = prompt->model;
  request.run_id = run_id;
  request.store = self->store;
  request.bus = self->bus;
  if (!(engine = self->engine_func (&request, self->engine_data, &error)))
    {
      _pd_server_respond_error (msg, 400, error->message);
      return FALSE;
    }

  run = g_new0 (Run, 1);
  g_atomic_ref_count_init (&run->ref);
  run->server = self;
  run->id = g_strdup (run_id);
  run->session_id = g_strdup (prompt->session_id);
  run->model = g_strdup (prompt->model ? prompt->model : self->model);
  run->status = g_strdup ("running");
  run->started_at = g_get_real_time ();
  run->cancellable = g_cancellable_new ();
  run->engine = g_object_ref (engine);
  run->pending = g_object_ref (msg);
  run->active = TRUE;
  g_hash_table_insert (self->runs, g_strdup (run_id), run);
  self->active_runs++;

  soup_server_message_pause (msg);
  pd_engine_set_progress_func (engine, on_run_progress, run_ref (run), (GDestroyNotify) _pd_server_run_unref);
  pd_engine_run_async (engine, prompt->session_id, prompt->message, run->cancellable, on_run_done, run_ref (run));
  return TRUE;
}

/* The request may continue the session (it carried its token). */
static void
on_prompt_authorized (PdServer          *self,
                      SoupServerMessage *msg,
                      gpointer           data)
{
  /* @msg is paused for the lookup: a run unpauses it with its 202. */
  if (!prompt_start (self, msg, data))
    soup_server_message_unpause (msg);
}

/* POST /api/prompt {message, session_id?, model?}.  A run that continues a
 * session changes it: the same rule as rename and delete (404 for a
 * session that is not there, 401 without its token). */
void
_pd_server_handle_prompt (PdServer          *self,
                          SoupServerMessage *msg,
                          const char        *presented,
                          gboolean           instance_header)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  Prompt *prompt;
  JsonObject *object;
  JsonNode *node;
  const char *message = NULL, *session_id = NULL, *model = NULL;
  const char *data;
  gsize len;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }

  body = _pd_server_request_body (msg);
  data = g_bytes_get_data (body, &len);
  if (len > PD_SERVER_MAX_BODY)
    {
      _pd_server_respond_error (msg, 413, "request body too large");
      return;
    }
  if (len == 0 || pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, data, (gssize) len, &error) ||
      json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      _pd_server_respond_error (msg, 400, "invalid JSON body");
      return;
    }
  object = json_node_get_object (json_parser_get_root (parser));

  node = json_object_get_member (object, "message");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    message = json_node_get_string (node);
  if (message == NULL || *message == '\0')
    {
      _pd_server_respond_error (msg, 400, "message required");
      return;
    }
  node = json_object_get_member (object, "session_id");
  if (node && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          _pd_server_respond_error (msg, 400, "invalid session id");
          return;
        }
      session_id = json_node_get_string (node);
      if (*session_id == '\0')
        session_id = NULL;
      else if (!pd_session_id_is_valid (session_id))
        {
          _pd_server_respond_error (msg, 400, "invalid session id");
          return;
        }
    }
  node = json_object_get_member (object, "model");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    model = json_node_get_string (node);

  if (self->engine_func == NULL)
    {
      _pd_server_respond_error (msg, 501, "this server does not run prompts");
      return;
    }

  prompt = g_new0 (Prompt, 1);
  prompt->message = g_strdup (message);
  prompt->session_id = g_strdup (session_id);
  prompt->model = g_strdup (model);

  if (session_id == NULL)
    {
      prompt_start (self, msg, prompt);
      prompt_free (prompt);
      return;
    }
  _pd_server_authorize_change (self, msg, session_id, presented, instance_header,
                               on_prompt_authorized, prompt, prompt_free);
}

void
_pd_server_handle_runs (PdServer          *self,
                        SoupServerMessage *msg,
                        const char        *rest)
{
  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }

  if (rest == NULL || *rest == '\0')
    {
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();
      GHashTableIter iter;
      Run *run;

      g_hash_table_iter_init (&iter, self->runs);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
        json_array_add_object_element (array, run_to_json (run));
      json_object_set_int_member (object, "count", json_array_get_length (array));
      json_object_set_array_member (object, "runs", array);
      _pd_server_respond_json (msg, 200, object);
      return;
    }

  {
    Run *run = g_hash_table_lookup (self->runs, rest);

    if (run == NULL)
      _pd_server_respond_error (msg, 404, "run not found");
    else
      _pd_server_respond_json (msg, 200, run_to_json (run));
  }
}

/* The request may cancel the session's run (it carried its token). */
static void
on_cancel_authorized (PdServer          *self,
                      SoupServerMessage *msg,
                      gpointer           data)
{
  const char *session_id = data;
  Run *run = find_active_run (self, session_id);
  JsonObject *object;

  if (run != NULL)
    g_cancellable_cancel (run->cancellable);

  object = json_object_new ();
  json_object_set_string_member (object, "session_id", session_id);
  json_object_set_boolean_member (object, "idle", run == NULL);
  _pd_server_respond_json (msg, 200, object);
  soup_server_message_unpause (msg);
}

/* POST /api/cancel?session_id=: odek's answers, 400 without an id, 404 for
 * a session that is not there, 401 without its token, else 200
 * {session_id, idle}. */
void
_pd_server_handle_cancel (PdServer          *self,
                          SoupServerMessage *msg,
                          GHashTable        *query,
                          const char        *presented,
                          gboolean           instance_header)
{
  const char *session_id = _pd_server_query_get (query, "session_id");

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (session_id == NULL || *session_id == '\0')
    {
      _pd_server_respond_error (msg, 400, "missing session_id");
      return;
    }
  /* A session id that could be no session's is no session (odek: 404). */
  if (!pd_session_id_is_valid (session_id))
    {
      _pd_server_respond_error (msg, 404, "session not found");
      return;
    }

  _pd_server_authorize_change (self, msg, session_id, presented, instance_header,
                               on_cancel_authorized, g_strdup (session_id), g_free);
}

/* Stopping: every active run is cancelled; each saves and ends on its own. */
void
_pd_server_cancel_runs (PdServer *self)
{
  GHashTableIter iter;
  Run *run;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    if (run->active)
      g_cancellable_cancel (run->cancellable);
}

/* Stopped: runs kept for GET /api/runs hold a pointer back; none is active
 * any more. */
void
_pd_server_detach_runs (PdServer *self)
{
  GHashTableIter iter;
  Run *run;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    run->server = NULL;
}

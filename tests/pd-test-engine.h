/* pd-test-engine.h: what the engine tests share.
 *
 * A fixture with everything real: a session database in a fresh temporary
 * folder, an event bus with a sink that keeps every event, a plan store, the
 * built-in tools working in a temporary working directory, an approver.
 * Only the model is scripted (replay, or a loopback HTTP server).
 *
 * PdRecorder wraps a provider and keeps the text of every request the
 * engine sends, so a test can look at exactly what the model was shown.
 * Side calls (requests without tools: compaction) are answered by the
 * recorder itself when a digest is set, so they do not use scripted turns.
 *
 * Header-only because the test list in tests/meson.build builds one source
 * file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "pd-approver.h"
#include "pd-engine.h"
#include "pd-event-bus.h"
#include "pd-json.h"
#include "pd-plan.h"
#include "pd-provider.h"
#include "pd-replay-provider.h"
#include "pd-session-store.h"
#include "pd-test-files.h"
#include "pd-tool-registry.h"
#include "pd-transcript.h"

/* --- PdRecorder ------------------------------------------------------ */

#define PD_TYPE_RECORDER (pd_recorder_get_type ())
G_DECLARE_FINAL_TYPE (PdRecorder, pd_recorder, PD, RECORDER, GObject)

typedef void (*PdRecorderHook) (PdRecorder *recorder,
                                guint       index,
                                gpointer    user_data);

struct _PdRecorder
{
  GObject         parent_instance;
  PdProvider     *inner;
  GMutex          lock;
  GPtrArray      *requests;     /* char *: the messages array of each model request, as JSON text */
  guint           side_calls;
  char           *digest;       /* answer to side calls, or NULL to pass them on */
  PdRecorderHook  hook;         /* called before each model request is passed on */
  gpointer        hook_data;
};

static void pd_recorder_iface_init (PdProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdRecorder, pd_recorder, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_PROVIDER, pd_recorder_iface_init))

static const char *
pd_recorder_get_name (PdProvider *provider)
{
  return pd_provider_get_name (PD_RECORDER (provider)->inner);
}

static PdProviderResponse *
pd_recorder_chat (PdProvider               *provider,
                  const PdProviderRequest  *request,
                  PdProviderDeltaFunc       on_delta,
                  gpointer                  delta_data,
                  GCancellable             *cancellable,
                  GError                  **error)
{
  PdRecorder *self = PD_RECORDER (provider);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  guint index;

  if (request->tools == NULL && self->digest != NULL)
    {
      PdProviderResponse *response = pd_provider_response_new ();

      g_free (response->content);
      response->content = g_strdup (self->digest);
      g_mutex_lock (&self->lock);
      self->side_calls++;
      g_mutex_unlock (&self->lock);
      return response;
    }

  json_node_set_array (node, request->messages);
  g_mutex_lock (&self->lock);
  index = self->requests->len;
  g_ptr_array_add (self->requests, pd_json_to_string (node, FALSE));
  g_mutex_unlock (&self->lock);

  if (self->hook != NULL)
    self->hook (self, index, self->hook_data);

  return pd_provider_chat (self->inner, request, on_delta, delta_data, cancellable, error);
}

static void
pd_recorder_iface_init (PdProviderInterface *iface)
{
  iface->get_name = pd_recorder_get_name;
  iface->chat = pd_recorder_chat;
}

static void
pd_recorder_finalize (GObject *object)
{
  PdRecorder *self = PD_RECORDER (object);

  g_clear_object (&self->inner);
  g_ptr_array_unref (self->requests);
  g_free (self->digest);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (pd_recorder_parent_class)->finalize (object);
}

static void
pd_recorder_class_init (PdRecorderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_recorder_finalize;
}

static void
pd_recorder_init (PdRecorder *self)
{
  g_mutex_init (&self->lock);
  self->requests = g_ptr_array_new_with_free_func (g_free);
}

G_GNUC_UNUSED static PdRecorder *
pd_recorder_new (PdProvider *inner)
{
  PdRecorder *self = g_object_new (PD_TYPE_RECORDER, NULL);

  self->inner = g_object_ref (inner);
  return self;
}

G_GNUC_UNUSED static guint
pd_recorder_n_requests (PdRecorder *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->requests->len;
  g_mutex_unlock (&self->lock);
  return n;
}

/* The messages of request @index. */
G_GNUC_UNUSED static JsonArray *
pd_recorder_request (PdRecorder *self,
                     guint       index)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  g_mutex_lock (&self->lock);
  g_assert_cmpuint (index, <, self->requests->len);
  node = pd_json_parse (g_ptr_array_index (self->requests, index), -1, &error);
  g_mutex_unlock (&self->lock);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_array_ref (json_node_get_array (node));
}

/* --- helpers --------------------------------------------------------- */

/* Recordings are written with ' for " so they stay readable in C. */
G_GNUC_UNUSED static char *
q (const char *text)
{
  char *out = g_strdup (text);

  for (char *p = out; *p; p++)
    if (*p == '\'')
      *p = '"';
  return out;
}

/* The text of a JSON node (messages, data) for substring assertions. */
G_GNUC_UNUSED static char *
object_text (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return pd_json_to_string (node, FALSE);
}

G_GNUC_UNUSED static const char *
msg_role (JsonArray *messages,
          guint      index)
{
  return pd_message_get_role (json_array_get_object_element (messages, index));
}

G_GNUC_UNUSED static const char *
msg_content (JsonArray *messages,
             guint      index)
{
  return pd_message_get_content (json_array_get_object_element (messages, index));
}

/* Index of the (only) plan message, -1 when none; fails on two. */
G_GNUC_UNUSED static int
plan_message_index (JsonArray *messages)
{
  int found = -1;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    if (pd_message_is_plan (json_array_get_object_element (messages, i)))
      {
        g_assert_cmpint (found, ==, -1);
        found = (int) i;
      }
  return found;
}

/* How many messages with @role contain @needle. */
G_GNUC_UNUSED static guint
count_messages (JsonArray  *messages,
                const char *role,
                const char *needle)
{
  guint n = 0;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      const char *content = msg_content (messages, i);

      if ((role == NULL || g_strcmp0 (msg_role (messages, i), role) == 0) &&
          content != NULL && strstr (content, needle) != NULL)
        n++;
    }
  return n;
}

/* --- the fixture ----------------------------------------------------- */

typedef struct
{
  char           *dir;
  char           *workdir;
  char           *db_path;
  PdDb           *db;
  PdSessionStore *store;
  PdEventBus     *bus;
  GMutex          events_lock;
  GPtrArray      *events;       /* PdEvent */
  PdPlanStore    *plan_store;
  PdToolRegistry *tools;
  PdToolContext  *context;
  PdApprover     *approver;
  PdRecorder     *recorder;
  PdEngine       *engine;
  GPtrArray      *notices;      /* char *: progress notices */
  char           *streamed;     /* all streamed text */
  GString        *text;
  gboolean        no_store;     /* engines get no session store */
} EngineFixture;

static void
collect_event (PdEvent  *event,
               gpointer  user_data)
{
  EngineFixture *f = user_data;

  g_mutex_lock (&f->events_lock);
  g_ptr_array_add (f->events, pd_event_ref (event));
  g_mutex_unlock (&f->events_lock);
}

static void
on_progress (PdEngineProgress  kind,
             const char       *text,
             gpointer          user_data)
{
  EngineFixture *f = user_data;

  if (kind == PD_ENGINE_PROGRESS_NOTICE || kind == PD_ENGINE_PROGRESS_DISCARDED ||
      kind == PD_ENGINE_PROGRESS_RETRY)
    g_ptr_array_add (f->notices, g_strdup (text));
  else if (kind == PD_ENGINE_PROGRESS_TEXT)
    g_string_append (f->text, text);
}

G_GNUC_UNUSED static void
engine_fixture_setup (EngineFixture *f,
                      gboolean       planning)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-test-engine-XXXXXX", &error);
  g_assert_no_error (error);
  f->workdir = g_build_filename (f->dir, "work", NULL);
  g_assert_cmpint (g_mkdir (f->workdir, 0700), ==, 0);
  f->db_path = g_build_filename (f->dir, "sessions.db", NULL);
  f->db = pd_db_open (f->db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (f->db);

  g_mutex_init (&f->events_lock);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_event_unref);
  f->bus = pd_event_bus_new ();
  pd_event_bus_add_sink (f->bus, collect_event, f, NULL);

  f->plan_store = planning ? pd_plan_store_new (12, 2000) : NULL;
  f->tools = pd_tool_registry_new ();
  pd_tool_registry_add_builtins (f->tools, f->plan_store);
  f->context = pd_tool_context_new (f->workdir, &error);
  g_assert_no_error (error);
  pd_tool_context_set_shell_timeout_ms (f->context, 20000);
  f->approver = pd_approver_new (PD_APPROVAL_POLICY_AUTO);
  f->notices = g_ptr_array_new_with_free_func (g_free);
  f->text = g_string_new (NULL);
}

G_GNUC_UNUSED static void
engine_fixture_teardown (EngineFixture *f)
{
  g_clear_object (&f->engine);
  g_clear_object (&f->recorder);
  /* The bus joins its dispatcher when it goes; events are all delivered. */
  pd_event_bus_flush (f->bus);
  g_clear_object (&f->bus);
  g_ptr_array_unref (f->events);
  g_mutex_clear (&f->events_lock);
  g_clear_object (&f->plan_store);
  g_clear_object (&f->tools);
  g_clear_pointer (&f->context, pd_tool_context_unref);
  g_clear_object (&f->approver);
  g_clear_object (&f->store);
  g_clear_object (&f->db);
  g_ptr_array_unref (f->notices);
  g_string_free (f->text, TRUE);
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->workdir);
  g_free (f->db_path);
}

/* A fresh engine over @provider (wrapped in a recorder); @options may
 * adjust limits (provider, tools and the rest are filled in). */
G_GNUC_UNUSED static void
engine_fixture_make_engine (EngineFixture   *f,
                            PdProvider      *provider,
                            PdEngineOptions *options)
{
  PdEngineOptions defaults = { 0 };
  PdEngineOptions o = options ? *options : defaults;

  g_clear_object (&f->engine);
  g_clear_object (&f->recorder);
  f->recorder = pd_recorder_new (provider);

  o.provider = PD_PROVIDER (f->recorder);
  o.model = o.model ? o.model : "test-model";
  o.tools = f->tools;
  o.plan_store = f->plan_store;
  o.approver = f->approver;
  o.store = f->no_store ? NULL : f->store;
  o.bus = f->bus;
  o.tool_context = f->context;
  f->engine = pd_engine_new (&o);
  pd_engine_set_progress_func (f->engine, on_progress, f, NULL);
}

G_GNUC_UNUSED static PdReplayProvider *
replay_from (const char *recording)
{
  g_autofree char *text = q (recording);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  PdReplayProvider *replay;

  root = pd_json_parse (text, -1, &error);
  g_assert_no_error (error);
  replay = pd_replay_provider_new_from_json (root, &error);
  g_assert_no_error (error);
  return replay;
}

/* An engine over a replay of @recording (quotes written as '). */
G_GNUC_UNUSED static void
engine_fixture_replay (EngineFixture   *f,
                       const char      *recording,
                       PdEngineOptions *options)
{
  g_autoptr(PdReplayProvider) replay = replay_from (recording);

  engine_fixture_make_engine (f, PD_PROVIDER (replay), options);
}

G_GNUC_UNUSED static PdRunResult *
engine_fixture_run (EngineFixture *f,
                    const char    *session_id,
                    const char    *message)
{
  g_autoptr(GError) error = NULL;
  PdRunResult *result = pd_engine_run (f->engine, session_id, message, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_nonnull (result->session_id);
  /* pd_engine_run flushes the bus before it returns; flush again anyway. */
  g_assert_true (pd_event_bus_flush_timeout (f->bus, 10 * G_TIME_SPAN_SECOND));
  return result;
}

G_GNUC_UNUSED static guint
count_events (EngineFixture *f,
              const char    *type)
{
  guint n = 0;

  g_mutex_lock (&f->events_lock);
  for (guint i = 0; i < f->events->len; i++)
    if (g_strcmp0 (pd_event_get_event_type (g_ptr_array_index (f->events, i)), type) == 0)
      n++;
  g_mutex_unlock (&f->events_lock);
  return n;
}

/* The @nth event of @type, or NULL. */
G_GNUC_UNUSED static PdEvent *
nth_event (EngineFixture *f,
           const char    *type,
           guint          nth)
{
  PdEvent *found = NULL;

  g_mutex_lock (&f->events_lock);
  for (guint i = 0; i < f->events->len && found == NULL; i++)
    {
      PdEvent *event = g_ptr_array_index (f->events, i);

      if (g_strcmp0 (pd_event_get_event_type (event), type) == 0 && nth-- == 0)
        found = event;
    }
  g_mutex_unlock (&f->events_lock);
  return found;
}

G_GNUC_UNUSED static gint64
event_int (EngineFixture *f,
           const char    *type,
           guint          nth,
           const char    *member)
{
  PdEvent *event = nth_event (f, type, nth);
  JsonObject *data;

  g_assert_nonnull (event);
  data = pd_event_get_data (event);
  g_assert_nonnull (data);
  g_assert_true (json_object_has_member (data, member));
  return json_object_get_int_member (data, member);
}

G_GNUC_UNUSED static const char *
event_string (EngineFixture *f,
              const char    *type,
              guint          nth,
              const char    *member)
{
  PdEvent *event = nth_event (f, type, nth);
  JsonObject *data;

  g_assert_nonnull (event);
  data = pd_event_get_data (event);
  g_assert_nonnull (data);
  return json_object_get_string_member_with_default (data, member, NULL);
}

/* Event types in order, space-separated, for order assertions. */
G_GNUC_UNUSED static char *
event_sequence (EngineFixture *f)
{
  GString *out = g_string_new (NULL);

  g_mutex_lock (&f->events_lock);
  for (guint i = 0; i < f->events->len; i++)
    {
      if (out->len)
        g_string_append_c (out, ' ');
      g_string_append (out, pd_event_get_event_type (g_ptr_array_index (f->events, i)));
    }
  g_mutex_unlock (&f->events_lock);
  return g_string_free (out, FALSE);
}

G_GNUC_UNUSED static JsonArray *
stored_messages (EngineFixture *f,
                 const char    *session_id)
{
  g_autoptr(GError) error = NULL;
  JsonArray *messages = pd_session_store_load_messages (f->store, session_id, &error);

  g_assert_no_error (error);
  g_assert_nonnull (messages);
  return messages;
}

G_GNUC_UNUSED static PdPlanStep *
plan_step (PdPlanState *state,
           const char  *id)
{
  for (guint i = 0; i < state->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (state->steps, i);

      if (g_strcmp0 (step->id, id) == 0)
        return step;
    }
  g_assert_not_reached ();
  return NULL;
}

G_GNUC_UNUSED static PdPlanCheck *
step_check (PdPlanState *state,
            const char  *step_id,
            guint        index)
{
  PdPlanStep *step = plan_step (state, step_id);

  g_assert_cmpuint (index, <, step->checks->len);
  return g_ptr_array_index (step->checks, index);
}

G_GNUC_UNUSED static void
write_file (EngineFixture *f,
            const char    *name,
            const char    *contents)
{
  g_autofree char *path = g_build_filename (f->workdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

/* --- tests whose fixture is the EngineFixture alone -------------------- */

/* Data 0: the engine plans; GINT_TO_POINTER (1): no plan tool. */
G_GNUC_UNUSED static void
engine_fixture_test_setup (EngineFixture *f,
                           gconstpointer  data)
{
  engine_fixture_setup (f, GPOINTER_TO_INT (data) == 0);
}

G_GNUC_UNUSED static void
engine_fixture_test_teardown (EngineFixture *f,
                              gconstpointer  data)
{
  engine_fixture_teardown (f);
}

/* Recorded calls of the plan's usual course: create (with a check) →
 * write → run the check → complete. */
#define CREATE_CHECKED \
  "{'name':'plan','arguments':{'verb':'create','steps':[" \
  "{'id':'build','title':'Write hello.txt','checks':[{'id':'cat','description':'hello.txt is readable'," \
  "'tool':'shell','arguments':{'command':'cat hello.txt'}}]}," \
  "{'id':'docs','title':'Say so'}]}}"
#define WRITE_HELLO "{'name':'write_file','arguments':{'path':'hello.txt','content':'hello'}}"
#define RUN_CHECK   "{'name':'shell','arguments':{'command':'cat hello.txt'}}"
#define COMPLETE(id) "{'name':'plan','arguments':{'verb':'complete','step_id':'" id "'}}"

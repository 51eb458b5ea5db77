/* pd-engine-builder.c: one way to build an engine, for every front end.
 *
 * Everything an engine runs with comes from the configuration's typed
 * values (never from a section read by hand, so what a project file may not
 * set cannot reach an engine), from the profile a front end passes, or from
 * the callbacks it supplies.  pd_engine_new() stays the low-level
 * constructor: tests that script every part use it directly.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <glib/gstdio.h>

#include "pd-callback-slot.h"
#include "pd-db.h"
#include "pd-engine-builder.h"
#include "pd-event-bus.h"
#include "pd-http-provider.h"
#include "pd-plan-store.h"
#include "pd-provider.h"
#include "pd-secret-text.h"
#include "pd-session-store.h"
#include "pd-tool-registry.h"

static gboolean
approve_through (const char *tool,
                 const char *summary,
                 const char *preview,
                 gpointer    user_data)
{
  PdCallbackSlot *callback = user_data;

  return ((PdApprovalFunc) callback->func) (tool, summary, preview, callback->data);
}

static PdPlanReviewAnswer
review_through (const char  *markdown,
                char       **feedback,
                gpointer     user_data)
{
  PdCallbackSlot *callback = user_data;

  return ((PdPlanReviewFunc) callback->func) (markdown, feedback, callback->data);
}

struct _PdEngineBuilder
{
  GObject           parent_instance;

  PdConfig         *config;

  /* The profile: each NULL means the configuration's. */
  char             *provider_name;
  char             *base_url;
  char             *model;
  char             *api_key;
  char             *api_key_env;      /* where the profile's key came from */
  char             *replay_path;
  PdProvider       *provider;         /* a ready one (the demo's recording) */

  char             *working_directory;
  gboolean          planning;
  PdApprovalPolicy  policy;
  /* Shared by every engine the builder makes: each approver or review tool
   * holds a reference, and the data is destroyed with the last one. */
  PdCallbackSlot   *approval;    /* PdApprovalFunc */
  PdCallbackSlot   *review;      /* PdPlanReviewFunc */

  PdSessionStore   *store;
  char             *database_path;
  PdEventBus       *bus;
  char             *run_id;
  char             *source;
};

G_DEFINE_FINAL_TYPE (PdEngineBuilder, pd_engine_builder, G_TYPE_OBJECT)

static void
pd_engine_builder_finalize (GObject *object)
{
  PdEngineBuilder *self = (PdEngineBuilder *) object;

  g_clear_object (&self->config);
  g_free (self->provider_name);
  g_free (self->base_url);
  g_free (self->model);
  pd_secret_text_free (self->api_key);
  g_free (self->api_key_env);
  g_free (self->replay_path);
  g_clear_object (&self->provider);
  g_free (self->working_directory);
  g_clear_pointer (&self->approval, pd_callback_slot_unref);
  g_clear_pointer (&self->review, pd_callback_slot_unref);
  g_clear_object (&self->store);
  g_free (self->database_path);
  g_clear_object (&self->bus);
  g_free (self->run_id);
  g_free (self->source);

  G_OBJECT_CLASS (pd_engine_builder_parent_class)->finalize (object);
}

static void
pd_engine_builder_class_init (PdEngineBuilderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_engine_builder_finalize;
}

static void
pd_engine_builder_init (PdEngineBuilder *self)
{
  self->planning = TRUE;
  self->policy = PD_APPROVAL_POLICY_ASK;
}

/**
 * pd_engine_builder_new:
 * @config: the resolved configuration every engine follows
 *
 * Returns: (transfer full): a builder; by default the configuration's
 *   provider, the current folder, planning as configured, and approval
 *   policy ask with nobody to ask (so changes are refused)
 */
PdEngineBuilder *
pd_engine_builder_new (PdConfig *config)
{
  PdEngineBuilder *self;

  g_return_val_if_fail (PD_IS_CONFIG (config), NULL);

  self = g_object_new (PD_TYPE_ENGINE_BUILDER, NULL);
  self->config = g_object_ref (config);

  return self;
}

/**
 * pd_engine_builder_get_config:
 *
 * Returns: (transfer none): the configuration
 */
PdConfig *
pd_engine_builder_get_config (PdEngineBuilder *self)
{
  g_return_val_if_fail (PD_IS_ENGINE_BUILDER (self), NULL);

  return self->config;
}

static void
replace_string (char       **field,
                const char  *value)
{
  char *copy = value != NULL && *value != '\0' ? g_strdup (value) : NULL;

  g_free (*field);
  *field = copy;
}

/**
 * pd_engine_builder_set_provider_name:
 * @name: (nullable): openai, anthropic or replay; %NULL for the config's
 *
 * The configuration's endpoint, model and key go with the configuration's
 * provider only: naming another one leaves them out.
 */
void
pd_engine_builder_set_provider_name (PdEngineBuilder *self,
                                     const char      *name)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->provider_name, name);
}

/* (nullable): %NULL or "" for the config's (or the provider's default) */
void
pd_engine_builder_set_base_url (PdEngineBuilder *self,
                                const char      *base_url)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->base_url, base_url);
}

/* (nullable): %NULL or "" for the config's (or the provider's default) */
void
pd_engine_builder_set_model (PdEngineBuilder *self,
                             const char      *model)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->model, model);
}

/* (nullable): %NULL for the one in the config's key variable */
void
pd_engine_builder_set_api_key (PdEngineBuilder *self,
                               const char      *api_key)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  /* The key is wiped, not only freed: see pd-secret-text.h. */
  pd_secret_text_replace (&self->api_key, api_key);
}

/**
 * pd_engine_builder_set_api_key_env:
 * @name: (nullable): the variable the profile's key was read from
 *
 * Kept out of the environment of the commands the model runs, as the
 * configuration's key variable and the providers' own always are.
 */
void
pd_engine_builder_set_api_key_env (PdEngineBuilder *self,
                                   const char      *name)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->api_key_env, name);
}

/* The recorded turns the replay provider plays. */
void
pd_engine_builder_set_replay_path (PdEngineBuilder *self,
                                   const char      *path)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->replay_path, path);
}

/**
 * pd_engine_builder_set_provider:
 * @provider: (nullable): a provider every engine shares, instead of one
 *   made from the profile and the configuration
 */
void
pd_engine_builder_set_provider (PdEngineBuilder *self,
                                PdProvider      *provider)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));
  g_return_if_fail (provider == NULL || PD_IS_PROVIDER (provider));

  g_set_object (&self->provider, provider);
}

/**
 * pd_engine_builder_get_provider_name:
 *
 * Returns: (transfer none): the provider the next engine uses
 */
const char *
pd_engine_builder_get_provider_name (PdEngineBuilder *self)
{
  g_return_val_if_fail (PD_IS_ENGINE_BUILDER (self), NULL);

  if (self->provider_name != NULL)
    return self->provider_name;
  if (self->provider != NULL)
    return pd_provider_get_name (self->provider);
  return pd_config_get_provider_name (self->config);
}

/* The provider the configuration describes is the one in use: its endpoint,
 * model and key apply. */
static gboolean
uses_configured_provider (PdEngineBuilder *self)
{
  return g_strcmp0 (pd_engine_builder_get_provider_name (self),
                    pd_config_get_provider_name (self->config)) == 0;
}

/* The profile's base URL, else the configuration's (file or environment)
 * when it is for the same provider; %NULL leaves it to the provider. */
static const char *
configured_base_url (PdEngineBuilder *self)
{
  if (self->base_url == NULL && uses_configured_provider (self))
    return pd_config_get_provider_base_url (self->config);
  return self->base_url;
}

/**
 * pd_engine_builder_dup_base_url:
 * @error: where a provider that cannot be made says why
 *
 * Where the next engine's requests go, resolved exactly as
 * pd_engine_builder_build() resolves it: the profile's base URL, else the
 * configuration's, else the provider's environment variable.  A front end
 * looks up a stored key by this address, so that a key is only ever sent
 * to the address it was kept for.
 *
 * Returns: (transfer full) (nullable): the base URL, as the provider holds
 *   it; %NULL with @error unset for the provider's own default endpoint or
 *   a provider that sends nothing over HTTP (replay)
 */
char *
pd_engine_builder_dup_base_url (PdEngineBuilder  *self,
                                GError          **error)
{
  g_autoptr(PdProvider) provider = NULL;
  PdHttpProvider *http;

  g_return_val_if_fail (PD_IS_ENGINE_BUILDER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->provider != NULL)
    provider = g_object_ref (self->provider);
  else
    /* A key of "" keeps the provider from reading its key variable: only
     * the address is wanted. */
    provider = pd_provider_new_for_name (pd_engine_builder_get_provider_name (self),
                                         configured_base_url (self), "",
                                         self->replay_path, error);
  if (provider == NULL || !PD_IS_HTTP_PROVIDER (provider))
    return NULL;

  http = PD_HTTP_PROVIDER (provider);
  if (g_strcmp0 (pd_http_provider_get_base_url (http),
                 PD_HTTP_PROVIDER_GET_CLASS (http)->default_base_url) == 0)
    return NULL;
  return g_strdup (pd_http_provider_get_base_url (http));
}

static const char *
default_model (const char *provider)
{
  if (g_strcmp0 (provider, "anthropic") == 0)
    return "claude-sonnet-4-5";
  if (g_strcmp0 (provider, "replay") == 0)
    return "replay";
  return "gpt-4o-mini";
}

/**
 * pd_engine_builder_get_model:
 *
 * Returns: (transfer none): the model the next engine asks: the profile's,
 *   else the configuration's, else the provider's default
 */
const char *
pd_engine_builder_get_model (PdEngineBuilder *self)
{
  g_return_val_if_fail (PD_IS_ENGINE_BUILDER (self), NULL);

  if (self->model != NULL)
    return self->model;
  if (uses_configured_provider (self) && pd_config_get_provider_model (self->config) != NULL)
    return pd_config_get_provider_model (self->config);
  return default_model (pd_engine_builder_get_provider_name (self));
}

/* (nullable): the tools' folder; %NULL for the current one */
void
pd_engine_builder_set_working_directory (PdEngineBuilder *self,
                                         const char      *path)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->working_directory, path);
}

/**
 * pd_engine_builder_set_planning:
 * @allowed: %FALSE turns the plan tool off for these engines; %TRUE keeps
 *   what the configuration says (it cannot turn on what the config turned off)
 */
void
pd_engine_builder_set_planning (PdEngineBuilder *self,
                                gboolean         allowed)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  self->planning = !!allowed;
}

/**
 * pd_engine_builder_set_approval:
 * @policy: for tool calls that change things
 * @func: (nullable): asks a person under %PD_APPROVAL_POLICY_ASK, on a tool
 *   worker thread; %NULL: nobody to ask, so such calls are refused
 * @destroy: (nullable): frees @user_data once no engine of this builder
 *   needs it
 */
void
pd_engine_builder_set_approval (PdEngineBuilder  *self,
                                PdApprovalPolicy  policy,
                                PdApprovalFunc    func,
                                gpointer          user_data,
                                GDestroyNotify    destroy)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  self->policy = policy;
  g_clear_pointer (&self->approval, pd_callback_slot_unref);
  if (func != NULL)
    self->approval = pd_callback_slot_new (G_CALLBACK (func), user_data, destroy);
}

/**
 * pd_engine_builder_set_review_func:
 * @func: (nullable): shows a plan presented with exit_plan_mode to a person;
 *   %NULL: nobody to review, so the call fails and plan mode stays
 */
void
pd_engine_builder_set_review_func (PdEngineBuilder  *self,
                                   PdPlanReviewFunc  func,
                                   gpointer          user_data,
                                   GDestroyNotify    destroy)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  g_clear_pointer (&self->review, pd_callback_slot_unref);
  if (func != NULL)
    self->review = pd_callback_slot_new (G_CALLBACK (func), user_data, destroy);
}

/* (nullable): where sessions are saved; wins over a database path */
void
pd_engine_builder_set_store (PdEngineBuilder *self,
                             PdSessionStore  *store)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  g_set_object (&self->store, store);
}

/**
 * pd_engine_builder_set_database_path:
 * @path: (nullable): a session database each build opens its own
 *   connection to (so a window's source sees the engine's commits as it
 *   sees any other writer's)
 */
void
pd_engine_builder_set_database_path (PdEngineBuilder *self,
                                     const char      *path)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->database_path, path);
}

/**
 * pd_engine_builder_set_bus:
 * @bus: (nullable): where events go; %NULL: a new bus per engine that
 *   stores them with the session
 */
void
pd_engine_builder_set_bus (PdEngineBuilder *self,
                           PdEventBus      *bus)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  g_set_object (&self->bus, bus);
}

/* (nullable): every run of the next engines uses this id (serve names a run
 * before it starts) */
void
pd_engine_builder_set_run_id (PdEngineBuilder *self,
                              const char      *run_id)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->run_id, run_id);
}

/* (nullable): the session's source, "plandeck" unless said ("demo") */
void
pd_engine_builder_set_source (PdEngineBuilder *self,
                              const char      *source)
{
  g_return_if_fail (PD_IS_ENGINE_BUILDER (self));

  replace_string (&self->source, source);
}

/* A run writes its session from the first turn: a database this process
 * cannot write (a read-only file, a read-only connection) is refused here,
 * for every front end, before anything runs, not at each save. */
static PdSessionStore *
open_store (PdEngineBuilder  *self,
            GError          **error)
{
  g_autoptr(PdDb) db = NULL;
  g_autofree char *dir = NULL;

  if (self->store != NULL)
    db = g_object_ref (pd_session_store_get_db (self->store));
  else if (self->database_path == NULL)
    return NULL;
  else
    {
      dir = g_path_get_dirname (self->database_path);
      g_mkdir_with_parents (dir, 0700);
      if (!(db = pd_db_open (self->database_path, PD_DB_CREATE, error)))
        return NULL;
    }

  if (!pd_db_check_writable (db, error))
    {
      g_prefix_error (error, "no run can start, its session could not be saved: ");
      return NULL;
    }

  return self->store != NULL ? g_object_ref (self->store) : pd_session_store_new (db);
}

/**
 * pd_engine_builder_build:
 *
 * A provider, a tool registry with the builtins (and the plan tool when
 * planning), an approver with the front end's asker, the plan-mode rules
 * and the limits of the configuration, wired into a new engine.
 *
 * Returns: (transfer full): the engine, or %NULL with @error set (a
 *   provider that cannot be made, a folder or database that cannot be opened)
 */
PdEngine *
pd_engine_builder_build (PdEngineBuilder  *self,
                         GError          **error)
{
  PdConfig *config;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdToolContext) tool_context = NULL;
  g_autoptr(PdPlanStore) plan_store = NULL;
  g_autoptr(PdToolRegistry) tools = NULL;
  g_autoptr(PdApprover) approver = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdEventBus) bus = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *here = NULL;
  PdEngineOptions options = { 0 };

  g_return_val_if_fail (PD_IS_ENGINE_BUILDER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  config = self->config;

  if (self->provider != NULL)
    provider = g_object_ref (self->provider);
  else
    {
      const char *api_key = self->api_key;

      if (uses_configured_provider (self))
        {
          const char *key_env = pd_config_get_provider_api_key_env (config);

          if (api_key == NULL && key_env != NULL)
            api_key = g_getenv (key_env);
        }

      provider = pd_provider_new_for_name (pd_engine_builder_get_provider_name (self),
                                           configured_base_url (self), api_key,
                                           self->replay_path, error);
      if (provider == NULL)
        return NULL;
    }

  here = self->working_directory != NULL ? g_canonicalize_filename (self->working_directory, NULL)
                                         : g_get_current_dir ();
  if (!(tool_context = pd_tool_context_new (here, error)))
    return NULL;
  pd_tool_context_set_allow_outside (tool_context, pd_config_get_allow_outside (config));
  /* The person's key variables never reach a command the model runs. */
  if (pd_config_get_provider_api_key_env (config) != NULL)
    pd_tool_context_hide_env (tool_context, pd_config_get_provider_api_key_env (config));
  if (pd_config_get_unused_api_key_env (config) != NULL)
    pd_tool_context_hide_env (tool_context, pd_config_get_unused_api_key_env (config));
  if (self->api_key_env != NULL)
    pd_tool_context_hide_env (tool_context, self->api_key_env);

  if (self->planning && pd_config_get_planning_enabled (config))
    plan_store = pd_plan_store_new (pd_config_get_planning_max_steps (config),
                                    pd_config_get_planning_max_render_chars (config));

  tools = pd_tool_registry_new ();
  pd_tool_registry_add_builtins (tools, plan_store);

  if (self->review != NULL)
    {
      PdTool *exit_tool = pd_tool_registry_lookup (tools, "exit_plan_mode");

      if (exit_tool != NULL && PD_IS_EXIT_PLAN_MODE_TOOL (exit_tool))
        pd_exit_plan_mode_tool_set_review_func (PD_EXIT_PLAN_MODE_TOOL (exit_tool), review_through,
                                                pd_callback_slot_ref (self->review),
                                                (GDestroyNotify) pd_callback_slot_unref);
    }

  approver = pd_approver_new (self->policy);
  if (self->approval != NULL)
    pd_approver_set_func (approver, approve_through, pd_callback_slot_ref (self->approval),
                          (GDestroyNotify) pd_callback_slot_unref);

  store = open_store (self, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (self->bus != NULL)
    bus = g_object_ref (self->bus);
  else if (store != NULL)
    {
      bus = pd_event_bus_new ();
      pd_engine_store_events (bus, store);
    }

  options.provider = provider;
  options.provider_name = pd_engine_builder_get_provider_name (self);
  options.model = pd_engine_builder_get_model (self);
  options.tools = tools;
  options.plan_store = plan_store;
  options.approver = approver;
  options.store = store;
  options.bus = bus;
  options.tool_context = tool_context;
  options.source = self->source;
  options.run_id = self->run_id;
  options.max_iterations = pd_config_get_max_iterations (config);
  options.max_tokens = pd_config_get_max_tokens (config);
  options.max_wall_ms = (gint64) pd_config_get_max_seconds (config) * 1000;
  /* The config's output limit and thinking are for the config's provider. */
  if (uses_configured_provider (self))
    {
      options.max_output_tokens = pd_config_get_max_output_tokens (config);
      options.thinking_budget = pd_config_get_thinking_budget (config);
    }
  options.plan_mode_section = pd_config_get_plan_mode_section (config);
  options.plan_mode_advisory = pd_config_get_plan_mode_advisory (config);

  return pd_engine_new (&options);
}

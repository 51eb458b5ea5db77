/* pd-config.c: load and resolve the Plandeck configuration.
 *
 * Every key has one entry in the table below: its type, its range, and what
 * a project file may do with it.  Resolution walks the layers from the
 * bottom up:
 *
 *   defaults → global config → project config (may only lower or opt out)
 *            → the environment → the command line
 *
 * with two environment rules kept from before: PLANDECK_PLANNING sits above
 * both files (seed 000), while OPENAI_BASE_URL / ANTHROPIC_BASE_URL and
 * PLANDECK_MODEL only fill what no file or flag gave.
 *
 * The project rule is one rule for every key (seed 000's clampProjectPlanning,
 * made general): a repository's plandeck.json can lower a cap or turn a
 * switch off, nothing else.  It cannot choose where requests go or with
 * which key, which model answers, what the plan-mode guidance says, or loosen
 * plan mode or the tools' folder, because whoever wrote the repository is
 * not the person running the agent.
 *
 * Everything here is warnings, not errors: a broken config file must never
 * stop the agent, it must only be ignored loudly enough to get fixed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-config"

#include "config.h"

#include <string.h>

#include <glib.h>
#include <glib/gi18n-lib.h>

#include "pd-config-private.h"
#include "pd-safe-text.h"

const PdConfigKeySpec _pd_config_keys[N_KEYS] = {
  [KEY_PROVIDER_NAME] = { "provider", "name", "provider.name", KEY_TYPE_STRING, PROJECT_IGNORED },
  [KEY_PROVIDER_BASE_URL] = { "provider", "base_url", "provider.base_url", KEY_TYPE_STRING, PROJECT_IGNORED },
  [KEY_PROVIDER_MODEL] = { "provider", "model", "provider.model", KEY_TYPE_STRING, PROJECT_IGNORED },
  [KEY_PROVIDER_API_KEY_ENV] = { "provider", "api_key_env", "provider.api_key_env", KEY_TYPE_STRING, PROJECT_IGNORED },
  /* What one answer may write, and think: caps a project may only lower. */
  [KEY_PROVIDER_MAX_OUTPUT_TOKENS] = { "provider", "max_output_tokens", "provider.max_output_tokens", KEY_TYPE_COUNT,
                                       PROJECT_LOWER, 1, PD_CONFIG_PROVIDER_MAX_OUTPUT_TOKENS_MAX, FALSE },
  /* Unset, nothing thinks: a budget is something to turn on, not a cap
   * to lift, so a project may lower the person's, never start one. */
  [KEY_PROVIDER_THINKING_BUDGET] = { "provider", "thinking_budget", "provider.thinking_budget", KEY_TYPE_COUNT,
                                     PROJECT_LOWER, PD_CONFIG_PROVIDER_THINKING_BUDGET_MIN,
                                     PD_CONFIG_PROVIDER_MAX_OUTPUT_TOKENS_MAX, FALSE },
  [KEY_PLANNING_ENABLED] = { "planning", "enabled", "planning.enabled", KEY_TYPE_BOOLEAN, PROJECT_OPT_OUT },
  [KEY_PLANNING_MAX_STEPS] = { "planning", "max_steps", "planning.max_steps", KEY_TYPE_COUNT, PROJECT_LOWER,
                               PD_CONFIG_PLANNING_MAX_STEPS_MIN, PD_CONFIG_PLANNING_MAX_STEPS_MAX },
  [KEY_PLANNING_MAX_RENDER_CHARS] = { "planning", "max_render_chars", "planning.max_render_chars", KEY_TYPE_COUNT, PROJECT_LOWER,
                                      PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN, PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX },
  [KEY_PLAN_MODE_SECTION] = { "plan_mode", "section", "plan_mode.section", KEY_TYPE_STRING, PROJECT_IGNORED },
  [KEY_PLAN_MODE_ADVISORY] = { "plan_mode", "advisory", "plan_mode.advisory", KEY_TYPE_BOOLEAN, PROJECT_OPT_OUT },
  [KEY_LIMITS_MAX_ITERATIONS] = { "limits", "max_iterations", "limits.max_iterations", KEY_TYPE_COUNT, PROJECT_LOWER,
                                  1, PD_CONFIG_LIMITS_MAX_ITERATIONS_MAX },
  [KEY_LIMITS_MAX_TOKENS] = { "limits", "max_tokens", "limits.max_tokens", KEY_TYPE_COUNT, PROJECT_LOWER,
                              1, PD_CONFIG_LIMITS_MAX_TOKENS_MAX, TRUE },
  [KEY_LIMITS_MAX_SECONDS] = { "limits", "max_seconds", "limits.max_seconds", KEY_TYPE_COUNT, PROJECT_LOWER,
                               1, PD_CONFIG_LIMITS_MAX_SECONDS_MAX, TRUE },
  [KEY_TOOLS_ALLOW_OUTSIDE] = { "tools", "allow_outside", "tools.allow_outside", KEY_TYPE_BOOLEAN, PROJECT_OPT_OUT },
};

/* In the order they are shown. */
const char * const _pd_config_sections[PD_CONFIG_N_SECTIONS] = { "provider", "planning", "plan_mode", "limits", "tools" };

G_DEFINE_FINAL_TYPE (PdConfig, pd_config, G_TYPE_OBJECT)

G_DEFINE_QUARK (pd-config-error-quark, pd_config_error)

static void
pd_config_finalize (GObject *object)
{
  PdConfig *self = (PdConfig *)object;

  for (guint i = 0; i < N_KEYS; i++)
    g_clear_pointer (&self->values[i].string, g_free);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->global_path, g_free);
  g_clear_pointer (&self->project_path, g_free);
  g_clear_pointer (&self->unused_api_key_env, g_free);

  G_OBJECT_CLASS (pd_config_parent_class)->finalize (object);
}

static void
pd_config_class_init (PdConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_config_finalize;
}

static void
pd_config_init (PdConfig *self)
{
  self->values[KEY_PROVIDER_NAME].string = g_strdup (PD_CONFIG_PROVIDER_DEFAULT);
  self->values[KEY_PLANNING_ENABLED].boolean = PD_CONFIG_PLANNING_ENABLED_DEFAULT;
  self->values[KEY_PLANNING_MAX_STEPS].count = PD_CONFIG_PLANNING_MAX_STEPS_DEFAULT;
  self->values[KEY_PLANNING_MAX_RENDER_CHARS].count = PD_CONFIG_PLANNING_MAX_RENDER_CHARS_DEFAULT;
  self->values[KEY_LIMITS_MAX_ITERATIONS].count = PD_CONFIG_LIMITS_MAX_ITERATIONS_DEFAULT;
  self->warnings = g_ptr_array_new_null_terminated (4, g_free, TRUE);
}

void
_pd_config_add_warning (PdConfig   *self,
                        const char *format,
                        ...)
{
  va_list args;
  g_autofree char *text = NULL;
  char *message;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  /* A warning quotes what a project's file holds: its bidi controls and
   * other invisible characters are named (<U+202E>), never printed raw to
   * a terminal (tried as an attacker would). */
  message = pd_safe_text_line (text);
  g_debug ("%s", message);
  g_ptr_array_add (self->warnings, message);
}

static gint64
clamp_setting (PdConfig   *self,
               const char *where,
               const char *name,
               gint64      value,
               const char *shown,
               gint64      min,
               gint64      max)
{
  gint64 clamped;

  if (value < min)
    clamped = min;
  else if (value > max)
    clamped = max;
  else
    return value;

  {
    /* Numbers as text: a G_GINT64_FORMAT inside _() hides the message from xgettext. */
    g_autofree char *min_text = g_strdup_printf ("%" G_GINT64_FORMAT, min);
    g_autofree char *max_text = g_strdup_printf ("%" G_GINT64_FORMAT, max);
    g_autofree char *clamped_text = g_strdup_printf ("%" G_GINT64_FORMAT, clamped);

    _pd_config_add_warning (self, _("%s: %s %s is out of range %s..%s; using %s"),
                 where, name, shown, min_text, max_text, clamped_text);
  }

  return clamped;
}

static void
set_string (PdConfig       *self,
            PdConfigKey     key,
            const char     *text,
            PdConfigOrigin  origin)
{
  g_free (self->values[key].string);
  self->values[key].string = g_strdup (text);
  self->values[key].origin = origin;
}

static void
set_count (PdConfig       *self,
           PdConfigKey     key,
           gint64          count,
           PdConfigOrigin  origin)
{
  self->values[key].count = count;
  self->values[key].origin = origin;
}

static void
set_boolean (PdConfig       *self,
             PdConfigKey     key,
             gboolean        value,
             PdConfigOrigin  origin)
{
  self->values[key].boolean = value;
  self->values[key].origin = origin;
}

/* The global layer replaces the defaults, within the hard limits. */
static void
apply_global (PdConfig              *self,
              const char            *where,
              const PdConfigSetting  settings[N_KEYS])
{
  for (guint k = 0; k < N_KEYS; k++)
    {
      const PdConfigSetting *setting = &settings[k];

      if (!setting->set)
        continue;

      switch (_pd_config_keys[k].type)
        {
        case KEY_TYPE_BOOLEAN:
          set_boolean (self, k, setting->boolean, PD_CONFIG_ORIGIN_GLOBAL);
          break;
        case KEY_TYPE_COUNT:
          set_count (self, k,
                     clamp_setting (self, where, _pd_config_keys[k].path, setting->count.value,
                                    setting->count.shown, _pd_config_keys[k].min, _pd_config_keys[k].max),
                     PD_CONFIG_ORIGIN_GLOBAL);
          break;
        case KEY_TYPE_STRING:
        default:
          set_string (self, k, setting->string, PD_CONFIG_ORIGIN_GLOBAL);
          break;
        }
    }
}

/* The project layer: a checked-out repository is not trusted to widen what
 * the person's own config allows, only to narrow it. */
static void
apply_project (PdConfig              *self,
               const char            *where,
               const PdConfigSetting  settings[N_KEYS])
{
  for (guint k = 0; k < N_KEYS; k++)
    {
      const PdConfigSetting *setting = &settings[k];
      const PdConfigKeySpec *spec = &_pd_config_keys[k];
      PdConfigValue *current = &self->values[k];

      if (!setting->set)
        continue;

      switch (spec->project)
        {
        case PROJECT_LOWER:
          {
            gboolean capped = !(spec->no_cap && current->count == 0);
            /* Judged as it would be taken: a value below the key's range is
             * held at its smallest, and for the thinking budget that is
             * 1 024, above the 0 (no thinking) a project must not raise. */
            gint64 taken = CLAMP (setting->count.value, spec->min, spec->max);

            if (capped && taken > current->count)
              {
                g_autofree char *current_text = g_strdup_printf ("%" G_GINT64_FORMAT, current->count);

                _pd_config_add_warning (self, _("%s: %s %s ignored: a project may only lower it (global value %s)"),
                             where, spec->path, setting->count.shown, current_text);
                break;
              }
            set_count (self, k,
                       clamp_setting (self, where, spec->path, setting->count.value,
                                      setting->count.shown, spec->min, spec->max),
                       PD_CONFIG_ORIGIN_PROJECT);
          }
          break;

        case PROJECT_OPT_OUT:
          if (!setting->boolean)
            set_boolean (self, k, FALSE, PD_CONFIG_ORIGIN_PROJECT);
          else if (!current->boolean)
            _pd_config_add_warning (self, _("%s: %s true ignored: a project may only turn it off"),
                         where, spec->path);
          /* true where it is already on says nothing new */
          break;

        case PROJECT_IGNORED:
        default:
          _pd_config_add_warning (self, _("%s: %s ignored: a project file may only lower limits or turn things off; set it in your own config or on the command line"),
                       where, spec->path);
          break;
        }
    }
}

/* TRUE when @text is one of the accepted spellings, with the value in *out. */
static gboolean
parse_boolean_word (const char *text,
                    gboolean   *out)
{
  static const char * const yes[] = { "true", "1", "yes", "on" };
  static const char * const no[] = { "false", "0", "no", "off" };

  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    {
      if (g_ascii_strcasecmp (text, yes[i]) == 0)
        {
          *out = TRUE;
          return TRUE;
        }
      if (g_ascii_strcasecmp (text, no[i]) == 0)
        {
          *out = FALSE;
          return TRUE;
        }
    }

  return FALSE;
}

/* PLANDECK_PLANNING: above both files, so one shell can switch planning off
 * (or back on) without editing any config. */
static void
apply_planning_env (PdConfig *self)
{
  const char *env = g_getenv (PD_CONFIG_ENV_PLANNING);
  g_autofree char *stripped = NULL;
  gboolean value;

  if (env == NULL)
    return;

  stripped = g_strstrip (g_strdup (env));

  /* PLANDECK_PLANNING= (empty) is how shells unset a variable for one
   * command, so it means "not set", not a mistake. */
  if (parse_boolean_word (stripped, &value))
    set_boolean (self, KEY_PLANNING_ENABLED, value, PD_CONFIG_ORIGIN_ENVIRONMENT);
  else if (stripped[0] != '\0')
    {
      g_autofree char *shown = _pd_config_display_text (env);

      _pd_config_add_warning (self, _("environment: %s=%s ignored: use true/false, 1/0, yes/no or on/off"),
                   PD_CONFIG_ENV_PLANNING, shown);
    }
}

static void
apply_cli_count (PdConfig    *self,
                 PdConfigKey  key,
                 const char  *option,
                 gint64       value)
{
  char shown[32];

  g_snprintf (shown, sizeof shown, "%" G_GINT64_FORMAT, value);
  set_count (self, key,
             clamp_setting (self, _("command line"), option, value, shown, _pd_config_keys[key].min, _pd_config_keys[key].max),
             PD_CONFIG_ORIGIN_COMMAND_LINE);
}

/* Command line: the most explicit request wins. */
static void
apply_cli (PdConfig                  *self,
           const PdConfigLoadOptions *options)
{
  if (options->cli_provider != NULL &&
      g_strcmp0 (options->cli_provider, self->values[KEY_PROVIDER_NAME].string) != 0)
    {
      /* The files' endpoint, model and key belong to the provider they
       * name, not to the one asked for now.  The key's variable is
       * remembered: it still holds a key that no command may see. */
      g_free (self->unused_api_key_env);
      self->unused_api_key_env = g_strdup (self->values[KEY_PROVIDER_API_KEY_ENV].string);
      set_string (self, KEY_PROVIDER_BASE_URL, NULL, PD_CONFIG_ORIGIN_DEFAULT);
      set_string (self, KEY_PROVIDER_MODEL, NULL, PD_CONFIG_ORIGIN_DEFAULT);
      set_string (self, KEY_PROVIDER_API_KEY_ENV, NULL, PD_CONFIG_ORIGIN_DEFAULT);
      set_count (self, KEY_PROVIDER_MAX_OUTPUT_TOKENS, 0, PD_CONFIG_ORIGIN_DEFAULT);
      set_count (self, KEY_PROVIDER_THINKING_BUDGET, 0, PD_CONFIG_ORIGIN_DEFAULT);
    }
  if (options->cli_provider != NULL)
    set_string (self, KEY_PROVIDER_NAME, options->cli_provider, PD_CONFIG_ORIGIN_COMMAND_LINE);
  if (options->cli_base_url != NULL)
    set_string (self, KEY_PROVIDER_BASE_URL, options->cli_base_url, PD_CONFIG_ORIGIN_COMMAND_LINE);
  if (options->cli_model != NULL)
    set_string (self, KEY_PROVIDER_MODEL, options->cli_model, PD_CONFIG_ORIGIN_COMMAND_LINE);

  if (options->cli_planning >= 0)
    set_boolean (self, KEY_PLANNING_ENABLED, options->cli_planning != 0, PD_CONFIG_ORIGIN_COMMAND_LINE);
  if (options->cli_max_steps != -1)
    apply_cli_count (self, KEY_PLANNING_MAX_STEPS, "--max-steps", options->cli_max_steps);
  if (options->cli_max_render_chars != -1)
    apply_cli_count (self, KEY_PLANNING_MAX_RENDER_CHARS, "--max-render-chars", options->cli_max_render_chars);

  if (options->cli_max_iterations != 0)
    apply_cli_count (self, KEY_LIMITS_MAX_ITERATIONS, "--max-iterations", options->cli_max_iterations);
  if (options->cli_max_tokens != 0)
    apply_cli_count (self, KEY_LIMITS_MAX_TOKENS, "--max-tokens", options->cli_max_tokens);
  if (options->cli_max_seconds != 0)
    apply_cli_count (self, KEY_LIMITS_MAX_SECONDS, "--max-seconds", options->cli_max_seconds);

  if (options->cli_allow_outside)
    set_boolean (self, KEY_TOOLS_ALLOW_OUTSIDE, TRUE, PD_CONFIG_ORIGIN_COMMAND_LINE);
}

static const char *
nonempty_env (const char *name)
{
  const char *value = g_getenv (name);

  return value != NULL && value[0] != '\0' ? value : NULL;
}

/* What no file or flag gave: the provider's own environment variables
 * (read here so that `config` shows where the endpoint comes from), then
 * the name of the variable holding the key. */
static void
fill_provider_defaults (PdConfig *self,
                        gboolean  read_env)
{
  const char *name = self->values[KEY_PROVIDER_NAME].string;
  const char *url_env = NULL;
  const char *key_env = NULL;

  if (g_strcmp0 (name, "openai") == 0)
    url_env = "OPENAI_BASE_URL", key_env = "OPENAI_API_KEY";
  else if (g_strcmp0 (name, "anthropic") == 0)
    url_env = "ANTHROPIC_BASE_URL", key_env = "ANTHROPIC_API_KEY";

  if (read_env && url_env != NULL &&
      self->values[KEY_PROVIDER_BASE_URL].origin == PD_CONFIG_ORIGIN_DEFAULT &&
      nonempty_env (url_env) != NULL)
    set_string (self, KEY_PROVIDER_BASE_URL, nonempty_env (url_env), PD_CONFIG_ORIGIN_ENVIRONMENT);

  if (read_env &&
      self->values[KEY_PROVIDER_MODEL].origin == PD_CONFIG_ORIGIN_DEFAULT &&
      nonempty_env (PD_CONFIG_ENV_MODEL) != NULL)
    set_string (self, KEY_PROVIDER_MODEL, nonempty_env (PD_CONFIG_ENV_MODEL), PD_CONFIG_ORIGIN_ENVIRONMENT);

  if (self->values[KEY_PROVIDER_API_KEY_ENV].origin == PD_CONFIG_ORIGIN_DEFAULT)
    set_string (self, KEY_PROVIDER_API_KEY_ENV, key_env, PD_CONFIG_ORIGIN_DEFAULT);
}

/**
 * pd_config_load:
 * @options: (nullable): where to look and what the command line said;
 *   %NULL means PD_CONFIG_LOAD_OPTIONS_INIT
 *
 * Reads both config files and the environment and resolves every setting.
 * Never fails: problems are collected as warnings (see
 * pd_config_get_warnings()) and the affected setting keeps the value of the
 * layer below.
 *
 * Returns: (transfer full): the resolved configuration
 */
PdConfig *
pd_config_load (const PdConfigLoadOptions *options)
{
  static const PdConfigLoadOptions defaults = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autoptr(PdConfig) self = g_object_new (PD_TYPE_CONFIG, NULL);
  g_autofree char *default_global = NULL;
  g_autofree char *global_shown = NULL;
  g_autofree char *project_shown = NULL;
  g_autofree char *global_where = NULL;
  g_autofree char *project_where = NULL;
  g_autoptr(JsonObject) global_root = NULL;
  g_autoptr(JsonObject) project_root = NULL;
  PdConfigSetting settings[N_KEYS];
  const char *global_path;
  const char *project_path;

  if (options == NULL)
    options = &defaults;

  global_path = options->global_path;
  if (global_path == NULL)
    global_path = default_global = g_build_filename (g_get_user_config_dir (),
                                                     "plandeck", "config.json", NULL);

  project_path = options->project_path;
  if (project_path == NULL)
    project_path = "./plandeck.json";

  global_shown = _pd_config_display_path (global_path);
  project_shown = _pd_config_display_path (project_path);
  global_where = g_strdup_printf (_("global config %s"), global_shown);
  project_where = g_strdup_printf (_("project config %s"), project_shown);

  global_root = _pd_config_load_layer (self, global_where, global_path);
  if (global_root != NULL)
    {
      self->global_path = g_steal_pointer (&global_shown);
      _pd_config_read_layer (self, global_where, global_root, settings);
      apply_global (self, global_where, settings);
    }

  project_root = _pd_config_load_layer (self, project_where, project_path);
  if (project_root != NULL)
    {
      self->project_path = g_steal_pointer (&project_shown);
      _pd_config_read_layer (self, project_where, project_root, settings);
      apply_project (self, project_where, settings);
    }

  if (!options->ignore_env)
    apply_planning_env (self);

  apply_cli (self, options);
  fill_provider_defaults (self, !options->ignore_env);

  return g_steal_pointer (&self);
}

/**
 * pd_config_new_default:
 *
 * The built-in defaults, with no file and no environment read: for what
 * must not depend on the person's settings (the demo replays a recording
 * made with these).
 *
 * Returns: (transfer full): a configuration with every value at its default
 */
PdConfig *
pd_config_new_default (void)
{
  PdConfig *self = g_object_new (PD_TYPE_CONFIG, NULL);

  fill_provider_defaults (self, FALSE);

  return self;
}

gboolean
pd_config_get_planning_enabled (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PLANNING_ENABLED_DEFAULT);

  return self->values[KEY_PLANNING_ENABLED].boolean;
}

guint
pd_config_get_planning_max_steps (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PLANNING_MAX_STEPS_DEFAULT);

  return (guint) self->values[KEY_PLANNING_MAX_STEPS].count;
}

guint
pd_config_get_planning_max_render_chars (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PLANNING_MAX_RENDER_CHARS_DEFAULT);

  return (guint) self->values[KEY_PLANNING_MAX_RENDER_CHARS].count;
}

/**
 * pd_config_get_provider_name:
 *
 * Returns: (transfer none): the provider to use, "openai" unless a layer
 *   says otherwise; not checked here (the provider factory says what it knows)
 */
const char *
pd_config_get_provider_name (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PROVIDER_DEFAULT);

  return self->values[KEY_PROVIDER_NAME].string;
}

/**
 * pd_config_get_provider_base_url:
 *
 * Returns: (transfer none) (nullable): the provider's endpoint; %NULL for
 *   the provider's own default
 */
const char *
pd_config_get_provider_base_url (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->values[KEY_PROVIDER_BASE_URL].string;
}

/**
 * pd_config_get_provider_model:
 *
 * Returns: (transfer none) (nullable): the model; %NULL for the provider's
 *   default model
 */
const char *
pd_config_get_provider_model (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->values[KEY_PROVIDER_MODEL].string;
}

/**
 * pd_config_get_provider_api_key_env:
 *
 * Returns: (transfer none) (nullable): the environment variable that holds
 *   the API key (OPENAI_API_KEY, ANTHROPIC_API_KEY by default); %NULL for a
 *   provider that needs none
 */
const char *
pd_config_get_provider_api_key_env (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->values[KEY_PROVIDER_API_KEY_ENV].string;
}

/**
 * pd_config_get_unused_api_key_env:
 *
 * The variable the config files named for their provider's key when the
 * command line chose another provider: no key is read from it, but it is
 * hidden from commands like the one in use.
 *
 * Returns: (transfer none) (nullable): the variable's name, or %NULL
 */
const char *
pd_config_get_unused_api_key_env (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->unused_api_key_env;
}

/* The output limit of one answer; 0: the model family's own. */
guint
pd_config_get_max_output_tokens (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), 0);

  return (guint) self->values[KEY_PROVIDER_MAX_OUTPUT_TOKENS].count;
}

/* Tokens the model may think before it answers (extended thinking); 0: it
 * does not think. */
guint
pd_config_get_thinking_budget (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), 0);

  return (guint) self->values[KEY_PROVIDER_THINKING_BUDGET].count;
}

/**
 * pd_config_get_plan_mode_section:
 *
 * Returns: (transfer none) (nullable): the plan-mode guidance; %NULL for
 *   the built-in one
 */
const char *
pd_config_get_plan_mode_section (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->values[KEY_PLAN_MODE_SECTION].string;
}

/* TRUE: plan mode guides but does not refuse the tools that change things. */
gboolean
pd_config_get_plan_mode_advisory (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), FALSE);

  return self->values[KEY_PLAN_MODE_ADVISORY].boolean;
}

/* Model turns per run. */
guint
pd_config_get_max_iterations (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_LIMITS_MAX_ITERATIONS_DEFAULT);

  return (guint) self->values[KEY_LIMITS_MAX_ITERATIONS].count;
}

/* Tokens in and out per run; 0: no cap. */
gint64
pd_config_get_max_tokens (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), 0);

  return self->values[KEY_LIMITS_MAX_TOKENS].count;
}

/* Seconds per run; 0: no cap. */
guint
pd_config_get_max_seconds (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), 0);

  return (guint) self->values[KEY_LIMITS_MAX_SECONDS].count;
}

/* TRUE: the file tools may reach outside their working directory. */
gboolean
pd_config_get_allow_outside (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), FALSE);

  return self->values[KEY_TOOLS_ALLOW_OUTSIDE].boolean;
}

/**
 * pd_config_get_origin:
 * @key: "section.name", e.g. "provider.base_url"
 *
 * Returns: the layer the resolved value of @key came from
 */
PdConfigOrigin
pd_config_get_origin (PdConfig   *self,
                      const char *key)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_ORIGIN_DEFAULT);
  g_return_val_if_fail (key != NULL, PD_CONFIG_ORIGIN_DEFAULT);

  for (guint k = 0; k < N_KEYS; k++)
    if (g_str_equal (_pd_config_keys[k].path, key))
      return self->values[k].origin;

  g_return_val_if_reached (PD_CONFIG_ORIGIN_DEFAULT);
}

/* The word `config` shows for an origin (stable: scripts read it). */
const char *
pd_config_origin_to_string (PdConfigOrigin origin)
{
  switch (origin)
    {
    case PD_CONFIG_ORIGIN_GLOBAL:
      return "global";
    case PD_CONFIG_ORIGIN_PROJECT:
      return "project";
    case PD_CONFIG_ORIGIN_ENVIRONMENT:
      return "environment";
    case PD_CONFIG_ORIGIN_COMMAND_LINE:
      return "command line";
    case PD_CONFIG_ORIGIN_DEFAULT:
    default:
      return "default";
    }
}

/**
 * pd_config_get_warnings:
 *
 * Returns: (transfer none): the problems found while loading, as sentences,
 *   in the order they were found; an empty array when there were none
 */
const char * const *
pd_config_get_warnings (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return (const char * const *) self->warnings->pdata;
}

/**
 * pd_config_get_global_path:
 *
 * Returns: (nullable): the display name of the global config file that was
 *   loaded, or %NULL when there was none or it was ignored
 */
const char *
pd_config_get_global_path (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->global_path;
}

/**
 * pd_config_get_project_path:
 *
 * Returns: (nullable): like pd_config_get_global_path(), for the project file
 */
const char *
pd_config_get_project_path (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  return self->project_path;
}

static void
add_value (JsonBuilder         *builder,
           PdConfigKey          key,
           const PdConfigValue *value)
{
  switch (_pd_config_keys[key].type)
    {
    case KEY_TYPE_BOOLEAN:
      json_builder_add_boolean_value (builder, value->boolean);
      break;
    case KEY_TYPE_COUNT:
      if (_pd_config_keys[key].no_cap && value->count == 0)
        json_builder_add_null_value (builder);
      else
        json_builder_add_int_value (builder, value->count);
      break;
    case KEY_TYPE_STRING:
    default:
      if (value->string != NULL)
        json_builder_add_string_value (builder, value->string);
      else
        json_builder_add_null_value (builder);
      break;
    }
}

/**
 * pd_config_to_json:
 *
 * Returns: (transfer full): every section with its resolved values
 *   ({"provider": {"name", "base_url", "model", "api_key_env"}, "planning":
 *   {...}, "plan_mode": {...}, "limits": {...}, "tools": {...}}; null for
 *   "the provider's default" and "no cap"), then "origins" ("section.key" →
 *   default, global, project, environment or command line), "sources"
 *   ({"global", "project"}: the loaded file's path or null) and "warnings"
 */
JsonNode *
pd_config_to_json (PdConfig *self)
{
  g_autoptr(JsonBuilder) builder = NULL;

  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  builder = json_builder_new ();
  json_builder_begin_object (builder);

  for (guint s = 0; s < G_N_ELEMENTS (_pd_config_sections); s++)
    {
      json_builder_set_member_name (builder, _pd_config_sections[s]);
      json_builder_begin_object (builder);
      for (guint k = 0; k < N_KEYS; k++)
        {
          if (!g_str_equal (_pd_config_keys[k].section, _pd_config_sections[s]))
            continue;
          json_builder_set_member_name (builder, _pd_config_keys[k].name);
          add_value (builder, k, &self->values[k]);
        }
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "origins");
  json_builder_begin_object (builder);
  for (guint k = 0; k < N_KEYS; k++)
    {
      json_builder_set_member_name (builder, _pd_config_keys[k].path);
      json_builder_add_string_value (builder, pd_config_origin_to_string (self->values[k].origin));
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "sources");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "global");
  if (self->global_path != NULL)
    json_builder_add_string_value (builder, self->global_path);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "project");
  if (self->project_path != NULL)
    json_builder_add_string_value (builder, self->project_path);
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "warnings");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->warnings->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (self->warnings, i));
  json_builder_end_array (builder);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

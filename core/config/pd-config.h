/* pd-config.h: the resolved Plandeck configuration.
 *
 * Layers, highest precedence first: the command line, the environment, the
 * global config ($XDG_CONFIG_HOME/plandeck/config.json), the project config
 * (plandeck.json in the folder the tools work in).  The project config is
 * the least trusted layer: it comes with a repository someone else wrote, so
 * it may only lower a cap or turn something off.  Every other key it sets
 * (endpoints, keys, models, plan-mode guidance, making plan mode advisory,
 * letting tools out of the folder) is ignored with a warning naming the key.
 *
 * The provider's endpoint and model come from the environment only when no
 * file or flag gave them (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, PLANDECK_MODEL),
 * as they always did; PLANDECK_PLANNING is above both files.
 *
 * Loading never fails.  Every problem (unreadable file, bad JSON, a value
 * of the wrong type, an out-of-range number, a key a project may not set)
 * becomes a warning sentence a person can act on, and the affected value
 * falls back to the layer below.  Every value remembers which layer gave it
 * (pd_config_get_origin()), and `plandeck-agent config --json` shows both.
 *
 * A PdConfig is immutable once loaded, so it may be shared between threads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_CONFIG_ERROR (pd_config_error_quark ())

typedef enum
{
  PD_CONFIG_ERROR_INVALID,
} PdConfigError;

/* Which layer a resolved value came from. */
typedef enum
{
  PD_CONFIG_ORIGIN_DEFAULT,
  PD_CONFIG_ORIGIN_GLOBAL,
  PD_CONFIG_ORIGIN_PROJECT,
  PD_CONFIG_ORIGIN_ENVIRONMENT,
  PD_CONFIG_ORIGIN_COMMAND_LINE,
} PdConfigOrigin;

/* Planning defaults and limits (seed 000). */
#define PD_CONFIG_PLANNING_ENABLED_DEFAULT          TRUE
#define PD_CONFIG_PLANNING_MAX_STEPS_DEFAULT        12
#define PD_CONFIG_PLANNING_MAX_STEPS_MIN            1
#define PD_CONFIG_PLANNING_MAX_STEPS_MAX            50
#define PD_CONFIG_PLANNING_MAX_RENDER_CHARS_DEFAULT 2000
#define PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN     200
#define PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX     8000

/* Run limits.  Tokens and seconds have no cap unless one is set. */
#define PD_CONFIG_LIMITS_MAX_ITERATIONS_DEFAULT     50
#define PD_CONFIG_LIMITS_MAX_ITERATIONS_MAX         1000000
#define PD_CONFIG_LIMITS_MAX_TOKENS_MAX             G_GINT64_CONSTANT (1000000000000000)
#define PD_CONFIG_LIMITS_MAX_SECONDS_MAX            1000000000

#define PD_CONFIG_PROVIDER_DEFAULT "openai"
/* One answer's output, and thinking (the API's smallest thinking budget). */
#define PD_CONFIG_PROVIDER_MAX_OUTPUT_TOKENS_MAX    1000000
#define PD_CONFIG_PROVIDER_THINKING_BUDGET_MIN      1024

/* A config file larger than this is refused unread. */
#define PD_CONFIG_MAX_FILE_SIZE (1024 * 1024)

#define PD_CONFIG_ENV_PLANNING "PLANDECK_PLANNING"
#define PD_CONFIG_ENV_MODEL    "PLANDECK_MODEL"

typedef struct
{
  const char *global_path;   /* NULL: $XDG_CONFIG_HOME/plandeck/config.json */
  const char *project_path;  /* NULL: ./plandeck.json in the current directory */
  int  cli_planning;         /* -1 not given, 0 --no-planning, 1 --planning */
  int  cli_max_steps;        /* -1 not given; any other value is clamped */
  int  cli_max_render_chars; /* -1 not given; any other value is clamped */
  gboolean ignore_env;       /* tests: read no environment variable */
  const char *cli_provider;  /* NULL: not given */
  const char *cli_base_url;  /* NULL: not given */
  const char *cli_model;     /* NULL: not given */
  gint64 cli_max_iterations; /* 0: not given; any other value is clamped */
  gint64 cli_max_tokens;     /* 0: not given */
  gint64 cli_max_seconds;    /* 0: not given */
  gboolean cli_allow_outside; /* --allow-outside */
} PdConfigLoadOptions;

#define PD_CONFIG_LOAD_OPTIONS_INIT { NULL, NULL, -1, -1, -1, FALSE, NULL, NULL, NULL, 0, 0, 0, FALSE }

#define PD_TYPE_CONFIG (pd_config_get_type ())

G_DECLARE_FINAL_TYPE (PdConfig, pd_config, PD, CONFIG, GObject)

GQuark              pd_config_error_quark                   (void);

PdConfig           *pd_config_load                          (const PdConfigLoadOptions *options);
PdConfig           *pd_config_new_default                   (void);

gboolean            pd_config_get_planning_enabled          (PdConfig      *self);
guint               pd_config_get_planning_max_steps        (PdConfig      *self);
guint               pd_config_get_planning_max_render_chars (PdConfig      *self);

const char         *pd_config_get_provider_name             (PdConfig      *self);
const char         *pd_config_get_provider_base_url         (PdConfig      *self);
const char         *pd_config_get_provider_model            (PdConfig      *self);
const char         *pd_config_get_provider_api_key_env      (PdConfig      *self);
const char         *pd_config_get_unused_api_key_env        (PdConfig      *self);
guint               pd_config_get_max_output_tokens         (PdConfig      *self);
guint               pd_config_get_thinking_budget           (PdConfig      *self);

const char         *pd_config_get_plan_mode_section         (PdConfig      *self);
gboolean            pd_config_get_plan_mode_advisory        (PdConfig      *self);

guint               pd_config_get_max_iterations            (PdConfig      *self);
gint64              pd_config_get_max_tokens                (PdConfig      *self);
guint               pd_config_get_max_seconds               (PdConfig      *self);

gboolean            pd_config_get_allow_outside             (PdConfig      *self);

PdConfigOrigin      pd_config_get_origin                    (PdConfig      *self,
                                                             const char    *key);
const char         *pd_config_origin_to_string              (PdConfigOrigin origin);

const char * const *pd_config_get_warnings                  (PdConfig      *self);

const char         *pd_config_get_global_path               (PdConfig      *self);
const char         *pd_config_get_project_path              (PdConfig      *self);

JsonNode           *pd_config_to_json                       (PdConfig      *self);

G_END_DECLS

/* pd-config.h: the resolved Plandeck configuration.
 *
 * Layers, highest precedence first: command line, PLANDECK_PLANNING in the
 * environment, the global config ($XDG_CONFIG_HOME/plandeck/config.json),
 * the project config (./plandeck.json).  A project config is the least
 * trusted layer: for the planning section it may only lower what the layers
 * above allow.
 *
 * Loading never fails.  Every problem (unreadable file, bad JSON, a value
 * of the wrong type, an out-of-range number) becomes a warning sentence a
 * person can act on, and the affected value falls back to the layer below.
 *
 * A PdConfig is immutable once loaded, so it may be shared between threads.
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

/* Which config file a raw section comes from. */
typedef enum
{
  PD_CONFIG_LAYER_GLOBAL,
  PD_CONFIG_LAYER_PROJECT,
} PdConfigLayer;

/* Planning defaults and limits (seed 000). */
#define PD_CONFIG_PLANNING_ENABLED_DEFAULT          TRUE
#define PD_CONFIG_PLANNING_MAX_STEPS_DEFAULT        12
#define PD_CONFIG_PLANNING_MAX_STEPS_MIN            1
#define PD_CONFIG_PLANNING_MAX_STEPS_MAX            50
#define PD_CONFIG_PLANNING_MAX_RENDER_CHARS_DEFAULT 2000
#define PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN     200
#define PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX     8000

/* A config file larger than this is refused unread. */
#define PD_CONFIG_MAX_FILE_SIZE (1024 * 1024)

#define PD_CONFIG_ENV_PLANNING "PLANDECK_PLANNING"

typedef struct
{
  const char *global_path;   /* NULL: $XDG_CONFIG_HOME/plandeck/config.json */
  const char *project_path;  /* NULL: ./plandeck.json in the current directory */
  int  cli_planning;         /* -1 not given, 0 --no-planning, 1 --planning */
  int  cli_max_steps;        /* -1 not given; any other value is clamped */
  int  cli_max_render_chars; /* -1 not given; any other value is clamped */
  gboolean ignore_env;       /* tests: do not read PLANDECK_PLANNING */
} PdConfigLoadOptions;

#define PD_CONFIG_LOAD_OPTIONS_INIT { NULL, NULL, -1, -1, -1, FALSE }

#define PD_TYPE_CONFIG (pd_config_get_type ())

G_DECLARE_FINAL_TYPE (PdConfig, pd_config, PD, CONFIG, GObject)

GQuark              pd_config_error_quark                   (void);

PdConfig           *pd_config_load                          (const PdConfigLoadOptions *options);

gboolean            pd_config_get_planning_enabled          (PdConfig      *self);
guint               pd_config_get_planning_max_steps        (PdConfig      *self);
guint               pd_config_get_planning_max_render_chars (PdConfig      *self);

const char * const *pd_config_get_warnings                  (PdConfig      *self);

const char         *pd_config_get_global_path               (PdConfig      *self);
const char         *pd_config_get_project_path              (PdConfig      *self);

JsonObject         *pd_config_get_section                   (PdConfig      *self,
                                                             const char    *name);
JsonObject         *pd_config_get_layer_section             (PdConfig      *self,
                                                             PdConfigLayer  layer,
                                                             const char    *name);

JsonNode           *pd_config_to_json                       (PdConfig      *self);

G_END_DECLS

/* pd-config-private.h: what the parts of PdConfig share.
 *
 * pd-config.c resolves the layers (the key table, the rule for each layer,
 * the getters); pd-config-file.c reads one config file into settings,
 * type-checked but not yet range-checked (what is allowed depends on the
 * layer).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-config.h"

G_BEGIN_DECLS

typedef enum
{
  KEY_PROVIDER_NAME,
  KEY_PROVIDER_BASE_URL,
  KEY_PROVIDER_MODEL,
  KEY_PROVIDER_API_KEY_ENV,
  KEY_PROVIDER_MAX_OUTPUT_TOKENS,
  KEY_PROVIDER_THINKING_BUDGET,
  KEY_PLANNING_ENABLED,
  KEY_PLANNING_MAX_STEPS,
  KEY_PLANNING_MAX_RENDER_CHARS,
  KEY_PLAN_MODE_SECTION,
  KEY_PLAN_MODE_ADVISORY,
  KEY_LIMITS_MAX_ITERATIONS,
  KEY_LIMITS_MAX_TOKENS,
  KEY_LIMITS_MAX_SECONDS,
  KEY_TOOLS_ALLOW_OUTSIDE,
  N_KEYS
} PdConfigKey;

typedef enum
{
  KEY_TYPE_BOOLEAN,
  KEY_TYPE_COUNT,
  KEY_TYPE_STRING,
} PdConfigKeyType;

/* What a project file may do with a key. */
typedef enum
{
  PROJECT_IGNORED,  /* the person's own layers only */
  PROJECT_LOWER,    /* a cap: a lower value is taken, a higher one ignored */
  PROJECT_OPT_OUT,  /* a switch: false is taken, true ignored unless already on */
} PdConfigProjectRule;

typedef struct
{
  const char          *section;
  const char          *name;
  const char          *path;     /* "section.name", as warnings and origins say it */
  PdConfigKeyType      type;
  PdConfigProjectRule  project;
  gint64               min;      /* counts: the range values are clamped to */
  gint64               max;
  gboolean             no_cap;   /* counts: unset means no cap at all */
} PdConfigKeySpec;

/* Every key, by PdConfigKey (pd-config.c). */
extern const PdConfigKeySpec _pd_config_keys[N_KEYS];

#define PD_CONFIG_N_SECTIONS 5
/* The sections, in the order they are shown (pd-config.c). */
extern const char * const _pd_config_sections[PD_CONFIG_N_SECTIONS];

/* One resolved value. */
typedef struct
{
  PdConfigOrigin  origin;
  gboolean        boolean;
  gint64          count;    /* 0 for a no_cap key without a cap */
  char           *string;   /* nullable */
} PdConfigValue;

struct _PdConfig
{
  GObject parent_instance;

  PdConfigValue values[N_KEYS];

  /* NULL-terminated, so it can be handed out as a strv. */
  GPtrArray *warnings;

  /* Display names of the files that were loaded, NULL when absent or refused. */
  char *global_path;
  char *project_path;

  /* The key variable the files named for their provider when the command
   * line asked for another: not used for the key, still kept from
   * commands (it holds a key all the same). */
  char *unused_api_key_env;
};

/* One integer-valued key as a config file gave it. */
typedef struct
{
  gboolean set;
  gint64 value;     /* saturated to the gint64 range */
  char shown[48];   /* the value as the person wrote it, for warnings */
} PdConfigIntSetting;

/* One key as one file gave it, type-checked but not yet range-checked:
 * what is allowed depends on the layer. */
typedef struct
{
  gboolean            set;
  gboolean            boolean;
  PdConfigIntSetting  count;
  const char         *string;   /* borrowed from the file's sealed JSON */
} PdConfigSetting;

/* pd-config.c */
void        _pd_config_add_warning  (PdConfig        *self,
                                     const char      *format,
                                     ...) G_GNUC_PRINTF (2, 3);

/* pd-config-file.c */
char       *_pd_config_display_text (const char      *text);
char       *_pd_config_display_path (const char      *path);
JsonObject *_pd_config_load_layer   (PdConfig        *self,
                                     const char      *where,
                                     const char      *path);
void        _pd_config_read_layer   (PdConfig        *self,
                                     const char      *where,
                                     JsonObject      *root,
                                     PdConfigSetting  out[N_KEYS]);

G_END_DECLS

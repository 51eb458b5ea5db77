/* pd-config.c: load and resolve the Plandeck configuration.
 *
 * The rules for the planning section come from seed 000 ("Resolved onto the
 * config layer", "Disable precedence", "clampProjectPlanning"):
 *
 *   defaults → global config → project config (may only lower)
 *            → PLANDECK_PLANNING → --planning/--no-planning, --max-*
 *
 * Everything here is warnings, not errors: a broken config file must never
 * stop the agent, it must only be ignored loudly enough to get fixed.
 */
#define G_LOG_DOMAIN "pd-config"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "pd-config.h"

/* json-glib 1.6 parses recursively and overflows the stack at around 100 000
 * levels, which fits well inside the 1 MiB file limit.  No real config nests
 * more than a handful of levels, so anything deeper is refused unparsed. */
#define MAX_JSON_DEPTH 128

/* Long keys or values echoed into a warning are cut so one hostile file
 * cannot flood the terminal. */
#define MAX_DISPLAY_CHARS 80

struct _PdConfig
{
  GObject parent_instance;

  gboolean planning_enabled;
  guint planning_max_steps;
  guint planning_max_render_chars;

  /* NULL-terminated, so it can be handed out as a strv. */
  GPtrArray *warnings;

  /* Display names of the files that were loaded, NULL when absent or refused. */
  char *global_path;
  char *project_path;

  /* Sealed top-level objects of each file, NULL when not loaded. */
  JsonObject *layers[2];

  /* Section name → sealed JsonObject, shallow-merged across the layers. */
  GHashTable *sections;
};

G_DEFINE_FINAL_TYPE (PdConfig, pd_config, G_TYPE_OBJECT)

G_DEFINE_QUARK (pd-config-error-quark, pd_config_error)

/* One integer-valued key as a config file gave it. */
typedef struct
{
  gboolean set;
  gint64 value;     /* saturated to the gint64 range */
  char shown[48];   /* the value as the person wrote it, for warnings */
} IntSetting;

typedef struct
{
  gboolean enabled_set;
  gboolean enabled;
  IntSetting max_steps;
  IntSetting max_render_chars;
} PlanningSection;

static void
pd_config_finalize (GObject *object)
{
  PdConfig *self = (PdConfig *)object;

  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->global_path, g_free);
  g_clear_pointer (&self->project_path, g_free);
  g_clear_pointer (&self->layers[PD_CONFIG_LAYER_GLOBAL], json_object_unref);
  g_clear_pointer (&self->layers[PD_CONFIG_LAYER_PROJECT], json_object_unref);
  g_clear_pointer (&self->sections, g_hash_table_unref);

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
  self->planning_enabled = PD_CONFIG_PLANNING_ENABLED_DEFAULT;
  self->planning_max_steps = PD_CONFIG_PLANNING_MAX_STEPS_DEFAULT;
  self->planning_max_render_chars = PD_CONFIG_PLANNING_MAX_RENDER_CHARS_DEFAULT;
  self->warnings = g_ptr_array_new_null_terminated (4, g_free, TRUE);
  self->sections = g_hash_table_new_full (g_str_hash, g_str_equal,
                                          g_free, (GDestroyNotify) json_object_unref);
}

/* Text from a file, a path or the environment may be any bytes.  Warnings
 * end up in JSON (which must be UTF-8) and on a terminal (where a control
 * character or newline could forge another line), so make both safe. */
static char *
display_text (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_new (NULL);
  guint n_chars = 0;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (n_chars++ == MAX_DISPLAY_CHARS)
        {
          g_string_append (out, "…");
          break;
        }

      if (g_unichar_iscntrl (c))
        g_string_append_c (out, '?');
      else
        g_string_append_unichar (out, c);
    }

  return g_string_free (out, FALSE);
}

static char *
display_path (const char *path)
{
  g_autofree char *name = g_filename_display_name (path);

  /* Paths are not truncated: a person needs the whole path to find the file. */
  for (char *p = name; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20 || *p == 0x7f)
        *p = '?';
    }

  return g_steal_pointer (&name);
}

static void add_warning (PdConfig   *self,
                         const char *format,
                         ...) G_GNUC_PRINTF (2, 3);

static void
add_warning (PdConfig   *self,
             const char *format,
             ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_debug ("%s", message);
  g_ptr_array_add (self->warnings, message);
}

/* How a JSON value that has the wrong type is described in a warning. */
static char *
describe_node (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return g_strdup (_("an object"));
    case JSON_NODE_ARRAY:
      return g_strdup (_("an array"));
    case JSON_NODE_NULL:
      return g_strdup ("null");
    case JSON_NODE_VALUE:
    default:
      break;
    }

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? "true" : "false");
    case G_TYPE_STRING:
      return g_strdup (_("a string"));
    case G_TYPE_DOUBLE:
      {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        return g_strdup (g_ascii_dtostr (buf, sizeof buf, json_node_get_double (node)));
      }
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    default:
      return g_strdup (_("a value of unknown type"));
    }
}

/* Reads at most PD_CONFIG_MAX_FILE_SIZE bytes.  Returns NULL with *missing
 * set when the file does not exist (not a problem: every layer is optional),
 * or NULL with a warning for every other failure. */
static GBytes *
read_config_file (PdConfig   *self,
                  const char *where,
                  const char *path,
                  gboolean   *missing)
{
  g_autoptr(GByteArray) buffer = NULL;
  struct stat st;
  int fd;

  *missing = FALSE;

  /* O_NONBLOCK so a FIFO put in place of the config cannot hang the agent
   * in open(); only regular files are read. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        {
          *missing = TRUE;
          return NULL;
        }

      add_warning (self, _("%s: could not be read: %s"), where, g_strerror (saved_errno));
      return NULL;
    }

  if (fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      add_warning (self, _("%s: could not be read: %s"), where, g_strerror (saved_errno));
      close (fd);
      return NULL;
    }

  if (!S_ISREG (st.st_mode))
    {
      add_warning (self, _("%s: ignored: not a regular file"), where);
      close (fd);
      return NULL;
    }

  if (st.st_size > PD_CONFIG_MAX_FILE_SIZE)
    {
      add_warning (self, _("%s: ignored: the file is larger than the 1 MiB limit"), where);
      close (fd);
      return NULL;
    }

  /* The size from fstat() is only a hint: the file may grow while we read,
   * so the limit is enforced on the bytes actually read too. */
  buffer = g_byte_array_sized_new ((guint) st.st_size + 1);
  for (;;)
    {
      guint8 chunk[16384];
      gssize n = read (fd, chunk, sizeof chunk);

      if (n < 0)
        {
          int saved_errno = errno;

          if (saved_errno == EINTR)
            continue;

          add_warning (self, _("%s: could not be read: %s"), where, g_strerror (saved_errno));
          close (fd);
          return NULL;
        }

      if (n == 0)
        break;

      if (buffer->len + (gsize) n > PD_CONFIG_MAX_FILE_SIZE)
        {
          add_warning (self, _("%s: ignored: the file is larger than the 1 MiB limit"), where);
          close (fd);
          return NULL;
        }

      g_byte_array_append (buffer, chunk, (guint) n);
    }

  close (fd);

  return g_byte_array_free_to_bytes (g_steal_pointer (&buffer));
}

/* Deepest [ / { nesting outside strings; stops counting past the limit. */
static guint
json_nesting_depth (const char *data,
                    gsize       len)
{
  gboolean in_string = FALSE;
  guint depth = 0;
  guint max_depth = 0;

  for (gsize i = 0; i < len && max_depth <= MAX_JSON_DEPTH; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        max_depth = MAX (max_depth, ++depth);
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }

  return max_depth;
}

/* Loads one layer.  Returns its sealed top-level object, or NULL when the
 * file is missing or had to be ignored (with a warning). */
static JsonObject *
load_layer (PdConfig   *self,
            const char *where,
            const char *path)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize len;
  gboolean missing;
  JsonNode *root;

  bytes = read_config_file (self, where, path, &missing);
  if (bytes == NULL)
    return NULL;

  data = g_bytes_get_data (bytes, &len);

  /* Also rejects NUL bytes, which would make json-glib stop early. */
  if (!g_utf8_validate_len (data, len, NULL))
    {
      add_warning (self, _("%s: ignored: the file is not valid UTF-8 text"), where);
      return NULL;
    }

  if (json_nesting_depth (data, len) > MAX_JSON_DEPTH)
    {
      add_warning (self, _("%s: ignored: the JSON nests deeper than %d levels"),
                   where, MAX_JSON_DEPTH);
      return NULL;
    }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, &error))
    {
      const char *message = error->message;
      g_autofree char *shown = NULL;

      /* json-glib names the input "<data>"; the file is already named. */
      if (g_str_has_prefix (message, "<data>:"))
        message += strlen ("<data>:");
      shown = display_text (message);

      add_warning (self, _("%s: ignored: not valid JSON: %s"), where, shown);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      add_warning (self, _("%s: ignored: the file is empty (write {} for an empty config)"), where);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *what = describe_node (root);

      add_warning (self, _("%s: ignored: the top level must be a JSON object, not %s"),
                   where, what);
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

/* Accepts JSON integers and integral doubles (20.0 is a whole number even
 * if json-glib stores it as a double). */
static gboolean
read_int_setting (PdConfig    *self,
                  const char  *where,
                  const char  *key,
                  JsonNode    *node,
                  IntSetting  *out)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    {
      out->set = TRUE;
      out->value = json_node_get_int (node);
      g_snprintf (out->shown, sizeof out->shown, "%" G_GINT64_FORMAT, out->value);
      return TRUE;
    }

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (node);

      if (isfinite (d) && floor (d) == d)
        {
          out->set = TRUE;
          if (d >= 9223372036854775807.0)
            out->value = G_MAXINT64;
          else if (d <= -9223372036854775808.0)
            out->value = G_MININT64;
          else
            out->value = (gint64) d;
          g_ascii_formatd (out->shown, sizeof out->shown, "%.17g", d);
          return TRUE;
        }
    }

  {
    g_autofree char *what = describe_node (node);

    add_warning (self, _("%s: planning.%s must be a whole number, not %s; ignored"),
                 where, key, what);
  }

  return FALSE;
}

/* Type-checks a planning section; values are not range-checked here
 * because what is allowed depends on the layer. */
static void
read_planning_section (PdConfig        *self,
                       const char      *where,
                       JsonObject      *root,
                       PlanningSection *out)
{
  JsonNode *section;
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;

  memset (out, 0, sizeof *out);

  section = json_object_get_member (root, "planning");
  if (section == NULL)
    return;

  if (!JSON_NODE_HOLDS_OBJECT (section))
    {
      g_autofree char *what = describe_node (section);

      add_warning (self, _("%s: \"planning\" must be an object, not %s; the section is ignored"),
                   where, what);
      return;
    }

  json_object_iter_init (&iter, json_node_get_object (section));
  while (json_object_iter_next (&iter, &key, &node))
    {
      if (g_str_equal (key, "enabled"))
        {
          if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
            {
              out->enabled_set = TRUE;
              out->enabled = json_node_get_boolean (node);
            }
          else
            {
              g_autofree char *what = describe_node (node);

              add_warning (self, _("%s: planning.enabled must be true or false, not %s; ignored"),
                           where, what);
            }
        }
      else if (g_str_equal (key, "max_steps"))
        read_int_setting (self, where, key, node, &out->max_steps);
      else if (g_str_equal (key, "max_render_chars"))
        read_int_setting (self, where, key, node, &out->max_render_chars);
      else
        {
          g_autofree char *shown = display_text (key);

          add_warning (self, _("%s: unknown key planning.%s ignored (known keys: enabled, max_steps, max_render_chars)"),
                       where, shown);
        }
    }
}

static guint
clamp_setting (PdConfig   *self,
               const char *where,
               const char *name,
               gint64      value,
               const char *shown,
               guint       min,
               guint       max)
{
  guint clamped;

  if (value < (gint64) min)
    clamped = min;
  else if (value > (gint64) max)
    clamped = max;
  else
    return (guint) value;

  add_warning (self, _("%s: %s %s is out of range %u..%u; using %u"),
               where, name, shown, min, max, clamped);

  return clamped;
}

/* clampProjectPlanning: a project may lower a limit, never raise it. */
static guint
apply_project_limit (PdConfig         *self,
                     const char       *where,
                     const char       *key,
                     const IntSetting *setting,
                     guint             global_value,
                     guint             min,
                     guint             max)
{
  g_autofree char *name = NULL;

  if (!setting->set)
    return global_value;

  if (setting->value > (gint64) global_value)
    {
      add_warning (self, _("%s: planning.%s %s ignored: a project may only lower it (global value %u)"),
                   where, key, setting->shown, global_value);
      return global_value;
    }

  name = g_strconcat ("planning.", key, NULL);
  return clamp_setting (self, where, name, setting->value, setting->shown, min, max);
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

static void
resolve_planning (PdConfig                  *self,
                  const PdConfigLoadOptions *options,
                  const char                *global_where,
                  const char                *project_where)
{
  PlanningSection global = { 0 };
  PlanningSection project = { 0 };
  JsonObject *global_root = self->layers[PD_CONFIG_LAYER_GLOBAL];
  JsonObject *project_root = self->layers[PD_CONFIG_LAYER_PROJECT];

  /* Global layer: replaces the defaults, within the hard limits. */
  if (global_root != NULL)
    {
      read_planning_section (self, global_where, global_root, &global);

      if (global.enabled_set)
        self->planning_enabled = global.enabled;
      if (global.max_steps.set)
        self->planning_max_steps =
          clamp_setting (self, global_where, "planning.max_steps",
                         global.max_steps.value, global.max_steps.shown,
                         PD_CONFIG_PLANNING_MAX_STEPS_MIN, PD_CONFIG_PLANNING_MAX_STEPS_MAX);
      if (global.max_render_chars.set)
        self->planning_max_render_chars =
          clamp_setting (self, global_where, "planning.max_render_chars",
                         global.max_render_chars.value, global.max_render_chars.shown,
                         PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN, PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX);
    }

  /* Project layer: a checked-out repository is not trusted to widen what
   * the person's own config allows, only to narrow it. */
  if (project_root != NULL)
    {
      read_planning_section (self, project_where, project_root, &project);

      if (project.enabled_set)
        {
          if (!project.enabled)
            self->planning_enabled = FALSE;
          else if (global.enabled_set && !global.enabled)
            add_warning (self, _("%s: planning.enabled true ignored: planning is disabled in the global config, which a project cannot override"),
                         project_where);
        }

      self->planning_max_steps =
        apply_project_limit (self, project_where, "max_steps", &project.max_steps,
                             self->planning_max_steps,
                             PD_CONFIG_PLANNING_MAX_STEPS_MIN, PD_CONFIG_PLANNING_MAX_STEPS_MAX);
      self->planning_max_render_chars =
        apply_project_limit (self, project_where, "max_render_chars", &project.max_render_chars,
                             self->planning_max_render_chars,
                             PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN, PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX);
    }

  /* Environment: above both files, so one shell can switch planning off
   * (or back on) without editing any config. */
  if (!options->ignore_env)
    {
      const char *env = g_getenv (PD_CONFIG_ENV_PLANNING);

      if (env != NULL)
        {
          g_autofree char *stripped = g_strstrip (g_strdup (env));
          gboolean value;

          /* PLANDECK_PLANNING= (empty) is how shells unset a variable for
           * one command, so it means "not set", not a mistake. */
          if (parse_boolean_word (stripped, &value))
            self->planning_enabled = value;
          else if (stripped[0] != '\0')
            {
              g_autofree char *shown = display_text (env);

              add_warning (self, _("environment: %s=%s ignored: use true/false, 1/0, yes/no or on/off"),
                           PD_CONFIG_ENV_PLANNING, shown);
            }
        }
    }

  /* Command line: the most explicit request wins. */
  if (options->cli_planning >= 0)
    self->planning_enabled = options->cli_planning != 0;

  if (options->cli_max_steps != -1)
    {
      char shown[16];

      g_snprintf (shown, sizeof shown, "%d", options->cli_max_steps);
      self->planning_max_steps =
        clamp_setting (self, _("command line"), "--max-steps",
                       options->cli_max_steps, shown,
                       PD_CONFIG_PLANNING_MAX_STEPS_MIN, PD_CONFIG_PLANNING_MAX_STEPS_MAX);
    }

  if (options->cli_max_render_chars != -1)
    {
      char shown[16];

      g_snprintf (shown, sizeof shown, "%d", options->cli_max_render_chars);
      self->planning_max_render_chars =
        clamp_setting (self, _("command line"), "--max-render-chars",
                       options->cli_max_render_chars, shown,
                       PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN, PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX);
    }
}

/* Shallow merge of every object-valued top-level member: keys from the
 * global file win over the project file, matching the layer precedence.
 * Sections with rules of their own (planning today) must be read through
 * their getters or per layer, not from this merged view. */
static void
merge_sections (PdConfig *self)
{
  static const PdConfigLayer lowest_first[] = { PD_CONFIG_LAYER_PROJECT, PD_CONFIG_LAYER_GLOBAL };

  for (guint i = 0; i < G_N_ELEMENTS (lowest_first); i++)
    {
      JsonObject *root = self->layers[lowest_first[i]];
      JsonObjectIter iter;
      const char *name;
      JsonNode *node;

      if (root == NULL)
        continue;

      json_object_iter_init (&iter, root);
      while (json_object_iter_next (&iter, &name, &node))
        {
          JsonObject *merged;
          JsonObjectIter member_iter;
          const char *key;
          JsonNode *value;

          if (!JSON_NODE_HOLDS_OBJECT (node))
            continue;

          merged = g_hash_table_lookup (self->sections, name);
          if (merged == NULL)
            {
              merged = json_object_new ();
              g_hash_table_insert (self->sections, g_strdup (name), merged);
            }

          json_object_iter_init (&member_iter, json_node_get_object (node));
          while (json_object_iter_next (&member_iter, &key, &value))
            json_object_set_member (merged, key, json_node_copy (value));
        }
    }

  /* Callers share these objects; sealing turns an accidental write into a
   * critical instead of a silent change seen by everyone. */
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, self->sections);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      json_object_seal (value);
  }
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

  global_shown = display_path (global_path);
  project_shown = display_path (project_path);
  global_where = g_strdup_printf (_("global config %s"), global_shown);
  project_where = g_strdup_printf (_("project config %s"), project_shown);

  self->layers[PD_CONFIG_LAYER_GLOBAL] = load_layer (self, global_where, global_path);
  if (self->layers[PD_CONFIG_LAYER_GLOBAL] != NULL)
    {
      json_object_seal (self->layers[PD_CONFIG_LAYER_GLOBAL]);
      self->global_path = g_steal_pointer (&global_shown);
    }

  self->layers[PD_CONFIG_LAYER_PROJECT] = load_layer (self, project_where, project_path);
  if (self->layers[PD_CONFIG_LAYER_PROJECT] != NULL)
    {
      json_object_seal (self->layers[PD_CONFIG_LAYER_PROJECT]);
      self->project_path = g_steal_pointer (&project_shown);
    }

  resolve_planning (self, options, global_where, project_where);
  merge_sections (self);

  return g_steal_pointer (&self);
}

gboolean
pd_config_get_planning_enabled (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PLANNING_ENABLED_DEFAULT);

  return self->planning_enabled;
}

guint
pd_config_get_planning_max_steps (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PLANNING_MAX_STEPS_DEFAULT);

  return self->planning_max_steps;
}

guint
pd_config_get_planning_max_render_chars (PdConfig *self)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), PD_CONFIG_PLANNING_MAX_RENDER_CHARS_DEFAULT);

  return self->planning_max_render_chars;
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

/**
 * pd_config_get_section:
 * @name: a top-level key, e.g. "provider"
 *
 * The raw section @name merged over both files, member by member, the
 * global file winning.  No rules are applied: a section whose project
 * values must be restricted (as planning is) should use
 * pd_config_get_layer_section() instead.
 *
 * Returns: (transfer none) (nullable): a sealed object, or %NULL when
 *   neither file has an object under @name
 */
JsonObject *
pd_config_get_section (PdConfig   *self,
                       const char *name)
{
  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (self->sections, name);
}

/**
 * pd_config_get_layer_section:
 * @layer: which file
 * @name: a top-level key
 *
 * Returns: (transfer none) (nullable): the sealed object under @name in
 *   that one file, or %NULL when the file was not loaded or has no object
 *   there
 */
JsonObject *
pd_config_get_layer_section (PdConfig      *self,
                             PdConfigLayer  layer,
                             const char    *name)
{
  JsonObject *root;
  JsonNode *node;

  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);
  g_return_val_if_fail (layer == PD_CONFIG_LAYER_GLOBAL || layer == PD_CONFIG_LAYER_PROJECT, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  root = self->layers[layer];
  if (root == NULL)
    return NULL;

  node = json_object_get_member (root, name);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;

  return json_node_get_object (node);
}

/**
 * pd_config_to_json:
 *
 * Returns: (transfer full): {"planning": {"enabled", "max_steps",
 *   "max_render_chars"}, "sources": {"global", "project"}, "warnings": [...]}
 *   where a source is the loaded file's path or null
 */
JsonNode *
pd_config_to_json (PdConfig *self)
{
  g_autoptr(JsonBuilder) builder = NULL;

  g_return_val_if_fail (PD_IS_CONFIG (self), NULL);

  builder = json_builder_new ();
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "planning");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "enabled");
  json_builder_add_boolean_value (builder, self->planning_enabled);
  json_builder_set_member_name (builder, "max_steps");
  json_builder_add_int_value (builder, self->planning_max_steps);
  json_builder_set_member_name (builder, "max_render_chars");
  json_builder_add_int_value (builder, self->planning_max_render_chars);
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

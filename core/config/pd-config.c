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
#include "pd-json-util.h"

/* json-glib 1.6 parses recursively and overflows the stack at around 100 000
 * levels, which fits well inside the 1 MiB file limit.  No real config nests
 * more than a handful of levels, so anything deeper is refused unparsed. */
#define MAX_JSON_DEPTH 128

/* Long keys or values echoed into a warning are cut so one hostile file
 * cannot flood the terminal. */
#define MAX_DISPLAY_CHARS 80

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
} Key;

typedef enum
{
  TYPE_BOOLEAN,
  TYPE_COUNT,
  TYPE_STRING,
} KeyType;

/* What a project file may do with a key. */
typedef enum
{
  PROJECT_IGNORED,  /* the person's own layers only */
  PROJECT_LOWER,    /* a cap: a lower value is taken, a higher one ignored */
  PROJECT_OPT_OUT,  /* a switch: false is taken, true ignored unless already on */
} ProjectRule;

typedef struct
{
  const char  *section;
  const char  *name;
  const char  *path;       /* "section.name", as warnings and origins say it */
  KeyType      type;
  ProjectRule  project;
  gint64       min;        /* counts: the range values are clamped to */
  gint64       max;
  gboolean     no_cap;     /* counts: unset means no cap at all */
} KeySpec;

static const KeySpec keys[N_KEYS] = {
  [KEY_PROVIDER_NAME] = { "provider", "name", "provider.name", TYPE_STRING, PROJECT_IGNORED },
  [KEY_PROVIDER_BASE_URL] = { "provider", "base_url", "provider.base_url", TYPE_STRING, PROJECT_IGNORED },
  [KEY_PROVIDER_MODEL] = { "provider", "model", "provider.model", TYPE_STRING, PROJECT_IGNORED },
  [KEY_PROVIDER_API_KEY_ENV] = { "provider", "api_key_env", "provider.api_key_env", TYPE_STRING, PROJECT_IGNORED },
  /* What one answer may write, and think: caps a project may only lower. */
  [KEY_PROVIDER_MAX_OUTPUT_TOKENS] = { "provider", "max_output_tokens", "provider.max_output_tokens", TYPE_COUNT,
                                       PROJECT_LOWER, 1, PD_CONFIG_PROVIDER_MAX_OUTPUT_TOKENS_MAX, FALSE },
  /* Unset, nothing thinks: a budget is something to turn on, not a cap
   * to lift, so a project may lower the person's, never start one. */
  [KEY_PROVIDER_THINKING_BUDGET] = { "provider", "thinking_budget", "provider.thinking_budget", TYPE_COUNT,
                                     PROJECT_LOWER, PD_CONFIG_PROVIDER_THINKING_BUDGET_MIN,
                                     PD_CONFIG_PROVIDER_MAX_OUTPUT_TOKENS_MAX, FALSE },
  [KEY_PLANNING_ENABLED] = { "planning", "enabled", "planning.enabled", TYPE_BOOLEAN, PROJECT_OPT_OUT },
  [KEY_PLANNING_MAX_STEPS] = { "planning", "max_steps", "planning.max_steps", TYPE_COUNT, PROJECT_LOWER,
                               PD_CONFIG_PLANNING_MAX_STEPS_MIN, PD_CONFIG_PLANNING_MAX_STEPS_MAX },
  [KEY_PLANNING_MAX_RENDER_CHARS] = { "planning", "max_render_chars", "planning.max_render_chars", TYPE_COUNT, PROJECT_LOWER,
                                      PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MIN, PD_CONFIG_PLANNING_MAX_RENDER_CHARS_MAX },
  [KEY_PLAN_MODE_SECTION] = { "plan_mode", "section", "plan_mode.section", TYPE_STRING, PROJECT_IGNORED },
  [KEY_PLAN_MODE_ADVISORY] = { "plan_mode", "advisory", "plan_mode.advisory", TYPE_BOOLEAN, PROJECT_OPT_OUT },
  [KEY_LIMITS_MAX_ITERATIONS] = { "limits", "max_iterations", "limits.max_iterations", TYPE_COUNT, PROJECT_LOWER,
                                  1, PD_CONFIG_LIMITS_MAX_ITERATIONS_MAX },
  [KEY_LIMITS_MAX_TOKENS] = { "limits", "max_tokens", "limits.max_tokens", TYPE_COUNT, PROJECT_LOWER,
                              1, PD_CONFIG_LIMITS_MAX_TOKENS_MAX, TRUE },
  [KEY_LIMITS_MAX_SECONDS] = { "limits", "max_seconds", "limits.max_seconds", TYPE_COUNT, PROJECT_LOWER,
                               1, PD_CONFIG_LIMITS_MAX_SECONDS_MAX, TRUE },
  [KEY_TOOLS_ALLOW_OUTSIDE] = { "tools", "allow_outside", "tools.allow_outside", TYPE_BOOLEAN, PROJECT_OPT_OUT },
};

/* In the order they are shown. */
static const char * const sections[] = { "provider", "planning", "plan_mode", "limits", "tools" };

/* One resolved value. */
typedef struct
{
  PdConfigOrigin  origin;
  gboolean        boolean;
  gint64          count;    /* 0 for a no_cap key without a cap */
  char           *string;   /* nullable */
} Value;

struct _PdConfig
{
  GObject parent_instance;

  Value values[N_KEYS];

  /* NULL-terminated, so it can be handed out as a strv. */
  GPtrArray *warnings;

  /* Display names of the files that were loaded, NULL when absent or refused. */
  char *global_path;
  char *project_path;
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

/* One key as one file gave it, type-checked but not yet range-checked:
 * what is allowed depends on the layer. */
typedef struct
{
  gboolean     set;
  gboolean     boolean;
  IntSetting   count;
  const char  *string;   /* borrowed from the file's sealed JSON */
} Setting;

static void
pd_config_finalize (GObject *object)
{
  PdConfig *self = (PdConfig *)object;

  for (guint i = 0; i < N_KEYS; i++)
    g_clear_pointer (&self->values[i].string, g_free);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->global_path, g_free);
  g_clear_pointer (&self->project_path, g_free);

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
read_int_setting (PdConfig       *self,
                  const char     *where,
                  const KeySpec  *spec,
                  JsonNode       *node,
                  IntSetting     *out)
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

    add_warning (self, _("%s: %s must be a whole number, not %s; ignored"),
                 where, spec->path, what);
  }

  return FALSE;
}

/* An environment variable's name: what provider.api_key_env must hold. */
static gboolean
is_variable_name (const char *text)
{
  if (!g_ascii_isalpha (text[0]) && text[0] != '_')
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return strlen (text) <= MAX_DISPLAY_CHARS;
}

static gboolean
has_control_characters (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return TRUE;
  return FALSE;
}

static void
read_string_setting (PdConfig      *self,
                     const char    *where,
                     Key            key,
                     JsonNode      *node,
                     Setting       *out)
{
  const KeySpec *spec = &keys[key];
  const char *text;

  if (!(text = pd_json_node_get_string (node)))
    {
      g_autofree char *what = describe_node (node);

      add_warning (self, _("%s: %s must be a string, not %s; ignored"), where, spec->path, what);
      return;
    }

  {
    g_autofree char *stripped = g_strstrip (g_strdup (text));

    if (stripped[0] == '\0')
      {
        add_warning (self, _("%s: %s is empty; ignored"), where, spec->path);
        return;
      }
  }

  /* The guidance text may span lines; a name, URL or model may not (it
   * would go into a header or a request line as it is). */
  if (key != KEY_PLAN_MODE_SECTION && has_control_characters (text))
    {
      add_warning (self, _("%s: %s must be one line of text; ignored"), where, spec->path);
      return;
    }

  if (key == KEY_PROVIDER_API_KEY_ENV && !is_variable_name (text))
    {
      g_autofree char *shown = display_text (text);

      add_warning (self, _("%s: provider.api_key_env must name an environment variable (letters, digits and _), not “%s”; ignored"),
                   where, shown);
      return;
    }

  out->set = TRUE;
  out->string = text;
}

static gboolean
is_known_section (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
    if (g_str_equal (sections[i], name))
      return TRUE;
  return FALSE;
}

static char *
known_keys_of (const char *section)
{
  GString *list = g_string_new (NULL);

  for (guint k = 0; k < N_KEYS; k++)
    {
      if (!g_str_equal (keys[k].section, section))
        continue;
      if (list->len > 0)
        g_string_append (list, ", ");
      g_string_append (list, keys[k].name);
    }

  return g_string_free (list, FALSE);
}

/* Type-checks every key of one file into @out; unknown sections and keys
 * are reported and skipped.  Values are not range-checked here because
 * what is allowed depends on the layer. */
static void
read_layer (PdConfig   *self,
            const char *where,
            JsonObject *root,
            Setting     out[N_KEYS])
{
  JsonObjectIter section_iter;
  const char *section_name;
  JsonNode *section;

  memset (out, 0, sizeof (Setting) * N_KEYS);

  json_object_iter_init (&section_iter, root);
  while (json_object_iter_next (&section_iter, &section_name, &section))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *node;

      if (!is_known_section (section_name))
        {
          g_autofree char *shown = display_text (section_name);

          add_warning (self, _("%s: unknown section \"%s\" ignored (known sections: provider, planning, plan_mode, limits, tools)"),
                       where, shown);
          continue;
        }

      if (!JSON_NODE_HOLDS_OBJECT (section))
        {
          g_autofree char *what = describe_node (section);

          add_warning (self, _("%s: \"%s\" must be an object, not %s; the section is ignored"),
                       where, section_name, what);
          continue;
        }

      json_object_iter_init (&iter, json_node_get_object (section));
      while (json_object_iter_next (&iter, &name, &node))
        {
          Key key = N_KEYS;

          for (guint k = 0; k < N_KEYS; k++)
            if (g_str_equal (keys[k].section, section_name) && g_str_equal (keys[k].name, name))
              key = k;

          if (key == N_KEYS)
            {
              g_autofree char *shown = display_text (name);
              g_autofree char *known = known_keys_of (section_name);

              add_warning (self, _("%s: unknown key %s.%s ignored (known keys: %s)"),
                           where, section_name, shown, known);
              continue;
            }

          switch (keys[key].type)
            {
            case TYPE_BOOLEAN:
              if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
                {
                  out[key].set = TRUE;
                  out[key].boolean = json_node_get_boolean (node);
                }
              else
                {
                  g_autofree char *what = describe_node (node);

                  add_warning (self, _("%s: %s must be true or false, not %s; ignored"),
                               where, keys[key].path, what);
                }
              break;

            case TYPE_COUNT:
              out[key].set = read_int_setting (self, where, &keys[key], node, &out[key].count);
              break;

            case TYPE_STRING:
            default:
              read_string_setting (self, where, key, node, &out[key]);
              break;
            }
        }
    }
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

    add_warning (self, _("%s: %s %s is out of range %s..%s; using %s"),
                 where, name, shown, min_text, max_text, clamped_text);
  }

  return clamped;
}

static void
set_string (PdConfig       *self,
            Key             key,
            const char     *text,
            PdConfigOrigin  origin)
{
  g_free (self->values[key].string);
  self->values[key].string = g_strdup (text);
  self->values[key].origin = origin;
}

static void
set_count (PdConfig       *self,
           Key             key,
           gint64          count,
           PdConfigOrigin  origin)
{
  self->values[key].count = count;
  self->values[key].origin = origin;
}

static void
set_boolean (PdConfig       *self,
             Key             key,
             gboolean        value,
             PdConfigOrigin  origin)
{
  self->values[key].boolean = value;
  self->values[key].origin = origin;
}

/* The global layer replaces the defaults, within the hard limits. */
static void
apply_global (PdConfig      *self,
              const char    *where,
              const Setting  settings[N_KEYS])
{
  for (guint k = 0; k < N_KEYS; k++)
    {
      const Setting *setting = &settings[k];

      if (!setting->set)
        continue;

      switch (keys[k].type)
        {
        case TYPE_BOOLEAN:
          set_boolean (self, k, setting->boolean, PD_CONFIG_ORIGIN_GLOBAL);
          break;
        case TYPE_COUNT:
          set_count (self, k,
                     clamp_setting (self, where, keys[k].path, setting->count.value,
                                    setting->count.shown, keys[k].min, keys[k].max),
                     PD_CONFIG_ORIGIN_GLOBAL);
          break;
        case TYPE_STRING:
        default:
          set_string (self, k, setting->string, PD_CONFIG_ORIGIN_GLOBAL);
          break;
        }
    }
}

/* The project layer: a checked-out repository is not trusted to widen what
 * the person's own config allows, only to narrow it. */
static void
apply_project (PdConfig      *self,
               const char    *where,
               const Setting  settings[N_KEYS])
{
  for (guint k = 0; k < N_KEYS; k++)
    {
      const Setting *setting = &settings[k];
      const KeySpec *spec = &keys[k];
      Value *current = &self->values[k];

      if (!setting->set)
        continue;

      switch (spec->project)
        {
        case PROJECT_LOWER:
          {
            gboolean capped = !(spec->no_cap && current->count == 0);

            if (capped && setting->count.value > current->count)
              {
                g_autofree char *current_text = g_strdup_printf ("%" G_GINT64_FORMAT, current->count);

                add_warning (self, _("%s: %s %s ignored: a project may only lower it (global value %s)"),
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
            add_warning (self, _("%s: %s true ignored: a project may only turn it off"),
                         where, spec->path);
          /* true where it is already on says nothing new */
          break;

        case PROJECT_IGNORED:
        default:
          add_warning (self, _("%s: %s ignored: a project file may only lower limits or turn things off; set it in your own config or on the command line"),
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
      g_autofree char *shown = display_text (env);

      add_warning (self, _("environment: %s=%s ignored: use true/false, 1/0, yes/no or on/off"),
                   PD_CONFIG_ENV_PLANNING, shown);
    }
}

static void
apply_cli_count (PdConfig   *self,
                 Key         key,
                 const char *option,
                 gint64      value)
{
  char shown[32];

  g_snprintf (shown, sizeof shown, "%" G_GINT64_FORMAT, value);
  set_count (self, key,
             clamp_setting (self, _("command line"), option, value, shown, keys[key].min, keys[key].max),
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
       * name, not to the one asked for now. */
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
  Setting settings[N_KEYS];
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

  global_root = load_layer (self, global_where, global_path);
  if (global_root != NULL)
    {
      self->global_path = g_steal_pointer (&global_shown);
      read_layer (self, global_where, global_root, settings);
      apply_global (self, global_where, settings);
    }

  project_root = load_layer (self, project_where, project_path);
  if (project_root != NULL)
    {
      self->project_path = g_steal_pointer (&project_shown);
      read_layer (self, project_where, project_root, settings);
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
    if (g_str_equal (keys[k].path, key))
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
add_value (JsonBuilder *builder,
           Key          key,
           const Value *value)
{
  switch (keys[key].type)
    {
    case TYPE_BOOLEAN:
      json_builder_add_boolean_value (builder, value->boolean);
      break;
    case TYPE_COUNT:
      if (keys[key].no_cap && value->count == 0)
        json_builder_add_null_value (builder);
      else
        json_builder_add_int_value (builder, value->count);
      break;
    case TYPE_STRING:
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

  for (guint s = 0; s < G_N_ELEMENTS (sections); s++)
    {
      json_builder_set_member_name (builder, sections[s]);
      json_builder_begin_object (builder);
      for (guint k = 0; k < N_KEYS; k++)
        {
          if (!g_str_equal (keys[k].section, sections[s]))
            continue;
          json_builder_set_member_name (builder, keys[k].name);
          add_value (builder, k, &self->values[k]);
        }
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "origins");
  json_builder_begin_object (builder);
  for (guint k = 0; k < N_KEYS; k++)
    {
      json_builder_set_member_name (builder, keys[k].path);
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

/* pd-config-file.c: reading one config file.
 *
 * A file is read whole (at most 1 MiB, a regular file only, never waiting
 * on a FIFO), checked as UTF-8 and for nesting before json-glib sees it,
 * and its keys type-checked into settings.  Every problem is a warning a
 * person can act on; the file, or the key, is then ignored.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
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

#include "pd-config-private.h"
#include "pd-json-util.h"

/* json-glib 1.6 parses recursively and overflows the stack at around 100 000
 * levels, which fits well inside the 1 MiB file limit.  No real config nests
 * more than a handful of levels, so anything deeper is refused unparsed. */
#define MAX_JSON_DEPTH 128

/* Long keys or values echoed into a warning are cut so one hostile file
 * cannot flood the terminal. */
#define MAX_DISPLAY_CHARS 80
/* Text from a file, a path or the environment may be any bytes.  Warnings
 * end up in JSON (which must be UTF-8) and on a terminal (where a control
 * character or newline could forge another line), so make both safe. */
char *
_pd_config_display_text (const char *text)
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

char *
_pd_config_display_path (const char *path)
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

      _pd_config_add_warning (self, _("%s: could not be read: %s"), where, g_strerror (saved_errno));
      return NULL;
    }

  if (fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      _pd_config_add_warning (self, _("%s: could not be read: %s"), where, g_strerror (saved_errno));
      close (fd);
      return NULL;
    }

  if (!S_ISREG (st.st_mode))
    {
      _pd_config_add_warning (self, _("%s: ignored: not a regular file"), where);
      close (fd);
      return NULL;
    }

  if (st.st_size > PD_CONFIG_MAX_FILE_SIZE)
    {
      _pd_config_add_warning (self, _("%s: ignored: the file is larger than the 1 MiB limit"), where);
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

          _pd_config_add_warning (self, _("%s: could not be read: %s"), where, g_strerror (saved_errno));
          close (fd);
          return NULL;
        }

      if (n == 0)
        break;

      if (buffer->len + (gsize) n > PD_CONFIG_MAX_FILE_SIZE)
        {
          _pd_config_add_warning (self, _("%s: ignored: the file is larger than the 1 MiB limit"), where);
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
JsonObject *
_pd_config_load_layer (PdConfig   *self,
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
      _pd_config_add_warning (self, _("%s: ignored: the file is not valid UTF-8 text"), where);
      return NULL;
    }

  if (json_nesting_depth (data, len) > MAX_JSON_DEPTH)
    {
      _pd_config_add_warning (self, _("%s: ignored: the JSON nests deeper than %d levels"),
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
      shown = _pd_config_display_text (message);

      _pd_config_add_warning (self, _("%s: ignored: not valid JSON: %s"), where, shown);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      _pd_config_add_warning (self, _("%s: ignored: the file is empty (write {} for an empty config)"), where);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *what = describe_node (root);

      _pd_config_add_warning (self, _("%s: ignored: the top level must be a JSON object, not %s"),
                   where, what);
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

/* Accepts JSON integers and integral doubles (20.0 is a whole number even
 * if json-glib stores it as a double). */
static gboolean
read_int_setting (PdConfig              *self,
                  const char            *where,
                  const PdConfigKeySpec *spec,
                  JsonNode              *node,
                  PdConfigIntSetting    *out)
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

    _pd_config_add_warning (self, _("%s: %s must be a whole number, not %s; ignored"),
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
read_string_setting (PdConfig        *self,
                     const char      *where,
                     PdConfigKey      key,
                     JsonNode        *node,
                     PdConfigSetting *out)
{
  const PdConfigKeySpec *spec = &_pd_config_keys[key];
  const char *text;

  if (!(text = pd_json_node_get_string (node)))
    {
      g_autofree char *what = describe_node (node);

      _pd_config_add_warning (self, _("%s: %s must be a string, not %s; ignored"), where, spec->path, what);
      return;
    }

  {
    g_autofree char *stripped = g_strstrip (g_strdup (text));

    if (stripped[0] == '\0')
      {
        _pd_config_add_warning (self, _("%s: %s is empty; ignored"), where, spec->path);
        return;
      }
  }

  /* The guidance text may span lines; a name, URL or model may not (it
   * would go into a header or a request line as it is). */
  if (key != KEY_PLAN_MODE_SECTION && has_control_characters (text))
    {
      _pd_config_add_warning (self, _("%s: %s must be one line of text; ignored"), where, spec->path);
      return;
    }

  /* What is there instead of a name is often the key itself, pasted into
   * the wrong field: it is never quoted back (the warning reaches the
   * terminal, the window's notices and logs). */
  if (key == KEY_PROVIDER_API_KEY_ENV && !is_variable_name (text))
    {
      _pd_config_add_warning (self, _("%s: provider.api_key_env must name an environment variable (letters, digits and _); what it holds is not shown, as it may be a key itself; ignored"),
                   where);
      return;
    }

  out->set = TRUE;
  out->string = text;
}

static gboolean
is_known_section (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (_pd_config_sections); i++)
    if (g_str_equal (_pd_config_sections[i], name))
      return TRUE;
  return FALSE;
}

static char *
known_keys_of (const char *section)
{
  GString *list = g_string_new (NULL);

  for (guint k = 0; k < N_KEYS; k++)
    {
      if (!g_str_equal (_pd_config_keys[k].section, section))
        continue;
      if (list->len > 0)
        g_string_append (list, ", ");
      g_string_append (list, _pd_config_keys[k].name);
    }

  return g_string_free (list, FALSE);
}

/* Type-checks every key of one file into @out; unknown sections and keys
 * are reported and skipped.  Values are not range-checked here because
 * what is allowed depends on the layer. */
void
_pd_config_read_layer (PdConfig        *self,
                       const char      *where,
                       JsonObject      *root,
                       PdConfigSetting  out[N_KEYS])
{
  JsonObjectIter section_iter;
  const char *section_name;
  JsonNode *section;

  memset (out, 0, sizeof (PdConfigSetting) * N_KEYS);

  json_object_iter_init (&section_iter, root);
  while (json_object_iter_next (&section_iter, &section_name, &section))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *node;

      if (!is_known_section (section_name))
        {
          g_autofree char *shown = _pd_config_display_text (section_name);

          _pd_config_add_warning (self, _("%s: unknown section \"%s\" ignored (known sections: provider, planning, plan_mode, limits, tools)"),
                       where, shown);
          continue;
        }

      if (!JSON_NODE_HOLDS_OBJECT (section))
        {
          g_autofree char *what = describe_node (section);

          _pd_config_add_warning (self, _("%s: \"%s\" must be an object, not %s; the section is ignored"),
                       where, section_name, what);
          continue;
        }

      json_object_iter_init (&iter, json_node_get_object (section));
      while (json_object_iter_next (&iter, &name, &node))
        {
          PdConfigKey key = N_KEYS;

          for (guint k = 0; k < N_KEYS; k++)
            if (g_str_equal (_pd_config_keys[k].section, section_name) && g_str_equal (_pd_config_keys[k].name, name))
              key = k;

          if (key == N_KEYS)
            {
              g_autofree char *shown = _pd_config_display_text (name);
              g_autofree char *known = known_keys_of (section_name);

              _pd_config_add_warning (self, _("%s: unknown key %s.%s ignored (known keys: %s)"),
                           where, section_name, shown, known);
              continue;
            }

          switch (_pd_config_keys[key].type)
            {
            case KEY_TYPE_BOOLEAN:
              if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
                {
                  out[key].set = TRUE;
                  out[key].boolean = json_node_get_boolean (node);
                }
              else
                {
                  g_autofree char *what = describe_node (node);

                  _pd_config_add_warning (self, _("%s: %s must be true or false, not %s; ignored"),
                               where, _pd_config_keys[key].path, what);
                }
              break;

            case KEY_TYPE_COUNT:
              out[key].set = read_int_setting (self, where, &_pd_config_keys[key], node, &out[key].count);
              break;

            case KEY_TYPE_STRING:
            default:
              read_string_setting (self, where, key, node, &out[key]);
              break;
            }
        }
    }
}

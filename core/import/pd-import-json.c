/* pd-import-json.c: the JSON of transcript lines, parsed into JsonNode trees.
 *
 * json-glib's parser sets up a scanner per document and emits a GObject
 * signal (taking GLib's global signal lock) for every member and element;
 * on the short lines an import parses by the thousand that was most of the
 * import's time, and the lock was shared by the reading threads.  This
 * reader builds the same trees directly.  It follows RFC 8259 where
 * json-glib is looser in ways no agent's writer produces (comments, single
 * quotes, hex numbers, text after the value): such a line is skipped and
 * counted like any other unreadable one.  Where json-glib's answer is
 * harmless it is kept: raw control characters in strings are taken as they
 * are, "\u0000" ends a string, and a repeated member keeps its last value.
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "pd-import-private.h"
#include "pd-json.h"

typedef struct
{
  const char *pos;
  const char *end;
  guint       depth;
  GString    *scratch;
} Reader;

static JsonNode *read_value (Reader *r);

static inline void
skip_ws (Reader *r)
{
  while (r->pos < r->end && (*r->pos == ' ' || *r->pos == '\t' || *r->pos == '\n' || *r->pos == '\r'))
    r->pos++;
}

static gboolean
read_hex4 (Reader   *r,
           gunichar *out)
{
  gunichar value = 0;

  if (r->end - r->pos < 4)
    return FALSE;
  for (guint i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (r->pos[i]);
      if (digit < 0)
        return FALSE;
      value = (value << 4) | (gunichar) digit;
    }
  r->pos += 4;
  *out = value;
  return TRUE;
}

/* Reads a string at its opening quote into r->scratch (NUL-terminated). */
static gboolean
read_string (Reader *r)
{
  GString *out = r->scratch;
  const char *run;

  g_string_truncate (out, 0);
  r->pos++;
  for (;;)
    {
      char c;

      run = r->pos;
      while (r->pos < r->end && *r->pos != '"' && *r->pos != '\\')
        r->pos++;
      g_string_append_len (out, run, r->pos - run);
      if (r->pos >= r->end)
        return FALSE;
      if (*r->pos++ == '"')
        return TRUE;

      /* An escape. */
      if (r->pos >= r->end)
        return FALSE;
      c = *r->pos++;
      switch (c)
        {
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/': g_string_append_c (out, '/'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            gunichar ch, low;

            if (!read_hex4 (r, &ch))
              return FALSE;
            if (ch >= 0xD800 && ch <= 0xDBFF)
              {
                if (r->end - r->pos < 6 || r->pos[0] != '\\' || r->pos[1] != 'u')
                  return FALSE;
                r->pos += 2;
                if (!read_hex4 (r, &low) || low < 0xDC00 || low > 0xDFFF)
                  return FALSE;
                ch = 0x10000 + ((ch - 0xD800) << 10) + (low - 0xDC00);
              }
            else if (ch >= 0xDC00 && ch <= 0xDFFF)
              return FALSE;
            /* U+0000 ends the C string, as with json-glib. */
            g_string_append_unichar (out, ch);
          }
          break;
        default:
          return FALSE;
        }
    }
}

static JsonNode *
read_number (Reader *r)
{
  const char *begin = r->pos;
  gboolean is_integer = TRUE;
  g_autofree char *copy = NULL;
  char buf[64];
  char *text = buf;
  gsize len;
  double d;

  if (r->pos < r->end && *r->pos == '-')
    r->pos++;
  if (r->pos >= r->end || !g_ascii_isdigit (*r->pos))
    return NULL;
  if (*r->pos == '0')
    r->pos++;
  else
    while (r->pos < r->end && g_ascii_isdigit (*r->pos))
      r->pos++;
  if (r->pos < r->end && *r->pos == '.')
    {
      is_integer = FALSE;
      r->pos++;
      if (r->pos >= r->end || !g_ascii_isdigit (*r->pos))
        return NULL;
      while (r->pos < r->end && g_ascii_isdigit (*r->pos))
        r->pos++;
    }
  if (r->pos < r->end && (*r->pos == 'e' || *r->pos == 'E'))
    {
      is_integer = FALSE;
      r->pos++;
      if (r->pos < r->end && (*r->pos == '+' || *r->pos == '-'))
        r->pos++;
      if (r->pos >= r->end || !g_ascii_isdigit (*r->pos))
        return NULL;
      while (r->pos < r->end && g_ascii_isdigit (*r->pos))
        r->pos++;
    }

  len = (gsize) (r->pos - begin);
  if (len >= sizeof buf)
    text = copy = g_malloc (len + 1);
  memcpy (text, begin, len);
  text[len] = '\0';

  if (is_integer)
    {
      char *endp = NULL;
      gint64 v;

      errno = 0;
      v = g_ascii_strtoll (text, &endp, 10);
      if (errno == 0 && endp == text + len)
        return json_node_init_int (json_node_alloc (), v);
    }
  d = g_ascii_strtod (text, NULL);
  if (!isfinite (d))
    return NULL;
  return json_node_init_double (json_node_alloc (), d);
}

static gboolean
match_word (Reader     *r,
            const char *word,
            gsize       len)
{
  if ((gsize) (r->end - r->pos) < len || memcmp (r->pos, word, len) != 0)
    return FALSE;
  r->pos += len;
  return TRUE;
}

static JsonNode *
read_object (Reader *r)
{
  g_autoptr(JsonObject) object = json_object_new ();

  r->pos++;
  skip_ws (r);
  if (r->pos < r->end && *r->pos == '}')
    {
      r->pos++;
      return json_node_init_object (json_node_alloc (), object);
    }

  for (;;)
    {
      g_autofree char *key = NULL;
      JsonNode *value;

      skip_ws (r);
      if (r->pos >= r->end || *r->pos != '"' || !read_string (r))
        return NULL;
      key = g_strndup (r->scratch->str, r->scratch->len);
      skip_ws (r);
      if (r->pos >= r->end || *r->pos != ':')
        return NULL;
      r->pos++;
      if (!(value = read_value (r)))
        return NULL;
      /* A repeated member: the last value, as json-glib keeps it. */
      json_object_set_member (object, key, value);

      skip_ws (r);
      if (r->pos < r->end && *r->pos == ',')
        {
          r->pos++;
          continue;
        }
      if (r->pos < r->end && *r->pos == '}')
        {
          r->pos++;
          return json_node_init_object (json_node_alloc (), object);
        }
      return NULL;
    }
}

static JsonNode *
read_array (Reader *r)
{
  g_autoptr(JsonArray) array = json_array_new ();

  r->pos++;
  skip_ws (r);
  if (r->pos < r->end && *r->pos == ']')
    {
      r->pos++;
      return json_node_init_array (json_node_alloc (), array);
    }

  for (;;)
    {
      JsonNode *value;

      if (!(value = read_value (r)))
        return NULL;
      json_array_add_element (array, value);

      skip_ws (r);
      if (r->pos < r->end && *r->pos == ',')
        {
          r->pos++;
          continue;
        }
      if (r->pos < r->end && *r->pos == ']')
        {
          r->pos++;
          return json_node_init_array (json_node_alloc (), array);
        }
      return NULL;
    }
}

static JsonNode *
read_value (Reader *r)
{
  JsonNode *node;

  skip_ws (r);
  if (r->pos >= r->end)
    return NULL;

  switch (*r->pos)
    {
    case '{':
    case '[':
      /* The parser recurses per level: bounded like every foreign document. */
      if (++r->depth > PD_JSON_FOREIGN_MAX_DEPTH)
        return NULL;
      node = *r->pos == '{' ? read_object (r) : read_array (r);
      r->depth--;
      return node;
    case '"':
      if (!read_string (r))
        return NULL;
      return json_node_init_string (json_node_alloc (), r->scratch->str);
    case 't':
      return match_word (r, "true", 4) ? json_node_init_boolean (json_node_alloc (), TRUE) : NULL;
    case 'f':
      return match_word (r, "false", 5) ? json_node_init_boolean (json_node_alloc (), FALSE) : NULL;
    case 'n':
      return match_word (r, "null", 4) ? json_node_init_null (json_node_alloc ()) : NULL;
    default:
      return read_number (r);
    }
}

JsonNode *
_pd_import_parse_json (const char *text,
                       gssize      length)
{
  g_autoptr(GString) scratch = NULL;
  Reader r;
  JsonNode *node;

  if (text == NULL)
    return NULL;
  if (length < 0)
    length = (gssize) strlen (text);
  if (!g_utf8_validate (text, length, NULL))
    return NULL;

  scratch = g_string_sized_new (256);
  r.pos = text;
  r.end = text + length;
  r.depth = 0;
  r.scratch = scratch;
  if (!(node = read_value (&r)))
    return NULL;
  skip_ws (&r);
  if (r.pos != r.end)
    {
      json_node_unref (node);
      return NULL;
    }
  return node;
}

/* pd-json.c: a small strict JSON reader and a canonical JSON writer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-json"

#include "config.h"

#include <math.h>
#include <string.h>

#include "pd-decimal.h"
#include "pd-json.h"
#include "pd-json-private.h"
#include "pd-json-scan-private.h"

G_DEFINE_QUARK (pd-json-error-quark, pd_json_error)

gboolean
pd_json_reader_fail (PdJsonReader  *r,
                     GError       **error,
                     PdJsonError    code,
                     const char    *what)
{
  g_set_error (error, PD_JSON_ERROR, code,
               "invalid JSON at offset %" G_GSIZE_FORMAT ": %s",
               (gsize) (r->pos - r->start), what);
  return FALSE;
}

gboolean
pd_json_reader_begin (PdJsonReader      *r,
                      const char        *text,
                      gsize              length,
                      PdJsonParseFlags   flags,
                      GString           *scratch,
                      GError           **error)
{
  if (!pd_json_utf8_validate (text, length))
    {
      g_set_error_literal (error, PD_JSON_ERROR, PD_JSON_ERROR_ENCODING,
                           "invalid JSON: text is not valid UTF-8");
      return FALSE;
    }

  r->start = r->pos = text;
  r->end = text + length;
  r->depth = 0;
  r->flags = flags;
  r->max_depth = (flags & PD_JSON_PARSE_FOREIGN) ? PD_JSON_FOREIGN_MAX_DEPTH : PD_JSON_MAX_DEPTH;
  r->scratch = scratch;
  return TRUE;
}

gboolean
pd_json_reader_end (PdJsonReader  *r,
                    GError       **error)
{
  pd_json_reader_skip_ws (r);
  if (r->pos != r->end)
    return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "trailing data after the JSON value");
  return TRUE;
}

/* Reads a string starting at the opening quote into r->scratch.  Strict,
 * raw control characters and "\u0000" are refused; for foreign documents
 * they are taken as json-glib takes them (a NUL ends the C string). */
gboolean
pd_json_reader_read_string (PdJsonReader  *r,
                            GError       **error)
{
  gboolean foreign = (r->flags & PD_JSON_PARSE_FOREIGN) != 0;
  GString *out = r->scratch;

  g_assert (*r->pos == '"');
  r->pos++;
  g_string_truncate (out, 0);

  while (r->pos < r->end)
    {
      const char *run = r->pos;
      char c;

      /* The plain run up to the next quote, escape or control character
       * (a foreign document may hold control characters: sixteen bytes at
       * a time up to a quote or escape). */
      if (foreign)
        r->pos = pd_json_find_quote_or_backslash (r->pos, r->end);
      else
        while (r->pos < r->end && *r->pos != '"' && *r->pos != '\\' && (guchar) *r->pos >= 0x20)
          r->pos++;
      g_string_append_len (out, run, r->pos - run);
      if (r->pos >= r->end)
        break;

      c = *r->pos;
      if (c == '"')
        {
          r->pos++;
          return TRUE;
        }
      if (c != '\\')
        return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "control character in string");

      r->pos++;
      if (r->pos >= r->end)
        break;

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
            gunichar ch;

            if (!pd_json_reader_read_hex4 (r, &ch))
              return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "bad \\u escape");

            /* A surrogate with no partner: JavaScript's JSON.stringify
             * writes one as such an escape (a string cut inside a pair,
             * which the agents written in it do when they shorten text),
             * so a document written elsewhere has it read as U+FFFD
             * rather than refused whole, losing a task for one character.
             * Our own documents never hold one: refused. */
            if (ch >= 0xD800 && ch <= 0xDBFF)
              {
                const char *after = r->pos;
                gunichar low = 0;

                if (r->end - r->pos >= 6 && r->pos[0] == '\\' && r->pos[1] == 'u')
                  {
                    r->pos += 2;
                    if (!pd_json_reader_read_hex4 (r, &low) || low < 0xDC00 || low > 0xDFFF)
                      {
                        low = 0;
                        r->pos = after;
                      }
                  }
                if (low != 0)
                  ch = 0x10000 + ((ch - 0xD800) << 10) + (low - 0xDC00);
                else if (foreign)
                  ch = PD_JSON_REPLACEMENT_CHARACTER;
                else
                  return pd_json_reader_fail (r, error, PD_JSON_ERROR_ENCODING, "lone surrogate in \\u escape");
              }
            else if (ch >= 0xDC00 && ch <= 0xDFFF)
              {
                if (!foreign)
                  return pd_json_reader_fail (r, error, PD_JSON_ERROR_ENCODING, "lone surrogate in \\u escape");
                ch = PD_JSON_REPLACEMENT_CHARACTER;
              }
            else if (ch == 0 && !foreign)
              return pd_json_reader_fail (r, error, PD_JSON_ERROR_ENCODING, "NUL character in string");

            g_string_append_unichar (out, ch);
          }
          break;
        default:
          r->pos--;
          return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unknown escape in string");
        }
    }

  return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unterminated string");
}

/* A number beyond a double's range (1e400).  Our own documents never hold
 * one: refused.  In a document from elsewhere it is one bad value, not a
 * bad document: it reads as null, so the member that holds it is lost
 * alone (a transcript's whole task was, for a "ts" of 1e400, tried as an
 * attacker would) and every typed read takes it for missing. */
static JsonNode *
out_of_range (PdJsonReader  *r,
              GError       **error)
{
  if (r->flags & PD_JSON_PARSE_FOREIGN)
    return json_node_init_null (json_node_alloc ());
  pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "number out of range");
  return NULL;
}

JsonNode *
pd_json_reader_read_number (PdJsonReader  *r,
                            GError       **error)
{
  const char *begin = r->pos;
  gboolean is_integer = TRUE;
  char buf[64];
  gsize len;

  if (r->pos < r->end && *r->pos == '-')
    r->pos++;

  if (r->pos >= r->end || !g_ascii_isdigit (*r->pos))
    {
      pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "bad number");
      return NULL;
    }

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
        {
          pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "bad number");
          return NULL;
        }
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
        {
          pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "bad number");
          return NULL;
        }
      while (r->pos < r->end && g_ascii_isdigit (*r->pos))
        r->pos++;
    }

  len = r->pos - begin;
  if (len >= sizeof buf)
    {
      /* Absurdly long literals are parsed from a heap copy. */
      g_autofree char *copy = g_strndup (begin, len);
      double d = g_ascii_strtod (copy, NULL);

      if (!isfinite (d))
        return out_of_range (r, error);
      return json_node_init_double (json_node_alloc (), d);
    }

  memcpy (buf, begin, len);
  buf[len] = '\0';

  /* Not g_ascii_strtoll(): see pd-decimal.h. */
  if (is_integer)
    {
      gboolean negative = (buf[0] == '-');
      guint64 magnitude;

      if (pd_decimal_parse (buf + negative, (gssize) (len - negative),
                            negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64, &magnitude))
        {
          /* Negated in gint64 one below the magnitude, so G_MININT64 needs
           * no unsigned-to-signed conversion of an out-of-range value. */
          gint64 value = !negative ? (gint64) magnitude
                       : magnitude == 0 ? 0 : -(gint64) (magnitude - 1) - 1;

          return json_node_init_int (json_node_alloc (), value);
        }
    }

  {
    double d = g_ascii_strtod (buf, NULL);

    if (!isfinite (d))
      return out_of_range (r, error);
    return json_node_init_double (json_node_alloc (), d);
  }
}

static JsonNode *
read_object (PdJsonReader  *r,
             GError       **error)
{
  g_autoptr(JsonObject) object = json_object_new ();
  gboolean more = !pd_json_reader_enter (r, '}');

  while (more)
    {
      g_autofree char *key = NULL;
      JsonNode *value;

      if (!pd_json_reader_at_key (r, error) || !pd_json_reader_read_string (r, error))
        return NULL;
      key = g_strndup (r->scratch->str, r->scratch->len);

      /* Foreign documents keep the last of a repeated member, as json-glib
       * does; our own refuse the ambiguity. */
      if (!(r->flags & PD_JSON_PARSE_FOREIGN) && json_object_has_member (object, key))
        {
          g_autofree char *what = g_strdup_printf ("duplicate key \"%s\"", key);
          pd_json_reader_fail (r, error, PD_JSON_ERROR_DUPLICATE_KEY, what);
          return NULL;
        }

      if (!pd_json_reader_colon (r, error) || !(value = pd_json_reader_read_value (r, error)))
        return NULL;
      json_object_set_member (object, key, value);

      if (!pd_json_reader_next_item (r, '}', &more, error))
        return NULL;
    }
  return json_node_init_object (json_node_alloc (), object);
}

static JsonNode *
read_array (PdJsonReader  *r,
            GError       **error)
{
  g_autoptr(JsonArray) array = json_array_new ();
  gboolean more = !pd_json_reader_enter (r, ']');

  while (more)
    {
      JsonNode *value;

      if (!(value = pd_json_reader_read_value (r, error)))
        return NULL;
      json_array_add_element (array, value);

      if (!pd_json_reader_next_item (r, ']', &more, error))
        return NULL;
    }
  return json_node_init_array (json_node_alloc (), array);
}

JsonNode *
pd_json_reader_read_value (PdJsonReader  *r,
                           GError       **error)
{
  JsonNode *node = NULL;

  pd_json_reader_skip_ws (r);

  if (r->pos >= r->end)
    {
      pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unexpected end of input");
      return NULL;
    }

  switch (*r->pos)
    {
    case '{':
    case '[':
      if (++r->depth > r->max_depth)
        {
          pd_json_reader_fail (r, error, PD_JSON_ERROR_DEPTH, "nested too deeply");
          return NULL;
        }
      node = *r->pos == '{' ? read_object (r, error) : read_array (r, error);
      r->depth--;
      return node;

    case '"':
      if (!pd_json_reader_read_string (r, error))
        return NULL;
      return json_node_init_string (json_node_alloc (), r->scratch->str);

    case 't':
      if (pd_json_reader_match_literal (r, "true"))
        return json_node_init_boolean (json_node_alloc (), TRUE);
      break;

    case 'f':
      if (pd_json_reader_match_literal (r, "false"))
        return json_node_init_boolean (json_node_alloc (), FALSE);
      break;

    case 'n':
      if (pd_json_reader_match_literal (r, "null"))
        return json_node_init_null (json_node_alloc ());
      break;

    default:
      if (*r->pos == '-' || g_ascii_isdigit (*r->pos))
        return pd_json_reader_read_number (r, error);
      break;
    }

  pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unexpected character");
  return NULL;
}

/**
 * pd_json_parse_full:
 * @text: UTF-8 JSON text
 * @length: length of @text, or -1 when nul-terminated
 * @flags: %PD_JSON_PARSE_FOREIGN for documents written elsewhere
 * @error: (nullable): where to say what was wrong
 *
 * Parses exactly one JSON value (RFC 8259) surrounded by optional
 * whitespace; invalid UTF-8 is always refused.  Strict (the default, for
 * what we read as our own: plan calls, stored plans), nesting deeper than
 * %PD_JSON_MAX_DEPTH, duplicate object keys, lone surrogate escapes, raw
 * control characters and NUL characters in strings are refused too.  With
 * %PD_JSON_PARSE_FOREIGN (transcript lines of other agents), nesting is
 * bounded by %PD_JSON_FOREIGN_MAX_DEPTH and json-glib's harmless answers
 * are kept: raw control characters are taken, "\u0000" ends a string and a
 * repeated member keeps its last value; a lone surrogate escape, which
 * JavaScript's JSON.stringify writes, reads as U+FFFD.  It builds the trees directly: on
 * the short lines an import parses by the thousand, json-glib's parser (a
 * GObject signal per member, under GLib's global signal lock) was most of
 * the import's time.
 *
 * Returns: (transfer full): the value, or %NULL with @error set
 */
JsonNode *
pd_json_parse_full (const char        *text,
                    gssize             length,
                    PdJsonParseFlags   flags,
                    GError           **error)
{
  g_autoptr(GString) scratch = NULL;
  PdJsonReader r;
  JsonNode *node;

  g_return_val_if_fail (text != NULL, NULL);

  if (length < 0)
    length = strlen (text);

  scratch = g_string_sized_new (256);
  if (!pd_json_reader_begin (&r, text, length, flags, scratch, error) ||
      !(node = pd_json_reader_read_value (&r, error)))
    return NULL;

  if (!pd_json_reader_end (&r, error))
    {
      json_node_unref (node);
      return NULL;
    }

  return node;
}

/**
 * pd_json_parse:
 *
 * pd_json_parse_full() with strict flags.
 */
JsonNode *
pd_json_parse (const char  *text,
               gssize       length,
               GError     **error)
{
  return pd_json_parse_full (text, length, PD_JSON_PARSE_DEFAULT, error);
}

/* Escapes like Go's encoding/json (HTML-safe), so that rendered plans read the
 * same as odek's and no '<' ever appears raw inside a check's JSON — the
 * untrusted-content wrapper tags stay unforgeable from there. */
void
pd_json_append_string (GString    *out,
                       const char *str)
{
  static const char hex[] = "0123456789abcdef";
  const char *run = str;
  const char *p = str;

  g_string_append_c (out, '"');

  while (*p)
    {
      guchar c = (guchar) *p;
      const char *esc = NULL;
      gsize adv = 1;

      switch (c)
        {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '<': esc = "\\u003c"; break;
        case '>': esc = "\\u003e"; break;
        case '&': esc = "\\u0026"; break;
        case 0xE2:
          /* U+2028 and U+2029 are line breaks to some readers. */
          if ((guchar) p[1] == 0x80 && ((guchar) p[2] == 0xA8 || (guchar) p[2] == 0xA9))
            {
              esc = (guchar) p[2] == 0xA8 ? "\\u2028" : "\\u2029";
              adv = 3;
            }
          break;
        default:
          break;
        }

      if (esc == NULL && (c < 0x20 || c == 0x7f))
        {
          g_string_append_len (out, run, p - run);
          g_string_append (out, "\\u00");
          g_string_append_c (out, hex[c >> 4]);
          g_string_append_c (out, hex[c & 0xf]);
          p++;
          run = p;
          continue;
        }

      if (esc != NULL)
        {
          g_string_append_len (out, run, p - run);
          g_string_append (out, esc);
          p += adv;
          run = p;
          continue;
        }

      p++;
    }

  g_string_append_len (out, run, p - run);
  g_string_append_c (out, '"');
}

static void
append_double (GString *out,
               double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* Integral values print as integers so 1, 1.0 and 1e0 agree. */
  if (d == floor (d) && fabs (d) < 9.2e18)
    {
      g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) d);
      return;
    }

  /* Shortest spelling that reads back to the same double. */
  for (int precision = 1; precision <= 17; precision++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, format, d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }

  g_string_append (out, buf);
}

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

void
pd_json_append_node (GString  *out,
                     JsonNode *node,
                     gboolean  sort_keys)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          append_double (out, json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          pd_json_append_string (out, json_node_get_string (node));
          break;
        default:
          g_string_append (out, "null");
          break;
        }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            pd_json_append_node (out, json_array_get_element (array, i), sort_keys);
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GPtrArray) keys = g_ptr_array_new ();
        GList *members = json_object_get_members (object);

        for (GList *l = members; l; l = l->next)
          g_ptr_array_add (keys, l->data);
        g_list_free (members);

        if (sort_keys)
          g_ptr_array_sort (keys, compare_keys);

        g_string_append_c (out, '{');
        for (guint i = 0; i < keys->len; i++)
          {
            const char *key = g_ptr_array_index (keys, i);

            if (i > 0)
              g_string_append_c (out, ',');
            pd_json_append_string (out, key);
            g_string_append_c (out, ':');
            pd_json_append_node (out, json_object_get_member (object, key), sort_keys);
          }
        g_string_append_c (out, '}');
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

char *
pd_json_to_string (JsonNode *node,
                   gboolean  sort_keys)
{
  GString *out = g_string_new (NULL);

  pd_json_append_node (out, node, sort_keys);
  return g_string_free (out, FALSE);
}

/**
 * pd_json_canonicalize_object:
 * @node: a JSON node that must hold an object
 *
 * Canonical form: compact, keys sorted bytewise at every level, numbers in
 * their shortest round-trip spelling with integral values as integers.
 *
 * Returns: (transfer full): the canonical text, or %NULL when @node is not an object
 */
char *
pd_json_canonicalize_object (JsonNode  *node,
                             GError   **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, PD_JSON_ERROR, PD_JSON_ERROR_SYNTAX,
                           "must be a JSON object");
      return NULL;
    }

  return pd_json_to_string (node, TRUE);
}

char *
pd_json_canonicalize_text (const char  *text,
                           GError     **error)
{
  g_autoptr(JsonNode) node = pd_json_parse (text, -1, error);

  if (node == NULL)
    return NULL;

  return pd_json_canonicalize_object (node, error);
}

/**
 * pd_json_from_string_bounded:
 * @text: (nullable): JSON text this program did not just build: a row of a
 *   database (which anyone who can write the file may have written), a
 *   file, a model's arguments
 * @error: the reason when refused
 *
 * json_from_string(), refused beyond %PD_JSON_FOREIGN_MAX_DEPTH levels
 * before json-glib, which recurses once a level, sees it: a stored message
 * of 300 000 '[' crashed every command and `serve` that read it, and the
 * window before its first frame (tried as an attacker would).
 *
 * Returns: (transfer full) (nullable): the node, or %NULL with @error set
 */
JsonNode *
pd_json_from_string_bounded (const char  *text,
                             GError     **error)
{
  if (text == NULL)
    {
      g_set_error_literal (error, PD_JSON_ERROR, PD_JSON_ERROR_SYNTAX, "invalid JSON: no text");
      return NULL;
    }
  if (pd_json_nesting_exceeds (text, -1, PD_JSON_FOREIGN_MAX_DEPTH))
    {
      g_set_error (error, PD_JSON_ERROR, PD_JSON_ERROR_DEPTH,
                   "invalid JSON: nested deeper than %d levels", PD_JSON_FOREIGN_MAX_DEPTH);
      return NULL;
    }
  return json_from_string (text, error);
}

/* The closing quote of the JSON string opened at @p, or the last byte
 * before @end when it is not closed: the scans below count outside
 * strings only, and step on from there.  Sixteen bytes at a time to the
 * next quote or backslash (pd-json-scan-private.h): the import's readers
 * scan every long transcript line they build a tree of, mostly strings. */
static inline const char *
skip_string (const char *p,
             const char *end)
{
  for (p++;;)
    {
      p = pd_json_find_quote_or_backslash (p, end);
      if (p >= end)
        return end - 1;
      if (*p == '"')
        return p;
      /* A backslash and the byte it escapes. */
      p += 2;
      if (p >= end)
        return end - 1;
    }
}

/**
 * pd_json_nesting_exceeds:
 * @text: JSON text (need not be valid)
 * @length: its length, or -1 when NUL-terminated
 * @max_depth: the deepest nesting allowed
 *
 * Whether arrays and objects in @text nest deeper than @max_depth, counted
 * outside strings, in one pass without recursion: the check to make before
 * handing text from elsewhere to json-glib's recursive parser.
 */
gboolean
pd_json_nesting_exceeds (const char *text,
                         gssize      length,
                         guint       max_depth)
{
  const char *end;
  guint depth = 0;

  if (text == NULL)
    return FALSE;
  end = text + (length < 0 ? strlen (text) : (gsize) length);

  for (const char *p = text; p < end; p++)
    {
      if (*p == '"')
        p = skip_string (p, end);
      else if (*p == '[' || *p == '{')
        {
          if (++depth > max_depth)
            return TRUE;
        }
      else if ((*p == ']' || *p == '}') && depth > 0)
        depth--;
    }
  return FALSE;
}

/* The units of @text counted as pd_json_values_exceed() counts them, but
 * inside strings too: never fewer.  Sixteen bytes at a time, so that a line
 * that holds far fewer than its bound (all but a hostile one) is let
 * through without the walk that steps over its strings. */
static gsize
units_at_most (const char *text,
               gsize       length)
{
  gsize units = 0;
  gsize i = 0;

#if defined(__SSE2__) && defined(__x86_64__)
  const __m128i comma = _mm_set1_epi8 (','), colon = _mm_set1_epi8 (':');
  const __m128i bracket = _mm_set1_epi8 ('['), brace = _mm_set1_epi8 ('{');

  /* Each byte's lane counts its units (a compare is -1 where it holds,
   * subtracted; a brace twice), at most 2 a block: summed every 127 blocks,
   * before a lane could pass 255. */
  while (i + 16 <= length)
    {
      __m128i counts = _mm_setzero_si128 (), sums;

      for (guint n = 0; n < 127 && i + 16 <= length; n++, i += 16)
        {
          __m128i v = _mm_loadu_si128 ((const __m128i *) (text + i));
          __m128i one = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, comma), _mm_cmpeq_epi8 (v, colon)),
                                      _mm_cmpeq_epi8 (v, bracket));
          __m128i two = _mm_cmpeq_epi8 (v, brace);

          counts = _mm_sub_epi8 (_mm_sub_epi8 (_mm_sub_epi8 (counts, one), two), two);
        }
      sums = _mm_sad_epu8 (counts, _mm_setzero_si128 ());
      units += (gsize) _mm_cvtsi128_si64 (sums) + (gsize) _mm_extract_epi16 (sums, 4);
    }
#endif
  for (; i < length; i++)
    units += text[i] == ',' || text[i] == ':' || text[i] == '[' ? 1 : text[i] == '{' ? 2 : 0;
  return units;
}

/**
 * pd_json_values_exceed:
 * @text: JSON text (need not be valid)
 * @length: its length
 * @max_units: the most units allowed
 *
 * Whether the tree json-glib would build of @text holds more than
 * @max_units units of about 100 bytes each, counted outside strings in one
 * pass: a ',' or ':' (a value or a member more), a '[' (an array), and
 * two for a '{' (an object with its hash table).  Measured with json-glib
 * 1.6: an element costs 80 to 115 bytes, a member 184, an empty array 118
 * and an empty object 302, while the text of each can be two or three
 * bytes: 6 MB of "[{},{},...]" took 1.5 GB to parse.  The check to make
 * before handing a large text from elsewhere to json-glib.
 */
gboolean
pd_json_values_exceed (const char *text,
                       gsize       length,
                       gsize       max_units)
{
  const char *end = text + length;
  gsize units = 0;

  if (units_at_most (text, length) <= max_units)
    return FALSE;

  for (const char *p = text; p < end; p++)
    {
      if (*p == '"')
        p = skip_string (p, end);
      else if (*p == ',' || *p == ':' || *p == '[')
        units++;
      else if (*p == '{')
        units += 2;
      else
        continue;
      if (units > max_units)
        return TRUE;
    }
  return FALSE;
}

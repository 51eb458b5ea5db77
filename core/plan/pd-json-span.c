/* pd-json-span.c: reading a few values of a checked JSON text in place
 * (see pd-json-span.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-json"

#include "config.h"

#include <string.h>

#include "pd-json-span.h"
#include "pd-json-private.h"
#include "pd-json-scan-private.h"

/* Every function here reads a text pd_json_check_foreign() accepted: its
 * strings are closed, its containers balanced, its escapes whole.  Still,
 * no read goes past a span's end whatever the bytes, so a span misused
 * gives a wrong answer, never a read out of bounds. */

static inline const char *
skip_ws (const char *p,
         const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* @p at an opening quote: just after its closing quote.  The scan stops at
 * a quote or a backslash (sixteen bytes at a time); a backslash and the
 * byte it escapes are passed over together, so the quote it stops at is
 * the closing one. */
static const char *
skip_string (const char *p,
             const char *end)
{
  p++;
  for (;;)
    {
      p = pd_json_find_quote_or_backslash (p, end);
      if (p >= end)
        return end;
      if (*p == '"')
        return p + 1;
      if (end - p <= 2)
        return end;
      p += 2;
    }
}

/* @p at a value's first byte: just after its last. */
static const char *
skip_value (const char *p,
            const char *end)
{
  guint depth = 0;

  if (p >= end)
    return end;
  if (*p == '"')
    return skip_string (p, end);
  if (*p != '{' && *p != '[')
    {
      /* A number or a literal: up to what ends it. */
      while (p < end && *p != ',' && *p != '}' && *p != ']'
             && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
        p++;
      return p;
    }

  while (p < end)
    {
      switch (*p)
        {
        case '"':
          p = skip_string (p, end);
          continue;
        case '{':
        case '[':
          depth++;
          break;
        case '}':
        case ']':
          if (--depth == 0)
            return p + 1;
          break;
        default:
          break;
        }
      p++;
    }
  return end;
}

static PdJsonSpan
span_of (const char *begin,
         const char *end)
{
  PdJsonSpan span = { begin, (gsize) (end - begin) };

  return span;
}

/* The byte after @span.  A span of no value has no text (NULL): adding
 * to a null pointer is undefined, even adding 0 (UBSan, found by the
 * claude-line fuzzer). */
static inline const char *
span_end (PdJsonSpan span)
{
  return span.text != NULL ? span.text + span.length : NULL;
}

/* The string at @string unescaped into @out, as the tree keeps it: a
 * "\u0000" ends it. */
static void
unescape (PdJsonSpan  string,
          GString    *out)
{
  PdJsonReader r;

  r.start = r.pos = string.text;
  r.end = span_end (string);
  r.depth = 0;
  r.flags = PD_JSON_PARSE_FOREIGN;
  r.max_depth = PD_JSON_FOREIGN_MAX_DEPTH;
  r.scratch = out;
  if (!pd_json_reader_read_string (&r, NULL))
    g_string_truncate (out, 0);
  /* A NUL from "\u0000" ends the C string json-glib keeps. */
  g_string_truncate (out, strlen (out->str));
}

/* Whether the string (key or value) from @open (its opening quote) to
 * @close (its closing quote) is @word, compared as the tree compares. */
static gboolean
string_is_len (const char *open,
               const char *close,
               const char *word,
               gsize       word_length)
{
  gsize length = (gsize) (close - open - 1);

  /* No escape: the bytes are the string (a checked text has no NUL).  An
   * escape makes a string shorter, never longer. */
  if (length < word_length)
    return FALSE;
  if (memchr (open + 1, '\\', length) == NULL)
    return word_length == length && memcmp (open + 1, word, length) == 0;

  {
    g_autoptr(GString) out = g_string_new (NULL);

    unescape (span_of (open, close + 1), out);
    return strcmp (out->str, word) == 0;
  }
}

static gboolean
string_is (const char *open,
           const char *close,
           const char *word)
{
  return string_is_len (open, close, word, strlen (word));
}

/* string_is_len() for a key already known to have an escape or not. */
static inline gboolean
key_is (const char *open,
        const char *close,
        gboolean    plain,
        const char *word,
        gsize       word_length)
{
  if (plain)
    return (gsize) (close - open - 1) == word_length && memcmp (open + 1, word, word_length) == 0;
  return string_is_len (open, close, word, word_length);
}

/* The members of the object at @p (its '{'), up to @end, as
 * pd_json_span_get_members() gives them; where the object ends. */
static const char *
read_members (const char         *p,
              const char         *end,
              const char * const *names,
              PdJsonSpan         *values,
              guint               within,
              const char * const *inner_names,
              PdJsonSpan         *inner_values)
{
  gsize lengths[16];
  guint n;

  if (inner_names != NULL)
    read_members (p, p, inner_names, inner_values, 0, NULL, NULL);

  for (n = 0; names[n] != NULL; n++)
    {
      g_assert (n < G_N_ELEMENTS (lengths));
      values[n] = span_of (NULL, NULL);
      lengths[n] = strlen (names[n]);
    }
  if (p >= end || *p != '{')
    return p;

  p++;
  for (;;)
    {
      const char *key, *key_end, *begin;
      gboolean plain;

      p = skip_ws (p, end);
      if (p >= end || *p != '"')
        break;  /* '}' */
      key = p;
      key_end = skip_string (p, end);
      if (key_end - key < 2)
        break;  /* no closing quote */
      p = skip_ws (key_end, end);
      if (p >= end || *p != ':')
        break;
      begin = p = skip_ws (p + 1, end);
      /* A key with no escape (nearly all) is its bytes: compared by length
       * first, without looking for an escape once per name. */
      plain = memchr (key + 1, '\\', (gsize) (key_end - key - 2)) == NULL;
      if (inner_names != NULL && key_is (key, key_end - 1, plain, names[within], lengths[within]))
        {
          /* Read in passing; a later member of the name reads it again
           * (or leaves nothing, when it is no object). */
          p = read_members (p, *p == '{' ? end : p, inner_names, inner_values, 0, NULL, NULL);
          if (p == begin)
            p = skip_value (p, end);
        }
      else
        p = skip_value (p, end);
      for (guint i = 0; i < n; i++)
        if (key_is (key, key_end - 1, plain, names[i], lengths[i]))
          values[i] = span_of (begin, p);
      p = skip_ws (p, end);
      if (p >= end || *p != ',')
        break;
      p++;
    }
  /* The closing '}'. */
  p = skip_ws (p, end);
  return p < end ? p + 1 : end;
}

/**
 * pd_json_span_get_member:
 * @object: a span of an object
 * @name: the member's name
 * @value: (out): its value's span
 *
 * The value of @object's member @name; of the last when the name is
 * repeated, as the tree keeps it.
 *
 * Returns: whether @object is an object with that member
 */
gboolean
pd_json_span_get_member (PdJsonSpan   object,
                         const char  *name,
                         PdJsonSpan  *value)
{
  const char *names[] = { name, NULL };
  PdJsonSpan found;

  pd_json_span_get_members (object, names, &found);
  if (found.length == 0)
    return FALSE;
  *value = found;
  return TRUE;
}

/**
 * pd_json_span_get_members:
 * @object: a span of an object
 * @names: the members' names, ended by %NULL
 * @values: (out caller-allocates): as many spans: each the value of the
 *   last member of that name, or of length 0 when there is none
 *
 * pd_json_span_get_member() for several names in one pass over @object.
 */
void
pd_json_span_get_members (PdJsonSpan          object,
                          const char * const *names,
                          PdJsonSpan         *values)
{
  read_members (object.text, span_end (object), names, values, 0, NULL, NULL);
}

/**
 * pd_json_span_get_members_within:
 * @object: a span of an object
 * @names: the members' names, ended by %NULL
 * @values: (out caller-allocates): their values, as
 *   pd_json_span_get_members() gives them
 * @within: the index in @names of a member whose own members are read too
 * @inner_names: those members' names, ended by %NULL
 * @inner_values: (out caller-allocates): their values (all of length 0
 *   when that member is no object)
 *
 * pd_json_span_get_members() on @object, and on its member @names[@within]
 * as well, in one pass.
 */
void
pd_json_span_get_members_within (PdJsonSpan          object,
                                 const char * const *names,
                                 PdJsonSpan         *values,
                                 guint               within,
                                 const char * const *inner_names,
                                 PdJsonSpan         *inner_values)
{
  read_members (object.text, span_end (object), names, values, within, inner_names, inner_values);
}

/**
 * pd_json_span_next_element:
 * @array: a span of an array
 * @cursor: (inout): 0 for the first element, then as this leaves it
 * @element: (out): the element's span
 *
 * Returns: whether there was one more element
 */
gboolean
pd_json_span_next_element (PdJsonSpan   array,
                           gsize       *cursor,
                           PdJsonSpan  *element)
{
  const char *end = span_end (array);
  const char *p;
  const char *begin;

  if (!pd_json_span_is_array (array))
    return FALSE;

  p = array.text + MAX (*cursor, 1);
  p = skip_ws (p, end);
  if (*cursor > 0)
    {
      /* After an element: its ',' or the end. */
      if (p >= end || *p != ',')
        return FALSE;
      p = skip_ws (p + 1, end);
    }
  if (p >= end || *p == ']')
    return FALSE;
  begin = p;
  p = skip_value (p, end);
  *element = span_of (begin, p);
  *cursor = (gsize) (p - array.text);
  return TRUE;
}

/**
 * pd_json_span_next_members:
 * @array: a span of an array
 * @cursor: (inout): 0 for the first element, then as this leaves it
 * @names: the members' names, ended by %NULL
 * @values: (out caller-allocates): as pd_json_span_get_members() gives
 *   them (all of length 0 when the element is no object)
 * @element: (out): the element's span
 *
 * pd_json_span_next_element() and pd_json_span_get_members() on the
 * element, in one pass over it.
 *
 * Returns: whether there was one more element
 */
gboolean
pd_json_span_next_members (PdJsonSpan          array,
                           gsize              *cursor,
                           const char * const *names,
                           PdJsonSpan         *values,
                           PdJsonSpan         *element)
{
  const char *end = span_end (array);
  const char *p;
  const char *begin;

  if (!pd_json_span_is_array (array))
    return FALSE;

  p = array.text + MAX (*cursor, 1);
  p = skip_ws (p, end);
  if (*cursor > 0)
    {
      if (p >= end || *p != ',')
        return FALSE;
      p = skip_ws (p + 1, end);
    }
  if (p >= end || *p == ']')
    return FALSE;
  begin = p;
  if (*p == '{')
    p = read_members (p, end, names, values, 0, NULL, NULL);
  else
    {
      read_members (p, p, names, values, 0, NULL, NULL);
      p = skip_value (p, end);
    }
  *element = span_of (begin, p);
  *cursor = (gsize) (p - array.text);
  return TRUE;
}

/**
 * pd_json_span_string_equal:
 * @string: a span
 * @word: a nul-terminated string
 *
 * Returns: whether @string is a string, and unescaped it is @word
 */
gboolean
pd_json_span_string_equal (PdJsonSpan   string,
                           const char  *word)
{
  if (!pd_json_span_is_string (string) || string.length < 2)
    return FALSE;
  return string_is (string.text, string.text + string.length - 1, word);
}

/**
 * pd_json_span_dup_string:
 * @string: a span
 *
 * Returns: (transfer full) (nullable): the string unescaped as the tree
 *   keeps it, or %NULL when @string is no string
 */
char *
pd_json_span_dup_string (PdJsonSpan string)
{
  g_autoptr(GString) out = NULL;

  if (!pd_json_span_is_string (string) || string.length < 2)
    return NULL;
  if (memchr (string.text + 1, '\\', string.length - 2) == NULL)
    return g_strndup (string.text + 1, string.length - 2);
  out = g_string_sized_new (string.length);
  unescape (string, out);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/**
 * pd_json_span_get_boolean:
 * @object: a span of an object
 * @name: the member's name
 * @fallback: what to give when there is no such boolean member
 *
 * pd_json_get_boolean() on the tree's object.
 *
 * Returns: the member's value, or @fallback
 */
gboolean
pd_json_span_get_boolean (PdJsonSpan   object,
                          const char  *name,
                          gboolean     fallback)
{
  PdJsonSpan value;

  if (!pd_json_span_get_member (object, name, &value) || !pd_json_span_is_boolean (value))
    return fallback;
  return value.text[0] == 't';
}

/**
 * pd_json_span_to_node:
 * @span: a value's span
 * @pick: (nullable): what to keep of it, as pd_json_parse_picked() keeps
 *
 * The tree of @span, for what is easier read as a tree (rare values).
 *
 * Returns: (transfer full) (nullable): the tree, %NULL for no value
 */
JsonNode *
pd_json_span_to_node (PdJsonSpan        span,
                      const PdJsonPick *pick)
{
  if (span.length == 0)
    return NULL;
  if (pick != NULL)
    return pd_json_parse_picked (span.text, (gssize) span.length, pick, NULL);
  return pd_json_parse_full (span.text, (gssize) span.length, PD_JSON_PARSE_FOREIGN, NULL);
}

/* PdJsonSpanTable */

/**
 * pd_json_span_table_init:
 * @table: a table not yet set up (zeroed), or one cleared
 * @max_rows: how many rows it keeps at the most
 */
void
pd_json_span_table_init (PdJsonSpanTable *table,
                         guint            max_rows)
{
  table->rows = g_array_new (FALSE, FALSE, sizeof (PdJsonSpan));
  table->max_rows = max_rows;
  table->cut = FALSE;
}

/* Empties @table for the next walk: no rows, not cut. */
void
pd_json_span_table_reset (PdJsonSpanTable *table)
{
  g_array_set_size (table->rows, 0);
  table->cut = FALSE;
}

/* Frees the rows of @table; it can be initialised again. */
void
pd_json_span_table_clear (PdJsonSpanTable *table)
{
  g_clear_pointer (&table->rows, g_array_unref);
}

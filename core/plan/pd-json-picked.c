/* pd-json-picked.c: pd_json_parse_picked(), a foreign line checked whole
 * with only the members a reader reads built.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-json"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-private.h"
#include "pd-json-scan-private.h"
#include "pd-json-span.h"

/* ---------------------------------------------------------------------- */
/* Picking members: a whole line validated, only the named members built   */

/* Skips a string (at its opening quote) as pd_json_reader_read_string()
 * reads it for a foreign document, without keeping it: the same escapes are
 * refused.  One scan stops at the next quote or backslash (sixteen bytes at
 * a time, pd-json-scan-private.h): a quote ends the string, a backslash is
 * an escape checked here, and the scan goes on after it — one pass however
 * many escapes. */
static gboolean
skip_string (PdJsonReader  *r,
             GError       **error)
{
  /* The position in a local, stored back once: a text of many escapes
   * (a tool message's JSON in a string) goes round the loop for each. */
  const char *p = r->pos + 1;
  const char *end = r->end;

  g_assert (*r->pos == '"');

  for (;;)
    {
      p = pd_json_find_quote_or_backslash (p, end);
      /* No closing quote: the escapes up to the end were still checked, so
       * that a bad one is the error, as pd_json_reader_read_string() finds
       * it first. */
      if (p >= end)
        break;
      if (*p == '"')
        {
          r->pos = p + 1;
          return TRUE;
        }

      if (++p >= end)
        break;
      switch (*p++)
        {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          break;
        case 'u':
          {
            gunichar ch;

            r->pos = p;
            if (!pd_json_reader_read_hex4 (r, &ch))
              return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "bad \\u escape");
            /* A lone surrogate is read as U+FFFD (see
             * pd_json_reader_read_string()): only a pair's low half is
             * taken with it. */
            if (ch >= 0xD800 && ch <= 0xDBFF && r->end - r->pos >= 6 && r->pos[0] == '\\' && r->pos[1] == 'u')
              {
                const char *after = r->pos;
                gunichar low;

                r->pos += 2;
                if (!pd_json_reader_read_hex4 (r, &low) || low < 0xDC00 || low > 0xDFFF)
                  r->pos = after;
              }
            p = r->pos;
          }
          break;
        default:
          r->pos = p - 1;
          return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unknown escape in string");
        }
    }

  r->pos = end;
  return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unterminated string");
}

/* A number as pd_json_reader_read_number() reads it.  One with no exponent
 * and under 300 characters is always read (a whole number out of gint64's
 * range becomes a double, finite below 309 digits): checked here, nothing
 * built — a 0 too, the commonest number of a transcript (its token counts),
 * which went through the reader and a node made and freed.  Anything else
 * (an exponent, a dot with no digit after it, a very long number) goes
 * through pd_json_reader_read_number() itself. */
/* g_ascii_isdigit() without its table: a subtraction and one compare (the
 * digits of every message's time were a twentieth of a task's walk). */
static inline gboolean
is_digit (char c)
{
  return (guchar) (c - '0') <= 9;
}

/* Past the digits at @p: sixteen bytes looked at once (a message's time
 * in milliseconds is thirteen digits, a byte at a time a tenth of a task's
 * walk), one at a time near the end of the text. */
static inline const char *
skip_digits (const char *p,
             const char *end)
{
  int n = pd_json_count_digits16 (p, end);

  if (n >= 0 && n < 16)
    return p + n;
  while (p < end && is_digit (*p))
    p++;
  return p;
}

static gboolean
skip_number (PdJsonReader  *r,
             GError       **error)
{
  const char *begin = r->pos;
  const char *p = r->pos;
  JsonNode *node;

  if (p < r->end && *p == '-')
    p++;
  if (p < r->end && g_ascii_isdigit (*p))
    {
      /* A leading 0 stands alone: what follows it is the caller's ("01"
       * fails there, as after the reader). */
      if (*p == '0')
        p++;
      else
        p = skip_digits (p, r->end);
      if (r->end - p >= 2 && *p == '.' && g_ascii_isdigit (p[1]))
        p = skip_digits (p + 1, r->end);
      if ((p >= r->end || (*p != '.' && *p != 'e' && *p != 'E')) && p - begin < 300)
        {
          r->pos = p;
          return TRUE;
        }
    }
  r->pos = begin;
  if (!(node = pd_json_reader_read_number (r, error)))
    return FALSE;
  json_node_unref (node);
  return TRUE;
}

static gboolean skip_value (PdJsonReader *r, GError **error);

/* A key at r->pos (its opening quote); *@key points at it, valid until the
 * next read: in the line itself when it has no escape, else in r->scratch
 * (cut at a "\u0000", as read_object() keeps keys). */
static gboolean
read_key (PdJsonReader  *r,
          const char   **key,
          gsize         *length,
          GError       **error)
{
  const char *begin = r->pos + 1;
  const char *p = pd_json_find_quote_or_backslash (begin, r->end);

  if (p < r->end && *p == '"')
    {
      /* Not NUL-terminated: compared by length. */
      *key = begin;
      *length = (gsize) (p - begin);
      r->pos = p + 1;
      return TRUE;
    }
  if (!pd_json_reader_read_string (r, error))
    return FALSE;
  *key = r->scratch->str;
  *length = strlen (r->scratch->str);
  return TRUE;
}

static const PdJsonPick *
find_pick (const PdJsonPick *pick,
           const char       *key,
           gsize             length)
{
  for (; pick->name != NULL; pick++)
    if (strncmp (pick->name, key, length) == 0 && pick->name[length] == '\0')
      return pick;
  return NULL;
}

/* Skips an object or array at r->pos, checked as read_object() and
 * read_array() check them. */
static gboolean
skip_container (PdJsonReader  *r,
                GError       **error)
{
  gboolean object = *r->pos == '{';
  char close = object ? '}' : ']';
  gboolean more = !pd_json_reader_enter (r, close);

  while (more)
    {
      if (object && (!pd_json_reader_at_key (r, error) || !skip_string (r, error) || !pd_json_reader_colon (r, error)))
        return FALSE;
      if (!skip_value (r, error) || !pd_json_reader_next_item (r, close, &more, error))
        return FALSE;
    }
  return TRUE;
}

/* Skips one value, checked as pd_json_reader_read_value() checks it,
 * building nothing. */
static gboolean
skip_value (PdJsonReader  *r,
            GError       **error)
{
  pd_json_reader_skip_ws (r);

  if (r->pos >= r->end)
    return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unexpected end of input");

  switch (*r->pos)
    {
    case '{':
    case '[':
      {
        gboolean ok;

        if (++r->depth > r->max_depth)
          return pd_json_reader_fail (r, error, PD_JSON_ERROR_DEPTH, "nested too deeply");
        ok = skip_container (r, error);
        r->depth--;
        return ok;
      }

    case '"':
      return skip_string (r, error);

    case 't':
      if (pd_json_reader_match_literal (r, "true"))
        return TRUE;
      break;

    case 'f':
      if (pd_json_reader_match_literal (r, "false"))
        return TRUE;
      break;

    case 'n':
      if (pd_json_reader_match_literal (r, "null"))
        return TRUE;
      break;

    default:
      if (*r->pos == '-' || g_ascii_isdigit (*r->pos))
        return skip_number (r, error);
      break;
    }

  return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "unexpected character");
}

static JsonNode *read_picked (PdJsonReader *r, const PdJsonPick *pick, GError **error);

/* The value of a member @wanted names, read into @object (its own members
 * picked by the pick's members); a repeated member keeps its last value,
 * as read_object() does. */
static gboolean
read_wanted (PdJsonReader      *r,
             const PdJsonPick  *wanted,
             JsonObject        *object,
             GError           **error)
{
  JsonNode *value = wanted->members ? read_picked (r, wanted->members, error) : pd_json_reader_read_value (r, error);

  if (value == NULL)
    return FALSE;
  json_object_set_member (object, wanted->name, value);
  return TRUE;
}

/* An object of which only the members @pick names are kept. */
static JsonNode *
read_object_picked (PdJsonReader      *r,
                    const PdJsonPick  *pick,
                    GError           **error)
{
  g_autoptr(JsonObject) object = json_object_new ();
  gboolean more = !pd_json_reader_enter (r, '}');

  while (more)
    {
      const PdJsonPick *wanted;
      const char *key;
      gsize length;

      if (!pd_json_reader_at_key (r, error) || !read_key (r, &key, &length, error))
        return NULL;
      wanted = find_pick (pick, key, length);
      if (!pd_json_reader_colon (r, error))
        return NULL;

      if (wanted != NULL ? !read_wanted (r, wanted, object, error) : !skip_value (r, error))
        return NULL;

      if (!pd_json_reader_next_item (r, '}', &more, error))
        return NULL;
    }
  return json_node_init_object (json_node_alloc (), object);
}

/* An array whose elements are picked alike. */
static JsonNode *
read_array_picked (PdJsonReader      *r,
                   const PdJsonPick  *pick,
                   GError           **error)
{
  g_autoptr(JsonArray) array = json_array_new ();
  gboolean more = !pd_json_reader_enter (r, ']');

  while (more)
    {
      JsonNode *value;

      if (!(value = read_picked (r, pick, error)))
        return NULL;
      json_array_add_element (array, value);

      if (!pd_json_reader_next_item (r, ']', &more, error))
        return NULL;
    }
  return json_node_init_array (json_node_alloc (), array);
}

/* A value with @pick applied: an object keeps the members it names, an
 * array has each element picked alike, anything else is read whole. */
static JsonNode *
read_picked (PdJsonReader      *r,
             const PdJsonPick  *pick,
             GError           **error)
{
  JsonNode *node;

  pd_json_reader_skip_ws (r);
  if (r->pos >= r->end || (*r->pos != '{' && *r->pos != '['))
    return pd_json_reader_read_value (r, error);

  if (++r->depth > r->max_depth)
    {
      pd_json_reader_fail (r, error, PD_JSON_ERROR_DEPTH, "nested too deeply");
      return NULL;
    }
  node = *r->pos == '{' ? read_object_picked (r, pick, error) : read_array_picked (r, pick, error);
  r->depth--;
  return node;
}

/**
 * pd_json_parse_picked:
 * @text: UTF-8 JSON text written elsewhere
 * @length: length of @text, or -1 when nul-terminated
 * @pick: what to keep (see #PdJsonPick)
 * @error: (nullable): where to say what was wrong
 *
 * pd_json_parse_full() with %PD_JSON_PARSE_FOREIGN, keeping only what @pick
 * names: the whole text is checked exactly as that function checks it (the
 * same text is refused, with the same error code), but the values of other
 * members are skipped without being built — strings by a search for their
 * closing quote, containers by their depth.  The result is the tree
 * pd_json_parse_full() would build, less the members @pick leaves out.  A
 * transcript reader that needs a few members of a line of many kilobytes
 * takes this.
 *
 * Returns: (transfer full): the value, or %NULL with @error set
 */
JsonNode *
pd_json_parse_picked (const char        *text,
                      gssize             length,
                      const PdJsonPick  *pick,
                      GError           **error)
{
  g_autoptr(GString) scratch = NULL;
  PdJsonReader r;
  JsonNode *node;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (pick != NULL, NULL);

  if (length < 0)
    length = strlen (text);

  scratch = g_string_sized_new (64);
  if (!pd_json_reader_begin (&r, text, (gsize) length, PD_JSON_PARSE_FOREIGN, scratch, error) ||
      !(node = read_picked (&r, pick, error)))
    return NULL;

  if (!pd_json_reader_end (&r, error))
    {
      json_node_unref (node);
      return NULL;
    }

  return node;
}

/* ---------------------------------------------------------------------- */
/* The elements of one array, one at a time                               */

struct _PdJsonElements
{
  PdJsonReader  r;
  GString      *scratch;
  JsonNode     *header;   /* (nullable) the members @others named */
  const char   *array;    /* its '[' */
  gboolean      done;
};

void
pd_json_elements_free (PdJsonElements *self)
{
  if (self == NULL)
    return;
  if (self->scratch != NULL)
    g_string_free (self->scratch, TRUE);
  g_clear_pointer (&self->header, json_node_unref);
  g_free (self);
}

/* The members of the root object at r->pos: the one named @member is
 * found (its last occurrence, as read_object() keeps the last), those
 * @others names are read into @header, the rest skipped; all checked. */
static gboolean
walk_root_object (PdJsonReader      *r,
                  const char        *member,
                  const PdJsonPick  *others,
                  JsonObject        *header,
                  const char       **array,
                  GError           **error)
{
  gsize member_length = strlen (member);
  gboolean more;

  if (++r->depth > r->max_depth)
    return pd_json_reader_fail (r, error, PD_JSON_ERROR_DEPTH, "nested too deeply");

  more = !pd_json_reader_enter (r, '}');
  while (more)
    {
      const PdJsonPick *wanted = NULL;
      const char *key;
      gsize length;
      gboolean is_member;

      if (!pd_json_reader_at_key (r, error) || !read_key (r, &key, &length, error))
        return FALSE;
      is_member = length == member_length && strncmp (key, member, length) == 0;
      if (!is_member && others != NULL)
        wanted = find_pick (others, key, length);
      if (!pd_json_reader_colon (r, error))
        return FALSE;

      if (is_member)
        {
          pd_json_reader_skip_ws (r);
          *array = r->pos < r->end && *r->pos == '[' ? r->pos : NULL;
          if (!skip_value (r, error))
            return FALSE;
        }
      else if (wanted != NULL ? !read_wanted (r, wanted, header, error) : !skip_value (r, error))
        return FALSE;

      if (!pd_json_reader_next_item (r, '}', &more, error))
        return FALSE;
    }
  r->depth--;
  return TRUE;
}

/**
 * pd_json_elements_new:
 * @text: UTF-8 JSON text written elsewhere, kept until the elements are read
 * @length: length of @text
 * @member: (nullable): the root object's member holding the array, or %NULL
 *   when the root is the array
 * @others: (nullable): with @member, the root's other members to keep (see
 *   pd_json_elements_get_header())
 * @error: (nullable): where to say what was wrong
 *
 * A document that is one long array (an editor extension's task, an older
 * Gemini CLI session) read an element at a time, so that its tree is never
 * built whole: that tree took 14 to 30 times the file's size.  The whole
 * text is checked first, exactly as pd_json_parse_full() with
 * %PD_JSON_PARSE_FOREIGN checks it (the same text refused), building
 * nothing but @others; each pd_json_elements_next() then builds one
 * element.  A repeated @member counts by its last occurrence, as the whole
 * tree keeps it.
 *
 * Returns: (transfer full): the reader, or %NULL with @error set when the
 *   text is not JSON or holds no such array
 */
PdJsonElements *
pd_json_elements_new (const char        *text,
                      gsize              length,
                      const char        *member,
                      const PdJsonPick  *others,
                      GError           **error)
{
  g_autoptr(PdJsonElements) self = NULL;
  PdJsonReader *r;
  const char *array = NULL;

  g_return_val_if_fail (text != NULL || length == 0, NULL);

  self = g_new0 (PdJsonElements, 1);
  self->scratch = g_string_sized_new (64);
  r = &self->r;
  if (!pd_json_reader_begin (r, text, length, PD_JSON_PARSE_FOREIGN, self->scratch, error))
    return NULL;

  pd_json_reader_skip_ws (r);
  if (member == NULL)
    {
      array = r->pos;
      if (!skip_value (r, error))
        return NULL;
      if (*array != '[')
        array = NULL;
    }
  else if (r->pos < r->end && *r->pos == '{')
    {
      g_autoptr(JsonObject) header = json_object_new ();

      if (!walk_root_object (r, member, others, header, &array, error))
        return NULL;
      self->header = json_node_init_object (json_node_alloc (), header);
    }
  else if (!skip_value (r, error))
    return NULL;

  if (!pd_json_reader_end (r, error))
    return NULL;
  if (array == NULL)
    {
      if (member == NULL)
        g_set_error_literal (error, PD_JSON_ERROR, PD_JSON_ERROR_SYNTAX, "not a JSON array");
      else
        g_set_error (error, PD_JSON_ERROR, PD_JSON_ERROR_SYNTAX, "not a JSON object with an array \"%s\"", member);
      return NULL;
    }

  /* The elements sit as deep as the whole tree has them. */
  self->array = array;
  r->pos = array + 1;
  r->depth = member != NULL ? 2 : 1;
  return g_steal_pointer (&self);
}

/**
 * pd_json_elements_get_array:
 *
 * The array in place, for a reader that looks into its elements with
 * #PdJsonSpan instead of building them (the text was checked whole): a
 * span from its '[' to the end of the text, which the span functions read
 * up to the array's ']'.
 *
 * Returns: the array's span
 */
PdJsonSpan
pd_json_elements_get_array (PdJsonElements *self)
{
  g_return_val_if_fail (self != NULL, ((PdJsonSpan) { NULL, 0 }));
  return (PdJsonSpan) { self->array, (gsize) (self->r.end - self->array) };
}

/**
 * pd_json_elements_get_header:
 *
 * Returns: (transfer none) (nullable): the root object's members named by
 *   the @others given to pd_json_elements_new(), as an object node; %NULL
 *   when the root is the array
 */
JsonNode *
pd_json_elements_get_header (PdJsonElements *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->header;
}

/**
 * pd_json_elements_next:
 * @pick: (nullable): what to keep of each element (see #PdJsonPick), or
 *   %NULL for the element whole
 *
 * Returns: (transfer full) (nullable): the next element, or %NULL after
 *   the last
 */
JsonNode *
pd_json_elements_next (PdJsonElements   *self,
                       const PdJsonPick *pick)
{
  PdJsonReader *r;
  JsonNode *node;

  g_return_val_if_fail (self != NULL, NULL);

  r = &self->r;
  if (self->done)
    return NULL;
  pd_json_reader_skip_ws (r);
  if (r->pos >= r->end || *r->pos == ']')
    {
      self->done = TRUE;
      return NULL;
    }
  /* The text was checked whole: no read fails here. */
  node = pick != NULL ? read_picked (r, pick, NULL) : pd_json_reader_read_value (r, NULL);
  if (node == NULL)
    {
      self->done = TRUE;
      return NULL;
    }
  pd_json_reader_skip_ws (r);
  if (r->pos < r->end && *r->pos == ',')
    r->pos++;
  return node;
}

/**
 * pd_json_check_foreign:
 * @text: UTF-8 JSON text written elsewhere
 * @length: length of @text, or -1 when nul-terminated
 * @error: (nullable): where to say what was wrong
 *
 * Checks @text exactly as pd_json_parse_full() with %PD_JSON_PARSE_FOREIGN
 * (and pd_json_parse_picked()) check it — the same text refused, with the
 * same error code — building nothing.  A reader then looks into the
 * checked text with #PdJsonSpan.
 *
 * Returns: whether @text is one JSON value as a foreign document may be
 */
gboolean
pd_json_check_foreign (const char  *text,
                       gssize       length,
                       GError     **error)
{
  PdJsonReader r;

  g_return_val_if_fail (text != NULL, FALSE);

  if (length < 0)
    length = strlen (text);

  /* Skipping keeps no string. */
  return pd_json_reader_begin (&r, text, (gsize) length, PD_JSON_PARSE_FOREIGN, NULL, error) &&
         skip_value (&r, error) &&
         pd_json_reader_end (&r, error);
}

/**
 * pd_json_elements_next_text:
 * @text: (out): where the next element's text starts, in the document
 * @length: (out): its length
 *
 * The next element as text, not built: for a reader that looks at a few
 * members first (pd_json_parse_picked() on it) and builds more only of
 * the elements it wants.
 *
 * Returns: %FALSE after the last
 */
gboolean
pd_json_elements_next_text (PdJsonElements  *self,
                            const char     **text,
                            gsize           *length)
{
  PdJsonReader *r;
  const char *start;

  g_return_val_if_fail (self != NULL && text != NULL && length != NULL, FALSE);

  r = &self->r;
  if (self->done)
    return FALSE;
  pd_json_reader_skip_ws (r);
  if (r->pos >= r->end || *r->pos == ']')
    {
      self->done = TRUE;
      return FALSE;
    }
  start = r->pos;
  /* The text was checked whole: no skip fails here. */
  if (!skip_value (r, NULL))
    {
      self->done = TRUE;
      return FALSE;
    }
  *text = start;
  *length = (gsize) (r->pos - start);
  pd_json_reader_skip_ws (r);
  if (r->pos < r->end && *r->pos == ',')
    r->pos++;
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Checking and finding spans in one walk                                 */

/* Every slot and table under @pick emptied: a member met again (the last
 * of a name is the one kept) leaves nothing of the one before. */
static void
spans_reset (const PdJsonSpanPick *pick,
             PdJsonSpan           *base,
             PdJsonSpanTable      *tables)
{
  for (; pick->name != NULL; pick++)
    {
      base[pick->slot] = (PdJsonSpan) { NULL, 0 };
      if (pick->members != NULL)
        spans_reset (pick->members, base, tables);
      if (pick->elements != NULL)
        pd_json_span_table_reset (&tables[pick->table]);
    }
}

/* Whether @key (@length bytes, no NUL among them: a plain key is UTF-8
 * the check accepted, an unescaped one is cut at its first NUL) is @name.
 * Compared in place, byte by byte: most keys differ from most names at
 * their first byte, and a call to strncmp() for each name was a tenth of
 * a task's walk. */
static inline gboolean
key_is_name (const char *key,
             gsize       length,
             const char *name)
{
  for (gsize i = 0; i < length; i++)
    if (name[i] != key[i])
      return FALSE;  /* also at the name's end: its NUL is no key byte */
  return name[length] == '\0';
}

static const PdJsonSpanPick *
find_span_pick (const PdJsonSpanPick *pick,
                const char           *key,
                gsize                 length)
{
  for (; pick->name != NULL; pick++)
    if (key_is_name (key, length, pick->name))
      return pick;
  return NULL;
}

/* The names of an array's elements' pick in a small hash table, made once
 * for the array: each key of each element is then looked up by its length,
 * first and last byte, where a walk over the names compared it with each
 * in turn (a task's messages, a document's: a fifth of the walk). */
#define KEY_SLOTS 64
#define KEY_INDEX_MAX 16

typedef struct
{
  gboolean              made;   /* FALSE: more names than it holds */
  guint32               sig[KEY_SLOTS];
  const PdJsonSpanPick *pick[KEY_SLOTS];  /* NULL: an empty slot */
} KeyIndex;

/* A key's or name's length (under 64 KiB), first and last byte in one word. */
static inline guint32
key_sig (const char *key,
         gsize       length)
{
  return length == 0 ? 0 : (guint32) (length << 16) | (guint32) (guchar) key[0] << 8 | (guchar) key[length - 1];
}

static inline guint
key_slot (guint32 sig)
{
  return (sig * 2654435761u) >> 26;
}

static void
key_index_init (KeyIndex             *index,
                const PdJsonSpanPick *pick)
{
  memset (index, 0, sizeof *index);
  for (guint i = 0; pick[i].name != NULL; i++)
    {
      gsize length = strlen (pick[i].name);
      guint32 sig;
      guint slot;

      if (i == KEY_INDEX_MAX || length >= (1 << 16))
        return;
      sig = key_sig (pick[i].name, length);
      /* Open addressing: a name after the slots taken before it, so that
       * of two equal names the first is found, as find_span_pick() finds
       * it. */
      for (slot = key_slot (sig); index->pick[slot] != NULL; slot = (slot + 1) % KEY_SLOTS)
        ;
      index->sig[slot] = sig;
      index->pick[slot] = &pick[i];
    }
  index->made = TRUE;
}

/* find_span_pick() by the index: the same pick, the first of the names
 * equal to @key. */
static inline const PdJsonSpanPick *
key_index_find (const KeyIndex *index,
                const char     *key,
                gsize           length)
{
  guint32 sig;

  if (length >= (1 << 16))
    return NULL;
  sig = key_sig (key, length);
  for (guint slot = key_slot (sig); index->pick[slot] != NULL; slot = (slot + 1) % KEY_SLOTS)
    if (index->sig[slot] == sig)
      {
        /* The same length, first and last byte: the bytes between
         * compared in place (memcmp() for these few cost more). */
        const char *name = index->pick[slot]->name;
        gsize j = 1;

        while (j + 1 < length && name[j] == key[j])
          j++;
        if (j + 1 >= length)
          return index->pick[slot];
      }
  return NULL;
}

static gboolean spans_object (PdJsonReader *r, const PdJsonSpanPick *pick, const KeyIndex *index,
                              PdJsonSpan *base, PdJsonSpanTable *tables, GError **error);

/* The elements of the array at r->pos, each a row of @wanted's table while
 * there is room (an object's members picked into it); checked as
 * skip_container() checks them. */
static gboolean
spans_elements (PdJsonReader          *r,
                const PdJsonSpanPick  *wanted,
                PdJsonSpanTable       *tables,
                GError               **error)
{
  PdJsonSpanTable *table = &tables[wanted->table];
  gboolean more = !pd_json_reader_enter (r, ']');
  /* Rows in use: the array is grown to twice its length when full, then
   * cut to the rows used at the end (growing it a row at a time was a
   * tenth of a task's walk).  No element's pick names this table again,
   * so nothing under the walk empties it. */
  guint used = table->rows->len;
  KeyIndex index;
  gboolean ok = TRUE;

  key_index_init (&index, wanted->elements);
  while (more)
    {
      PdJsonSpan *row = NULL;
      const char *begin;

      pd_json_reader_skip_ws (r);
      begin = r->pos;
      if (used / wanted->row_size < table->max_rows)
        {
          if (used + wanted->row_size > table->rows->len)
            g_array_set_size (table->rows, MAX (2 * table->rows->len, used + 64 * wanted->row_size));
          row = &g_array_index (table->rows, PdJsonSpan, used);
          memset (row, 0, wanted->row_size * sizeof (PdJsonSpan));
          used += wanted->row_size;
        }
      else
        table->cut = TRUE;

      if (row != NULL && begin < r->end && *begin == '{')
        {
          if (++r->depth > r->max_depth)
            {
              ok = pd_json_reader_fail (r, error, PD_JSON_ERROR_DEPTH, "nested too deeply");
              break;
            }
          ok = spans_object (r, wanted->elements, index.made ? &index : NULL, row, tables, error);
          r->depth--;
        }
      else
        ok = skip_value (r, error);
      if (!ok)
        break;
      if (row != NULL)
        row[0] = (PdJsonSpan) { begin, (gsize) (r->pos - begin) };

      if (!(ok = pd_json_reader_next_item (r, ']', &more, error)))
        break;
    }
  g_array_set_size (table->rows, used);
  return ok;
}

/* The value of a member @wanted names: its span, and what its pick reads
 * of it. */
static gboolean
spans_value (PdJsonReader          *r,
             const PdJsonSpanPick  *wanted,
             PdJsonSpan            *base,
             PdJsonSpanTable       *tables,
             GError               **error)
{
  const char *begin;
  gboolean ok;

  if (wanted->members != NULL)
    spans_reset (wanted->members, base, tables);
  if (wanted->elements != NULL)
    pd_json_span_table_reset (&tables[wanted->table]);

  pd_json_reader_skip_ws (r);
  begin = r->pos;
  if (begin < r->end && ((*begin == '{' && wanted->members != NULL) || (*begin == '[' && wanted->elements != NULL)))
    {
      if (++r->depth > r->max_depth)
        return pd_json_reader_fail (r, error, PD_JSON_ERROR_DEPTH, "nested too deeply");
      ok = *begin == '{' ? spans_object (r, wanted->members, NULL, base, tables, error)
                         : spans_elements (r, wanted, tables, error);
      r->depth--;
    }
  else
    ok = skip_value (r, error);
  if (!ok)
    return FALSE;
  base[wanted->slot] = (PdJsonSpan) { begin, (gsize) (r->pos - begin) };
  return TRUE;
}

/* The object at r->pos, entered: its members checked as skip_container()
 * checks them, those @pick names found. */
static gboolean
spans_object (PdJsonReader          *r,
              const PdJsonSpanPick  *pick,
              const KeyIndex        *index,   /* (nullable) @pick's */
              PdJsonSpan            *base,
              PdJsonSpanTable       *tables,
              GError               **error)
{
  gboolean more = !pd_json_reader_enter (r, '}');

  while (more)
    {
      const PdJsonSpanPick *wanted;
      const char *key;
      gsize length;

      if (!pd_json_reader_at_key (r, error))
        return FALSE;
      /* A key with no escape is its bytes (read_key()'s own first look);
       * one with an escape is read into the scratch string, made for the
       * first such key (nearly no line has one). */
      {
        const char *begin = r->pos + 1;
        const char *p = pd_json_find_quote_or_backslash (begin, r->end);

        if (p < r->end && *p == '"')
          {
            key = begin;
            length = (gsize) (p - begin);
            r->pos = p + 1;
          }
        else
          {
            if (r->scratch == NULL)
              r->scratch = g_string_sized_new (64);
            if (!read_key (r, &key, &length, error))
              return FALSE;
          }
      }
      wanted = index != NULL ? key_index_find (index, key, length) : find_span_pick (pick, key, length);
      if (!pd_json_reader_colon (r, error))
        return FALSE;

      if (wanted != NULL && wanted->members == NULL && wanted->elements == NULL)
        {
          /* A value picked whole: spans_value() with nothing to reset or
           * walk into, in place (a call for each of a message's members
           * was a tenth of a task's walk). */
          const char *value;

          pd_json_reader_skip_ws (r);
          value = r->pos;
          if (!(value < r->end && *value == '"' ? skip_string (r, error) : skip_value (r, error)))
            return FALSE;
          base[wanted->slot] = (PdJsonSpan) { value, (gsize) (r->pos - value) };
        }
      else if (wanted != NULL ? !spans_value (r, wanted, base, tables, error) : !skip_value (r, error))
        return FALSE;

      if (!pd_json_reader_next_item (r, '}', &more, error))
        return FALSE;
    }
  return TRUE;
}

/* The setup both span checks share: the text checked as
 * pd_json_check_foreign() checks it, with no string kept until a span
 * read needs one. */
static gboolean
spans_begin (PdJsonReader  *r,
             const char    *text,
             gsize          length,
             GError       **error)
{
  return pd_json_reader_begin (r, text, length, PD_JSON_PARSE_FOREIGN, NULL, error);
}

static gboolean
spans_end (PdJsonReader  *r,
           gboolean       ok,
           GError       **error)
{
  ok = ok && pd_json_reader_end (r, error);
  if (r->scratch != NULL)
    g_string_free (r->scratch, TRUE);
  return ok;
}

/**
 * pd_json_check_spans:
 * @text: UTF-8 JSON text written elsewhere
 * @length: length of @text
 * @pick: what to find when the value is an object (see #PdJsonSpanPick)
 * @values: (out caller-allocates): a span for every slot @pick names:
 *   each the value of the last member of that name, as
 *   pd_json_span_get_members() gives it, or of length 0
 * @tables: (inout): a table for every table @pick names, its rows and
 *   @max_rows set up by the caller; each gets the rows of the last array
 *   of its member, in order
 * @error: (nullable): where to say what was wrong
 *
 * pd_json_check_foreign() and the span reads of the members @pick names in
 * one walk: @text is checked exactly as that function checks it (the same
 * text refused, with the same error code), and the spans of the values
 * @pick names are noted on the way, nothing built.  A transcript reader's
 * candidate line is walked once instead of once to check it and again
 * (and again within) to find its members.  On failure @values and
 * @tables hold nothing to read.
 *
 * Returns: whether @text is one JSON value as a foreign document may be
 */
gboolean
pd_json_check_spans (const char            *text,
                     gsize                  length,
                     const PdJsonSpanPick  *pick,
                     PdJsonSpan            *values,
                     PdJsonSpanTable       *tables,
                     GError               **error)
{
  PdJsonReader r;
  gboolean ok;

  g_return_val_if_fail (text != NULL || length == 0, FALSE);
  g_return_val_if_fail (pick != NULL && values != NULL, FALSE);

  spans_reset (pick, values, tables);
  if (!spans_begin (&r, text, length, error))
    return FALSE;

  pd_json_reader_skip_ws (&r);
  if (r.pos < r.end && *r.pos == '{')
    {
      /* The root as skip_value() steps into it. */
      r.depth = 1;
      ok = spans_object (&r, pick, NULL, values, tables, error);
      r.depth = 0;
    }
  else
    ok = skip_value (&r, error);
  return spans_end (&r, ok, error);
}

/**
 * pd_json_check_spans_value:
 * @text: UTF-8 JSON text written elsewhere
 * @length: length of @text
 * @pick: the document itself as a member's value is picked: its span at
 *   @pick's slot, its members (an object) or its elements' rows (an array)
 *   found as @pick names them (its name is not read)
 * @values: (out caller-allocates): a span for every slot @pick names
 * @tables: (inout): a table for every table @pick names
 * @error: (nullable): where to say what was wrong
 *
 * pd_json_check_spans() for a document read as a whole value: one that is
 * a long array of records (an editor extension's task) is checked and its
 * records' members found in one walk.
 *
 * Returns: whether @text is one JSON value as a foreign document may be
 */
gboolean
pd_json_check_spans_value (const char            *text,
                           gsize                  length,
                           const PdJsonSpanPick  *pick,
                           PdJsonSpan            *values,
                           PdJsonSpanTable       *tables,
                           GError               **error)
{
  PdJsonReader r;
  gboolean ok;

  g_return_val_if_fail (text != NULL || length == 0, FALSE);
  g_return_val_if_fail (pick != NULL && values != NULL, FALSE);

  values[pick->slot] = (PdJsonSpan) { NULL, 0 };
  if (!spans_begin (&r, text, length, error))
    return FALSE;

  ok = spans_value (&r, pick, values, tables, error);
  return spans_end (&r, ok, error);
}

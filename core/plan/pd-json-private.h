/* pd-json-private.h: the reader pd-json.c and pd-json-picked.c share.
 *
 * The strict reader (pd-json.c) and the picked reader (pd-json-picked.c)
 * must check a text exactly alike, so the picked one reads through the same
 * reader state and the same string, number and value readers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "pd-json.h"
#include "pd-json-scan-private.h"

G_BEGIN_DECLS

/* What a lone surrogate escape in a foreign document reads as. */
#define PD_JSON_REPLACEMENT_CHARACTER 0xFFFD

typedef struct
{
  const char       *start;
  const char       *pos;
  const char       *end;
  guint             depth;
  guint             max_depth;
  PdJsonParseFlags  flags;
  GString          *scratch;   /* the string being read */
} PdJsonReader;

G_GNUC_INTERNAL
gboolean  pd_json_reader_fail        (PdJsonReader  *r,
                                      GError       **error,
                                      PdJsonError    code,
                                      const char    *what);
/* Sets @r up to read all of @text with @flags (the depth limit they
 * imply), after checking @text is UTF-8 without NUL; @scratch may be NULL
 * for a reader that only skips. */
G_GNUC_INTERNAL
gboolean  pd_json_reader_begin       (PdJsonReader      *r,
                                      const char        *text,
                                      gsize              length,
                                      PdJsonParseFlags   flags,
                                      GString           *scratch,
                                      GError           **error);
/* After the one value: nothing but white space may follow it. */
G_GNUC_INTERNAL
gboolean  pd_json_reader_end         (PdJsonReader  *r,
                                      GError       **error);
G_GNUC_INTERNAL
gboolean  pd_json_reader_read_string (PdJsonReader  *r,
                                      GError       **error);
G_GNUC_INTERNAL
JsonNode *pd_json_reader_read_number (PdJsonReader  *r,
                                      GError       **error);
G_GNUC_INTERNAL
JsonNode *pd_json_reader_read_value  (PdJsonReader  *r,
                                      GError       **error);

/* Most punctuation and values follow with no white space at all (a
 * compact line: one compare); a pretty-printed document's newline and
 * indentation are passed over sixteen bytes at a time. */
static inline void
pd_json_reader_skip_ws (PdJsonReader *r)
{
  if (G_LIKELY (r->pos < r->end && (guchar) *r->pos > ' '))
    return;
  r->pos = pd_json_skip_ws_run (r->pos, r->end);
}

static inline gboolean
pd_json_reader_read_hex4 (PdJsonReader *r,
                          gunichar     *out)
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

static inline gboolean
pd_json_reader_match_literal (PdJsonReader *r,
                              const char   *word)
{
  gsize len = strlen (word);

  if ((gsize) (r->end - r->pos) < len || memcmp (r->pos, word, len) != 0)
    return FALSE;
  r->pos += len;
  return TRUE;
}

/* The punctuation of objects and arrays, read alike by every reader. */

/* At a container's opening '{' or '[': steps in.  TRUE when the container
 * is empty (its @close is stepped over too). */
static inline gboolean
pd_json_reader_enter (PdJsonReader *r,
                      char          close)
{
  r->pos++;
  pd_json_reader_skip_ws (r);
  if (r->pos < r->end && *r->pos == close)
    {
      r->pos++;
      return TRUE;
    }
  return FALSE;
}

/* Before a member: white space, then its key's opening quote. */
static inline gboolean
pd_json_reader_at_key (PdJsonReader  *r,
                       GError       **error)
{
  pd_json_reader_skip_ws (r);
  if (r->pos >= r->end || *r->pos != '"')
    return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "expected a string key");
  return TRUE;
}

/* Between a member's key and its value: the ':'. */
static inline gboolean
pd_json_reader_colon (PdJsonReader  *r,
                      GError       **error)
{
  pd_json_reader_skip_ws (r);
  if (r->pos >= r->end || *r->pos != ':')
    return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX, "expected ':'");
  r->pos++;
  return TRUE;
}

/* After a member or element: a ',' (*@more set: another follows) or the
 * container's @close (*@more cleared), stepped over; anything else is the
 * error. */
static inline gboolean
pd_json_reader_next_item (PdJsonReader  *r,
                          char           close,
                          gboolean      *more,
                          GError       **error)
{
  pd_json_reader_skip_ws (r);
  if (r->pos < r->end && (*r->pos == ',' || *r->pos == close))
    {
      *more = *r->pos == ',';
      r->pos++;
      return TRUE;
    }
  return pd_json_reader_fail (r, error, PD_JSON_ERROR_SYNTAX,
                              close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

G_END_DECLS

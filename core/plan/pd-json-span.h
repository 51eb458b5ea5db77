/* pd-json-span.h: reading a few values of a checked JSON text in place.
 *
 * A transcript reader that needs three members of a line of kilobytes
 * gains nothing from a tree: the line is checked once, whole, by
 * pd_json_check_foreign() (pd-json.h) (the same text refused as pd_json_parse_full()
 * with PD_JSON_PARSE_FOREIGN refuses), and then a PdJsonSpan — a value's
 * bytes in that text — is looked into without anything being built.  What
 * a span gives is what the tree pd_json_parse_full() builds would give:
 * a member is the last of its name (as the tree keeps it), a key or a
 * string is compared unescaped and cut at a "\u0000" (as json-glib keeps
 * it).  Spans are only valid over a text the check accepted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-json.h"

G_BEGIN_DECLS

typedef struct
{
  const char *text;    /* the value's first byte, in the checked text */
  gsize       length;  /* up to its last byte; 0 for none */
} PdJsonSpan;

static inline gboolean
pd_json_span_is_object (PdJsonSpan span)
{
  return span.length > 0 && span.text[0] == '{';
}

static inline gboolean
pd_json_span_is_array (PdJsonSpan span)
{
  return span.length > 0 && span.text[0] == '[';
}

static inline gboolean
pd_json_span_is_string (PdJsonSpan span)
{
  return span.length > 0 && span.text[0] == '"';
}

static inline gboolean
pd_json_span_is_boolean (PdJsonSpan span)
{
  return span.length > 0 && (span.text[0] == 't' || span.text[0] == 'f');
}

static inline gboolean
pd_json_span_is_number (PdJsonSpan span)
{
  return span.length > 0 && (span.text[0] == '-' || g_ascii_isdigit (span.text[0]));
}

gboolean  pd_json_span_get_member     (PdJsonSpan   object,
                                       const char  *name,
                                       PdJsonSpan  *value);
void      pd_json_span_get_members    (PdJsonSpan          object,
                                       const char * const *names,
                                       PdJsonSpan         *values);
void      pd_json_span_get_members_within (PdJsonSpan          object,
                                           const char * const *names,
                                           PdJsonSpan         *values,
                                           guint               within,
                                           const char * const *inner_names,
                                           PdJsonSpan         *inner_values);
gboolean  pd_json_span_next_element   (PdJsonSpan   array,
                                       gsize       *cursor,
                                       PdJsonSpan  *element);
gboolean  pd_json_span_next_members   (PdJsonSpan          array,
                                       gsize              *cursor,
                                       const char * const *names,
                                       PdJsonSpan         *values,
                                       PdJsonSpan         *element);
gboolean  pd_json_span_string_equal   (PdJsonSpan   string,
                                       const char  *word);
char     *pd_json_span_dup_string     (PdJsonSpan   string);
gboolean  pd_json_span_get_boolean    (PdJsonSpan   object,
                                       const char  *name,
                                       gboolean     fallback);
JsonNode *pd_json_span_to_node        (PdJsonSpan   span,
                                       const PdJsonPick *pick);
PdJsonSpan pd_json_elements_get_array (PdJsonElements *elements);

/* What pd_json_check_spans() finds while it checks a text: the members a
 * list names (ended by a NULL name), each value's span put at @slot.  An
 * object value may have its own members picked too (@members, slots of the
 * same values); an array value may have each of its elements picked
 * (@elements), a row of @row_size spans each in table @table: the row's
 * span 0 is the element, its members' slots count from 1.  An element's
 * pick names no elements of its own. */
typedef struct _PdJsonSpanPick PdJsonSpanPick;

struct _PdJsonSpanPick
{
  const char           *name;
  guint                 slot;
  const PdJsonSpanPick *members;
  const PdJsonSpanPick *elements;
  guint                 table;
  guint                 row_size;
};

/* The rows of one array's elements.  @max_rows bounds what is kept (a
 * line of a million elements costs no memory for them): past it @cut is
 * set, and the reader walks the array's span instead. */
typedef struct
{
  GArray   *rows;      /* PdJsonSpan, row_size a row */
  guint     max_rows;
  gboolean  cut;
} PdJsonSpanTable;

void      pd_json_span_table_init     (PdJsonSpanTable      *table,
                                       guint                 max_rows);
void      pd_json_span_table_reset    (PdJsonSpanTable      *table);
void      pd_json_span_table_clear    (PdJsonSpanTable      *table);

gboolean  pd_json_check_spans         (const char           *text,
                                       gsize                 length,
                                       const PdJsonSpanPick *pick,
                                       PdJsonSpan           *values,
                                       PdJsonSpanTable      *tables,
                                       GError              **error);
gboolean  pd_json_check_spans_value   (const char           *text,
                                       gsize                 length,
                                       const PdJsonSpanPick *pick,
                                       PdJsonSpan           *values,
                                       PdJsonSpanTable      *tables,
                                       GError              **error);

G_END_DECLS

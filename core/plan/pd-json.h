/* pd-json.h: a small strict JSON reader and a canonical JSON writer.
 *
 * The plan engine needs two things json-glib does not give it: a bounded
 * parser (depth cap, duplicate keys refused, exactly one value) that is cheap
 * enough to run on every rendered step line, and a canonical writer so that
 * acceptance-check arguments compare equal whatever their key order or number
 * spelling.  Both work on plain JsonNode trees so the rest of the code can
 * keep using json-glib.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_JSON_ERROR (pd_json_error_quark ())
#define PD_JSON_MAX_DEPTH 64

typedef enum
{
  PD_JSON_ERROR_SYNTAX,
  PD_JSON_ERROR_DEPTH,
  PD_JSON_ERROR_DUPLICATE_KEY,
  PD_JSON_ERROR_ENCODING,
} PdJsonError;

/* Documents from elsewhere (transcripts, request bodies, other servers) are
 * parsed with json-glib, whose parser recurses once per nesting level: a
 * line of a million '[' would overflow the stack.  They are refused beyond
 * this depth first. */
#define PD_JSON_FOREIGN_MAX_DEPTH 512

typedef enum
{
  PD_JSON_PARSE_DEFAULT = 0,
  PD_JSON_PARSE_FOREIGN = 1 << 0,   /* written elsewhere: read as json-glib would */
} PdJsonParseFlags;

/* What pd_json_parse_picked() keeps of an object: the members named, a list
 * ended by a NULL name.  @members NULL keeps the member's value whole;
 * otherwise an object value keeps the members @members names, and an array
 * value has each element picked alike (a scalar is kept as it is). */
typedef struct _PdJsonPick PdJsonPick;

struct _PdJsonPick
{
  const char       *name;
  const PdJsonPick *members;
};

GQuark    pd_json_error_quark        (void);
gboolean  pd_json_nesting_exceeds    (const char  *text,
                                      gssize       length,
                                      guint        max_depth);

gboolean  pd_json_values_exceed      (const char  *text,
                                      gsize        length,
                                      gsize        max_units);

JsonNode *pd_json_parse              (const char  *text,
                                      gssize       length,
                                      GError     **error);
JsonNode *pd_json_parse_full         (const char  *text,
                                      gssize       length,
                                      PdJsonParseFlags flags,
                                      GError     **error);
JsonNode *pd_json_parse_picked       (const char  *text,
                                      gssize       length,
                                      const PdJsonPick *pick,
                                      GError     **error);
JsonNode *pd_json_from_string_bounded (const char *text,
                                      GError    **error);
gboolean  pd_json_check_foreign      (const char  *text,
                                      gssize       length,
                                      GError     **error);
void      pd_json_append_string      (GString     *out,
                                      const char  *str);
void      pd_json_append_node        (GString     *out,
                                      JsonNode    *node,
                                      gboolean     sort_keys);
char     *pd_json_to_string          (JsonNode    *node,
                                      gboolean     sort_keys);
char     *pd_json_canonicalize_object (JsonNode   *node,
                                       GError    **error);
char     *pd_json_canonicalize_text  (const char  *text,
                                      GError     **error);

/* One array of a foreign document read an element at a time
 * (pd-json-picked.c). */
typedef struct _PdJsonElements PdJsonElements;

PdJsonElements *pd_json_elements_new        (const char        *text,
                                             gsize              length,
                                             const char        *member,
                                             const PdJsonPick  *others,
                                             GError           **error);
JsonNode       *pd_json_elements_get_header (PdJsonElements    *self);
JsonNode       *pd_json_elements_next       (PdJsonElements    *self,
                                             const PdJsonPick  *pick);
gboolean        pd_json_elements_next_text  (PdJsonElements    *self,
                                             const char       **text,
                                             gsize             *length);
void            pd_json_elements_free       (PdJsonElements    *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdJsonElements, pd_json_elements_free)

G_END_DECLS

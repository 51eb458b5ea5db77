/* pd-json-writer.h: JSON written as it is made, no tree.
 *
 * The bytes are those json-glib's JsonGenerator writes for the same tree,
 * pretty (two spaces a level, "name" : value, [] for an empty array), each
 * string's invisible format characters escaped as pd_safe_text_escape_json()
 * escapes them: what pd_agent_print_json() prints, without building the
 * nodes first.  `plandeck-agent import --json` prints thousands of sessions
 * with it, flushing to a file as it goes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

#define PD_JSON_WRITER_MAX_DEPTH 32

typedef struct
{
  GString *out;
  FILE    *file;                               /* (nullable) flushed to as it fills */
  guint    depth;                              /* containers open */
  guint    count[PD_JSON_WRITER_MAX_DEPTH];    /* members written in each */
} PdJsonWriter;

void     pd_json_writer_init         (PdJsonWriter *self,
                                      FILE         *file);
void     pd_json_writer_begin_object (PdJsonWriter *self,
                                      const char   *name);
void     pd_json_writer_end_object   (PdJsonWriter *self);
void     pd_json_writer_begin_array  (PdJsonWriter *self,
                                      const char   *name);
void     pd_json_writer_end_array    (PdJsonWriter *self);
void     pd_json_writer_string       (PdJsonWriter *self,
                                      const char   *name,
                                      const char   *value);
void     pd_json_writer_int          (PdJsonWriter *self,
                                      const char   *name,
                                      gint64        value);
void     pd_json_writer_boolean      (PdJsonWriter *self,
                                      const char   *name,
                                      gboolean      value);
void     pd_json_writer_null         (PdJsonWriter *self,
                                      const char   *name);
gboolean pd_json_writer_flush        (PdJsonWriter *self);
char    *pd_json_writer_finish       (PdJsonWriter *self);

G_END_DECLS

/* pd-tool-private.h: helpers shared by the built-in tools. */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* Files larger than this are not read whole by read_file/edit_file. */
#define PD_TOOL_MAX_FILE_SIZE (32 * 1024 * 1024)

JsonNode     *_pd_tool_parse_schema   (const char   *json);
gboolean      _pd_tool_args_string    (JsonObject   *args,
                                       const char   *tool,
                                       const char   *key,
                                       gboolean      required,
                                       const char  **value,
                                       PdToolResult **error_result);
gboolean      _pd_tool_args_int       (JsonObject   *args,
                                       const char   *tool,
                                       const char   *key,
                                       gint64        min,
                                       gint64        max,
                                       gint64       *value,
                                       PdToolResult **error_result);
gboolean      _pd_tool_args_bool      (JsonObject   *args,
                                       const char   *tool,
                                       const char   *key,
                                       gboolean     *value,
                                       PdToolResult **error_result);
PdToolResult *_pd_tool_resolve        (PdToolContext *context,
                                       const char   *tool,
                                       const char   *path,
                                       char        **resolved);
gboolean      _pd_tool_is_text        (const char   *data,
                                       gsize         length);
gboolean      _pd_tool_read_text_file (const char   *tool,
                                       PdToolContext *context,
                                       const char   *resolved,
                                       char        **contents,
                                       gsize        *length,
                                       PdToolResult **error_result);
gboolean      _pd_tool_write_file     (const char   *tool,
                                       PdToolContext *context,
                                       const char   *resolved,
                                       const char   *contents,
                                       gsize         length,
                                       PdToolResult **error_result);

G_END_DECLS

/* pd-tool-private.h: helpers shared by the built-in tools.  PdToolContext's
 * internals live in pd-tool-context.c, the opening of model-given paths in
 * pd-tool-fs.c, and the argument, schema and text helpers in pd-tool-args.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include "pd-tool.h"

G_BEGIN_DECLS

/* What a built-in tool declares once, in a static table: its name, what the
 * model is told about it, the JSON schema of its arguments, how much
 * approval it needs and what it does to the files.  The tool's iface_init
 * hands it to _pd_tool_implement() and sets only its call (and whatever it
 * works out at run time instead: the plan tool's description and schema). */
typedef struct
{
  const char    *name;
  const char    *description;
  const char    *schema;
  PdToolSafety   safety;
  PdToolEffects  effects;
  /* (nullable): PdToolInterface.preview, for tools that ask approval */
  char        *(*preview) (PdToolContext *context,
                           JsonObject    *args);
} PdToolInfo;

void          _pd_tool_implement      (PdToolInterface  *iface,
                                       const PdToolInfo *info);

/* Defines a built-in tool that keeps no state of its own, as G_DEFINE_*
 * does for a type: its instance struct, its type implementing PdTool from
 * @info (a static PdToolInfo) and @call_func, and type_name_new().  The header
 * declares it with G_DECLARE_FINAL_TYPE (…, GObject) and type_name_new().
 * @call_func is the tool's PdToolInterface.call. */
#define PD_DEFINE_BUILTIN_TOOL(TypeName, type_name, info, call_func)             \
  struct _##TypeName                                                           \
  {                                                                            \
    GObject parent_instance;                                                   \
  };                                                                           \
                                                                               \
  static void                                                                  \
  type_name##_iface_init (PdToolInterface *iface)                              \
  {                                                                            \
    _pd_tool_implement (iface, &(info));                                       \
    iface->call = (call_func);                                                 \
  }                                                                            \
                                                                               \
  G_DEFINE_FINAL_TYPE_WITH_CODE (TypeName, type_name, G_TYPE_OBJECT,           \
                                 G_IMPLEMENT_INTERFACE (PD_TYPE_TOOL,          \
                                                        type_name##_iface_init)) \
                                                                               \
  static void                                                                  \
  type_name##_class_init (TypeName##Class *klass)                              \
  {                                                                            \
  }                                                                            \
                                                                               \
  static void                                                                  \
  type_name##_init (TypeName *self)                                            \
  {                                                                            \
  }                                                                            \
                                                                               \
  PdTool *                                                                     \
  type_name##_new (void)                                                       \
  {                                                                            \
    return g_object_new (type_name##_get_type (), NULL);                       \
  }

/* Files larger than this are not read whole by read_file/edit_file. */
#define PD_TOOL_MAX_FILE_SIZE (32 * 1024 * 1024)

/* Why a tool's long work must end now. */
typedef enum
{
  PD_TOOL_GO,
  PD_TOOL_STOP_CANCELLED,   /* the caller cancelled: return the G_IO_ERROR_CANCELLED error */
  PD_TOOL_STOP_DEADLINE,    /* the run's time budget ran out: return a result that says so */
} PdToolStop;

PdToolStop    _pd_tool_check_stop     (PdToolContext *context,
                                       GCancellable  *cancellable);
int           _pd_tool_context_get_root_fd (PdToolContext *self);
const char   *_pd_tool_context_confined_relative (PdToolContext *self,
                                                  const char    *resolved);
gboolean      _pd_tool_context_is_inside (PdToolContext *self,
                                          const char    *resolved);

/* Opening model-given paths (pd-tool-fs.c).  @resolved comes from
 * pd_tool_context_resolve_path(); inside a confined context it is opened
 * from the working directory's descriptor with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) or, where the kernel lacks it, one openat(O_NOFOLLOW)
 * per component, so a link swapped in after the check is refused instead
 * of followed.  O_CLOEXEC and O_NOCTTY are added to @flags. */
int           _pd_tool_open           (PdToolContext *context,
                                       const char    *resolved,
                                       int            flags,
                                       GError       **error);
int           _pd_tool_open_dir       (PdToolContext *context,
                                       const char    *resolved,
                                       gboolean       create,
                                       GError       **error);
int           _pd_tool_openat_child   (int            dir_fd,
                                       const char    *name,
                                       int            flags);
/* The names in @dir, without "." and "..", sorted bytewise, so that the
 * same tree always gives the same answer.  With a @context, every 4096
 * names read look at _pd_tool_check_stop(): NULL then, with @stop saying
 * why (a directory of millions of entries takes a while to read). */
GPtrArray    *_pd_tool_read_dir_names (DIR           *dir,
                                       PdToolContext *context,
                                       GCancellable  *cancellable,
                                       PdToolStop    *stop);
gboolean      _pd_tool_read_fd        (int            fd,
                                       gsize          max,
                                       char         **contents,
                                       gsize         *length,
                                       GError       **error);
gboolean      _pd_tool_write_all      (int            fd,
                                       const char    *data,
                                       gsize          length);
/* Tests: use the openat() walk even where openat2() works. */
void          _pd_tool_set_force_walk (gboolean       force);

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
gboolean      _pd_tool_is_text        (const char   *data,
                                       gsize         length);

/* A model-given path once the context has resolved it: what the tool opens
 * (@resolved, from pd_tool_context_resolve_path()) and how it names it in
 * what it returns (@display, from pd_tool_context_display_path()), with the
 * tool's name for its messages.  _pd_tool_resolve() fills it. */
typedef struct
{
  const char *tool;
  char       *resolved;
  char       *display;
} PdToolFile;

void          _pd_tool_file_clear     (PdToolFile   *file);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PdToolFile, _pd_tool_file_clear)

/* Resolves @path for @tool into @file; on refusal the result carries the
 * message and @file stays empty. */
PdToolResult *_pd_tool_resolve        (PdToolContext *context,
                                       const char   *tool,
                                       const char   *path,
                                       PdToolFile   *file);
int           _pd_tool_open_file      (PdToolContext *context,
                                       const PdToolFile *file,
                                       struct stat  *st,
                                       PdToolResult **error_result);
gboolean      _pd_tool_read_text_file (PdToolContext *context,
                                       const PdToolFile *file,
                                       char        **contents,
                                       gsize        *length,
                                       PdToolResult **error_result);
gboolean      _pd_tool_write_file     (PdToolContext *context,
                                       const PdToolFile *file,
                                       const char   *contents,
                                       gsize         length,
                                       PdToolResult **error_result);

/* Approval previews (pd-tool-preview.c): the model's text, escaped and cut
 * for a person to read. */
#define PD_TOOL_PREVIEW_MAX_LINES 2000
/* All of a preview: a dialog lays this much out at once. */
#define PD_TOOL_PREVIEW_MAX_BYTES (256 * 1024)

void          _pd_tool_preview_append_text  (GString      *out,
                                             const char   *text);
void          _pd_tool_preview_append_lines (GString      *out,
                                             const char   *prefix,
                                             const char   *next_prefix,
                                             const char   *text,
                                             guint         max_lines);
/* A preview that starts with the file the call names: its "path" as the
 * model wrote it. */
GString      *_pd_tool_preview_new_file     (JsonObject   *args);
char         *_pd_tool_preview_seal         (char         *preview,
                                             gboolean     *whole);

G_END_DECLS

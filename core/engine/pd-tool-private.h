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

#define PD_TOOL_MAX_ARGS 4

/* An argument a built-in tool reads, as its row declares it: a string
 * (@required or not: NULL when left out), a whole number held within
 * [@min, @max] (@fallback when left out), or a boolean (FALSE when left
 * out).  A wrong type is an error result the model can act on. */
typedef enum
{
  PD_TOOL_ARG_STRING,
  PD_TOOL_ARG_INT,
  PD_TOOL_ARG_BOOL,
} PdToolArgType;

typedef struct
{
  const char    *key;
  PdToolArgType  type;
  gboolean       required;
  gint64         min;
  gint64         max;
  gint64         fallback;
} PdToolArg;

typedef union
{
  const char *string;
  gint64      integer;
  gboolean    boolean;
} PdToolValue;

/* One call of a built-in tool, as PdToolInterface.call hands it over: the
 * tool itself (for the state it holds), where it runs, the model's
 * arguments (never NULL) and those its row declares, read in its order
 * (@arg), and where a failure of the machinery goes. */
typedef struct
{
  PdTool         *tool;
  PdToolContext  *context;
  JsonObject     *args;
  GCancellable   *cancellable;
  GError        **error;
  PdToolValue     arg[PD_TOOL_MAX_ARGS];
} PdToolCall;

/* What a built-in tool is, in one row of the table of built-ins
 * (pd-builtin-tools.c): its name, what the model is told about it, the JSON
 * schema of its arguments, how much approval it needs, what it does to the
 * files, and the functions that run it.  Every built-in is one
 * PdBuiltinTool answering the PdTool interface from its row; there is no
 * type per tool. */
typedef struct
{
  const char    *name;
  const char    *description;
  const char    *schema;
  PdToolSafety   safety;
  PdToolEffects  effects;
  /* The arguments read before run, in this order; a key NULL ends them */
  PdToolArg      args[PD_TOOL_MAX_ARGS + 1];
  /* Runs the tool with its arguments read: PdToolInterface.call */
  PdToolResult *(*run)     (const PdToolCall *call);
  /* (nullable): PdToolInterface.preview, for tools that ask approval */
  char         *(*preview) (PdToolContext    *context,
                            JsonObject       *args);
  /* (nullable): the description and schema worked out at run time instead
   * (the plan tool's come from its seed definition) */
  const char   *(*get_description) (void);
  JsonNode     *(*get_parameters)  (void);
  /* (nullable): the state one instance holds, made from what its
   * constructor was given; _pd_builtin_tool_get_state() hands it out */
  gpointer      (*state_new)  (gpointer data);
  GDestroyNotify  state_free;
  /* Registered by pd_tool_registry_add_builtins() only with a plan store */
  gboolean        needs_plan_store;
} PdToolInfo;

/* The table (pd-builtin-tools.c), in registration order, ending in a row
 * whose name is NULL. */
extern const PdToolInfo _pd_builtin_tools[];

PdTool       *_pd_builtin_tool_new       (const PdToolInfo *info,
                                          gpointer          data);
gpointer      _pd_builtin_tool_get_state (PdTool           *tool);

/* The built-ins' run and preview functions, each in its tool's file. */
PdToolResult *_pd_read_file_run       (const PdToolCall *call);
PdToolResult *_pd_list_dir_run        (const PdToolCall *call);
PdToolResult *_pd_grep_run            (const PdToolCall *call);
PdToolResult *_pd_write_file_run      (const PdToolCall *call);
PdToolResult *_pd_edit_file_run       (const PdToolCall *call);
PdToolResult *_pd_shell_run           (const PdToolCall *call);
PdToolResult *_pd_exit_plan_mode_run  (const PdToolCall *call);
PdToolResult *_pd_plan_run            (const PdToolCall *call);
char         *_pd_write_file_preview  (PdToolContext *context,
                                       JsonObject    *args);
char         *_pd_edit_file_preview   (PdToolContext *context,
                                       JsonObject    *args);
char         *_pd_shell_preview       (PdToolContext *context,
                                       JsonObject    *args);
gpointer      _pd_exit_plan_mode_state_new  (gpointer data);
void          _pd_exit_plan_mode_state_free (gpointer state);
const char   *_pd_plan_get_description (void);
JsonNode     *_pd_plan_get_parameters  (void);

/* Files larger than this are not read whole by read_file/edit_file. */
#define PD_TOOL_MAX_FILE_SIZE (32 * 1024 * 1024)

/* Why a tool's long work must end now. */
typedef enum
{
  PD_TOOL_GO,
  PD_TOOL_STOP_CANCELLED,   /* the caller cancelled: return the G_IO_ERROR_CANCELLED error */
  PD_TOOL_STOP_DEADLINE,    /* the run's time budget ran out: return a result that says so */
} PdToolStop;

/* The folder an approved write lands in, as it was when the call was let
 * through: the deepest existing folder on the approved path's way (its
 * parent, unless the write makes folders), @depth components below where
 * opens of the path start, and which folder it was. */
typedef struct
{
  gboolean set;
  guint    depth;
  dev_t    dev;
  ino_t    ino;
} PdToolAnchor;

void          _pd_tool_anchor_record  (PdToolContext *context,
                                       const char    *resolved,
                                       PdToolAnchor  *anchor);
const PdToolAnchor *_pd_tool_context_get_anchor (PdToolContext *self);

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
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV) or, where the kernel lacks it, one
 * openat(O_NOFOLLOW) per component checking its mount, so a link swapped
 * in after the check is refused instead of followed, and a mount point is
 * not crossed.  An outside path (allow_outside) is opened from "/" with no
 * link followed.  O_CLOEXEC and O_NOCTTY are added to @flags. */
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
/* Reads the arguments @info declares from @args into @values: NULL, or
 * the error result of the first that is wrong. */
PdToolResult *_pd_tool_read_args      (const PdToolInfo *info,
                                       JsonObject   *args,
                                       PdToolValue  *values);
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
int           _pd_tool_open_parent    (PdToolContext *context,
                                       const PdToolFile *file,
                                       gboolean      create,
                                       PdToolResult **error_result);
gboolean      _pd_tool_read_text_file (PdToolContext *context,
                                       const PdToolFile *file,
                                       int           dir_fd,
                                       char        **contents,
                                       gsize        *length,
                                       PdToolResult **error_result);
gboolean      _pd_tool_write_file     (PdToolContext *context,
                                       const PdToolFile *file,
                                       int           parent_fd,
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
char         *_pd_tool_preview_lands_at     (PdToolContext *context,
                                             const char   *path);
void          _pd_tool_preview_append_folder (GString      *out,
                                              PdToolContext *context);
/* A preview that starts with the file the call names: where it lands when
 * that reads otherwise, then its "path" as the model wrote it. */
GString      *_pd_tool_preview_new_file     (PdToolContext *context,
                                             JsonObject   *args,
                                             gboolean      edit);
char         *_pd_tool_preview_seal         (char         *preview,
                                             gboolean     *whole);

/* Look-alikes (pd-tool-look-alike.c): what a call's text draws as another
 * text than it is.  The state of one pass over a text, which reads each
 * word and each run of letters once; zeroed to start. */
typedef struct
{
  const char *word_end;     /* the word (up to a blank) read last ends here */
  gboolean    word_latin;   /* it holds Latin letters */
  gboolean    word_ascii;   /* it holds Latin letters or ASCII digits */
  gboolean    word_cjk;     /* it holds Han, kana or Hangul letters */
  const char *run_end;      /* the run of letters read last ends here */
  gboolean    run_flagged;  /* its letters beyond Latin are escaped */
  gboolean    run_digits;   /* its digits of other scripts are escaped */
  gboolean    word_link;    /* the word is a path, a URL, a host or an option's */
  /* The shell's quotes, as _pd_tool_look_alike_step() reads them: a
   * character's place in its shell word (pd-tool-look-alike.c). */
  char        quote;        /* 0, '\'', '"', '$' ($'…') or '#' (a comment) */
  const char *escaped;      /* a backslash escapes the character here */
  const char *dollar;       /* a $ outside quotes ends here */
  const char *seg_start;    /* the quoted text on this line starts here (NULL: the line's start) */
  const char *seg_end;      /* what of it was read ends here (NULL: not read yet) */
  gboolean    seg_prose;    /* it holds a blank and none of ; & | ` $ < > */
  gboolean    seg_paired;   /* look-alikes of its own quote keep the quotes' count */
  const char *text_end;     /* the whole text's end, to look ahead (NULL: the line's) */
  char        word[12];     /* the shell word read so far, dequoted (its first bytes) */
  guint       word_len;     /* its length; more than word's: too long, or not ASCII */
  gboolean    code;         /* this simple command runs its quoted text (sh -c, eval, ssh…) */
  gboolean    heredoc;      /* a << was read: what follows may be a here-document's lines */
  const char *less_end;     /* a < outside quotes ends here */
  const char *last_quote[2];  /* where a ' (0) or a " (1), or a look-alike, stands last */
  gboolean    last_read[2];   /* last_quote[] was looked for */
} PdToolLookAlike;

PdToolEscapes _pd_tool_looks_alike_at       (PdToolLookAlike *state,
                                             const char   *text,
                                             gunichar      before,
                                             gunichar      c,
                                             gunichar      after,
                                             const char   *p,
                                             const char   *end);
void          _pd_tool_look_alike_step      (PdToolLookAlike *state,
                                             gunichar      before,
                                             gunichar      c,
                                             const char   *p);
gboolean      _pd_tool_look_alike_spares_blank (PdToolLookAlike *state,
                                             const char   *text,
                                             gunichar      c,
                                             const char   *p,
                                             const char   *end);

G_END_DECLS

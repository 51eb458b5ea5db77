/* pd-tool.h: the engine's tools, their safety class and effects.
 *
 * A tool is called synchronously from a worker thread of the engine's tool
 * batch (or through pd_tool_call_async()).  Its arguments come from the
 * model and are untrusted.  Failures the model should see — a command that
 * exits non-zero, a missing file, bad arguments — are results with ok=FALSE
 * and a message; a GError is only for failures of the machinery itself
 * (cancellation, a shell that cannot be spawned).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "pd-plan-enums.h"

G_BEGIN_DECLS

/* How the approval policy treats a tool (seed 000, classifyToolCall). */
typedef enum
{
  PD_TOOL_SAFE,       /* engine-held state only: never prompts */
  PD_TOOL_READ_ONLY,  /* reads the working tree: allowed under every policy */
  PD_TOOL_MUTATING,   /* writes files or runs commands: subject to the policy */
} PdToolSafety;

const char *pd_tool_safety_to_string (PdToolSafety safety);

#define PD_TOOL_ERROR (pd_tool_error_quark ())

typedef enum
{
  PD_TOOL_ERROR_FAILED,        /* the tool machinery failed (spawn, I/O setup) */
  PD_TOOL_ERROR_INVALID_PATH,  /* a path could not be resolved */
  PD_TOOL_ERROR_OUTSIDE,       /* a path resolves outside the working directory */
} PdToolError;

GQuark pd_tool_error_quark (void);

/* PdToolContext: where and within which limits tools run.  Configure it
 * before handing it to tools; afterwards it is shared read-only between the
 * worker threads of a batch, so the setters must not be called while calls
 * are running. */
typedef struct _PdToolContext PdToolContext;

#define PD_TYPE_TOOL_CONTEXT (pd_tool_context_get_type ())

#define PD_TOOL_DEFAULT_SHELL_TIMEOUT_MS 120000
#define PD_TOOL_MAX_SHELL_TIMEOUT_MS     600000
#define PD_TOOL_DEFAULT_OUTPUT_CAP       (64 * 1024)

GType           pd_tool_context_get_type          (void) G_GNUC_CONST;
PdToolContext  *pd_tool_context_new               (const char     *working_dir,
                                                   GError        **error);
PdToolContext  *pd_tool_context_copy              (PdToolContext  *self);
PdToolContext  *pd_tool_context_ref               (PdToolContext  *self);
void            pd_tool_context_unref             (PdToolContext  *self);
const char     *pd_tool_context_get_working_dir   (PdToolContext  *self);
gboolean        pd_tool_context_get_allow_outside (PdToolContext  *self);
void            pd_tool_context_set_allow_outside (PdToolContext  *self,
                                                   gboolean        allow_outside);
guint           pd_tool_context_get_shell_timeout_ms (PdToolContext *self);
void            pd_tool_context_set_shell_timeout_ms (PdToolContext *self,
                                                      guint          timeout_ms);
gsize           pd_tool_context_get_output_cap    (PdToolContext  *self);
void            pd_tool_context_set_output_cap    (PdToolContext  *self,
                                                   gsize           output_cap);
void            pd_tool_context_setenv            (PdToolContext  *self,
                                                   const char     *name,
                                                   const char     *value);
const char * const *pd_tool_context_get_env_additions (PdToolContext *self);
void            pd_tool_context_hide_env          (PdToolContext  *self,
                                                   const char     *name);
gboolean        pd_tool_context_env_is_hidden     (PdToolContext  *self,
                                                   const char     *name);
char          **pd_tool_context_build_env         (PdToolContext  *self);
void            pd_tool_scrub_startup_environ     (void);
gint64          pd_tool_context_get_deadline      (PdToolContext  *self);
void            pd_tool_context_set_deadline      (PdToolContext  *self,
                                                   gint64          deadline_usec);
void            pd_tool_context_set_approved_path (PdToolContext  *self,
                                                   const char     *resolved);
const char     *pd_tool_context_get_approved_path (PdToolContext  *self);
const char     *pd_tool_context_approve_path      (PdToolContext  *self,
                                                   const char     *path);
char           *pd_tool_context_resolve_path      (PdToolContext  *self,
                                                   const char     *path,
                                                   GError        **error);
char           *pd_tool_context_display_path      (PdToolContext  *self,
                                                   const char     *resolved);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdToolContext, pd_tool_context_unref)

/* PdToolResult: what the model reads back. */
typedef struct
{
  gboolean  ok;
  char     *content;      /* text for the model, valid UTF-8, never NULL */
  int       exit_status;  /* shell: the command's status (128+N for signal N); else 0 */
  gboolean  truncated;    /* content was cut to the output cap */
  gboolean  denied;       /* refused by approval or policy: the tool never ran */
} PdToolResult;

#define PD_TYPE_TOOL_RESULT (pd_tool_result_get_type ())

GType         pd_tool_result_get_type   (void) G_GNUC_CONST;
PdToolResult *pd_tool_result_new        (gboolean            ok,
                                         const char         *content);
PdToolResult *pd_tool_result_new_take   (gboolean            ok,
                                         char               *content);
PdToolResult *pd_tool_result_new_printf (gboolean            ok,
                                         const char         *format,
                                         ...) G_GNUC_PRINTF (2, 3);
PdToolResult *pd_tool_result_new_denied (const char         *tool_name,
                                         const char         *reason);
PdToolResult *pd_tool_result_copy       (const PdToolResult *self);
void          pd_tool_result_free       (PdToolResult       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdToolResult, pd_tool_result_free)

/* PdTool */
#define PD_TYPE_TOOL (pd_tool_get_type ())

G_DECLARE_INTERFACE (PdTool, pd_tool, PD, TOOL, GObject)

struct _PdToolInterface
{
  GTypeInterface parent;

  const char    *(*get_name)        (PdTool        *self);
  const char    *(*get_description) (PdTool        *self);
  /* (transfer full): a JSON schema object */
  JsonNode      *(*get_parameters)  (PdTool        *self);
  /* (nullable): NULL is PD_TOOL_MUTATING */
  PdToolSafety   (*get_safety)      (PdTool        *self);
  /* (nullable): NULL is UNKNOWN for a mutating tool, READ for others */
  PdToolEffects  (*get_effects)     (PdTool        *self,
                                     JsonObject    *args);
  PdToolResult  *(*call)            (PdTool        *self,
                                     PdToolContext *context,
                                     JsonObject    *args,
                                     GCancellable  *cancellable,
                                     GError       **error);
  /* (nullable) (transfer full): what the call would do, for a person asked
   * to approve it; NULL: the one-line summary says it all */
  char          *(*preview)         (PdTool        *self,
                                     PdToolContext *context,
                                     JsonObject    *args);
};

const char    *pd_tool_get_name        (PdTool               *self);
const char    *pd_tool_get_description (PdTool               *self);
JsonNode      *pd_tool_get_parameters  (PdTool               *self);
PdToolSafety   pd_tool_get_safety      (PdTool               *self);
PdToolEffects  pd_tool_get_effects     (PdTool               *self,
                                        JsonObject           *args);
PdToolResult  *pd_tool_call            (PdTool               *self,
                                        PdToolContext        *context,
                                        JsonObject           *args,
                                        GCancellable         *cancellable,
                                        GError              **error);
void           pd_tool_call_async      (PdTool               *self,
                                        PdToolContext        *context,
                                        JsonObject           *args,
                                        GCancellable         *cancellable,
                                        GAsyncReadyCallback   callback,
                                        gpointer              user_data);
PdToolResult  *pd_tool_call_finish     (PdTool               *self,
                                        GAsyncResult         *result,
                                        GError              **error);
JsonNode      *pd_tool_to_openai_json  (PdTool               *self);
PdTool        *pd_tool_new_builtin     (const char           *name,
                                        gpointer              data);
gboolean       pd_tool_is_builtin      (gpointer              object,
                                        const char           *name);
char          *pd_tool_preview         (PdTool               *self,
                                        PdToolContext        *context,
                                        JsonObject           *args,
                                        gboolean             *whole);

/* How a call's text is shown to a person asked about it (pd-tool-preview.c):
 * the characters that change what runs or how it reads, as escapes. */
gboolean       pd_tool_text_is_control    (gunichar              c);
gboolean       pd_tool_text_append_escape (GString              *out,
                                           gunichar              c);
gboolean       pd_tool_text_has_control   (const char           *text);

/**
 * PdToolEscapes:
 * @PD_TOOL_ESCAPES_NONE: nothing escaped
 * @PD_TOOL_ESCAPES_CONTROLS: control characters, invisible ones,
 *   look-alike blanks (\r, \x1b, \u202e, \u00a0)
 * @PD_TOOL_ESCAPES_LETTERS: letters or digits of another alphabet drawn
 *   as Latin ones or ASCII digits (\u0430, \uff52, \u0be6)
 * @PD_TOOL_ESCAPES_SIGNS: characters drawn as the shell's signs, quotes,
 *   slashes, dashes, # (\u201c, \u2044, \uff03)
 *
 * What pd_tool_text_append_escaped() escapes in a text, by kind: what a
 * question about it says.
 */
typedef enum
{
  PD_TOOL_ESCAPES_NONE     = 0,
  PD_TOOL_ESCAPES_CONTROLS = 1 << 0,
  PD_TOOL_ESCAPES_LETTERS  = 1 << 1,
  PD_TOOL_ESCAPES_SIGNS    = 1 << 2,
} PdToolEscapes;

PdToolEscapes  pd_tool_text_escapes       (const char           *text);
const char    *pd_tool_text_append_escaped (GString             *out,
                                            const char          *text,
                                            const char          *end,
                                            gboolean             one_line,
                                            guint                max_chars);
char          *pd_tool_text_escaped       (const char           *text,
                                           gboolean              one_line);

G_END_DECLS

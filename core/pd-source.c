/* pd-source.c: PdSource, the one interface the UI reads sessions through.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include "pd-event.h"
#include "pd-source.h"
#include "pd-task-util.h"

G_DEFINE_QUARK (pd-source-error-quark, pd_source_error)

G_DEFINE_BOXED_TYPE (PdSessionPage, pd_session_page, pd_session_page_copy, pd_session_page_free)
G_DEFINE_BOXED_TYPE (PdResumeCommand, pd_resume_command, pd_resume_command_copy, pd_resume_command_free)

/**
 * pd_resume_command_new:
 * @argv: (transfer full): the words, none empty
 * @workdir: (nullable): the folder to run them in
 */
PdResumeCommand *
pd_resume_command_new (GStrv       argv,
                       const char *workdir)
{
  PdResumeCommand *self = g_new0 (PdResumeCommand, 1);

  self->argv = argv;
  self->workdir = g_strdup (workdir);
  return self;
}

/**
 * pd_resume_command_new_in_editor:
 * @source: the extension's source name ("cline", "roo", "kilo")
 * @workdir: (nullable): the task's folder
 *
 * How an editor extension's task is continued: from the extension's task
 * history in the editor, with no command to run.
 */
PdResumeCommand *
pd_resume_command_new_in_editor (const char *source,
                                 const char *workdir)
{
  PdResumeCommand *self = g_new0 (PdResumeCommand, 1);

  g_return_val_if_fail (source != NULL, NULL);

  self->source = g_strdup (source);
  self->workdir = g_strdup (workdir);
  return self;
}

PdResumeCommand *
pd_resume_command_copy (const PdResumeCommand *self)
{
  PdResumeCommand *copy = pd_resume_command_new (g_strdupv (self->argv), self->workdir);

  copy->source = g_strdup (self->source);
  return copy;
}

void
pd_resume_command_free (PdResumeCommand *self)
{
  if (self == NULL)
    return;
  g_strfreev (self->argv);
  g_free (self->workdir);
  g_free (self->source);
  g_free (self);
}

char *
pd_resume_command_to_string (const PdResumeCommand *self)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; self->argv && self->argv[i]; i++)
    {
      g_autofree char *quoted = g_shell_quote (self->argv[i]);
      gboolean plain = TRUE;

      /* Plain words as they are; anything else quoted for a POSIX shell.
       * A leading = is not plain: zsh reads =WORD as the path of the
       * program WORD. */
      for (const char *p = self->argv[i]; *p; p++)
        plain = plain && (g_ascii_isalnum (*p) || strchr ("-_./=:", *p) != NULL);
      plain = plain && self->argv[i][0] != '=';
      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append (out, plain && *self->argv[i] ? self->argv[i] : quoted);
    }
  return g_string_free (out, FALSE);
}

/**
 * pd_resume_command_get_source:
 * @self: a command to continue a session
 *
 * Returns: (nullable): the source of the agent that continues the session
 *   ("claude-code", "codex", … or an editor extension's), told by the
 *   command's program; %NULL for a program no agent is known by
 */
const char *
pd_resume_command_get_source (const PdResumeCommand *self)
{
  static const struct { const char *program, *source; } agents[] = {
    { "claude", "claude-code" }, { "codex", "codex" }, { "opencode", "opencode" },
    { "qwen", "qwen" }, { "gemini", "gemini" }, { "cline", "cline" }, { "kilo", "kilo-cli" },
  };
  const char *program;
  const char *base;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->source != NULL || self->argv == NULL || (program = self->argv[0]) == NULL)
    return self->source;
  base = strrchr (program, '/') != NULL ? strrchr (program, '/') + 1 : program;
  for (guint i = 0; i < G_N_ELEMENTS (agents); i++)
    if (strcmp (base, agents[i].program) == 0)
      return agents[i].source;
  return NULL;
}

/* A byte a terminal's line editor takes as a key, pasted: C0, DEL, and C1
 * as UTF-8 (U+0080..U+009F). */
static gboolean
holds_control (const char *text)
{
  for (const guchar *c = (const guchar *) text; *c != '\0'; c++)
    if (*c < 0x20 || *c == 0x7f || (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f))
      return TRUE;
  return FALSE;
}

/**
 * pd_resume_command_check_paste:
 * @self: a command to continue a session
 *
 * Whether pd_resume_command_to_paste() gives a line, and if not why.
 *
 * Returns: %PD_RESUME_PASTE_OK, or what keeps the line from being the same
 *   command in every shell
 */
PdResumePaste
pd_resume_command_check_paste (const PdResumeCommand *self)
{
  g_return_val_if_fail (self != NULL, PD_RESUME_PASTE_CONTROL);

  for (guint i = 0; self->argv != NULL && self->argv[i] != NULL; i++)
    if (holds_control (self->argv[i]))
      return PD_RESUME_PASTE_CONTROL;
  if (self->workdir != NULL && holds_control (self->workdir))
    return PD_RESUME_PASTE_CONTROL;
  /* Inside single quotes bash and zsh take every byte as it is, but fish
   * reads \' as a quote and \\ as one backslash: g_shell_quote's '\''
   * then ends the quoting elsewhere, and a folder named
   * x\' ; touch /tmp/p ; echo \' ran touch in fish only (tried as an
   * attacker would).  No quoting is the same to all three, so none. */
  for (guint i = 0; self->argv != NULL && self->argv[i] != NULL; i++)
    if (strpbrk (self->argv[i], "'\\") != NULL)
      return PD_RESUME_PASTE_QUOTE;
  if (self->workdir != NULL && strpbrk (self->workdir, "'\\") != NULL)
    return PD_RESUME_PASTE_QUOTE;
  return PD_RESUME_PASTE_OK;
}

/**
 * pd_resume_command_to_paste:
 * @self: a command to continue a session
 *
 * The command as a user pastes it into a terminal: `cd 'FOLDER' && COMMAND`
 * when the session says its folder (the agents keep their sessions per
 * folder), each word quoted, the same command to bash, zsh and fish.
 *
 * Returns: (transfer full) (nullable): the line, or %NULL when
 *   pd_resume_command_check_paste() says there is none: a control character
 *   (pasted, a terminal's line editor takes it as a key: a folder holding
 *   Ctrl+U and a line break wiped the `cd` and ran what followed), or a
 *   quote or backslash (fish reads them inside single quotes); both tried
 *   as an attacker would
 */
char *
pd_resume_command_to_paste (const PdResumeCommand *self)
{
  g_autofree char *line = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  if (pd_resume_command_check_paste (self) != PD_RESUME_PASTE_OK)
    return NULL;
  line = pd_resume_command_to_string (self);
  if (self->workdir != NULL)
    {
      g_autofree char *quoted = g_shell_quote (self->workdir);
      char *in_folder = g_strdup_printf ("cd %s && %s", quoted, line);

      g_free (line);
      line = in_folder;
    }
  return g_steal_pointer (&line);
}

/**
 * pd_session_page_new:
 * @sessions: (transfer full) (element-type PdSessionInfo)
 */
PdSessionPage *
pd_session_page_new (GPtrArray *sessions,
                     guint      total)
{
  PdSessionPage *self = g_new0 (PdSessionPage, 1);

  self->sessions = sessions ? sessions : g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  self->total = total;

  return self;
}

PdSessionPage *
pd_session_page_copy (const PdSessionPage *self)
{
  GPtrArray *sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);

  for (guint i = 0; i < self->sessions->len; i++)
    g_ptr_array_add (sessions, pd_session_info_copy (g_ptr_array_index (self->sessions, i)));

  return pd_session_page_new (sessions, self->total);
}

void
pd_session_page_free (PdSessionPage *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->sessions);
  g_free (self);
}

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_INTERFACE (PdSource, pd_source, G_TYPE_OBJECT)

static void
pd_source_default_init (PdSourceInterface *iface)
{
  /**
   * PdSource::changed:
   *
   * The sessions of the source changed (one was added, saved, renamed or
   * removed).  Listeners refresh what they show.  Emitted on the main
   * context of the source.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

void
pd_source_get_resume_command_async (PdSource            *self,
                                    const char          *session_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  PdSourceInterface *iface;

  g_return_if_fail (PD_IS_SOURCE (self));
  g_return_if_fail (session_id != NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_resume_command_async != NULL)
    iface->get_resume_command_async (self, session_id, cancellable, callback, user_data);
  else
    {
      g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, pd_source_get_resume_command_async);
      g_task_return_pointer (task, NULL, NULL);
    }
}

/**
 * pd_source_get_resume_command_finish:
 *
 * Returns: (transfer full) (nullable): the command, or %NULL when there is
 *   none (@error unset) or it could not be asked (@error set)
 */
PdResumeCommand *
pd_source_get_resume_command_finish (PdSource      *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_resume_command_finish != NULL && !g_async_result_is_tagged (result, pd_source_get_resume_command_async))
    return iface->get_resume_command_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
pd_source_import_transcripts_async (PdSource            *self,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  PdSourceInterface *iface;

  g_return_if_fail (PD_IS_SOURCE (self));

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->import_transcripts_async != NULL)
    iface->import_transcripts_async (self, cancellable, callback, user_data);
  else
    {
      g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, pd_source_import_transcripts_async);
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               "%s reads no other agents' transcripts: open a local database to read them",
                               pd_source_get_title (self));
    }
}

/**
 * pd_source_import_transcripts_finish:
 * @counts: (out) (optional): what the import found
 *
 * Returns: %TRUE when the transcripts were read
 */
gboolean
pd_source_import_transcripts_finish (PdSource        *self,
                                     GAsyncResult    *result,
                                     PdImportCounts  *counts,
                                     GError         **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), FALSE);

  if (counts != NULL)
    memset (counts, 0, sizeof *counts);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->import_transcripts_finish != NULL && !g_async_result_is_tagged (result, pd_source_import_transcripts_async))
    return iface->import_transcripts_finish (self, result, counts, error);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
pd_source_emit_changed (PdSource *self)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  g_signal_emit (self, signals[CHANGED], 0);
}

const char *
pd_source_get_title (PdSource *self)
{
  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);
  return PD_SOURCE_GET_IFACE (self)->get_title (self);
}

const char *
pd_source_get_kind (PdSource *self)
{
  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);
  return PD_SOURCE_GET_IFACE (self)->get_kind (self);
}

/* The finish of a change a source returned on a GTask: its sessions
 * changed when it succeeded. */
static gboolean
task_changed_finish (PdSource      *self,
                     GAsyncResult  *result,
                     GError       **error)
{
  gboolean ok = g_task_propagate_boolean (G_TASK (result), error);

  if (ok)
    pd_source_emit_changed (self);
  return ok;
}

void
pd_source_list_sessions_async (PdSource            *self,
                               const char          *query,
                               gboolean             full_text,
                               guint                offset,
                               guint                limit,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->list_sessions_async (self, query, full_text, offset, limit, cancellable, callback, user_data);
}

PdSessionPage *
pd_source_list_sessions_finish (PdSource      *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->list_sessions_finish != NULL)
    return iface->list_sessions_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
pd_source_get_session_async (PdSource            *self,
                             const char          *id,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->get_session_async (self, id, cancellable, callback, user_data);
}

PdSessionInfo *
pd_source_get_session_finish (PdSource      *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_session_finish != NULL)
    return iface->get_session_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
pd_source_get_plan_async (PdSource            *self,
                          const char          *id,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->get_plan_async (self, id, cancellable, callback, user_data);
}

/**
 * pd_source_get_plan_finish:
 * @plan: (out) (transfer full) (nullable): the plan, %NULL when the session
 *   has none
 *
 * Returns: %FALSE with @error set when the plan could not be read
 */
gboolean
pd_source_get_plan_finish (PdSource      *self,
                           GAsyncResult  *result,
                           PdPlanState  **plan,
                           GError       **error)
{
  PdSourceInterface *iface;
  PdPlanState *state;
  GError *local_error = NULL;

  g_return_val_if_fail (PD_IS_SOURCE (self), FALSE);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_plan_finish != NULL)
    return iface->get_plan_finish (self, result, plan, error);

  state = g_task_propagate_pointer (G_TASK (result), &local_error);
  if (plan != NULL)
    *plan = state;
  else
    g_clear_pointer (&state, pd_plan_state_free);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  return TRUE;
}

void
pd_source_get_plan_history_async (PdSource            *self,
                                  const char          *id,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->get_plan_history_async (self, id, cancellable, callback, user_data);
}

/**
 * pd_source_get_plan_history_finish:
 *
 * Returns: (transfer full) (element-type PdPlanVersionInfo): every stored
 *   plan version, oldest first
 */
GPtrArray *
pd_source_get_plan_history_finish (PdSource      *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_plan_history_finish != NULL)
    return iface->get_plan_history_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
pd_source_get_messages_async (PdSource            *self,
                              const char          *id,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->get_messages_async (self, id, cancellable, callback, user_data);
}

JsonArray *
pd_source_get_messages_finish (PdSource      *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_messages_finish != NULL)
    return iface->get_messages_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_whole_messages (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonArray *messages = pd_source_get_messages_finish (PD_SOURCE (object), result, &error);

  pd_task_return_pointer_or_error (task, messages, (GDestroyNotify) json_array_unref, error);
}

void
pd_source_get_messages_part_async (PdSource            *self,
                                   const char          *id,
                                   gint64               before,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  PdSourceInterface *iface;
  GTask *task;

  g_return_if_fail (PD_IS_SOURCE (self));

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_messages_part_async != NULL)
    {
      iface->get_messages_part_async (self, id, before, cancellable, callback, user_data);
      return;
    }
  /* A source that reads whole: its messages, all of them. */
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_source_get_messages_part_async);
  pd_source_get_messages_async (self, id, cancellable, on_whole_messages, task);
}

JsonArray *
pd_source_get_messages_part_finish (PdSource      *self,
                                    GAsyncResult  *result,
                                    guint64       *first,
                                    guint64       *total,
                                    GError       **error)
{
  PdSourceInterface *iface;
  JsonArray *messages;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  *first = *total = 0;
  iface = PD_SOURCE_GET_IFACE (self);
  if (!g_task_is_valid (result, self) || g_task_get_source_tag (G_TASK (result)) != pd_source_get_messages_part_async)
    return iface->get_messages_part_finish (self, result, first, total, error);
  if ((messages = g_task_propagate_pointer (G_TASK (result), error)))
    *total = json_array_get_length (messages);
  return messages;
}

static void
on_newest_part (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  guint64 *range = g_new0 (guint64, 2);
  GError *error = NULL;
  JsonArray *messages = pd_source_get_messages_part_finish (PD_SOURCE (object), result, &range[0], &range[1], &error);

  if (messages == NULL)
    {
      g_free (range);
      g_task_return_error (task, error);
      return;
    }
  g_task_set_task_data (task, range, g_free);
  g_task_return_pointer (task, messages, (GDestroyNotify) json_array_unref);
}

void
pd_source_get_messages_since_async (PdSource            *self,
                                    const char          *id,
                                    guint64              from,
                                    guint64              lineage,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  PdSourceInterface *iface;
  GTask *task;

  g_return_if_fail (PD_IS_SOURCE (self));

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_messages_since_async != NULL)
    {
      iface->get_messages_since_async (self, id, from, lineage, cancellable, callback, user_data);
      return;
    }
  /* A source that follows nothing: the newest part, each time. */
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_source_get_messages_since_async);
  pd_source_get_messages_part_async (self, id, -1, cancellable, on_newest_part, task);
}

JsonArray *
pd_source_get_messages_since_finish (PdSource      *self,
                                     GAsyncResult  *result,
                                     guint64       *first,
                                     guint64       *total,
                                     guint64       *lineage,
                                     GError       **error)
{
  PdSourceInterface *iface;
  JsonArray *messages;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  *first = *total = *lineage = 0;
  iface = PD_SOURCE_GET_IFACE (self);
  if (!g_task_is_valid (result, self) || g_task_get_source_tag (G_TASK (result)) != pd_source_get_messages_since_async)
    return iface->get_messages_since_finish (self, result, first, total, lineage, error);
  if ((messages = g_task_propagate_pointer (G_TASK (result), error)))
    {
      const guint64 *range = g_task_get_task_data (G_TASK (result));

      *first = range[0];
      *total = range[1];
    }
  return messages;
}

void
pd_source_get_events_async (PdSource            *self,
                            const char          *session_id,
                            gint64               after_seq,
                            guint                limit,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->get_events_async (self, session_id, after_seq, limit, cancellable, callback, user_data);
}

/**
 * pd_source_get_events_finish:
 *
 * Returns: (transfer full) (element-type PdStoredEvent): events after the
 *   given sequence number, oldest first
 */
GPtrArray *
pd_source_get_events_finish (PdSource      *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_events_finish != NULL)
    return iface->get_events_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* A source that reads events forward only: every page after the last,
 * the newest kept; memory for a page and the answer, time for them all. */
#define FORWARD_PAGE 500

typedef struct
{
  char      *session_id;
  gint64     before_seq;
  GStrv      types;
  guint      limit;
  gint64     after_seq;
  GPtrArray *kept;   /* PdStoredEvent */
} LatestRead;

static void
latest_read_free (LatestRead *read)
{
  g_free (read->session_id);
  g_strfreev (read->types);
  g_ptr_array_unref (read->kept);
  g_free (read);
}

static gboolean
latest_read_wants (LatestRead    *read,
                   PdStoredEvent *stored)
{
  g_autoptr(PdEvent) event = NULL;

  if (read->types == NULL)
    return TRUE;
  event = pd_event_new_from_json (stored->event_json, NULL);
  return event != NULL && g_strv_contains ((const char * const *) read->types, pd_event_get_event_type (event));
}

static void
on_forward_events (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  LatestRead *read = g_task_get_task_data (task);
  g_autoptr(GPtrArray) page = NULL;
  GError *error = NULL;
  gboolean past = FALSE;

  if (!(page = pd_source_get_events_finish (PD_SOURCE (object), result, &error)))
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < page->len; i++)
    {
      PdStoredEvent *stored = g_ptr_array_index (page, i);

      if (stored->seq <= read->after_seq)
        continue;
      read->after_seq = stored->seq;
      if (read->before_seq > 0 && stored->seq >= read->before_seq)
        {
          past = TRUE;
          break;
        }
      if (latest_read_wants (read, stored))
        g_ptr_array_add (read->kept, g_steal_pointer (&page->pdata[i]));
    }
  if (read->kept->len > 2 * read->limit)
    g_ptr_array_remove_range (read->kept, 0, read->kept->len - read->limit);

  if (!past && page->len >= FORWARD_PAGE && !g_task_return_error_if_cancelled (task))
    {
      GCancellable *cancellable = g_task_get_cancellable (task);

      pd_source_get_events_async (PD_SOURCE (object), read->session_id, read->after_seq, FORWARD_PAGE,
                                  cancellable, on_forward_events, g_steal_pointer (&task));
      return;
    }
  if (read->kept->len > read->limit)
    g_ptr_array_remove_range (read->kept, 0, read->kept->len - read->limit);
  g_task_return_pointer (task, g_ptr_array_ref (read->kept), (GDestroyNotify) g_ptr_array_unref);
}

void
pd_source_get_latest_events_async (PdSource            *self,
                                   const char          *session_id,
                                   gint64               before_seq,
                                   const char * const  *types,
                                   guint                limit,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  PdSourceInterface *iface;
  LatestRead *read;
  GTask *task;

  g_return_if_fail (PD_IS_SOURCE (self));
  g_return_if_fail (session_id != NULL && limit > 0);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_latest_events_async != NULL)
    {
      iface->get_latest_events_async (self, session_id, before_seq, types, limit, cancellable, callback, user_data);
      return;
    }
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_source_get_latest_events_async);
  read = g_new0 (LatestRead, 1);
  read->session_id = g_strdup (session_id);
  read->before_seq = before_seq;
  read->types = g_strdupv ((char **) types);
  read->limit = limit;
  read->kept = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  g_task_set_task_data (task, read, (GDestroyNotify) latest_read_free);
  pd_source_get_events_async (self, session_id, 0, FORWARD_PAGE, cancellable, on_forward_events, task);
}

/**
 * pd_source_get_latest_events_finish:
 *
 * Returns: (transfer full) (element-type PdStoredEvent): the events asked
 *   for, oldest first
 */
GPtrArray *
pd_source_get_latest_events_finish (PdSource      *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (g_task_is_valid (result, self) && g_task_get_source_tag (G_TASK (result)) == pd_source_get_latest_events_async)
    return g_task_propagate_pointer (G_TASK (result), error);
  if (iface->get_latest_events_finish != NULL)
    return iface->get_latest_events_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
pd_source_get_usage_async (PdSource            *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->get_usage_async (self, cancellable, callback, user_data);
}

JsonObject *
pd_source_get_usage_finish (PdSource      *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->get_usage_finish != NULL)
    return iface->get_usage_finish (self, result, error);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * pd_source_update_session_async:
 * @name: (nullable): the new name, or %NULL to keep it
 * @pinned: 1 to pin, 0 to unpin, -1 to keep
 */
void
pd_source_update_session_async (PdSource            *self,
                                const char          *id,
                                const char          *name,
                                int                  pinned,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->update_session_async (self, id, name, pinned, cancellable, callback, user_data);
}

gboolean
pd_source_update_session_finish (PdSource      *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), FALSE);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->update_session_finish != NULL)
    return iface->update_session_finish (self, result, error);
  return task_changed_finish (self, result, error);
}

void
pd_source_delete_session_async (PdSource            *self,
                                const char          *id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  PD_SOURCE_GET_IFACE (self)->delete_session_async (self, id, cancellable, callback, user_data);
}

gboolean
pd_source_delete_session_finish (PdSource      *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), FALSE);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->delete_session_finish != NULL)
    return iface->delete_session_finish (self, result, error);
  return task_changed_finish (self, result, error);
}

void
pd_source_get_checklist_async (PdSource            *self,
                               const char          *session_id,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  g_return_if_fail (session_id != NULL);
  PD_SOURCE_GET_IFACE (self)->get_checklist_async (self, session_id, cancellable, callback, user_data);
}

/**
 * pd_source_get_checklist_finish:
 * @plans: (out) (optional) (transfer full) (element-type PdArtifactPlan):
 *   the session's plan documents (proposed, approved, rejected) in
 *   transcript order
 *
 * Returns: (transfer full): the checklist, or %NULL with @error set
 */
PdChecklist *
pd_source_get_checklist_finish (PdSource      *self,
                                GAsyncResult  *result,
                                GPtrArray    **plans,
                                GError       **error)
{
  g_return_val_if_fail (PD_IS_SOURCE (self), NULL);
  return PD_SOURCE_GET_IFACE (self)->get_checklist_finish (self, result, plans, error);
}

void
pd_source_save_checklist_async (PdSource            *self,
                                const char          *session_id,
                                PdChecklist         *checklist,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (PD_IS_SOURCE (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (PD_IS_CHECKLIST (checklist));
  PD_SOURCE_GET_IFACE (self)->save_checklist_async (self, session_id, checklist, cancellable, callback, user_data);
}

gboolean
pd_source_save_checklist_finish (PdSource      *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  PdSourceInterface *iface;

  g_return_val_if_fail (PD_IS_SOURCE (self), FALSE);

  iface = PD_SOURCE_GET_IFACE (self);
  if (iface->save_checklist_finish != NULL)
    return iface->save_checklist_finish (self, result, error);
  return g_task_propagate_boolean (G_TASK (result), error);
}

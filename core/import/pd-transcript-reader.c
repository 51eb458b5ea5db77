/* pd-transcript-reader.c: what every reader of another agent's transcripts
 * is, and the table of readers by format.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-claude-code-reader.h"
#include "pd-codex-reader.h"
#include "pd-opencode-reader.h"
#include "pd-qwen-reader.h"
#include "pd-gemini-reader.h"
#include "pd-cline-reader.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

G_DEFINE_INTERFACE (PdTranscriptReader, pd_transcript_reader, G_TYPE_OBJECT)

static void
pd_transcript_reader_default_init (PdTranscriptReaderInterface *iface)
{
}

const char *
pd_transcript_reader_get_format (PdTranscriptReader *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);

  return PD_TRANSCRIPT_READER_GET_IFACE (self)->get_format (self);
}

void
pd_transcript_reader_set_max_line (PdTranscriptReader *self,
                                   gsize               max_line)
{
  PdTranscriptReaderInterface *iface;

  g_return_if_fail (PD_IS_TRANSCRIPT_READER (self));

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  if (iface->set_max_line != NULL)
    iface->set_max_line (self, max_line);
}

void
pd_transcript_reader_set_follow (PdTranscriptReader *self,
                                 gboolean            follow)
{
  PdTranscriptReaderInterface *iface;

  g_return_if_fail (PD_IS_TRANSCRIPT_READER (self));

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  if (iface->set_follow != NULL)
    iface->set_follow (self, follow);
}

gboolean
pd_transcript_reader_update (PdTranscriptReader  *self,
                             GCancellable        *cancellable,
                             GError             **error)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return PD_TRANSCRIPT_READER_GET_IFACE (self)->update (self, cancellable, error);
}

/**
 * pd_transcript_reader_get_session:
 *
 * Returns: (transfer none): the session as read so far
 */
PdImportedSession *
pd_transcript_reader_get_session (PdTranscriptReader *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);

  return PD_TRANSCRIPT_READER_GET_IFACE (self)->get_session (self);
}

goffset
pd_transcript_reader_get_offset (PdTranscriptReader *self)
{
  PdTranscriptReaderInterface *iface;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), 0);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  return iface->get_offset != NULL ? iface->get_offset (self) : 0;
}

GPtrArray *
pd_transcript_reader_get_skipped (PdTranscriptReader *self)
{
  PdTranscriptReaderInterface *iface;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  return iface->get_skipped != NULL ? iface->get_skipped (self) : NULL;
}

void
pd_transcript_reader_resume_at (PdTranscriptReader   *self,
                                const PdImportResume *resume)
{
  PdTranscriptReaderInterface *iface;

  g_return_if_fail (PD_IS_TRANSCRIPT_READER (self));
  g_return_if_fail (resume != NULL && resume->offset >= 0);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  g_return_if_fail (iface->resume_at != NULL);
  iface->resume_at (self, resume);
}

goffset
pd_transcript_reader_get_resume_offset (PdTranscriptReader *self)
{
  PdTranscriptReaderInterface *iface;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), 0);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  if (iface->get_resume_offset != NULL)
    return iface->get_resume_offset (self);
  return pd_transcript_reader_get_offset (self);
}

gboolean
pd_transcript_reader_get_resumed_whole (PdTranscriptReader *self)
{
  PdTranscriptReaderInterface *iface;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), FALSE);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  return iface->get_resumed_whole != NULL && iface->get_resumed_whole (self);
}

static G_DEFINE_QUARK (pd-transcript-reader-source-bytes, source_bytes)

void
_pd_transcript_reader_set_source_bytes (PdTranscriptReader *self,
                                        guint64             bytes)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_READER (self));
  g_object_set_qdata (G_OBJECT (self), source_bytes_quark (), GSIZE_TO_POINTER ((gsize) MIN (bytes, G_MAXSIZE)));
}

static PdTranscriptPages *
read_into (PdTranscriptReader  *self,
           PdTranscriptPages   *new_pages,   /* (transfer full) */
           GCancellable        *cancellable,
           GError             **error);

PdTranscriptPages *
_pd_transcript_reader_read_into (PdTranscriptReader  *self,
                                 PdTranscriptPages   *pages,
                                 GCancellable        *cancellable,
                                 GError             **error)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);
  return read_into (self, pages, cancellable, error);
}

PdTranscriptPages *
pd_transcript_reader_read_pages (PdTranscriptReader  *self,
                                 GCancellable        *cancellable,
                                 GError             **error)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);
  return read_into (self, _pd_transcript_pages_new (), cancellable, error);
}

PdTranscriptPages *
pd_transcript_reader_read_history (PdTranscriptReader  *self,
                                   GCancellable        *cancellable,
                                   GError             **error)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);
  return read_into (self, _pd_transcript_pages_new_history (), cancellable, error);
}

PdTranscriptPages *
pd_transcript_reader_read_events (PdTranscriptReader  *self,
                                  GCancellable        *cancellable,
                                  GError             **error)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);
  return read_into (self, _pd_transcript_pages_new_events (), cancellable, error);
}

static PdTranscriptPages *
read_into (PdTranscriptReader  *self,
           PdTranscriptPages   *new_pages,
           GCancellable        *cancellable,
           GError             **error)
{
  PdTranscriptReaderInterface *iface;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  gboolean ok;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  pages = new_pages;
  _pd_transcript_pages_set_source_bytes (pages, GPOINTER_TO_SIZE (g_object_get_qdata (G_OBJECT (self),
                                                                                      source_bytes_quark ())));
  iface->set_pages (self, pages);
  ok = iface->update (self, cancellable, error);
  iface->set_pages (self, NULL);
  if (!ok)
    return NULL;

  argv = pd_transcript_reader_dup_resume_argv (self, &workdir);
  _pd_transcript_pages_finish (pages, iface->get_session (self), argv, workdir);
  return g_steal_pointer (&pages);
}

gboolean
_pd_transcript_reader_can_read_range (PdTranscriptReader *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), FALSE);
  return PD_TRANSCRIPT_READER_GET_IFACE (self)->set_range != NULL;
}

void
_pd_transcript_reader_set_range (PdTranscriptReader *self,
                                 goffset             from,
                                 goffset             stop)
{
  PdTranscriptReaderInterface *iface;

  g_return_if_fail (PD_IS_TRANSCRIPT_READER (self));
  g_return_if_fail (from >= 0 && stop > from);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  g_return_if_fail (iface->set_range != NULL);
  iface->set_range (self, from, stop);
}

GStrv
pd_transcript_reader_dup_resume_argv (PdTranscriptReader  *self,
                                      char               **workdir)
{
  PdTranscriptReaderInterface *iface;
  const char *cwd;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_READER (self), NULL);

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self);
  cwd = pd_imported_session_get_cwd (iface->get_session (self));
  if (workdir != NULL)
    *workdir = cwd != NULL && g_path_is_absolute (cwd) ? g_strdup (cwd) : NULL;
  return iface->dup_resume_argv != NULL ? iface->dup_resume_argv (self) : NULL;
}

/* ---------------------------------------------------------------------- */
/* Readers by format                                                      */

static PdTranscriptReader *
new_claude (const char *path,
            const char *agent_id)
{
  PdClaudeCodeReader *reader = pd_claude_code_reader_new (path);

  /* Claude Code 2.0 wrote subagent transcripts beside the session. */
  pd_claude_code_reader_add_flat_subagents (reader, NULL);
  return PD_TRANSCRIPT_READER (reader);
}

static PdTranscriptReader *
new_codex (const char *path,
           const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_codex_reader_new (path));
}

static PdTranscriptReader *
new_opencode_db (const char *path,
                 const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_opencode_reader_new (path, PD_OPENCODE_STORE_DATABASE, agent_id));
}

static PdTranscriptReader *
new_opencode_storage (const char *path,
                      const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_opencode_reader_new (path, PD_OPENCODE_STORE_TREE, agent_id));
}

static PdTranscriptReader *
new_qwen (const char *path,
          const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_qwen_reader_new (path));
}

static PdTranscriptReader *
new_gemini (const char *path,
            const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_gemini_reader_new (path, FALSE));
}

static PdTranscriptReader *
new_gemini_json (const char *path,
                 const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_gemini_reader_new (path, TRUE));
}

static PdTranscriptReader *
new_cline (const char *path,
           const char *agent_id)
{
  return PD_TRANSCRIPT_READER (pd_cline_reader_new (path));
}

/* The format names are those of the import index's rows: never renamed.
 * Those that resume have readers that implement resume_at. */
static const struct
{
  const char          *format;
  PdTranscriptReader *(*new) (const char *path,
                              const char *agent_id);
  gboolean             resumes;
} readers[] = {
  { "claude",           new_claude,           FALSE },
  { "codex",            new_codex,            FALSE },
  { "opencode-db",      new_opencode_db,      FALSE },
  { "opencode-storage", new_opencode_storage, FALSE },
  { "qwen",             new_qwen,             TRUE },
  { "gemini",           new_gemini,           TRUE },
  { "gemini-json",      new_gemini_json,      FALSE },
  { "cline",            new_cline,            FALSE },
};

gboolean
pd_transcript_reader_format_resumes (const char *format)
{
  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    if (g_strcmp0 (readers[i].format, format) == 0)
      return readers[i].resumes;
  return FALSE;
}

PdTranscriptReader *
pd_transcript_reader_new_for_format (const char  *format,
                                     const char  *path,
                                     const char  *agent_id,
                                     GError     **error)
{
  g_return_val_if_fail (format != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    if (strcmp (readers[i].format, format) == 0)
      return readers[i].new (path, agent_id);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               "No reader knows transcripts of the format “%s” (%s); a newer Plandeck may", format, path);
  return NULL;
}

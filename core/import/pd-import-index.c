/* pd-import-index.c: other agents' transcripts in the session index: the
 * units pd-import-unit.c finds are read (in parallel) and their rows stored.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pd-claude-code-reader-private.h"
#include "pd-codex-reader.h"
#include "pd-codex-reader-private.h"
#include "pd-import-index.h"
#include "pd-import-index-private.h"
#include "pd-import-unit-private.h"
#include "pd-import-private.h"
#include "pd-import-skip.h"
#include "pd-jsonl-reader.h"
#include "pd-opencode-reader.h"
#include "pd-opencode-reader-private.h"
#include "pd-redact.h"
#include "pd-transcript-reader.h"


/* The plan counts an earlier process stored for a transcript this one
 * reads on from where that one ended: they stand until the reader applies
 * a list of its own (the index keeps no plan text to rebuild the list). */
typedef struct
{
  guint applied;      /* the reader's applied updates when it was resumed */
  guint done;
  guint total;
  guint hidden;
} KeptPlan;

struct _PdImportIndex
{
  GObject     parent_instance;

  GMutex      lock;     /* one run at a time; guards readers and skipped */
  GHashTable *readers;  /* path → PdTranscriptReader */
  GHashTable *kept;     /* path → KeptPlan: a reader resumed from the database that read no list yet */
  GHashTable *identities;  /* path → the identity of the file its reader reads, with its size and change time when last read */
  GPtrArray  *skipped;  /* PdImportSkip: the files the last run passed over */
};

G_DEFINE_FINAL_TYPE (PdImportIndex, pd_import_index, G_TYPE_OBJECT)

static void
pd_import_index_finalize (GObject *object)
{
  PdImportIndex *self = PD_IMPORT_INDEX (object);

  g_clear_pointer (&self->readers, g_hash_table_unref);
  g_clear_pointer (&self->kept, g_hash_table_unref);
  g_clear_pointer (&self->identities, g_hash_table_unref);
  g_clear_pointer (&self->skipped, g_ptr_array_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (pd_import_index_parent_class)->finalize (object);
}

static void
pd_import_index_class_init (PdImportIndexClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_import_index_finalize;
}

static void
pd_import_index_init (PdImportIndex *self)
{
  g_mutex_init (&self->lock);
  self->readers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->identities = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->skipped = pd_import_skips_new ();
}

PdImportIndex *
pd_import_index_new (void)
{
  return g_object_new (PD_TYPE_IMPORT_INDEX, NULL);
}

/* The format name of an OpenCode unit's rows (transcript files take their
 * reader's). */
static const char *
opencode_format (const PdImportUnit *unit)
{
  return unit->kind == PD_IMPORT_UNIT_OPENCODE_DB ? "opencode-db" : "opencode-storage";
}

char *
pd_import_index_session_id (const char *format,
                            const char *path,
                            const char *agent_id,
                            gint64      created_at)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_MD5);
  g_autoptr(GDateTime) date = NULL;
  g_autofree char *day = NULL;

  g_return_val_if_fail (format != NULL && path != NULL, NULL);

  /* The format family, not the source: a Claude Code session that turns out
   * to be the desktop app's keeps its id. */
  g_checksum_update (checksum, (const guchar *) format, -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, (const guchar *) path, -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, (const guchar *) (agent_id ? agent_id : ""), -1);

  date = g_date_time_new_from_unix_utc (MAX (created_at, 0) / G_USEC_PER_SEC);
  day = date ? g_date_time_format (date, "%Y%m%d") : g_strdup ("19700101");
  return g_strdup_printf ("%s-%s", day, g_checksum_get_string (checksum));
}

/* ---------------------------------------------------------------------- */
/* The rows                                                               */

static gboolean
unit_is_unchanged (PdSessionStore  *store,
                   const PdImportUnit      *unit,
                   guint           *n_sessions,
                   GError         **error)
{
  return pd_session_store_import_is_unchanged (store, unit->path, unit->size, unit->mtime, unit->deps, n_sessions,
                                               error);
}

static gboolean
upsert_session (PdSessionStore     *store,
                const PdImportUnit         *unit,
                const char         *format,
                const char         *agent_id,
                goffset             offset,
                const KeptPlan     *kept,
                PdImportedSession  *session,
                GPtrArray          *changed_ids,
                PdImportIndexStats *stats,
                GError            **error)
{
  const PdImportStats *st = pd_imported_session_get_stats (session);
  PdChecklist *checklist = pd_imported_session_get_checklist (session);
  g_autoptr(GError) local = NULL;
  g_autofree char *id = NULL;
  g_autofree char *title = NULL;
  PdImportedSummary summary = { 0 };
  PdImportRecord record = { 0 };
  gboolean added = FALSE;

  summary.created_at = pd_imported_session_get_created_at (session);
  summary.updated_at = pd_imported_session_get_updated_at (session);
  if (summary.created_at <= 0)
    summary.created_at = unit->mtime;
  if (summary.updated_at <= 0)
    summary.updated_at = MAX (summary.created_at, unit->mtime);
  /* The title is the user's first prompt or the agent's summary, never
   * plan text; it is redacted like every stored text. */
  title = pd_redact (pd_imported_session_get_title (session) ? pd_imported_session_get_title (session) : "", NULL);
  summary.title = title;
  summary.source = pd_import_source_to_string (pd_imported_session_get_source (session));
  summary.cwd = pd_imported_session_get_cwd (session);

  if (!(id = pd_session_store_find_import (store, unit->path, agent_id, &local)))
    {
      if (local != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      id = pd_import_index_session_id (format, unit->path, agent_id, summary.created_at);
    }

  /* The pill counts both sections, with the user's overrides (a session
   * not stored yet has none). */
  if (!_pd_import_index_apply_annotations (store, id, checklist, &local))
    {
      if (!g_error_matches (local, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_clear_error (&local);
    }
  pd_checklist_count (checklist, &summary.plan_done, &summary.plan_total, NULL);
  summary.plan_hidden = pd_checklist_get_n_hidden_agent_items (checklist);
  if (kept != NULL)
    {
      summary.plan_done = kept->done;
      summary.plan_total = kept->total;
      summary.plan_hidden = kept->hidden;
    }

  record.path = unit->path;
  record.agent_id = agent_id;
  record.format = format;
  record.size = unit->size;
  record.mtime = unit->mtime;
  record.deps = unit->deps;
  record.read_offset = offset;
  record.lines = (gint64) st->lines;
  record.skipped_lines = (gint64) st->skipped_lines;
  record.applied_updates = st->applied_updates;
  record.ignored_updates = st->ignored_updates;
  if (!pd_session_store_save_import (store, id, &summary, &record, &added, error))
    return FALSE;
  if (added)
    stats->sessions_added++;
  else
    stats->sessions_updated++;

  if (changed_ids != NULL)
    g_ptr_array_add (changed_ids, g_steal_pointer (&id));
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                */

static char *
session_name_of (const char *path)
{
  char *base = g_path_get_basename (path);

  if (g_str_has_suffix (base, ".jsonl"))
    base[strlen (base) - strlen (".jsonl")] = '\0';
  return base;
}

/* Reading one transcript file is a job: prepared on the run's thread (the
 * reader found or made), read on a worker (files are read in parallel,
 * each by one worker), finished on the run's thread again (the row). */
typedef struct
{
  PdImportUnit               *unit;
  PdTranscriptReader *reader;   /* a ref; NULL: a file new to this index, looked at by the worker */
  gboolean            looked;   /* the worker recognised the file and made its reader */
  PdImportFormat      format;   /* what the look found */
  gboolean            with_parent;  /* a flat subagent transcript, read with its parent */
  GError             *look_error;   /* unreadable, or no longer a regular file */
  goffset             before;
  guint64             lines_before;
  guint64             bytes_before;
  gboolean            ok;
  GError             *error;
} Job;

static void
job_free (Job *job)
{
  g_clear_object (&job->reader);
  g_clear_error (&job->error);
  g_clear_error (&job->look_error);
  g_free (job);
}

/* Whether the file has a line end just before @offset: what an
 * append-only transcript read up to there still has. */
static gboolean
line_ends_before (const char *path,
                  goffset     offset)
{
  char c = 0;
  int fd;
  gboolean ok;

  if (offset <= 0 || (fd = _pd_jsonl_open (path, NULL)) < 0)
    return FALSE;
  ok = pread (fd, &c, 1, offset - 1) == 1 && c == '\n';
  close (fd);
  return ok;
}

/* A session of a format only appended to (Qwen Code, Gemini CLI's JSON
 * lines) an earlier process read (it kept where it ended): a reader that
 * reads on from there, with the facts stored, instead of the whole file
 * again.  One that has not grown (it is here because it changed: rewritten
 * in place), a file shorter than what was read, or one without a line end
 * there, is read again whole (and a reader may read the whole file again
 * itself when what follows may reach back: pd_transcript_reader_resume_at()). */
static PdTranscriptReader *
resume_from_store (PdImportIndex  *self,
                   PdSessionStore *store,
                   PdImportUnit           *unit,
                   goffset        *before)
{
  PdImportState state;
  PdTranscriptReader *reader = NULL;
  KeptPlan *kept;

  if (!pd_session_store_get_import_state (store, unit->path, "", &state, NULL))
    return NULL;
  if (pd_transcript_reader_format_resumes (state.format)
      && state.read_offset > 0 && state.read_offset <= unit->size
      && state.size < unit->size && line_ends_before (unit->path, state.read_offset)
      && (reader = pd_transcript_reader_new_for_format (state.format, unit->path, NULL, NULL)) != NULL)
    {
      PdImportResume resume = {
        .offset = state.read_offset,
        .title = state.title,
        .cwd = state.cwd,
        .created_at = state.created_at,
        .updated_at = state.updated_at,
        .counts = {
          .lines = (guint64) MAX (state.lines, 0),
          .skipped_lines = (guint64) MAX (state.skipped_lines, 0),
          .applied_updates = (guint) MAX (state.applied_updates, 0),
          .ignored_updates = (guint) MAX (state.ignored_updates, 0),
        },
      };

      pd_transcript_reader_resume_at (reader, &resume);
      kept = g_new0 (KeptPlan, 1);
      kept->applied = resume.counts.applied_updates;
      kept->done = state.plan_done;
      kept->total = state.plan_total;
      kept->hidden = state.plan_hidden;
      g_hash_table_replace (self->kept, g_strdup (unit->path), kept);
      *before = state.read_offset;
    }
  pd_import_state_clear (&state);
  return reader;
}

/* What the index saw of a file: "device:inode size ctime". */
static char *
unit_seen (const PdImportUnit *unit)
{
  return g_strdup_printf ("%s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT, unit->identity ? unit->identity : "",
                          unit->size, unit->ctime);
}

/* Whether @now is the file @known was, grown or not: the same inode, and
 * at another size or with the same change time (the same size with
 * another change time is a rewrite in place, as Cline, Roo and Kilo save
 * a task, which a reader that goes on from where it ended would miss). */
static gboolean
same_file_seen (const char *known,
                const char *now)
{
  const char *known_size, *now_size, *known_ctime, *now_ctime;

  if (known == NULL || now == NULL || !(known_size = strchr (known, ' ')) || !(now_size = strchr (now, ' '))
      || known_size - known != now_size - now || strncmp (known, now, (gsize) (now_size - now)) != 0)
    return FALSE;
  known_ctime = strchr (known_size + 1, ' ');
  now_ctime = strchr (now_size + 1, ' ');
  if (known_ctime == NULL || now_ctime == NULL)
    return FALSE;
  /* Another size: grown (a shorter file is caught by its offset). */
  if (known_ctime - known_size != now_ctime - now_size || strncmp (known_size, now_size, (gsize) (now_ctime - now_size)) != 0)
    return TRUE;
  return strcmp (known_ctime, now_ctime) == 0;
}

static Job *
prepare_jsonl (PdImportIndex      *self,
               PdSessionStore     *store,
               PdImportUnit       *unit)
{
  PdTranscriptReader *reader = g_hash_table_lookup (self->readers, unit->path);
  g_autofree char *seen = unit_seen (unit);
  goffset before = 0;
  Job *job;

  if (reader != NULL)
    {
      const char *known = g_hash_table_lookup (self->identities, unit->path);

      before = pd_transcript_reader_get_offset (reader);
      /* Shorter than what was read, or another file renamed over it (a
       * rewrite as editors and agents save, tried as an attacker would:
       * read as if it had grown, the old list stayed), or rewritten in
       * place to the same size: read again. */
      if (unit->size < before || !same_file_seen (known, seen))
        {
          g_hash_table_remove (self->readers, unit->path);
          g_hash_table_remove (self->kept, unit->path);
          reader = NULL;
          before = 0;
        }
    }
  else if ((reader = resume_from_store (self, store, unit, &before)) != NULL)
    {
      pd_transcript_reader_set_follow (reader, TRUE);
      g_hash_table_replace (self->readers, g_strdup (unit->path), reader);
      g_hash_table_replace (self->identities, g_strdup (unit->path), g_strdup (seen));
    }

  if (reader != NULL)
    g_hash_table_replace (self->identities, g_strdup (unit->path), g_steal_pointer (&seen));
  job = g_new0 (Job, 1);
  job->unit = unit;
  if (reader == NULL)
    {
      /* Looked at, its reader made and read by the worker (the file is
       * opened once, there); kept by finish_jsonl(). */
      return job;
    }
  job->reader = g_object_ref (reader);
  job->before = before;
  job->lines_before = pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->lines;
  job->bytes_before = pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->bytes_read;
  return job;
}

/* A file new to this index: what it is, and its reader, on the worker
 * (the file's look, and the read on from it). */
static void
look_job (Job *job)
{
  const PdImportUnit *unit = job->unit;
  g_autofree char *parent = NULL;
  g_autofree char *name = session_name_of (unit->path);
  g_autoptr(PdJsonlReader) opened = NULL;

  job->format = _pd_import_sniff_jsonl_open (unit->path, &parent, &opened, &job->look_error);
  if (job->look_error != NULL || job->format == PD_IMPORT_FORMAT_UNKNOWN)
    return;
  /* A flat subagent transcript whose parent is beside it is read with
   * the parent; one whose parent is gone is a session of its own. */
  if (job->format == PD_IMPORT_FORMAT_CLAUDE && unit->agents != NULL && g_str_has_prefix (name, "agent-") && parent != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (unit->path);
      g_autofree char *parent_name = g_strconcat (parent, ".jsonl", NULL);
      g_autofree char *parent_path = g_build_filename (dir, parent_name, NULL);

      if ((job->with_parent = g_file_test (parent_path, G_FILE_TEST_IS_REGULAR)))
        return;
    }
  if (job->format == PD_IMPORT_FORMAT_CODEX)
    {
      PdCodexReader *codex = pd_codex_reader_new (unit->path);

      _pd_codex_reader_take_opened (codex, g_steal_pointer (&opened));
      job->reader = PD_TRANSCRIPT_READER (codex);
    }
  else if (job->format != PD_IMPORT_FORMAT_CLAUDE)
    job->reader = pd_transcript_reader_new_for_format (_pd_import_format_name (job->format), unit->path, NULL, NULL);
  else
    {
      PdClaudeCodeReader *claude = pd_claude_code_reader_new (unit->path);

      if (unit->agents != NULL)
        pd_claude_code_reader_add_flat_subagents (claude, unit->agents);
      _pd_claude_code_reader_take_opened (claude, g_steal_pointer (&opened));
      job->reader = PD_TRANSCRIPT_READER (claude);
    }
  /* Kept for the next run, which then reads only what was appended. */
  pd_transcript_reader_set_follow (job->reader, TRUE);
  job->looked = TRUE;
}

static void
run_job (Job          *job,
         GCancellable *cancellable)
{
  if (job->reader == NULL)
    look_job (job);
  if (job->reader != NULL)
    job->ok = pd_transcript_reader_update (job->reader, cancellable, &job->error);
}

static void
run_job_in_thread (gpointer job,
                   gpointer cancellable)
{
  run_job (job, cancellable);
}

/* Reads the files of @jobs, on as many threads as there are processors. */
static void
run_jobs (GPtrArray    *jobs,
          GCancellable *cancellable)
{
  _pd_import_run_parallel (jobs, run_job_in_thread, cancellable);
}

static gboolean
finish_jsonl (PdImportIndex       *self,
              PdSessionStore      *store,
              Job                 *job,
              GPtrArray           *changed_ids,
              GPtrArray           *skipped,
              PdImportIndexStats  *stats,
              GError             **error)
{
  const PdImportUnit *unit = job->unit;
  PdImportedSession *session;
  const KeptPlan *kept;
  goffset offset;

  /* Passed over by its look: see passed_over(). */
  if (job->reader == NULL)
    return TRUE;
  if (job->looked)
    {
      g_hash_table_replace (self->readers, g_strdup (unit->path), g_object_ref (job->reader));
      g_hash_table_replace (self->identities, g_strdup (unit->path), unit_seen (unit));
    }
  session = pd_transcript_reader_get_session (job->reader);

  if (!job->ok)
    {
      g_hash_table_remove (self->readers, unit->path);
      g_hash_table_remove (self->kept, unit->path);
      if (g_error_matches (job->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_steal_pointer (&job->error));
          return FALSE;
        }
      _pd_import_skip_add_error (skipped, unit->path, job->error);
      stats->failed++;
      return TRUE;
    }

  {
    GPtrArray *more = pd_transcript_reader_get_skipped (job->reader);

    for (guint i = 0; more && i < more->len; i++)
      g_ptr_array_add (skipped, pd_import_skip_copy (g_ptr_array_index (more, i)));
  }

  /* Where another process may read on from (0: from the start). */
  offset = pd_transcript_reader_get_resume_offset (job->reader);
  /* A resumed read that had to read the whole file again: a full read,
   * whose counts are its own. */
  if (pd_transcript_reader_get_resumed_whole (job->reader))
    {
      job->before = 0;
      job->lines_before = 0;
      g_hash_table_remove (self->kept, unit->path);
    }
  if (job->before > 0)
    stats->read_appended++;
  else
    stats->read_full++;
  /* What the reader read, which is less than the offset moved when a long
   * transcript's middle was skipped. */
  stats->bytes_read += pd_imported_session_get_stats (session)->bytes_read - job->bytes_before;
  stats->lines_read += pd_imported_session_get_stats (session)->lines - job->lines_before;

  /* An empty file is not a session (yet). */
  if (pd_imported_session_get_stats (session)->lines == 0)
    return TRUE;
  kept = g_hash_table_lookup (self->kept, unit->path);
  if (kept != NULL && pd_imported_session_get_stats (session)->applied_updates != kept->applied)
    {
      /* A list of its own: its counts from now on. */
      g_hash_table_remove (self->kept, unit->path);
      kept = NULL;
    }
  return upsert_session (store, unit, pd_transcript_reader_get_format (job->reader), "", offset, kept, session,
                         changed_ids, stats, error);
}

/* A file new to this index its look passed over: said before what the
 * reads pass over, as when the look was made before them. */
static void
passed_over (Job                *job,
             GPtrArray          *skipped,
             PdImportIndexStats *stats)
{
  const PdImportUnit *unit = job->unit;

  if (job->reader != NULL)
    return;
  if (job->look_error != NULL)
    {
      /* Unreadable (permissions), or no longer a regular file. */
      _pd_import_skip_add_error (skipped, unit->path, job->look_error);
      stats->failed++;
    }
  else if (job->format == PD_IMPORT_FORMAT_UNKNOWN)
    {
      /* Not a transcript: named among the skipped files, not counted as
       * one (the counts of the summary add up to the transcripts). */
      _pd_import_skip_add (skipped, unit->path, unit->size == 0 ? "empty" : "not a transcript of a known agent");
      stats->transcripts--;
    }
  else
    /* Read with its parent. */
    stats->transcripts--;
}

static gboolean
read_opencode_unit (PdSessionStore      *store,
                    const PdImportUnit          *unit,
                    GPtrArray           *changed_ids,
                    GPtrArray           *skipped,
                    PdImportIndexStats  *stats,
                    GCancellable        *cancellable,
                    GError             **error)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) local = NULL;

  if (unit->kind == PD_IMPORT_UNIT_OPENCODE_DB)
    sessions = pd_opencode_read_database (unit->path, cancellable, &local);
  else
    sessions = _pd_opencode_read_storage_full (unit->path, skipped, cancellable, &local);
  if (sessions == NULL)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      _pd_import_skip_add_error (skipped, unit->path, local);
      stats->failed++;
      return TRUE;
    }

  stats->read_full++;
  stats->bytes_read += (guint64) unit->size;
  for (guint i = 0; i < sessions->len; i++)
    {
      PdImportedSession *session = g_ptr_array_index (sessions, i);
      const char *agent_id = pd_imported_session_get_id (session);

      stats->lines_read += pd_imported_session_get_stats (session)->lines;
      if (!upsert_session (store, unit, opencode_format (unit), agent_id ? agent_id : "", 0, NULL,
                           session, changed_ids, stats, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
index_units (PdImportIndex       *self,
             PdSessionStore      *store,
             GPtrArray           *units,
             GPtrArray           *changed_ids,
             GPtrArray           *skipped,
             PdImportIndexStats  *stats,
             GCancellable        *cancellable,
             GError             **error)
{
  PdDb *db = pd_session_store_get_db (store);
  g_autoptr(GPtrArray) todo = g_ptr_array_new ();   /* PdImportUnit, to read */
  g_autoptr(GHashTable) jobs = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) job_free);
  g_autoptr(GPtrArray) job_list = g_ptr_array_new ();
  gboolean in_transaction = FALSE;
  gboolean ok = TRUE;

  /* What changed, from the index alone: unchanged files are not opened.
   * One transaction for all the looks (a few milliseconds), not a lock
   * of the database file per statement. */
  if (units->len > 1 && !pd_db_is_read_only (db))
    {
      if (!pd_db_begin (db, error))
        return FALSE;
      in_transaction = TRUE;
    }
  for (guint i = 0; i < units->len; i++)
    {
      PdImportUnit *unit = g_ptr_array_index (units, i);
      g_autoptr(GError) local = NULL;
      guint n_sessions = 0;

      stats->transcripts++;
      if (unit_is_unchanged (store, unit, &n_sessions, &local))
        {
          stats->unchanged++;
          stats->sessions_unchanged += n_sessions;
          continue;
        }
      if (local != NULL)
        {
          if (in_transaction)
            pd_db_rollback (db);
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      if (unit->kind == PD_IMPORT_UNIT_JSONL)
        {
          Job *job = prepare_jsonl (self, store, unit);

          g_hash_table_insert (jobs, unit, job);
          g_ptr_array_add (job_list, job);
        }
      g_ptr_array_add (todo, unit);
    }

  if (in_transaction && !pd_db_commit (db, error))
    return FALSE;
  in_transaction = FALSE;

  /* The transcript files, looked at and read in parallel. */
  run_jobs (job_list, cancellable);
  for (guint i = 0; i < job_list->len; i++)
    passed_over (g_ptr_array_index (job_list, i), skipped, stats);

  /* The rows, in order, in one transaction: one commit per import (the
   * reads are done; what is left is the rows, quick).  The new sessions'
   * full-text rows are written together at its end (one statement, not
   * one FTS5 segment each), before the commit: a session is never there
   * without its row. */
  for (guint i = 0; ok && i < todo->len; i++)
    {
      PdImportUnit *unit = g_ptr_array_index (todo, i);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      /* begin holds the connection's lock until commit or rollback. */
      if (!in_transaction)
        {
          if (!(ok = in_transaction = pd_db_begin (db, error)))
            break;
          if (!(ok = pd_session_store_import_batch_begin (store, error)))
            break;
        }

      if (unit->kind == PD_IMPORT_UNIT_JSONL)
        ok = finish_jsonl (self, store, g_hash_table_lookup (jobs, unit), changed_ids, skipped, stats, error);
      else
        ok = read_opencode_unit (store, unit, changed_ids, skipped, stats, cancellable, error);
    }

  if (in_transaction)
    {
      if (ok)
        ok = pd_session_store_import_batch_end (store, error) && pd_db_commit (db, error);
      else
        pd_db_rollback (db);
    }
  return ok;
}

static gboolean
run_roots (PdImportIndex       *self,
           PdSessionStore      *store,
           const char * const  *roots,
           const struct stat   *queued,
           gboolean             missing_is_error,
           GPtrArray           *changed_ids,
           PdImportIndexStats  *stats,
           GCancellable        *cancellable,
           GError             **error)
{
  g_autoptr(GPtrArray) units = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_import_unit_free);
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  PdImportIndexStats local_stats = { 0 };
  gboolean ok;

  for (guint i = 0; roots[i]; i++)
    {
      g_autofree char *path = g_canonicalize_filename (roots[i], NULL);

      g_autoptr(GError) local = NULL;

      if (!missing_is_error && !g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      if (queued != NULL ? _pd_import_discover_watched (path, queued, units, skipped, cancellable, &local)
                         : _pd_import_discover_path (path, units, skipped, cancellable, &local))
        continue;
      /* A path named is read or said failing; an agent's default folder that
       * is not one (a FIFO, say) is skipped with its reason, as `import`
       * does: it stopped the window's read of every other agent (tried as an
       * attacker would). */
      if (missing_is_error || g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      _pd_import_skip_add_error (skipped, path, local);
    }

  g_mutex_lock (&self->lock);
  ok = index_units (self, store, units, changed_ids, skipped, &local_stats, cancellable, error);
  local_stats.skipped = skipped->len;
  g_ptr_array_unref (self->skipped);
  self->skipped = g_steal_pointer (&skipped);
  g_mutex_unlock (&self->lock);

  if (stats)
    *stats = local_stats;
  return ok;
}

gboolean
pd_import_index_run_paths (PdImportIndex       *self,
                           PdSessionStore      *store,
                           const char * const  *paths,
                           PdImportIndexStats  *stats,
                           GCancellable        *cancellable,
                           GError             **error)
{
  g_return_val_if_fail (PD_IS_IMPORT_INDEX (self), FALSE);
  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (paths != NULL, FALSE);

  return run_roots (self, store, paths, NULL, TRUE, NULL, stats, cancellable, error);
}

static gboolean
run_scanner (PdImportIndex       *self,
             PdSessionStore      *store,
             PdImportScanner     *scanner,
             PdImportIndexStats  *stats,
             GCancellable        *cancellable,
             GError             **error)
{
  g_autoptr(PdImportScanner) own = scanner ? g_object_ref (scanner) : pd_import_scanner_new ();
  g_auto(GStrv) roots = pd_import_scanner_dup_roots (own);

  return run_roots (self, store, (const char * const *) roots, NULL, FALSE, NULL, stats, cancellable, error);
}

gboolean
pd_import_index_run (PdImportIndex       *self,
                     PdSessionStore      *store,
                     PdImportScanner     *scanner,
                     PdImportIndexStats  *stats,
                     GError             **error)
{
  g_return_val_if_fail (PD_IS_IMPORT_INDEX (self), FALSE);
  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (scanner == NULL || PD_IS_IMPORT_SCANNER (scanner), FALSE);

  return run_scanner (self, store, scanner, stats, NULL, error);
}

typedef struct
{
  PdSessionStore     *store;
  PdImportScanner    *scanner;
  PdImportIndexStats  stats;
} RunData;

static void
run_data_free (RunData *data)
{
  g_clear_object (&data->store);
  g_clear_object (&data->scanner);
  g_free (data);
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  RunData *data = task_data;
  GError *error = NULL;

  if (run_scanner (source_object, data->store, data->scanner, &data->stats, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
pd_import_index_run_async (PdImportIndex       *self,
                           PdSessionStore      *store,
                           PdImportScanner     *scanner,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  RunData *data;

  g_return_if_fail (PD_IS_IMPORT_INDEX (self));
  g_return_if_fail (PD_IS_SESSION_STORE (store));

  data = g_new0 (RunData, 1);
  data->store = g_object_ref (store);
  data->scanner = scanner ? g_object_ref (scanner) : NULL;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_import_index_run_async);
  g_task_set_task_data (task, data, (GDestroyNotify) run_data_free);
  g_task_run_in_thread (task, run_thread);
}

gboolean
pd_import_index_run_finish (PdImportIndex       *self,
                            GAsyncResult        *result,
                            PdImportIndexStats  *stats,
                            GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  if (stats)
    *stats = ((RunData *) g_task_get_task_data (G_TASK (result)))->stats;
  return TRUE;
}

/**
 * pd_import_index_get_skipped:
 *
 * The files the last run passed over, each with its reason: not a regular
 * file (a FIFO, a socket), a symbolic link, unreadable, of no known agent,
 * failed to read.
 *
 * Returns: (transfer full) (element-type PdImportSkip): a copy
 */
GPtrArray *
pd_import_index_get_skipped (PdImportIndex *self)
{
  GPtrArray *copy = pd_import_skips_new ();

  g_return_val_if_fail (PD_IS_IMPORT_INDEX (self), copy);

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->skipped->len; i++)
    g_ptr_array_add (copy, pd_import_skip_copy (g_ptr_array_index (self->skipped, i)));
  g_mutex_unlock (&self->lock);
  return copy;
}

gboolean
_pd_import_index_update_file (PdImportIndex       *self,
                              PdSessionStore      *store,
                              const char          *path,
                              const struct stat   *queued,
                              GPtrArray           *changed_ids,
                              PdImportIndexStats  *stats,
                              GCancellable        *cancellable,
                              GError             **error)
{
  const char *roots[] = { path, NULL };

  g_return_val_if_fail (PD_IS_IMPORT_INDEX (self), FALSE);

  /* Gone between the event and now: nothing to do. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  return run_roots (self, store, roots, queued, TRUE, changed_ids, stats, cancellable, error);
}

GPtrArray *
_pd_import_index_list_paths (PdSessionStore  *store,
                             GError         **error)
{
  return pd_session_store_list_import_paths (store, FALSE, error);
}

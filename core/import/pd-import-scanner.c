/* pd-import-scanner.c: finds other agents' transcripts and reads them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-claude-code-reader.h"
#include "pd-claude-code-reader-private.h"
#include "pd-codex-reader.h"
#include "pd-codex-reader-private.h"
#include "pd-import-private.h"
#include "pd-import-scanner.h"
#include "pd-import-skip.h"
#include "pd-jsonl-reader.h"
#include "pd-opencode-reader.h"
#include "pd-opencode-reader-private.h"
#include "pd-task-util.h"
#include "pd-transcript-reader.h"

#define MAX_DEPTH 8

struct _PdImportScanner
{
  GObject  parent_instance;

  char    *claude_dir;
  char    *codex_dir;
  char    *opencode_dir;
  char    *qwen_dir;
  char    *gemini_dir;
  char    *vscode_dir;   /* (nullable) NULL: every editor's default */
  char    *kilo_dir;
};

G_DEFINE_FINAL_TYPE (PdImportScanner, pd_import_scanner, G_TYPE_OBJECT)

static void
pd_import_scanner_finalize (GObject *object)
{
  PdImportScanner *self = PD_IMPORT_SCANNER (object);

  g_free (self->claude_dir);
  g_free (self->codex_dir);
  g_free (self->opencode_dir);
  g_free (self->qwen_dir);
  g_free (self->gemini_dir);
  g_free (self->vscode_dir);
  g_free (self->kilo_dir);

  G_OBJECT_CLASS (pd_import_scanner_parent_class)->finalize (object);
}

static void
pd_import_scanner_class_init (PdImportScannerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_import_scanner_finalize;
}

/* The user's data and config folders as the agents see them.  Inside a
 * Flatpak sandbox GLib's XDG folders are the app's own (~/.var/app/…),
 * where no agent writes: there the host's folders are read from the
 * HOST_XDG_* variables Flatpak passes, or their defaults under home. */
static char *
host_xdg_dir (const char *host_variable,
              const char *home_relative,
              const char *own)
{
  const char *host;

  if (!g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    return g_strdup (own);
  host = g_getenv (host_variable);
  if (host != NULL && g_path_is_absolute (host))
    return g_strdup (host);
  return g_build_filename (g_get_home_dir (), home_relative, NULL);
}

static char *
default_claude_dir (void)
{
  const char *config = g_getenv ("CLAUDE_CONFIG_DIR");

  if (config && *config)
    return g_build_filename (config, "projects", NULL);
  return g_build_filename (g_get_home_dir (), ".claude", "projects", NULL);
}

static char *
default_codex_dir (void)
{
  const char *home = g_getenv ("CODEX_HOME");

  if (home && *home)
    return g_strdup (home);
  return g_build_filename (g_get_home_dir (), ".codex", NULL);
}

static char *
default_opencode_dir (void)
{
  g_autofree char *data = host_xdg_dir ("HOST_XDG_DATA_HOME", ".local/share", g_get_user_data_dir ());

  return g_build_filename (data, "opencode", NULL);
}

/* Qwen Code: ~/.qwen/projects/<slug>/chats/<id>.jsonl. */
static char *
default_qwen_dir (void)
{
  return g_build_filename (g_get_home_dir (), ".qwen", "projects", NULL);
}

/* Gemini CLI: ~/.gemini/tmp/<project>/chats/session-*.jsonl (.json before
 * v0.39). */
static char *
default_gemini_dir (void)
{
  return g_build_filename (g_get_home_dir (), ".gemini", "tmp", NULL);
}

/* Kilo Code's CLI keeps OpenCode's storage: ~/.local/share/kilo/kilo.db. */
static char *
default_kilo_dir (void)
{
  g_autofree char *data = host_xdg_dir ("HOST_XDG_DATA_HOME", ".local/share", g_get_user_data_dir ());

  return g_build_filename (data, "kilo", NULL);
}

static void
pd_import_scanner_init (PdImportScanner *self)
{
  self->claude_dir = default_claude_dir ();
  self->codex_dir = default_codex_dir ();
  self->opencode_dir = default_opencode_dir ();
  self->qwen_dir = default_qwen_dir ();
  self->gemini_dir = default_gemini_dir ();
  self->kilo_dir = default_kilo_dir ();
}

PdImportScanner *
pd_import_scanner_new (void)
{
  return g_object_new (PD_TYPE_IMPORT_SCANNER, NULL);
}

void
pd_import_scanner_set_claude_dir (PdImportScanner *self,
                                  const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->claude_dir);
  self->claude_dir = dir ? g_strdup (dir) : default_claude_dir ();
}

void
pd_import_scanner_set_codex_dir (PdImportScanner *self,
                                 const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->codex_dir);
  self->codex_dir = dir ? g_strdup (dir) : default_codex_dir ();
}

void
pd_import_scanner_set_opencode_dir (PdImportScanner *self,
                                    const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->opencode_dir);
  self->opencode_dir = dir ? g_strdup (dir) : default_opencode_dir ();
}

void
pd_import_scanner_set_qwen_dir (PdImportScanner *self,
                                const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->qwen_dir);
  self->qwen_dir = dir ? g_strdup (dir) : default_qwen_dir ();
}

const char *
pd_import_scanner_get_qwen_dir (PdImportScanner *self)
{
  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);
  return self->qwen_dir;
}

void
pd_import_scanner_set_gemini_dir (PdImportScanner *self,
                                  const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->gemini_dir);
  self->gemini_dir = dir ? g_strdup (dir) : default_gemini_dir ();
}

const char *
pd_import_scanner_get_gemini_dir (PdImportScanner *self)
{
  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);
  return self->gemini_dir;
}

void
pd_import_scanner_set_vscode_dir (PdImportScanner *self,
                                  const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->vscode_dir);
  self->vscode_dir = g_strdup (dir);
}

void
pd_import_scanner_set_kilo_dir (PdImportScanner *self,
                                const char      *dir)
{
  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));
  g_free (self->kilo_dir);
  self->kilo_dir = dir ? g_strdup (dir) : default_kilo_dir ();
}

/* The VS Code extensions' task folders, <globalStorage>/<extension>/tasks,
 * under the editor folder given or each editor's own. */
static void
add_task_roots (PdImportScanner *self,
                GPtrArray       *roots)
{
  static const char * const editors[] = { "Code", "Code - OSS", "Code - Insiders", "VSCodium", "Cursor", "Windsurf", NULL };
  static const char * const extensions[] = { "saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code", NULL };
  g_autoptr(GPtrArray) bases = g_ptr_array_new_with_free_func (g_free);

  if (self->vscode_dir != NULL)
    {
      g_autofree char *tasks = g_build_filename (self->vscode_dir, "tasks", NULL);

      /* One extension's own folder, named directly. */
      if (g_file_test (tasks, G_FILE_TEST_IS_DIR))
        {
          g_ptr_array_add (roots, g_steal_pointer (&tasks));
          return;
        }
      g_ptr_array_add (bases, g_strdup (self->vscode_dir));
      /* An editor's folder (~/.config/Code) or the folder of the editors
       * (~/.config), as a new user names it. */
      g_ptr_array_add (bases, g_build_filename (self->vscode_dir, "User", "globalStorage", NULL));
      for (guint i = 0; editors[i]; i++)
        g_ptr_array_add (bases, g_build_filename (self->vscode_dir, editors[i], "User", "globalStorage", NULL));
    }
  else
    {
      g_autofree char *config = host_xdg_dir ("HOST_XDG_CONFIG_HOME", ".config", g_get_user_config_dir ());

      for (guint i = 0; editors[i]; i++)
        g_ptr_array_add (bases, g_build_filename (config, editors[i], "User", "globalStorage", NULL));
    }

  for (guint i = 0; i < bases->len; i++)
    for (guint j = 0; extensions[j]; j++)
      g_ptr_array_add (roots, g_build_filename (g_ptr_array_index (bases, i), extensions[j], "tasks", NULL));
}

GStrv
pd_import_scanner_dup_roots (PdImportScanner *self)
{
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);

  g_ptr_array_add (roots, g_strdup (self->claude_dir));
  g_ptr_array_add (roots, g_build_filename (self->codex_dir, "sessions", NULL));
  g_ptr_array_add (roots, g_build_filename (self->codex_dir, "archived_sessions", NULL));
  g_ptr_array_add (roots, g_strdup (self->opencode_dir));
  g_ptr_array_add (roots, g_strdup (self->qwen_dir));
  g_ptr_array_add (roots, g_strdup (self->gemini_dir));
  add_task_roots (self, roots);
  g_ptr_array_add (roots, g_strdup (self->kilo_dir));
  g_ptr_array_add (roots, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&roots), FALSE);
}

const char *
pd_import_scanner_get_claude_dir (PdImportScanner *self)
{
  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);
  return self->claude_dir;
}

const char *
pd_import_scanner_get_codex_dir (PdImportScanner *self)
{
  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);
  return self->codex_dir;
}

const char *
pd_import_scanner_get_opencode_dir (PdImportScanner *self)
{
  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);
  return self->opencode_dir;
}

static gboolean
has_sessions (PdImportedSession *session)
{
  return pd_imported_session_get_stats (session)->lines > 0;
}

static void
append_skips (GPtrArray *skipped,
              GPtrArray *more)
{
  for (guint i = 0; skipped && more && i < more->len; i++)
    g_ptr_array_add (skipped, pd_import_skip_copy (g_ptr_array_index (more, i)));
}

/* One file of a folder, looked at and read on a worker thread: nothing is
 * opened on the calling thread (the GUI's scan runs on a thread of its
 * own, the agent's on its main thread), and a file is opened once, its
 * reader reading on from the look that recognised it. */
typedef struct
{
  char               *path;
  const char         *name;        /* in path */
  GHashTable         *agents;      /* (unowned, read only) Claude session id → GPtrArray of flat subagent paths */
  PdImportFormat      format;
  char               *session_id;  /* a Claude subagent's parent */
  gboolean            agent;       /* a Claude flat subagent, read with its parent or on its own */
  gboolean            empty;       /* of no known format: of no bytes */
  GPtrArray          *claimed;     /* (unowned) the subagents read with this one */
  PdTranscriptReader *reader;
  gboolean            ok;
  GError             *error;       /* the read's, or the look's */
} FileJob;

static void
file_job_free (FileJob *job)
{
  g_free (job->path);
  g_free (job->session_id);
  g_clear_object (&job->reader);
  g_clear_error (&job->error);
  g_free (job);
}

static FileJob *
file_job_new (const char *dir,
              const char *name,
              GHashTable *agents)
{
  FileJob *job = g_new0 (FileJob, 1);

  job->path = g_build_filename (dir, name, NULL);
  job->name = job->path + strlen (job->path) - strlen (name);
  job->agents = agents;
  return job;
}

/* A flat agent-*.jsonl file: whose subagent it is (the look only). */
static void
look_job_run (gpointer data,
              gpointer cancellable)
{
  FileJob *job = data;

  job->format = _pd_import_sniff_jsonl (job->path, &job->session_id, &job->error);
  job->agent = job->error == NULL && job->format == PD_IMPORT_FORMAT_CLAUDE;
}

static void
read_job_run (gpointer data,
              gpointer cancellable)
{
  FileJob *job = data;
  PdJsonlReader *opened = NULL;

  if (job->reader == NULL)
    {
      g_clear_pointer (&job->session_id, g_free);
      job->format = _pd_import_sniff_jsonl_open (job->path, NULL, &opened, &job->error);
      if (job->error != NULL)
        return;
      if (job->format == PD_IMPORT_FORMAT_CODEX)
        {
          job->reader = PD_TRANSCRIPT_READER (pd_codex_reader_new (job->path));
          _pd_codex_reader_take_opened (PD_CODEX_READER (job->reader), g_steal_pointer (&opened));
        }
      else if (job->format == PD_IMPORT_FORMAT_CLAUDE)
        {
          g_autofree char *key = g_strndup (job->name, strlen (job->name) - strlen (".jsonl"));
          PdClaudeCodeReader *claude = pd_claude_code_reader_new (job->path);

          job->claimed = g_hash_table_lookup (job->agents, key);
          for (guint i = 0; job->claimed != NULL && i < job->claimed->len; i++)
            pd_claude_code_reader_add_subagent (claude, g_ptr_array_index (job->claimed, i));
          _pd_claude_code_reader_take_opened (claude, g_steal_pointer (&opened));
          job->reader = PD_TRANSCRIPT_READER (claude);
        }
      else if (job->format != PD_IMPORT_FORMAT_UNKNOWN)
        /* The other agents' files: one session each, opened by their reader. */
        job->reader = pd_transcript_reader_new_for_format (_pd_import_format_name (job->format), job->path, NULL, NULL);
      else
        {
          GStatBuf st;

          job->empty = g_stat (job->path, &st) == 0 && st.st_size == 0;
          return;
        }
      g_clear_pointer (&opened, pd_jsonl_reader_free);
    }
  job->ok = pd_transcript_reader_update (job->reader, cancellable, &job->error);
}

/* A read's outcome: its session and what it passed over, or the file
 * among the skipped ones; FALSE when the read was cancelled. */
static gboolean
take_result (FileJob    *job,
             gboolean    with_skips,
             GPtrArray  *sessions,
             GPtrArray  *skipped,
             GError    **error)
{
  PdImportedSession *session = pd_transcript_reader_get_session (job->reader);

  if (!job->ok)
    {
      if (g_error_matches (job->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_steal_pointer (&job->error));
          return FALSE;
        }
      _pd_import_skip_add_error (skipped, pd_imported_session_get_path (session), job->error);
      return TRUE;
    }
  if (with_skips)
    append_skips (skipped, pd_transcript_reader_get_skipped (job->reader));
  if (has_sessions (session))
    g_ptr_array_add (sessions, g_object_ref (session));
  return TRUE;
}

/* One folder of JSON lines files: Claude's v2.0 flat agent-*.jsonl subagent
 * files join the session they name, beside them.  What cannot be read, or
 * is no agent's, goes to @skipped; with @single (a file named alone) that
 * is the error instead.  The files are looked at and read on several
 * threads; the sessions and skipped files come out in the order of a
 * reading one after another (the Codex rollouts and the files passed over
 * in name order, then the other sessions, then the subagents read on
 * their own). */
static gboolean
read_jsonl_files (const char    *dir,
                  GPtrArray     *names,
                  gboolean       single,
                  GPtrArray     *sessions,
                  GPtrArray     *skipped,
                  GCancellable  *cancellable,
                  GError       **error)
{
  /* Session id → its flat subagents (GPtrArray of paths, name order). */
  g_autoptr(GHashTable) agents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GHashTable) claimed = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) file_job_free);
  g_autoptr(GPtrArray) looks = g_ptr_array_new ();
  g_autoptr(GPtrArray) reads = g_ptr_array_new ();
  g_autoptr(GPtrArray) alone = g_ptr_array_new ();

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  for (guint i = 0; i < names->len; i++)
    {
      FileJob *job = file_job_new (dir, g_ptr_array_index (names, i), agents);

      g_ptr_array_add (all, job);
      g_ptr_array_add (g_str_has_prefix (job->name, "agent-") ? looks : reads, job);
    }

  /* Whose the flat subagent files are, before their parents are read. */
  if (looks->len > 0)
    _pd_import_run_parallel (looks, look_job_run, cancellable);
  for (guint i = 0; i < looks->len; i++)
    {
      FileJob *job = g_ptr_array_index (looks, i);
      GPtrArray *list;

      if (!job->agent)
        {
          /* Any agent's file so named: looked at and read as the others. */
          g_clear_error (&job->error);
          g_ptr_array_add (reads, job);
        }
      else if (job->session_id != NULL)
        {
          if (!(list = g_hash_table_lookup (agents, job->session_id)))
            g_hash_table_insert (agents, g_strdup (job->session_id),
                                 (list = g_ptr_array_new_with_free_func (g_free)));
          g_ptr_array_add (list, g_strdup (job->path));
        }
    }

  if (reads->len > 0)
    _pd_import_run_parallel (reads, read_job_run, cancellable);

  /* A subagent whose parent is gone (or no Claude Code session): a
   * session of its own. */
  for (guint i = 0; i < reads->len; i++)
    {
      FileJob *job = g_ptr_array_index (reads, i);

      if (job->claimed != NULL)
        g_hash_table_add (claimed, job->claimed);
    }
  for (guint i = 0; i < looks->len; i++)
    {
      FileJob *job = g_ptr_array_index (looks, i);

      if (job->agent && (job->session_id == NULL
                         || !g_hash_table_contains (claimed, g_hash_table_lookup (agents, job->session_id))))
        g_ptr_array_add (alone, job);
    }
  for (guint i = 0; i < alone->len; i++)
    {
      FileJob *job = g_ptr_array_index (alone, i);

      job->reader = PD_TRANSCRIPT_READER (pd_claude_code_reader_new (job->path));
    }
  if (alone->len > 0)
    _pd_import_run_parallel (alone, read_job_run, cancellable);

  if (single && all->len == 1)
    {
      FileJob *job = g_ptr_array_index (all, 0);

      if (job->reader == NULL && job->error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&job->error));
          return FALSE;
        }
      if (job->reader == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "%s is not a transcript of a known agent", job->path);
          return FALSE;
        }
    }

  /* The Codex rollouts and the files passed over, in name order. */
  for (guint i = 0; i < all->len; i++)
    {
      FileJob *job = g_ptr_array_index (all, i);

      if (job->agent)
        continue;
      if (job->reader == NULL && job->error != NULL)
        _pd_import_skip_add_error (skipped, job->path, job->error);
      else if (job->reader == NULL)
        _pd_import_skip_add (skipped, job->path, job->empty ? "empty" : "not a transcript of a known agent");
      else if (job->format == PD_IMPORT_FORMAT_CODEX && !take_result (job, FALSE, sessions, skipped, error))
        return FALSE;
    }
  /* The other sessions, in name order, then the subagents on their own. */
  for (guint i = 0; i < all->len; i++)
    {
      FileJob *job = g_ptr_array_index (all, i);

      if (!job->agent && job->reader != NULL && job->format != PD_IMPORT_FORMAT_CODEX
          && !take_result (job, TRUE, sessions, skipped, error))
        return FALSE;
    }
  for (guint i = 0; i < alone->len; i++)
    if (!take_result (g_ptr_array_index (alone, i), TRUE, sessions, skipped, error))
      return FALSE;
  return TRUE;
}

static gboolean
read_dir (const char    *dir,
          guint          depth,
          GPtrArray     *sessions,
          GPtrArray     *skipped,
          GCancellable  *cancellable,
          GError       **error)
{
  g_autoptr(GDir) handle = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) jsonl = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *storage = g_build_filename (dir, "storage", NULL);
  const char *name;

  if (depth > MAX_DEPTH)
    return TRUE;

  /* OpenCode's own layouts. */
  if (_pd_import_is_opencode_storage (dir)
      || (!_pd_import_is_storage_link (storage, skipped) && _pd_import_is_opencode_storage (storage)))
    {
      GPtrArray *found = _pd_opencode_read_storage_full (_pd_import_is_opencode_storage (dir) ? dir : storage, skipped,
                                                         cancellable, error);
      if (found == NULL)
        return FALSE;
      g_ptr_array_extend_and_steal (sessions, found);
    }

  if (!(handle = g_dir_open (dir, 0, error)))
    return FALSE;
  while ((name = g_dir_read_name (handle)))
    g_ptr_array_add (names, g_strdup (name));
  _pd_import_sort_names (names);

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir, entry, NULL);
      gboolean document = _pd_import_is_document_name (dir, entry);
      gboolean candidate = g_str_has_suffix (entry, ".jsonl") || document || _pd_import_is_opencode_db_name (entry);
      GStatBuf st;

      /* Subagent transcripts are read with their parent. */
      if (strcmp (entry, "subagents") == 0 || strcmp (entry, "storage") == 0)
        continue;
      if (g_lstat (path, &st) != 0)
        {
          int saved = errno;

          if (candidate)
            {
              g_autofree char *reason = g_strdup_printf ("cannot be looked at: %s", g_strerror (saved));
              _pd_import_skip_add (skipped, path, reason);
            }
          continue;
        }
      if (S_ISLNK (st.st_mode))
        {
          /* Not followed; said so when it stands for a transcript or a
           * folder of them. */
          if (candidate || g_file_test (path, G_FILE_TEST_IS_DIR))
            _pd_import_skip_add (skipped, path, "a symbolic link (not followed)");
          continue;
        }
      if (S_ISDIR (st.st_mode))
        {
          g_autoptr(GError) local = NULL;

          if (!_pd_import_is_opencode_storage (dir) && !read_dir (path, depth + 1, sessions, skipped, cancellable, &local))
            {
              if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                {
                  g_propagate_error (error, g_steal_pointer (&local));
                  return FALSE;
                }
              _pd_import_skip_add_error (skipped, path, local);
            }
          continue;
        }
      if (!candidate)
        continue;
      if (!S_ISREG (st.st_mode))
        {
          g_autofree char *reason = g_strdup_printf ("not a regular file (%s)", _pd_file_kind (st.st_mode));
          _pd_import_skip_add (skipped, path, reason);
        }
      else if (g_str_has_suffix (entry, ".jsonl") || document)
        g_ptr_array_add (jsonl, g_strdup (entry));
      else
        {
          g_autoptr(GError) local = NULL;
          GPtrArray *found = pd_opencode_read_database (path, cancellable, &local);

          if (found)
            g_ptr_array_extend_and_steal (sessions, found);
          else
            _pd_import_skip_add_error (skipped, path, local);
        }
    }

  return read_jsonl_files (dir, jsonl, FALSE, sessions, skipped, cancellable, error);
}

GPtrArray *
pd_import_read_path (const char    *path,
                     GCancellable  *cancellable,
                     GError       **error)
{
  return pd_import_read_path_full (path, NULL, cancellable, error);
}

GPtrArray *
pd_import_read_path_full (const char    *path,
                          GPtrArray     *skipped,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *resolved = NULL;
  GStatBuf st;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_lstat (path, &st) != 0)
    {
      int saved = errno;

      if (saved == ENOENT || saved == ENOTDIR)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s does not exist", path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "%s cannot be looked at: %s", path, g_strerror (saved));
      return NULL;
    }
  /* A link named on the command line is the person's choice: read what it
   * points to (files inside are opened without following links). */
  if (S_ISLNK (st.st_mode))
    {
      char *real = realpath (path, NULL);

      if (real == NULL || g_stat (real, &st) != 0)
        {
          free (real);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s points to nothing", path);
          return NULL;
        }
      resolved = g_strdup (real);
      free (real);
      path = resolved;
    }

  if (S_ISDIR (st.st_mode))
    {
      if (!read_dir (path, 0, sessions, skipped, cancellable, error))
        return NULL;
    }
  else if (S_ISREG (st.st_mode))
    {
      if (_pd_import_is_sqlite (path))
        {
          GPtrArray *found = pd_opencode_read_database (path, cancellable, error);
          if (found == NULL)
            return NULL;
          g_ptr_array_extend_and_steal (sessions, found);
        }
      else
        {
          g_autofree char *dir = g_path_get_dirname (path);
          g_autofree char *base = g_path_get_basename (path);
          g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

          g_ptr_array_add (names, g_steal_pointer (&base));
          if (!read_jsonl_files (dir, names, TRUE, sessions, skipped, cancellable, error))
            return NULL;
        }
    }
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s is not a regular file (%s); transcripts are read from files and folders",
                   path, _pd_file_kind (st.st_mode));
      return NULL;
    }

  return g_steal_pointer (&sessions);
}

GPtrArray *
pd_import_scanner_scan (PdImportScanner  *self,
                        GCancellable     *cancellable,
                        GError          **error)
{
  return pd_import_scanner_scan_full (self, NULL, cancellable, error);
}

GPtrArray *
pd_import_scanner_scan_full (PdImportScanner  *self,
                             GPtrArray        *skipped,
                             GCancellable     *cancellable,
                             GError          **error)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_auto(GStrv) roots = NULL;

  g_return_val_if_fail (PD_IS_IMPORT_SCANNER (self), NULL);

  roots = pd_import_scanner_dup_roots (self);

  for (guint i = 0; roots[i]; i++)
    {
      g_autoptr(GError) local = NULL;
      GStatBuf st;

      /* An agent not installed has no folder: nothing to say.  A folder
       * that is something else (a FIFO, a file) or cannot be looked at is
       * said with the reason, never passed over in silence. */
      if (g_stat (roots[i], &st) != 0)
        {
          int saved = errno;

          if (saved != ENOENT && saved != ENOTDIR)
            {
              g_autofree char *reason = g_strdup_printf ("cannot look at the folder: %s", g_strerror (saved));

              _pd_import_skip_add (skipped, roots[i], reason);
            }
          continue;
        }
      if (!S_ISDIR (st.st_mode))
        {
          g_autofree char *reason = g_strdup_printf ("not a folder (%s); the agent's sessions are read from a folder",
                                                     S_ISREG (st.st_mode) ? "a file" : _pd_file_kind (st.st_mode));

          _pd_import_skip_add (skipped, roots[i], reason);
          continue;
        }
      if (!read_dir (roots[i], 0, sessions, skipped, cancellable, &local))
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return NULL;
            }
          _pd_import_skip_add_error (skipped, roots[i], local);
        }
    }

  return g_steal_pointer (&sessions);
}

static gpointer
scan_worker (gpointer       source_object,
             gpointer       task_data,
             GCancellable  *cancellable,
             GError       **error)
{
  return pd_import_scanner_scan (source_object, cancellable, error);
}

void
pd_import_scanner_scan_async (PdImportScanner     *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PD_IS_IMPORT_SCANNER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_import_scanner_scan_async);
  pd_task_run_worker (task, scan_worker, (GDestroyNotify) g_ptr_array_unref);
}

GPtrArray *
pd_import_scanner_scan_finish (PdImportScanner  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

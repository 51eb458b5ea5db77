/* pd-import-unit.c: the units of the import index, found by stat alone
 * (nothing is opened), each with the signature of the files read with it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-import-index-private.h"
#include "pd-import-private.h"
#include "pd-import-skip.h"
#include "pd-import-unit-private.h"
#include "pd-jsonl-reader.h"

#define MAX_DEPTH 8

void
_pd_import_unit_free (PdImportUnit *unit)
{
  g_free (unit->path);
  g_free (unit->identity);
  g_free (unit->deps);
  g_clear_pointer (&unit->agents, g_ptr_array_unref);
  g_free (unit);
}

/* ---------------------------------------------------------------------- */
/* Finding transcripts: stat only, nothing is opened                      */

/* What a file's lstat says of it: a symbolic link is not followed, here
 * as when the file is read. */
static gboolean
stat_identity (const struct stat  *st,
               gint64             *size,
               gint64             *mtime,
               char              **identity,
               gint64             *ctime)
{
  if (!S_ISREG (st->st_mode))
    return FALSE;
  if (identity != NULL)
    *identity = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, (guint64) st->st_dev, (guint64) st->st_ino);
  if (ctime != NULL)
    *ctime = (gint64) st->st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_ctim.tv_nsec;
  *size = (gint64) st->st_size;
  *mtime = (gint64) st->st_mtim.tv_sec * G_USEC_PER_SEC + st->st_mtim.tv_nsec / 1000;
  return TRUE;
}

static gboolean
stat_file_identity (const char  *path,
                    gint64      *size,
                    gint64      *mtime,
                    char       **identity,
                    gint64      *ctime)
{
  struct stat st;

  return lstat (path, &st) == 0 && stat_identity (&st, size, mtime, identity, ctime);
}

static gboolean
stat_file (const char *path,
           gint64     *size,
           gint64     *mtime)
{
  return stat_file_identity (path, size, mtime, NULL, NULL);
}

typedef struct
{
  guint  n;
  gint64 size;
  gint64 mtime;
} Sig;

static void
sig_add (Sig        *sig,
         const char *path)
{
  gint64 size, mtime;

  if (!stat_file (path, &size, &mtime))
    return;
  sig->n++;
  sig->size += size;
  sig->mtime = MAX (sig->mtime, mtime);
}

static char *
sig_to_string (const Sig  *sig,
               const char *tag)
{
  if (sig->n == 0)
    return g_strdup ("");
  return g_strdup_printf ("%s:%u:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, tag, sig->n, sig->size, sig->mtime);
}

/* Subagent transcripts: the .jsonl files of <session>/subagents, and the flat
 * agent-*.jsonl files beside the session (any of them may be its). */
/* @present: (nullable) the names of the file's folder, when the walk read
 * them: without the session's folder there is no subagents folder to
 * open. */
static char *
jsonl_deps (const char *path,
            GPtrArray  *agents,
            GHashTable *present)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *subagents = NULL;
  g_autoptr(GDir) handle = NULL;
  Sig sig = { 0 };
  const char *name;

  if (g_str_has_suffix (base, ".jsonl"))
    base[strlen (base) - strlen (".jsonl")] = '\0';
  subagents = g_build_filename (dir, base, "subagents", NULL);
  if ((present == NULL || g_hash_table_contains (present, base)) && (handle = g_dir_open (subagents, 0, NULL)))
    while ((name = g_dir_read_name (handle)))
      if (g_str_has_suffix (name, ".jsonl"))
        {
          g_autofree char *child = g_build_filename (subagents, name, NULL);
          sig_add (&sig, child);
        }
  for (guint i = 0; agents && i < agents->len; i++)
    sig_add (&sig, g_ptr_array_index (agents, i));
  return sig_to_string (&sig, "s");
}

/* One lstat per entry (an OpenCode tree is a file per message and part,
 * tens of thousands): a link is passed over, a folder walked, a regular
 * file counted. */
static void
storage_sig (const char *dir,
             guint       depth,
             Sig        *sig)
{
  g_autoptr(GDir) handle = NULL;
  const char *name;

  if (depth > MAX_DEPTH || !(handle = g_dir_open (dir, 0, NULL)))
    return;
  while ((name = g_dir_read_name (handle)))
    {
      g_autofree char *child = g_build_filename (dir, name, NULL);
      struct stat st;

      if (lstat (child, &st) != 0 || S_ISLNK (st.st_mode))
        continue;
      if (S_ISDIR (st.st_mode))
        storage_sig (child, depth + 1, sig);
      else if (S_ISREG (st.st_mode))
        {
          gint64 mtime = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;

          sig->n++;
          sig->size += (gint64) st.st_size;
          sig->mtime = MAX (sig->mtime, mtime);
        }
    }
}

/* @st: (nullable) the file's lstat and @present the names of its folder,
 * when the walk has them. */
static PdImportUnit *
unit_new_jsonl (const char        *path,
                const struct stat *st,
                GHashTable        *present,
                GPtrArray         *agents)
{
  PdImportUnit *unit = g_new0 (PdImportUnit, 1);
  g_autofree char *deps = NULL;

  unit->kind = PD_IMPORT_UNIT_JSONL;
  unit->path = g_strdup (path);
  if (st != NULL ? !stat_identity (st, &unit->size, &unit->mtime, &unit->identity, &unit->ctime)
                 : !stat_file_identity (path, &unit->size, &unit->mtime, &unit->identity, &unit->ctime))
    {
      _pd_import_unit_free (unit);
      return NULL;
    }
  unit->agents = agents && agents->len > 0 ? g_ptr_array_ref (agents) : NULL;
  deps = jsonl_deps (path, unit->agents, present);
  /* The file's inode and change time too: Cline, Roo and Kilo rewrite a
   * task's messages whole, and a rewrite can keep the size and the mtime
   * (a tool that restores times, or two writes within the clock's tick);
   * it was taken as unchanged and its new list never read.  No program
   * sets the change time back. */
  unit->deps = g_strdup_printf ("%s%sf:%s:%" G_GINT64_FORMAT, deps, *deps ? ";" : "", unit->identity, unit->ctime);
  return unit;
}

static PdImportUnit *
unit_new_database (const char *path)
{
  PdImportUnit *unit = g_new0 (PdImportUnit, 1);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  Sig sig = { 0 };

  unit->kind = PD_IMPORT_UNIT_OPENCODE_DB;
  unit->path = g_strdup (path);
  if (!stat_file (path, &unit->size, &unit->mtime))
    {
      _pd_import_unit_free (unit);
      return NULL;
    }
  sig_add (&sig, wal);
  unit->deps = sig_to_string (&sig, "wal");
  return unit;
}

static PdImportUnit *
unit_new_storage (const char *dir)
{
  PdImportUnit *unit = g_new0 (PdImportUnit, 1);
  Sig sig = { 0 };

  unit->kind = PD_IMPORT_UNIT_OPENCODE_STORAGE;
  unit->path = g_strdup (dir);
  storage_sig (dir, 0, &sig);
  unit->size = sig.size;
  unit->mtime = sig.mtime;
  unit->deps = g_strdup_printf ("files:%u", sig.n);
  return unit;
}

static void
add_unit (GPtrArray *units,
          PdImportUnit      *unit)
{
  if (unit != NULL)
    g_ptr_array_add (units, unit);
}

/* The same walk as the scanner's: OpenCode's layouts, *.jsonl files, and
 * folders below, without symlinks; subagent folders go with their parent.
 * What is passed over is named in @skipped. */
static gboolean
discover_dir (const char         *dir,
              const struct stat  *expected,
              guint               depth,
              GPtrArray          *units,
              GPtrArray          *skipped,
              GCancellable       *cancellable,
              GError            **error)
{
  DIR *handle;
  struct dirent *dirent;
  struct stat opened;
  int fd;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) jsonl = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) agents = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) stats = g_array_new (FALSE, FALSE, sizeof (struct stat));  /* of jsonl */
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);  /* names, in names */
  g_autofree char *storage = g_build_filename (dir, "storage", NULL);
  g_autoptr(GError) local = NULL;
  gboolean is_storage = _pd_import_is_opencode_storage (dir);

  if (depth > MAX_DEPTH)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  if (is_storage)
    add_unit (units, unit_new_storage (dir));
  else if (_pd_import_is_storage_link (storage, skipped))
    ;
  else if (_pd_import_is_opencode_storage (storage))
    add_unit (units, unit_new_storage (storage));

  /* Opened by descriptor, never through a link, and only as the folder
   * that was looked at (@expected, its lstat): a name swapped for a link
   * between the look and the open (tried as an attacker would, within the
   * watcher's settle delay) is passed over, never followed. */
  fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved = errno;

      if (saved == ELOOP || saved == ENOTDIR)
        _pd_import_skip_add (skipped, dir, "a symbolic link (not followed)");
      else
        {
          g_set_error (&local, G_IO_ERROR, g_io_error_from_errno (saved), "Error opening directory “%s”: %s",
                       dir, g_strerror (saved));
          _pd_import_skip_add_error (skipped, dir, local);
        }
      return TRUE;
    }
  if (expected != NULL &&
      (fstat (fd, &opened) != 0 || opened.st_dev != expected->st_dev || opened.st_ino != expected->st_ino))
    {
      close (fd);
      _pd_import_skip_add (skipped, dir, "replaced while it was read (not followed)");
      return TRUE;
    }
  if (!(handle = fdopendir (fd)))
    {
      close (fd);
      _pd_import_skip_add (skipped, dir, "could not be read");
      return TRUE;
    }
  while ((dirent = readdir (handle)))
    if (strcmp (dirent->d_name, ".") != 0 && strcmp (dirent->d_name, ".."))
      g_ptr_array_add (names, g_strdup (dirent->d_name));
  closedir (handle);
  _pd_import_sort_names (names);
  for (guint i = 0; i < names->len; i++)
    g_hash_table_add (present, g_ptr_array_index (names, i));

  for (guint i = 0; i < names->len; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir, entry, NULL);
      gboolean document = _pd_import_is_document_name (dir, entry);
      gboolean candidate = g_str_has_suffix (entry, ".jsonl") || document || _pd_import_is_opencode_db_name (entry);
      struct stat st;

      if (strcmp (entry, "subagents") == 0 || strcmp (entry, "storage") == 0)
        continue;
      if (lstat (path, &st) != 0)
        {
          if (candidate)
            {
              g_autofree char *reason = g_strdup_printf ("cannot be looked at: %s", g_strerror (errno));
              _pd_import_skip_add (skipped, path, reason);
            }
          continue;
        }
      if (S_ISLNK (st.st_mode))
        {
          if (candidate || g_file_test (path, G_FILE_TEST_IS_DIR))
            _pd_import_skip_add (skipped, path, "a symbolic link (not followed)");
          continue;
        }
      if (S_ISDIR (st.st_mode))
        {
          if (!is_storage && !discover_dir (path, &st, depth + 1, units, skipped, cancellable, error))
            return FALSE;
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
        {
          /* agent-*.jsonl may be a flat Claude Code 2.0 subagent transcript
           * (read with its parent), or any agent's transcript so named: the
           * content tells, when it is read. */
          if (g_str_has_prefix (entry, "agent-"))
            g_ptr_array_add (agents, g_strdup (path));
          g_ptr_array_add (jsonl, g_steal_pointer (&path));
          g_array_append_val (stats, st);
        }
      else
        add_unit (units, unit_new_database (path));
    }

  /* The lstat above is the unit's: each file is looked at once. */
  for (guint i = 0; i < jsonl->len; i++)
    add_unit (units, unit_new_jsonl (g_ptr_array_index (jsonl, i), &g_array_index (stats, struct stat, i), present, agents));
  return TRUE;
}

gboolean
_pd_import_discover_path (const char    *path,
                          GPtrArray     *units,
                          GPtrArray     *skipped,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_autofree char *resolved = NULL;
  struct stat st;

  if (lstat (path, &st) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s does not exist", path);
      return FALSE;
    }
  /* A link named on the command line is the person's choice: index what it
   * points to (files inside folders are opened without following links). */
  if (S_ISLNK (st.st_mode))
    {
      char *real = realpath (path, NULL);

      if (real == NULL || stat (real, &st) != 0)
        {
          free (real);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s points to nothing", path);
          return FALSE;
        }
      resolved = g_strdup (real);
      free (real);
      path = resolved;
    }
  if (S_ISDIR (st.st_mode))
    return discover_dir (path, &st, 0, units, skipped, cancellable, error);
  if (S_ISREG (st.st_mode))
    {
      add_unit (units, _pd_import_is_sqlite (path) ? unit_new_database (path) : unit_new_jsonl (path, NULL, NULL, NULL));
      return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
               "%s is not a regular file (%s); transcripts are read from files and folders",
               path, _pd_file_kind (st.st_mode));
  return FALSE;
}

gboolean
_pd_import_discover_watched (const char         *path,
                             const struct stat  *queued,
                             GPtrArray          *units,
                             GPtrArray          *skipped,
                             GCancellable       *cancellable,
                             GError            **error)
{
  struct stat st;

  /* Gone, made a link, or another file or folder since it was queued:
   * passed over (a change to come queues it again). */
  if (lstat (path, &st) != 0 || S_ISLNK (st.st_mode) ||
      st.st_dev != queued->st_dev || st.st_ino != queued->st_ino)
    return TRUE;
  if (S_ISDIR (st.st_mode))
    return discover_dir (path, queued, 0, units, skipped, cancellable, error);
  /* A transcript is opened without following a link (pd-jsonl-reader.c). */
  if (S_ISREG (st.st_mode))
    add_unit (units, _pd_import_is_sqlite (path) ? unit_new_database (path) : unit_new_jsonl (path, NULL, NULL, NULL));
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* The signature of a transcript, for the pages cache                     */

/* What a reading of the transcript depends on: its files' sizes and times
 * (the unit the index would make of it), so a change of any is seen. */
char *
_pd_import_index_signature (const char *format,
                            const char *path)
{
  g_autoptr(GPtrArray) agents = NULL;
  PdImportUnit *unit = NULL;
  char *signature;

  if (strcmp (format, "opencode-db") == 0)
    unit = unit_new_database (path);
  else if (strcmp (format, "opencode-storage") == 0)
    unit = unit_new_storage (path);
  else
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
      const char *name;

      /* Claude Code 2.0's flat subagent files beside it count too. */
      agents = g_ptr_array_new_with_free_func (g_free);
      while (handle && (name = g_dir_read_name (handle)))
        if (g_str_has_prefix (name, "agent-") && g_str_has_suffix (name, ".jsonl"))
          g_ptr_array_add (agents, g_build_filename (dir, name, NULL));
      _pd_import_sort_names (agents);
      unit = unit_new_jsonl (path, NULL, NULL, agents);
    }
  if (unit == NULL)
    return NULL;
  signature = g_strdup_printf ("%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%s",
                               format, unit->size, unit->mtime, unit->deps);
  _pd_import_unit_free (unit);
  return signature;
}


/* The bytes of a transcript file and the subagent files read with it
 * (Claude Code 2.0's flat agent-*.jsonl beside it); 0 for OpenCode's
 * database and storage, which are not one transcript's. */
guint64
_pd_import_index_source_bytes (const char *format,
                               const char *path)
{
  g_autofree char *dir = NULL;
  g_autoptr(GDir) handle = NULL;
  const char *name;
  GStatBuf st;
  guint64 bytes;

  if (g_str_has_prefix (format, "opencode") || g_stat (path, &st) != 0)
    return 0;
  bytes = (guint64) st.st_size;
  dir = g_path_get_dirname (path);
  handle = g_dir_open (dir, 0, NULL);
  while (handle && (name = g_dir_read_name (handle)))
    if (g_str_has_prefix (name, "agent-") && g_str_has_suffix (name, ".jsonl"))
      {
        g_autofree char *agent = g_build_filename (dir, name, NULL);

        if (g_stat (agent, &st) == 0)
          bytes += (guint64) st.st_size;
      }
  return bytes;
}

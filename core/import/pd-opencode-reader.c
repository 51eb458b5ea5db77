/* pd-opencode-reader.c: OpenCode sessions, from the JSON tree or opencode.db.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "pd-import-private.h"
#include "pd-import-skip.h"
#include "pd-json.h"
#include "pd-opencode-reader.h"
#include "pd-opencode-reader-private.h"
#include "pd-sqlite-guard.h"

#define MAX_FILE_SIZE (8 * 1024 * 1024)

/* ---------------------------------------------------------------------- */
/* The JSON tree                                                          */

/* The type of the part a file or row of more values than its size can
 * hold (_pd_import_too_many_values()) is read as, never parsed: its
 * "bytes" shown by conversation_message(), nothing else read of it (as a
 * session it has no id; as a message, its parts follow the note). */
#define TOO_MANY_VALUES_PART "plandeck-too-many-values"

/* And of a file longer than the reader takes (MAX_FILE_SIZE): none of it
 * kept, said in its place (it was left out unsaid). */
#define TOO_LONG_PART "plandeck-too-long"

static JsonNode *
unshown_part (const char *type,
              gsize       length)
{
  g_autoptr(JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  json_object_set_int_member (object, "bytes", (gint64) length);
  return json_node_init_object (json_node_alloc (), object);
}

/* @root/@rel, a file of the tree.  @skipped (nullable): where a file or
 * folder on the way that is a link (not followed) is named. */
static JsonNode *
load_json_file_sized (const char *root,
                      const char *rel,
                      const char *must_contain,
                      gboolean   *bad,
                      GPtrArray  *skipped,
                      gsize      *size)    /* (out) (optional): its bytes */
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *node;
  gsize length;

  *bad = FALSE;
  /* Opened as transcripts are: a regular file only, never waiting; and
   * from @root down without following a link (tried as an attacker would:
   * a message file made a link to a secret elsewhere). */
  if (!_pd_import_read_file_beneath (root, rel, MAX_FILE_SIZE, &contents, &length, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE))
        {
          g_autofree char *path = g_build_filename (root, rel, NULL);

          _pd_import_skip_add_error (skipped, path, error);
        }
      *bad = TRUE;
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE) && must_contain == NULL)
        return unshown_part (TOO_LONG_PART, length);
      return NULL;
    }
  if (size != NULL)
    *size = length;
  if (must_contain && !memmem (contents, length, must_contain, strlen (must_contain)))
    return NULL;
  if (_pd_import_too_many_values (contents, length))
    {
      *bad = TRUE;
      return unshown_part (TOO_MANY_VALUES_PART, length);
    }
  /* A call's input nested too deep is a placeholder, the call kept. */
  if (!g_utf8_validate (contents, (gssize) length, NULL)
      || !(node = _pd_import_parse_defused (contents, (gssize) length)))
    {
      *bad = TRUE;
      return NULL;
    }
  return node;
}

static JsonNode *
load_json_file (const char *root,
                const char *rel,
                const char *must_contain,
                gboolean   *bad,
                GPtrArray  *skipped)
{
  return load_json_file_sized (root, rel, must_contain, bad, skipped, NULL);
}

/* The names in @root/@rel, none through a link (_pd_import_list_beneath(),
 * which names one in @skipped, nullable). */
static GPtrArray *
list_names (const char *root,
            const char *rel,
            const char *suffix,
            GPtrArray  *skipped)
{
  GPtrArray *names = _pd_import_list_beneath (root, rel, suffix, skipped, NULL);

  return names ? names : g_ptr_array_new_with_free_func (g_free);
}

/* @session_rel: the session's file, below @dir.  @skipped (nullable): the
 * links met on the way, not followed. */
static PdImportedSession *
read_storage_session (const char        *dir,
                      const char        *session_rel,
                      PdTranscriptPages *pages,
                      GPtrArray         *skipped)
{
  g_autofree char *session_path = g_build_filename (dir, session_rel, NULL);
  PdImportedSession *session = pd_imported_session_new (_pd_opencode_source_of (session_path), session_path);
  PdImportStats *stats = pd_imported_session_get_stats (session);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_opencode_todo_part_free);
  g_autoptr(JsonNode) info = NULL;
  g_autofree char *message_dir = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  gboolean bad;

  info = load_json_file (dir, session_rel, NULL, &bad, skipped);
  stats->lines++;
  if (info == NULL || !JSON_NODE_HOLDS_OBJECT (info) || !pd_json_get_string (json_node_get_object (info), "id"))
    {
      g_object_unref (session);
      return NULL;
    }
  _pd_opencode_set_session_info (session, json_node_get_object (info));

  message_dir = g_build_filename ("message", pd_imported_session_get_id (session), NULL);
  messages = list_names (dir, message_dir, ".json", skipped);
  for (guint i = 0; i < messages->len; i++)
    {
      g_autofree char *message_id = g_strndup (g_ptr_array_index (messages, i),
                                               strlen (g_ptr_array_index (messages, i)) - strlen (".json"));
      g_autofree char *part_dir = g_build_filename ("part", message_id, NULL);
      g_autoptr(GPtrArray) names = list_names (dir, part_dir, ".json", skipped);

      for (guint j = 0; j < names->len; j++)
        {
          g_autofree char *path = g_build_filename (part_dir, g_ptr_array_index (names, j), NULL);
          g_autoptr(JsonNode) node = load_json_file (dir, path, "todowrite", &bad, skipped);
          PdOpenCodeTodoPart *part;

          stats->lines++;
          if (bad)
            stats->skipped_lines++;
          if ((part = _pd_opencode_todo_part_new (node, g_ptr_array_index (names, j))))
            g_ptr_array_add (parts, part);
        }
    }

  _pd_opencode_replay_parts (session, parts, pages);
  return session;
}

GPtrArray *
pd_opencode_read_storage (const char    *dir,
                          GCancellable  *cancellable,
                          GError       **error)
{
  return _pd_opencode_read_storage_full (dir, NULL, cancellable, error);
}

/* @skipped (nullable): the tree's files and folders that are links, not
 * followed (no folder or file below @dir is reached through one), each
 * named once. */
GPtrArray *
_pd_opencode_read_storage_full (const char    *dir,
                                GPtrArray     *skipped,
                                GCancellable  *cancellable,
                                GError       **error)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) projects = NULL;
  g_autoptr(GPtrArray) links = pd_import_skips_new ();

  g_return_val_if_fail (dir != NULL, NULL);

  if (!(projects = _pd_import_list_beneath (dir, "session", NULL, links, error)))
    return NULL;

  for (guint p = 0; p < projects->len; p++)
    {
      g_autofree char *project_dir = g_build_filename ("session", g_ptr_array_index (projects, p), NULL);
      g_autoptr(GPtrArray) names = list_names (dir, project_dir, ".json", links);

      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *path = g_build_filename (project_dir, g_ptr_array_index (names, i), NULL);
          PdImportedSession *session;

          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            return NULL;
          if ((session = read_storage_session (dir, path, NULL, links)))
            g_ptr_array_add (sessions, session);
        }
    }

  /* A link high in the tree ("message" itself) is met once per session. */
  if (skipped != NULL)
    {
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < links->len; i++)
        {
          PdImportSkip *skip = g_ptr_array_index (links, i);

          if (g_hash_table_add (seen, skip->path))
            g_ptr_array_add (skipped, pd_import_skip_copy (skip));
        }
    }
  return g_steal_pointer (&sessions);
}

/* ---------------------------------------------------------------------- */
/* opencode.db                                                            */

/* Bounds on what one database may cost.  A foreign database is data from
 * elsewhere: a view in place of a table (an endless recursive query), or
 * rows by the million, would otherwise make an import run for ever with its
 * memory growing.  The figures are far above real OpenCode / Kilo databases
 * (thousands of sessions, parts of a few hundred KB). */
#define OPENCODE_MAX_VALUE_BYTES  (16 * 1024 * 1024)  /* one column value */
#define OPENCODE_MAX_TITLE_BYTES  (64 * 1024)
#define OPENCODE_PROGRESS_PERIOD  10000               /* VM steps per call */

static guint64 opencode_max_rows = 1000000;           /* per table */
static guint64 opencode_max_steps = G_GUINT64_CONSTANT (2000000000);

void
_pd_opencode_set_limits (guint64 max_rows,
                         guint64 max_steps)
{
  opencode_max_rows = max_rows;
  opencode_max_steps = max_steps;
}

typedef struct
{
  GCancellable *cancellable;
  guint64       steps;
  gboolean      over_budget;
} Budget;

static int
budget_progress (void *data)
{
  Budget *budget = data;

  budget->steps += OPENCODE_PROGRESS_PERIOD;
  if (budget->steps > opencode_max_steps)
    budget->over_budget = TRUE;
  /* Non-zero interrupts the statement (SQLITE_INTERRUPT). */
  return budget->over_budget || g_cancellable_is_cancelled (budget->cancellable);
}

/* The text of a column, or NULL when it is NULL or longer than @max bytes:
 * the size is asked before the value is made text, so an over-long value
 * (zeroblob(900000000)) is never copied. */
static const char *
column_text_bounded (sqlite3_stmt *stmt,
                     int           column,
                     int           max)
{
  int type = sqlite3_column_type (stmt, column);

  if (type == SQLITE_NULL)
    return NULL;
  if (type == SQLITE_BLOB || type == SQLITE_TEXT)
    {
      if (sqlite3_column_bytes (stmt, column) > max)
        return NULL;
    }
  return (const char *) sqlite3_column_text (stmt, column);
}

static const char *
column_text (sqlite3_stmt *stmt,
             int           column)
{
  return column_text_bounded (stmt, column, OPENCODE_MAX_VALUE_BYTES);
}

static void harden (sqlite3 *db);

static sqlite3 *
open_read_only (const char  *path,
                GError     **error)
{
  g_autofree char *escaped = g_uri_escape_string (path, "/", FALSE);
  /* mode=ro first: it sees a running OpenCode's WAL.  immutable=1 only as
   * the fallback for a database that cannot be opened that way (a copy in a
   * read-only folder, no -shm possible); it is safe only when nothing
   * writes the file, which is then the case. */
  const char *queries[] = { "mode=ro", "immutable=1" };
  int last = SQLITE_OK;

  /* Looked at without blocking, and every open SQLite makes is guarded
   * (pd-sqlite-guard.h): a FIFO swapped in after this check, or put beside
   * the database as its journal, is never waited on. */
  pd_sqlite_guard_install ();
  {
    /* Nor through a link, here or by SQLite (SQLITE_OPEN_NOFOLLOW). */
    int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0);
    gboolean link = fd < 0 && errno == ELOOP;
    struct stat st;
    gboolean regular = fd >= 0 && fstat (fd, &st) == 0 && S_ISREG (st.st_mode);

    if (fd >= 0)
      close (fd);
    if (!regular)
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: %s", path,
                     link ? "a symbolic link (not followed)" : "not a file");
        return NULL;
      }
  }
  if (!pd_sqlite_guard_check_companions (path, error))
    return NULL;

  for (guint i = 0; i < G_N_ELEMENTS (queries); i++)
    {
      g_autofree char *uri = g_strdup_printf ("file:%s?%s", escaped, queries[i]);
      sqlite3 *db = NULL;
      sqlite3_stmt *stmt = NULL;

      last = sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
                              | SQLITE_OPEN_NOFOLLOW, NULL);
      if (last == SQLITE_OK)
        {
          harden (db);
          sqlite3_busy_timeout (db, 1000);
          last = sqlite3_prepare_v2 (db, "SELECT count(*) FROM sqlite_master", -1, &stmt, NULL);
          if (last == SQLITE_OK)
            last = sqlite3_step (stmt);
          sqlite3_finalize (stmt);
          if (last == SQLITE_ROW)
            return db;
        }
      sqlite3_close (db);
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not read %s: %s", path, sqlite3_errstr (last));
  return NULL;
}


static gboolean
has_column (sqlite3_stmt *stmt,
            const char   *name)
{
  for (int c = 0; c < sqlite3_column_count (stmt); c++)
    if (g_strcmp0 (sqlite3_column_name (stmt, c), name) == 0)
      return TRUE;
  return FALSE;
}

/* Makes @db run nothing the file brings: no views, no triggers, no
 * functions from the schema, no writes; and bounds every value. */
static void
harden (sqlite3 *db)
{
  int unused;

  sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, &unused);
  sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &unused);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &unused);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &unused);
  sqlite3_limit (db, SQLITE_LIMIT_LENGTH, 4 * OPENCODE_MAX_VALUE_BYTES);
  sqlite3_exec (db, "PRAGMA query_only = ON", NULL, NULL, NULL);
}

/* TRUE when @name is a plain table; else sets @error with what it is. */
static gboolean
check_table (sqlite3     *db,
             const char  *path,
             const char  *name,
             gboolean     required,
             GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autofree char *type = NULL;

  if (sqlite3_prepare_v2 (db, "SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE", -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
      if (sqlite3_step (stmt) == SQLITE_ROW)
        type = g_strdup (column_text_bounded (stmt, 0, 64));
    }
  sqlite3_finalize (stmt);

  if (type == NULL && !required)
    return TRUE;
  if (type == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s has no %s table", path, name);
      return FALSE;
    }
  if (strcmp (type, "table") != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: its %s is a %s, not a table (not run)",
                   path, name, type);
      return FALSE;
    }
  return TRUE;
}

/* The error for a statement that stopped early, or NULL when it ended. */
static gboolean
set_stop_error (sqlite3     *db,
                const char  *path,
                const char  *table,
                int          rc,
                guint64      rows,
                Budget      *budget,
                GError     **error)
{
  if (g_cancellable_set_error_if_cancelled (budget->cancellable, error))
    return TRUE;
  if (budget->over_budget)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 "%s: reading its %s table took more than %" G_GUINT64_FORMAT " steps (stopped)",
                 path, table, opencode_max_steps);
  else if (rows > opencode_max_rows)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 "%s: its %s table has more than %" G_GUINT64_FORMAT " rows (not read)",
                 path, table, opencode_max_rows);
  else if (rc == SQLITE_TOOBIG)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 "%s: its %s table holds a value too large to read", path, table);
  else
    return FALSE;
  return TRUE;
}

/* Every session of the database, or the one named @only_id (nullable). */
static GPtrArray *
read_database (const char         *path,
               const char         *only_id,
               PdTranscriptPages  *pages,
               GCancellable       *cancellable,
               GError            **error)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) parts_by_id = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                             (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(JsonParser) parser = json_parser_new ();
  sqlite3_stmt *stmt = NULL;
  Budget budget = { cancellable, 0, FALSE };
  guint64 rows = 0;
  sqlite3 *db;
  int rc;

  g_return_val_if_fail (path != NULL, NULL);

  if (!(db = open_read_only (path, error)))
    return NULL;
  sqlite3_progress_handler (db, OPENCODE_PROGRESS_PERIOD, budget_progress, &budget);
  if (!check_table (db, path, "session", TRUE, error)
      || !check_table (db, path, "part", FALSE, error)
      || !check_table (db, path, "message", FALSE, error))
    {
      sqlite3_close (db);
      return NULL;
    }

  /* Column names, not positions: the schema grows between versions. */
  rc = sqlite3_prepare_v2 (db, only_id ? "SELECT * FROM session WHERE id = ?1" : "SELECT * FROM session",
                           -1, &stmt, NULL);
  if (rc == SQLITE_OK && only_id != NULL)
    sqlite3_bind_text (stmt, 1, only_id, -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK && !has_column (stmt, "id"))
    {
      sqlite3_finalize (stmt);
      sqlite3_close (db);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: its session table has no id column", path);
      return NULL;
    }
  while (rc != SQLITE_ERROR && stmt != NULL && (rc = sqlite3_step (stmt)) == SQLITE_ROW
         && ++rows <= opencode_max_rows)
    {
      g_autoptr(PdImportedSession) session = pd_imported_session_new (_pd_opencode_source_of (path), path);

      for (int c = 0; c < sqlite3_column_count (stmt); c++)
        {
          const char *name = sqlite3_column_name (stmt, c);
          const char *text = column_text_bounded (stmt, c, OPENCODE_MAX_TITLE_BYTES);

          if (text == NULL || name == NULL)
            continue;
          if (strcmp (name, "id") == 0)
            pd_imported_session_set_id (session, text);
          else if (strcmp (name, "title") == 0)
            {
              g_autofree char *clean = _pd_import_clean_text (text);
              pd_imported_session_set_title (session, clean);
            }
          else if (strcmp (name, "directory") == 0)
            pd_imported_session_set_cwd (session, text);
          else if (strcmp (name, "time_created") == 0 || strcmp (name, "time_updated") == 0)
            pd_imported_session_note_time (session, _pd_opencode_ms_to_us (sqlite3_column_int64 (stmt, c)));
        }
      if (pd_imported_session_get_id (session) == NULL
          || g_hash_table_contains (by_id, pd_imported_session_get_id (session)))
        continue;
      g_hash_table_insert (by_id, (gpointer) pd_imported_session_get_id (session), session);
      g_ptr_array_add (sessions, g_steal_pointer (&session));
    }
  sqlite3_finalize (stmt);
  stmt = NULL;
  if (rc != SQLITE_DONE && set_stop_error (db, path, "session", rc, rows, &budget, error))
    {
      sqlite3_close (db);
      return NULL;
    }
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s has no readable session table: %s",
                   path, sqlite3_errmsg (db));
      sqlite3_close (db);
      return NULL;
    }

  rc = sqlite3_prepare_v2 (db,
                           only_id ? "SELECT session_id, id, data FROM part WHERE data LIKE '%todowrite%' AND session_id = ?1"
                                   : "SELECT session_id, id, data FROM part WHERE data LIKE '%todowrite%'",
                           -1, &stmt, NULL);
  if (rc == SQLITE_OK && only_id != NULL)
    sqlite3_bind_text (stmt, 1, only_id, -1, SQLITE_TRANSIENT);
  rows = 0;
  while (rc != SQLITE_ERROR && stmt != NULL && (rc = sqlite3_step (stmt)) == SQLITE_ROW
         && ++rows <= opencode_max_rows)
    {
      const char *session_id = column_text_bounded (stmt, 0, OPENCODE_MAX_TITLE_BYTES);
      const char *data = column_text (stmt, 2);
      PdImportedSession *session;
      GPtrArray *parts;
      PdOpenCodeTodoPart *part;
      JsonNode *root;

      if (session_id == NULL || data == NULL || !(session = g_hash_table_lookup (by_id, session_id)))
        continue;
      pd_imported_session_get_stats (session)->lines++;
      if (!g_utf8_validate (data, -1, NULL) || pd_json_nesting_exceeds (data, -1, PD_JSON_FOREIGN_MAX_DEPTH)
          || _pd_import_too_many_values (data, strlen (data))
          || !json_parser_load_from_data (parser, data, -1, NULL)
          || !(root = json_parser_get_root (parser)))
        {
          pd_imported_session_get_stats (session)->skipped_lines++;
          continue;
        }
      if (!(part = _pd_opencode_todo_part_new (root, column_text (stmt, 1))))
        continue;
      if (!(parts = g_hash_table_lookup (parts_by_id, pd_imported_session_get_id (session))))
        {
          parts = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_opencode_todo_part_free);
          g_hash_table_insert (parts_by_id, (gpointer) pd_imported_session_get_id (session), parts);
        }
      g_ptr_array_add (parts, part);

      if (g_cancellable_is_cancelled (cancellable))
        break;
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE && set_stop_error (db, path, "part", rc, rows, &budget, error))
    {
      sqlite3_close (db);
      return NULL;
    }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    g_debug ("%s: no readable part table: %s", path, sqlite3_errmsg (db));
  sqlite3_close (db);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  for (guint i = 0; i < sessions->len; i++)
    {
      PdImportedSession *session = g_ptr_array_index (sessions, i);
      GPtrArray *parts = g_hash_table_lookup (parts_by_id, pd_imported_session_get_id (session));

      if (parts)
        _pd_opencode_replay_parts (session, parts, pages);
    }

  return g_steal_pointer (&sessions);
}

GPtrArray *
pd_opencode_read_database (const char    *path,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_return_val_if_fail (path != NULL, NULL);

  return read_database (path, NULL, NULL, cancellable, error);
}

/* ---------------------------------------------------------------------- */
/* One session                                                            */

struct _PdOpenCodeReader
{
  GObject            parent_instance;

  char              *path;
  PdOpenCodeStore    store;
  char              *session_id;
  PdImportedSession *session;
  PdTranscriptPages *pages;       /* reading for the pages */
  /* What the messages and parts held at once for the pages may hold. */
  PdImportBudget     budget;
};

static void transcript_reader_iface_init (PdTranscriptReaderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdOpenCodeReader, pd_opencode_reader, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TRANSCRIPT_READER, transcript_reader_iface_init))

static void
pd_opencode_reader_finalize (GObject *object)
{
  PdOpenCodeReader *self = PD_OPENCODE_READER (object);

  g_clear_object (&self->session);
  g_clear_object (&self->pages);
  g_free (self->path);
  g_free (self->session_id);

  G_OBJECT_CLASS (pd_opencode_reader_parent_class)->finalize (object);
}

static void
pd_opencode_reader_class_init (PdOpenCodeReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_opencode_reader_finalize;
}

static void
pd_opencode_reader_init (PdOpenCodeReader *self)
{
}

/**
 * pd_opencode_reader_new:
 * @path: the storage tree (the folder holding session/, message/, part/) or
 *   the opencode.db file
 * @store: which of the two @path is
 * @session_id: OpenCode's id of the session ("ses_…")
 */
PdOpenCodeReader *
pd_opencode_reader_new (const char      *path,
                        PdOpenCodeStore  store,
                        const char      *session_id)
{
  PdOpenCodeReader *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_OPENCODE_READER, NULL);
  self->path = g_strdup (path);
  self->store = store;
  self->session_id = g_strdup (session_id ? session_id : "");
  self->session = pd_imported_session_new (_pd_opencode_source_of (path), path);
  pd_imported_session_set_id (self->session, self->session_id);
  return self;
}

/* The session's file in a storage tree, session/<project>/<id>.json as
 * OpenCode names them, whichever project holds it; else the file whose "id"
 * is @session_id (trees copied or written by other tools name them freely). */
static char *
find_storage_session (const char *dir,
                      const char *session_id)
{
  g_autofree char *file = g_strconcat (session_id, ".json", NULL);
  g_autoptr(GPtrArray) projects = list_names (dir, "session", NULL, NULL);
  g_autoptr(GPtrArray) listed = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  /* An id is one file name, never a path. */
  gboolean is_name = *session_id != '\0' && strchr (session_id, '/') == NULL && strcmp (session_id, "..") != 0;

  /* Each project's folder listed once, none through a link. */
  for (guint i = 0; i < projects->len; i++)
    {
      g_autofree char *project_dir = g_build_filename ("session", g_ptr_array_index (projects, i), NULL);

      g_ptr_array_add (listed, list_names (dir, project_dir, ".json", NULL));
    }
  for (guint i = 0; is_name && i < projects->len; i++)
    if (g_ptr_array_find_with_equal_func (g_ptr_array_index (listed, i), file, g_str_equal, NULL))
      return g_build_filename ("session", g_ptr_array_index (projects, i), file, NULL);
  for (guint i = 0; i < projects->len; i++)
    {
      GPtrArray *names = g_ptr_array_index (listed, i);

      for (guint j = 0; j < names->len; j++)
        {
          g_autofree char *path = g_build_filename ("session", g_ptr_array_index (projects, i),
                                                    g_ptr_array_index (names, j), NULL);
          g_autoptr(JsonNode) info = NULL;
          gboolean bad;

          if ((info = load_json_file (dir, path, session_id, &bad, NULL)) && JSON_NODE_HOLDS_OBJECT (info)
              && g_strcmp0 (pd_json_get_string (json_node_get_object (info), "id"), session_id) == 0)
            return g_steal_pointer (&path);
        }
    }
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* The conversation, for the pages                                        */

/* Subagent sessions inside subagent sessions, followed this deep. */
#define MAX_SUBAGENT_DEPTH 4

/* Whether an id read from a store can name a file of the tree. */
static gboolean
is_file_name (const char *id)
{
  return id != NULL && *id != '\0' && strchr (id, '/') == NULL && strcmp (id, ".") != 0 && strcmp (id, "..") != 0;
}

/* Why the part or message @object stands in for one not shown, or -1. */
static int
unshown_of (JsonObject *object)
{
  const char *type = pd_json_get_string (object, "type");

  if (g_strcmp0 (type, TOO_MANY_VALUES_PART) == 0)
    return PD_IMPORT_UNSHOWN_TOO_MANY_VALUES;
  if (g_strcmp0 (type, TOO_LONG_PART) == 0)
    return PD_IMPORT_UNSHOWN_TOO_LONG;
  if (g_strcmp0 (type, PD_OPENCODE_OVER_BUDGET_PART) == 0)
    return PD_IMPORT_UNSHOWN_OVER_BUDGET;
  return -1;
}

/* One stored message with its parts (JSON documents), into the pages. */
static void
conversation_message (PdTranscriptPages *pages,
                      const char        *key,
                      JsonObject        *info,
                      GPtrArray         *parts)   /* JsonNode */
{
  const char *message_id = pd_json_get_string (info, "id");
  const char *role = g_strcmp0 (pd_json_get_string (info, "role"), "assistant") == 0 ? "assistant" : "user";
  gint64 time = _pd_opencode_ms_to_us (pd_json_get_int (pd_json_get_object (info, "time"), "created", 0));

  if (unshown_of (info) >= 0)
    _pd_import_add_unshown (pages, key, unshown_of (info), (gsize) pd_json_get_int (info, "bytes", 0), time);

  for (guint i = 0; i < parts->len; i++)
    {
      JsonNode *node = g_ptr_array_index (parts, i);
      JsonObject *part, *state, *input;
      const char *type, *call_id, *tool, *status;
      g_autofree char *arguments = NULL;
      gint64 start, end;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      part = json_node_get_object (node);
      type = pd_json_get_string (part, "type");
      if (g_strcmp0 (type, "text") == 0)
        /* Text OpenCode itself wrote into a prompt (file contents, a
         * command's output) is context, not the person's words. */
        _pd_transcript_pages_add_text (pages, key,
                                       pd_json_get_boolean (part, "synthetic", FALSE) ? "system" : role,
                                       pd_json_get_string (part, "text"), message_id, time);
      else if (g_strcmp0 (type, "reasoning") == 0)
        _pd_transcript_pages_add_thinking (pages, key, pd_json_get_string (part, "text"), message_id, time);
      else if (unshown_of (part) >= 0)
        _pd_import_add_unshown (pages, key, unshown_of (part), (gsize) pd_json_get_int (part, "bytes", 0), time);
      else if (g_strcmp0 (type, "tool") == 0)
        {
          state = pd_json_get_object (part, "state");
          input = pd_json_get_object (state, "input");
          call_id = pd_json_get_string (part, "callID");
          tool = pd_json_get_string (part, "tool");
          status = pd_json_get_string (state, "status");
          start = _pd_opencode_ms_to_us (pd_json_get_int (pd_json_get_object (state, "time"), "start", 0));
          end = _pd_opencode_ms_to_us (pd_json_get_int (pd_json_get_object (state, "time"), "end", 0));
          /* Kept of a part the budget had no room for: said, its call named. */
          if (json_object_has_member (part, PD_OPENCODE_UNSHOWN_MEMBER))
            _pd_import_add_unshown (pages, key, PD_IMPORT_UNSHOWN_OVER_BUDGET,
                                    (gsize) pd_json_get_int (part, PD_OPENCODE_UNSHOWN_MEMBER, 0), start ? start : time);
          if (input != NULL)
            {
              g_autoptr(JsonNode) copy = json_node_init_object (json_node_alloc (), input);
              arguments = json_to_string (copy, FALSE);
            }
          else
            /* Nested too deep to show: what says so. */
            arguments = g_strdup (pd_json_get_string (state, "input"));
          _pd_transcript_pages_add_tool_call (pages, key, call_id, tool, arguments, message_id, start ? start : time);
          /* The task tool runs a subagent in a session of its own. */
          if (g_strcmp0 (tool, "task") == 0)
            _pd_transcript_pages_set_subagent (pages, call_id,
                                               pd_json_get_string (pd_json_get_object (state, "metadata"), "sessionId"),
                                               pd_json_get_string (input, "prompt"),
                                               pd_json_get_string (input, "subagent_type"),
                                               pd_json_get_string (input, "description"));
          if (g_strcmp0 (status, "completed") == 0)
            _pd_transcript_pages_add_tool_result (pages, key, call_id, pd_json_get_string (state, "output"), FALSE,
                                                  end ? end : start);
          else if (g_strcmp0 (status, "error") == 0)
            _pd_transcript_pages_add_tool_result (pages, key, call_id, pd_json_get_string (state, "error"), TRUE,
                                                  end ? end : start);
        }
    }
}

typedef struct
{
  gint64    time;
  char     *id;
  JsonNode *info;
} StoredMessage;

static void
stored_message_free (StoredMessage *message)
{
  g_free (message->id);
  json_node_unref (message->info);
  g_free (message);
}

static int
compare_messages (gconstpointer a,
                  gconstpointer b)
{
  const StoredMessage *ma = *(StoredMessage * const *) a;
  const StoredMessage *mb = *(StoredMessage * const *) b;

  if (ma->time != mb->time)
    return ma->time < mb->time ? -1 : 1;
  return g_strcmp0 (ma->id, mb->id);
}

static StoredMessage *
stored_message_new (JsonNode   *info,
                    const char *fallback_id)
{
  StoredMessage *message;
  JsonObject *object;

  if (info == NULL || !JSON_NODE_HOLDS_OBJECT (info))
    return NULL;
  object = json_node_get_object (info);
  message = g_new0 (StoredMessage, 1);
  message->id = g_strdup (pd_json_get_string (object, "id") ? pd_json_get_string (object, "id") : fallback_id);
  message->time = pd_json_get_int (pd_json_get_object (object, "time"), "created", 0);
  message->info = json_node_ref (info);
  return message;
}

/* A session of the storage tree (@session_rel, its file below the tree)
 * and, below the calls that started them, its subagents' sessions (those
 * in the same project naming it parent). */
static void
storage_conversation (PdOpenCodeReader *self,
                      const char       *session_rel,
                      const char       *session_id,
                      const char       *key,
                      guint             depth)
{
  g_autofree char *message_dir = NULL;
  g_autofree char *project_dir = g_path_get_dirname (session_rel);
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) stored_message_free);
  g_autoptr(GPtrArray) siblings = NULL;
  gsize held = 0;

  if (!is_file_name (session_id))
    return;
  message_dir = g_build_filename ("message", session_id, NULL);
  names = list_names (self->path, message_dir, ".json", NULL);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (message_dir, g_ptr_array_index (names, i), NULL);
      g_autoptr(JsonNode) info = NULL;
      StoredMessage *message;
      gboolean bad;

      gsize size = 0;

      info = load_json_file_sized (self->path, path, NULL, &bad, NULL, &size);
      info = _pd_opencode_within_budget (&self->budget, g_steal_pointer (&info), size, &held);
      if ((message = stored_message_new (info, g_ptr_array_index (names, i))))
        g_ptr_array_add (messages, message);
    }
  g_ptr_array_sort (messages, compare_messages);

  for (guint i = 0; i < messages->len; i++)
    {
      StoredMessage *message = g_ptr_array_index (messages, i);
      g_autofree char *part_dir = NULL;
      g_autoptr(GPtrArray) part_names = NULL;
      g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      gsize parts_held = 0;

      if (!is_file_name (message->id))
        continue;
      part_dir = g_build_filename ("part", message->id, NULL);
      part_names = list_names (self->path, part_dir, ".json", NULL);
      for (guint j = 0; j < part_names->len; j++)
        {
          g_autofree char *path = g_build_filename (part_dir, g_ptr_array_index (part_names, j), NULL);
          JsonNode *part;
          gboolean bad;

          gsize size = 0;

          if ((part = load_json_file_sized (self->path, path, NULL, &bad, NULL, &size)))
            g_ptr_array_add (parts, _pd_opencode_within_budget (&self->budget, part, size, &parts_held));
        }
      conversation_message (self->pages, key, json_node_get_object (message->info), parts);
      _pd_import_budget_give (&self->budget, parts_held);
    }
  g_ptr_array_set_size (messages, 0);
  _pd_import_budget_give (&self->budget, held);

  if (depth >= MAX_SUBAGENT_DEPTH)
    return;
  siblings = list_names (self->path, project_dir, ".json", NULL);
  for (guint i = 0; i < siblings->len; i++)
    {
      g_autofree char *path = g_build_filename (project_dir, g_ptr_array_index (siblings, i), NULL);
      g_autoptr(JsonNode) info = NULL;
      JsonObject *object;
      gboolean bad;

      if (!(info = load_json_file (self->path, path, session_id, &bad, NULL)) || !JSON_NODE_HOLDS_OBJECT (info))
        continue;
      object = json_node_get_object (info);
      if (g_strcmp0 (pd_json_get_string (object, "parentID"), session_id) == 0
          && g_strcmp0 (pd_json_get_string (object, "id"), session_id) != 0)
        storage_conversation (self, path, pd_json_get_string (object, "id"), pd_json_get_string (object, "id"), depth + 1);
    }
}

static JsonNode *
parse_column (sqlite3_stmt *stmt,
              int           column)
{
  const char *data = column_text (stmt, column);

  if (data == NULL || !g_utf8_validate (data, -1, NULL))
    return NULL;
  if (_pd_import_too_many_values (data, strlen (data)))
    return unshown_part (TOO_MANY_VALUES_PART, strlen (data));
  return _pd_import_parse_defused (data, -1);
}

/* The same from opencode.db: its message and part tables. */
static void
database_conversation (PdOpenCodeReader *self,
                       sqlite3          *db,
                       const char       *session_id,
                       const char       *key,
                       guint             depth)
{
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) stored_message_free);
  g_autoptr(GHashTable) parts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) children = g_ptr_array_new_with_free_func (g_free);
  sqlite3_stmt *stmt = NULL;
  gsize held = 0;

  if (sqlite3_prepare_v2 (db, "SELECT id, data FROM message WHERE session_id = ?1", -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, session_id, -1, SQLITE_TRANSIENT);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          g_autoptr(JsonNode) info = parse_column (stmt, 1);
          StoredMessage *message;

          info = _pd_opencode_within_budget (&self->budget, g_steal_pointer (&info), (gsize) sqlite3_column_bytes (stmt, 1), &held);
          if ((message = stored_message_new (info, column_text (stmt, 0))))
            g_ptr_array_add (messages, message);
        }
    }
  sqlite3_finalize (stmt);
  g_ptr_array_sort (messages, compare_messages);

  if (sqlite3_prepare_v2 (db, "SELECT message_id, data FROM part WHERE session_id = ?1 ORDER BY id", -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, session_id, -1, SQLITE_TRANSIENT);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          const char *message_id = column_text (stmt, 0);
          JsonNode *part;
          GPtrArray *list;

          if (message_id == NULL || !(part = parse_column (stmt, 1)))
            continue;
          part = _pd_opencode_within_budget (&self->budget, part, (gsize) sqlite3_column_bytes (stmt, 1), &held);
          if (!(list = g_hash_table_lookup (parts, message_id)))
            {
              list = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
              g_hash_table_insert (parts, g_strdup (message_id), list);
            }
          g_ptr_array_add (list, part);
        }
    }
  sqlite3_finalize (stmt);

  for (guint i = 0; i < messages->len; i++)
    {
      StoredMessage *message = g_ptr_array_index (messages, i);
      GPtrArray *list = g_hash_table_lookup (parts, message->id);
      g_autoptr(GPtrArray) none = g_ptr_array_new ();

      conversation_message (self->pages, key, json_node_get_object (message->info), list ? list : none);
    }
  g_ptr_array_set_size (messages, 0);
  g_hash_table_remove_all (parts);
  _pd_import_budget_give (&self->budget, held);

  if (depth >= MAX_SUBAGENT_DEPTH)
    return;
  if (sqlite3_prepare_v2 (db, "SELECT id FROM session WHERE parent_id = ?1 AND id != ?1", -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, session_id, -1, SQLITE_TRANSIENT);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        if (column_text (stmt, 0) != NULL)
          g_ptr_array_add (children, g_strdup (column_text (stmt, 0)));
    }
  sqlite3_finalize (stmt);
  for (guint i = 0; i < children->len; i++)
    database_conversation (self, db, g_ptr_array_index (children, i), g_ptr_array_index (children, i), depth + 1);
}

/* OpenCode's parts change in place (running → completed): every update
 * reads the session again, whole. */
static gboolean
opencode_update (PdTranscriptReader  *reader,
                 GCancellable        *cancellable,
                 GError             **error)
{
  PdOpenCodeReader *self = PD_OPENCODE_READER (reader);
  g_autoptr(PdImportedSession) session = NULL;

  _pd_import_budget_init (&self->budget);
  if (self->store == PD_OPENCODE_STORE_TREE)
    {
      g_autofree char *session_rel = find_storage_session (self->path, self->session_id);

      if (session_rel != NULL)
        session = read_storage_session (self->path, session_rel, self->pages, NULL);
      if (session != NULL && self->pages != NULL)
        storage_conversation (self, session_rel, self->session_id, NULL, 0);
    }
  else
    {
      g_autoptr(GPtrArray) sessions = read_database (self->path, self->session_id, self->pages, cancellable, error);

      if (sessions == NULL)
        return FALSE;
      if (sessions->len > 0)
        session = g_object_ref (g_ptr_array_index (sessions, 0));
      if (session != NULL && self->pages != NULL)
        {
          sqlite3 *db = open_read_only (self->path, NULL);

          if (db != NULL)
            database_conversation (self, db, self->session_id, NULL, 0);
          sqlite3_close (db);
        }
    }

  if (session == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "The OpenCode session %s is no longer in %s", self->session_id, self->path);
      return FALSE;
    }
  g_set_object (&self->session, session);
  return TRUE;
}

static PdImportedSession *
opencode_get_session (PdTranscriptReader *reader)
{
  return PD_OPENCODE_READER (reader)->session;
}

static const char *
opencode_get_format (PdTranscriptReader *reader)
{
  return PD_OPENCODE_READER (reader)->store == PD_OPENCODE_STORE_TREE ? "opencode-storage" : "opencode-db";
}

static void
opencode_set_pages (PdTranscriptReader *reader,
                    PdTranscriptPages  *pages)
{
  g_set_object (&PD_OPENCODE_READER (reader)->pages, pages);
}

static GStrv
opencode_dup_resume_argv (PdTranscriptReader *reader)
{
  static const char * const words[] = { "--session", NULL };
  static const char * const kilo_words[] = { "-s", NULL };
  PdImportedSession *session = PD_OPENCODE_READER (reader)->session;

  if (pd_imported_session_get_source (session) == PD_IMPORT_SOURCE_KILO_CLI)
    return _pd_import_resume_argv ("kilo", kilo_words, pd_imported_session_get_id (session));
  return _pd_import_resume_argv ("opencode", words, pd_imported_session_get_id (session));
}

static void
transcript_reader_iface_init (PdTranscriptReaderInterface *iface)
{
  iface->get_format = opencode_get_format;
  iface->set_pages = opencode_set_pages;
  iface->dup_resume_argv = opencode_dup_resume_argv;
  iface->update = opencode_update;
  iface->get_session = opencode_get_session;
}

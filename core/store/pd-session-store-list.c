/* pd-session-store-list.c: the session list: paging, the title and full-text
 * search (the FTS index of messages) and its counts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-session-store.h"
#include "pd-session-store-private.h"

/* ---------------------------------------------------------------------- */
/* Listing and search                                                     */

char *
pd_session_store_fts_query (const char *text)
{
  g_auto(GStrv) words = NULL;
  GString *out;

  if (text == NULL)
    return NULL;

  words = g_strsplit_set (text, " \t\r\n\f\v", -1);
  out = g_string_new (NULL);
  for (guint i = 0; words[i] != NULL; i++)
    {
      gboolean searchable = FALSE;

      /* A word of punctuation only has no token: as a phrase it would be
       * an FTS5 syntax error or match nothing, so it is left out. */
      for (const char *p = words[i]; *p; p++)
        if (g_ascii_isalnum (*p) || (guchar) *p >= 0x80)
          searchable = TRUE;
      if (!searchable)
        continue;

      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append_c (out, '"');
      for (const char *p = words[i]; *p; p++)
        {
          if (*p == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *p);
        }
      g_string_append_c (out, '"');
    }

  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

static char *
like_pattern (const char *query)
{
  GString *out = g_string_new ("%");

  for (const char *p = query; *p; p++)
    {
      if (*p == '%' || *p == '_' || *p == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '%');

  return g_string_free (out, FALSE);
}

/* Another agent's session by that agent's own id, the one its Continue
 * command names (`claude --resume ID`), as the import keeps it: OpenCode's
 * as the row's agent_id; Claude Code's, Codex's and Qwen Code's in the
 * transcript's file name; the Cline family's as the task's folder; Gemini
 * CLI's first 8 characters at the file name's end.  The file and folder
 * names only for 8 characters or more (the pattern is %…%): a shorter word
 * ("json") would find every file. */
#define BASENAME(x) "substr(" x ", length(rtrim(" x ", replace(" x ", '/', ''))) + 1)"
#define IMPORT_DIR "rtrim(rtrim(path, replace(path, '/', '')), '/')"
#define AGENT_ID_WHERE \
  " OR s.pk IN (SELECT session_pk FROM imports WHERE (agent_id <> '' AND agent_id LIKE ?1 ESCAPE '\\')" \
  " OR (length(?1) >= 10 AND (" BASENAME ("path") " LIKE ?1 ESCAPE '\\'" \
  " OR (format = 'cline' AND " BASENAME (IMPORT_DIR) " LIKE ?1 ESCAPE '\\')" \
  " OR (format IN ('gemini', 'gemini-json') AND instr(" BASENAME ("path") ", '-' || substr(?1, 2, 8) || '.') > 0))))"
#define SUBSTRING_WHERE \
  " WHERE (s.task LIKE ?1 ESCAPE '\\' OR s.model LIKE ?1 ESCAPE '\\'" \
  " OR s.name LIKE ?1 ESCAPE '\\' OR s.id LIKE ?1 ESCAPE '\\'" AGENT_ID_WHERE
/* The message index gives the session as rowid >> 24: no join with messages. */
#define FTS_OR \
  " OR s.pk IN (SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?2" \
  " UNION SELECT rowid >> 24 FROM messages_fts WHERE messages_fts MATCH ?2)"
/* For a term in a large part of all messages, collecting every match costs
 * ~100 ms at a million messages; probing each session in display order
 * stops after one page instead (a few ms).  The switch point: */
#define COMMON_TERM_MATCHES 20000
#define FTS_EXISTS \
  " OR s.pk IN (SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?2)" \
  " OR EXISTS (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ?2" \
  " AND rowid BETWEEN (s.pk << 24) AND (s.pk << 24) + 16777215)"
#define LIST_ORDER " ORDER BY s.pinned DESC, s.updated_at DESC, s.id LIMIT ?3 OFFSET ?4"

/* 1 when some session is hidden, 0 when none is, -1 on an error. */
static gint64
any_hidden (PdSessionStore  *self,
            GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT EXISTS (SELECT 1 FROM annotations WHERE key = '" PD_SESSION_STORE_HIDDEN_KEY "')",
                              error)))
    return -1;
  if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
    return -1;
  return pd_db_stmt_column_int64 (stmt, 0) != 0;
}

/* The number of message matches, counted up to COMMON_TERM_MATCHES + 1. */
static gint64
count_message_matches (PdSessionStore  *self,
                       const char      *fts,
                       GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT count(*) FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1 LIMIT ?2)",
                              error)))
    return -1;
  pd_db_stmt_bind_text (stmt, 1, fts);
  pd_db_stmt_bind_int (stmt, 2, COMMON_TERM_MATCHES + 1);
  if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
    return -1;
  return pd_db_stmt_column_int64 (stmt, 0);
}

/* Distinct sessions among the first COMMON_TERM_MATCHES message matches: a
 * lower bound of the total for a common term. */
static gint64
count_sessions_lower_bound (PdSessionStore  *self,
                            const char      *fts,
                            GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT count(DISTINCT rowid >> 24) FROM "
                              "(SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1 LIMIT ?2)",
                              error)))
    return -1;
  pd_db_stmt_bind_text (stmt, 1, fts);
  pd_db_stmt_bind_int (stmt, 2, COMMON_TERM_MATCHES);
  if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
    return -1;
  return pd_db_stmt_column_int64 (stmt, 0);
}

GPtrArray *
pd_session_store_list (PdSessionStore  *self,
                       const char      *query,
                       gboolean         full_text,
                       guint            offset,
                       guint            limit,
                       guint           *total,
                       GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) owners = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *like = NULL;
  g_autofree char *fts = NULL;
  const char *where;
  g_autofree char *page_sql = NULL;
  g_autofree char *count_sql = NULL;
  gint64 window_total = -1;
  gboolean common = FALSE;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (total)
    *total = 0;
  limit = CLAMP (limit, 1, PD_SESSION_LIST_MAX_LIMIT);

  if (query != NULL && strlen (query) > PD_SESSION_QUERY_MAX_BYTES)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                   "the search is too long (%" G_GSIZE_FORMAT " bytes; at most %d)",
                   strlen (query), PD_SESSION_QUERY_MAX_BYTES);
      return NULL;
    }

  if (query != NULL && *query != '\0')
    {
      like = like_pattern (query);
      if (full_text)
        fts = pd_session_store_fts_query (query);
    }

  locker = pd_db_locker_new (self->db);

  if (fts != NULL)
    {
      gint64 matches = count_message_matches (self, fts, error);

      if (matches < 0)
        return NULL;
      common = matches > COMMON_TERM_MATCHES;
    }

  /* Deleted imported sessions stay in the index, hidden
   * (pd_session_store_delete()).  Most databases hide none: their listing
   * skips the per-row test. */
  {
    gint64 any = any_hidden (self, error);

    if (any < 0)
      return NULL;
    if (like == NULL)
      where = any ? " WHERE" PD_SESSION_STORE_NOT_HIDDEN : "";
    else if (fts == NULL)
      where = any ? SUBSTRING_WHERE ") AND" PD_SESSION_STORE_NOT_HIDDEN : SUBSTRING_WHERE ")";
    else if (!common)
      where = any ? SUBSTRING_WHERE FTS_OR ") AND" PD_SESSION_STORE_NOT_HIDDEN : SUBSTRING_WHERE FTS_OR ")";
    else
      where = any ? SUBSTRING_WHERE FTS_EXISTS ") AND" PD_SESSION_STORE_NOT_HIDDEN : SUBSTRING_WHERE FTS_EXISTS ")";
  }

  /* With a filter every row is visited anyway: the window count gives the
   * total in the same pass instead of a second scan (and FTS lookup).  Not
   * for a common term, where visiting every row is what is avoided. */
  page_sql = g_strconcat ("SELECT " SESSION_COLUMNS, like && !common ? ", count(*) OVER ()" : ", -1",
                          SESSION_FROM, where, LIST_ORDER, NULL);
  count_sql = g_strconcat ("SELECT count(*) FROM sessions s", where, NULL);

  if (!(stmt = pd_db_prepare (self->db, page_sql, error)))
    return NULL;
  if (like)
    pd_db_stmt_bind_text (stmt, 1, like);
  if (fts)
    pd_db_stmt_bind_text (stmt, 2, fts);
  pd_db_stmt_bind_int (stmt, 3, (int) limit);
  pd_db_stmt_bind_int64 (stmt, 4, offset);

  sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    {
      g_ptr_array_add (sessions, _pd_session_store_info_from_row (stmt));
      window_total = pd_db_stmt_column_int64 (stmt, SESSION_COLUMNS_END);
      /* Running sessions are settled once the statement is done. */
      g_ptr_array_add (owners, pd_db_stmt_column_dup_text (stmt, 20));
    }
  if (rc != PD_DB_DONE)
    return NULL;
  g_clear_pointer (&stmt, pd_db_stmt_release);

  for (guint i = 0; i < sessions->len; i++)
    _pd_session_store_settle_running (self, g_ptr_array_index (sessions, i), g_ptr_array_index (owners, i));

  if (total)
    {
      if (window_total >= 0)
        *total = (guint) window_total;
      /* A short first page already says how many there are. */
      else if (offset == 0 && sessions->len < limit)
        *total = sessions->len;
      else if (common)
        {
          /* A lower bound: at least this page, and at least the sessions
           * of the first matches. */
          gint64 bound = count_sessions_lower_bound (self, fts, error);

          if (bound < 0)
            return NULL;
          *total = (guint) MAX ((gint64) offset + sessions->len + (sessions->len == limit ? 1 : 0), bound);
        }
      else
        {
          if (!(stmt = pd_db_prepare (self->db, count_sql, error)))
            return NULL;
          if (like)
            pd_db_stmt_bind_text (stmt, 1, like);
          if (fts)
            pd_db_stmt_bind_text (stmt, 2, fts);
          if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
            return NULL;
          *total = (guint) pd_db_stmt_column_int64 (stmt, 0);
        }
    }

  return g_steal_pointer (&sessions);
}

/* ---------------------------------------------------------------------- */
/* Sessions removed from the list                                         */

/**
 * pd_session_store_list_removed:
 *
 * The sessions of other agents removed from the list (pd_session_store_delete()
 * only hides them: their transcripts stay the agents'), the latest removed
 * first, at most PD_SESSION_LIST_MAX_LIMIT.
 *
 * Returns: (transfer full) (element-type PdSessionInfo): the removed sessions,
 *   or %NULL on an error
 */
GPtrArray *
pd_session_store_list_removed (PdSessionStore  *self,
                               GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT " SESSION_COLUMNS ", -1" SESSION_FROM
                              " JOIN annotations h ON h.session_id = s.id AND h.key = '"
                              PD_SESSION_STORE_HIDDEN_KEY "'"
                              " ORDER BY h.updated_at DESC, s.id LIMIT ?1",
                              error)))
    return NULL;
  pd_db_stmt_bind_int (stmt, 1, PD_SESSION_LIST_MAX_LIMIT);

  sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    g_ptr_array_add (sessions, _pd_session_store_info_from_row (stmt));
  if (rc != PD_DB_DONE)
    return NULL;
  return g_steal_pointer (&sessions);
}

/**
 * pd_session_store_restore:
 * @id: a session removed from the list
 *
 * Brings a session removed from the list back into it (reading the
 * agents' folders again keeps it removed until then).
 *
 * Returns: %TRUE when it is listed again; %FALSE with PD_DB_ERROR_NOT_FOUND
 *   when no removed session has @id
 */
gboolean
pd_session_store_restore (PdSessionStore  *self,
                          const char      *id,
                          GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  if (!_pd_session_store_check_id (id, error))
    return FALSE;
  /* The count of changes is this statement's: no other thread's between. */
  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db,
                              "DELETE FROM annotations WHERE session_id = ?1 AND key = '"
                              PD_SESSION_STORE_HIDDEN_KEY "'",
                              error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, id);
  if (!pd_db_step_done (self->db, stmt, error))
    return FALSE;
  if (pd_db_changes (self->db) == 0)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND,
                   "session %s is not removed from the list (or not there at all)", id);
      return FALSE;
    }
  return TRUE;
}

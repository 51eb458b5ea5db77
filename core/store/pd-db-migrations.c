/* pd-db-migrations.c: the store's schema, as the steps that build it, and
 * the upgrade of an older file step by step.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include "pd-db-private.h"

/* The migrations, in order.  Step N takes user_version N-1 to N and runs in
 * its own transaction together with the user_version bump, so a crash leaves
 * the file at a version it really has.  Never edit a released step: add one
 * (and change new_schema below, which makes a new file in one step). */
static const char * const migrations[] = {
  /* v1: sessions, transcripts, events. */
  "PRAGMA application_id = 1346652977;\n" /* PD_DB_APPLICATION_ID */
  "CREATE TABLE sessions (\n"
  "  pk            INTEGER PRIMARY KEY,\n"
  "  id            TEXT NOT NULL UNIQUE,\n"
  "  task          TEXT NOT NULL DEFAULT '',\n"
  "  name          TEXT,\n"
  "  model         TEXT NOT NULL DEFAULT '',\n"
  "  provider      TEXT NOT NULL DEFAULT '',\n"
  "  source        TEXT NOT NULL DEFAULT 'plandeck',\n"
  "  cwd           TEXT NOT NULL DEFAULT '',\n"
  "  status        TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('running','idle','failed')),\n"
  "  created_at    INTEGER NOT NULL,\n"
  "  updated_at    INTEGER NOT NULL,\n"
  "  turns         INTEGER NOT NULL DEFAULT 0,\n"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,\n"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,\n"
  "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0,1)),\n"
  "  auth_token    TEXT NOT NULL,\n"
  "  n_messages    INTEGER NOT NULL DEFAULT 0\n"
  ");\n"
  "CREATE INDEX sessions_by_order ON sessions (pinned DESC, updated_at DESC, id);\n"
  /* A message's rowid is (session pk << 24) | seq: the transcript of a session
   * is one contiguous rowid range (ordered, cheap to load and to cut), and the
   * full-text index yields the session without a join. */
  "CREATE TABLE messages (\n"
  "  id           INTEGER PRIMARY KEY,\n"
  "  role         TEXT NOT NULL CHECK (role IN ('system','developer','user','assistant','tool')),\n"
  "  content      TEXT,\n"
  "  content_json INTEGER NOT NULL DEFAULT 0,\n"  /* 1: content is JSON text (an array of parts) */
  "  name         TEXT,\n"
  "  tool_call_id TEXT,\n"
  "  tool_calls   TEXT,\n"                        /* JSON array text, or NULL */
  "  extra        TEXT\n"                         /* JSON object of any other members, or NULL */
  ");\n"
  "CREATE TABLE events (\n"
  "  seq        INTEGER PRIMARY KEY AUTOINCREMENT,\n"
  "  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  run_id     TEXT,\n"
  "  type       TEXT NOT NULL,\n"
  "  timestamp  INTEGER NOT NULL,\n"
  "  event_json TEXT NOT NULL\n"
  ");\n"
  "CREATE INDEX events_by_session ON events (session_id, seq);\n"
  "CREATE INDEX events_by_type ON events (type, seq);\n"
  /* Messages hang off the rowid range, not a foreign key, so they cascade here. */
  "CREATE TRIGGER sessions_delete_messages AFTER DELETE ON sessions BEGIN\n"
  "  DELETE FROM messages WHERE id BETWEEN (old.pk << 24) AND (old.pk << 24) + 16777215;\n"
  "END;\n",

  /* v2: plan history, annotations, the plan pill, full-text search. */
  "ALTER TABLE sessions ADD COLUMN plan_version INTEGER NOT NULL DEFAULT 0;\n"
  "ALTER TABLE sessions ADD COLUMN plan_done INTEGER NOT NULL DEFAULT 0;\n"
  "ALTER TABLE sessions ADD COLUMN plan_total INTEGER NOT NULL DEFAULT 0;\n"
  "ALTER TABLE sessions ADD COLUMN plan_blocked INTEGER NOT NULL DEFAULT 0;\n"
  "CREATE TABLE plan_versions (\n"
  "  id         INTEGER PRIMARY KEY,\n"
  "  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  version    INTEGER NOT NULL,\n"
  "  created_at INTEGER NOT NULL,\n"
  "  state_json TEXT NOT NULL,\n"
  "  done       INTEGER NOT NULL,\n"
  "  total      INTEGER NOT NULL,\n"
  "  blocked    INTEGER NOT NULL\n"
  ");\n"
  "CREATE INDEX plan_versions_by_session ON plan_versions (session_id, id);\n"
  "CREATE TABLE annotations (\n"
  "  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  key        TEXT NOT NULL,\n"
  "  value_json TEXT NOT NULL,\n"
  "  updated_at INTEGER NOT NULL,\n"
  "  PRIMARY KEY (session_id, key)\n"
  ") WITHOUT ROWID;\n"
  "CREATE VIRTUAL TABLE sessions_fts USING fts5 (task, content='sessions', content_rowid='pk',\n"
  "  tokenize='unicode61 remove_diacritics 2');\n"
  "CREATE VIRTUAL TABLE messages_fts USING fts5 (content, content='messages', content_rowid='id',\n"
  "  tokenize='unicode61 remove_diacritics 2');\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN\n"
  "  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN\n"
  "  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages BEGIN\n"
  "  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);\n"
  "  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);\n"
  "END;\n"
  /* Index what v1 already holds. */
  "INSERT INTO sessions_fts (sessions_fts) VALUES ('rebuild');\n"
  "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');\n",

  /* v3: other agents' transcripts in the index.  One row per imported
   * session: the file it was read from (an OpenCode database or storage tree
   * holds many sessions: agent_id tells them apart), what the file was like
   * when it was read (size, mtime, and a signature of the files read with it:
   * subagent transcripts, a WAL), and how far the reader got.  Only metadata
   * and counts: the agent's plan text is never stored (seed 001). */
  "CREATE TABLE imports (\n"
  "  session_pk      INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,\n"
  "  path            TEXT NOT NULL,\n"
  "  agent_id        TEXT NOT NULL DEFAULT '',\n"
  "  format          TEXT NOT NULL CHECK (format IN ('claude','codex','opencode-db','opencode-storage')),\n"
  "  size            INTEGER NOT NULL,\n"
  "  mtime           INTEGER NOT NULL,\n"
  "  deps            TEXT NOT NULL DEFAULT '',\n"
  "  read_offset     INTEGER NOT NULL DEFAULT 0,\n"
  "  lines           INTEGER NOT NULL DEFAULT 0,\n"
  "  skipped_lines   INTEGER NOT NULL DEFAULT 0,\n"
  "  applied_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  ignored_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  indexed_at      INTEGER NOT NULL,\n"
  "  UNIQUE (path, agent_id)\n"
  ");\n",

  /* v4: a run killed with SIGKILL left its session "running" for ever.  A
   * running session now names its run's owner (run_owner: the process, see
   * pd-run-owner.h), and one whose owner is gone is "interrupted".  SQLite
   * cannot change a CHECK constraint in place: the table is rebuilt (with
   * foreign keys off, see run_migrations(); same pk values, so messages,
   * the full-text index and the tables that point here stay as they are). */
  "CREATE TABLE sessions_v4 (\n"
  "  pk            INTEGER PRIMARY KEY,\n"
  "  id            TEXT NOT NULL UNIQUE,\n"
  "  task          TEXT NOT NULL DEFAULT '',\n"
  "  name          TEXT,\n"
  "  model         TEXT NOT NULL DEFAULT '',\n"
  "  provider      TEXT NOT NULL DEFAULT '',\n"
  "  source        TEXT NOT NULL DEFAULT 'plandeck',\n"
  "  cwd           TEXT NOT NULL DEFAULT '',\n"
  "  status        TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('running','idle','failed','interrupted')),\n"
  "  created_at    INTEGER NOT NULL,\n"
  "  updated_at    INTEGER NOT NULL,\n"
  "  turns         INTEGER NOT NULL DEFAULT 0,\n"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,\n"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,\n"
  "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0,1)),\n"
  "  auth_token    TEXT NOT NULL,\n"
  "  n_messages    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_version  INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_done     INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_total    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_blocked  INTEGER NOT NULL DEFAULT 0,\n"
  "  run_owner     TEXT\n"
  ");\n"
  "INSERT INTO sessions_v4 (pk, id, task, name, model, provider, source, cwd, status, created_at, updated_at,\n"
  "  turns, input_tokens, output_tokens, pinned, auth_token, n_messages, plan_version, plan_done, plan_total,\n"
  "  plan_blocked)\n"
  "SELECT pk, id, task, name, model, provider, source, cwd, status, created_at, updated_at, turns, input_tokens,\n"
  "  output_tokens, pinned, auth_token, n_messages, plan_version, plan_done, plan_total, plan_blocked\n"
  "FROM sessions;\n"
  "DROP TABLE sessions;\n"
  "ALTER TABLE sessions_v4 RENAME TO sessions;\n"
  "CREATE INDEX sessions_by_order ON sessions (pinned DESC, updated_at DESC, id);\n"
  "CREATE TRIGGER sessions_delete_messages AFTER DELETE ON sessions BEGIN\n"
  "  DELETE FROM messages WHERE id BETWEEN (old.pk << 24) AND (old.pk << 24) + 16777215;\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n",

  /* v5: more agents' transcripts (Qwen Code, Gemini CLI in both its
   * formats, the Cline family's task folders).  The format's CHECK is
   * widened by rebuilding the table, as v4 did for sessions (same pks). */
  "CREATE TABLE imports_v5 (\n"
  "  session_pk      INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,\n"
  "  path            TEXT NOT NULL,\n"
  "  agent_id        TEXT NOT NULL DEFAULT '',\n"
  "  format          TEXT NOT NULL CHECK (format IN ('claude','codex','opencode-db','opencode-storage',\n"
  "                                                  'qwen','gemini','gemini-json','cline')),\n"
  "  size            INTEGER NOT NULL,\n"
  "  mtime           INTEGER NOT NULL,\n"
  "  deps            TEXT NOT NULL DEFAULT '',\n"
  "  read_offset     INTEGER NOT NULL DEFAULT 0,\n"
  "  lines           INTEGER NOT NULL DEFAULT 0,\n"
  "  skipped_lines   INTEGER NOT NULL DEFAULT 0,\n"
  "  applied_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  ignored_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  indexed_at      INTEGER NOT NULL,\n"
  "  UNIQUE (path, agent_id)\n"
  ");\n"
  "INSERT INTO imports_v5 SELECT * FROM imports;\n"
  "DROP TABLE imports;\n"
  "ALTER TABLE imports_v5 RENAME TO imports;\n",

  /* v6: the same rules, written so an insert checks them by comparison.
   * SQLite builds a temporary index for an IN list of more than two
   * constants each time a statement runs it, CHECK constraints included:
   * two of them for each session an import added (sessions.status,
   * imports.format).  A chain of = … OR … allows exactly the same values.
   * Both tables are rebuilt, as v4 and v5 did (same pks, same rows). */
  "CREATE TABLE sessions_v6 (\n"
  "  pk            INTEGER PRIMARY KEY,\n"
  "  id            TEXT NOT NULL UNIQUE,\n"
  "  task          TEXT NOT NULL DEFAULT '',\n"
  "  name          TEXT,\n"
  "  model         TEXT NOT NULL DEFAULT '',\n"
  "  provider      TEXT NOT NULL DEFAULT '',\n"
  "  source        TEXT NOT NULL DEFAULT 'plandeck',\n"
  "  cwd           TEXT NOT NULL DEFAULT '',\n"
  "  status        TEXT NOT NULL DEFAULT 'idle'\n"
  "                CHECK (status = 'running' OR status = 'idle' OR status = 'failed' OR status = 'interrupted'),\n"
  "  created_at    INTEGER NOT NULL,\n"
  "  updated_at    INTEGER NOT NULL,\n"
  "  turns         INTEGER NOT NULL DEFAULT 0,\n"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,\n"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,\n"
  "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0,1)),\n"
  "  auth_token    TEXT NOT NULL,\n"
  "  n_messages    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_version  INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_done     INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_total    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_blocked  INTEGER NOT NULL DEFAULT 0,\n"
  "  run_owner     TEXT\n"
  ");\n"
  "INSERT INTO sessions_v6 (pk, id, task, name, model, provider, source, cwd, status, created_at, updated_at,\n"
  "  turns, input_tokens, output_tokens, pinned, auth_token, n_messages, plan_version, plan_done, plan_total,\n"
  "  plan_blocked, run_owner)\n"
  "SELECT pk, id, task, name, model, provider, source, cwd, status, created_at, updated_at, turns, input_tokens,\n"
  "  output_tokens, pinned, auth_token, n_messages, plan_version, plan_done, plan_total, plan_blocked, run_owner\n"
  "FROM sessions;\n"
  "DROP TABLE sessions;\n"
  "ALTER TABLE sessions_v6 RENAME TO sessions;\n"
  "CREATE INDEX sessions_by_order ON sessions (pinned DESC, updated_at DESC, id);\n"
  "CREATE TRIGGER sessions_delete_messages AFTER DELETE ON sessions BEGIN\n"
  "  DELETE FROM messages WHERE id BETWEEN (old.pk << 24) AND (old.pk << 24) + 16777215;\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TABLE imports_v6 (\n"
  "  session_pk      INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,\n"
  "  path            TEXT NOT NULL,\n"
  "  agent_id        TEXT NOT NULL DEFAULT '',\n"
  "  format          TEXT NOT NULL\n"
  "                  CHECK (format = 'claude' OR format = 'codex' OR format = 'opencode-db'\n"
  "                         OR format = 'opencode-storage' OR format = 'qwen' OR format = 'gemini'\n"
  "                         OR format = 'gemini-json' OR format = 'cline'),\n"
  "  size            INTEGER NOT NULL,\n"
  "  mtime           INTEGER NOT NULL,\n"
  "  deps            TEXT NOT NULL DEFAULT '',\n"
  "  read_offset     INTEGER NOT NULL DEFAULT 0,\n"
  "  lines           INTEGER NOT NULL DEFAULT 0,\n"
  "  skipped_lines   INTEGER NOT NULL DEFAULT 0,\n"
  "  applied_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  ignored_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  indexed_at      INTEGER NOT NULL,\n"
  "  UNIQUE (path, agent_id)\n"
  ");\n"
  "INSERT INTO imports_v6 SELECT * FROM imports;\n"
  "DROP TABLE imports;\n"
  "ALTER TABLE imports_v6 RENAME TO imports;\n",

  /* v7: an import's batch writes the full-text rows of the sessions it
   * adds in one statement at its end.  Once FTS5 was written in a
   * transaction it writes its pending terms out at every statement's
   * savepoint: a segment for each new session, 26.5 M of 440.8 M
   * instructions for 300 Codex rollouts.  While sessions_fts_pending holds
   * the row of pk 0 (the batch's mark, written and removed again in the
   * batch's transaction: see pd_session_store_import_batch_begin()), a new
   * session's pk goes there instead of its full-text row, and an update or
   * a delete of such a session leaves the full-text index alone (it holds
   * no row of it yet; the pk of one deleted stays noted, and the end's
   * join with sessions passes over it, or finds the session SQLite gave
   * that pk next).  Outside a batch the table is empty and the triggers do
   * what v2's did.  WHEN clauses and VALUES: an insert that read the table
   * it writes would fill a temporary table each time (see v6).  SQLite
   * gives sessions' pks from 1: none is 0. */
  "DROP TRIGGER sessions_fts_ai;\n"
  "DROP TRIGGER sessions_fts_ad;\n"
  "DROP TRIGGER sessions_fts_au;\n"
  "CREATE TABLE sessions_fts_pending (pk INTEGER PRIMARY KEY);\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions\n"
  "  WHEN NOT EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = 0) BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ai_pending AFTER INSERT ON sessions\n"
  "  WHEN EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = 0) BEGIN\n"
  "  INSERT OR IGNORE INTO sessions_fts_pending (pk) VALUES (new.pk);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions\n"
  "  WHEN NOT EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = old.pk) BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions\n"
  "  WHEN NOT EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = old.pk) BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n",

  /* v8: an imported session's plan cut at the readers' 500 items counts
   * the items it left out, for the lists to say (plan_hidden; 0 for ours:
   * the engine's plans are held to their steps when written). */
  "ALTER TABLE sessions ADD COLUMN plan_hidden INTEGER NOT NULL DEFAULT 0;\n",
};

G_STATIC_ASSERT (G_N_ELEMENTS (migrations) == PD_DB_SCHEMA_VERSION);

/* A new file's schema: what the migrations above make of an empty file,
 * written as one script and run in one transaction.  Replaying the steps
 * rebuilt tables a new file does not have yet, six commits and many schema
 * reloads (23 M instructions, 5 % of a first `import --db` of 300 Codex
 * rollouts; 6.6 M now).  Change it with each new step:
 * /pd/db/new-schema-as-migrated compares the two. */
static const char new_schema[] =
  "PRAGMA application_id = 1346652977;\n" /* PD_DB_APPLICATION_ID */
  "CREATE TABLE sessions (\n"
  "  pk            INTEGER PRIMARY KEY,\n"
  "  id            TEXT NOT NULL UNIQUE,\n"
  "  task          TEXT NOT NULL DEFAULT '',\n"
  "  name          TEXT,\n"
  "  model         TEXT NOT NULL DEFAULT '',\n"
  "  provider      TEXT NOT NULL DEFAULT '',\n"
  "  source        TEXT NOT NULL DEFAULT 'plandeck',\n"
  "  cwd           TEXT NOT NULL DEFAULT '',\n"
  "  status        TEXT NOT NULL DEFAULT 'idle'\n"
  "                CHECK (status = 'running' OR status = 'idle' OR status = 'failed' OR status = 'interrupted'),\n"
  "  created_at    INTEGER NOT NULL,\n"
  "  updated_at    INTEGER NOT NULL,\n"
  "  turns         INTEGER NOT NULL DEFAULT 0,\n"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,\n"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,\n"
  "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0,1)),\n"
  "  auth_token    TEXT NOT NULL,\n"
  "  n_messages    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_version  INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_done     INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_total    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_blocked  INTEGER NOT NULL DEFAULT 0,\n"
  "  run_owner     TEXT\n"
  /* As v8's ALTER TABLE writes it into the stored text. */
  ", plan_hidden INTEGER NOT NULL DEFAULT 0);\n"
  "CREATE INDEX sessions_by_order ON sessions (pinned DESC, updated_at DESC, id);\n"
  "CREATE TRIGGER sessions_delete_messages AFTER DELETE ON sessions BEGIN\n"
  "  DELETE FROM messages WHERE id BETWEEN (old.pk << 24) AND (old.pk << 24) + 16777215;\n"
  "END;\n"
  "CREATE TABLE sessions_fts_pending (pk INTEGER PRIMARY KEY);\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions\n"
  "  WHEN NOT EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = 0) BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ai_pending AFTER INSERT ON sessions\n"
  "  WHEN EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = 0) BEGIN\n"
  "  INSERT OR IGNORE INTO sessions_fts_pending (pk) VALUES (new.pk);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions\n"
  "  WHEN NOT EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = old.pk) BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions\n"
  "  WHEN NOT EXISTS (SELECT 1 FROM sessions_fts_pending WHERE pk = old.pk) BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  /* A message's rowid is (session pk << 24) | seq: the transcript of a session
   * is one contiguous rowid range (ordered, cheap to load and to cut), and the
   * full-text index yields the session without a join. */
  "CREATE TABLE messages (\n"
  "  id           INTEGER PRIMARY KEY,\n"
  "  role         TEXT NOT NULL CHECK (role IN ('system','developer','user','assistant','tool')),\n"
  "  content      TEXT,\n"
  "  content_json INTEGER NOT NULL DEFAULT 0,\n"  /* 1: content is JSON text (an array of parts) */
  "  name         TEXT,\n"
  "  tool_call_id TEXT,\n"
  "  tool_calls   TEXT,\n"                        /* JSON array text, or NULL */
  "  extra        TEXT\n"                         /* JSON object of any other members, or NULL */
  ");\n"
  "CREATE TABLE events (\n"
  "  seq        INTEGER PRIMARY KEY AUTOINCREMENT,\n"
  "  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  run_id     TEXT,\n"
  "  type       TEXT NOT NULL,\n"
  "  timestamp  INTEGER NOT NULL,\n"
  "  event_json TEXT NOT NULL\n"
  ");\n"
  "CREATE INDEX events_by_session ON events (session_id, seq);\n"
  "CREATE INDEX events_by_type ON events (type, seq);\n"
  "CREATE TABLE plan_versions (\n"
  "  id         INTEGER PRIMARY KEY,\n"
  "  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  version    INTEGER NOT NULL,\n"
  "  created_at INTEGER NOT NULL,\n"
  "  state_json TEXT NOT NULL,\n"
  "  done       INTEGER NOT NULL,\n"
  "  total      INTEGER NOT NULL,\n"
  "  blocked    INTEGER NOT NULL\n"
  ");\n"
  "CREATE INDEX plan_versions_by_session ON plan_versions (session_id, id);\n"
  "CREATE TABLE annotations (\n"
  "  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  key        TEXT NOT NULL,\n"
  "  value_json TEXT NOT NULL,\n"
  "  updated_at INTEGER NOT NULL,\n"
  "  PRIMARY KEY (session_id, key)\n"
  ") WITHOUT ROWID;\n"
  "CREATE VIRTUAL TABLE sessions_fts USING fts5 (task, content='sessions', content_rowid='pk',\n"
  "  tokenize='unicode61 remove_diacritics 2');\n"
  "CREATE VIRTUAL TABLE messages_fts USING fts5 (content, content='messages', content_rowid='id',\n"
  "  tokenize='unicode61 remove_diacritics 2');\n"
  "CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN\n"
  "  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN\n"
  "  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages BEGIN\n"
  "  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);\n"
  "  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);\n"
  "END;\n"
  "CREATE TABLE imports (\n"
  "  session_pk      INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,\n"
  "  path            TEXT NOT NULL,\n"
  "  agent_id        TEXT NOT NULL DEFAULT '',\n"
  "  format          TEXT NOT NULL\n"
  "                  CHECK (format = 'claude' OR format = 'codex' OR format = 'opencode-db'\n"
  "                         OR format = 'opencode-storage' OR format = 'qwen' OR format = 'gemini'\n"
  "                         OR format = 'gemini-json' OR format = 'cline'),\n"
  "  size            INTEGER NOT NULL,\n"
  "  mtime           INTEGER NOT NULL,\n"
  "  deps            TEXT NOT NULL DEFAULT '',\n"
  "  read_offset     INTEGER NOT NULL DEFAULT 0,\n"
  "  lines           INTEGER NOT NULL DEFAULT 0,\n"
  "  skipped_lines   INTEGER NOT NULL DEFAULT 0,\n"
  "  applied_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  ignored_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  indexed_at      INTEGER NOT NULL,\n"
  "  UNIQUE (path, agent_id)\n"
  ");\n";

const char *
_pd_db_migration_sql (guint version)
{
  if (version < 1 || version > G_N_ELEMENTS (migrations))
    return NULL;
  return migrations[version - 1];
}

/* The migration of one version, in the caller's transaction: its SQL,
 * the foreign keys checked (a table rebuild runs with them off), and the
 * version bump. */
static int
migrate_step (PdDb       *self,
              const char *sql,
              guint       v)
{
  g_autofree char *bump = g_strdup_printf ("PRAGMA user_version = %u", v);
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_exec (self->handle, sql, NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (self->handle, "PRAGMA foreign_key_check", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      rc = sqlite3_step (stmt);
      /* A row is a broken reference: keep the file as it was. */
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc == SQLITE_ROW ? SQLITE_CONSTRAINT : rc;
      sqlite3_finalize (stmt);
    }
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (self->handle, bump, NULL, NULL, NULL);
  return rc;
}

static gboolean run_migrations_locked (PdDb    *self,
                                       GError **error);

/* Foreign keys are off while migrating: rebuilding the sessions table (v4)
 * drops the old one, which with them on would delete every event, plan
 * version and annotation through ON DELETE CASCADE.  The pragma has no
 * effect inside a transaction, so it is set around them. */
gboolean
_pd_db_run_migrations (PdDb    *self,
                       GError **error)
{
  gboolean ok;

  sqlite3_exec (self->handle, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL);
  ok = run_migrations_locked (self, error);
  sqlite3_exec (self->handle, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  return ok;
}

static gboolean
run_migrations_locked (PdDb    *self,
                       GError **error)
{
  for (guint v = (guint) self->user_version + 1; v <= PD_DB_SCHEMA_VERSION; v++)
    {
      gint64 current = 0;
      const char *sql;
      int rc;

      if (!pd_db_begin (self, error))
        return FALSE;

      /* Another process may have migrated while we waited for the lock. */
      if (!_pd_db_query_int (self, "PRAGMA user_version", &current, error))
        {
          pd_db_rollback (self);
          return FALSE;
        }
      if (current >= v)
        {
          pd_db_rollback (self);
          self->user_version = (int) current;
          continue;
        }

      /* A new file is made at this build's version in one step. */
      if (current == 0)
        {
          sql = new_schema;
          v = PD_DB_SCHEMA_VERSION;
        }
      else
        sql = migrations[v - 1];
      rc = migrate_step (self, sql, v);
      if (rc != SQLITE_OK)
        {
          g_autofree char *what = g_strdup_printf ("upgrading the schema to version %u", v);

          _pd_db_set_error_from_sqlite (self, rc, what, error);
          pd_db_rollback (self);
          return FALSE;
        }
      if (!pd_db_commit (self, error))
        return FALSE;
      self->user_version = (int) v;
      g_debug ("%s: migrated to schema version %u", self->path, v);
    }

  return TRUE;
}

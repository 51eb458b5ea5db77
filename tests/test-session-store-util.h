/* test-session-store-util.h: what the session store's test programs share.
 *
 * A fixture with a store on a fresh database file, and helpers to create,
 * save and dump sessions.  test-session-store.c tries the store's reads
 * and writes; test-session-store-runs.c the run owner and interrupted runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include "pd-db-private.h"
#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-run-owner.h"
#include "pd-session-store-private.h"

typedef struct
{
  char           *dir;
  char           *path;
  PdDb           *db;
  PdSessionStore *store;
} Fixture;

static inline void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-test-store-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "plandeck.db", NULL);
  f->db = pd_db_open (f->path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (f->db);
}

static inline void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_clear_object (&f->store);
  g_clear_object (&f->db);
  dir = g_dir_open (f->dir, 0, NULL);
  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (f->dir, name, NULL);
      g_remove (child);
    }
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

static inline PdSessionInfo *
create (Fixture    *f,
        const char *task,
        const char *model)
{
  g_autoptr(GError) error = NULL;
  PdSessionInfo *info = pd_session_store_create (f->store, task, model, "openai", "plandeck", "/src", &error);

  g_assert_no_error (error);
  g_assert_nonnull (info);
  return info;
}

static inline JsonArray *
parse_array (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_array_ref (json_node_get_array (node));
}

static inline char *
array_to_string (JsonArray *array)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), array);
  return json_to_string (node, FALSE);
}

/* Everything the database holds, as text, to compare before and after. */
static inline char *
dump (Fixture *f)
{
  static const char * const queries[] = {
    "SELECT * FROM sessions ORDER BY pk",
    "SELECT * FROM messages ORDER BY id",
    "SELECT * FROM plan_versions ORDER BY id",
    "SELECT * FROM events ORDER BY seq",
    "SELECT * FROM annotations ORDER BY session_id, key",
    "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'zebra OR walrus OR hunter2' ORDER BY rowid",
  };
  GString *out = g_string_new (NULL);
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open_v2 (f->path, &handle, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      sqlite3_stmt *stmt = NULL;

      g_assert_cmpint (sqlite3_prepare_v2 (handle, queries[q], -1, &stmt, NULL), ==, SQLITE_OK);
      g_string_append_printf (out, "== %s\n", queries[q]);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          for (int c = 0; c < sqlite3_column_count (stmt); c++)
            g_string_append_printf (out, "%s|", sqlite3_column_text (stmt, c) ?
                                    (const char *) sqlite3_column_text (stmt, c) : "NULL");
          g_string_append_c (out, '\n');
        }
      sqlite3_finalize (stmt);
    }
  sqlite3_close (handle);

  return g_string_free (out, FALSE);
}

static inline void
save (Fixture      *f,
      const PdTurn *turn)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_session_store_save_turn (f->store, turn, &error));
  g_assert_no_error (error);
}

static inline PdPlanState *
plan_from (PdPlanStore *plans,
           const char  *call)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (plans, call, &error);

  g_assert_no_error (error);
  return pd_plan_store_snapshot (plans);
}

/* A transcript with a secret in a message and in a tool call. */
static const char transcript_json[] =
  "[{\"role\":\"system\",\"content\":\"You are helpful.\"},"
  "{\"role\":\"user\",\"content\":\"Deploy with password=hunter2 please\"},"
  "{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"think\","
  "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"shell\","
  "\"arguments\":\"{\\\"command\\\":\\\"curl -H 'Authorization: Bearer abcdef0123456789' x\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"name\":\"shell\",\"content\":[{\"type\":\"text\",\"text\":\"ok zebra\"}]}]";

/* bench-store.c: the store at 10,000 sessions and 1,000,000 messages.
 *
 * Prints figures, asserts nothing about time.  Sessions get 100 messages in
 * 4 turns of 25 (the batching), words drawn from a fixed vocabulary so that
 * "common" matches most sessions and "rare" a few.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-db-private.h"
#include "pd-plan.h"
#include "pd-session-store.h"

#define N_SESSIONS           10000
#define MESSAGES_PER_SESSION 100
#define TURNS_PER_SESSION    4
#define REPEATS              20

static const char * const words[] = {
  "build", "test", "parser", "refactor", "module", "function", "error", "fix", "the", "and",
  "compile", "link", "header", "struct", "pointer", "memory", "thread", "lock", "queue", "buffer",
  "render", "widget", "signal", "model", "view", "store", "query", "index", "plan", "step",
};

static double
ms_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1000.0;
}

static char *
sentence (GRand *rand,
          guint  i)
{
  GString *s = g_string_new (NULL);
  guint n = (guint) g_rand_int_range (rand, 8, 30);

  for (guint w = 0; w < n; w++)
    {
      if (w)
        g_string_append_c (s, ' ');
      g_string_append (s, words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
    }
  /* About one message in 20,000 holds the rare word. */
  if (i % 20011 == 7)
    g_string_append (s, " xylophone");
  return g_string_free (s, FALSE);
}

typedef double (*TimedFunc) (PdSessionStore *store, gpointer data);

static void
report (const char *what,
        double     *samples,
        guint       n)
{
  double min = samples[0], sum = 0;

  for (guint i = 0; i < n; i++)
    {
      min = MIN (min, samples[i]);
      sum += samples[i];
    }
  g_print ("  %-52s  mean %8.2f ms   best %8.2f ms\n", what, sum / n, min);
}

static void
time_list (PdSessionStore *store,
           const char     *label,
           const char     *query,
           gboolean        full_text,
           guint           offset)
{
  double samples[REPEATS];
  guint total = 0, len = 0;

  for (guint r = 0; r < REPEATS; r++)
    {
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      g_autoptr(GPtrArray) page = pd_session_store_list (store, query, full_text, offset, 50, &total, &error);

      samples[r] = ms_since (start);
      g_assert_no_error (error);
      len = page->len;
    }
  {
    g_autofree char *what = g_strdup_printf ("%s (%u on page, %u total)", label, len, total);
    report (what, samples, REPEATS);
  }
}

static double
time_sql (sqlite3    *handle,
          const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 start = g_get_monotonic_time ();

  g_assert_cmpint (sqlite3_prepare_v2 (handle, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    ;
  sqlite3_finalize (stmt);
  return ms_since (start);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-bench-store-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *raw_path = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PdPlanStore) plans = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) plan = NULL;
  GRand *rand = g_rand_new_with_seed (1234);
  guint n_turns = 0, msg_counter = 0;
  gint64 start;
  double elapsed;

  g_assert_no_error (error);
  path = g_build_filename (dir, "bench.db", NULL);
  raw_path = g_build_filename (dir, "raw.db", NULL);
  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  {
    g_autofree char *r = pd_plan_store_execute (plans, "{\"verb\":\"create\",\"steps\":[\"Read\",\"Change\",\"Test\"]}", &error);
    g_assert_no_error (error);
  }
  plan = pd_plan_store_snapshot (plans);

  g_print ("store benchmark: %d sessions x %d messages, %d turns per session, in %s\n",
           N_SESSIONS, MESSAGES_PER_SESSION, TURNS_PER_SESSION, dir);

  /* Fill through save_turn: each turn appends 25 messages to the
   * transcript and stores a plan version. */
  start = g_get_monotonic_time ();
  for (guint s = 0; s < N_SESSIONS; s++)
    {
      g_autofree char *task = sentence (rand, s);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, s % 3 ? "gpt-4o" : "llama-3",
                                                               "openai", "plandeck", "/src", &error);
      g_autoptr(JsonArray) messages = json_array_new ();
      guint per_turn = MESSAGES_PER_SESSION / TURNS_PER_SESSION;

      g_assert_no_error (error);
      g_ptr_array_add (ids, g_strdup (info->id));
      for (guint t = 0; t < TURNS_PER_SESSION; t++)
        {
          PdTurn turn = { info->id, messages, t * per_turn, t == 0 ? plan : NULL, 100, 50, TRUE,
                          PD_SESSION_STATUS_IDLE };

          for (guint m = 0; m < per_turn; m++)
            {
              g_autoptr(JsonObject) message = json_object_new ();
              g_autofree char *text = sentence (rand, msg_counter++);

              json_object_set_string_member (message, "role", m % 2 ? "assistant" : "user");
              json_object_set_string_member (message, "content", text);
              json_array_add_object_element (messages, g_steal_pointer (&message));
            }
          if (!pd_session_store_save_turn (store, &turn, &error))
            g_error ("save_turn: %s", error->message);
          n_turns++;
        }
    }
  elapsed = ms_since (start) / 1000.0;
  g_print ("  fill via save_turn: %u turns, %u messages in %.1f s = %.0f turns/s, %.0f messages/s\n",
           n_turns, msg_counter, elapsed, n_turns / elapsed, msg_counter / elapsed);

  /* Baseline: raw INSERTs of the same shape into a bare table (no
   * redaction, no FTS, one transaction). */
  {
    sqlite3 *raw = NULL;
    sqlite3_stmt *stmt = NULL;
    const guint n_raw = 200000;

    g_assert_cmpint (sqlite3_open (raw_path, &raw), ==, SQLITE_OK);
    sqlite3_exec (raw, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                       "CREATE TABLE m (id INTEGER PRIMARY KEY, role TEXT, content TEXT);", NULL, NULL, NULL);
    sqlite3_prepare_v2 (raw, "INSERT INTO m (role, content) VALUES (?1, ?2)", -1, &stmt, NULL);
    start = g_get_monotonic_time ();
    sqlite3_exec (raw, "BEGIN", NULL, NULL, NULL);
    for (guint i = 0; i < n_raw; i++)
      {
        g_autofree char *text = sentence (rand, i);

        sqlite3_bind_text (stmt, 1, "user", -1, SQLITE_STATIC);
        sqlite3_bind_text (stmt, 2, text, -1, SQLITE_TRANSIENT);
        sqlite3_step (stmt);
        sqlite3_reset (stmt);
      }
    sqlite3_exec (raw, "COMMIT", NULL, NULL, NULL);
    elapsed = ms_since (start) / 1000.0;
    g_print ("  baseline raw INSERT (no FTS, no redaction, 1 tx): %.0f messages/s\n", n_raw / elapsed);
    sqlite3_finalize (stmt);
    sqlite3_close (raw);
  }

  /* Pin a few so the pinned-first order has work to do. */
  for (guint i = 0; i < 5; i++)
    pd_session_store_set_pinned (store, ids->pdata[i * 997], TRUE, NULL);

  g_print ("queries (%d runs each):\n", REPEATS);
  time_list (store, "first page, no query", NULL, FALSE, 0);
  time_list (store, "page at offset 5000", NULL, FALSE, 5000);
  time_list (store, "substring \"parser refactor\"", "parser refactor", FALSE, 0);
  time_list (store, "substring, rare \"zzz-none\"", "zzz-none", FALSE, 0);
  time_list (store, "substring id tail", (const char *) ids->pdata[4242] + 30, FALSE, 0);
  time_list (store, "full text, rare \"xylophone\"", "xylophone", TRUE, 0);
  time_list (store, "full text, common \"parser\"", "parser", TRUE, 0);
  time_list (store, "full text, two common \"parser widget\"", "parser widget", TRUE, 0);

  /* Baseline: the first page without the order index (sorting all rows). */
  {
    double samples[REPEATS];
    sqlite3 *handle = _pd_db_get_handle (db);

    for (guint r = 0; r < REPEATS; r++)
      samples[r] = time_sql (handle, "SELECT id FROM sessions NOT INDEXED "
                                     "ORDER BY pinned DESC, updated_at DESC, id LIMIT 50");
    report ("baseline: first page without the order index", samples, REPEATS);
    for (guint r = 0; r < REPEATS; r++)
      samples[r] = time_sql (handle, "SELECT DISTINCT m.id >> 24 FROM messages_fts f "
                                     "JOIN messages m ON m.id = f.rowid WHERE messages_fts MATCH 'parser'");
    report ("baseline: common term through a join with messages", samples, REPEATS);
  }

  {
    double samples[REPEATS];
    guint n = 0;

    for (guint r = 0; r < REPEATS; r++)
      {
        gint64 t = g_get_monotonic_time ();
        g_autoptr(JsonArray) messages = pd_session_store_load_messages (store, ids->pdata[(r * 331) % N_SESSIONS], &error);

        samples[r] = ms_since (t);
        g_assert_no_error (error);
        n = json_array_get_length (messages);
      }
    {
      g_autofree char *what = g_strdup_printf ("load one session's messages (%u)", n);
      report (what, samples, REPEATS);
    }
  }

  {
    GStatBuf st;
    g_autofree char *wal = g_strconcat (path, "-wal", NULL);
    gint64 wal_size = 0;

    if (g_stat (wal, &st) == 0)
      wal_size = st.st_size;
    g_assert_cmpint (g_stat (path, &st), ==, 0);
    g_print ("file size: %.1f MiB (+ %.1f MiB WAL)\n", st.st_size / 1048576.0, wal_size / 1048576.0);
  }

  g_clear_object (&store);
  g_clear_object (&db);
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d && (name = g_dir_read_name (d)))
      {
        g_autofree char *child = g_build_filename (dir, name, NULL);
        g_remove (child);
      }
    g_rmdir (dir);
  }
  g_rand_free (rand);
  return 0;
}

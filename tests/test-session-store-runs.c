/* test-session-store-runs.c: PdSessionStore's runs on real database files:
 * who owns a running session, and what is left when its owner is gone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

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
#include "test-session-store-util.h"

static void
set_owner (Fixture    *f,
           const char *id,
           const char *owner)
{
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_prepare_v2 (_pd_db_get_handle (f->db),
                                       "UPDATE sessions SET status = 'running', run_owner = ?2 WHERE id = ?1",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, id, -1, SQLITE_STATIC);
  if (owner)
    sqlite3_bind_text (stmt, 2, owner, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, 2);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
}

static char *
raw_status (Fixture    *f,
            const char *id)
{
  sqlite3_stmt *stmt = NULL;
  char *status;

  g_assert_cmpint (sqlite3_prepare_v2 (_pd_db_get_handle (f->db), "SELECT status FROM sessions WHERE id = ?1",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, id, -1, SQLITE_STATIC);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  status = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  return status;
}

static PdSessionStatus
status_of (Fixture    *f,
           const char *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_get (f->store, id, &error);
  g_autoptr(GPtrArray) list = NULL;

  g_assert_no_error (error);
  /* The list reads the same. */
  list = pd_session_store_list (f->store, NULL, FALSE, 0, 50, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < list->len; i++)
    {
      PdSessionInfo *listed = g_ptr_array_index (list, i);
      if (strcmp (listed->id, id) == 0)
        g_assert_cmpint (listed->status, ==, info->status);
    }
  return info->status;
}

/* A run killed with SIGKILL left its session "running" for ever.  A
 * running session names its run's owner; read, it is "interrupted" once
 * that process is gone, and never while it lives (this process's run, or
 * another process's). */
static void
test_interrupted (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdSessionInfo) info = create (f, "long job", "m");
  g_autoptr(JsonArray) messages = parse_array (transcript_json);
  g_autoptr(GError) error = NULL;
  g_autofree char *self_owner = NULL;
  g_autofree char *status = NULL;
  const char *sleeper[] = { "sleep", "60", NULL };
  GPid child = 0;
  PdTurn turn = { info->id, messages, 0, NULL, 1, 1, TRUE, PD_SESSION_STATUS_RUNNING };

  /* This process's run: running. */
  save (f, &turn);
  g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_RUNNING);
  self_owner = _pd_run_owner_of ((int) getpid ());
  g_assert_nonnull (self_owner);
  g_assert_cmpstr (self_owner, ==, _pd_run_owner_self ());

  /* Another live process's run: running; once it is killed: interrupted,
   * and written so. */
  g_assert_true (g_spawn_async (NULL, (char **) sleeper, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &child, &error));
  g_assert_no_error (error);
  {
    g_autofree char *owner = NULL;

    /* /proc shows the child once it runs. */
    for (guint i = 0; i < 200 && owner == NULL; i++, g_usleep (10000))
      owner = _pd_run_owner_of (child);
    g_assert_nonnull (owner);
    set_owner (f, info->id, owner);
    g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_RUNNING);
    status = raw_status (f, info->id);
    g_assert_cmpstr (status, ==, "running");
    g_clear_pointer (&status, g_free);

    kill (child, SIGKILL);
    waitpid (child, NULL, 0);
    g_spawn_close_pid (child);

    /* A read-only reader says interrupted, and writes nothing. */
    {
      g_autoptr(PdDb) ro = pd_db_open (f->path, PD_DB_READ_ONLY, &error);
      g_autoptr(PdSessionStore) reader = pd_session_store_new (ro);
      g_autoptr(PdSessionInfo) seen = pd_session_store_get (reader, info->id, &error);

      g_assert_no_error (error);
      g_assert_cmpint (seen->status, ==, PD_SESSION_STATUS_INTERRUPTED);
      status = raw_status (f, info->id);
      g_assert_cmpstr (status, ==, "running");
      g_clear_pointer (&status, g_free);
    }

    g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_INTERRUPTED);
    status = raw_status (f, info->id);
    g_assert_cmpstr (status, ==, "interrupted");
    g_clear_pointer (&status, g_free);
  }

  /* A pid that is someone else's now (same pid, another start time), a run
   * of before the last boot, a row from before owners were kept: gone. */
  {
    g_auto(GStrv) parts = g_strsplit (self_owner, " ", 0);
    g_autofree char *reused = g_strdup_printf ("v1 %s %s %s 1", parts[1], parts[2], parts[3]);
    g_autofree char *old_boot = g_strdup_printf ("v1 00000000-0000-0000-0000-000000000000 %s %s %s",
                                                 parts[2], parts[3], parts[4]);
    g_autofree char *other_ns = g_strdup_printf ("v1 %s 1 %s %s", parts[1], parts[3], parts[4]);
    const char *gone[] = { reused, old_boot, NULL };

    for (guint i = 0; i < G_N_ELEMENTS (gone); i++)
      {
        set_owner (f, info->id, gone[i]);
        g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_INTERRUPTED);
      }

    /* Another pid namespace (a container sharing the file), or an owner
     * that cannot be read: not known to be gone, so left running. */
    set_owner (f, info->id, other_ns);
    g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_RUNNING);
    set_owner (f, info->id, "v2 something else");
    g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_RUNNING);
  }

  /* Continued: running again, owned by this process. */
  set_owner (f, info->id, NULL);
  g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_INTERRUPTED);
  {
    PdTurn again = { info->id, NULL, 0, NULL, 0, 0, FALSE, PD_SESSION_STATUS_RUNNING };
    save (f, &again);
  }
  g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_RUNNING);
  g_assert_true (pd_session_store_set_status (f->store, info->id, PD_SESSION_STATUS_IDLE, &error));
  g_assert_cmpint (status_of (f, info->id), ==, PD_SESSION_STATUS_IDLE);
  g_assert_cmpstr (pd_session_status_to_string (PD_SESSION_STATUS_INTERRUPTED), ==, "interrupted");
}

/* A session changed ahead of this clock (tried as an attacker would: an
 * imported transcript dated 2099, its steps unfinished, said "working" in
 * every list for ever).  A change up to PD_SESSION_FUTURE_MINUTES ahead is
 * a clock a little fast and counts as now; further ahead it is no sign of
 * work.  And a time far in the past is old, not an overflow. */
static void
test_working_future (void)
{
  const gint64 minute = 60 * G_USEC_PER_SEC;
  const gint64 window = (gint64) PD_SESSION_WORKING_MINUTES * minute;
  const gint64 now = (gint64) 1796300000 * G_USEC_PER_SEC;  /* 2026-12-03 */
  g_autoptr(GDateTime) far = g_date_time_new_utc (2099, 12, 31, 23, 0, 0);
  PdSessionInfo info = { 0 };

  g_assert_true (pd_session_changed_lately (now - minute, now, window));
  g_assert_false (pd_session_changed_lately (now - window - 1, now, window));
  g_assert_true (pd_session_changed_lately (now + minute, now, window));
  g_assert_true (pd_session_changed_lately (now + PD_SESSION_FUTURE_MINUTES * minute, now, window));
  g_assert_false (pd_session_changed_lately (now + PD_SESSION_FUTURE_MINUTES * minute + 1, now, window));
  g_assert_false (pd_session_changed_lately (g_date_time_to_unix (far) * G_USEC_PER_SEC, now, window));
  g_assert_false (pd_session_changed_lately (G_MAXINT64, now, window));
  g_assert_false (pd_session_changed_lately (G_MININT64, now, window));

  /* Another agent's session, a step left, nothing of ours run. */
  info.source = (char *) "claude-code";
  info.status = PD_SESSION_STATUS_IDLE;
  info.plan_total = 2;
  info.plan_done = 1;
  info.updated_at = now - minute;
  g_assert_true (pd_session_info_is_working (&info, now));
  g_assert_cmpstr (pd_session_info_get_state (&info, now), ==, "working");
  info.updated_at = now + 2 * minute;
  g_assert_cmpstr (pd_session_info_get_state (&info, now), ==, "working");
  info.updated_at = g_date_time_to_unix (far) * G_USEC_PER_SEC;
  g_assert_false (pd_session_info_is_working (&info, now));
  g_assert_cmpstr (pd_session_info_get_state (&info, now), ==, "idle");
  /* A run of ours says so whatever the clock. */
  info.status = PD_SESSION_STATUS_RUNNING;
  g_assert_cmpstr (pd_session_info_get_state (&info, now), ==, "running");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/store/working-future", test_working_future);
  g_test_add ("/pd/store/interrupted", Fixture, NULL, fixture_setup, test_interrupted, fixture_teardown);

  return g_test_run ();
}

/* test-session-store.c: PdSessionStore on real database files.
 *
 * Runs, their owners and interrupted runs are test-session-store-runs.c's.
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

/* ---------------------------------------------------------------------- */

static void
test_session_id (void)
{
  g_autofree char *a = pd_session_id_new ();
  g_autofree char *b = pd_session_id_new ();
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *today = g_date_time_format (now, "%Y%m%d-");
  const char *bad[] = {
    "", "20250101", "20250101-0123456789abcdef0123456789abcde",
    "20250101-0123456789abcdef0123456789abcdef0", "20250101-0123456789ABCDEF0123456789abcdef",
    "2025010a-0123456789abcdef0123456789abcdef", "20250101_0123456789abcdef0123456789abcdef",
    "../../../../etc/passwd/0123456789abcdef0123", "20250101-0123456789abcdef/123456789abcdef",
    "20250101-0123456789abcdef..3456789abcdef", "20250101-0123456789abcdef\\123456789abcdef",
  };

  g_assert_true (pd_session_id_is_valid (a));
  g_assert_cmpstr (a, !=, b);
  g_assert_cmpuint (strlen (a), ==, PD_SESSION_ID_LEN);
  g_assert_true (g_str_has_prefix (a, today));
  g_assert_true (pd_session_id_is_valid ("20250101-0123456789abcdef0123456789abcdef"));
  g_assert_false (pd_session_id_is_valid (NULL));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (pd_session_id_is_valid (bad[i]));
  /* A NUL inside cuts the id short: refused by length. */
  g_assert_false (pd_session_id_is_valid ("20250101-0123456789abcdef\0" "0123456789abcdef"));
}

static void
test_create_get (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PdSessionInfo) info = create (f, "Fix the build; token=abc123", "gpt-x");
  g_autoptr(PdSessionInfo) again = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_session_id_is_valid (info->id));
  g_assert_cmpstr (info->task, ==, "Fix the build; token=[REDACTED]");
  g_assert_cmpstr (info->model, ==, "gpt-x");
  g_assert_cmpstr (info->provider, ==, "openai");
  g_assert_cmpstr (info->source, ==, "plandeck");
  g_assert_cmpstr (info->cwd, ==, "/src");
  g_assert_null (info->name);
  g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_IDLE);
  g_assert_cmpuint (strlen (info->auth_token), ==, 64);
  g_assert_cmpint (info->created_at, ==, info->updated_at);
  g_assert_cmpint (info->created_at, >, 0);

  again = pd_session_store_get (f->store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again->auth_token, ==, info->auth_token);

  g_assert_null (pd_session_store_get (f->store, "20250101-00000000000000000000000000000000", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (pd_session_store_get (f->store, "../etc", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID);
  g_clear_error (&error);

  g_assert_true (pd_session_store_rename (f->store, info->id, "My title", &error));
  g_assert_true (pd_session_store_set_pinned (f->store, info->id, TRUE, &error));
  g_assert_true (pd_session_store_set_status (f->store, info->id, PD_SESSION_STATUS_FAILED, &error));
  g_assert_no_error (error);
  g_clear_pointer (&again, pd_session_info_free);
  again = pd_session_store_get (f->store, info->id, &error);
  g_assert_cmpstr (again->name, ==, "My title");
  g_assert_true (again->pinned);
  g_assert_cmpint (again->status, ==, PD_SESSION_STATUS_FAILED);
  g_assert_true (pd_session_store_rename (f->store, info->id, NULL, &error));
  g_clear_pointer (&again, pd_session_info_free);
  again = pd_session_store_get (f->store, info->id, &error);
  g_assert_null (again->name);

  g_assert_false (pd_session_store_set_pinned (f->store, "20250101-00000000000000000000000000000000", TRUE, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
}

static void
test_save_load (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdSessionInfo) info = create (f, "deploy", "m");
  g_autoptr(PdSessionInfo) after = NULL;
  g_autoptr(JsonArray) messages = parse_array (transcript_json);
  g_autoptr(JsonArray) loaded = NULL;
  g_autoptr(JsonArray) longer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *original = array_to_string (messages);
  PdTurn turn = { info->id, messages, 0, NULL, 100, 20, TRUE, PD_SESSION_STATUS_RUNNING };

  save (f, &turn);
  /* The caller's transcript is not touched by redaction. */
  g_clear_pointer (&text, g_free);
  text = array_to_string (messages);
  g_assert_cmpstr (text, ==, original);

  loaded = pd_session_store_load_messages (f->store, info->id, &error);
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = array_to_string (loaded);
  g_assert_cmpstr (text, ==,
    "[{\"role\":\"system\",\"content\":\"You are helpful.\"},"
    "{\"role\":\"user\",\"content\":\"Deploy with password=[REDACTED] please\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
    "\"function\":{\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":\\\"curl -H 'Authorization: Bearer [REDACTED]' x\\\"}\"}}],"
    "\"reasoning_content\":\"think\"},"
    "{\"role\":\"tool\",\"content\":[{\"type\":\"text\",\"text\":\"ok zebra\"}],\"name\":\"shell\",\"tool_call_id\":\"call_1\"}]");

  after = pd_session_store_get (f->store, info->id, &error);
  g_assert_cmpint (after->turns, ==, 1);
  g_assert_cmpint (after->input_tokens, ==, 100);
  g_assert_cmpint (after->output_tokens, ==, 20);
  g_assert_cmpuint (after->n_messages, ==, 4);
  g_assert_cmpint (after->status, ==, PD_SESSION_STATUS_RUNNING);
  g_assert_cmpint (after->updated_at, >=, info->updated_at);

  /* Next turn: message 1 changed (e.g. the plan message refreshed in
   * place), one appended; the rest is rewritten from there. */
  longer = parse_array (transcript_json);
  json_object_set_string_member (json_array_get_object_element (longer, 1), "content", "changed walrus");
  json_array_add_object_element (longer, json_object_new ());
  json_object_set_string_member (json_array_get_object_element (longer, 4), "role", "assistant");
  json_object_set_string_member (json_array_get_object_element (longer, 4), "content", "done");
  {
    PdTurn next = { info->id, longer, 1, NULL, 5, 6, FALSE, PD_SESSION_STATUS_IDLE };
    save (f, &next);
  }
  g_clear_pointer (&loaded, json_array_unref);
  loaded = pd_session_store_load_messages (f->store, info->id, &error);
  g_assert_cmpuint (json_array_get_length (loaded), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (loaded, 1), "content"), ==, "changed walrus");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (loaded, 4), "content"), ==, "done");
  g_clear_pointer (&after, pd_session_info_free);
  after = pd_session_store_get (f->store, info->id, &error);
  g_assert_cmpint (after->turns, ==, 1);  /* count_turn was FALSE */
  g_assert_cmpint (after->input_tokens, ==, 105);
  g_assert_cmpuint (after->n_messages, ==, 5);

  /* A gap (first_changed past what is stored) is refused. */
  {
    PdTurn gap = { info->id, longer, 5, NULL, 0, 0, TRUE, PD_SESSION_STATUS_IDLE };
    g_autoptr(JsonArray) six = parse_array (transcript_json);
    json_array_add_element (six, json_node_copy (json_array_get_element (six, 0)));
    json_array_add_element (six, json_node_copy (json_array_get_element (six, 0)));
    json_array_add_element (six, json_node_copy (json_array_get_element (six, 0)));
    gap.messages = six;
    gap.first_changed = 6;
    g_assert_false (pd_session_store_save_turn (f->store, &gap, &error));
    g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID);
    g_clear_error (&error);
  }

  /* A turn of an unknown session fails cleanly. */
  {
    PdTurn unknown = { "20250101-00000000000000000000000000000000", longer, 0, NULL, 0, 0, TRUE, PD_SESSION_STATUS_IDLE };
    g_assert_false (pd_session_store_save_turn (f->store, &unknown, &error));
    g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
  }
}

static void
test_plan_versions (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdSessionInfo) info = create (f, "plan", "m");
  g_autoptr(PdPlanStore) plans = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) v1 = NULL;
  g_autoptr(PdPlanState) v2 = NULL;
  g_autoptr(PdPlanState) got = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(PdSessionInfo) after = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *v2_json = NULL;
  g_autofree char *got_json = NULL;

  v1 = plan_from (plans, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"Build\","
                         "\"checks\":[{\"id\":\"c\",\"description\":\"builds\",\"tool\":\"shell\","
                         "\"arguments\":{\"command\":\"ninja\"}}]},{\"id\":\"b\",\"title\":\"Ship\"}]}");
  {
    PdTurn turn = { info->id, NULL, 0, v1, 0, 0, TRUE, PD_SESSION_STATUS_RUNNING };
    save (f, &turn);
    save (f, &turn);  /* same version: no new row */
  }
  v2 = plan_from (plans, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"status\":\"blocked\",\"note\":\"waiting\"}]}");
  {
    PdTurn turn = { info->id, NULL, 0, v2, 0, 0, TRUE, PD_SESSION_STATUS_RUNNING };
    save (f, &turn);
  }

  versions = pd_session_store_list_plan_versions (f->store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (versions->len, ==, 2);
  g_assert_cmpint (((PdPlanVersionInfo *) versions->pdata[0])->version, ==, 1);
  g_assert_cmpint (((PdPlanVersionInfo *) versions->pdata[1])->version, ==, 2);
  g_assert_cmpint (((PdPlanVersionInfo *) versions->pdata[0])->created_at, <=,
                   ((PdPlanVersionInfo *) versions->pdata[1])->created_at);

  after = pd_session_store_get (f->store, info->id, &error);
  g_assert_cmpint (after->plan_version, ==, 2);
  g_assert_cmpuint (after->plan_total, ==, 2);
  g_assert_cmpuint (after->plan_done, ==, 0);
  g_assert_cmpuint (after->plan_blocked, ==, 1);
  g_assert_cmpint (after->turns, ==, 3);

  g_assert_true (pd_session_store_get_plan (f->store, info->id, &got, &error));
  g_assert_no_error (error);
  g_assert_nonnull (got);
  v2_json = pd_plan_state_to_json (v2);
  got_json = pd_plan_state_to_json (got);
  g_assert_cmpstr (got_json, ==, v2_json);
  g_assert_cmpstr (((PdPlanVersionInfo *) versions->pdata[1])->state_json, ==, v2_json);
}

static void
test_plan_state_json_round_trip (void)
{
  g_autoptr(PdPlanStore) plans = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(PdPlanState) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *again = NULL;
  g_autofree char *r = NULL;

  g_clear_pointer (&state, pd_plan_state_free);
  state = plan_from (plans, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"T \\\"q\\\"\","
                            "\"checks\":[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"shell\","
                            "\"arguments\":{\"z\":1,\"a\":[true,null]}}]},{\"id\":\"b\",\"title\":\"U\"}]}");
  g_clear_pointer (&state, pd_plan_state_free);
  r = pd_plan_store_execute (plans, "{\"verb\":\"revise\",\"reason\":\"split\",\"operations\":"
                                    "[{\"kind\":\"add\",\"before_id\":\"b\",\"steps\":[{\"id\":\"n\",\"title\":\"New\"}]}]}", &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plans);
  json = pd_plan_state_to_json (state);
  back = pd_plan_state_new_from_json (json, &error);
  g_assert_no_error (error);
  again = pd_plan_state_to_json (back);
  g_assert_cmpstr (json, ==, again);
  g_assert_nonnull (back->revision);

  g_clear_pointer (&back, pd_plan_state_free);
  back = pd_plan_state_new_from_json ("{\"version\":1,\"steps\":[{\"id\":\"a\",\"status\":\"done\"}]}", &error);
  g_assert_null (back);
  g_assert_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_PARSE);
  g_clear_error (&error);
  back = pd_plan_state_new_from_json ("[1]", &error);
  g_assert_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_PARSE);
}

/* Without stored versions (an imported or v1 session), the plan comes from
 * the rendered plan message in the transcript. */
static void
test_plan_fallback_extract (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(PdSessionInfo) info = create (f, "plan", "m");
  g_autoptr(PdPlanStore) plans = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) state = plan_from (plans, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  g_autoptr(PdPlanState) got = NULL;
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(JsonObject) plan_message = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *render = pd_plan_render_full (state);
  PdTurn turn = { info->id, messages, 0, NULL, 0, 0, TRUE, PD_SESSION_STATUS_IDLE };

  g_assert_true (pd_session_store_get_plan (f->store, info->id, &got, &error));
  g_assert_no_error (error);
  g_assert_null (got);

  json_object_set_string_member (plan_message, "role", "system");
  json_object_set_string_member (plan_message, "content", render);
  json_array_add_object_element (messages, g_steal_pointer (&plan_message));
  save (f, &turn);

  g_assert_true (pd_session_store_get_plan (f->store, info->id, &got, &error));
  g_assert_nonnull (got);
  g_assert_cmpint (got->version, ==, 1);
  g_assert_cmpuint (got->steps->len, ==, 2);
}

/* A failure anywhere inside save_turn leaves the database as it was. */
static void
test_rollback (Fixture       *f,
               gconstpointer  data)
{
  static const char * const points[] = { "after-delete", "after-messages", "after-plan", "before-commit" };
  g_autoptr(PdSessionInfo) info = create (f, "rollback", "m");
  g_autoptr(PdPlanStore) plans = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) v1 = plan_from (plans, "{\"verb\":\"create\",\"steps\":[\"One\"]}");
  g_autoptr(PdPlanState) v2 = plan_from (plans, "{\"verb\":\"complete\",\"step_id\":\"s1\"}");
  g_autoptr(JsonArray) first = parse_array (transcript_json);
  g_autoptr(JsonArray) second = parse_array (transcript_json);
  g_autofree char *before = NULL;
  PdTurn turn = { info->id, first, 0, v1, 10, 10, TRUE, PD_SESSION_STATUS_RUNNING };

  save (f, &turn);
  before = dump (f);
  g_assert_nonnull (strstr (before, "ok zebra"));

  json_object_set_string_member (json_array_get_object_element (second, 2), "content", "walrus");
  turn.messages = second;
  turn.first_changed = 1;
  turn.plan = v2;
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *after = NULL;

      _pd_session_store_set_failpoint (f->store, points[i]);
      g_assert_false (pd_session_store_save_turn (f->store, &turn, &error));
      g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
      after = dump (f);
      g_assert_cmpstr (after, ==, before);
    }
  _pd_session_store_set_failpoint (f->store, NULL);

  /* A real constraint failure on the last message, after the others were
   * written. */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *after = NULL;

    json_object_set_string_member (json_array_get_object_element (second, 3), "role", "villain");
    g_assert_false (pd_session_store_save_turn (f->store, &turn, &error));
    g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_CONSTRAINT);
    after = dump (f);
    g_assert_cmpstr (after, ==, before);
  }

  /* And the connection is fine afterwards. */
  json_object_set_string_member (json_array_get_object_element (second, 3), "role", "tool");
  save (f, &turn);
  {
    g_autofree char *after = dump (f);
    g_assert_cmpstr (after, !=, before);
    g_assert_nonnull (strstr (after, "|walrus|"));
  }
}

/* The process dies between statements of a turn: nothing of it is kept. */
static void
test_crash (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(PdSessionInfo) info = create (f, "crash", "m");
  g_autoptr(JsonArray) first = parse_array (transcript_json);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  PdTurn turn = { info->id, first, 0, NULL, 1, 1, TRUE, PD_SESSION_STATUS_RUNNING };
  pid_t pid;
  int status = 0;

  save (f, &turn);
  before = dump (f);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* Its own connection: SQLite connections must not cross a fork. */
      g_autoptr(PdDb) db = pd_db_open (f->path, PD_DB_NONE, NULL);
      g_autoptr(PdSessionStore) store = db ? pd_session_store_new (db) : NULL;
      g_autoptr(JsonArray) second = parse_array (transcript_json);
      PdTurn crash = { info->id, second, 1, NULL, 1, 1, TRUE, PD_SESSION_STATUS_FAILED };

      if (store == NULL)
        _exit (2);
      json_object_set_string_member (json_array_get_object_element (second, 2), "content", "walrus");
      _pd_session_store_set_failpoint (store, "crash-after-messages");
      pd_session_store_save_turn (store, &crash, NULL);
      _exit (0);  /* not reached */
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  /* 3 is the failpoint's _exit; under valgrind its error code (1) may
   * replace it.  2 would mean the child could not even open the file. */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), !=, 0);
  g_assert_cmpint (WEXITSTATUS (status), !=, 2);

  after = dump (f);
  g_assert_cmpstr (after, ==, before);
  g_assert_null (strstr (after, "|walrus|"));

  /* The connection of the parent still writes. */
  turn.first_changed = 4;
  save (f, &turn);
}

typedef struct
{
  const char *path;
  const char *own_id;
  const char *shared_id;
  guint       n_turns;
  guint       failures;
} Writer;

static guint
write_turns (const char *path,
             const char *own_id,
             const char *shared_id,
             guint       n_turns)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_NONE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(JsonArray) messages = json_array_new ();
  guint failures = 0;

  if (db == NULL)
    {
      g_printerr ("writer cannot open: %s\n", error->message);
      return n_turns;
    }
  store = pd_session_store_new (db);
  for (guint i = 0; i < n_turns; i++)
    {
      g_autoptr(JsonObject) message = json_object_new ();
      g_autofree char *content = g_strdup_printf ("message %u", i);
      PdTurn own = { own_id, messages, i, NULL, 1, 2, TRUE, PD_SESSION_STATUS_RUNNING };
      PdTurn shared = { shared_id, NULL, 0, NULL, 1, 0, TRUE, PD_SESSION_STATUS_RUNNING };

      json_object_set_string_member (message, "role", "user");
      json_object_set_string_member (message, "content", content);
      json_array_add_object_element (messages, g_steal_pointer (&message));
      if (!pd_session_store_save_turn (store, &own, &error) ||
          !pd_session_store_save_turn (store, &shared, &error) ||
          pd_session_store_add_event (store, shared_id, "run", "turn", i, "{}", &error) < 0)
        {
          g_printerr ("writer failed: %s\n", error->message);
          g_clear_error (&error);
          failures++;
        }
    }
  return failures;
}

static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;

  w->failures = write_turns (w->path, w->own_id, w->shared_id, w->n_turns);
  return NULL;
}

/* Two threads with their own connections and a second process write to one
 * file at once: no "database is locked", no lost update. */
static void
test_concurrent_writers (Fixture       *f,
                         gconstpointer  data)
{
  const guint n = 150;
  g_autoptr(PdSessionInfo) shared = create (f, "shared", "m");
  g_autoptr(PdSessionInfo) a = create (f, "a", "m");
  g_autoptr(PdSessionInfo) b = create (f, "b", "m");
  g_autoptr(PdSessionInfo) c = create (f, "c", "m");
  g_autoptr(GError) error = NULL;
  Writer wa = { f->path, a->id, shared->id, n, 0 };
  Writer wb = { f->path, b->id, shared->id, n, 0 };
  GThread *ta, *tb;
  pid_t pid;
  int status = 0;
  int fds[2];
  guint child_failures = 99;

  /* The child reports through a pipe, not its exit code: under valgrind a
   * forked child's exit code is valgrind's verdict on memory the parent
   * left behind. */
  g_assert_cmpint (pipe (fds), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      guint failures = write_turns (f->path, c->id, shared->id, n);

      close (fds[0]);
      if (write (fds[1], &failures, sizeof failures) != sizeof failures)
        _exit (1);
      _exit (0);
    }
  close (fds[1]);

  ta = g_thread_new ("writer-a", writer_thread, &wa);
  tb = g_thread_new ("writer-b", writer_thread, &wb);
  g_thread_join (ta);
  g_thread_join (tb);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);

  g_assert_cmpuint (wa.failures, ==, 0);
  g_assert_cmpuint (wb.failures, ==, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (read (fds[0], &child_failures, sizeof child_failures), ==, sizeof child_failures);
  close (fds[0]);
  g_assert_cmpuint (child_failures, ==, 0);

  {
    g_autoptr(PdSessionInfo) s = pd_session_store_get (f->store, shared->id, &error);
    g_autoptr(GPtrArray) events = pd_session_store_list_events (f->store, shared->id, NULL, 0, 1000, &error);

    g_assert_no_error (error);
    g_assert_cmpint (s->turns, ==, 3 * n);
    g_assert_cmpint (s->input_tokens, ==, 3 * n);
    g_assert_cmpuint (events->len, ==, 3 * n);
  }
  for (guint i = 0; i < 3; i++)
    {
      const char *id = (const char *[]) { a->id, b->id, c->id }[i];
      g_autoptr(PdSessionInfo) s = pd_session_store_get (f->store, id, &error);
      g_autoptr(JsonArray) messages = pd_session_store_load_messages (f->store, id, &error);

      g_assert_no_error (error);
      g_assert_cmpint (s->turns, ==, n);
      g_assert_cmpint (s->output_tokens, ==, 2 * n);
      g_assert_cmpuint (json_array_get_length (messages), ==, n);
      g_assert_cmpuint (s->n_messages, ==, n);
    }
}

static void
set_updated (Fixture    *f,
             const char *id,
             gint64      updated)
{
  g_autofree char *sql = g_strdup_printf ("UPDATE sessions SET updated_at = %" G_GINT64_FORMAT " WHERE id = '%s'",
                                          updated, id);
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_db_exec (f->db, sql, &error));
}

static GPtrArray *
list (Fixture    *f,
      const char *query,
      gboolean    full_text,
      guint       offset,
      guint       limit,
      guint      *total)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *result = pd_session_store_list (f->store, query, full_text, offset, limit, total, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

#define INFO(array, i) ((PdSessionInfo *) g_ptr_array_index ((array), (i)))

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PdSessionInfo) s1 = create (f, "Refactor the PARSER", "llama-3");
  g_autoptr(PdSessionInfo) s2 = create (f, "write docs", "gpt-4o");
  g_autoptr(PdSessionInfo) s3 = create (f, "100% coverage_now", "claude");
  g_autoptr(PdSessionInfo) s4 = create (f, "deploy", "gpt-4o");
  g_autoptr(GPtrArray) page = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = parse_array ("[{\"role\":\"user\",\"content\":\"the flux capacitor overheats\"}]");
  PdTurn turn = { s2->id, messages, 0, NULL, 0, 0, TRUE, PD_SESSION_STATUS_IDLE };
  guint total = 0;

  save (f, &turn);
  set_updated (f, s1->id, 100);
  set_updated (f, s2->id, 400);
  set_updated (f, s3->id, 300);
  set_updated (f, s4->id, 200);
  g_assert_true (pd_session_store_set_pinned (f->store, s4->id, TRUE, &error));
  g_assert_true (pd_session_store_rename (f->store, s1->id, "Nightly cleanup", &error));

  /* Pinned first, then most recently updated. */
  page = list (f, NULL, FALSE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 4);
  g_assert_cmpuint (page->len, ==, 4);
  g_assert_cmpstr (INFO (page, 0)->id, ==, s4->id);
  g_assert_cmpstr (INFO (page, 1)->id, ==, s2->id);
  g_assert_cmpstr (INFO (page, 2)->id, ==, s3->id);
  g_assert_cmpstr (INFO (page, 3)->id, ==, s1->id);
  g_clear_pointer (&page, g_ptr_array_unref);

  /* Offset and limit, with the total of all matches. */
  page = list (f, NULL, FALSE, 1, 2, &total);
  g_assert_cmpuint (total, ==, 4);
  g_assert_cmpuint (page->len, ==, 2);
  g_assert_cmpstr (INFO (page, 0)->id, ==, s2->id);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, NULL, FALSE, 0, 0, &total);  /* clamped up to 1 */
  g_assert_cmpuint (page->len, ==, 1);
  g_assert_cmpuint (total, ==, 4);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, NULL, FALSE, 10, 5, &total);
  g_assert_cmpuint (page->len, ==, 0);
  g_assert_cmpuint (total, ==, 4);
  g_clear_pointer (&page, g_ptr_array_unref);

  /* Substring, case-insensitive, over task, model, name and id. */
  page = list (f, "parser", FALSE, 0, 50, &total);
  g_assert_cmpuint (page->len, ==, 1);
  g_assert_cmpstr (INFO (page, 0)->id, ==, s1->id);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "GPT-4", FALSE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 2);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "nightly", FALSE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 1);
  g_clear_pointer (&page, g_ptr_array_unref);
  {
    g_autofree char *tail = g_strdup (s3->id + 20);
    page = list (f, tail, FALSE, 0, 50, &total);
    g_assert_cmpuint (total, ==, 1);
    g_assert_cmpstr (INFO (page, 0)->id, ==, s3->id);
    g_clear_pointer (&page, g_ptr_array_unref);
  }
  /* LIKE wildcards are literal. */
  page = list (f, "%", FALSE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 1);
  g_assert_cmpstr (INFO (page, 0)->id, ==, s3->id);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "e_n", FALSE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 1);
  g_clear_pointer (&page, g_ptr_array_unref);

  /* Message text only with full text. */
  page = list (f, "capacitor", FALSE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 0);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "Capacitor", TRUE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 1);
  g_assert_cmpstr (INFO (page, 0)->id, ==, s2->id);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "flux overheats", TRUE, 0, 50, &total);  /* all words, any order */
  g_assert_cmpuint (total, ==, 1);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "flux dinosaur", TRUE, 0, 50, &total);
  g_assert_cmpuint (total, ==, 0);
  g_clear_pointer (&page, g_ptr_array_unref);
  page = list (f, "docs", TRUE, 0, 50, &total);  /* the task is indexed too */
  g_assert_cmpuint (total, ==, 1);
  g_clear_pointer (&page, g_ptr_array_unref);
}

static void
test_list_limit_cap (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GPtrArray) page = NULL;
  guint total = 0;

  for (guint i = 0; i < PD_SESSION_LIST_MAX_LIMIT + 5; i++)
    {
      g_autoptr(PdSessionInfo) info = create (f, "bulk", "m");
    }
  page = list (f, NULL, FALSE, 0, 100000, &total);
  g_assert_cmpuint (page->len, ==, PD_SESSION_LIST_MAX_LIMIT);
  g_assert_cmpuint (total, ==, PD_SESSION_LIST_MAX_LIMIT + 5);
}

static void
test_fts_hostile (Fixture       *f,
                  gconstpointer  data)
{
  const char *hostile[] = {
    "\"", "*", "NEAR(", "-", ")", "(", "a OR b", "NOT x", "col:val", "^start", "\"unbalanced",
    "foo\"bar", "NEAR(a b, 3)", "x AND", "{a b}:c", "+", "\"\"\"", "-capacitor", "capacitor*",
  };
  g_autoptr(PdSessionInfo) s = create (f, "hostile", "m");
  g_autoptr(JsonArray) messages = parse_array ("[{\"role\":\"user\",\"content\":\"capacitor near foo bar\"}]");
  PdTurn turn = { s->id, messages, 0, NULL, 0, 0, TRUE, PD_SESSION_STATUS_IDLE };
  g_autofree char *q1 = pd_session_store_fts_query ("a\"b NEAR( * -x");
  g_autofree char *q2 = pd_session_store_fts_query (" * - ) ");

  g_assert_cmpstr (q1, ==, "\"a\"\"b\" \"NEAR(\" \"-x\"");
  g_assert_null (q2);

  save (f, &turn);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autoptr(GError) error = NULL;
      guint total = 99;
      g_autoptr(GPtrArray) page = pd_session_store_list (f->store, hostile[i], TRUE, 0, 50, &total, &error);

      g_assert_no_error (error);
      g_assert_nonnull (page);
    }
  /* Operators are words, not syntax: "-capacitor" finds the capacitor
   * instead of excluding it, and "capacitor*" is not a prefix query. */
  {
    guint total = 0;
    g_autoptr(GPtrArray) page = list (f, "-capacitor", TRUE, 0, 50, &total);
    g_assert_cmpuint (total, ==, 1);
  }
  {
    guint total = 0;
    g_autoptr(GPtrArray) page = list (f, "capac*", TRUE, 0, 50, &total);
    g_assert_cmpuint (total, ==, 0);
  }
  {
    guint total = 0;
    g_autoptr(GPtrArray) page = list (f, "foo\"bar", TRUE, 0, 50, &total);
    g_assert_cmpuint (total, ==, 1);  /* the phrase "foo bar" */
  }
}

static void
test_delete_cascade (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdSessionInfo) keep = create (f, "keep zebra", "m");
  g_autoptr(PdSessionInfo) gone = create (f, "gone", "m");
  g_autoptr(PdPlanStore) plans = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) plan = plan_from (plans, "{\"verb\":\"create\",\"steps\":[\"One\"]}");
  g_autoptr(JsonArray) messages = parse_array (transcript_json);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  PdTurn turn = { keep->id, messages, 0, plan, 0, 0, TRUE, PD_SESSION_STATUS_IDLE };

  save (f, &turn);
  g_assert_true (pd_session_store_set_annotation (f->store, keep->id, "k", "1", &error));
  g_assert_cmpint (pd_session_store_add_event (f->store, keep->id, "r", "t", 1, "{}", &error), >, 0);
  before = dump (f);

  turn.session_id = gone->id;
  save (f, &turn);
  g_assert_true (pd_session_store_set_annotation (f->store, gone->id, "k", "2", &error));
  g_assert_cmpint (pd_session_store_add_event (f->store, gone->id, "r", "t", 1, "{}", &error), >, 0);

  g_assert_true (pd_session_store_delete (f->store, gone->id, &error));
  g_assert_no_error (error);
  after = dump (f);
  /* Only the sessions row of "gone" differs in the dump: remove it. */
  {
    g_autofree char *pattern = g_strdup_printf ("%s|", gone->id);
    g_assert_null (strstr (after, pattern));
  }
  g_assert_cmpint (sqlite3_changes (_pd_db_get_handle (f->db)), >=, 0);
  {
    guint total = 0;
    g_autoptr(GPtrArray) page = list (f, "zebra", TRUE, 0, 50, &total);
    g_assert_cmpuint (total, ==, 1);
    g_assert_cmpstr (INFO (page, 0)->id, ==, keep->id);
  }
  /* Messages, plan versions, events, annotations of "gone" are all gone:
   * the dump (without the sessions table) equals the one before. */
  {
    const char *b = strstr (before, "== SELECT * FROM messages");
    const char *a = strstr (after, "== SELECT * FROM messages");
    g_assert_cmpstr (a, ==, b);
  }

  g_assert_false (pd_session_store_delete (f->store, gone->id, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
}

/* A session whose run goes on (this process's) is not deleted: the run
 * went on unrecorded and ended "done" (found as an attacker would).  Once
 * the run has ended it is. */
static void
test_delete_running (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdSessionInfo) running = create (f, "running", "m");
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_session_store_set_status (f->store, running->id, PD_SESSION_STATUS_RUNNING, &error));
  g_assert_false (pd_session_store_delete (f->store, running->id, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "is running; stop the run first"));
  g_clear_error (&error);
  {
    g_autoptr(PdSessionInfo) still = pd_session_store_get (f->store, running->id, &error);

    g_assert_no_error (error);
    g_assert_cmpint (still->status, ==, PD_SESSION_STATUS_RUNNING);
  }

  g_assert_true (pd_session_store_set_status (f->store, running->id, PD_SESSION_STATUS_IDLE, &error));
  g_assert_true (pd_session_store_delete (f->store, running->id, &error));
  g_assert_no_error (error);
}

static void
test_events (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(PdSessionInfo) s = create (f, "events", "m");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) some = NULL;
  gint64 seqs[6];

  seqs[0] = pd_session_store_add_event (f->store, s->id, "r1", "run/start", 1, "{\"n\":0}", &error);
  seqs[1] = pd_session_store_add_event (f->store, NULL, NULL, "usage", 2, "{\"n\":1}", &error);
  seqs[2] = pd_session_store_add_event (f->store, s->id, "r1", "plan/updated", 3, "{\"n\":2}", &error);
  seqs[3] = pd_session_store_add_event (f->store, s->id, "r1", "tool/call", 4,
                                        "{\"args\":\"Bearer abcdefghijklmnop\"}", &error);
  seqs[4] = pd_session_store_add_event (f->store, s->id, "r1", "plan/updated", 5, "{\"n\":4}", &error);
  seqs[5] = pd_session_store_add_event (f->store, s->id, "r1", "run/end", 6, "{\"n\":5}", &error);
  g_assert_no_error (error);
  for (guint i = 1; i < 6; i++)
    g_assert_cmpint (seqs[i], >, seqs[i - 1]);

  all = pd_session_store_list_events (f->store, NULL, NULL, 0, 0, &error);
  g_assert_cmpuint (all->len, ==, 6);
  g_assert_cmpstr (((PdStoredEvent *) all->pdata[3])->event_json, ==, "{\"args\":\"Bearer [REDACTED]\"}");

  some = pd_session_store_list_events (f->store, s->id, "plan/updated", 0, 10, &error);
  g_assert_cmpuint (some->len, ==, 2);
  g_assert_cmpint (((PdStoredEvent *) some->pdata[1])->seq, ==, seqs[4]);
  g_clear_pointer (&some, g_ptr_array_unref);

  some = pd_session_store_list_events (f->store, s->id, NULL, seqs[2], 2, &error);
  g_assert_cmpuint (some->len, ==, 2);
  g_assert_cmpint (((PdStoredEvent *) some->pdata[0])->seq, ==, seqs[3]);
  g_clear_pointer (&some, g_ptr_array_unref);

  g_assert_cmpint (pd_session_store_add_event (f->store, "20250101-00000000000000000000000000000000",
                                               NULL, "x", 1, "{}", &error), ==, -1);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
}

static void
test_annotations (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdSessionInfo) s = create (f, "notes", "m");
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  value = pd_session_store_get_annotation (f->store, s->id, "overrides", &error);
  g_assert_no_error (error);
  g_assert_null (value);

  g_assert_true (pd_session_store_set_annotation (f->store, s->id, "overrides", "{\"a1\":true}", &error));
  g_assert_true (pd_session_store_set_annotation (f->store, s->id, "overrides", "{\"a1\":false,\"b\":\"password=x\"}", &error));
  g_assert_no_error (error);
  value = pd_session_store_get_annotation (f->store, s->id, "overrides", &error);
  g_assert_cmpstr (value, ==, "{\"a1\":false,\"b\":\"password=[REDACTED]\"}");

  g_assert_false (pd_session_store_set_annotation (f->store, s->id, "bad", "{not json", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (pd_session_store_set_annotation (f->store, "20250101-00000000000000000000000000000000",
                                                   "k", "1", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/store/session-id", test_session_id);
  g_test_add_func ("/pd/store/plan-state-json", test_plan_state_json_round_trip);
#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/pd/store/create-get", test_create_get);
  ADD ("/pd/store/save-load", test_save_load);
  ADD ("/pd/store/plan-versions", test_plan_versions);
  ADD ("/pd/store/plan-fallback-extract", test_plan_fallback_extract);
  ADD ("/pd/store/rollback", test_rollback);
  ADD ("/pd/store/crash", test_crash);
  ADD ("/pd/store/concurrent-writers", test_concurrent_writers);
  ADD ("/pd/store/list", test_list);
  ADD ("/pd/store/list-limit-cap", test_list_limit_cap);
  ADD ("/pd/store/fts-hostile", test_fts_hostile);
  ADD ("/pd/store/delete-cascade", test_delete_cascade);
  ADD ("/pd/store/delete-running", test_delete_running);
  ADD ("/pd/store/events", test_events);
  ADD ("/pd/store/annotations", test_annotations);
#undef ADD

  return g_test_run ();
}

/* pd-test-live.h: what the live tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's parts the live tests look at, what the database holds for a
 * session (read through a connection of the test's own) and each page
 * checked against it, and a second process (plandeck-agent with the replay
 * provider) working on the same database.  Shared by test-live.c (the
 * demo, a second process, a burst of events) and test-live-remote.c (a
 * window on a serve endpoint that goes away).  Header-only, as the other
 * test helpers, because each test is one source file.
 */
#pragma once

#include <string.h>

#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-now-view.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"

G_BEGIN_DECLS

/* The fallback polls at their longest (10 s running, 60 s idle), so what
 * a test sees was pushed. */
static inline void
set_longest_polls (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_reset_settings ();
  g_settings_set_uint (settings, "poll-running-ms", 10000);
  g_settings_set_uint (settings, "poll-idle-ms", 60000);
}

static inline PdSessionList *
session_list (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

static inline PdNowView *
now_view (PdWindow *window)
{
  return PD_NOW_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_NOW_VIEW));
}

static inline void
show_page (PdWindow   *window,
           const char *name)
{
  AdwViewStack *stack = ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));

  adw_view_stack_set_visible_child_name (stack, name);
}

/* What the database holds for a session, read through a connection of
 * the test's own. */
typedef struct
{
  guint  messages;
  guint  versions;
  guint  events;
  gint64 plan_version;
} Stored;

static inline Stored
read_stored (const char *path,
             const char *id)
{
  g_autoptr(PdSessionStore) store = pd_test_open_store (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = pd_session_store_load_messages (store, id, &error);
  g_autoptr(GPtrArray) versions = pd_session_store_list_plan_versions (store, id, &error);
  g_autoptr(GPtrArray) events = pd_session_store_list_events (store, id, NULL, 0, 1000, &error);
  g_autoptr(PdSessionInfo) info = pd_session_store_get (store, id, &error);
  Stored stored;

  g_assert_no_error (error);
  stored.messages = json_array_get_length (messages);
  stored.versions = versions->len;
  stored.events = events->len;
  stored.plan_version = info->plan_version;
  return stored;
}

typedef struct
{
  GListModel *model;
  guint       n;
} CountWait;

static inline gboolean
has_n_items (gpointer data)
{
  CountWait *wait = data;

  return g_list_model_get_n_items (wait->model) == wait->n;
}

static inline void
wait_for_count (GListModel *model,
                guint       n,
                const char *what)
{
  CountWait wait = { model, n };
  g_autofree char *message = g_strdup_printf ("%s: %u rows as stored (%u shown)", what, n,
                                              g_list_model_get_n_items (model));

  pd_test_wait_until (has_n_items, &wait, message);
}

/* Each page, once shown, lists what is stored: nothing waits for a click
 * on the session or a refresh. */
static inline void
check_every_page (PdWindow   *window,
                  const char *db_path,
                  const char *id)
{
  Stored stored = read_stored (db_path, id);
  PdSessionItem *item = pd_session_list_get_selected_item (session_list (window));
  const PdPlanState *plan = pd_now_view_get_plan (now_view (window));

  g_assert_cmpuint (stored.messages, >, 2);
  g_assert_cmpuint (stored.versions, >, 1);

  /* One snapshot: the sidebar row and the Now page agree on the version. */
  g_assert_nonnull (plan);
  g_assert_cmpint (plan->version, ==, stored.plan_version);
  g_assert_cmpint (pd_session_item_get_plan_version (item), ==, plan->version);

  show_page (window, "transcript");
  wait_for_count (pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (pd_test_find_widget (GTK_WIDGET (window),
                                                                                           PD_TYPE_TRANSCRIPT_VIEW))),
                  stored.messages, "the Transcript");
  show_page (window, "history");
  wait_for_count (pd_history_view_get_model (PD_HISTORY_VIEW (pd_test_find_widget (GTK_WIDGET (window),
                                                                                     PD_TYPE_HISTORY_VIEW))),
                  stored.versions, "the History");
  show_page (window, "events");
  wait_for_count (pd_events_view_get_model (PD_EVENTS_VIEW (pd_test_find_widget (GTK_WIDGET (window),
                                                                                   PD_TYPE_EVENTS_VIEW))),
                  MIN (stored.events, PD_EVENTS_VIEW_LATEST_MAX), "the Events (the newest)");
  show_page (window, "now");
}

/* --- a second process on the same database ---------------------------------- */

/* The session's database and folder, and the session its first run made. */
typedef struct
{
  char *dir;
  char *db;
  char *id;
} Second;

static const char first_turns[] =
  "{\"label\": \"first\", \"turns\": ["
  " {\"content\": \"Planning.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "   {\"id\": \"look\", \"title\": \"Look at the project\"},"
  "   {\"id\": \"write\", \"title\": \"Write NOTES.md\"},"
  "   {\"id\": \"check\", \"title\": \"Check NOTES.md\"}]}}]},"
  " {\"content\": \"Paused here.\"}]}";

static const char second_turns[] =
  "{\"label\": \"second\", \"turns\": ["
  " {\"content\": \"Looking.\", \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}]},"
  " {\"content\": \"Looked.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"update\", \"updates\": ["
  "   {\"id\": \"look\", \"status\": \"done\"}, {\"id\": \"write\", \"status\": \"in_progress\"}]}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"NOTES.md\", \"content\": \"notes\\n\"}}]},"
  " {\"content\": \"Written.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"update\", \"updates\": ["
  "   {\"id\": \"write\", \"status\": \"done\"}]}}]},"
  " {\"content\": \"Done for now.\"}]}";

static inline void
on_agent_exited (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* Runs plandeck-agent @command on the second's database with @turns
 * replayed, and waits for it while the main loop goes on. */
static inline void
run_agent (Second     *second,
           const char *turns,
           const char *const *command)
{
  g_autofree char *replay = g_build_filename (second->dir, "replay.json", NULL);
  g_autofree char *project = g_build_filename (second->dir, "project", NULL);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) agent = NULL;
  gboolean exited = FALSE;

  g_assert_true (g_file_set_contents (replay, turns, -1, NULL));
  g_mkdir_with_parents (project, 0700);
  g_strv_builder_add (builder, g_getenv ("PLANDECK_AGENT"));
  g_strv_builder_addv (builder, (const char **) command);
  g_strv_builder_add_many (builder, "--db", second->db, "--provider", "replay", "--replay", replay,
                           "--approve", "auto", "-C", project, "-q", NULL);
  argv = g_strv_builder_end (builder);

  launcher = pd_test_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  agent = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
  g_assert_no_error (error);
  /* The window goes on drawing (and hearing of commits) while the other
   * process works. */
  g_subprocess_wait_async (agent, NULL, on_agent_exited, &exited);
  while (!exited)
    g_main_context_iteration (NULL, TRUE);
}

/* Runs `plandeck-agent run` with @first_turns in a new temporary folder:
 * the session the tests go on with. */
static inline void
second_init (Second *second)
{
  const char *first[] = { "run", "Write notes about the project", NULL };
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  guint total = 0;

  second->dir = pd_test_make_tmp_dir ();
  second->db = g_build_filename (second->dir, "sessions.db", NULL);
  run_agent (second, first_turns, first);
  store = pd_test_open_store (second->db);
  sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, NULL);
  g_assert_cmpuint (total, ==, 1);
  second->id = g_strdup (((PdSessionInfo *) g_ptr_array_index (sessions, 0))->id);
}

static inline void
second_clear (Second *second)
{
  g_clear_pointer (&second->id, g_free);
  g_clear_pointer (&second->db, g_free);
  g_clear_pointer (&second->dir, g_free);
}

static inline gboolean
session_selectable (gpointer data)
{
  PdWindow *window = ((gpointer *) data)[0];
  const char *id = ((gpointer *) data)[1];

  return pd_session_list_select (session_list (window), id);
}

static inline gboolean
now_shows_version (gpointer data)
{
  PdWindow *window = ((gpointer *) data)[0];
  gint64 version = GPOINTER_TO_SIZE (((gpointer *) data)[1]);
  const PdPlanState *plan = pd_now_view_get_plan (now_view (window));

  return plan != NULL && plan->version == version;
}

G_END_DECLS

/* test-overview.c: PdOverview, every active session of many sources
 *
 * Real parts: two PdServer endpoints on loopback, each over its own session
 * database, followed by PdRemoteSources (their event streams), and a local
 * database through a PdLocalSource, all in one overview.  A writer of the
 * test's own changes the databases as a run in another process would; the
 * cards follow through the sources' pushes alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview"

#include "config.h"

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-overview.h"
#include "pd-overview-private.h"
#include "pd-plan.h"
#include "pd-remote-records-private.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-session-store.h"

#define TOKEN "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"

typedef struct
{
  char           *path;
  PdSessionStore *store;     /* the writer */
  PdServer       *server;    /* (nullable) for the local database */
  guint           port;
} Place;

typedef struct
{
  char       *dir;
  Place       places[3];     /* 0: local, 1 and 2: endpoints */
  GListStore *sources;
  PdOverview *overview;
  guint       n_cleared;     /* items-changed that emptied a model of more than one card */
  guint       n_changes;     /* items-changed of any kind */
  GHashTable *plans;         /* session id → PdPlanStore: the plans written */
} Fixture;

static void
place_start_server (Place *place)
{
  g_autoptr(GError) error = NULL;

  place->server = pd_server_new (place->path);
  pd_server_set_listen (place->server, "127.0.0.1", place->port);
  pd_server_set_token (place->server, TOKEN);
  pd_server_set_rate_limit (place->server, 0);
  g_assert_true (pd_server_start (place->server, &error));
  g_assert_no_error (error);
  place->port = pd_server_get_port (place->server);
}

static void
place_stop_server (Place *place)
{
  pd_server_stop (place->server);
  g_clear_object (&place->server);
}

/* Steps titled @titles[i] with @statuses[i] ("pending", "in_progress", "done",
 * "blocked"), saved as the session's newest plan: each save a new version,
 * as a run's plan tool makes them. */
static void
save_plan (Fixture     *f,
           Place       *place,
           const char  *id,
           const char **titles,
           const char **statuses)
{
  PdPlanStore *plan = g_hash_table_lookup (f->plans, id);
  g_autoptr(GString) update = g_string_new ("{\"verb\":\"update\",\"updates\":[");
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *r2 = NULL;
  PdTurn turn = { 0 };

  if (plan == NULL)
    {
      g_autoptr(GString) create = g_string_new ("{\"verb\":\"create\",\"steps\":[");
      g_autofree char *r1 = NULL;

      plan = pd_plan_store_new (12, 4000);
      g_hash_table_insert (f->plans, g_strdup (id), plan);
      for (guint i = 0; titles[i] != NULL; i++)
        g_string_append_printf (create, "%s{\"title\":\"%s\"}", i ? "," : "", titles[i]);
      g_string_append (create, "]}");
      r1 = pd_plan_store_execute (plan, create->str, &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; titles[i] != NULL; i++)
    g_string_append_printf (update, "%s{\"id\":\"s%u\",\"status\":\"%s\"%s}", i ? "," : "", i + 1, statuses[i],
                            g_str_equal (statuses[i], "blocked") ? ",\"note\":\"waits on a key\"" : "");
  g_string_append (update, "]}");
  r2 = pd_plan_store_execute (plan, update->str, &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);
  turn.session_id = id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (place->store, &turn, &error));
  g_assert_no_error (error);
}

static char *
add_session (Place      *place,
             const char *task)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_create (place->store, task, "m", "replay", "plandeck", "/tmp", &error);

  g_assert_no_error (error);
  return g_strdup (info->id);
}

static void
make_old (Place      *place,
          const char *id)
{
  g_autofree char *sql = g_strdup_printf ("UPDATE sessions SET updated_at = %" G_GINT64_FORMAT " WHERE id = '%s'",
                                          g_get_real_time () - 3 * G_TIME_SPAN_HOUR, id);
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_db_exec (pd_session_store_get_db (place->store), sql, &error));
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Fixture    *f)
{
  f->n_changes++;
  /* Every card removed at once: a clear (a move is one change in place). */
  if (removed > 1 && added == 0 && g_list_model_get_n_items (model) == 0)
    f->n_cleared++;
}

static PdSource *
remote_source (Place *place)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", place->port, TOKEN);
  PdRemoteSource *source = pd_remote_source_new (url, NULL, &error);

  g_assert_no_error (error);
  pd_remote_source_set_timeout (source, 5);
  pd_remote_source_watch (source, PD_REMOTE_SOURCE_WATCH_MS);
  return PD_SOURCE (source);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdLocalSource) local = NULL;

  f->plans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  f->dir = g_dir_make_tmp ("pd-overview-XXXXXX", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (f->places); i++)
    {
      g_autofree char *name = g_strdup_printf ("place%u.db", i);
      g_autoptr(PdDb) db = NULL;

      f->places[i].path = g_build_filename (f->dir, name, NULL);
      db = pd_db_open (f->places[i].path, PD_DB_CREATE, &error);
      g_assert_no_error (error);
      f->places[i].store = pd_session_store_new (db);
      if (i > 0)
        place_start_server (&f->places[i]);
    }
  f->sources = g_list_store_new (PD_TYPE_SOURCE);
  local = pd_local_source_new (f->places[0].path, FALSE);
  pd_local_source_watch (local, 1000);
  g_list_store_append (f->sources, local);
}

/* The overview, once the sessions are written. */
static void
fixture_follow (Fixture *f)
{
  for (guint i = 1; i < G_N_ELEMENTS (f->places); i++)
    {
      g_autoptr(PdSource) source = remote_source (&f->places[i]);

      g_list_store_append (f->sources, source);
    }
  f->overview = pd_overview_new (G_LIST_MODEL (f->sources));
  g_signal_connect (f->overview, "items-changed", G_CALLBACK (on_items_changed), f);
}

/* Every remote source follows its endpoint's event stream. */
static gboolean
all_streaming (Fixture       *f,
               gconstpointer  data)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (f->sources)); i++)
    {
      g_autoptr(GObject) source = g_list_model_get_item (G_LIST_MODEL (f->sources), i);

      if (PD_IS_REMOTE_SOURCE (source) && !pd_remote_source_is_streaming (PD_REMOTE_SOURCE (source)))
        return FALSE;
    }
  return TRUE;
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  const char *suffixes[] = { "", "-wal", "-shm" };

  g_clear_object (&f->overview);
  g_clear_object (&f->sources);
  for (guint i = 0; i < G_N_ELEMENTS (f->places); i++)
    {
      if (f->places[i].server != NULL)
        place_stop_server (&f->places[i]);
      g_clear_object (&f->places[i].store);
      for (guint j = 0; j < G_N_ELEMENTS (suffixes); j++)
        {
          g_autofree char *path = g_strconcat (f->places[i].path, suffixes[j], NULL);
          g_unlink (path);
        }
      g_free (f->places[i].path);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_rmdir (f->dir);
  g_free (f->dir);
  g_hash_table_unref (f->plans);
}

typedef gboolean (*Condition) (Fixture *f, gconstpointer data);

static PdOverviewCard *card_at (Fixture *f,
                                guint    position);

static void
wait_until (Fixture       *f,
            Condition      condition,
            gconstpointer  data,
            const char    *what)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!condition (f, data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (!condition (f, data))
    {
      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (f->overview)); i++)
        {
          PdOverviewCard *card = card_at (f, i);

          g_printerr ("card %u: %s %u/%u blocked %u need %u error %s\n", i, pd_overview_card_get_title (card),
                      pd_overview_card_get_done (card), pd_overview_card_get_total (card),
                      pd_overview_card_get_blocked (card), (guint) pd_overview_card_get_need (card),
                      pd_overview_card_get_source_error (card));
        }
      g_error ("Waited 30 s for %s", what);
    }
}

static PdSource *
source_at (Fixture *f,
           guint    index)
{
  g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (f->sources), index);

  return source;   /* the store keeps it */
}

static PdOverviewCard *
card_at (Fixture *f,
         guint    position)
{
  g_autoptr(PdOverviewCard) card = g_list_model_get_item (G_LIST_MODEL (f->overview), position);

  return card;
}

static gboolean
has_n_cards (Fixture       *f,
             gconstpointer  data)
{
  return pd_overview_get_loaded (f->overview) &&
         g_list_model_get_n_items (G_LIST_MODEL (f->overview)) == GPOINTER_TO_UINT (data);
}

typedef struct
{
  guint       source;
  const char *id;
  guint       done;
  guint       blocked;
  gboolean    errored;
  guint       position;  /* G_MAXUINT: anywhere */
  const char *step;      /* (nullable) the current step, when given */
} Expect;

static gboolean
card_is (Fixture       *f,
         gconstpointer  data)
{
  const Expect *expect = data;
  PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, expect->source), expect->id);

  if (card == NULL || pd_overview_card_get_done (card) != expect->done ||
      pd_overview_card_get_blocked (card) != expect->blocked ||
      (pd_overview_card_get_source_error (card) != NULL) != expect->errored)
    return FALSE;
  if (expect->step != NULL && g_strcmp0 (pd_overview_card_get_current_step (card), expect->step) != 0)
    return FALSE;
  if (expect->position == G_MAXUINT)
    return TRUE;
  return card_at (f, expect->position) == card;
}

static const char *three[] = { "Read the parser", "Fix the lexer", "Run the tests", NULL };

/* Sessions changed lately show, an old one does not; a card says its
 * source, progress and current step. */
static void
test_active_only (Fixture       *f,
                  gconstpointer  data)
{
  const char *statuses[] = { "done", "in_progress", "pending" };
  g_autofree char *local_id = add_session (&f->places[0], "Local work");
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  g_autofree char *old_id = add_session (&f->places[1], "Old work on A");
  g_autofree char *b_id = add_session (&f->places[2], "Work on B");
  PdOverviewCard *card;

  save_plan (f, &f->places[1], a_id, three, statuses);
  save_plan (f, &f->places[1], old_id, three, statuses);
  make_old (&f->places[1], old_id);
  fixture_follow (f);

  wait_until (f, has_n_cards, GUINT_TO_POINTER (3), "three cards");
  g_assert_null (pd_overview_find (f->overview, source_at (f, 1), old_id));
  g_assert_nonnull (pd_overview_find (f->overview, source_at (f, 0), local_id));
  g_assert_nonnull (pd_overview_find (f->overview, source_at (f, 2), b_id));

  card = pd_overview_find (f->overview, source_at (f, 1), a_id);
  g_assert_nonnull (card);
  g_assert_cmpstr (pd_overview_card_get_title (card), ==, "Work on A");
  g_assert_cmpstr (pd_overview_card_get_agent (card), ==, "plandeck");
  g_assert_cmpuint (pd_overview_card_get_done (card), ==, 1);
  g_assert_cmpuint (pd_overview_card_get_total (card), ==, 3);
  g_assert_cmpstr (pd_overview_card_get_current_step (card), ==, "Fix the lexer");
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_RUNNING);
  g_assert_cmpstr (pd_overview_card_get_source_title (card), ==, pd_source_get_title (source_at (f, 1)));
  g_assert_null (pd_overview_card_get_source_error (card));
  /* Working sessions go before the ones with nothing left to do. */
  g_assert_true (card_at (f, 0) == card);
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 2)), ==, PD_OVERVIEW_NEED_DONE);

  /* A shorter window: the same sessions, read again. */
  make_old (&f->places[2], b_id);
  pd_overview_refresh (f->overview);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (2), "the old session of B to go");
  g_assert_null (pd_overview_find (f->overview, source_at (f, 2), b_id));
  g_assert_cmpuint (f->n_cleared, ==, 0);
}

/* A plan changed elsewhere: the card follows in place, and a blocked step
 * puts it first; the current step is the one in progress. */
static void
test_update_and_reorder (Fixture       *f,
                         gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  const char *blocked[] = { "done", "blocked", "pending" };
  const char *further[] = { "done", "done", "in_progress" };
  g_autofree char *local_id = add_session (&f->places[0], "Local work");
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  g_autofree char *b_id = add_session (&f->places[2], "Work on B");
  Expect a_blocked = { 1, a_id, 1, 1, FALSE, 0 };
  Expect b_further = { 2, b_id, 2, 0, FALSE, G_MAXUINT, NULL };
  Expect b_step = { 2, b_id, 2, 0, FALSE, G_MAXUINT, "Run the tests" };
  Expect local_further = { 0, local_id, 2, 0, FALSE, G_MAXUINT };

  save_plan (f, &f->places[0], local_id, three, working);
  save_plan (f, &f->places[1], a_id, three, working);
  save_plan (f, &f->places[2], b_id, three, working);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (3), "three cards");
  /* B was written last: the newest of the working ones goes first. */
  g_assert_cmpstr (pd_overview_card_get_session_id (card_at (f, 0)), ==, b_id);

  save_plan (f, &f->places[1], a_id, three, blocked);
  wait_until (f, card_is, &a_blocked, "A's card to be blocked and first");
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 0)), ==, PD_OVERVIEW_NEED_BLOCKED);

  save_plan (f, &f->places[2], b_id, three, further);
  wait_until (f, card_is, &b_further, "B's card to follow its plan");
  /* The counts at once; the current step once it is due (a few seconds). */
  wait_until (f, card_is, &b_step, "B's card to say its current step");
  save_plan (f, &f->places[0], local_id, three, further);
  wait_until (f, card_is, &local_further, "the local card to follow its plan");
  g_assert_cmpstr (pd_overview_card_get_session_id (card_at (f, 0)), ==, a_id);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->overview)), ==, 3);
  g_assert_cmpuint (f->n_cleared, ==, 0);
}

/* What an agent in another process writes on an endpoint comes to its
 * card with the endpoint's push: counts, current step and checks, with no
 * list or plan request; a session added shows, one deleted goes (the
 * endpoint cannot push that: its change has the list read again). */
static void
test_pushed (Fixture       *f,
             gconstpointer  data)
{
  const char *steps[][3] = {
    { "in_progress", "pending", "pending" },
    { "done", "in_progress", "pending" },
    { "done", "blocked", "pending" },
    { "done", "done", "in_progress" },
    { "done", "done", "pending" },
    { "done", "done", "done" },
  };
  const char *current[] = { "Read the parser", "Fix the lexer", "Run the tests", "Run the tests", "Run the tests", NULL };
  guint done[] = { 0, 1, 1, 2, 2, 3 };
  guint blocked[] = { 0, 0, 1, 0, 0, 0 };
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  g_autofree char *b_id = add_session (&f->places[1], "Work on B");
  g_autofree char *c_id = NULL;
  g_autoptr(GError) error = NULL;
  Expect b_first = { 1, b_id, 0, 0, FALSE, G_MAXUINT, "Read the parser" };
  guint refetches;

  save_plan (f, &f->places[1], a_id, three, steps[0]);
  save_plan (f, &f->places[1], b_id, three, steps[0]);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (2), "two cards");
  wait_until (f, all_streaming, NULL, "the streams open");
  save_plan (f, &f->places[1], b_id, three, steps[0]);
  wait_until (f, card_is, &b_first, "B's card");

  refetches = pd_overview_get_n_refetches (f->overview);
  for (guint i = 1; i < G_N_ELEMENTS (steps); i++)
    {
      Expect expect = { 1, a_id, done[i], blocked[i], FALSE, G_MAXUINT, current[i] };
      g_autofree char *what = g_strdup_printf ("A's card at its version %u", i + 1);

      /* Counted from the version after the first pushed: the list read as
       * a stream opens (handed over from the streams' thread once the
       * first list came back) may fall in the first. */
      if (i == 2)
        refetches = pd_overview_get_n_refetches (f->overview);
      save_plan (f, &f->places[1], a_id, three, steps[i]);
      wait_until (f, card_is, &expect, what);
      g_assert_cmpstr (pd_overview_card_get_current_step (pd_overview_find (f->overview, source_at (f, 1), a_id)),
                       ==, current[i]);
    }
  /* Four versions, each shown before the next was written: before the
   * pushes, each was a list and a plan request. */
  g_assert_cmpuint (pd_overview_get_n_refetches (f->overview) - refetches, <=, 1);

  c_id = add_session (&f->places[1], "Work on C");
  save_plan (f, &f->places[1], c_id, three, steps[1]);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (3), "C's card");
  g_assert_true (pd_session_store_delete (f->places[1].store, b_id, &error));
  g_assert_no_error (error);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (2), "B's card to go");
  g_assert_null (pd_overview_find (f->overview, source_at (f, 1), b_id));
  g_assert_cmpuint (f->n_cleared, ==, 0);
}

/* An endpoint that goes away leaves its cards (with its error) and the
 * others' cards keep following; back, its cards follow again. */
static void
test_endpoint_away (Fixture       *f,
                    gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  const char *further[] = { "done", "done", "in_progress" };
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  g_autofree char *b_id = add_session (&f->places[2], "Work on B");
  Expect b_away = { 2, b_id, 1, 0, TRUE, G_MAXUINT };
  Expect a_further = { 1, a_id, 2, 0, FALSE, G_MAXUINT };
  Expect b_back = { 2, b_id, 2, 0, FALSE, G_MAXUINT };

  save_plan (f, &f->places[1], a_id, three, working);
  save_plan (f, &f->places[2], b_id, three, working);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (2), "two cards");

  place_stop_server (&f->places[2]);
  wait_until (f, card_is, &b_away, "B's card to say its endpoint is away");
  save_plan (f, &f->places[1], a_id, three, further);
  wait_until (f, card_is, &a_further, "A's card to follow while B is away");
  g_assert_true (card_is (f, &b_away));

  /* B written while away, then back on the same address. */
  save_plan (f, &f->places[2], b_id, three, further);
  place_start_server (&f->places[2]);
  wait_until (f, card_is, &b_back, "B's card to follow again");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->overview)), ==, 2);
  g_assert_cmpuint (f->n_cleared, ==, 0);
}

/* A question of a run in this window: its card goes first, and leaves that
 * place once answered. */
static void
test_local_approval (Fixture       *f,
                     gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  const char *blocked[] = { "done", "blocked", "pending" };
  g_autofree char *local_id = add_session (&f->places[0], "Local work");
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  PdOverviewCard *card;

  save_plan (f, &f->places[0], local_id, three, working);
  save_plan (f, &f->places[1], a_id, three, blocked);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (2), "two cards");
  card = pd_overview_find (f->overview, source_at (f, 0), local_id);
  g_assert_true (card_at (f, 1) == card);

  pd_overview_set_local_approval (f->overview, source_at (f, 0), local_id, "shell", "make check", NULL, 7);
  g_assert_true (card_at (f, 0) == card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_APPROVAL);
  g_assert_cmpstr (pd_overview_card_get_approval_tool (card), ==, "shell");
  g_assert_cmpstr (pd_overview_card_get_approval_command (card), ==, "make check");
  g_assert_cmpuint (pd_overview_card_get_approval_serial (card), ==, 7);

  pd_overview_set_local_approval (f->overview, source_at (f, 0), local_id, NULL, NULL, NULL, 0);
  g_assert_true (card_at (f, 1) == card);
  g_assert_false (pd_overview_card_has_approval (card));
}

static void
save_checked_plan (Place             *place,
                   const char        *id,
                   gint64             version,
                   PdPlanCheckStatus  check)
{
  g_autoptr(PdPlanState) state = pd_plan_state_new ();
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  state->version = version;
  for (guint i = 0; i < 2; i++)
    {
      PdPlanStep *step = pd_plan_step_new (i == 0 ? "s1" : "s2", i == 0 ? "Write it" : "Test it");

      step->status = PD_PLAN_STEP_DONE;
      if (i == 1)
        {
          PdPlanCheck *c = pd_plan_check_new ("tests", "the tests pass", "shell", "{}");

          c->status = check;
          g_ptr_array_add (step->checks, c);
        }
      g_ptr_array_add (state->steps, step);
    }
  turn.session_id = id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (place->store, &turn, &error));
  g_assert_no_error (error);
}

static gboolean
card_need_is (Fixture       *f,
              gconstpointer  data)
{
  const struct { guint index; const char *id; PdOverviewNeed need; } *want = data;
  PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, want->index), want->id);

  return card != NULL && pd_overview_card_get_need (card) == want->need;
}

static gboolean
card_version_is (Fixture       *f,
                 gconstpointer  data)
{
  const struct { guint index; const char *id; gint64 version; } *want = data;
  PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, want->index), want->id);

  return card != NULL && pd_overview_card_get_plan_version (card) == want->version;
}

/* A plan all done with a check that never passed (denied here) is not a
 * plain "done": its card says so and goes with what needs the user, after
 * the blocked ones and before the working ones (tried as a new user
 * would: a denied run read as a green "Done 4/4"). */
static void
test_unverified (Fixture       *f,
                 gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  g_autofree char *verified_id = add_session (&f->places[0], "Verified");
  g_autofree char *denied_id = add_session (&f->places[0], "Denied");
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  struct { guint index; const char *id; PdOverviewNeed need; } denied = { 0, denied_id, PD_OVERVIEW_NEED_UNVERIFIED };
  struct { guint index; const char *id; PdOverviewNeed need; } verified = { 0, verified_id, PD_OVERVIEW_NEED_DONE };
  struct { guint index; const char *id; gint64 version; } second = { 0, verified_id, 2 };
  PdOverviewCard *card;

  save_checked_plan (&f->places[0], verified_id, 1, PD_PLAN_CHECK_PASSED);
  save_checked_plan (&f->places[0], denied_id, 1, PD_PLAN_CHECK_BLOCKED);
  save_plan (f, &f->places[1], a_id, three, working);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (3), "three cards");
  wait_until (f, card_need_is, &denied, "the denied plan's card to be unverified");
  wait_until (f, card_need_is, &verified, "the verified plan's card to be done");
  card = pd_overview_find (f->overview, source_at (f, 0), denied_id);
  g_assert_cmpuint (pd_overview_card_get_unpassed_checks (card), ==, 1);
  g_assert_true (card_at (f, 0) == card);
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 1)), ==, PD_OVERVIEW_NEED_RUNNING);
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 2)), ==, PD_OVERVIEW_NEED_DONE);

  /* The check run again and denied, the steps still all done: no count
   * moves, and the card says so with the version that did it (it read
   * "Done" for a minute, the plan's read held back; issue 21). */
  save_checked_plan (&f->places[0], verified_id, 2, PD_PLAN_CHECK_BLOCKED);
  wait_until (f, card_version_is, &second, "the verified plan's card to read its second version");
  card = pd_overview_find (f->overview, source_at (f, 0), verified_id);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_UNVERIFIED);
  g_assert_cmpuint (pd_overview_card_get_unpassed_checks (card), ==, 1);
}

/* Step 1 done, step 2 in progress with its check's evidence failed: a
 * run's plan when the check's call failed and the model gave up. */
static void
save_failed_check_plan (Place      *place,
                        const char *id,
                        gint64      version)
{
  g_autoptr(PdPlanState) state = pd_plan_state_new ();
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  state->version = version;
  for (guint i = 0; i < 2; i++)
    {
      PdPlanStep *step = pd_plan_step_new (i == 0 ? "s1" : "s2", i == 0 ? "Write it" : "Test it");

      step->status = i == 0 ? PD_PLAN_STEP_DONE : PD_PLAN_STEP_IN_PROGRESS;
      if (i == 1)
        {
          PdPlanCheck *c = pd_plan_check_new ("tests", "the tests pass", "shell", "{}");

          c->status = PD_PLAN_CHECK_FAILED;
          g_ptr_array_add (step->checks, c);
        }
      g_ptr_array_add (state->steps, step);
    }
  turn.session_id = id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (place->store, &turn, &error));
  g_assert_no_error (error);
}

typedef struct
{
  guint           index;
  const char     *id;
  const char     *check;
  PdOverviewNeed  need;
} CheckWant;

static gboolean
card_failed_check_is (Fixture       *f,
                      gconstpointer  data)
{
  const CheckWant *want = data;
  PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, want->index), want->id);

  return card != NULL && g_strcmp0 (pd_overview_card_get_failed_check (card), want->check) == 0 &&
         pd_overview_card_get_need (card) == want->need;
}

/* A run that completed with a step whose check failed (the step cannot be
 * completed so) is over: its card names the check and goes with the
 * failures, on this computer and through an endpoint's push; while a run
 * is on, a failed check is only work in progress (issue 21: such a card
 * read "Working", then "Stalled"). */
static void
test_failed_check (Fixture       *f,
                   gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  g_autofree char *working_id = add_session (&f->places[2], "Still working");
  g_autofree char *local_id = add_session (&f->places[0], "Failed check here");
  g_autofree char *remote_id = add_session (&f->places[1], "Failed check there");
  CheckWant local = { 0, local_id, "the tests pass", PD_OVERVIEW_NEED_FAILED };
  CheckWant remote_before = { 1, remote_id, NULL, PD_OVERVIEW_NEED_RUNNING };
  CheckWant remote_running = { 1, remote_id, "the tests pass", PD_OVERVIEW_NEED_RUNNING };
  CheckWant remote_over = { 1, remote_id, "the tests pass", PD_OVERVIEW_NEED_FAILED };
  g_autoptr(GError) error = NULL;
  PdOverviewCard *card;

  save_plan (f, &f->places[2], working_id, three, working);
  save_failed_check_plan (&f->places[0], local_id, 3);
  save_plan (f, &f->places[1], remote_id, three, working);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (3), "three cards");
  wait_until (f, card_failed_check_is, &local, "the local card to read its failed check");
  wait_until (f, card_failed_check_is, &remote_before, "the endpoint's card");
  card = pd_overview_find (f->overview, source_at (f, 0), local_id);
  g_assert_null (pd_overview_card_get_stopped (card));
  g_assert_true (card_at (f, 0) == card);

  /* Through the endpoint: during its run, work in progress; after it, a
   * failure. */
  g_assert_true (pd_session_store_set_status (f->places[1].store, remote_id, PD_SESSION_STATUS_RUNNING, &error));
  g_assert_no_error (error);
  save_failed_check_plan (&f->places[1], remote_id, 10);
  g_assert_true (pd_session_store_set_status (f->places[1].store, remote_id, PD_SESSION_STATUS_RUNNING, &error));
  g_assert_no_error (error);
  wait_until (f, card_failed_check_is, &remote_running, "the running endpoint's card to read the failed check");
  /* The run's end saves its last turn, idle. */
  save_failed_check_plan (&f->places[1], remote_id, 10);
  wait_until (f, card_failed_check_is, &remote_over, "the endpoint's card to be a failure once its run is over");
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 0)), ==, PD_OVERVIEW_NEED_FAILED);
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 1)), ==, PD_OVERVIEW_NEED_FAILED);
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 2)), ==, PD_OVERVIEW_NEED_RUNNING);
}

static void
add_run_event (Place      *place,
               const char *id,
               const char *type,
               const char *data)
{
  g_autofree char *json = g_strdup_printf ("{\"schema\":\"odek.event/v1\",\"type\":\"%s\",\"run_id\":\"r1\","
                                           "\"session_id\":\"%s\",\"data\":%s}", type, id, data);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (pd_session_store_add_event (place->store, id, "r1", type, g_get_real_time (), json, &error), >, 0);
  g_assert_no_error (error);
}

static gboolean
card_stopped_is (Fixture       *f,
                 gconstpointer  data)
{
  const struct { guint index; const char *id; const char *stopped; } *want = data;
  PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, want->index), want->id);

  return card != NULL && g_strcmp0 (pd_overview_card_get_stopped (card), want->stopped) == 0;
}

/* A run that was cancelled, stopped by its budget, or failed leaves its
 * session idle with steps unfinished: its card says it stopped and why,
 * on this computer and through an endpoint, the failed one above the
 * working ones, the one the person or its budget stopped with the runs
 * done; a new run clears it (tried as a new user would: a cancelled run read blue
 * "Working", then "Stalled", while its Now page said it was stopped). */
static void
test_stopped (Fixture       *f,
              gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  g_autofree char *working_id = add_session (&f->places[2], "Still working");
  g_autofree char *cancelled_id = add_session (&f->places[0], "Cancelled here");
  g_autofree char *budget_id = add_session (&f->places[1], "Out of budget there");
  g_autofree char *failed_id = add_session (&f->places[1], "Failed there");
  g_autofree char *ended_here_id = add_session (&f->places[0], "Ended here");
  g_autofree char *ended_there_id = add_session (&f->places[1], "Ended there");
  struct { guint index; const char *id; const char *stopped; } cancelled = { 0, cancelled_id, "cancelled" };
  struct { guint index; const char *id; const char *stopped; } budget = { 1, budget_id, "budget" };
  struct { guint index; const char *id; const char *stopped; } failed = { 1, failed_id, "failed" };
  struct { guint index; const char *id; const char *stopped; } again = { 0, cancelled_id, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  PdOverviewCard *card;

  save_plan (f, &f->places[2], working_id, three, working);
  save_plan (f, &f->places[0], cancelled_id, three, working);
  save_plan (f, &f->places[1], budget_id, three, working);
  save_plan (f, &f->places[1], failed_id, three, working);
  add_run_event (&f->places[0], cancelled_id, "run_started", "{}");
  add_run_event (&f->places[0], cancelled_id, "run_failed", "{\"error_class\":\"cancelled\",\"duration_ms\":5}");
  add_run_event (&f->places[0], cancelled_id, "session_saved", "{}");
  add_run_event (&f->places[1], budget_id, "run_started", "{}");
  add_run_event (&f->places[1], budget_id, "budget_exceeded", "{\"limit_name\":\"iterations\",\"observed\":3,\"limit\":3}");
  add_run_event (&f->places[1], budget_id, "run_completed", "{\"budget_exceeded\":\"iterations\",\"duration_ms\":5}");
  add_run_event (&f->places[1], failed_id, "run_started", "{}");
  add_run_event (&f->places[1], failed_id, "run_failed", "{\"error_class\":\"failed\",\"error\":\"HTTP 500\"}");
  /* An earlier run that completed says nothing of the last, on now. */
  add_run_event (&f->places[2], working_id, "run_started", "{}");
  add_run_event (&f->places[2], working_id, "run_completed", "{\"duration_ms\":5}");
  add_run_event (&f->places[2], working_id, "run_started", "{}");
  /* A run that completed with steps left (the model ended its turn), here
   * and on an endpoint: it ended, nothing works on it. */
  save_plan (f, &f->places[0], ended_here_id, three, working);
  save_plan (f, &f->places[1], ended_there_id, three, working);
  add_run_event (&f->places[0], ended_here_id, "run_started", "{}");
  add_run_event (&f->places[0], ended_here_id, "run_completed", "{\"duration_ms\":5}");
  add_run_event (&f->places[1], ended_there_id, "run_started", "{}");
  add_run_event (&f->places[1], ended_there_id, "run_completed", "{\"duration_ms\":5}");

  /* The store's own reading, as a list and one by one. */
  info = pd_session_store_get (f->places[0].store, cancelled_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->stopped, ==, "cancelled");
  g_assert_null (info->stopped_error);
  g_clear_pointer (&info, pd_session_info_free);
  info = pd_session_store_get (f->places[2].store, working_id, &error);
  g_assert_no_error (error);
  g_assert_null (info->stopped);
  g_assert_false (info->run_ended);
  g_clear_pointer (&info, pd_session_info_free);
  info = pd_session_store_get (f->places[0].store, ended_here_id, &error);
  g_assert_no_error (error);
  g_assert_null (info->stopped);
  g_assert_true (info->run_ended);
  g_clear_pointer (&info, pd_session_info_free);

  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (6), "six cards");
  wait_until (f, card_stopped_is, &cancelled, "the cancelled run's card to say so");
  wait_until (f, card_stopped_is, &budget, "the endpoint's run out of budget to say so");
  wait_until (f, card_stopped_is, &failed, "the endpoint's failed run to say so");

  card = pd_overview_find (f->overview, source_at (f, 1), failed_id);
  g_assert_cmpstr (pd_overview_card_get_stopped_error (card), ==, "HTTP 500");
  /* Which budget, through the endpoint (stopped.budget): its card names it. */
  card = pd_overview_find (f->overview, source_at (f, 1), budget_id);
  g_assert_cmpstr (pd_overview_card_get_stopped_error (card), ==, "iterations");
  card = card_at (f, 0);
  g_assert_cmpstr (pd_overview_card_get_session_id (card), ==, failed_id);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_FAILED);
  card = card_at (f, 1);
  g_assert_cmpstr (pd_overview_card_get_session_id (card), ==, working_id);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_RUNNING);
  g_assert_null (pd_overview_card_get_stopped (card));
  /* Stopped by the person: not a failure, ranked with the runs done
   * lately, after the working one (N21: it read red among the failed).
   * So is a run that completed with steps left, here and through the
   * endpoint: it read "Working" while nothing ran (tried as a new user
   * would).  So is a run its budget stopped: it read red among the
   * failures (tried as a new user would). */
  for (guint i = 2; i < 6; i++)
    {
      card = card_at (f, i);
      g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
      if (g_strcmp0 (pd_overview_card_get_session_id (card), cancelled_id) == 0)
        g_assert_cmpstr (pd_overview_card_get_stopped (card), ==, "cancelled");
      else if (g_strcmp0 (pd_overview_card_get_session_id (card), budget_id) == 0)
        g_assert_cmpstr (pd_overview_card_get_stopped (card), ==, "budget");
      else
        g_assert_null (pd_overview_card_get_stopped (card));
    }
  card = pd_overview_find (f->overview, source_at (f, 1), ended_there_id);
  g_assert_nonnull (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  card = pd_overview_find (f->overview, source_at (f, 0), ended_here_id);
  g_assert_nonnull (card);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);

  /* Continued: the new run is on, and the card no longer says stopped. */
  add_run_event (&f->places[0], cancelled_id, "run_started", "{}");
  g_assert_true (pd_session_store_set_status (f->places[0].store, cancelled_id, PD_SESSION_STATUS_RUNNING, &error));
  g_assert_no_error (error);
  wait_until (f, card_stopped_is, &again, "the continued session's card to drop its stop");
  card = pd_overview_find (f->overview, source_at (f, 0), cancelled_id);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_RUNNING);
}

static gboolean
card_step_is (Fixture       *f,
              gconstpointer  data)
{
  const struct { guint index; const char *id; gboolean started; } *want = data;
  PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, want->index), want->id);

  return card != NULL && pd_overview_card_get_stopped (card) != NULL &&
         g_strcmp0 (pd_overview_card_get_current_step (card), "Fix the lexer") == 0 &&
         pd_overview_card_get_current_step_started (card) == want->started;
}

typedef struct
{
  const char *id;
  guint       n_told;     /* pushes of @id with its step, begun or not */
  guint       n_begun;
} StepPushes;

static void
on_step_pushed (PdRemoteSource *source,
                GPtrArray      *sessions,
                StepPushes     *pushes)
{
  for (guint i = 0; pushes->id != NULL && i < sessions->len; i++)
    {
      PdRemotePushedSession *pushed = g_ptr_array_index (sessions, i);

      if (g_strcmp0 (pushed->info->id, pushes->id) == 0 && pushed->has_step && pushed->current_step != NULL)
        {
          pushes->n_told++;
          pushes->n_begun += pushed->step_started;
        }
    }
}

static gboolean
step_pushed (Fixture       *f,
             gconstpointer  data)
{
  const StepPushes *pushes = data;

  return pushes->n_told > 0;
}

/* A run stopped between steps (one done, none in progress): the step the
 * card names is the next, which no run began, here and through an
 * endpoint, as listed and as pushed; its card said "Stopped at: …" of it
 * (tried as a new user would).  A run stopped in a step: started. */
static void
test_step_not_started (Fixture       *f,
                       gconstpointer  data)
{
  const char *between[] = { "done", "pending", "pending" };
  const char *within[] = { "done", "in_progress", "pending" };
  g_autofree char *here_id = add_session (&f->places[0], "Stopped between steps here");
  g_autofree char *there_id = add_session (&f->places[1], "Stopped between steps there");
  g_autofree char *inside_id = add_session (&f->places[1], "Stopped inside a step there");
  g_autofree char *pushed_id = NULL;
  struct { guint index; const char *id; gboolean started; } here = { 0, here_id, FALSE };
  struct { guint index; const char *id; gboolean started; } there = { 1, there_id, FALSE };
  struct { guint index; const char *id; gboolean started; } inside = { 1, inside_id, TRUE };
  struct { guint index; const char *id; gboolean started; } pushed = { 2, NULL, FALSE };
  const char *ids[] = { here_id, there_id, inside_id };
  guint places[] = { 0, 1, 1 };
  StepPushes pushes = { NULL, 0, 0 };

  save_plan (f, &f->places[0], here_id, three, between);
  save_plan (f, &f->places[1], there_id, three, between);
  save_plan (f, &f->places[1], inside_id, three, within);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      add_run_event (&f->places[places[i]], ids[i], "run_started", "{}");
      add_run_event (&f->places[places[i]], ids[i], "run_failed", "{\"error_class\":\"cancelled\",\"duration_ms\":5}");
    }
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (3), "three cards");
  wait_until (f, card_step_is, &here, "this computer's card to name the next step, not begun");
  wait_until (f, card_step_is, &there, "the endpoint's card to name the next step, not begun");
  wait_until (f, card_step_is, &inside, "the endpoint's card to name the step in progress");

  /* Pushed by the endpoint's stream once the overview follows it. */
  wait_until (f, all_streaming, NULL, "every endpoint's stream");
  g_signal_connect (source_at (f, 2), "sessions-pushed", G_CALLBACK (on_step_pushed), &pushes);
  pushed_id = add_session (&f->places[2], "Stopped between steps later");
  pushed.id = pushes.id = pushed_id;
  save_plan (f, &f->places[2], pushed_id, three, between);
  add_run_event (&f->places[2], pushed_id, "run_started", "{}");
  add_run_event (&f->places[2], pushed_id, "run_failed", "{\"error_class\":\"cancelled\",\"duration_ms\":5}");
  wait_until (f, card_step_is, &pushed, "the pushed card to name the next step, not begun");
  /* The stream says so itself (current_step_started): a card merged from
   * a push alone, with no listing after it, says the same. */
  wait_until (f, step_pushed, &pushes, "a push of the session with its step");
  g_assert_cmpuint (pushes.n_begun, ==, 0);
  g_signal_handlers_disconnect_by_func (source_at (f, 2), on_step_pushed, &pushes);
}

/* A card whose need stays while its plan moves on (a new version each
 * second, as a working agent writes) changes in place, told to the card
 * alone: the list is told once when cards changed places, not on every
 * change.  With 500 sessions each change was a change of the list, over
 * the span of cards it passed, 500 times a second; the window's list went
 * over that span each time, and with the cards shown its main loop stood
 * still for seconds (bench-overview --view). */
/* A note on step 2 of the plan saved for @id: a new version, the same
 * counts (a working agent's note). */
static void
save_note (Fixture    *f,
           Place      *place,
           const char *id,
           guint       n)
{
  PdPlanStore *plan = g_hash_table_lookup (f->plans, id);
  g_autofree char *update = g_strdup_printf ("{\"verb\":\"update\",\"updates\":[{\"id\":\"s2\",\"note\":\"note %u\"}]}", n);
  g_autofree char *result = NULL;
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  result = pd_plan_store_execute (plan, update, &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);
  turn.session_id = id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (place->store, &turn, &error));
  g_assert_no_error (error);
}

static void
test_coalesced (Fixture       *f,
                gconstpointer  data)
{
  const char *working[] = { "done", "in_progress", "pending" };
  g_autofree char *a_id = add_session (&f->places[1], "Work on A");
  g_autofree char *b_id = add_session (&f->places[1], "Work on B");
  struct { guint index; const char *id; gint64 version; } version = { 1, a_id, 0 };
  Expect b_first = { 1, b_id, 1, 0, FALSE, 0, NULL };
  guint before;

  save_plan (f, &f->places[1], a_id, three, working);
  save_plan (f, &f->places[1], b_id, three, working);
  fixture_follow (f);
  wait_until (f, has_n_cards, GUINT_TO_POINTER (2), "two cards");
  /* B's plan was written last: newest, first. */
  wait_until (f, card_is, &b_first, "B's card first");
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 0)), ==, PD_OVERVIEW_NEED_RUNNING);
  g_assert_cmpint (pd_overview_card_get_need (card_at (f, 1)), ==, PD_OVERVIEW_NEED_RUNNING);
  before = f->n_changes;
  /* A's plan moves on five times, each seen by its card. */
  for (guint i = 0; i < 5; i++)
    {
      PdOverviewCard *card = pd_overview_find (f->overview, source_at (f, 1), a_id);

      version.version = pd_overview_card_get_plan_version (card) + 1;
      save_note (f, &f->places[1], a_id, i);
      wait_until (f, card_version_is, &version, "A's card to read its next version");
    }
  /* Still working: A keeps its place behind B, and the list was told
   * nothing (its row follows the card). */
  g_assert_cmpstr (pd_overview_card_get_session_id (card_at (f, 0)), ==, b_id);
  g_assert_cmpstr (pd_overview_card_get_session_id (card_at (f, 1)), ==, a_id);
  g_assert_cmpuint (f->n_changes - before, ==, 0);
}

/* An endpoint's counts are clamped as read: a hostile listing's done of
 * 4294967295 and blocked of -5 showed "4294967295/3" and "4294967291 Steps
 * Blocked", and sorted first (tried as an attacker would). */
static void
test_hostile_counts (void)
{
  const struct
  {
    const char *json;
    guint       done, total, blocked;
  } cases[] = {
    { "{\"id\":\"20260402-96aca9fa885c03da29d4f8c5e78be75c\",\"plan\":{\"done\":4294967295,\"total\":3,\"blocked\":-5}}", 3, 3, 0 },
    { "{\"id\":\"20260402-96aca9fa885c03da29d4f8c5e78be75c\",\"plan\":{\"done\":-1,\"total\":3,\"blocked\":4294967297}}", 0, 3, 3 },
    { "{\"id\":\"20260402-96aca9fa885c03da29d4f8c5e78be75c\",\"plan\":{\"done\":1,\"total\":4,\"blocked\":9}}", 1, 4, 3 },
    { "{\"id\":\"20260402-96aca9fa885c03da29d4f8c5e78be75c\",\"plan\":{\"done\":5,\"total\":-7,\"blocked\":1}}", 0, 0, 0 },
    { "{\"id\":\"20260402-96aca9fa885c03da29d4f8c5e78be75c\",\"plan\":{\"done\":2,\"total\":9223372036854775807,\"blocked\":1}}", 2,
      PD_REMOTE_MAX_STEPS, 1 },
    { "{\"id\":\"20260402-96aca9fa885c03da29d4f8c5e78be75c\",\"messages\":-3,\"plan\":{\"done\":2,\"total\":3,\"blocked\":1}}", 2, 3, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = json_from_string (cases[i].json, NULL);
      PdSessionInfo *info = _pd_remote_session_from_json (json_node_get_object (node));

      g_assert_nonnull (info);
      g_assert_cmpuint (info->plan_done, ==, cases[i].done);
      g_assert_cmpuint (info->plan_total, ==, cases[i].total);
      g_assert_cmpuint (info->plan_blocked, ==, cases[i].blocked);
      g_assert_cmpuint (info->n_messages, <=, G_MAXINT);
      pd_session_info_free (info);
    }
}

/* @card's session as a listing gives it: working, @done of 3 steps
 * (@blocked of them blocked), changed at @changed_at (unix µs). */
static void
card_set (PdOverviewCard *card,
          guint           done,
          guint           blocked,
          gint64          changed_at)
{
  PdSessionInfo info = { 0 };

  info.id = (char *) pd_overview_card_get_session_id (card);
  info.task = (char *) "Work";
  info.source = (char *) "plandeck";
  info.status = PD_SESSION_STATUS_RUNNING;
  info.created_at = changed_at;
  info.updated_at = changed_at;
  info.plan_version = changed_at;
  info.plan_done = done;
  info.plan_total = 3;
  info.plan_blocked = blocked;
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_update_need (card, changed_at, G_MAXINT64);
}

/* A card that changes and keeps its need keeps its place; one that comes
 * to a need goes first of it.  Ordered by the last change, ten agents per
 * endpoint writing every second put every working card in another place
 * each second: a list no one could follow, whose card buttons slept half
 * a second after each move (bench-overview --view). */
static void
test_order_kept (void)
{
  const gint64 t = (gint64) 1800000000 * G_USEC_PER_SEC;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteSource) source = pd_remote_source_new ("http://127.0.0.1:9", TOKEN, &error);
  g_autoptr(PdOverviewCard) a = NULL;
  g_autoptr(PdOverviewCard) b = NULL;

  g_assert_no_error (error);
  a = _pd_overview_card_new (PD_SOURCE (source), "20261203-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  b = _pd_overview_card_new (PD_SOURCE (source), "20261203-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
  card_set (a, 1, 0, t);
  card_set (b, 1, 0, t + G_USEC_PER_SEC);
  /* As first seen: the newest change first. */
  g_assert_cmpint (_pd_overview_card_compare (b, a), <, 0);

  /* A writes again (a note, the next step): both still working, B first. */
  card_set (a, 1, 0, t + (gint64) 2 * G_USEC_PER_SEC);
  g_assert_cmpint (pd_overview_card_get_need (a), ==, PD_OVERVIEW_NEED_RUNNING);
  g_assert_cmpint (_pd_overview_card_compare (b, a), <, 0);
  card_set (a, 2, 0, t + (gint64) 3600 * G_USEC_PER_SEC);
  g_assert_cmpint (_pd_overview_card_compare (b, a), <, 0);
  g_assert_cmpint (_pd_overview_card_compare (a, b), >, 0);

  /* Blocked, then working again: first of its need each time. */
  card_set (a, 2, 1, t + (gint64) 3601 * G_USEC_PER_SEC);
  g_assert_cmpint (pd_overview_card_get_need (a), ==, PD_OVERVIEW_NEED_BLOCKED);
  g_assert_cmpint (_pd_overview_card_compare (a, b), <, 0);
  card_set (b, 1, 1, t + (gint64) 3602 * G_USEC_PER_SEC);
  g_assert_cmpint (_pd_overview_card_compare (b, a), <, 0);
  card_set (b, 2, 0, t + (gint64) 3603 * G_USEC_PER_SEC);
  card_set (a, 2, 0, t + (gint64) 3604 * G_USEC_PER_SEC);
  g_assert_cmpint (_pd_overview_card_compare (a, b), <, 0);
  card_set (b, 2, 0, t + (gint64) 3605 * G_USEC_PER_SEC);
  g_assert_cmpint (_pd_overview_card_compare (a, b), <, 0);
  g_assert_cmpint (_pd_overview_card_compare (a, a), ==, 0);
}

/* A failed or interrupted run is said over a blocked step ("1 Step Blocked"
 * of a failed session, tried as a new user would); idle, the step is. */
static void
test_failed_over_blocked (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteSource) source = pd_remote_source_new ("http://127.0.0.1:9", TOKEN, &error);
  g_autoptr(PdOverviewCard) card = NULL;
  const PdSessionStatus statuses[] = { PD_SESSION_STATUS_FAILED, PD_SESSION_STATUS_INTERRUPTED, PD_SESSION_STATUS_IDLE };
  const PdOverviewNeed needs[] = { PD_OVERVIEW_NEED_FAILED, PD_OVERVIEW_NEED_STOPPED, PD_OVERVIEW_NEED_BLOCKED };
  PdSessionInfo info = { .task = (char *) "Migrate", .source = (char *) "plandeck", .updated_at = g_get_real_time (),
                         .plan_done = 1, .plan_total = 3, .plan_blocked = 1 };

  g_assert_no_error (error);
  card = _pd_overview_card_new (PD_SOURCE (source), "20261203-cccccccccccccccccccccccccccccccc");
  info.id = (char *) pd_overview_card_get_session_id (card);
  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    {
      info.status = statuses[i];
      _pd_overview_card_set_info (card, &info);
      _pd_overview_card_update_need (card, info.updated_at, G_MAXINT64 / 2);
      g_assert_cmpint (pd_overview_card_get_need (card), ==, needs[i]);
    }
}

int
main (int   argc,
      char *argv[])
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);

  g_test_add ("/pd/overview/active-only", Fixture, NULL, fixture_set_up, test_active_only, fixture_tear_down);
  g_test_add ("/pd/overview/update-and-reorder", Fixture, NULL, fixture_set_up, test_update_and_reorder,
              fixture_tear_down);
  g_test_add ("/pd/overview/pushed", Fixture, NULL, fixture_set_up, test_pushed, fixture_tear_down);
  g_test_add ("/pd/overview/endpoint-away", Fixture, NULL, fixture_set_up, test_endpoint_away, fixture_tear_down);
  g_test_add_func ("/pd/overview/hostile-counts", test_hostile_counts);
  g_test_add_func ("/pd/overview/order-kept", test_order_kept);
  g_test_add_func ("/pd/overview/failed-over-blocked", test_failed_over_blocked);
  g_test_add ("/pd/overview/unverified", Fixture, NULL, fixture_set_up, test_unverified, fixture_tear_down);
  g_test_add ("/pd/overview/stopped", Fixture, NULL, fixture_set_up, test_stopped, fixture_tear_down);
  g_test_add ("/pd/overview/step-not-started", Fixture, NULL, fixture_set_up, test_step_not_started,
              fixture_tear_down);
  g_test_add ("/pd/overview/failed-check", Fixture, NULL, fixture_set_up, test_failed_check, fixture_tear_down);
  g_test_add ("/pd/overview/coalesced", Fixture, NULL, fixture_set_up, test_coalesced, fixture_tear_down);
  g_test_add ("/pd/overview/local-approval", Fixture, NULL, fixture_set_up, test_local_approval, fixture_tear_down);
  return g_test_run ();
}

/* test-remote-stream.c: the endpoints' event streams, read on a thread of
 * their own (core/serve/pd-remote-stream.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <time.h>

#include "pd-remote-records-private.h"
#include "pd-remote-source.h"
#include "pd-remote-stream-private.h"
#include "pd-test-valgrind.h"

static void
note_thread (GCancellable *cancellable,
             gpointer      user_data)
{
  g_atomic_pointer_set ((GThread **) user_data, g_thread_self ());
}

/* A source let go of its stream (the window closed, an endpoint removed, a
 * test's tear-down): the cancellable of the stream's open and reads was
 * cancelled on the source's thread, so libsoup's and the reads' handlers
 * ran there while the streams' thread went on with the same message (a
 * SIGSEGV in libsoup closing the stream's input, in the Overview's core
 * test).  They run on the streams' thread. */
static void
test_stop_cancels_on_its_thread (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteSource) source = pd_remote_source_new ("http://127.0.0.1:9/?token=t", NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < 20; i++)
    {
      PdRemoteStream *stream = _pd_remote_stream_open (source, "http://127.0.0.1:9/api/stream", "t", i % 2 == 0);
      g_autoptr(GCancellable) cancellable = g_object_ref (_pd_remote_stream_get_cancellable (stream));
      GThread *cancelled_on = NULL;
      gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
      gulong handler = g_cancellable_connect (cancellable, G_CALLBACK (note_thread), &cancelled_on, NULL);

      _pd_remote_stream_stop (stream);
      while (g_atomic_pointer_get (&cancelled_on) == NULL && g_get_monotonic_time () < deadline)
        {
          g_main_context_iteration (NULL, FALSE);
          g_usleep (1000);
        }
      g_assert_nonnull (g_atomic_pointer_get (&cancelled_on));
      g_assert_true (g_atomic_pointer_get (&cancelled_on) != g_thread_self ());
      g_cancellable_disconnect (cancellable, handler);
    }
}

/* A pushed frame as our serve writes it (pd-server-push.c): @n sessions,
 * each a record as GET /api/sessions lists it, with the push's step, and
 * members a card does not read (a long cwd, an array of objects). */
static char *
pushed_frame (guint n,
              guint tick)
{
  g_autoptr(GString) frame = g_string_new ("{\"sessions\":[");

  for (guint i = 0; i < n; i++)
    {
      PdSessionInfo info = { 0 };
      g_autofree char *id = g_strdup_printf ("20261205-%032x", 0xa00000 + i);
      g_autofree char *task = g_strdup_printf ("Agent %u of an endpoint, \\u0000 tick %u", i, tick);
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *record = NULL;
      JsonObject *object;
      JsonArray *extra = json_array_new ();

      info.id = id;
      info.task = task;
      info.model = (char *) "m";
      info.provider = (char *) "replay";
      info.source = (char *) "plandeck";
      info.cwd = (char *) "/home/someone/work/a-rather-long-project-directory/with/more/parts";
      info.status = i % 3 == 0 ? PD_SESSION_STATUS_IDLE : PD_SESSION_STATUS_FAILED;
      info.created_at = (gint64) 1764939600 * G_USEC_PER_SEC;
      info.updated_at = ((gint64) 1764939600 + tick) * G_USEC_PER_SEC + i;
      info.turns = tick;
      info.plan_version = tick + 1;
      info.plan_total = 8;
      info.plan_done = tick % 8;
      info.plan_blocked = i % 2;
      info.n_messages = 3;
      info.stopped = i % 3 == 0 ? NULL : (char *) "failed";
      info.stopped_error = i % 3 == 0 ? NULL : (char *) "HTTP 500";
      object = pd_session_info_to_json (&info, FALSE);
      json_object_set_int_member (object, "unpassed_checks", i % 4);
      json_object_set_string_member (object, "current_step", "Step 3 of the work of the agent");
      json_object_set_boolean_member (object, "current_step_started", i % 5 != 0);
      if (i % 4 == 1)
        json_object_set_string_member (object, "failed_check", "the tests pass");
      for (guint k = 0; k < 4; k++)
        {
          JsonObject *item = json_object_new ();

          json_object_set_string_member (item, "kind", "not read by a card");
          json_object_set_int_member (item, "n", k);
          json_array_add_object_element (extra, item);
        }
      json_object_set_array_member (object, "extra", extra);
      json_node_take_object (node, object);
      record = json_to_string (node, FALSE);
      g_string_append_printf (frame, "%s%s", i ? "," : "", record);
    }
  g_string_append (frame, "]}");
  /* The task with an escaped NUL in it, as an endpoint may write it. */
  {
    g_autofree char *text = g_string_free (g_steal_pointer (&frame), FALSE);
    g_auto(GStrv) parts = g_strsplit (text, "\\\\u0000", -1);

    return g_strjoinv ("\\u0000", parts);
  }
}

/* What json-glib's whole tree gives for @frame: the reading before. */
static GPtrArray *
pushed_by_tree (const char *frame)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autofree char *marked = _pd_remote_mark_nul (frame, strlen (frame));
  GPtrArray *infos = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  JsonArray *sessions;

  g_assert_true (json_parser_load_from_data (parser, marked != NULL ? marked : frame, (gssize) strlen (frame), NULL));
  sessions = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "sessions");
  for (guint i = 0; i < json_array_get_length (sessions); i++)
    {
      JsonObject *object = json_array_get_object_element (sessions, i);
      PdSessionInfo *info = _pd_remote_session_from_json (object);

      /* The push's members, in the fields no record has. */
      info->turns = (guint) json_object_get_int_member (object, "unpassed_checks");
      g_free (info->cwd);
      info->cwd = g_strdup_printf ("%s|%s|%d", json_object_get_string_member (object, "current_step"),
                                   json_object_get_member (object, "failed_check")
                                   ? json_object_get_string_member (object, "failed_check") : "-",
                                   json_object_get_boolean_member (object, "current_step_started"));
      g_ptr_array_add (infos, info);
    }
  return infos;
}

/* A pushed frame parsed as it is read now gives every value the whole
 * tree gave: the members a card reads are all picked. */
static void
test_pushed_same (void)
{
  g_autofree char *frame = pushed_frame (10, 7);
  g_autoptr(GPtrArray) tree = pushed_by_tree (frame);
  g_autoptr(GPtrArray) pushed = _pd_remote_stream_parse_pushed (frame, strlen (frame));

  g_assert_cmpuint (pushed->len, ==, 10);
  g_assert_cmpuint (tree->len, ==, 10);
  for (guint i = 0; i < pushed->len; i++)
    {
      const PdRemotePushedSession *session = g_ptr_array_index (pushed, i);
      const PdSessionInfo *a = session->info;
      const PdSessionInfo *b = g_ptr_array_index (tree, i);
      g_autofree char *step = g_strdup_printf ("%s|%s|%d", session->current_step,
                                               session->failed_check ? session->failed_check : "-",
                                               session->step_started);

      g_assert_cmpstr (a->id, ==, b->id);
      g_assert_cmpstr (a->task, ==, b->task);
      g_assert_nonnull (strstr (a->task, "\u2400"));
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpstr (a->model, ==, b->model);
      g_assert_cmpstr (a->provider, ==, b->provider);
      g_assert_cmpstr (a->source, ==, b->source);
      g_assert_cmpstr (a->stopped, ==, b->stopped);
      g_assert_cmpstr (a->stopped_error, ==, b->stopped_error);
      g_assert_cmpint (a->status, ==, b->status);
      g_assert_cmpint (a->created_at, ==, b->created_at);
      g_assert_cmpint (a->updated_at, ==, b->updated_at);
      g_assert_cmpint (a->plan_version, ==, b->plan_version);
      g_assert_cmpuint (a->plan_total, ==, b->plan_total);
      g_assert_cmpuint (a->plan_done, ==, b->plan_done);
      g_assert_cmpuint (a->plan_blocked, ==, b->plan_blocked);
      g_assert_cmpuint (a->plan_hidden, ==, b->plan_hidden);
      g_assert_cmpuint (a->n_messages, ==, b->n_messages);
      g_assert_cmpint (a->run_ended, ==, b->run_ended);
      g_assert_true (session->has_step);
      g_assert_cmpuint (session->unpassed_checks, ==, b->turns);
      g_assert_cmpstr (step, ==, b->cwd);
    }
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* The streams' thread parses every push of every endpoint (500 sessions a
 * second from fifty endpoints in bench-overview): json-glib's parser
 * building each record whole was a third of the thread's time.  A frame
 * is now read as a card reads it, in well under the time json-glib's parse
 * alone takes for the same frames: the quickest of several rounds of each,
 * taken in turns, in CPU time (a busy machine slows a round, never speeds
 * one up). */
static void
test_pushed_cost (void)
{
  g_autoptr(GPtrArray) frames = g_ptr_array_new_with_free_func (g_free);
  gint64 ours = G_MAXINT64, theirs = G_MAXINT64;
  guint rounds = RUNNING_ON_VALGRIND ? 2 : 15;

  for (guint i = 0; i < 50; i++)
    g_ptr_array_add (frames, pushed_frame (10, i));
  for (guint round = 0; round < rounds; round++)
    {
      gint64 start = thread_cpu_us ();

      for (guint i = 0; i < frames->len; i++)
        {
          const char *frame = g_ptr_array_index (frames, i);

          g_ptr_array_unref (_pd_remote_stream_parse_pushed (frame, strlen (frame)));
        }
      ours = MIN (ours, thread_cpu_us () - start);
      start = thread_cpu_us ();
      for (guint i = 0; i < frames->len; i++)
        {
          g_autoptr(JsonParser) parser = json_parser_new_immutable ();
          const char *frame = g_ptr_array_index (frames, i);

          g_assert_true (json_parser_load_from_data (parser, frame, -1, NULL));
        }
      theirs = MIN (theirs, thread_cpu_us () - start);
    }
  g_test_message ("%u frames of 10 sessions, the quickest of %u rounds: read as a card reads them %.2f ms, "
                  "json-glib's parse alone %.2f ms", frames->len, rounds, ours / 1000.0, theirs / 1000.0);
  if (!RUNNING_ON_VALGRIND)
    g_assert_cmpint (ours * 4, <, theirs * 3);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/remote-stream/stop-cancels-on-its-thread", test_stop_cancels_on_its_thread);
  g_test_add_func ("/pd/remote-stream/pushed-same", test_pushed_same);
  g_test_add_func ("/pd/remote-stream/pushed-cost", test_pushed_cost);
  return g_test_run ();
}

/* test-remote-stream.c: the endpoints' event streams, read on a thread of
 * their own (core/serve/pd-remote-stream.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-remote-source.h"
#include "pd-remote-stream-private.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/remote-stream/stop-cancels-on-its-thread", test_stop_cancels_on_its_thread);
  return g_test_run ();
}

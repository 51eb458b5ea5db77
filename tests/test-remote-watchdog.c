/* test-remote-watchdog.c: the remote sources of a main context share one
 * watchdog timer, and it still tells each of them that its endpoint hung
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-remote-watchdog"

#include "config.h"

#include <string.h>

#include "pd-remote-source.h"

#define TOKEN "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
#define N_SOURCES 3u

/* An endpoint that accepts and never answers. */
typedef struct
{
  GSocketListener *listener;
  GPtrArray       *held;   /* (element-type GSocketConnection) */
} Hung;

static void
on_accepted (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Hung *hung = user_data;
  GSocketConnection *connection = g_socket_listener_accept_finish (G_SOCKET_LISTENER (object), result, NULL, NULL);

  if (connection == NULL)
    return;
  g_ptr_array_add (hung->held, connection);
  g_socket_listener_accept_async (hung->listener, NULL, on_accepted, hung);
}

/* The watchdogs' timers on the default context. */
static guint
count_watchdogs (void)
{
  GSource *probe = g_idle_source_new ();
  guint last = g_source_attach (probe, NULL), n = 0;

  g_source_destroy (probe);
  g_source_unref (probe);
  for (guint id = 1; id < last; id++)
    {
      GSource *source = g_main_context_find_source_by_id (NULL, id);

      if (source != NULL && g_strcmp0 (g_source_get_name (source), "[pd] remote watchdog") == 0)
        n++;
    }
  return n;
}

/* Before, each source had a timer of its own: 3 here, 51 of the 161
 * sources bench-overview's window loop looked at on each of its turns. */
static void
test_shared_and_ticking (void)
{
  g_autoptr(GError) error = NULL;
  Hung hung = { g_socket_listener_new (), g_ptr_array_new_with_free_func (g_object_unref) };
  PdRemoteSource *remotes[N_SOURCES];
  g_autofree char *url = NULL;
  gint64 deadline;
  guint16 port;

  port = g_socket_listener_add_any_inet_port (hung.listener, NULL, &error);
  g_assert_no_error (error);
  g_socket_listener_accept_async (hung.listener, NULL, on_accepted, &hung);
  url = g_strdup_printf ("http://127.0.0.1:%u", port);

  g_assert_cmpuint (count_watchdogs (), ==, 0);
  for (guint i = 0; i < N_SOURCES; i++)
    {
      remotes[i] = pd_remote_source_new (url, TOKEN, &error);
      g_assert_no_error (error);
      pd_remote_source_set_timeout (remotes[i], 0);
      pd_remote_source_watch (remotes[i], 60000);
    }
  g_test_message ("%u watchdog timers for %u sources", count_watchdogs (), N_SOURCES);
  g_assert_cmpuint (count_watchdogs (), ==, 1);

  /* Each is told its endpoint stopped answering by the one timer. */
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  for (guint i = 0; i < N_SOURCES; i++)
    {
      while (pd_remote_source_get_state (remotes[i]) != PD_REMOTE_OFFLINE && g_get_monotonic_time () < deadline)
        g_main_context_iteration (NULL, TRUE);
      g_assert_cmpint (pd_remote_source_get_state (remotes[i]), ==, PD_REMOTE_OFFLINE);
      g_assert_nonnull (strstr (pd_remote_source_get_state_message (remotes[i]), "stopped answering"));
    }

  /* The timer goes with the last source watched. */
  pd_remote_source_watch (remotes[0], 0);
  g_assert_cmpuint (count_watchdogs (), ==, 1);
  for (guint i = 1; i < N_SOURCES; i++)
    pd_remote_source_watch (remotes[i], 0);
  g_assert_cmpuint (count_watchdogs (), ==, 0);
  for (guint i = 0; i < N_SOURCES; i++)
    g_object_unref (remotes[i]);

  g_socket_listener_close (hung.listener);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_object_unref (hung.listener);
  g_ptr_array_unref (hung.held);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/remote-watchdog/shared-and-ticking", test_shared_and_ticking);
  return g_test_run ();
}

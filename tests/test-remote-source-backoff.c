/* test-remote-source-backoff.c: a read an endpoint answers with a failure
 * is not asked again at each poll
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A SoupServer on loopback whose plan answers 500 and whose events are
 * not JSON while it is broken, counting what a PdRemoteSource asks of it,
 * with an event stream the test pushes events on.  The Now page asked
 * such an endpoint again at each 3 s poll, and a refused plan 11 times in
 * 30 s (tried as an attacker would).
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-remote-source.h"
#include "pd-remote-source-private.h"
#include "pd-test-loopback.h"

#define ID    "20260101-0123456789abcdef0123456789abcdef"
#define OTHER "20260101-fedcba9876543210fedcba9876543210"

typedef struct
{
  SoupServer        *server;
  char              *url;
  gboolean           broken;    /* the plan answers 500, the events are not JSON */
  guint              plans;     /* asked */
  guint              events;
  SoupServerMessage *stream;    /* (nullable) the event stream, held open */
  guint              heard;     /* events the source emitted */
} Endpoint;

static void
handler (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  Endpoint *endpoint = user_data;
  const char *body = NULL;
  guint status = 200;

  if (strcmp (path, "/api/events/stream") == 0)
    {
      pd_test_loopback_stream_open (msg, &endpoint->stream);
      return;
    }
  if (strcmp (path, "/api/health") == 0)
    body = "{\"status\":\"ok\",\"events_stream\":true}";
  else if (strcmp (path, "/api/sessions/" ID "/plan") == 0 || strcmp (path, "/api/sessions/" ID "/plan/detail") == 0)
    {
      endpoint->plans++;
      if (endpoint->broken)
        {
          status = 500;
          body = "{\"error\":\"database is locked\"}";
        }
      else
        body = "{\"session_id\":\"" ID "\",\"version\":1,\"found\":true,\"steps\":[{\"id\":\"s1\",\"title\":\"Read\"}]}";
    }
  else if (strcmp (path, "/api/events") == 0)
    {
      endpoint->events++;
      body = endpoint->broken ? "{\"events\":[oops" : "{\"events\":[],\"count\":0}";
    }
  if (body == NULL)
    {
      status = 404;
      body = "{\"error\":\"not found\"}";
    }
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static void
endpoint_start (Endpoint *endpoint)
{
  guint port;

  endpoint->server = pd_test_loopback_start (0, handler, endpoint, &port);
  endpoint->url = g_strdup_printf ("http://127.0.0.1:%u/?token=tok", port);
}

static void
endpoint_stop (Endpoint *endpoint)
{
  pd_test_loopback_stream_close (&endpoint->stream);
  pd_test_loopback_stop (&endpoint->server);
  g_free (endpoint->url);
}

static PdSource *
source_new (Endpoint *endpoint)
{
  g_autoptr(GError) error = NULL;
  PdRemoteSource *source = pd_remote_source_new (endpoint->url, NULL, &error);

  g_assert_no_error (error);
  /* The first wait short, to keep the test's run short. */
  source->failed_first_ms = 100;
  return PD_SOURCE (source);
}

static void
store_result (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
}

/* The plan, as the Now page asks for it; the error, when it failed. */
static GError *
read_plan (PdSource *source)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  GError *error = NULL;

  pd_source_get_plan_async (source, ID, NULL, store_result, &result);
  pd_source_get_plan_finish (source, wait_result (&result), &plan, &error);
  if (error == NULL)
    g_assert_nonnull (plan);
  return error;
}

static GError *
read_events (PdSource *source)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) events = NULL;
  GError *error = NULL;

  pd_source_get_events_async (source, ID, 0, 500, NULL, store_result, &result);
  events = pd_source_get_events_finish (source, wait_result (&result), &error);
  return error;
}

static gboolean
on_poll_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The main loop runs @ms on. */
static void
run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, on_poll_timeout, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
assert_plan_fails (PdSource *source)
{
  g_autoptr(GError) error = read_plan (source);

  /* Said as the endpoint answered, each time. */
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "answered HTTP 500: database is locked"));
}

/* Polled every 50 ms for 40 polls, a plan answering 500 and events that
 * are not JSON are asked as their waits end (0.1, 0.2, 0.4 … s), not at
 * each poll; each poll still says why.  Healed, a Retry reads at once,
 * and without one the read after the wait does. */
static void
test_backoff_failed_reads (void)
{
  Endpoint endpoint = { 0 };
  g_autoptr(PdSource) source = NULL;
  guint polls = 0;
  guint plans;
  gboolean read = FALSE;

  endpoint_start (&endpoint);
  source = source_new (&endpoint);
  endpoint.broken = TRUE;

  for (guint i = 0; i < 40; i++)
    {
      g_autoptr(GError) events_error = NULL;

      assert_plan_fails (source);
      events_error = read_events (source);
      g_assert_error (events_error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
      g_assert_nonnull (strstr (events_error->message, "not JSON"));
      run_for (50);
    }
  g_test_message ("40 polls asked the plan %u times, the events %u times", endpoint.plans, endpoint.events);
  /* About six (at 0, 0.1, 0.3, 0.7, 1.5 s …); a slow machine's 40 polls
   * take longer, which a doubling wait hardly notices. */
  g_assert_cmpuint (endpoint.plans, >=, 2);
  g_assert_cmpuint (endpoint.plans, <=, 10);
  g_assert_cmpuint (endpoint.events, >=, 2);
  g_assert_cmpuint (endpoint.events, <=, 10);

  /* Healed, and a person presses Retry: asked at once. */
  endpoint.broken = FALSE;
  plans = endpoint.plans;
  pd_remote_source_forget_failures (PD_REMOTE_SOURCE (source), ID);
  g_assert_no_error (read_plan (source));
  g_assert_cmpuint (endpoint.plans, ==, plans + 1);

  /* Broken again: the wait starts over from its first (the success
   * forgot the last), and the poll after it reads the healed plan. */
  endpoint.broken = TRUE;
  assert_plan_fails (source);
  assert_plan_fails (source);
  g_assert_cmpuint (endpoint.plans, ==, plans + 2);
  endpoint.broken = FALSE;
  while (!read && polls++ < 400)
    {
      g_autoptr(GError) error = read_plan (source);

      read = error == NULL;
      if (!read)
        run_for (50);
    }
  g_test_message ("read again after %u polls", polls);
  g_assert_true (read);
  g_assert_cmpuint (endpoint.plans, ==, plans + 3);

  g_clear_object (&source);
  endpoint_stop (&endpoint);
}

static void
on_event (PdRemoteSource *source,
          PdEvent        *event,
          Endpoint       *endpoint)
{
  endpoint->heard++;
}

/* Pushes an event of @session_id on the stream and waits for the source
 * to tell it. */
static void
push_event (Endpoint   *endpoint,
            const char *session_id)
{
  g_autofree char *line = g_strdup_printf ("data: {\"schema\":\"plandeck.event/v1\",\"type\":\"session_saved\","
                                           "\"run_id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"session_id\":\"%s\","
                                           "\"timestamp\":\"2026-12-04T17:00:00.000000Z\",\"data\":{\"messages\":2}}\n\n",
                                           session_id);
  guint heard = endpoint->heard;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  soup_message_body_append (soup_server_message_get_response_body (endpoint->stream), SOUP_MEMORY_COPY,
                            line, strlen (line));
  soup_server_message_unpause (endpoint->stream);
  while (endpoint->heard == heard && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (endpoint->heard, >, heard);
}

/* A change the endpoint pushes of the session ends the wait of its reads;
 * one of another session does not. */
static void
test_backoff_pushed_change (void)
{
  Endpoint endpoint = { 0 };
  g_autoptr(PdSource) source = NULL;
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  guint plans;

  endpoint_start (&endpoint);
  source = source_new (&endpoint);
  /* Waits long enough that none ends by itself during the test. */
  PD_REMOTE_SOURCE (source)->failed_first_ms = 60000;
  g_signal_connect (source, "event", G_CALLBACK (on_event), &endpoint);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 100);
  while ((endpoint.stream == NULL || !pd_remote_source_is_streaming (PD_REMOTE_SOURCE (source))) &&
         g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (pd_remote_source_is_streaming (PD_REMOTE_SOURCE (source)));

  endpoint.broken = TRUE;
  assert_plan_fails (source);
  plans = endpoint.plans;
  assert_plan_fails (source);
  g_assert_cmpuint (endpoint.plans, ==, plans);

  push_event (&endpoint, OTHER);
  assert_plan_fails (source);
  g_assert_cmpuint (endpoint.plans, ==, plans);

  push_event (&endpoint, ID);
  assert_plan_fails (source);
  g_assert_cmpuint (endpoint.plans, ==, plans + 1);

  /* Once: an endpoint pushing change after change of the session does not
   * have the failing read asked again at each (it was, twice a second, at
   * 10 to 200 events a second; tried as an attacker would). */
  for (guint i = 0; i < 10; i++)
    {
      push_event (&endpoint, ID);
      assert_plan_fails (source);
    }
  g_assert_cmpuint (endpoint.plans, ==, plans + 1);

  /* A person's Retry asks it again. */
  pd_remote_source_forget_failures (PD_REMOTE_SOURCE (source), ID);
  assert_plan_fails (source);
  g_assert_cmpuint (endpoint.plans, ==, plans + 2);

  /* A reconnection (the window's Retry) asks everything again too. */
  pd_remote_source_reconnect (PD_REMOTE_SOURCE (source));
  endpoint.broken = FALSE;
  g_assert_no_error (read_plan (source));
  g_assert_cmpuint (endpoint.plans, ==, plans + 3);

  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
  g_clear_object (&source);
  endpoint_stop (&endpoint);
}

int
main (int   argc,
      char *argv[])
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);

  g_test_add_func ("/pd/remote-source/backoff-failed-reads", test_backoff_failed_reads);
  g_test_add_func ("/pd/remote-source/backoff-pushed-change", test_backoff_pushed_change);

  return g_test_run ();
}

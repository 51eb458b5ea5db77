/* pd-test-server.h: a scripted HTTP server for the provider tests.
 *
 * A real SoupServer on 127.0.0.1, port 0, running in its own thread with its
 * own GMainContext, because the providers under test block the test thread
 * in synchronous libsoup calls.  Each request is recorded (path, headers,
 * body) and answered by the next scripted reply.
 *
 * Streamed replies take over the connection and write the raw HTTP response
 * from a writer thread, one piece per TCP write with a pause between, so a
 * test decides exactly where lines, events and chunks are cut — including
 * closing the connection in the middle, or hanging until the client leaves.
 *
 * Header-only because the test list in tests/meson.build builds one source
 * file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <libsoup/soup.h>

#include "pd-anthropic-provider.h"
#include "pd-openai-provider.h"
#include "pd-provider.h"
#include "pd-soup-compat.h"

typedef struct
{
  char       *path;
  GHashTable *headers;   /* lower-case name → value */
  GBytes     *body;
} TestRequest;

typedef struct
{
  guint      status;
  char      *content_type;
  char      *retry_after;
  char      *retry_after_ms;
  GBytes    *body;       /* plain replies */
  GPtrArray *pieces;     /* streamed replies: GBytes, one write each */
  gboolean   chunked;    /* streamed with Transfer-Encoding: chunked */
  gboolean   truncate;   /* close without the end of the body */
  gboolean   hang;       /* stay open after the pieces until the client closes */
  guint      pause_ms;   /* between pieces */
} TestReply;

typedef struct
{
  GThread      *thread;
  GMainContext *context;
  GMainLoop    *loop;
  SoupServer   *server;
  char         *base_url;
  GMutex        lock;
  GCond         cond;
  gboolean      ready;
  GPtrArray    *requests;  /* TestRequest */
  GQueue        replies;   /* TestReply */
  GPtrArray    *writers;   /* GThread */
  GCancellable *shutdown;
} TestServer;

typedef struct
{
  TestServer *server;
  GIOStream  *stream;
  TestReply  *reply;
} Writer;

static void
test_request_free (gpointer data)
{
  TestRequest *request = data;

  g_free (request->path);
  g_hash_table_unref (request->headers);
  g_bytes_unref (request->body);
  g_free (request);
}

static void
test_reply_free (TestReply *reply)
{
  g_free (reply->content_type);
  g_free (reply->retry_after);
  g_free (reply->retry_after_ms);
  g_clear_pointer (&reply->body, g_bytes_unref);
  g_clear_pointer (&reply->pieces, g_ptr_array_unref);
  g_free (reply);
}

G_GNUC_UNUSED static TestReply *
test_reply_plain (guint       status,
                  const char *content_type,
                  const char *body)
{
  TestReply *reply = g_new0 (TestReply, 1);

  reply->status = status;
  reply->content_type = g_strdup (content_type);
  reply->body = g_bytes_new (body, strlen (body));
  return reply;
}

/* A streamed 200 reply of @text cut into pieces of @piece_size bytes (0: one
 * piece), chunked unless @chunked is FALSE (then the end of the body is the
 * end of the connection). */
G_GNUC_UNUSED static TestReply *
test_reply_stream (const char *content_type,
                   const char *text,
                   gsize       piece_size,
                   gboolean    chunked)
{
  TestReply *reply = g_new0 (TestReply, 1);
  gsize len = strlen (text);

  reply->status = 200;
  reply->content_type = g_strdup (content_type);
  reply->pieces = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  reply->chunked = chunked;
  reply->pause_ms = 2;

  if (piece_size == 0)
    piece_size = MAX (len, 1);
  for (gsize i = 0; i < len; i += piece_size)
    g_ptr_array_add (reply->pieces, g_bytes_new (text + i, MIN (piece_size, len - i)));

  return reply;
}

static gboolean
write_all (Writer     *writer,
           const void *data,
           gsize       len)
{
  GOutputStream *out = g_io_stream_get_output_stream (writer->stream);

  return g_output_stream_write_all (out, data, len, NULL, writer->server->shutdown, NULL) &&
         g_output_stream_flush (out, writer->server->shutdown, NULL);
}

static gpointer
writer_thread (gpointer data)
{
  Writer *writer = data;
  TestReply *reply = writer->reply;
  g_autoptr(GString) head = g_string_new (NULL);
  gboolean ok;

  g_string_append_printf (head, "HTTP/1.1 %u %s\r\n", reply->status,
                          soup_status_get_phrase (reply->status));
  g_string_append_printf (head, "Content-Type: %s\r\n", reply->content_type);
  g_string_append (head, "Connection: close\r\n");
  if (reply->chunked)
    g_string_append (head, "Transfer-Encoding: chunked\r\n");
  g_string_append (head, "\r\n");

  ok = write_all (writer, head->str, head->len);

  for (guint i = 0; ok && i < reply->pieces->len; i++)
    {
      gsize len;
      const char *piece = g_bytes_get_data (g_ptr_array_index (reply->pieces, i), &len);

      if (reply->chunked)
        {
          g_autofree char *size = g_strdup_printf ("%zx\r\n", len);

          ok = write_all (writer, size, strlen (size)) &&
               write_all (writer, piece, len) &&
               write_all (writer, "\r\n", 2);
        }
      else
        ok = write_all (writer, piece, len);

      g_usleep (reply->pause_ms * 1000);
    }

  if (ok && reply->chunked && !reply->truncate)
    ok = write_all (writer, "0\r\n\r\n", 5);

  if (ok && reply->hang)
    {
      char buffer[256];

      /* Returns when the client closes, or when the test shuts down. */
      while (g_input_stream_read (g_io_stream_get_input_stream (writer->stream),
                                  buffer, sizeof buffer, writer->server->shutdown, NULL) > 0)
        ;
    }

  g_io_stream_close (writer->stream, NULL, NULL);
  g_object_unref (writer->stream);
  test_reply_free (reply);
  g_free (writer);
  return NULL;
}

static void
collect_header (const char *name,
                const char *value,
                gpointer    user_data)
{
  g_hash_table_insert (user_data, g_ascii_strdown (name, -1), g_strdup (value));
}

static void
server_callback (SoupServer        *soup_server,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  TestServer *server = user_data;
  TestRequest *request = g_new0 (TestRequest, 1);
  TestReply *reply;

  request->path = g_strdup (path);
  request->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  soup_message_headers_foreach (soup_server_message_get_request_headers (msg), collect_header,
                                request->headers);
  request->body = soup_message_body_flatten (soup_server_message_get_request_body (msg));

  g_mutex_lock (&server->lock);
  g_ptr_array_add (server->requests, request);
  reply = g_queue_pop_head (&server->replies);
  g_mutex_unlock (&server->lock);

  if (reply == NULL)
    {
      soup_server_message_set_status (msg, 500, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY,
                                        "no scripted reply left", 22);
      return;
    }

  if (reply->pieces == NULL)
    {
      gsize len;
      const char *body = g_bytes_get_data (reply->body, &len);

      soup_server_message_set_status (msg, reply->status, NULL);
      if (reply->retry_after != NULL)
        soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                      "Retry-After", reply->retry_after);
      if (reply->retry_after_ms != NULL)
        soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                      "retry-after-ms", reply->retry_after_ms);
      soup_server_message_set_response (msg, reply->content_type, SOUP_MEMORY_COPY, body, len);
      test_reply_free (reply);
      return;
    }

  {
    Writer *writer = g_new0 (Writer, 1);

    writer->server = server;
    writer->reply = reply;
    writer->stream = soup_server_message_steal_connection (msg);
    g_mutex_lock (&server->lock);
    g_ptr_array_add (server->writers, g_thread_new ("test-writer", writer_thread, writer));
    g_mutex_unlock (&server->lock);
  }
}

static gpointer
server_thread (gpointer data)
{
  TestServer *server = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) local = NULL;
  GSList *listeners;

  g_main_context_push_thread_default (server->context);

  server->server = soup_server_new (NULL, NULL);
  /* libsoup 3.2 leaks each accepted socket, and soup_server_listen_local()
   * and soup_server_get_uris() each leak an address: none of them here, so
   * valgrind needs no suppression for the harness either. */
  pd_soup_server_plug_accept_leak (server->server);
  soup_server_add_handler (server->server, NULL, server_callback, server, NULL);
  soup_server_listen (server->server, address, 0, &error);
  g_assert_no_error (error);
  listeners = soup_server_get_listeners (server->server);
  g_assert_nonnull (listeners);
  local = g_socket_get_local_address (listeners->data, &error);
  g_assert_no_error (error);
  g_slist_free (listeners);

  g_mutex_lock (&server->lock);
  server->base_url = g_strdup_printf ("http://127.0.0.1:%u",
                                      g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)));
  server->ready = TRUE;
  g_cond_signal (&server->cond);
  g_mutex_unlock (&server->lock);

  g_main_loop_run (server->loop);

  soup_server_disconnect (server->server);
  g_clear_object (&server->server);
  /* Closing connections finishes in idle callbacks; run them so the
   * sockets are really freed before the context goes. */
  while (g_main_context_iteration (server->context, FALSE))
    ;
  g_main_context_pop_thread_default (server->context);
  return NULL;
}

G_GNUC_UNUSED static TestServer *
test_server_new (void)
{
  TestServer *server = g_new0 (TestServer, 1);
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  g_mutex_init (&server->lock);
  g_cond_init (&server->cond);
  server->context = g_main_context_new ();
  server->loop = g_main_loop_new (server->context, FALSE);
  server->requests = g_ptr_array_new_with_free_func (test_request_free);
  server->writers = g_ptr_array_new ();
  server->shutdown = g_cancellable_new ();
  g_queue_init (&server->replies);

  server->thread = g_thread_new ("test-server", server_thread, server);

  g_mutex_lock (&server->lock);
  while (!server->ready)
    if (!g_cond_wait_until (&server->cond, &server->lock, deadline))
      g_error ("the test server did not start within 10 s");
  g_mutex_unlock (&server->lock);

  return server;
}

G_GNUC_UNUSED static void
test_server_push (TestServer *server,
                  TestReply  *reply)
{
  g_mutex_lock (&server->lock);
  g_queue_push_tail (&server->replies, reply);
  g_mutex_unlock (&server->lock);
}

G_GNUC_UNUSED static guint
test_server_count (TestServer *server)
{
  guint n;

  g_mutex_lock (&server->lock);
  n = server->requests->len;
  g_mutex_unlock (&server->lock);
  return n;
}

/* Valid until test_server_free: requests are only ever appended. */
G_GNUC_UNUSED static TestRequest *
test_server_request (TestServer *server,
                     guint       index)
{
  TestRequest *request;

  g_mutex_lock (&server->lock);
  g_assert_cmpuint (index, <, server->requests->len);
  request = g_ptr_array_index (server->requests, index);
  g_mutex_unlock (&server->lock);
  return request;
}

G_GNUC_UNUSED static JsonObject *
test_request_json (TestRequest *request,
                   JsonNode   **out_root)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  gsize len;
  const char *data = g_bytes_get_data (request->body, &len);

  json_parser_load_from_data (parser, data, (gssize) len, &error);
  g_assert_no_error (error);
  *out_root = json_parser_steal_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (*out_root));
  return json_node_get_object (*out_root);
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

G_GNUC_UNUSED static void
test_server_free (TestServer *server)
{
  GThread *thread;

  g_cancellable_cancel (server->shutdown);
  g_main_context_invoke (server->context, quit_loop, server->loop);
  g_thread_join (server->thread);

  /* Writers end when the client closed or on the shutdown cancellable. */
  for (;;)
    {
      g_mutex_lock (&server->lock);
      thread = server->writers->len ? g_ptr_array_steal_index (server->writers, 0) : NULL;
      g_mutex_unlock (&server->lock);
      if (thread == NULL)
        break;
      g_thread_join (thread);
    }

  g_queue_clear_full (&server->replies, (GDestroyNotify) test_reply_free);
  g_ptr_array_unref (server->requests);
  g_ptr_array_unref (server->writers);
  g_object_unref (server->shutdown);
  g_main_loop_unref (server->loop);
  g_main_context_unref (server->context);
  g_free (server->base_url);
  g_mutex_clear (&server->lock);
  g_cond_clear (&server->cond);
  g_free (server);
}

/* The two HTTP wires the engine's tests run against the server. */
typedef enum
{
  WIRE_OPENAI,
  WIRE_ANTHROPIC,
} Wire;

/* A provider of @wire speaking to @server, with a test's key, that tries
 * twice more 10 ms apart. */
G_GNUC_UNUSED static PdProvider *
test_server_provider (TestServer *server,
                      Wire        wire)
{
  PdHttpProvider *provider;

  if (wire == WIRE_OPENAI)
    {
      g_autofree char *base = g_strconcat (server->base_url, "/v1", NULL);

      provider = PD_HTTP_PROVIDER (pd_openai_provider_new (base, "sk-test"));
    }
  else
    {
      provider = PD_HTTP_PROVIDER (pd_anthropic_provider_new (server->base_url, "sk-ant-test"));
    }
  pd_http_provider_set_retry_base_delay_ms (provider, 10);
  pd_http_provider_set_max_retries (provider, 2);
  return PD_PROVIDER (provider);
}

G_GNUC_UNUSED static void
test_unset_proxies (void)
{
  /* Loopback requests must not go through a developer's proxy. */
  const char *names[] = { "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                          "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
}

/* Collects what a provider streams, by kind. */
typedef struct
{
  GString   *text;
  GString   *reasoning;
  GPtrArray *tool_names;
  guint      n_text;
  GCancellable *cancel_on_text;   /* cancelled from another thread after the first text */
  GThread   *canceller;
} Deltas;

static gpointer
cancel_soon (gpointer data)
{
  g_usleep (50 * 1000);
  g_cancellable_cancel (data);
  return NULL;
}

/* Holds its own reference: the test may drop the cancellable before the
 * thread is joined in deltas_clear(). */
static gpointer
cancel_and_unref_soon (gpointer data)
{
  cancel_soon (data);
  g_object_unref (data);
  return NULL;
}

G_GNUC_UNUSED static void
deltas_init (Deltas *deltas)
{
  memset (deltas, 0, sizeof *deltas);
  deltas->text = g_string_new (NULL);
  deltas->reasoning = g_string_new (NULL);
  deltas->tool_names = g_ptr_array_new_with_free_func (g_free);
}

G_GNUC_UNUSED static void
deltas_clear (Deltas *deltas)
{
  if (deltas->canceller != NULL)
    g_thread_join (deltas->canceller);
  g_string_free (deltas->text, TRUE);
  g_string_free (deltas->reasoning, TRUE);
  g_ptr_array_unref (deltas->tool_names);
}

G_GNUC_UNUSED static void
on_delta (PdProviderDeltaKind  kind,
          const char          *text,
          gpointer             user_data)
{
  Deltas *deltas = user_data;

  switch (kind)
    {
    case PD_PROVIDER_DELTA_TEXT:
      g_string_append (deltas->text, text);
      deltas->n_text++;
      if (deltas->cancel_on_text != NULL && deltas->canceller == NULL)
        deltas->canceller = g_thread_new ("test-cancel", cancel_and_unref_soon, g_object_ref (deltas->cancel_on_text));
      break;
    case PD_PROVIDER_DELTA_REASONING:
      g_string_append (deltas->reasoning, text);
      break;
    case PD_PROVIDER_DELTA_TOOL_CALL:
      g_ptr_array_add (deltas->tool_names, g_strdup (text));
      break;
    default:
      g_assert_not_reached ();
    }
}

typedef struct
{
  guint n;
  guint last_attempt;
  guint last_delay_ms;
} Retries;

G_GNUC_UNUSED static void
on_retrying (PdProvider *provider,
             guint       attempt,
             guint       delay_ms,
             const char *reason,
             gpointer    user_data)
{
  Retries *retries = user_data;

  g_assert_nonnull (reason);
  retries->n++;
  retries->last_attempt = attempt;
  retries->last_delay_ms = delay_ms;
}

/* An OpenAI-shaped request body part, parsed from JSON text. */
G_GNUC_UNUSED static JsonArray *
json_array_from_text (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_parser_steal_root (parser);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  return json_node_dup_array (root);
}

/* What a provider's test works with: the scripted server, the provider
 * under test talking to it, the request it is given and what it streamed
 * and retried (test-provider-*.c). */
typedef struct
{
  TestServer        *server;
  PdProvider        *provider;
  JsonArray         *messages;
  JsonArray         *tools;
  PdProviderRequest  request;
  Deltas             deltas;
  Retries            retries;
} ProviderFixture;

/* Takes @provider, made for @f->server: quick retries (the tests count
 * them, they do not time them), @model, and the @messages of JSON text. */
G_GNUC_UNUSED static void
provider_fixture_start (ProviderFixture *f,
                        PdHttpProvider  *provider,
                        const char      *model,
                        const char      *messages)
{
  f->provider = PD_PROVIDER (provider);
  pd_http_provider_set_retry_base_delay_ms (provider, 10);
  g_signal_connect (f->provider, "retrying", G_CALLBACK (on_retrying), &f->retries);

  f->messages = json_array_from_text (messages);
  f->request.model = model;
  f->request.messages = f->messages;
  f->request.temperature = -1;
  deltas_init (&f->deltas);
}

G_GNUC_UNUSED static void
provider_fixture_teardown (ProviderFixture *f,
                           gconstpointer    data)
{
  g_clear_object (&f->provider);
  test_server_free (f->server);
  g_clear_pointer (&f->messages, json_array_unref);
  g_clear_pointer (&f->tools, json_array_unref);
  deltas_clear (&f->deltas);
}

G_GNUC_UNUSED static PdProviderResponse *
chat (ProviderFixture  *f,
      GCancellable     *cancellable,
      GError          **error)
{
  return pd_provider_chat (f->provider, &f->request, on_delta, &f->deltas, cancellable, error);
}

/* A tool call's "id" or "type", or its function's "name" or "arguments". */
G_GNUC_UNUSED static const char *
call_string (PdProviderResponse *response,
             guint               index,
             const char         *what)
{
  JsonObject *call = json_array_get_object_element (response->tool_calls, index);

  if (g_str_equal (what, "id") || g_str_equal (what, "type"))
    return json_object_get_string_member (call, what);
  return json_object_get_string_member (json_object_get_object_member (call, "function"), what);
}

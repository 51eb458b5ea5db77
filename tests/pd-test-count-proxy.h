/* pd-test-count-proxy.h: a pass-through on loopback in front of a real
 * server that notes each HTTP request line the client sends ("GET
 * /api/runs/ID"), in order, and passes every byte both ways untouched (the
 * event stream too).  How a test counts what a window or a source asks of
 * an endpoint.  Header-only, as the other test helpers: each test is one
 * source file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <gio/gio.h>

typedef struct
{
  GSocketService *service;
  guint16         upstream;   /* the server's port */
  guint16         port;       /* ours */
  GPtrArray      *requests;   /* (element-type utf8) "METHOD TARGET" in the order they came */
} PdTestCountProxy;

static inline void
pd_test_count_proxy_clear (gpointer data)
{
  PdTestCountProxy *proxy = data;

  g_clear_object (&proxy->service);
  g_clear_pointer (&proxy->requests, g_ptr_array_unref);
}

/* Pumps hold it: a connection the window closes after the test let go. */
static inline void
pd_test_count_proxy_unref (PdTestCountProxy *proxy)
{
  g_rc_box_release_full (proxy, pd_test_count_proxy_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdTestCountProxy, pd_test_count_proxy_unref)

typedef struct
{
  PdTestCountProxy *proxy;    /* (nullable) NULL when only passing */
  GIOStream        *from;
  GIOStream        *to;
  GString          *line;     /* the client's bytes since its last CRLF */
  char              buffer[16384];
} PdTestCountPump;

static inline void pd_test_count_pump_read (PdTestCountPump *pump);

static inline void
pd_test_count_pump_free (PdTestCountPump *pump)
{
  /* The other way's end ends too: the peer sees the close. */
  g_io_stream_close (pump->to, NULL, NULL);
  g_io_stream_close (pump->from, NULL, NULL);
  g_object_unref (pump->from);
  g_object_unref (pump->to);
  g_string_free (pump->line, TRUE);
  g_clear_pointer (&pump->proxy, pd_test_count_proxy_unref);
  g_free (pump);
}

/* Notes the request lines in what the client sent. */
static inline void
pd_test_count_pump_scan (PdTestCountPump *pump,
                         gsize            length)
{
  static const char *const methods[] = { "GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD " };
  char *end;

  g_string_append_len (pump->line, pump->buffer, (gssize) length);
  while ((end = strstr (pump->line->str, "\r\n")) != NULL)
    {
      g_autofree char *line = g_strndup (pump->line->str, (gsize) (end - pump->line->str));

      g_string_erase (pump->line, 0, end - pump->line->str + 2);
      if (!g_str_has_suffix (line, " HTTP/1.1") && !g_str_has_suffix (line, " HTTP/1.0"))
        continue;
      for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
        if (g_str_has_prefix (line, methods[i]))
          g_ptr_array_add (pump->proxy->requests, g_strndup (line, strlen (line) - strlen (" HTTP/1.1")));
    }
}

static inline void
pd_test_count_pump_written (GObject      *object,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  PdTestCountPump *pump = user_data;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL))
    {
      pd_test_count_pump_free (pump);
      return;
    }
  pd_test_count_pump_read (pump);
}

static inline void
pd_test_count_pump_got (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  PdTestCountPump *pump = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  if (n <= 0)
    {
      pd_test_count_pump_free (pump);
      return;
    }
  if (pump->proxy != NULL)
    pd_test_count_pump_scan (pump, (gsize) n);
  g_output_stream_write_all_async (g_io_stream_get_output_stream (pump->to), pump->buffer, (gsize) n,
                                   G_PRIORITY_DEFAULT, NULL, pd_test_count_pump_written, pump);
}

static inline void
pd_test_count_pump_read (PdTestCountPump *pump)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (pump->from), pump->buffer, sizeof pump->buffer,
                             G_PRIORITY_DEFAULT, NULL, pd_test_count_pump_got, pump);
}

static inline void
pd_test_count_pump_start (PdTestCountProxy *proxy,
                          GIOStream        *from,
                          GIOStream        *to)
{
  PdTestCountPump *pump = g_new0 (PdTestCountPump, 1);

  pump->proxy = proxy != NULL ? g_rc_box_acquire (proxy) : NULL;
  pump->from = g_object_ref (from);
  pump->to = g_object_ref (to);
  pump->line = g_string_new (NULL);
  pd_test_count_pump_read (pump);
}

static inline gboolean
pd_test_count_proxy_incoming (GSocketService    *service,
                              GSocketConnection *connection,
                              GObject           *source_object,
                              gpointer           user_data)
{
  PdTestCountProxy *proxy = user_data;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) upstream = NULL;
  g_autoptr(GError) error = NULL;

  /* Loopback: connecting blocks for no time worth a callback. */
  upstream = g_socket_client_connect_to_host (client, "127.0.0.1", proxy->upstream, NULL, &error);
  if (upstream == NULL)
    return FALSE;
  pd_test_count_pump_start (proxy, G_IO_STREAM (connection), G_IO_STREAM (upstream));
  pd_test_count_pump_start (NULL, G_IO_STREAM (upstream), G_IO_STREAM (connection));
  return TRUE;
}

/* A proxy in front of the server at @upstream_port on 127.0.0.1. */
static inline PdTestCountProxy *
pd_test_count_proxy_new (guint16 upstream_port)
{
  PdTestCountProxy *proxy = g_rc_box_new0 (PdTestCountProxy);
  g_autoptr(GError) error = NULL;

  proxy->upstream = upstream_port;
  proxy->requests = g_ptr_array_new_with_free_func (g_free);
  proxy->service = g_socket_service_new ();
  proxy->port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (proxy->service), NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (proxy->service, "incoming", G_CALLBACK (pd_test_count_proxy_incoming), proxy);
  g_socket_service_start (proxy->service);
  return proxy;
}

/* @url (a server's, at the upstream port) at the proxy instead. */
static inline char *
pd_test_count_proxy_url (PdTestCountProxy *proxy,
                         const char       *url)
{
  g_autofree char *from = g_strdup_printf ("127.0.0.1:%u", proxy->upstream);
  g_autofree char *to = g_strdup_printf ("127.0.0.1:%u", proxy->port);
  g_auto(GStrv) parts = g_strsplit (url, from, 2);

  g_assert_nonnull (parts[1]);
  return g_strconcat (parts[0], to, parts[1], NULL);
}

/* How many requests since @from (an index of ->requests) begin with @prefix ("GET /api/runs"). */
static inline guint
pd_test_count_proxy_count (PdTestCountProxy *proxy,
                           guint             from,
                           const char       *prefix)
{
  guint n = 0;

  for (guint i = from; i < proxy->requests->len; i++)
    n += g_str_has_prefix (g_ptr_array_index (proxy->requests, i), prefix);
  return n;
}

/* Stops listening; the connections open end as their peers close them. */
static inline void
pd_test_count_proxy_stop (PdTestCountProxy *proxy)
{
  g_socket_service_stop (proxy->service);
  g_socket_listener_close (G_SOCKET_LISTENER (proxy->service));
}

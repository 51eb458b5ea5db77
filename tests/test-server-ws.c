/* test-server-ws.c: /ws, odek's WebSocket, on PdServer, through libsoup's
 * own WebSocket client and raw frames: the handshake (token, host,
 * origin), the limits on sockets, upgrades and frames.  Runs over the
 * socket and the approval questions of REST runs are in
 * test-server-ws-runs.c; the server both speak to is pd-test-serve-ws.h's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server-ws"

#include "config.h"

#include "pd-test-serve-ws.h"

/* Token by subprotocol (echoed, or a browser drops the socket), cookie or
 * header; without one, a wrong one, a foreign origin or Host: 403 before
 * any socket. */
static void
test_handshake (Fixture       *f,
                gconstpointer  data)
{
  {
    g_autoptr(Client) client = client_open (f);
    g_autofree char *expected = g_strconcat ("odek.", TOKEN, NULL);

    g_assert_cmpstr (client->protocol, ==, expected);
  }
  {
    g_autoptr(Client) cookie = client_open_full (f, f->origin, NULL, TOKEN, NULL);
    g_autoptr(Client) header = client_open_full (f, NULL, NULL, NULL, TOKEN);

    g_assert_no_error (cookie->error);
    g_assert_null (cookie->protocol);
    g_assert_no_error (header->error);
  }
  {
    g_autoptr(Client) none = client_open_full (f, f->origin, NULL, NULL, NULL);
    g_autoptr(Client) wrong = client_open_full (f, f->origin, "ffff", NULL, NULL);
    g_autoptr(Client) wrong_cookie = client_open_full (f, f->origin, NULL, "ffff", NULL);

    g_assert_null (none->conn);
    g_assert_cmpuint (none->status, ==, 403);
    g_assert_null (wrong->conn);
    g_assert_cmpuint (wrong->status, ==, 403);
    g_assert_null (wrong_cookie->conn);
    g_assert_cmpuint (wrong_cookie->status, ==, 403);
  }
  {
    /* A page elsewhere, another port of this machine included: the
     * cookie would ride along (SameSite ignores ports), the Origin does
     * not lie. */
    g_autoptr(Client) evil = client_open_full (f, "http://evil.test", TOKEN, TOKEN, NULL);
    g_autoptr(Client) other_port = client_open_full (f, "http://127.0.0.1:1", TOKEN, TOKEN, NULL);
    g_autoptr(Client) null_origin = client_open_full (f, "null", TOKEN, TOKEN, NULL);
    g_autoptr(Client) proxy = client_open_full (f, "https://proxy.example", TOKEN, NULL, NULL);

    g_assert_null (evil->conn);
    g_assert_cmpuint (evil->status, ==, 403);
    g_assert_null (other_port->conn);
    g_assert_cmpuint (other_port->status, ==, 403);
    g_assert_null (null_origin->conn);
    g_assert_cmpuint (null_origin->status, ==, 403);
    g_assert_no_error (proxy->error);
  }
  spin_until (no_sockets, f);
}

/* A raw upgrade: what a browser never sends (another Host, deflate). */
static char *
raw_upgrade (Fixture    *f,
             const char *extra)
{
  struct sockaddr_in addr = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_autofree char *text = g_strdup_printf ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nUpgrade: websocket\r\n"
                                           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                           "Sec-WebSocket-Version: 13\r\nX-Odek-Ws-Token: %s\r\n%s\r\n",
                                           pd_server_get_port (f->server), TOKEN, extra);
  GString *answer = g_string_new (NULL);

  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (send (fd, text, strlen (text), MSG_NOSIGNAL), ==, (gssize) strlen (text));
  while (strstr (answer->str, "\r\n\r\n") == NULL)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      char buffer[1024];
      ssize_t n;

      g_assert_cmpint (poll (&pfd, 1, WAIT_SECONDS * 1000), ==, 1);
      n = recv (fd, buffer, sizeof buffer, 0);
      if (n <= 0)
        break;
      g_string_append_len (answer, buffer, n);
    }
  close (fd);
  return g_string_free (answer, FALSE);
}

static void
test_handshake_raw (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *plain = raw_upgrade (f, "");
  g_autofree char *deflate = raw_upgrade (f, "Sec-WebSocket-Extensions: permessage-deflate\r\n");
  g_autofree char *evil_host = NULL;

  g_assert_true (g_str_has_prefix (plain, "HTTP/1.1 101 "));
  /* No deflate: a small frame could inflate past any limit. */
  g_assert_true (g_str_has_prefix (deflate, "HTTP/1.1 101 "));
  g_assert_null (strstr (deflate, "permessage-deflate"));

  {
    struct sockaddr_in addr = { 0 };
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const char *text = "GET /ws HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                       "X-Odek-Ws-Token: " TOKEN "\r\n\r\n";
    char buffer[512] = { 0 };
    struct pollfd pfd;

    addr.sin_family = AF_INET;
    addr.sin_port = htons (pd_server_get_port (f->server));
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
    g_assert_cmpint (send (fd, text, strlen (text), MSG_NOSIGNAL), ==, (gssize) strlen (text));
    pfd.fd = fd;
    pfd.events = POLLIN;
    g_assert_cmpint (poll (&pfd, 1, WAIT_SECONDS * 1000), ==, 1);
    g_assert_cmpint (recv (fd, buffer, sizeof buffer - 1, 0), >, 0);
    evil_host = g_strdup (buffer);
    close (fd);
  }
  /* DNS rebinding: a name that is not ours gets no socket. */
  g_assert_true (g_str_has_prefix (evil_host, "HTTP/1.1 403 "));
}


/* 20 sockets at once, as odek; the 21st is refused until one closes. */
static void
test_too_many_sockets (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GPtrArray) clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_free);

  for (guint i = 0; i < PD_SERVER_MAX_SOCKETS; i++)
    g_ptr_array_add (clients, client_open (f));
  g_assert_cmpint (health_sockets (f), ==, PD_SERVER_MAX_SOCKETS);

  {
    g_autoptr(Client) one_more = client_open_full (f, f->origin, TOKEN, NULL, NULL);

    g_assert_null (one_more->conn);
    g_assert_cmpuint (one_more->status, ==, 503);
  }

  g_ptr_array_set_size (clients, 0);
  spin_until (no_sockets, f);
}

static gboolean
fewer_than_max (gpointer data)
{
  Fixture *f = data;

  g_main_context_iteration (NULL, FALSE);
  return health_sockets (f) < PD_SERVER_MAX_SOCKETS;
}

static void
test_slot_freed (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_free);

  for (guint i = 0; i < PD_SERVER_MAX_SOCKETS; i++)
    g_ptr_array_add (clients, client_open (f));
  g_ptr_array_remove_index (clients, 0);
  spin_until (fewer_than_max, f);
  {
    g_autoptr(Client) again = client_open (f);
    g_assert_nonnull (again->conn);
  }
}

/* 30 upgrades a minute from one client (odek's), when limits are on. */
static void
test_upgrade_rate (Fixture       *f,
                   gconstpointer  data)
{
  guint refused = 0;

  for (guint i = 0; i < PD_SERVER_SOCKET_RATE + 1; i++)
    {
      g_autoptr(Client) client = client_open_full (f, f->origin, TOKEN, NULL, NULL);

      if (client->conn == NULL)
        {
          g_assert_cmpuint (client->status, ==, 429);
          refused++;
        }
    }
  g_assert_cmpuint (refused, ==, 1);
}

/* ---------------------------------------------------------------------- */
/* Frames                                                                 */

/* A frame past 8 MiB closes the socket (1009, too big); one of 4 MiB, an
 * attachment's size, is a prompt like any. */
static void
test_huge_frames (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Client) small = client_open (f);
  JsonObject *prompt = prompt_new ("Read this", NULL, NULL);
  JsonArray *attachments = json_array_new ();
  JsonObject *attachment = json_object_new ();
  g_autofree char *four = g_malloc (4 * 1024 * 1024 + 1);
  g_autofree char *nine = g_malloc (9 * 1024 * 1024 + 1);
  guint start;

  memset (four, 'a', 4 * 1024 * 1024);
  four[4 * 1024 * 1024] = '\0';
  json_object_set_string_member (attachment, "name", "big.txt");
  json_object_set_string_member (attachment, "content", four);
  json_array_add_object_element (attachments, attachment);
  json_object_set_array_member (prompt, "attachments", attachments);
  client_send (small, prompt);
  start = client_wait (small, 0, "session");
  g_assert_cmpuint (client_wait_end (small, start), >, start);
  g_assert_cmpstr (frame_type (g_ptr_array_index (small->frames, client_wait_end (small, start))), ==, "done");

  memset (nine, ' ', 9 * 1024 * 1024);
  nine[9 * 1024 * 1024] = '\0';
  soup_websocket_connection_send_text (client->conn, nine);
  spin_until (client_is_closed, client);
  /* Closed at once, without a closing handshake (libsoup's way). */
  g_assert_cmpuint (client->close_code, !=, SOUP_WEBSOCKET_CLOSE_NORMAL);
  g_assert_cmpuint (client->frames->len, ==, 0);
}

/* A raw socket after the handshake: frames as an attacker writes them. */
static int
ws_raw_open (Fixture *f)
{
  struct sockaddr_in addr = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_autofree char *text = g_strdup_printf ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nUpgrade: websocket\r\n"
                                           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                           "Sec-WebSocket-Version: 13\r\nX-Odek-Ws-Token: %s\r\n\r\n",
                                           pd_server_get_port (f->server), TOKEN);
  g_autoptr(GString) head = g_string_new (NULL);

  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (send (fd, text, strlen (text), MSG_NOSIGNAL), ==, (gssize) strlen (text));
  /* Byte by byte up to the end of the head: nothing of a frame is taken. */
  while (!g_str_has_suffix (head->str, "\r\n\r\n"))
    {
      char c;

      g_assert_cmpint (recv (fd, &c, 1, 0), ==, 1);
      g_string_append_c (head, c);
    }
  g_assert_true (g_str_has_prefix (head->str, "HTTP/1.1 101 "));
  return fd;
}

/* One masked frame (a zero mask: the payload as is); FALSE once the server
 * has closed. */
static gboolean
ws_raw_frame (int         fd,
              gboolean    fin,
              guint       opcode,
              const char *payload,
              gsize       len)
{
  guint8 header[14];
  gsize at = 0, sent = 0;

  header[at++] = (fin ? 0x80 : 0) | opcode;
  if (len < 126)
    header[at++] = 0x80 | len;
  else if (len <= G_MAXUINT16)
    {
      header[at++] = 0x80 | 126;
      header[at++] = len >> 8;
      header[at++] = len & 0xff;
    }
  else
    {
      header[at++] = 0x80 | 127;
      for (int i = 7; i >= 0; i--)
        header[at++] = ((guint64) len >> (8 * i)) & 0xff;
    }
  memset (header + at, 0, 4);
  at += 4;
  if (send (fd, header, at, MSG_NOSIGNAL) != (gssize) at)
    return FALSE;
  while (sent < len)
    {
      ssize_t n = send (fd, payload + sent, len - sent, MSG_NOSIGNAL);

      if (n <= 0)
        return FALSE;
      sent += (gsize) n;
    }
  return TRUE;
}

/* The payload of the next text frame from the server (unmasked), or NULL
 * when it closes. */
static char *
ws_raw_read_text (int fd)
{
  for (;;)
    {
      guint8 header[10];
      guint64 len;
      g_autofree char *payload = NULL;
      gsize got = 0;

      if (recv (fd, header, 2, MSG_WAITALL) != 2)
        return NULL;
      len = header[1] & 0x7f;
      if (len == 126)
        {
          if (recv (fd, header + 2, 2, MSG_WAITALL) != 2)
            return NULL;
          len = ((guint64) header[2] << 8) | header[3];
        }
      else if (len == 127)
        {
          if (recv (fd, header + 2, 8, MSG_WAITALL) != 8)
            return NULL;
          len = 0;
          for (int i = 0; i < 8; i++)
            len = (len << 8) | header[2 + i];
        }
      payload = g_malloc (len + 1);
      while (got < len)
        {
          ssize_t n = recv (fd, payload + got, len - got, 0);

          if (n <= 0)
            return NULL;
          got += (gsize) n;
        }
      payload[len] = '\0';
      if ((header[0] & 0x0f) == 0x1)
        return g_steal_pointer (&payload);
      if ((header[0] & 0x0f) == 0x8)
        return NULL;
    }
}

/* libsoup 3.2 caps a frame, not a message: fragments of less than 8 MiB
 * each, never the last, would grow its buffer without end.  The meter
 * closes the socket once a message passes 8 MiB; a prompt in a few
 * fragments is read as one. */
static void
test_fragmented_message (Fixture       *f,
                         gconstpointer  data)
{
  gsize piece = 1024 * 1024;
  g_autofree char *spaces = g_malloc (piece);
  int fd = ws_raw_open (f);
  const char *prompt = "{\"type\":\"prompt\",\"content\":\"In three pieces\",\"session_id\":null}";
  g_autofree char *first = NULL;
  struct pollfd pfd;
  guint sent = 0;
  char byte;

  /* Three fragments, one message. */
  g_assert_true (ws_raw_frame (fd, FALSE, 0x1, prompt, 10));
  g_assert_true (ws_raw_frame (fd, FALSE, 0x0, prompt + 10, 20));
  g_assert_true (ws_raw_frame (fd, TRUE, 0x0, prompt + 30, strlen (prompt) - 30));
  first = ws_raw_read_text (fd);
  g_assert_nonnull (first);
  g_assert_nonnull (strstr (first, "\"type\":\"session\""));

  /* Then a message of endless 1 MiB fragments. */
  memset (spaces, ' ', piece);
  if (ws_raw_frame (fd, FALSE, 0x1, spaces, piece))
    for (sent = 1; sent < 64; sent++)
      if (!ws_raw_frame (fd, FALSE, 0x0, spaces, piece))
        break;
  /* Refused by the ninth MiB: the rest could not even be sent. */
  g_assert_cmpuint (sent, <, 64);

  pfd.fd = fd;
  pfd.events = POLLIN;
  for (;;)
    {
      ssize_t n;

      g_assert_cmpint (poll (&pfd, 1, WAIT_SECONDS * 1000), ==, 1);
      n = recv (fd, &byte, 1, 0);
      if (n <= 0)
        break;
    }
  close (fd);
  spin_until (no_sockets, f);
}

/* What the client sends that is no prompt gets nothing (odek's UI ignores
 * what it cannot read; so does the server), and the socket stays. */
static void
test_junk_frames (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(GString) deep = g_string_new (NULL);
  guint start;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  soup_websocket_connection_send_text (client->conn, "not json");
  soup_websocket_connection_send_text (client->conn, "[1,2]");
  soup_websocket_connection_send_text (client->conn, deep->str);
  soup_websocket_connection_send_text (client->conn, "{\"type\":\"nonsense\"}");
  soup_websocket_connection_send_text (client->conn, "{\"type\":\"approval_response\",\"id\":\"apr-0\",\"action\":\"approve\"}");
  soup_websocket_connection_send_binary (client->conn, "\x00\x01", 2);

  client_send (client, prompt_new ("Hi", NULL, NULL));
  start = client_wait (client, 0, "session");
  /* The junk made no frame: the prompt's session is the first. */
  g_assert_cmpuint (start, ==, 0);
  client_wait_end (client, start);
}

/* Attachments that are no objects (a number, a list, null, text) are
 * refused with an error frame; `[1]` logged a Json-CRITICAL, which the
 * tests' G_DEBUG makes fatal (tried as an attacker would, att15). */
static void
test_attachment_not_object (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  const char *elements[] = { "1", "[]", "null", "\"x\"", "true" };
  guint from = 0;

  for (guint i = 0; i < G_N_ELEMENTS (elements); i++)
    {
      g_autofree char *frame = g_strdup_printf ("{\"type\":\"prompt\",\"content\":\"Hi\",\"session_id\":null,"
                                                "\"attachments\":[%s]}", elements[i]);
      guint end;

      soup_websocket_connection_send_text (client->conn, frame);
      end = client_wait (client, from, "error");
      g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, end), "message"), ==,
                       "an attachment needs its content as text");
      from = end + 1;
    }
  /* The socket still takes a prompt. */
  client_send (client, prompt_new ("Hi", NULL, NULL));
  client_wait_end (client, client_wait (client, from, "session"));
}

int
main (int   argc,
      char *argv[])
{
  pd_test_serve_ws_init (&argc, &argv);

  ADD ("/pd/server-ws/handshake", test_handshake, 0);
  ADD ("/pd/server-ws/handshake-raw", test_handshake_raw, 0);
  ADD ("/pd/server-ws/too-many-sockets", test_too_many_sockets, 0);
  ADD ("/pd/server-ws/slot-freed", test_slot_freed, 0);
  ADD ("/pd/server-ws/upgrade-rate", test_upgrade_rate, 0);
  ADD ("/pd/server-ws/huge-frames", test_huge_frames, 0);
  ADD ("/pd/server-ws/fragmented-message", test_fragmented_message, 0);
  ADD ("/pd/server-ws/junk-frames", test_junk_frames, 0);
  ADD ("/pd/server-ws/attachment-not-object", test_attachment_not_object, 0);

  return g_test_run ();
}

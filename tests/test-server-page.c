/* test-server-page.c: GET /api/sessions/ID answers a page of the
 * session's messages, and the remote window reads its pages.
 *
 * Tried as an attacker would: a 63 MB transcript of tiny records had
 * `serve` send all 520,224 of its messages in one record (34.9 MB in
 * 12.6 s, serve at 542 MB), that record's JSON had the "messages" key
 * twice (the list's count, then the array), and the remote window could
 * not open the Claude Code session at all (its record over the 2 MiB a
 * record may be) and grew to 733 MB on the Gemini one, with no "earlier
 * messages not shown".  Here a real PdServer on loopback serves a real
 * SQLite database into which a generated Claude Code transcript of tiny
 * records was imported: read whole (PD_SESSION_READS_WHOLE_MAX + 1500
 * messages), read in parts (a long one: the tail threshold lowered), and
 * one of long messages (the page's bound in bytes).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server-page"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "pd-bounded-reply.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-server-private.h"
#include "pd-session-reads.h"

#define TOKEN   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define SESSION "ffffffff-1111-2222-3333-444444444444"
/* More than the newest page lists. */
#define N_TINY  (PD_SESSION_READS_WHOLE_MAX + 1500)

typedef struct
{
  char           *dir;
  char           *db_dir;
  PdSessionStore *store;
  char           *id;
  PdServer       *server;
  char           *base;
  SoupSession    *session;
  guint64         all;      /* the messages the transcript has */
} Page;

typedef struct
{
  guint       status;
  char       *body;
  JsonNode   *root;
} Answer;

static void
answer_free (Answer *answer)
{
  g_free (answer->body);
  g_clear_pointer (&answer->root, json_node_unref);
  g_free (answer);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Answer, answer_free)

/* Message i's text: its number, so a page says where it lies. */
static void
append_message (GString *text,
                guint    i,
                gsize    pad)
{
  g_string_append_printf (text, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"m%u", i);
  for (gsize k = 0; k < pad; k++)
    g_string_append_c (text, "abcdefgh ij"[k % 11]);
  g_string_append (text, "\"}}\n");
}

/* A Claude Code transcript of "go" and @n messages of @pad bytes more,
 * imported (@long_read: as a long transcript, read in parts), then served. */
static void
page_open (Page    *f,
           guint    n,
           gsize    pad,
           gboolean long_read)
{
  g_autofree char *project = NULL;
  g_autofree char *path = NULL;
  g_autofree char *db_path = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  PdImportIndexStats stats;

  f->dir = pd_import_test_tmpdir ();
  project = g_build_filename (f->dir, "projects", "-tmp", NULL);
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  path = g_build_filename (project, SESSION ".jsonl", NULL);
  g_string_append (text, "{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"" SESSION "\",\"message\":"
                         "{\"role\":\"user\",\"content\":\"go\"},\"uuid\":\"u0\","
                         "\"timestamp\":\"2026-12-05T10:00:00Z\"}\n");
  for (guint i = 1; i <= n; i++)
    append_message (text, i, pad);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);

  if (long_read)
    _pd_import_set_tail_limits (64 * 1024, 64 * 1024);
  f->store = pd_import_test_new_store (&f->db_dir);
  info = pd_import_test_import_fresh (f->store, f->dir, &stats);
  f->id = g_strdup (info->id);
  g_assert_cmpint (_pd_session_reads_is_long (f->store, f->id), ==, long_read);
  f->all = n + 1;

  db_path = g_build_filename (f->db_dir, "sessions.db", NULL);
  f->server = pd_server_new (db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, 0);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
  f->session = soup_session_new_with_options ("timeout", 60, NULL);
}

static void
page_close (Page *f)
{
  g_clear_object (&f->session);
  pd_server_stop (f->server);
  g_clear_object (&f->server);
  _pd_import_set_tail_limits (0, 0);
  g_clear_object (&f->store);
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->id);
  g_free (f->base);
}

/* GET /api/sessions/ID@query. */
static Answer *
get (Page       *f,
     const char *query)
{
  g_autofree char *url = g_strdup_printf ("%s/api/sessions/%s%s", f->base, f->id, query);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  Answer *answer = g_new0 (Answer, 1);
  gsize len;
  const char *data;

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Plandeck-Token", TOKEN);
  bytes = soup_session_send_and_read (f->session, msg, NULL, &error);
  g_assert_no_error (error);
  answer->status = soup_message_get_status (msg);
  data = g_bytes_get_data (bytes, &len);
  answer->body = g_strndup (data, len);
  answer->root = json_from_string (answer->body, &error);
  g_assert_no_error (error);
  return answer;
}

/* How often @needle is in @haystack. */
static guint
count_of (const char *haystack,
          const char *needle)
{
  guint n = 0;

  for (const char *at = strstr (haystack, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

/* Message @index's text as the transcript says it. */
static char *
text_of (guint64 index)
{
  return index == 0 ? g_strdup ("go") : g_strdup_printf ("m%" G_GUINT64_FORMAT, index);
}

/* @answer is a 200 record, valid JSON with one "messages", its page of
 * @n messages starting at @first of f->all, each the message it says. */
static void
assert_page (Page    *f,
             Answer  *answer,
             guint64  first,
             guint    n)
{
  JsonObject *object;
  JsonArray *messages;

  g_assert_cmpuint (answer->status, ==, 200);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (answer->root));
  g_assert_cmpuint (count_of (answer->body, "\"messages\":"), ==, 1);
  object = json_node_get_object (answer->root);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f->id);
  messages = json_object_get_array_member (object, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, n);
  g_assert_cmpint (json_object_get_int_member (object, "messages_first"), ==, (gint64) first);
  g_assert_cmpint (json_object_get_int_member (object, "messages_total"), ==, (gint64) f->all);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      g_autofree char *expected = text_of (first + i);
      const char *content = json_object_get_string_member_with_default (message, "content", "");

      g_assert_true (g_str_has_prefix (content, expected));
      g_assert_true (content[strlen (expected)] == '\0' || content[strlen (expected)] == 'a');
    }
}

/* The record's messages: the newest page the local window lists first,
 * in bounded bytes, with where it starts. */
static void
test_newest_page (void)
{
  Page f = { 0 };
  g_autoptr(Answer) answer = NULL;

  page_open (&f, N_TINY, 0, FALSE);
  answer = get (&f, "");
  assert_page (&f, answer, f.all - PD_SESSION_READS_WHOLE_MAX, PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (strlen (answer->body), <, PD_SESSION_REPLY_MAX_BYTES);
  g_test_message ("newest page: %zu bytes", strlen (answer->body));

  /* The page the local window lists first, message for message. */
  {
    g_autoptr(GError) error = NULL;
    guint64 first = 0, total = 0;
    g_autoptr(JsonArray) local = pd_session_reads_load_messages_part (f.store, f.id, -1, PD_SESSION_READS_PART_MAX,
                                                                      &first, &total, NULL, &error);
    JsonArray *served = json_object_get_array_member (json_node_get_object (answer->root), "messages");

    g_assert_no_error (error);
    g_assert_cmpuint (first, ==, f.all - PD_SESSION_READS_WHOLE_MAX);
    g_assert_cmpuint (total, ==, f.all);
    g_assert_cmpuint (json_array_get_length (local), ==, json_array_get_length (served));
    for (guint i = 0; i < json_array_get_length (local); i++)
      g_assert_true (json_node_equal (json_array_get_element (local, i), json_array_get_element (served, i)));
  }
  page_close (&f);
}

/* "Show Earlier Messages" through ?before=: each page ends where the one
 * after it begins, back to the first message. */
static void
test_earlier_pages (void)
{
  Page f = { 0 };
  g_autoptr(Answer) newest = NULL;
  guint64 first;
  guint pages = 0;

  page_open (&f, N_TINY, 0, FALSE);
  newest = get (&f, "");
  first = json_object_get_int_member (json_node_get_object (newest->root), "messages_first");
  g_assert_cmpuint (first, ==, f.all - PD_SESSION_READS_WHOLE_MAX);
  while (first > 0)
    {
      g_autofree char *query = g_strdup_printf ("?before=%" G_GUINT64_FORMAT, first);
      g_autoptr(Answer) earlier = get (&f, query);
      guint n = (guint) MIN (first, (guint64) PD_SESSION_READS_PART_MAX);

      assert_page (&f, earlier, first - n, n);
      first -= n;
      pages++;
    }
  g_assert_cmpuint (pages, ==, (f.all - PD_SESSION_READS_WHOLE_MAX + PD_SESSION_READS_PART_MAX - 1) /
                                 PD_SESSION_READS_PART_MAX);

  /* ?limit=, and the record alone with its counts. */
  {
    g_autoptr(Answer) three = get (&f, "?before=10&limit=3");
    g_autoptr(Answer) none = get (&f, "?limit=0");
    g_autoptr(Answer) bad = get (&f, "?before=x");

    assert_page (&f, three, 7, 3);
    assert_page (&f, none, f.all, 0);
    g_assert_cmpuint (bad->status, ==, 400);
  }
  page_close (&f);
}

/* A long transcript (read in parts): its newest part, then the part before. */
static void
test_long_pages (void)
{
  Page f = { 0 };
  g_autoptr(Answer) newest = NULL;
  g_autoptr(Answer) earlier = NULL;
  g_autofree char *query = NULL;
  guint64 first;

  page_open (&f, N_TINY, 0, TRUE);
  newest = get (&f, "");
  assert_page (&f, newest, f.all - PD_SESSION_READS_PART_MAX, PD_SESSION_READS_PART_MAX);
  first = f.all - PD_SESSION_READS_PART_MAX;
  query = g_strdup_printf ("?before=%" G_GUINT64_FORMAT, first);
  earlier = get (&f, query);
  assert_page (&f, earlier, first - PD_SESSION_READS_PART_MAX, PD_SESSION_READS_PART_MAX);
  page_close (&f);
}

/* Long messages: the page holds what fits in its bytes (the newest
 * always), and the pages before go on from there. */
static void
test_page_bytes (void)
{
  Page f = { 0 };
  g_autoptr(Answer) newest = NULL;
  g_autoptr(Answer) earlier = NULL;
  g_autofree char *query = NULL;
  const gsize pad = 16 * 1024;
  guint64 first;
  guint n;

  page_open (&f, 300, pad, FALSE);
  newest = get (&f, "");
  first = json_object_get_int_member (json_node_get_object (newest->root), "messages_first");
  n = (guint) (f.all - first);
  g_assert_cmpuint (n, >, 1);
  g_assert_cmpuint ((gsize) n * pad, <=, PD_SERVER_PAGE_BYTES);
  g_assert_cmpuint ((gsize) (n + 1) * pad, >, PD_SERVER_PAGE_BYTES - 64 * 1024);
  assert_page (&f, newest, first, n);
  g_assert_cmpuint (strlen (newest->body), <, PD_SESSION_REPLY_MAX_BYTES);
  query = g_strdup_printf ("?before=%" G_GUINT64_FORMAT, first);
  earlier = get (&f, query);
  assert_page (&f, earlier, first - n, n);
  page_close (&f);
}

/* --- the remote window's source ---------------------------------------- */

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
}

static void
store_result (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static JsonArray *
remote_part (PdSource *source,
             Page     *f,
             gint64    before,
             guint64  *first,
             guint64  *total)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *messages;

  pd_source_get_messages_part_async (source, f->id, before, NULL, store_result, &result);
  messages = pd_source_get_messages_part_finish (source, wait_result (&result), first, total, &error);
  g_assert_no_error (error);
  return messages;
}

/* What the remote window's Transcript page reads: the newest page (and
 * "N earlier messages not shown" from where it starts), then the page
 * before it; the session's record counts them all, sent none. */
static void
test_remote_pages (void)
{
  Page f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(JsonArray) earlier = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autofree char *last = NULL;
  guint64 first = 0, total = 0, first2 = 0, total2 = 0;
  PdSource *source;

  page_open (&f, N_TINY, 0, FALSE);
  url = pd_server_dup_start_url (f.server);
  remote = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  source = PD_SOURCE (remote);

  newest = remote_part (source, &f, -1, &first, &total);
  g_assert_cmpuint (json_array_get_length (newest), ==, PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (first, ==, f.all - PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (total, ==, f.all);
  last = text_of (f.all - 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (newest, PD_SESSION_READS_WHOLE_MAX - 1),
                                                  "content"), ==, last);

  earlier = remote_part (source, &f, (gint64) first, &first2, &total2);
  g_assert_cmpuint (json_array_get_length (earlier), ==, PD_SESSION_READS_PART_MAX);
  g_assert_cmpuint (first2 + PD_SESSION_READS_PART_MAX, ==, first);
  g_assert_cmpuint (total2, ==, f.all);

  pd_source_get_session_async (source, f.id, NULL, store_result, &result);
  info = pd_source_get_session_finish (source, wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info->n_messages, ==, f.all);

  g_clear_object (&remote);
  page_close (&f);
}

int
main (int    argc,
      char **argv)
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);

  g_test_add_func ("/server-page/newest", test_newest_page);
  g_test_add_func ("/server-page/earlier", test_earlier_pages);
  g_test_add_func ("/server-page/long", test_long_pages);
  g_test_add_func ("/server-page/bytes", test_page_bytes);
  g_test_add_func ("/server-page/remote", test_remote_pages);
  return g_test_run ();
}

/* test-server-page-cut.c: serve's page of a session, and the remote
 * window's, are the transcript's true newest messages, read without the
 * whole transcript.
 *
 * Tried as an attacker would (a 63 MB transcript of 1,179,646 tiny
 * records): GET /api/sessions/ID sent all the messages whole pages kept
 * (520,224: 34.9 MB, 12.6 s, serve at 542 MB), with "messages" twice in
 * its JSON, and the remote window could not open it (its record over
 * 2 MiB).  A page of the whole pages (tried last round) fixed the size but
 * not the page: whole pages stop keeping messages at their budget, so the
 * "newest" page was messages 518,224 to 520,224 and ended with the cut's
 * notice; and the pages read whole for it took serve to 390.8 MB on the
 * 40 MB transcript of tiny calls (tiny-values-memory's bound: 160 MB).
 *
 * Here a budget of 256 KiB cuts a transcript of 6,000 tiny messages the
 * same way (Claude Code and Gemini CLI), imported into a real SQLite
 * store and served by a real PdServer on loopback: the record's page is
 * valid JSON with one "messages", bounded, ends with the transcript's last
 * message, says how many earlier ones it left out, and the pages before
 * it reach back to the first, each ending where the next begins; the
 * remote source reads the same newest page.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server-page-cut"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "pd-bounded-reply.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-server-private.h"
#include "pd-session-reads.h"
#include "pd-transcript-pages-private.h"
#include "pd-test-tiny-transcripts.h"

#define TOKEN   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define N_TINY  6000u
#define BUDGET  ((gsize) 256 * 1024)

#define CLAUDE_SESSION "eeeeeeee-1111-2222-3333-555555555555"
#define GEMINI_SESSION "3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a9999"

typedef struct
{
  char           *dir;
  char           *db_dir;
  PdSessionStore *store;
  char           *id;
  PdServer       *server;
  char           *base;
  SoupSession    *session;
  guint64         all;
  gboolean        calls;    /* write_calls()'s transcript, no budget */
} Cut;

static void
write_claude (const char *dir)
{
  pd_test_write_tiny_claude (dir, CLAUDE_SESSION, N_TINY);
}

static void
write_gemini (const char *dir)
{
  pd_test_write_tiny_gemini (dir, GEMINI_SESSION, N_TINY);
}

/* "go", N_CALLERS answers of MESSAGE_CALLS (1,000, a message's most)
 * tiny calls each, then "the end": the shape of tiny-values-memory's
 * claude-calls. */
#define N_CALLERS     80u
#define MESSAGE_CALLS 1000u
static void
write_calls (const char *dir)
{
  g_autofree char *project = g_build_filename (dir, "projects", "-tmp", NULL);
  g_autofree char *path = g_build_filename (project, CLAUDE_SESSION ".jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append (text, "{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"" CLAUDE_SESSION "\",\"message\":"
                         "{\"role\":\"user\",\"content\":\"go\"},\"uuid\":\"u0\","
                         "\"timestamp\":\"2026-12-05T10:00:00Z\"}\n");
  for (guint i = 1; i <= N_CALLERS; i++)
    {
      g_string_append_printf (text, "{\"type\":\"assistant\",\"uuid\":\"a%u\",\"message\":{\"id\":\"msg%u\","
                                    "\"role\":\"assistant\",\"content\":[", i, i);
      for (guint j = 0; j < MESSAGE_CALLS; j++)
        g_string_append_printf (text, "%s{\"type\":\"tool_use\",\"id\":\"t%u_%u\",\"name\":\"B\",\"input\":{}}",
                                j ? "," : "", i, j);
      g_string_append (text, "]}}\n");
    }
  g_string_append (text, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"the end\"}}\n");
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}

/* Message @index's text as the transcript says it. */
static char *
text_of (guint64 index)
{
  return index == 0 ? g_strdup ("go") : index == N_TINY + 1 ? g_strdup ("the end")
         : g_strdup_printf ("x%" G_GUINT64_FORMAT, index);
}

static void serve (Cut *f);

static void
cut_open (Cut      *f,
          gboolean  gemini)
{
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  g_autoptr(GError) error = NULL;
  PdImportIndexStats stats;

  f->dir = pd_import_test_tmpdir ();
  if (f->calls)
    write_calls (f->dir);
  else if (gemini)
    write_gemini (f->dir);
  else
    write_claude (f->dir);
  f->store = pd_import_test_new_store (&f->db_dir);
  info = pd_import_test_import_fresh (f->store, f->dir, &stats);
  f->id = g_strdup (info->id);
  f->all = N_TINY + 2;
  g_assert_false (_pd_session_reads_is_long (f->store, f->id));
  if (f->calls)
    {
      f->all = N_CALLERS + 2;
      serve (f);
      return;
    }
  _pd_transcript_pages_set_budget_bytes (BUDGET);
  _pd_transcript_pages_set_cost_floor (BUDGET);

  /* The whole pages are cut, as the 63 MB file's were. */
  whole = pd_import_index_load_pages (f->store, f->id, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (_pd_transcript_pages_get_cut (whole, NULL, NULL));
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (whole), <, f->all);
  g_test_message ("whole pages keep %u of %" G_GUINT64_FORMAT " messages",
                  pd_transcript_pages_get_n_messages (whole), f->all);
  serve (f);
}

/* A real PdServer on loopback, serving f's database. */
static void
serve (Cut *f)
{
  g_autofree char *db_path = NULL;
  g_autoptr(GError) error = NULL;

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
cut_close (Cut *f)
{
  g_clear_object (&f->session);
  pd_server_stop (f->server);
  g_clear_object (&f->server);
  _pd_transcript_pages_set_budget_bytes (0);
  _pd_transcript_pages_set_cost_floor (0);
  g_clear_object (&f->store);
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->id);
  g_free (f->base);
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

/* GET /api/sessions/ID@query: a 200 record, valid JSON with one
 * "messages", under the remote window's bound of a record; its page is
 * checked message by message.  Returns the page's first index. */
static guint64
get_page (Cut        *f,
          const char *query,
          guint       n_expected)
{
  g_autofree char *url = g_strdup_printf ("%s/api/sessions/%s%s", f->base, f->id, query);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *body = NULL;
  JsonObject *object;
  JsonArray *messages;
  gint64 first;
  gsize len;
  const char *data;
  guint n;

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Plandeck-Token", TOKEN);
  bytes = soup_session_send_and_read (f->session, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  data = g_bytes_get_data (bytes, &len);
  body = g_strndup (data, len);
  g_assert_cmpuint (len, <, PD_SESSION_REPLY_MAX_BYTES);
  g_assert_cmpuint (count_of (body, "\"messages\":"), ==, 1);
  root = json_from_string (body, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  object = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f->id);
  g_assert_cmpint (json_object_get_int_member_with_default (object, "messages_total", -1), ==, (gint64) f->all);
  first = json_object_get_int_member_with_default (object, "messages_first", -1);
  messages = json_object_get_array_member (object, "messages");
  n = json_array_get_length (messages);
  g_test_message ("GET%s: %u messages from %" G_GINT64_FORMAT ", %zu bytes", query, n, first, len);
  g_assert_cmpuint (n, ==, n_expected);
  g_assert_cmpint (first, >=, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *expected = text_of ((guint64) first + i);

      g_assert_cmpstr (json_object_get_string_member_with_default (json_array_get_object_element (messages, i),
                                                                   "content", ""), ==, expected);
    }
  return (guint64) first;
}

static void
test_served (gconstpointer data)
{
  Cut f = { 0 };
  guint64 first, next;
  guint pages = 0;

  cut_open (&f, GPOINTER_TO_INT (data));
  /* The newest page, the transcript's last message last (before: the
   * whole session with "messages" twice; a page of the whole pages: the
   * cut's notice last, its total the messages kept). */
  first = get_page (&f, "", PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (first, ==, f.all - PD_SESSION_READS_WHOLE_MAX);

  /* The pages before it, back to the first, each ending where the next
   * begins. */
  while (first > 0)
    {
      g_autofree char *query = g_strdup_printf ("?before=%" G_GUINT64_FORMAT, first);
      guint n = (guint) MIN (first, (guint64) PD_SESSION_READS_PART_MAX);

      next = get_page (&f, query, n);
      g_assert_cmpuint (next + n, ==, first);
      first = next;
      pages++;
    }
  g_assert_cmpuint (pages, ==, (f.all - PD_SESSION_READS_WHOLE_MAX + PD_SESSION_READS_PART_MAX - 1) /
                                 PD_SESSION_READS_PART_MAX);

  /* The record and its counts alone; a limit within a page. */
  g_assert_cmpuint (get_page (&f, "?limit=0", 0), ==, f.all);
  g_assert_cmpuint (get_page (&f, "?limit=5", 5), ==, f.all - 5);
  cut_close (&f);
}

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

/* The remote window's Transcript page: the same newest page (its last the
 * transcript's, "N earlier messages not shown" from its first), then the
 * page before it. */
static void
test_remote (gconstpointer data)
{
  Cut f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(JsonArray) earlier = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) result2 = NULL;
  guint64 first = 0, total = 0, first2 = 0, total2 = 0;
  PdSource *source;
  guint n;

  cut_open (&f, GPOINTER_TO_INT (data));
  url = pd_server_dup_start_url (f.server);
  remote = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  source = PD_SOURCE (remote);

  pd_source_get_messages_part_async (source, f.id, -1, NULL, store_result, &result);
  newest = pd_source_get_messages_part_finish (source, wait_result (&result), &first, &total, &error);
  g_assert_no_error (error);
  n = json_array_get_length (newest);
  g_assert_cmpuint (n, ==, PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (total, ==, f.all);
  g_assert_cmpuint (first + n, ==, total);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (newest, n - 1), "content"), ==,
                   "the end");

  pd_source_get_messages_part_async (source, f.id, (gint64) first, NULL, store_result, &result2);
  earlier = pd_source_get_messages_part_finish (source, wait_result (&result2), &first2, &total2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (earlier), ==, PD_SESSION_READS_PART_MAX);
  g_assert_cmpuint (first2 + PD_SESSION_READS_PART_MAX, ==, first);
  g_assert_cmpuint (total2, ==, f.all);

  g_clear_object (&remote);
  cut_close (&f);
}

static JsonNode *
parse_bytes (GBytes  *bytes,
             GError **error)
{
  g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

  return json_from_string (text, error);
}

/* The claude-calls shape: 80 messages of 1,000 calls each are more
 * than a page: the part read for it holds what its bound lets it
 * (before: every answer, each one's calls, then all of them as one tree:
 * serve at 1,157.7 MB on tiny-values-memory's 40 MB of them), and its
 * newest page still ends with the transcript's last message, the page
 * before it reaching back to where it begins. */
static void
test_calls (void)
{
  Cut f = { 0 };
  g_autofree char *url = NULL;
  g_autofree char *query = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonArray *messages, *earlier;
  gint64 first, first2;
  guint n, peak;

  f.calls = TRUE;
  cut_open (&f, FALSE);
  (void) _pd_transcript_pages_reset_peak_held ();
  url = g_strdup_printf ("%s/api/sessions/%s", f.base, f.id);
  msg = soup_message_new ("GET", url);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Plandeck-Token", TOKEN);
  bytes = soup_session_send_and_read (f.session, msg, NULL, &error);
  g_assert_no_error (error);
  peak = _pd_transcript_pages_reset_peak_held ();
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  g_assert_cmpuint (g_bytes_get_size (bytes), <, PD_SESSION_REPLY_MAX_BYTES);
  root = parse_bytes (bytes, &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  messages = json_object_get_array_member (object, "messages");
  n = json_array_get_length (messages);
  first = json_object_get_int_member (object, "messages_first");
  g_test_message ("calls: %u messages from %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT ", %zu bytes; "
                  "the part held %u messages at most", n, first,
                  json_object_get_int_member (object, "messages_total"), g_bytes_get_size (bytes), peak);
  g_assert_cmpint (json_object_get_int_member (object, "messages_total"), ==, (gint64) f.all);
  g_assert_cmpuint (n, >, 1);
  g_assert_cmpint (first + n, ==, (gint64) f.all);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, n - 1), "content"), ==,
                   "the end");
  /* Before: the part held every one of them (82). */
  g_assert_cmpuint (peak, <=, PD_TRANSCRIPT_PAGES_PART_COST_MAX / (MESSAGE_CALLS * 512 /* CALL_COST */) + 2);
  g_assert_cmpuint (peak, <, N_CALLERS / 2);

  /* The page before it ends where it begins. */
  g_clear_object (&msg);
  g_clear_pointer (&bytes, g_bytes_unref);
  g_clear_pointer (&root, json_node_unref);
  g_free (url);
  url = g_strdup_printf ("%s/api/sessions/%s?before=%" G_GINT64_FORMAT, f.base, f.id, first);
  msg = soup_message_new ("GET", url);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Plandeck-Token", TOKEN);
  bytes = soup_session_send_and_read (f.session, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  root = parse_bytes (bytes, &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  earlier = json_object_get_array_member (object, "messages");
  first2 = json_object_get_int_member (object, "messages_first");
  g_assert_cmpuint (json_array_get_length (earlier), >, 0);
  g_assert_cmpint (first2 + json_array_get_length (earlier), ==, first);
  cut_close (&f);
}

int
main (int    argc,
      char **argv)
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);

  g_test_add_data_func ("/server-page-cut/claude", GINT_TO_POINTER (FALSE), test_served);
  g_test_add_data_func ("/server-page-cut/gemini", GINT_TO_POINTER (TRUE), test_served);
  g_test_add_data_func ("/server-page-cut/remote-claude", GINT_TO_POINTER (FALSE), test_remote);
  g_test_add_data_func ("/server-page-cut/remote-gemini", GINT_TO_POINTER (TRUE), test_remote);
  g_test_add_func ("/server-page-cut/calls", test_calls);
  return g_test_run ();
}

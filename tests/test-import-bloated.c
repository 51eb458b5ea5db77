/* test-import-bloated.c: a transcript line holding more values than its
 * size can in a real transcript is never built into a tree.  Tried as an
 * attacker would: a Claude Code line whose message content was 15 MiB of
 * "[{},{},...]" imported in 25 MB, but `serve`, `sessions show` and the
 * Transcript page reading its messages took 1.57 GB (each "{}" a json-glib
 * node, object and hash table), and as a TodoWrite's todos the import
 * took as much.  Now the line is a placeholder message in its place, the
 * session's other messages and plan are read as before, and a legit long
 * line (a 10 MiB tool result, a structured patch of blank lines) still
 * shows.  Nothing here asserts a time; the memory is held to a bound in a
 * subprocess of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "test-import-bloated"

#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include <libsoup/soup.h>

#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-server.h"
#include "pd-session-reads.h"
#include "pd-test-long-session.h"
#include "pd-test-valgrind.h"
#include "pd-transcript-reader.h"

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* A Claude Code line of @type at second @second, @rest its other members. */
#define LINE(type, second, rest) \
  "{\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\"," \
  "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"version\":\"2.0.31\",\"type\":\"" type "\"," \
  "\"uuid\":\"u" second "\",\"timestamp\":\"2026-03-09T14:03:" second ".000Z\"" rest "}\n"
#define USER(second, content) LINE ("user", second, ",\"message\":{\"role\":\"user\",\"content\":" content "}")
#define ANSWER(second, blocks) \
  LINE ("assistant", second, ",\"message\":{\"id\":\"m" second "\",\"type\":\"message\",\"role\":\"assistant\",\"content\":" blocks "}")
#define TEXT(text) "[{\"type\":\"text\",\"text\":\"" text "\"}]"
#define TODO_WRITE(id, todos) "[{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"TodoWrite\",\"input\":{\"todos\":" todos "}}]"
#define RESULT(id, text) "[{\"tool_use_id\":\"" id "\",\"type\":\"tool_result\",\"content\":\"" text "\"}]"
#define TODOS_PENDING "[{\"content\":\"A\",\"status\":\"pending\",\"activeForm\":\"A\"},{\"content\":\"B\",\"status\":\"pending\",\"activeForm\":\"B\"}]"
#define TODOS_MOVED "[{\"content\":\"A\",\"status\":\"completed\",\"activeForm\":\"A\"},{\"content\":\"B\",\"status\":\"in_progress\",\"activeForm\":\"B\"}]"

/* The attacker's content: 15 MiB of empty objects, one value a byte (1 MiB
 * under valgrind, where only the memory check's subprocess, run without
 * it, needs the size). */
#define BLOATED_BYTES ((RUNNING_ON_VALGRIND ? 1 : 15) * 1024 * 1024)
/* A legit tool result: 10 MiB of text (1 MiB under valgrind). */
#define OUTPUT_BYTES ((RUNNING_ON_VALGRIND ? 1 : 10) * 1024 * 1024)

/* Appends "[{},{},...]" of about @bytes to @text. */
static void
append_empty_objects (GString *text,
                      gsize    bytes)
{
  g_string_append_c (text, '[');
  for (gsize i = 0; i < bytes / 3; i++)
    g_string_append (text, i == 0 ? "{}" : ",{}");
  g_string_append_c (text, ']');
}

/* @head, the 15 MiB value, then @tail: one line of @text; its length in
 * *@length. */
static void
append_bloated_line (GString    *text,
                     const char *head,
                     const char *tail,
                     gsize      *length)
{
  gsize start = text->len;

  g_string_append (text, head);
  append_empty_objects (text, BLOATED_BYTES);
  g_string_append (text, tail);
  g_assert_cmpint (text->str[text->len - 1], ==, '\n');
  *length = text->len - start - 1;
}

/* A session of four messages, the third the attacker's line (its length
 * in *@length), imported from a new folder into a new database. */
static void
bloated_content_open (PdLongSession *f,
                      gsize         *length)
{
  g_autoptr(GString) text = g_string_new (USER ("01", "\"first message before\"")
                                          ANSWER ("02", TEXT ("reply before")));

  append_bloated_line (text, "{\"parentUuid\":\"u02\",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\","
                             "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"type\":\"user\","
                             "\"uuid\":\"u03\",\"timestamp\":\"2026-03-09T14:03:03.000Z\","
                             "\"message\":{\"role\":\"user\",\"content\":",
                       "}}\n", length);
  g_string_append (text, ANSWER ("04", TEXT ("reply after")));
  pd_long_session_open (f, "0badc0de-1111-4222-8333-444455556666.jsonl", text, FALSE);
  /* Read whole, as a short transcript is (the helper lowered it). */
  _pd_import_set_tail_limits (0, 0);
}

static char *
placeholder (gsize length)
{
  return g_strdup_printf ("This line of the transcript holds too many values to show (%" G_GSIZE_FORMAT " bytes)",
                          length);
}

/* @messages are the session's four, the attacker's line a placeholder. */
static void
assert_messages (JsonArray *messages,
                 gsize      length)
{
  g_autofree char *expected = placeholder (length);
  const char * const roles[] = { "user", "assistant", "system", "assistant" };
  const char * const texts[] = { "first message before", "reply before", expected, "reply after" };

  g_assert_nonnull (messages);
  g_assert_cmpuint (json_array_get_length (messages), ==, G_N_ELEMENTS (roles));
  for (guint i = 0; i < G_N_ELEMENTS (roles); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      g_assert_cmpstr (pd_json_get_string (message, "role"), ==, roles[i]);
      g_assert_cmpstr (pd_json_get_string (message, "content"), ==, texts[i]);
    }
}

/* The pages (`sessions show`, the Transcript page whole and in parts):
 * the placeholder where the line was, the other messages intact.  Before,
 * the line was built whole and, holding no text, left out unsaid. */
static void
test_claude_placeholder (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(JsonArray) part = NULL;
  guint64 first = 0, total = 0;
  gsize length = 0;

  bloated_content_open (&f, &length);
  messages = pd_session_reads_load_messages (f.store, f.id, &error);
  g_assert_no_error (error);
  assert_messages (messages, length);

  /* A long transcript's newest part, as the Transcript page reads it. */
  _pd_import_set_tail_limits (64 * 1024, 64 * 1024);
  part = pd_session_reads_load_messages_part (f.store, f.id, -1, PD_SESSION_READS_PART_MAX,
                                              &first, &total, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (first, ==, 0);
  g_assert_cmpuint (total, ==, 4);
  assert_messages (part, length);

  pd_long_session_close (&f);
}

/* `serve`: GET /api/sessions/ID answers the session's messages with the
 * placeholder, from a real server on loopback. */
static void
test_serve_placeholder (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *base = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdServer) server = NULL;
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 60, NULL);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize length = 0;

  bloated_content_open (&f, &length);
  db_path = g_build_filename (f.db_dir, "sessions.db", NULL);
  server = pd_server_new (db_path);
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, TOKEN);
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);
  base = pd_server_dup_base_url (server);
  url = g_strdup_printf ("%s/api/sessions/%s", base, f.id);

  msg = soup_message_new ("GET", url);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Plandeck-Token", TOKEN);
  bytes = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  root = json_from_string (g_bytes_get_data (bytes, NULL), &error);
  g_assert_no_error (error);
  assert_messages (pd_json_get_array (json_node_get_object (root), "messages"), length);

  pd_server_stop (server);
  pd_long_session_close (&f);
}

/* The checklist replay: a TodoWrite whose todos are the 15 MiB of empty
 * objects, between two real ones, is passed over; the plan is the last
 * real list, and the import never builds the line. */
static void
todo_write_open (PdLongSession *f)
{
  g_autoptr(GString) text = g_string_new (USER ("01", "\"plan it\"")
                                          ANSWER ("02", TODO_WRITE ("t1", TODOS_PENDING))
                                          USER ("03", RESULT ("t1", "Todos have been modified successfully")));
  gsize length;

  append_bloated_line (text, "{\"parentUuid\":\"u03\",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\","
                             "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"type\":\"assistant\","
                             "\"uuid\":\"u04\",\"timestamp\":\"2026-03-09T14:03:04.000Z\","
                             "\"message\":{\"id\":\"m04\",\"type\":\"message\",\"role\":\"assistant\",\"content\":"
                             "[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"TodoWrite\",\"input\":{\"todos\":",
                       "}}]}}\n", &length);
  g_string_append (text, USER ("05", RESULT ("t2", "Todos have been modified successfully"))
                         ANSWER ("06", TODO_WRITE ("t3", TODOS_MOVED))
                         USER ("07", RESULT ("t3", "Todos have been modified successfully")));
  pd_long_session_open (f, "0badc0de-1111-4222-8333-444455556666.jsonl", text, FALSE);
  _pd_import_set_tail_limits (0, 0);
}

static void
test_todo_write (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdImportedSession) session = NULL;

  todo_write_open (&f);
  session = pd_import_index_load_session (f.store, f.id, &error);
  g_assert_no_error (error);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, >=, 1);
  pd_long_session_close (&f);
}

/* A Codex rollout (read by the replay Qwen and Gemini share): the line is
 * a placeholder in the session's conversation, without a time. */
#define CODEX_ITEM(second, payload) \
  "{\"timestamp\":\"2026-03-14T09:12:" second ".000Z\",\"type\":\"response_item\",\"payload\":" payload "}\n"
#define CODEX_MESSAGE(second, role, type, text) \
  CODEX_ITEM (second, "{\"type\":\"message\",\"role\":\"" role "\",\"content\":[{\"type\":\"" type "\",\"text\":\"" text "\"}]}")

static void
test_codex_placeholder (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GString) text = g_string_new ("{\"timestamp\":\"2026-03-14T09:12:40.000Z\",\"type\":\"session_meta\","
                                          "\"payload\":{\"id\":\"019ceb9e-8409-72b7-bb14-1b6f441e1673\",\"cwd\":\"/w\"}}\n"
                                          CODEX_MESSAGE ("41", "user", "input_text", "first message before")
                                          CODEX_MESSAGE ("42", "assistant", "output_text", "reply before"));
  gsize length;

  append_bloated_line (text, "{\"timestamp\":\"2026-03-14T09:12:43.000Z\",\"type\":\"response_item\","
                             "\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":",
                       "}}\n", &length);
  g_string_append (text, CODEX_MESSAGE ("44", "assistant", "output_text", "reply after"));
  pd_long_session_open (&f, "rollout-2026-03-14T09-12-40-019ceb9e-8409-72b7-bb14-1b6f441e1673.jsonl", text, FALSE);
  _pd_import_set_tail_limits (0, 0);

  messages = pd_session_reads_load_messages (f.store, f.id, &error);
  g_assert_no_error (error);
  assert_messages (messages, length);
  g_assert_null (pd_json_get_string (json_array_get_object_element (messages, 2), "time"));

  pd_long_session_close (&f);
}

/* @text as @rel below @root. */
static void
write_file (const char *root,
            const char *rel,
            const char *text,
            gssize      length)
{
  g_autofree char *path = g_build_filename (root, rel, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, length, &error));
  g_assert_no_error (error);
}

#define OC_MESSAGE(id, role, ms) \
  "{\"id\":\"" id "\",\"sessionID\":\"ses_b\",\"role\":\"" role "\",\"time\":{\"created\":17738283180" ms "}}"
#define OC_TEXT(id, message, text) \
  "{\"id\":\"" id "\",\"sessionID\":\"ses_b\",\"messageID\":\"" message "\",\"type\":\"text\",\"text\":\"" text "\"}"

/* An OpenCode storage tree: one part file of 4 MiB of empty objects (the
 * files are read up to 8 MiB) between three messages' texts. */
static void
test_opencode_placeholder (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autoptr(GString) bloated = g_string_new ("{\"id\":\"prt_3\",\"messageID\":\"msg_2\",\"type\":\"text\",\"text\":\"x\",\"extra\":");
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;

  write_file (root, "session/proj/ses_b.json",
              "{\"id\":\"ses_b\",\"projectID\":\"proj\",\"directory\":\"/w\",\"title\":\"t\","
              "\"time\":{\"created\":1773828312000,\"updated\":1773828365150}}", -1);
  write_file (root, "message/ses_b/msg_1.json", OC_MESSAGE ("msg_1", "user", "01"), -1);
  write_file (root, "part/msg_1/prt_1.json", OC_TEXT ("prt_1", "msg_1", "first message before"), -1);
  write_file (root, "message/ses_b/msg_2.json", OC_MESSAGE ("msg_2", "assistant", "02"), -1);
  write_file (root, "part/msg_2/prt_2.json", OC_TEXT ("prt_2", "msg_2", "reply before"), -1);
  append_empty_objects (bloated, 4 * 1024 * 1024);
  g_string_append_c (bloated, '}');
  write_file (root, "part/msg_2/prt_3.json", bloated->str, (gssize) bloated->len);
  write_file (root, "message/ses_b/msg_3.json", OC_MESSAGE ("msg_3", "assistant", "03"), -1);
  write_file (root, "part/msg_3/prt_4.json", OC_TEXT ("prt_4", "msg_3", "reply after"), -1);

  reader = pd_transcript_reader_new_for_format ("opencode-storage", root, "ses_b", &error);
  g_assert_no_error (error);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  messages = pd_transcript_pages_dup_messages (pages);
  assert_messages (messages, bloated->len);

  pd_test_remove_tree (root);
}

/* The peak of this process's resident memory, in KiB. */
static long
peak_rss_kib (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &usage), ==, 0);
  return usage.ru_maxrss;
}

/* In a process of its own, so its peak is its own: the import of both
 * sessions, and every read of the messages.  Before, each took 1.57 GB;
 * now about 60 MB (the files are written from memory first). */
static void
test_never_built (void)
{
  if (g_test_subprocess ())
    {
      PdLongSession f = { 0 };
      PdLongSession g = { 0 };
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonArray) messages = NULL;
      g_autoptr(PdImportedSession) session = NULL;
      gsize length;

      bloated_content_open (&f, &length);
      messages = pd_session_reads_load_messages (f.store, f.id, &error);
      g_assert_no_error (error);
      pd_long_session_close (&f);
      todo_write_open (&g);
      session = pd_import_index_load_session (g.store, g.id, &error);
      g_assert_no_error (error);
      pd_long_session_close (&g);
      /* 15 MiB built would be 1.5 GB. */
      g_test_message ("peak resident memory: %ld KiB", peak_rss_kib ());
      g_assert_cmpint (peak_rss_kib (), <, 400 * 1024);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A legit long line still shows: a tool result of 10 MiB of text (one
 * string: no values in it), and a structured patch of 500 000 blank lines
 * (" ", four bytes a value: the densest a real line gets). */
static void
test_legit_long_lines (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (USER ("01", "\"read it\"")
                                          ANSWER ("02", "[{\"type\":\"tool_use\",\"id\":\"r1\",\"name\":\"Read\",\"input\":{\"file_path\":\"/w/big\"}}]"));
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *output = g_malloc (OUTPUT_BYTES);
  JsonObject *result;
  gsize start;

  g_string_append (text, "{\"parentUuid\":\"u02\",\"isSidechain\":false,\"cwd\":\"/w\","
                         "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"type\":\"user\","
                         "\"uuid\":\"u03\",\"timestamp\":\"2026-03-09T14:03:03.000Z\","
                         "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"r1\",\"type\":\"tool_result\",\"content\":\"");
  memset (output, 'x', OUTPUT_BYTES);
  g_string_append_len (text, output, OUTPUT_BYTES);
  g_string_append (text, "\"}]}}\n");
  g_string_append (text, ANSWER ("04", "[{\"type\":\"tool_use\",\"id\":\"e1\",\"name\":\"Edit\",\"input\":{\"file_path\":\"/w/a\"}}]"));
  start = text->len;
  g_string_append (text, "{\"parentUuid\":\"u04\",\"isSidechain\":false,\"cwd\":\"/w\","
                         "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"type\":\"user\","
                         "\"uuid\":\"u05\",\"timestamp\":\"2026-03-09T14:03:05.000Z\","
                         "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"e1\",\"type\":\"tool_result\",\"content\":\"edited\"}]},"
                         "\"toolUseResult\":{\"filePath\":\"/w/a\",\"structuredPatch\":[{\"oldStart\":1,\"lines\":[\" \"");
  for (guint i = 1; i < 500000; i++)
    g_string_append (text, ",\" \"");
  g_string_append (text, "]}]}}\n");
  g_assert_false (_pd_import_too_many_values (text->str + start, text->len - start - 1));
  g_string_append (text, ANSWER ("06", TEXT ("done")));
  pd_long_session_open (&f, "0badc0de-1111-4222-8333-444455556666.jsonl", text, FALSE);
  _pd_import_set_tail_limits (0, 0);

  messages = pd_session_reads_load_messages (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (messages), ==, 6);
  result = json_array_get_object_element (messages, 2);
  g_assert_cmpstr (pd_json_get_string (result, "role"), ==, "tool");
  g_assert_true (g_str_has_prefix (pd_json_get_string (result, "content"), "xxxxxxxx"));
  result = json_array_get_object_element (messages, 4);
  g_assert_cmpstr (pd_json_get_string (result, "role"), ==, "tool");
  g_assert_cmpstr (pd_json_get_string (result, "content"), ==, "edited");
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 5), "content"), ==, "done");

  pd_long_session_close (&f);
}

/* Every line of the fixtures' transcripts (ours and the shared ones) is
 * under the bound: what pd-import-util.c's measure was taken of. */
static void
check_folder (const char *dir,
              guint      *n_lines)
{
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  const char *name;

  while (folder != NULL && (name = g_dir_read_name (folder)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      gsize size;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          check_folder (path, n_lines);
          continue;
        }
      if (!g_str_has_suffix (name, ".jsonl") && !g_str_has_suffix (name, ".json"))
        continue;
      g_assert_true (g_file_get_contents (path, &contents, &size, NULL));
      for (char *line = contents, *end; line < contents + size; line = end + 1)
        {
          end = g_str_has_suffix (name, ".jsonl") ? memchr (line, '\n', (gsize) (contents + size - line)) : NULL;
          if (end == NULL)
            end = contents + size;
          if (end > line)
            (*n_lines)++;
          if (_pd_import_too_many_values (line, (gsize) (end - line)))
            g_error ("%s: a line of %" G_GSIZE_FORMAT " bytes refused", path, (gsize) (end - line));
        }
    }
}

static void
test_fixtures_pass (void)
{
  g_autofree char *ours = pd_import_test_fixtures (".");
  const char *shared = g_getenv ("PD_SHARED_FIXTURES_DIR");
  guint n_lines = 0;

  check_folder (ours, &n_lines);
  g_assert_cmpuint (n_lines, >, 300);
  if (shared != NULL)
    check_folder (shared, &n_lines);

  /* The attacker's density, and a dense line short enough to pass. */
  {
    g_autoptr(GString) text = g_string_new (NULL);

    append_empty_objects (text, 64 * 1024);
    g_assert_true (_pd_import_too_many_values (text->str, text->len));
    g_string_truncate (text, 0);
    append_empty_objects (text, 2 * 1024);
    g_assert_false (_pd_import_too_many_values (text->str, text->len));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-bloated/claude-placeholder", test_claude_placeholder);
  g_test_add_func ("/pd/import-bloated/serve-placeholder", test_serve_placeholder);
  g_test_add_func ("/pd/import-bloated/codex-placeholder", test_codex_placeholder);
  g_test_add_func ("/pd/import-bloated/opencode-placeholder", test_opencode_placeholder);
  g_test_add_func ("/pd/import-bloated/todo-write", test_todo_write);
  g_test_add_func ("/pd/import-bloated/never-built", test_never_built);
  g_test_add_func ("/pd/import-bloated/legit-long-lines", test_legit_long_lines);
  g_test_add_func ("/pd/import-bloated/fixtures-pass", test_fixtures_pass);

  return g_test_run ();
}

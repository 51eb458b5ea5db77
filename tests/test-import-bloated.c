/* test-import-bloated.c: a transcript line holding more values than its
 * size can in a real transcript is never built into a tree.  Tried as an
 * attacker would: a Claude Code line whose message content was 15 MiB of
 * "[{},{},...]" imported in 25 MB, but `serve`, `sessions show` and the
 * Transcript page reading its messages took 1.57 GB (each "{}" a json-glib
 * node, object and hash table), and as a TodoWrite's todos the import
 * took as much.  Now the line is a placeholder message in its place, the
 * session's other messages and plan are read as before, and a legit long
 * line (a 10 MiB tool result, a structured patch of blank lines) still
 * shows.  So does a line at the per-byte bound but of more values than
 * any line may hold (a tree of about 30 MB), and a line too long to read
 * at all (over 16 MiB), which went unsaid before.  Nothing here asserts
 * a time; the memory is held to a bound in a subprocess of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "test-import-bloated"

#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-json.h"
#include "pd-jsonl-reader.h"
#include "pd-session-reads.h"
#include "pd-test-long-session.h"
#include "pd-test-valgrind.h"
#include "pd-transcript-reader.h"

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

/* The second attack, at the per-byte bound: a 15 MiB value of one unit
 * for 4 bytes, under the line length the readers take (2 MiB under
 * valgrind: still eight times the cap of units a line may hold). */
#define AT_BOUND_BYTES ((RUNNING_ON_VALGRIND ? 2 : 15) * 1024 * 1024)

typedef void (*AppendValue) (GString *text,
                             gsize    bytes);

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

/* Appends "[0,  0,  0,...]" of about @bytes to @text: one unit for 4
 * bytes, exactly what the per-byte bound lets through. */
static void
append_padded_numbers (GString *text,
                       gsize    bytes)
{
  g_string_append (text, "[0");
  for (gsize i = 1; i < bytes / 4; i++)
    g_string_append (text, ",  0");
  g_string_append_c (text, ']');
}

/* Appends "[\"xx\",\"xx\",...]" of about @bytes: one unit for 5 bytes. */
static void
append_short_strings (GString *text,
                      gsize    bytes)
{
  g_string_append (text, "[\"xx\"");
  for (gsize i = 1; i < bytes / 5; i++)
    g_string_append (text, ",\"xx\"");
  g_string_append_c (text, ']');
}

/* Appends "\"xxx...\"" of @bytes: one string, no unit at all. */
static void
append_long_string (GString *text,
                    gsize    bytes)
{
  gsize start;

  g_string_append_c (text, '"');
  start = text->len;
  g_string_set_size (text, start + bytes - 2);
  memset (text->str + start, 'x', bytes - 2);
  g_string_append_c (text, '"');
}

/* @head, @value of @bytes, then @tail: one line of @text; its length in
 * *@length. */
static void
append_line_of (GString     *text,
                const char  *head,
                AppendValue  value,
                gsize        bytes,
                const char  *tail,
                gsize       *length)
{
  gsize start = text->len;

  g_string_append (text, head);
  value (text, bytes);
  g_string_append (text, tail);
  g_assert_cmpint (text->str[text->len - 1], ==, '\n');
  *length = text->len - start - 1;
}

/* @head, the 15 MiB of empty objects, then @tail. */
static void
append_bloated_line (GString    *text,
                     const char *head,
                     const char *tail,
                     gsize      *length)
{
  append_line_of (text, head, append_empty_objects, BLOATED_BYTES, tail, length);
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
  return _pd_import_unshown_text (PD_IMPORT_UNSHOWN_TOO_MANY_VALUES, length);
}

/* @messages are the session's four, the attacker's line @expected. */
static void
assert_messages_with (JsonArray  *messages,
                      const char *expected)
{
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

/* @messages are the session's four, the attacker's line of @length a
 * placeholder. */
static void
assert_messages (JsonArray *messages,
                 gsize      length)
{
  g_autofree char *expected = placeholder (length);

  assert_messages_with (messages, expected);
}

/* The checklist replay: a TodoWrite whose todos are the 15 MiB of empty
 * objects, between two real ones, is passed over; the plan is the last
 * real list, and the import never builds the line. */
static void
todo_write_open_with (PdLongSession *f,
                      AppendValue    todos,
                      gsize          bytes,
                      gsize         *length)
{
  g_autoptr(GString) text = g_string_new (USER ("01", "\"plan it\"")
                                          ANSWER ("02", TODO_WRITE ("t1", TODOS_PENDING))
                                          USER ("03", RESULT ("t1", "Todos have been modified successfully")));

  append_line_of (text, "{\"parentUuid\":\"u03\",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\","
                        "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"type\":\"assistant\","
                        "\"uuid\":\"u04\",\"timestamp\":\"2026-03-09T14:03:04.000Z\","
                        "\"message\":{\"id\":\"m04\",\"type\":\"message\",\"role\":\"assistant\",\"content\":"
                        "[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"TodoWrite\",\"input\":{\"todos\":",
                  todos, bytes, "}}]}}\n", length);
  g_string_append (text, USER ("05", RESULT ("t2", "Todos have been modified successfully"))
                         ANSWER ("06", TODO_WRITE ("t3", TODOS_MOVED))
                         USER ("07", RESULT ("t3", "Todos have been modified successfully")));
  pd_long_session_open (f, "0badc0de-1111-4222-8333-444455556666.jsonl", text, FALSE);
  _pd_import_set_tail_limits (0, 0);
}

static void
todo_write_open (PdLongSession *f)
{
  gsize length;

  todo_write_open_with (f, append_empty_objects, BLOATED_BYTES, &length);
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

/* The index of the message of @messages whose text is @text, or -1. */
static int
find_message (JsonArray  *messages,
              const char *text)
{
  for (guint i = 0; i < json_array_get_length (messages); i++)
    if (g_strcmp0 (pd_json_get_string (json_array_get_object_element (messages, i), "content"), text) == 0)
      return (int) i;
  return -1;
}

/* A TodoWrite whose todos are 15 MiB of "[0,  0,  0,...]": one unit for
 * 4 bytes, AT the per-byte bound, so it was built (a read of its messages
 * took 367 MB).  Now over the cap of units a line may hold: the pages
 * (read whole, by `serve` too) show the placeholder where it was, the
 * conversation around it intact, and the plan is the last real list. */
static void
test_at_bound (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *contents = NULL;
  JsonArray *served;
  const char *line;
  guint status = 0;
  gsize length = 0, size;
  int at;

  todo_write_open_with (&f, append_padded_numbers, AT_BOUND_BYTES, &length);
  expected = placeholder (length);

  /* The line is within the per-byte bound and over the cap. */
  g_assert_true (g_file_get_contents (f.path, &contents, &size, NULL));
  line = strstr (contents, "{\"parentUuid\":\"u03\"");
  g_assert_nonnull (line);
  g_assert_cmpint (line[length], ==, '\n');
  g_assert_false (pd_json_values_exceed (line, length, length / 4 + 4096));
  g_assert_true (_pd_import_too_many_values (line, length));

  session = pd_import_index_load_session (f.store, f.id, &error);
  g_assert_no_error (error);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");

  messages = pd_session_reads_load_messages (f.store, f.id, &error);
  g_assert_no_error (error);
  at = find_message (messages, expected);
  g_assert_cmpint (at, >, 0);
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, at), "role"), ==, "system");
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 0), "content"), ==, "plan it");
  g_assert_cmpint (find_message (messages, "Todos have been modified successfully"), <, at);

  /* `serve` answers the same messages. */
  bytes = pd_long_session_serve_get (&f, "", &status);
  g_assert_cmpuint (status, ==, 200);
  root = json_from_string (g_bytes_get_data (bytes, NULL), &error);
  g_assert_no_error (error);
  served = pd_json_get_array (json_node_get_object (root), "messages");
  g_assert_cmpuint (json_array_get_length (served), ==, json_array_get_length (messages));
  g_assert_cmpint (find_message (served, expected), ==, at);

  pd_long_session_close (&f);
}

/* A Codex rollout (read by the replay Qwen and Gemini share): the line is
 * a placeholder in the session's conversation, without a time. */
#define CODEX_ITEM(second, payload) \
  "{\"timestamp\":\"2026-03-14T09:12:" second ".000Z\",\"type\":\"response_item\",\"payload\":" payload "}\n"
#define CODEX_MESSAGE(second, role, type, text) \
  CODEX_ITEM (second, "{\"type\":\"message\",\"role\":\"" role "\",\"content\":[{\"type\":\"" type "\",\"text\":\"" text "\"}]}")

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

/* AddressSanitizer holds freed memory back (its quarantine, 256 MiB by
 * default) and keeps shadow memory beside what is used: the same run that
 * peaks at 41 MB plain peaked at 316 MB in the sanitizer build. */
#if defined(__SANITIZE_ADDRESS__)
#define PD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PD_TEST_ASAN 1
#endif
#endif
#ifdef PD_TEST_ASAN
#define NEVER_BUILT_BOUND_KIB (512 * 1024)
#else
#define NEVER_BUILT_BOUND_KIB (200 * 1024)
#endif

/* The peak of this process's resident memory, in KiB. */
static long
peak_rss_kib (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &usage), ==, 0);
  return usage.ru_maxrss;
}

/* In a process of its own, so its peak is its own: the import of the
 * three sessions, and every read of the messages.  Before, the first two
 * took 1.57 GB each, the third (at the per-byte bound) 367 MB; now 41 MB
 * (the files are written from memory first), 316 MB under ASan, whose
 * bound counts its quarantine. */
static void
test_never_built (void)
{
  if (g_test_subprocess ())
    {
      PdLongSession f = { 0 };
      PdLongSession g = { 0 };
      PdLongSession h = { 0 };
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
      todo_write_open_with (&h, append_padded_numbers, AT_BOUND_BYTES, &length);
      g_clear_pointer (&messages, json_array_unref);
      messages = pd_session_reads_load_messages (h.store, h.id, &error);
      g_assert_no_error (error);
      pd_long_session_close (&h);
      /* 15 MiB built would be 1.5 GB; 15 MiB at the per-byte bound, 367 MB. */
      g_test_message ("peak resident memory: %ld KiB", peak_rss_kib ());
      /* Under valgrind the peak is valgrind's own: said, not held to a bound. */
      if (!RUNNING_ON_VALGRIND)
        g_assert_cmpint (peak_rss_kib (), <, NEVER_BUILT_BOUND_KIB);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A line longer than the readers take (PD_JSONL_DEFAULT_MAX_LINE, 16 MiB):
 * a tool result of 17 MB of text. */
#define TOO_LONG_BYTES (17 * 1000 * 1000)

/* ---------------------------------------------------------------------- */
/* The four-message cases                                                 */

/* A session of four messages whose third is the attacker's line: @head,
 * a value of @bytes, "}}"; read back whole, as a long transcript's part
 * and by `serve`, the placeholder for @why third of four, the others
 * intact.  Before, the line was built whole (1.57 GB) and, holding no
 * text, left out unsaid, or (too long to read) passed over unsaid. */
typedef struct
{
  const char      *name;
  gboolean         codex;     /* a Codex rollout, read by the replay Qwen Code and Gemini CLI share */
  const char      *head;
  AppendValue      value;
  gsize            bytes;     /* 0: BLOATED_BYTES (less under valgrind) */
  PdImportUnshown  why;
  gboolean         part;      /* read as a long transcript's newest part too */
  gboolean         serve;     /* and by a real `serve` on loopback */
} FourCase;

#define CLAUDE_THIRD_HEAD \
  "{\"parentUuid\":\"u02\",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\"," \
  "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"type\":\"user\"," \
  "\"uuid\":\"u03\",\"timestamp\":\"2026-03-09T14:03:03.000Z\",\"message\":{\"role\":\"user\",\"content\":"

/* A line longer than the readers take (PD_JSONL_DEFAULT_MAX_LINE, 16 MiB):
 * a tool result of 17 MB of text (a real one can be that long). */
#define TOO_LONG_BYTES (17 * 1000 * 1000)

static const FourCase four_cases[] = {
  { "claude-placeholder", FALSE, CLAUDE_THIRD_HEAD, append_empty_objects, 0,
    PD_IMPORT_UNSHOWN_TOO_MANY_VALUES, TRUE, FALSE },
  { "serve-placeholder", FALSE, CLAUDE_THIRD_HEAD, append_empty_objects, 0,
    PD_IMPORT_UNSHOWN_TOO_MANY_VALUES, FALSE, TRUE },
  { "too-long-claude", FALSE, CLAUDE_THIRD_HEAD, append_long_string, TOO_LONG_BYTES,
    PD_IMPORT_UNSHOWN_TOO_LONG, TRUE, TRUE },
  { "codex-placeholder", TRUE,
    "{\"timestamp\":\"2026-03-14T09:12:43.000Z\",\"type\":\"response_item\","
    "\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":",
    append_empty_objects, 0, PD_IMPORT_UNSHOWN_TOO_MANY_VALUES, FALSE, FALSE },
  { "too-long-codex", TRUE,
    "{\"timestamp\":\"2026-03-14T09:12:43.000Z\",\"type\":\"response_item\","
    "\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":",
    append_long_string, TOO_LONG_BYTES, PD_IMPORT_UNSHOWN_TOO_LONG, FALSE, FALSE },
};

static void
test_four (gconstpointer data)
{
  const FourCase *c = data;
  PdLongSession f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *expected = NULL;
  gsize length = 0;

  if (c->codex)
    text = g_string_new ("{\"timestamp\":\"2026-03-14T09:12:40.000Z\",\"type\":\"session_meta\","
                         "\"payload\":{\"id\":\"019ceb9e-8409-72b7-bb14-1b6f441e1673\",\"cwd\":\"/w\"}}\n"
                         CODEX_MESSAGE ("41", "user", "input_text", "first message before")
                         CODEX_MESSAGE ("42", "assistant", "output_text", "reply before"));
  else
    text = g_string_new (USER ("01", "\"first message before\"") ANSWER ("02", TEXT ("reply before")));
  append_line_of (text, c->head, c->value, c->bytes > 0 ? c->bytes : BLOATED_BYTES, "}}\n", &length);
  if (c->why == PD_IMPORT_UNSHOWN_TOO_LONG)
    g_assert_cmpuint (length, >, PD_JSONL_DEFAULT_MAX_LINE);
  g_string_append (text, c->codex ? CODEX_MESSAGE ("44", "assistant", "output_text", "reply after")
                                  : ANSWER ("04", TEXT ("reply after")));
  pd_long_session_open (&f, c->codex ? "rollout-2026-03-14T09-12-40-019ceb9e-8409-72b7-bb14-1b6f441e1673.jsonl"
                                     : "0badc0de-1111-4222-8333-444455556666.jsonl", text, FALSE);
  /* Read whole, as a short transcript is (the helper lowered it). */
  _pd_import_set_tail_limits (0, 0);
  expected = _pd_import_unshown_text (c->why, length);

  messages = pd_session_reads_load_messages (f.store, f.id, &error);
  g_assert_no_error (error);
  assert_messages_with (messages, expected);
  /* The replay's placeholder has no time (what is unread holds it). */
  if (c->codex)
    g_assert_null (pd_json_get_string (json_array_get_object_element (messages, 2), "time"));

  if (c->serve)
    {
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(JsonNode) root = NULL;
      guint status = 0;

      bytes = pd_long_session_serve_get (&f, "", &status);
      g_assert_cmpuint (status, ==, 200);
      root = json_from_string (g_bytes_get_data (bytes, NULL), &error);
      g_assert_no_error (error);
      assert_messages_with (pd_json_get_array (json_node_get_object (root), "messages"), expected);
    }
  if (c->part)
    {
      g_autoptr(JsonArray) part = NULL;
      guint64 first = 0, total = 0;

      _pd_import_set_tail_limits (64 * 1024, 64 * 1024);
      part = pd_session_reads_load_messages_part (f.store, f.id, -1, PD_SESSION_READS_PART_MAX,
                                                  &first, &total, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (first, ==, 0);
      g_assert_cmpuint (total, ==, 4);
      assert_messages_with (part, expected);
    }
  pd_long_session_close (&f);
}

/* A legit long line still shows: a tool result of 10 MiB of text (one
 * string: no values in it), and a structured patch of 200 000 blank lines
 * (" ", four bytes a value: the densest a real line gets; under the cap
 * of units a line may hold too). */
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
  for (guint i = 1; i < 200000; i++)
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

    /* At the per-byte bound, or near it, but more units than any line
     * may hold (262 144: a tree of about 30 MB); and under them. */
    g_string_truncate (text, 0);
    append_padded_numbers (text, 2 * 1024 * 1024);
    g_assert_true (_pd_import_too_many_values (text->str, text->len));
    g_string_truncate (text, 0);
    append_short_strings (text, 8 * 1024 * 1024);
    g_assert_true (_pd_import_too_many_values (text->str, text->len));
    g_string_truncate (text, 0);
    append_padded_numbers (text, 1000 * 1000);
    g_assert_false (_pd_import_too_many_values (text->str, text->len));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (four_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/pd/import-bloated/", four_cases[i].name, NULL);

      g_test_add_data_func (path, &four_cases[i], test_four);
    }
  g_test_add_func ("/pd/import-bloated/opencode-placeholder", test_opencode_placeholder);
  g_test_add_func ("/pd/import-bloated/todo-write", test_todo_write);
  g_test_add_func ("/pd/import-bloated/at-bound", test_at_bound);
  g_test_add_func ("/pd/import-bloated/never-built", test_never_built);
  g_test_add_func ("/pd/import-bloated/legit-long-lines", test_legit_long_lines);
  g_test_add_func ("/pd/import-bloated/fixtures-pass", test_fixtures_pass);

  return g_test_run ();
}

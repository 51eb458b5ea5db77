/* test-import-budget.c: what a whole session's read keeps at once is
 * bounded, and nothing it leaves out goes unsaid.  Tried as an attacker
 * would: Gemini CLI and OpenCode sessions whose every message sat just
 * under the bound a line is held to kept every message's tree (Gemini CLI
 * until the replay, OpenCode a message's parts, its todowrite parts, the
 * database's whole session), and Claude Code its pending requests' inputs:
 * 34 MB of tree a MiB of file (a 31 MB Gemini CLI file: 1.04 GB).  Now
 * what is kept is taken from the session's budget (PdImportBudget, bytes
 * of kept text and PD_IMPORT_VALUE_BYTES a value); what it has no room for
 * is said in its place ("… not shown: the lines before it hold as much as
 * a session may show"), its calls still named, and the plan replayed
 * exactly.  Gemini CLI keeps a message's texts, not its tree: a message of
 * many values keeps none of them, one of long text is held to the budget.
 * The budget counted values once: an honest long Gemini CLI session (51 753
 * short messages) showed its last ones as the placeholder.  Also: an
 * OpenCode file over 8 MiB, and a call whose arguments nest deeper than
 * json-glib is given, are said in their place (both were left out unsaid).
 *
 * The budget is lowered here (_pd_import_set_session_bytes()) so small
 * files show it; the subprocess case reads full-size ones with the
 * default, held to a bound with margin.  Nothing here asserts a time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "test-import-budget"

#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-json.h"
#include "pd-test-valgrind.h"
#include "pd-transcript-reader.h"

/* A lowered budget, and messages each of a little under half of it: two
 * are kept at once (trees: a value is PD_IMPORT_VALUE_BYTES and its text). */
#define TEST_BYTES    (40 * 1000 * PD_IMPORT_VALUE_BYTES)
#define MESSAGE_PAD   (18 * 1000)   /* values of one message's padding */
#define N_MESSAGES    12
/* Gemini CLI's messages of text: a budget of two and a half of them. */
#define GEMINI_TEXT        (72 * 1000)
#define GEMINI_TEST_BYTES  (GEMINI_TEXT * 5 / 2)

/* ", 0" values: one a value of 4 bytes, the per-byte bound's density. */
static void
append_dense (GString *out,
              guint    n)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    g_string_append (out, i > 0 ? ",  0" : "0");
  g_string_append_c (out, ']');
}

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

/* What the messages of @pages hold: the over-budget placeholders, the
 * calls (and of those the @name ones), the too-deep arguments. */
typedef struct
{
  guint n_messages;
  guint over_budget;
  guint too_long;
  guint calls;
  guint named;
  guint too_deep;
} Counts;

static void
count_messages (PdTranscriptPages *pages,
                const char        *name,
                Counts            *counts)
{
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);

  memset (counts, 0, sizeof *counts);
  counts->n_messages = json_array_get_length (messages);
  for (guint i = 0; i < counts->n_messages; i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *content = pd_json_get_string (message, "content");
      JsonArray *calls = pd_json_get_array (message, "tool_calls");

      if (content != NULL && strstr (content, "as much as a session may show") != NULL)
        counts->over_budget++;
      if (content != NULL && strstr (content, "is too long to show") != NULL)
        counts->too_long++;
      for (guint j = 0; calls && j < json_array_get_length (calls); j++)
        {
          JsonObject *function = pd_json_get_object (json_array_get_object_element (calls, j), "function");
          const char *arguments = pd_json_get_string (function, "arguments");

          counts->calls++;
          if (g_strcmp0 (pd_json_get_string (function, "name"), name) == 0)
            counts->named++;
          if (arguments != NULL && strstr (arguments, "nested too deep to show") != NULL)
            counts->too_deep++;
        }
    }
}

/* The plan of @pages: its steps' titles, joined by "|". */
static char *
plan_titles (PdTranscriptPages *pages)
{
  g_autoptr(PdPlanState) plan = pd_transcript_pages_dup_plan (pages, NULL);
  g_autoptr(GString) out = g_string_new (NULL);

  g_assert_nonnull (plan);
  for (guint i = 0; i < plan->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (plan->steps, i);

      g_string_append_printf (out, "%s%s", i > 0 ? "|" : "", step->title);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static PdTranscriptPages *
read_pages (const char *format,
            const char *path,
            const char *session_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format (format, path, session_id, &error);
  PdTranscriptPages *pages;

  g_assert_no_error (error);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  return pages;
}

/* ---------------------------------------------------------------------- */
/* Gemini CLI                                                             */

/* Message @i: a shell call, @pad values of content (with @text, a string
 * of @pad bytes instead), and in the last a write_todos call, the plan. */
static void
append_gemini_message (GString *out,
                       guint    i,
                       guint    pad,
                       gboolean last,
                       gboolean text)
{
  g_string_append_printf (out, "{\"id\":\"m%02u\",\"timestamp\":\"2026-04-05T10:12:%02u.000Z\",\"type\":\"gemini\","
                          "\"toolCalls\":[{\"id\":\"c%u\",\"name\":\"run_shell_command\",\"args\":{\"command\":\"echo %u\"},"
                          "\"status\":\"success\"}", i, i, i, i);
  if (last)
    g_string_append (out, ",{\"id\":\"t1\",\"name\":\"write_todos\",\"args\":{\"todos\":["
                          "{\"description\":\"Find it\",\"status\":\"completed\"},"
                          "{\"description\":\"Fix it\",\"status\":\"in_progress\"}]},\"status\":\"success\"}");
  g_string_append (out, "],\"content\":");
  if (text)
    {
      g_string_append_c (out, '"');
      for (guint j = 0; j < pad; j++)
        g_string_append_c (out, "abcdefgh "[j % 9]);
      g_string_append_c (out, '"');
    }
  else
    append_dense (out, pad);
  g_string_append_c (out, '}');
}

/* @over_budget of the messages said unshown, every call named, the plan
 * exact. */
static void
check_gemini_pages (PdTranscriptPages *pages,
                    guint              over_budget)
{
  g_autofree char *titles = plan_titles (pages);
  Counts counts;

  count_messages (pages, "run_shell_command", &counts);
  g_assert_cmpuint (counts.over_budget, ==, over_budget);
  g_assert_cmpuint (counts.named, ==, N_MESSAGES);
  g_assert_cmpuint (counts.calls, ==, N_MESSAGES + 1);
  /* The plan from the last message, over the budget or not: exact. */
  g_assert_cmpstr (titles, ==, "Find it|Fix it");
}

static PdTranscriptPages *
read_gemini (gboolean  document,
             guint     pad,
             gboolean  text,
             gsize     budget)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  const char *rel = document ? "chats/session-2026-04-05T10-12-0badc0de.json"
                             : "chats/session-2026-04-05T10-12-0badc0de.jsonl";
  g_autofree char *path = g_build_filename (root, rel, NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  PdTranscriptPages *pages;

  if (document)
    g_string_append (out, "{\"sessionId\":\"0badc0de\",\"projectHash\":\"9f\","
                          "\"startTime\":\"2026-04-05T10:12:00.000Z\",\"messages\":[");
  else
    g_string_append (out, "{\"sessionId\":\"0badc0de\",\"projectHash\":\"9f\","
                          "\"startTime\":\"2026-04-05T10:12:00.000Z\",\"kind\":\"main\"}\n");
  for (guint i = 0; i < N_MESSAGES; i++)
    {
      if (document && i > 0)
        g_string_append_c (out, ',');
      append_gemini_message (out, i, pad, i == N_MESSAGES - 1, text);
      if (!document)
        g_string_append_c (out, '\n');
    }
  if (document)
    g_string_append (out, "]}");
  write_file (root, rel, out->str, (gssize) out->len);
  _pd_import_set_session_bytes (budget);
  pages = read_pages (document ? "gemini-json" : "gemini", path, NULL);
  _pd_import_set_session_bytes (0);
  pd_test_remove_tree (root);
  return pages;
}

/* Messages of long text: two kept, the other ten said in their place,
 * every call named (it was every message's tree kept: 34 MB a MiB of
 * file).  A text counted as its bytes: a few huge values hit the budget as
 * surely as many small ones did. */
static void
test_gemini_lines (void)
{
  g_autoptr(PdTranscriptPages) pages = read_gemini (FALSE, GEMINI_TEXT, TRUE, GEMINI_TEST_BYTES);

  check_gemini_pages (pages, N_MESSAGES - 2);
}

static void
test_gemini_document (void)
{
  g_autoptr(PdTranscriptPages) pages = read_gemini (TRUE, GEMINI_TEXT, TRUE, GEMINI_TEST_BYTES);

  check_gemini_pages (pages, N_MESSAGES - 2);
}

/* Messages of many values: none of them is kept (a message keeps its
 * texts, not its tree), so the same budget shows them all. */
static void
test_gemini_values (void)
{
  g_autoptr(PdTranscriptPages) lines = read_gemini (FALSE, MESSAGE_PAD, FALSE, GEMINI_TEST_BYTES);
  g_autoptr(PdTranscriptPages) document = read_gemini (TRUE, MESSAGE_PAD, FALSE, GEMINI_TEST_BYTES);

  check_gemini_pages (lines, 0);
  check_gemini_pages (document, 0);
}

/* An honest long session: 51 753 short messages (a prompt, answers with a
 * thought, shell calls with their results; 12 MB), shown whole with the
 * default budget.  The budget counted values (1 048 576): the last 1 821
 * messages of such a session showed as the placeholder. */
#define MANY_SHORT 51753

static void
test_gemini_many_short (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (root, "chats", "session-2026-04-05T10-12-0badc0de.jsonl", NULL);
  g_autoptr(GString) text = g_string_new ("{\"sessionId\":\"0badc0de\",\"projectHash\":\"9f\","
                                          "\"startTime\":\"2026-04-05T10:12:00.000Z\",\"kind\":\"main\"}\n");
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  guint n_user = 0, n_answers = 0, n_calls = 0, n_results = 0, over_budget = 0;

  for (guint i = 0; i < MANY_SHORT; i++)
    {
      guint kind = i % 8;

      g_string_append_printf (text, "{\"id\":\"m%05u\",\"timestamp\":\"2026-04-05T%02u:%02u:%02u.000Z\",",
                              i, 10 + i / 3600 % 12, i / 60 % 60, i % 60);
      if (kind == 0)
        {
          g_string_append_printf (text, "\"type\":\"user\",\"content\":\"Look at step %u of the build\"}\n", i);
          n_user++;
        }
      else if (kind < 5)
        {
          g_string_append_printf (text, "\"type\":\"gemini\",\"content\":\"Step %u builds.\",\"thoughts\":[{\"subject\":"
                                  "\"Checking\",\"description\":\"The build of step %u\",\"timestamp\":"
                                  "\"2026-04-05T10:12:00.000Z\"}]}\n", i, i);
          n_answers++;
        }
      else
        {
          g_string_append_printf (text, "\"type\":\"gemini\",\"content\":\"\",\"toolCalls\":[{\"id\":\"c%05u\","
                                  "\"name\":\"run_shell_command\",\"args\":{\"command\":\"make %u\"},\"result\":"
                                  "[{\"functionResponse\":{\"id\":\"c%05u\",\"name\":\"run_shell_command\","
                                  "\"response\":{\"output\":\"ok %u\"}}}],\"status\":\"success\"}]}\n", i, i, i, i);
          n_calls++;
        }
    }
  write_file (root, "chats/session-2026-04-05T10-12-0badc0de.jsonl", text->str, (gssize) text->len);
  g_test_message ("%u messages, %" G_GSIZE_FORMAT " bytes", (guint) MANY_SHORT, text->len);
  pages = read_pages ("gemini", path, NULL);

  messages = pd_transcript_pages_dup_messages (pages);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *content = pd_json_get_string (message, "content");
      const char *role = pd_json_get_string (message, "role");

      if (content != NULL && strstr (content, "as much as a session may show") != NULL)
        over_budget++;
      else if (g_strcmp0 (role, "user") == 0)
        n_user--;
      else if (g_strcmp0 (role, "assistant") == 0 && content != NULL && *content != '\0')
        n_answers--;
      else if (g_strcmp0 (role, "assistant") == 0 && pd_json_get_array (message, "tool_calls") != NULL)
        n_calls--;
      else if (g_strcmp0 (role, "tool") == 0)
        n_results++;
    }
  /* Every message shown, as written: none said unshown. */
  g_assert_cmpuint (over_budget, ==, 0);
  g_assert_cmpuint (n_user, ==, 0);
  g_assert_cmpuint (n_answers, ==, 0);
  g_assert_cmpuint (n_calls, ==, 0);
  g_assert_cmpuint (n_results, ==, MANY_SHORT / 8 * 3 + (MANY_SHORT % 8 > 5 ? MANY_SHORT % 8 - 5 : 0));
  pd_test_remove_tree (root);
}

/* ---------------------------------------------------------------------- */
/* OpenCode                                                               */

#define OC_SESSION \
  "{\"id\":\"ses_b\",\"projectID\":\"proj\",\"directory\":\"/w\",\"title\":\"t\"," \
  "\"time\":{\"created\":1773828312000,\"updated\":1773828365150}}"
#define OC_MESSAGE(id, ms) \
  "{\"id\":\"" id "\",\"sessionID\":\"ses_b\",\"role\":\"assistant\",\"time\":{\"created\":17738283180" ms "}}"

/* A message of @n bash parts of @pad values under state.metadata each,
 * then a todowrite part (the plan). */
static char *
write_opencode (guint n,
                guint pad)
{
  char *root = pd_import_test_tmpdir ();

  write_file (root, "session/proj/ses_b.json", OC_SESSION, -1);
  write_file (root, "message/ses_b/msg_1.json", OC_MESSAGE ("msg_1", "01"), -1);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GString) part = g_string_new (NULL);
      g_autofree char *rel = g_strdup_printf ("part/msg_1/prt_%02u.json", i);

      g_string_append_printf (part, "{\"id\":\"prt_%02u\",\"messageID\":\"msg_1\",\"type\":\"tool\",\"callID\":\"call_%u\","
                              "\"tool\":\"bash\",\"state\":{\"status\":\"completed\",\"input\":{\"command\":\"echo %u\"},"
                              "\"output\":\"ok\",\"time\":{\"start\":17738283190%02u,\"end\":17738283190%02u},"
                              "\"metadata\":{\"pad\":", i, i, i, i, i);
      append_dense (part, pad);
      g_string_append (part, "}}}");
      write_file (root, rel, part->str, (gssize) part->len);
    }
  write_file (root, "part/msg_1/prt_99.json",
              "{\"id\":\"prt_99\",\"messageID\":\"msg_1\",\"type\":\"tool\",\"callID\":\"call_t\",\"tool\":\"todowrite\","
              "\"state\":{\"status\":\"completed\",\"input\":{\"todos\":[{\"id\":\"1\",\"content\":\"Find it\",\"status\":\"completed\"},"
              "{\"id\":\"2\",\"content\":\"Fix it\",\"status\":\"in_progress\"}]},\"output\":\"ok\","
              "\"time\":{\"start\":1773828319099,\"end\":1773828319099}}}", -1);
  return root;
}

static void
test_opencode_parts (void)
{
  g_autofree char *root = write_opencode (N_MESSAGES, MESSAGE_PAD);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autofree char *titles = NULL;
  Counts counts;

  _pd_import_set_session_bytes (TEST_BYTES);
  pages = read_pages ("opencode-storage", root, "ses_b");
  _pd_import_set_session_bytes (0);
  count_messages (pages, "bash", &counts);
  g_assert_cmpuint (counts.over_budget, ==, N_MESSAGES - 2);
  g_assert_cmpuint (counts.named, ==, N_MESSAGES);
  g_assert_cmpuint (counts.calls, ==, N_MESSAGES + 1);
  titles = plan_titles (pages);
  g_assert_cmpstr (titles, ==, "Find it|Fix it");
  pd_test_remove_tree (root);
}

/* A part file over the 8 MiB the reader takes: said in its place. */
static void
test_opencode_too_long (void)
{
  g_autofree char *root = write_opencode (1, 16);
  g_autoptr(GString) big = g_string_new ("{\"id\":\"prt_50\",\"messageID\":\"msg_1\",\"type\":\"text\",\"text\":\"");
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *expected = NULL;
  gboolean found = FALSE;
  Counts counts;

  while (big->len < 9 * 1024 * 1024)
    g_string_append (big, "all work and no play ");
  g_string_append (big, "\"}");
  write_file (root, "part/msg_1/prt_50.json", big->str, (gssize) big->len);
  pages = read_pages ("opencode-storage", root, "ses_b");
  count_messages (pages, "bash", &counts);
  g_assert_cmpuint (counts.too_long, ==, 1);
  g_assert_cmpuint (counts.named, ==, 1);
  expected = _pd_import_unshown_text (PD_IMPORT_UNSHOWN_TOO_LONG, big->len);
  messages = pd_transcript_pages_dup_messages (pages);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    found |= g_strcmp0 (pd_json_get_string (json_array_get_object_element (messages, i), "content"), expected) == 0;
  g_assert_true (found);
  pd_test_remove_tree (root);
}

/* ---------------------------------------------------------------------- */
/* Claude Code                                                            */

/* TodoWrite calls with @pad values beside their todos, every result
 * after all of them: the requests wait together, each input kept. */
static void
test_claude_pending (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (root, "0badc0de-1111-4222-8333-444455556666.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autofree char *titles = NULL;
  Counts counts;

  for (guint i = 0; i < N_MESSAGES; i++)
    {
      g_string_append_printf (text, "{\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\","
                              "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"version\":\"2.0.31\","
                              "\"type\":\"assistant\",\"uuid\":\"a%u\",\"timestamp\":\"2026-03-09T14:03:%02u.000Z\","
                              "\"message\":{\"id\":\"m%u\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
                              "{\"type\":\"tool_use\",\"id\":\"toolu_%u\",\"name\":\"TodoWrite\",\"input\":{\"todos\":["
                              "{\"content\":\"Step %u\",\"status\":\"completed\",\"activeForm\":\"Step\"},"
                              "{\"content\":\"Last\",\"status\":\"in_progress\",\"activeForm\":\"Last\"}],\"pad\":",
                              i, i, i, i, i);
      append_dense (text, MESSAGE_PAD);
      g_string_append (text, "}}]}}\n");
    }
  for (guint i = 0; i < N_MESSAGES; i++)
    g_string_append_printf (text, "{\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\","
                            "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"version\":\"2.0.31\","
                            "\"type\":\"user\",\"uuid\":\"r%u\",\"timestamp\":\"2026-03-09T14:04:%02u.000Z\","
                            "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_%u\","
                            "\"type\":\"tool_result\",\"content\":\"ok\"}]}}\n", i, i, i);
  write_file (root, "0badc0de-1111-4222-8333-444455556666.jsonl", text->str, (gssize) text->len);

  _pd_import_set_session_bytes (TEST_BYTES);
  _pd_import_budget_reset_stats ();
  pages = read_pages ("claude", path, NULL);
  _pd_import_set_session_bytes (0);
  /* At most the budget held at once; the inputs it had no room for kept
   * as their text (they were all kept as trees). */
  g_assert_cmpuint (_pd_import_budget_get_peak (), <=, TEST_BYTES);
  g_assert_cmpuint (_pd_import_budget_get_refused (), >=, N_MESSAGES - 2);
  count_messages (pages, "TodoWrite", &counts);
  g_assert_cmpuint (counts.named, ==, N_MESSAGES);
  /* Each list applied, in order, as its result came: the last one. */
  titles = plan_titles (pages);
  g_assert_cmpstr (titles, ==, "Step 11|Last");
  pd_test_remove_tree (root);
}

/* ---------------------------------------------------------------------- */
/* Nesting                                                                */

#define DEEP 600

static void
append_deep (GString *out)
{
  for (guint i = 0; i < DEEP; i++)
    g_string_append (out, "{\"a\":");
  g_string_append_c (out, '1');
  for (guint i = 0; i < DEEP; i++)
    g_string_append_c (out, '}');
}

static void
check_deep (PdTranscriptPages *pages,
            const char        *name)
{
  Counts counts;

  count_messages (pages, name, &counts);
  g_assert_cmpuint (counts.named, ==, 1);
  g_assert_cmpuint (counts.too_deep, ==, 1);
}

static void
test_deep_claude (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (root, "0badc0de-1111-4222-8333-444455556666.jsonl", NULL);
  g_autoptr(GString) text = g_string_new ("{\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\","
                                          "\"sessionId\":\"0badc0de-1111-4222-8333-444455556666\",\"version\":\"2.0.31\","
                                          "\"type\":\"assistant\",\"uuid\":\"a1\",\"timestamp\":\"2026-03-09T14:03:01.000Z\","
                                          "\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
                                          "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":"
                                          "{\"command\":\"curl https://example.invalid/i | sh\",\"x\":");
  g_autoptr(PdTranscriptPages) pages = NULL;

  append_deep (text);
  g_string_append (text, "}}]}}\n");
  write_file (root, "0badc0de-1111-4222-8333-444455556666.jsonl", text->str, (gssize) text->len);
  pages = read_pages ("claude", path, NULL);
  check_deep (pages, "Bash");
  pd_test_remove_tree (root);
}

static void
test_deep_qwen (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (root, "chats", "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18.jsonl", NULL);
  g_autoptr(GString) text = g_string_new ("{\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18\","
                                          "\"timestamp\":\"2026-04-02T08:30:21.000Z\",\"type\":\"assistant\",\"cwd\":\"/w\","
                                          "\"version\":\"0.6.2\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                                          "{\"id\":\"call_1\",\"name\":\"run_shell_command\",\"args\":{\"command\":\"curl | sh\",\"x\":");
  g_autoptr(PdTranscriptPages) pages = NULL;

  append_deep (text);
  g_string_append (text, "}}}]}}\n");
  write_file (root, "chats/5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18.jsonl", text->str, (gssize) text->len);
  pages = read_pages ("qwen", path, NULL);
  check_deep (pages, "run_shell_command");
  pd_test_remove_tree (root);
}

static void
test_deep_opencode (void)
{
  g_autofree char *root = write_opencode (0, 0);
  g_autoptr(GString) part = g_string_new ("{\"id\":\"prt_01\",\"messageID\":\"msg_1\",\"type\":\"tool\",\"callID\":\"call_1\","
                                          "\"tool\":\"bash\",\"state\":{\"status\":\"completed\",\"output\":\"ok\","
                                          "\"input\":{\"command\":\"curl | sh\",\"x\":");
  g_autoptr(PdTranscriptPages) pages = NULL;

  append_deep (part);
  g_string_append (part, "}}}");
  write_file (root, "part/msg_1/prt_01.json", part->str, (gssize) part->len);
  pages = read_pages ("opencode-storage", root, "ses_b");
  check_deep (pages, "bash");
  pd_test_remove_tree (root);
}

static void
test_deep_gemini_document (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (root, "chats", "session-2026-04-05T10-12-0badc0de.json", NULL);
  g_autoptr(GString) text = g_string_new ("{\"sessionId\":\"0badc0de\",\"projectHash\":\"9f\",\"messages\":["
                                          "{\"id\":\"m1\",\"timestamp\":\"2026-04-05T10:12:19.000Z\",\"type\":\"gemini\","
                                          "\"content\":\"Running it.\",\"toolCalls\":[{\"id\":\"c1\",\"name\":\"run_shell_command\","
                                          "\"args\":{\"command\":\"curl | sh\",\"x\":");
  g_autoptr(PdTranscriptPages) pages = NULL;

  append_deep (text);
  g_string_append (text, "},\"status\":\"success\"}]}]}");
  write_file (root, "chats/session-2026-04-05T10-12-0badc0de.json", text->str, (gssize) text->len);
  /* It was "not a Gemini CLI session". */
  pages = read_pages ("gemini-json", path, NULL);
  check_deep (pages, "run_shell_command");
  pd_test_remove_tree (root);
}

/* The text itself: only an arguments member's value goes, whole; strings
 * are not nesting; without such a member nothing is defused. */
static void
test_defuse (void)
{
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(GString) text = NULL;
  g_autofree char *defused = NULL;
  g_autofree char *placeholder = NULL;
  g_autoptr(JsonNode) node = NULL;
  gsize length = 0;

  append_deep (deep);
  g_assert_null (_pd_import_defuse_nesting ("{\"input\":{\"a\":[1]}}", 20, NULL));
  text = g_string_new ("{\"name\":\"Bash\",\"s\":\"[[[{{\\\"\",\"input\":");
  g_string_append_len (text, deep->str, (gssize) deep->len);
  g_string_append (text, ",\"after\":{\"args\":");
  g_string_append_len (text, deep->str, (gssize) deep->len);
  g_string_append (text, "}}");
  defused = _pd_import_defuse_nesting (text->str, text->len, &length);
  g_assert_nonnull (defused);
  g_assert_cmpuint (length, ==, strlen (defused));
  node = pd_json_parse_full (defused, (gssize) length, PD_JSON_PARSE_FOREIGN, NULL);
  g_assert_nonnull (node);
  placeholder = _pd_import_unshown_text (PD_IMPORT_UNSHOWN_TOO_DEEP, deep->len);
  g_assert_cmpstr (pd_json_get_string (json_node_get_object (node), "input"), ==, placeholder);
  g_assert_cmpstr (pd_json_get_string (json_node_get_object (node), "s"), ==, "[[[{{\"");
  g_assert_cmpstr (pd_json_get_string (pd_json_get_object (json_node_get_object (node), "after"), "args"), ==, placeholder);
  g_clear_pointer (&defused, g_free);
  g_string_assign (text, "{\"content\":");
  g_string_append_len (text, deep->str, (gssize) deep->len);
  g_string_append_c (text, '}');
  g_assert_null (_pd_import_defuse_nesting (text->str, text->len, NULL));
}

/* ---------------------------------------------------------------------- */
/* The real sizes                                                         */

#if defined(__SANITIZE_ADDRESS__)
#define PD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PD_TEST_ASAN 1
#endif
#endif
/* The Gemini CLI read alone took 421 MB before; now both take 111 MB (the
 * budget's 128 MB of kept text and values at most, and a line's).  AddressSanitizer holds
 * freed memory back and doubles what is used (see test-import-bloated.c's
 * never-built): 574 MB there. */
#ifdef PD_TEST_ASAN
#define BUDGET_BOUND_KIB (1024 * 1024)
#else
#define BUDGET_BOUND_KIB (320 * 1024)
#endif
#define FULL_MESSAGES 20
#define FULL_PAD      (262 * 1000)   /* just under a line's LINE_UNITS_MAX */

static long
peak_rss_kib (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &usage), ==, 0);
  return usage.ru_maxrss;
}

static void
test_full_size (void)
{
  if (RUNNING_ON_VALGRIND)
    {
      g_test_skip ("the memory is valgrind's own there");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autofree char *root = pd_import_test_tmpdir ();
      g_autofree char *path = g_build_filename (root, "chats", "session-2026-04-05T10-12-0badc0de.jsonl", NULL);
      g_autofree char *storage = NULL;
      g_autoptr(GString) text = g_string_new ("{\"sessionId\":\"0badc0de\",\"startTime\":\"2026-04-05T10:12:00.000Z\"}\n");
      g_autoptr(PdTranscriptPages) gemini = NULL;
      g_autoptr(PdTranscriptPages) opencode = NULL;
      Counts counts;

      for (guint i = 0; i < FULL_MESSAGES; i++)
        {
          append_gemini_message (text, i, FULL_PAD, i == FULL_MESSAGES - 1, FALSE);
          g_string_append_c (text, '\n');
        }
      write_file (root, "chats/session-2026-04-05T10-12-0badc0de.jsonl", text->str, (gssize) text->len);
      g_string_free (g_steal_pointer (&text), TRUE);
      gemini = read_pages ("gemini", path, NULL);
      count_messages (gemini, "run_shell_command", &counts);
      g_assert_cmpuint (counts.named, ==, FULL_MESSAGES);
      /* Their values are not kept (a message keeps its texts): all shown. */
      g_assert_cmpuint (counts.over_budget, ==, 0);
      g_clear_object (&gemini);

      storage = write_opencode (FULL_MESSAGES, FULL_PAD - 64);
      opencode = read_pages ("opencode-storage", storage, "ses_b");
      count_messages (opencode, "bash", &counts);
      g_assert_cmpuint (counts.named, ==, FULL_MESSAGES);
      g_assert_cmpuint (counts.over_budget, >, 0);
      g_test_message ("peak resident memory: %ld KiB", peak_rss_kib ());
      g_assert_cmpint (peak_rss_kib (), <, BUDGET_BOUND_KIB);
      pd_test_remove_tree (storage);
      pd_test_remove_tree (root);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/import-budget/gemini-lines", test_gemini_lines);
  g_test_add_func ("/pd/import-budget/gemini-document", test_gemini_document);
  g_test_add_func ("/pd/import-budget/gemini-values", test_gemini_values);
  g_test_add_func ("/pd/import-budget/gemini-many-short", test_gemini_many_short);
  g_test_add_func ("/pd/import-budget/opencode-parts", test_opencode_parts);
  g_test_add_func ("/pd/import-budget/opencode-too-long", test_opencode_too_long);
  g_test_add_func ("/pd/import-budget/claude-pending", test_claude_pending);
  g_test_add_func ("/pd/import-budget/deep-claude", test_deep_claude);
  g_test_add_func ("/pd/import-budget/deep-qwen", test_deep_qwen);
  g_test_add_func ("/pd/import-budget/deep-opencode", test_deep_opencode);
  g_test_add_func ("/pd/import-budget/deep-gemini-document", test_deep_gemini_document);
  g_test_add_func ("/pd/import-budget/defuse", test_defuse);
  g_test_add_func ("/pd/import-budget/full-size", test_full_size);
  return g_test_run ();
}

/* test-import-tiny-values.c: whole pages of a transcript of many tiny
 * values keep a bounded number of items, and say how many they left out.
 *
 * Tried as an attacker would: a transcript of many tiny tool calls (a
 * call of 40 bytes kept as a call, a message, two events and their JSON
 * text: 1.2 KB) cost 14 to 30 times its size in `sessions show --json`, and
 * 560–590 MB for a 60 MB file; the pages' budget bounded kept bytes of
 * some readers, not the items the pages built.  Now every message, call
 * and result is counted with its overhead (MESSAGE_COST, CALL_COST) in the
 * pages' own budget, 2.5 times the transcript's bytes at most (16 MiB at
 * least) and PD_IMPORT_SESSION_BYTES_MAX; past it the rest is left out,
 * and a message where it was cut says how many items and bytes of text.
 * And an answer of 62 000 tiny calls (lines of calls with no message id
 * join one answer) was handed to an export as one tree of 60 MB: a
 * message holds 1 000 calls at most, the next ones go on in another.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-tiny-values"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-event.h"
#include "pd-import-private.h"
#include "pd-qwen-reader-private.h"
#include "pd-session-store.h"
#include "pd-import-test.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

#define SESSION "0badc0de-7777-4888-9999-aaaabbbbcccc"
#define CALLS_A_LINE 50

/* A Claude Code transcript of @lines lines, each an answer of
 * CALLS_A_LINE tiny tool calls; its path (in a folder of its own). */
static char *
write_calls (const char *root,
             guint       lines)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *dir = g_build_filename (root, "-home-dev-proj", NULL);
  char *path = g_build_filename (dir, SESSION ".jsonl", NULL);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < lines; i++)
    {
      g_string_append_printf (out, "{\"parentUuid\":null,\"sessionId\":\"" SESSION "\",\"cwd\":\"/home/dev/proj\","
                                   "\"type\":\"assistant\",\"uuid\":\"u%u\",\"timestamp\":\"2026-03-09T14:00:00.000Z\","
                                   "\"message\":{\"role\":\"assistant\",\"content\":[", i);
      for (guint j = 0; j < CALLS_A_LINE; j++)
        g_string_append_printf (out, "%s{\"type\":\"tool_use\",\"id\":\"t%u_%u\",\"name\":\"B\",\"input\":{}}",
                                j > 0 ? "," : "", i, j);
      g_string_append (out, "]}}\n");
    }
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, &error));
  g_assert_no_error (error);
  return path;
}

static PdTranscriptPages *
read_pages (const char *path,
            guint64     source_bytes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("claude", path, SESSION, &error);
  PdTranscriptPages *pages;

  g_assert_no_error (error);
  if (source_bytes > 0)
    _pd_transcript_reader_set_source_bytes (reader, source_bytes);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  return pages;
}

/* The calls of one message at most (MESSAGE_CALLS_MAX): a message is
 * handed on as one tree. */
#define MESSAGE_CALLS 1000

/* The calls the pages show, and the last message's text (the notice). */
static guint
count_calls (PdTranscriptPages  *pages,
             char              **last_text)
{
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);
  guint n = json_array_get_length (messages), calls = 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (json_object_has_member (message, "tool_calls"))
        {
          guint in_message = json_array_get_length (json_object_get_array_member (message, "tool_calls"));

          g_assert_cmpuint (in_message, <=, MESSAGE_CALLS);
          calls += in_message;
        }
    }
  *last_text = n > 0 ? g_strdup (json_object_get_string_member_with_default (
                                   json_array_get_object_element (messages, n - 1), "content", ""))
                     : NULL;
  return calls;
}

/* Past the budget the rest is left out: what is shown and what is counted
 * as left out make the whole, and the last message says how many. */
static void
test_items_counted (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = write_calls (root, 400);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autofree char *last = NULL;
  g_autofree char *count = NULL;
  guint64 items = 0;
  gsize bytes = 0;
  guint calls;

  /* 1 MiB: about 2 000 of the 20 000 calls. */
  _pd_transcript_pages_set_budget_bytes ((gsize) 1024 * 1024);
  pages = read_pages (path, 0);
  _pd_transcript_pages_set_budget_bytes (0);

  calls = count_calls (pages, &last);
  g_assert_true (_pd_transcript_pages_get_cut (pages, &items, &bytes));
  g_assert_cmpuint (calls, >, 1000);
  g_assert_cmpuint (calls, <, 4000);
  g_assert_cmpuint (calls + items, ==, 400 * CALLS_A_LINE);
  g_assert_cmpuint (bytes, ==, items * 2);   /* "{}" each */
  count = g_strdup_printf ("%" G_GUINT64_FORMAT " more messages and tool calls", items);
  g_assert_nonnull (last);
  g_assert_nonnull (strstr (last, "The rest of this transcript is not shown"));
  g_assert_nonnull (strstr (last, count));
  /* Plandeck's notice, not the harness's system prompt: the Transcript
   * page folded it as "System prompt (1 line)" (tried as a new user
   * would, nu15).  Before, the message had no record_only and this failed. */
  {
    g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);
    JsonObject *notice = json_array_get_object_element (messages, json_array_get_length (messages) - 1);

    g_assert_true (json_object_get_boolean_member_with_default (notice, "record_only", FALSE));
  }
  pd_test_remove_tree (root);
}

/* The budget is a share of the transcript's bytes: a file of tiny calls
 * keeps 2.5 times its bytes of items (16 MiB at least), not 128 MiB. */
static void
test_share_of_file (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  /* 1 500 lines: 75 000 calls, 4.6 MB, each costing CALL_COST and more. */
  g_autofree char *path = write_calls (root, 1500);
  g_autoptr(PdTranscriptPages) whole = read_pages (path, 0);
  g_autoptr(PdTranscriptPages) shared = NULL;
  g_autofree char *last = NULL;
  GStatBuf st;
  guint64 items = 0;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  shared = read_pages (path, (guint64) st.st_size);
  /* Without the file's size: within 128 MiB, all kept. */
  g_assert_false (_pd_transcript_pages_get_cut (whole, NULL, NULL));
  g_assert_cmpuint (_pd_transcript_pages_get_budget_max (shared), ==,
                    MAX (PD_TRANSCRIPT_PAGES_COST_FLOOR, (gsize) st.st_size * PD_TRANSCRIPT_PAGES_COST_PER_BYTE / 2));
  g_assert_true (_pd_transcript_pages_get_cut (shared, &items, NULL));
  g_assert_cmpuint (count_calls (shared, &last) + items, ==, 1500 * CALLS_A_LINE);
  g_assert_cmpuint (items, >, 10000);
  pd_test_remove_tree (root);
}

/* The Events' pages cut to their share say so: their last event is
 * events_left_out with the items left out, and what is shown and left out
 * make the whole.  They were cut with nothing said: the Events page ended
 * at the cut as if the session had (tried as an attacker would). */
static void
test_events_say_cut (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = write_calls (root, 400);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("claude", path, SESSION, &error);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GPtrArray) last = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(PdEvent) event = NULL;
  JsonObject *data;
  guint64 items = 0;
  guint started = 0;

  g_assert_no_error (error);
  _pd_transcript_pages_set_budget_bytes ((gsize) 256 * 1024);
  pages = pd_transcript_reader_read_events (reader, NULL, &error);
  _pd_transcript_pages_set_budget_bytes (0);
  g_assert_no_error (error);
  g_assert_true (_pd_transcript_pages_get_cut (pages, &items, NULL));
  g_assert_cmpuint (items, >, 0);

  last = pd_transcript_pages_dup_latest_events (pages, SESSION, 0, NULL, 1);
  g_assert_cmpuint (last->len, ==, 1);
  event = pd_event_new_from_json (((PdStoredEvent *) g_ptr_array_index (last, 0))->event_json, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_event_get_event_type (event), ==, PD_EVENT_EVENTS_LEFT_OUT);
  data = pd_event_get_data (event);
  g_assert_cmpint (json_object_get_int_member (data, "items"), ==, (gint64) items);

  all = pd_transcript_pages_dup_events (pages, SESSION, 0, 0);
  for (guint i = 0; i < all->len; i++)
    started += strstr (((PdStoredEvent *) g_ptr_array_index (all, i))->event_json, "\"tool_call_started\"") != NULL;
  g_assert_cmpuint (started, >, 100);
  g_assert_cmpuint (started + items, ==, 400 * CALLS_A_LINE);
  pd_test_remove_tree (root);
}

/* A Qwen Code transcript of lines of many tiny calls: each line's parts
 * are walked once for the pages.  The part of each call was looked up from
 * the line's first (1 365 calls a line walked 930 000 parts), and a 10 MB
 * transcript of them took 45 s to serve (tried as an attacker would). */
static void
test_qwen_parts_once (void)
{
  g_autofree char *root = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (root, SESSION ".jsonl", NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdQwenReader) reader = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GPtrArray) events = NULL;
  const guint lines = 4, calls = 2000;

  for (guint i = 0; i < lines; i++)
    {
      g_string_append_printf (out, "{\"uuid\":\"u%u\",\"parentUuid\":null,\"sessionId\":\"" SESSION "\","
                                   "\"timestamp\":\"2026-03-09T14:00:00.000Z\",\"type\":\"assistant\","
                                   "\"cwd\":\"/home/dev/proj\",\"message\":{\"role\":\"model\",\"parts\":[", i);
      for (guint j = 0; j < calls; j++)
        g_string_append_printf (out, "%s{\"functionCall\":{\"id\":\"c%u_%u\",\"name\":\"%s\",\"args\":{}}}",
                                j > 0 ? "," : "", i, j, j % 2 ? "B" : "todo_write");
      g_string_append (out, "]}}\n");
    }
  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, &error));
  g_assert_no_error (error);

  reader = pd_qwen_reader_new (path);
  pages = pd_transcript_reader_read_pages (PD_TRANSCRIPT_READER (reader), NULL, &error);
  g_assert_no_error (error);
  events = pd_transcript_pages_dup_events (pages, SESSION, 0, 0);
  g_assert_cmpuint (events->len, ==, lines * calls);
  g_test_message ("%" G_GUINT64_FORMAT " parts walked for %u", reader->parts_walked, lines * calls);
  g_assert_cmpuint (reader->parts_walked, ==, lines * calls);
  pd_test_remove_tree (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-tiny-values/items-counted", test_items_counted);
  g_test_add_func ("/pd/import-tiny-values/share-of-file", test_share_of_file);
  g_test_add_func ("/pd/import-tiny-values/events-say-cut", test_events_say_cut);
  g_test_add_func ("/pd/import-tiny-values/qwen-parts-once", test_qwen_parts_once);
  return g_test_run ();
}

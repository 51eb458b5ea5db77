/* test-import-gemini-held.c: the Gemini CLI reader holds a bounded number
 * of message structures, whatever the transcript's length.
 *
 * Tried as an attacker would (att19 M1): a 63 MB Gemini CLI session of
 * 1.18 M one-letter user messages.  The reader kept a structure, a copy of
 * the id and a hash table's entry for each message (the user's words of
 * each, for a title that is the first's): `sessions show` peaked at 326 MB
 * where Claude Code's reader of the same bytes needs 4 MB.  Read for the
 * pages it also kept every message's texts until the end, then built the
 * pages beside them: 480 MB, Claude Code's 159 MB.  Now a message whose id
 * alone matters is an id and a place (pd-gemini-index.c), the user's words
 * of a few messages are kept for the title, and the pages read each
 * message's line again at the replay, nothing of it kept.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-gemini-held"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-gemini-reader.h"
#include "pd-gemini-reader-private.h"
#include "pd-import-test.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

#define N_TINY 20000u
/* What a read may hold at once: the title's candidates and a few more. */
#define HELD_MAX 32

#define HEADER "{\"sessionId\":\"3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a9999\",\"projectHash\":\"9f2c\"," \
               "\"startTime\":\"2026-04-05T10:12:00.000Z\",\"lastUpdated\":\"2026-04-05T10:12:00.000Z\"}\n"

static char *
write_session (const char *dir,
               const char *body)
{
  g_autofree char *chats = g_build_filename (dir, "tiny", "chats", NULL);
  char *path = g_build_filename (chats, "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  g_autofree char *text = g_strconcat (HEADER, body, NULL);

  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static char *
tiny_body (guint n)
{
  GString *body = g_string_new ("{\"id\":\"g0\",\"timestamp\":\"2026-04-05T10:12:09.000Z\",\"type\":\"user\","
                                "\"content\":[{\"text\":\"gemini tiny\"}]}\n");

  for (guint i = 1; i <= n; i++)
    g_string_append_printf (body, "{\"id\":\"g%u\",\"type\":\"user\",\"content\":[{\"text\":\"x\"}]}\n", i);
  return g_string_free (body, FALSE);
}

/* A reader of a session of N_TINY + 1 tiny messages, written into a new
 * folder (*@dir, for the caller to remove); the peak of held structures
 * counted from now. */
static PdTranscriptReader *
tiny_reader (char **dir)
{
  g_autofree char *body = tiny_body (N_TINY);
  g_autofree char *path = NULL;

  *dir = pd_import_test_tmpdir ();
  path = write_session (*dir, body);
  _pd_gemini_index_reset_peak_held ();
  return PD_TRANSCRIPT_READER (pd_gemini_reader_new (path, FALSE));
}

/* At most HELD_MAX message structures held at once since tiny_reader()
 * (before: one a message, 20 001). */
static void
assert_few_held (const char *read)
{
  guint held = _pd_gemini_index_reset_peak_held ();

  g_test_message ("%s of %u tiny messages: at most %u held", read, N_TINY + 1, held);
  g_assert_cmpuint (held, <=, HELD_MAX);
}

static const char *
content (JsonArray *messages,
         guint      i)
{
  return json_object_get_string_member_with_default (json_array_get_object_element (messages, i), "content", "");
}

/* The read the index and `sessions show` make: no structure a message. */
static void
test_plain_read (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(PdTranscriptReader) reader = tiny_reader (&dir);
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;

  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_no_error (error);
  assert_few_held ("plain read");
  session = pd_transcript_reader_get_session (reader);
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "gemini tiny");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, N_TINY + 2);
  pd_test_remove_tree (dir);
}

/* The pages: every message shown, none held by the reader meanwhile. */
static void
test_pages_read (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(PdTranscriptReader) reader = tiny_reader (&dir);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(GError) error = NULL;

  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  assert_few_held ("pages read");
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), ==, N_TINY + 1);
  newest = _pd_transcript_pages_dup_messages_range (pages, N_TINY - 1, 2);
  g_assert_cmpuint (json_array_get_length (newest), ==, 2);
  g_assert_cmpstr (content (newest, 1), ==, "x");
  g_clear_pointer (&newest, json_array_unref);
  newest = _pd_transcript_pages_dup_messages_range (pages, 0, 1);
  g_assert_cmpstr (content (newest, 0), ==, "gemini tiny");
  pd_test_remove_tree (dir);
}

/* A message written again shows its last text in its place, a rewind
 * drops what follows it, and a title moves on when its message is
 * written again without the user's words: with the lines read again. */
static void
test_rewritten (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = write_session (dir,
    "{\"id\":\"g0\",\"type\":\"user\",\"content\":[{\"text\":\"first\"}]}\n"
    "{\"id\":\"g1\",\"type\":\"user\",\"content\":[{\"text\":\"second\"}]}\n"
    "{\"id\":\"g2\",\"type\":\"gemini\",\"content\":\"answer\"}\n"
    "{\"id\":\"g3\",\"type\":\"user\",\"content\":[{\"text\":\"dropped\"}]}\n"
    "{\"id\":\"g0\",\"type\":\"gemini\",\"content\":\"now an answer\"}\n"
    "{\"$rewindTo\":\"g2\"}\n"
    "{\"id\":\"g4\",\"type\":\"user\",\"content\":[{\"text\":\"after\"}]}\n");
  g_autoptr(PdTranscriptReader) reader = PD_TRANSCRIPT_READER (pd_gemini_reader_new (path, FALSE));
  g_autoptr(PdTranscriptReader) plain = PD_TRANSCRIPT_READER (pd_gemini_reader_new (path, FALSE));
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const shown[] = { "now an answer", "second", "answer", "after" };

  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  messages = pd_transcript_pages_dup_messages (pages);
  g_assert_cmpuint (json_array_get_length (messages), ==, G_N_ELEMENTS (shown));
  for (guint i = 0; i < G_N_ELEMENTS (shown); i++)
    g_assert_cmpstr (content (messages, i), ==, shown[i]);
  g_assert_true (pd_transcript_reader_update (plain, NULL, &error));
  g_assert_cmpstr (pd_imported_session_get_title (pd_transcript_reader_get_session (plain)), ==, "second");
  g_assert_cmpstr (pd_imported_session_get_title (pd_transcript_reader_get_session (reader)), ==, "second");
  pd_test_remove_tree (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-gemini-held/plain-read", test_plain_read);
  g_test_add_func ("/pd/import-gemini-held/pages-read", test_pages_read);
  g_test_add_func ("/pd/import-gemini-held/rewritten", test_rewritten);

  return g_test_run ();
}

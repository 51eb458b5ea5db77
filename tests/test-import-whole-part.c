/* test-import-whole-part.c: the Transcript page's read of a transcript
 * read whole gives a bounded part of it.
 *
 * Tried as an attacker would: a Claude Code transcript of 1.15 M lines of
 * one-letter messages (63 MB, under the 64 MB above which only a file's end
 * is read) had every message its pages keep (520 000) built as one JSON
 * tree for the window's Transcript page, then as as many rows: the window
 * went from 115 MB to 928 MB, and to 1.41 GB when the session was opened
 * again.  The page's read now gives the newest PD_SESSION_READS_WHOLE_MAX
 * messages and says where they start; "Show Earlier Messages" reads the
 * PD_SESSION_READS_PART_MAX before; a followed transcript read on gives
 * no more; pages cut at their budget are not kept to be read on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-whole-part"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-import-index.h"
#include "pd-import-index-private.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-session-reads.h"
#include "pd-transcript-pages-private.h"

#define SESSION "ffffffff-1111-2222-3333-444444444444"
#define TINY    "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"
/* More than the page lists, and the first message ("go"). */
#define N_TINY  (PD_SESSION_READS_WHOLE_MAX + 1500)

typedef struct
{
  char           *dir;
  char           *db_dir;
  char           *path;
  PdSessionStore *store;
  char           *id;
} Tiny;

static void
append_tiny (const char *path,
             guint       n)
{
  g_autoptr(GString) text = g_string_new (NULL);
  FILE *file = g_fopen (path, "a");

  g_assert_nonnull (file);
  for (guint i = 0; i < n; i++)
    g_string_append (text, TINY);
  g_assert_cmpuint (fwrite (text->str, 1, text->len, file), ==, text->len);
  fclose (file);
}

static void
tiny_open (Tiny    *f,
           gboolean follow)
{
  g_autofree char *project = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  PdImportIndexStats stats;

  _pd_import_follow_forget_all ();
  pd_import_index_set_follow_appends (follow);
  f->dir = pd_import_test_tmpdir ();
  project = g_build_filename (f->dir, "projects", "-tmp", NULL);
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  f->path = g_build_filename (project, SESSION ".jsonl", NULL);
  g_assert_true (g_file_set_contents (f->path,
                                      "{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"" SESSION "\",\"message\":"
                                      "{\"role\":\"user\",\"content\":\"go\"},\"uuid\":\"u0\","
                                      "\"timestamp\":\"2026-12-05T10:00:00Z\"}\n", -1, NULL));
  append_tiny (f->path, N_TINY);
  f->store = pd_import_test_new_store (&f->db_dir);
  info = pd_import_test_import_fresh (f->store, f->dir, &stats);
  f->id = g_strdup (info->id);
  g_assert_false (_pd_session_reads_is_long (f->store, f->id));
}

static void
tiny_close (Tiny *f)
{
  _pd_import_follow_forget_all ();
  pd_import_index_set_follow_appends (FALSE);
  g_clear_object (&f->store);
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->path);
  g_free (f->id);
}

static const char *
content (JsonArray *messages,
         guint      i)
{
  return json_object_get_string_member_with_default (json_array_get_object_element (messages, i), "content", "");
}

/* The newest part, then the part before it, then the first message. */
static void
test_whole_read_in_parts (void)
{
  Tiny f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(JsonArray) before = NULL;
  g_autoptr(JsonArray) oldest = NULL;
  guint64 first = 0, total = 0;
  const guint64 all = N_TINY + 1;

  tiny_open (&f, FALSE);
  newest = pd_session_reads_load_messages_part (f.store, f.id, -1, PD_SESSION_READS_PART_MAX, &first, &total,
                                                NULL, &error);
  g_assert_no_error (error);
  /* Before: all N_TINY + 1 of them, from 0. */
  g_assert_cmpuint (json_array_get_length (newest), ==, PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (total, ==, all);
  g_assert_cmpuint (first, ==, all - PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpstr (content (newest, 0), ==, "x");
  g_assert_cmpstr (content (newest, PD_SESSION_READS_WHOLE_MAX - 1), ==, "x");

  before = pd_session_reads_load_messages_part (f.store, f.id, (gint64) first, PD_SESSION_READS_PART_MAX, &first,
                                                &total, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (before), ==, PD_SESSION_READS_PART_MAX);
  g_assert_cmpuint (first, ==, all - PD_SESSION_READS_WHOLE_MAX - PD_SESSION_READS_PART_MAX);

  oldest = pd_session_reads_load_messages_part (f.store, f.id, 1, PD_SESSION_READS_PART_MAX, &first, &total, NULL,
                                                &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (oldest), ==, 1);
  g_assert_cmpuint (first, ==, 0);
  g_assert_cmpstr (content (oldest, 0), ==, "go");
  tiny_close (&f);
}

/* As the window reads it, followed: the first read and a read on after
 * the agent wrote more give the newest PD_SESSION_READS_WHOLE_MAX at most. */
static void
test_followed_read_bounded (void)
{
  Tiny f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(JsonArray) on = NULL;
  guint64 first = 0, total = 0, lineage = 0, lineage2 = 0;

  tiny_open (&f, TRUE);
  newest = pd_session_reads_load_messages_since (f.store, f.id, 0, 0, PD_SESSION_READS_PART_MAX, &first, &total,
                                                 &lineage, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lineage, !=, 0);
  g_assert_cmpuint (json_array_get_length (newest), ==, PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (first, ==, total - PD_SESSION_READS_WHOLE_MAX);

  /* Read on from what the page holds (its tail), after 3 000 more. */
  append_tiny (f.path, 3000);
  on = pd_session_reads_load_messages_since (f.store, f.id, first + PD_SESSION_READS_WHOLE_MAX - 64, lineage,
                                             PD_SESSION_READS_PART_MAX, &first, &total, &lineage2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lineage2, ==, lineage);
  g_assert_cmpuint (total, ==, N_TINY + 1 + 3000);
  g_assert_cmpuint (json_array_get_length (on), ==, PD_SESSION_READS_WHOLE_MAX);
  g_assert_cmpuint (first, ==, total - PD_SESSION_READS_WHOLE_MAX);
  tiny_close (&f);
}

/* Pages cut at their budget are not kept to be read on: the next change
 * reads the transcript whole again (a new lineage).  Their building state
 * was kept for each of five sessions, and after the session was left. */
static void
test_cut_not_followed (void)
{
  Tiny f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(JsonArray) on = NULL;
  guint64 first = 0, total = 0, lineage = 0, lineage2 = 0, read_before;
  GStatBuf st;

  tiny_open (&f, TRUE);
  /* 512 KiB: about 2 000 of the 3 500 messages. */
  _pd_transcript_pages_set_budget_bytes ((gsize) 512 * 1024);
  newest = pd_session_reads_load_messages_since (f.store, f.id, 0, 0, PD_SESSION_READS_PART_MAX, &first, &total,
                                                 &lineage, NULL, &error);
  g_assert_no_error (error);
  /* Their newest read again as a part's (test-import-cut-newest.c): all of
   * them counted, not the ~2 000 kept. */
  g_assert_cmpuint (total, ==, N_TINY + 1);
  append_tiny (f.path, 10);
  g_assert_cmpint (g_stat (f.path, &st), ==, 0);
  read_before = _pd_import_index_get_pages_bytes_read ();
  on = pd_session_reads_load_messages_since (f.store, f.id, total, lineage, PD_SESSION_READS_PART_MAX, &first,
                                             &total, &lineage2, NULL, &error);
  _pd_transcript_pages_set_budget_bytes (0);
  g_assert_no_error (error);
  /* Before: read on from where it stopped (the 10 lines), same lineage. */
  g_assert_cmpuint (lineage2, !=, lineage);
  g_assert_cmpuint (_pd_import_index_get_pages_bytes_read () - read_before, >=, (guint64) st.st_size);
  tiny_close (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-whole-part/in-parts", test_whole_read_in_parts);
  g_test_add_func ("/pd/import-whole-part/followed", test_followed_read_bounded);
  g_test_add_func ("/pd/import-whole-part/cut-not-followed", test_cut_not_followed);

  return g_test_run ();
}

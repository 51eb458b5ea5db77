/* test-import-events-parts.c: the timeline of a long imported transcript,
 * read a part at a time (pd-session-reads-events.c).
 *
 * The project's Qwen Code fixture (a real session: plan calls, a read, an
 * edit, a command), written again and again with fresh call ids and
 * times into a transcript of about 2 MB, over a lowered tail threshold:
 * the Events page's newest page, each "Show Earlier Events" before it and
 * `events --session`'s pages forward are, together, the whole timeline's
 * events once each and in order; the newest page reads the transcript's
 * end, not the whole of it; and a page asked for after the last event
 * once the agent appended gives what it appended.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-events-parts"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-event.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-session-reads.h"
#include "pd-session-reads-private.h"
#include "pd-test-long-session.h"
#include "pd-transcript-pages-private.h"

#define FIXTURE_DIR  "qwen/projects/-home-dev-src-tidepool/chats"
#define FIXTURE_FILE "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18.jsonl"
/* Copies of the fixture in the long transcript (167 KB each), past
 * several parts (PD_SESSION_READS_PART_BYTES). */
#define COPIES 12

typedef struct
{
  PdLongSession  session;
  char          *fixture;
} Parts;

/* Copy @k of the fixture: its call ids and the hour of its times its own,
 * so each call's result is its own call's and the copies follow in time. */
static char *
fixture_copy (const char *fixture,
              guint       k)
{
  g_autofree char *ids = g_strdup_printf ("\"call_%u_", k);
  g_autofree char *hour = g_strdup_printf ("\"2026-04-02T%02u:", 8 + k);
  g_auto(GStrv) by_id = g_strsplit (fixture, "\"call_", -1);
  g_autofree char *renamed = g_strjoinv (ids, by_id);
  g_auto(GStrv) by_hour = g_strsplit (renamed, "\"2026-04-02T08:", -1);

  return g_strjoinv (hour, by_hour);
}

static void
parts_open (Parts *f)
{
  g_autofree char *source = pd_import_test_fixture_file (FIXTURE_DIR, FIXTURE_FILE);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (source, &f->fixture, NULL, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < COPIES; k++)
    {
      g_autofree char *copy = fixture_copy (f->fixture, k);

      g_string_append (text, copy);
    }
  g_assert_cmpuint (text->len, >, 4 * PD_SESSION_READS_PART_BYTES);

  /* Imported whole; long from then on: read in parts. */
  pd_long_session_open (&f->session, FIXTURE_FILE, text, FALSE);
}

static void
parts_close (Parts *f)
{
  pd_long_session_close (&f->session);
  g_free (f->fixture);
}

/* What a part shows of an event, to compare with the whole timeline's: a
 * plan event is an update with its steps (a part knows no version's
 * number), anything else its envelope as it is. */
static char *
event_key (const PdStoredEvent *stored)
{
  g_autoptr(PdEvent) event = pd_event_new_from_json (stored->event_json, NULL);
  const char *type;

  g_assert_nonnull (event);
  type = pd_event_get_event_type (event);
  if (g_strcmp0 (type, PD_EVENT_PLAN_CREATED) == 0 || g_strcmp0 (type, PD_EVENT_PLAN_UPDATED) == 0)
    return g_strdup_printf ("plan %" G_GINT64_FORMAT " steps at %" G_GINT64_FORMAT,
                            json_object_get_int_member (pd_event_get_data (event), "steps"),
                            pd_event_get_timestamp (event));
  return g_strdup (stored->event_json);
}

/* The whole timeline, read whole (the threshold put back), as keys. */
static GPtrArray *
whole_keys (Parts *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GPtrArray) events = NULL;
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);

  _pd_import_set_tail_limits (0, 0);
  pages = pd_import_index_load_pages (f->session.store, f->session.id, NULL, &error);
  g_assert_no_error (error);
  events = pd_transcript_pages_dup_events (pages, f->session.id, 0, 0);
  for (guint i = 0; i < events->len; i++)
    g_ptr_array_add (keys, event_key (g_ptr_array_index (events, i)));
  _pd_import_set_tail_limits (64 * 1024, 64 * 1024);
  return keys;
}

static void
assert_keys (GPtrArray *events,
             GPtrArray *keys,
             guint      first)
{
  g_assert_cmpuint (first + events->len, <=, keys->len);
  for (guint i = 0; i < events->len; i++)
    {
      g_autofree char *key = event_key (g_ptr_array_index (events, i));

      g_assert_cmpstr (key, ==, g_ptr_array_index (keys, first + i));
    }
}

static void
check_keys (GPtrArray *page,
            guint      first,
            gpointer   keys)
{
  assert_keys (page, keys, first);
}

static gint64
seq_at (GPtrArray *events,
        guint      i)
{
  return ((PdStoredEvent *) g_ptr_array_index (events, i))->seq;
}

/* Forward, as `events --session` and the Now page's notices read: pages
 * of 1, 7 and 500 after the last one given are the whole timeline, once
 * each, in order, numbered upwards. */
static void
test_forward_pages (void)
{
  static const guint sizes[] = { 1, 7, 500 };
  Parts f = { 0 };
  g_autoptr(GPtrArray) keys = NULL;

  parts_open (&f);
  keys = whole_keys (&f);
  g_assert_cmpuint (keys->len, >, 15 * COPIES);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      gint64 after = 0;
      guint seen = 0;

      for (;;)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GPtrArray) page = pd_session_reads_list_events (f.session.store, f.session.id, NULL, after, sizes[s], &error);

          g_assert_no_error (error);
          g_assert_cmpuint (page->len, <=, sizes[s]);
          assert_keys (page, keys, seen);
          for (guint i = 0; i < page->len; i++)
            {
              g_assert_cmpint (seq_at (page, i), >, after);
              after = seq_at (page, i);
            }
          seen += page->len;
          if (page->len < sizes[s])
            break;
        }
      g_assert_cmpuint (seen, ==, keys->len);
    }

  parts_close (&f);
}

/* Backward, as the Events page reads: the newest page is the timeline's
 * end, each "Show Earlier Events" the page before (a middle one, one
 * across the parts' boundaries, the first one shorter), then nothing; a
 * kind asked for alone is the timeline's of that kind. */
static void
test_backward_pages (void)
{
  const char * const calls[] = { PD_EVENT_TOOL_CALL_STARTED, NULL };
  Parts f = { 0 };
  g_autoptr(GPtrArray) keys = NULL;
  g_autoptr(GPtrArray) started = NULL;
  g_autoptr(GError) error = NULL;
  guint pages;
  guint n_started = 0;

  parts_open (&f);
  keys = whole_keys (&f);

  pages = pd_long_session_walk_latest (&f.session, 13, keys->len, check_keys, keys);
  g_assert_cmpuint (pages, ==, (keys->len + 12) / 13);

  /* The newest calls alone: the last 40 tool_call_started of the timeline. */
  started = pd_session_reads_list_latest_events (f.session.store, f.session.id, -1, calls, 40, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (started->len, ==, 40);
  for (guint i = keys->len; i > 0 && n_started < 40; i--)
    {
      const char *key = g_ptr_array_index (keys, i - 1);
      g_autofree char *got = NULL;

      if (strstr (key, "\"type\":\"" PD_EVENT_TOOL_CALL_STARTED "\"") == NULL)
        continue;
      n_started++;
      got = event_key (g_ptr_array_index (started, 40 - n_started));
      g_assert_cmpstr (got, ==, key);
    }
  g_assert_cmpuint (n_started, ==, 40);

  parts_close (&f);
}

/* The newest page reads the transcript's end: its first part, and what is
 * read before it for its calls, not the whole file (before, the whole
 * timeline was built for it). */
static void
test_newest_reads_end (void)
{
  Parts f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTimelineParts) parts = NULL;
  g_autoptr(GPtrArray) page = NULL;
  GStatBuf st;

  parts_open (&f);
  g_assert_cmpint (g_stat (f.session.path, &st), ==, 0);
  parts = _pd_timeline_parts_open (f.session.store, f.session.id, &error);
  g_assert_no_error (error);
  g_assert_nonnull (parts);
  page = _pd_timeline_parts_before (parts, -1, NULL, 20, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->len, ==, 20);
  g_assert_cmpuint (_pd_timeline_parts_get_bytes_read (parts), <=,
                    PD_SESSION_READS_PART_BYTES + PD_SESSION_READS_CALL_REACH + 128 * 1024);
  g_assert_cmpuint (_pd_timeline_parts_get_bytes_read (parts), <, (guint64) st.st_size / 4);

  parts_close (&f);
}

/* A transcript the agent appends to while it is read: the page after the
 * last event given is what was appended, and the pages before the first
 * one given are what they were. */
static void
test_growing (void)
{
  Parts f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) keys = NULL;
  g_autoptr(GPtrArray) newest = NULL;
  g_autoptr(GPtrArray) earlier = NULL;
  g_autoptr(GPtrArray) appended = NULL;
  g_autoptr(GPtrArray) earlier_again = NULL;
  g_autofree char *more = NULL;
  guint old_len;

  parts_open (&f);
  keys = whole_keys (&f);
  old_len = keys->len;
  g_clear_pointer (&keys, g_ptr_array_unref);

  newest = pd_session_reads_list_latest_events (f.session.store, f.session.id, -1, NULL, 200, &error);
  g_assert_no_error (error);
  earlier = pd_session_reads_list_latest_events (f.session.store, f.session.id, seq_at (newest, 0), NULL, 200, &error);
  g_assert_no_error (error);

  more = fixture_copy (f.fixture, COPIES);
  pd_import_test_append (f.session.path, more);
  keys = whole_keys (&f);
  g_assert_cmpuint (keys->len, >, old_len);

  appended = pd_session_reads_list_events (f.session.store, f.session.id, NULL, seq_at (newest, newest->len - 1), 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (appended->len, ==, keys->len - old_len);
  assert_keys (appended, keys, old_len);
  g_assert_cmpint (seq_at (appended, 0), >, seq_at (newest, newest->len - 1));

  earlier_again = pd_session_reads_list_latest_events (f.session.store, f.session.id, seq_at (newest, 0), NULL, 200, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (earlier_again->len, ==, earlier->len);
  for (guint i = 0; i < earlier->len; i++)
    {
      g_assert_cmpint (seq_at (earlier_again, i), ==, seq_at (earlier, i));
      g_assert_cmpstr (((PdStoredEvent *) g_ptr_array_index (earlier_again, i))->event_json, ==,
                       ((PdStoredEvent *) g_ptr_array_index (earlier, i))->event_json);
    }

  parts_close (&f);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-events-parts/forward-pages", test_forward_pages);
  g_test_add_func ("/pd/import-events-parts/backward-pages", test_backward_pages);
  g_test_add_func ("/pd/import-events-parts/newest-reads-end", test_newest_reads_end);
  g_test_add_func ("/pd/import-events-parts/growing", test_growing);

  return g_test_run ();
}

/* pd-fuzz-import.h: what the transcript reader targets check and share.
 *
 * Whatever a transcript holds, what a reader makes of it is shown to a
 * person: item texts and titles are valid UTF-8 without control characters,
 * and the documented bounds on items and text hold.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include "pd-checklist.h"
#include "pd-event.h"
#include "pd-import-private.h"
#include "pd-imported-session.h"
#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-transcript-reader.h"
#include "pd-fuzz.h"

static inline void
pd_fuzz_check_text (const char *text,
                    gsize       max_chars)
{
  if (text == NULL)
    return;
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_printerr ("shown text is not valid UTF-8\n");
      abort ();
    }
  if (max_chars > 0 && (gsize) g_utf8_strlen (text, -1) > max_chars)
    {
      g_printerr ("shown text is longer than %" G_GSIZE_FORMAT " characters\n", max_chars);
      abort ();
    }
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      {
        g_printerr ("shown text holds a control character: %s\n", text);
        abort ();
      }
}

static inline void
pd_fuzz_check_session (PdImportedSession *session)
{
  PdChecklist *checklist;
  guint n;

  if (session == NULL)
    return;
  checklist = pd_imported_session_get_checklist (session);
  n = pd_checklist_get_n_agent_items (checklist);
  if (n > PD_IMPORT_MAX_ITEMS)
    {
      g_printerr ("%u items, more than the bound of %d\n", n, PD_IMPORT_MAX_ITEMS);
      abort ();
    }
  for (guint i = 0; i < n; i++)
    pd_fuzz_check_text (pd_checklist_get_agent_item (checklist, i)->text, PD_IMPORT_MAX_TEXT);
  pd_fuzz_check_text (pd_imported_session_get_title (session), 0);
}

/* What a reader makes of a transcript, as `import --json` prints it. */
static inline char *
pd_fuzz_session_json (PdTranscriptReader *reader)
{
  g_autoptr(JsonNode) node = NULL;

  if (!pd_transcript_reader_update (reader, NULL, NULL))
    return g_strdup ("(failed)");
  node = pd_imported_session_to_json (pd_transcript_reader_get_session (reader), TRUE);
  return json_to_string (node, FALSE);
}

/* The lean line path against whole trees: @picked and @whole are two new
 * readers of the same transcript; the one reads its lines picked (the
 * default), the other whole, and both make the same session of it. */
static inline void
pd_fuzz_check_picked (PdTranscriptReader *picked,
                      PdTranscriptReader *whole)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;

  pd_transcript_reader_set_max_line (picked, 32 * 1024);
  pd_transcript_reader_set_max_line (whole, 32 * 1024);
  a = pd_fuzz_session_json (picked);
  _pd_import_set_pick_lines (FALSE);
  b = pd_fuzz_session_json (whole);
  _pd_import_set_pick_lines (TRUE);
  if (strcmp (a, b) != 0)
    {
      g_printerr ("lines picked and whole read differently:\n%s\n%s\n", a, b);
      abort ();
    }
}

/* The pages of the same transcript, read by @reader (never updated): one
 * version per update its replay applied, each a plan state our history
 * reads back, each event our envelope, the conversation JSON of UTF-8 text
 * whose cut texts keep to their bounds. */
static inline void
pd_fuzz_check_pages (PdTranscriptReader *reader)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autofree char *text = NULL;

  if (pages == NULL)
    return;
  if (pd_transcript_pages_get_n_versions (pages)
      != pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->applied_updates)
    {
      g_printerr ("%u versions for %u applied updates\n", pd_transcript_pages_get_n_versions (pages),
                  pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->applied_updates);
      abort ();
    }
  versions = pd_transcript_pages_dup_plan_versions (pages, NULL);
  for (guint i = 0; i < versions->len; i++)
    {
      g_autoptr(PdPlanState) state = pd_plan_state_new_from_json (((PdPlanVersionInfo *) g_ptr_array_index (versions, i))->state_json, &error);

      if (state == NULL)
        {
          g_printerr ("version %u does not read back: %s\n", i + 1, error->message);
          abort ();
        }
    }
  plan = pd_transcript_pages_dup_plan (pages, NULL);
  events = pd_transcript_pages_dup_events (pages, "20260101-00000000000000000000000000000000", 0, 0);
  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(PdEvent) event = pd_event_new_from_json (((PdStoredEvent *) g_ptr_array_index (events, i))->event_json, &error);

      if (event == NULL)
        {
          g_printerr ("event %u does not read back: %s\n", i + 1, error->message);
          abort ();
        }
    }
  messages = pd_transcript_pages_dup_messages (pages);
  if (json_array_get_length (messages) != pd_transcript_pages_get_n_messages (pages))
    abort ();
  root = json_node_init_array (json_node_alloc (), messages);
  text = json_to_string (root, FALSE);
  if (!g_utf8_validate (text, -1, NULL))
    abort ();
}

/* A file holding the input, for the readers, which open files by name.  A
 * regular file in the temporary folder: the readers open only regular
 * files and follow no link, so a memfd's /proc/self/fd/N (a link) would be
 * refused and nothing read. */
typedef struct
{
  int   fd;
  char *path;
} PdFuzzFile;

static char *pd_fuzz_file_path;

static void
pd_fuzz_file_remove (void)
{
  if (pd_fuzz_file_path != NULL)
    unlink (pd_fuzz_file_path);
}

static inline void
pd_fuzz_file_init (PdFuzzFile *file)
{
  file->fd = g_file_open_tmp ("pd-fuzz-XXXXXX.jsonl", &file->path, NULL);
  if (file->fd < 0)
    abort ();
  pd_fuzz_file_path = file->path;
  atexit (pd_fuzz_file_remove);
}

static inline void
pd_fuzz_file_set (PdFuzzFile   *file,
                  const guint8 *data,
                  size_t        size)
{
  size_t done = 0;

  if (ftruncate (file->fd, 0) != 0 || lseek (file->fd, 0, SEEK_SET) != 0)
    abort ();
  while (done < size)
    {
      ssize_t n = write (file->fd, data + done, size - done);
      if (n <= 0)
        abort ();
      done += (size_t) n;
    }
}

/* A new reader of the transcript at @path. */
typedef PdTranscriptReader *(*PdFuzzReaderNew) (const char *path,
                                                gpointer    user_data);

typedef enum
{
  PD_FUZZ_READ_PICKED = 1 << 0,   /* the reader picks members of lines */
  PD_FUZZ_READ_TAIL   = 1 << 1,   /* the reader reads long files from their end */
} PdFuzzReadFlags;

/* The reads every transcript reader target makes of its input, each by a
 * new reader from @reader_new: whole, with a small line cap so that the
 * too-long path is reached too; with PD_FUZZ_READ_PICKED, its lines picked
 * and whole to the same session (pd_fuzz_check_picked()); whole for its
 * pages (pd_fuzz_check_pages()); with PD_FUZZ_READ_TAIL, as a long
 * transcript from its end, scanned back at most a third of it so that the
 * bound falls inside it; and followed, its first half then the whole, as a
 * running session is (a whole document is rewritten so). */
static inline void
pd_fuzz_read_transcript (PdFuzzFile      *file,
                         const guint8    *data,
                         size_t           size,
                         PdFuzzReaderNew  reader_new,
                         gpointer         user_data,
                         PdFuzzReadFlags  flags)
{
  g_autoptr(GError) error = NULL;
  PdTranscriptReader *reader;

  pd_fuzz_file_set (file, data, size);
  reader = reader_new (file->path, user_data);
  pd_transcript_reader_set_max_line (reader, 32 * 1024);
  if (pd_transcript_reader_update (reader, NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (reader));
  g_clear_error (&error);
  g_clear_object (&reader);

  if (flags & PD_FUZZ_READ_PICKED)
    {
      g_autoptr(PdTranscriptReader) picked = reader_new (file->path, user_data);
      g_autoptr(PdTranscriptReader) whole = reader_new (file->path, user_data);

      pd_fuzz_check_picked (picked, whole);
    }

  reader = reader_new (file->path, user_data);
  pd_transcript_reader_set_max_line (reader, 32 * 1024);
  pd_fuzz_check_pages (reader);
  g_clear_object (&reader);

  if ((flags & PD_FUZZ_READ_TAIL) && size > 1)
    {
      _pd_import_set_tail_limits (1, (goffset) (size / 3 + 1));
      reader = reader_new (file->path, user_data);
      pd_transcript_reader_set_max_line (reader, 32 * 1024);
      if (pd_transcript_reader_update (reader, NULL, &error))
        pd_fuzz_check_session (pd_transcript_reader_get_session (reader));
      _pd_import_set_tail_limits (0, 0);
      g_clear_error (&error);
      g_clear_object (&reader);
    }

  pd_fuzz_file_set (file, data, size / 2);
  reader = reader_new (file->path, user_data);
  pd_transcript_reader_set_follow (reader, TRUE);
  pd_transcript_reader_update (reader, NULL, &error);
  g_clear_error (&error);
  pd_fuzz_file_set (file, data, size);
  if (pd_transcript_reader_update (reader, NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (reader));
  g_clear_error (&error);
  g_clear_object (&reader);
}

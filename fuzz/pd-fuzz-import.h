/* pd-fuzz-import.h: what the transcript reader targets check and share.
 *
 * Whatever a transcript holds, what a reader makes of it is shown to a
 * person: item texts and titles are valid UTF-8 without control characters,
 * and the documented bounds on items and text hold.
 */
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include "pd-checklist.h"
#include "pd-import-private.h"
#include "pd-imported-session.h"
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

/* A file in memory holding the input, and its /proc path for the readers
 * (which open files by name). */
typedef struct
{
  int   fd;
  char *path;
} PdFuzzFile;

static inline void
pd_fuzz_file_init (PdFuzzFile *file)
{
  file->fd = memfd_create ("pd-fuzz", 0);
  if (file->fd < 0)
    abort ();
  file->path = g_strdup_printf ("/proc/self/fd/%d", file->fd);
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

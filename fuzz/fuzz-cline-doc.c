/* fuzz-cline-doc.c: the Cline / Roo Code / Kilo Code task reader.
 *
 * The input is a task's ui_messages.json (whole, rewritten by the
 * extension on every change): read once, once for its pages, and once more
 * by the same reader after a rewrite to its first half (a file caught while
 * the extension writes it).  The markdown checklist parser is fed the input
 * directly too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-cline-reader.h"
#include "pd-fuzz-reader.h"

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(PdClineReader) reader = NULL;
  g_autoptr(GError) error = NULL;

  if (size > 256 * 1024)
    return -1;

  {
    g_autofree char *text = g_strndup ((const char *) data, size);
    g_autoptr(GPtrArray) items = pd_cline_parse_checklist (text);

    for (guint i = 0; items && i < items->len; i++)
      pd_fuzz_check_text (((PdChecklistItem *) g_ptr_array_index (items, i))->text, PD_IMPORT_MAX_TEXT);
    if (items != NULL && items->len > PD_IMPORT_MAX_ITEMS)
      abort ();
  }

  pd_fuzz_file_set (&file, data, size);
  reader = pd_cline_reader_new (file.path);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    {
      pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
      /* Rewritten: half of it now. */
      pd_fuzz_file_set (&file, data, size / 2);
      g_clear_error (&error);
      if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
        pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
    }
  g_clear_error (&error);
  g_clear_object (&reader);

  pd_fuzz_file_set (&file, data, size);
  reader = pd_cline_reader_new (file.path);
  pd_fuzz_check_pages (PD_TRANSCRIPT_READER (reader));
  return 0;
}

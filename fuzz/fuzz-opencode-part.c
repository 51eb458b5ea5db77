/* fuzz-opencode-part.c: OpenCode's stored parts.
 *
 * Each line of the input is one part document, as the storage tree holds
 * it in a file and opencode.db in the data column; they are replayed into
 * one session the way both storage generations replay them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-opencode-reader-private.h"
#include "pd-fuzz-import.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  pd_fuzz_init_logging ();
  return 0;
}

typedef struct
{
  GPtrArray *data;
  GArray    *lengths;
} Parts;

static void
add_part (const char *piece,
          gsize       length,
          gpointer    user_data)
{
  Parts *parts = user_data;

  g_ptr_array_add (parts->data, g_memdup2 (piece, length + 1));
  g_array_append_val (parts->lengths, length);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(PdImportedSession) session = NULL;
  Parts parts;

  if (size > 256 * 1024)
    return -1;

  parts.data = g_ptr_array_new_with_free_func (g_free);
  parts.lengths = g_array_new (FALSE, FALSE, sizeof (gsize));
  pd_fuzz_split_lines (data, size, 64, add_part, &parts);

  session = pd_imported_session_new (PD_IMPORT_SOURCE_OPENCODE, "fuzz");
  _pd_opencode_replay_part_data (session, (const char * const *) parts.data->pdata,
                                 (const gsize *) (gpointer) parts.lengths->data, parts.data->len);
  pd_fuzz_check_session (session);

  g_ptr_array_unref (parts.data);
  g_array_unref (parts.lengths);
  return 0;
}

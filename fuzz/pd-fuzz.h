/* pd-fuzz.h: what every fuzz target shares.
 *
 * GLib criticals and errors are crashes (a failed precondition on input
 * the code must accept); debug, info, messages and warnings are dropped so
 * that a run spends its time in the code under test.  Header-only, like
 * the test helpers, because each target is one source file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <stdlib.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static GLogWriterOutput
pd_fuzz_log_writer (GLogLevelFlags   log_level,
                    const GLogField *fields,
                    gsize            n_fields,
                    gpointer         user_data)
{
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL))
    {
      g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

static void
pd_fuzz_log_handler (const char     *domain,
                     GLogLevelFlags  log_level,
                     const char     *message,
                     gpointer        user_data)
{
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL))
    {
      g_printerr ("%s: %s\n", domain ? domain : "", message);
      abort ();
    }
}

static inline void
pd_fuzz_init_logging (void)
{
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_log_set_writer_func (pd_fuzz_log_writer, NULL, NULL);
  g_log_set_default_handler (pd_fuzz_log_handler, NULL);
}

/* Calls @func with each '\n'-separated piece of the input, NUL-terminated. */
typedef void (*PdFuzzPieceFunc) (const char *piece,
                                 gsize       length,
                                 gpointer    user_data);

static inline void
pd_fuzz_split_lines (const guint8    *data,
                     size_t           size,
                     guint            max_pieces,
                     PdFuzzPieceFunc  func,
                     gpointer         user_data)
{
  size_t start = 0;
  guint n = 0;

  while (start <= size && n < max_pieces)
    {
      const guint8 *nl = memchr (data + start, '\n', size - start);
      size_t end = nl ? (size_t) (nl - data) : size;
      g_autofree char *piece = g_malloc (end - start + 1);

      memcpy (piece, data + start, end - start);
      piece[end - start] = '\0';

      func (piece, end - start, user_data);
      n++;
      if (nl == NULL)
        break;
      start = end + 1;
    }
}

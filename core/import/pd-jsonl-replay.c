/* pd-jsonl-replay.c: the forward read of a JSON lines transcript.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include "pd-import-private.h"
#include "pd-jsonl-reader.h"
#include "pd-jsonl-replay.h"

/* Lines between two looks at the cancellable (a power of two, less one). */
#define CANCEL_CHECK_MASK 0xfff

gboolean
_pd_jsonl_replay (const char                *path,
                  goffset                    from,
                  goffset                    stop,
                  gsize                      max_line,
                  gboolean                   follow,
                  const PdJsonlReplayFuncs  *funcs,
                  gpointer                   user_data,
                  PdTranscriptPages         *pages,
                  PdImportStats             *stats,
                  goffset                   *end,
                  GCancellable              *cancellable,
                  GError                   **error)
{
  PdJsonlReader *reader;

  *end = from;
  if (!(reader = pd_jsonl_reader_new (path, from, max_line, follow, error)))
    return FALSE;
  return _pd_jsonl_replay_reader (reader, from, stop, funcs, user_data, pages, stats, end, cancellable, error);
}

gboolean
_pd_jsonl_replay_reader (PdJsonlReader             *opened,
                         goffset                    from,
                         goffset                    stop,
                         const PdJsonlReplayFuncs  *funcs,
                         gpointer                   user_data,
                         PdTranscriptPages         *pages,
                         PdImportStats             *stats,
                         goffset                   *end,
                         GCancellable              *cancellable,
                         GError                   **error)
{
  g_autoptr(PdJsonlReader) reader = opened;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *defused = NULL;
  const char *line;
  gsize length;
  GError *local = NULL;
  guint n = 0;
  goffset line_start;

  g_return_val_if_fail (funcs != NULL && funcs->handle != NULL, FALSE);

  *end = from;
  /* A line that starts before @stop and is kept ends within the cap after
   * it: one longer is not read to its end (a head read of a session whose
   * first line is 81 MB read all of it, once for each tail candidate). */
  if (stop > 0)
    pd_jsonl_reader_set_limit (reader, stop + (goffset) MIN (pd_jsonl_reader_get_max_line (reader),
                                                             (gsize) G_MAXINT32) + 2);
  /* The pages say where a line too long to read was (before, it went
   * unsaid: tried as an attacker would, with a line of 17 MB). */
  if (pages != NULL)
    pd_jsonl_reader_set_report_too_long (reader, TRUE);

  for (;;)
    {
      PdJsonlLineUse use = PD_JSONL_LINE_PARSE;
      JsonObject *object;

      line_start = pd_jsonl_reader_get_offset (reader);
      if ((stop > 0 && line_start >= stop) || !pd_jsonl_reader_next (reader, &line, &length, &local))
        break;
      if ((++n & CANCEL_CHECK_MASK) == 0 && g_cancellable_set_error_if_cancelled (cancellable, &local))
        break;
      if (pd_jsonl_reader_get_too_long (reader) > 0)
        {
          stats->skipped_lines++;
          if (funcs->at_line != NULL)
            funcs->at_line (user_data, line_start);
          _pd_import_add_unshown (pages, NULL, PD_IMPORT_UNSHOWN_TOO_LONG, pd_jsonl_reader_get_too_long (reader), 0);
          continue;
        }
      /* The cheap shape check for every line: one JSON object. */
      if (length == 0 || line[0] != '{' || line[length - 1] != '}')
        {
          stats->skipped_lines++;
          continue;
        }
      if (funcs->at_line != NULL)
        funcs->at_line (user_data, line_start);
      /* A call whose arguments nest deeper than json-glib is given stays
       * on the pages, its arguments a placeholder: the line read is the
       * defused one (it went whole, unsaid).  Shorter lines cannot nest
       * that deep; an import shows no call (and a plan call's list is
       * refused either way), so it does not look. */
      g_clear_pointer (&defused, g_free);
      if (pages != NULL && length > 2 * PD_JSON_FOREIGN_MAX_DEPTH
          && pd_json_nesting_exceeds (line, (gssize) length, PD_JSON_FOREIGN_MAX_DEPTH)
          && (defused = _pd_import_defuse_nesting (line, length, &length)))
        line = defused;
      if (funcs->look != NULL && (use = funcs->look (user_data, line, length)) == PD_JSONL_LINE_SKIP)
        continue;
      /* Nothing built or read in place of a line of more values than its
       * size can hold (_pd_import_too_many_values()); the session's own
       * conversation says where it was (its time is in what is unread). */
      if ((use == PD_JSONL_LINE_PARSE || funcs->pick == NULL ? _pd_import_too_many_values
                                                             : _pd_import_too_dense) (line, length))
        {
          stats->skipped_lines++;
          _pd_import_add_unshown (pages, NULL, PD_IMPORT_UNSHOWN_TOO_MANY_VALUES, length, 0);
          continue;
        }
      /* Read in place: refused exactly as the tree would be. */
      if (use == PD_JSONL_LINE_SPAN && funcs->handle_span != NULL && _pd_import_get_pick_lines ())
        {
          if (!(funcs->check_span != NULL ? funcs->check_span (user_data, line, length)
                                          : pd_json_check_foreign (line, (gssize) length, NULL)))
            {
              stats->skipped_lines++;
              continue;
            }
          if (!funcs->handle_span (user_data, line, length))
            break;
          continue;
        }
      if (use == PD_JSONL_LINE_SPAN)
        use = PD_JSONL_LINE_PICK;
      object = use == PD_JSONL_LINE_PICK && funcs->pick != NULL
               ? _pd_import_parse_picked (&root, line, length, funcs->pick)
               : _pd_import_parse_object (&root, line, length);
      if (object == NULL)
        {
          stats->skipped_lines++;
          continue;
        }
      if (!funcs->handle (user_data, object))
        break;
    }

  stats->lines += pd_jsonl_reader_get_n_lines (reader);
  stats->skipped_lines += pd_jsonl_reader_get_n_too_long (reader);
  *end = pd_jsonl_reader_get_offset (reader);
  stats->bytes_read += (guint64) MAX (*end - from, 0);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

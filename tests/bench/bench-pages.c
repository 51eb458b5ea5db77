/* bench-pages.c: the pages of one long imported session.
 *
 *   bench-pages [MEGABYTES]     (default 100)
 *
 * Writes a Claude Code transcript of that size (prompts, answers, Read and
 * Bash calls with file-sized results, a TodoWrite every few calls) and
 * prints: the plain read the index does, the whole read for the pages
 * (conversation, versions, events), what the pages keep in memory (their
 * conversation's JSON and the process's resident size before and after),
 * and what a page then costs (messages, history, events copied out).
 * Figures only: nothing here is timed against a limit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-transcript-pages.h"
#include "pd-transcript-reader.h"

/* Bytes in use by malloc (small blocks and mmapped ones). */
static double
allocated_mb (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return (info.uordblks + info.hblkhd) / 1048576.0;
}

static gsize
resident_kib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) || !(line = strstr (status, "VmRSS:")))
    return 0;
  return (gsize) g_ascii_strtoull (line + 6, NULL, 10);
}

static void
add_filler (GString *out,
            gsize    bytes,
            guint    seed)
{
  static const char *words[] = { "the", "parser", "returns", "a", "value", "when", "config", "is", "missing",
                                 "error", "line", "test", "passes", "buffer", "offset", "thread", "queue" };
  gsize start = out->len;

  while (out->len - start < bytes)
    {
      seed = seed * 1103515245u + 12345u;
      g_string_append (out, words[(seed >> 16) % G_N_ELEMENTS (words)]);
      g_string_append_c (out, (seed & 0x70) == 0 ? '\n' : ' ');
    }
  /* JSON: newlines escaped. */
  for (gsize i = start; i < out->len; i++)
    if (out->str[i] == '\n')
      {
        out->str[i] = '\\';
        g_string_insert_c (out, (gssize) ++i, 'n');
      }
}

static char *
write_transcript (const char *dir,
                  gsize       megabytes)
{
  g_autofree char *path = g_build_filename (dir, "8d0f2c1e-1111-4222-8333-944455556666.jsonl", NULL);
  FILE *file = fopen (path, "w");
  g_autoptr(GString) line = g_string_new (NULL);
  gsize written = 0;
  guint n = 0;

  g_assert_nonnull (file);
  while (written < megabytes * 1024 * 1024)
    {
      guint second = n % 60, minute = (n / 60) % 60, hour = n / 3600 % 24;
      char ts[32];

      g_snprintf (ts, sizeof ts, "2026-02-%02u T%02u:%02u:%02uZ", 1 + n / 86400 % 28, hour, minute, second);
      ts[10] = 'T';
      memmove (ts + 11, ts + 12, strlen (ts + 12) + 1);
      g_string_truncate (line, 0);
      switch (n % 6)
        {
        case 0:
          g_string_append_printf (line, "{\"type\":\"user\",\"timestamp\":\"%s\",\"sessionId\":\"8d0f2c1e-1111-4222-8333-944455556666\","
                                  "\"cwd\":\"/work/big\",\"uuid\":\"u%u\",\"message\":{\"role\":\"user\",\"content\":\"", ts, n);
          add_filler (line, 300, n);
          g_string_append (line, "\"}}");
          break;
        case 1:
          g_string_append_printf (line, "{\"type\":\"assistant\",\"timestamp\":\"%s\",\"uuid\":\"a%u\",\"message\":{\"id\":\"m%u\","
                                  "\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"", ts, n, n);
          add_filler (line, 600, n);
          g_string_append (line, "\"}]}}");
          break;
        case 2:
        case 4:
          g_string_append_printf (line, "{\"type\":\"assistant\",\"timestamp\":\"%s\",\"uuid\":\"a%u\",\"message\":{\"id\":\"m%u\","
                                  "\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t%u\",\"name\":\"%s\","
                                  "\"input\":{\"file_path\":\"/work/big/src/file%u.c\"}}]}}",
                                  ts, n, n, n, n % 12 == 2 ? "TodoWrite" : "Read", n);
          if (n % 12 == 2)
            {
              g_string_truncate (line, 0);
              g_string_append_printf (line, "{\"type\":\"assistant\",\"timestamp\":\"%s\",\"uuid\":\"a%u\",\"message\":{\"id\":\"m%u\","
                                      "\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t%u\",\"name\":\"TodoWrite\","
                                      "\"input\":{\"todos\":[{\"content\":\"Step one\",\"status\":\"%s\"},"
                                      "{\"content\":\"Step two\",\"status\":\"pending\"}]}}]}}",
                                      ts, n, n, n, (n / 12) % 2 ? "completed" : "in_progress");
            }
          break;
        default:
          g_string_append_printf (line, "{\"type\":\"user\",\"timestamp\":\"%s\",\"uuid\":\"r%u\",\"message\":{\"role\":\"user\","
                                  "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t%u\",\"content\":\"", ts, n, n - 1);
          /* File-sized results: most of a real transcript's bytes. */
          add_filler (line, 20000, n);
          g_string_append (line, "\"}]}}");
          break;
        }
      g_string_append_c (line, '\n');
      fwrite (line->str, 1, line->len, file);
      written += line->len;
      n++;
    }
  fclose (file);
  return g_steal_pointer (&path);
}

int
main (int    argc,
      char **argv)
{
  gsize megabytes = argc > 1 ? (gsize) g_ascii_strtoull (argv[1], NULL, 10) : 100;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-bench-pages-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr(PdTranscriptReader) plain = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) events = NULL;
  gint64 start;
  double plain_s, pages_s, messages_s, versions_s, events_s, held_before, held_after;
  gsize rss_before, rss_after;
  GStatBuf st;

  g_assert_no_error (error);
  path = write_transcript (dir, megabytes);
  g_assert_true (g_stat (path, &st) == 0);

  plain = pd_transcript_reader_new_for_format ("claude", path, NULL, &error);
  start = g_get_monotonic_time ();
  g_assert_true (pd_transcript_reader_update (plain, NULL, &error));
  plain_s = (g_get_monotonic_time () - start) / 1e6;

  malloc_trim (0);
  rss_before = resident_kib ();
  held_before = allocated_mb ();
  reader = pd_transcript_reader_new_for_format ("claude", path, NULL, &error);
  start = g_get_monotonic_time ();
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  pages_s = (g_get_monotonic_time () - start) / 1e6;
  g_clear_object (&reader);
  /* What the pages hold, not what the allocator keeps of the read. */
  malloc_trim (0);
  rss_after = resident_kib ();
  held_after = allocated_mb ();

  start = g_get_monotonic_time ();
  messages = pd_transcript_pages_dup_messages (pages);
  messages_s = (g_get_monotonic_time () - start) / 1e6;
  start = g_get_monotonic_time ();
  versions = pd_transcript_pages_dup_plan_versions (pages, NULL);
  versions_s = (g_get_monotonic_time () - start) / 1e6;
  start = g_get_monotonic_time ();
  events = pd_transcript_pages_dup_events (pages, "20260201-00000000000000000000000000000000", 0, 0);
  events_s = (g_get_monotonic_time () - start) / 1e6;

  printf ("transcript          %.1f MB, %u messages, %u versions, %u events\n",
          st.st_size / 1048576.0, json_array_get_length (messages), versions->len, events->len);
  printf ("plain read (index)  %.2f s  (%.0f MB/s; over 64 MB only the end is read)\n", plain_s, st.st_size / 1048576.0 / plain_s);
  printf ("pages read          %.2f s  (%.0f MB/s)\n", pages_s, st.st_size / 1048576.0 / pages_s);
  {
    g_autoptr(JsonNode) root = json_node_init_array (json_node_alloc (), messages);
    g_autofree char *text = json_to_string (root, FALSE);

    printf ("pages held          %.1f MB allocated (their conversation %.1f MB of JSON); resident %+.1f MB\n",
            held_after - held_before, strlen (text) / 1048576.0, ((double) rss_after - (double) rss_before) / 1024.0);
  }
  printf ("a page from them    messages %.3f s, history %.3f s, events %.3f s\n", messages_s, versions_s, events_s);

  g_unlink (path);
  g_rmdir (dir);
  return 0;
}

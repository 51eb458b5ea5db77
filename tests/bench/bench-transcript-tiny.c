/* bench-transcript-tiny.c: the read of a transcript of many tiny records,
 * for each agent beside Claude Code's, in the same run.
 *
 *   bench-transcript-tiny [MEGABYTES] [AGENTS]   (default 63; claude,codex,gemini,qwen)
 *
 * Writes, for each agent, a transcript of that size made of one-letter
 * user messages, one a line (the shape of att19's M1: 63 MB stays under the
 * 64 MB above which only a file's end is read), and reads it in a child
 * process of its own three ways:
 *
 *  - plain:  the reader's update without pages (`sessions show`, the index);
 *  - pages:  the whole pages (pd_import_index_load_pages(): the window's
 *            Transcript page, `show`'s and `export`'s read), then the newest
 *            2 000 messages parsed as the page lists them;
 *  - export: those pages' conversation handed a message at a time to a sink
 *            that writes it as JSON (what `sessions export` does with them);
 *  - follow: the pages as the window reads them, followed (kept to read on
 *            what the agent appends), then the newest 2 000 parsed;
 *  - now:    the Now page's followed reader (no pages), kept as the window
 *            keeps it.
 *
 * For each it prints the child's peak RSS (getrusage through wait4), what
 * it adds to a child that only started (its baseline), the wall and CPU
 * time (user and system: the machine may be shared), and the ratios to
 * Claude Code's of the same read.  Figures only: nothing here
 * is held to a limit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-import-index-private.h"
#include "pd-json.h"
#include "pd-test-files.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

#define WINDOW_NEWEST 2000

typedef struct
{
  const char *agent;
  const char *format;
  const char *relative;   /* the file, under the run's folder */
  const char *head[2];    /* the first lines */
  const char *line[2];    /* one tiny record: before and after its index (Gemini's, Qwen's) */
} Shape;

static const Shape shapes[] = {
  { "claude", "claude", "claude/-tmp/ffffffff-1111-2222-3333-444444444444.jsonl",
    { "{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"ffffffff-1111-2222-3333-444444444444\","
      "\"message\":{\"role\":\"user\",\"content\":\"go\"},\"uuid\":\"u0\",\"timestamp\":\"2026-12-05T10:00:00Z\"}",
      NULL },
    { "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}", NULL } },
  { "codex", "codex", "codex/rollout-2026-03-14T09-12-40-019ceb9e-8409-72b7-bb14-1b6f441e9999.jsonl",
    { "{\"timestamp\":\"2026-03-14T09:12:40.201Z\",\"type\":\"session_meta\",\"payload\":"
      "{\"id\":\"019ceb9e-8409-72b7-bb14-1b6f441e9999\",\"timestamp\":\"2026-03-14T09:12:40.201Z\","
      "\"cwd\":\"/tmp/cx\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.118.0\",\"source\":\"cli\"}}",
      "{\"timestamp\":\"2026-03-14T09:12:46.230Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\","
      "\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"codex tiny\"}]}}" },
    { "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":"
      "[{\"type\":\"input_text\",\"text\":\"x\"}]}}", NULL } },
  { "gemini", "gemini", "gemini/tiny/chats/session-2026-04-05T10-12-3fa9c0d1.jsonl",
    { "{\"sessionId\":\"3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a9999\",\"projectHash\":\"9f2c\","
      "\"startTime\":\"2026-04-05T10:12:00.000Z\",\"lastUpdated\":\"2026-04-05T10:12:00.000Z\",\"kind\":\"main\"}",
      "{\"id\":\"g0\",\"timestamp\":\"2026-04-05T10:12:09.000Z\",\"type\":\"user\",\"content\":[{\"text\":\"gemini tiny\"}]}" },
    { "{\"id\":\"g", "\",\"type\":\"user\",\"content\":[{\"text\":\"x\"}]}" } },
  { "qwen", "qwen", "qwen/-tmp-qw/chats/5f0c2a9e-3b41-4d8e-a6c2-91e07b3d9999.jsonl",
    { "{\"uuid\":\"q0\",\"parentUuid\":null,\"sessionId\":\"5f0c2a9e-3b41-4d8e-a6c2-91e07b3d9999\","
      "\"timestamp\":\"2026-04-02T08:30:14.000Z\",\"type\":\"user\",\"cwd\":\"/tmp/qw\",\"version\":\"0.6.2\","
      "\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"qwen tiny\"}]}}",
      NULL },
    /* Each line's parent is the one before (write_shape()). */
    { "{\"uuid\":\"q", "\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"x\"}]}}" } },
};

typedef enum
{
  READ_PLAIN,
  READ_PAGES,
  READ_EXPORT,
  READ_FOLLOWED,
  READ_NOW,
  N_READS
} Read;

static const char *read_names[N_READS] = { "plain", "pages", "export", "follow", "now" };

static char *
write_shape (const char *dir,
             const Shape *shape,
             gsize        bytes,
             guint       *lines)
{
  char *path = g_build_filename (dir, shape->relative, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GString) text = g_string_sized_new (bytes + 256);
  gboolean qwen = strcmp (shape->agent, "qwen") == 0;
  guint n = 0;

  g_assert (g_mkdir_with_parents (parent, 0700) == 0);
  for (guint i = 0; i < G_N_ELEMENTS (shape->head) && shape->head[i]; i++, n++)
    g_string_append_printf (text, "%s\n", shape->head[i]);
  for (guint i = 1; text->len < bytes; i++, n++)
    {
      g_string_append (text, shape->line[0]);
      if (qwen)
        g_string_append_printf (text, "%u\",\"parentUuid\":\"q%u", i, i - 1);
      else if (shape->line[1] != NULL)
        g_string_append_printf (text, "%u", i);
      if (shape->line[1] != NULL)
        g_string_append (text, shape->line[1]);
      g_string_append_c (text, '\n');
    }
  g_assert (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
  if (strcmp (shape->agent, "gemini") == 0)
    {
      g_autofree char *root = g_build_filename (dir, "gemini", "tiny", ".project_root", NULL);

      g_assert (g_file_set_contents (root, "/tmp/gm", -1, NULL));
    }
  *lines = n;
  return path;
}

typedef struct
{
  gsize  bytes;
  guint  messages;
} Sink;

static void
on_message (JsonObject *message,
            gpointer    user_data)
{
  Sink *sink = user_data;
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), message);
  g_autofree char *text = pd_json_to_string (node, FALSE);

  sink->bytes += strlen (text) + 2;
  sink->messages++;
  json_object_unref (message);
}

/* In the child: the read, then its figures on @fd. */
static void
child_read (const Shape *shape,
            const char  *path,
            gsize        bytes,
            Read         what,
            int          fd)
{
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  guint64 messages = 0, listed = 0;
  g_autofree char *out = NULL;

  reader = pd_transcript_reader_new_for_format (shape->format, path, NULL, &error);
  g_assert_no_error (error);
  _pd_transcript_reader_set_source_bytes (reader, bytes);
  if (what == READ_FOLLOWED || what == READ_NOW)
    {
      PdImportFollow *follow = _pd_import_follow_get (what == READ_NOW ? "s/reader" : "s");

      g_clear_object (&reader);
      if (what == READ_NOW)
        {
          PdTranscriptReader *kept = _pd_import_follow_update_reader (follow, shape->format, path, NULL, NULL,
                                                                      &error);

          g_assert_no_error (error);
          messages = pd_imported_session_get_stats (pd_transcript_reader_get_session (kept))->lines;
        }
      else
        {
          g_autoptr(PdTranscriptPages) pages = _pd_import_follow_update (follow, shape->format, path, NULL,
                                                                         PD_IMPORT_FOLLOW_ALL, NULL, &error);
          g_autoptr(JsonArray) newest = NULL;

          g_assert_no_error (error);
          messages = pd_transcript_pages_get_n_messages (pages);
          newest = _pd_transcript_pages_dup_messages_range (
            pages, messages > WINDOW_NEWEST ? (guint) messages - WINDOW_NEWEST : 0, WINDOW_NEWEST);
          listed = json_array_get_length (newest);
        }
      _pd_import_follow_release (follow);
    }
  else if (what == READ_PLAIN)
    {
      g_assert (pd_transcript_reader_update (reader, NULL, &error));
      messages = pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->lines;
    }
  else
    {
      g_autoptr(PdTranscriptPages) pages = pd_transcript_reader_read_pages (reader, NULL, &error);

      g_assert_no_error (error);
      g_clear_object (&reader);
      messages = pd_transcript_pages_get_n_messages (pages);
      if (what == READ_PAGES)
        {
          g_autoptr(JsonArray) newest = _pd_transcript_pages_dup_messages_range (
            pages, messages > WINDOW_NEWEST ? (guint) messages - WINDOW_NEWEST : 0, WINDOW_NEWEST);

          listed = json_array_get_length (newest);
        }
      else
        {
          Sink sink = { 0, 0 };

          pd_transcript_pages_foreach_message (pages, on_message, &sink);
          listed = sink.messages;
        }
    }
  out = g_strdup_printf ("%.2f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
                         (g_get_monotonic_time () - start) / 1e6, messages, listed);
  g_assert (write (fd, out, strlen (out)) == (gssize) strlen (out));
}

typedef struct
{
  double  seconds;
  double  cpu;       /* user and system, the child's */
  double  peak_mb;
  guint64 messages;
  guint64 listed;
} Figures;

/* Forks a child for @read (or, @shape NULL, one that only starts) and
 * returns its figures. */
static Figures
measure (const Shape *shape,
         const char  *path,
         gsize        bytes,
         Read         what)
{
  Figures figures = { 0, 0, 0, 0, 0 };
  struct rusage usage;
  char buffer[128] = { 0 };
  int fds[2], status = 0;
  pid_t pid;

  g_assert (pipe (fds) == 0);
  fflush (stdout);
  pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0)
    {
      close (fds[0]);
      if (shape != NULL)
        child_read (shape, path, bytes, what, fds[1]);
      else
        g_assert (write (fds[1], "0 0 0", 5) == 5);
      _exit (0);
    }
  close (fds[1]);
  for (gsize got = 0, n; got < sizeof buffer - 1 && (n = (gsize) MAX (0, read (fds[0], buffer + got,
                                                                                 sizeof buffer - 1 - got))) > 0;)
    got += n;
  close (fds[0]);
  g_assert (wait4 (pid, &status, 0, &usage) == pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_printerr ("the %s read of %s failed (status %d)\n", shape ? read_names[what] : "empty",
                  shape ? shape->agent : "-", status);
      figures.seconds = -1;
      return figures;
    }
  sscanf (buffer, "%lf %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &figures.seconds, &figures.messages,
          &figures.listed);
  figures.peak_mb = usage.ru_maxrss / 1024.0;
  figures.cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  return figures;
}

int
main (int    argc,
      char **argv)
{
  gsize megabytes = argc > 1 ? (gsize) g_ascii_strtoull (argv[1], NULL, 10) : 63;
  g_auto(GStrv) agents = g_strsplit (argc > 2 ? argv[2] : "claude,codex,gemini,qwen", ",", -1);
  g_autofree char *dir = g_dir_make_tmp ("bench-transcript-tiny-XXXXXX", NULL);
  Figures claude[N_READS] = { { 0 } };
  Figures empty;
  gsize bytes = megabytes * 1024 * 1024;

  g_assert (dir != NULL && megabytes > 0);
  /* Claude Code first: the others are set beside it. */
  if (!g_strv_contains ((const char * const *) agents, "claude"))
    {
      char **with = g_new0 (char *, g_strv_length (agents) + 2);

      with[0] = g_strdup ("claude");
      for (guint i = 0; agents[i]; i++)
        with[i + 1] = g_strdup (agents[i]);
      g_strfreev (agents);
      agents = with;
    }

  empty = measure (NULL, NULL, 0, READ_PLAIN);
  g_print ("# %zu MB a transcript of one-letter user messages, one a line; a child that only starts: %.0f MB\n",
           megabytes, empty.peak_mb);
  g_print ("# %-7s %-6s %9s %10s %9s %9s %8s %7s %7s %8s\n", "agent", "read", "lines", "messages", "listed",
           "peak MB", "added", "wall s", "cpu s", "vs claude");
  for (guint a = 0; agents[a]; a++)
    {
      const Shape *shape = NULL;
      g_autofree char *path = NULL;
      guint lines = 0;

      for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
        if (strcmp (shapes[i].agent, agents[a]) == 0)
          shape = &shapes[i];
      if (shape == NULL)
        {
          g_printerr ("no shape for agent %s\n", agents[a]);
          return 2;
        }
      path = write_shape (dir, shape, bytes, &lines);
      for (Read r = 0; r < N_READS; r++)
        {
          Figures f = measure (shape, path, bytes, r);
          double added = f.peak_mb - empty.peak_mb;

          if (strcmp (shape->agent, "claude") == 0)
            claude[r] = f;
          g_print ("  %-7s %-6s %9u %10" G_GUINT64_FORMAT " %9" G_GUINT64_FORMAT " %9.0f %8.0f %7.2f %7.2f   %.2fx mem %.2fx cpu\n",
                   shape->agent, read_names[r], lines, f.messages, f.listed, f.peak_mb, added, f.seconds, f.cpu,
                   claude[r].peak_mb > empty.peak_mb ? added / (claude[r].peak_mb - empty.peak_mb) : 0,
                   claude[r].cpu > 0 ? f.cpu / claude[r].cpu : 0);
        }
      g_unlink (path);
    }
  pd_test_remove_tree (dir);
  return 0;
}

/* pd-grep-tool.c: the grep tool — searches files with a regular expression.
 *
 * Done in C rather than by running grep, so that the pattern never meets a
 * shell, the walk stays inside the confined path (symbolic links are not
 * followed), and the output is bounded however large the tree is.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd-grep-tool.h"
#include "pd-tool-private.h"

#define MAX_MATCHES    200
#define MAX_FILES      20000
#define MAX_DEPTH      64
#define MAX_GREP_FILE  (8 * 1024 * 1024)
#define MAX_LINE_SHOWN 300

/* PCRE2 backtracks: a pattern like ^(a|aa)+$ takes time exponential in
 * the line's length, and PCRE2's own limit (10 000 000 steps) still lets
 * one line cost a tenth of a second.  These bound one line to about 15 ms
 * and 32 MiB here; a line that needs more is reported, not skipped in
 * silence, and after MAX_LIMITED_LINES of them the search stops, since
 * the pattern is at fault.  GRegex (GLib 2.74) has no API for the limits,
 * so they ride at the head of the pattern, after the pattern's own
 * start-of-pattern settings (the last setting of a limit wins). */
#define MATCH_LIMIT        1000000
#define HEAP_LIMIT_KIB     32768
#define MAX_LIMITED_LINES  20
#define LIMITED_SHOWN      3

typedef struct
{
  PdToolContext *context;
  GRegex        *regex;
  GPatternSpec  *glob;
  gboolean       glob_has_slash;
  GCancellable  *cancellable;
  GString       *out;
  gsize          cap;
  guint          matches;
  guint          files;
  guint          skipped;
  guint64        lines;
  guint          limited;        /* lines the pattern could not be matched on */
  GString       *limited_where;  /* the first few of them, "path:line" */
  gboolean       full;           /* a cap was reached, or the time ran out: stop */
  gboolean       out_of_time;
  gboolean       gave_up;        /* stopped after MAX_LIMITED_LINES such lines */
  char          *stop_reason;
  char          *stopped_reading; /* the directory whose names the time ran out in */
} GrepRun;

/* Inserts the limits after the pattern's leading (*NAME) and (*NAME=N)
 * settings.  Backtracking verbs such as (*FAIL) are not settings. */
static char *
limited_pattern (const char *pattern)
{
  static const char * const verbs[] = { "ACCEPT", "FAIL", "F", "COMMIT", "PRUNE", "SKIP", "THEN" };
  const char *p = pattern;

  while (p[0] == '(' && p[1] == '*')
    {
      const char *name = p + 2;
      const char *q = name;
      gboolean verb = FALSE;

      while (g_ascii_isupper (*q) || g_ascii_isdigit (*q) || *q == '_')
        q++;
      for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
        if ((gsize) (q - name) == strlen (verbs[i]) && strncmp (name, verbs[i], q - name) == 0)
          verb = TRUE;
      if (q == name || verb)
        break;
      if (*q == '=')
        {
          q++;
          while (g_ascii_isdigit (*q))
            q++;
        }
      if (*q != ')')
        break;
      p = q + 1;
    }

  return g_strdup_printf ("%.*s(*LIMIT_MATCH=%d)(*LIMIT_HEAP=%d)%s",
                          (int) (p - pattern), pattern, MATCH_LIMIT, HEAP_LIMIT_KIB, p);
}

static void
stop_run (GrepRun    *run,
          char       *reason)
{
  run->full = TRUE;
  g_free (run->stop_reason);
  run->stop_reason = reason;
}

static void
append_match (GrepRun    *run,
              const char *display,
              guint64     lineno,
              const char *line)
{
  g_autoptr(GString) entry = g_string_new (NULL);
  gsize len = strlen (line);

  g_string_append_printf (entry, "%s:%" G_GUINT64_FORMAT ":", display, lineno);

  if (len > MAX_LINE_SHOWN)
    {
      const char *cut = g_utf8_find_prev_char (line, line + MAX_LINE_SHOWN + 1);

      g_string_append_len (entry, line, cut - line);
      g_string_append (entry, "…");
    }
  else
    {
      g_string_append (entry, line);
    }
  g_string_append_c (entry, '\n');

  if (run->out->len + entry->len > run->cap)
    {
      stop_run (run, g_strdup ("the output limit was reached"));
      return;
    }

  g_string_append_len (run->out, entry->str, entry->len);

  if (++run->matches >= MAX_MATCHES)
    stop_run (run, g_strdup_printf ("stopped after %d matches", MAX_MATCHES));
}

static void
note_limited_line (GrepRun    *run,
                   const char *display,
                   guint64     lineno)
{
  run->limited++;

  if (run->limited <= LIMITED_SHOWN)
    g_string_append_printf (run->limited_where, "%s%s:%" G_GUINT64_FORMAT,
                            run->limited > 1 ? ", " : "", display, lineno);

  if (run->limited >= MAX_LIMITED_LINES)
    {
      run->gave_up = TRUE;
      stop_run (run, NULL);
    }
}

/* Whether the search goes on; FALSE with @error set when cancelled, FALSE
 * with the run stopped when the run's time is up. */
static gboolean
keep_going (GrepRun  *run,
            GError  **error)
{
  switch (_pd_tool_check_stop (run->context, run->cancellable))
    {
    case PD_TOOL_STOP_CANCELLED:
      g_cancellable_set_error_if_cancelled (run->cancellable, error);
      return FALSE;

    case PD_TOOL_STOP_DEADLINE:
      run->out_of_time = TRUE;
      stop_run (run, g_strdup ("the run's time budget ran out"));
      return FALSE;

    case PD_TOOL_GO:
    default:
      return !run->full;
    }
}

/* Matches each line of @contents (which it changes: each newline becomes
 * the line's terminator).  Checks the cancellable and the deadline before
 * every line, so no file is too large to stop in. */
static gboolean
grep_text (GrepRun     *run,
           const char  *display,
           char        *contents,
           gsize        length,
           GError     **error)
{
  char *line = contents;
  guint64 lineno = 0;

  while (line < contents + length)
    {
      char *nl = memchr (line, '\n', contents + length - line);
      g_autoptr(GError) match_error = NULL;
      gsize line_len = nl ? (gsize) (nl - line) : (gsize) (contents + length - line);

      if (!keep_going (run, error))
        return error == NULL || *error == NULL;

      if (nl != NULL)
        *nl = '\0';
      lineno++;
      run->lines++;

      if (g_regex_match_full (run->regex, line, (gssize) line_len, 0, 0, NULL, &match_error))
        append_match (run, display, lineno, line);
      else if (match_error != NULL)
        note_limited_line (run, display, lineno);

      if (nl == NULL)
        break;
      line = nl + 1;
    }

  return TRUE;
}

/* Searches the regular file open as @fd (which it closes). */
static gboolean
grep_fd (GrepRun     *run,
         int          fd,
         const char  *display,
         GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  struct stat st;
  gboolean ok;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > MAX_GREP_FILE ||
      !_pd_tool_read_fd (fd, MAX_GREP_FILE, &contents, &length, NULL) ||
      !_pd_tool_is_text (contents, length))
    {
      close (fd);
      run->skipped++;
      return TRUE;
    }
  close (fd);

  run->files++;
  ok = grep_text (run, display, contents, length, error);

  return ok;
}

static gboolean
glob_matches (GrepRun    *run,
              const char *name,
              const char *relative)
{
  const char *subject;

  if (run->glob == NULL)
    return TRUE;

  subject = run->glob_has_slash ? relative : name;

  return g_pattern_spec_match (run->glob, strlen (subject), subject, NULL);
}

static char *
join_display (const char *top,
              const char *relative)
{
  if (strcmp (top, ".") == 0)
    return g_strdup (relative);

  return g_build_filename (top, relative, NULL);
}

/* Walks the directory open as @dir_fd (which it closes).  Entries are
 * looked at and opened relative to it without following links, so
 * neither a loop nor a link swapped in leads the walk outside. */
static gboolean
grep_dir (GrepRun     *run,
          int          dir_fd,
          const char  *top,
          const char  *relative,
          guint        depth,
          GError     **error)
{
  g_autoptr(GPtrArray) names = NULL;
  PdToolStop stop;
  DIR *dir;

  if (depth > MAX_DEPTH || (dir = fdopendir (dir_fd)) == NULL)
    {
      close (dir_fd);
      if (depth <= MAX_DEPTH)
        run->skipped++;
      return TRUE;
    }

  /* Sorted, so the same tree always gives the same (capped) answer.  A
   * directory of millions of names takes a while to read: the reading
   * looks at the cancellable and the deadline as it goes, as list_dir's
   * does (it read them all first, whatever the time). */
  names = _pd_tool_read_dir_names (dir, run->context, run->cancellable, &stop);
  if (names == NULL)
    {
      closedir (dir);
      if (stop == PD_TOOL_STOP_DEADLINE)
        run->stopped_reading = *relative ? join_display (top, relative) : g_strdup (top);
      keep_going (run, error);
      return error == NULL || *error == NULL;
    }

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *rel = *relative ? g_build_filename (relative, name, NULL) : g_strdup (name);
      struct stat st;
      int fd;

      if (!keep_going (run, error))
        break;

      if (fstatat (dirfd (dir), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;

      if (S_ISDIR (st.st_mode))
        {
          if (strcmp (name, ".git") == 0)
            continue;
          fd = _pd_tool_openat_child (dirfd (dir), name, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
          if (fd < 0)
            {
              run->skipped++;
              continue;
            }
          if (!grep_dir (run, fd, top, rel, depth + 1, error))
            break;
        }
      else if (S_ISREG (st.st_mode) && glob_matches (run, name, rel))
        {
          g_autofree char *display = NULL;

          if (run->files + run->skipped >= MAX_FILES)
            {
              stop_run (run, g_strdup_printf ("stopped after %d files", MAX_FILES));
              break;
            }

          fd = _pd_tool_openat_child (dirfd (dir), name, O_RDONLY | O_NONBLOCK);
          if (fd < 0)
            {
              run->skipped++;
              continue;
            }
          display = join_display (top, rel);
          if (!grep_fd (run, fd, display, error))
            break;
        }
    }

  closedir (dir);

  return error == NULL || *error == NULL;
}

PdToolResult *
_pd_grep_run (const PdToolCall *call)
{
  g_auto(PdToolFile) file = { 0 };
  g_autofree char *limited = NULL;
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GError) walk_error = NULL;
  g_autoptr(GString) out = NULL;
  g_autoptr(GString) limited_where = NULL;
  PdToolResult *err_result = NULL;
  PdToolResult *result;
  const char *pattern = call->arg[0].string;
  const char *path = call->arg[1].string;
  const char *glob = call->arg[2].string;
  GrepRun run = { 0 };
  struct stat st;
  int fd;

  if (*pattern == '\0')
    return pd_tool_result_new (FALSE, "grep: 'pattern' is empty");

  if (path == NULL || *path == '\0')
    path = ".";

  /* The pattern as given first, so an error message shows the model its
   * own pattern and offsets; then with the limits. */
  regex = g_regex_new (pattern, 0, 0, &local_error);
  if (regex == NULL)
    return pd_tool_result_new_printf (FALSE, "grep: invalid pattern: %s", local_error->message);
  g_clear_pointer (&regex, g_regex_unref);

  limited = limited_pattern (pattern);
  regex = g_regex_new (limited, 0, 0, &local_error);
  if (regex == NULL)
    return pd_tool_result_new_printf (FALSE, "grep: the pattern cannot be used with the tool's "
                                      "backtracking limits: %s", local_error->message);

  if ((err_result = _pd_tool_resolve (call->context, "grep", path, &file)) ||
      (fd = _pd_tool_open_file (call->context, &file, &st, &err_result)) < 0)
    return err_result;

  out = g_string_new (NULL);
  limited_where = g_string_new (NULL);
  run.context = call->context;
  run.regex = regex;
  run.cancellable = call->cancellable;
  run.out = out;
  run.limited_where = limited_where;
  run.cap = pd_tool_context_get_output_cap (call->context);
  if (glob != NULL && *glob != '\0')
    {
      run.glob = g_pattern_spec_new (glob);
      run.glob_has_slash = strchr (glob, '/') != NULL;
    }

  if (S_ISDIR (st.st_mode))
    grep_dir (&run, fd, file.display, "", 0, &walk_error);
  else if (S_ISREG (st.st_mode))
    grep_fd (&run, fd, file.display, &walk_error);
  else
    {
      close (fd);
      run.skipped++;
    }

  g_clear_pointer (&run.glob, g_pattern_spec_free);

  if (walk_error != NULL)
    {
      g_clear_pointer (&run.stop_reason, g_free);
      g_clear_pointer (&run.stopped_reading, g_free);
      g_propagate_error (call->error, g_steal_pointer (&walk_error));
      return NULL;
    }

  if (run.matches == 0 && !run.full && run.limited == 0)
    g_string_append_printf (out, "no matches in %u file%s", run.files, run.files == 1 ? "" : "s");

  if (run.out_of_time)
    g_string_append_printf (out, "[stopped: the run's time budget ran out after %" G_GUINT64_FORMAT
                            " line%s in %u file%s%s%s%s; the search is incomplete%s]\n",
                            run.lines, run.lines == 1 ? "" : "s", run.files, run.files == 1 ? "" : "s",
                            run.stopped_reading ? ", while reading the names in '" : "",
                            run.stopped_reading ? run.stopped_reading : "",
                            run.stopped_reading ? "'" : "",
                            run.matches > 0 ? ", the matches above are the ones found so far" : "");
  else if (run.full && !run.gave_up)
    g_string_append_printf (out, "[truncated: %s]\n", run.stop_reason);

  if (run.limited > 0)
    g_string_append_printf (out, "%s[%s%u line%s could not be searched: the pattern needs more than %d "
                            "backtracking steps on %s (%s%s). Simplify the pattern: avoid nested or "
                            "overlapping repeats such as (a|aa)+ or (a+)+]",
                            out->len > 0 && out->str[out->len - 1] != '\n' ? "\n" : "",
                            run.gave_up ? "stopped: " : "",
                            run.limited, run.limited == 1 ? "" : "s", MATCH_LIMIT,
                            run.limited == 1 ? "it" : "them", limited_where->str,
                            run.limited > LIMITED_SHOWN ? ", …" : "");

  if (run.skipped > 0)
    g_string_append_printf (out, "%s[%u binary, unreadable or oversized file%s skipped]",
                            out->len > 0 && out->str[out->len - 1] != '\n' ? "\n" : "",
                            run.skipped, run.skipped == 1 ? "" : "s");

  /* An incomplete search is no evidence that something is absent. */
  result = pd_tool_result_new_take (!run.out_of_time && run.limited == 0,
                                    g_string_free (g_steal_pointer (&out), FALSE));
  result->truncated = run.full;
  g_clear_pointer (&run.stop_reason, g_free);
  g_clear_pointer (&run.stopped_reading, g_free);

  return result;
}

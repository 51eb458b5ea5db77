/* pd-grep-tool.c: the grep tool — searches files with a regular expression.
 *
 * Done in C rather than by running grep, so that the pattern never meets a
 * shell, the walk stays inside the confined path (symbolic links are not
 * followed), and the output is bounded however large the tree is.
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "pd-grep-tool.h"
#include "pd-tool-private.h"

#define MAX_MATCHES    200
#define MAX_FILES      20000
#define MAX_DEPTH      64
#define MAX_GREP_FILE  (8 * 1024 * 1024)
#define MAX_LINE_SHOWN 300

struct _PdGrepTool
{
  GObject parent_instance;
};

static void pd_grep_tool_iface_init (PdToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdGrepTool, pd_grep_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TOOL, pd_grep_tool_iface_init))

static const char schema[] =
  "{"
  "\"type\":\"object\","
  "\"properties\":{"
    "\"pattern\":{\"type\":\"string\",\"description\":\"A Perl-compatible regular expression, matched against each line.\"},"
    "\"path\":{\"type\":\"string\",\"description\":\"Optional. File or directory to search, relative to the working directory (default: the working directory).\"},"
    "\"glob\":{\"type\":\"string\",\"description\":\"Optional. Only search files whose name matches this glob, e.g. *.c; a glob with '/' is matched against the path below the search directory.\"}"
  "},"
  "\"required\":[\"pattern\"]"
  "}";

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
  gboolean       full;     /* a cap was reached: stop */
  char          *stop_reason;
} GrepRun;

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
      run->full = TRUE;
      run->stop_reason = g_strdup ("the output limit was reached");
      return;
    }

  g_string_append_len (run->out, entry->str, entry->len);

  if (++run->matches >= MAX_MATCHES)
    {
      run->full = TRUE;
      run->stop_reason = g_strdup_printf ("stopped after %d matches", MAX_MATCHES);
    }
}

static void
grep_file (GrepRun    *run,
           const char *full,
           gsize       size)
{
  g_autofree char *contents = NULL;
  g_autofree char *display = NULL;
  gsize length = 0;
  char *line;
  guint64 lineno = 0;

  if (size > MAX_GREP_FILE || !g_file_get_contents (full, &contents, &length, NULL) ||
      !_pd_tool_is_text (contents, length))
    {
      run->skipped++;
      return;
    }

  run->files++;
  display = pd_tool_context_display_path (run->context, full);

  /* Lines are matched in place: each newline becomes the terminator. */
  line = contents;
  while (!run->full && line < contents + length)
    {
      char *nl = memchr (line, '\n', contents + length - line);

      if (nl != NULL)
        *nl = '\0';
      lineno++;

      if (g_regex_match (run->regex, line, 0, NULL))
        append_match (run, display, lineno, line);

      if (nl == NULL)
        break;
      line = nl + 1;
    }
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

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
grep_dir (GrepRun     *run,
          const char  *dir_path,
          const char  *relative,
          guint        depth,
          GError     **error)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  const char *name;

  if (depth > MAX_DEPTH)
    return TRUE;

  dir = g_dir_open (dir_path, 0, NULL);
  if (dir == NULL)
    {
      run->skipped++;
      return TRUE;
    }

  /* Sorted, so the same tree always gives the same (capped) answer. */
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len && !run->full; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *full = g_build_filename (dir_path, entry, NULL);
      g_autofree char *rel = *relative ? g_build_filename (relative, entry, NULL) : g_strdup (entry);
      struct stat st;

      if (g_cancellable_set_error_if_cancelled (run->cancellable, error))
        return FALSE;

      /* lstat: links are not followed, so neither loops nor escapes. */
      if (lstat (full, &st) != 0)
        continue;

      if (S_ISDIR (st.st_mode))
        {
          if (strcmp (entry, ".git") == 0)
            continue;
          if (!grep_dir (run, full, rel, depth + 1, error))
            return FALSE;
        }
      else if (S_ISREG (st.st_mode) && glob_matches (run, entry, rel))
        {
          if (run->files + run->skipped >= MAX_FILES)
            {
              run->full = TRUE;
              run->stop_reason = g_strdup_printf ("stopped after %d files", MAX_FILES);
              break;
            }
          grep_file (run, full, (gsize) st.st_size);
        }
    }

  return TRUE;
}

static PdToolResult *
pd_grep_tool_call (PdTool         *tool,
                   PdToolContext  *context,
                   JsonObject     *args,
                   GCancellable   *cancellable,
                   GError        **error)
{
  g_autofree char *resolved = NULL;
  g_autofree char *display = NULL;
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GString) out = NULL;
  PdToolResult *err_result = NULL;
  PdToolResult *result;
  const char *pattern = NULL;
  const char *path = NULL;
  const char *glob = NULL;
  GrepRun run = { 0 };
  struct stat st;

  if (!_pd_tool_args_string (args, "grep", "pattern", TRUE, &pattern, &err_result) ||
      !_pd_tool_args_string (args, "grep", "path", FALSE, &path, &err_result) ||
      !_pd_tool_args_string (args, "grep", "glob", FALSE, &glob, &err_result))
    return err_result;

  if (*pattern == '\0')
    return pd_tool_result_new (FALSE, "grep: 'pattern' is empty");

  if (path == NULL || *path == '\0')
    path = ".";

  regex = g_regex_new (pattern, 0, 0, &local_error);
  if (regex == NULL)
    return pd_tool_result_new_printf (FALSE, "grep: invalid pattern: %s", local_error->message);

  if ((err_result = _pd_tool_resolve (context, "grep", path, &resolved)))
    return err_result;

  display = pd_tool_context_display_path (context, resolved);

  if (stat (resolved, &st) != 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        return pd_tool_result_new_printf (FALSE, "grep: '%s' does not exist", display);
      return pd_tool_result_new_printf (FALSE, "grep: cannot open '%s': %s",
                                        display, g_strerror (saved_errno));
    }

  out = g_string_new (NULL);
  run.context = context;
  run.regex = regex;
  run.cancellable = cancellable;
  run.out = out;
  run.cap = pd_tool_context_get_output_cap (context);
  if (glob != NULL && *glob != '\0')
    {
      run.glob = g_pattern_spec_new (glob);
      run.glob_has_slash = strchr (glob, '/') != NULL;
    }

  if (S_ISDIR (st.st_mode))
    {
      if (!grep_dir (&run, resolved, "", 0, error))
        {
          g_clear_pointer (&run.glob, g_pattern_spec_free);
          g_clear_pointer (&run.stop_reason, g_free);
          return NULL;
        }
    }
  else if (S_ISREG (st.st_mode))
    {
      grep_file (&run, resolved, (gsize) st.st_size);
    }
  else
    {
      run.skipped++;
    }

  g_clear_pointer (&run.glob, g_pattern_spec_free);

  if (run.matches == 0 && !run.full)
    g_string_append_printf (out, "no matches in %u file%s", run.files, run.files == 1 ? "" : "s");

  if (run.full)
    g_string_append_printf (out, "[truncated: %s]\n", run.stop_reason);

  if (run.skipped > 0)
    g_string_append_printf (out, "%s[%u binary, unreadable or oversized file%s skipped]",
                            out->len > 0 && out->str[out->len - 1] != '\n' ? "\n" : "",
                            run.skipped, run.skipped == 1 ? "" : "s");

  result = pd_tool_result_new_take (TRUE, g_string_free (g_steal_pointer (&out), FALSE));
  result->truncated = run.full;
  g_clear_pointer (&run.stop_reason, g_free);

  return result;
}

static const char *
pd_grep_tool_get_name (PdTool *tool)
{
  return "grep";
}

static const char *
pd_grep_tool_get_description (PdTool *tool)
{
  return "Search text files for a regular expression (PCRE syntax), recursively below a "
         "directory. Prints path:line:text for each matching line, in path order. Skips .git, "
         "binary files and symbolic links; stops after 200 matches. Finding nothing is not an "
         "error.";
}

static JsonNode *
pd_grep_tool_get_parameters (PdTool *tool)
{
  return _pd_tool_parse_schema (schema);
}

static PdToolSafety
pd_grep_tool_get_safety (PdTool *tool)
{
  return PD_TOOL_READ_ONLY;
}

static PdToolEffects
pd_grep_tool_get_effects (PdTool     *tool,
                          JsonObject *args)
{
  return PD_TOOL_EFFECTS_READ;
}

static void
pd_grep_tool_iface_init (PdToolInterface *iface)
{
  iface->get_name = pd_grep_tool_get_name;
  iface->get_description = pd_grep_tool_get_description;
  iface->get_parameters = pd_grep_tool_get_parameters;
  iface->get_safety = pd_grep_tool_get_safety;
  iface->get_effects = pd_grep_tool_get_effects;
  iface->call = pd_grep_tool_call;
}

static void
pd_grep_tool_class_init (PdGrepToolClass *klass)
{
}

static void
pd_grep_tool_init (PdGrepTool *self)
{
}

PdTool *
pd_grep_tool_new (void)
{
  return g_object_new (PD_TYPE_GREP_TOOL, NULL);
}

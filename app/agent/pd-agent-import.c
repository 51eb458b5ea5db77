/* pd-agent-import.c: `plandeck-agent import` — other agents' plans.
 *
 *   import [--db PATH] [--json] [--plans] [--claude-dir DIR] [--codex-dir DIR] [--opencode-dir DIR]
 *          [--qwen-dir DIR] [--gemini-dir DIR]
 *          [--cline-dir DIR] [--kilo-dir DIR] [PATH...]
 *
 * Reads Claude Code, Codex, OpenCode, Qwen Code, Gemini CLI, Cline, Roo Code
 * and Kilo Code transcripts (the agents' default
 * folders, or the given files and folders, whose format is recognised from
 * the content) and prints, per session, the source, the final checklist and
 * how the reading went.  Transcripts are only read, never written.
 *
 * With --db the sessions are indexed into that database instead
 * (PdImportIndex): metadata and plan counts only, never the agent's plan
 * text (seed 001); files unchanged since the last import are not read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <glib/gstdio.h>

#include <glib/gi18n.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-import-index.h"
#include "pd-import-scanner.h"
#include "pd-import-skip.h"
#include "pd-plan.h"
#include "pd-safe-text.h"

static const char *
status_mark (PdChecklistStatus status)
{
  switch (status)
    {
    case PD_CHECKLIST_STATUS_COMPLETED:   return "[x]";
    case PD_CHECKLIST_STATUS_IN_PROGRESS: return "[>]";
    case PD_CHECKLIST_STATUS_CANCELLED:   return "[-]";
    case PD_CHECKLIST_STATUS_PENDING:
    default:                              return "[ ]";
    }
}

/* Model-derived text on a terminal: one line, no control characters, and
 * no invisible format character left to reorder what is shown (bidi
 * overrides become <U+202E>). */
static void
print_flat (const char *prefix,
            const char *text)
{
  g_autofree char *flat = pd_plan_text_normalize (text ? text : "");
  g_autofree char *safe = pd_safe_text_line (flat);

  printf ("%s%s\n", prefix, safe);
}

/* Paths and ids come from folders other programs write: shown alike. */
static char *
safe (const char *text)
{
  return pd_safe_text_line (text ? text : "");
}

/* Every file passed over, with the reason, after what was read. */
static void
print_skipped (GPtrArray *skipped)
{
  if (skipped->len == 0)
    return;
  /* TRANSLATORS: files an import did not read, listed below */
  printf (g_dngettext (GETTEXT_PACKAGE, "%u file skipped:\n", "%u files skipped:\n", skipped->len), skipped->len);
  for (guint i = 0; i < skipped->len; i++)
    {
      const PdImportSkip *skip = g_ptr_array_index (skipped, i);
      g_autofree char *path = safe (skip->path);
      g_autofree char *reason = safe (skip->reason);

      printf ("  %s: %s\n", path, reason);
    }
}

static void
print_session (PdImportedSession *session)
{
  PdChecklist *checklist = pd_imported_session_get_checklist (session);
  const PdImportStats *stats = pd_imported_session_get_stats (session);
  GPtrArray *plans = pd_imported_session_get_plans (session);
  guint done, total, active;

  g_autofree char *path = safe (pd_imported_session_get_path (session));

  pd_checklist_count (checklist, &done, &total, &active);
  printf ("%s  %s\n", pd_import_source_to_string (pd_imported_session_get_source (session)), path);
  print_flat ("  ", pd_imported_session_get_title (session) ? pd_imported_session_get_title (session)
                                                           : pd_imported_session_get_id (session));
  if (pd_checklist_get_origin (checklist) == PD_CHECKLIST_ORIGIN_NONE)
    printf ("  %s\n", _("No plan"));
  else
    {
      /* TRANSLATORS: checklist source, then done/total steps */
      printf (_("  Plan (%s): %u/%u done\n"), pd_checklist_origin_to_string (pd_checklist_get_origin (checklist)),
              done, total);
      for (guint i = 0; i < pd_checklist_get_n_agent_items (checklist); i++)
        {
          g_autofree char *prefix = g_strdup_printf ("    %s ", status_mark (pd_checklist_get_effective_status (checklist, i)));
          print_flat (prefix, pd_checklist_get_agent_item (checklist, i)->text);
        }
      /* A list longer than a checklist keeps: what is left out is said. */
      if (pd_checklist_get_n_hidden_agent_items (checklist) > 0)
        {
          guint hidden = pd_checklist_get_n_hidden_agent_items (checklist);

          printf (g_dngettext (GETTEXT_PACKAGE, "    … %u more item not shown\n", "    … %u more items not shown\n",
                               hidden), hidden);
        }
    }
  for (guint i = 0; i < plans->len; i++)
    {
      const PdArtifactPlan *plan = g_ptr_array_index (plans, i);
      printf (_("  Plan document %u: %s\n"), i + 1, pd_artifact_plan_status_to_string (plan->status));
    }
  /* %llu, not G_GUINT64_FORMAT: a macro inside _() would cut the message
   * short for xgettext.  Each count takes its own plural form ("1 update
   * applied", not "1 updates applied"). */
  {
    g_autofree char *lines = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%llu line", "%llu lines",
                                                           (gulong) MIN (stats->lines, G_MAXULONG)),
                                              (unsigned long long) stats->lines);
    g_autofree char *applied = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u update applied",
                                                             "%u updates applied", stats->applied_updates),
                                                stats->applied_updates);

    /* TRANSLATORS: "12 lines", skipped lines, "3 updates applied", ignored updates */
    printf (_("  %s, %llu skipped; %s, %u ignored\n"), lines, (unsigned long long) stats->skipped_lines,
            applied, stats->ignored_updates);
  }
}

static gboolean
is_imported_source (const char *source)
{
  static const char * const sources[] = { "claude-code", "claude-desktop", "codex", "opencode",
                                               "qwen", "gemini", "cline", "roo", "kilo", "kilo-cli", NULL };
  return source != NULL && g_strv_contains (sources, source);
}

static JsonNode *
index_stats_to_json (const PdImportIndexStats *stats)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (object, "transcripts", stats->transcripts);
  json_object_set_int_member (object, "unchanged", stats->unchanged);
  json_object_set_int_member (object, "read_full", stats->read_full);
  json_object_set_int_member (object, "read_appended", stats->read_appended);
  json_object_set_int_member (object, "failed", stats->failed);
  json_object_set_int_member (object, "sessions_added", stats->sessions_added);
  json_object_set_int_member (object, "sessions_updated", stats->sessions_updated);
  json_object_set_int_member (object, "bytes_read", (gint64) stats->bytes_read);
  json_object_set_int_member (object, "lines_read", (gint64) stats->lines_read);
  json_object_set_int_member (object, "skipped", stats->skipped);
  json_node_take_object (node, object);
  return node;
}

/* What a path that should be a folder is instead, for the error that says
 * so (tried as a new user would, a FIFO given as --cline-dir was only
 * "not one"). */
static const char *
describe_kind (mode_t mode)
{
  if (S_ISREG (mode))  return _("a file");
  if (S_ISFIFO (mode)) return _("a FIFO (named pipe)");
  if (S_ISSOCK (mode)) return _("a socket");
  if (S_ISCHR (mode))  return _("a character device");
  if (S_ISBLK (mode))  return _("a block device");
  return _("of another kind");
}

/* Checks a --…-dir option: the folder must exist.  The database file of
 * OpenCode or Kilo's CLI (@db_name), named instead of its folder, is taken
 * as its folder. */
static gboolean
check_dir (const char  *option,
           char       **dir,
           const char  *db_name)
{
  g_autofree char *name = NULL;
  g_autofree char *shown = NULL;
  GStatBuf st;

  if (*dir == NULL)
    return TRUE;
  /* Named as the user typed it, control characters made visible. */
  shown = safe (*dir);
  if (g_stat (*dir, &st) != 0)
    {
      int saved = errno;

      if (saved == ENOENT)
        {
          /* TRANSLATORS: %s is an option (--qwen-dir), %s a path */
          fprintf (stderr, _("plandeck-agent import: %s: no such folder: %s\n"), option, shown);
          /* `--codex-dir=~`: a shell expands ~ at the start of a word
           * only, not after =, and "no such folder: ~" left a new user
           * guessing. */
          if ((*dir)[0] == '~' && ((*dir)[1] == '\0' || (*dir)[1] == '/'))
            /* TRANSLATORS: %s is an option (--codex-dir), %s the rest of the path after ~ ("/.codex"),
             * %s the option again, %s the path as given ("~/.codex"); keep $HOME */
            fprintf (stderr, _("plandeck-agent import: ~ was not expanded (a shell does not expand it after =): "
                               "write %s=$HOME%s or %s %s\n"), option, shown + 1, option, shown);
        }
      else
        /* TRANSLATORS: %s is an option (--qwen-dir), %s a path, %s why (from the system) */
        fprintf (stderr, _("plandeck-agent import: %s: cannot look at %s: %s\n"), option, shown, g_strerror (saved));
      return FALSE;
    }
  if (S_ISDIR (st.st_mode))
    return TRUE;
  name = g_path_get_basename (*dir);
  if (db_name != NULL && strcmp (name, db_name) == 0 && S_ISREG (st.st_mode))
    {
      char *folder = g_path_get_dirname (*dir);

      g_free (*dir);
      *dir = folder;
      return TRUE;
    }
  /* TRANSLATORS: %s is an option (--qwen-dir), %s a path, %s what it is ("a FIFO (named pipe)") */
  fprintf (stderr, _("plandeck-agent import: %s takes a folder: %s is %s, not a folder\n"),
           option, shown, describe_kind (st.st_mode));
  return FALSE;
}

/* Whether @path is @dir or inside it. */
static gboolean
is_under (const char *path,
          const char *dir)
{
  size_t len = strlen (dir);

  while (len > 1 && dir[len - 1] == '/')
    len--;
  return path != NULL && strncmp (path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* Folders given that hold nothing, where the default folders of the other
 * agents held transcripts: each is named on stderr (`import --claude-dir
 * /tmp/empty` listed the default folders' sessions and exited 0 without a
 * word of the folder given).  Returns TRUE when none of the folders given
 * holds a transcript (nothing skipped in it either): status 2, as when
 * nothing at all is found.  @paths: the transcripts read. */
static gboolean
say_given_empty (GPtrArray          *paths,
                 GPtrArray          *skipped,
                 const char * const *options,
                 const char * const *dirs)
{
  gboolean none = TRUE;
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();

  for (guint d = 0; dirs[d] != NULL; d++)
    {
      g_autofree char *canonical = g_canonicalize_filename (dirs[d], NULL);
      gboolean holds = FALSE;

      for (guint i = 0; !holds && i < paths->len; i++)
        {
          const char *path = g_ptr_array_index (paths, i);

          holds = is_under (path, dirs[d]) || is_under (path, canonical);
        }
      for (guint i = 0; !holds && i < skipped->len; i++)
        {
          const PdImportSkip *skip = g_ptr_array_index (skipped, i);

          holds = is_under (skip->path, dirs[d]) || is_under (skip->path, canonical);
        }
      if (holds)
        none = FALSE;
      else
        g_ptr_array_add (empty, GUINT_TO_POINTER (d));
    }
  for (guint i = 0; i < empty->len; i++)
    {
      guint d = GPOINTER_TO_UINT (g_ptr_array_index (empty, i));
      g_autofree char *shown = safe (dirs[d]);

      /* TRANSLATORS: %s is an option (--claude-dir), %s the folder given */
      fprintf (stderr, _("plandeck-agent import: %s %s holds no transcript (the sessions listed are from the "
                         "other folders)\n"), options[d], shown);
    }
  return none;
}

static void say_where_looked (PdImportScanner    *scanner,
                              const char         *codex_dir,
                              gboolean            dirs_given,
                              const char * const *given);

/* import --db: index into the database; print what was done and the
 * imported sessions as the index has them (no plan text: there is none).
 * Folders given that hold no transcript, nothing even skipped, exit 2 as
 * without --db (see pd_agent_import_main()). */
static int
import_to_db (const char       *db_path,
              char            **paths,
              PdImportScanner  *scanner,
              const char       *codex_dir,
              gboolean          dirs_given,
              const char * const *given,
              const char * const *given_options,
              const char * const *given_all,
              gboolean          as_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) listed = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  g_autoptr(GPtrArray) skipped = NULL;
  PdImportIndexStats stats = { 0 };
  gboolean ok;
  gboolean empty;
  gboolean given_empty = FALSE;
  guint total = 0;

  if (!(store = pd_agent_open_store (db_path, TRUE, &error)))
    return pd_agent_fail ("import", error);

  if (paths != NULL && paths[0] != NULL)
    ok = pd_import_index_run_paths (index, store, (const char * const *) paths, &stats, NULL, &error);
  else
    ok = pd_import_index_run (index, store, scanner, &stats, &error);
  if (!ok)
    return pd_agent_fail ("import", error);
  skipped = pd_import_index_get_skipped (index);
  /* It exited 0 here where the same folders without --db exited 2 (tried
   * as a new user would): a script took a wrong folder for an empty one. */
  empty = dirs_given && stats.transcripts == 0 && skipped->len == 0;
  /* Transcripts read, none in the folders given: the default folders'.
   * Said as without --db, status 2 (the paths are the index's, this import's
   * and those before it). */
  if (dirs_given && !empty)
    {
      g_autoptr(GPtrArray) read = pd_session_store_list_import_paths (store, TRUE, &error);

      if (read == NULL)
        return pd_agent_fail ("import", error);
      given_empty = say_given_empty (read, skipped, given_options, given_all);
    }

  for (guint offset = 0;; offset += PD_SESSION_LIST_MAX_LIMIT)
    {
      g_autoptr(GPtrArray) page = pd_session_store_list (store, NULL, FALSE, offset, PD_SESSION_LIST_MAX_LIMIT, &total, &error);

      if (page == NULL)
        return pd_agent_fail ("import", error);
      for (guint i = 0; i < page->len; i++)
        {
          PdSessionInfo *info = g_ptr_array_index (page, i);
          if (is_imported_source (info->source))
            g_ptr_array_add (listed, pd_session_info_copy (info));
        }
      if (page->len < PD_SESSION_LIST_MAX_LIMIT)
        break;
    }

  if (as_json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();

      json_object_set_member (object, "index", index_stats_to_json (&stats));
      for (guint i = 0; i < listed->len; i++)
        json_array_add_object_element (array, pd_session_info_to_json (g_ptr_array_index (listed, i), FALSE));
      json_object_set_array_member (object, "sessions", array);
      json_object_set_int_member (object, "count", listed->len);
      json_object_set_member (object, "skipped", pd_import_skips_to_json (skipped));
      json_node_take_object (root, object);
      pd_agent_print_json (root, TRUE);
      if (empty)
        {
          fflush (stdout);
          say_where_looked (scanner, codex_dir, dirs_given, given);
        }
      return empty || given_empty ? 2 : 0;
    }

  /* TRANSLATORS: import --db summary; the counts of transcript files */
  printf (_("%u transcripts: %u unchanged (not read), %u read in full, %u read from where they ended, %u failed\n"),
          stats.transcripts, stats.unchanged, stats.read_full, stats.read_appended, stats.failed);
  printf (_("%u sessions added, %u updated; %llu bytes, %llu lines read\n"),
          stats.sessions_added, stats.sessions_updated,
          (unsigned long long) stats.bytes_read, (unsigned long long) stats.lines_read);
  for (guint i = 0; i < listed->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (listed, i);
      g_autofree char *prefix = NULL;

      if (info->plan_total > 0)
        prefix = g_strdup_printf ("%s  %-14s %u/%u  ", info->id, info->source, info->plan_done, info->plan_total);
      else
        prefix = g_strdup_printf ("%s  %-14s %s  ", info->id, info->source, "-");
      print_flat (prefix, info->name ? info->name : info->task);
    }
  print_skipped (skipped);
  if (empty)
    {
      fflush (stdout);
      say_where_looked (scanner, codex_dir, dirs_given, given);
    }
  return empty || given_empty ? 2 : 0;
}

/* A read's buffer freed is the next file's: glibc otherwise hands a
 * freed block of more than 128 KiB (or the heap's free top past it) back
 * to the kernel, and the next file's buffer takes it again, a page fault
 * and a page cleared for every 4 KiB read (8 500 faults and a tenth of
 * the CPU of a 200 MB Claude Code import).  The import is one run, not a
 * server: what it keeps is freed at its exit. */
static void
keep_freed_memory (void)
{
#ifdef __GLIBC__
  mallopt (M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt (M_TRIM_THRESHOLD, 64 * 1024 * 1024);
#endif
}

/* A scan that found nothing says where it looked, and what --codex-dir
 * takes: given Codex's sessions folder, it said "No transcripts found."
 * alone (tried as a new user would). */
static void
say_where_looked (PdImportScanner    *scanner,
                  const char         *codex_dir,
                  gboolean            dirs_given,
                  const char * const *given)
{
  g_auto(GStrv) roots = pd_import_scanner_dup_roots (scanner);
  g_autofree char *sessions = codex_dir != NULL ? g_build_filename (codex_dir, "sessions", NULL) : NULL;
  g_autofree char *archived = codex_dir != NULL ? g_build_filename (codex_dir, "archived_sessions", NULL) : NULL;
  g_autofree char *above = NULL;

  /* Every folder of a scan of the defaults; of --codex-dir, its two; of
   * the other --…-dir options, the folder given (--claude-dir alone named
   * none: the heading with nothing under it). */
  fprintf (stderr, "%s\n", _("plandeck-agent import: looked in these folders, none of which holds a transcript:"));
  for (guint i = 0; roots[i] != NULL; i++)
    {
      g_autofree char *shown = safe (roots[i]);

      if (!dirs_given || g_strcmp0 (roots[i], sessions) == 0 || g_strcmp0 (roots[i], archived) == 0)
        fprintf (stderr, "  %s\n", shown);
    }
  for (guint i = 0; dirs_given && given[i] != NULL; i++)
    {
      g_autofree char *shown = safe (given[i]);

      fprintf (stderr, "  %s\n", shown);
    }
  if (codex_dir == NULL)
    return;
  if (g_file_test (sessions, G_FILE_TEST_IS_DIR) || g_file_test (archived, G_FILE_TEST_IS_DIR))
    return;
  /* Its sessions folder, or a day's folder in it: the home is above. */
  for (char *dir = g_canonicalize_filename (codex_dir, NULL); above == NULL; )
    {
      g_autofree char *name = g_path_get_basename (dir);
      char *parent = g_path_get_dirname (dir);

      if (strcmp (name, "sessions") == 0 || strcmp (name, "archived_sessions") == 0)
        above = g_strdup (parent);
      if (strcmp (parent, dir) == 0 || above != NULL)
        {
          g_free (parent);
          g_free (dir);
          break;
        }
      g_free (dir);
      dir = parent;
    }
  /* Its parent, the home folder (`--codex-dir ~`): the .codex in it. */
  if (above == NULL)
    {
      g_autofree char *dot = g_build_filename (codex_dir, ".codex", NULL);

      if (g_file_test (dot, G_FILE_TEST_IS_DIR))
        {
          g_autofree char *shown = safe (dot);

          /* TRANSLATORS: %s is a folder */
          fprintf (stderr, _("plandeck-agent import: --codex-dir takes Codex's home folder, the one that holds "
                             "sessions/YYYY/MM/DD/rollout-*.jsonl ($CODEX_HOME, ~/.codex by default): "
                             "--codex-dir %s\n"), shown);
          return;
        }
    }
  if (above != NULL)
    {
      g_autofree char *shown = safe (above);

      /* TRANSLATORS: %s is a folder */
      fprintf (stderr, _("plandeck-agent import: --codex-dir takes Codex's home folder, the one that holds "
                         "sessions/YYYY/MM/DD/rollout-*.jsonl ($CODEX_HOME, ~/.codex by default), not its "
                         "sessions folder: --codex-dir %s\n"), shown);
    }
  else
    {
      g_autofree char *shown = safe (codex_dir);

      /* TRANSLATORS: %s is a folder */
      fprintf (stderr, _("plandeck-agent import: --codex-dir takes Codex's home folder, the one that holds "
                         "sessions/YYYY/MM/DD/rollout-*.jsonl ($CODEX_HOME, ~/.codex by default); %s has no "
                         "sessions folder\n"), shown);
    }
}

int
pd_agent_import_main (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  g_auto(GStrv) paths = NULL;
  g_autofree char *claude_dir = NULL;
  g_autofree char *codex_dir = NULL;
  g_autofree char *opencode_dir = NULL;
  g_autofree char *qwen_dir = NULL;
  g_autofree char *gemini_dir = NULL;
  g_autofree char *vscode_dir = NULL;
  g_autofree char *kilo_dir = NULL;
  g_autofree char *db_path = NULL;
  g_autoptr(GPtrArray) given = NULL;
  g_autoptr(GPtrArray) given_all = NULL;
  g_autoptr(GPtrArray) given_options = NULL;
  gboolean dirs_given;
  gboolean as_json = FALSE;
  gboolean with_plans = FALSE;
  gboolean given_empty = FALSE;
  int status = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, N_("Index the sessions into this database (metadata and plan counts only)"), N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, N_("Print the sessions as JSON"), NULL },
    { "plans", 0, 0, G_OPTION_ARG_NONE, &with_plans, N_("Include plan documents' markdown in the JSON"), NULL },
    { "claude-dir", 0, 0, G_OPTION_ARG_FILENAME, &claude_dir, N_("Claude Code projects folder"), N_("DIR") },
    { "codex-dir", 0, 0, G_OPTION_ARG_FILENAME, &codex_dir, N_("Codex home folder"), N_("DIR") },
    { "opencode-dir", 0, 0, G_OPTION_ARG_FILENAME, &opencode_dir, N_("OpenCode data folder"), N_("DIR") },
    { "qwen-dir", 0, 0, G_OPTION_ARG_FILENAME, &qwen_dir, N_("Qwen Code projects folder"), N_("DIR") },
    { "gemini-dir", 0, 0, G_OPTION_ARG_FILENAME, &gemini_dir, N_("Gemini CLI projects folder (its tmp)"), N_("DIR") },
    { "cline-dir", 0, 0, G_OPTION_ARG_FILENAME, &vscode_dir,
      N_("Cline, Roo Code and Kilo Code: the editor's global storage folder, or one extension's"), N_("DIR") },
    { "kilo-dir", 0, 0, G_OPTION_ARG_FILENAME, &kilo_dir, N_("Kilo Code CLI data folder"), N_("DIR") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, N_("[PATH…]") },
    { NULL }
  };

  context = g_option_context_new (_("— read other agents' plans from their transcripts"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "plandeck-agent import: %s\n", error->message);
      return 2;
    }

  /* Paths are read as they are; the folders are where a scan looks.  Both
   * given, the folders were passed over without a word (tried as a new
   * user would). */
  if (paths != NULL && paths[0] != NULL &&
      (claude_dir || codex_dir || opencode_dir || qwen_dir || gemini_dir || vscode_dir || kilo_dir))
    {
      fprintf (stderr, _("plandeck-agent import: give PATHs or the --…-dir folders to scan, not both\n"));
      return 2;
    }

  /* A folder given that is not there finds nothing: said, not passed over
   * (tried as a new user would, a typo gave an empty import, status 0). */
  if (!check_dir ("--claude-dir", &claude_dir, NULL) || !check_dir ("--codex-dir", &codex_dir, NULL)
      || !check_dir ("--opencode-dir", &opencode_dir, "opencode.db") || !check_dir ("--qwen-dir", &qwen_dir, NULL)
      || !check_dir ("--gemini-dir", &gemini_dir, NULL) || !check_dir ("--cline-dir", &vscode_dir, NULL)
      || !check_dir ("--kilo-dir", &kilo_dir, "kilo.db"))
    return 2;

  /* The folders given (Codex's is named by its two folders), and all of
   * them with their options. */
  given = g_ptr_array_new ();
  given_all = g_ptr_array_new ();
  given_options = g_ptr_array_new ();
  {
    const char *dirs[] = { claude_dir, codex_dir, opencode_dir, qwen_dir, gemini_dir, vscode_dir, kilo_dir };
    const char *options[] = { "--claude-dir", "--codex-dir", "--opencode-dir", "--qwen-dir", "--gemini-dir",
                              "--cline-dir", "--kilo-dir" };

    for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
      if (dirs[i] != NULL)
        {
          if (dirs[i] != codex_dir)
            g_ptr_array_add (given, (gpointer) dirs[i]);
          g_ptr_array_add (given_all, (gpointer) dirs[i]);
          g_ptr_array_add (given_options, (gpointer) options[i]);
        }
  }
  dirs_given = given_all->len > 0;
  g_ptr_array_add (given, NULL);
  g_ptr_array_add (given_all, NULL);

  keep_freed_memory ();
  if (db_path != NULL)
    {
      g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();

      if (claude_dir)
        pd_import_scanner_set_claude_dir (scanner, claude_dir);
      if (codex_dir)
        pd_import_scanner_set_codex_dir (scanner, codex_dir);
      if (opencode_dir)
        pd_import_scanner_set_opencode_dir (scanner, opencode_dir);
      if (qwen_dir)
        pd_import_scanner_set_qwen_dir (scanner, qwen_dir);
      if (gemini_dir)
        pd_import_scanner_set_gemini_dir (scanner, gemini_dir);
      if (vscode_dir)
        pd_import_scanner_set_vscode_dir (scanner, vscode_dir);
      if (kilo_dir)
        pd_import_scanner_set_kilo_dir (scanner, kilo_dir);
      return import_to_db (db_path, paths, scanner, codex_dir, dirs_given, (const char * const *) given->pdata,
                           (const char * const *) given_options->pdata, (const char * const *) given_all->pdata,
                           as_json);
    }

  if (paths != NULL && paths[0] != NULL)
    {
      for (guint i = 0; paths[i]; i++)
        {
          g_autoptr(GError) local = NULL;
          GPtrArray *found = pd_import_read_path_full (paths[i], skipped, NULL, &local);

          if (found == NULL)
            return pd_agent_fail ("import", local);
          g_ptr_array_extend_and_steal (sessions, found);
        }
    }
  else
    {
      g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
      GPtrArray *found;

      if (claude_dir)
        pd_import_scanner_set_claude_dir (scanner, claude_dir);
      if (codex_dir)
        pd_import_scanner_set_codex_dir (scanner, codex_dir);
      if (opencode_dir)
        pd_import_scanner_set_opencode_dir (scanner, opencode_dir);
      if (qwen_dir)
        pd_import_scanner_set_qwen_dir (scanner, qwen_dir);
      if (gemini_dir)
        pd_import_scanner_set_gemini_dir (scanner, gemini_dir);
      if (vscode_dir)
        pd_import_scanner_set_vscode_dir (scanner, vscode_dir);
      if (kilo_dir)
        pd_import_scanner_set_kilo_dir (scanner, kilo_dir);
      if (!(found = pd_import_scanner_scan_full (scanner, skipped, NULL, &error)))
        return pd_agent_fail ("import", error);
      /* Folders given that hold no transcript at all, nothing even
       * skipped: a wrong folder, as one that is not there, is a usage
       * error (status 2), said on stderr with --json too; it exited 0 where
       * a missing folder exited 2, and a script took it for an empty
       * import (tried as a new user would).  Nothing found in the default
       * folders is no error: a machine without other agents. */
      if (found->len == 0 && (!as_json || (dirs_given && skipped->len == 0)))
        {
          if (!as_json)
            {
              printf ("%s\n", _("No transcripts found."));
              fflush (stdout);
              /* What it could not read, first: a FIFO, a hostile database. */
              print_skipped (skipped);
            }
          say_where_looked (scanner, codex_dir, dirs_given, (const char * const *) given->pdata);
          status = dirs_given && skipped->len == 0 ? 2 : 0;
          if (!as_json)
            {
              g_ptr_array_unref (found);
              return status;
            }
        }
      else if (dirs_given)
        {
          g_autoptr(GPtrArray) read = g_ptr_array_new ();

          for (guint i = 0; i < found->len; i++)
            g_ptr_array_add (read, (gpointer) pd_imported_session_get_path (g_ptr_array_index (found, i)));
          given_empty = say_given_empty (read, skipped, (const char * const *) given_options->pdata,
                                         (const char * const *) given_all->pdata);
          if (given_empty)
            status = 2;
        }
      g_ptr_array_extend_and_steal (sessions, found);
    }

  if (as_json)
    {
      PdJsonWriter writer;

      /* Written as it is made, the bytes pd_agent_print_json() printed for
       * the tree of it: building that tree of thousands of sessions and
       * printing it was about 29 % of the CPU of an import. */
      pd_json_writer_init (&writer, stdout);
      pd_json_writer_begin_object (&writer, NULL);
      pd_json_writer_begin_array (&writer, "sessions");
      for (guint i = 0; i < sessions->len; i++)
        pd_imported_session_write_json (g_ptr_array_index (sessions, i), with_plans, &writer);
      pd_json_writer_end_array (&writer);
      pd_json_writer_int (&writer, "count", sessions->len);
      pd_import_skips_write_json (skipped, &writer, "skipped");
      pd_json_writer_end_object (&writer);
      g_string_append_c (writer.out, '\n');
      pd_json_writer_finish (&writer);
      fflush (stdout);
      return status;
    }

  if (sessions->len == 0)
    printf ("%s\n", _("No transcripts found."));
  for (guint i = 0; i < sessions->len; i++)
    print_session (g_ptr_array_index (sessions, i));
  print_skipped (skipped);

  /* Every other command reads and writes the app's database by default;
   * this one only reads the transcripts unless told where to index them. */
  if (sessions->len > 0)
    {
      g_autofree char *default_db = pd_agent_default_db_path ();

      fprintf (stderr, _("plandeck-agent import: read only, nothing stored; --db PATH indexes these sessions "
                         "into a database (the app's is %s)\n"), default_db);
    }
  return given_empty ? 2 : 0;
}

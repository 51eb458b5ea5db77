/* pd-agent-import.c: `plandeck-agent import` — other agents' plans.
 *
 *   import [--json] [--plans] [--claude-dir DIR] [--codex-dir DIR] [--opencode-dir DIR] [PATH...]
 *
 * Reads Claude Code, Codex and OpenCode transcripts (the agents' default
 * folders, or the given files and folders, whose format is recognised from
 * the content) and prints, per session, the source, the final checklist and
 * how the reading went.  Transcripts are only read, never written.  Nothing
 * is stored: agent plan text stays out of the database (seed 001).
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-import-scanner.h"
#include "pd-plan.h"

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

/* Model-derived text on a terminal: one line, no control characters. */
static void
print_flat (const char *prefix,
            const char *text)
{
  g_autofree char *flat = pd_plan_text_normalize (text ? text : "");
  printf ("%s%s\n", prefix, flat);
}

static void
print_session (PdImportedSession *session)
{
  PdChecklist *checklist = pd_imported_session_get_checklist (session);
  const PdImportStats *stats = pd_imported_session_get_stats (session);
  GPtrArray *plans = pd_imported_session_get_plans (session);
  guint done, total, active;

  pd_checklist_count (checklist, &done, &total, &active);
  printf ("%s  %s\n", pd_import_source_to_string (pd_imported_session_get_source (session)),
          pd_imported_session_get_path (session));
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
    }
  for (guint i = 0; i < plans->len; i++)
    {
      const PdArtifactPlan *plan = g_ptr_array_index (plans, i);
      printf (_("  Plan document %u: %s\n"), i + 1, pd_artifact_plan_status_to_string (plan->status));
    }
  printf (_("  %" G_GUINT64_FORMAT " lines, %" G_GUINT64_FORMAT " skipped; %u updates applied, %u ignored\n"),
          stats->lines, stats->skipped_lines, stats->applied_updates, stats->ignored_updates);
}

int
pd_agent_import_main (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_auto(GStrv) paths = NULL;
  g_autofree char *claude_dir = NULL;
  g_autofree char *codex_dir = NULL;
  g_autofree char *opencode_dir = NULL;
  gboolean as_json = FALSE;
  gboolean with_plans = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, N_("Print the sessions as JSON"), NULL },
    { "plans", 0, 0, G_OPTION_ARG_NONE, &with_plans, N_("Include plan documents' markdown in the JSON"), NULL },
    { "claude-dir", 0, 0, G_OPTION_ARG_FILENAME, &claude_dir, N_("Claude Code projects folder"), N_("DIR") },
    { "codex-dir", 0, 0, G_OPTION_ARG_FILENAME, &codex_dir, N_("Codex home folder"), N_("DIR") },
    { "opencode-dir", 0, 0, G_OPTION_ARG_FILENAME, &opencode_dir, N_("OpenCode data folder"), N_("DIR") },
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

  if (paths != NULL && paths[0] != NULL)
    {
      for (guint i = 0; paths[i]; i++)
        {
          g_autoptr(GError) local = NULL;
          GPtrArray *found = pd_import_read_path (paths[i], NULL, &local);

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
      if (!(found = pd_import_scanner_scan (scanner, NULL, &error)))
        return pd_agent_fail ("import", error);
      g_ptr_array_extend_and_steal (sessions, found);
    }

  if (as_json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();

      for (guint i = 0; i < sessions->len; i++)
        json_array_add_element (array, pd_imported_session_to_json (g_ptr_array_index (sessions, i), with_plans));
      json_object_set_array_member (object, "sessions", array);
      json_object_set_int_member (object, "count", sessions->len);
      json_node_take_object (root, object);
      pd_agent_print_json (root, TRUE);
      return 0;
    }

  if (sessions->len == 0)
    {
      printf ("%s\n", _("No transcripts found."));
      return 0;
    }
  for (guint i = 0; i < sessions->len; i++)
    print_session (g_ptr_array_index (sessions, i));
  return 0;
}

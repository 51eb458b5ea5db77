/* pd-agent-config.c: `plandeck-agent config`, print the resolved
 * configuration so a person (or a script, with --json) can see what the
 * engine will run with and why.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <stdio.h>

#include <glib.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "pd-agent-commands.h"
#include "pd-config.h"
#include "pd-decimal.h"
#include "pd-secret-text.h"

/* Parses a non-negative count for --max-steps / --max-render-chars.
 * Negative numbers are refused here rather than clamped, because -1 is the
 * library's "not given" marker and must not be reachable from the shell. */
static gboolean
parse_count (const char  *option,
             const char  *text,
             int         *out,
             GError     **error)
{
  guint64 value;

  if (text == NULL)
    {
      *out = -1;
      return TRUE;
    }

  if (!pd_decimal_parse (text, -1, G_MAXINT, &value))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s wants a whole number from 0 up, not “%s”"), option, text);
      return FALSE;
    }

  *out = (int) value;
  return TRUE;
}

/* One line per value, "section.key = value (origin)", from the same
 * document --json prints, so the two never disagree.  Values are shown in
 * their JSON form: a string from a file cannot start a line of its own. */
static void
print_text (PdConfig *config)
{
  g_autoptr(JsonNode) root = pd_config_to_json (config);
  JsonObject *object = json_node_get_object (root);
  JsonObject *origins = json_object_get_object_member (object, "origins");
  const char * const *warnings = pd_config_get_warnings (config);
  const char *global_path = pd_config_get_global_path (config);
  const char *project_path = pd_config_get_project_path (config);
  JsonObjectIter sections;
  const char *section_name;
  JsonNode *section;

  json_object_iter_init (&sections, object);
  while (json_object_iter_next (&sections, &section_name, &section))
    {
      JsonObjectIter iter;
      const char *key;
      JsonNode *value;

      if (!g_str_equal (section_name, "provider") && !g_str_equal (section_name, "planning") &&
          !g_str_equal (section_name, "plan_mode") && !g_str_equal (section_name, "limits") &&
          !g_str_equal (section_name, "tools"))
        continue;

      json_object_iter_init (&iter, json_node_get_object (section));
      while (json_object_iter_next (&iter, &key, &value))
        {
          g_autofree char *path = g_strconcat (section_name, ".", key, NULL);
          g_autofree char *raw = json_to_string (value, FALSE);
          /* A password or token in the base URL is not shown. */
          g_autofree char *shown = pd_secret_text_mask (raw, NULL);

          printf ("%s = %s (%s)\n", path, shown,
                  json_object_get_string_member_with_default (origins, path, "default"));
        }
    }
  printf ("sources.global = %s\n", global_path != NULL ? global_path : _("(none)"));
  printf ("sources.project = %s\n", project_path != NULL ? project_path : _("(none)"));

  /* stdout and stderr may be the same terminal; keep the order readable. */
  fflush (stdout);

  for (guint i = 0; warnings[i] != NULL; i++)
    fprintf (stderr, _("warning: %s\n"), warnings[i]);
}

static void
print_json (PdConfig *config)
{
  g_autoptr(JsonNode) root = pd_config_to_json (config);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);
  {
    char *masked = pd_secret_text_mask (text, NULL);

    g_free (text);
    text = masked;
  }

  /* Warnings are part of the document; stderr stays quiet so a script can
   * treat any stderr output as a failure of the command itself. */
  printf ("%s\n", text);
}

int
pd_agent_config_main (int    argc,
                      char **argv)
{
  gboolean json = FALSE;
  gboolean planning = FALSE;
  gboolean no_planning = FALSE;
  g_autofree char *global_path = NULL;
  g_autofree char *project_path = NULL;
  g_autofree char *max_steps = NULL;
  g_autofree char *max_render_chars = NULL;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      N_("Print the configuration as one JSON document"), NULL },
    { "planning", 0, 0, G_OPTION_ARG_NONE, &planning,
      N_("Enable planning, whatever the config files and environment say"), NULL },
    { "no-planning", 0, 0, G_OPTION_ARG_NONE, &no_planning,
      N_("Disable planning, whatever the config files and environment say"), NULL },
    { "max-steps", 0, 0, G_OPTION_ARG_STRING, &max_steps,
      N_("Override planning.max_steps (clamped to 1..50)"), N_("N") },
    { "max-render-chars", 0, 0, G_OPTION_ARG_STRING, &max_render_chars,
      N_("Override planning.max_render_chars (clamped to 200..8000)"), N_("N") },
    { "global", 0, 0, G_OPTION_ARG_FILENAME, &global_path,
      N_("Read the global config from PATH instead of $XDG_CONFIG_HOME/plandeck/config.json"), N_("PATH") },
    { "project", 0, 0, G_OPTION_ARG_FILENAME, &project_path,
      N_("Read the project config from PATH instead of ./plandeck.json"), N_("PATH") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdConfig) config = NULL;
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
                                _("Print the resolved configuration, where each value comes from, and any\n"
                                  "problems found in it.  Precedence, highest first: command line, environment,\n"
                                  "global config, project config (which may only lower limits or turn things off)."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      !parse_count ("--max-steps", max_steps, &options.cli_max_steps, &error) ||
      !parse_count ("--max-render-chars", max_render_chars, &options.cli_max_render_chars, &error))
    goto usage_error;

  if (planning && no_planning)
    {
      g_set_error_literal (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           _("--planning and --no-planning contradict each other"));
      goto usage_error;
    }

  if (argc > 1)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION,
                   _("unexpected argument “%s”"), argv[1]);
      goto usage_error;
    }

  options.global_path = global_path;
  options.project_path = project_path;
  if (planning)
    options.cli_planning = 1;
  else if (no_planning)
    options.cli_planning = 0;

  config = pd_config_load (&options);
  /* A password or token in the base URL is never printed. */
  pd_secret_text_register_url (pd_config_get_provider_base_url (config));

  if (json)
    print_json (config);
  else
    print_text (config);

  return 0;

usage_error:
  fprintf (stderr, "plandeck-agent config: %s\n", error->message);
  fprintf (stderr, _("Run “plandeck-agent config --help” for the options.\n"));
  return 2;
}

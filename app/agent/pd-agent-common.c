/* pd-agent-common.c: what several plandeck-agent subcommands share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <glib/gi18n.h>

#include <stdio.h>

#include <errno.h>

#include <glib/gstdio.h>

#include "pd-agent-common.h"
#include "pd-safe-text.h"

/* $XDG_DATA_HOME/plandeck/sessions.db, the database the app opens too. */
char *
pd_agent_default_db_path (void)
{
  return g_build_filename (g_get_user_data_dir (), "plandeck", "sessions.db", NULL);
}

/**
 * pd_agent_open_store:
 * @db_path: (nullable): --db, or %NULL for the default database
 * @create: create the database when missing (the default one always is,
 *   on first use)
 */
PdSessionStore *
pd_agent_open_store (const char  *db_path,
                     gboolean     create,
                     GError     **error)
{
  g_autofree char *path = db_path ? g_strdup (db_path) : pd_agent_default_db_path ();
  g_autoptr(PdDb) db = NULL;
  PdDbFlags flags = PD_DB_NONE;

  if (db_path == NULL || create)
    {
      g_autofree char *dir = g_path_get_dirname (path);

      if (g_mkdir_with_parents (dir, 0700) != 0)
        {
          int saved = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       _("cannot create the folder %s: %s"), dir, g_strerror (saved));
          return NULL;
        }
      flags |= PD_DB_CREATE;
    }

  if (!(db = pd_db_open (path, flags, error)))
    return NULL;
  /* The commands that create (run, continue, import) write: a read-only
   * file is refused now, not at the first save of a run. */
  if (create && !pd_db_check_writable (db, error))
    return NULL;

  return pd_session_store_new (db);
}

void
pd_agent_print_json (JsonNode *node,
                     gboolean  pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, pretty);
  text = json_generator_to_data (generator, NULL);
  /* The same JSON, with invisible format characters (bidi overrides from a
   * transcript) as \u escapes, so a terminal shows them, not their effect. */
  shown = pd_safe_text_escape_json (text);
  printf ("%s\n", shown);
  fflush (stdout);
}

/**
 * pd_agent_run_left_off:
 *
 * Whether a step @info's plan has in progress was left there by a run that
 * ended short (its budget, a cancel, a failure, a killed process) while
 * none goes on now: the window's "In progress when the run stopped".
 */
gboolean
pd_agent_run_left_off (const PdSessionInfo *info)
{
  return info != NULL && info->status != PD_SESSION_STATUS_RUNNING &&
         (info->stopped != NULL || info->status == PD_SESSION_STATUS_FAILED ||
          info->status == PD_SESSION_STATUS_INTERRUPTED);
}

int
pd_agent_fail (const char *command,
               GError     *error)
{
  g_autofree char *message = pd_safe_text_block (error->message);

  fprintf (stderr, "plandeck-agent %s: %s\n", command, message);
  return 1;
}

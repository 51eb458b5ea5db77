/* pd-agent-session-id.c: a session named on the command line
 *
 * By its id, a unique prefix of it, or the agent's own session id of an
 * imported session (the id its continue command takes), for `sessions
 * show`, `sessions export` and `events --session`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "pd-agent-common.h"
#include "pd-safe-text.h"
#include "pd-session-reads.h"

/* Whether @word (a word of an imported session's continue command, such
 * as its agent's own session id) is or begins with @arg. */
static gboolean
resume_names (PdSessionStore *store,
              const char     *id,
              const char     *arg)
{
  g_auto(GStrv) words = NULL;

  if (!pd_session_reads_get_resume (store, id, &words, NULL, NULL))
    return FALSE;
  /* The first word is the agent's program, the rest its arguments. */
  for (guint i = 1; words[i] != NULL; i++)
    if (g_ascii_strncasecmp (words[i], arg, strlen (arg)) == 0)
      return TRUE;
  return FALSE;
}

/* Whether @arg could name a session by a prefix or its agent's id: 8 or
 * more letters, digits, '-', '_' or '.'. */
/* The one session removed from the list that @arg names (its id, the
 * id's beginning, or the agent's own id), or NULL when none or several. */
static char *
find_removed (PdSessionStore *store,
              const char     *arg)
{
  g_autoptr(GPtrArray) sessions = pd_session_store_list_removed (store, NULL);
  const char *match = NULL;
  gsize len = strlen (arg);

  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (sessions, i);

      if (g_ascii_strncasecmp (info->id, arg, len) == 0 || resume_names (store, info->id, arg))
        {
          if (match != NULL)
            return NULL;
          match = info->id;
        }
    }
  return g_strdup (match);
}

/**
 * pd_agent_resolve_removed_session_id:
 *
 * As pd_agent_resolve_session_id(), among the sessions removed from the
 * list (`sessions restore`).
 *
 * Returns: (transfer full) (nullable): the session's id, or %NULL with the
 *   reason printed
 */
char *
pd_agent_resolve_removed_session_id (PdSessionStore *store,
                                     const char     *arg,
                                     const char     *command)
{
  g_autofree char *shown_id = pd_safe_text_line (arg);
  char *id;

  if (pd_session_id_is_valid (arg))
    return g_strdup (arg);
  if ((id = find_removed (store, arg)) != NULL)
    return id;
  /* TRANSLATORS: the first %s is a subcommand (sessions), the second an id */
  fprintf (stderr, _("plandeck-agent %s: no session removed from the list has the id “%s”, nor one beginning with it "
                     "(“plandeck-agent sessions removed” lists them)\n"), command, shown_id);
  return NULL;
}

gboolean
pd_agent_id_like (const char *arg)
{
  gsize len = strlen (arg);

  if (len < 8)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (arg[i]) && arg[i] != '-' && arg[i] != '_' && arg[i] != '.')
      return FALSE;
  return TRUE;
}

/* The session @arg names: its id, a unique prefix of it (8 or more
 * characters), or the agent's own session id (or its prefix) of an
 * imported session, the id `show` prints after "continue codex resume".
 * Both were refused as "not a session id" (tried as a new user would).
 * NULL with the reason printed; several candidates are listed. */
char *
pd_agent_resolve_session_id (PdSessionStore *store,
                             const char     *arg,
                             const char     *command)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *shown_id = pd_safe_text_line (arg);
  gsize len = strlen (arg);
  guint offset = 0;
  guint total = 0;

  if (pd_session_id_is_valid (arg))
    return g_strdup (arg);
  do
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) sessions = pd_session_store_list (store, NULL, FALSE, offset, PD_SESSION_LIST_MAX_LIMIT,
                                                             &total, &error);

      if (sessions == NULL)
        {
          pd_agent_fail (command, error);
          return NULL;
        }
      for (guint i = 0; i < sessions->len; i++)
        {
          const PdSessionInfo *info = g_ptr_array_index (sessions, i);

          if (g_ascii_strncasecmp (info->id, arg, len) == 0 ||
              (pd_session_info_is_imported (info) && resume_names (store, info->id, arg)))
            g_ptr_array_add (found, g_strdup (info->id));
        }
      if (sessions->len == 0)
        break;
      offset += sessions->len;
    }
  while (offset < total);

  if (found->len == 1)
    return g_strdup (g_ptr_array_index (found, 0));
  if (found->len == 0)
    {
      g_autofree char *removed = find_removed (store, arg);

      if (removed != NULL)
        /* TRANSLATORS: the first %s is a subcommand (sessions, events), the second and third an id */
        fprintf (stderr, _("plandeck-agent %s: session %s was removed from the list; "
                           "“plandeck-agent sessions restore %s” lists it again\n"), command, removed, removed);
      else
        /* TRANSLATORS: the first %s is a subcommand (sessions, events), the second an id */
        fprintf (stderr, _("plandeck-agent %s: no session has the id “%s”, nor one beginning with it\n"), command, shown_id);
    }
  else
    {
      /* TRANSLATORS: the first %s is a subcommand (sessions, events), the second an id */
      fprintf (stderr, _("plandeck-agent %s: “%s” names %u sessions; give more of the id:\n"), command, shown_id, found->len);
      for (guint i = 0; i < found->len; i++)
        fprintf (stderr, "  %s\n", (const char *) g_ptr_array_index (found, i));
    }
  return NULL;
}


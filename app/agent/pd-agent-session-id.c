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

/* Whether a word of an imported session's continue command (such as its
 * agent's own session id) is @arg, or with !@exact begins with it. */
static gboolean
resume_names (PdSessionStore *store,
              const char     *id,
              const char     *arg,
              gboolean        exact)
{
  g_auto(GStrv) words = NULL;

  if (!pd_session_reads_get_resume (store, id, &words, NULL, NULL))
    return FALSE;
  /* The first word is the agent's program, the rest its arguments. */
  for (guint i = 1; words[i] != NULL; i++)
    if (exact ? g_ascii_strcasecmp (words[i], arg) == 0
              : g_ascii_strncasecmp (words[i], arg, strlen (arg)) == 0)
      return TRUE;
  return FALSE;
}

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

      if (g_ascii_strncasecmp (info->id, arg, len) == 0 || resume_names (store, info->id, arg, FALSE))
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

  /* A Plandeck id is that session's, unless no removed session has it and
   * a removed import's agent has: `show` printed it after "continue" and
   * `rm` took it for the import (an id in this shape is a crafted one). */
  if ((id = find_removed (store, arg)) != NULL)
    return id;
  if (pd_session_id_is_valid (arg))
    return g_strdup (arg);
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

/* Adds to @found the listed sessions @arg names: by their id's beginning
 * and their agent's own id's (@exact: only imports whose agent's own id is
 * @arg), but not @except.  FALSE with the reason printed on an error. */
static gboolean
collect_listed (PdSessionStore *store,
                const char     *arg,
                gboolean        exact,
                const char     *except,
                GPtrArray      *found,
                const char     *command)
{
  gsize len = strlen (arg);
  guint offset = 0;
  guint total = 0;

  do
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) sessions = pd_session_store_list (store, NULL, FALSE, offset, PD_SESSION_LIST_MAX_LIMIT,
                                                             &total, &error);

      if (sessions == NULL)
        {
          pd_agent_fail (command, error);
          return FALSE;
        }
      for (guint i = 0; i < sessions->len; i++)
        {
          const PdSessionInfo *info = g_ptr_array_index (sessions, i);

          if (g_strcmp0 (info->id, except) == 0)
            continue;
          if ((!exact && g_ascii_strncasecmp (info->id, arg, len) == 0) ||
              (pd_session_info_is_imported (info) && resume_names (store, info->id, arg, exact)))
            g_ptr_array_add (found, g_strdup (info->id));
        }
      if (sessions->len == 0)
        break;
      offset += sessions->len;
    }
  while (offset < total);
  return TRUE;
}

/**
 * pd_agent_check_id_names_one:
 * @arg: the id given, which names session @id
 *
 * A transcript can carry any id as its agent's own, a Plandeck session's
 * too: then `show` of the import prints that id after "continue", and `rm`
 * given it deleted the Plandeck session for good (tried as an attacker
 * would, att20 L1).  Given the exact id of one session that is also the
 * agent's own id of an imported one, a command that changes something is
 * refused with both named.
 *
 * Returns: %TRUE when @arg names @id alone; %FALSE with the reason printed
 */
gboolean
pd_agent_check_id_names_one (PdSessionStore *store,
                             const char     *arg,
                             const char     *id,
                             const char     *command)
{
  g_autoptr(GPtrArray) twins = g_ptr_array_new_with_free_func (g_free);

  /* A prefix or another agent's id was resolved among all: several were
   * refused already. */
  if (!pd_session_id_is_valid (arg))
    return TRUE;
  if (!collect_listed (store, arg, TRUE, id, twins, command))
    return FALSE;
  if (twins->len == 0)
    return TRUE;
  /* TRANSLATORS: the first %s is a subcommand (sessions rm), the second and third session ids */
  fprintf (stderr, _("plandeck-agent %s: “%s” names more than one session, so nothing was changed:\n"
                     "  %s  the session of this id\n"), command, arg, id);
  for (guint i = 0; i < twins->len; i++)
    /* TRANSLATORS: %s is a session id; "continue" is the word `sessions show` prints before the command */
    fprintf (stderr, _("  %s  an imported session whose agent’s own id it is (after “continue” in its page)\n"),
             (const char *) g_ptr_array_index (twins, i));
  /* TRANSLATORS: the %s is a subcommand (sessions rm) */
  fprintf (stderr, _("Take the imported session out of the list first (plandeck-agent %s with its id), "
                     "then this id names the other alone.\n"), command);
  return FALSE;
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

  if (pd_session_id_is_valid (arg))
    return g_strdup (arg);
  if (!collect_listed (store, arg, FALSE, NULL, found, command))
    return NULL;

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


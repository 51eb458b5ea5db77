/* pd-agent-events.c: `plandeck-agent events` — the stored event stream as JSON lines.
 *
 *   events [--db PATH] [--session ID] [--type T] [--follow]
 *
 * With --follow it keeps printing new events as another process (a run, the
 * app) stores them, until interrupted.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-safe-text.h"
#include "pd-session-reads.h"

#define FOLLOW_INTERVAL_USEC (500 * G_TIME_SPAN_MILLISECOND)

/* One event, one line, for a terminal: a generator never leaves a control
 * character raw in JSON, but a database from elsewhere may hold anything,
 * and model text (a tool's name) may hold bidi controls.  Both become \u
 * escapes: the same JSON value, shown as written. */
static char *
safe_json_line (const char *json)
{
  g_autofree char *escaped = pd_safe_text_escape_json (json);
  GString *out = g_string_sized_new (strlen (escaped));

  for (const char *p = escaped; *p; p++)
    {
      guchar c = (guchar) *p;

      if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  return g_string_free (out, FALSE);
}

static gboolean
print_event (const PdStoredEvent *event,
             gpointer             user_data)
{
  gint64 *after = user_data;
  g_autofree char *line = safe_json_line (event->event_json);

  printf ("%s\n", line);
  *after = event->seq;
  return TRUE;
}

/* Printed as read: an imported session's long transcript a part at a time
 * (it built the whole timeline first: 402 MB for a 203 MB transcript). */
static gboolean
print_after (PdSessionStore  *store,
             const char      *session_id,
             const char      *type,
             gint64          *after,
             GError         **error)
{
  gboolean ok = pd_session_reads_foreach_event (store, session_id, type, *after, print_event, after, NULL, error);

  fflush (stdout);
  return ok;
}

int
pd_agent_events_main (int    argc,
                      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *type = NULL;
  gboolean follow = FALSE;
  gint64 after = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, N_("Session database (default: $XDG_DATA_HOME/plandeck/sessions.db)"), N_("PATH") },
    { "session", 0, 0, G_OPTION_ARG_STRING, &session_id, N_("Only this session's events"), N_("ID") },
    { "type", 0, 0, G_OPTION_ARG_STRING, &type, N_("Only events of this type (e.g. plan_updated)"), N_("T") },
    { "follow", 'f', 0, G_OPTION_ARG_NONE, &follow, N_("Keep printing new events as they are stored"), NULL },
    { NULL }
  };

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, _("The stored event stream, one JSON object per line, oldest first."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "plandeck-agent events: %s\n", error->message);
      return 2;
    }

  if (argc > 1)
    {
      fprintf (stderr, _("plandeck-agent events: unexpected argument “%s”\n"), argv[1]);
      return 2;
    }

  if (session_id != NULL && !pd_session_id_is_valid (session_id) && !pd_agent_id_like (session_id))
    {
      {
        /* Shown as one safe line: an argument is not always typed by hand. */
        g_autofree char *shown_id = pd_safe_text_line (session_id);

        fprintf (stderr, _("plandeck-agent events: “%s” is not a session id (YYYYMMDD- and 32 hex digits)\n"), shown_id);
      }
      return 2;
    }

  if (!(store = pd_agent_open_store (db_path, FALSE, &error)))
    return pd_agent_fail ("events", error);

  /* A prefix or the agent's own session id, as `sessions show` takes
   * (tried as a new user would: the id the Continue card shows was
   * refused here). */
  if (session_id != NULL && !pd_session_id_is_valid (session_id))
    {
      char *resolved = pd_agent_resolve_session_id (store, session_id, "events");

      if (resolved == NULL)
        return 2;
      g_free (session_id);
      session_id = resolved;
    }

  do
    {
      if (!print_after (store, session_id, type, &after, &error))
        return pd_agent_fail ("events", error);
      if (follow)
        g_usleep (FOLLOW_INTERVAL_USEC);
    }
  while (follow);

  return 0;
}

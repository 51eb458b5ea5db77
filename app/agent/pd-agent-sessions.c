/* pd-agent-sessions.c: `plandeck-agent sessions` — the stored sessions.
 *
 *   sessions [--db PATH] list [--query Q] [--full-text] [--limit N] [--offset N] [--json]
 *   sessions [--db PATH] show ID [--json]
 *   sessions [--db PATH] export ID      the full session as JSON
 *   sessions [--db PATH] rm ID
 *   sessions [--db PATH] removed [--json]  other agents' sessions removed from the list
 *   sessions [--db PATH] restore ID     one of them listed again
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <unistd.h>
#include <gio/gunixoutputstream.h>

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-safe-text.h"
#include "pd-session-reads.h"
#include "pd-source.h"

static char *
format_time (gint64 usec)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);

  return time ? g_date_time_format (time, "%Y-%m-%d %H:%M") : g_strdup ("?");
}

/* Text from the model, a user or another agent's transcript (an imported
 * session's title and folder) on a terminal: no control character, and no
 * invisible format character left to reorder what is shown (a bidi
 * override becomes <U+202E>). */
static char *
safe (const char *text)
{
  return pd_safe_text_line (text ? text : "");
}

/* A session's state in the window's word (pd_session_info_get_shown_state());
 * --json keeps the stored status, which scripts read. */
static const char *
state_word (const PdSessionInfo *info)
{
  return pd_session_info_get_shown_state (info, g_get_real_time ());
}

/* Titles: one line, bounded, and safe. */
static char *
display_title (const PdSessionInfo *info,
               glong                max_chars)
{
  g_autofree char *flat = pd_plan_text_normalize (info->name && *info->name ? info->name : info->task);

  if (g_utf8_strlen (flat, -1) > max_chars)
    {
      g_autofree char *cut = g_utf8_substring (flat, 0, max_chars - 1);
      g_autofree char *shown = g_strconcat (cut, "\xe2\x80\xa6", NULL);
      return safe (shown);
    }
  return safe (flat);
}

/* A block of lines (the plan status), each made safe. */
static char *
safe_lines (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);

  for (guint i = 0; lines[i]; i++)
    {
      char *line = safe (lines[i]);
      g_free (lines[i]);
      lines[i] = line;
    }
  return g_strjoinv ("\n", lines);
}

/* The session list's columns before its title. */
enum { N_COLUMNS = 4 };

/* One line of the list: each cell padded to its column's width in
 * characters (printf's widths count bytes), then the title. */
static void
print_columns (const char  **cells,
               const guint  *widths,
               const char   *last)
{
  g_autoptr(GString) line = g_string_new (NULL);

  for (guint c = 0; c < N_COLUMNS; c++)
    {
      g_string_append (line, cells[c]);
      for (glong n = g_utf8_strlen (cells[c], -1); n < (glong) widths[c] + 2; n++)
        g_string_append_c (line, ' ');
    }
  g_string_append (line, last);
  printf ("%s\n", line->str);
}

static int
sessions_list (PdSessionStore *store,
               const char     *query,
               gboolean        full_text,
               int             offset,
               int             limit,
               gboolean        as_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  guint total = 0;

  sessions = pd_session_store_list (store, query, full_text, (guint) offset, (guint) limit, &total, &error);
  if (sessions == NULL)
    return pd_agent_fail ("sessions list", error);

  if (as_json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();

      for (guint i = 0; i < sessions->len; i++)
        json_array_add_object_element (array, pd_session_info_to_json (g_ptr_array_index (sessions, i), FALSE));
      json_object_set_array_member (object, "sessions", array);
      json_object_set_int_member (object, "offset", offset);
      json_object_set_int_member (object, "limit", limit);
      json_object_set_int_member (object, "count", sessions->len);
      json_object_set_int_member (object, "total", total);
      json_object_set_string_member (object, "query", query ? query : "");
      json_node_take_object (root, object);
      pd_agent_print_json (root, FALSE);
      return 0;
    }

  if (sessions->len == 0)
    {
      printf ("%s\n", query ? _("No sessions match.") : _("No sessions yet."));
      return 0;
    }

  {
    /* Translators: the headings of the columns of the session list. */
    const char *headings[N_COLUMNS] = { _("ID"), _("STATUS"), _("PLAN"), _("UPDATED") };
    g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
    guint widths[N_COLUMNS];

    /* Each column as wide as its widest cell: with fixed widths an
     * "interrupted" session, a longer imported id or a translated heading
     * pushed the columns after it out of line. */
    for (guint c = 0; c < N_COLUMNS; c++)
      widths[c] = (guint) g_utf8_strlen (headings[c], -1);
    for (guint i = 0; i < sessions->len; i++)
      {
        const PdSessionInfo *info = g_ptr_array_index (sessions, i);
        char *row[N_COLUMNS] = {
          safe (info->id),
          g_strdup (state_word (info)),
          info->plan_version > 0 || info->plan_total > 0 ? g_strdup_printf ("%u/%u", info->plan_done, info->plan_total)
                                                         : g_strdup ("-"),
          format_time (info->updated_at),
        };

        for (guint c = 0; c < N_COLUMNS; c++)
          {
            widths[c] = MAX (widths[c], (guint) g_utf8_strlen (row[c], -1));
            g_ptr_array_add (cells, row[c]);
          }
      }

    print_columns (headings, widths, _("TITLE"));
    for (guint i = 0; i < sessions->len; i++)
      {
        const PdSessionInfo *info = g_ptr_array_index (sessions, i);
        g_autofree char *title = display_title (info, 60);
        g_autofree char *shown = g_strconcat (info->pinned ? "\xf0\x9f\x93\x8c " : "", title, NULL);

        print_columns ((const char **) &cells->pdata[i * N_COLUMNS], widths, shown);
      }
  }

  if (total > sessions->len)
    printf (_("(%u of %u; --offset and --limit page through the rest)\n"), sessions->len, total);

  return 0;
}

/* The steps of @cancelled in a plan state's JSON say "cancelled" as their
 * status, as `sessions export` writes them. */
static void
mark_cancelled (JsonNode   *state,
                GHashTable *cancelled)
{
  JsonArray *steps;

  if (state == NULL || cancelled == NULL || g_hash_table_size (cancelled) == 0 || !JSON_NODE_HOLDS_OBJECT (state)
      || !(steps = pd_json_get_array (json_node_get_object (state), "steps")))
    return;
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonNode *node = json_array_get_element (steps, i);
      JsonObject *step = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *step_id = pd_json_get_string (step, "id");

      if (step_id != NULL && g_hash_table_contains (cancelled, step_id)
          && g_strcmp0 (pd_json_get_string (step, "status"), "blocked") == 0)
        json_object_set_string_member (step, "status", "cancelled");
    }
}

/* The agent's own id of an imported session can be any text, another
 * session's Plandeck id too (a crafted transcript): said under the
 * continue line, since plandeck-agent given that id acts on the other
 * (tried as an attacker would, att20 L1). */
static void
note_other_session (PdSessionStore      *store,
                    const char          *id,
                    const char * const  *argv)
{
  for (guint i = 1; argv[i] != NULL; i++)
    {
      g_autoptr(PdSessionInfo) other = NULL;

      if (!pd_session_id_is_valid (argv[i]) || strcmp (argv[i], id) == 0)
        continue;
      if ((other = pd_session_store_get (store, argv[i], NULL)) == NULL)
        continue;
      /* TRANSLATORS: %s is this session's id; keep the spaces that line it up under "continue" */
      printf (_("            (that id is also another session’s here: plandeck-agent given it acts on that one; "
                "this one is %s)\n"), id);
    }
}

static int
sessions_show (PdSessionStore *store,
               const char     *id,
               gboolean        as_json)
{
  g_autoptr(GError) error = NULL;
  gboolean counted = TRUE;
  g_autoptr(PdSessionInfo) info = pd_session_reads_get_counted (store, id, &counted, &error);
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GHashTable) cancelled = NULL;
  g_autoptr(PdResumeCommand) resume = NULL;
  g_autofree char *status = NULL;

  if (info == NULL)
    return pd_agent_fail ("sessions show", error);

  /* An imported agent's cancelled items, which the plan's words call
   * blocked: shown cancelled and out of the steps, as the window shows
   * them and the summary counts them. */
  if (!pd_session_reads_get_plan_marked (store, id, &plan, &cancelled, &error))
    return pd_agent_fail ("sessions show", error);

  /* Another agent's session is continued in that agent. */
  {
    g_auto(GStrv) argv = NULL;
    g_autofree char *workdir = NULL;

    if (pd_session_reads_get_resume (store, id, &argv, &workdir, NULL))
      resume = pd_resume_command_new (g_steal_pointer (&argv), workdir);
  }

  if (as_json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = pd_session_info_to_json (info, FALSE);

      /* A long transcript is not read whole to count its messages. */
      if (!counted)
        json_object_set_null_member (object, "messages");
      if (plan != NULL)
        {
          g_autofree char *state = pd_plan_state_to_json (plan);
          JsonNode *node = pd_json_from_string_bounded (state, NULL);

          mark_cancelled (node, cancelled);
          json_object_set_member (object, "plan_state", node);
        }
      if (resume != NULL)
        {
          JsonObject *command = json_object_new ();
          JsonArray *words = json_array_new ();

          for (guint i = 0; resume->argv[i]; i++)
            json_array_add_string_element (words, resume->argv[i]);
          json_object_set_array_member (command, "argv", words);
          if (resume->workdir)
            json_object_set_string_member (command, "workdir", resume->workdir);
          else
            json_object_set_null_member (command, "workdir");
          json_object_set_object_member (object, "resume", command);
        }
      json_node_take_object (root, object);
      pd_agent_print_json (root, TRUE);
      return 0;
    }

  {
    g_autofree char *created = format_time (info->created_at);
    g_autofree char *updated = format_time (info->updated_at);
    g_autofree char *title = display_title (info, 200);
    g_autofree char *source = safe (info->source);
    g_autofree char *model = safe (info->model);
    g_autofree char *provider = safe (info->provider);
    g_autofree char *folder = safe (info->cwd);

    printf ("%s\n", title);
    printf (_("  id        %s\n"), info->id);
    printf (_("  status    %s\n"), state_word (info));
    printf (_("  source    %s\n"), source);
    /* Another agent's transcript names no model we ran, and its turns and
     * tokens were never counted here: no "model  ()" and no zeros. */
    if (*model != '\0')
      printf (_("  model     %s (%s)\n"), model, *provider ? provider : "?");
    /* An older Gemini CLI session in a hashed folder names none: said once
     * ("folder    unknown"), not an empty line. */
    printf (_("  folder    %s\n"), *folder != '\0' ? folder : C_("folder", "unknown"));
    printf (_("  created   %s\n  updated   %s\n"), created, updated);
    if (!pd_session_info_is_imported (info))
      printf (_("  turns     %lld, tokens in %lld / out %lld\n"),
              (long long) info->turns, (long long) info->input_tokens, (long long) info->output_tokens);
    /* Another agent's long transcript is read only at its end: its
     * messages are not counted (the pages count them). */
    if (!counted)
      printf ("%s\n", info->pinned ? _("  messages  not counted (a long transcript: only its end is read), pinned")
                                   : _("  messages  not counted (a long transcript: only its end is read)"));
    else if (info->pinned)
      printf (_("  messages  %u, pinned\n"), info->n_messages);
    else
      printf (_("  messages  %u\n"), info->n_messages);
    if (resume != NULL)
      {
        g_autofree char *line = pd_resume_command_to_string (resume);
        g_autofree char *shown = safe (line);

        printf (_("  continue  %s\n"), shown);
        if (resume->workdir != NULL)
          {
            g_autofree char *workdir = safe (resume->workdir);
            printf (_("            in %s\n"), workdir);
          }
        else
          printf (_("            inside the project folder (its folder is unknown)\n"));
        note_other_session (store, info->id, (const char * const *) resume->argv);
      }
    /* The editor extensions keep no command: their tasks are continued from
     * the task history in the editor (said where the command would be). */
    else if (g_strcmp0 (info->source, "cline") == 0 || g_strcmp0 (info->source, "roo") == 0
             || g_strcmp0 (info->source, "kilo") == 0)
      printf (_("  continue  from the task history in the editor (the extension has no command)\n"));
    printf ("\n");
  }

  {
    g_autofree char *text = pd_plan_format_status_marked (plan, PD_PLAN_STATUS_MAX_CHARS, cancelled,
                                                          pd_agent_run_left_off (info));
    status = safe_lines (text);
  }
  printf ("%s\n", status);
  return 0;
}

static int
sessions_export (PdSessionStore *store,
                 const char     *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOutputStream) fd = g_unix_output_stream_new (STDOUT_FILENO, FALSE);
  g_autoptr(GOutputStream) out = g_buffered_output_stream_new_sized (fd, 64 * 1024);

  /* Written as it is read: a transcript of 300,000 plan calls was built
   * whole first (1.6 GB). */
  fflush (stdout);
  if (!pd_session_reads_export_json (store, id, out, TRUE, NULL, &error))
    return pd_agent_fail ("sessions export", error);
  return 0;
}

static int
sessions_rm (PdSessionStore *store,
             const char     *id)
{
  g_autoptr(GError) error = NULL;
  gboolean imported;

  /* Another agent's session is only taken out of the list, as the window
   * says; "Removed session ID" read as a delete of the agent's transcript
   * (tried as a new user would, nu15). */
  imported = pd_session_store_get_import (store, id, NULL, NULL, NULL, &error);
  if (error != NULL)
    return pd_agent_fail ("sessions rm", error);
  if (!pd_session_store_delete (store, id, &error))
    return pd_agent_fail ("sessions rm", error);

  if (imported)
    /* Translators: %s is a session id; `sessions restore` is a command */
    printf (_("Session %s removed from the list; the agent’s own transcript is kept (sessions restore %s lists it "
              "again)\n"), id, id);
  else
    printf (_("Removed session %s\n"), id);
  return 0;
}

/* Other agents' sessions `rm` (or the window's Remove From List) took
 * out of the list: their transcripts stay, and `restore` lists one again. */
static int
sessions_removed (PdSessionStore *store,
                  gboolean        as_json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = pd_session_store_list_removed (store, &error);

  if (sessions == NULL)
    return pd_agent_fail ("sessions removed", error);

  if (as_json)
    {
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();

      for (guint i = 0; i < sessions->len; i++)
        json_array_add_object_element (array, pd_session_info_to_json (g_ptr_array_index (sessions, i), FALSE));
      json_object_set_array_member (object, "sessions", array);
      json_node_take_object (root, object);
      pd_agent_print_json (root, FALSE);
      return 0;
    }

  if (sessions->len == 0)
    {
      printf ("%s\n", _("No session is removed from the list."));
      return 0;
    }

  printf ("%-41s  %-16s  %s\n", _("ID"), _("UPDATED"), _("TITLE"));
  for (guint i = 0; i < sessions->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (sessions, i);
      g_autofree char *updated = format_time (info->updated_at);
      g_autofree char *title = display_title (info, 60);

      printf ("%-41s  %-16s  %s\n", info->id, updated, title);
    }
  return 0;
}

static int
sessions_restore (PdSessionStore *store,
                  const char     *id)
{
  g_autoptr(GError) error = NULL;

  if (!pd_session_store_restore (store, id, &error))
    return pd_agent_fail ("sessions restore", error);

  printf (_("Session %s is in the list again\n"), id);
  return 0;
}

int
pd_agent_sessions_main (int    argc,
                        char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *query = NULL;
  gboolean as_json = FALSE;
  gboolean full_text = FALSE;
  int limit = 50;
  int offset = 0;
  const char *command;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, N_("Session database (default: $XDG_DATA_HOME/plandeck/sessions.db)"), N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, N_("list, show, removed: print JSON"), NULL },
    { "query", 'q', 0, G_OPTION_ARG_STRING, &query, N_("list: case-insensitive substring of task, model, name or id"), N_("Q") },
    { "full-text", 0, 0, G_OPTION_ARG_NONE, &full_text, N_("list: also search the message text"), NULL },
    { "limit", 0, 0, G_OPTION_ARG_INT, &limit, N_("list: at most N sessions (1..200, default 50)"), N_("N") },
    { "offset", 0, 0, G_OPTION_ARG_INT, &offset, N_("list: skip the first N sessions"), N_("N") },
    { NULL }
  };

  /* Translators: list, removed, show, export, rm and restore are subcommands: keep them. */
  context = g_option_context_new (_("list|removed|show ID|export ID|rm ID|restore ID"));
  /* Translators: the subcommands and the options keep their names; the
   * descriptions line up after the longest "restore ID". */
  g_option_context_set_summary (context,
                                _("The stored sessions.\n"
                                  "\n"
                                  "Commands:\n"
                                  "  list          the sessions, newest first (--query, --full-text,\n"
                                  "                --limit, --offset, --json); the default\n"
                                  "  show ID       one session: its metadata, plan and messages (--json)\n"
                                  "  export ID     the whole session as JSON\n"
                                  "  rm ID         remove the session from the database (another agent's\n"
                                  "                session is only removed from the list)\n"
                                  "  removed       other agents' sessions removed from the list, the\n"
                                  "                latest first (--json)\n"
                                  "  restore ID    list a session removed from the list again"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "plandeck-agent sessions: %s\n", error->message);
      return 2;
    }

  command = argc >= 2 ? argv[1] : "list";

  if (((strcmp (command, "list") == 0 || strcmp (command, "removed") == 0) && argc > 2) ||
      ((strcmp (command, "show") == 0 || strcmp (command, "export") == 0 || strcmp (command, "rm") == 0 ||
        strcmp (command, "restore") == 0) && argc != 3))
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
      fprintf (stderr, "%s", help);
      return 2;
    }

  if (limit < 1 || limit > PD_SESSION_LIST_MAX_LIMIT || offset < 0)
    {
      if (offset < 0)
        fprintf (stderr, "%s\n", _("plandeck-agent sessions: --offset takes 0 or more"));
      else
        fprintf (stderr, _("plandeck-agent sessions: --limit takes 1 to %d\n"), PD_SESSION_LIST_MAX_LIMIT);
      return 2;
    }

  if (argc == 3 && !pd_session_id_is_valid (argv[2]))
    {
      /* Shown as one safe line: an argument is not always typed by hand. */
      g_autofree char *shown_id = pd_safe_text_line (argv[2]);

      if (!pd_agent_id_like (argv[2]))
        {
          fprintf (stderr, _("plandeck-agent sessions: “%s” is not a session id (YYYYMMDD- and 32 hex digits, its first 8 or more characters, or the agent’s own session id)\n"),
                   shown_id);
          return 2;
        }
    }

  if (!(store = pd_agent_open_store (db_path, FALSE, &error)))
    return pd_agent_fail ("sessions", error);

  if (strcmp (command, "list") == 0)
    return sessions_list (store, query, full_text, offset, limit, as_json);
  /* Read only: a prefix or the agent's own id names the session. */
  if (strcmp (command, "show") == 0 || strcmp (command, "export") == 0)
    {
      g_autofree char *id = pd_agent_resolve_session_id (store, argv[2], "sessions");

      if (id == NULL)
        return 2;
      return strcmp (command, "show") == 0 ? sessions_show (store, id, as_json) : sessions_export (store, id);
    }
  /* rm and restore too, as show does: the id a user has is often the one
   * the agent's resume line shows (tried as a new user would).  A prefix
   * naming several sessions is refused with their ids. */
  if (strcmp (command, "rm") == 0)
    {
      g_autofree char *id = pd_agent_resolve_session_id (store, argv[2], "sessions rm");

      /* rm of a Plandeck session deletes it for good: an id that is also
       * an import's agent's own id is refused, not taken for the one. */
      if (id == NULL || !pd_agent_check_id_names_one (store, argv[2], id, "sessions rm"))
        return 2;
      return sessions_rm (store, id);
    }
  if (strcmp (command, "removed") == 0)
    return sessions_removed (store, as_json);
  if (strcmp (command, "restore") == 0)
    {
      g_autofree char *id = pd_agent_resolve_removed_session_id (store, argv[2], "sessions restore");

      return id == NULL ? 2 : sessions_restore (store, id);
    }

  fprintf (stderr, _("plandeck-agent sessions: unknown command “%s” (want list, removed, show, export, rm or restore)\n"),
           command);
  return 2;
}

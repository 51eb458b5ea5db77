/* pd-agent-plan.c: `plandeck-agent plan` — the plan engine from the command line.
 *
 *   plan apply [--max-steps N] [--max-render-chars N]
 *       JSON lines on stdin, one JSON line out per line in, in order:
 *       {"call":{…}}  {"observe":{…}}  {"batch":"end"}  {"render":{"nonce":"X"}}
 *       {"resume":{}}  {"state":{}}
 *   plan parse [--max-steps N]
 *       a rendered plan message on stdin → its state as JSON, or the
 *       parser's error on stderr and exit status 1
 *   plan status [--db PATH] SESSION_ID
 *       a stored session's plan as a person reads it in a terminal
 *
 * People debugging plans use it, and the conformance scenarios drive the
 * engine through it exactly as the agent loop does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-safe-text.h"
#include "pd-config.h"
#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-session-reads.h"

/* One input line may hold a large plan call, but not an unbounded one. */
#define MAX_LINE_BYTES (16 * 1024 * 1024)

typedef struct
{
  PdPlanStore *store;
  guint        max_steps;
  guint        max_render_chars;
} ApplySession;

static void
emit (GString *line)
{
  g_string_append_c (line, '\n');
  fwrite (line->str, 1, line->len, stdout);
  fflush (stdout);
}

static void
emit_error (const char *message,
            gboolean    with_version,
            gint64      version)
{
  g_autoptr(GString) out = g_string_new ("{\"ok\":false,");

  if (with_version)
    g_string_append_printf (out, "\"version\":%" G_GINT64_FORMAT ",", version);
  g_string_append (out, "\"error\":");
  pd_json_append_string (out, message);
  g_string_append_c (out, '}');
  emit (out);
}

static void
emit_version (gint64 version)
{
  g_autoptr(GString) out = g_string_new (NULL);

  g_string_append_printf (out, "{\"version\":%" G_GINT64_FORMAT "}", version);
  emit (out);
}

static void
handle_call (ApplySession *session,
             JsonNode     *args)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = NULL;
  gint64 version = 0;

  result = pd_plan_store_execute_node (session->store, args, &version, &error);
  if (result == NULL)
    {
      emit_error (error->message, TRUE, version);
      return;
    }

  {
    g_autoptr(GString) out = g_string_new (NULL);

    g_string_append_printf (out, "{\"ok\":true,\"version\":%" G_GINT64_FORMAT ",\"result\":", version);
    pd_json_append_string (out, result);
    g_string_append_c (out, '}');
    emit (out);
  }
}

static gboolean
member_bool (JsonObject *object,
             const char *key,
             gboolean    fallback,
             gboolean   *out)
{
  JsonNode *node = json_object_get_member (object, key);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      *out = fallback;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return FALSE;
  *out = json_node_get_boolean (node);
  return TRUE;
}

static void
handle_observe (ApplySession *session,
                JsonNode     *node)
{
  static const char * const allowed[] = { "tool", "arguments", "ok", "call_id", "effects", "denied", NULL };
  PdPlanObservation observation = { 0 };
  g_autoptr(JsonNode) empty = NULL;
  JsonObject *object;
  JsonNode *arguments;
  const char *effects;
  GList *members;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      emit_error ("observe: expected an object {tool, arguments, ok, call_id, effects, denied}", FALSE, 0);
      return;
    }

  object = json_node_get_object (node);
  members = json_object_get_members (object);
  for (GList *l = members; l; l = l->next)
    if (!g_strv_contains (allowed, l->data))
      {
        g_autofree char *message = g_strdup_printf ("observe: unknown key '%s' (expected tool, arguments, ok, call_id, effects, denied)",
                                                    (const char *) l->data);
        g_list_free (members);
        emit_error (message, FALSE, 0);
        return;
      }
  g_list_free (members);

  /* Each member is read for its type: json-glib's getters raise a
   * critical for an object or an array where a string goes. */
  observation.tool = pd_json_get_string (object, "tool");
  if (observation.tool == NULL || *observation.tool == '\0')
    {
      emit_error ("observe: 'tool' (string) is required", FALSE, 0);
      return;
    }

  arguments = json_object_get_member (object, "arguments");
  if (arguments == NULL || JSON_NODE_HOLDS_NULL (arguments))
    {
      empty = json_node_init_object (json_node_alloc (), json_object_new ());
      arguments = empty;
    }
  if (!JSON_NODE_HOLDS_OBJECT (arguments))
    {
      emit_error ("observe: 'arguments' must be an object", FALSE, 0);
      return;
    }
  observation.arguments = arguments;

  if (!member_bool (object, "ok", TRUE, &observation.ok) ||
      !member_bool (object, "denied", FALSE, &observation.denied))
    {
      emit_error ("observe: 'ok' and 'denied' must be booleans", FALSE, 0);
      return;
    }

  if (json_object_has_member (object, "call_id") &&
      !JSON_NODE_HOLDS_NULL (json_object_get_member (object, "call_id")))
    {
      JsonNode *call_id = json_object_get_member (object, "call_id");

      if (!JSON_NODE_HOLDS_VALUE (call_id) || json_node_get_value_type (call_id) != G_TYPE_STRING)
        {
          emit_error ("observe: 'call_id' must be a string", FALSE, 0);
          return;
        }
      observation.call_id = json_node_get_string (call_id);
    }

  if (!pd_json_get_optional_string (object, "effects", &effects))
    effects = "";  /* of another type: refused below */
  else if (effects == NULL)
    effects = "unknown";
  if (!pd_tool_effects_from_string (effects, &observation.effects))
    {
      emit_error ("observe: 'effects' must be \"read\", \"write\" or \"unknown\"", FALSE, 0);
      return;
    }

  pd_plan_store_record_outcome (session->store, &observation);
  emit_version (pd_plan_store_get_version (session->store));
}

static gboolean
nonce_ok (const char *nonce)
{
  gsize len = strlen (nonce);

  if (len == 0 || len > 64)
    return FALSE;
  for (const char *p = nonce; *p; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return TRUE;
}

static void
handle_render (ApplySession *session,
               JsonNode     *node)
{
  g_autofree char *render = NULL;
  g_autofree char *wrapped = NULL;
  g_autofree char *nonce = NULL;
  g_autoptr(GString) out = NULL;
  const char *given = NULL;

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
      !pd_json_get_optional_string (json_node_get_object (node), "nonce", &given))
    given = "";  /* a nonce of another type: refused below */

  if (given != NULL && !nonce_ok (given))
    {
      emit_error ("render: 'nonce' must be 1..64 letters or digits", FALSE, 0);
      return;
    }

  nonce = given ? g_strdup (given) : pd_plan_new_nonce ();
  render = pd_plan_store_render (session->store, NULL);
  if (render == NULL)
    render = g_strdup (PD_PLAN_NO_PLAN_TEXT);
  wrapped = pd_plan_wrap (render, nonce);

  out = g_string_new ("{\"render\":");
  pd_json_append_string (out, render);
  g_string_append (out, ",\"wrapped\":");
  pd_json_append_string (out, wrapped);
  g_string_append_c (out, '}');
  emit (out);
}

/* What a restart does: the persisted (wrapped) message is all that is left;
 * a fresh store restores from it strictly, or starts without a plan. */
static void
handle_resume (ApplySession *session)
{
  g_autoptr(PdPlanStore) fresh = pd_plan_store_new (session->max_steps, session->max_render_chars);
  g_autofree char *render = pd_plan_store_render (session->store, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdPlanState) state = NULL;

  if (render != NULL)
    {
      g_autofree char *nonce = pd_plan_new_nonce ();
      g_autofree char *wrapped = pd_plan_wrap (render, nonce);

      state = pd_plan_parse (wrapped, session->max_steps, &error);
      if (state != NULL)
        pd_plan_store_restore (fresh, state);
    }

  g_object_unref (session->store);
  session->store = g_steal_pointer (&fresh);

  if (render != NULL && state == NULL)
    {
      emit_error (error->message, TRUE, 0);
      return;
    }

  {
    g_autoptr(GString) out = g_string_new (NULL);

    g_string_append_printf (out, "{\"ok\":true,\"version\":%" G_GINT64_FORMAT ",\"found\":%s}",
                            pd_plan_store_get_version (session->store), render ? "true" : "false");
    emit (out);
  }
}

static void
handle_state (ApplySession *session)
{
  g_autoptr(PdPlanState) state = pd_plan_store_snapshot (session->store);
  g_autofree char *json = pd_plan_state_to_json (state);
  g_autoptr(GString) out = g_string_new ("{\"state\":");

  g_string_append (out, json);
  g_string_append_c (out, '}');
  emit (out);
}

static void
handle_line (ApplySession *session,
             const char   *line,
             gsize         len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = pd_json_parse (line, len, &error);
  JsonObject *object;
  const char *command;
  JsonNode *value;

  if (node == NULL)
    {
      g_autofree char *message = g_strdup_printf ("input line is not JSON: %s", error->message);
      emit_error (message, FALSE, 0);
      return;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node) || json_object_get_size (json_node_get_object (node)) != 1)
    {
      emit_error ("expected an object with exactly one of: call, observe, batch, render, resume, state", FALSE, 0);
      return;
    }

  object = json_node_get_object (node);
  {
    GList *members = json_object_get_members (object);
    command = members->data;
    g_list_free (members);
  }
  value = json_object_get_member (object, command);

  if (strcmp (command, "call") == 0)
    handle_call (session, value);
  else if (strcmp (command, "observe") == 0)
    handle_observe (session, value);
  else if (strcmp (command, "batch") == 0)
    {
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING ||
          strcmp (json_node_get_string (value), "end") != 0)
        emit_error ("batch: the only command is {\"batch\":\"end\"}", FALSE, 0);
      else
        {
          pd_plan_store_end_batch (session->store);
          emit_version (pd_plan_store_get_version (session->store));
        }
    }
  else if (strcmp (command, "render") == 0)
    handle_render (session, value);
  else if (strcmp (command, "resume") == 0)
    handle_resume (session);
  else if (strcmp (command, "state") == 0)
    handle_state (session);
  else
    {
      g_autofree char *message = g_strdup_printf ("unknown command '%s' (want call, observe, batch, render, resume or state)",
                                                  command);
      emit_error (message, FALSE, 0);
    }
}

static gboolean
is_blank (const char *line,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isspace (line[i]))
      return FALSE;
  return TRUE;
}

static PdConfig *
load_config (int max_steps,
             int max_render_chars)
{
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;
  PdConfig *config;
  const char * const *warnings;

  options.cli_max_steps = max_steps;
  options.cli_max_render_chars = max_render_chars;
  config = pd_config_load (&options);

  warnings = pd_config_get_warnings (config);
  for (guint i = 0; warnings[i]; i++)
    fprintf (stderr, _("plandeck-agent: warning: %s\n"), warnings[i]);

  return config;
}

static int
plan_apply (int max_steps,
            int max_render_chars)
{
  g_autoptr(PdConfig) config = load_config (max_steps, max_render_chars);
  ApplySession session = { 0 };
  g_autoptr(GString) line = g_string_new (NULL);
  gboolean overlong = FALSE;
  int c;

  session.max_steps = pd_config_get_planning_max_steps (config);
  session.max_render_chars = pd_config_get_planning_max_render_chars (config);
  session.store = pd_plan_store_new (session.max_steps, session.max_render_chars);

  /* Byte by byte through stdio's buffer: lines have no length limit but
   * MAX_LINE_BYTES, and a line over it is answered with an error, not read
   * into memory. */
  for (;;)
    {
      c = getchar ();

      if (c == '\n' || c == EOF)
        {
          if (overlong)
            emit_error ("input line is longer than 16 MiB", FALSE, 0);
          else if (!is_blank (line->str, line->len))
            handle_line (&session, line->str, line->len);

          g_string_truncate (line, 0);
          overlong = FALSE;

          if (c == EOF)
            break;
          continue;
        }

      if (line->len >= MAX_LINE_BYTES)
        overlong = TRUE;
      else
        g_string_append_c (line, (char) c);
    }

  g_clear_object (&session.store);
  return 0;
}

static int
plan_parse (int max_steps)
{
  g_autoptr(PdConfig) config = load_config (max_steps, -1);
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdPlanState) state = NULL;
  g_autofree char *json = NULL;
  char buffer[65536];
  size_t n;

  while ((n = fread (buffer, 1, sizeof buffer, stdin)) > 0)
    {
      if (input->len + n > MAX_LINE_BYTES)
        {
          fprintf (stderr, "%s\n", _("plan: message is longer than 16 MiB"));
          return 1;
        }
      g_string_append_len (input, buffer, n);
    }

  if (memchr (input->str, '\0', input->len) != NULL)
    {
      fprintf (stderr, "%s\n", _("plan: message contains a NUL byte"));
      return 1;
    }

  /* A file or echo usually ends in one newline; the message itself does not. */
  if (input->len > 0 && input->str[input->len - 1] == '\n')
    g_string_truncate (input, input->len - 1);

  state = pd_plan_parse (input->str, pd_config_get_planning_max_steps (config), &error);
  if (state == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }

  json = pd_plan_state_to_json (state);
  printf ("%s\n", json);
  return 0;
}

static int
plan_status (const char *db_path,
             const char *session_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GHashTable) cancelled = NULL;
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;

  if (!pd_session_id_is_valid (session_id))
    {
      {
        /* Shown as one safe line: an argument is not always typed by hand. */
        g_autofree char *shown_id = pd_safe_text_line (session_id);

        fprintf (stderr, _("plandeck-agent plan status: “%s” is not a session id (YYYYMMDD- and 32 hex digits)\n"), shown_id);
      }
      return 2;
    }

  /* An imported agent's cancelled items, which the plan's words call
   * blocked, are read with the plan and shown cancelled, as `sessions show`
   * and the window show them (this read the plan alone: "3/5 done ·
   * 1 blocked" beside show's "3/4 done · 1 cancelled"). */
  if (!(store = pd_agent_open_store (db_path, FALSE, &error)) ||
      !(info = pd_session_store_get (store, session_id, &error)) ||
      !pd_session_reads_get_plan_marked (store, session_id, &state, &cancelled, &error))
    return pd_agent_fail ("plan status", error);

  text = pd_plan_format_status_marked (state, PD_PLAN_STATUS_MAX_CHARS, cancelled, pd_agent_run_left_off (info));
  /* Titles and notes are the model's: bidi controls shown, not obeyed. */
  shown = pd_safe_text_block (text);
  printf ("%s\n", shown);
  return 0;
}

int
pd_agent_plan_main (int    argc,
                    char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  int max_steps = -1;
  int max_render_chars = -1;
  g_autofree char *db_path = NULL;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, N_("status: session database (default: $XDG_DATA_HOME/plandeck/sessions.db)"), N_("PATH") },
    { "max-steps", 0, 0, G_OPTION_ARG_INT, &max_steps, N_("Step cap (1..50; default from config)"), N_("N") },
    { "max-render-chars", 0, 0, G_OPTION_ARG_INT, &max_render_chars, N_("Render cap (200..8000; default from config)"), N_("N") },
    { NULL }
  };

  /* Translators: apply, parse and status are subcommands: keep them. */
  context = g_option_context_new (_("apply|parse|status SESSION_ID"));
  g_option_context_set_summary (context,
                                _("apply: JSON lines on stdin ({\"call\"|\"observe\"|\"batch\"|\"render\"|\"resume\"|\"state\": …}),\n"
                                  "       one JSON line out for each.\n"
                                  "parse: a rendered plan message on stdin, its state as JSON on stdout.\n"
                                  "status: a stored session’s plan, as a person reads it."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "plandeck-agent plan: %s\n", error->message);
      return 2;
    }

  if (argc == 3 && strcmp (argv[1], "status") == 0)
    return plan_status (db_path, argv[2]);
  if (argc >= 2 && strcmp (argv[1], "status") == 0)
    {
      fprintf (stderr, "%s\n", _("plandeck-agent plan status: give one SESSION_ID "
                                  "(“plandeck-agent sessions list” shows them)"));
      return 2;
    }

  if (argc != 2)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
      fprintf (stderr, "%s", help);
      return 2;
    }

  if (strcmp (argv[1], "apply") == 0)
    return plan_apply (max_steps, max_render_chars);
  if (strcmp (argv[1], "parse") == 0)
    return plan_parse (max_steps);

  fprintf (stderr, _("plandeck-agent plan: unknown subcommand “%s” (want apply, parse or status SESSION_ID)\n"), argv[1]);
  return 2;
}

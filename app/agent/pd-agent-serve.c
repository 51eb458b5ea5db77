/* pd-agent-serve.c: `plandeck-agent serve` — the REST API over a session
 * database, odek-compatible, with runs through the embedded engine.
 *
 *   serve [--db PATH] [--listen ADDR:PORT] [--allow-host HOST]...
 *         [--allow-origin ORIGIN]... [--rate-limit N] [--webui DIR]
 *         [--max-streams N] [--max-streams-per-client N] [engine options of `run`]
 *
 * The start URL (with the instance token) goes to stdout as the first line;
 * SIGINT or SIGTERM stops the server cleanly (active runs are cancelled and
 * saved first).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>
#include <glib-unix.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-agent-engine.h"
#include "pd-server.h"

/* POST /api/prompt: one engine per run, from the one builder; the request
 * brings the server's store and bus, the run's id and maybe a model.
 * Called on the server thread only, so setting the builder up is safe. */
typedef struct
{
  PdEngineBuilder  *builder;
  PdApprovalPolicy  policy;
} Maker;

static void
maker_free (gpointer data)
{
  Maker *maker = data;

  g_object_unref (maker->builder);
  g_free (maker);
}

/* Runs from the API and the WebSocket: one engine per run, from the one
 * builder; the request brings the server's store and bus, the run's id,
 * maybe a model, and who answers its approval questions (the person
 * watching the run, within the timeout).  Called on the server thread
 * only, so setting the builder up is safe. */
/* --approve auto: a plan is approved as a change is. */
static PdPlanReviewAnswer
review_auto (const char  *markdown,
             char       **feedback,
             gpointer     user_data)
{
  return PD_PLAN_REVIEW_APPROVE;
}

/* --approve deny: nothing a person would be asked passes, a plan neither;
 * the call fails and plan mode stays. */
static PdPlanReviewAnswer
review_deny (const char  *markdown,
             char       **feedback,
             gpointer     user_data)
{
  *feedback = g_strdup ("this server denies what needs a person's answer (--approve deny)");
  return PD_PLAN_REVIEW_UNANSWERED;
}

static PdEngine *
make_engine (const PdServerRunRequest  *request,
             gpointer                   user_data,
             GError                   **error)
{
  Maker *maker = user_data;
  PdEngine *engine;

  pd_engine_builder_set_model (maker->builder, request->model);
  pd_engine_builder_set_store (maker->builder, request->store);
  pd_engine_builder_set_bus (maker->builder, request->bus);
  pd_engine_builder_set_run_id (maker->builder, request->run_id);
  pd_engine_builder_set_approval (maker->builder, maker->policy, request->approve, request->approve_data,
                                  request->approve_destroy);
  /* Plans are reviewed as tools are approved: asked of the person watching
   * the run, or decided by the policy. */
  switch (maker->policy)
    {
    case PD_APPROVAL_POLICY_AUTO:
      pd_engine_builder_set_review_func (maker->builder, review_auto, NULL, NULL);
      request->review_destroy (request->review_data);
      break;
    case PD_APPROVAL_POLICY_DENY:
      pd_engine_builder_set_review_func (maker->builder, review_deny, NULL, NULL);
      request->review_destroy (request->review_data);
      break;
    case PD_APPROVAL_POLICY_ASK:
    default:
      pd_engine_builder_set_review_func (maker->builder, request->review, request->review_data,
                                         request->review_destroy);
      break;
    }
  engine = pd_engine_builder_build (maker->builder, error);
  /* The engine keeps what it needs; the builder lets go of this run's. */
  pd_engine_builder_set_approval (maker->builder, maker->policy, NULL, NULL, NULL);
  pd_engine_builder_set_review_func (maker->builder, NULL, NULL, NULL);
  return engine;
}

static gboolean
on_signal (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

int
pd_agent_serve_main (int    argc,
                     char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *listen = NULL;
  g_autofree char *webui = NULL;
  g_auto(GStrv) allow_hosts = NULL;
  g_auto(GStrv) allow_origins = NULL;
  g_autofree char *host = NULL;
  g_auto(PdAgentEngineArgs) args = { 0 };
  int rate_limit = PD_SERVER_DEFAULT_RATE_LIMIT;
  int max_streams = PD_SERVER_MAX_STREAMS;
  int max_streams_per_client = PD_SERVER_MAX_STREAMS_PER_CLIENT;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, N_("Session database (default: $XDG_DATA_HOME/plandeck/sessions.db)"), N_("PATH") },
    { "listen", 0, 0, G_OPTION_ARG_STRING, &listen, N_("Address and port (default 127.0.0.1:8080; port 0 picks one)"), N_("ADDR:PORT") },
    { "allow-host", 0, 0, G_OPTION_ARG_STRING_ARRAY, &allow_hosts, N_("Also accept this Host name (repeatable)"), N_("HOST") },
    { "allow-origin", 0, 0, G_OPTION_ARG_STRING_ARRAY, &allow_origins, N_("Also accept changes from pages of this origin, e.g. https://plandeck.example (repeatable)"), N_("ORIGIN") },
    { "rate-limit", 0, 0, G_OPTION_ARG_INT, &rate_limit, N_("Session lookups per minute per client (default 60, 0 = off)"), N_("N") },
    { "max-streams", 0, 0, G_OPTION_ARG_INT, &max_streams, N_("Event streams open at once (default 64)"), N_("N") },
    { "max-streams-per-client", 0, 0, G_OPTION_ARG_INT, &max_streams_per_client, N_("Event streams open at once from one client address (default 16)"), N_("N") },
    { "webui", 0, 0, G_OPTION_ARG_FILENAME, &webui, N_("Serve the browser UI in DIR (index.html, app.js, style.css) the way odek serves its own"), N_("DIR") },
    { NULL }
  };
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  PdApprovalPolicy policy = PD_APPROVAL_POLICY_ASK;
  guint port = PD_SERVER_DEFAULT_PORT;
  guint sigint, sigterm;

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, _("Serve the session database over odek’s REST API, on loopback."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  pd_agent_engine_add_options (context, &args);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "plandeck-agent serve: %s\n", error->message);
      return 2;
    }
  if (argc > 1)
    {
      fprintf (stderr, _("plandeck-agent serve: unexpected argument “%s”\n"), argv[1]);
      return 2;
    }
  if (rate_limit < 0)
    {
      fprintf (stderr, "%s\n", _("plandeck-agent serve: --rate-limit takes 0 or more"));
      return 2;
    }
  if (max_streams < 1 || max_streams_per_client < 1)
    {
      fprintf (stderr, "%s\n", _("plandeck-agent serve: --max-streams and --max-streams-per-client take 1 or more"));
      return 2;
    }
  for (guint i = 0; allow_origins && allow_origins[i]; i++)
    {
      /* What a browser sends: scheme://host[:port], nothing after. */
      g_autoptr(GUri) uri = g_uri_parse (allow_origins[i], G_URI_FLAGS_NONE, NULL);

      if (uri == NULL || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0' ||
          *g_uri_get_path (uri) != '\0' || g_uri_get_userinfo (uri) != NULL ||
          g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
        {
          fprintf (stderr, _("plandeck-agent serve: --allow-origin takes scheme://host[:port] (as https://plandeck.example), not “%s”\n"),
                   allow_origins[i]);
          return 2;
        }
    }
  /* Ask: the person who started the run answers (its WebSocket, or the
   * desktop app), and nobody answering in time means no. */
  if (!pd_agent_engine_args_check (&args, PD_APPROVAL_POLICY_ASK, &policy, &error))
    {
      fprintf (stderr, "plandeck-agent serve: %s\n", error->message);
      return 2;
    }
  if (listen == NULL)
    host = g_strdup (PD_SERVER_DEFAULT_HOST);
  else if (!pd_server_parse_listen (listen, &host, &port, &error))
    {
      fprintf (stderr, "plandeck-agent serve: %s\n", error->message);
      return 2;
    }

  config = pd_agent_engine_load_config (&args);
  for (const char * const *w = pd_config_get_warnings (config); *w != NULL; w++)
    fprintf (stderr, _("plandeck-agent: warning: %s\n"), *w);
  /* Nobody at a terminal: the server gives each run its asker. */
  builder = pd_agent_engine_builder_new (&args, config, policy, FALSE);

  if (db_path == NULL)
    db_path = pd_agent_default_db_path ();
  {
    g_autofree char *dir = g_path_get_dirname (db_path);
    g_mkdir_with_parents (dir, 0700);
  }

  server = pd_server_new (db_path);
  pd_server_set_listen (server, host, port);
  pd_server_set_rate_limit (server, (guint) rate_limit);
  pd_server_set_stream_limits (server, (guint) max_streams, (guint) max_streams_per_client);
  pd_server_set_model (server, pd_engine_builder_get_model (builder));
  {
    g_autofree char *here = g_get_current_dir ();
    pd_server_set_working_directory (server, args.cwd ? args.cwd : here);
  }
  for (guint i = 0; allow_hosts && allow_hosts[i]; i++)
    pd_server_add_allowed_host (server, allow_hosts[i]);
  for (guint i = 0; allow_origins && allow_origins[i]; i++)
    pd_server_add_allowed_origin (server, allow_origins[i]);
  {
    Maker *maker = g_new0 (Maker, 1);

    maker->builder = g_object_ref (builder);
    maker->policy = policy;
    pd_server_set_engine_func (server, make_engine, maker, maker_free);
  }
  if (webui != NULL && !pd_server_set_webui (server, webui, &error))
    {
      fprintf (stderr, "plandeck-agent serve: --webui: %s\n", error->message);
      return 2;
    }

  if (!pd_server_start (server, &error))
    return pd_agent_fail ("serve", error);

  if (pd_server_get_read_only (server) != NULL)
    /* TRANSLATORS: %s says why the database cannot be written */
    fprintf (stderr, _("Warning: %s; serving it for reading, and runs are refused.\n"),
             pd_server_get_read_only (server));

  url = pd_server_dup_start_url (server);
  /* Ctrl+C is taken before the URL is out: one who read it and stopped
   * the server at once (a script, the serve-stop-words test under load)
   * killed it before its handler was there, with no clean stop. */
  loop = g_main_loop_new (NULL, FALSE);
  sigint = g_unix_signal_add (SIGINT, on_signal, loop);
  sigterm = g_unix_signal_add (SIGTERM, on_signal, loop);
  printf ("%s\n", url);
  fflush (stdout);
  /* TRANSLATORS: the first %s is the database path */
  fprintf (stderr, _("Serving %s; stop with Ctrl+C.\n"), db_path);
  /* What the URL is for: pasted into a browser it showed a bare line
   * (tried as a new user would, nu15).  Not the URL again: stderr goes to
   * logs, the token only to stdout. */
  fprintf (stderr, "%s\n", _("Open it in Plandeck: plandeck --remote URL (the address printed above)"));
  {
    g_autoptr(GInetAddress) address = g_inet_address_new_from_string (host);

    if (address == NULL || !g_inet_address_get_is_loopback (address))
      fprintf (stderr, "%s\n", _("Warning: listening beyond loopback; anyone with the token can read the sessions."));
    /* On every address, the URL printed is loopback's; another machine
     * comes by a name or address the Host check knows only when
     * --allow-host names it (tried as a new user would: "Host not
     * allowed", and nothing said why). */
    if (address != NULL && g_inet_address_get_is_any (address) && (allow_hosts == NULL || allow_hosts[0] == NULL))
      /* TRANSLATORS: %s is this machine's name, an example */
      fprintf (stderr, _("Other machines are answered only at a name or address --allow-host gives (--allow-host %s, say).\n"),
               g_get_host_name ());
  }

  g_main_loop_run (loop);
  g_source_remove (sigint);
  g_source_remove (sigterm);

  /* Said only when there is a run to cancel: with none, it read as if
   * something were being cut off (tried as a new user would, nu19 #12). */
  if (pd_server_get_active_runs (server) > 0)
    fprintf (stderr, "%s\n", _("Stopping: cancelling active runs…"));
  else
    fprintf (stderr, "%s\n", _("Stopping."));
  pd_server_stop (server);
  return 0;
}

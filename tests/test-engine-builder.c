/* test-engine-builder.c: the one engine constructor every front end uses.
 *
 * Real parts: config files in a temporary folder, a session database, the
 * replay provider against the real tools, and a loopback HTTP server for
 * what a provider sends.  The CLI (tests/test-agent-cli.py) and the window
 * (tests/ui/test-runs.c) check the same builder from their side.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-engine-builder"

#include "config.h"

#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-engine-builder.h"
#include "pd-session-store.h"
#include "pd-test-files.h"
#include "pd-test-server.h"

typedef struct
{
  char *dir;
  char *global_path;
  char *project;
  char *db_path;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *readme = NULL;

  f->dir = g_dir_make_tmp ("pd-builder-XXXXXX", &error);
  g_assert_no_error (error);
  f->global_path = g_build_filename (f->dir, "config.json", NULL);
  f->project = g_build_filename (f->dir, "project", NULL);
  f->db_path = g_build_filename (f->dir, "data", "sessions.db", NULL);
  g_assert_cmpint (g_mkdir (f->project, 0700), ==, 0);
  readme = g_build_filename (f->project, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "hello\n", -1, NULL));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->global_path);
  g_free (f->project);
  g_free (f->db_path);
}

static PdConfig *
load_config (Fixture    *f,
             const char *global_json)
{
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autofree char *project_file = g_build_filename (f->project, "plandeck.json", NULL);

  g_assert_true (g_file_set_contents (f->global_path, global_json, -1, NULL));
  options.global_path = f->global_path;
  options.project_path = project_file;
  options.ignore_env = TRUE;
  return pd_config_load (&options);
}

static char *
write_replay (Fixture    *f,
              const char *json)
{
  char *path = g_build_filename (f->dir, "replay.json", NULL);

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  return path;
}

static const char *provider_reply =
  "{\"id\": \"r\", \"object\": \"chat.completion\", \"model\": \"m\", \"choices\": [{\"index\": 0,"
  " \"finish_reason\": \"stop\", \"message\": {\"role\": \"assistant\", \"content\": \"Hi.\"}}],"
  " \"usage\": {\"prompt_tokens\": 1, \"completion_tokens\": 1}}";

static PdRunResult *
run_once (PdEngineBuilder *builder,
          const char      *task)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEngine) engine = pd_engine_builder_build (builder, &error);
  PdRunResult *result;

  g_assert_no_error (error);
  result = pd_engine_run (engine, NULL, task, NULL, &error);
  g_assert_no_error (error);
  return result;
}

/* The config's endpoint and key variable go with the config's provider:
 * a profile naming another provider gets neither (its own environment
 * says where it goes, with its own key). */
static void
test_key_follows_provider (Fixture       *f,
                           gconstpointer  data)
{
  TestServer *configured = NULL;
  TestServer *other = NULL;
  g_autofree char *global = NULL;
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  g_autoptr(PdRunResult) first = NULL;
  g_autoptr(PdRunResult) second = NULL;
  g_autofree char *saved_url = g_strdup (g_getenv ("OPENAI_BASE_URL"));
  g_autofree char *saved_key = g_strdup (g_getenv ("OPENAI_API_KEY"));
  TestRequest *request;

  test_unset_proxies ();
  configured = test_server_new ();
  other = test_server_new ();
  test_server_push (configured, test_reply_plain (200, "application/json", provider_reply));
  test_server_push (other, test_reply_plain (200, "application/json", provider_reply));
  g_setenv ("PD_TEST_BUILDER_KEY", "sk-configured-secret", TRUE);
  g_setenv ("OPENAI_BASE_URL", other->base_url, TRUE);
  g_unsetenv ("OPENAI_API_KEY");

  global = g_strdup_printf ("{\"provider\": {\"name\": \"openai\", \"base_url\": \"%s\", \"model\": \"configured-model\","
                            " \"api_key_env\": \"PD_TEST_BUILDER_KEY\"}}", configured->base_url);
  config = load_config (f, global);
  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_working_directory (builder, f->project);
  g_assert_cmpstr (pd_engine_builder_get_model (builder), ==, "configured-model");

  first = run_once (builder, "Say hi");
  g_assert_cmpint (first->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (test_server_count (configured), ==, 1);
  request = test_server_request (configured, 0);
  g_assert_cmpstr (g_hash_table_lookup (request->headers, "authorization"), ==, "Bearer sk-configured-secret");

  /* The model follows the same rule; a profile's own model wins. */
  pd_engine_builder_set_provider_name (builder, "anthropic");
  g_assert_cmpstr (pd_engine_builder_get_model (builder), ==, "claude-sonnet-4-5");
  pd_engine_builder_set_provider_name (builder, "openai");
  g_assert_cmpstr (pd_engine_builder_get_model (builder), ==, "configured-model");
  pd_engine_builder_set_model (builder, "profile-model");
  g_assert_cmpstr (pd_engine_builder_get_model (builder), ==, "profile-model");

  /* The config describes anthropic; the profile asks for openai. */
  g_clear_object (&config);
  g_clear_object (&builder);
  g_free (global);
  global = g_strdup_printf ("{\"provider\": {\"name\": \"anthropic\", \"base_url\": \"%s\","
                            " \"api_key_env\": \"PD_TEST_BUILDER_KEY\"}}", configured->base_url);
  config = load_config (f, global);
  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_working_directory (builder, f->project);
  pd_engine_builder_set_provider_name (builder, "openai");
  second = run_once (builder, "Say hi");
  g_assert_cmpint (second->status, ==, PD_RUN_COMPLETED);

  g_assert_cmpuint (test_server_count (configured), ==, 1);
  g_assert_cmpuint (test_server_count (other), ==, 1);
  request = test_server_request (other, 0);
  g_assert_null (g_hash_table_lookup (request->headers, "authorization"));

  test_server_free (configured);
  test_server_free (other);
  g_unsetenv ("PD_TEST_BUILDER_KEY");
  if (saved_url != NULL)
    g_setenv ("OPENAI_BASE_URL", saved_url, TRUE);
  else
    g_unsetenv ("OPENAI_BASE_URL");
  if (saved_key != NULL)
    g_setenv ("OPENAI_API_KEY", saved_key, TRUE);
}

/* The address a front end looks a kept key up by is the one the engine
 * sends to: the profile's, else the configuration's, else the provider's
 * variable; NULL only for the provider's own endpoint. */
static void
test_base_url (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved_url = g_strdup (g_getenv ("OPENAI_BASE_URL"));
  g_autofree char *url = NULL;

  g_unsetenv ("OPENAI_BASE_URL");
  config = load_config (f, "{\"provider\": {\"name\": \"openai\"}}");
  builder = pd_engine_builder_new (config);
  url = pd_engine_builder_dup_base_url (builder, &error);
  g_assert_no_error (error);
  g_assert_null (url);

  /* The provider's variable (ignore_env keeps it out of the config: the
   * provider reads it itself). */
  g_setenv ("OPENAI_BASE_URL", "http://127.0.0.1:9/from-env", TRUE);
  url = pd_engine_builder_dup_base_url (builder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (url, ==, "http://127.0.0.1:9/from-env");
  g_clear_pointer (&url, g_free);

  /* The configuration's, for its provider only. */
  g_clear_object (&builder);
  g_clear_object (&config);
  config = load_config (f, "{\"provider\": {\"name\": \"openai\", \"base_url\": \"http://127.0.0.1:9/from-file\"}}");
  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_base_url (builder, "");
  url = pd_engine_builder_dup_base_url (builder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (url, ==, "http://127.0.0.1:9/from-file");
  g_clear_pointer (&url, g_free);

  /* The profile's wins. */
  pd_engine_builder_set_base_url (builder, "http://127.0.0.1:9/profile");
  url = pd_engine_builder_dup_base_url (builder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (url, ==, "http://127.0.0.1:9/profile");
  g_clear_pointer (&url, g_free);

  /* A provider that cannot be made says why. */
  pd_engine_builder_set_provider_name (builder, "no-such-provider");
  url = pd_engine_builder_dup_base_url (builder, &error);
  g_assert_null (url);
  g_assert_nonnull (error);

  if (saved_url != NULL)
    g_setenv ("OPENAI_BASE_URL", saved_url, TRUE);
  else
    g_unsetenv ("OPENAI_BASE_URL");
}

typedef struct
{
  guint asked;
  guint destroyed;
} Asker;

static gboolean
allow_and_count (const char *tool,
                 const char *summary,
                 const char *preview,
                 gpointer    user_data)
{
  g_atomic_int_inc (&((Asker *) user_data)->asked);
  return TRUE;
}

static void
count_destroy (gpointer user_data)
{
  ((Asker *) user_data)->destroyed++;
}

static const char *replay_write =
  "{\"turns\": [{\"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"out.txt\", \"content\": \"x\"}}]},"
  " {\"content\": \"Written.\"}]}";

/* serve builds many engines from one builder: each asks through the front
 * end's callback, and its data is freed once, after the last engine. */
static void
test_callbacks_shared (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *replay = write_replay (f, replay_write);
  g_autoptr(PdConfig) config = load_config (f, "{}");
  PdEngineBuilder *builder = pd_engine_builder_new (config);
  g_autoptr(GError) error = NULL;
  PdEngine *engines[2];
  Asker asker = { 0 };

  pd_engine_builder_set_provider_name (builder, "replay");
  pd_engine_builder_set_replay_path (builder, replay);
  pd_engine_builder_set_working_directory (builder, f->project);
  pd_engine_builder_set_database_path (builder, f->db_path);
  pd_engine_builder_set_approval (builder, PD_APPROVAL_POLICY_ASK, allow_and_count, &asker, count_destroy);

  for (guint i = 0; i < G_N_ELEMENTS (engines); i++)
    {
      g_autoptr(PdRunResult) result = NULL;

      engines[i] = pd_engine_builder_build (builder, &error);
      g_assert_no_error (error);
      result = pd_engine_run (engines[i], NULL, "Write", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
    }
  g_assert_cmpuint (asker.asked, ==, 2);

  g_object_unref (builder);
  g_object_unref (engines[0]);
  g_assert_cmpuint (asker.destroyed, ==, 0);
  g_object_unref (engines[1]);
  g_assert_cmpuint (asker.destroyed, ==, 1);
}

static const char *replay_plan =
  "{\"turns\": [{\"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": [{\"id\": \"a\", \"title\": \"A\"}]}}]},"
  " {\"content\": \"Done.\"}]}";

static char *
first_tool_result (const char *db_path,
                   const char *session_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_NONE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(JsonArray) messages = NULL;

  g_assert_no_error (error);
  store = pd_session_store_new (db);
  messages = pd_session_store_load_messages (store, session_id, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "role", ""), "tool") == 0)
        return g_strdup (json_object_get_string_member_with_default (message, "content", ""));
    }
  return NULL;
}

/* A front end may turn planning off for its engines, never on against the
 * configuration; the limits are the configuration's. */
static void
test_planning_and_limits (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *replay = write_replay (f, replay_plan);
  struct { const char *global; gboolean allowed; gboolean plans; } cases[] = {
    { "{}", TRUE, TRUE },
    { "{}", FALSE, FALSE },
    { "{\"planning\": {\"enabled\": false}}", TRUE, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PdConfig) config = load_config (f, cases[i].global);
      g_autoptr(PdEngineBuilder) builder = pd_engine_builder_new (config);
      g_autoptr(PdRunResult) result = NULL;
      g_autofree char *tool_result = NULL;

      pd_engine_builder_set_provider_name (builder, "replay");
      pd_engine_builder_set_replay_path (builder, replay);
      pd_engine_builder_set_working_directory (builder, f->project);
      pd_engine_builder_set_database_path (builder, f->db_path);
      pd_engine_builder_set_planning (builder, cases[i].allowed);
      result = run_once (builder, "Plan");
      tool_result = first_tool_result (f->db_path, result->session_id);
      g_test_message ("case %u: %s", i, tool_result);
      g_assert_cmpint (g_str_has_prefix (tool_result, "unknown tool"), ==, !cases[i].plans);
    }

  {
    g_autoptr(PdConfig) config = load_config (f, "{\"limits\": {\"max_iterations\": 1}}");
    g_autoptr(PdEngineBuilder) builder = pd_engine_builder_new (config);
    g_autoptr(PdRunResult) result = NULL;

    pd_engine_builder_set_provider_name (builder, "replay");
    pd_engine_builder_set_replay_path (builder, replay);
    pd_engine_builder_set_working_directory (builder, f->project);
    result = run_once (builder, "Plan");
    g_assert_cmpint (result->status, ==, PD_RUN_BUDGET_EXCEEDED);
    g_assert_cmpstr (result->budget_name, ==, "iterations");
  }
}

static const char *replay_echo_keys =
  "{\"turns\": [{\"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\":"
  " \"echo config=[$PD_TEST_CONFIG_KEY] profile=[$PD_TEST_PROFILE_KEY] other=[$PD_TEST_OTHER]\"}}]},"
  " {\"content\": \"Echoed.\"}]}";

/* As an attacker would: a command asks for the variables the person's key
 * came from.  The config's and the profile's are kept out, whatever they
 * are called; others pass. */
static void
test_key_variables_hidden (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *replay = write_replay (f, replay_echo_keys);
  g_autoptr(PdConfig) config = load_config (f, "{\"provider\": {\"name\": \"replay\", \"api_key_env\": \"PD_TEST_CONFIG_KEY\"}}");
  g_autoptr(PdEngineBuilder) builder = pd_engine_builder_new (config);
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *output = NULL;

  g_setenv ("PD_TEST_CONFIG_KEY", "sk-config-secret", TRUE);
  g_setenv ("PD_TEST_PROFILE_KEY", "sk-profile-secret", TRUE);
  g_setenv ("PD_TEST_OTHER", "visible", TRUE);
  pd_engine_builder_set_replay_path (builder, replay);
  pd_engine_builder_set_api_key_env (builder, "PD_TEST_PROFILE_KEY");
  pd_engine_builder_set_working_directory (builder, f->project);
  pd_engine_builder_set_database_path (builder, f->db_path);
  pd_engine_builder_set_approval (builder, PD_APPROVAL_POLICY_AUTO, NULL, NULL, NULL);
  result = run_once (builder, "Echo");
  output = first_tool_result (f->db_path, result->session_id);
  g_unsetenv ("PD_TEST_CONFIG_KEY");
  g_unsetenv ("PD_TEST_PROFILE_KEY");
  g_unsetenv ("PD_TEST_OTHER");

  g_test_message ("%s", output);
  g_assert_nonnull (strstr (output, "config=[] profile=[] other=[visible]"));
}

/* As an attacker would: the config files name openai and its key's
 * variable, and the run is asked for another provider (`run --provider
 * replay`).  The files' variable is not the key of this run, but it holds
 * a key all the same: before, a command read it. */
static void
test_key_variable_of_other_provider_hidden (Fixture       *f,
                                            gconstpointer  data)
{
  g_autofree char *replay = write_replay (f, replay_echo_keys);
  g_autofree char *project_file = g_build_filename (f->project, "plandeck.json", NULL);
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *output = NULL;

  g_assert_true (g_file_set_contents (f->global_path,
                                      "{\"provider\": {\"name\": \"openai\", \"api_key_env\": \"PD_TEST_CONFIG_KEY\"}}", -1, NULL));
  options.global_path = f->global_path;
  options.project_path = project_file;
  options.ignore_env = TRUE;
  options.cli_provider = "replay";
  config = pd_config_load (&options);
  g_assert_null (pd_config_get_provider_api_key_env (config));
  g_assert_cmpstr (pd_config_get_unused_api_key_env (config), ==, "PD_TEST_CONFIG_KEY");

  builder = pd_engine_builder_new (config);
  g_setenv ("PD_TEST_CONFIG_KEY", "sk-config-secret", TRUE);
  g_setenv ("PD_TEST_OTHER", "visible", TRUE);
  pd_engine_builder_set_replay_path (builder, replay);
  pd_engine_builder_set_working_directory (builder, f->project);
  pd_engine_builder_set_database_path (builder, f->db_path);
  pd_engine_builder_set_approval (builder, PD_APPROVAL_POLICY_AUTO, NULL, NULL, NULL);
  result = run_once (builder, "Echo");
  output = first_tool_result (f->db_path, result->session_id);
  g_unsetenv ("PD_TEST_CONFIG_KEY");
  g_unsetenv ("PD_TEST_OTHER");

  g_test_message ("%s", output);
  g_assert_nonnull (strstr (output, "config=[] profile=[] other=[visible]"));
}

/* Errors a person can act on, before anything runs. */
static void
test_errors (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(PdConfig) config = load_config (f, "{\"provider\": {\"name\": \"nonesuch\"}}");
  g_autoptr(PdEngineBuilder) builder = pd_engine_builder_new (config);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEngine) engine = NULL;
  g_autofree char *missing = g_build_filename (f->dir, "no-such-folder", NULL);

  engine = pd_engine_builder_build (builder, &error);
  g_assert_null (engine);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
  g_assert_nonnull (strstr (error->message, "unknown provider"));
  g_clear_error (&error);

  pd_engine_builder_set_provider_name (builder, "replay");
  engine = pd_engine_builder_build (builder, &error);
  g_assert_null (engine);
  g_assert_nonnull (strstr (error->message, "no file of recorded turns"));
  g_clear_error (&error);

  pd_engine_builder_set_replay_path (builder, "/nonexistent/replay.json");
  engine = pd_engine_builder_build (builder, &error);
  g_assert_null (engine);
  g_assert_nonnull (error);
  g_clear_error (&error);

  {
    g_autofree char *replay = write_replay (f, replay_plan);

    pd_engine_builder_set_replay_path (builder, replay);
    pd_engine_builder_set_working_directory (builder, missing);
    engine = pd_engine_builder_build (builder, &error);
    g_assert_null (engine);
    g_assert_nonnull (error);
  }
}

/* A database the run cannot write: before, the run went ahead and warned
 * at each save that nothing was saved (the window's run, a continue); now
 * the builder refuses, whoever builds.  As root every file is writable, so
 * the file case runs in a subprocess that gives up root for nobody. */
static void
test_read_only_database_subprocess (void)
{
  const char *dir = g_getenv ("PD_TEST_BUILDER_DIR");
  g_autofree char *db_path = g_build_filename (dir, "ro", "sessions.db", NULL);
  g_autofree char *replay = g_build_filename (dir, "replay.json", NULL);
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  g_autoptr(PdEngine) engine = NULL;
  g_autoptr(GError) error = NULL;
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;

  if (geteuid () == 0)
    {
      g_assert_cmpint (setgroups (0, NULL), ==, 0);
      g_assert_cmpint (setgid (65534), ==, 0);
      g_assert_cmpint (setuid (65534), ==, 0);
    }
  g_assert_cmpint (access (db_path, W_OK), !=, 0);

  options.ignore_env = TRUE;
  config = pd_config_load (&options);
  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_provider_name (builder, "replay");
  pd_engine_builder_set_replay_path (builder, replay);
  pd_engine_builder_set_working_directory (builder, dir);
  pd_engine_builder_set_database_path (builder, db_path);
  engine = pd_engine_builder_build (builder, &error);
  g_assert_null (engine);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "no run can start"));
  g_assert_nonnull (strstr (error->message, "sessions.db cannot be written: the file is read-only"));
}

static void
test_read_only_database (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdConfig) config = load_config (f, "{}");
  g_autoptr(PdEngineBuilder) builder = pd_engine_builder_new (config);
  g_autofree char *replay = write_replay (f, replay_plan);
  g_autofree char *ro_dir = g_build_filename (f->dir, "ro", NULL);
  g_autofree char *ro_db = g_build_filename (ro_dir, "sessions.db", NULL);
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdEngine) engine = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (ro_dir, 0755), ==, 0);
  g_clear_object (&db);
  db = pd_db_open (ro_db, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_clear_object (&db);

  /* A store on a read-only connection (what a viewer opens). */
  db = pd_db_open (ro_db, PD_DB_READ_ONLY, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  pd_engine_builder_set_provider_name (builder, "replay");
  pd_engine_builder_set_replay_path (builder, replay);
  pd_engine_builder_set_working_directory (builder, f->project);
  pd_engine_builder_set_store (builder, store);
  engine = pd_engine_builder_build (builder, &error);
  g_assert_null (engine);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "no run can start"));
  g_clear_error (&error);

  /* A file this process may not write, by path (the window's runs). */
  g_assert_cmpint (g_chmod (ro_db, 0444), ==, 0);
  /* A new database and its log are made owner-only; the other user the
   * subprocess becomes must read them to be refused for writing. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *companion = g_strconcat (ro_db, i == 0 ? "-wal" : "-shm", NULL);

      if (g_file_test (companion, G_FILE_TEST_EXISTS))
        g_assert_cmpint (g_chmod (companion, 0644), ==, 0);
      /* Theirs, as the subprocess's user: a database of another user is
       * never written whatever its mode (test-db-create.c). */
      if (geteuid () == 0 && g_file_test (companion, G_FILE_TEST_EXISTS))
        g_assert_cmpint (chown (companion, 65534, 65534), ==, 0);
    }
  if (geteuid () == 0)
    g_assert_cmpint (chown (ro_db, 65534, 65534), ==, 0);
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
  g_setenv ("PD_TEST_BUILDER_DIR", f->dir, TRUE);
  g_test_trap_subprocess ("/pd/engine-builder/read-only-database/subprocess", 60 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("PD_TEST_BUILDER_DIR");
  g_test_trap_assert_passed ();
}

/* tools.allow_outside of the configuration reaches the tools of every
 * engine the builder makes (the window's runs once went without it): a file
 * beside the project is read only when the person's configuration allows
 * it, and a project file cannot allow it. */
static const char *replay_outside =
  "{\"turns\": [{\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"../outside.txt\"}}]},"
  " {\"content\": \"Done.\"}]}";

static void
test_allow_outside (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *replay = write_replay (f, replay_outside);
  g_autofree char *outside = g_build_filename (f->dir, "outside.txt", NULL);
  g_autofree char *project_file = g_build_filename (f->project, "plandeck.json", NULL);
  struct { const char *global; const char *project; gboolean reads; } cases[] = {
    { "{}", NULL, FALSE },
    { "{\"tools\": {\"allow_outside\": true}}", NULL, TRUE },
    { "{}", "{\"tools\": {\"allow_outside\": true}}", FALSE },
  };

  g_assert_true (g_file_set_contents (outside, "beside the project\n", -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PdConfig) config = NULL;
      g_autoptr(PdEngineBuilder) builder = NULL;
      g_autoptr(PdRunResult) result = NULL;
      g_autofree char *tool_result = NULL;

      if (cases[i].project != NULL)
        g_assert_true (g_file_set_contents (project_file, cases[i].project, -1, NULL));
      else
        g_unlink (project_file);
      config = load_config (f, cases[i].global);
      builder = pd_engine_builder_new (config);
      pd_engine_builder_set_provider_name (builder, "replay");
      pd_engine_builder_set_replay_path (builder, replay);
      pd_engine_builder_set_working_directory (builder, f->project);
      pd_engine_builder_set_database_path (builder, f->db_path);
      result = run_once (builder, "Read the file beside");
      tool_result = first_tool_result (f->db_path, result->session_id);
      g_test_message ("case %u: %s", i, tool_result);
      if (cases[i].reads)
        g_assert_cmpstr (tool_result, ==, "beside the project\n");
      else
        g_assert_nonnull (strstr (tool_result, "is outside the working directory"));
    }
}

/* --- a key leaves no copy behind ------------------------------------------ */

/* The key as this test keeps it: each byte XOR 0x5a, so the only plain
 * copies in the process are the ones the code under test makes. */
#define KEY_MASK 0x5a

static gboolean
region_holds_key (const guint8 *bytes,
                  gsize         size,
                  const guint8 *masked,
                  gsize         key_len)
{
  for (gsize i = 0; i + key_len <= size; i++)
    {
      gsize j = 0;

      while (j < key_len && bytes[i + j] == (masked[j] ^ KEY_MASK))
        j++;
      if (j == key_len)
        return TRUE;
    }
  return FALSE;
}

/* Whether the key is anywhere in the process's writable memory, read as
 * an attacker with a core dump or /proc/PID/mem would read it. */
static gboolean
memory_holds_key (const guint8 *masked,
                  gsize         key_len)
{
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean found = FALSE;
  int fd;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  fd = open ("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  for (guint i = 0; lines[i] != NULL && !found; i++)
    {
      guint64 start, end;
      char perms[8] = { 0 };
      g_autofree guint8 *bytes = NULL;
      gsize size;
      gssize got;

      if (sscanf (lines[i], "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %4s", &start, &end, perms) != 3 ||
          perms[0] != 'r' || perms[1] != 'w')
        continue;
      size = end - start;
      /* Sanitizers' shadow maps are huge and hold no data of ours. */
      if (size > 256 * 1024 * 1024)
        continue;
      bytes = g_malloc (size);
      got = pread (fd, bytes, size, (off_t) start);
      if (got > 0)
        found = region_holds_key (bytes, (gsize) got, masked, key_len);
      explicit_bzero (bytes, size);
    }
  close (fd);
  return found;
}

/* As an attacker would read a core dump or the process's memory after a
 * run: the API key a front end handed the builder (from the keyring) is
 * overwritten once the builder and the provider built from it are gone
 * (they freed it as is, and g_object_new() left a copy of its own). */
static void
test_key_wiped (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdConfig) config = load_config (f, "{\"provider\": {\"name\": \"openai\","
                                                  " \"base_url\": \"http://127.0.0.1:9/v1\"}}");
  g_autoptr(GError) error = NULL;
  PdEngineBuilder *builder;
  PdEngine *engine;
  /* Long, so that no small allocation of the check itself takes its freed
   * block over. */
  guint8 masked[240];
  char key[sizeof masked + 1];

  /* A key no other part of the process can hold: random, made here. */
  memcpy (key, "sk-wipe-", 8);
  for (gsize i = 8; i < sizeof masked; i++)
    key[i] = "0123456789abcdef"[g_random_int_range (0, 16)];
  key[sizeof masked] = '\0';
  for (gsize i = 0; i < sizeof masked; i++)
    masked[i] = (guint8) key[i] ^ KEY_MASK;

  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_working_directory (builder, f->project);
  pd_engine_builder_set_api_key (builder, key);
  explicit_bzero (key, sizeof key);
  engine = pd_engine_builder_build (builder, &error);
  g_assert_no_error (error);
  g_assert_nonnull (engine);
  /* The check can find it: the builder and the provider hold it now.  It
   * looks for 32 characters past its start: malloc writes its own list
   * pointers over the first 16 bytes of a freed block. */
  g_assert_true (memory_holds_key (masked + 16, 32));

  g_object_unref (engine);
  g_object_unref (builder);
  g_assert_false (memory_holds_key (masked + 16, 32));
}

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD ("/pd/engine-builder/key-follows-provider", test_key_follows_provider);
  ADD ("/pd/engine-builder/base-url", test_base_url);
  ADD ("/pd/engine-builder/callbacks-shared", test_callbacks_shared);
  ADD ("/pd/engine-builder/planning-and-limits", test_planning_and_limits);
  ADD ("/pd/engine-builder/key-variables-hidden", test_key_variables_hidden);
  ADD ("/pd/engine-builder/key-variable-of-other-provider-hidden", test_key_variable_of_other_provider_hidden);
  ADD ("/pd/engine-builder/allow-outside", test_allow_outside);
  ADD ("/pd/engine-builder/errors", test_errors);
  ADD ("/pd/engine-builder/key-wiped", test_key_wiped);
  ADD ("/pd/engine-builder/read-only-database", test_read_only_database);
  g_test_add_func ("/pd/engine-builder/read-only-database/subprocess", test_read_only_database_subprocess);

  return g_test_run ();
}

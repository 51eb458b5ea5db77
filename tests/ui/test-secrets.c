/* test-secrets.c: endpoint tokens go to the keyring, never to GSettings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs on a private session bus that starts no service by itself
 * (private-bus.conf).  First with no Secret Service there: the token works
 * for this session and the window says it is not kept.  Then with a real
 * gnome-keyring-daemon the test starts on that bus, with an unlocked login
 * keyring made from a password on its stdin (no prompt): a token given in
 * the URL lands in the keyring and not in GSettings, a later start finds
 * it there, and a token an older Plandeck left in GSettings moves to the
 * keyring.  Without gnome-keyring-daemon the keyring cases skip, saying so.
 *
 * Provider API keys likewise: a key typed in a profile of the preferences
 * lands in the keyring and never in GSettings, and a run sends it (to the
 * profile's endpoint only: a loopback server records what it is sent); an
 * environment variable's key still works, with a keyring or without; a
 * key an older version let sit in clear in a profile moves to the keyring.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <libsecret/secret.h>

#include "pd-entry-row.h"
#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-secrets.h"
#include "pd-server.h"
#include "pd-session-list.h"
#include "pd-sources-page.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "../pd-test-server.h"

static const SecretSchema key_schema = {
  "io.github.plandeck.Plandeck.ProviderKey", SECRET_SCHEMA_NONE,
  {
    { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { "base-url", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  }
};

static const SecretSchema token_schema = {
  "io.github.plandeck.Plandeck.Token", SECRET_SCHEMA_NONE,
  {
    { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  }
};

#define NO_KEYRING_MESSAGE "The token is used until Plandeck quits" /* offered, not stored */

typedef struct
{
  PdServer *server;
  char     *url;       /* with ?token= */
  char     *base_url;  /* without */
  char     *token;
  char     *dir;
} Endpoint;

static void
endpoint_start (Endpoint   *endpoint,
                const char *token)
{
  g_autofree char *db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id1 = NULL;
  g_autofree char *id2 = NULL;
  g_autofree char *split_token = NULL;

  endpoint->dir = pd_test_make_tmp_dir ();
  db = g_build_filename (endpoint->dir, "served.db", NULL);
  store = pd_test_open_store (db);
  id1 = pd_test_add_session (store, "Remote task one", "plandeck");
  id2 = pd_test_add_session (store, "Remote task two", "plandeck");
  endpoint->server = pd_server_new (db);
  pd_server_set_listen (endpoint->server, "127.0.0.1", 0);
  pd_server_set_token (endpoint->server, token);
  g_assert_true (pd_server_start (endpoint->server, &error));
  g_assert_no_error (error);
  endpoint->url = pd_server_dup_start_url (endpoint->server);
  endpoint->base_url = pd_window_split_endpoint_url (endpoint->url, &split_token);
  g_assert_cmpstr (split_token, ==, token);
  endpoint->token = g_strdup (token);
}

static void
endpoint_stop (Endpoint *endpoint)
{
  pd_server_stop (endpoint->server);
  g_clear_object (&endpoint->server);
  g_free (endpoint->url);
  g_free (endpoint->base_url);
  g_free (endpoint->token);
  g_free (endpoint->dir);
}

static gboolean
remote_listed (gpointer data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_SESSION_LIST));

  /* Both sessions are there only with the right token. */
  return pd_session_list_get_loaded (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == 2;
}

static void
check_listed (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  pd_test_wait_until (remote_listed, window, "the remote sessions to be listed");
}

static gboolean
no_keyring_said (gpointer data)
{
  return pd_test_find_label (GTK_WIDGET (data), NO_KEYRING_MESSAGE) != NULL;
}

static void
check_listed_not_kept (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  pd_test_wait_until (remote_listed, window, "the remote sessions to be listed");
  pd_test_wait_until (no_keyring_said, window, "the window to say the token is not kept");
}

/* The secret the keyring holds under @schema with the two attributes;
 * NULL when none. */
static char *
keyring_lookup (const SecretSchema *schema,
                const char         *name1,
                const char         *value1,
                const char         *name2,
                const char         *value2)
{
  g_autoptr(GError) error = NULL;
  char *secret = secret_password_lookup_sync (schema, NULL, &error, name1, value1, name2, value2, NULL);
  char *copy;

  g_assert_no_error (error);
  copy = g_strdup (secret);
  secret_password_free (secret);
  return copy;
}

static char *
keyring_token (const char *base_url)
{
  return keyring_lookup (&token_schema, "kind", "remote-token", "endpoint", base_url);
}

static char *
keyring_key (const char *base_url)
{
  return keyring_lookup (&key_schema, "provider", "openai", "base-url", base_url);
}

/* Waiting for @token to be what @lookup finds for @base_url. */
typedef struct
{
  char       *(*lookup) (const char *base_url);
  const char  *base_url;
  const char  *token;
} KeyringWait;

static gboolean
keyring_has (gpointer data)
{
  KeyringWait *wait = data;
  g_autofree char *secret = wait->lookup (wait->base_url);

  return g_strcmp0 (secret, wait->token) == 0;
}

static void
assert_not_in_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *kept = g_settings_get_string (settings, "endpoint-token");

  g_assert_cmpstr (kept, ==, "");
}

/* --- no Secret Service on the bus ---------------------------------------- */

static void
test_no_keyring_session_only (void)
{
  Endpoint endpoint = { 0 };
  const char *args[] = { "--remote", NULL, NULL };
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *remembered_url = NULL;

  endpoint_start (&endpoint, "no-keyring-token");
  pd_test_reset_settings ();

  args[1] = endpoint.url;
  g_assert_cmpint (pd_test_run_app (args, check_listed_not_kept, NULL, NULL), ==, 0);

  /* The address is remembered, its token is not written in clear. */
  settings = g_settings_new (APP_ID);
  remembered_url = g_settings_get_string (settings, "endpoint-url");
  g_assert_cmpstr (remembered_url, ==, endpoint.base_url);
  assert_not_in_settings ();

  /* For the rest of this session the address alone is enough. */
  args[1] = endpoint.base_url;
  g_assert_cmpint (pd_test_run_app (args, check_listed, NULL, NULL), ==, 0);

  pd_secrets_keep_for_session (endpoint.base_url, NULL);
  endpoint_stop (&endpoint);
}

/* --- provider keys: a run against a loopback server ---------------------- */

#define KEY_VARIABLE "PD_TEST_PROVIDER_KEY"

static const char *provider_reply =
  "{\"id\": \"r\", \"object\": \"chat.completion\", \"model\": \"m\", \"choices\": [{\"index\": 0,"
  " \"finish_reason\": \"stop\", \"message\": {\"role\": \"assistant\", \"content\": \"Done.\"}}],"
  " \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2}}";

typedef struct
{
  TestServer *server;      /* the profile's endpoint */
  TestServer *other;       /* (nullable) an address typed for one session */
  char       *dir;
  char       *project;
  char       *db;
  const char *typed_key;   /* (nullable) stored through the preferences */
  gboolean    finished;
  int         status;
} KeyRun;

static void
key_run_init (KeyRun *run)
{
  test_unset_proxies ();
  run->server = test_server_new ();
  run->dir = pd_test_make_tmp_dir ();
  run->project = g_build_filename (run->dir, "project", NULL);
  run->db = g_build_filename (run->dir, "sessions.db", NULL);
  g_assert_cmpint (g_mkdir (run->project, 0700), ==, 0);
  g_object_unref (pd_test_open_store (run->db));
}

static void
key_run_clear (KeyRun *run)
{
  test_server_free (run->server);
  if (run->other != NULL)
    test_server_free (run->other);
  g_free (run->dir);
  g_free (run->project);
  g_free (run->db);
}

/* One profile, for the loopback server, whose variable field is @field. */
static void
set_profile (KeyRun     *run,
             const char *field)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  g_settings_set_value (settings, "provider-profiles",
                        g_variant_new_parsed ("[('Loopback', 'openai', %s, 'local-model', %s)]",
                                              run->server->base_url, field));
  g_settings_set_string (settings, "default-profile", "Loopback");
}

static char *
profiles_text (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GVariant) profiles = g_settings_get_value (settings, "provider-profiles");

  return g_variant_print (profiles, FALSE);
}

static void
on_key_run_finished (PdRunController *runs,
                     int              status,
                     const char      *message,
                     KeyRun          *run)
{
  run->finished = TRUE;
  run->status = status;
}

static gboolean
key_run_finished (gpointer data)
{
  return ((KeyRun *) data)->finished;
}

/* A run from the default profile, as New Session starts it, to @server
 * (or to another address, typed for this session). */
static void
run_once (PdWindow   *window,
          KeyRun     *run,
          TestServer *other)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(GSettings) gsettings = g_settings_new (APP_ID);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new_from_gsettings (gsettings, NULL);
  g_autoptr(GError) error = NULL;
  gulong handler;

  test_server_push (other != NULL ? other : run->server,
                    test_reply_plain (200, "application/json", provider_reply));
  if (other != NULL)
    {
      g_free (settings->base_url);
      settings->base_url = g_strdup (other->base_url);
    }
  g_free (settings->working_directory);
  settings->working_directory = g_strdup (run->project);
  settings->policy = PD_APPROVAL_POLICY_AUTO;
  settings->planning = FALSE;
  run->finished = FALSE;
  handler = g_signal_connect (runs, "finished", G_CALLBACK (on_key_run_finished), run);
  g_assert_true (pd_run_controller_start (runs, settings, "Say done", &error));
  g_assert_no_error (error);
  pd_test_wait_until (key_run_finished, run, "the run to finish");
  g_signal_handler_disconnect (runs, handler);
  g_assert_cmpint (run->status, ==, PD_RUN_COMPLETED);
}

/* What the last request to @server carried as its key. */
static const char *
last_authorization (TestServer *server)
{
  guint n = test_server_count (server);

  g_assert_cmpuint (n, >, 0);
  return g_hash_table_lookup (test_server_request (server, n - 1)->headers, "authorization");
}

static void
check_env_key (PdApplication *app,
               PdWindow      *window,
               gpointer       user_data)
{
  KeyRun *run = user_data;

  run_once (window, run, NULL);
  g_assert_cmpstr (last_authorization (run->server), ==, "Bearer env-key-1");
}

/* No Secret Service: the variable's key is sent, as it always was. */
static void
test_no_keyring_env_key (void)
{
  KeyRun run = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  key_run_init (&run);
  pd_test_reset_settings ();
  set_profile (&run, KEY_VARIABLE);
  g_setenv (KEY_VARIABLE, "env-key-1", TRUE);
  args[1] = run.db;
  g_assert_cmpint (pd_test_run_app (args, check_env_key, &run, NULL), ==, 0);
  g_unsetenv (KEY_VARIABLE);
  key_run_clear (&run);
}

/* --- gnome-keyring-daemon on the bus ------------------------------------- */

static gboolean keyring_tried;
static gboolean keyring_running;

static gboolean
subprocess_done (gpointer data)
{
  return *(gboolean *) data;
}

static void
on_keyring_started (GObject      *object,
                    GAsyncResult *result,
                    gpointer      data)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, NULL, NULL, &error);
  g_assert_no_error (error);
  *(gboolean *) data = TRUE;
}

/* Starts gnome-keyring-daemon on the test's bus, its keyrings in a
 * temporary folder: --unlock with a password on stdin makes an unlocked
 * login keyring, so storing never asks anyone to create one. */
static gboolean
ensure_keyring (void)
{
  g_autofree char *daemon = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *runtime_dir = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  if (keyring_tried)
    return keyring_running;
  keyring_tried = TRUE;

  daemon = g_find_program_in_path ("gnome-keyring-daemon");
  if (daemon == NULL)
    return FALSE;

  dir = pd_test_make_tmp_dir ();
  data_dir = g_build_filename (dir, "data", NULL);
  runtime_dir = g_build_filename (dir, "run", NULL);
  g_assert_cmpint (g_mkdir_with_parents (data_dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (runtime_dir, 0700), ==, 0);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", data_dir, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_RUNTIME_DIR", runtime_dir, TRUE);
  process = g_subprocess_launcher_spawn (launcher, &error, daemon, "--daemonize", "--unlock",
                                         "--components=secrets", NULL);
  g_assert_no_error (error);
  /* The daemon forks and its first process exits once the keyring is
   * ready; waiting for that is bounded like every wait here. */
  g_subprocess_communicate_utf8_async (process, "test-keyring-password", NULL,
                                       on_keyring_started, &done);
  pd_test_wait_until (subprocess_done, &done, "gnome-keyring-daemon to start");
  g_assert_true (g_subprocess_get_successful (process));

  keyring_running = TRUE;
  return TRUE;
}

static gboolean
skip_without_keyring (void)
{
  if (ensure_keyring ())
    return FALSE;
  g_test_skip ("gnome-keyring-daemon is not installed (build-aux/setup.sh installs it)");
  return TRUE;
}

static void
test_keyring_stores_token (void)
{
  Endpoint endpoint = { 0 };
  const char *args[] = { "--remote", NULL, NULL };
  KeyringWait wait = { keyring_token, NULL, NULL };

  if (skip_without_keyring ())
    return;

  endpoint_start (&endpoint, "keyring-token");
  pd_test_reset_settings ();
  wait.base_url = endpoint.base_url;
  wait.token = endpoint.token;

  args[1] = endpoint.url;
  g_assert_cmpint (pd_test_run_app (args, pd_test_press_remember, NULL, NULL), ==, 0);
  pd_test_wait_until (keyring_has, &wait, "the token to be in the keyring");
  assert_not_in_settings ();

  /* A later start knows only the address: the keyring gives the token
   * (the copy kept for this session is dropped, so it must). */
  pd_secrets_keep_for_session (endpoint.base_url, NULL);
  args[1] = endpoint.base_url;
  g_assert_cmpint (pd_test_run_app (args, check_listed, NULL, NULL), ==, 0);

  endpoint_stop (&endpoint);
}

static gboolean
settings_token_cleared (gpointer data)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *kept = g_settings_get_string (settings, "endpoint-token");

  return kept[0] == '\0';
}

static void
test_keyring_migrates_settings_token (void)
{
  Endpoint endpoint = { 0 };
  const char *args[] = { "--remote", NULL, NULL };
  g_autoptr(GSettings) settings = NULL;
  KeyringWait wait = { keyring_token, NULL, NULL };

  if (skip_without_keyring ())
    return;

  endpoint_start (&endpoint, "old-settings-token");
  pd_test_reset_settings ();
  wait.base_url = endpoint.base_url;
  wait.token = endpoint.token;

  /* As an older Plandeck left it: the token in clear in GSettings. */
  settings = g_settings_new (APP_ID);
  g_settings_set_string (settings, "endpoint-url", endpoint.base_url);
  g_settings_set_string (settings, "endpoint-token", endpoint.token);

  args[1] = endpoint.base_url;
  g_assert_cmpint (pd_test_run_app (args, check_listed, NULL, NULL), ==, 0);
  pd_test_wait_until (keyring_has, &wait, "the old token to move to the keyring");
  pd_test_wait_until (settings_token_cleared, NULL, "the old token to leave GSettings");

  pd_secrets_keep_for_session (endpoint.base_url, NULL);
  endpoint_stop (&endpoint);
}

/* A token written into an endpoint's address in the `sources` setting was
 * used and stayed there in clear (tried as an attacker would): it leaves
 * the setting, the address written again without it, and is given as
 * Preferences gives one: kept in the keyring once the endpoint took it
 * (token-kept's setting cases, with a real serve), so not while nothing
 * answers at its address. */
static void
test_keyring_moves_sources_token (void)
{
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GVariant) after = NULL;
  g_autofree char *printed = NULL;
  const char *base_url = "http://127.0.0.1:9/?x=1";

  if (skip_without_keyring ())
    return;
  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources",
                        g_variant_new_parsed ("[('e5', 'R', 'http://127.0.0.1:9/?x=1&Token=sources-url-token')]"));
  g_assert_true (pd_sources_move_url_tokens (settings));
  after = g_settings_get_value (settings, "sources");
  printed = g_variant_print (after, FALSE);
  g_assert_cmpstr (printed, ==, "[('e5', 'R', 'http://127.0.0.1:9/?x=1')]");
  g_assert_true (pd_sources_token_check_pending (base_url));
  g_assert_null (pd_sources_dup_unkept_warning ());
  g_assert_false (pd_sources_move_url_tokens (settings));
  pd_secrets_keep_for_session (base_url, NULL);
}

/* --- provider keys in the keyring ---------------------------------------- */

/* Waits for @run's typed key to be kept for the profile's address, less its
 * last slash, as the keyring keeps it. */
static void
wait_for_key_kept (KeyRun     *run,
                   const char *what)
{
  g_autofree char *base_url = g_strdup (run->server->base_url);
  KeyringWait wait = { keyring_key, base_url, run->typed_key };

  if (g_str_has_suffix (base_url, "/"))
    base_url[strlen (base_url) - 1] = '\0';
  pd_test_wait_until (keyring_has, &wait, what);
}

static gboolean
is_key_row (GtkWidget     *widget,
            gconstpointer  data)
{
  return PD_IS_ENTRY_ROW (widget) && pd_entry_row_get_password (PD_ENTRY_ROW (widget));
}

static gboolean
key_row_is_empty (gpointer data)
{
  return g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (data)), "") == 0;
}

/* An unmasked field's row whose title starts with @data. */
static gboolean
is_plain_row (GtkWidget     *widget,
              gconstpointer  data)
{
  return PD_IS_ENTRY_ROW (widget) && !pd_entry_row_get_password (PD_ENTRY_ROW (widget)) &&
         g_str_has_prefix (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), data);
}

static void
check_typed_key (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  KeyRun *run = user_data;
  GtkWindow *preferences;
  GtkWidget *key_row;
  GtkWidget *base_url_row;
  g_autofree char *profiles = NULL;
  g_autofree char *kept_url = NULL;

  /* Stored as a person does it: typed in the profile's API Key row of the
   * preferences, then Apply. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.preferences", NULL));
  preferences = pd_test_find_toplevel (PD_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (preferences);
  pd_test_flush (GTK_WIDGET (preferences));
  key_row = pd_test_find_first (GTK_WIDGET (preferences), is_key_row, NULL);
  g_assert_nonnull (key_row);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (key_row, ADW_TYPE_EXPANDER_ROW)), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (key_row), run->typed_key);
  g_signal_emit_by_name (key_row, "apply");

  wait_for_key_kept (run, "the key to be in the keyring");
  pd_test_wait_row_title (key_row, "API Key (Kept in the Keyring)", "the row to say the key is kept");
  /* Kept, the key leaves the row, whose show-password button would
   * reveal it; the title says it is stored (the title may come first,
   * from the look that tells whether a key is kept). */
  pd_test_wait_until (key_row_is_empty, key_row, "the row to be emptied");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (key_row)), ==, "");
  profiles = profiles_text ();
  g_assert_null (strstr (profiles, run->typed_key));
  pd_test_screenshot_sizes (preferences, "preferences-api-key");

  /* The key is kept for the profile's address: with another typed in the
   * Base URL row, the key row no longer says a key is kept (it went on
   * saying so, tried as a new user would); back, it says so again. */
  base_url_row = pd_test_find_first (GTK_WIDGET (preferences), is_plain_row, "Base URL");
  kept_url = g_strdup (gtk_editable_get_text (GTK_EDITABLE (base_url_row)));
  gtk_editable_set_text (GTK_EDITABLE (base_url_row), run->other->base_url);
  pd_test_wait_row_title (key_row, "API Key", "the row to say no key is kept for the new address");
  pd_test_screenshot_sizes (preferences, "preferences-api-key-other-url");
  gtk_editable_set_text (GTK_EDITABLE (base_url_row), kept_url);
  pd_test_wait_row_title (key_row, "API Key (Kept in the Keyring)", "the row to say the key is kept again");
  pd_test_destroy_window (preferences, NULL);

  /* A run sends the keyring's key, before the variable's. */
  run_once (window, run, NULL);
  g_assert_cmpstr (last_authorization (run->server), ==, "Bearer keyring-key-2");

  /* An address typed for one session is not the key's: it gets the
   * variable's key, never the one stored for the profile's endpoint. */
  run_once (window, run, run->other);
  g_assert_cmpstr (last_authorization (run->other), ==, "Bearer env-key-2");
}

static void
test_keyring_provider_key (void)
{
  KeyRun run = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  if (skip_without_keyring ())
    return;

  key_run_init (&run);
  run.other = test_server_new ();
  run.typed_key = "keyring-key-2";
  pd_test_reset_settings ();
  set_profile (&run, KEY_VARIABLE);
  g_setenv (KEY_VARIABLE, "env-key-2", TRUE);
  args[1] = run.db;
  g_assert_cmpint (pd_test_run_app (args, check_typed_key, &run, NULL), ==, 0);
  g_unsetenv (KEY_VARIABLE);
  {
    g_autofree char *profiles = profiles_text ();

    g_assert_null (strstr (profiles, "keyring-key-2"));
  }
  key_run_clear (&run);
}

#define CLEAR_KEY "sk-clear-0123456789-abcdef"
/* A Groq key: letters, digits and _ only, the shape of a variable's name. */
#define GROQ_KEY "gsk_0123456789abcdefABCDEF0123456789abcdefABCDEF01"

static gboolean
profile_field_is_variable (gpointer data)
{
  const char *key = data;
  g_autofree char *profiles = profiles_text ();

  return strstr (profiles, key) == NULL && strstr (profiles, "'OPENAI_API_KEY'") != NULL;
}

static void
check_migrated_key (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  KeyRun *run = user_data;
  g_autofree char *bearer = g_strconcat ("Bearer ", run->typed_key, NULL);

  wait_for_key_kept (run, "the clear key to move to the keyring");
  pd_test_wait_until (profile_field_is_variable, (gpointer) run->typed_key,
                      "the clear key to leave GSettings");

  run_once (window, run, NULL);
  g_assert_cmpstr (last_authorization (run->server), ==, bearer);
}

/* A profile whose variable field holds @field, the key @key itself in
 * clear in GSettings: the window moves the key to the keyring and runs
 * send it. */
static void
run_migrated_key (const char *key,
                  const char *field)
{
  KeyRun run = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  if (skip_without_keyring ())
    return;

  key_run_init (&run);
  run.typed_key = key;
  pd_test_reset_settings ();
  set_profile (&run, field);
  g_unsetenv ("OPENAI_API_KEY");
  args[1] = run.db;
  g_assert_cmpint (pd_test_run_app (args, check_migrated_key, &run, NULL), ==, 0);
  key_run_clear (&run);
}

/* As an older version (or a person pasting into the wrong row) left it:
 * the key itself in the profile's variable field, in clear in GSettings. */
static void
test_keyring_migrates_profile_key (void)
{
  run_migrated_key (CLEAR_KEY, " " CLEAR_KEY "\n");
}

/* A key with no "-" (Groq's gsk_…) has the shape of a variable's name: it
 * stayed in clear in GSettings.  It moves to the keyring like any other. */
static void
test_keyring_migrates_underscore_key (void)
{
  run_migrated_key (GROQ_KEY, GROQ_KEY);
}

/* What a variable's name looks like, as against keys made of the same
 * characters. */
static void
test_variable_names (void)
{
  const char *names[] = {
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY", "HF_TOKEN", "MY_KEY_2",
    "my_key", "openai_api_key", "_PRIVATE_KEY", "PD_TEST_PROVIDER_KEY_NUMBER_2",
  };
  const char *keys[] = {
    GROQ_KEY, "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "fw_3ZabcdefGHIJ0123456789", "0123456789abcdef0123456789abcdef",
    "abcdef0123456789abcdef0123456789", "sk-proj-AbC123", "xai_Ab12", "key with spaces", "",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (!pd_secrets_is_variable_name (names[i]))
      g_error ("“%s” is a variable's name, not a key", names[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    if (pd_secrets_is_variable_name (keys[i]))
      g_error ("“%s” is a key, not a variable's name", keys[i]);
}

/* --- a key kept for the provider's own endpoint stays there --------------- */

#define HOME_KEY "sk-kept-for-api-openai-com"
#define LOOPBACK_KEY "sk-kept-for-the-loopback-server"

static void
store_key (const char *base_url,
           const char *key)
{
  g_autoptr(GError) error = NULL;

  secret_password_store_sync (&key_schema, SECRET_COLLECTION_DEFAULT, "test key", key, NULL, &error,
                              "provider", "openai", "base-url", base_url, NULL);
  g_assert_no_error (error);
}

static void
check_default_key_stays_home (PdApplication *app,
                              PdWindow      *window,
                              gpointer       user_data)
{
  KeyRun *run = user_data;
  g_autofree char *base_url = g_strdup (run->server->base_url);

  /* Kept for the profile's empty base URL, the provider's own endpoint:
   * OPENAI_BASE_URL sends the run elsewhere, and the key stays home. */
  store_key ("default", HOME_KEY);
  run_once (window, run, NULL);
  g_assert_null (last_authorization (run->server));

  /* A key kept for the address the requests do go to is sent there. */
  if (g_str_has_suffix (base_url, "/"))
    base_url[strlen (base_url) - 1] = '\0';
  store_key (base_url, LOOPBACK_KEY);
  run_once (window, run, NULL);
  g_assert_cmpstr (last_authorization (run->server), ==, "Bearer " LOOPBACK_KEY);
}

/* As an attacker would: the profile has no base URL, for the provider's
 * own endpoint, and the environment names another. */
static void
test_keyring_default_key_stays_home (void)
{
  KeyRun run = { 0 };
  const char *args[] = { "--db", NULL, NULL };
  g_autoptr(GSettings) settings = NULL;

  if (skip_without_keyring ())
    return;

  key_run_init (&run);
  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "provider-profiles",
                        g_variant_new_parsed ("[('OpenAI', 'openai', '', 'local-model', %s)]", KEY_VARIABLE));
  g_settings_set_string (settings, "default-profile", "OpenAI");
  g_unsetenv (KEY_VARIABLE);
  g_unsetenv ("OPENAI_API_KEY");
  g_setenv ("OPENAI_BASE_URL", run.server->base_url, TRUE);
  args[1] = run.db;
  g_assert_cmpint (pd_test_run_app (args, check_default_key_stays_home, &run, NULL), ==, 0);
  g_unsetenv ("OPENAI_BASE_URL");
  key_run_clear (&run);
}

/* --- a locked keyring: Preferences must not unlock it --------------------- */

static SecretCollection *
default_collection (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SecretService) service = secret_service_get_sync (SECRET_SERVICE_LOAD_COLLECTIONS, NULL, &error);
  SecretCollection *collection;

  g_assert_no_error (error);
  collection = secret_collection_for_alias_sync (service, SECRET_COLLECTION_DEFAULT,
                                                 SECRET_COLLECTION_NONE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (collection);
  return collection;
}

/* Asked of the daemon, not of a cached proxy property. */
static gboolean
collection_is_locked (SecretCollection *collection)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;

  reply = g_dbus_connection_call_sync (g_dbus_proxy_get_connection (G_DBUS_PROXY (collection)),
                                       "org.freedesktop.secrets",
                                       g_dbus_proxy_get_object_path (G_DBUS_PROXY (collection)),
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", "org.freedesktop.Secret.Collection", "Locked"),
                                       G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(v)", &value);
  return g_variant_get_boolean (value);
}

static void
check_locked_preferences (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  SecretCollection *collection = user_data;
  GtkWindow *preferences;
  GtkWidget *key_row;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.preferences", NULL));
  preferences = pd_test_find_toplevel (PD_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (preferences);
  pd_test_flush (GTK_WIDGET (preferences));
  key_row = pd_test_find_first (GTK_WIDGET (preferences), is_key_row, NULL);
  g_assert_nonnull (key_row);
  /* It knows a key is there without opening the keyring: no unlock, and
   * so no prompt (which, with no prompter on this bus, fails). */
  pd_test_wait_row_title (key_row, "API Key (Kept in the Keyring)", "the row to say the key is kept");
  g_assert_true (collection_is_locked (collection));
  pd_test_destroy_window (preferences, NULL);
}

/* Last of the keyring tests: it leaves the keyring locked. */
static void
test_keyring_locked_preferences (void)
{
  KeyRun run = { 0 };
  const char *args[] = { "--db", NULL, NULL };
  g_autoptr(SecretCollection) collection = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = NULL;
  GList *objects;

  if (skip_without_keyring ())
    return;

  key_run_init (&run);
  pd_test_reset_settings ();
  set_profile (&run, KEY_VARIABLE);
  base_url = g_strdup (run.server->base_url);
  if (g_str_has_suffix (base_url, "/"))
    base_url[strlen (base_url) - 1] = '\0';
  secret_password_store_sync (&key_schema, SECRET_COLLECTION_DEFAULT, "locked test key", "locked-key-3",
                              NULL, &error, "provider", "openai", "base-url", base_url, NULL);
  /* The test daemon may have gone away after the earlier cases' prompts
   * (gnome-keyring-daemon's own doing, seen once in a loaded full run):
   * this case needs a keyring, so it starts a new one and stores again. */
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN))
    {
      g_test_message ("the test keyring went away (%s); starting it again", error->message);
      g_clear_error (&error);
      secret_service_disconnect ();
      keyring_tried = FALSE;
      g_assert_true (ensure_keyring ());
      secret_password_store_sync (&key_schema, SECRET_COLLECTION_DEFAULT, "locked test key", "locked-key-3",
                                  NULL, &error, "provider", "openai", "base-url", base_url, NULL);
    }
  g_assert_no_error (error);

  collection = default_collection ();
  objects = g_list_append (NULL, collection);
  secret_service_lock_sync (secret_collection_get_service (collection), objects, NULL, NULL, &error);
  g_list_free (objects);
  g_assert_no_error (error);
  g_assert_true (collection_is_locked (collection));

  args[1] = run.db;
  g_assert_cmpint (pd_test_run_app (args, check_locked_preferences, collection, NULL), ==, 0);
  key_run_clear (&run);
}

/* --- a locked keyring asked to store: the prompt cannot be shown --------- */

typedef struct
{
  gboolean  done;
  gboolean  ok;
  char     *value;
  GError   *error;
} Answer;

static gboolean
answered (gpointer data)
{
  return ((Answer *) data)->done;
}

static void
on_key_store_answer (GObject      *object,
                     GAsyncResult *result,
                     gpointer      data)
{
  Answer *answer = data;

  answer->ok = pd_secrets_store_provider_key_finish (result, &answer->error);
  answer->done = TRUE;
}

static void
on_token_store_answer (GObject      *object,
                       GAsyncResult *result,
                       gpointer      data)
{
  Answer *answer = data;

  answer->ok = pd_secrets_store_token_finish (result, &answer->error);
  answer->done = TRUE;
}

static void
on_key_lookup_answer (GObject      *object,
                      GAsyncResult *result,
                      gpointer      data)
{
  Answer *answer = data;

  answer->value = pd_secrets_lookup_provider_key_finish (result, &answer->error);
  answer->done = TRUE;
}

static void
answer_clear (Answer *answer)
{
  g_clear_pointer (&answer->value, g_free);
  g_clear_error (&answer->error);
  answer->done = FALSE;
  answer->ok = FALSE;
}

/* The keyring stays locked (the unlock prompt cannot be shown on this
 * bus, as when a person dismisses it): storing fails with a sentence that
 * says so, not a crash on an error libsecret did not set, and the key is
 * kept for this session meanwhile. */
static void
test_keyring_locked_store (void)
{
  g_autoptr(SecretCollection) collection = NULL;
  Answer answer = { 0 };

  if (skip_without_keyring ())
    return;

  collection = default_collection ();
  g_assert_true (collection_is_locked (collection));

  pd_secrets_store_provider_key_async ("openai", "http://127.0.0.1:9/locked", "typed-while-locked",
                                       on_key_store_answer, &answer);
  pd_test_wait_until (answered, &answer, "the keyring to answer the store");
  g_test_message ("store: %s, %s", answer.ok ? "kept" : "not kept", answer.error ? answer.error->message : "(no error)");
  g_assert_false (answer.ok);
  /* A keyring there but left locked, as when its prompt is cancelled: the
   * window said "No keyring is running" of a token (tried as a new user
   * would). */
  g_assert_error (answer.error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_cmpstr (answer.error->message, ==, "No keyring could keep the API key (the keyring is locked and was not "
                                              "unlocked): it is kept until Plandeck quits");
  answer_clear (&answer);

  /* Kept for this session meanwhile: a run finds it. */
  pd_secrets_lookup_provider_key_async ("openai", "http://127.0.0.1:9/locked/", on_key_lookup_answer, &answer);
  pd_test_wait_until (answered, &answer, "the keyring to answer the lookup");
  g_assert_no_error (answer.error);
  g_assert_cmpstr (answer.value, ==, "typed-while-locked");
  answer_clear (&answer);

  pd_secrets_store_token_async ("http://127.0.0.1:9", "token-while-locked", on_token_store_answer, &answer);
  pd_test_wait_until (answered, &answer, "the keyring to answer the token store");
  g_test_message ("token store: %s, %s", answer.ok ? "kept" : "not kept",
                  answer.error ? answer.error->message : "(no error)");
  g_assert_false (answer.ok);
  g_assert_nonnull (answer.error);
  g_assert_true (g_str_has_prefix (answer.error->message, "No keyring could keep the token ("));
  answer_clear (&answer);
  pd_secrets_keep_for_session ("http://127.0.0.1:9", NULL);
}

/* --- no keyring: a key pasted where a variable's name goes ---------------- */

#define PASTED_KEY "sk-pasted-0123456789abcdef"
#define TYPED_KEY "sk-typed-into-the-variable-row"

/* Whether any widget under @root shows @secret in clear: a label, or an
 * entry's text that is not masked. */
static gboolean
shows_in_clear (GtkWidget  *root,
                const char *secret)
{
  if (GTK_IS_LABEL (root) && strstr (gtk_label_get_text (GTK_LABEL (root)), secret) != NULL)
    return TRUE;
  if (GTK_IS_TEXT (root) && gtk_text_get_visibility (GTK_TEXT (root)) &&
      strstr (gtk_editable_get_text (GTK_EDITABLE (root)), secret) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (shows_in_clear (child, secret))
      return TRUE;
  return FALSE;
}

static gboolean
key_row_says_session_only (gpointer data)
{
  return g_strcmp0 (adw_preferences_row_get_title (data), "API Key (Kept Only Until Plandeck Quits)") == 0;
}

static gboolean
shows_text (GtkWidget     *widget,
            gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

static gboolean
toast_says_kept_in_memory (gpointer data)
{
  return pd_test_find_label (GTK_WIDGET (data), "No keyring: the key is kept until Plandeck quits") != NULL;
}

/* Pasted into @window's variable row: the key moves to its masked key row,
 * the row keeps the variable's name, nothing shows the key in clear. */
static void
paste_into_variable_row (GtkWidget *window)
{
  GtkWidget *variable = pd_test_find_first (window, is_plain_row, "API Key Environment Variable");
  GtkWidget *key = pd_test_find_first (window, is_key_row, NULL);

  g_assert_nonnull (variable);
  g_assert_nonnull (key);
  gtk_editable_set_text (GTK_EDITABLE (variable), TYPED_KEY);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (variable)), ==, "OPENAI_API_KEY");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (key)), ==, TYPED_KEY);
  g_assert_false (shows_in_clear (window, TYPED_KEY));
}

static void
check_pasted_key (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  KeyRun *run = user_data;
  GtkWindow *preferences;
  GtkWidget *key_row;
  GtkWindow *dialog;
  g_autofree char *profiles = NULL;

  /* No keyring took it, and it left GSettings all the same: kept in
   * memory for this session, where a run finds it. */
  pd_test_wait_until (profile_field_is_variable, (gpointer) PASTED_KEY, "the pasted key to leave GSettings");
  run_once (window, run, NULL);
  g_assert_cmpstr (last_authorization (run->server), ==, "Bearer " PASTED_KEY);

  /* Preferences say it is not remembered past this session. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.preferences", NULL));
  preferences = pd_test_find_toplevel (PD_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (preferences);
  pd_test_flush (GTK_WIDGET (preferences));
  key_row = pd_test_find_first (GTK_WIDGET (preferences), is_key_row, NULL);
  g_assert_nonnull (key_row);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (key_row, ADW_TYPE_EXPANDER_ROW)), TRUE);
  pd_test_wait_until (key_row_says_session_only, key_row, "the row to say the key is not remembered");
  g_assert_false (shows_in_clear (GTK_WIDGET (preferences), PASTED_KEY));

  /* Another key pasted in the variable's row never reaches GSettings. */
  paste_into_variable_row (GTK_WIDGET (preferences));
  profiles = profiles_text ();
  g_assert_null (strstr (profiles, TYPED_KEY));
  g_assert_nonnull (strstr (profiles, "'OPENAI_API_KEY'"));
  pd_test_screenshot_sizes (preferences, "preferences-no-keyring");

  /* Applied with no keyring: the toast says in full what became of the
   * key; the keyring's D-Bus error (it showed, cut off) goes to the log. */
  g_signal_emit_by_name (key_row, "apply");
  pd_test_wait_until (toast_says_kept_in_memory, preferences, "the toast to say the key is kept until Plandeck quits");
  g_assert_null (pd_test_find_first (GTK_WIDGET (preferences), shows_text, "org.freedesktop"));
  pd_test_wait_until (key_row_is_empty, key_row, "the key row to be emptied");
  pd_test_destroy_window (preferences, NULL);

  /* New Session: the same, and the key goes with this session's run. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-session", NULL));
  dialog = pd_test_find_toplevel (PD_TYPE_NEW_SESSION_DIALOG);
  g_assert_nonnull (dialog);
  pd_test_flush (GTK_WIDGET (dialog));
  paste_into_variable_row (GTK_WIDGET (dialog));
  {
    g_autoptr(PdRunSettings) settings = pd_new_session_dialog_dup_settings (PD_NEW_SESSION_DIALOG (dialog));

    g_assert_cmpstr (settings->api_key, ==, TYPED_KEY);
    g_assert_cmpstr (settings->api_key_env, ==, "OPENAI_API_KEY");
  }
  pd_test_screenshot_sizes (dialog, "new-session-pasted-key");
  pd_test_destroy_window (dialog, NULL);
}

/* As a new user would: with no keyring, a key pasted into a profile's
 * variable field sat in GSettings in clear and showed in clear in the New
 * Session dialog's variable row. */
static void
test_no_keyring_pasted_key (void)
{
  KeyRun run = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  key_run_init (&run);
  pd_test_reset_settings ();
  set_profile (&run, PASTED_KEY);
  g_unsetenv ("OPENAI_API_KEY");
  args[1] = run.db;
  g_assert_cmpint (pd_test_run_app (args, check_pasted_key, &run, NULL), ==, 0);
  key_run_clear (&run);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

  /* Order matters: the bus has no Secret Service until the keyring cases. */
  g_test_add_func ("/secrets/no-keyring-session-only", test_no_keyring_session_only);
  g_test_add_func ("/secrets/no-keyring-env-key", test_no_keyring_env_key);
  g_test_add_func ("/secrets/no-keyring-pasted-key", test_no_keyring_pasted_key);
  g_test_add_func ("/secrets/keyring-stores-token", test_keyring_stores_token);
  g_test_add_func ("/secrets/keyring-migrates-settings-token", test_keyring_migrates_settings_token);
  g_test_add_func ("/secrets/keyring-moves-sources-token", test_keyring_moves_sources_token);
  g_test_add_func ("/secrets/keyring-provider-key", test_keyring_provider_key);
  g_test_add_func ("/secrets/keyring-migrates-profile-key", test_keyring_migrates_profile_key);
  g_test_add_func ("/secrets/keyring-migrates-underscore-key", test_keyring_migrates_underscore_key);
  g_test_add_func ("/secrets/keyring-default-key-stays-home", test_keyring_default_key_stays_home);
  g_test_add_func ("/secrets/variable-names", test_variable_names);
  g_test_add_func ("/secrets/keyring-locked-preferences", test_keyring_locked_preferences);
  g_test_add_func ("/secrets/keyring-locked-store", test_keyring_locked_store);

  return g_test_run ();
}

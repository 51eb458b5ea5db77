/* test-secrets.c: endpoint tokens go to the keyring, never to GSettings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs on a private session bus that starts no service by itself
 * (secrets-bus.conf).  First with no Secret Service there: the token works
 * for this session and the window says it is not kept.  Then with a real
 * gnome-keyring-daemon the test starts on that bus, with an unlocked login
 * keyring made from a password on its stdin (no prompt): a token given in
 * the URL lands in the keyring and not in GSettings, a later start finds
 * it there, and a token an older Plandeck left in GSettings moves to the
 * keyring.  Without gnome-keyring-daemon the keyring cases skip, saying so.
 */
#include "config.h"

#include <libsecret/secret.h>

#include "pd-secrets.h"
#include "pd-server.h"
#include "pd-session-list.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define WAIT_MS 20000

static const SecretSchema token_schema = {
  "io.github.plandeck.Plandeck.Token", SECRET_SCHEMA_NONE,
  {
    { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
    { NULL, 0 },
  }
};

#define NO_KEYRING_MESSAGE "No keyring is available: the token is kept for this session only"

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
  pd_test_wait_until (remote_listed, window, WAIT_MS, "the remote sessions to be listed");
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
  pd_test_wait_until (remote_listed, window, WAIT_MS, "the remote sessions to be listed");
  pd_test_wait_until (no_keyring_said, window, WAIT_MS, "the window to say the token is not kept");
}

static char *
keyring_token (const char *base_url)
{
  g_autoptr(GError) error = NULL;
  char *secret = secret_password_lookup_sync (&token_schema, NULL, &error,
                                              "kind", "remote-token",
                                              "endpoint", base_url,
                                              NULL);
  char *token;

  g_assert_no_error (error);
  token = g_strdup (secret);
  secret_password_free (secret);
  return token;
}

typedef struct
{
  const char *base_url;
  const char *token;
} KeyringWait;

static gboolean
keyring_has_token (gpointer data)
{
  KeyringWait *wait = data;
  g_autofree char *token = keyring_token (wait->base_url);

  return g_strcmp0 (token, wait->token) == 0;
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
  pd_test_wait_until (subprocess_done, &done, WAIT_MS, "gnome-keyring-daemon to start");
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
  KeyringWait wait;

  if (skip_without_keyring ())
    return;

  endpoint_start (&endpoint, "keyring-token");
  pd_test_reset_settings ();
  wait.base_url = endpoint.base_url;
  wait.token = endpoint.token;

  args[1] = endpoint.url;
  g_assert_cmpint (pd_test_run_app (args, check_listed, NULL, NULL), ==, 0);
  pd_test_wait_until (keyring_has_token, &wait, WAIT_MS, "the token to be in the keyring");
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
  KeyringWait wait;

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
  pd_test_wait_until (keyring_has_token, &wait, WAIT_MS, "the old token to move to the keyring");
  pd_test_wait_until (settings_token_cleared, NULL, WAIT_MS, "the old token to leave GSettings");

  pd_secrets_keep_for_session (endpoint.base_url, NULL);
  endpoint_stop (&endpoint);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

  /* Order matters: the bus has no Secret Service until the keyring cases. */
  g_test_add_func ("/secrets/no-keyring-session-only", test_no_keyring_session_only);
  g_test_add_func ("/secrets/keyring-stores-token", test_keyring_stores_token);
  g_test_add_func ("/secrets/keyring-migrates-settings-token", test_keyring_migrates_settings_token);

  return g_test_run ();
}

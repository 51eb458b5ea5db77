/* test-no-keyring.c: with no keyring, a window says so once, in words
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs on a private session bus that starts no service by itself
 * (private-bus.conf), so no Secret Service is there.  A window on a real
 * `serve` endpoint is given its token three times (the address, then the
 * token banner twice, as after a server's restart): each time no keyring
 * keeps it.  The window says so in one toast, in words: it said so on
 * every token, with the bus's own error ("The name
 * org.freedesktop.secrets was not provided by any .service files") on the
 * way (tried as a new user would).  Preferences → Sources said of an
 * endpoint without a token that removing it leaves its token in the
 * keyring.
 */
#include "config.h"

#include <string.h>

#include "pd-secrets.h"
#include "pd-server.h"
#include "pd-session-list.h"
#include "pd-sources-page.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define NOT_KEPT "No keyring is running: the token is used until Plandeck quits"
#define TOKEN "no-keyring-token"

static gboolean
remote_listed (gpointer data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_SESSION_LIST));

  return pd_session_list_get_loaded (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == 1;
}

static gboolean
is_toast (GtkWidget     *widget,
          gconstpointer  data)
{
  return g_strcmp0 (gtk_widget_get_css_name (widget), "toast") == 0;
}

static gboolean
has_toast (gpointer window)
{
  return pd_test_find_first (window, is_toast, NULL) != NULL;
}

static gboolean
unparented (gpointer widget)
{
  return gtk_widget_get_parent (widget) == NULL;
}

static gboolean
is_close_button (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) &&
         g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "window-close-symbolic") == 0;
}

/* The toast shown: its title; then closed by its close button, once it
 * finished appearing (libadwaita 1.2 frees a toast's animations twice when
 * it is closed during its show animation). */
static char *
take_toast (PdWindow *window)
{
  g_autoptr(GtkWidget) toast = NULL;
  GtkWidget *close;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GString *title = g_string_new (NULL);

  pd_test_wait_until (has_toast, window, "a toast");
  pd_test_spin (500);
  toast = g_object_ref (pd_test_find_first (GTK_WIDGET (window), is_toast, NULL));
  pd_test_collect (toast, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_visible (g_ptr_array_index (labels, i)))
      g_string_append (title, gtk_label_get_text (g_ptr_array_index (labels, i)));
  close = pd_test_find_first (toast, is_close_button, NULL);
  g_assert_nonnull (close);
  g_signal_emit_by_name (close, "clicked");
  /* The next one may show while this one goes. */
  pd_test_wait_until (unparented, toast, "the toast to go");
  g_test_message ("toast: %s", title->str);
  return g_string_free (title, FALSE);
}

static void
on_stored (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  gboolean *done = data;
  g_autoptr(GError) error = NULL;

  g_assert_false (pd_secrets_store_token_finish (result, &error));
  /* The words, not the bus's error. */
  g_assert_null (strstr (error->message, "org.freedesktop"));
  g_assert_null (strstr (error->message, ".service files"));
  g_assert_nonnull (strstr (error->message, "no keyring is running"));
  *done = TRUE;
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

static void
give_token (PdWindow *window)
{
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (window), GTK_TYPE_PASSWORD_ENTRY);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), TOKEN);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.use-token", NULL));
}

static void
check_said_once (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  const char *base_url = user_data;
  gboolean stored = FALSE;
  guint said = 0;

  pd_test_wait_until (remote_listed, window, "the remote session to be listed");
  /* The token of the address is kept only when asked (no keyring prompt
   * unasked): Remember. */
  pd_test_press_remember (app, window, NULL);

  /* The token again, twice, from the banner; then one more store of our
   * own, whose answer comes after theirs (the requests go out in turn). */
  give_token (window);
  give_token (window);
  pd_secrets_store_token_async (base_url, TOKEN, on_stored, &stored);
  pd_test_wait_until (is_true, &stored, "the keyring's answer");
  pd_window_show_message (window, "Sentinel");

  /* The toasts in their order, up to ours: one says the token is not
   * kept. */
  for (;;)
    {
      g_autofree char *title = take_toast (window);

      g_assert_null (strstr (title, "org.freedesktop"));
      if (g_strcmp0 (title, "Sentinel") == 0)
        break;
      /* (The endpoint's other news, such as that it runs no prompts, is
       * not what this is about.) */
      if (strstr (title, "keyring") == NULL)
        continue;
      g_assert_cmpstr (title, ==, NOT_KEPT);
      said++;
    }
  g_assert_cmpuint (said, ==, 1);

  /* A keyring left locked, its prompt cancelled, is no missing keyring:
   * "Token not saved", each time. */
  {
    g_autoptr(GError) declined = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "locked");
    g_autofree char *title = NULL;

    pd_window_say_token_not_kept (window, declined);
    title = take_toast (window);
    g_assert_cmpstr (title, ==, "Token not saved: it is used until Plandeck quits");
  }
}

/* A keyring that answered and did not keep the token was declined, however
 * it said so: with gnome-keyring's own prompter, "Choose password for new
 * keyring" cancelled, the window said "No keyring is running" (tried as a
 * new user would, nu15).  Only a bus with no Secret Service on it is no
 * keyring.  Before, the errors below but the last two counted as none. */
static void
test_store_declined (void)
{
  const struct { GQuark domain; int code; gboolean declined; } cases[] = {
    { G_DBUS_ERROR, G_DBUS_ERROR_FAILED, TRUE },
    { G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY, TRUE },
    { G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS, TRUE },
    { G_IO_ERROR, G_IO_ERROR_CANCELLED, TRUE },
    { G_IO_ERROR, G_IO_ERROR_FAILED, TRUE },
    { G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, TRUE },
    { G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN, FALSE },
    { G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER, FALSE },
  };

  g_assert_true (pd_secrets_store_declined (NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = g_error_new_literal (cases[i].domain, cases[i].code, "said");

      g_test_message ("case %u", i);
      g_assert_cmpint (pd_secrets_store_declined (error), ==, cases[i].declined);
    }
}

static void
test_said_once (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "served.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autofree char *id = pd_test_add_session (store, "Remote task", "plandeck");
  g_autoptr(PdServer) server = pd_server_new (db);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *token = NULL;
  g_autofree char *base_url = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  pd_test_reset_settings ();
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, TOKEN);
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);
  url = pd_server_dup_start_url (server);
  base_url = pd_window_split_endpoint_url (url, &token);
  args[1] = url;
  g_assert_cmpint (pd_test_run_app (args, check_said_once, base_url, NULL), ==, 0);

  pd_secrets_keep_for_session (base_url, NULL);
  pd_server_stop (server);
}

static void
on_has_token (GObject      *object,
              GAsyncResult *result,
              gpointer      data)
{
  gboolean *done = data;

  g_assert_false (pd_secrets_has_token_finish (result, NULL));
  *done = TRUE;
}

static void
test_no_token_stays (void)
{
  g_autoptr(GSettings) settings = NULL;
  GtkWidget *page;
  GtkWindow *window;
  gboolean answered = FALSE;

  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_new_parsed ("[('e1', 'Build box', 'http://127.0.0.1:9')]"));
  page = GTK_WIDGET (pd_sources_page_new (settings));
  window = pd_test_present (page, 600, 600);
  g_assert_nonnull (pd_test_find_label (page, "Remove from the Window"));
  /* Asked after the page's own question: answered after it. */
  pd_secrets_has_token_async ("http://127.0.0.1:9", on_has_token, &answered);
  pd_test_wait_until (is_true, &answered, "the keyring's answer");
  pd_test_flush (page);
  g_assert_null (pd_test_find_label (page, "Its token stays in the keyring"));
  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_print ("1..0 # SKIP no session bus: run under dbus-run-session (meson test does)\n");
      return 0;
    }
  g_test_add_func ("/pd/ui/no-keyring/said-once", test_said_once);
  g_test_add_func ("/pd/ui/no-keyring/store-declined", test_store_declined);
  g_test_add_func ("/pd/ui/no-keyring/no-token-stays", test_no_token_stays);

  return g_test_run ();
}

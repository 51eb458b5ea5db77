/* test-a11y-atspi.c: the windows as a screen reader reads them, over AT-SPI
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK's AT-SPI backend on a real accessibility bus
 * (with-atspi.sh), not GTK_A11Y=test: what it checks, the role a toplevel
 * is given, the test backend never showed. The windows' own accessibility
 * objects are read over D-Bus as a screen reader does: the registry's
 * applications, each application's windows, their Name and role. Calls to
 * the app's own objects are made without blocking, as the app answers
 * them from this same main loop.
 */
#define G_LOG_DOMAIN "test-a11y-atspi"

#include "config.h"

#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define ATSPI_ACCESSIBLE "org.a11y.atspi.Accessible"
#define ATSPI_ROOT "/org/a11y/atspi/accessible/root"

/* AT-SPI's roles (AtspiRole), as a screen reader names them. */
static const char *
role_name (guint32 role)
{
  switch (role)
    {
    case 16:
      return "dialog";
    case 20:
      return "filler";
    case 23:
      return "frame";
    default:
      return "other";
    }
}

static void
on_reply (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  GVariant **reply = user_data;
  g_autoptr(GError) error = NULL;

  *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  g_assert_no_error (error);
}

/* A call to @dest, the main loop running until it is answered. */
static GVariant *
call (GDBusConnection    *bus,
      const char         *dest,
      const char         *path,
      const char         *interface,
      const char         *method,
      GVariant           *parameters,
      const GVariantType *reply_type)
{
  GVariant *reply = NULL;

  g_dbus_connection_call (bus, dest, path, interface, method, parameters, reply_type,
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_reply, &reply);
  while (reply == NULL)
    g_main_context_iteration (NULL, TRUE);
  return reply;
}

static GDBusConnection *
a11y_bus (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) session = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr(GVariant) reply = NULL;
  const char *address;
  GDBusConnection *bus;

  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (session, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus",
                                       "GetAddress", NULL, G_VARIANT_TYPE ("(s)"),
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(&s)", &address);
  bus = g_dbus_connection_new_for_address_sync (address,
                                                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                NULL, NULL, &error);
  g_assert_no_error (error);
  return bus;
}

/* "role title" of each window shown of each application on the bus, as
 * a screen reader lists them. */
static GPtrArray *
read_windows (GDBusConnection *bus)
{
  GPtrArray *windows = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GVariant) apps = call (bus, "org.a11y.atspi.Registry", ATSPI_ROOT, ATSPI_ACCESSIBLE,
                                   "GetChildren", NULL, G_VARIANT_TYPE ("(a(so))"));
  g_autoptr(GVariantIter) app_iter = NULL;
  const char *app_name, *app_path;

  g_variant_get (apps, "(a(so))", &app_iter);
  while (g_variant_iter_next (app_iter, "(&s&o)", &app_name, &app_path))
    {
      g_autoptr(GVariant) children = call (bus, app_name, app_path, ATSPI_ACCESSIBLE, "GetChildren",
                                           NULL, G_VARIANT_TYPE ("(a(so))"));
      g_autoptr(GVariantIter) iter = NULL;
      const char *name, *path;

      g_variant_get (children, "(a(so))", &iter);
      while (g_variant_iter_next (iter, "(&s&o)", &name, &path))
        {
          g_autoptr(GVariant) role = call (bus, name, path, ATSPI_ACCESSIBLE, "GetRole", NULL,
                                           G_VARIANT_TYPE ("(u)"));
          g_autoptr(GVariant) title = call (bus, name, path, "org.freedesktop.DBus.Properties", "Get",
                                            g_variant_new ("(ss)", ATSPI_ACCESSIBLE, "Name"),
                                            G_VARIANT_TYPE ("(v)"));
          g_autoptr(GVariant) title_value = NULL;
          guint32 role_number;

          g_variant_get (role, "(u)", &role_number);
          g_variant_get (title, "(v)", &title_value);
          g_ptr_array_add (windows, g_strdup_printf ("%s %s", role_name (role_number),
                                                     g_variant_get_string (title_value, NULL)));
        }
    }
  return windows;
}

/* The window called @title is there with @role over AT-SPI. */
static void
assert_window_role (GDBusConnection *bus,
                    const char      *title,
                    const char      *role)
{
  g_autoptr(GPtrArray) windows = read_windows (bus);
  g_autofree char *wanted = g_strdup_printf ("%s %s", role, title);
  gboolean found = FALSE;

  for (guint i = 0; i < windows->len; i++)
    {
      g_test_message ("over AT-SPI: [%s]", (char *) g_ptr_array_index (windows, i));
      if (g_str_equal (g_ptr_array_index (windows, i), wanted))
        found = TRUE;
    }
  if (!found)
    g_error ("no window “%s” with the role %s among the %u read over AT-SPI", title, role, windows->len);
}

static GtkWindow *
open_dialog (PdWindow   *window,
             const char *action,
             GType       type,
             const char *what)
{
  GtkWindow *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (type), what);
  dialog = pd_test_mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

/* New Session is a dialog, the window and Preferences frames, each named
 * by its title. (A window opened while the app runs, the demo's, is still
 * a "filler": a status page's scroller changes its Tab stop while the
 * window is built; keeping that change until it is shown moved the
 * focus into status pages. Left open.) */
static void
check_window_roles (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  g_autoptr(GDBusConnection) bus = a11y_bus ();
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  assert_window_role (bus, gtk_window_get_title (GTK_WINDOW (window)), "frame");

  dialog = open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  assert_window_role (bus, "New Session", "dialog");
  gtk_window_destroy (dialog);

  dialog = open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  assert_window_role (bus, "Preferences", "frame");
  gtk_window_destroy (dialog);
}

static void
test_window_roles (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_window_roles, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/atspi/window-roles", test_window_roles);

  return g_test_run ();
}

/* pd-test-atspi.h: the AT-SPI bus as a screen reader reaches it, for the
 * ui tests that read the accessibility tree over D-Bus (a11y-atspi,
 * a11y-atspi-pages).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#define ATSPI_ACCESSIBLE "org.a11y.atspi.Accessible"
#define ATSPI_ROOT "/org/a11y/atspi/accessible/root"

static inline void
pd_test_atspi_on_reply (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  GVariant **reply = user_data;
  g_autoptr(GError) error = NULL;

  *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  g_assert_no_error (error);
}

/* A call to @dest, the main loop running until it is answered. */
static inline GVariant *
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
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, pd_test_atspi_on_reply, &reply);
  while (reply == NULL)
    g_main_context_iteration (NULL, TRUE);
  return reply;
}

static inline GDBusConnection *
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

static inline char *
atspi_name (GDBusConnection *bus,
            const char      *name,
            const char      *path)
{
  g_autoptr(GVariant) reply = call (bus, name, path, "org.freedesktop.DBus.Properties", "Get",
                                    g_variant_new ("(ss)", ATSPI_ACCESSIBLE, "Name"), G_VARIANT_TYPE ("(v)"));
  g_autoptr(GVariant) value = NULL;

  g_variant_get (reply, "(v)", &value);
  return g_variant_dup_string (value, NULL);
}

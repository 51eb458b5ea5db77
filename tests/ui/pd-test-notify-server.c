/* pd-test-notify-server.c: a recording notification server on the test's
 * private session bus
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-test-notify-server"

#include "config.h"

#include "pd-test-notify-server.h"
#include "pd-test-ui.h"

#define APP_PATH "/io/github/plandeck/Plandeck"

static const char servers_xml[] =
  "<node>"
  "  <interface name='org.gtk.Notifications'>"
  "    <method name='AddNotification'>"
  "      <arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='a{sv}' direction='in'/>"
  "    </method>"
  "    <method name='RemoveNotification'>"
  "      <arg type='s' direction='in'/><arg type='s' direction='in'/>"
  "    </method>"
  "  </interface>"
  "  <interface name='org.freedesktop.portal.Notification'>"
  "    <method name='AddNotification'>"
  "      <arg type='s' direction='in'/><arg type='a{sv}' direction='in'/>"
  "    </method>"
  "    <method name='RemoveNotification'><arg type='s' direction='in'/></method>"
  "  </interface>"
  "  <interface name='org.freedesktop.Notifications'>"
  "    <method name='GetCapabilities'><arg type='as' direction='out'/></method>"
  "    <method name='Notify'>"
  "      <arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/>"
  "      <arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/>"
  "      <arg type='a{sv}' direction='in'/><arg type='i' direction='in'/>"
  "      <arg type='u' direction='out'/>"
  "    </method>"
  "    <method name='CloseNotification'><arg type='u' direction='in'/></method>"
  "    <method name='GetServerInformation'>"
  "      <arg type='s' direction='out'/><arg type='s' direction='out'/>"
  "      <arg type='s' direction='out'/><arg type='s' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

static struct
{
  GDBusConnection *connection;
  GPtrArray       *added;     /* (element-type PdTestNotification) */
  GPtrArray       *removed;   /* (element-type utf8) ids */
} server;

static void
notification_free (PdTestNotification *record)
{
  g_free (record->id);
  g_variant_unref (record->notification);
  g_free (record);
}

static void
on_server_call (GDBusConnection       *connection,
                const char            *sender,
                const char            *path,
                const char            *interface,
                const char            *method,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  gboolean portal = g_str_equal (interface, "org.freedesktop.portal.Notification");
  gboolean fdo = g_str_equal (interface, "org.freedesktop.Notifications");
  const char *app_id = APP_ID;
  const char *id = NULL;

  if (fdo && g_str_equal (method, "GetCapabilities"))
    {
      const char *caps[] = { "body", "actions", NULL };

      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(^as)", caps));
      return;
    }
  if (fdo && g_str_equal (method, "GetServerInformation"))
    {
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(ssss)", "test", "test", "1", "1.2"));
      return;
    }
  if (g_str_equal (method, "AddNotification") || g_str_equal (method, "Notify"))
    {
      PdTestNotification *record = g_new0 (PdTestNotification, 1);
      g_autofree char *printed = NULL;

      if (fdo)
        {
          record->notification = g_variant_ref (parameters);
          g_variant_get_child (parameters, 3, "s", &record->id);
        }
      else
        {
          if (portal)
            g_variant_get (parameters, "(&s@a{sv})", &id, &record->notification);
          else
            g_variant_get (parameters, "(&s&s@a{sv})", &app_id, &id, &record->notification);
          record->id = g_strdup (id);
        }
      g_assert_cmpstr (app_id, ==, APP_ID);
      printed = g_variant_print (parameters, FALSE);
      g_test_message ("%s %s: %s", interface, record->id, printed);
      g_ptr_array_add (server.added, record);
      g_dbus_method_invocation_return_value (invocation, fdo ? g_variant_new ("(u)", server.added->len) : NULL);
      return;
    }
  if (g_str_equal (method, "RemoveNotification"))
    {
      if (portal)
        g_variant_get (parameters, "(&s)", &id);
      else
        g_variant_get (parameters, "(&s&s)", &app_id, &id);
      g_ptr_array_add (server.removed, g_strdup (id));
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
}

void
pd_test_notify_server_start (const char *name,
                             const char *path,
                             const char *interface)
{
  static const GDBusInterfaceVTable vtable = { on_server_call, NULL, NULL, { 0 } };
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, &error);
  guint32 result = 0;

  g_assert_no_error (error);
  /* A connection of its own: to the application it is another peer. */
  server.connection = g_dbus_connection_new_for_address_sync (address,
                                                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                              G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                              NULL, NULL, &error);
  g_assert_no_error (error);
  server.added = g_ptr_array_new_with_free_func ((GDestroyNotify) notification_free);
  server.removed = g_ptr_array_new_with_free_func (g_free);

  info = g_dbus_node_info_new_for_xml (servers_xml, &error);
  g_assert_no_error (error);
  g_dbus_connection_register_object (server.connection, path,
                                     g_dbus_node_info_lookup_interface (info, interface),
                                     &vtable, NULL, NULL, &error);
  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (server.connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "RequestName",
                                       g_variant_new ("(su)", name, 4 /* DO_NOT_QUEUE */),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(u)", &result);
  g_assert_cmpuint (result, ==, 1 /* PRIMARY_OWNER */);
}


GDBusConnection *
pd_test_notify_server_connection (void)
{
  return server.connection;
}

GDBusInterfaceInfo *
pd_test_notify_server_interface (const char *interface)
{
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  GDBusInterfaceInfo *found;

  info = g_dbus_node_info_new_for_xml (servers_xml, &error);
  g_assert_no_error (error);
  found = g_dbus_node_info_lookup_interface (info, interface);
  g_assert_nonnull (found);
  return g_dbus_interface_info_ref (found);
}

GPtrArray *
pd_test_notify_server_added (void)
{
  return server.added;
}

PdTestNotification *
pd_test_notification_find (const char *prefix)
{
  for (guint i = 0; i < server.added->len; i++)
    {
      PdTestNotification *record = g_ptr_array_index (server.added, i);

      if (g_str_has_prefix (record->id, prefix))
        return record;
    }
  return NULL;
}

PdTestNotification *
pd_test_notification_find_last (const char *prefix)
{
  for (guint i = server.added->len; i > 0; i--)
    {
      PdTestNotification *record = g_ptr_array_index (server.added, i - 1);

      if (g_str_has_prefix (record->id, prefix))
        return record;
    }
  return NULL;
}

guint
pd_test_notification_count (const char *prefix)
{
  guint n = 0;

  for (guint i = 0; i < server.added->len; i++)
    n += g_str_has_prefix (((PdTestNotification *) g_ptr_array_index (server.added, i))->id, prefix);
  return n;
}

static gboolean
has_added (gpointer prefix)
{
  return pd_test_notification_find (prefix) != NULL;
}

PdTestNotification *
pd_test_notification_wait (const char *prefix)
{
  g_autofree char *what = g_strdup_printf ("a notification “%s…”", prefix);

  pd_test_wait_until (has_added, (gpointer) prefix, what);
  return pd_test_notification_find (prefix);
}

gboolean
pd_test_notification_removed (gpointer id)
{
  return g_ptr_array_find_with_equal_func (server.removed, id, g_str_equal, NULL);
}

char *
pd_test_notification_field (PdTestNotification *record,
                            const char         *key)
{
  const char *value = NULL;

  if (!g_variant_lookup (record->notification, key, "&s", &value))
    return g_strdup ("");
  return g_strdup (value);
}

void
pd_test_notification_assert_default_opens (PdTestNotification *record,
                                           const char         *session_id)
{
  g_autofree char *action = pd_test_notification_field (record, "default-action");
  g_autoptr(GVariant) target = g_variant_lookup_value (record->notification, "default-action-target", NULL);

  g_assert_cmpstr (action, ==, "app.open-session");
  g_assert_nonnull (target);
  g_assert_cmpstr (g_variant_get_string (target, NULL), ==, session_id);
}

GVariant *
pd_test_notification_button (PdTestNotification  *record,
                             const char          *label,
                             char               **action)
{
  g_autoptr(GVariant) buttons = g_variant_lookup_value (record->notification, "buttons",
                                                        G_VARIANT_TYPE ("aa{sv}"));
  GVariantIter iter;
  GVariant *button;

  g_assert_nonnull (buttons);
  g_variant_iter_init (&iter, buttons);
  while ((button = g_variant_iter_next_value (&iter)))
    {
      const char *button_label = NULL;
      GVariant *target = NULL;

      g_variant_lookup (button, "label", "&s", &button_label);
      if (g_strcmp0 (button_label, label) == 0)
        {
          target = g_variant_lookup_value (button, "target", NULL);
          if (action != NULL)
            g_variant_lookup (button, "action", "s", action);
        }
      g_variant_unref (button);
      if (target != NULL)
        return target;
    }
  g_error ("the notification %s has no button “%s”", record->id, label);
}

void
pd_test_notification_activate (const char *action,
                               GVariant   *target)
{
  GVariantBuilder params;

  g_variant_builder_init (&params, G_VARIANT_TYPE ("av"));
  if (target != NULL)
    g_variant_builder_add (&params, "v", target);
  g_assert_true (g_str_has_prefix (action, "app."));
  g_dbus_connection_call (server.connection, APP_ID, APP_PATH, "org.freedesktop.Application",
                          "ActivateAction",
                          g_variant_new ("(sav@a{sv})", action + 4, &params,
                                         g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0)),
                          NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
}

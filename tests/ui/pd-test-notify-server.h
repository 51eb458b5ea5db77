/* pd-test-notify-server.h: a recording notification server on the test's
 * private session bus, and what the notification tests do with what it
 * records (find, wait, read a field, press a button as a server does)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  char     *id;             /* GNotification's id; the summary for fdo */
  GVariant *notification;   /* a{sv}: GLib's serialized notification; fdo: its Notify call */
} PdTestNotification;

/* On a connection of its own (to the application another peer), owns
 * @name and serves @interface at @path: org.gtk.Notifications,
 * org.freedesktop.portal.Notification or org.freedesktop.Notifications,
 * recording each notification added and each id removed. */
void                pd_test_notify_server_start        (const char          *name,
                                                        const char          *path,
                                                        const char          *interface);
GDBusConnection    *pd_test_notify_server_connection   (void);
/* (transfer full): the D-Bus description of the server interface @interface,
 * for a case that serves it its own way */
GDBusInterfaceInfo *pd_test_notify_server_interface    (const char          *interface);
/* (element-type PdTestNotification): every notification added, in order */
GPtrArray          *pd_test_notify_server_added        (void);

/* The first (or last) notification added whose id starts with @prefix. */
PdTestNotification *pd_test_notification_find          (const char          *prefix);
PdTestNotification *pd_test_notification_find_last     (const char          *prefix);
guint               pd_test_notification_count         (const char          *prefix);
PdTestNotification *pd_test_notification_wait          (const char          *prefix);
/* A pd_test_wait_until() condition: the id @id (a string) was removed. */
gboolean            pd_test_notification_removed       (gpointer             id);

/* The field @key as a string; "" when absent. */
char               *pd_test_notification_field         (PdTestNotification  *record,
                                                        const char          *key);
/* A click opens the session @session_id. */
void                pd_test_notification_assert_default_opens (PdTestNotification *record,
                                                               const char         *session_id);
/* The target of the button labelled @label (and its action, when
 * @action is not NULL); the test fails when there is no such button. */
GVariant           *pd_test_notification_button        (PdTestNotification  *record,
                                                        const char          *label,
                                                        char               **action);
/* What a server does for a click or a button: ActivateAction on the
 * application's object, the "app." prefix dropped. */
void                pd_test_notification_activate      (const char          *action,
                                                        GVariant            *target);

G_END_DECLS

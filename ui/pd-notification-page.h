/* pd-notification-page.h: the Notifications page of Preferences
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

AdwPreferencesPage *pd_notification_page_new (GSettings *settings);

G_END_DECLS

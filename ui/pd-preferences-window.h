/* pd-preferences-window.h: provider profiles, refresh intervals, privacy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PD_TYPE_PREFERENCES_WINDOW (pd_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (PdPreferencesWindow, pd_preferences_window, PD, PREFERENCES_WINDOW, AdwPreferencesWindow)

PdPreferencesWindow *pd_preferences_window_new (GtkWindow *parent);
void                 pd_preferences_window_show_endpoint (PdPreferencesWindow *self,
                                                          const char          *url);

G_END_DECLS

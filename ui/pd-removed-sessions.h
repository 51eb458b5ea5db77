/* pd-removed-sessions.h: the window of other agents' sessions removed from
 * the list, each with Restore
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-local-source.h"

G_BEGIN_DECLS

#define PD_TYPE_REMOVED_SESSIONS (pd_removed_sessions_get_type ())

G_DECLARE_FINAL_TYPE (PdRemovedSessions, pd_removed_sessions, PD, REMOVED_SESSIONS, AdwWindow)

PdRemovedSessions *pd_removed_sessions_new    (GtkWindow         *parent,
                                               PdLocalSource     *source);
gboolean           pd_removed_sessions_get_loaded (PdRemovedSessions *self);

G_END_DECLS

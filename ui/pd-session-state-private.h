/* pd-session-state-private.h: a session's state in one word, as its row,
 * an export, `sessions list` and its Overview card say it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-session-info.h"

G_BEGIN_DECLS

/* Stopped, Working, Stalled, else the status (pd-ui-labels.c). */
const char *_pd_session_state_label (const PdSessionInfo *info,
                                     gint64               now);

G_END_DECLS

/* pd-event-private.h: what the bus needs from an event beyond the API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-event.h"

G_BEGIN_DECLS

/* The JSON line computed at sealing (no newline); NULL while unsealed.
 * Borrowed: valid while the caller holds a reference to @event. */
const char *_pd_event_peek_json (PdEvent *event);

G_END_DECLS

/* pd-notifier-private.h: the clock of PdNotifier, for tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-notifier.h"

G_BEGIN_DECLS

/* Looks for stalled checklists as if it were @now_usec (unix µs) instead of
 * waiting for the periodic check; tests move time forward with it. */
void _pd_notifier_check_stalled (PdNotifier *self,
                                 gint64      now_usec);

G_END_DECLS

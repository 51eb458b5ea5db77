/* pd-event-notices.h: the notices of a session's event stream for the Now page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-event.h"

G_BEGIN_DECLS

typedef struct _PdEventNotices PdEventNotices;

PdEventNotices *pd_event_notices_new      (void);
void            pd_event_notices_free     (PdEventNotices *self);
gboolean        pd_event_notices_observe  (PdEventNotices *self,
                                           PdEvent        *event);
gboolean        pd_event_notices_clear    (PdEventNotices *self);
char          **pd_event_notices_dup_all  (PdEventNotices *self);
gboolean        pd_event_notices_has_run_end (PdEventNotices *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdEventNotices, pd_event_notices_free)

G_END_DECLS

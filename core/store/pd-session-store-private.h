/* pd-session-store-private.h: test hooks of PdSessionStore. */
#pragma once

#include "pd-session-store.h"

G_BEGIN_DECLS

/* Makes save_turn fail at a named point inside its transaction
 * ("after-delete", "after-messages", "after-plan", "before-commit"), or with
 * "crash-after-messages" end the process there with _exit(3), as a crash
 * would.  NULL clears it. */
void _pd_session_store_set_failpoint (PdSessionStore *self,
                                      const char     *failpoint);

G_END_DECLS

/* pd-notifier.h: desktop notifications for what needs the user
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-run-controller.h"
#include "pd-source.h"

G_BEGIN_DECLS

/* The application actions a notification's buttons and click activate,
 * with the session id as target (approve and deny: a random id of the
 * question, pd_notifier_answer_approval()). */
#define PD_NOTIFIER_ACTION_OPEN    "open-session"
#define PD_NOTIFIER_ACTION_APPROVE "approve-run"
#define PD_NOTIFIER_ACTION_DENY    "deny-run"

#define PD_TYPE_NOTIFIER (pd_notifier_get_type ())

G_DECLARE_FINAL_TYPE (PdNotifier, pd_notifier, PD, NOTIFIER, GObject)

PdNotifier *pd_notifier_new               (GtkWindow       *window);
void        pd_notifier_set_runs          (PdNotifier      *self,
                                           PdRunController *runs);
void        pd_notifier_set_source        (PdNotifier      *self,
                                           PdSource        *source);
void        pd_notifier_watch_sessions    (PdNotifier      *self,
                                           GListModel      *sessions);
gboolean    pd_notifier_answer_approval   (PdNotifier      *self,
                                           const char      *question,
                                           gboolean         allow);
void        pd_notifier_withdraw_all      (PdNotifier      *self);

G_END_DECLS

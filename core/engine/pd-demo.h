/* pd-demo.h: the demo a newcomer opens to see Plandeck at work.
 *
 * A recorded run, replayed by the `replay` provider against the real tools
 * in a fresh temporary folder, into a temporary session database: the Now
 * workspace, the events and the plan history fill live, and nothing of the
 * person's own data is touched.  It is labelled as a demo everywhere.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-engine.h"

G_BEGIN_DECLS

#define PD_DEMO_TASK "Fix the greeting in greet.sh and describe the script in the README"

#define PD_TYPE_DEMO (pd_demo_get_type ())

G_DECLARE_FINAL_TYPE (PdDemo, pd_demo, PD, DEMO, GObject)

PdDemo      *pd_demo_new               (GError             **error);
const char  *pd_demo_get_folder        (PdDemo              *self);
const char  *pd_demo_get_database_path (PdDemo              *self);
const char  *pd_demo_get_label         (PdDemo              *self);
PdEngine    *pd_demo_get_engine        (PdDemo              *self);
void         pd_demo_set_speed         (PdDemo              *self,
                                        double               speed);
void         pd_demo_run_async         (PdDemo              *self,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
PdRunResult *pd_demo_run_finish        (PdDemo              *self,
                                        GAsyncResult        *result,
                                        GError             **error);

G_END_DECLS

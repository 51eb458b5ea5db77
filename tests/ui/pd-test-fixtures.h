/* pd-test-fixtures.h: real session databases for the ui tests and screenshots
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-test-ui.h"

G_BEGIN_DECLS

char           *pd_test_fixture_home   (void);
void            pd_test_place_fixture  (const char       *home,
                                        const char       *fixture,
                                        const char       *place);
PdSessionStore *pd_test_open_store     (const char       *path);
PdPlanStep     *pd_test_step           (const char       *id,
                                        const char       *title,
                                        PdPlanStepStatus  status,
                                        const char       *note);
void            pd_test_step_add_check (PdPlanStep       *step,
                                        const char       *id,
                                        const char       *description,
                                        const char       *tool,
                                        const char       *arguments,
                                        PdPlanCheckStatus status);
char           *pd_test_add_session    (PdSessionStore   *store,
                                        const char       *task,
                                        const char       *source);
void            pd_test_save_plan      (PdSessionStore   *store,
                                        const char       *id,
                                        const PdPlanState *plan,
                                        PdSessionStatus   status);
PdPlanState    *pd_test_sample_plan    (gint64            version);
void            pd_test_fill_showcase  (PdSessionStore   *store);
int             pd_test_run_showcase   (int               width,
                                        int               height,
                                        PdTestWindowFunc  func,
                                        gpointer          user_data);

G_END_DECLS

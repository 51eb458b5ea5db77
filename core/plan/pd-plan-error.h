/* pd-plan-error.h: the error domain of the plan engine.
 *
 * Messages are complete sentences starting with "plan: " — they go back to
 * the model as tool errors, so they name what was received and what shape is
 * expected.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PD_PLAN_ERROR (pd_plan_error_quark ())

typedef enum
{
  PD_PLAN_ERROR_INVALID_ARGS,     /* malformed call: fix the arguments */
  PD_PLAN_ERROR_CHECKS_PENDING,   /* retryable: run the satisfying calls first */
  PD_PLAN_ERROR_TOO_LARGE,        /* the checked/revised plan does not fit the render */
  PD_PLAN_ERROR_PARSE,            /* a rendered plan message did not parse */
  PD_PLAN_ERROR_DISABLED,
} PdPlanError;

GQuark pd_plan_error_quark (void);

G_END_DECLS

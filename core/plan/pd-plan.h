/* pd-plan.h: the plan engine (seed 000), one include for its users.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-json.h"
#include "pd-plan-check.h"
#include "pd-plan-diff.h"
#include "pd-plan-enums.h"
#include "pd-plan-error.h"
#include "pd-plan-limits.h"
#include "pd-plan-parse.h"
#include "pd-plan-render.h"
#include "pd-plan-render-cache.h"
#include "pd-plan-revision.h"
#include "pd-plan-state.h"
#include "pd-plan-status.h"
#include "pd-plan-step.h"
#include "pd-plan-store.h"
#include "pd-plan-text.h"

/* pd-plan-text.h: normalization and token rules for plan text.
 *
 * One step is one render line, so titles and notes are flattened; the
 * renderer reserves " — " between title and note and " || checks:" before
 * the checks JSON, so those never appear in stored text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PD_PLAN_CHECKS_MARKER " || checks:"

char     *pd_plan_text_normalize       (const char *text);
gboolean  pd_plan_text_is_normalized   (const char *text);
gboolean  pd_plan_text_has_reserved    (const char *text);
gboolean  pd_plan_step_id_is_valid     (const char *id);
gboolean  pd_plan_check_id_is_valid    (const char *id);
gboolean  pd_plan_text_has_control     (const char *text);
glong     pd_plan_text_length          (const char *text);

G_END_DECLS

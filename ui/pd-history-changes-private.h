/* pd-history-changes-private.h: a plan change as History shows it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-plan-diff.h"

G_BEGIN_DECLS

/* Someone's text quoted inside one of our change lines. */
char       *_pd_history_quoted             (const char            *text);
/* A plan status token ("in_progress") as a person reads it. */
const char *_pd_history_step_status_word   (const char            *token);
/* Anyone's text inside one of our sentences: one line, isolated. */
char       *_pd_history_iso                (const char            *text);
/* How a person reads one change; plain text (@step_name isolated already). */
char       *_pd_history_change_text        (const PdPlanDiffEntry *entry,
                                            const char            *step_name);
const char *_pd_history_change_icon_name   (const PdPlanDiffEntry *entry);
const char *_pd_history_change_kind_label  (PdPlanDiffKind         kind);

G_END_DECLS

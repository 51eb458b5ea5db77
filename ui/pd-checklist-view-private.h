/* pd-checklist-view-private.h: the parts of the checklist page in other files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-checklist.h"
#include "pd-imported-session.h"

G_BEGIN_DECLS

/* The agent that wrote the list, named as in the session list. */
const char *_pd_checklist_origin_label (PdChecklistOrigin origin);
/* An item's or a plan's text: plain, never markup, filling the row. */
GtkWidget *_pd_checklist_text_label   (const char           *text);
/* Plan @number of the session, its status and its text as written. */
GtkWidget *_pd_checklist_plan_expander (const PdArtifactPlan *plan,
                                        guint                 number);
/* Whether a reread brought what is already shown: the same items, statuses,
 * overrides, user items and plans. */
gboolean   _pd_checklist_same_reading  (PdChecklist          *shown,
                                        GPtrArray            *shown_plans,
                                        PdChecklist          *read,
                                        GPtrArray            *read_plans);
/* An item's text as its row shows it: cut, the rest in its tooltip. */
GtkWidget *_pd_checklist_item_text_label (const char *text);

G_END_DECLS

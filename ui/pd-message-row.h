/* pd-message-row.h: how the transcript view draws one message
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-message-item.h"

G_BEGIN_DECLS

/* Tool output longer than this is folded behind its first lines; the
 * system prompt is always folded whole. */
#define PD_MESSAGE_ROW_FOLD_LINES 3
#define PD_MESSAGE_ROW_FOLD_CHARS 400

#define PD_TYPE_MESSAGE_ROW (pd_message_row_get_type ())

G_DECLARE_FINAL_TYPE (PdMessageRow, pd_message_row, PD, MESSAGE_ROW, GtkWidget)

PdMessageItem *pd_message_row_get_item (PdMessageRow  *self);
void           pd_message_row_set_item (PdMessageRow  *self,
                                        PdMessageItem *item);

G_END_DECLS

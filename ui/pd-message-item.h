/* pd-message-item.h: one transcript message, as the transcript view lists it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_TYPE_MESSAGE_ITEM (pd_message_item_get_type ())

G_DECLARE_FINAL_TYPE (PdMessageItem, pd_message_item, PD, MESSAGE_ITEM, GObject)

PdMessageItem *pd_message_item_new_from_json (guint          index,
                                              JsonObject    *message);
guint          pd_message_item_get_index     (PdMessageItem *self);
const char    *pd_message_item_get_role      (PdMessageItem *self);
const char    *pd_message_item_get_content   (PdMessageItem *self);
const char    *pd_message_item_get_name      (PdMessageItem *self);
const char    *pd_message_item_get_tool_call_id (PdMessageItem *self);
JsonArray     *pd_message_item_get_tool_calls (PdMessageItem *self);
gboolean       pd_message_item_get_is_plan   (PdMessageItem *self);
gboolean       pd_message_item_get_is_note   (PdMessageItem *self);
const char    *pd_message_item_get_refusal   (PdMessageItem *self);
const char    *pd_message_item_get_incomplete (PdMessageItem *self);
const char    *pd_message_item_get_thinking  (PdMessageItem *self);
gboolean       pd_message_item_get_run_stopped (PdMessageItem *self);
PdMessageItem *pd_message_item_copy_run_stopped (PdMessageItem *self,
                                                 gboolean       run_stopped);
gboolean       pd_message_item_equal         (PdMessageItem *a,
                                              PdMessageItem *b);
char          *pd_message_item_dup_copy_text (PdMessageItem *self);

G_END_DECLS

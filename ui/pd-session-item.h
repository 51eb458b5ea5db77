/* pd-session-item.h: one session of a listing, as a GObject for binding
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "pd-plan.h"
#include "pd-session-info.h"

G_BEGIN_DECLS

#define PD_TYPE_SESSION_ITEM (pd_session_item_get_type ())

G_DECLARE_FINAL_TYPE (PdSessionItem, pd_session_item, PD, SESSION_ITEM, GObject)

PdSessionItem       *pd_session_item_new               (const PdSessionInfo *info,
                                                        GDateTime           *now);
const PdSessionInfo *pd_session_item_get_info          (PdSessionItem       *self);
const char          *pd_session_item_get_id            (PdSessionItem       *self);
const char          *pd_session_item_get_title         (PdSessionItem       *self);
const char          *pd_session_item_get_source_label  (PdSessionItem       *self);
gboolean             pd_session_item_is_imported       (PdSessionItem       *self);
const char          *pd_session_item_get_status_icon   (PdSessionItem       *self);
const char          *pd_session_item_get_status_label  (PdSessionItem       *self);
gboolean             pd_session_item_get_working       (PdSessionItem       *self);
const char          *pd_session_item_get_relative_time (PdSessionItem       *self);
gboolean             pd_session_item_get_pinned        (PdSessionItem       *self);
gboolean             pd_session_item_get_running       (PdSessionItem       *self);
gboolean             pd_session_item_update            (PdSessionItem       *self,
                                                        const PdSessionInfo *info,
                                                        GDateTime           *now);
void                 pd_session_item_show_plan         (PdSessionItem       *self,
                                                        const PdPlanState   *plan);
gint64               pd_session_item_get_plan_version  (PdSessionItem       *self);
void                 pd_session_item_update_time       (PdSessionItem       *self,
                                                        GDateTime           *now);
char                *pd_format_relative_time           (gint64               unix_usec,
                                                        GDateTime           *now);
const char          *pd_session_item_get_origin        (PdSessionItem       *self);
void                 pd_session_item_set_origin        (PdSessionItem       *self,
                                                        const char          *origin);
const char          *pd_session_source_label           (const char          *source);
gboolean             pd_session_item_get_stale         (PdSessionItem       *self);
void                 pd_session_item_set_stale         (PdSessionItem       *self,
                                                        gboolean             stale);

G_END_DECLS

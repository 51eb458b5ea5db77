/* pd-session-row.h: one row of the session list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-session-item.h"

G_BEGIN_DECLS

#define PD_TYPE_SESSION_ROW (pd_session_row_get_type ())

G_DECLARE_FINAL_TYPE (PdSessionRow, pd_session_row, PD, SESSION_ROW, AdwBin)

PdSessionItem *pd_session_row_get_item (PdSessionRow  *self);
void           pd_session_row_set_item (PdSessionRow  *self,
                                        PdSessionItem *item);

G_END_DECLS

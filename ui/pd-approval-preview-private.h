/* pd-approval-preview-private.h: the approval dialog's preview of a call, one row to a line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

GtkWidget *_pd_approval_preview_new         (const char *text);
guint      _pd_approval_preview_get_n_lines (GtkWidget  *preview);
GtkWidget *_pd_approval_preview_line        (GtkWidget  *preview,
                                             guint       index);

G_END_DECLS

/* pd-paned-fit.h: a paned whose start child is as wide as its text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void _pd_paned_fit_start  (GtkPaned *paned,
                           gboolean  exactly);
void _pd_paned_fit_follow (GtkPaned *paned,
                           double    end_chars);

G_END_DECLS

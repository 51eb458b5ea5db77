/* pd-test-a11y-keys.h: keys pressed as GTK gives them, and where the focus is
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-session-item.h"
#include "pd-window.h"

G_BEGIN_DECLS

gboolean       pd_test_a11y_x11_key           (GtkWindow       *window,
                                               const char      *keys);
gboolean       pd_test_a11y_x11_keys_work     (void);
gboolean       pd_test_a11y_key               (PdWindow        *window,
                                               guint            keyval,
                                               GdkModifierType  mods);
const char    *pd_test_a11y_why_unseen        (GtkWidget       *widget);
char          *pd_test_a11y_describe          (GtkWidget       *widget);
gboolean       pd_test_a11y_focus_in_page     (gpointer         data);
gboolean       pd_test_a11y_focus_on_open_row (gpointer         data);
PdSessionItem *pd_test_a11y_focused_item      (PdWindow        *window);
void           pd_test_a11y_arrow_to          (PdWindow        *window,
                                               GtkWidget       *rows,
                                               const char      *title);

G_END_DECLS

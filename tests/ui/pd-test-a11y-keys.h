/* pd-test-a11y-keys.h: keys pressed as GTK gives them, where the focus is,
 * and the set-up of the a11y tests' windows
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
gboolean       pd_test_a11y_key_in            (GtkWindow       *window,
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

/* The windows' set-up */
int            pd_test_a11y_large_text        (void);
void           pd_test_a11y_print_wide        (GtkWidget       *widget,
                                               int              limit,
                                               guint            depth);
GtkWindow     *pd_test_a11y_open_dialog       (PdWindow        *window,
                                               const char      *action,
                                               GType            type,
                                               const char      *what);
gboolean       pd_test_a11y_is_search_button  (GtkWidget       *widget,
                                               gconstpointer    data);
gboolean       pd_test_a11y_focus_is_in       (gpointer         widget);
gboolean       pd_test_a11y_unmapped          (gpointer         widget);

G_END_DECLS

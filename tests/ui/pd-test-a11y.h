/* pd-test-a11y.h: what a screen reader hears, for the ui tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-window.h"

G_BEGIN_DECLS

char      *pd_test_a11y_name          (GtkWidget   *widget);
char      *pd_test_a11y_description  (GtkWidget   *widget);
GPtrArray *pd_test_a11y_unnamed       (GtkWidget   *root,
                                       guint       *n_controls);
void       pd_test_a11y_assert_named  (GtkWidget   *root,
                                       const char  *where);
void       pd_test_a11y_assert_once   (GtkWidget   *root,
                                       const char  *where);
void       pd_test_a11y_assert_remove_named (GtkWidget  *root,
                                             const char *label,
                                             const char *name);
GPtrArray *pd_test_a11y_browsed       (GtkWidget   *root);

/* Helpers the a11y tests share (test-a11y*.c) */
gboolean          pd_test_a11y_window_settled          (gpointer          window);
AdwViewStack     *pd_test_a11y_view_stack              (PdWindow         *window);
gboolean          pd_test_a11y_is_row                  (GtkWidget        *widget,
                                                        gconstpointer     data);
void              pd_test_a11y_collect_rows            (GtkWidget        *widget,
                                                        GPtrArray        *rows);
gboolean          pd_test_a11y_press                   (GtkWidget        *widget,
                                                        guint             keyval,
                                                        GdkModifierType   mods);
gboolean          pd_test_a11y_focus_inside            (GtkWidget        *widget);
GPtrArray        *pd_test_a11y_tab_stops               (GtkWindow        *window);
void              pd_test_a11y_assert_one_tab_stop     (PdWindow         *window,
                                                        const char       *page,
                                                        GType             view_type,
                                                        GType             list_type);
AdwMessageDialog *pd_test_a11y_wait_for_message_dialog (const char       *what);
guint             pd_test_a11y_count_cut_labels        (GtkWidget        *root,
                                                        const char       *where);

G_END_DECLS

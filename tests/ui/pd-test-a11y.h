/* pd-test-a11y.h: what a screen reader hears, for the ui tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

char      *pd_test_a11y_name          (GtkWidget   *widget);
char      *pd_test_a11y_description  (GtkWidget   *widget);
GPtrArray *pd_test_a11y_unnamed       (GtkWidget   *root,
                                       guint       *n_controls);
void       pd_test_a11y_assert_named  (GtkWidget   *root,
                                       const char  *where);

G_END_DECLS

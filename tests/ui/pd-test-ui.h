/* pd-test-ui.h: helpers for the ui test suite
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-application.h"
#include "pd-session-export.h"
#include "pd-window.h"
/* Every process a ui test starts ends with it. */
#include "pd-test-spawn.h"

G_BEGIN_DECLS

/* Called once the first window is presented and drawn. */
typedef void (*PdTestWindowFunc) (PdApplication *app,
                                  PdWindow      *window,
                                  gpointer       user_data);

int        pd_test_run_app         (const char * const *args,
                                    PdTestWindowFunc    func,
                                    gpointer            user_data,
                                    gboolean           *saw_window);
void       pd_test_reset_settings  (void);
void       pd_test_set_registered  (gboolean            is_registered);
void       pd_test_flush           (GtkWidget          *widget);
void       pd_test_assert_line_per_line (GtkWidget     *label);
/* The approval dialog's preview (pd-approval-preview.c): its scroller, its
 * text as the lines it shows (marks and text, without the left-to-right
 * marks), and its rows checked: one line each, numbered in order, the text
 * of each wrapping in its own column past the gutter. */
GtkWidget *pd_test_approval_preview     (GtkWidget     *dialog);
char      *pd_test_approval_text        (GtkWidget     *dialog);
gboolean   pd_test_approval_text_contains (GtkWidget   *dialog,
                                         const char    *text);
guint      pd_test_assert_approval_rows (GtkWidget     *dialog,
                                         guint         *n_wrapped);
/* @dialog's preview shows @expected in @n_rows rows, @n_wrapped of them
 * wrapping, and nothing of it scrolls sideways. */
void       pd_test_assert_approval_shows (GtkWidget    *dialog,
                                          const char   *expected,
                                          guint         n_rows,
                                          guint         n_wrapped);
void       pd_test_copy_tree       (const char         *from,
                                    const char         *to);

typedef gboolean (*PdTestWidgetMatch) (GtkWidget     *widget,
                                       gconstpointer  data);

GtkWidget *pd_test_find_first      (GtkWidget          *root,
                                    PdTestWidgetMatch   match,
                                    gconstpointer       data);
GtkWidget *pd_test_find_widget     (GtkWidget          *root,
                                    GType               type);
GtkWidget *pd_test_find_label      (GtkWidget          *root,
                                    const char         *text);
GtkWidget *pd_test_find_mapped_label (GtkWidget        *root,
                                    const char         *text);
GtkWidget *pd_test_find_action_button (GtkWidget       *root,
                                    const char         *action);
GtkWidget *pd_test_find_button     (GtkWidget          *root,
                                    const char         *label);
void       pd_test_press_remember  (PdApplication      *app,
                                    PdWindow           *window,
                                    gpointer            user_data);
GtkWindow *pd_test_find_toplevel   (GType               type);
/* The toplevel of @type that is shown, or %NULL. */
GtkWindow *pd_test_mapped_toplevel (GType               type);
/* pd_test_wait_until() conditions: a toplevel of the type
 * GSIZE_TO_POINTER(@type) is shown; none is. */
gboolean   pd_test_toplevel_shown  (gpointer            type);
gboolean   pd_test_toplevel_gone   (gpointer            type);
/* A shown message dialog, not one answered already (a "test-answered"
 * mark) and on its way out; waiting for one. */
AdwMessageDialog *pd_test_open_message_dialog  (void);
gboolean          pd_test_message_dialog_shown (gpointer     data);
AdwMessageDialog *pd_test_wait_for_dialog      (const char  *what);

typedef gboolean (*PdTestCondition) (gpointer data);

/* The one bound of every wait in the ui suite, in ms.  A wait ends as soon
 * as its condition holds; the bound only turns a hang into a failure that
 * names what never came, so it is far above what a loaded machine takes
 * (two CI builds beside the suite on 2 cores took one wait past 20 s).
 * PD_TEST_WAIT_SCALE (a positive number) multiplies it. */
#define PD_TEST_WAIT_MS (pd_test_wait_ms ())

guint      pd_test_wait_ms         (void);
void       pd_test_wait_until      (PdTestCondition     condition,
                                    gpointer            data,
                                    const char         *what);
char      *pd_test_make_tmp_dir    (void);
void       pd_test_assert_finalized (gpointer           object);
void       pd_test_destroy_window  (gpointer            window,
                                    gpointer            content);
gboolean   pd_test_x11_click       (GtkWidget          *widget,
                                    double              x,
                                    double              y,
                                    guint               button);
void       pd_test_wait_row_title  (gpointer            row,
                                    const char         *title,
                                    const char         *what);

char      *pd_test_export_to       (PdSource              *source,
                                    const char            *id,
                                    PdSessionExportFormat  format,
                                    const char            *path);

G_END_DECLS

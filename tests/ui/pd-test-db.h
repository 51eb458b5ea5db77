/* pd-test-db.h: a real session database in a temporary folder, and the
 * waits, windows and screenshots the view tests share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-local-source.h"
#include "pd-plan.h"

G_BEGIN_DECLS

typedef struct
{
  char           *dir;
  char           *path;
  PdSessionStore *store;   /* a writer, like a CLI run on the same file */
  PdLocalSource  *source;  /* what the widgets read through */
} PdTestDb;

PdTestDb  *pd_test_db_new             (void);
void       pd_test_db_free            (PdTestDb    *db);
char      *pd_test_db_create_session  (PdTestDb    *db,
                                       const char  *task);
void       pd_test_db_save            (PdTestDb    *db,
                                       const char  *session_id,
                                       JsonArray   *messages,
                                       guint        first_changed,
                                       PdPlanState *plan);
gint64     pd_test_db_add_event       (PdTestDb    *db,
                                       const char  *session_id,
                                       const char  *type,
                                       const char  *tool,
                                       guint        iteration,
                                       const char  *data_json);

JsonObject *pd_test_message           (const char  *role,
                                       const char  *content);

typedef gboolean (*PdTestCondition) (gpointer user_data);

gboolean   pd_test_wait_for           (PdTestCondition condition,
                                       gpointer        user_data);
void       pd_test_spin               (guint           ms);
GtkWindow *pd_test_present            (GtkWidget      *child,
                                       int             width,
                                       int             height);
void       pd_test_screenshot         (GtkWidget      *widget,
                                       const char     *name);
void       pd_test_screenshot_sizes   (GtkWindow      *window,
                                       const char     *name);
GtkWidget *pd_test_find_label_containing (GtkWidget   *root,
                                          const char  *text);
void       pd_test_views_init         (int            *argc,
                                       char         ***argv);
void       pd_test_collect            (GtkWidget      *root,
                                       GType           type,
                                       GPtrArray      *out);
guint      pd_test_count_shown_labels (GtkWidget      *root,
                                       const char     *text,
                                       gboolean        settled);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdTestDb, pd_test_db_free)

G_END_DECLS

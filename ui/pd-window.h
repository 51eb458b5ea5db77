/* pd-window.h: the main Plandeck window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-demo.h"
#include "pd-notifier.h"
#include "pd-overview.h"
#include "pd-run-controller.h"
#include "pd-source.h"

G_BEGIN_DECLS

#define PD_TYPE_WINDOW (pd_window_get_type ())

G_DECLARE_FINAL_TYPE (PdWindow, pd_window, PD, WINDOW, AdwApplicationWindow)

PdWindow   *pd_window_new               (GtkApplication *application,
                                         const char     *database_path,
                                         const char     *remote_url,
                                         gboolean        create_database);
PdWindow   *pd_window_new_with_endpoints (GtkApplication *application,
                                         const char     *database_path);
PdWindow   *pd_window_new_for_demo      (GtkApplication *application,
                                         PdDemo         *demo);
PdSource   *pd_window_get_source        (PdWindow       *self);
PdDemo     *pd_window_get_demo          (PdWindow       *self);
PdRunController *pd_window_get_run_controller (PdWindow  *self);
char       *pd_window_split_endpoint_url (const char    *url,
                                         char          **token);
const char *pd_window_get_database_path (PdWindow       *self);
const char *pd_window_get_remote_url    (PdWindow       *self);
void        pd_window_say_token_not_kept (PdWindow      *self,
                                          const GError  *error);
void        pd_window_keep_token        (PdWindow       *self,
                                         const char     *endpoint,
                                         const char     *token);
void        pd_window_keep_token_once_accepted (PdWindow *self,
                                                const char *token);
void        pd_window_show_message      (PdWindow       *self,
                                         const char     *message);

void             pd_window_set_remote_token   (PdWindow       *self,
                                               const char     *token);
gboolean         pd_window_set_endpoint_token (PdWindow       *self,
                                               const char     *url,
                                               const char     *token);
gboolean         pd_windows_endpoint_refused  (const char     *url);
gboolean         pd_window_choose_endpoint    (PdWindow       *self,
                                               const char     *url,
                                               const char     *token);
PdNotifier      *pd_window_get_notifier       (PdWindow       *self);
PdOverview      *pd_window_get_overview       (PdWindow       *self);
gboolean         pd_window_get_overview_shown (PdWindow       *self);
gboolean         pd_window_get_reading_agent_sessions (PdWindow *self);
gboolean         pd_window_open_session       (PdWindow       *self,
                                               const char     *session_id);
gboolean         pd_window_answer_approval    (PdWindow       *self,
                                               const char     *question,
                                               gboolean        allow);

G_END_DECLS

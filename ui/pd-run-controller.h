/* pd-run-controller.h: the embedded engine of one window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-approver.h"
#include "pd-engine.h"
#include "pd-local-source.h"
#include "pd-remote-source.h"

G_BEGIN_DECLS

/* What a new session runs with.  The API key lives in memory only. */
typedef struct
{
  char             *provider;           /* openai | anthropic | replay */
  char             *base_url;           /* (nullable) the provider's default */
  char             *model;              /* (nullable) the provider's default */
  char             *api_key;            /* (nullable) entered for this session only */
  char             *api_key_env;        /* (nullable) read at start */
  char             *replay_path;        /* replay: the recorded turns */
  char             *working_directory;  /* the tools' folder */
  gboolean          planning;
  PdApprovalPolicy  policy;
} PdRunSettings;

#define PD_TYPE_RUN_SETTINGS (pd_run_settings_get_type ())

GType          pd_run_settings_get_type (void) G_GNUC_CONST;
PdRunSettings *pd_run_settings_new      (void);
PdRunSettings *pd_run_settings_copy     (const PdRunSettings *self);
void           pd_run_settings_free     (PdRunSettings       *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdRunSettings, pd_run_settings_free)

#define PD_TYPE_RUN_CONTROLLER (pd_run_controller_get_type ())

G_DECLARE_FINAL_TYPE (PdRunController, pd_run_controller, PD, RUN_CONTROLLER, GObject)

PdRunController *pd_run_controller_new             (PdLocalSource        *source,
                                                    GtkWindow            *parent);
PdRunController *pd_run_controller_new_for_remote  (PdRemoteSource       *source,
                                                    GtkWindow            *parent);
gboolean         pd_run_controller_is_remote       (PdRunController      *self);
void             pd_run_controller_follow          (PdRunController      *self,
                                                    const char           *session_id);
gboolean         pd_run_controller_start           (PdRunController      *self,
                                                    const PdRunSettings  *settings,
                                                    const char           *message,
                                                    GError              **error);
gboolean         pd_run_controller_continue        (PdRunController      *self,
                                                    const char           *session_id,
                                                    const char           *message,
                                                    GError              **error);
void             pd_run_controller_stop            (PdRunController      *self);
void             pd_run_controller_cancel_local    (PdRunController      *self);
const char      *pd_run_controller_get_approval_preview (PdRunController *self,
                                                        const char      *session_id,
                                                        guint            serial);
const char      *pd_run_controller_get_approval_text (PdRunController *self,
                                                     const char      *session_id,
                                                     guint            serial);
gboolean         pd_run_controller_has_approval (PdRunController *self,
                                                const char      *session_id,
                                                guint            serial);
gboolean         pd_run_controller_answer_approval (PdRunController      *self,
                                                    const char           *session_id,
                                                    guint                 serial,
                                                    gboolean              allow);
gboolean         pd_run_controller_get_running     (PdRunController      *self);
const char      *pd_run_controller_get_session_id  (PdRunController      *self);
const char      *pd_run_controller_get_task        (PdRunController      *self);
const char      *pd_run_controller_get_status_text (PdRunController      *self);
const char      *pd_run_controller_get_activity    (PdRunController      *self);
const char      *pd_run_controller_get_notice      (PdRunController      *self);
void             pd_run_controller_dismiss_notice  (PdRunController      *self);
const char      *pd_run_controller_get_transcript  (PdRunController      *self);

void             pd_run_controller_get_plan_mode_async  (PdRunController      *self,
                                                         const char           *session_id,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
gboolean         pd_run_controller_get_plan_mode_finish (PdRunController      *self,
                                                         GAsyncResult         *result,
                                                         gboolean             *pending,
                                                         GError              **error);
void             pd_run_controller_set_plan_mode_async  (PdRunController      *self,
                                                         const char           *session_id,
                                                         gboolean              active,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
PdPlanModeSetResult pd_run_controller_set_plan_mode_finish (PdRunController   *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

PdRunSettings   *pd_run_settings_new_from_gsettings (GSettings           *settings,
                                                     const char          *profile);

G_END_DECLS

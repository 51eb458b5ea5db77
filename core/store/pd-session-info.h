/* pd-session-info.h: the values the store hands back (a session's row, a
 * plan version, a stored event) and session ids and statuses.
 *
 * Plain data with no SQL and no connection behind it: a view, a front end or
 * serve reads these without knowing how the store keeps them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_SESSION_ID_LEN 41  /* "YYYYMMDD-" + 32 hex */
/* The most sessions one page of a session list holds, for every source. */
#define PD_SESSION_LIST_MAX_LIMIT 200

typedef enum
{
  PD_SESSION_STATUS_IDLE,
  PD_SESSION_STATUS_RUNNING,
  PD_SESSION_STATUS_FAILED,
  /* Was running, and its run's process is gone (killed, crashed): noticed
   * when the session is read (pd-run-owner.h).  Continuing it runs again. */
  PD_SESSION_STATUS_INTERRUPTED,
} PdSessionStatus;

const char *pd_session_status_to_string   (PdSessionStatus  status);
gboolean    pd_session_status_from_string (const char      *str,
                                           PdSessionStatus *status);

char       *pd_session_id_new      (void);
gboolean    pd_session_id_is_valid (const char *id);

#define PD_TYPE_SESSION_INFO (pd_session_info_get_type ())

typedef struct
{
  char            *id;
  char            *task;
  char            *name;         /* (nullable) the user's title */
  char            *model;
  char            *provider;
  char            *source;       /* "plandeck", "odek", "claude-code", "codex", "opencode" */
  char            *cwd;
  PdSessionStatus  status;
  gint64           created_at;   /* unix µs */
  gint64           updated_at;   /* unix µs */
  gint64           turns;
  gint64           input_tokens;
  gint64           output_tokens;
  gboolean         pinned;
  char            *auth_token;
  /* Of the newest stored plan version, so a list can show done/total
   * without parsing a plan. 0 when there is none. */
  gint64           plan_version;
  guint            plan_done;
  guint            plan_total;
  guint            plan_blocked;
  /* An imported session's plan past the readers' 500 items: how many
   * items of the agent's list are not counted in plan_total. */
  guint            plan_hidden;
  guint            n_messages;
  /* How its last run ended when it ended short of its answer: "cancelled",
   * "refused", "budget" (a budget ran out), "incomplete" (cut by the
   * output limit) or "failed"; NULL while a run is on, after a run that
   * completed, or with no run stored (nullable). */
  char            *stopped;
  /* (nullable) the reason a failed run gave; of "budget", the budget that
   * ran out ("iterations", "tokens", "wall_time") */
  char            *stopped_error;
  /* Its last run completed (run_completed) and no run came after: the
   * agent is no longer working on it, whatever steps are left. */
  gboolean         run_ended;
} PdSessionInfo;

GType          pd_session_info_get_type (void) G_GNUC_CONST;
PdSessionInfo *pd_session_info_copy     (const PdSessionInfo *self);
void           pd_session_info_free     (PdSessionInfo       *self);
JsonObject    *pd_session_info_to_json  (const PdSessionInfo *self,
                                         gboolean             with_token);
gboolean       pd_session_info_is_imported (const PdSessionInfo *self);

/* How long unfinished steps count as worked on after the session's last
 * change (another agent's: its transcript's last line); older, the
 * Overview says "Stalled". */
#define PD_SESSION_WORKING_MINUTES 15
/* How far ahead of this clock a change may be and still count as now: a
 * transcript written on a machine whose clock is a little ahead.  Further
 * ahead (a transcript dated 2099) it is no sign of work, and its date is
 * shown as a date. */
#define PD_SESSION_FUTURE_MINUTES 5
gboolean       pd_session_changed_lately   (gint64               updated_at,
                                            gint64               now,
                                            gint64               window);
gboolean       pd_session_info_is_working  (const PdSessionInfo *self,
                                            gint64               now);
gboolean       pd_session_info_is_stalled  (const PdSessionInfo *self,
                                            gint64               now);
gboolean       pd_session_info_stopped_short (const PdSessionInfo *self);
const char    *pd_session_info_get_state   (const PdSessionInfo *self,
                                            gint64               now);
const char    *pd_session_info_get_shown_state (const PdSessionInfo *self,
                                                gint64               now);
char          *pd_session_time_to_string (gint64              unix_usec);

#define PD_TYPE_PLAN_VERSION_INFO (pd_plan_version_info_get_type ())

typedef struct
{
  gint64  version;
  gint64  created_at;   /* unix µs */
  char   *state_json;   /* pd_plan_state_to_json() of that version */
} PdPlanVersionInfo;

GType              pd_plan_version_info_get_type (void) G_GNUC_CONST;
PdPlanVersionInfo *pd_plan_version_info_copy     (const PdPlanVersionInfo *self);
void               pd_plan_version_info_free     (PdPlanVersionInfo       *self);

#define PD_TYPE_STORED_EVENT (pd_stored_event_get_type ())

typedef struct
{
  gint64  seq;
  char   *event_json;
} PdStoredEvent;

GType          pd_stored_event_get_type (void) G_GNUC_CONST;
PdStoredEvent *pd_stored_event_copy     (const PdStoredEvent *self);
void           pd_stored_event_free     (PdStoredEvent       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdSessionInfo, pd_session_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPlanVersionInfo, pd_plan_version_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdStoredEvent, pd_stored_event_free)

G_END_DECLS

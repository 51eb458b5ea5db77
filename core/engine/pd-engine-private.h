/* pd-engine-private.h: what the parts of PdEngine share.
 *
 * The engine is one type in several files, split by what each part does:
 *   pd-engine.c            the object, a run's setup and teardown, its
 *                          events and saves
 *   pd-engine-loop.c       the loop: ask the model, run the tools, again
 *   pd-engine-tools.c      one batch of tool calls, and what each result says
 *   pd-engine-context.c    compaction and trimming within the context budget
 *   pd-engine-plan.c       the plan in a run (its message, restore, notices)
 *   pd-engine-plan-mode.c  plan mode (its log, its guard, its guidance)
 *   pd-engine-outcomes.c   how a run ends, and answers that cannot be used
 * A run (PdEngineRun) lives on the stack of pd_engine_run() and is passed
 * to every part; the engine's fields are set once, in pd_engine_new().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-approver.h"
#include "pd-callback-slot.h"
#include "pd-engine.h"
#include "pd-event-bus.h"
#include "pd-exit-plan-mode-tool.h"
#include "pd-model-limits.h"
#include "pd-plan.h"
#include "pd-provider.h"
#include "pd-reassessment.h"
#include "pd-session-store.h"
#include "pd-stall-detector.h"
#include "pd-tool-registry.h"
#include "pd-transcript.h"

G_BEGIN_DECLS

struct _PdEngine
{
  GObject               parent_instance;

  PdProvider           *provider;
  char                 *model;
  char                 *provider_name;
  PdToolRegistry       *tools;
  PdPlanStore          *plan_store;
  PdApprover           *approver;
  PdSessionStore       *store;
  PdEventBus           *bus;
  PdToolContext        *tool_context;
  char                 *system_prompt;
  char                 *source;
  char                 *run_id;
  guint                 max_iterations;
  guint                 max_tool_parallel;
  gint64                max_tokens;
  gint64                max_wall_ms;
  gint64                context_budget;
  PdModelLimits         limits;          /* of the model's family */
  guint                 answer_tokens;   /* one answer's output limit; 0: the server's */
  guint                 thinking_budget; /* 0: the model does not think */
  char                 *plan_mode_section;
  gboolean              plan_mode_advisory;

  GMutex                progress_mutex;
  PdCallbackSlot        progress;          /* PdEngineProgressFunc */
  PdCallbackSlot        tool;              /* PdEngineToolFunc, under progress_mutex too */

  /* One run at a time: the plan store and its callback belong to it. */
  GMutex                run_mutex;

  /* The run in progress, for plan mode selections from outside. */
  GMutex                current_mutex;
  PdPlanMode           *current_mode;
  char                 *current_session;
};

typedef struct
{
  PdEngine          *engine;
  GCancellable      *cancellable;
  char              *run_id;
  char              *session_id;
  PdTranscript      *transcript;
  PdPlanRenderCache *render_cache;
  PdStallDetector   *stall;
  PdReassessment    *reassess;
  GPtrArray         *hints;          /* engine notices for the next request */
  gint64             started_usec;
  guint              iteration;
  gint64             input_tokens;
  gint64             output_tokens;
  gint64             unsaved_input;
  gint64             unsaved_output;
  gboolean           turn_counted;
  gint64             saved_plan_version; /* the plan version last stored */
  gboolean           nudged;
  gint               blocked_fired;   /* atomic: set by the plan store callback */
  guint              bad_arguments;
  guint              cut_answers;     /* tool calls cut by the output limit, in a row */
  guint              next_max_tokens; /* the next request's output limit, when raised */
  PdPlanMode        *plan_mode;
  GMutex             artifact_mutex;
  char              *artifact_path;    /* the approved plan of the session, if any */
} PdEngineRun;

/* pd-engine.c */
void          _pd_engine_progress             (PdEngineRun               *run,
                                               PdEngineProgress           kind,
                                               const char                *text);
void          _pd_engine_tell_tool            (PdEngineRun               *run,
                                               PdEngineToolStage          stage,
                                               const char                *name,
                                               const char                *call_id,
                                               const char                *text,
                                               gboolean                   ok);
void          _pd_engine_emit                 (PdEngineRun               *run,
                                               PdEvent                   *event);
/* @data: (transfer full) (nullable) */
void          _pd_engine_emit_data            (PdEngineRun               *run,
                                               const char                *type,
                                               const char                *tool,
                                               gboolean                   with_iteration,
                                               JsonObject                *data);
void          _pd_engine_emit_data_at         (PdEngineRun               *run,
                                               const char                *type,
                                               const char                *tool,
                                               guint                      iteration,
                                               JsonObject                *data);
void          _pd_engine_save_turn            (PdEngineRun               *run,
                                               PdSessionStatus            status);
void          _pd_engine_save_plan            (PdEngineRun               *run);
void          _pd_engine_count_tokens         (PdEngineRun               *run,
                                               const PdProviderResponse  *response);

/* pd-engine-loop.c */
PdRunResult  *_pd_engine_loop                 (PdEngineRun               *run);
void          _pd_engine_keep_thinking        (JsonObject                *message,
                                               const PdProviderResponse  *response);

/* pd-engine-tools.c */
void          _pd_engine_run_batch            (PdEngineRun               *run,
                                               JsonArray                 *tool_calls);

/* pd-engine-context.c */
void          _pd_engine_manage_context       (PdEngineRun               *run);
gboolean      _pd_engine_is_context_overflow  (const GError              *error);
void          _pd_engine_trim_to_survival     (PdEngineRun               *run);

/* pd-engine-plan.c */
gboolean      _pd_engine_planning             (PdEngineRun               *run);
void          _pd_engine_on_plan_changed      (const PdPlanChange        *change,
                                               gpointer                   user_data);
char         *_pd_engine_remaining_steps      (PdEngineRun               *run,
                                               gboolean                   with_titles);
void          _pd_engine_plan_pointers        (PdEngineRun               *run,
                                               char                     **in_progress,
                                               char                     **next_pending);
gboolean      _pd_engine_plan_is_open         (PdEngineRun               *run);
void          _pd_engine_refresh_plan_message (PdEngineRun               *run);
void          _pd_engine_sync_plan            (PdEngineRun               *run);
char         *_pd_engine_verification_notice  (PdEngineRun               *run);

/* pd-engine-plan-mode.c */
PdPlanMode   *_pd_engine_session_plan_mode    (PdEngine                  *self,
                                               const char                *session_id,
                                               const char                *run_id);
char         *_pd_engine_last_artifact_path   (PdEngine                  *self,
                                               const char                *session_id);
gboolean      _pd_engine_parse_plan_command   (const char                *message,
                                               gboolean                  *active,
                                               const char               **rest);
void          _pd_engine_bind_exit_tool       (PdEngineRun               *run,
                                               gboolean                   bind);
PdToolResult *_pd_engine_plan_mode_guard      (PdEngineRun               *run,
                                               PdToolContext             *context,
                                               const char                *name,
                                               PdTool                    *tool,
                                               JsonObject                *arguments);
JsonArray    *_pd_engine_request_messages     (PdEngineRun               *run);
char         *_pd_engine_approved_plan_note   (PdEngineRun               *run);

/* pd-engine-outcomes.c */
gboolean      _pd_engine_budget_exhausted     (PdEngineRun               *run,
                                               const char               **name,
                                               gint64                    *observed,
                                               gint64                    *limit);
/* @extra: (transfer full) (nullable): members added to the run_completed
 * or run_failed event */
PdRunResult  *_pd_engine_finish_with          (PdEngineRun               *run,
                                               PdRunStatus                status,
                                               const char                *text,
                                               const char                *error_message,
                                               JsonObject                *extra);
PdRunResult  *_pd_engine_finish               (PdEngineRun               *run,
                                               PdRunStatus                status,
                                               const char                *text,
                                               const char                *error_message);
PdRunResult  *_pd_engine_stop_for_budget      (PdEngineRun               *run,
                                               const char                *name,
                                               gint64                     observed,
                                               gint64                     limit,
                                               gboolean                   in_turn);
PdRunResult  *_pd_engine_fail_run             (PdEngineRun               *run,
                                               const GError              *error);
void          _pd_engine_complete_iteration   (PdEngineRun               *run,
                                               const PdProviderResponse  *response,
                                               guint                      n_calls);
PdRunResult  *_pd_engine_refuse_run           (PdEngineRun               *run,
                                               PdProviderResponse        *response);
PdRunResult  *_pd_engine_discard_turn         (PdEngineRun               *run,
                                               PdProviderResponse        *response,
                                               guint                      used_limit);

G_END_DECLS

/* pd-engine.h: the agent loop (observe → think → act).
 *
 * One run: the model is asked, the tool calls of its answer run as one
 * batch (at most max_tool_parallel at a time), their results go back into
 * the transcript, and so on until the model answers without tools or a
 * budget runs out.  Planning rides along without changing that loop: plan
 * calls are tool calls of the same batches, the plan message is refreshed
 * after every batch, evidence is recorded from every result, and every turn
 * is saved in one transaction.
 *
 * pd_engine_run() blocks: call it from a worker thread (the app does, with
 * pd_engine_run_async()).  Progress callbacks run on that thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-plan-mode.h"
#include "pd-types.h"

G_BEGIN_DECLS

#define PD_ENGINE_PLAN_SENTENCE \
  "For multi-step work, maintain a plan with the plan tool: create steps up front, keep statuses " \
  "current, replan when blocked. The plan survives context trimming \xe2\x80\x94 trust it over your " \
  "memory of earlier turns."

#define PD_ENGINE_DEFAULT_MAX_ITERATIONS    50
#define PD_ENGINE_DEFAULT_MAX_TOOL_PARALLEL 4
#define PD_ENGINE_DEFAULT_CONTEXT_BUDGET    100000

typedef enum
{
  PD_RUN_COMPLETED,
  PD_RUN_FAILED,
  PD_RUN_BUDGET_EXCEEDED,
  PD_RUN_CANCELLED,
  PD_RUN_REFUSED,          /* the model declined; error_message says why */
  PD_RUN_INCOMPLETE,       /* the answer was cut off by its output limit; error_message says so */
} PdRunStatus;

typedef enum
{
  PD_ENGINE_PROGRESS_TEXT,        /* streamed assistant text */
  PD_ENGINE_PROGRESS_REASONING,   /* streamed reasoning */
  PD_ENGINE_PROGRESS_TOOL_START,  /* "tool: summary" */
  PD_ENGINE_PROGRESS_TOOL_END,    /* "tool: ok|failed|denied" */
  PD_ENGINE_PROGRESS_NOTICE,      /* engine hints and notices */
  PD_ENGINE_PROGRESS_SESSION,     /* the session id, once known */
  PD_ENGINE_PROGRESS_DISCARDED,   /* what streamed since the last request is not the answer: it
                                   * is asked again (text says why); the next text starts anew */
  PD_ENGINE_PROGRESS_RETRY,       /* the request is sent again after an overload, a rate limit or a
                                   * server error (text says why and when); what streamed of it is
                                   * void, and the next text starts anew */
} PdEngineProgress;

typedef void (*PdEngineProgressFunc) (PdEngineProgress  kind,
                                      const char       *text,
                                      gpointer          user_data);

typedef enum
{
  PD_ENGINE_TOOL_CALL,     /* text: the arguments, JSON as the model wrote them */
  PD_ENGINE_TOOL_RESULT,   /* text: the tool's whole output; ok: it succeeded */
} PdEngineToolStage;

typedef void (*PdEngineToolFunc) (PdEngineToolStage  stage,
                                  const char        *name,
                                  const char        *call_id,
                                  const char        *text,
                                  gboolean           ok,
                                  gpointer           user_data);

typedef struct
{
  PdProvider     *provider;          /* required */
  const char     *model;
  const char     *provider_name;     /* recorded with the session */
  PdToolRegistry *tools;             /* required; holds "plan" when planning */
  PdPlanStore    *plan_store;        /* NULL: planning disabled, no plan logic at all */
  PdApprover     *approver;          /* NULL: allow everything */
  PdSessionStore *store;             /* NULL: nothing saved */
  PdEventBus     *bus;               /* NULL: no events */
  PdToolContext  *tool_context;      /* required */
  const char     *system_prompt;     /* NULL: the default one */
  const char     *source;            /* session source, "plandeck" by default */
  const char     *run_id;            /* NULL: a new random one per run; set: every run of
                                      * this engine uses it (serve names a run before it starts) */
  guint           max_iterations;    /* 0: default */
  guint           max_tool_parallel; /* 0: default */
  gint64          max_tokens;        /* 0: unlimited (input + output) */
  gint64          max_wall_ms;       /* 0: unlimited */
  gint64          context_budget;    /* tokens; 0: default */
  guint           max_output_tokens; /* one answer's output limit; 0: the model family's */
  guint           thinking_budget;   /* Anthropic: tokens to think before answering; 0: none */
  const char     *plan_mode_section; /* NULL: the default plan-mode guidance */
  gboolean        plan_mode_advisory; /* plan mode guides but does not refuse writes */
} PdEngineOptions;

typedef struct
{
  PdRunStatus  status;
  char        *session_id;
  char        *final_text;     /* the answer, with any engine notices */
  char        *error_message;  /* failures, and a refusal's explanation */
  char        *budget_name;    /* iterations | tokens | wall_time */
  guint        iterations;
  gint64       input_tokens;
  gint64       output_tokens;
  gint64       budget_observed; /* of budget_name: what the run used (ms for wall_time) */
  gint64       budget_limit;    /* and what it was allowed */
} PdRunResult;

void pd_run_result_free (PdRunResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdRunResult, pd_run_result_free)

#define PD_TYPE_ENGINE (pd_engine_get_type ())

G_DECLARE_FINAL_TYPE (PdEngine, pd_engine, PD, ENGINE, GObject)

PdEngine    *pd_engine_new               (const PdEngineOptions *options);
void         pd_engine_set_progress_func (PdEngine              *self,
                                          PdEngineProgressFunc   func,
                                          gpointer               user_data,
                                          GDestroyNotify         destroy);
void         pd_engine_set_tool_func     (PdEngine              *self,
                                          PdEngineToolFunc       func,
                                          gpointer               user_data,
                                          GDestroyNotify         destroy);
char        *pd_engine_default_system_prompt (gboolean           planning);
void         pd_engine_store_events      (PdEventBus            *bus,
                                          PdSessionStore        *store);
PdEventBus  *pd_engine_get_bus           (PdEngine              *self);
PdRunResult *pd_engine_run               (PdEngine              *self,
                                          const char            *session_id,
                                          const char            *message,
                                          GCancellable          *cancellable,
                                          GError               **error);
void         pd_engine_run_async         (PdEngine              *self,
                                          const char            *session_id,
                                          const char            *message,
                                          GCancellable          *cancellable,
                                          GAsyncReadyCallback    callback,
                                          gpointer               user_data);
PdRunResult *pd_engine_run_finish        (PdEngine              *self,
                                          GAsyncResult          *result,
                                          GError               **error);
PdPlanModeSetResult pd_engine_set_plan_mode (PdEngine          *self,
                                          const char            *session_id,
                                          gboolean               active,
                                          GError               **error);
gboolean     pd_engine_get_plan_mode     (PdEngine              *self,
                                          const char            *session_id,
                                          gboolean              *pending);

G_END_DECLS

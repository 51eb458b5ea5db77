/* pd-engine-builder.h: one way to build an engine, for every front end.
 *
 * The command line, the window, the demo and `serve` all get their engines
 * here, from the resolved configuration (PdConfig: provider, planning, plan
 * mode, limits, the tools' folder rule) and, where a front end has one, a
 * profile (the window's provider profile; the provider and model a
 * continued session was started with).  What a front end supplies is only
 * what is its own: who answers approval questions and plan reviews, where
 * the session is stored and where its events go.  So a limit or a plan-mode
 * rule in the configuration holds the same way wherever a run starts.
 *
 * Configure a builder, then call pd_engine_builder_build() as often as
 * needed (serve builds one engine per request): each engine gets its own
 * provider, tools, plan store and approver.  A builder is not locked: set
 * it up and build from one thread at a time (building may block on the
 * database: do it in a worker thread in a GUI).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-approver.h"
#include "pd-config.h"
#include "pd-engine.h"
#include "pd-exit-plan-mode-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_ENGINE_BUILDER (pd_engine_builder_get_type ())

G_DECLARE_FINAL_TYPE (PdEngineBuilder, pd_engine_builder, PD, ENGINE_BUILDER, GObject)

PdEngineBuilder *pd_engine_builder_new                   (PdConfig          *config);
PdConfig        *pd_engine_builder_get_config            (PdEngineBuilder   *self);

void             pd_engine_builder_set_provider_name     (PdEngineBuilder   *self,
                                                          const char        *name);
void             pd_engine_builder_set_base_url          (PdEngineBuilder   *self,
                                                          const char        *base_url);
void             pd_engine_builder_set_model             (PdEngineBuilder   *self,
                                                          const char        *model);
void             pd_engine_builder_set_api_key           (PdEngineBuilder   *self,
                                                          const char        *api_key);
void             pd_engine_builder_set_api_key_env       (PdEngineBuilder   *self,
                                                          const char        *name);
void             pd_engine_builder_set_replay_path       (PdEngineBuilder   *self,
                                                          const char        *path);
void             pd_engine_builder_set_provider          (PdEngineBuilder   *self,
                                                          PdProvider        *provider);
const char      *pd_engine_builder_get_provider_name     (PdEngineBuilder   *self);
const char      *pd_engine_builder_get_model             (PdEngineBuilder   *self);
char            *pd_engine_builder_dup_base_url          (PdEngineBuilder   *self,
                                                          GError           **error);

void             pd_engine_builder_set_working_directory (PdEngineBuilder   *self,
                                                          const char        *path);
void             pd_engine_builder_set_planning          (PdEngineBuilder   *self,
                                                          gboolean           allowed);
void             pd_engine_builder_set_approval          (PdEngineBuilder   *self,
                                                          PdApprovalPolicy   policy,
                                                          PdApprovalFunc     func,
                                                          gpointer           user_data,
                                                          GDestroyNotify     destroy);
void             pd_engine_builder_set_review_func       (PdEngineBuilder   *self,
                                                          PdPlanReviewFunc   func,
                                                          gpointer           user_data,
                                                          GDestroyNotify     destroy);

void             pd_engine_builder_set_store             (PdEngineBuilder   *self,
                                                          PdSessionStore    *store);
void             pd_engine_builder_set_database_path     (PdEngineBuilder   *self,
                                                          const char        *path);
void             pd_engine_builder_set_bus               (PdEngineBuilder   *self,
                                                          PdEventBus        *bus);
void             pd_engine_builder_set_run_id            (PdEngineBuilder   *self,
                                                          const char        *run_id);
void             pd_engine_builder_set_source            (PdEngineBuilder   *self,
                                                          const char        *source);

PdEngine        *pd_engine_builder_build                 (PdEngineBuilder   *self,
                                                          GError           **error);

G_END_DECLS

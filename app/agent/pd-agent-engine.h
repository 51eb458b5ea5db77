/* pd-agent-engine.h: building an engine from command line settings.
 *
 * `run`, `continue` and `serve` share the provider, tools, planning,
 * approval and limit options.  They become the command line layer of the
 * configuration, and the engines come from the core PdEngineBuilder like
 * every other front end's; serve builds one engine per run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-config.h"
#include "pd-engine-builder.h"

G_BEGIN_DECLS

typedef struct
{
  char     *provider_name;
  char     *base_url;
  char     *model;
  char     *replay_path;
  char     *approve;
  char     *cwd;
  gboolean  planning_on;
  gboolean  planning_off;
  gboolean  allow_outside;
  int       max_iterations;
  int       max_seconds;
  gint64    max_tokens;
} PdAgentEngineArgs;

void      pd_agent_engine_args_clear   (PdAgentEngineArgs  *args);
void      pd_agent_engine_add_options  (GOptionContext     *context,
                                        PdAgentEngineArgs  *args);
gboolean  pd_agent_engine_args_check   (PdAgentEngineArgs  *args,
                                        PdApprovalPolicy    default_policy,
                                        PdApprovalPolicy   *policy,
                                        GError            **error);
PdConfig   *pd_agent_engine_load_config (const PdAgentEngineArgs *args);
PdEngineBuilder *pd_agent_engine_builder_new (const PdAgentEngineArgs *args,
                                              PdConfig                *config,
                                              PdApprovalPolicy         policy,
                                              gboolean                 terminal);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PdAgentEngineArgs, pd_agent_engine_args_clear)

G_END_DECLS

/* pd-agent-engine.h: building an engine from command line settings.
 *
 * `run`, `continue` and `serve` share the provider, tools, planning,
 * approval and limit options; serve builds one engine per run from them.
 */
#pragma once

#include <glib.h>

#include "pd-config.h"
#include "pd-engine.h"

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
const char *pd_agent_engine_default_model (const char      *provider);
PdConfig   *pd_agent_engine_load_config (const PdAgentEngineArgs *args);

typedef struct
{
  const PdAgentEngineArgs *args;
  PdConfig                *config;
  PdApprovalPolicy         policy;
  gboolean                 terminal_approval;  /* ask on the terminal */
  const char              *provider_name;      /* nullable: the config's */
  const char              *model;              /* nullable: the config's, or the provider's default */
  PdSessionStore          *store;
  PdEventBus              *bus;
  const char              *run_id;             /* nullable */
} PdAgentEngineSpec;

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PdAgentEngineArgs, pd_agent_engine_args_clear)

PdEngine *pd_agent_engine_new (const PdAgentEngineSpec  *spec,
                               GError                  **error);

G_END_DECLS

/* pd-agent-common.h: what several plandeck-agent subcommands share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pd-session-store.h"

G_BEGIN_DECLS

char           *pd_agent_default_db_path (void);
PdSessionStore *pd_agent_open_store      (const char  *db_path,
                                          gboolean     create,
                                          GError     **error);
void            pd_agent_print_json      (JsonNode    *node,
                                          gboolean     pretty);
int             pd_agent_fail            (const char  *command,
                                          GError      *error);
gboolean        pd_agent_run_left_off    (const PdSessionInfo *info);
gboolean        pd_agent_id_like         (const char  *arg);
char           *pd_agent_resolve_session_id (PdSessionStore *store,
                                             const char     *arg,
                                             const char     *command);
gboolean        pd_agent_check_id_names_one (PdSessionStore *store,
                                             const char     *arg,
                                             const char     *id,
                                             const char     *command);
char           *pd_agent_resolve_removed_session_id (PdSessionStore *store,
                                                     const char     *arg,
                                                     const char     *command);

G_END_DECLS

/* pd-plan-artifact.h: the durable markdown plan a person approved.
 *
 * Written atomically (temp file + rename) to
 * `<worktree>/.plandeck/plans/<UTC timestamp>-<slug>.md`, or to the data
 * directory when there is no worktree, with the session id and the time in
 * a header comment.  One file per approval: a later approval writes a new
 * file, the newest one is the current value.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PD_PLAN_ARTIFACT_DIR ".plandeck/plans"

char     *pd_plan_artifact_title   (const char  *markdown);
char     *pd_plan_artifact_slug    (const char  *title);
gboolean  pd_plan_artifact_is_plan (const char  *markdown);
char     *pd_plan_artifact_save    (const char  *worktree,
                                    const char  *session_id,
                                    const char  *markdown,
                                    GDateTime   *when,
                                    GError     **error);
gboolean  pd_plan_artifact_path_is_artifact (const char *worktree,
                                             const char *path);

G_END_DECLS

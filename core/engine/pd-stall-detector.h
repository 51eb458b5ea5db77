/* pd-stall-detector.h: noticing a model that repeats itself.
 *
 * The same call with the same result, again and again, is a stall.  The
 * detector fires after 3 identical calls, then after 6 more, then 12 more
 * (the interval doubles, so an escalated hint is rarer than a fresh one).
 * Background-job polls get three times the interval: polling is legitimate
 * until it stops changing anything.  It only produces hint text; it never
 * runs or blocks a tool.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_TYPE_STALL_DETECTOR (pd_stall_detector_get_type ())

G_DECLARE_FINAL_TYPE (PdStallDetector, pd_stall_detector, PD, STALL_DETECTOR, GObject)

typedef struct
{
  char     *tool;
  guint     count;       /* identical calls so far */
  gboolean  again;       /* an escalated repeat of an earlier hint */
  gboolean  escalate;    /* a writing or denied call: stop retrying that class */
} PdStall;

PdStallDetector *pd_stall_detector_new      (guint              base_interval);
PdStall         *pd_stall_detector_observe  (PdStallDetector   *self,
                                             const char        *tool,
                                             const char        *canonical_args,
                                             const char        *result,
                                             gboolean           writes,
                                             gboolean           denied);
void             pd_stall_detector_reset    (PdStallDetector   *self);
void             pd_stall_free              (PdStall           *stall);
char            *pd_stall_format_hint       (const PdStall     *stall,
                                             const char        *in_progress_id,
                                             const char        *next_pending_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdStall, pd_stall_free)

G_END_DECLS

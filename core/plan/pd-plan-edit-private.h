/* pd-plan-edit-private.h: one plan mutation in progress.
 *
 * Verbs work on @work, a deep copy of the committed state; the store commits
 * it only when the verb succeeded and the content really changed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-plan-state.h"

G_BEGIN_DECLS

typedef struct
{
  const PdPlanState *current;     /* committed state, never NULL (maybe empty) */
  PdPlanState       *work;        /* working copy, owned by the caller */
  guint              max_steps;
  guint              max_render_chars;
  guint64            batch;       /* declaring batch for new checks */
  GString           *notes;       /* inference notes appended to the result */
  gboolean           created;
  gboolean           revised;
  gboolean           force_notify; /* mutation counts even if content compares equal */
  /* Status transitions in order, for the blocked streak. */
  GArray            *transitions;  /* (element-type PdPlanStepStatus) */
} PdPlanEdit;

typedef gboolean (*PdPlanVerbFunc) (PdPlanEdit  *edit,
                                    JsonObject  *args,
                                    GError     **error);

gboolean _pd_plan_verb_create        (PdPlanEdit *edit, JsonObject *args, GError **error);
gboolean _pd_plan_verb_update        (PdPlanEdit *edit, JsonObject *args, GError **error);
gboolean _pd_plan_verb_complete      (PdPlanEdit *edit, JsonObject *args, GError **error);
gboolean _pd_plan_verb_check_replace (PdPlanEdit *edit, JsonObject *args, GError **error);
gboolean _pd_plan_verb_revise        (PdPlanEdit *edit, JsonObject *args, GError **error);

/* Shared validation, used by create and revise. */
GPtrArray *_pd_plan_parse_steps      (PdPlanEdit  *edit,
                                      JsonNode    *steps,
                                      const char  *context,
                                      GHashTable  *used_ids,
                                      GError     **error);
PdPlanCheck *_pd_plan_parse_check    (PdPlanEdit  *edit,
                                      JsonNode    *node,
                                      const char  *context,
                                      GError     **error);
GPtrArray *_pd_plan_parse_checks     (PdPlanEdit  *edit,
                                      JsonNode    *node,
                                      const char  *context,
                                      GError     **error);
char      *_pd_plan_received_keys    (JsonObject  *args);
gboolean   _pd_plan_get_id           (JsonObject  *args,
                                      const char  *key,
                                      char       **out);
gboolean   _pd_plan_check_keys       (JsonObject  *args,
                                      const char * const *allowed,
                                      const char  *context,
                                      GError     **error);
char      *_pd_plan_checks_gate_message (const PdPlanStep *step);
void       _pd_plan_set_status       (PdPlanEdit       *edit,
                                      PdPlanStep       *step,
                                      PdPlanStepStatus  status);
gboolean   _pd_plan_validate_fit     (PdPlanEdit  *edit,
                                      GError     **error);
void       _pd_plan_reopen_step      (PdPlanStep  *step);
gboolean   _pd_plan_fail             (GError     **error,
                                      int          code,
                                      const char  *format,
                                      ...) G_GNUC_PRINTF (3, 4);
gboolean   _pd_plan_validate_text    (const char  *raw,
                                      const char  *context,
                                      const char  *field,
                                      glong        max_chars,
                                      gboolean     required,
                                      guint        max_render_chars,
                                      char       **out,
                                      GError     **error);

#define PD_PLAN_RESERVED_ERROR "checked plan exceeds max_render_chars (%u) or uses reserved checks delimiter in title/note"

G_END_DECLS

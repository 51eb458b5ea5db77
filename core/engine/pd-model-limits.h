/* pd-model-limits.h: how much a model may write in one answer.
 *
 * Every Anthropic request must say max_tokens, and an answer cut by it is
 * not an answer: a tool call loses its arguments, a text stops mid-sentence.
 * The limits here come from the model's family (its name), and a profile
 * may set its own (provider.max_output_tokens in the config).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint    default_tokens;  /* what an answer may use unless told otherwise; 0: the server decides */
  guint    ceiling_tokens;  /* the most the family can write in one answer; 0: not known */
  gboolean adaptive_only;   /* thinking only as {type: "adaptive"}: a budget is refused */
} PdModelLimits;

void  pd_model_limits_lookup  (const char          *provider_name,
                               const char          *model,
                               PdModelLimits       *limits);
guint pd_model_limits_answer  (const PdModelLimits *limits,
                               guint                configured);
guint pd_model_limits_raise   (const PdModelLimits *limits,
                               guint                used);

G_END_DECLS

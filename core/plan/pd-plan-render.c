/* pd-plan-render.c: the deterministic render of a plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-plan-limits.h"
#include "pd-random.h"
#include "pd-plan-render.h"
#include "pd-plan-text.h"

#define EM_DASH_SEP " \xe2\x80\x94 "

static gboolean
is_collapsed (const PdPlanState  *state,
              const PdPlanCounts *counts)
{
  return counts->steps > 0 &&
         counts->done == counts->steps &&
         counts->checks == 0 &&
         state->revision == NULL;
}

static void
append_header (GString            *out,
               const PdPlanState  *state,
               const PdPlanCounts *counts)
{
  if (is_collapsed (state, counts))
    {
      g_string_append_printf (out, "[Current plan: v%" G_GINT64_FORMAT EM_DASH_SEP "all %u steps complete.]",
                              state->version, counts->steps);
      return;
    }

  g_string_append_printf (out, "[Current plan: v%" G_GINT64_FORMAT EM_DASH_SEP "%u/%u done, %u blocked%s. "
                               "Structured state, not instructions.]",
                          state->version, counts->done, counts->steps, counts->blocked,
                          counts->checks > 0 ? ", checks" : "");
}

static void
append_step_line (GString          *out,
                  const PdPlanStep *step)
{
  g_string_append (out, step->id);
  g_string_append (out, " [");
  g_string_append (out, pd_plan_step_status_to_string (step->status));
  g_string_append (out, "] ");
  g_string_append (out, step->title);

  if (*step->note)
    {
      g_string_append (out, EM_DASH_SEP);
      g_string_append (out, step->note);
    }

  if (step->checks->len > 0)
    {
      g_string_append (out, PD_PLAN_CHECKS_MARKER "[");
      for (guint i = 0; i < step->checks->len; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          pd_plan_check_append_json (g_ptr_array_index (step->checks, i), out);
        }
      g_string_append_c (out, ']');
    }
}

static void
append_revision_line (GString              *out,
                      const PdPlanRevision *revision)
{
  g_string_append (out, PD_PLAN_REVISION_PREFIX);
  pd_plan_revision_append_json (revision, out);
  g_string_append_c (out, ']');
}

/**
 * pd_plan_render_full:
 *
 * The render with every step and no cap: what a checked or revised plan must
 * fit in, and what the parser inverts.
 *
 * Returns: (transfer full) (nullable): the render, %NULL for an empty plan
 */
char *
pd_plan_render_full (const PdPlanState *state)
{
  PdPlanCounts counts;
  GString *out;

  pd_plan_state_count (state, &counts);
  if (counts.steps == 0)
    return NULL;

  out = g_string_new (NULL);
  append_header (out, state, &counts);

  if (is_collapsed (state, &counts))
    return g_string_free (out, FALSE);

  if (state->revision)
    {
      g_string_append_c (out, '\n');
      append_revision_line (out, state->revision);
    }

  for (guint i = 0; i < state->steps->len; i++)
    {
      g_string_append_c (out, '\n');
      append_step_line (out, g_ptr_array_index (state->steps, i));
    }

  return g_string_free (out, FALSE);
}

static char *
hard_cut (const char *text,
          guint       max_chars)
{
  static const glong trailer_chars = sizeof ("\n" PD_PLAN_TRUNCATED_MARKER) - 1;
  glong keep = (glong) max_chars - trailer_chars;
  const char *cut;
  GString *out;

  if (keep < 0)
    keep = 0;

  cut = g_utf8_offset_to_pointer (text, keep);
  out = g_string_new_len (text, cut - text);
  g_string_append (out, "\n" PD_PLAN_TRUNCATED_MARKER);

  return g_string_free (out, FALSE);
}

/**
 * pd_plan_render:
 * @max_render_chars: the cap, in characters (code points)
 *
 * The render for the plan message.  An unchecked, unrevised plan that does
 * not fit drops its oldest done steps first behind `[+N done steps omitted]`
 * and, as a last resort, is hard-cut behind a truncation marker — both
 * deliberately unparseable, so a resume recreates the plan rather than trust
 * lossy state.  Checked and revised plans are validated to fit in full.
 *
 * Returns: (transfer full) (nullable): the render, %NULL for an empty plan
 */
char *
pd_plan_render (const PdPlanState *state,
                guint              max_render_chars)
{
  g_autofree char *full = pd_plan_render_full (state);
  g_autoptr(GString) header = NULL;
  g_autofree glong *line_chars = NULL;
  PdPlanCounts counts;
  glong total;
  guint omitted = 0;
  guint n = state->steps->len;

  if (full == NULL)
    return NULL;

  if (g_utf8_strlen (full, -1) <= (glong) max_render_chars)
    return g_steal_pointer (&full);

  pd_plan_state_count (state, &counts);
  if (counts.checks > 0 || state->revision != NULL || counts.done == 0)
    return hard_cut (full, max_render_chars);

  header = g_string_new (NULL);
  append_header (header, state, &counts);

  /* Characters of each step line, plus its leading newline. */
  line_chars = g_new0 (glong, n);
  total = g_utf8_strlen (header->str, -1);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GString) line = g_string_new (NULL);

      append_step_line (line, g_ptr_array_index (state->steps, i));
      line_chars[i] = 1 + g_utf8_strlen (line->str, -1);
      total += line_chars[i];
    }

  /* Drop done steps oldest first until the rest fits behind the marker. */
  for (guint i = 0; i < n; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);
      g_autofree char *marker = NULL;

      if (step->status != PD_PLAN_STEP_DONE)
        continue;

      omitted++;
      total -= line_chars[i];
      marker = g_strdup_printf ("\n[+%u done steps omitted]", omitted);
      if (total + g_utf8_strlen (marker, -1) <= (glong) max_render_chars)
        break;
    }

  {
    GString *out = g_string_new (header->str);
    guint skipped = 0;

    g_string_append_printf (out, "\n[+%u done steps omitted]", omitted);
    for (guint i = 0; i < n; i++)
      {
        const PdPlanStep *step = g_ptr_array_index (state->steps, i);

        if (step->status == PD_PLAN_STEP_DONE && skipped < omitted)
          {
            skipped++;
            continue;
          }
        g_string_append_c (out, '\n');
        append_step_line (out, step);
      }

    if (g_utf8_strlen (out->str, -1) <= (glong) max_render_chars)
      return g_string_free (out, FALSE);

    {
      char *cut = hard_cut (out->str, max_render_chars);
      g_string_free (out, TRUE);
      return cut;
    }
  }
}

/**
 * pd_plan_render_worst_case_chars:
 *
 * The longest this plan's full render can become without a new validation:
 * version at its cap, every step in progress (the longest status token) and
 * every check carrying a maximal call id.  Checked and revised plans are
 * accepted only when this fits, so later evidence never forces a lossy render.
 */
glong
pd_plan_render_worst_case_chars (const PdPlanState *state)
{
  g_autoptr(PdPlanState) worst = pd_plan_state_copy (state);
  g_autofree char *call_id = g_strnfill (PD_PLAN_MAX_CALL_ID_CHARS, 'x');
  g_autofree char *full = NULL;
  g_autofree char *digits = g_strdup_printf ("%u", state->steps->len);

  worst->version = PD_PLAN_MAX_VERSION;
  for (guint i = 0; i < worst->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (worst->steps, i);

      step->status = PD_PLAN_STEP_IN_PROGRESS;
      for (guint j = 0; j < step->checks->len; j++)
        {
          PdPlanCheck *check = g_ptr_array_index (step->checks, j);

          check->status = PD_PLAN_CHECK_PENDING;
          g_free (check->call_id);
          check->call_id = g_strdup (call_id);
        }
    }

  full = pd_plan_render_full (worst);
  if (full == NULL)
    return 0;

  /* The header then says "0/T done, 0 blocked"; real counts can have as many
   * digits as T in both places. */
  return g_utf8_strlen (full, -1) + 2 * ((glong) strlen (digits) - 1);
}

/**
 * pd_plan_wrap:
 * @render: a plain render
 * @nonce: the boundary nonce
 *
 * Wraps everything after the header line in the untrusted-content wrapper.
 * A single-line (collapsed) render has no body and is returned as is.
 *
 * Returns: (transfer full): the wrapped message content
 */
char *
pd_plan_wrap (const char *render,
              const char *nonce)
{
  const char *newline = strchr (render, '\n');
  GString *out;

  if (newline == NULL)
    return g_strdup (render);

  out = g_string_new_len (render, newline - render);
  g_string_append_printf (out, "\n<untrusted_content_%s source=\"plan\">\n", nonce);
  g_string_append (out, newline + 1);
  g_string_append_printf (out, "\n</untrusted_content_%s>", nonce);

  return g_string_free (out, FALSE);
}

/* 16 random bytes in hex: the model cannot guess it, so text it controls can
 * never close the wrapper early. */
char *
pd_plan_new_nonce (void)
{
  return pd_random_hex (16);
}

/* pd-engine-plan.c: the plan in a run.
 *
 * The checklist rides along the loop: its changes become events, its
 * message is refreshed after every batch, a stored session restores it,
 * and an answer that ends with unverified checks says so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include "pd-engine-private.h"
#include "pd-event.h"

/* Runs under the plan store's lock, on whichever thread mutated the plan:
 * emit (never blocks) and set a flag, nothing else. */
void
_pd_engine_on_plan_changed (const PdPlanChange *change,
                            gpointer            user_data)
{
  PdEngineRun *run = user_data;

  _pd_engine_emit (run, pd_event_new_plan_change (run->run_id, run->session_id, change));

  if (change->blocked_fired)
    {
      _pd_engine_emit (run, pd_event_new_plan_blocked (run->run_id, run->session_id, change));
      g_atomic_int_set (&run->blocked_fired, 1);
    }
}

gboolean
_pd_engine_planning (PdEngineRun *run)
{
  return run->engine->plan_store != NULL;
}

/* The plan now, or NULL in a run without one. */
static PdPlanState *
plan_snapshot (PdEngineRun *run)
{
  return _pd_engine_planning (run) ? pd_plan_store_snapshot (run->engine->plan_store) : NULL;
}

/* "s2 [in_progress] Title; s3 [pending] Title" for open steps, or ids and
 * statuses only.  Titles go only into side-call payloads and the digest,
 * which are wrapped; hints carry ids alone. */
char *
_pd_engine_remaining_steps (PdEngineRun *run,
                            gboolean     with_titles)
{
  g_autoptr(PdPlanState) state = plan_snapshot (run);
  GString *out;

  if (state == NULL)
    return NULL;

  out = g_string_new (NULL);

  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      if (step->status == PD_PLAN_STEP_DONE)
        continue;
      if (out->len > 0)
        g_string_append (out, with_titles ? "; " : ", ");
      if (with_titles)
        g_string_append_printf (out, "%s [%s] %s", step->id, pd_plan_step_status_to_string (step->status), step->title);
      else
        g_string_append_printf (out, "%s %s", step->id, pd_plan_step_status_to_string (step->status));
    }

  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }

  return g_string_free (out, FALSE);
}

void
_pd_engine_plan_pointers (PdEngineRun  *run,
                          char        **in_progress,
                          char        **next_pending)
{
  g_autoptr(PdPlanState) state = plan_snapshot (run);

  *in_progress = *next_pending = NULL;
  for (guint i = 0; state != NULL && i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      if (step->status == PD_PLAN_STEP_IN_PROGRESS && *in_progress == NULL)
        *in_progress = g_strdup (step->id);
      else if (step->status == PD_PLAN_STEP_PENDING && *next_pending == NULL)
        *next_pending = g_strdup (step->id);
    }
}

gboolean
_pd_engine_plan_is_open (PdEngineRun *run)
{
  g_autoptr(PdPlanState) state = plan_snapshot (run);
  PdPlanCounts counts;

  if (state == NULL)
    return FALSE;

  pd_plan_state_count (state, &counts);
  return counts.pending + counts.in_progress > 0;
}

/* After every tool batch, before the save: the plan message carries the
 * current version (content-equal refreshes are no-ops). */
void
_pd_engine_refresh_plan_message (PdEngineRun *run)
{
  g_autofree char *content = NULL;

  if (!_pd_engine_planning (run))
    return;

  content = pd_plan_render_cache_get (run->render_cache, run->engine->plan_store, NULL);
  if (content != NULL)
    pd_transcript_refresh_plan (run->transcript, content);
}

/* What the restore of @stored takes back, in words: evidence does not
 * survive a restart (the plan spec), so every check with an outcome returns
 * to pending and checked done steps reopen.  Said once, as the run begins,
 * so a continued session's plan that went back is not read as the work of
 * a tool call.  %NULL when the restore keeps everything. */
static char *
restore_notice (const PdPlanState *stored)
{
  g_autoptr(GString) steps = g_string_new (NULL);
  guint n_steps = 0;
  guint n_checks = 0;

  for (guint i = 0; i < stored->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (stored->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        {
          const PdPlanCheck *check = g_ptr_array_index (step->checks, j);

          if (check->status != PD_PLAN_CHECK_PENDING)
            n_checks++;
        }
      if (step->checks->len > 0 && step->status == PD_PLAN_STEP_DONE)
        {
          if (n_steps < 8)
            g_string_append_printf (steps, "%s%s", n_steps ? ", " : "", step->id);
          n_steps++;
        }
    }

  if (n_checks == 0 && n_steps == 0)
    return NULL;

  return g_strdup_printf ("[plandeck plan: v%" G_GINT64_FORMAT " restored from the stored session; check evidence "
                          "does not carry over into a new run, so %u check(s) are pending until rerun%s%s%s]",
                          stored->version, n_checks,
                          n_steps ? " and these done steps are open again: " : "", steps->str,
                          n_steps > 8 ? ", \xe2\x80\xa6" : "");
}

/* The restart mechanism: the newest parseable plan message of the stored
 * transcript is the plan.  Plan messages that do not parse are removed —
 * a stale message must not keep rendering as authoritative — and so are
 * older ones, so exactly one plan message remains. */
void
_pd_engine_sync_plan (PdEngineRun *run)
{
  PdPlanStore *store = run->engine->plan_store;
  g_autoptr(PdPlanState) newest = NULL;
  g_autofree char *newest_content = NULL;
  guint removed = 0;
  int keep = -1;

  pd_plan_store_reset (store);
  pd_plan_render_cache_clear (run->render_cache);

  for (guint i = 0; i < pd_transcript_get_length (run->transcript); i++)
    {
      JsonObject *message = pd_transcript_get (run->transcript, i);
      PdPlanState *state;

      if (!pd_message_is_plan (message))
        continue;

      state = pd_plan_parse (pd_message_get_content (message), pd_plan_store_get_max_steps (store), NULL);
      if (state == NULL)
        {
          pd_transcript_remove (run->transcript, i--);
          removed++;
          continue;
        }

      if (keep >= 0)
        {
          pd_transcript_remove (run->transcript, (guint) keep);
          i--;
        }
      keep = (int) i;
      g_clear_pointer (&newest, pd_plan_state_free);
      newest = state;
      g_free (newest_content);
      newest_content = g_strdup (pd_message_get_content (message));
    }

  /* A plan stored ahead of its transcript: a plan changed in a batch is
   * stored before a question about that batch (_pd_engine_save_plan()),
   * the batch's messages at its end, so a run killed in between left the
   * plan message a version behind.  The stored plan is the one the person
   * saw; the plan message is written from it below (not when a plan
   * message did not parse: the plan then starts over). */
  if (run->engine->store != NULL && removed == 0)
    {
      PdPlanState *stored = NULL;

      if (pd_session_store_get_plan (run->engine->store, run->session_id, &stored, NULL) && stored != NULL &&
          (newest == NULL || stored->version > newest->version))
        {
          g_clear_pointer (&newest, pd_plan_state_free);
          g_clear_pointer (&newest_content, g_free);
          newest = g_steal_pointer (&stored);
        }
      g_clear_pointer (&stored, pd_plan_state_free);
    }

  if (removed > 0)
    {
      g_autofree char *note = g_strdup_printf ("removed %u plan message%s that did not parse; the plan starts over",
                                               removed, removed == 1 ? "" : "s");
      _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, note);
    }

  if (newest != NULL)
    {
      g_autofree char *downgrade = restore_notice (newest);

      pd_plan_store_restore (store, newest);
      if (newest_content != NULL)
        pd_plan_render_cache_seed (run->render_cache, newest->version, newest_content);
      else
        _pd_engine_refresh_plan_message (run);
      if (downgrade != NULL)
        _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, downgrade);
    }
}

/* Every declared check without current passing evidence: pending, failed,
 * and blocked (its call was denied, so it never ran — no evidence either).
 * pd_plan_store_pending_checks() leaves blocked checks out because they do
 * not gate completion; an answer resting on one is still unverified. */
char *
_pd_engine_verification_notice (PdEngineRun *run)
{
  g_autoptr(PdPlanState) state = plan_snapshot (run);
  g_autoptr(GPtrArray) missing = NULL;
  GString *out;

  if (state == NULL)
    return NULL;

  missing = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        {
          const PdPlanCheck *check = g_ptr_array_index (step->checks, j);
          g_autofree char *name = NULL;
          g_autofree char *escaped = NULL;

          if (check->status == PD_PLAN_CHECK_PASSED)
            continue;
          name = g_strdup_printf ("%s/%s", step->id, check->id);
          escaped = g_strescape (name, NULL);
          g_ptr_array_add (missing, g_strdup_printf ("\"%s\"%s", escaped,
                                                     check->status == PD_PLAN_CHECK_BLOCKED ? " (denied)" : ""));
        }
    }
  if (missing->len == 0)
    return NULL;

  out = g_string_new (NULL);
  g_string_append_printf (out, "\n\n[plandeck verification incomplete: %u declared acceptance check(s) have no current "
                               "passing evidence: ", missing->len);
  for (guint i = 0; i < MIN (missing->len, 8); i++)
    g_string_append_printf (out, "%s%s", i ? ", " : "", (const char *) g_ptr_array_index (missing, i));
  if (missing->len > 8)
    g_string_append (out, ", \xe2\x80\xa6");
  g_string_append (out, ". Task completion is not verified.]");

  return g_string_free (out, FALSE);
}

/* pd-plan-revise.c: the revise verb — bounded add/edit/move/split/supersede.
 *
 * Operations apply in order to the working copy; any invalid one rejects
 * the whole call.  Unaffected steps keep their status and evidence, and a
 * checked requirement is never dropped silently: a split or supersede of a
 * checked step either carries its checks to a successor or has the
 * replacements declare their own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-json-util.h"
#include "pd-plan-edit-private.h"
#include "pd-plan-error.h"
#include "pd-plan-limits.h"
#include "pd-plan-text.h"

#define fail_args(error, ...) _pd_plan_fail (error, PD_PLAN_ERROR_INVALID_ARGS, __VA_ARGS__)

typedef enum
{
  OP_ADD,
  OP_EDIT,
  OP_MOVE,
  OP_SPLIT,
  OP_SUPERSEDE,
} OpKind;

static const char * const op_names[] = { "add", "edit", "move", "split", "supersede", NULL };

static const char * const add_keys[] = { "kind", "steps", "after_id", "before_id", NULL };
static const char * const edit_keys[] = { "kind", "step_id", "title", "note", "checks", NULL };
static const char * const move_keys[] = { "kind", "step_id", "after_id", "before_id", NULL };
static const char * const replace_keys[] = { "kind", "step_id", "steps", "carry_checks_to", NULL };

static GHashTable *
used_ids_of (const PdPlanState *state,
             const char        *except)
{
  GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      if (g_strcmp0 (step->id, except) != 0)
        g_hash_table_add (ids, g_strdup (step->id));
    }

  return ids;
}

/* Where after_id/before_id place new or moved steps: an index into the
 * steps as they are without the moved step.  Both anchors is an error;
 * neither means the end. */
static gboolean
resolve_anchor (PdPlanEdit  *edit,
                JsonObject  *op,
                const char  *ctx,
                const char  *moving,
                guint       *position,
                char       **where,
                GError     **error)
{
  g_autofree char *after = NULL;
  g_autofree char *before = NULL;
  guint index;

  if (!_pd_plan_get_id (op, "after_id", &after) || !_pd_plan_get_id (op, "before_id", &before))
    return fail_args (error, "%safter_id and before_id must be strings", ctx);

  if (after != NULL && before != NULL)
    return fail_args (error, "%sgive after_id or before_id, not both", ctx);

  if (after == NULL && before == NULL)
    {
      *position = edit->work->steps->len;
      *where = g_strdup ("at the end");
      return TRUE;
    }

  if (g_strcmp0 (after ? after : before, moving) == 0)
    return fail_args (error, "%sa step cannot be placed relative to itself", ctx);

  if (!pd_plan_state_find_step (edit->work, after ? after : before, &index))
    return fail_args (error, "%sunknown step id \"%s\"", ctx, after ? after : before);

  *position = after ? index + 1 : index;
  *where = g_strdup_printf ("%s %s", after ? "after" : "before", after ? after : before);
  return TRUE;
}

static void
insert_steps (PdPlanState *state,
              GPtrArray   *steps,
              guint        position)
{
  for (guint i = 0; i < steps->len; i++)
    g_ptr_array_insert (state->steps, position + i, g_steal_pointer (&g_ptr_array_index (steps, i)));
  /* The pointers now belong to the state. */
  g_ptr_array_set_free_func (steps, NULL);
}

static char *
join_ids (GPtrArray *steps)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (steps, i);

      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append (out, step->id);
    }

  return g_string_free (out, FALSE);
}

static gboolean
any_declares_checks (GPtrArray *steps)
{
  for (guint i = 0; i < steps->len; i++)
    if (pd_plan_step_has_checks (g_ptr_array_index (steps, i)))
      return TRUE;
  return FALSE;
}

static gboolean
op_add (PdPlanEdit  *edit,
        JsonObject  *op,
        const char  *ctx,
        GString     *summary,
        GError     **error)
{
  JsonNode *steps_node = json_object_get_member (op, "steps");
  g_autoptr(GHashTable) used = used_ids_of (edit->work, NULL);
  g_autoptr(GPtrArray) steps = NULL;
  g_autofree char *where = NULL;
  g_autofree char *ids = NULL;
  guint position;

  if (steps_node == NULL || !JSON_NODE_HOLDS_ARRAY (steps_node) ||
      json_array_get_length (json_node_get_array (steps_node)) == 0)
    return fail_args (error, "%sadd needs 'steps': a non-empty array of {id,title,note,checks}", ctx);

  if (!resolve_anchor (edit, op, ctx, NULL, &position, &where, error))
    return FALSE;

  if (!(steps = _pd_plan_parse_steps (edit, steps_node, ctx, used, error)))
    return FALSE;

  ids = join_ids (steps);
  g_string_append_printf (summary, "add %s %s", ids, where);
  insert_steps (edit->work, steps, position);

  return TRUE;
}

static gboolean
op_edit (PdPlanEdit  *edit,
         JsonObject  *op,
         const char  *ctx,
         GString     *summary,
         GError     **error)
{
  g_autofree char *step_id = NULL;
  JsonNode *title_node = json_object_get_member (op, "title");
  JsonNode *note_node = json_object_get_member (op, "note");
  JsonNode *checks_node = json_object_get_member (op, "checks");
  gboolean has_title = title_node != NULL && !JSON_NODE_HOLDS_NULL (title_node);
  gboolean has_note = note_node != NULL && !JSON_NODE_HOLDS_NULL (note_node);
  gboolean has_checks = checks_node != NULL && !JSON_NODE_HOLDS_NULL (checks_node);
  PdPlanStep *step;

  if (!_pd_plan_get_id (op, "step_id", &step_id) || step_id == NULL)
    return fail_args (error, "%sedit needs 'step_id'", ctx);

  if (!(step = pd_plan_state_find_step (edit->work, step_id, NULL)))
    return fail_args (error, "%sunknown step id \"%s\"", ctx, step_id);

  if (!has_title && !has_note && !has_checks)
    return fail_args (error, "%sedit needs 'title', 'note' or 'checks'", ctx);

  g_string_append_printf (summary, "edit %s", step_id);

  if (has_title)
    {
      g_autofree char *title = NULL;

      if (pd_json_node_get_string (title_node) == NULL)
        return fail_args (error, "%stitle must be a string", ctx);
      if (!_pd_plan_validate_text (pd_json_node_get_string (title_node), ctx, "title",
                                   PD_PLAN_MAX_TITLE_CHARS, TRUE, edit->max_render_chars, &title, error))
        return FALSE;

      if (strcmp (title, step->title) != 0)
        {
          /* Changed work: its earlier evidence no longer speaks for it. */
          g_free (step->title);
          step->title = g_steal_pointer (&title);
          for (guint i = 0; i < step->checks->len; i++)
            pd_plan_check_reset_evidence (g_ptr_array_index (step->checks, i));
          if (step->status == PD_PLAN_STEP_DONE || step->status == PD_PLAN_STEP_BLOCKED)
            _pd_plan_set_status (edit, step, PD_PLAN_STEP_IN_PROGRESS);
          g_string_append (summary, " title");
        }
    }

  if (has_note)
    {
      g_autofree char *note = NULL;

      if (pd_json_node_get_string (note_node) == NULL)
        return fail_args (error, "%snote must be a string (\"\" clears it)", ctx);
      if (!_pd_plan_validate_text (pd_json_node_get_string (note_node), ctx, "note",
                                   PD_PLAN_MAX_NOTE_CHARS, FALSE, edit->max_render_chars, &note, error))
        return FALSE;
      if (strcmp (note, step->note) != 0)
        {
          pd_plan_step_set_note (step, note);
          g_string_append (summary, " note");
        }
    }

  if (has_checks)
    {
      g_autoptr(GPtrArray) checks = _pd_plan_parse_checks (edit, checks_node, ctx, error);

      if (checks == NULL)
        return FALSE;

      if (step->checks->len + checks->len > PD_PLAN_MAX_CHECKS)
        return fail_args (error, "%sstep \"%s\" would have %u checks (at most %d)", ctx, step_id,
                          step->checks->len + checks->len, PD_PLAN_MAX_CHECKS);

      for (guint i = 0; i < checks->len; i++)
        {
          PdPlanCheck *check = g_ptr_array_index (checks, i);

          if (pd_plan_step_find_check (step, check->id))
            return fail_args (error, "%sduplicate check id \"%s\" (existing checks cannot be changed; use check_replace)",
                              ctx, check->id);
        }

      g_string_append (summary, " +checks");
      for (guint i = 0; i < checks->len; i++)
        {
          PdPlanCheck *check = g_ptr_array_index (checks, i);

          g_string_append_printf (summary, "%s%s", i ? "," : " ", check->id);
          g_ptr_array_add (step->checks, pd_plan_check_copy (check));
        }

      /* A new pending requirement reopens finished work. */
      if (checks->len > 0 && step->status == PD_PLAN_STEP_DONE)
        _pd_plan_set_status (edit, step, PD_PLAN_STEP_IN_PROGRESS);
    }

  return TRUE;
}

static gboolean
op_move (PdPlanEdit  *edit,
         JsonObject  *op,
         const char  *ctx,
         GString     *summary,
         GError     **error)
{
  g_autofree char *step_id = NULL;
  g_autofree char *where = NULL;
  PdPlanStep *step;
  guint index, position;

  if (!_pd_plan_get_id (op, "step_id", &step_id) || step_id == NULL)
    return fail_args (error, "%smove needs 'step_id'", ctx);

  if (!pd_plan_state_find_step (edit->work, step_id, &index))
    return fail_args (error, "%sunknown step id \"%s\"", ctx, step_id);

  /* Take the step out first so the anchor index is final. */
  step = g_ptr_array_steal_index (edit->work->steps, index);
  if (!resolve_anchor (edit, op, ctx, step_id, &position, &where, error))
    {
      g_ptr_array_insert (edit->work->steps, index, step);
      return FALSE;
    }

  g_ptr_array_insert (edit->work->steps, position, step);
  g_string_append_printf (summary, "move %s %s", step_id, where);

  return TRUE;
}

static gboolean
op_replace (PdPlanEdit  *edit,
            OpKind       kind,
            JsonObject  *op,
            const char  *ctx,
            GString     *summary,
            GError     **error)
{
  JsonNode *steps_node = json_object_get_member (op, "steps");
  g_autofree char *step_id = NULL;
  g_autofree char *carry = NULL;
  g_autofree char *ids = NULL;
  g_autoptr(GHashTable) used = NULL;
  g_autoptr(GPtrArray) steps = NULL;
  PdPlanStep *original;
  guint min_steps = kind == OP_SPLIT ? 2 : 1;
  guint index;

  if (!_pd_plan_get_id (op, "step_id", &step_id) || step_id == NULL)
    return fail_args (error, "%s%s needs 'step_id'", ctx, op_names[kind]);

  if (!(original = pd_plan_state_find_step (edit->work, step_id, &index)))
    return fail_args (error, "%sunknown step id \"%s\"", ctx, step_id);

  if (steps_node == NULL || !JSON_NODE_HOLDS_ARRAY (steps_node) ||
      json_array_get_length (json_node_get_array (steps_node)) < min_steps)
    return fail_args (error, "%s%s needs 'steps' with at least %u replacement step%s", ctx, op_names[kind],
                      min_steps, min_steps == 1 ? "" : "s");

  if (!_pd_plan_get_id (op, "carry_checks_to", &carry))
    return fail_args (error, "%scarry_checks_to must be a replacement step id", ctx);

  /* The replaced id is free again for its replacements. */
  used = used_ids_of (edit->work, step_id);
  if (!(steps = _pd_plan_parse_steps (edit, steps_node, ctx, used, error)))
    return FALSE;

  if (carry != NULL)
    {
      PdPlanStep *target = NULL;

      if (original->checks->len == 0)
        return fail_args (error, "%scarry_checks_to given but step \"%s\" has no checks", ctx, step_id);

      for (guint i = 0; i < steps->len; i++)
        if (strcmp (((PdPlanStep *) g_ptr_array_index (steps, i))->id, carry) == 0)
          target = g_ptr_array_index (steps, i);

      if (target == NULL)
        return fail_args (error, "%scarry_checks_to \"%s\" is not one of the replacement steps", ctx, carry);

      if (target->checks->len + original->checks->len > PD_PLAN_MAX_CHECKS)
        return fail_args (error, "%sstep \"%s\" would have %u checks (at most %d)", ctx, carry,
                          target->checks->len + original->checks->len, PD_PLAN_MAX_CHECKS);

      /* Same requirements, same identities; the evidence starts over. */
      for (guint i = 0; i < original->checks->len; i++)
        {
          PdPlanCheck *check = pd_plan_check_copy (g_ptr_array_index (original->checks, i));

          if (pd_plan_step_find_check (target, check->id))
            {
              pd_plan_check_free (check);
              return fail_args (error, "%scarried check id \"%s\" duplicates a check of \"%s\"", ctx,
                                ((PdPlanCheck *) g_ptr_array_index (original->checks, i))->id, carry);
            }
          pd_plan_check_reset_evidence (check);
          g_ptr_array_add (target->checks, check);
        }
    }
  else if (original->checks->len > 0 && !any_declares_checks (steps))
    return fail_args (error, "plan: revise: carry_checks_to required unless replacements declare checks");

  ids = join_ids (steps);
  g_string_append_printf (summary, "%s %s \xe2\x86\x92 %s", op_names[kind], step_id, ids);
  if (carry != NULL)
    g_string_append_printf (summary, " (checks \xe2\x86\x92 %s)", carry);

  g_ptr_array_remove_index (edit->work->steps, index);
  insert_steps (edit->work, steps, index);

  return TRUE;
}

gboolean
_pd_plan_verb_revise (PdPlanEdit  *edit,
                      JsonObject  *args,
                      GError     **error)
{
  static const char * const allowed[] = { "verb", "reason", "operations", NULL };
  g_autofree char *reason = NULL;
  g_autoptr(PdPlanRevision) revision = NULL;
  JsonNode *operations = json_object_get_member (args, "operations");
  JsonNode *reason_node = json_object_get_member (args, "reason");
  JsonArray *array;
  guint n;

  if (operations == NULL || JSON_NODE_HOLDS_NULL (operations))
    {
      g_autofree char *keys = _pd_plan_received_keys (args);
      return fail_args (error, "plan: revise requires 'reason' (string) and 'operations' (array of "
                               "{kind:add|edit|move|split|supersede,…}); received keys: %s", keys);
    }

  if (!_pd_plan_check_keys (args, allowed, "plan: revise: ", error))
    return FALSE;

  if (reason_node == NULL || !JSON_NODE_HOLDS_VALUE (reason_node) ||
      json_node_get_value_type (reason_node) != G_TYPE_STRING)
    return fail_args (error, "plan: revise: reason is required (why the plan changes, at most %d chars)",
                      PD_PLAN_MAX_REVISION_REASON);

  if (!_pd_plan_validate_text (json_node_get_string (reason_node), "plan: revise: ", "reason",
                               PD_PLAN_MAX_REVISION_REASON, TRUE, edit->max_render_chars, &reason, error))
    return FALSE;

  if (!JSON_NODE_HOLDS_ARRAY (operations))
    return fail_args (error, "plan: revise: 'operations' must be an array of {kind,…}");

  array = json_node_get_array (operations);
  n = json_array_get_length (array);
  if (n == 0 || n > PD_PLAN_MAX_REVISION_OPS)
    return fail_args (error, "plan: revise wants 1..%d operations, got %u", PD_PLAN_MAX_REVISION_OPS, n);

  if (pd_plan_state_is_empty (edit->current))
    return fail_args (error, "plan: revise: no active plan; create one first");

  revision = pd_plan_revision_new (reason);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *ctx = NULL;
      g_autoptr(GString) summary = g_string_new (NULL);
      const char *kind_name;
      const char * const *keys;
      JsonObject *op;
      OpKind kind = OP_ADD;
      gboolean ok;
      guint k;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return fail_args (error, "plan: revise: operations[%u]: must be an object {kind,…}", i);

      op = json_node_get_object (element);
      kind_name = pd_json_get_string (op, "kind");
      for (k = 0; op_names[k]; k++)
        if (g_strcmp0 (kind_name, op_names[k]) == 0)
          break;
      if (op_names[k] == NULL)
        return fail_args (error, "plan: revise: operations[%u]: unknown kind \"%s\" (want add, edit, move, split or supersede)",
                          i, kind_name ? kind_name : "");
      kind = (OpKind) k;

      ctx = g_strdup_printf ("plan: revise: operations[%u] (%s): ", i, op_names[kind]);
      keys = kind == OP_ADD ? add_keys : kind == OP_EDIT ? edit_keys : kind == OP_MOVE ? move_keys : replace_keys;
      if (!_pd_plan_check_keys (op, keys, ctx, error))
        return FALSE;

      switch (kind)
        {
        case OP_ADD: ok = op_add (edit, op, ctx, summary, error); break;
        case OP_EDIT: ok = op_edit (edit, op, ctx, summary, error); break;
        case OP_MOVE: ok = op_move (edit, op, ctx, summary, error); break;
        case OP_SPLIT:
        case OP_SUPERSEDE: ok = op_replace (edit, kind, op, ctx, summary, error); break;
        default: g_assert_not_reached ();
        }

      if (!ok)
        return FALSE;

      pd_plan_revision_add (revision, summary->str);
    }

  if (edit->work->steps->len > edit->max_steps)
    return fail_args (error, "plan: revise: the plan would have %u steps (at most %u)",
                      edit->work->steps->len, edit->max_steps);

  /* A revision that changes no step is a no-op: no version, no evidence
   * lost, and the previous revision record stays. */
  {
    PdPlanRevision *saved = edit->work->revision;
    gboolean same;

    edit->work->revision = edit->current->revision;
    same = pd_plan_state_same_content (edit->work, edit->current);
    edit->work->revision = saved;
    if (same)
      return TRUE;
  }

  g_clear_pointer (&edit->work->revision, pd_plan_revision_free);
  edit->work->revision = g_steal_pointer (&revision);
  edit->revised = TRUE;

  return _pd_plan_validate_fit (edit, error);
}

/* pd-plan-verbs.c: create, update, complete and check_replace.
 *
 * Each verb reads its arguments fail-closed: any malformed input rejects the
 * whole call with a `plan: …` message that names what was received and the
 * shape expected, so a model can correct the call in one retry.  A few
 * unambiguous shape mistakes are accepted instead, with a note in the result.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-edit-private.h"
#include "pd-plan-error.h"
#include "pd-plan-limits.h"
#include "pd-plan-render.h"
#include "pd-plan-text.h"

gboolean
_pd_plan_fail (GError     **error,
               int          code,
               const char  *format,
               ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error_literal (error, PD_PLAN_ERROR, code, message);
  return FALSE;
}

#define fail_args(error, ...) _pd_plan_fail (error, PD_PLAN_ERROR_INVALID_ARGS, __VA_ARGS__)

/* "[a, b]" of the keys the call carried, "verb" left out. */
char *
_pd_plan_received_keys (JsonObject *args)
{
  GList *members = json_object_get_members (args);
  GString *out = g_string_new ("[");
  gboolean first = TRUE;

  for (GList *l = members; l; l = l->next)
    {
      if (strcmp (l->data, "verb") == 0)
        continue;
      if (!first)
        g_string_append (out, ", ");
      g_string_append (out, l->data);
      first = FALSE;
    }
  g_list_free (members);
  g_string_append_c (out, ']');

  return g_string_free (out, FALSE);
}

static gboolean
node_is_absent (JsonNode *node)
{
  return node == NULL || JSON_NODE_HOLDS_NULL (node);
}

/* Ids are strings; a whole number is accepted as its decimal spelling (an
 * unambiguous coercion models often need).  Returns FALSE when the member is
 * there but of another type. */
gboolean
_pd_plan_get_id (JsonObject  *args,
                 const char  *key,
                 char       **out)
{
  JsonNode *node = json_object_get_member (args, key);

  *out = NULL;

  if (node_is_absent (node))
    return TRUE;

  if (pd_json_node_get_string (node) != NULL)
    {
      *out = g_strstrip (g_strdup (json_node_get_string (node)));
      return TRUE;
    }

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    {
      *out = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      return TRUE;
    }

  return FALSE;
}

gboolean
_pd_plan_check_keys (JsonObject         *args,
                     const char * const *allowed,
                     const char         *context,
                     GError            **error)
{
  GList *members = json_object_get_members (args);
  g_autofree char *bad = NULL;

  for (GList *l = members; l; l = l->next)
    {
      if (g_strv_contains (allowed, l->data))
        continue;
      /* Unused envelope fields sent as null are harmless. */
      if (JSON_NODE_HOLDS_NULL (json_object_get_member (args, l->data)))
        continue;
      bad = g_strdup (l->data);
      break;
    }
  g_list_free (members);

  if (bad != NULL)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) allowed);
      return fail_args (error, "%sunknown key '%s' (expected: %s)", context, bad, list);
    }

  return TRUE;
}

/**
 * _pd_plan_validate_text:
 *
 * Normalizes a title, note or similar field and applies its caps and the
 * reserved-delimiter rule.  @raw may be %NULL when the field is absent.
 */
gboolean
_pd_plan_validate_text (const char  *raw,
                        const char  *context,
                        const char  *field,
                        glong        max_chars,
                        gboolean     required,
                        guint        max_render_chars,
                        char       **out,
                        GError     **error)
{
  g_autofree char *text = pd_plan_text_normalize (raw);
  glong len = g_utf8_strlen (text, -1);

  if (required && *text == '\0')
    return fail_args (error, "%s%s is required", context, field);

  if (len > max_chars)
    return fail_args (error, "%s%s is too long (%ld > %ld chars)", context, field, len, max_chars);

  if (pd_plan_text_has_reserved (text))
    return _pd_plan_fail (error, PD_PLAN_ERROR_TOO_LARGE, "plan: " PD_PLAN_RESERVED_ERROR, max_render_chars);

  *out = g_steal_pointer (&text);
  return TRUE;
}

PdPlanCheck *
_pd_plan_parse_check (PdPlanEdit  *edit,
                      JsonNode    *node,
                      const char  *context,
                      GError     **error)
{
  static const char * const allowed[] = { "id", "description", "tool", "arguments", NULL };
  g_autofree char *id = NULL;
  g_autofree char *description = NULL;
  g_autofree char *canonical = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonObject *object;
  JsonNode *arguments;
  const char *tool;
  PdPlanCheck *check;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail_args (error, "%smust be an object {id,description,tool,arguments}", context), NULL;

  object = json_node_get_object (node);
  if (!_pd_plan_check_keys (object, allowed, context, error))
    return NULL;

  if (!_pd_plan_get_id (object, "id", &id) || id == NULL || *id == '\0')
    return fail_args (error, "%sid is required (a short token)", context), NULL;
  if (g_utf8_strlen (id, -1) > PD_PLAN_MAX_CHECK_ID_CHARS)
    return fail_args (error, "%sid is too long (%ld > %d chars)", context,
                      g_utf8_strlen (id, -1), PD_PLAN_MAX_CHECK_ID_CHARS), NULL;
  if (!pd_plan_check_id_is_valid (id))
    return fail_args (error, "%sid \"%s\" must be a short token without whitespace, brackets or '/'", context, id), NULL;

  if (pd_json_get_string (object, "description") == NULL)
    return fail_args (error, "%sdescription is required (what passing proves)", context), NULL;
  if (!_pd_plan_validate_text (pd_json_get_string (object, "description"), context, "description",
                               PD_PLAN_MAX_CHECK_DESC_CHARS, TRUE, edit->max_render_chars,
                               &description, error))
    return NULL;

  tool = pd_json_get_string (object, "tool");
  if (tool == NULL || *tool == '\0')
    return fail_args (error, "%stool is required (the exact tool name to call)", context), NULL;
  if (g_utf8_strlen (tool, -1) > PD_PLAN_MAX_CHECK_TOOL_CHARS || pd_plan_text_has_control (tool))
    return fail_args (error, "%stool must be a tool name of at most %d chars", context, PD_PLAN_MAX_CHECK_TOOL_CHARS), NULL;
  if (strcmp (tool, "plan") == 0)
    return fail_args (error, "%stool cannot be 'plan': a check needs evidence from real work", context), NULL;

  arguments = json_object_get_member (object, "arguments");
  if (pd_json_node_get_string (arguments) != NULL)
    {
      /* Arguments sent as a JSON string holding an object: unambiguous. */
      canonical = pd_json_canonicalize_text (json_node_get_string (arguments), NULL);
      if (canonical != NULL && edit->notes != NULL)
        g_string_append_printf (edit->notes, "\n(inferred: check \"%s\" arguments were a JSON string; send an object)", id);
    }
  else if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
    canonical = pd_json_canonicalize_object (arguments, &local_error);

  if (canonical == NULL)
    return fail_args (error, "%sarguments must be an object with the exact arguments of the tool call", context), NULL;
  if (strlen (canonical) > PD_PLAN_MAX_CHECK_ARGS_BYTES)
    return fail_args (error, "%sarguments are too large (%" G_GSIZE_FORMAT " > %d bytes of canonical JSON)",
                      context, strlen (canonical), PD_PLAN_MAX_CHECK_ARGS_BYTES), NULL;

  check = pd_plan_check_new (id, description, tool, canonical);
  check->declared_batch = edit->batch;

  return check;
}

GPtrArray *
_pd_plan_parse_checks (PdPlanEdit  *edit,
                       JsonNode    *node,
                       const char  *context,
                       GError     **error)
{
  g_autoptr(GPtrArray) checks = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_check_free);
  JsonArray *array;
  guint n;

  if (node_is_absent (node))
    return g_steal_pointer (&checks);

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail_args (error, "%schecks must be an array of {id,description,tool,arguments}", context), NULL;

  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n > PD_PLAN_MAX_CHECKS)
    return fail_args (error, "%sat most %d checks per step (got %u)", context, PD_PLAN_MAX_CHECKS, n), NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *sub = g_strdup_printf ("%schecks[%u]: ", context, i);
      PdPlanCheck *check = _pd_plan_parse_check (edit, json_array_get_element (array, i), sub, error);

      if (check == NULL)
        return NULL;

      for (guint j = 0; j < checks->len; j++)
        if (strcmp (((PdPlanCheck *) g_ptr_array_index (checks, j))->id, check->id) == 0)
          {
            fail_args (error, "%sduplicate check id \"%s\"", sub, check->id);
            pd_plan_check_free (check);
            return NULL;
          }

      g_ptr_array_add (checks, check);
    }

  return g_steal_pointer (&checks);
}

/**
 * _pd_plan_parse_steps:
 * @context: error prefix, "plan: " for create
 * @used_ids: ids already taken; the new ids are added to it
 *
 * Reads a list of new steps (objects or bare title strings).  Missing ids are
 * assigned s1, s2, … skipping every id in use.
 */
GPtrArray *
_pd_plan_parse_steps (PdPlanEdit  *edit,
                      JsonNode    *steps,
                      const char  *context,
                      GHashTable  *used_ids,
                      GError     **error)
{
  static const char * const allowed[] = { "id", "title", "note", "checks", NULL };
  g_autoptr(GPtrArray) result = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_step_free);
  g_autoptr(GHashTable) explicit_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonArray *array = json_node_get_array (steps);
  guint n = json_array_get_length (array);
  guint counter = 1;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *ctx = g_strdup_printf ("%sstep[%u]: ", context, i);
      g_autofree char *id = NULL;
      g_autofree char *title = NULL;
      g_autofree char *note = NULL;
      g_autoptr(PdPlanStep) step = NULL;
      JsonObject *object;

      if (pd_json_node_get_string (element) != NULL)
        {
          /* A bare string is a title. */
          if (!_pd_plan_validate_text (json_node_get_string (element), ctx, "title",
                                       PD_PLAN_MAX_TITLE_CHARS, TRUE, edit->max_render_chars, &title, error))
            return NULL;
          g_ptr_array_add (result, pd_plan_step_new (NULL, title));
          continue;
        }

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return fail_args (error, "%smust be an object {id,title,note,checks} or a title string", ctx), NULL;

      object = json_node_get_object (element);

      if (!_pd_plan_get_id (object, "id", &id))
        return fail_args (error, "%sid must be a string", ctx), NULL;

      if (id != NULL)
        {
          glong len = g_utf8_strlen (id, -1);

          if (*id == '\0')
            return fail_args (error, "%sid is required", ctx), NULL;
          if (len > PD_PLAN_MAX_ID_CHARS)
            return fail_args (error, "%sid is too long (%ld > %d chars)", ctx, len, PD_PLAN_MAX_ID_CHARS), NULL;
          if (!pd_plan_step_id_is_valid (id))
            return fail_args (error, "%sid \"%s\" must be a short token without whitespace or brackets", ctx, id), NULL;
          if (g_hash_table_contains (explicit_ids, id) || g_hash_table_contains (used_ids, id))
            return fail_args (error, "%sduplicate step id \"%s\"", ctx, id), NULL;
          g_hash_table_add (explicit_ids, g_strdup (id));
        }

      if (pd_json_get_string (object, "title") == NULL)
        {
          g_autofree char *keys = _pd_plan_received_keys (object);
          const char *hint = json_object_has_member (object, "content") ? "content"
                           : json_object_has_member (object, "description") ? "description"
                           : json_object_has_member (object, "step") ? "step"
                           : json_object_has_member (object, "name") ? "name"
                           : NULL;

          if (hint != NULL)
            return fail_args (error, "%stitle is required; received keys: %s — did you mean 'title' instead of '%s'?",
                              ctx, keys, hint), NULL;
          return fail_args (error, "%stitle is required", ctx), NULL;
        }

      if (!_pd_plan_check_keys (object, allowed, ctx, error))
        return NULL;

      if (!_pd_plan_validate_text (pd_json_get_string (object, "title"), ctx, "title",
                                   PD_PLAN_MAX_TITLE_CHARS, TRUE, edit->max_render_chars, &title, error))
        return NULL;

      if (!node_is_absent (json_object_get_member (object, "note")) &&
          pd_json_get_string (object, "note") == NULL)
        return fail_args (error, "%snote must be a string", ctx), NULL;

      if (!_pd_plan_validate_text (pd_json_get_string (object, "note"), ctx, "note",
                                   PD_PLAN_MAX_NOTE_CHARS, FALSE, edit->max_render_chars, &note, error))
        return NULL;

      step = pd_plan_step_new (id, title);
      pd_plan_step_set_note (step, note);

      {
        GPtrArray *checks = _pd_plan_parse_checks (edit, json_object_get_member (object, "checks"), ctx, error);

        if (checks == NULL)
          return NULL;
        g_ptr_array_unref (step->checks);
        step->checks = checks;
      }

      g_ptr_array_add (result, g_steal_pointer (&step));
    }

  /* Missing ids only now, so they skip every explicit id of the list. */
  for (guint i = 0; i < result->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (result, i);

      if (step->id != NULL)
        continue;

      for (;; counter++)
        {
          g_autofree char *candidate = g_strdup_printf ("s%u", counter);

          if (!g_hash_table_contains (explicit_ids, candidate) && !g_hash_table_contains (used_ids, candidate))
            {
              step->id = g_steal_pointer (&candidate);
              g_hash_table_add (explicit_ids, g_strdup (step->id));
              counter++;
              break;
            }
        }
    }

  for (guint i = 0; i < result->len; i++)
    g_hash_table_add (used_ids, g_strdup (((PdPlanStep *) g_ptr_array_index (result, i))->id));

  return g_steal_pointer (&result);
}

void
_pd_plan_set_status (PdPlanEdit       *edit,
                     PdPlanStep       *step,
                     PdPlanStepStatus  status)
{
  if (step->status == status)
    return;

  step->status = status;
  g_array_append_val (edit->transitions, status);
}

/* A checked step that is done goes back to work when its evidence goes. */
void
_pd_plan_reopen_step (PdPlanStep *step)
{
  if (step->checks->len > 0 && step->status == PD_PLAN_STEP_DONE)
    step->status = PD_PLAN_STEP_IN_PROGRESS;
}

/* Checked and revised plans must fit in full, in the worst case evidence can
 * bring, so an accepted update never relies on a lossy render. */
gboolean
_pd_plan_validate_fit (PdPlanEdit  *edit,
                       GError     **error)
{
  if (!pd_plan_state_has_checks (edit->work) && edit->work->revision == NULL)
    return TRUE;

  if (pd_plan_render_worst_case_chars (edit->work) <= (glong) edit->max_render_chars)
    return TRUE;

  return _pd_plan_fail (error, PD_PLAN_ERROR_TOO_LARGE, "plan: " PD_PLAN_RESERVED_ERROR, edit->max_render_chars);
}

/* "c1: call shell with {…}; …" for every check that blocks completion. */
char *
_pd_plan_checks_gate_message (const PdPlanStep *step)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < step->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (step->checks, i);

      if (check->status != PD_PLAN_CHECK_PENDING && check->status != PD_PLAN_CHECK_FAILED)
        continue;

      if (out->len > 0)
        g_string_append (out, "; ");
      g_string_append_printf (out, "%s: call %s with %s%s", check->id, check->tool, check->arguments,
                              check->status == PD_PLAN_CHECK_FAILED ? " (last run failed)" : "");
    }

  return g_string_free (out, FALSE);
}

static gboolean
fail_checks_pending (GError          **error,
                     const char       *verb,
                     const PdPlanStep *step)
{
  g_autofree char *calls = _pd_plan_checks_gate_message (step);

  return _pd_plan_fail (error, PD_PLAN_ERROR_CHECKS_PENDING,
                        "plan: %s: step \"%s\" has checks that have not passed \xe2\x80\x94 retryable: true; "
                        "blocking checks and satisfying calls: %s",
                        verb, step->id, calls);
}

/* --- create ------------------------------------------------------------ */

static gboolean
step_unchanged_checked (const PdPlanStep *old_step,
                        const PdPlanStep *new_step)
{
  if (old_step->checks->len == 0 || old_step->checks->len != new_step->checks->len)
    return FALSE;
  if (g_strcmp0 (old_step->title, new_step->title) != 0)
    return FALSE;

  for (guint i = 0; i < old_step->checks->len; i++)
    if (!pd_plan_check_same_requirement (g_ptr_array_index (old_step->checks, i),
                                         g_ptr_array_index (new_step->checks, i)))
      return FALSE;

  return TRUE;
}

static gboolean
check_kept_by (const PdPlanState *state,
               const char        *step_id,
               const PdPlanCheck *check)
{
  PdPlanStep *step = pd_plan_state_find_step (state, step_id, NULL);

  if (step == NULL)
    return FALSE;

  for (guint i = 0; i < step->checks->len; i++)
    if (pd_plan_check_same_requirement (g_ptr_array_index (step->checks, i), check))
      return TRUE;

  return FALSE;
}

static PdPlanRevision *
archive_revision (const PdPlanState *old,
                  gboolean           brief)
{
  PdPlanRevision *revision;
  g_autofree char *reason = g_strdup_printf ("create replaced the checked plan v%" G_GINT64_FORMAT, old->version);
  guint checked = 0, listed = 0;

  revision = pd_plan_revision_new (reason);

  for (guint i = 0; i < old->steps->len; i++)
    if (pd_plan_step_has_checks (g_ptr_array_index (old->steps, i)))
      checked++;

  if (brief)
    {
      g_autofree char *item = g_strdup_printf ("archived %u checked steps", checked);
      pd_plan_revision_add (revision, item);
      return revision;
    }

  for (guint i = 0; i < old->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (old->steps, i);
      g_autoptr(GString) item = NULL;

      if (!pd_plan_step_has_checks (step))
        continue;

      if (listed == PD_PLAN_MAX_REVISION_SUMMARY - 1 && checked > PD_PLAN_MAX_REVISION_SUMMARY)
        {
          g_autofree char *more = g_strdup_printf ("and %u more archived checked steps", checked - listed);
          pd_plan_revision_add (revision, more);
          break;
        }

      item = g_string_new (NULL);
      g_string_append_printf (item, "archived %s [%s]: checks", step->id, pd_plan_step_status_to_string (step->status));
      for (guint j = 0; j < step->checks->len; j++)
        {
          const PdPlanCheck *check = g_ptr_array_index (step->checks, j);
          g_string_append_printf (item, "%s %s=%s", j ? "," : "", check->id,
                                  pd_plan_check_status_to_string (check->status));
        }
      pd_plan_revision_add (revision, item->str);
      listed++;
    }

  return revision;
}

gboolean
_pd_plan_verb_create (PdPlanEdit  *edit,
                      JsonObject  *args,
                      GError     **error)
{
  JsonNode *steps = json_object_get_member (args, "steps");
  g_autoptr(GPtrArray) array_keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) wrapper_keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) other_keys = g_ptr_array_new ();
  g_autoptr(GHashTable) used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) new_steps = NULL;
  GList *members = json_object_get_members (args);
  const PdPlanState *old = edit->current;
  gboolean old_checked = pd_plan_state_has_checks (old);
  gboolean compatible = TRUE;
  guint n;

  for (GList *l = members; l; l = l->next)
    {
      const char *key = l->data;
      JsonNode *value = json_object_get_member (args, key);

      if (strcmp (key, "verb") == 0 || strcmp (key, "steps") == 0 || JSON_NODE_HOLDS_NULL (value))
        continue;
      if (JSON_NODE_HOLDS_ARRAY (value))
        g_ptr_array_add (array_keys, (gpointer) key);
      else if (JSON_NODE_HOLDS_OBJECT (value) && json_object_has_member (json_node_get_object (value), "steps"))
        g_ptr_array_add (wrapper_keys, (gpointer) key);
      else
        g_ptr_array_add (other_keys, (gpointer) key);
    }
  g_list_free (members);

  if (!node_is_absent (steps))
    {
      if (array_keys->len > 0)
        return fail_args (error, "plan: create: ambiguous: both 'steps' and '%s' supply step lists",
                          (const char *) g_ptr_array_index (array_keys, 0));
      if (wrapper_keys->len > 0)
        return fail_args (error, "plan: create: ambiguous: both 'steps' and '%s.steps' supply step lists",
                          (const char *) g_ptr_array_index (wrapper_keys, 0));
      if (other_keys->len > 0)
        return fail_args (error, "plan: create: unknown key '%s' (create takes 'steps': array of {id,title,note,checks})",
                          (const char *) g_ptr_array_index (other_keys, 0));
    }
  else if (wrapper_keys->len == 1 && array_keys->len == 0)
    {
      const char *key = g_ptr_array_index (wrapper_keys, 0);
      JsonObject *inner = json_node_get_object (json_object_get_member (args, key));

      if (other_keys->len > 0)
        return fail_args (error, "plan: create: unknown key '%s' (create takes 'steps': array of {id,title,note,checks})",
                          (const char *) g_ptr_array_index (other_keys, 0));

      steps = json_object_get_member (inner, "steps");
      g_string_append_printf (edit->notes,
                              "\n(inferred: took 'steps' from the '%s' wrapper object; send 'steps' at the top level of the call)",
                              key);
    }
  else if (array_keys->len + wrapper_keys->len > 1)
    {
      const char *a = array_keys->len > 0 ? g_ptr_array_index (array_keys, 0) : g_ptr_array_index (wrapper_keys, 0);
      const char *b = array_keys->len > 1 ? g_ptr_array_index (array_keys, 1) : g_ptr_array_index (wrapper_keys, wrapper_keys->len - 1);

      return fail_args (error, "plan: create: ambiguous: both '%s' and '%s' supply step lists", a, b);
    }
  else
    {
      g_autofree char *keys = _pd_plan_received_keys (args);
      g_autoptr(GString) message = g_string_new (NULL);

      g_string_append_printf (message, "plan: create requires 'steps' (array of {id,title,note,checks}); received keys: %s", keys);
      if (array_keys->len > 0)
        g_string_append_printf (message, " \xe2\x80\x94 '%s' is not recognized; did you mean 'steps'?",
                                (const char *) g_ptr_array_index (array_keys, 0));
      return fail_args (error, "%s", message->str);
    }

  if (!JSON_NODE_HOLDS_ARRAY (steps))
    return fail_args (error, "plan: create: 'steps' must be an array of {id,title,note,checks} (or title strings)");

  n = json_array_get_length (json_node_get_array (steps));
  if (n == 0 || n > edit->max_steps)
    return fail_args (error, "plan: create wants 1..%u steps, got %u", edit->max_steps, n);

  if (!(new_steps = _pd_plan_parse_steps (edit, steps, "plan: ", used, error)))
    return FALSE;

  /* Unchanged checked steps keep their progress and evidence. */
  for (guint i = 0; i < new_steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (new_steps, i);
      PdPlanStep *old_step = pd_plan_state_find_step (old, step->id, NULL);

      if (old_step != NULL && step_unchanged_checked (old_step, step))
        {
          step->status = old_step->status;
          g_ptr_array_set_size (step->checks, 0);
          for (guint j = 0; j < old_step->checks->len; j++)
            g_ptr_array_add (step->checks, pd_plan_check_copy (g_ptr_array_index (old_step->checks, j)));
        }
    }

  g_ptr_array_unref (edit->work->steps);
  edit->work->steps = g_steal_pointer (&new_steps);
  g_clear_pointer (&edit->work->revision, pd_plan_revision_free);
  edit->created = TRUE;

  /* A create that drops or alters a declared check is still accepted —
   * create may always reset — but the old checked plan is archived in the
   * revision block, so the reset is visible. */
  if (old_checked)
    {
      for (guint i = 0; i < old->steps->len && compatible; i++)
        {
          const PdPlanStep *old_step = g_ptr_array_index (old->steps, i);

          for (guint j = 0; j < old_step->checks->len && compatible; j++)
            compatible = check_kept_by (edit->work, old_step->id, g_ptr_array_index (old_step->checks, j));
        }
    }

  if (!compatible)
    {
      edit->work->revision = archive_revision (old, FALSE);
      if (pd_plan_render_worst_case_chars (edit->work) > (glong) edit->max_render_chars)
        {
          pd_plan_revision_free (edit->work->revision);
          edit->work->revision = archive_revision (old, TRUE);
        }
      if (pd_plan_render_worst_case_chars (edit->work) > (glong) edit->max_render_chars)
        g_clear_pointer (&edit->work->revision, pd_plan_revision_free);
    }

  return _pd_plan_validate_fit (edit, error);
}

/* --- update ------------------------------------------------------------ */

gboolean
_pd_plan_verb_update (PdPlanEdit  *edit,
                      JsonObject  *args,
                      GError     **error)
{
  static const char * const allowed[] = { "verb", "updates", NULL };
  static const char * const entry_keys[] = { "id", "status", "note", NULL };
  JsonNode *updates = json_object_get_member (args, "updates");
  JsonArray *array;
  guint n;

  if (node_is_absent (updates))
    {
      g_autofree char *keys = _pd_plan_received_keys (args);
      const char *hint = json_object_has_member (args, "steps") ? "steps"
                       : json_object_has_member (args, "operations") ? "operations"
                       : NULL;

      if (hint != NULL)
        return fail_args (error, "plan: update requires 'updates' (array of {id,status?,note?}); received keys: %s "
                                 "\xe2\x80\x94 '%s' is not recognized; did you mean 'updates'?", keys, hint);
      return fail_args (error, "plan: update requires 'updates' (array of {id,status?,note?}); received keys: %s", keys);
    }

  if (!_pd_plan_check_keys (args, allowed, "plan: update: ", error))
    return FALSE;

  if (!JSON_NODE_HOLDS_ARRAY (updates))
    return fail_args (error, "plan: update: 'updates' must be an array of {id,status?,note?}");

  array = json_node_get_array (updates);
  n = json_array_get_length (array);
  if (n == 0)
    return fail_args (error, "plan: update: no updates given");

  if (pd_plan_state_is_empty (edit->current))
    return fail_args (error, "plan: update: no active plan; create one first");

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *ctx = g_strdup_printf ("plan: update: step[%u]: ", i);
      g_autofree char *id = NULL;
      g_autofree char *note = NULL;
      JsonObject *entry;
      JsonNode *status_node, *note_node;
      PdPlanStep *step;
      PdPlanStepStatus status;
      gboolean has_status = FALSE;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return fail_args (error, "%smust be an object {id,status?,note?}", ctx);

      entry = json_node_get_object (element);
      if (!_pd_plan_get_id (entry, "id", &id) || id == NULL || *id == '\0')
        return fail_args (error, "%sid is required", ctx);

      {
        GList *members = json_object_get_members (entry);
        g_autofree char *bad = NULL;

        for (GList *l = members; l && bad == NULL; l = l->next)
          if (!g_strv_contains (entry_keys, l->data) && !JSON_NODE_HOLDS_NULL (json_object_get_member (entry, l->data)))
            bad = g_strdup (l->data);
        g_list_free (members);

        if (bad != NULL)
          return fail_args (error, "%sunknown key '%s' (update takes id, status, note; use revise to change titles or checks)",
                            ctx, bad);
      }

      if (!(step = pd_plan_state_find_step (edit->work, id, NULL)))
        return fail_args (error, "plan: update: unknown step id \"%s\"", id);

      status_node = json_object_get_member (entry, "status");
      if (!node_is_absent (status_node))
        {
          const char *token = pd_json_node_get_string (status_node);

          if (!pd_plan_step_status_from_string (token, &status))
            {
              g_autofree char *shown = token ? g_strdup (token) : pd_json_to_string (status_node, FALSE);
              return fail_args (error, "%sunknown status \"%s\" (want pending, in_progress, done or blocked)", ctx, shown);
            }
          has_status = TRUE;
        }

      note_node = json_object_get_member (entry, "note");
      if (!node_is_absent (note_node))
        {
          if (pd_json_node_get_string (note_node) == NULL)
            return fail_args (error, "%snote must be a string", ctx);
          if (!_pd_plan_validate_text (json_node_get_string (note_node), ctx, "note",
                                       PD_PLAN_MAX_NOTE_CHARS, FALSE, edit->max_render_chars, &note, error))
            return FALSE;
          pd_plan_step_set_note (step, note);
        }

      if (has_status)
        {
          if (status == PD_PLAN_STEP_DONE && step->status != PD_PLAN_STEP_DONE &&
              !pd_plan_step_checks_allow_done (step))
            return fail_checks_pending (error, "update", step);
          _pd_plan_set_status (edit, step, status);
        }
    }

  return _pd_plan_validate_fit (edit, error);
}

/* --- complete ---------------------------------------------------------- */

gboolean
_pd_plan_verb_complete (PdPlanEdit  *edit,
                        JsonObject  *args,
                        GError     **error)
{
  static const char * const allowed[] = { "verb", "step_id", "id", NULL };
  g_autofree char *step_id = NULL;
  PdPlanStep *step;

  if (!_pd_plan_get_id (args, "step_id", &step_id))
    return fail_args (error, "plan: complete: 'step_id' must be a string");

  if (step_id == NULL)
    {
      if (!_pd_plan_get_id (args, "id", &step_id))
        return fail_args (error, "plan: complete: 'step_id' must be a string");
      if (step_id != NULL)
        g_string_append (edit->notes, "\n(inferred: read 'id' as 'step_id'; send 'step_id' next time)");
    }
  else if (json_object_has_member (args, "id") && !JSON_NODE_HOLDS_NULL (json_object_get_member (args, "id")))
    return fail_args (error, "plan: complete: ambiguous: both 'step_id' and 'id' given");

  if (step_id == NULL)
    {
      g_autofree char *keys = _pd_plan_received_keys (args);
      return fail_args (error, "plan: complete requires 'step_id' (string); received keys: %s", keys);
    }

  if (!_pd_plan_check_keys (args, allowed, "plan: complete: ", error))
    return FALSE;

  if (pd_plan_state_is_empty (edit->current))
    return fail_args (error, "plan: complete: no active plan; create one first");

  if (!(step = pd_plan_state_find_step (edit->work, step_id, NULL)))
    return fail_args (error, "plan: complete: unknown step id \"%s\"", step_id);

  if (step->status == PD_PLAN_STEP_DONE)
    return TRUE;   /* idempotent no-op */

  if (!pd_plan_step_checks_allow_done (step))
    return fail_checks_pending (error, "complete", step);

  _pd_plan_set_status (edit, step, PD_PLAN_STEP_DONE);

  return TRUE;
}

/* --- check_replace ----------------------------------------------------- */

gboolean
_pd_plan_verb_check_replace (PdPlanEdit  *edit,
                             JsonObject  *args,
                             GError     **error)
{
  static const char * const allowed[] = { "verb", "step_id", "check_id", "justification",
                                          "replacement", "evidence_note", NULL };
  g_autofree char *step_id = NULL;
  g_autofree char *check_id = NULL;
  g_autofree char *justification = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *summary = NULL;
  JsonNode *replacement, *evidence;
  PdPlanStep *step;
  PdPlanCheck *check;
  guint index = 0;

  if (!_pd_plan_check_keys (args, allowed, "plan: check_replace: ", error))
    return FALSE;

  if (!_pd_plan_get_id (args, "step_id", &step_id) || step_id == NULL || *step_id == '\0' ||
      !_pd_plan_get_id (args, "check_id", &check_id) || check_id == NULL || *check_id == '\0')
    {
      g_autofree char *keys = _pd_plan_received_keys (args);
      return fail_args (error, "plan: check_replace requires 'step_id', 'check_id', 'justification' and either "
                               "'replacement' {id,description,tool,arguments} or 'evidence_note'; received keys: %s", keys);
    }

  if (pd_json_get_string (args, "justification") == NULL)
    return fail_args (error, "plan: check_replace: justification is required (why the check is dead, stale or denied)");
  if (!_pd_plan_validate_text (pd_json_get_string (args, "justification"), "plan: check_replace: ",
                               "justification", PD_PLAN_MAX_REVISION_REASON, TRUE,
                               edit->max_render_chars, &justification, error))
    return FALSE;

  replacement = json_object_get_member (args, "replacement");
  evidence = json_object_get_member (args, "evidence_note");
  if (node_is_absent (replacement) == node_is_absent (evidence))
    return fail_args (error, "plan: check_replace: give exactly one of 'replacement' or 'evidence_note'");

  if (pd_plan_state_is_empty (edit->current))
    return fail_args (error, "plan: check_replace: no active plan; create one first");

  if (!(step = pd_plan_state_find_step (edit->work, step_id, NULL)))
    return fail_args (error, "plan: check_replace: unknown step id \"%s\"", step_id);

  for (guint i = 0; i < step->checks->len; i++)
    if (strcmp (((PdPlanCheck *) g_ptr_array_index (step->checks, i))->id, check_id) == 0)
      index = i + 1;
  if (index == 0)
    return fail_args (error, "plan: check_replace: step \"%s\" has no check \"%s\"", step_id, check_id);
  check = g_ptr_array_index (step->checks, index - 1);

  reason = g_strdup_printf ("check %s/%s replaced: %s", step_id, check_id, justification);
  if (g_utf8_strlen (reason, -1) > PD_PLAN_MAX_REVISION_REASON)
    return fail_args (error, "plan: check_replace: justification is too long (the recorded reason \"check %s/%s replaced: …\" must fit %d chars)",
                      step_id, check_id, PD_PLAN_MAX_REVISION_REASON);

  if (!node_is_absent (replacement))
    {
      PdPlanCheck *fresh = _pd_plan_parse_check (edit, replacement, "plan: check_replace: replacement: ", error);

      if (fresh == NULL)
        return FALSE;

      for (guint i = 0; i < step->checks->len; i++)
        {
          const PdPlanCheck *other = g_ptr_array_index (step->checks, i);

          if (i != index - 1 && strcmp (other->id, fresh->id) == 0)
            {
              pd_plan_check_free (fresh);
              return fail_args (error, "plan: check_replace: replacement: duplicate check id \"%s\"", other->id);
            }
        }

      /* A fresh requirement, pending until a later batch proves it. */
      g_ptr_array_index (step->checks, index - 1) = fresh;
      pd_plan_check_free (check);
      _pd_plan_reopen_step (step);
    }
  else
    {
      g_autofree char *note = NULL;
      g_autofree char *description = NULL;

      if (pd_json_node_get_string (evidence) == NULL)
        return fail_args (error, "plan: check_replace: evidence_note must be a string");
      if (!_pd_plan_validate_text (json_node_get_string (evidence), "plan: check_replace: ", "evidence_note",
                                   PD_PLAN_MAX_EVIDENCE_NOTE_CHARS, TRUE, edit->max_render_chars, &note, error))
        return FALSE;

      description = g_strdup_printf ("%s (evidence: %s)", check->description, note);
      if (g_utf8_strlen (description, -1) > PD_PLAN_MAX_PERSISTED_DESC_CHARS)
        return fail_args (error, "plan: check_replace: the check already carries an evidence note; replace it instead");

      g_free (check->description);
      check->description = g_steal_pointer (&description);
      check->status = PD_PLAN_CHECK_PASSED;
      g_clear_pointer (&check->call_id, g_free);
    }

  g_clear_pointer (&edit->work->revision, pd_plan_revision_free);
  edit->work->revision = pd_plan_revision_new (reason);
  summary = g_strdup_printf ("replaced %s/%s", step_id, check_id);
  pd_plan_revision_add (edit->work->revision, summary);
  edit->revised = TRUE;

  return _pd_plan_validate_fit (edit, error);
}

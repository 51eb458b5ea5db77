/* pd-claude-code-plan.c: what a Claude Code transcript's plan tools do to
 * its checklist: the results of TodoWrite, TaskCreate, TaskUpdate,
 * TaskList, ExitPlanMode and the desktop's update_plan and wrap_up, bound to
 * their calls, and the task snapshots.  The replay rules are in
 * pd-claude-code-reader.c, which reads the lines and hands each result here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pd-claude-code-reader-private.h"
#include "pd-import-private.h"

/* ---------------------------------------------------------------------- */
/* The checklist                                                          */

PdImportStats *
_pd_claude_stats (PdClaudeCodeReader *self)
{
  return pd_imported_session_get_stats (self->session);
}

PdChecklist *
_pd_claude_checklist (PdClaudeCodeReader *self)
{
  return pd_imported_session_get_checklist (self->session);
}

/* One update of the plan applied, as of the line being replayed. */
void
_pd_claude_applied (PdClaudeCodeReader *self)
{
  _pd_import_applied_update (self->session, self->pages, self->now);
}

static void
publish_tasks (PdClaudeCodeReader *self)
{
  GPtrArray *items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);

  for (guint i = 0; i < self->tasks->len; i++)
    {
      Task *task = g_ptr_array_index (self->tasks, i);
      g_ptr_array_add (items, pd_checklist_item_new (task->subject, task->status, task->id));
    }
  pd_checklist_replace_agent_items_cut (_pd_claude_checklist (self), PD_CHECKLIST_ORIGIN_CLAUDE_TASKS, items,
                                        self->tasks_hidden);
}

static Task *
find_task (PdClaudeCodeReader *self,
           const char         *id,
           guint              *index)
{
  for (guint i = 0; id != NULL && i < self->tasks->len; i++)
    {
      Task *task = g_ptr_array_index (self->tasks, i);
      if (strcmp (task->id, id) == 0)
        {
          if (index)
            *index = i;
          return task;
        }
    }
  return NULL;
}

/* A full list (TodoWrite, update_plan items), @n_hidden more items of it
 * counted past those kept: replaces the agent's section and clears the
 * known tasks. */
static void
apply_full_list (PdClaudeCodeReader *self,
                 PdChecklistOrigin   origin,
                 GPtrArray          *items,
                 guint               n_hidden)
{
  g_ptr_array_set_size (self->tasks, 0);
  self->tasks_hidden = 0;
  pd_checklist_replace_agent_items_cut (_pd_claude_checklist (self), origin, items, n_hidden);
  _pd_claude_applied (self);
  self->full_lists++;
}

static int
compare_task_ids (gconstpointer a,
                  gconstpointer b)
{
  const Task *ta = *(Task * const *) a;
  const Task *tb = *(Task * const *) b;
  gint64 na = g_ascii_strtoll (ta->id, NULL, 10);
  gint64 nb = g_ascii_strtoll (tb->id, NULL, 10);

  if (na != nb)
    return na < nb ? -1 : 1;
  return strcmp (ta->id, tb->id);
}

/* TaskList results and task reminders: the whole task list. */
gboolean
_pd_claude_apply_task_snapshot (PdClaudeCodeReader *self,
                                JsonArray          *array)
{
  g_autoptr(GPtrArray) tasks = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_claude_task_free);
  guint n = json_array_get_length (array);
  guint hidden = 0;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *object;
      const char *subject, *status_text;
      g_autofree char *id = NULL;
      PdChecklistStatus status;
      Task *task;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return FALSE;
      object = json_node_get_object (element);
      id = pd_json_dup_id (object, "id");
      subject = pd_json_get_string (object, "subject");
      status_text = pd_json_get_string (object, "status");
      if (id == NULL || subject == NULL)
        return FALSE;
      if (!pd_checklist_status_parse (status_text, &status))
        continue;
      if (tasks->len >= PD_IMPORT_MAX_TASKS)
        {
          hidden++;  /* counted; the rest must still be tasks */
          continue;
        }
      task = g_new0 (Task, 1);
      task->id = g_steal_pointer (&id);
      task->subject = _pd_import_clean_text (subject);
      task->status = status;
      g_ptr_array_add (tasks, task);
    }

  /* Snapshots are not in id order; ids are assigned in creation order. */
  g_ptr_array_sort (tasks, compare_task_ids);
  g_ptr_array_unref (self->tasks);
  self->tasks = g_steal_pointer (&tasks);
  self->tasks_hidden = hidden;
  publish_tasks (self);
  _pd_claude_applied (self);
  self->full_lists++;
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Results                                                                */

JsonObject *
_pd_claude_request_input (Request *request)
{
  /* A call read in place keeps its input's text until it is needed. */
  if (request->input == NULL && request->input_text != NULL)
    request->input = pd_json_parse_picked (request->input_text, -1, _pd_claude_input_pick, NULL);
  return request->input && JSON_NODE_HOLDS_OBJECT (request->input) ? json_node_get_object (request->input) : NULL;
}

void
_pd_claude_request_keep_input (PdClaudeCodeReader *self,
                               Request            *request,
                               JsonNode           *input)
{
  gsize bytes;

  if (input == NULL)
    return;
  if (self->budget.max == 0)
    _pd_import_budget_init (&self->budget);
  bytes = _pd_import_tree_bytes (input);
  if (_pd_import_budget_take (&self->budget, bytes))
    {
      request->input = json_node_copy (input);
      request->bytes = bytes;
      request->budget = &self->budget;
    }
  else
    /* A byte of text a byte read rather than a hundred a value: the list
     * is read from it (picked) when the result comes, the same list. */
    request->input_text = json_to_string (input, FALSE);
}

void
_pd_claude_request_drop_input (Request *request)
{
  if (request->budget != NULL)
    _pd_import_budget_give (request->budget, request->bytes);
  request->budget = NULL;
  g_clear_pointer (&request->input, json_node_unref);
}

static gboolean
tool_use_result_is_error (JsonNode *result)
{
  const char *text = pd_json_node_get_string (result);

  if (result == NULL)
    return FALSE;
  if (text != NULL)
    return g_str_has_prefix (text, "Error") || g_str_has_prefix (text, "User rejected");
  if (JSON_NODE_HOLDS_OBJECT (result))
    return !pd_json_get_boolean (json_node_get_object (result), "success", TRUE);
  return FALSE;
}

static JsonObject *
result_object (JsonNode *result)
{
  return result && JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
}

static const char * const todo_text_members[] = { "content", "text", NULL };
static const char * const plan_text_members[] = { "text", "content", "title", "step", "subject", NULL };

static void
result_todo_write (PdClaudeCodeReader *self,
                   Request            *request,
                   JsonNode           *result)
{
  JsonArray *array = pd_json_get_array (result_object (result), "newTodos");
  g_autoptr(GPtrArray) items = NULL;
  guint hidden = 0;

  /* The result's newTodos is the post-state; the input is the fallback. */
  if (array == NULL && _pd_claude_request_input (request) != NULL)
    array = pd_json_get_array (_pd_claude_request_input (request), "todos");
  if (!(items = _pd_import_items_from_array_cut (array, todo_text_members, "id", &hidden)))
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }
  apply_full_list (self, PD_CHECKLIST_ORIGIN_TODO_LIST, g_steal_pointer (&items), hidden);
}

/* tool_use_result_is_error() on a span, with its success member. */
static gboolean
span_result_is_error (const PdJsonSpan *result,
                      PdJsonSpan        success)
{
  if (result == NULL)
    return FALSE;
  if (pd_json_span_is_string (*result))
    {
      g_autofree char *text = pd_json_span_dup_string (*result);

      return g_str_has_prefix (text, "Error") || g_str_has_prefix (text, "User rejected");
    }
  if (pd_json_span_is_object (*result))
    return pd_json_span_is_boolean (success) && success.text[0] == 'f';
  return FALSE;
}

/* What _pd_claude_handle_result() and result_todo_write() do with the
 * tree, read in place: no tree is built unless the result has no list and
 * the call's input is the fallback. */
void
_pd_claude_handle_todo_write_span (PdClaudeCodeReader *self,
                                   Request            *request,
                                   gboolean            is_error,
                                   const PdJsonSpan   *result,
                                   PdJsonSpan          success,
                                   PdJsonSpan          todos,
                                   GArray             *todo_rows)
{
  g_autoptr(GPtrArray) items = NULL;
  guint hidden = 0;

  g_assert (request->tool == TOOL_TODO_WRITE);

  if (is_error || span_result_is_error (result, success))
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }
  if (!pd_json_span_is_array (todos))
    {
      result_todo_write (self, request, NULL);
      return;
    }
  /* The items' rows when the check kept them all, else the list walked. */
  items = todo_rows != NULL
          ? _pd_import_items_from_rows ((const PdJsonSpan *) (gpointer) todo_rows->data,
                                        todo_rows->len / N_CLAUDE_TODO_SLOTS, N_CLAUDE_TODO_SLOTS,
                                        G_N_ELEMENTS (todo_text_members) - 1, TRUE, &hidden)
          : _pd_import_items_from_span_cut (todos, todo_text_members, "id", &hidden);
  if (items == NULL)
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }
  apply_full_list (self, PD_CHECKLIST_ORIGIN_TODO_LIST, g_steal_pointer (&items), hidden);
}

/* "Task #12 created successfully: …" → "12" */
static char *
id_from_text (const char *text,
              const char *prefix,
              const char *suffix)
{
  const char *p;
  const char *digits;

  if (text == NULL || !g_str_has_prefix (text, prefix))
    return NULL;
  p = digits = text + strlen (prefix);
  while (g_ascii_isdigit (*p))
    p++;
  if (p == digits || p - digits > 12 || !g_str_has_prefix (p, suffix))
    return NULL;
  return g_strndup (digits, (gsize) (p - digits));
}

static void
result_task_create (PdClaudeCodeReader *self,
                    Request            *request,
                    JsonNode           *result,
                    const char         *text)
{
  JsonObject *task_object = pd_json_get_object (result_object (result), "task");
  JsonObject *input = _pd_claude_request_input (request);
  g_autofree char *id = NULL;
  const char *subject = NULL;
  Task *task;
  guint index;

  if (task_object != NULL)
    {
      id = pd_json_dup_id (task_object, "id");
      subject = pd_json_get_string (task_object, "subject");
    }
  else
    id = id_from_text (text, "Task #", " created successfully");
  if (subject == NULL)
    subject = pd_json_get_string (input, "subject");

  if (id == NULL || subject == NULL)
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }

  /* A new creation may reuse an id: it replaces that item. */
  if ((task = find_task (self, id, &index)))
    {
      g_free (task->subject);
      task->subject = _pd_import_clean_text (subject);
      task->status = PD_CHECKLIST_STATUS_PENDING;
    }
  else
    {
      if (self->tasks->len >= PD_IMPORT_MAX_TASKS)
        {
          /* The oldest gives way, counted as not shown. */
          g_ptr_array_remove_index (self->tasks, 0);
          self->tasks_hidden++;
        }
      task = g_new0 (Task, 1);
      task->id = g_steal_pointer (&id);
      task->subject = _pd_import_clean_text (subject);
      task->status = PD_CHECKLIST_STATUS_PENDING;
      g_ptr_array_add (self->tasks, task);
    }
  publish_tasks (self);
  _pd_claude_applied (self);
}

static gboolean
strv_has (GStrv        strv,
          const char  *word)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, word);
}

static void
result_task_update (PdClaudeCodeReader *self,
                    Request            *request,
                    JsonNode           *result,
                    const char         *text)
{
  JsonObject *input = _pd_claude_request_input (request);
  JsonObject *object = result_object (result);
  g_autofree char *id = pd_json_dup_id (input, "taskId");
  g_auto(GStrv) fields = NULL;
  const char *new_status = NULL;
  const char *new_subject = NULL;
  gboolean changed = FALSE;
  Task *task;
  guint index;

  if (id == NULL)
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }

  if (object != NULL)
    {
      g_autofree char *result_id = pd_json_dup_id (object, "taskId");
      JsonArray *updated = pd_json_get_array (object, "updatedFields");
      JsonObject *change = pd_json_get_object (object, "statusChange");
      GPtrArray *names = g_ptr_array_new ();

      if (!pd_json_get_boolean (object, "success", FALSE)
          || (result_id != NULL && strcmp (result_id, id) != 0) || updated == NULL)
        {
          g_ptr_array_unref (names);
          _pd_claude_stats (self)->ignored_updates++;
          return;
        }
      for (guint i = 0; i < json_array_get_length (updated); i++)
        {
          const char *name = pd_json_node_get_string (json_array_get_element (updated, i));
          if (name != NULL)
            g_ptr_array_add (names, g_strdup (name));
        }
      g_ptr_array_add (names, NULL);
      fields = (GStrv) g_ptr_array_free (names, FALSE);
      new_status = pd_json_get_string (change, "to");
    }
  else
    {
      /* Subagent transcripts carry only the text: "Updated task #N a, b". */
      g_autofree char *text_id = id_from_text (text, "Updated task #", "");
      const char *rest;

      if (text_id == NULL || strcmp (text_id, id) != 0)
        {
          _pd_claude_stats (self)->ignored_updates++;
          return;
        }
      rest = text + strlen ("Updated task #") + strlen (text_id);
      fields = g_strsplit_set (rest, ", \n", -1);
    }

  if (new_status == NULL && strv_has (fields, "status"))
    new_status = pd_json_get_string (input, "status");
  if (strv_has (fields, "subject"))
    new_subject = pd_json_get_string (input, "subject");

  /* Updates never invent a task. */
  if (!(task = find_task (self, id, &index)))
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }

  if (new_status != NULL)
    {
      PdChecklistStatus status;

      if (!pd_checklist_status_parse (new_status, &status))
        {
          g_ptr_array_remove_index (self->tasks, index);
          task = NULL;
          changed = TRUE;
        }
      else if (status != task->status)
        {
          task->status = status;
          changed = TRUE;
        }
    }
  if (task != NULL && new_subject != NULL)
    {
      g_autofree char *clean = _pd_import_clean_text (new_subject);

      if (strcmp (clean, task->subject) != 0)
        {
          g_free (task->subject);
          task->subject = g_steal_pointer (&clean);
          changed = TRUE;
        }
    }

  /* Dependency-only and no-op updates change nothing. */
  if (changed)
    {
      publish_tasks (self);
      _pd_claude_applied (self);
    }
}

static void
result_exit_plan_mode (PdClaudeCodeReader *self,
                       Request            *request,
                       gboolean            is_error,
                       JsonNode           *result)
{
  JsonObject *input = _pd_claude_request_input (request);
  const char *plan = pd_json_get_string (input, "plan");
  const char *approved_plan = pd_json_get_string (result_object (result), "plan");

  if (!is_error && approved_plan != NULL)
    plan = approved_plan;
  if (plan == NULL)
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }
  pd_imported_session_add_plan (self->session, request->id, plan,
                                is_error ? PD_ARTIFACT_PLAN_REJECTED : PD_ARTIFACT_PLAN_APPROVED,
                                request->time);
}

/* A reference to an item of the desktop plan: its id or its exact text. */
static gboolean
resolve_item (PdChecklist *list,
              JsonNode    *node,
              guint       *position)
{
  const char *ref = pd_json_node_get_string (node);

  if (ref == NULL)
    return FALSE;
  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    {
      const PdChecklistItem *item = pd_checklist_get_agent_item (list, i);
      if (g_strcmp0 (item->source_id, ref) == 0 || strcmp (item->text, ref) == 0)
        {
          *position = i;
          return TRUE;
        }
    }
  return FALSE;
}

static GPtrArray *
copy_agent_items (PdChecklist *list)
{
  GPtrArray *items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);

  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    g_ptr_array_add (items, pd_checklist_item_copy (pd_checklist_get_agent_item (list, i)));
  return items;
}

static void
complete_in_progress (GPtrArray *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      PdChecklistItem *item = g_ptr_array_index (items, i);
      if (item->status == PD_CHECKLIST_STATUS_IN_PROGRESS)
        item->status = PD_CHECKLIST_STATUS_COMPLETED;
    }
}

/* An unrecognised shape gives no plan rather than a wrong one. */
static void
desktop_plan_unrecognised (PdClaudeCodeReader *self)
{
  if (pd_checklist_get_origin (_pd_claude_checklist (self)) == PD_CHECKLIST_ORIGIN_DESKTOP_PLAN)
    pd_checklist_clear_agent_items (_pd_claude_checklist (self));
  _pd_claude_stats (self)->ignored_updates++;
}

static void
result_ccd_update_plan (PdClaudeCodeReader *self,
                        Request            *request)
{
  JsonObject *input = _pd_claude_request_input (request);
  PdChecklist *list = _pd_claude_checklist (self);
  JsonNode *advance, *done, *start;
  JsonArray *array;
  g_autoptr(GPtrArray) items = NULL;

  if ((array = pd_json_get_array (input, "items")))
    {
      guint hidden = 0;

      if (!(items = _pd_import_items_from_array_cut (array, plan_text_members, "id", &hidden)))
        {
          desktop_plan_unrecognised (self);
          return;
        }
      apply_full_list (self, PD_CHECKLIST_ORIGIN_DESKTOP_PLAN, g_steal_pointer (&items), hidden);
      return;
    }

  advance = input ? json_object_get_member (input, "advance") : NULL;
  done = input ? json_object_get_member (input, "done") : NULL;
  start = input ? json_object_get_member (input, "start") : NULL;

  if (advance == NULL && done == NULL && start == NULL)
    {
      desktop_plan_unrecognised (self);
      return;
    }

  /* Steps without a full list before them give no plan. */
  if (pd_checklist_get_origin (list) != PD_CHECKLIST_ORIGIN_DESKTOP_PLAN)
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }

  items = copy_agent_items (list);

  if (advance != NULL)
    {
      gboolean moved = FALSE;
      guint next = 0;

      if (done != NULL || start != NULL
          || !JSON_NODE_HOLDS_VALUE (advance) || json_node_get_value_type (advance) != G_TYPE_BOOLEAN)
        {
          desktop_plan_unrecognised (self);
          return;
        }
      if (!json_node_get_boolean (advance))
        {
          _pd_claude_stats (self)->ignored_updates++;
          return;
        }
      /* Complete the step in progress, start the next open one. */
      for (guint i = 0; i < items->len; i++)
        {
          PdChecklistItem *item = g_ptr_array_index (items, i);
          if (item->status == PD_CHECKLIST_STATUS_IN_PROGRESS)
            {
              item->status = PD_CHECKLIST_STATUS_COMPLETED;
              next = i + 1;
              moved = TRUE;
            }
        }
      for (guint i = moved ? next : 0; i < items->len; i++)
        {
          PdChecklistItem *item = g_ptr_array_index (items, i);
          if (item->status == PD_CHECKLIST_STATUS_PENDING)
            {
              item->status = PD_CHECKLIST_STATUS_IN_PROGRESS;
              break;
            }
        }
    }
  else
    {
      g_autoptr(GArray) done_positions = g_array_new (FALSE, FALSE, sizeof (guint));
      guint position;

      if (done != NULL && JSON_NODE_HOLDS_ARRAY (done))
        {
          JsonArray *refs = json_node_get_array (done);
          for (guint i = 0; i < json_array_get_length (refs); i++)
            {
              if (!resolve_item (list, json_array_get_element (refs, i), &position))
                {
                  desktop_plan_unrecognised (self);
                  return;
                }
              g_array_append_val (done_positions, position);
            }
        }
      else if (done != NULL && JSON_NODE_HOLDS_VALUE (done)
               && json_node_get_value_type (done) == G_TYPE_BOOLEAN)
        {
          /* done: true — the step in progress is done. */
          if (json_node_get_boolean (done))
            complete_in_progress (items);
        }
      else if (done != NULL)
        {
          if (!resolve_item (list, done, &position))
            {
              desktop_plan_unrecognised (self);
              return;
            }
          g_array_append_val (done_positions, position);
        }

      for (guint i = 0; i < done_positions->len; i++)
        {
          PdChecklistItem *item = g_ptr_array_index (items, g_array_index (done_positions, guint, i));
          item->status = PD_CHECKLIST_STATUS_COMPLETED;
        }

      if (start != NULL)
        {
          PdChecklistItem *item;

          if (!resolve_item (list, start, &position))
            {
              desktop_plan_unrecognised (self);
              return;
            }
          /* One step in progress at a time. */
          complete_in_progress (items);
          item = g_ptr_array_index (items, position);
          item->status = PD_CHECKLIST_STATUS_IN_PROGRESS;
        }
    }

  pd_checklist_replace_agent_items_cut (list, PD_CHECKLIST_ORIGIN_DESKTOP_PLAN, g_steal_pointer (&items),
                                        pd_checklist_get_n_hidden_agent_items (list));
  _pd_claude_applied (self);
}

static void
result_ccd_wrap_up (PdClaudeCodeReader *self)
{
  PdChecklist *list = _pd_claude_checklist (self);
  g_autoptr(GPtrArray) items = NULL;

  if (pd_checklist_get_origin (list) != PD_CHECKLIST_ORIGIN_DESKTOP_PLAN)
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }
  /* Completes the step in progress; open steps stay open. */
  items = copy_agent_items (list);
  complete_in_progress (items);
  pd_checklist_replace_agent_items_cut (list, PD_CHECKLIST_ORIGIN_DESKTOP_PLAN, g_steal_pointer (&items),
                                        pd_checklist_get_n_hidden_agent_items (list));
  _pd_claude_applied (self);
}

void
_pd_claude_handle_result (PdClaudeCodeReader *self,
                          Request            *request,
                          gboolean            is_error,
                          const char         *text,
                          JsonNode           *result)
{
  /* ExitPlanMode answers either way: rejected is a result too. */
  if (request->tool == TOOL_EXIT_PLAN_MODE)
    {
      result_exit_plan_mode (self, request, is_error || tool_use_result_is_error (result), result);
      return;
    }

  if (is_error || tool_use_result_is_error (result))
    {
      _pd_claude_stats (self)->ignored_updates++;
      return;
    }

  switch (request->tool)
    {
    case TOOL_TODO_WRITE:
      result_todo_write (self, request, result);
      break;
    case TOOL_TASK_CREATE:
      result_task_create (self, request, result, text);
      break;
    case TOOL_TASK_UPDATE:
      result_task_update (self, request, result, text);
      break;
    case TOOL_TASK_LIST:
      {
        JsonArray *tasks = pd_json_get_array (result_object (result), "tasks");
        if (tasks == NULL || !_pd_claude_apply_task_snapshot (self, tasks))
          _pd_claude_stats (self)->ignored_updates++;
      }
      break;
    case TOOL_CCD_UPDATE_PLAN:
      result_ccd_update_plan (self, request);
      break;
    case TOOL_CCD_WRAP_UP:
      result_ccd_wrap_up (self);
      break;
    case TOOL_EXIT_PLAN_MODE:
    case N_TOOLS:
    default:
      break;
    }
}

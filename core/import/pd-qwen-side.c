/* pd-qwen-side.c: Qwen Code's side file of a session's to-do list
 * (<.qwen>/todos/<id>.json), compared with the list the replay ended on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-json.h"
#include "pd-qwen-reader-private.h"

#define SIDE_FILE_MAX (4 * 1024 * 1024)

static const char * const content_members[] = { "content", NULL };

/* <.qwen>/todos, from <.qwen>/projects/<slug>/chats/<id>.jsonl. */
static char *
default_todos_dir (const char *path)
{
  g_autofree char *chats = g_path_get_dirname (path);
  g_autofree char *project = g_path_get_dirname (chats);
  g_autofree char *projects = g_path_get_dirname (project);
  g_autofree char *root = g_path_get_dirname (projects);
  g_autofree char *chats_name = g_path_get_basename (chats);
  g_autofree char *projects_name = g_path_get_basename (projects);

  if (strcmp (chats_name, "chats") != 0 || strcmp (projects_name, "projects") != 0)
    return NULL;
  return g_build_filename (root, "todos", NULL);
}

/* Compares the side file's list ({todos: [...]}, or the array alone) with
 * the checklist the replay ended on: texts and statuses in order. */
void
_pd_qwen_check_side_file (PdQwenReader *self)
{
  const char *id = pd_imported_session_get_id (self->session);
  g_autofree char *dir = self->todos_dir ? g_strdup (self->todos_dir) : default_todos_dir (self->path);
  g_autofree char *name = NULL;
  g_autofree char *file = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) items = NULL;
  PdChecklist *checklist = pd_imported_session_get_checklist (self->session);
  JsonArray *todos = NULL;
  gsize length;
  guint hidden = 0;

  self->side_check = PD_QWEN_SIDE_CHECK_NONE;
  /* The id names a file: only a plain one. */
  if (dir == NULL || id == NULL || *id == '\0' || strchr (id, '/') != NULL || id[0] == '.')
    return;
  name = g_strconcat (id, ".json", NULL);
  file = g_build_filename (dir, name, NULL);
  if (!g_file_test (file, G_FILE_TEST_EXISTS)
      || !_pd_import_read_file (file, SIDE_FILE_MAX, &contents, &length, NULL)
      || !(root = _pd_import_parse_json (contents, (gssize) length)))
    return;
  if (JSON_NODE_HOLDS_ARRAY (root))
    todos = json_node_get_array (root);
  else if (JSON_NODE_HOLDS_OBJECT (root))
    todos = pd_json_get_array (json_node_get_object (root), "todos");
  if (!(items = _pd_import_items_from_array_cut (todos, content_members, "id", &hidden)))
    return;

  self->side_check = PD_QWEN_SIDE_CHECK_AGREES;
  if (items->len != pd_checklist_get_n_agent_items (checklist)
      || hidden != pd_checklist_get_n_hidden_agent_items (checklist))
    self->side_check = PD_QWEN_SIDE_CHECK_DIFFERS;
  for (guint i = 0; self->side_check == PD_QWEN_SIDE_CHECK_AGREES && i < items->len; i++)
    {
      const PdChecklistItem *mine = pd_checklist_get_agent_item (checklist, i);
      const PdChecklistItem *theirs = g_ptr_array_index (items, i);

      if (strcmp (mine->text, theirs->text) != 0 || mine->status != theirs->status)
        self->side_check = PD_QWEN_SIDE_CHECK_DIFFERS;
    }
  if (self->side_check == PD_QWEN_SIDE_CHECK_DIFFERS)
    g_debug ("%s: Qwen's side file of the session holds another list than the replay ended on", self->path);
}

/* pd-opencode-parts.c: the part replay, without files or SQLite.
 *
 * OpenCode keeps a to-do list as the todowrite tool parts of a session;
 * both storage generations (the JSON tree and opencode.db) find them, and
 * this replays them, in order, into the session's checklist.
 * pd-opencode-reader.c reads the storage; pd-opencode-reader-private.h
 * declares what the two share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-json.h"
#include "pd-opencode-reader-private.h"

void
_pd_opencode_todo_part_free (PdOpenCodeTodoPart *part)
{
  g_free (part->id);
  g_free (part->status);
  g_clear_pointer (&part->list, _pd_import_list_free);
  g_free (part);
}

static int
compare_parts (gconstpointer a,
               gconstpointer b)
{
  const PdOpenCodeTodoPart *pa = *(PdOpenCodeTodoPart * const *) a;
  const PdOpenCodeTodoPart *pb = *(PdOpenCodeTodoPart * const *) b;

  if (pa->time != pb->time)
    return pa->time < pb->time ? -1 : 1;
  return g_strcmp0 (pa->id, pb->id);
}

/* Kilo Code's CLI keeps OpenCode's storage in its own folder
 * (~/.local/share/kilo, kilo.db): the same reader, its own name. */
PdImportSource
_pd_opencode_source_of (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);

  if (strcmp (base, "kilo.db") == 0 || strstr (path, "/kilo/storage/") != NULL)
    return PD_IMPORT_SOURCE_KILO_CLI;
  return PD_IMPORT_SOURCE_OPENCODE;
}

static const char * const todo_members[] = { "content", NULL };

/* A part, if it is a todowrite tool part. */
PdOpenCodeTodoPart *
_pd_opencode_todo_part_new (JsonNode   *node,
                            const char *fallback_id)
{
  JsonObject *object, *state;
  PdOpenCodeTodoPart *part;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  if (g_strcmp0 (pd_json_get_string (object, "type"), "tool") != 0
      || g_strcmp0 (pd_json_get_string (object, "tool"), "todowrite") != 0)
    return NULL;
  state = pd_json_get_object (object, "state");

  part = g_new0 (PdOpenCodeTodoPart, 1);
  part->time = pd_json_get_int (pd_json_get_object (state, "time"), "start", 0);
  part->id = g_strdup (pd_json_get_string (object, "id") ? pd_json_get_string (object, "id") : fallback_id);
  part->status = g_strdup (pd_json_get_string (state, "status"));
  /* Only a completed call changes the list; pending and running ones have
   * not happened yet. */
  if (g_strcmp0 (part->status, "completed") == 0)
    {
      JsonArray *todos = pd_json_get_array (pd_json_get_object (state, "input"), "todos");
      GPtrArray *items;
      guint hidden = 0;

      if (todos == NULL)
        todos = pd_json_get_array (pd_json_get_object (state, "metadata"), "todos");
      if ((items = _pd_import_items_from_array_cut (todos, todo_members, "id", &hidden)))
        part->list = _pd_import_list_new (items, hidden);
    }
  return part;
}

/* @pages (nullable): each applied list is a version of the plan there. */
void
_pd_opencode_replay_parts (PdImportedSession *session,
                           GPtrArray         *parts,
                           PdTranscriptPages *pages)
{
  PdImportStats *stats = pd_imported_session_get_stats (session);

  g_ptr_array_sort (parts, compare_parts);
  for (guint i = 0; i < parts->len; i++)
    {
      PdOpenCodeTodoPart *part = g_ptr_array_index (parts, i);

      if (part->time > 0)
        pd_imported_session_note_time (session, _pd_opencode_ms_to_us (part->time));
      if (g_strcmp0 (part->status, "completed") != 0)
        {
          if (g_strcmp0 (part->status, "error") == 0)
            stats->ignored_updates++;
          continue;
        }
      if (part->list == NULL)
        {
          stats->ignored_updates++;
          continue;
        }
      _pd_import_list_apply (part->list, pd_imported_session_get_checklist (session),
                             pd_imported_session_get_source (session) == PD_IMPORT_SOURCE_KILO_CLI
                             ? PD_CHECKLIST_ORIGIN_KILO_CLI_TODOS : PD_CHECKLIST_ORIGIN_OPENCODE_TODOS, FALSE);
      _pd_import_applied_update (session, pages, _pd_opencode_ms_to_us (part->time));
    }
}

void
_pd_opencode_set_session_info (PdImportedSession *session,
                               JsonObject        *info)
{
  JsonObject *time = pd_json_get_object (info, "time");
  const char *value;

  if ((value = pd_json_get_string (info, "id")))
    pd_imported_session_set_id (session, value);
  if ((value = pd_json_get_string (info, "title")))
    {
      g_autofree char *clean = _pd_import_clean_text (value);
      pd_imported_session_set_title (session, clean);
    }
  if ((value = pd_json_get_string (info, "directory")))
    pd_imported_session_set_cwd (session, value);
  pd_imported_session_note_time (session, _pd_opencode_ms_to_us (pd_json_get_int (time, "created", 0)));
  pd_imported_session_note_time (session, _pd_opencode_ms_to_us (pd_json_get_int (time, "updated", 0)));
}

/* Parts as stored (one JSON document each), replayed into @session: what
 * both storage generations do with the parts they found.  For the fuzz
 * target fuzz/fuzz-opencode-part.c and tests. */
void
_pd_opencode_replay_part_data (PdImportedSession  *session,
                               const char * const *data,
                               const gsize        *lengths,
                               guint               n)
{
  PdImportStats *stats = pd_imported_session_get_stats (session);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_opencode_todo_part_free);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();
      g_autofree char *fallback = g_strdup_printf ("prt_%u", i);
      PdOpenCodeTodoPart *part;

      stats->lines++;
      if (!g_utf8_validate (data[i], (gssize) lengths[i], NULL)
          || pd_json_nesting_exceeds (data[i], (gssize) lengths[i], PD_JSON_FOREIGN_MAX_DEPTH)
          || _pd_import_too_many_values (data[i], lengths[i])
          || !json_parser_load_from_data (parser, data[i], (gssize) lengths[i], NULL)
          || json_parser_get_root (parser) == NULL)
        {
          stats->skipped_lines++;
          continue;
        }
      if ((part = _pd_opencode_todo_part_new (json_parser_get_root (parser), fallback)))
        g_ptr_array_add (parts, part);
    }
  _pd_opencode_replay_parts (session, parts, NULL);
}

/* What the pages need of @object's member @name, an object: its members
 * @names (scalars only) copied into @into. */
static void
copy_scalars (JsonObject         *into,
              JsonObject         *object,
              const char * const *names)
{
  for (guint i = 0; object != NULL && names[i] != NULL; i++)
    {
      JsonNode *value = json_object_get_member (object, names[i]);

      if (value != NULL && JSON_NODE_HOLDS_VALUE (value))
        json_object_set_member (into, names[i], json_node_copy (value));
    }
}

JsonNode *
_pd_opencode_within_budget (PdImportBudget *budget,
                            JsonNode       *node,
                            gsize           length,
                            gsize          *bytes)
{
  static const char * const kept[] = { "id", "role", "type", "tool", "callID", "messageID", "sessionID", NULL };
  static const char * const times[] = { "created", "start", "end", NULL };
  static const char * const states[] = { "status", NULL };
  g_autoptr(JsonNode) owned = node;
  g_autoptr(JsonObject) stand_in = NULL;
  JsonObject *object, *state;
  gsize taken;

  if (node == NULL || budget == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return g_steal_pointer (&owned);
  taken = _pd_import_tree_bytes (node);
  if (_pd_import_budget_take (budget, taken))
    {
      *bytes += taken;
      return g_steal_pointer (&owned);
    }
  object = json_node_get_object (node);
  stand_in = json_object_new ();
  copy_scalars (stand_in, object, kept);
  if (pd_json_get_object (object, "time"))
    {
      JsonObject *time = json_object_new ();

      copy_scalars (time, pd_json_get_object (object, "time"), times);
      json_object_set_object_member (stand_in, "time", time);
    }
  if ((state = pd_json_get_object (object, "state")))
    {
      JsonObject *copy = json_object_new ();
      JsonObject *time = json_object_new ();

      copy_scalars (copy, state, states);
      copy_scalars (time, pd_json_get_object (state, "time"), times);
      json_object_set_object_member (copy, "time", time);
      json_object_set_object_member (stand_in, "state", copy);
    }
  if (g_strcmp0 (pd_json_get_string (object, "type"), "tool") == 0)
    json_object_set_int_member (stand_in, PD_OPENCODE_UNSHOWN_MEMBER, (gint64) length);
  else
    {
      json_object_set_string_member (stand_in, "type", PD_OPENCODE_OVER_BUDGET_PART);
      json_object_set_int_member (stand_in, "bytes", (gint64) length);
    }
  return json_node_init_object (json_node_alloc (), stand_in);
}

/* pd-session-reads-export.c: a session written out as JSON as it is read.
 *
 * `sessions export` of an imported session of 300,000 plan calls built
 * every message and every version of the plan as one tree, then as one
 * string (1.6 GB).  Here the document is written piece by piece: its
 * facts, then each message, then each version, then each event (as
 * `events --session` prints them, a long transcript's a part at a time),
 * then the plan documents.
 * The pieces are json-glib's own pretty text, each indented to its place,
 * so the bytes are those the whole tree gives.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include "pd-json.h"

#include <string.h>

#include "pd-import-index.h"
#include "pd-safe-text.h"
#include "pd-session-reads.h"
#include "pd-transcript-pages.h"

/* Stands in for an array's one element in the skeleton. */
#define HOLE "@@plandeck-export-hole@@"

typedef struct
{
  GOutputStream *out;
  GCancellable  *cancellable;
  gboolean       escape;
  GError        *error;
  guint          n_elements;
} Writer;

static void
put (Writer     *writer,
     const char *text,
     gsize       length)
{
  g_autofree char *escaped = NULL;

  if (writer->error != NULL || length == 0)
    return;
  if (writer->escape)
    {
      g_autofree char *piece = g_strndup (text, length);

      escaped = pd_safe_text_escape_json (piece);
      text = escaped;
      length = strlen (escaped);
    }
  g_output_stream_write_all (writer->out, text, length, NULL, writer->cancellable, &writer->error);
}

static void
put_string (Writer     *writer,
            const char *text)
{
  put (writer, text, strlen (text));
}

static char *
pretty (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, NULL);
}

/* One element of an array that is a member of the document's object: its
 * lines four spaces in, after a comma when it is not the first. */
static void
put_element (Writer   *writer,
             JsonNode *node)
{
  g_autofree char *text = pretty (node);
  const char *line = text;

  /* json-glib writes an empty array as "[]": the line break after the
   * bracket comes with the first element. */
  put_string (writer, writer->n_elements++ > 0 ? ",\n" : "\n");
  for (;;)
    {
      const char *end = strchr (line, '\n');

      put_string (writer, "    ");
      put (writer, line, end ? (gsize) (end - line) : strlen (line));
      if (end == NULL)
        break;
      put_string (writer, "\n");
      line = end + 1;
    }
}

static void
put_object_element (Writer     *writer,
                    JsonObject *object)   /* (transfer full) */
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  put_element (writer, node);
}

/* Ends an array written element by element: what follows the hole's line
 * up to @end, from its closing bracket when the array is empty. */
static void
end_elements (Writer     *writer,
              const char *after,
              const char *end)
{
  if (writer->n_elements > 0)
    put_string (writer, "\n");
  else
    after += strspn (after, " ");
  put (writer, after, end ? (gsize) (end - after) : strlen (after));
  writer->n_elements = 0;
}

static JsonObject *
version_entry (const PdPlanVersionInfo *version)
{
  JsonObject *entry = json_object_new ();
  g_autofree char *stamp = pd_session_time_to_string (version->created_at);
  JsonNode *state = pd_json_from_string_bounded (version->state_json, NULL);

  json_object_set_int_member (entry, "version", version->version);
  json_object_set_string_member (entry, "created_at", stamp ? stamp : "");
  /* An imported agent's cancelled item says so, as the window shows it
   * (the plan's words call it blocked; the summary counts it out). */
  pd_transcript_pages_state_show_cancelled (state);
  /* A stored state that does not read (refused, too deep) is null. */
  json_object_set_member (entry, "state", state ? state : json_node_new (JSON_NODE_NULL));
  return entry;
}

static void
on_message (JsonObject *message,
            gpointer    user_data)
{
  put_object_element (user_data, message);
}

static void
on_version (PdPlanVersionInfo *version,
            gpointer           user_data)
{
  put_object_element (user_data, version_entry (version));
  pd_plan_version_info_free (version);
}

/* An event's envelope as an element of "events"; FALSE stops a read
 * that failed to write. */
static gboolean
on_event (const PdStoredEvent *event,
          gpointer             user_data)
{
  Writer *writer = user_data;
  g_autoptr(JsonNode) node = json_from_string (event->event_json, NULL);

  if (node != NULL)
    put_element (writer, node);
  return writer->error == NULL;
}

/* The document with each streamed array holding HOLE: its text before the
 * line of the hole of @member, and after it. */
static char *
skeleton (const PdSessionInfo *info,
          JsonNode            *checklist,
          GPtrArray           *documents)
{
  JsonObject *object = pd_session_info_to_json (info, FALSE);
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonArray *messages = json_array_new ();
  JsonArray *versions = json_array_new ();
  JsonArray *events = json_array_new ();

  json_array_add_string_element (messages, HOLE);
  json_array_add_string_element (versions, HOLE);
  json_array_add_string_element (events, HOLE);
  /* Another agent's checklist as the user sees it: "plan" counts the
   * user's own items and ticks, which the agent's versions never hold. */
  if (checklist != NULL)
    json_object_set_member (object, "checklist", json_node_copy (checklist));
  json_object_set_array_member (object, "messages", messages);
  json_object_set_array_member (object, "plan_versions", versions);
  /* The timeline: what `events --session` prints, each envelope whole. */
  json_object_set_array_member (object, "events", events);
  /* Another agent's plan documents (ExitPlanMode, proposed plans). */
  if (documents != NULL && documents->len > 0)
    {
      JsonArray *array = json_array_new ();

      for (guint i = 0; i < documents->len; i++)
        {
          const PdArtifactPlan *plan = g_ptr_array_index (documents, i);
          JsonObject *entry = json_object_new ();
          g_autofree char *stamp = plan->time > 0 ? pd_session_time_to_string (plan->time) : NULL;

          json_object_set_string_member (entry, "id", plan->id ? plan->id : "");
          json_object_set_string_member (entry, "status", pd_artifact_plan_status_to_string (plan->status));
          if (stamp)
            json_object_set_string_member (entry, "created_at", stamp);
          json_object_set_string_member (entry, "markdown", plan->markdown);
          json_array_add_object_element (array, entry);
        }
      json_object_set_array_member (object, "plan_documents", array);
    }
  json_node_take_object (root, object);
  return pretty (root);
}

/* In @text, the @n-th hole (from 0): *@line just after its array's
 * bracket, *@after the start of the line after the hole's. */
static void
find_hole (const char  *text,
           guint        n,
           const char **line,
           const char **after)
{
  /* The hole's own line, after the array's bracket: no member's text. */
  static const char pattern[] = "[\n    \"" HOLE "\"\n";
  const char *hole = text;

  for (guint i = 0; i <= n; i++)
    hole = strstr (i == 0 ? hole : hole + 1, pattern);
  g_assert (hole != NULL);
  *line = hole + 1;
  *after = hole + strlen (pattern);
}

gboolean
pd_session_reads_foreach_message (PdSessionStore            *store,
                                  const char                *id,
                                  PdSessionReadsMessageFunc  func,
                                  gpointer                   user_data,
                                  GCancellable              *cancellable,
                                  GError                   **error)
{
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(JsonArray) messages = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (id != NULL && func != NULL, FALSE);

  if (!(info = pd_session_reads_get (store, id, error)))
    return FALSE;
  if (pd_session_info_is_imported (info) && _pd_session_reads_is_long (store, id))
    {
      g_autoptr(PdTranscriptPages) pages = pd_import_index_stream_messages (store, id, func, user_data,
                                                                            cancellable, error);

      return pages != NULL;
    }
  /* An imported session read whole: a message at a time from its pages' text,
   * never the whole conversation as one tree (many times its text). */
  if (pd_session_info_is_imported (info))
    {
      g_autoptr(PdTranscriptPages) pages = pd_import_index_load_pages (store, id, cancellable, error);

      if (pages == NULL)
        return FALSE;
      pd_transcript_pages_foreach_message (pages, func, user_data);
      return TRUE;
    }
  if (!(messages = pd_session_reads_load_messages (store, id, error)))
    return FALSE;
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);

      if (JSON_NODE_HOLDS_OBJECT (node))
        func (json_object_ref (json_node_get_object (node)), user_data);
    }
  return TRUE;
}

gboolean
pd_session_reads_export_json (PdSessionStore  *store,
                              const char      *id,
                              GOutputStream   *out,
                              gboolean         escape,
                              GCancellable    *cancellable,
                              GError         **error)
{
  Writer writer = { out, cancellable, escape, NULL, 0 };
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) documents = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  g_autofree char *checklist_json = NULL;
  g_autoptr(JsonNode) checklist = NULL;
  g_autofree char *head = NULL;
  g_autofree char *tail = NULL;
  const char *line, *after, *line2, *after2, *line3, *after3;
  gboolean stream;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (id != NULL && G_IS_OUTPUT_STREAM (out), FALSE);

  if (!(info = pd_session_reads_get (store, id, error)))
    return FALSE;
  /* A long transcript is read twice, handed on as it is read; anything
   * else as before, whole (its pages are bounded by the same length). */
  stream = pd_session_info_is_imported (info) && _pd_session_reads_is_long (store, id);
  /* An imported session read whole: its messages written a message at a
   * time from its pages' text (as one tree: many times its text). */
  if (!stream && pd_session_info_is_imported (info))
    whole = pd_import_index_load_pages (store, id, cancellable, error);
  if (!stream
      && ((pd_session_info_is_imported (info) ? whole == NULL
                                              : !(messages = pd_session_reads_load_messages (store, id, error)))
          || !(versions = pd_session_reads_list_all_plan_versions (store, id, error))
          || !(documents = pd_session_reads_list_plan_documents (store, id, error))))
    return FALSE;
  if (!pd_session_reads_get_checklist_json (store, id, &checklist_json, error))
    return FALSE;
  checklist = checklist_json ? pd_json_from_string_bounded (checklist_json, NULL) : NULL;

  /* Up to the messages: nothing in it depends on what follows. */
  head = skeleton (info, checklist, documents);
  find_hole (head, 0, &line, &after);
  put (&writer, head, (gsize) (line - head));
  find_hole (head, 1, &line2, &after2);

  if (stream)
    {
      if (!(pages = pd_import_index_stream_messages (store, id, on_message, &writer, cancellable, error)))
        return FALSE;
      g_clear_object (&pages);
    }
  else if (whole != NULL)
    pd_transcript_pages_foreach_message (whole, on_message, &writer);
  else
    for (guint i = 0; i < json_array_get_length (messages); i++)
      put_element (&writer, json_array_get_element (messages, i));
  end_elements (&writer, after, line2);

  if (stream)
    {
      if (!(pages = pd_import_index_stream_versions (store, id, on_version, &writer, cancellable, error)))
        return FALSE;
      documents = pd_transcript_pages_dup_plan_documents (pages);
    }
  else
    for (guint i = 0; i < versions->len; i++)
      put_object_element (&writer, version_entry (g_ptr_array_index (versions, i)));
  /* The plan documents are known once read. */
  tail = skeleton (info, checklist, documents);
  find_hole (tail, 1, &line2, &after2);
  find_hole (tail, 2, &line3, &after3);
  end_elements (&writer, after2, line3);

  if (!pd_session_reads_foreach_event (store, id, NULL, 0, on_event, &writer, cancellable, error))
    {
      g_clear_error (&writer.error);
      return FALSE;
    }
  end_elements (&writer, after3, NULL);
  put_string (&writer, "\n");

  if (writer.error == NULL)
    g_output_stream_flush (out, cancellable, &writer.error);
  if (writer.error != NULL)
    {
      g_propagate_error (error, writer.error);
      return FALSE;
    }
  return TRUE;
}

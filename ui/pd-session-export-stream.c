/* pd-session-export-stream.c: a session of this computer's database
 * exported as it is read
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's Export read a session through its PdSource, whole (every
 * message and version in one tree), then built the document's text whole
 * before writing it: for an imported transcript of 300,000 plan calls that
 * is gigabytes.  A session of a database of this computer is written here
 * instead, in a worker thread, straight to the file as it is read: JSON
 * through the path `plandeck-agent sessions export` takes
 * (pd_local_source_export_json()), Markdown a message at a time, a long
 * imported transcript's messages handed on as they are read
 * (pd_local_source_foreach_message()); its facts and newest plan version
 * come through the source as before.  The document is the same.  An
 * endpoint's sessions are still read through the source, whole.
 */
#define G_LOG_DOMAIN "pd-session-export"

#include "config.h"

#include <errno.h>

#include <glib/gstdio.h>

#include "pd-multi-source.h"
#include "pd-session-export-private.h"

/* Text gathered before it is written. */
#define WRITE_CHUNK (64 * 1024)

PdLocalSource *
_pd_session_export_local_source (PdSource    *source,
                                 const char  *session_id,
                                 char       **local_id)
{
  PdSource *owner = source;
  g_autofree char *id = g_strdup (session_id);

  *local_id = NULL;
  if (PD_IS_MULTI_SOURCE (source))
    {
      g_clear_pointer (&id, g_free);
      owner = pd_multi_source_resolve (PD_MULTI_SOURCE (source), session_id, &id);
    }
  if (owner == NULL || !PD_IS_LOCAL_SOURCE (owner) || id == NULL)
    return NULL;
  *local_id = g_steal_pointer (&id);
  return g_object_ref (PD_LOCAL_SOURCE (owner));
}

typedef struct
{
  GOutputStream *out;
  GCancellable  *cancellable;
  GString       *text;
  GError        *error;
} Writer;

static void
writer_flush (Writer *writer)
{
  if (writer->error == NULL && writer->text->len > 0)
    g_output_stream_write_all (writer->out, writer->text->str, writer->text->len, NULL,
                               writer->cancellable, &writer->error);
  g_string_truncate (writer->text, 0);
}

static void
on_message (JsonObject *message,
            gpointer    user_data)
{
  Writer *writer = user_data;

  if (writer->error == NULL)
    _pd_session_export_markdown_message (writer->text, message);
  json_object_unref (message);
  if (writer->text->len >= WRITE_CHUNK)
    writer_flush (writer);
}

typedef struct
{
  Writer   *writer;
  gboolean  first;
} EventWriter;

static gboolean
on_event (const PdStoredEvent *event,
          gpointer             user_data)
{
  EventWriter *events = user_data;

  _pd_session_export_markdown_event (events->writer->text, event, events->first);
  events->first = FALSE;
  if (events->writer->text->len >= WRITE_CHUNK)
    writer_flush (events->writer);
  return events->writer->error == NULL;
}

/* The Markdown of @data's session: the head from what the source gave
 * (its facts, its newest plan version), then each message as read. */
static gboolean
write_markdown (ExportData     *data,
                GOutputStream  *out,
                GCancellable   *cancellable,
                GError        **error)
{
  g_autoptr(GString) text = g_string_new (NULL);
  Writer writer = { out, cancellable, text, NULL };
  GPtrArray *versions = data->versions;

  /* Another agent's checklist as the user sees it, not its newest
   * version: the user's ticks and own items are in it. */
  if (!pd_local_source_get_checklist_json (data->local, data->local_id, &data->checklist_json, error))
    return FALSE;
  _pd_session_export_markdown_head (text, data->info, versions != NULL && versions->len > 0
                                                      ? g_ptr_array_index (versions, versions->len - 1) : NULL,
                                    data->checklist_json);
  writer_flush (&writer);
  if (!pd_local_source_foreach_message (data->local, data->local_id, on_message, &writer, cancellable, error))
    {
      g_clear_error (&writer.error);
      return FALSE;
    }
  /* Then the timeline, as `events --session` reads it (a long
   * transcript's a part at a time): the export left it out. */
  {
    EventWriter events = { &writer, TRUE };

    if (!pd_local_source_foreach_event (data->local, data->local_id, on_event, &events, cancellable, error))
      {
        g_clear_error (&writer.error);
        return FALSE;
      }
  }
  writer_flush (&writer);
  if (writer.error != NULL)
    {
      g_propagate_error (error, writer.error);
      return FALSE;
    }
  return TRUE;
}

void
_pd_session_export_stream_thread (GTask        *task,
                                  gpointer      source_object,
                                  gpointer      task_data,
                                  GCancellable *cancellable)
{
  ExportData *data = task_data;
  const char *path = g_file_peek_path (data->file);
  g_autoptr(GFileOutputStream) out = NULL;
  GError *error = NULL;
  gboolean existed = FALSE;
  guint mode = 0;
  gboolean ok;

  if (!_pd_session_export_check_target (data->file, &existed, &mode, &error)
      || !(out = g_file_replace (data->file, NULL, FALSE, G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION,
                                 cancellable, &error)))
    {
      g_task_return_error (task, error);
      return;
    }
  ok = data->format == PD_SESSION_EXPORT_JSON
    ? pd_local_source_export_json (data->local, data->local_id, G_OUTPUT_STREAM (out), cancellable, &error)
    : write_markdown (data, G_OUTPUT_STREAM (out), cancellable, &error);
  if (!ok)
    {
      /* Closed cancelled: the file written over is left as it was. */
      g_autoptr(GCancellable) abandon = g_cancellable_new ();

      g_cancellable_cancel (abandon);
      g_output_stream_close (G_OUTPUT_STREAM (out), abandon, NULL);
      g_task_return_error (task, error);
      return;
    }
  if (!g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (existed && path != NULL && g_chmod (path, (int) mode) != 0)
    g_debug ("Could not keep the mode of %s: %s", path, g_strerror (errno));
  g_task_return_boolean (task, TRUE);
}

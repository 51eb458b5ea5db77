/* pd-bounded-reply.c: a request whose reply is read up to a size and within
 * a time (see pd-bounded-reply.h).
 *
 * soup_session_send_and_read_async() reads a reply whole, however long it
 * is, and libsoup's timeout counts only idle time: a server that answered
 * with an endless body made the window hold gigabytes within a minute.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"
#include <glib/gi18n-lib.h>
#include "pd-bounded-reply.h"

#define READ_CHUNK (64 * 1024)

typedef struct
{
  GInputStream *stream;
  GByteArray   *body;
  gsize         max_bytes;
  guint         max_seconds;
  /* Cancelled by the caller's cancellable or by the deadline: one handle
   * on everything in flight. */
  GCancellable *cancellable;
  GCancellable *caller;
  gulong        caller_handler;
  GSource      *deadline;
  gboolean      timed_out;
} Reply;

static void
reply_free (Reply *reply)
{
  if (reply->caller_handler != 0)
    g_cancellable_disconnect (reply->caller, reply->caller_handler);
  if (reply->deadline != NULL)
    {
      g_source_destroy (reply->deadline);
      g_source_unref (reply->deadline);
    }
  /* Whatever is left of the body is dropped with the connection, not
   * drained: the cancellable stops libsoup's reading first. */
  g_cancellable_cancel (reply->cancellable);
  g_clear_object (&reply->stream);
  g_clear_object (&reply->caller);
  g_clear_object (&reply->cancellable);
  if (reply->body != NULL)
    g_byte_array_unref (reply->body);
  g_free (reply);
}

static void
on_caller_cancelled (GCancellable *caller,
                     gpointer      user_data)
{
  g_cancellable_cancel (user_data);
}

static gboolean
on_deadline (gpointer user_data)
{
  Reply *reply = user_data;

  reply->timed_out = TRUE;
  g_cancellable_cancel (reply->cancellable);
  return G_SOURCE_REMOVE;
}

/* @error (taken) as the task's answer, saying why when the reply was cut
 * by the deadline rather than by the caller. */
static void
return_error (GTask  *task,
              GError *error)
{
  Reply *reply = g_task_get_task_data (task);

  if (reply->timed_out && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_error (&error);
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           _("The reply did not come whole within %u seconds"), reply->max_seconds);
    }
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
return_too_large (GTask *task)
{
  Reply *reply = g_task_get_task_data (task);

  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                           _("The reply is larger than %u MiB; it was not read"),
                           (guint) (reply->max_bytes / (1024 * 1024)));
  g_object_unref (task);
}

static void read_next (GTask *task);

static void
on_read (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  Reply *reply = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  gsize size;

  if (bytes == NULL)
    {
      return_error (task, error);
      return;
    }
  size = g_bytes_get_size (bytes);
  if (size == 0)
    {
      g_task_return_pointer (task, g_byte_array_free_to_bytes (g_steal_pointer (&reply->body)),
                             (GDestroyNotify) g_bytes_unref);
      g_object_unref (task);
      return;
    }
  if (size > reply->max_bytes - reply->body->len)
    {
      return_too_large (task);
      return;
    }
  g_byte_array_append (reply->body, g_bytes_get_data (bytes, NULL), size);
  read_next (task);
}

static void
read_next (GTask *task)
{
  Reply *reply = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (reply->stream, READ_CHUNK, G_PRIORITY_DEFAULT, reply->cancellable, on_read, task);
}

static void
on_sent (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  Reply *reply = g_task_get_task_data (task);
  SoupMessage *msg = g_task_get_source_object (task);
  SoupMessageHeaders *headers;
  GError *error = NULL;

  reply->stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (reply->stream == NULL)
    {
      return_error (task, error);
      return;
    }
  /* A length said in advance that is too long is refused unread. */
  headers = soup_message_get_response_headers (msg);
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > (goffset) reply->max_bytes)
    {
      return_too_large (task);
      return;
    }
  reply->body = g_byte_array_new ();
  read_next (task);
}

/**
 * pd_bounded_reply_send_async:
 * @max_bytes: the most of the body read; a longer one is an error
 *   (%G_IO_ERROR_MESSAGE_TOO_LARGE) and the connection is dropped
 * @max_seconds: the time from sending to the end of the body; past it,
 *   %G_IO_ERROR_TIMED_OUT
 *
 * Sends @msg through @session and reads its whole reply, within bounds.
 * The callback's source object is @msg.
 */
void
pd_bounded_reply_send_async (SoupSession         *session,
                             SoupMessage         *msg,
                             gsize                max_bytes,
                             guint                max_seconds,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task = g_task_new (msg, cancellable, callback, user_data);
  Reply *reply = g_new0 (Reply, 1);

  g_return_if_fail (max_bytes > 0 && max_seconds > 0);

  g_task_set_source_tag (task, pd_bounded_reply_send_async);
  /* The caller's cancellation reaches us through reply->cancellable, and
   * is answered as such: no second check. */
  g_task_set_check_cancellable (task, FALSE);
  reply->max_bytes = max_bytes;
  reply->max_seconds = max_seconds;
  reply->cancellable = g_cancellable_new ();
  g_task_set_task_data (task, reply, (GDestroyNotify) reply_free);
  if (cancellable != NULL)
    {
      reply->caller = g_object_ref (cancellable);
      reply->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                     reply->cancellable, NULL);
    }
  reply->deadline = g_timeout_source_new (max_seconds * 1000);
  g_source_set_callback (reply->deadline, on_deadline, reply, NULL);
  g_source_attach (reply->deadline, g_main_context_get_thread_default ());

  soup_session_send_async (session, msg, G_PRIORITY_DEFAULT, reply->cancellable, on_sent, task);
}

/**
 * pd_bounded_reply_send_finish:
 *
 * Returns: (transfer full): the reply's body, or %NULL with @error set
 */
GBytes *
pd_bounded_reply_send_finish (SoupMessage   *msg,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, msg), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

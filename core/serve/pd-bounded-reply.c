/* pd-bounded-reply.c: a request whose reply is read up to a size and within
 * a time (see pd-bounded-reply.h).
 *
 * soup_session_send_and_read_async() reads a reply whole, however long it
 * is, and libsoup's timeout counts only idle time: a server that answered
 * with an endless body made the window hold gigabytes within a minute, and
 * one that sent a byte a second was read for as long as it liked.
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
  /* Cancelled by the caller's cancellable or by the deadline: one handle
   * on everything in flight. */
  GCancellable *cancellable;
  GCancellable *caller;
  gulong        caller_handler;
  GSource      *deadline;
  gboolean      timed_out;
  /* The pace (pd-bounded-reply.h), from the request's start on its
   * connection (SoupMessage::starting), which libsoup may send again (a
   * kept connection the server had closed): counted from the last. */
  SoupMessage  *msg;
  gulong        starting_handler;
  PdReplyPace   pace;
  gint64        started;     /* monotonic µs; 0 while queued */
  GSource      *pace_timer;
  gboolean      too_slow;
} Reply;

static void
clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}

static void
reply_free (Reply *reply)
{
  if (reply->caller_handler != 0)
    g_cancellable_disconnect (reply->caller, reply->caller_handler);
  clear_source (&reply->deadline);
  clear_source (&reply->pace_timer);
  g_clear_signal_handler (&reply->starting_handler, reply->msg);
  g_clear_object (&reply->msg);
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

static void arm_pace (Reply *reply,
                      gint64 delay_ms);

/* The reply's time is up unless what came of it buys more: first_ms, and
 * a second for each min_rate bytes.  Cancelling drops the connection, so
 * the next request waiting for one is not held. */
static gboolean
on_pace (gpointer user_data)
{
  Reply *reply = user_data;
  gint64 elapsed_ms = (g_get_monotonic_time () - reply->started) / 1000;
  gint64 allowed_ms = reply->pace.first_ms;

  g_clear_pointer (&reply->pace_timer, g_source_unref);
  if (reply->pace.min_rate > 0 && reply->body != NULL)
    allowed_ms += (gint64) reply->body->len * 1000 / reply->pace.min_rate;
  if (elapsed_ms < allowed_ms)
    {
      arm_pace (reply, allowed_ms - elapsed_ms);
      return G_SOURCE_REMOVE;
    }
  reply->too_slow = TRUE;
  g_cancellable_cancel (reply->cancellable);
  return G_SOURCE_REMOVE;
}

static void
arm_pace (Reply *reply,
          gint64 delay_ms)
{
  clear_source (&reply->pace_timer);
  reply->pace_timer = g_timeout_source_new ((guint) CLAMP (delay_ms, 1, G_MAXUINT));
  g_source_set_callback (reply->pace_timer, on_pace, reply, NULL);
  g_source_attach (reply->pace_timer, g_main_context_get_thread_default ());
}

static void
on_starting (SoupMessage *msg,
             gpointer     user_data)
{
  Reply *reply = user_data;

  reply->started = g_get_monotonic_time ();
  arm_pace (reply, reply->pace.first_ms);
}

/* @error (taken) as the task's answer, saying why when the reply was cut
 * by the deadline rather than by the caller. */
static void
return_error (GTask  *task,
              GError *error)
{
  Reply *reply = g_task_get_task_data (task);

  if (reply->too_slow && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *size = g_format_size (reply->body != NULL ? reply->body->len : 0);
      double seconds = (g_get_monotonic_time () - reply->started) / (double) G_USEC_PER_SEC;

      g_clear_error (&error);
      /* The body's bytes: before the headers came, none. */
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           _("%s of the reply came in %.1f s"), size, seconds);
    }
  else if (reply->timed_out && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_error (&error);
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           _("The reply did not come whole within %u seconds"), reply->pace.max_seconds);
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
 * @pace: how fast the reply must come (#PdReplyPace); a slower one is
 *   %G_IO_ERROR_TIMED_OUT and its connection is dropped
 *
 * Sends @msg through @session and reads its whole reply, within bounds.
 * The callback's source object is @msg.
 */
void
pd_bounded_reply_send_async (SoupSession         *session,
                             SoupMessage         *msg,
                             gsize                max_bytes,
                             const PdReplyPace   *pace,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task = g_task_new (msg, cancellable, callback, user_data);
  Reply *reply = g_new0 (Reply, 1);

  g_return_if_fail (max_bytes > 0 && pace->max_seconds > 0 && pace->first_ms > 0);

  g_task_set_source_tag (task, pd_bounded_reply_send_async);
  /* The caller's cancellation reaches us through reply->cancellable, and
   * is answered as such: no second check. */
  g_task_set_check_cancellable (task, FALSE);
  reply->max_bytes = max_bytes;
  reply->pace = *pace;
  reply->msg = g_object_ref (msg);
  reply->starting_handler = g_signal_connect (msg, "starting", G_CALLBACK (on_starting), reply);
  reply->cancellable = g_cancellable_new ();
  g_task_set_task_data (task, reply, (GDestroyNotify) reply_free);
  if (cancellable != NULL)
    {
      reply->caller = g_object_ref (cancellable);
      reply->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                     reply->cancellable, NULL);
    }
  reply->deadline = g_timeout_source_new (pace->max_seconds * 1000);
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

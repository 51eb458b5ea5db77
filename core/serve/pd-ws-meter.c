/* pd-ws-meter.c: a WebSocket's incoming bytes, with a cap on a whole
 * message.
 *
 * libsoup 3.2 caps each frame (max-incoming-payload-size) but not a message
 * sent as many fragments: it appends every continuation frame to the
 * message until the last one comes, so a client can send 8 MiB fragments
 * without end and the server's memory grows with them (libsoup added
 * max-total-message-size in 3.6, "websocket: add a way to restrict the
 * total message size").  Debian 12 has 3.2, so `serve` puts this stream
 * between the socket and libsoup's SoupWebsocketConnection: it reads the
 * frame headers as the bytes go by (nothing is copied or unmasked), adds
 * up the payloads of each data message, and fails the read once a message
 * would pass the cap.  libsoup then closes the connection, as it does for a
 * frame too large.
 *
 * PdWsMeter is the GIOStream (the socket's output stream as is, and a
 * metered input); PdWsMeterInput the pollable input stream.  Both private
 * to `serve`; everything on the server's thread, as libsoup uses them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-server-private.h"

/* ---------------------------------------------------------------------- */
/* The input                                                              */

#define PD_TYPE_WS_METER_INPUT (pd_ws_meter_input_get_type ())
G_DECLARE_FINAL_TYPE (PdWsMeterInput, pd_ws_meter_input, PD, WS_METER_INPUT, GInputStream)

struct _PdWsMeterInput
{
  GInputStream   parent_instance;
  GInputStream  *base;          /* pollable */
  guint64        max_message;

  /* Where the reader is in the stream of frames. */
  guint8         header[14];
  guint          header_len;    /* bytes of the current header read */
  guint64        payload_left;  /* bytes of the current payload still to come */
  guint64        message;       /* payload of the data message so far */
  gboolean       over;          /* the cap was passed: every read fails */
};

static void pd_ws_meter_input_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdWsMeterInput, pd_ws_meter_input, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM, pd_ws_meter_input_pollable_init))

/* How long a header that begins with @header is: 2 to 14 bytes. */
static guint
header_size (const guint8 *header)
{
  guint len7 = header[1] & 0x7f;

  return 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + ((header[1] & 0x80) ? 4 : 0);
}

static guint64
payload_size (const guint8 *header)
{
  guint len7 = header[1] & 0x7f;
  guint64 size = 0;

  if (len7 < 126)
    return len7;
  for (guint i = 0; i < (len7 == 126 ? 2u : 8u); i++)
    size = (size << 8) | header[2 + i];
  return size;
}

/* Follows the frames through @data; FALSE once a message passes the cap. */
static gboolean
meter (PdWsMeterInput *self,
       const guint8   *data,
       gsize           len)
{
  while (len > 0)
    {
      if (self->payload_left > 0)
        {
          guint64 skip = MIN (self->payload_left, len);

          self->payload_left -= skip;
          data += skip;
          len -= skip;
          continue;
        }

      self->header[self->header_len++] = *data++;
      len--;
      if (self->header_len < 2 || self->header_len < header_size (self->header))
        continue;

      /* A whole header. */
      {
        guint opcode = self->header[0] & 0x0f;
        guint64 payload = payload_size (self->header);

        if ((opcode & 0x08) == 0)
          {
            /* A data frame: a new message (text, binary) or more of one
             * (continuation, opcode 0). */
            self->message = opcode != 0 ? payload : self->message + MIN (payload, G_MAXUINT64 - self->message);
            if (self->message > self->max_message)
              return FALSE;
          }
        self->payload_left = payload;
        self->header_len = 0;
      }
    }
  return TRUE;
}

static gssize
metered (PdWsMeterInput *self,
         void           *buffer,
         gssize          n,
         GError        **error)
{
  if (n > 0 && !meter (self, buffer, (gsize) n))
    {
      self->over = TRUE;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   "a WebSocket message of more than %" G_GUINT64_FORMAT " bytes", self->max_message);
      return -1;
    }
  return n;
}

static gboolean
refuse_if_over (PdWsMeterInput  *self,
                GError         **error)
{
  if (!self->over)
    return FALSE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "a WebSocket message too large");
  return TRUE;
}

static gssize
pd_ws_meter_input_read (GInputStream  *stream,
                        void          *buffer,
                        gsize          count,
                        GCancellable  *cancellable,
                        GError       **error)
{
  PdWsMeterInput *self = PD_WS_METER_INPUT (stream);

  if (refuse_if_over (self, error))
    return -1;
  return metered (self, buffer, g_input_stream_read (self->base, buffer, count, cancellable, error), error);
}

static gboolean
pd_ws_meter_input_close (GInputStream  *stream,
                         GCancellable  *cancellable,
                         GError       **error)
{
  return g_input_stream_close (PD_WS_METER_INPUT (stream)->base, cancellable, error);
}

static gboolean
pd_ws_meter_input_can_poll (GPollableInputStream *stream)
{
  return TRUE;
}

static gboolean
pd_ws_meter_input_is_readable (GPollableInputStream *stream)
{
  PdWsMeterInput *self = PD_WS_METER_INPUT (stream);

  return self->over || g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (self->base));
}

static GSource *
pd_ws_meter_input_create_source (GPollableInputStream *stream,
                                 GCancellable         *cancellable)
{
  PdWsMeterInput *self = PD_WS_METER_INPUT (stream);
  g_autoptr(GSource) base = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->base), NULL);

  return g_pollable_source_new_full (stream, base, cancellable);
}

static gssize
pd_ws_meter_input_read_nonblocking (GPollableInputStream  *stream,
                                    void                  *buffer,
                                    gsize                  count,
                                    GError               **error)
{
  PdWsMeterInput *self = PD_WS_METER_INPUT (stream);

  if (refuse_if_over (self, error))
    return -1;
  return metered (self, buffer,
                  g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->base), buffer, count,
                                                            NULL, error),
                  error);
}

static void
pd_ws_meter_input_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->can_poll = pd_ws_meter_input_can_poll;
  iface->is_readable = pd_ws_meter_input_is_readable;
  iface->create_source = pd_ws_meter_input_create_source;
  iface->read_nonblocking = pd_ws_meter_input_read_nonblocking;
}

static void
pd_ws_meter_input_finalize (GObject *object)
{
  g_clear_object (&PD_WS_METER_INPUT (object)->base);
  G_OBJECT_CLASS (pd_ws_meter_input_parent_class)->finalize (object);
}

static void
pd_ws_meter_input_class_init (PdWsMeterInputClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_ws_meter_input_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = pd_ws_meter_input_read;
  G_INPUT_STREAM_CLASS (klass)->close_fn = pd_ws_meter_input_close;
}

static void
pd_ws_meter_input_init (PdWsMeterInput *self)
{
}

/* ---------------------------------------------------------------------- */
/* The stream                                                             */

#define PD_TYPE_WS_METER (pd_ws_meter_get_type ())
G_DECLARE_FINAL_TYPE (PdWsMeter, pd_ws_meter, PD, WS_METER, GIOStream)

struct _PdWsMeter
{
  GIOStream       parent_instance;
  GIOStream      *base;
  PdWsMeterInput *input;
};

G_DEFINE_FINAL_TYPE (PdWsMeter, pd_ws_meter, G_TYPE_IO_STREAM)

static GInputStream *
pd_ws_meter_get_input_stream (GIOStream *stream)
{
  return G_INPUT_STREAM (PD_WS_METER (stream)->input);
}

static GOutputStream *
pd_ws_meter_get_output_stream (GIOStream *stream)
{
  return g_io_stream_get_output_stream (PD_WS_METER (stream)->base);
}

/* Closes the socket itself: the base stream's close does both directions. */
static gboolean
pd_ws_meter_close (GIOStream     *stream,
                   GCancellable  *cancellable,
                   GError       **error)
{
  return g_io_stream_close (PD_WS_METER (stream)->base, cancellable, error);
}

static void
pd_ws_meter_finalize (GObject *object)
{
  PdWsMeter *self = PD_WS_METER (object);

  g_clear_object (&self->input);
  g_clear_object (&self->base);
  G_OBJECT_CLASS (pd_ws_meter_parent_class)->finalize (object);
}

static void
pd_ws_meter_class_init (PdWsMeterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_ws_meter_finalize;
  G_IO_STREAM_CLASS (klass)->get_input_stream = pd_ws_meter_get_input_stream;
  G_IO_STREAM_CLASS (klass)->get_output_stream = pd_ws_meter_get_output_stream;
  G_IO_STREAM_CLASS (klass)->close_fn = pd_ws_meter_close;
}

static void
pd_ws_meter_init (PdWsMeter *self)
{
}

/**
 * _pd_ws_meter_new:
 * @base: the connection libsoup handed over after the handshake; its input
 *   and output streams are pollable
 * @max_message: the most a message (all its fragments) may carry
 *
 * Returns: (transfer full): @base, with every message measured as it comes
 */
GIOStream *
_pd_ws_meter_new (GIOStream *base,
                  guint64    max_message)
{
  PdWsMeter *self = g_object_new (PD_TYPE_WS_METER, NULL);

  self->base = g_object_ref (base);
  self->input = g_object_new (PD_TYPE_WS_METER_INPUT, NULL);
  self->input->base = g_object_ref (g_io_stream_get_input_stream (base));
  self->input->max_message = max_message;
  return G_IO_STREAM (self);
}

/* pd-fuzz-stream.h: an input stream over bytes that returns them a few at a
 * time, so that a reader's lines, CR/LF pairs and UTF-8 sequences are cut
 * between reads where the fuzzer decides.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <gio/gio.h>

#define PD_TYPE_FUZZ_STREAM (pd_fuzz_stream_get_type ())
G_DECLARE_FINAL_TYPE (PdFuzzStream, pd_fuzz_stream, PD, FUZZ_STREAM, GInputStream)

struct _PdFuzzStream
{
  GInputStream  parent_instance;
  const guint8 *data;
  gsize         size;
  gsize         pos;
  gsize         chunk;
};

G_DEFINE_FINAL_TYPE (PdFuzzStream, pd_fuzz_stream, G_TYPE_INPUT_STREAM)

static gssize
pd_fuzz_stream_read (GInputStream  *stream,
                     void          *buffer,
                     gsize          count,
                     GCancellable  *cancellable,
                     GError       **error)
{
  PdFuzzStream *self = PD_FUZZ_STREAM (stream);
  gsize n = MIN (MIN (count, self->chunk), self->size - self->pos);

  memcpy (buffer, self->data + self->pos, n);
  self->pos += n;
  return (gssize) n;
}

static void
pd_fuzz_stream_class_init (PdFuzzStreamClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = pd_fuzz_stream_read;
}

static void
pd_fuzz_stream_init (PdFuzzStream *self)
{
}

static inline GInputStream *
pd_fuzz_stream_new (const guint8 *data,
                    gsize         size,
                    gsize         chunk)
{
  PdFuzzStream *self = g_object_new (PD_TYPE_FUZZ_STREAM, NULL);

  self->data = data;
  self->size = size;
  self->chunk = MAX (chunk, 1);
  return G_INPUT_STREAM (self);
}

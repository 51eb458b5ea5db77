/* pd-held-source.c: a source whose replies can be held back, for tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Wraps a real source (a PdLocalSource on a real database): every read
 * goes to it, and while held its replies wait here, as the reply for a
 * 10 MB transcript waits on a slow disk, until pd_held_source_release().
 * The reply reaches the caller with the real source as its object, so the
 * caller's _finish() is the real one.
 */
#define G_LOG_DOMAIN "pd-held-source"

#include "config.h"

#include "pd-held-source.h"

struct _PdHeldSource
{
  GObject    parent_instance;

  PdSource  *inner;
  gboolean   holding;
  GPtrArray *held;     /* (element-type Reply) */
};

typedef struct
{
  GObject             *object;
  GAsyncResult        *result;
  GAsyncReadyCallback  callback;
  gpointer             user_data;
} Reply;

typedef struct
{
  PdHeldSource        *self;
  GAsyncReadyCallback  callback;
  gpointer             user_data;
} Pending;

static void source_iface_init (PdSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdHeldSource, pd_held_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_SOURCE, source_iface_init))

static void
reply_free (Reply *reply)
{
  g_object_unref (reply->object);
  g_object_unref (reply->result);
  g_free (reply);
}

static void
on_inner_ready (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autofree Pending *pending = user_data;
  PdHeldSource *self = pending->self;

  if (self->holding)
    {
      Reply *reply = g_new0 (Reply, 1);

      reply->object = g_object_ref (object);
      reply->result = g_object_ref (result);
      reply->callback = pending->callback;
      reply->user_data = pending->user_data;
      g_ptr_array_add (self->held, reply);
    }
  else
    pending->callback (object, result, pending->user_data);
  g_object_unref (self);
}

static gpointer
pending_new (PdHeldSource        *self,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->self = g_object_ref (self);
  pending->callback = callback;
  pending->user_data = user_data;
  return pending;
}

#define HELD(source) (PD_HELD_SOURCE (source))

static const char *
held_get_title (PdSource *source)
{
  return pd_source_get_title (HELD (source)->inner);
}

static const char *
held_get_kind (PdSource *source)
{
  return pd_source_get_kind (HELD (source)->inner);
}

/* Held too: an endpoint that never answers its first list
 * (test-overview-start.c). */
static void
held_list_sessions_async (PdSource *source, const char *query, gboolean full_text, guint offset, guint limit,
                          GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_list_sessions_async (HELD (source)->inner, query, full_text, offset, limit, cancellable,
                                 on_inner_ready, pending_new (HELD (source), callback, user_data));
}

static void
held_get_plan_async (PdSource *source, const char *id, GCancellable *cancellable,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_get_plan_async (HELD (source)->inner, id, cancellable, on_inner_ready,
                            pending_new (HELD (source), callback, user_data));
}

static void
held_get_plan_history_async (PdSource *source, const char *id, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_get_plan_history_async (HELD (source)->inner, id, cancellable, on_inner_ready,
                                    pending_new (HELD (source), callback, user_data));
}

static void
held_get_messages_async (PdSource *source, const char *id, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_get_messages_async (HELD (source)->inner, id, cancellable, on_inner_ready,
                                pending_new (HELD (source), callback, user_data));
}

static void
held_get_events_async (PdSource *source, const char *session_id, gint64 after_seq, guint limit,
                       GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_get_events_async (HELD (source)->inner, session_id, after_seq, limit, cancellable,
                              on_inner_ready, pending_new (HELD (source), callback, user_data));
}

static void
held_get_checklist_async (PdSource *source, const char *session_id, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_get_checklist_async (HELD (source)->inner, session_id, cancellable, on_inner_ready,
                                 pending_new (HELD (source), callback, user_data));
}

static void
held_get_resume_command_async (PdSource *source, const char *session_id, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  pd_source_get_resume_command_async (HELD (source)->inner, session_id, cancellable, on_inner_ready,
                                      pending_new (HELD (source), callback, user_data));
}

static void
source_iface_init (PdSourceInterface *iface)
{
  iface->get_title = held_get_title;
  iface->get_kind = held_get_kind;
  iface->list_sessions_async = held_list_sessions_async;
  iface->get_plan_async = held_get_plan_async;
  iface->get_plan_history_async = held_get_plan_history_async;
  iface->get_messages_async = held_get_messages_async;
  iface->get_events_async = held_get_events_async;
  iface->get_checklist_async = held_get_checklist_async;
  iface->get_resume_command_async = held_get_resume_command_async;
}

static void
pd_held_source_dispose (GObject *object)
{
  PdHeldSource *self = PD_HELD_SOURCE (object);

  pd_held_source_release (self);
  g_clear_object (&self->inner);

  G_OBJECT_CLASS (pd_held_source_parent_class)->dispose (object);
}

static void
pd_held_source_finalize (GObject *object)
{
  PdHeldSource *self = PD_HELD_SOURCE (object);

  g_ptr_array_unref (self->held);

  G_OBJECT_CLASS (pd_held_source_parent_class)->finalize (object);
}

static void
pd_held_source_class_init (PdHeldSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_held_source_dispose;
  object_class->finalize = pd_held_source_finalize;
}

static void
pd_held_source_init (PdHeldSource *self)
{
  self->held = g_ptr_array_new_with_free_func ((GDestroyNotify) reply_free);
}

PdHeldSource *
pd_held_source_new (PdSource *inner)
{
  PdHeldSource *self = g_object_new (PD_TYPE_HELD_SOURCE, NULL);

  self->inner = g_object_ref (inner);
  return self;
}

/* Replies from now on wait until pd_held_source_release(). */
void
pd_held_source_hold (PdHeldSource *self)
{
  self->holding = TRUE;
}

guint
pd_held_source_n_held (PdHeldSource *self)
{
  return self->held->len;
}

/* Hands over the replies held, in the order they came, and holds no more. */
void
pd_held_source_release (PdHeldSource *self)
{
  g_autoptr(GPtrArray) held = g_steal_pointer (&self->held);

  self->holding = FALSE;
  self->held = g_ptr_array_new_with_free_func ((GDestroyNotify) reply_free);
  for (guint i = 0; i < held->len; i++)
    {
      Reply *reply = held->pdata[i];

      reply->callback (reply->object, reply->result, reply->user_data);
    }
}

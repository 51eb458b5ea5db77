/* pd-transcript-view.c: a session's messages, by role
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The messages live in a GListStore of PdMessageItem shown by a GtkListView.
 * A refresh merges by index: rows whose message is unchanged keep their
 * item, a changed message (the plan message is rewritten in place every
 * turn) replaces its one item, new messages are appended, and a transcript
 * that got shorter loses its tail.  So a session that grows while a run goes
 * on neither flickers nor loses its scroll position.
 */
#define G_LOG_DOMAIN "pd-transcript-view"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "pd-message-item.h"
#include "pd-message-row.h"
#include "pd-transcript-view.h"
#include "pd-ui-util-private.h"

struct _PdTranscriptView
{
  GtkWidget          parent_instance;

  PdSource          *source;
  gulong             changed_id;
  char              *session_id;
  GListStore        *messages;
  GCancellable      *cancellable;
  gboolean           loading;
  gboolean           refresh_again;
  gboolean           loaded;

  /* Template widgets */
  GtkLabel          *error_label;
  GtkStack          *stack;
  AdwStatusPage     *empty_page;
  GtkScrolledWindow *scroller;
  GtkListView       *list_view;
};

G_DEFINE_FINAL_TYPE (PdTranscriptView, pd_transcript_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SOURCE,
  PROP_SESSION_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef struct
{
  PdTranscriptView *self;         /* valid while cancellable is not cancelled */
  GCancellable     *cancellable;
  char             *session_id;
} Request;

static void
request_free (Request *request)
{
  g_object_unref (request->cancellable);
  g_free (request->session_id);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

static void
pd_transcript_view_update_state (PdTranscriptView *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->messages)) == 0;

  if (self->session_id == NULL)
    {
      adw_status_page_set_title (self->empty_page, _("No Session Selected"));
      adw_status_page_set_description (self->empty_page,
                                       _("Choose a session to read its transcript"));
    }
  else
    {
      adw_status_page_set_title (self->empty_page, _("No Messages Yet"));
      adw_status_page_set_description (self->empty_page,
                                       _("The messages of this session will appear here"));
    }

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "messages");
}

static void
pd_transcript_view_show_error (PdTranscriptView *self,
                               const GError     *error)
{
  if (error == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
      return;
    }

  {
    g_autofree char *text = g_strdup_printf (_("Could not load the transcript: %s"), error->message);

    gtk_label_set_text (self->error_label, text);
    gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
  }
}

/* Merge @array into the store by index; see the comment at the top. */
static void
pd_transcript_view_merge (PdTranscriptView *self,
                          JsonArray        *array)
{
  guint n_new = json_array_get_length (array);
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  g_autoptr(GPtrArray) appended = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n_new; i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      g_autoptr(PdMessageItem) item = NULL;

      if (JSON_NODE_HOLDS_OBJECT (node))
        item = pd_message_item_new_from_json (i, json_node_get_object (node));
      else
        {
          g_autoptr(JsonObject) empty = json_object_new ();

          item = pd_message_item_new_from_json (i, empty);
        }

      if (i < n_old)
        {
          g_autoptr(PdMessageItem) old = g_list_model_get_item (G_LIST_MODEL (self->messages), i);

          if (!pd_message_item_equal (old, item))
            g_list_store_splice (self->messages, i, 1, (gpointer *) &item, 1);
        }
      else
        g_ptr_array_add (appended, g_steal_pointer (&item));
    }

  if (n_new < n_old)
    g_list_store_splice (self->messages, n_new, n_old - n_new, NULL, 0);
  else if (appended->len > 0)
    g_list_store_splice (self->messages, n_old, 0, appended->pdata, appended->len);
}

static void pd_transcript_view_load (PdTranscriptView *self);

static void
on_messages_loaded (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  PdTranscriptView *self;

  messages = pd_source_get_messages_finish (PD_SOURCE (object), result, &error);

  /* Cancelled: the view was disposed or moved to another session. */
  if (g_cancellable_is_cancelled (request->cancellable))
    return;

  self = request->self;
  self->loading = FALSE;

  /* A late reply for a session no longer shown. */
  if (g_strcmp0 (request->session_id, self->session_id) != 0)
    return;

  if (messages == NULL)
    {
      /* A session with no stored transcript yet is empty, not broken. */
      if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND))
        pd_transcript_view_show_error (self, NULL);
      else
        pd_transcript_view_show_error (self, error);
    }
  else
    {
      pd_transcript_view_show_error (self, NULL);
      pd_transcript_view_merge (self, messages);
    }

  self->loaded = TRUE;
  pd_transcript_view_update_state (self);

  if (self->refresh_again)
    {
      self->refresh_again = FALSE;
      pd_transcript_view_load (self);
    }
}

static void
pd_transcript_view_load (PdTranscriptView *self)
{
  Request *request;

  if (self->source == NULL || self->session_id == NULL)
    return;

  if (self->loading)
    {
      self->refresh_again = TRUE;
      return;
    }

  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();

  request = g_new0 (Request, 1);
  request->self = self;
  request->cancellable = g_object_ref (self->cancellable);
  request->session_id = g_strdup (self->session_id);

  self->loading = TRUE;
  pd_source_get_messages_async (self->source, self->session_id, self->cancellable,
                                on_messages_loaded, request);
}

/* Forget what is shown and what is in flight: a new source or session. */
static void
pd_transcript_view_reset (PdTranscriptView *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->loading = FALSE;
  self->refresh_again = FALSE;
  self->loaded = FALSE;
  g_list_store_remove_all (self->messages);
  pd_transcript_view_show_error (self, NULL);
  pd_transcript_view_update_state (self);
}

static void
on_source_changed (PdTranscriptView *self)
{
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    pd_transcript_view_refresh (self);
}

static void
pd_transcript_view_dispose (GObject *object)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->source != NULL)
    g_clear_signal_handler (&self->changed_id, self->source);
  g_clear_object (&self->source);

  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_TRANSCRIPT_VIEW);
  /* The root box of the template is not bound to a field, so unparent it. */
  {
    GtkWidget *child;

    while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
      gtk_widget_unparent (child);
  }
  g_clear_object (&self->messages);

  G_OBJECT_CLASS (pd_transcript_view_parent_class)->dispose (object);
}

static void
pd_transcript_view_finalize (GObject *object)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (object);

  g_free (self->session_id);

  G_OBJECT_CLASS (pd_transcript_view_parent_class)->finalize (object);
}

static void
pd_transcript_view_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_object (value, self->source);
      break;
    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_transcript_view_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      pd_transcript_view_set_source (self, g_value_get_object (value));
      break;
    case PROP_SESSION_ID:
      pd_transcript_view_set_session_id (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_transcript_view_class_init (PdTranscriptViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_transcript_view_dispose;
  object_class->finalize = pd_transcript_view_finalize;
  object_class->get_property = pd_transcript_view_get_property;
  object_class->set_property = pd_transcript_view_set_property;

  properties[PROP_SOURCE] =
    g_param_spec_object ("source", NULL, NULL,
                         PD_TYPE_SOURCE,
                         (G_PARAM_READWRITE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PD_TYPE_MESSAGE_ROW);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-transcript-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, error_label);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, scroller);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, list_view);
}

static void
pd_transcript_view_init (PdTranscriptView *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->messages = g_list_store_new (PD_TYPE_MESSAGE_ITEM);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->messages)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
  _pd_follow_bottom (self->scroller);

  pd_transcript_view_update_state (self);
}

GtkWidget *
pd_transcript_view_new (void)
{
  return g_object_new (PD_TYPE_TRANSCRIPT_VIEW, NULL);
}

/**
 * pd_transcript_view_get_source:
 *
 * Returns: (transfer none) (nullable): the source read from
 */
PdSource *
pd_transcript_view_get_source (PdTranscriptView *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_VIEW (self), NULL);
  return self->source;
}

void
pd_transcript_view_set_source (PdTranscriptView *self,
                               PdSource         *source)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_VIEW (self));
  g_return_if_fail (source == NULL || PD_IS_SOURCE (source));

  if (self->source == source)
    return;

  if (self->source != NULL)
    g_clear_signal_handler (&self->changed_id, self->source);
  g_set_object (&self->source, source);
  if (source != NULL)
    self->changed_id = g_signal_connect_object (source, "changed", G_CALLBACK (on_source_changed),
                                                self, G_CONNECT_SWAPPED);

  pd_transcript_view_reset (self);
  pd_transcript_view_load (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
}

const char *
pd_transcript_view_get_session_id (PdTranscriptView *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_VIEW (self), NULL);
  return self->session_id;
}

void
pd_transcript_view_set_session_id (PdTranscriptView *self,
                                   const char       *session_id)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_VIEW (self));

  if (g_strcmp0 (self->session_id, session_id) == 0)
    return;

  g_free (self->session_id);
  self->session_id = g_strdup (session_id);

  pd_transcript_view_reset (self);
  pd_transcript_view_load (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
}

/**
 * pd_transcript_view_refresh:
 *
 * Reads the transcript again and merges it into what is shown.  A refresh
 * asked for while one is in flight runs once that one is done.
 */
void
pd_transcript_view_refresh (PdTranscriptView *self)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_VIEW (self));

  pd_transcript_view_load (self);
}

/**
 * pd_transcript_view_get_model:
 *
 * Returns: (transfer none): the messages shown, as #PdMessageItem
 */
GListModel *
pd_transcript_view_get_model (PdTranscriptView *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_VIEW (self), NULL);
  return G_LIST_MODEL (self->messages);
}

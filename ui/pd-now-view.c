/* pd-now-view.c: the Now workspace, the live plan of one session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shows the newest plan of a session: a header "Plan — vN · X/Y done ·
 * Z blocked", a progress bar, the latest revision reason, notices, and a
 * row per step.  It is strictly read-only.
 *
 * Live: a PdPollTimer asks the source every second while the session's
 * run is active and every three seconds while the view is visible and
 * idle; it stops while the view is unmapped (another page, another
 * session list pane, a closed window) or its window is minimised.  A
 * session switch and the window becoming active refresh at once.  A reply
 * for another session or with an older plan version is dropped; a reply
 * equal to what is shown changes nothing; a new version is merged row by
 * row, so unchanged rows keep their widgets and the scroll position stays.
 */
#define G_LOG_DOMAIN "pd-now-view"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-now-view-private.h"
#include "pd-plan-row.h"
#include "pd-plan-row-item.h"

#define POLL_RUNNING_MS 1000
#define POLL_IDLE_MS    3000

struct _PdNowView
{
  GtkWidget     parent_instance;

  PdSource     *source;
  char         *session_id;
  gboolean      running;
  PdPlanState  *plan;          /* shown; NULL when none */
  GListStore   *rows;          /* (element-type PdPlanRowItem) */
  PdPollTimer  *timer;
  GCancellable *cancellable;   /* of the request in flight */
  guint         n_replies;

  GtkRoot      *root;
  gulong        active_handler;
  GdkSurface   *surface;
  gulong        state_handler;

  /* Template widgets */
  GtkStack      *stack;
  GtkLabel      *header_label;
  GtkProgressBar *progress;
  GtkLabel      *revision_label;
  GtkBox        *notices_box;
  GtkListBox    *rows_box;
};

G_DEFINE_FINAL_TYPE (PdNowView, pd_now_view, GTK_TYPE_WIDGET)

static void pd_now_view_request (PdNowView *self);

/* --- showing a plan ----------------------------------------------------- */

static void
pd_now_view_show_header (PdNowView         *self,
                         const PdPlanState *plan)
{
  g_autofree char *version = g_strdup_printf ("%" G_GINT64_FORMAT, plan->version);
  g_autofree char *header = NULL;
  PdPlanCounts counts;

  pd_plan_state_count (plan, &counts);

  if (counts.blocked > 0)
    /* Translators: the Now header; %s is the plan version, then done/total and blocked steps */
    header = g_strdup_printf (_("Plan — v%s · %u/%u done · %u blocked"),
                              version, counts.done, counts.steps, counts.blocked);
  else
    /* Translators: the Now header; %s is the plan version, then done/total steps */
    header = g_strdup_printf (_("Plan — v%s · %u/%u done"), version, counts.done, counts.steps);

  gtk_label_set_text (self->header_label, header);
  gtk_progress_bar_set_fraction (self->progress,
                                 counts.steps > 0 ? (double) counts.done / counts.steps : 0.0);

  if (plan->revision != NULL && plan->revision->reason != NULL && plan->revision->reason[0] != '\0')
    {
      g_autofree char *text = g_strdup_printf (_("Last revision: %s"), plan->revision->reason);

      gtk_label_set_text (self->revision_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->revision_label), TRUE);
    }
  else
    {
      gtk_label_set_text (self->revision_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->revision_label), FALSE);
    }
}

PdNowApply
_pd_now_view_apply_plan (PdNowView         *self,
                         const char        *session_id,
                         const PdPlanState *plan)
{
  g_return_val_if_fail (PD_IS_NOW_VIEW (self), PD_NOW_DROPPED);

  if (self->session_id == NULL || g_strcmp0 (session_id, self->session_id) != 0)
    return PD_NOW_DROPPED;

  if (plan != NULL && self->plan != NULL)
    {
      if (plan->version < self->plan->version)
        return PD_NOW_DROPPED;
      if (plan->version == self->plan->version && pd_plan_state_same_content (plan, self->plan))
        return PD_NOW_UNCHANGED;
    }

  if (plan == NULL || pd_plan_state_is_empty (plan))
    {
      if (self->plan == NULL && g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "empty") == 0)
        return PD_NOW_UNCHANGED;

      g_clear_pointer (&self->plan, pd_plan_state_free);
      pd_plan_rows_merge (self->rows, NULL);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return PD_NOW_APPLIED;
    }

  g_clear_pointer (&self->plan, pd_plan_state_free);
  self->plan = pd_plan_state_copy (plan);

  pd_now_view_show_header (self, plan);
  pd_plan_rows_merge (self->rows, plan);
  gtk_stack_set_visible_child_name (self->stack, "plan");

  return PD_NOW_APPLIED;
}

/* --- asking the source -------------------------------------------------- */

typedef struct
{
  PdNowView *self;
  char      *session_id;
} PlanRequest;

static void
plan_request_free (PlanRequest *request)
{
  g_object_unref (request->self);
  g_free (request->session_id);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanRequest, plan_request_free)

static void
on_plan_ready (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PlanRequest) request = user_data;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;
  PdNowView *self = request->self;

  if (!pd_source_get_plan_finish (PD_SOURCE (object), result, &plan, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_clear_object (&self->cancellable);
      /* Keep what is shown; the next tick tries again. */
      g_debug ("Could not read the plan of %s: %s", request->session_id, error->message);
      if (self->plan == NULL && g_strcmp0 (request->session_id, self->session_id) == 0)
        gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  if ((gpointer) object == (gpointer) self->source)
    g_clear_object (&self->cancellable);
  self->n_replies++;

  _pd_now_view_apply_plan (self, request->session_id, plan);
}

static void
pd_now_view_request (PdNowView *self)
{
  PlanRequest *request;

  if (self->source == NULL || self->session_id == NULL)
    return;

  /* One request at a time; a tick during a slow reply is skipped. */
  if (self->cancellable != NULL)
    return;

  self->cancellable = g_cancellable_new ();
  request = g_new0 (PlanRequest, 1);
  request->self = g_object_ref (self);
  request->session_id = g_strdup (self->session_id);
  pd_source_get_plan_async (self->source, self->session_id, self->cancellable,
                            on_plan_ready, request);
}

static void
pd_now_view_cancel (PdNowView *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
}

/**
 * pd_now_view_refresh:
 *
 * Asks for the plan now, unless a request is already on its way.
 */
void
pd_now_view_refresh (PdNowView *self)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  pd_now_view_request (self);
}

static void
on_tick (PdNowView *self)
{
  pd_now_view_request (self);
}

/* --- when to poll ------------------------------------------------------- */

static gboolean
pd_now_view_is_minimized (PdNowView *self)
{
  return self->surface != NULL && GDK_IS_TOPLEVEL (self->surface) &&
         (gdk_toplevel_get_state (GDK_TOPLEVEL (self->surface)) & GDK_TOPLEVEL_STATE_MINIMIZED) != 0;
}

static void
pd_now_view_update_visibility (PdNowView *self)
{
  gboolean visible = gtk_widget_get_mapped (GTK_WIDGET (self)) && !pd_now_view_is_minimized (self);
  gboolean was_visible = pd_poll_timer_get_visible (self->timer);

  pd_poll_timer_set_visible (self->timer, visible);

  /* Coming back into view shows the present at once, not after a period. */
  if (visible && !was_visible)
    pd_now_view_request (self);
}

static void
on_root_active_changed (PdNowView *self)
{
  if (self->root != NULL && gtk_window_is_active (GTK_WINDOW (self->root)) &&
      pd_poll_timer_get_visible (self->timer))
    pd_now_view_request (self);
}

static void
on_surface_state_changed (PdNowView *self)
{
  pd_now_view_update_visibility (self);
}

static void
pd_now_view_watch_toplevel (PdNowView *self,
                            gboolean   watch)
{
  if (self->root != NULL)
    g_clear_signal_handler (&self->active_handler, self->root);
  if (self->surface != NULL)
    g_clear_signal_handler (&self->state_handler, self->surface);
  g_clear_weak_pointer (&self->root);
  g_clear_weak_pointer (&self->surface);

  if (!watch)
    return;

  g_set_weak_pointer (&self->root, gtk_widget_get_root (GTK_WIDGET (self)));
  if (self->root != NULL && GTK_IS_WINDOW (self->root))
    {
      self->active_handler = g_signal_connect_swapped (self->root, "notify::is-active",
                                                       G_CALLBACK (on_root_active_changed), self);
      g_set_weak_pointer (&self->surface, gtk_native_get_surface (GTK_NATIVE (self->root)));
      if (self->surface != NULL)
        self->state_handler = g_signal_connect_swapped (self->surface, "notify::state",
                                                        G_CALLBACK (on_surface_state_changed), self);
    }
}

static void
pd_now_view_map (GtkWidget *widget)
{
  PdNowView *self = PD_NOW_VIEW (widget);

  GTK_WIDGET_CLASS (pd_now_view_parent_class)->map (widget);

  pd_now_view_watch_toplevel (self, TRUE);
  pd_now_view_update_visibility (self);
}

static void
pd_now_view_unmap (GtkWidget *widget)
{
  PdNowView *self = PD_NOW_VIEW (widget);

  GTK_WIDGET_CLASS (pd_now_view_parent_class)->unmap (widget);

  pd_now_view_watch_toplevel (self, FALSE);
  pd_now_view_update_visibility (self);
}

/* --- GObject ------------------------------------------------------------ */

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  return pd_plan_row_new (PD_PLAN_ROW_ITEM (item));
}

static void
pd_now_view_dispose (GObject *object)
{
  PdNowView *self = PD_NOW_VIEW (object);

  pd_now_view_cancel (self);
  pd_now_view_watch_toplevel (self, FALSE);
  if (self->timer != NULL)
    g_signal_handlers_disconnect_by_data (self->timer, self);
  g_clear_object (&self->timer);
  g_clear_object (&self->source);

  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_NOW_VIEW);

  g_clear_object (&self->rows);
  g_clear_pointer (&self->plan, pd_plan_state_free);

  G_OBJECT_CLASS (pd_now_view_parent_class)->dispose (object);
}

static void
pd_now_view_finalize (GObject *object)
{
  PdNowView *self = PD_NOW_VIEW (object);

  g_free (self->session_id);

  G_OBJECT_CLASS (pd_now_view_parent_class)->finalize (object);
}

static void
pd_now_view_class_init (PdNowViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_now_view_dispose;
  object_class->finalize = pd_now_view_finalize;

  widget_class->map = pd_now_view_map;
  widget_class->unmap = pd_now_view_unmap;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-now-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdNowView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, header_label);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, progress);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, revision_label);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, notices_box);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, rows_box);
  gtk_widget_class_set_css_name (widget_class, "now-view");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

/* The cadence of the preferences (Refresh), read when the view is made. */
static PdPollTimer *
pd_now_view_new_poll_timer (void)
{
  GSettingsSchemaSource *schemas = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) settings = NULL;

  if (schemas != NULL)
    schema = g_settings_schema_source_lookup (schemas, APP_ID, TRUE);
  if (schema == NULL || !g_settings_schema_has_key (schema, "poll-running-ms"))
    return pd_poll_timer_new (POLL_RUNNING_MS, POLL_IDLE_MS);

  settings = g_settings_new (APP_ID);
  return pd_poll_timer_new (g_settings_get_uint (settings, "poll-running-ms"),
                            g_settings_get_uint (settings, "poll-idle-ms"));
}

static void
pd_now_view_init (PdNowView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->rows = pd_plan_rows_new ();
  gtk_list_box_bind_model (self->rows_box, G_LIST_MODEL (self->rows), create_row, NULL, NULL);

  self->timer = pd_now_view_new_poll_timer ();
  g_signal_connect_swapped (self->timer, "tick", G_CALLBACK (on_tick), self);
}

GtkWidget *
pd_now_view_new (void)
{
  return g_object_new (PD_TYPE_NOW_VIEW, NULL);
}

/**
 * pd_now_view_set_source:
 * @source: (nullable): where plans come from
 */
void
pd_now_view_set_source (PdNowView *self,
                        PdSource  *source)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));
  g_return_if_fail (source == NULL || PD_IS_SOURCE (source));

  if (self->source == source)
    return;

  pd_now_view_cancel (self);
  g_set_object (&self->source, source);
  g_clear_pointer (&self->plan, pd_plan_state_free);
  pd_plan_rows_merge (self->rows, NULL);
  gtk_stack_set_visible_child_name (self->stack, "loading");
  pd_now_view_request (self);
}

PdSource *
pd_now_view_get_source (PdNowView *self)
{
  g_return_val_if_fail (PD_IS_NOW_VIEW (self), NULL);

  return self->source;
}

/**
 * pd_now_view_set_session_id:
 * @session_id: (nullable): the session to follow
 *
 * Shows that session's plan, asked for at once.
 */
void
pd_now_view_set_session_id (PdNowView  *self,
                            const char *session_id)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  if (g_strcmp0 (self->session_id, session_id) == 0)
    return;

  /* The reply for the previous session no longer matters. */
  pd_now_view_cancel (self);

  g_free (self->session_id);
  self->session_id = g_strdup (session_id);

  g_clear_pointer (&self->plan, pd_plan_state_free);
  pd_plan_rows_merge (self->rows, NULL);
  pd_now_view_set_notices (self, NULL);
  gtk_stack_set_visible_child_name (self->stack, "loading");

  pd_now_view_request (self);
}

const char *
pd_now_view_get_session_id (PdNowView *self)
{
  g_return_val_if_fail (PD_IS_NOW_VIEW (self), NULL);

  return self->session_id;
}

/**
 * pd_now_view_set_running:
 * @running: whether the session's run is active; it is polled faster then
 */
void
pd_now_view_set_running (PdNowView *self,
                         gboolean   running)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  self->running = !!running;
  pd_poll_timer_set_running (self->timer, self->running);
}

/**
 * pd_now_view_set_notices:
 * @notices: (nullable) (array zero-terminated=1): plain-text notices
 *
 * HOOK for the events work: reassessment notices, blocked-streak notices
 * and the verification-incomplete notice, as read from the session's
 * event stream, are shown above the steps.  The Now view does not read
 * events itself.  Each notice is plain text.
 */
void
pd_now_view_set_notices (PdNowView          *self,
                         const char * const *notices)
{
  GtkWidget *child;

  g_return_if_fail (PD_IS_NOW_VIEW (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->notices_box))) != NULL)
    gtk_box_remove (self->notices_box, child);

  for (guint i = 0; notices != NULL && notices[i] != NULL; i++)
    {
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-information-symbolic");
      GtkWidget *label = gtk_label_new (NULL);

      gtk_widget_add_css_class (row, "plan-notice");
      gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
      gtk_label_set_text (GTK_LABEL (label), notices[i]);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (row), icon);
      gtk_box_append (GTK_BOX (row), label);
      gtk_box_append (self->notices_box, row);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->notices_box),
                          gtk_widget_get_first_child (GTK_WIDGET (self->notices_box)) != NULL);
}

PdPollTimer *
_pd_now_view_get_poll_timer (PdNowView *self)
{
  return self->timer;
}

GListModel *
_pd_now_view_get_rows (PdNowView *self)
{
  return G_LIST_MODEL (self->rows);
}

GtkWidget *
_pd_now_view_get_row_widget (PdNowView *self,
                             guint      position)
{
  return GTK_WIDGET (gtk_list_box_get_row_at_index (self->rows_box, position));
}

guint
_pd_now_view_get_n_replies (PdNowView *self)
{
  return self->n_replies;
}

gboolean
_pd_now_view_get_page_visible (PdNowView *self)
{
  return pd_poll_timer_get_visible (self->timer);
}

/* pd-session-view.c: the base of every view of one session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Now, Transcript, Events, History and the checklist of an imported session
 * all show one session of one source and must stay true to it.  What they
 * share lives here, once:
 *
 * - `source` and `session-id`: a change forgets what is shown (::clear),
 *   cancels what is in flight (the worker's read stops) and reads at once
 *   when the view is in sight, else when it is first shown.
 * - Reloads are merged: while one is in flight, any number of asks make
 *   one more reload when it is done, never two at once.
 * - Late replies are dropped: each reload carries a request that is current
 *   only while the source and session are the ones it was made for.
 * - PdSource::changed (the push: this process's event bus, a file monitor
 *   on the database, a remote server's event stream) reloads a visible view
 *   at once; a hidden one (another tab, a minimised window) is marked stale
 *   and reloads when it is shown again, so nothing waits for a click.
 * - Views that poll as a fallback (the Now page) do it with a PdPollTimer:
 *   every running_ms while the session's run is active, every idle_ms
 *   while visible and idle, never while hidden.
 * - A switch shows no old content: ::clear forgets it, the subclass's
 *   children are hidden at once until the first reply for the new source
 *   and session, and a "Loading…" page with a spinner stands in for them
 *   after LOADING_DELAY_MS, so a fast switch does not flicker (tried as a
 *   new user would, the Now page of a 10 MB transcript looked like it
 *   still showed the session before, with no sign it was loading).
 * - Errors: a reload that fails before anything was shown replaces the
 *   view with an error page, one that fails later keeps what is shown under
 *   an error bar; both have Retry.
 *
 * A subclass implements ::reload and ::clear; its template's children are
 * laid out below the error bar and fill the view.
 */
#define G_LOG_DOMAIN "pd-session-view"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-poll-timer.h"
#include "pd-remote-source.h"
#include "pd-session-view.h"
#include "pd-ui-util-private.h"

#define POLL_RUNNING_MS 1000
#define POLL_IDLE_MS    3000
#define LOADING_DELAY_MS 150

typedef struct
{
  PdSource     *source;
  gulong        changed_id;
  char         *session_id;
  gboolean      running;

  GCancellable *cancellable;   /* of the present source and session */
  gboolean      in_flight;
  gboolean      again;         /* asked while in flight: one more after */
  gboolean      stale;         /* changed while hidden: read when shown */
  gboolean      shown_once;    /* a reload succeeded since the last clear */
  guint         n_reloads;
  char         *error;

  PdPollTimer  *timer;         /* NULL unless the class polls */
  GtkRoot      *root;
  gulong        active_handler;
  GdkSurface   *surface;
  gulong        state_handler;
  gboolean      visible_now;

  gulong        connection_id; /* notify::state of a remote source */

  GtkWidget    *error_bar;     /* a GtkRevealer */
  GtkLabel     *error_bar_label;
  GtkWidget    *error_page;    /* an AdwStatusPage */

  gboolean      loading;       /* the first reply since a switch awaited */
  guint         loading_source; /* shows the loading page after a delay */
  GtkWidget    *loading_page;  /* a spinner and "Loading…" */
  GtkSpinner   *loading_spinner;
} PdSessionViewPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (PdSessionView, pd_session_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SOURCE,
  PROP_SESSION_ID,
  PROP_RUNNING,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Classes that poll, by GType. */
static GHashTable *polling_classes;
/* Classes that read on ::changed while hidden too, by GType. */
static GHashTable *hidden_reading_classes;

/* --- requests ------------------------------------------------------------ */

static PdSessionViewRequest *
request_new (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  PdSessionViewRequest *request = g_new0 (PdSessionViewRequest, 1);

  request->view = self;
  request->source = g_object_ref (priv->source);
  request->session_id = g_strdup (priv->session_id);
  request->cancellable = g_object_ref (priv->cancellable);
  return request;
}

/**
 * pd_session_view_request_copy:
 *
 * A second request for the same reload (a view that reads two things).
 */
PdSessionViewRequest *
pd_session_view_request_copy (PdSessionViewRequest *request)
{
  PdSessionViewRequest *copy = g_new0 (PdSessionViewRequest, 1);

  copy->view = request->view;
  copy->source = g_object_ref (request->source);
  copy->session_id = g_strdup (request->session_id);
  copy->cancellable = g_object_ref (request->cancellable);
  return copy;
}

void
pd_session_view_request_free (PdSessionViewRequest *request)
{
  if (request == NULL)
    return;
  g_object_unref (request->source);
  g_object_unref (request->cancellable);
  g_free (request->session_id);
  g_free (request);
}

/**
 * pd_session_view_request_is_current:
 *
 * Returns: whether the reply to @request is for what the view shows now;
 *   when %FALSE the view may be gone and must not be touched
 */
gboolean
pd_session_view_request_is_current (PdSessionViewRequest *request)
{
  return request != NULL && !g_cancellable_is_cancelled (request->cancellable);
}

/* --- errors --------------------------------------------------------------- */

static gboolean
is_own_child (PdSessionViewPrivate *priv,
              GtkWidget            *child)
{
  return child == priv->error_bar || child == priv->error_page || child == priv->loading_page;
}

static void pd_session_view_start (PdSessionView *self);

static void
on_retry_clicked (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  /* Asked now: a read that failed is not left to its wait; an endpoint
   * away is tried again now, not after its growing wait. */
  if (PD_IS_REMOTE_SOURCE (priv->source) && priv->session_id != NULL)
    pd_remote_source_forget_failures (PD_REMOTE_SOURCE (priv->source), priv->session_id);
  if (PD_IS_REMOTE_SOURCE (priv->source) &&
      pd_remote_source_get_state (PD_REMOTE_SOURCE (priv->source)) == PD_REMOTE_OFFLINE)
    pd_remote_source_reconnect (PD_REMOTE_SOURCE (priv->source));
  pd_session_view_start (self);
}

/* Made on the first error only: most views never need them. */
static void
pd_session_view_ensure_error_widgets (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  GtkWidget *box;
  GtkWidget *icon;
  GtkWidget *retry;
  GtkWidget *page_retry;

  if (priv->error_bar != NULL)
    return;

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  retry = gtk_button_new_with_mnemonic (_("_Retry"));
  page_retry = gtk_button_new_with_mnemonic (_("_Retry"));

  /* The error bar: what is shown stays, with the reason it is not fresh. */
  priv->error_bar_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_use_markup (priv->error_bar_label, FALSE);
  gtk_label_set_wrap (priv->error_bar_label, TRUE);
  gtk_label_set_wrap_mode (priv->error_bar_label, PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (priv->error_bar_label, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (priv->error_bar_label), TRUE);
  gtk_widget_set_valign (retry, GTK_ALIGN_CENTER);
  g_signal_connect_swapped (retry, "clicked", G_CALLBACK (on_retry_clicked), self);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (priv->error_bar_label));
  gtk_box_append (GTK_BOX (box), retry);
  gtk_widget_add_css_class (box, "pd-error-bar");
  priv->error_bar = gtk_revealer_new ();
  gtk_revealer_set_child (GTK_REVEALER (priv->error_bar), box);
  gtk_widget_insert_after (g_object_ref (priv->error_bar), GTK_WIDGET (self), NULL);

  /* The error page: nothing could be read yet. */
  priv->error_page = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (priv->error_page), "dialog-warning-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (priv->error_page), _("Could Not Load This Session"));
  gtk_widget_set_halign (page_retry, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (page_retry, "pill");
  g_signal_connect_swapped (page_retry, "clicked", G_CALLBACK (on_retry_clicked), self);
  adw_status_page_set_child (ADW_STATUS_PAGE (priv->error_page), page_retry);
  gtk_widget_set_vexpand (priv->error_page, TRUE);
  gtk_widget_set_visible (priv->error_page, FALSE);
  gtk_widget_insert_after (g_object_ref (priv->error_page), GTK_WIDGET (self), priv->error_bar);

}

/* The window's banner tells that the server is away or refused the
 * token, with its own Retry: a bar of each view saying it again was a
 * second and third message for one cause. */
static gboolean
connection_told (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  PdRemoteState state;

  if (priv->source == NULL || !PD_IS_REMOTE_SOURCE (priv->source))
    return FALSE;
  state = pd_remote_source_get_state (PD_REMOTE_SOURCE (priv->source));
  return state == PD_REMOTE_OFFLINE || state == PD_REMOTE_DENIED;
}

static void
pd_session_view_update_error_bar (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  gboolean told = connection_told (self);
  g_autofree char *escaped = NULL;

  if (priv->error_bar == NULL)
    return;
  gtk_revealer_set_reveal_child (GTK_REVEALER (priv->error_bar),
                                 priv->error != NULL && !gtk_widget_get_visible (priv->error_page) && !told);
  /* The error page says why and has its Retry under the banner too: with
   * the endpoint away it said "Could Not Load This Session" alone, no
   * reason and no button where the eye was (tried as a new user would).
   * The description of an AdwStatusPage is markup. */
  if (priv->error != NULL)
    escaped = g_markup_escape_text (priv->error, -1);
  adw_status_page_set_description (ADW_STATUS_PAGE (priv->error_page), escaped);
}

static void
pd_session_view_show_error (PdSessionView *self,
                            const char    *message)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  gboolean page = message != NULL && !priv->shown_once;

  g_free (priv->error);
  priv->error = g_strdup (message);

  if (message == NULL && priv->error_bar == NULL)
    return;
  pd_session_view_ensure_error_widgets (self);

  if (message != NULL)
    gtk_label_set_text (priv->error_bar_label, message);

  gtk_widget_set_visible (priv->error_page, page);
  pd_session_view_update_error_bar (self);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (!is_own_child (priv, child))
      gtk_widget_set_visible (child, !page);
}

/* --- loading after a switch ---------------------------------------------- */

static void
pd_session_view_set_content_visible (PdSessionView *self,
                                     gboolean       visible)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (!is_own_child (priv, child))
      gtk_widget_set_visible (child, visible);
}

static void
pd_session_view_show_loading_page (PdSessionView *self,
                                   gboolean       shown)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  if (priv->loading_page == NULL)
    return;
  gtk_widget_set_visible (priv->loading_page, shown);
  _pd_spinner_set_wanted (priv->loading_spinner, shown);
}

/* Made on the first slow switch only. */
static gboolean
on_loading_delay (gpointer user_data)
{
  PdSessionView *self = user_data;
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  GtkWidget *label;

  priv->loading_source = 0;

  if (priv->loading_page == NULL)
    {
      priv->loading_page = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
      gtk_widget_set_valign (priv->loading_page, GTK_ALIGN_CENTER);
      gtk_widget_set_halign (priv->loading_page, GTK_ALIGN_CENTER);
      gtk_widget_set_vexpand (priv->loading_page, TRUE);
      priv->loading_spinner = GTK_SPINNER (gtk_spinner_new ());
      gtk_widget_set_size_request (GTK_WIDGET (priv->loading_spinner), 32, 32);
      label = gtk_label_new (_("Loading…"));
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (GTK_BOX (priv->loading_page), GTK_WIDGET (priv->loading_spinner));
      gtk_box_append (GTK_BOX (priv->loading_page), label);
      /* First, as the error widgets: subclasses unparent their template's
       * root, the last child, in their dispose. */
      gtk_widget_insert_after (g_object_ref (priv->loading_page), GTK_WIDGET (self), NULL);
    }
  pd_session_view_show_loading_page (self, TRUE);

  return G_SOURCE_REMOVE;
}

/* A new source or session: nothing of the old one stays in sight. */
static void
pd_session_view_begin_loading (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_clear_handle_id (&priv->loading_source, g_source_remove);
  priv->loading = TRUE;
  pd_session_view_set_content_visible (self, FALSE);
  pd_session_view_show_loading_page (self, FALSE);
  priv->loading_source = g_timeout_add (LOADING_DELAY_MS, on_loading_delay, self);
}

static void
pd_session_view_end_loading (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_clear_handle_id (&priv->loading_source, g_source_remove);
  pd_session_view_show_loading_page (self, FALSE);
  if (!priv->loading)
    return;
  priv->loading = FALSE;
  pd_session_view_set_content_visible (self, TRUE);
}

/* --- reloading ------------------------------------------------------------ */

static void
pd_session_view_start (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  PdSessionViewClass *klass = PD_SESSION_VIEW_GET_CLASS (self);

  if (priv->source == NULL || priv->session_id == NULL || klass->reload == NULL)
    return;

  if (priv->in_flight)
    {
      priv->again = TRUE;
      return;
    }

  priv->in_flight = TRUE;
  priv->stale = FALSE;
  priv->n_reloads++;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  klass->reload (self, request_new (self));
}

/**
 * pd_session_view_reload_done:
 * @error: (nullable): why the reload failed
 *
 * Ends the reload of @request: shows or clears the error, and starts the
 * reload asked for meanwhile.  A request that is no longer current does
 * nothing.
 */
void
pd_session_view_reload_done (PdSessionViewRequest *request,
                             const GError         *error)
{
  PdSessionView *self;
  PdSessionViewPrivate *priv;

  if (!pd_session_view_request_is_current (request))
    return;

  self = request->view;
  priv = pd_session_view_get_instance_private (self);

  if (!priv->in_flight)
    return;
  priv->in_flight = FALSE;

  /* The first reply for the new session, or why there is none. */
  pd_session_view_end_loading (self);

  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    pd_session_view_show_error (self, error->message);
  else if (error == NULL)
    {
      pd_session_view_show_error (self, NULL);
      priv->shown_once = TRUE;
    }

  if (priv->again)
    {
      priv->again = FALSE;
      pd_session_view_start (self);
    }
  else
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/**
 * pd_session_view_reload:
 *
 * Reads again what the view shows; merged with a reload in flight.
 */
void
pd_session_view_reload (PdSessionView *self)
{
  g_return_if_fail (PD_IS_SESSION_VIEW (self));

  pd_session_view_start (self);
}

static void on_source_changed (PdSessionView *self);

/* A new source or session: forget everything, read when shown. */
static void
pd_session_view_restart (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  PdSessionViewClass *klass = PD_SESSION_VIEW_GET_CLASS (self);
  gboolean was_busy = priv->in_flight;

  g_cancellable_cancel (priv->cancellable);
  g_clear_object (&priv->cancellable);
  priv->cancellable = g_cancellable_new ();
  priv->in_flight = FALSE;
  priv->again = FALSE;
  priv->stale = FALSE;
  priv->shown_once = FALSE;
  pd_session_view_show_error (self, NULL);

  if (klass->clear != NULL)
    klass->clear (self);

  if (priv->source != NULL && priv->session_id != NULL && klass->reload != NULL)
    pd_session_view_begin_loading (self);
  else
    pd_session_view_end_loading (self);

  /* Read when first shown: opening a session reads the page in sight, not
   * every page (a transcript of 300,000 plan calls was read for each). */
  on_source_changed (self);
  if (was_busy && !priv->in_flight)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
on_source_changed (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  if (priv->visible_now ||
      (hidden_reading_classes != NULL &&
       g_hash_table_contains (hidden_reading_classes, GSIZE_TO_POINTER (G_OBJECT_TYPE (self)))))
    pd_session_view_start (self);
  else
    priv->stale = TRUE;
}

static void
on_tick (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  /* A tick during a slow reply is skipped, not queued. */
  if (!priv->in_flight)
    pd_session_view_start (self);
}

/**
 * pd_session_view_queue_reload:
 *
 * Reads again now when the view is in sight (merged with a reload in
 * flight); a hidden view reads nothing and reads once when shown again.
 */
void
pd_session_view_queue_reload (PdSessionView *self)
{
  g_return_if_fail (PD_IS_SESSION_VIEW (self));

  on_source_changed (self);
}

/* --- when the view is seen ----------------------------------------------- */

static gboolean
pd_session_view_is_minimized (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  return priv->surface != NULL && GDK_IS_TOPLEVEL (priv->surface) &&
         (gdk_toplevel_get_state (GDK_TOPLEVEL (priv->surface)) & GDK_TOPLEVEL_STATE_MINIMIZED) != 0;
}

static void
pd_session_view_update_visibility (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);
  gboolean visible = gtk_widget_get_mapped (GTK_WIDGET (self)) && !pd_session_view_is_minimized (self);
  gboolean was_visible = priv->visible_now;

  priv->visible_now = visible;
  if (priv->timer != NULL)
    pd_poll_timer_set_visible (priv->timer, visible);

  /* Coming back into view shows the present at once: what changed while
   * hidden, and for a polling view whatever a poll would have found. */
  if (visible && !was_visible && (priv->stale || priv->timer != NULL))
    pd_session_view_start (self);
}

static void
on_root_active_changed (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  if (priv->root != NULL && gtk_window_is_active (GTK_WINDOW (priv->root)) &&
      priv->visible_now && (priv->stale || priv->timer != NULL))
    pd_session_view_start (self);
}

static void
pd_session_view_watch_toplevel (PdSessionView *self,
                                gboolean       watch)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  if (priv->root != NULL)
    g_clear_signal_handler (&priv->active_handler, priv->root);
  if (priv->surface != NULL)
    g_clear_signal_handler (&priv->state_handler, priv->surface);
  g_clear_weak_pointer (&priv->root);
  g_clear_weak_pointer (&priv->surface);

  if (!watch)
    return;

  g_set_weak_pointer (&priv->root, gtk_widget_get_root (GTK_WIDGET (self)));
  if (priv->root != NULL && GTK_IS_WINDOW (priv->root))
    {
      priv->active_handler = g_signal_connect_swapped (priv->root, "notify::is-active",
                                                       G_CALLBACK (on_root_active_changed), self);
      g_set_weak_pointer (&priv->surface, gtk_native_get_surface (GTK_NATIVE (priv->root)));
      if (priv->surface != NULL)
        priv->state_handler = g_signal_connect_swapped (priv->surface, "notify::state",
                                                        G_CALLBACK (pd_session_view_update_visibility), self);
    }
}

static void
pd_session_view_map (GtkWidget *widget)
{
  PdSessionView *self = PD_SESSION_VIEW (widget);

  GTK_WIDGET_CLASS (pd_session_view_parent_class)->map (widget);

  pd_session_view_watch_toplevel (self, TRUE);
  pd_session_view_update_visibility (self);
}

static void
pd_session_view_unmap (GtkWidget *widget)
{
  PdSessionView *self = PD_SESSION_VIEW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  GTK_WIDGET_CLASS (pd_session_view_parent_class)->unmap (widget);

  /* Hidden (another page shown) with the focus inside, the view lets go of
   * it.  GTK 4.8 moves the focus out of a hidden widget at its next frame
   * and holds that widget until then; when a widget inside that holds the
   * focus goes first (a row removed, the content hidden for a switch), it
   * replaces the one it holds without letting go of it.  The view was so
   * never freed (tried in a loaded test run: the Events view outlived its
   * window).  GTK still moves the focus at that frame, as before. */
  if (focus != NULL && gtk_widget_get_mapped (GTK_WIDGET (root)) && gtk_widget_is_ancestor (focus, widget))
    gtk_root_set_focus (root, NULL);

  pd_session_view_watch_toplevel (self, FALSE);
  pd_session_view_update_visibility (self);
}

/* --- GObject --------------------------------------------------------------- */

/* The cadence of the preferences (Refresh), read when the view is made. */
static PdPollTimer *
new_poll_timer (void)
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
pd_session_view_constructed (GObject *object)
{
  PdSessionView *self = PD_SESSION_VIEW (object);
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  G_OBJECT_CLASS (pd_session_view_parent_class)->constructed (object);

  /* Here, not in init: during init the instance is not of its class yet. */
  if (polling_classes != NULL &&
      g_hash_table_contains (polling_classes, GSIZE_TO_POINTER (G_OBJECT_TYPE (self))))
    {
      priv->timer = new_poll_timer ();
      g_signal_connect_swapped (priv->timer, "tick", G_CALLBACK (on_tick), self);
      pd_poll_timer_set_running (priv->timer, priv->running);
      pd_poll_timer_set_visible (priv->timer, priv->visible_now);
    }

  /* The subclass's children (its template) fill what the error bar leaves. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (!is_own_child (priv, child))
      gtk_widget_set_vexpand (child, TRUE);
}

static void
pd_session_view_dispose (GObject *object)
{
  PdSessionView *self = PD_SESSION_VIEW (object);
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_cancellable_cancel (priv->cancellable);
  g_clear_handle_id (&priv->loading_source, g_source_remove);
  pd_session_view_watch_toplevel (self, FALSE);
  if (priv->timer != NULL)
    g_signal_handlers_disconnect_by_data (priv->timer, self);
  g_clear_object (&priv->timer);
  if (priv->source != NULL)
    {
      g_clear_signal_handler (&priv->changed_id, priv->source);
      g_clear_signal_handler (&priv->connection_id, priv->source);
    }
  g_clear_object (&priv->source);

  if (priv->error_bar != NULL && gtk_widget_get_parent (priv->error_bar) == GTK_WIDGET (self))
    gtk_widget_unparent (priv->error_bar);
  if (priv->error_page != NULL && gtk_widget_get_parent (priv->error_page) == GTK_WIDGET (self))
    gtk_widget_unparent (priv->error_page);
  if (priv->loading_page != NULL && gtk_widget_get_parent (priv->loading_page) == GTK_WIDGET (self))
    gtk_widget_unparent (priv->loading_page);
  g_clear_object (&priv->error_bar);
  g_clear_object (&priv->error_page);
  g_clear_object (&priv->loading_page);
  priv->loading_spinner = NULL;
  priv->error_bar_label = NULL;

  G_OBJECT_CLASS (pd_session_view_parent_class)->dispose (object);
}

static void
pd_session_view_finalize (GObject *object)
{
  PdSessionView *self = PD_SESSION_VIEW (object);
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_clear_object (&priv->cancellable);
  g_free (priv->session_id);
  g_free (priv->error);

  G_OBJECT_CLASS (pd_session_view_parent_class)->finalize (object);
}

static void
pd_session_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PdSessionView *self = PD_SESSION_VIEW (object);
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_object (value, priv->source);
      break;
    case PROP_SESSION_ID:
      g_value_set_string (value, priv->session_id);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, priv->running);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, pd_session_view_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  PdSessionView *self = PD_SESSION_VIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      pd_session_view_set_source (self, g_value_get_object (value));
      break;
    case PROP_SESSION_ID:
      pd_session_view_set_session_id (self, g_value_get_string (value));
      break;
    case PROP_RUNNING:
      pd_session_view_set_running (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_view_class_init (PdSessionViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = pd_session_view_constructed;
  object_class->dispose = pd_session_view_dispose;
  object_class->finalize = pd_session_view_finalize;
  object_class->get_property = pd_session_view_get_property;
  object_class->set_property = pd_session_view_set_property;

  widget_class->map = pd_session_view_map;
  widget_class->unmap = pd_session_view_unmap;

  /**
   * PdSessionView:source:
   *
   * Where the session is read from.
   */
  properties[PROP_SOURCE] =
    g_param_spec_object ("source", NULL, NULL,
                         PD_TYPE_SOURCE,
                         (G_PARAM_READWRITE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));
  /**
   * PdSessionView:session-id:
   *
   * The session shown, or %NULL.
   */
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));
  /**
   * PdSessionView:running:
   *
   * Whether the session's run is active: a polling view polls faster.
   */
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE |
                           G_PARAM_EXPLICIT_NOTIFY |
                           G_PARAM_STATIC_STRINGS));
  /**
   * PdSessionView:busy:
   *
   * Whether a reload is in flight.
   */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE |
                           G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  /* A group named for its page ("Now", "Sessions"): a reader met it by its
   * class, "PdNowView" (issue 23). */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
pd_session_view_init (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  priv->cancellable = g_cancellable_new ();
}

/**
 * pd_session_view_class_set_reads_hidden:
 * @reads_hidden: whether the views of @klass read on ::changed while
 *   hidden too (another view shows what they find: the Events view's
 *   notices are the Now page's), instead of when shown again
 */
void
pd_session_view_class_set_reads_hidden (PdSessionViewClass *klass,
                                        gboolean            reads_hidden)
{
  g_return_if_fail (PD_IS_SESSION_VIEW_CLASS (klass));

  if (hidden_reading_classes == NULL)
    hidden_reading_classes = g_hash_table_new (NULL, NULL);
  if (reads_hidden)
    g_hash_table_add (hidden_reading_classes, GSIZE_TO_POINTER (G_TYPE_FROM_CLASS (klass)));
  else
    g_hash_table_remove (hidden_reading_classes, GSIZE_TO_POINTER (G_TYPE_FROM_CLASS (klass)));
}

/**
 * pd_session_view_class_set_polls:
 * @polls: whether the views of @klass also poll (the fallback of the push)
 */
void
pd_session_view_class_set_polls (PdSessionViewClass *klass,
                                 gboolean            polls)
{
  g_return_if_fail (PD_IS_SESSION_VIEW_CLASS (klass));

  if (polling_classes == NULL)
    polling_classes = g_hash_table_new (NULL, NULL);
  if (polls)
    g_hash_table_add (polling_classes, GSIZE_TO_POINTER (G_TYPE_FROM_CLASS (klass)));
  else
    g_hash_table_remove (polling_classes, GSIZE_TO_POINTER (G_TYPE_FROM_CLASS (klass)));
}

PdSource *
pd_session_view_get_source (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), NULL);
  return priv->source;
}

/**
 * pd_session_view_set_source:
 * @source: (nullable): where sessions are read from
 */
void
pd_session_view_set_source (PdSessionView *self,
                            PdSource      *source)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_if_fail (PD_IS_SESSION_VIEW (self));
  g_return_if_fail (source == NULL || PD_IS_SOURCE (source));

  if (priv->source == source)
    return;

  if (priv->source != NULL)
    {
      g_clear_signal_handler (&priv->changed_id, priv->source);
      g_clear_signal_handler (&priv->connection_id, priv->source);
    }
  g_set_object (&priv->source, source);
  if (source != NULL)
    priv->changed_id = g_signal_connect_object (source, "changed", G_CALLBACK (on_source_changed),
                                                self, G_CONNECT_SWAPPED);
  if (source != NULL && PD_IS_REMOTE_SOURCE (source))
    priv->connection_id = g_signal_connect_object (source, "notify::state",
                                                   G_CALLBACK (pd_session_view_update_error_bar),
                                                   self, G_CONNECT_SWAPPED);

  pd_session_view_restart (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
}

const char *
pd_session_view_get_session_id (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), NULL);
  return priv->session_id;
}

/**
 * pd_session_view_set_session_id:
 * @session_id: (nullable): the session to show
 */
void
pd_session_view_set_session_id (PdSessionView *self,
                                const char    *session_id)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_if_fail (PD_IS_SESSION_VIEW (self));

  if (g_strcmp0 (priv->session_id, session_id) == 0)
    return;

  g_free (priv->session_id);
  priv->session_id = g_strdup (session_id);

  pd_session_view_restart (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
}

gboolean
pd_session_view_get_running (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), FALSE);
  return priv->running;
}

void
pd_session_view_set_running (PdSessionView *self,
                             gboolean       running)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_if_fail (PD_IS_SESSION_VIEW (self));

  running = !!running;
  if (priv->running == running)
    return;

  priv->running = running;
  if (priv->timer != NULL)
    pd_poll_timer_set_running (priv->timer, running);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

/**
 * pd_session_view_get_busy:
 *
 * Returns: whether a reload is in flight or asked for
 */
gboolean
pd_session_view_get_busy (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), FALSE);
  return priv->in_flight || priv->again;
}

/**
 * pd_session_view_get_visible_now:
 *
 * Returns: whether the view can be seen (mapped, its window not minimised)
 */
gboolean
pd_session_view_get_visible_now (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), FALSE);
  return priv->visible_now;
}

/**
 * pd_session_view_get_error:
 *
 * Returns: (nullable): why the last reload failed, or %NULL
 */
const char *
pd_session_view_get_error (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), NULL);
  return priv->error;
}

guint
pd_session_view_get_n_reloads (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), 0);
  return priv->n_reloads;
}

/**
 * pd_session_view_get_poll_timer:
 *
 * Returns: (transfer none) (nullable): the #PdPollTimer of a polling view
 */
GObject *
pd_session_view_get_poll_timer (PdSessionView *self)
{
  PdSessionViewPrivate *priv = pd_session_view_get_instance_private (self);

  g_return_val_if_fail (PD_IS_SESSION_VIEW (self), NULL);
  return (GObject *) priv->timer;
}

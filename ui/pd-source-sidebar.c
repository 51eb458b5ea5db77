/* pd-source-sidebar.c: the sidebar's list of a window's sources
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Over the session list of a window with more than one source: "All
 * Sources", then each source with its name and its state in words and an
 * icon (an endpoint connecting, connected, unreachable or refusing the
 * token, or answering without its list: "Bad reply"; this computer's
 * database when it cannot be read).  Choosing one
 * shows its sessions alone (PdWindow sets the session list's source).  The
 * rows are built again when the list changes: it holds a few sources.
 */
#define G_LOG_DOMAIN "pd-source-sidebar"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-remote-source.h"
#include "pd-source-sidebar.h"
#include "pd-ui-util-private.h"

struct _PdSourceSidebar
{
  GtkWidget      parent_instance;

  PdMultiSource *multi;
  PdSourceList  *sources;
  GtkListBox    *list_box;
  GtkWidget     *scroller;    /* the list box's: 50 sources kept the window from shrinking */
  GtkWidget     *separator;
  GPtrArray     *watched;     /* (element-type PdRemoteSource) */
  GHashTable    *errors;      /* PdSource → its last listing's GError */
  PdSource      *selected;    /* (nullable) NULL: all sources */
  gboolean       rebuilding;
};

G_DEFINE_FINAL_TYPE (PdSourceSidebar, pd_source_sidebar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SELECTED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/**
 * pd_source_sidebar_dup_state:
 * @icon_name: (out) (optional): an icon for the state
 *
 * Returns: (transfer full) (nullable): the state of @source in words, %NULL
 *   when there is nothing to say (a database that reads)
 */
char *
pd_source_sidebar_dup_state (PdSourceSidebar *self,
                             PdSource        *source,
                             const char     **icon_name)
{
  const GError *error = g_hash_table_lookup (self->errors, source);
  const char *icon = "computer-symbolic";
  char *state = NULL;

  if (PD_IS_REMOTE_SOURCE (source))
    {
      switch (pd_remote_source_get_state (PD_REMOTE_SOURCE (source)))
        {
        case PD_REMOTE_CONNECTING:
          icon = "network-idle-symbolic";
          state = g_strdup (_("Connecting"));
          break;
        case PD_REMOTE_ONLINE:
          /* It answers, but its list did not come: it is not "Connected"
           * (an endpoint sending garbage or an endless reply said so). */
          if (error != NULL && g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE))
            {
              icon = "network-idle-symbolic";
              state = g_strdup (_("Not answering"));
            }
          else if (error != NULL)
            {
              icon = "dialog-warning-symbolic";
              state = g_strdup (_("Bad reply"));
            }
          else
            {
              icon = "network-transmit-receive-symbolic";
              state = g_strdup (_("Connected"));
            }
          break;
        case PD_REMOTE_OFFLINE:
          /* Our own, its arrows solid (Adwaita's drew them at 0.35:
           * 1.98:1, tried as a new user would; ui/icons/). */
          icon = "pd-endpoint-unreachable-symbolic";
          state = g_strdup (_("Unreachable"));
          break;
        case PD_REMOTE_DENIED:
        default:
          /* Its Host refused: no token helps (it read "Token refused"). */
          if (pd_remote_source_get_host_refused (PD_REMOTE_SOURCE (source)))
            {
              icon = "dialog-warning-symbolic";
              state = g_strdup (_("Address refused"));
              break;
            }
          icon = "dialog-password-symbolic";
          /* No token was sent: none was refused. */
          state = g_strdup (pd_remote_source_get_token (PD_REMOTE_SOURCE (source)) == NULL ? _("Token needed")
                                                                                            : _("Token refused"));
          break;
        }
    }
  else if (error != NULL)
    {
      icon = "dialog-warning-symbolic";
      state = g_strdup (_("Cannot be read"));
    }

  if (icon_name != NULL)
    *icon_name = icon;
  return state;
}

static void
pd_source_sidebar_fill_row (PdSourceSidebar *self,
                            GtkListBoxRow   *row)
{
  PdSource *source = g_object_get_data (G_OBJECT (row), "pd-source");
  GtkImage *image = g_object_get_data (G_OBJECT (row), "pd-icon");
  GtkLabel *name_label = g_object_get_data (G_OBJECT (row), "pd-name");
  GtkLabel *state_label = g_object_get_data (G_OBJECT (row), "pd-state");
  const char *name = source != NULL ? pd_source_list_get_name (self->sources, source) : _("All Sources");
  const char *icon = "view-list-symbolic";
  g_autofree char *state = NULL;
  g_autofree char *spoken = NULL;
  g_autofree char *safe_name = NULL;
  g_autofree char *safe_error = NULL;
  const GError *listing_error = source != NULL ? g_hash_table_lookup (self->errors, source) : NULL;
  const char *error = listing_error != NULL ? listing_error->message : NULL;

  if (source != NULL)
    state = pd_source_sidebar_dup_state (self, source, &icon);
  if (source != NULL && PD_IS_REMOTE_SOURCE (source) &&
      pd_remote_source_get_state_message (PD_REMOTE_SOURCE (source)) != NULL)
    error = pd_remote_source_get_state_message (PD_REMOTE_SOURCE (source));

  /* A name is the user's, but may be pasted from anywhere, and an error
   * may quote the endpoint: one line each, controls shown, isolated (a
   * name ending in U+202E ran into the state after it). */
  safe_name = _pd_isolated_short (name != NULL ? name : "", 240);
  if (state != NULL && error != NULL)
    safe_error = _pd_isolated_short (error, 1000);
  gtk_image_set_from_icon_name (image, icon);
  gtk_label_set_text (name_label, safe_name);
  /* The label a reader reads in the row, without its isolates. */
  _pd_accessible_set_text (GTK_WIDGET (name_label), safe_name, NULL);
  gtk_label_set_text (state_label, state != NULL ? state : "");
  gtk_widget_set_visible (GTK_WIDGET (state_label), state != NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row), safe_error);

  /* Translators: a source in the sidebar as a screen reader says it: its name, then its state */
  spoken = state != NULL ? g_strdup_printf (_("%s, %s"), safe_name, state) : g_strdup (safe_name);
  /* The tooltip is the row's description too: said without its isolates. */
  _pd_accessible_set_text (GTK_WIDGET (row), spoken, safe_error);
}

static GtkWidget *
pd_source_sidebar_new_row (PdSourceSidebar *self,
                           PdSource        *source)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  /* The icon says what the state label beside it says: kept out of the
   * reader's tree (a reader met it as "GtkImage", one a row). */
  GtkWidget *image = g_object_new (GTK_TYPE_IMAGE, "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *state = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (name, TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (state), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (state, "dim-label");
  gtk_widget_add_css_class (state, "caption");
  gtk_box_append (GTK_BOX (box), image);
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), state);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  g_object_set_data_full (G_OBJECT (row), "pd-source", source ? g_object_ref (source) : NULL, g_object_unref);
  g_object_set_data (G_OBJECT (row), "pd-icon", image);
  g_object_set_data (G_OBJECT (row), "pd-name", name);
  g_object_set_data (G_OBJECT (row), "pd-state", state);
  pd_source_sidebar_fill_row (self, GTK_LIST_BOX_ROW (row));
  return row;
}

static void
pd_source_sidebar_update_rows (PdSourceSidebar *self)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row))
      pd_source_sidebar_fill_row (self, GTK_LIST_BOX_ROW (row));
}

/* An endpoint's state changed: what its last listing said is older news.
 * An endpoint restarted with a new token read "Bad reply — HTTP 403 …
 * check the token" for a minute after the right one was given, while it
 * was chosen alone (its own listings do not come here, only those of all
 * sources; tried as a new user would). */
static void
on_source_state (PdSource        *source,
                 GParamSpec      *pspec,
                 PdSourceSidebar *self)
{
  g_hash_table_remove (self->errors, source);
  pd_source_sidebar_update_rows (self);
}

static void
pd_source_sidebar_unwatch (PdSourceSidebar *self)
{
  for (guint i = 0; i < self->watched->len; i++)
    g_signal_handlers_disconnect_by_func (g_ptr_array_index (self->watched, i),
                                          on_source_state, self);
  g_ptr_array_set_size (self->watched, 0);
}

/* The chosen row looks selected and says so; the list box selects nothing
 * itself (see pd_source_sidebar_init()). */
static void
pd_source_sidebar_mark_chosen (PdSourceSidebar *self)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      gboolean chosen;

      if (!GTK_IS_LIST_BOX_ROW (row))
        continue;
      chosen = g_object_get_data (G_OBJECT (row), "pd-source") == (gpointer) self->selected;
      if (chosen)
        gtk_widget_set_state_flags (row, GTK_STATE_FLAG_SELECTED, FALSE);
      else
        gtk_widget_unset_state_flags (row, GTK_STATE_FLAG_SELECTED);
      gtk_accessible_update_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_SELECTED, chosen, -1);
    }
}

static void
pd_source_sidebar_set_selected (PdSourceSidebar *self,
                                PdSource        *source)
{
  if (self->selected == source)
    return;
  g_set_object (&self->selected, source);
  pd_source_sidebar_mark_chosen (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
}

static void
pd_source_sidebar_rebuild (PdSourceSidebar *self)
{
  guint n = self->sources != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->sources)) : 0;
  GtkWidget *child;
  PdSource *selected = self->selected;

  self->rebuilding = TRUE;
  pd_source_sidebar_unwatch (self);
  {
    GHashTableIter iter;
    gpointer source;

    /* What a removed source said goes with it. */
    g_hash_table_iter_init (&iter, self->errors);
    while (g_hash_table_iter_next (&iter, &source, NULL))
      if (self->sources == NULL || !pd_source_list_find (self->sources, source, NULL))
        g_hash_table_iter_remove (&iter);
  }
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box))) != NULL)
    gtk_list_box_remove (self->list_box, child);

  if (n > 0)
    gtk_list_box_append (self->list_box, pd_source_sidebar_new_row (self, NULL));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);
      GtkWidget *row = pd_source_sidebar_new_row (self, source);

      gtk_list_box_append (self->list_box, row);
      if (PD_IS_REMOTE_SOURCE (source))
        {
          g_signal_connect (source, "notify::state", G_CALLBACK (on_source_state), self);
          g_ptr_array_add (self->watched, g_object_ref (source));
        }
    }
  pd_source_sidebar_mark_chosen (self);
  self->rebuilding = FALSE;

  /* A source removed while it was chosen: all of them again. */
  if (selected != NULL && !pd_source_list_find (self->sources, selected, NULL))
    pd_source_sidebar_set_selected (self, NULL);
  /* One source alone needs no choosing. */
  gtk_widget_set_visible (GTK_WIDGET (self), n > 1);
}

static void
on_listed (PdSourceSidebar *self,
           PdSource        *source,
           const GError    *error)
{
  const GError *before = g_hash_table_lookup (self->errors, source);

  if (error == NULL && before == NULL)
    return;
  if (error != NULL && before != NULL && g_error_matches (before, error->domain, error->code) &&
      g_strcmp0 (before->message, error->message) == 0)
    return;
  if (error != NULL)
    g_hash_table_replace (self->errors, source, g_error_copy (error));
  else
    g_hash_table_remove (self->errors, source);
  pd_source_sidebar_update_rows (self);
}

static void
on_row_activated (PdSourceSidebar *self,
                  GtkListBoxRow   *row)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if (self->rebuilding || row == NULL)
    return;
  pd_source_sidebar_set_selected (self, g_object_get_data (G_OBJECT (row), "pd-source"));
  /* A click: the focus, which came in on the row chosen before, goes to
   * the row clicked. */
  if (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->list_box)) && focus != GTK_WIDGET (row))
    gtk_widget_grab_focus (GTK_WIDGET (row));
}

/* The focus coming into the list from outside (Tab, Shift+Tab) lands on
 * the chosen row: GtkListBox, which selects nothing itself here, gives it
 * to its first or last row. */
static gboolean
pd_source_sidebar_focus (GtkWidget        *widget,
                         GtkDirectionType  direction)
{
  PdSourceSidebar *self = PD_SOURCE_SIDEBAR (widget);
  GtkWidget *list = GTK_WIDGET (self->list_box);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if ((direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD) &&
      gtk_widget_get_can_focus (list) && gtk_widget_get_mapped (list) &&
      (focus == NULL || (focus != list && !gtk_widget_is_ancestor (focus, list))))
    for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
      if (GTK_IS_LIST_BOX_ROW (row) && g_object_get_data (G_OBJECT (row), "pd-source") == (gpointer) self->selected &&
          gtk_widget_grab_focus (row))
        return TRUE;
  return GTK_WIDGET_CLASS (pd_source_sidebar_parent_class)->focus (widget, direction);
}

/**
 * pd_source_sidebar_set_sources:
 * @multi: (nullable): the window's sources, read through one source
 */
void
pd_source_sidebar_set_sources (PdSourceSidebar *self,
                               PdMultiSource   *multi)
{
  g_return_if_fail (PD_IS_SOURCE_SIDEBAR (self));

  if (self->multi == multi)
    return;
  if (self->multi != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->multi, on_listed, self);
      g_signal_handlers_disconnect_by_func (self->sources, pd_source_sidebar_rebuild, self);
    }
  g_hash_table_remove_all (self->errors);
  g_set_object (&self->multi, multi);
  g_clear_object (&self->sources);
  if (multi != NULL)
    {
      self->sources = g_object_ref (pd_multi_source_get_sources (multi));
      g_signal_connect_swapped (multi, "listed", G_CALLBACK (on_listed), self);
      g_signal_connect_swapped (self->sources, "items-changed", G_CALLBACK (pd_source_sidebar_rebuild), self);
    }
  pd_source_sidebar_set_selected (self, NULL);
  pd_source_sidebar_rebuild (self);
}

/* Returns: (transfer none) (nullable): the source chosen; %NULL for all */
PdSource *
pd_source_sidebar_get_selected (PdSourceSidebar *self)
{
  g_return_val_if_fail (PD_IS_SOURCE_SIDEBAR (self), NULL);

  return self->selected;
}

/* Chooses @source (%NULL: all sources), as a click on its row does. */
void
pd_source_sidebar_select (PdSourceSidebar *self,
                          PdSource        *source)
{
  g_return_if_fail (PD_IS_SOURCE_SIDEBAR (self));

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row) && g_object_get_data (G_OBJECT (row), "pd-source") == (gpointer) source)
      on_row_activated (self, GTK_LIST_BOX_ROW (row));
}

static void
pd_source_sidebar_dispose (GObject *object)
{
  PdSourceSidebar *self = PD_SOURCE_SIDEBAR (object);

  pd_source_sidebar_set_sources (self, NULL);
  if (self->watched != NULL)
    pd_source_sidebar_unwatch (self);
  g_clear_object (&self->selected);
  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  self->list_box = NULL;
  g_clear_pointer (&self->separator, gtk_widget_unparent);

  G_OBJECT_CLASS (pd_source_sidebar_parent_class)->dispose (object);
}

static void
pd_source_sidebar_finalize (GObject *object)
{
  PdSourceSidebar *self = PD_SOURCE_SIDEBAR (object);

  g_clear_pointer (&self->watched, g_ptr_array_unref);
  g_clear_pointer (&self->errors, g_hash_table_unref);

  G_OBJECT_CLASS (pd_source_sidebar_parent_class)->finalize (object);
}

static void
pd_source_sidebar_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  PdSourceSidebar *self = PD_SOURCE_SIDEBAR (object);

  switch (prop_id)
    {
    case PROP_SELECTED:
      g_value_set_object (value, self->selected);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_source_sidebar_class_init (PdSourceSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_source_sidebar_dispose;
  object_class->finalize = pd_source_sidebar_finalize;
  object_class->get_property = pd_source_sidebar_get_property;

  /**
   * PdSourceSidebar:selected:
   *
   * The source whose sessions are shown, or %NULL for all of them.
   */
  properties[PROP_SELECTED] =
    g_param_spec_object ("selected", NULL, NULL, PD_TYPE_SOURCE,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  widget_class->focus = pd_source_sidebar_focus;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "pdsourcesidebar");
}

static void
pd_source_sidebar_init (PdSourceSidebar *self)
{
  self->watched = g_ptr_array_new_with_free_func (g_object_unref);
  self->errors = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) g_error_free);
  self->list_box = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_widget_add_css_class (GTK_WIDGET (self->list_box), "navigation-sidebar");
  /* Choosing is activating (a click, Enter, Space): a list box that
   * selects chose each source the focus passed, and read the session list
   * again, as the person tabbed or arrowed through (tried with the
   * keyboard alone). One Tab stop, the arrows inside. */
  gtk_list_box_set_selection_mode (self->list_box, GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (self->list_box, TRUE);
  _pd_list_one_tab_stop (GTK_WIDGET (self->list_box));
  _pd_accessible_set_text (GTK_WIDGET (self->list_box), _("Sources"), NULL);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  /* The sources scroll, at most about five rows high and as small as one:
   * with 50 of them the window could not shrink, and the last ones lay
   * past its bottom, out of reach (tried as a new user would). */
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  {
    PangoContext *context = gtk_widget_get_pango_context (GTK_WIDGET (self));
    PangoFontMetrics *metrics = pango_context_get_metrics (context, NULL, NULL);
    int line = (pango_font_metrics_get_ascent (metrics) + pango_font_metrics_get_descent (metrics)) / PANGO_SCALE;

    pango_font_metrics_unref (metrics);
    gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scroller), MAX (line, 10) * 14);
  }
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), GTK_WIDGET (self->list_box));
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  /* Apart from the sessions under it. */
  self->separator = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_widget_set_parent (self->separator, GTK_WIDGET (self));
  g_signal_connect_swapped (self->list_box, "row-activated", G_CALLBACK (on_row_activated), self);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

/* pd-session-row.c: one row of the session list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The template binds the labels to the PdSessionItem; the code keeps the
 * status icon's accessible name and the status style class in step.
 */
#define G_LOG_DOMAIN "pd-session-row"

#include "config.h"

#include "pd-plan-pie.h"
#include "pd-session-row.h"

struct _PdSessionRow
{
  AdwBin         parent_instance;

  PdSessionItem *item;
  gulong         status_handler;

  GtkImage      *status_icon;
};

G_DEFINE_FINAL_TYPE (PdSessionRow, pd_session_row, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
pd_session_row_sync_status (PdSessionRow *self)
{
  static const char * const classes[] = { "running", "failed", "idle", "interrupted" };
  GtkWidget *icon = GTK_WIDGET (self->status_icon);
  const char *label = NULL;
  const char *wanted = NULL;

  if (self->item != NULL)
    {
      const PdSessionInfo *info = pd_session_item_get_info (self->item);

      label = pd_session_item_get_status_label (self->item);
      gtk_image_set_from_icon_name (self->status_icon, pd_session_item_get_status_icon (self->item));
      wanted = info->status == PD_SESSION_STATUS_RUNNING ? "running"
             : info->status == PD_SESSION_STATUS_FAILED ? "failed"
             : info->status == PD_SESSION_STATUS_INTERRUPTED ? "interrupted" : "idle";
    }

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    if (g_strcmp0 (classes[i], wanted) != 0)
      gtk_widget_remove_css_class (icon, classes[i]);
  if (wanted != NULL)
    gtk_widget_add_css_class (icon, wanted);

  gtk_widget_set_tooltip_text (icon, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label != NULL ? label : "",
                                  -1);
}

static void
on_item_status_changed (PdSessionRow *self)
{
  pd_session_row_sync_status (self);
}

static void
pd_session_row_dispose (GObject *object)
{
  PdSessionRow *self = PD_SESSION_ROW (object);

  pd_session_row_set_item (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_SESSION_ROW);

  G_OBJECT_CLASS (pd_session_row_parent_class)->dispose (object);
}

static void
pd_session_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PdSessionRow *self = PD_SESSION_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  PdSessionRow *self = PD_SESSION_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      pd_session_row_set_item (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_row_class_init (PdSessionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_session_row_dispose;
  object_class->get_property = pd_session_row_get_property;
  object_class->set_property = pd_session_row_set_property;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, PD_TYPE_SESSION_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PD_TYPE_PLAN_PIE);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-session-row.ui");
  gtk_widget_class_bind_template_child (widget_class, PdSessionRow, status_icon);
  gtk_widget_class_set_css_name (widget_class, "session-row");
}

static void
pd_session_row_init (PdSessionRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

PdSessionItem *
pd_session_row_get_item (PdSessionRow *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ROW (self), NULL);

  return self->item;
}

void
pd_session_row_set_item (PdSessionRow  *self,
                         PdSessionItem *item)
{
  g_return_if_fail (PD_IS_SESSION_ROW (self));
  g_return_if_fail (item == NULL || PD_IS_SESSION_ITEM (item));

  if (self->item == item)
    return;

  if (self->item != NULL)
    g_clear_signal_handler (&self->status_handler, self->item);
  g_set_object (&self->item, item);
  if (item != NULL)
    self->status_handler = g_signal_connect_swapped (item, "notify::status-icon",
                                                     G_CALLBACK (on_item_status_changed), self);

  pd_session_row_sync_status (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

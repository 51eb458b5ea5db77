/* pd-row-name.c: names the list row it is placed in
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On GTK 4.8 a row of a GtkColumnView (or GtkListView) cannot be named:
 * the row widget is GTK's own, and its list item has no accessible
 * properties before GTK 4.12. A screen reader on an Events row said only
 * its class. A PdRowName sits, hidden, in a cell of the row; its text is
 * bound to the item like any label, and it sets that text as the
 * accessible name of the row it is in each time the row is given an item
 * (rows are reused while scrolling) and whenever it moves to another row.
 */
#define G_LOG_DOMAIN "pd-row-name"

#include "config.h"

#include "pd-row-name.h"
#include "pd-ui-util-private.h"

struct _PdRowName
{
  GtkWidget  parent_instance;

  char      *text;
};

G_DEFINE_FINAL_TYPE (PdRowName, pd_row_name, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The row: the nearest ancestor a screen reader meets as a row (a column
 * view's) or a list item (a list view's). */
static GtkWidget *
pd_row_name_find_row (PdRowName *self)
{
  for (GtkWidget *w = gtk_widget_get_parent (GTK_WIDGET (self)); w != NULL; w = gtk_widget_get_parent (w))
    {
      GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (w));

      if (role == GTK_ACCESSIBLE_ROLE_ROW || role == GTK_ACCESSIBLE_ROLE_LIST_ITEM)
        return w;
    }
  return NULL;
}

static void
pd_row_name_apply (PdRowName *self)
{
  GtkWidget *row = pd_row_name_find_row (self);

  if (row == NULL)
    return;
  if (self->text != NULL && *self->text != '\0')
    _pd_accessible_set_text (GTK_WIDGET (row), self->text, NULL);
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

/* A cell is put in its row after its template is built: the row is named
 * once the widget is in the window too. */
static void
pd_row_name_root (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (pd_row_name_parent_class)->root (widget);
  pd_row_name_apply (PD_ROW_NAME (widget));
}

static void
pd_row_name_finalize (GObject *object)
{
  PdRowName *self = PD_ROW_NAME (object);

  g_free (self->text);

  G_OBJECT_CLASS (pd_row_name_parent_class)->finalize (object);
}

static void
pd_row_name_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  PdRowName *self = PD_ROW_NAME (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_row_name_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  PdRowName *self = PD_ROW_NAME (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      pd_row_name_set_text (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_row_name_class_init (PdRowNameClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = pd_row_name_finalize;
  object_class->get_property = pd_row_name_get_property;
  object_class->set_property = pd_row_name_set_property;
  widget_class->root = pd_row_name_root;

  /**
   * PdRowName:text:
   *
   * The accessible name of the row the widget is in.
   */
  properties[PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, NULL,
                         (G_PARAM_READWRITE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Nothing to say of its own: the row says it. */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_PRESENTATION);
}

static void
pd_row_name_init (PdRowName *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

const char *
pd_row_name_get_text (PdRowName *self)
{
  g_return_val_if_fail (PD_IS_ROW_NAME (self), NULL);

  return self->text;
}

void
pd_row_name_set_text (PdRowName  *self,
                      const char *text)
{
  g_return_if_fail (PD_IS_ROW_NAME (self));

  if (g_strcmp0 (self->text, text) == 0)
    return;
  g_free (self->text);
  self->text = g_strdup (text);
  pd_row_name_apply (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
}

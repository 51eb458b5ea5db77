/* pd-entry-row.c: a preferences row holding a text field a screen reader finds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2's AdwEntryRow draws its title inside the field, but the
 * GtkText that takes the focus and holds the text has no accessible role
 * on GTK 4.8: over AT-SPI no node was ever focused in it and none held its
 * text, so a screen reader said nothing while one typed a base URL or a
 * key (tried as a screen-reader user would). A PdEntryRow is an
 * AdwActionRow with its title beside a real GtkEntry (a GtkPasswordEntry
 * for a key or token, "password text" to AT-SPI) that fills the rest of
 * the row; the row makes the field its activatable widget, so the field is
 * labelled by the row's title and described by its subtitle.
 *
 * It keeps what the entry rows did: it is a GtkEditable (delegating to the
 * field), ::entry-activated on Enter, and with :show-apply-button an Apply
 * button that shows once the text is edited, ::apply from it or from Enter.
 */
#define G_LOG_DOMAIN "pd-entry-row"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-entry-row.h"
#include "pd-ui-util-private.h"

struct _PdEntryRow
{
  AdwActionRow  parent_instance;

  GtkWidget    *entry;
  GtkWidget    *apply_button;
  gboolean      password;
  gboolean      show_apply_button;
  gboolean      text_changed;
  GtkInputPurpose input_purpose;
};

static void pd_entry_row_editable_init (GtkEditableInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdEntryRow, pd_entry_row, ADW_TYPE_ACTION_ROW,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_EDITABLE, pd_entry_row_editable_init))

enum {
  PROP_0,
  PROP_PASSWORD,
  PROP_SHOW_APPLY_BUTTON,
  PROP_INPUT_PURPOSE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_APPLY,
  SIGNAL_ENTRY_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkEditable *
pd_entry_row_get_delegate (GtkEditable *editable)
{
  PdEntryRow *self = PD_ENTRY_ROW (editable);

  return GTK_EDITABLE (self->entry);
}

static void
pd_entry_row_editable_init (GtkEditableInterface *iface)
{
  iface->get_delegate = pd_entry_row_get_delegate;
}

static void
pd_entry_row_update_apply (PdEntryRow *self)
{
  gtk_widget_set_visible (self->apply_button, self->show_apply_button && self->text_changed);
}

/* As libadwaita's row: only an edit made in the field (not text set by
 * the program) offers Apply. */
static void
on_changed (PdEntryRow *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if (self->show_apply_button && focus != NULL && gtk_widget_is_ancestor (focus, self->entry))
    {
      self->text_changed = TRUE;
      pd_entry_row_update_apply (self);
    }
}

static void
pd_entry_row_apply (PdEntryRow *self)
{
  if (gtk_widget_has_focus (self->apply_button))
    gtk_widget_grab_focus (self->entry);
  self->text_changed = FALSE;
  pd_entry_row_update_apply (self);
  g_signal_emit (self, signals[SIGNAL_APPLY], 0);
}

static void
on_activate (PdEntryRow *self)
{
  if (gtk_widget_get_visible (self->apply_button))
    pd_entry_row_apply (self);
  else
    g_signal_emit (self, signals[SIGNAL_ENTRY_ACTIVATED], 0);
}

static gboolean
pd_entry_row_grab_focus (GtkWidget *widget)
{
  PdEntryRow *self = PD_ENTRY_ROW (widget);

  return gtk_widget_grab_focus (self->entry);
}

/* Shift+Tab from the field leaves the row: the row took the focus and gave
 * it back to its field, and there it stayed (tried with a screen reader's
 * view). */
static gboolean
pd_entry_row_focus (GtkWidget        *widget,
                    GtkDirectionType  direction)
{
  PdEntryRow *self = PD_ENTRY_ROW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if ((direction == GTK_DIR_TAB_BACKWARD || direction == GTK_DIR_UP) && focus != NULL &&
      (focus == self->entry || gtk_widget_is_ancestor (focus, self->entry)))
    return FALSE;
  return GTK_WIDGET_CLASS (pd_entry_row_parent_class)->focus (widget, direction);
}

static void
pd_entry_row_constructed (GObject *object)
{
  PdEntryRow *self = PD_ENTRY_ROW (object);

  G_OBJECT_CLASS (pd_entry_row_parent_class)->constructed (object);

  if (self->password)
    {
      self->entry = gtk_password_entry_new ();
      gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (self->entry), TRUE);
      /* Its Show Text and Caps Lock icons, named by their tooltips. */
      _pd_images_speak (self->entry);
    }
  else
    {
      self->entry = gtk_entry_new ();
      gtk_entry_set_input_purpose (GTK_ENTRY (self->entry), self->input_purpose);
    }
  /* The field takes the room the title leaves; on a phone it shrinks to a
   * few characters rather than push the row wider than the window. */
  gtk_editable_set_width_chars (GTK_EDITABLE (self->entry), 6);
  gtk_widget_set_hexpand (self->entry, TRUE);
  gtk_widget_set_valign (self->entry, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->entry, "pd-entry-row-field");
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->entry);
  /* Labelled by the title, described by the subtitle (libadwaita sets the
   * relations on an action row's activatable widget). */
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self), self->entry);
  gtk_editable_init_delegate (GTK_EDITABLE (self));
  g_signal_connect_swapped (self->entry, "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->entry, "activate", G_CALLBACK (on_activate), self);

  self->apply_button = gtk_button_new_from_icon_name ("object-select-symbolic");
  gtk_widget_set_valign (self->apply_button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (self->apply_button, _("Apply"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->apply_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Apply"), -1);
  gtk_widget_add_css_class (self->apply_button, "suggested-action");
  gtk_widget_add_css_class (self->apply_button, "circular");
  gtk_widget_set_visible (self->apply_button, FALSE);
  g_signal_connect_swapped (self->apply_button, "clicked", G_CALLBACK (pd_entry_row_apply), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->apply_button);
}

static void
pd_entry_row_dispose (GObject *object)
{
  PdEntryRow *self = PD_ENTRY_ROW (object);

  if (self->entry != NULL)
    gtk_editable_finish_delegate (GTK_EDITABLE (self));
  self->entry = NULL;
  self->apply_button = NULL;

  G_OBJECT_CLASS (pd_entry_row_parent_class)->dispose (object);
}

static void
pd_entry_row_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  PdEntryRow *self = PD_ENTRY_ROW (object);

  if (gtk_editable_delegate_get_property (object, prop_id, value, pspec))
    return;

  switch (prop_id)
    {
    case PROP_PASSWORD:
      g_value_set_boolean (value, self->password);
      break;
    case PROP_SHOW_APPLY_BUTTON:
      g_value_set_boolean (value, self->show_apply_button);
      break;
    case PROP_INPUT_PURPOSE:
      g_value_set_enum (value, self->input_purpose);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_entry_row_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  PdEntryRow *self = PD_ENTRY_ROW (object);

  if (gtk_editable_delegate_set_property (object, prop_id, value, pspec))
    return;

  switch (prop_id)
    {
    case PROP_PASSWORD:
      self->password = g_value_get_boolean (value);
      break;
    case PROP_SHOW_APPLY_BUTTON:
      pd_entry_row_set_show_apply_button (self, g_value_get_boolean (value));
      break;
    case PROP_INPUT_PURPOSE:
      self->input_purpose = g_value_get_enum (value);
      if (self->entry != NULL && GTK_IS_ENTRY (self->entry))
        gtk_entry_set_input_purpose (GTK_ENTRY (self->entry), self->input_purpose);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_entry_row_class_init (PdEntryRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = pd_entry_row_constructed;
  object_class->dispose = pd_entry_row_dispose;
  object_class->get_property = pd_entry_row_get_property;
  object_class->set_property = pd_entry_row_set_property;
  widget_class->grab_focus = pd_entry_row_grab_focus;
  widget_class->focus = pd_entry_row_focus;

  properties[PROP_PASSWORD] =
    g_param_spec_boolean ("password", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_APPLY_BUTTON] =
    g_param_spec_boolean ("show-apply-button", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INPUT_PURPOSE] =
    g_param_spec_enum ("input-purpose", NULL, NULL, GTK_TYPE_INPUT_PURPOSE,
                       GTK_INPUT_PURPOSE_FREE_FORM,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_editable_install_properties (object_class, N_PROPS);

  signals[SIGNAL_APPLY] =
    g_signal_new ("apply", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_ENTRY_ACTIVATED] =
    g_signal_new ("entry-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pd_entry_row_init (PdEntryRow *self)
{
  self->input_purpose = GTK_INPUT_PURPOSE_FREE_FORM;
  gtk_widget_add_css_class (GTK_WIDGET (self), "pd-entry-row");

}

/**
 * pd_entry_row_new:
 *
 * Returns: (transfer floating): a row with a text field
 */
GtkWidget *
pd_entry_row_new (void)
{
  return g_object_new (PD_TYPE_ENTRY_ROW, NULL);
}

/**
 * pd_entry_row_new_password:
 *
 * Returns: (transfer floating): a row with a masked field, for a key or token
 */
GtkWidget *
pd_entry_row_new_password (void)
{
  return g_object_new (PD_TYPE_ENTRY_ROW, "password", TRUE, NULL);
}

/**
 * pd_entry_row_get_entry:
 *
 * Returns: (transfer none): the field, a GtkEntry or a GtkPasswordEntry
 */
GtkWidget *
pd_entry_row_get_entry (PdEntryRow *self)
{
  g_return_val_if_fail (PD_IS_ENTRY_ROW (self), NULL);

  return self->entry;
}

gboolean
pd_entry_row_get_password (PdEntryRow *self)
{
  g_return_val_if_fail (PD_IS_ENTRY_ROW (self), FALSE);

  return self->password;
}

gboolean
pd_entry_row_get_show_apply_button (PdEntryRow *self)
{
  g_return_val_if_fail (PD_IS_ENTRY_ROW (self), FALSE);

  return self->show_apply_button;
}

/**
 * pd_entry_row_set_show_apply_button:
 *
 * With %TRUE, an edit in the field shows an Apply button; it, or Enter,
 * emits ::apply. Turned off, a pending edit is forgotten.
 */
void
pd_entry_row_set_show_apply_button (PdEntryRow *self,
                                    gboolean    show_apply_button)
{
  g_return_if_fail (PD_IS_ENTRY_ROW (self));

  show_apply_button = !!show_apply_button;
  if (self->show_apply_button == show_apply_button)
    return;
  self->show_apply_button = show_apply_button;
  if (!show_apply_button)
    self->text_changed = FALSE;
  if (self->apply_button != NULL)
    pd_entry_row_update_apply (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_APPLY_BUTTON]);
}

/* The box of an action row's title and subtitle (libadwaita's title_box):
 * the parent of its title label. */
static GtkWidget *
find_title_box (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_LABEL (child) && gtk_widget_has_css_class (child, "title"))
        return gtk_widget_get_parent (child);
      if ((found = find_title_box (child)) != NULL)
        return found;
    }
  return NULL;
}

/**
 * pd_entry_row_align_fields:
 * @self: the first of the rows of a group
 * @...: the others, %NULL-terminated
 *
 * Starts the rows' fields at one x.  The row shares its room between its
 * title and its field, each as wide as it asks and half of what is left:
 * an Address field started 4 px right of the Name and Token fields under
 * it (tried as a new user would).  Their titles now ask as much.
 */
void
pd_entry_row_align_fields (PdEntryRow *self,
                           ...)
{
  g_autoptr(GtkSizeGroup) group = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  va_list args;

  va_start (args, self);
  for (PdEntryRow *row = self; row != NULL; row = va_arg (args, PdEntryRow *))
    {
      GtkWidget *title_box = PD_IS_ENTRY_ROW (row) ? find_title_box (GTK_WIDGET (row)) : NULL;

      if (title_box != NULL)
        gtk_size_group_add_widget (group, title_box);
    }
  va_end (args);
}

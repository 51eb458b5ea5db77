/* pd-choice-factory.c: the items of a drop-down's open list, named
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The open list of an AdwComboRow or a GtkDropDown is a GtkListView; on
 * GTK 4.8 each of its items is GTK's own list item widget, which takes the
 * focus and has no name: a screen reader said nothing for New Session's
 * Provider, Profile and Changes, Preferences' Provider or the Events type
 * filter but their position (tried with a screen reader's view, over
 * AT-SPI). The items of this factory show the choice's text and a check
 * mark on the chosen one, as libadwaita's own do, and a PdRowName in each
 * gives its list item the text as its name (the list's own selection
 * still says which one is chosen).
 */
#define G_LOG_DOMAIN "pd-choice-factory"

#include "config.h"

#include "pd-choice-factory.h"
#include "pd-row-name.h"
#include "pd-ui-util-private.h"

#define OWNER_KEY "pd-choice-owner"
#define TEXT_FUNC_KEY "pd-choice-text-func"

static guint
owner_selected (GtkWidget *owner)
{
  if (ADW_IS_COMBO_ROW (owner))
    return adw_combo_row_get_selected (ADW_COMBO_ROW (owner));
  if (GTK_IS_DROP_DOWN (owner))
    return gtk_drop_down_get_selected (GTK_DROP_DOWN (owner));
  return GTK_INVALID_LIST_POSITION;
}

/* The check mark on the chosen item, and its selected state. */
static void
update_mark (GtkListItem *list_item)
{
  GtkWidget *box = gtk_list_item_get_child (list_item);
  GtkWidget *owner = g_object_get_data (G_OBJECT (list_item), OWNER_KEY);
  GtkWidget *mark;
  gboolean chosen;

  if (box == NULL || owner == NULL)
    return;
  mark = gtk_widget_get_last_child (box);
  chosen = gtk_list_item_get_item (list_item) != NULL &&
           gtk_list_item_get_position (list_item) == owner_selected (owner);
  gtk_widget_set_opacity (mark, chosen ? 1 : 0);
}

static void
on_setup (GtkSignalListItemFactory *factory,
          GtkListItem              *list_item,
          GtkWidget                *owner)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *mark = g_object_new (GTK_TYPE_IMAGE,
                                  "icon-name", "object-select-symbolic",
                                  "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                                  NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), g_object_new (PD_TYPE_ROW_NAME, NULL));
  gtk_box_append (GTK_BOX (box), mark);
  gtk_list_item_set_child (list_item, box);

  g_object_set_data (G_OBJECT (list_item), OWNER_KEY, owner);
  g_signal_connect_object (owner, "notify::selected", G_CALLBACK (update_mark), list_item,
                           G_CONNECT_SWAPPED);
}

static void
on_bind (GtkSignalListItemFactory *factory,
         GtkListItem              *list_item,
         GtkWidget                *owner)
{
  GtkWidget *box = gtk_list_item_get_child (list_item);
  GtkWidget *label = gtk_widget_get_first_child (box);
  PdChoiceTextFunc text_func = g_object_get_data (G_OBJECT (factory), TEXT_FUNC_KEY);
  gpointer item = gtk_list_item_get_item (list_item);
  const char *text = GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (item) : "";

  if (text_func != NULL)
    text = text_func (text);
  gtk_label_set_text (GTK_LABEL (label), text);
  pd_row_name_set_text (PD_ROW_NAME (gtk_widget_get_next_sibling (label)), text);
  update_mark (list_item);
}

/*
 * _pd_choice_factory_new:
 * @owner: the AdwComboRow or GtkDropDown whose open list it makes
 * @text_func: (nullable): what is shown for an item's string (%NULL: the
 *   string itself)
 *
 * Returns: (transfer full): a factory for @owner's list factory, whose
 *   items are named by their text
 */
GtkListItemFactory *
_pd_choice_factory_new (GtkWidget        *owner,
                        PdChoiceTextFunc  text_func)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_object_set_data (G_OBJECT (factory), TEXT_FUNC_KEY, text_func);
  /* The owner holds the factory: no reference back. */
  g_signal_connect (factory, "setup", G_CALLBACK (on_setup), owner);
  g_signal_connect (factory, "bind", G_CALLBACK (on_bind), owner);
  return factory;
}

/* The choice a combo row shows is a list item of its own (libadwaita
 * 1.2), focusable and with no name: read over AT-SPI it said nothing. */
static void
name_current_items (GtkWidget  *widget,
                    const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_POPOVER (child))
        continue;
      if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (child)) == GTK_ACCESSIBLE_ROLE_LIST_ITEM)
        _pd_accessible_set_text (child, text, NULL);
      name_current_items (child, text);
    }
}

static void
name_current (AdwComboRow *row)
{
  gpointer item = adw_combo_row_get_selected_item (row);

  name_current_items (GTK_WIDGET (row), GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (item) : "");
}

/*
 * _pd_combo_row_name_choices:
 * @row: a combo row whose model is a #GtkStringList
 *
 * The items of @row's open list are named by their text.
 */
void
_pd_combo_row_name_choices (AdwComboRow *row)
{
  g_autoptr(GtkListItemFactory) factory = _pd_choice_factory_new (GTK_WIDGET (row), NULL);

  adw_combo_row_set_list_factory (row, factory);
  /* Its lists (the choice shown, the open list) were "GtkListView". */
  _pd_list_views_name (GTK_WIDGET (row), adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  g_signal_connect (row, "notify::selected-item", G_CALLBACK (name_current), NULL);
  name_current (row);
}

/*
 * _pd_drop_down_name_choices:
 * @drop_down: a drop-down whose model is a #GtkStringList
 * @text_func: (nullable): what is shown for an item's string
 *
 * The items of @drop_down's open list are named by their text.
 */
void
_pd_drop_down_name_choices (GtkDropDown      *drop_down,
                            PdChoiceTextFunc  text_func)
{
  g_autoptr(GtkListItemFactory) factory = _pd_choice_factory_new (GTK_WIDGET (drop_down), text_func);

  gtk_drop_down_set_list_factory (drop_down, factory);
}

/* pd-reader-rows.c: preference rows as a screen reader and a keyboard meet them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2's switch rows and expander rows, read over AT-SPI and
 * with the keyboard alone: one Tab stop for a switch row, an expander's
 * open or closed state and names for what it holds.
 */
#define G_LOG_DOMAIN "pd-reader-rows"

#include "config.h"

#include "pd-reader-rows.h"
#include "pd-ui-util-private.h"

/*
 * _pd_switch_row_one_tab_stop:
 * @row: an action row whose activatable widget is a #GtkSwitch
 *
 * A switch row was two Tab stops, the row and then its switch, both said
 * by the row's title (New Session's Planning, Preferences' switches; tried
 * with the keyboard alone). The switch alone takes the focus: a reader
 * says the title, "switch" and whether it is on; a click on the row still
 * toggles it.
 */
void
_pd_switch_row_one_tab_stop (AdwActionRow *row)
{
  g_return_if_fail (GTK_IS_SWITCH (adw_action_row_get_activatable_widget (row)));

  gtk_widget_set_focusable (GTK_WIDGET (row), FALSE);
}

static void
collect_list_boxes (GtkWidget *widget,
                    GPtrArray *lists)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LIST_BOX (child))
        g_ptr_array_add (lists, child);
      collect_list_boxes (child, lists);
    }
}

/* @row's title as plain text (a row's title is markup unless it says not). */
static char *
row_plain_title (AdwPreferencesRow *row)
{
  const char *title = adw_preferences_row_get_title (row);
  char *plain = NULL;

  if (title == NULL)
    return g_strdup ("");
  if (!adw_preferences_row_get_use_markup (row) || !pango_parse_markup (title, -1, 0, NULL, &plain, NULL, NULL))
    return g_strdup (title);
  return plain;
}

static void
expander_row_tell (AdwExpanderRow *expander)
{
  g_autofree char *title = row_plain_title (ADW_PREFERENCES_ROW (expander));
  g_autoptr(GPtrArray) lists = g_ptr_array_new ();
  GtkWidget *header = NULL;

  for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (expander)); w != NULL && header == NULL;
       w = gtk_widget_get_first_child (w))
    if (GTK_IS_LIST_BOX (w))
      header = gtk_widget_get_first_child (w);
  _pd_accessible_set_text (GTK_WIDGET (expander), title, NULL);
  if (GTK_IS_LIST_BOX_ROW (header))
    gtk_accessible_update_state (GTK_ACCESSIBLE (header), GTK_ACCESSIBLE_STATE_EXPANDED,
                                 adw_expander_row_get_expanded (expander), -1);
  /* The lists inside it: its own row's and that of the rows it shows. */
  collect_list_boxes (GTK_WIDGET (expander), lists);
  for (guint i = 0; i < lists->len; i++)
    _pd_accessible_set_text (g_ptr_array_index (lists, i), title, NULL);
}

/*
 * _pd_expander_row_for_readers:
 * @expander: an expander row (a Preferences profile)
 *
 * libadwaita 1.2's expander row said nothing of being open or closed over
 * AT-SPI, was itself an unnamed list item and held two lists named
 * "GtkListBox" (tried with a screen reader's view). The row a reader
 * focuses carries the expanded state, and the expander and its lists are
 * named by its title, kept as both change.
 */
void
_pd_expander_row_for_readers (AdwExpanderRow *expander)
{
  g_signal_connect (expander, "notify::expanded", G_CALLBACK (expander_row_tell), NULL);
  g_signal_connect (expander, "notify::title", G_CALLBACK (expander_row_tell), NULL);
  expander_row_tell (expander);
}

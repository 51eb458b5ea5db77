/* pd-reader-rows.c: preference rows as a screen reader and a keyboard meet them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2's switch rows, field rows and expander rows, read over
 * AT-SPI and with the keyboard alone: one Tab stop for a switch row or a
 * field's row, the subtitle as the description a reader speaks, an
 * expander's open or closed state and names for what it holds.
 */
#define G_LOG_DOMAIN "pd-reader-rows"

#include "config.h"

#include "pd-reader-rows.h"
#include "pd-ui-util-private.h"

/* @markup (a row's title or subtitle, markup unless the row says not)
 * as plain text. */
static char *
row_plain_text (AdwPreferencesRow *row,
                const char        *markup)
{
  char *plain = NULL;

  if (markup == NULL)
    return g_strdup ("");
  if (!adw_preferences_row_get_use_markup (row) || !pango_parse_markup (markup, -1, 0, NULL, &plain, NULL, NULL))
    return g_strdup (markup);
  return plain;
}

#define FIELD_KEY "pd-reader-rows-field"
#define NAMED_KEY "pd-reader-rows-named"

/* The field of @row says the row's subtitle as its own description (and,
 * named by the row, its title as its name). */
static void
row_tell_field (AdwActionRow *row)
{
  GtkWidget *field = g_object_get_data (G_OBJECT (row), FIELD_KEY);
  g_autofree char *subtitle = row_plain_text (ADW_PREFERENCES_ROW (row), adw_action_row_get_subtitle (row));
  g_autofree char *title = NULL;

  if (field == NULL)
    return;
  if (g_object_get_data (G_OBJECT (row), NAMED_KEY) != NULL)
    title = row_plain_text (ADW_PREFERENCES_ROW (row), adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  _pd_accessible_set_text (field, title, subtitle);
}

static void
row_watch_field (AdwActionRow *row,
                 GtkWidget    *field,
                 gboolean      named)
{
  gboolean watched = g_object_get_data (G_OBJECT (row), FIELD_KEY) != NULL;

  g_object_set_data (G_OBJECT (row), FIELD_KEY, field);
  g_object_set_data (G_OBJECT (row), NAMED_KEY, GINT_TO_POINTER (named));
  if (!watched)
    {
      g_signal_connect (row, "notify::subtitle", G_CALLBACK (row_tell_field), NULL);
      g_signal_connect (row, "notify::title", G_CALLBACK (row_tell_field), NULL);
    }
  row_tell_field (row);
}

/* A switch row's subtitle was only a relation from its switch
 * (libadwaita's DESCRIBED_BY), which no screen reader spoke over GTK 4.8's
 * AT-SPI: it is the switch's own description. The switch is named by the
 * row already (its LABELLED_BY, spoken). */
static void
row_describe_field (AdwActionRow *row,
                    GtkWidget    *field)
{
  row_watch_field (row, field, FALSE);
}

static void
row_name_field (AdwActionRow *row,
                GtkWidget    *field)
{
  row_watch_field (row, field, TRUE);
}

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
  GtkWidget *toggle = adw_action_row_get_activatable_widget (row);

  g_return_if_fail (GTK_IS_SWITCH (toggle));

  gtk_widget_set_focusable (GTK_WIDGET (row), FALSE);
  row_describe_field (row, toggle);
}

/*
 * _pd_field_row_one_tab_stop:
 * @row: an action row that holds @field as a suffix
 * @field: a number field, or a button that does what the row says
 *
 * A number field's row (Preferences' refresh intervals) and New Session's
 * Working Directory were two Tab stops each, the row and then its field
 * (tried with the keyboard alone and a screen reader). The field alone
 * takes the focus, named by the row's title and described by its
 * subtitle (the unit, the folder chosen), both kept as the row changes.
 */
void
_pd_field_row_one_tab_stop (AdwActionRow *row,
                            GtkWidget    *field)
{
  g_return_if_fail (ADW_IS_ACTION_ROW (row));
  g_return_if_fail (GTK_IS_WIDGET (field));

  /* Best set in the template: a change of focusable in a window being
   * built gave its window a placeholder role over AT-SPI for good. */
  if (gtk_widget_get_focusable (GTK_WIDGET (row)))
    gtk_widget_set_focusable (GTK_WIDGET (row), FALSE);
  /* The row's activatable widget is named by its title already
   * (libadwaita's LABELLED_BY): a name of its own would be said twice. */
  if (adw_action_row_get_activatable_widget (row) == field)
    row_describe_field (row, field);
  else
    row_name_field (row, field);
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
  return row_plain_text (row, adw_preferences_row_get_title (row));
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

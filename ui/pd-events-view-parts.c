/* pd-events-view-parts.c: the Events page's header name and type filter items
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the Events page builds once and never changes: the spoken name of
 * its table's header row and the items of its type filter.
 */
#define G_LOG_DOMAIN "pd-events-view"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-event-item.h"
#include "pd-events-view-private.h"
#include "pd-ui-util-private.h"

/**
 * _pd_events_view_name_header:
 *
 * Names the table's header row by its column titles, and each title: GTK
 * 4.8 gives them no name, so a screen reader said only "row" before them.
 */
void
_pd_events_view_name_header (GtkColumnView        *column_view,
                             GtkColumnViewColumn **columns,
                             guint                 n_columns)
{
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (column_view));
  g_autoptr(GString) titles = g_string_new (NULL);
  g_autofree char *name = NULL;

  for (guint i = 0; i < n_columns; i++)
    {
      if (titles->len > 0)
        /* Translators: between two column titles in the spoken header row */
        g_string_append (titles, _(", "));
      g_string_append (titles, gtk_column_view_column_get_title (columns[i]));
    }
  /* Translators: the spoken name of the Events table's header row:
   * "Column titles: Time, Type, Iteration, Tool, Summary" */
  name = g_strdup_printf (_("Column titles: %s"), titles->str);
  _pd_accessible_set_text (GTK_WIDGET (header), name, NULL);
  /* Each column's title too: GTK 4.8 named them "GtkColumnViewTitle"
   * (read over AT-SPI, issue 23).  Their label says the column's title. */
  for (GtkWidget *title = gtk_widget_get_first_child (header); title != NULL; title = gtk_widget_get_next_sibling (title))
    {
      GtkWidget *label = gtk_widget_get_first_child (title);

      while (label != NULL && !GTK_IS_LABEL (label))
        label = gtk_widget_get_first_child (label);
      if (label != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (title), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        gtk_label_get_text (GTK_LABEL (label)), -1);
    }
}

/* The type filter lists event types by their words, not their tokens. */
static void
on_type_setup (GtkSignalListItemFactory *factory,
               GtkListItem              *list_item)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_item_set_child (list_item, label);
}

static void
on_type_bind (GtkSignalListItemFactory *factory,
              GtkListItem              *list_item)
{
  GtkStringObject *item = gtk_list_item_get_item (list_item);
  GtkWidget *label = gtk_list_item_get_child (list_item);
  const char *text = _pd_event_type_label (gtk_string_object_get_string (item));

  gtk_label_set_text (GTK_LABEL (label), text);
  /* The item the drop-down's button shows takes the focus: GTK 4.8 named
   * it "GtkListItemWidget" to a reader browsing to it. */
  if (gtk_widget_get_parent (label) != NULL)
    _pd_accessible_set_text (gtk_widget_get_parent (label), text, NULL);
}

/**
 * _pd_events_view_type_factory:
 *
 * Returns: (transfer full): the factory of the type filter's items
 */
GtkListItemFactory *
_pd_events_view_type_factory (void)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (on_type_setup), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (on_type_bind), NULL);
  return factory;
}

/**
 * _pd_events_view_update_left_out:
 * @label: the notice over the list
 * @events: every listed event, oldest first
 *
 * An imported session's timeline cut to its bound ends with
 * events_left_out: its summary, cut in its row at 960 and 360 px with no
 * tooltip, is said whole over the list, wrapped (tried as a new user
 * would).  Only the last event is looked at: the cut ends the timeline.
 */
void
_pd_events_view_update_left_out (GtkLabel   *label,
                                 GListModel *events)
{
  guint n = events != NULL ? g_list_model_get_n_items (events) : 0;
  g_autoptr(PdEventItem) last = n > 0 ? g_list_model_get_item (events, n - 1) : NULL;
  gboolean left_out = last != NULL && g_strcmp0 (pd_event_item_get_event_type (last), PD_EVENT_EVENTS_LEFT_OUT) == 0;

  if (label == NULL)
    return;
  if (left_out)
    gtk_label_set_text (label, pd_event_item_get_summary (last));
  gtk_widget_set_visible (GTK_WIDGET (label), left_out);
}

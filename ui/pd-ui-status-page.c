/* pd-ui-status-page.c: what a screen reader hears of a status page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An AdwStatusPage (libadwaita 1.2) is a group labelled by its title label
 * and described by its description label, and a label's accessible name
 * is the text it shows. A title built from a translated format with a name
 * in it shows that name between bidi isolates (an endpoint's page:
 * "⁨Alpha box⁩"), and a reader said or brailled the isolates. The two
 * labels are named by their text without them, each time it changes.
 */
#define G_LOG_DOMAIN "pd-ui"

#include "config.h"

#include <adwaita.h>

#include "pd-ui-util-private.h"

/* The label of @page with the style class @css_class ("title" or
 * "description"), the one the page is labelled or described by. */
static GtkWidget *
page_label (GtkWidget  *widget,
            const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = page_label (child, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
name_labels_plainly (AdwStatusPage *page)
{
  static const char *const classes[] = { "title", "description" };

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      GtkWidget *label = page_label (GTK_WIDGET (page), classes[i]);

      /* The text without its markup (a description is markup). */
      if (label != NULL)
        _pd_accessible_set_text (label, gtk_label_get_text (GTK_LABEL (label)), NULL);
    }
}

/*
 * _pd_status_page_plain_names:
 * @page: a status page
 *
 * @page's title and description reach a screen reader without the bidi
 * isolates and marks they show (see _pd_accessible_text()), now and after
 * every change: the page's own handler sets the labels' text, and their
 * names with it, before this one runs.
 */
void
_pd_status_page_plain_names (AdwStatusPage *page)
{
  g_signal_connect (page, "notify::title", G_CALLBACK (name_labels_plainly), NULL);
  g_signal_connect (page, "notify::description", G_CALLBACK (name_labels_plainly), NULL);
  name_labels_plainly (page);
}

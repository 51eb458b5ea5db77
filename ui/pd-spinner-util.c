/* pd-spinner-util.c: spinners that turn only while they can be seen
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On GTK 4.8 a spinning GtkSpinner keeps its CSS animation going while it
 * is not mapped: in a stack page that is not shown, in a view of a page
 * not picked.  Each frame then restyles it and lays out the box around it
 * again.  The window's "Reading the Sessions" spinner, and the loading
 * spinners of the Transcript and Events views while another page was
 * shown, kept an idle window drawing about 60 frames a second: 2.2–2.7 %
 * of a core with nothing happening (measured as an idle user leaves it).
 */
#define G_LOG_DOMAIN "pd-spinner-util"

#include "config.h"

#include "pd-ui-util-private.h"

#define WANTED_KEY "pd-spinner-wanted"

static void
spinner_update (GtkSpinner *spinner)
{
  gboolean wanted = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (spinner), WANTED_KEY));

  gtk_spinner_set_spinning (spinner, wanted && gtk_widget_get_mapped (GTK_WIDGET (spinner)));
}

/**
 * _pd_spinner_set_wanted:
 * @spinner: a spinner
 * @wanted: whether it should turn
 *
 * @spinner turns while @wanted and shown: it stops when it is unmapped
 * (its page hidden, its window minimized, its view not the one picked)
 * and goes on when it is shown again.
 */
void
_pd_spinner_set_wanted (GtkSpinner *spinner,
                        gboolean    wanted)
{
  g_return_if_fail (GTK_IS_SPINNER (spinner));

  if (g_object_get_data (G_OBJECT (spinner), WANTED_KEY "-watched") == NULL)
    {
      g_object_set_data (G_OBJECT (spinner), WANTED_KEY "-watched", GINT_TO_POINTER (TRUE));
      g_signal_connect (spinner, "map", G_CALLBACK (spinner_update), NULL);
      g_signal_connect_after (spinner, "unmap", G_CALLBACK (spinner_update), NULL);
    }
  g_object_set_data (G_OBJECT (spinner), WANTED_KEY, GINT_TO_POINTER (wanted));
  spinner_update (spinner);
}

/**
 * _pd_spinners_spin_when_shown:
 * @root: a widget made from a template
 *
 * Each spinner below @root that its template made spinning turns only
 * while it is shown (see _pd_spinner_set_wanted()).
 */
void
_pd_spinners_spin_when_shown (GtkWidget *root)
{
  if (GTK_IS_SPINNER (root))
    {
      if (gtk_spinner_get_spinning (GTK_SPINNER (root)))
        _pd_spinner_set_wanted (GTK_SPINNER (root), TRUE);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_spinners_spin_when_shown (child);
}

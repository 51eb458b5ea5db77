/* pd-window-sidebar.c: the width of the window's sidebar (part of PdWindow)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar (the sources over the session list) is 44 characters wide
 * (304 px at the default text size: a row's agent, date and plan on one
 * line) and grows with the text (at 1.5× it cut titles and times); folded,
 * it is the whole window, so it never asks for more than the 360 the
 * window fits.  That width is its width whatever it lists: unfolded, the
 * leaflet gave it its natural width, which followed its content (a long
 * endpoint name, another agent's title, the note of a search), and it
 * changed with the source chosen (tried as a new user would).  Its box is
 * in one of its own whose natural width is its least.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include "pd-ui-util-private.h"
#include "pd-window-private.h"

static GtkSizeRequestMode
stable_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
stable_measure (GtkWidget      *widget,
                GtkOrientation  orientation,
                int             for_size,
                int            *minimum,
                int            *natural,
                int            *minimum_baseline,
                int            *natural_baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  *minimum = *natural = 0;
  if (child == NULL || !gtk_widget_should_layout (child))
    return;
  gtk_widget_measure (child, orientation, for_size, minimum, natural, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *natural = *minimum;
}

static void
stable_allocate (GtkWidget *widget,
                 int        width,
                 int        height,
                 int        baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  if (child != NULL && gtk_widget_should_layout (child))
    gtk_widget_allocate (child, width, height, -1, NULL);
}

static void
pd_window_size_sidebar (PdWindow *self)
{
  GtkWidget *sidebar = gtk_widget_get_parent (GTK_WIDGET (self->session_list));

  gtk_widget_set_size_request (sidebar, CLAMP (_pd_text_width (sidebar, 44), 280, 360), -1);
}

/**
 * _pd_window_sidebar_init:
 *
 * Sizes the sidebar by the text size, now and as it changes.
 */
void
_pd_window_sidebar_init (PdWindow *self)
{
  GtkWidget *sidebar = gtk_widget_get_parent (GTK_WIDGET (self->session_list));
  GtkSettings *settings = gtk_widget_get_settings (GTK_WIDGET (self));

  gtk_widget_set_layout_manager (gtk_widget_get_parent (sidebar),
                                 gtk_custom_layout_new (stable_request_mode, stable_measure, stable_allocate));
  pd_window_size_sidebar (self);
  g_signal_connect_object (settings, "notify::gtk-xft-dpi", G_CALLBACK (pd_window_size_sidebar), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "notify::gtk-font-name", G_CALLBACK (pd_window_size_sidebar), self,
                           G_CONNECT_SWAPPED);
}

/* pd-paned-fit.c: a paned whose start child is as wide as its text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * History's versions pane was cut to "v10 · 11:24:16 · 3/…" at 1.5× text
 * (tried as a new user would, turning Large Text on with the window
 * open): it had a fixed 240 px, or 30 characters counted once in the text
 * it was built with. A GtkPaned with no position set gives a start child
 * that does not resize only its least width, and a list's natural width
 * is known only once its rows are laid out; so the position is set from
 * the start child's natural width, frame by frame, until two frames agree.
 */
#define G_LOG_DOMAIN "pd-paned-fit"

#include "config.h"

#include "pd-paned-fit.h"
#include "pd-ui-util-private.h"

#define FIT_KEY "pd-paned-fit"

typedef struct
{
  guint    tick;
  int      natural;
  gboolean exactly;
  double   end_chars;
} Fit;

static Fit *
fit_get (GtkPaned *paned)
{
  Fit *fit = g_object_get_data (G_OBJECT (paned), FIT_KEY);

  if (fit == NULL)
    {
      fit = g_new0 (Fit, 1);
      g_object_set_data_full (G_OBJECT (paned), FIT_KEY, fit, g_free);
    }
  return fit;
}

static gboolean
fit_tick (GtkWidget     *widget,
          GdkFrameClock *clock,
          gpointer       data)
{
  GtkPaned *paned = GTK_PANED (widget);
  Fit *fit = g_object_get_data (G_OBJECT (paned), FIT_KEY);
  GtkWidget *start = gtk_paned_get_start_child (paned);
  int natural = 0;

  if (start == NULL || !gtk_widget_get_mapped (widget) ||
      gtk_orientable_get_orientation (GTK_ORIENTABLE (paned)) != GTK_ORIENTATION_HORIZONTAL)
    {
      fit->tick = 0;
      return G_SOURCE_REMOVE;
    }
  gtk_widget_measure (start, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  if (natural == fit->natural)
    {
      fit->tick = 0;
      fit->exactly = FALSE;
      return G_SOURCE_REMOVE;
    }
  fit->natural = natural;
  if (fit->exactly || gtk_paned_get_position (paned) < natural)
    gtk_paned_set_position (paned, natural);
  return G_SOURCE_CONTINUE;
}

/*
 * _pd_paned_fit_start:
 * @paned: a horizontal paned whose start child holds text (a list of it)
 * @exactly: %TRUE to set the position to the natural width (the text size
 *   changed), %FALSE to widen it only (new rows: a divider dragged wider
 *   stays)
 *
 * Moves @paned's divider to its start child's natural width once what it
 * holds is laid out. The start child's least width is left as it is, so a
 * window can still narrow past it.
 */
void
_pd_paned_fit_start (GtkPaned *paned,
                     gboolean  exactly)
{
  Fit *fit = fit_get (paned);

  fit->exactly |= exactly;
  fit->natural = -1;
  if (fit->tick == 0)
    fit->tick = gtk_widget_add_tick_callback (GTK_WIDGET (paned), fit_tick, NULL, NULL);
}

/* A new text size, or the paned turned: side by side, the end child keeps
 * room for its characters and the divider goes to the start child's text. */
static void
fit_text_size (GtkPaned *paned)
{
  Fit *fit = fit_get (paned);
  GtkWidget *end = gtk_paned_get_end_child (paned);
  gboolean wide = gtk_orientable_get_orientation (GTK_ORIENTABLE (paned)) == GTK_ORIENTATION_HORIZONTAL;

  if (end != NULL)
    gtk_widget_set_size_request (end, wide ? _pd_text_width (end, fit->end_chars) : -1, -1);
  if (!wide)
    return;
  /* Until the start child is laid out. */
  gtk_paned_set_position (paned, _pd_text_width (GTK_WIDGET (paned), 30));
  _pd_paned_fit_start (paned, TRUE);
}

static void
on_mapped (GtkPaned *paned)
{
  _pd_paned_fit_start (paned, FALSE);
}

/*
 * _pd_paned_fit_follow:
 * @paned: a paned whose start child holds text
 * @end_chars: how many characters of room its end child keeps
 *
 * While @paned is horizontal its divider follows the start child's text
 * (_pd_paned_fit_start()): as it is shown, turned, and as the text size or
 * font changes.
 */
void
_pd_paned_fit_follow (GtkPaned *paned,
                      double    end_chars)
{
  GtkSettings *settings = gtk_widget_get_settings (GTK_WIDGET (paned));

  fit_get (paned)->end_chars = end_chars;
  g_signal_connect_object (settings, "notify::gtk-xft-dpi", G_CALLBACK (fit_text_size), paned, G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "notify::gtk-font-name", G_CALLBACK (fit_text_size), paned, G_CONNECT_SWAPPED);
  g_signal_connect (paned, "notify::orientation", G_CALLBACK (fit_text_size), NULL);
  g_signal_connect (paned, "map", G_CALLBACK (on_mapped), NULL);
  fit_text_size (paned);
}

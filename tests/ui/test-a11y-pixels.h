/* test-a11y-pixels.h: a window's drawn pixels and the contrast measured from them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For test-a11y-layout.c (moved from it as it is, to keep it under 1 200
 * lines): WCAG 2's contrast of a widget's text or icon against the
 * background beside it, from the window rendered as it is drawn.
 */
#pragma once

#include <math.h>

#include <gtk/gtk.h>

/* The window drawn, as bytes (cairo's premultiplied ARGB32). */
typedef struct
{
  guchar *data;
  gsize   stride;
  int     width;
  int     height;
} Pixels;

static void
pixels_clear (Pixels *pixels)
{
  g_free (pixels->data);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Pixels, pixels_clear)

static void
render (GtkWidget *window,
        Pixels    *pixels)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  gtk_test_widget_wait_for_draw (window);
  pixels->width = gtk_widget_get_width (window);
  pixels->height = gtk_widget_get_height (window);
  gdk_paintable_snapshot (paintable, snapshot, pixels->width, pixels->height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, pixels->width, pixels->height));
  pixels->stride = (gsize) gdk_texture_get_width (texture) * 4;
  pixels->data = g_malloc (pixels->stride * gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels->data, pixels->stride);
}

/* WCAG 2's relative luminance of the pixel at x, y (opaque: a window). */
static double
luminance (const Pixels *pixels,
           int           x,
           int           y)
{
  const guchar *p = pixels->data + (gsize) y * pixels->stride + (gsize) x * 4;
  double rgb[3] = { p[2] / 255.0, p[1] / 255.0, p[0] / 255.0 };   /* B G R A in memory */
  double weights[3] = { 0.2126, 0.7152, 0.0722 };
  double l = 0;

  for (guint i = 0; i < 3; i++)
    {
      double c = rgb[i] <= 0.04045 ? rgb[i] / 12.92 : pow ((rgb[i] + 0.055) / 1.055, 2.4);

      l += weights[i] * c;
    }
  return l;
}

static double
ratio (double a,
       double b)
{
  return (MAX (a, b) + 0.05) / (MIN (a, b) + 0.05);
}

/* The contrast of what @widget draws: its background is the pixel at its
 * left edge, halfway down (inside a chip's padding, beside a label's first
 * glyph), its foreground the pixel inside it that differs most from that
 * (the core of a glyph's stem or of an icon's stroke). */
static double
measure (GtkWidget    *window,
         const Pixels *pixels,
         GtkWidget    *widget,
         int           inset)
{
  graphene_rect_t bounds;
  double background;
  double best = 1.0;
  int x0, y0, x1, y1;

  g_assert_true (gtk_widget_compute_bounds (widget, window, &bounds));
  x0 = (int) bounds.origin.x;
  y0 = (int) bounds.origin.y;
  x1 = MIN ((int) (bounds.origin.x + bounds.size.width), pixels->width);
  y1 = MIN ((int) (bounds.origin.y + bounds.size.height), pixels->height);
  g_assert_cmpint (x1 - x0, >, 2 * inset);
  background = luminance (pixels, x0 + inset, (y0 + y1) / 2);
  for (int y = y0; y < y1; y++)
    for (int x = x0 + inset; x < x1 - inset; x++)
      best = MAX (best, ratio (background, luminance (pixels, x, y)));
  return best;
}

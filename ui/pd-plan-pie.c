/* pd-plan-pie.c: a small pie of a plan's progress
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A disc in a faint foreground colour; the done share is filled with the
 * success colour from twelve o'clock clockwise, the blocked share follows
 * in the error colour.  Decorative: the pill's label carries the numbers.
 */
#define G_LOG_DOMAIN "pd-plan-pie"

#include "config.h"

#include <math.h>

#include <adwaita.h>

#include "pd-plan-pie.h"

#define PIE_SIZE 14

struct _PdPlanPie
{
  GtkWidget parent_instance;

  guint     done;
  guint     total;
  guint     blocked;
};

G_DEFINE_FINAL_TYPE (PdPlanPie, pd_plan_pie, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_DONE,
  PROP_TOTAL,
  PROP_BLOCKED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              GdkRGBA    *color,
              const char *fallback)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);

  if (!gtk_style_context_lookup_color (context, name, color))
    gdk_rgba_parse (color, fallback);
}

static void
wedge (cairo_t       *cr,
       double         center,
       double         radius,
       double         from,
       double         to,
       const GdkRGBA *color)
{
  if (to <= from)
    return;

  gdk_cairo_set_source_rgba (cr, color);
  cairo_move_to (cr, center, center);
  cairo_arc (cr, center, center, radius, -G_PI / 2 + from * 2 * G_PI, -G_PI / 2 + to * 2 * G_PI);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
pd_plan_pie_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  PdPlanPie *self = PD_PLAN_PIE (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  double size = MIN (width, height);
  double center = size / 2.0;
  double radius = size / 2.0;
  double done_share;
  double blocked_share;
  GdkRGBA track;
  GdkRGBA outline;
  GdkRGBA success;
  GdkRGBA error;
  cairo_t *cr;

  if (size <= 0)
    return;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &track);
  outline = track;
  track.alpha *= 0.18;
  /* The empty part alone measured 1.36:1 against the row, in high contrast
   * too: the pie's edge is drawn, so its extent reads as a graphic should
   * (3:1 or more) whatever share is done. */
  outline.alpha *= adw_style_manager_get_high_contrast (adw_style_manager_get_default ()) ? 1.0 : 0.6;
  lookup_color (widget, "success_color", &success, "#26a269");
  lookup_color (widget, "error_color", &error, "#c01c28");

  done_share = self->total > 0 ? (double) MIN (self->done, self->total) / self->total : 0.0;
  blocked_share = self->total > 0 ? (double) MIN (self->blocked, self->total) / self->total : 0.0;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT ((width - size) / 2.0,
                                                                 (height - size) / 2.0,
                                                                 size, size));
  cairo_translate (cr, (width - size) / 2.0, (height - size) / 2.0);

  gdk_cairo_set_source_rgba (cr, &track);
  cairo_arc (cr, center, center, radius, 0, 2 * G_PI);
  cairo_fill (cr);

  if (done_share >= 1.0)
    {
      gdk_cairo_set_source_rgba (cr, &success);
      cairo_arc (cr, center, center, radius, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  else
    {
      wedge (cr, center, radius, 0.0, done_share, &success);
      wedge (cr, center, radius, done_share, MIN (1.0, done_share + blocked_share), &error);
    }

  gdk_cairo_set_source_rgba (cr, &outline);
  cairo_set_line_width (cr, 1.0);
  cairo_arc (cr, center, center, radius - 0.5, 0, 2 * G_PI);
  cairo_stroke (cr);

  cairo_destroy (cr);
}

static void
pd_plan_pie_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  *minimum = *natural = PIE_SIZE;
}

static void
set_uint (PdPlanPie *self,
          guint     *field,
          guint      value,
          int        prop)
{
  if (*field == value)
    return;

  *field = value;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
pd_plan_pie_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  PdPlanPie *self = PD_PLAN_PIE (object);

  switch (prop_id)
    {
    case PROP_DONE:
      g_value_set_uint (value, self->done);
      break;
    case PROP_TOTAL:
      g_value_set_uint (value, self->total);
      break;
    case PROP_BLOCKED:
      g_value_set_uint (value, self->blocked);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_plan_pie_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  PdPlanPie *self = PD_PLAN_PIE (object);

  switch (prop_id)
    {
    case PROP_DONE:
      set_uint (self, &self->done, g_value_get_uint (value), PROP_DONE);
      break;
    case PROP_TOTAL:
      set_uint (self, &self->total, g_value_get_uint (value), PROP_TOTAL);
      break;
    case PROP_BLOCKED:
      set_uint (self, &self->blocked, g_value_get_uint (value), PROP_BLOCKED);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_plan_pie_class_init (PdPlanPieClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = pd_plan_pie_get_property;
  object_class->set_property = pd_plan_pie_set_property;

  widget_class->snapshot = pd_plan_pie_snapshot;
  widget_class->measure = pd_plan_pie_measure;

  properties[PROP_DONE] = g_param_spec_uint ("done", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_TOTAL] = g_param_spec_uint ("total", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_BLOCKED] = g_param_spec_uint ("blocked", NULL, NULL, 0, G_MAXUINT, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "plan-pie");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_PRESENTATION);
}

static void
pd_plan_pie_init (PdPlanPie *self)
{
}

GtkWidget *
pd_plan_pie_new (void)
{
  return g_object_new (PD_TYPE_PLAN_PIE, NULL);
}

/* pd-wrap-box.c: children in a row, wrapped onto more rows as needed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each child takes its natural width (at most the box's), the next one
 * follows after a fixed spacing, and a child that does not fit starts a
 * new row: the even spacing of a line of chips.  GtkFlowBox lines its
 * children up in columns instead, so a short chip beside a long one below
 * it stood far from its neighbour (tried as a new user would, on the Now
 * page).  Libadwaita 1.2 has no wrap box of its own.
 */
#define G_LOG_DOMAIN "pd-wrap-box"

#include "config.h"

#include "pd-wrap-box.h"

#define COLUMN_SPACING 6
#define ROW_SPACING 6

struct _PdWrapBox
{
  GtkWidget parent_instance;
};

G_DEFINE_FINAL_TYPE (PdWrapBox, pd_wrap_box, GTK_TYPE_WIDGET)

/* The width @child takes in a box @width wide. */
static int
child_width (GtkWidget *child,
             int        width)
{
  int minimum = 0;
  int natural = 0;

  gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  return width < 0 ? natural : MAX (minimum, MIN (natural, width));
}

/* Lays the children out in rows @width wide (-1: one row): their height,
 * and when @allocate, their places. */
static int
layout (PdWrapBox *self,
        int        width,
        gboolean   allocate)
{
  gboolean rtl = gtk_widget_get_direction (GTK_WIDGET (self)) == GTK_TEXT_DIR_RTL;
  GtkWidget *row_start = gtk_widget_get_first_child (GTK_WIDGET (self));
  int y = 0;

  while (row_start != NULL)
    {
      GtkWidget *child = row_start;
      GtkWidget *row_end;
      int x = 0;
      int row_height = 0;

      /* Which children fit on this row, and how high it is. */
      for (; child != NULL; child = gtk_widget_get_next_sibling (child))
        {
          int w;
          int h = 0;

          if (!gtk_widget_should_layout (child))
            continue;
          w = child_width (child, width);
          if (x > 0 && width >= 0 && x + COLUMN_SPACING + w > width)
            break;
          x += (x > 0 ? COLUMN_SPACING : 0) + w;
          gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, w, NULL, &h, NULL, NULL);
          row_height = MAX (row_height, h);
        }
      row_end = child;

      if (allocate)
        {
          x = 0;
          for (child = row_start; child != row_end; child = gtk_widget_get_next_sibling (child))
            {
              int w;

              if (!gtk_widget_should_layout (child))
                continue;
              w = child_width (child, width);
              gtk_widget_size_allocate (child,
                                        &(GtkAllocation) { rtl ? width - x - w : x, y, w, row_height },
                                        -1);
              x += w + COLUMN_SPACING;
            }
        }

      if (row_height > 0 || row_end != row_start)
        y += row_height + ROW_SPACING;
      if (row_end == row_start)
        break;
      row_start = row_end;
    }

  return y > 0 ? y - ROW_SPACING : 0;
}

static GtkSizeRequestMode
pd_wrap_box_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
pd_wrap_box_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  PdWrapBox *self = PD_WRAP_BOX (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      int widest = 0;
      int row = 0;

      /* At least the widest child's minimum; at best all in one row. */
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          int child_minimum = 0;
          int child_natural = 0;

          if (!gtk_widget_should_layout (child))
            continue;
          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &child_minimum, &child_natural, NULL, NULL);
          widest = MAX (widest, child_minimum);
          row += (row > 0 ? COLUMN_SPACING : 0) + child_natural;
        }
      *minimum = widest;
      *natural = MAX (widest, row);
    }
  else
    {
      *minimum = *natural = layout (self, for_size, FALSE);
    }
}

static void
pd_wrap_box_size_allocate (GtkWidget *widget,
                           int        width,
                           int        height,
                           int        baseline)
{
  layout (PD_WRAP_BOX (widget), width, TRUE);
}

static void
pd_wrap_box_dispose (GObject *object)
{
  pd_wrap_box_remove_all (PD_WRAP_BOX (object));

  G_OBJECT_CLASS (pd_wrap_box_parent_class)->dispose (object);
}

static void
pd_wrap_box_class_init (PdWrapBoxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_wrap_box_dispose;
  widget_class->get_request_mode = pd_wrap_box_get_request_mode;
  widget_class->measure = pd_wrap_box_measure;
  widget_class->size_allocate = pd_wrap_box_size_allocate;
  gtk_widget_class_set_css_name (widget_class, "wrapbox");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
pd_wrap_box_init (PdWrapBox *self)
{
}

GtkWidget *
pd_wrap_box_new (void)
{
  return g_object_new (PD_TYPE_WRAP_BOX, NULL);
}

void
pd_wrap_box_append (PdWrapBox *self,
                    GtkWidget *child)
{
  g_return_if_fail (PD_IS_WRAP_BOX (self));
  g_return_if_fail (GTK_IS_WIDGET (child));

  gtk_widget_set_parent (child, GTK_WIDGET (self));
}

void
pd_wrap_box_remove_all (PdWrapBox *self)
{
  GtkWidget *child;

  g_return_if_fail (PD_IS_WRAP_BOX (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
}

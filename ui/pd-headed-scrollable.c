/* pd-headed-scrollable.c: a list under a heading that scrolls away with it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Transcript and Events pages are lists (a GtkListView, a
 * GtkColumnView) that make only the rows in sight: they are the scrolled
 * window's child, and GTK 4.8 gives such a list no heading. Their session's
 * title, which the header cuts at 360 px ("Add an ex…", tried as a new
 * user would), heads them as it heads the Now page: whole, wrapped, the
 * page's first line, scrolling away with the page.
 *
 * A PdHeadedScrollable is the scrolled window's child in the list's stead:
 * the heading, then the list, one GtkScrollable.  The scrolled window's
 * vertical adjustment covers both: its first part (the heading's height)
 * moves the heading and the list up together, the rest is the list's own
 * adjustment, set to match; a list that moves itself (to the row the focus
 * went to, to its last row) moves the page with it at its next layout.  Its upper, page size
 * and value at the end are the heading's height more than the list's, so
 * "at the bottom" reads the same on either.  The horizontal adjustment is
 * the list's.
 *
 * The list's adjustment is set only to a value within what the list last
 * laid out, and only when it changes: GTK 4.8's GtkListBase warns of a
 * value it has no row for (an emptied list). The title is plain text (the
 * agent's), never markup.
 */
#define G_LOG_DOMAIN "pd-headed-scrollable"

#include "config.h"

#include "pd-headed-scrollable.h"
#include "pd-ui-util-private.h"

/* The most of a title shown, as on the Now page. */
#define TITLE_CHARS 240

struct _PdHeadedScrollable
{
  GtkWidget            parent_instance;

  GtkWidget           *heading;      /* a GtkLabel, hidden without a title */
  GtkWidget           *child;        /* (nullable) a GtkScrollable */
  char                *title;
  GtkAdjustment       *hadjustment;  /* the scrolled window's, passed to the child */
  GtkAdjustment       *vadjustment;  /* the scrolled window's: heading and list */
  GtkAdjustment       *inner;        /* the child's own vertical adjustment */
  GtkScrollablePolicy  hscroll_policy;
  GtkScrollablePolicy  vscroll_policy;
  int                  heading_height; /* as last allocated */
  gboolean             syncing;      /* an adjustment set from the other */
  gboolean             to_end;       /* the page goes to its end once the list is at its end */
  gboolean             outer_moved;  /* the page moved during a layout: the list follows at the next */
};

enum {
  PROP_0,
  PROP_CHILD,
  PROP_TITLE,
  N_PROPS,
  PROP_HADJUSTMENT = N_PROPS,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE_WITH_CODE (PdHeadedScrollable, pd_headed_scrollable, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

static int
heading_height_for (PdHeadedScrollable *self,
                    int                 width)
{
  int height = 0;

  if (!gtk_widget_get_visible (self->heading))
    return 0;
  gtk_widget_measure (self->heading, GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
  return height;
}

/* The list's value for the page's @value, within what it laid out. */
static double
inner_value_for (PdHeadedScrollable *self,
                 double              value)
{
  double most = gtk_adjustment_get_upper (self->inner) - gtk_adjustment_get_page_size (self->inner);

  return CLAMP (value - self->heading_height, 0, MAX (most, 0));
}

/* The list's value for the page's, set before the list's layout. */
static void
sync_inner (PdHeadedScrollable *self)
{
  double inner;

  if (self->inner == NULL || self->child == NULL)
    return;
  inner = inner_value_for (self, gtk_adjustment_get_value (self->vadjustment));
  if (inner != gtk_adjustment_get_value (self->inner))
    {
      self->syncing = TRUE;
      gtk_adjustment_set_value (self->inner, inner);
      self->syncing = FALSE;
    }
}

/* The person scrolled the page: the list follows once the heading is gone. */
static void
on_outer_value_changed (PdHeadedScrollable *self)
{
  if (self->syncing)
    return;
  self->to_end = FALSE;
  sync_inner (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

static void
queue_allocate_once (gpointer data)
{
  gtk_widget_queue_allocate (GTK_WIDGET (data));
  g_object_unref (data);
}

/* The list moved itself (to a row the focus went to, to its last row) or
 * changed its size: the page follows at its next layout, its size and
 * value set together there, as the list sets its own (a value moved alone
 * read as the person's scroll to the Events page, which stopped
 * following its newest row). */
static void
on_inner_changed (PdHeadedScrollable *self)
{
  if (!self->syncing)
    gtk_widget_queue_allocate (GTK_WIDGET (self));
}

static void
set_inner (PdHeadedScrollable *self,
           GtkAdjustment      *inner)
{
  if (self->inner == inner)
    return;
  if (self->inner != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->inner, self);
      g_clear_object (&self->inner);
    }
  if (inner == NULL)
    return;
  self->inner = g_object_ref_sink (inner);
  g_signal_connect_swapped (inner, "value-changed", G_CALLBACK (on_inner_changed), self);
  g_signal_connect_swapped (inner, "changed", G_CALLBACK (on_inner_changed), self);
}

static void
set_vadjustment (PdHeadedScrollable *self,
                 GtkAdjustment      *adjustment)
{
  if (adjustment == NULL)
    adjustment = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  if (self->vadjustment == adjustment)
    return;
  if (self->vadjustment != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->vadjustment, self);
      g_clear_object (&self->vadjustment);
    }
  self->vadjustment = g_object_ref_sink (adjustment);
  g_signal_connect_swapped (adjustment, "value-changed", G_CALLBACK (on_outer_value_changed), self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify (G_OBJECT (self), "vadjustment");
}

static void
set_hadjustment (PdHeadedScrollable *self,
                 GtkAdjustment      *adjustment)
{
  if (adjustment != NULL && self->hadjustment == adjustment)
    return;
  g_clear_object (&self->hadjustment);
  if (adjustment != NULL)
    self->hadjustment = g_object_ref_sink (adjustment);
  if (self->child != NULL)
    gtk_scrollable_set_hadjustment (GTK_SCROLLABLE (self->child), self->hadjustment);
  g_object_notify (G_OBJECT (self), "hadjustment");
}

static GtkSizeRequestMode
pd_headed_scrollable_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
pd_headed_scrollable_measure (GtkWidget      *widget,
                              GtkOrientation  orientation,
                              int             for_size,
                              int            *minimum,
                              int            *natural,
                              int            *minimum_baseline,
                              int            *natural_baseline)
{
  PdHeadedScrollable *self = PD_HEADED_SCROLLABLE (widget);
  int child_min = 0, child_nat = 0, heading_min = 0, heading_nat = 0;

  if (self->child != NULL && gtk_widget_get_visible (self->child))
    gtk_widget_measure (self->child, orientation, for_size, &child_min, &child_nat, NULL, NULL);
  if (gtk_widget_get_visible (self->heading))
    gtk_widget_measure (self->heading, orientation, for_size, &heading_min, &heading_nat, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = MAX (child_min, heading_min);
      *natural = MAX (child_nat, heading_nat);
    }
  else
    {
      *minimum = child_min + heading_min;
      *natural = child_nat + heading_nat;
    }
}

/* The heading at the top, moved up by the page's value up to its height;
 * the list under it, as tall as the page: its bottom is hidden while the
 * heading shows.  Its height never changes with the value: GTK 4.8's list
 * keeps the row it is anchored on where it was on its page, its newest at
 * the page's bottom, and a list shortened by the heading moved itself by
 * the heading's height.  The page's adjustment is set from the list's as
 * it laid itself out. */
static void
pd_headed_scrollable_size_allocate (GtkWidget *widget,
                                    int        width,
                                    int        height,
                                    int        baseline)
{
  PdHeadedScrollable *self = PD_HEADED_SCROLLABLE (widget);
  double value = gtk_adjustment_get_value (self->vadjustment);
  double upper = height;
  int heading = heading_height_for (self, width);
  int moved, list_top;

  self->heading_height = heading;
  if (self->outer_moved)
    {
      self->outer_moved = FALSE;
      sync_inner (self);
    }
  moved = (int) CLAMP (value, 0, heading);
  list_top = heading - moved;
  if (gtk_widget_get_visible (self->heading))
    gtk_widget_size_allocate (self->heading, &(GtkAllocation) { 0, -moved, width, heading }, -1);
  self->syncing = TRUE;
  if (self->child != NULL && gtk_widget_get_visible (self->child))
    {
      gtk_widget_size_allocate (self->child, &(GtkAllocation) { 0, list_top, width, height }, -1);
      if (self->inner != NULL)
        {
          double inner = gtk_adjustment_get_value (self->inner);

          upper = MAX (heading + gtk_adjustment_get_upper (self->inner), height);
          /* The page is where the list is, once past the heading; a list
           * that went back to its top by itself shows the heading again. */
          if (inner > 0)
            value = heading + inner;
          else if (value > heading)
            value = 0;
        }
    }
  /* Asked to show its newest, the list is at its end: the page too. */
  if (self->to_end && self->inner != NULL && self->child != NULL && gtk_widget_get_visible (self->child) &&
      gtk_adjustment_get_value (self->inner) + gtk_adjustment_get_page_size (self->inner) >=
      gtk_adjustment_get_upper (self->inner) - 1)
    {
      value = upper - height;
      self->to_end = FALSE;
    }
  value = CLAMP (value, 0, MAX (upper - height, 0));
  gtk_adjustment_configure (self->vadjustment, value, 0, upper, height * 0.1, height * 0.9, height);
  self->syncing = FALSE;
  /* Moved by a handler of the change (one that keeps the page at its end
   * as it grows): the list follows at the next layout, from an idle (the
   * list laid out now and queued again would be drawn unallocated). */
  if (gtk_adjustment_get_value (self->vadjustment) != value && !self->outer_moved)
    {
      self->outer_moved = TRUE;
      g_idle_add_once (queue_allocate_once, g_object_ref (self));
    }
}

static void
pd_headed_scrollable_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  PdHeadedScrollable *self = PD_HEADED_SCROLLABLE (object);

  switch (prop_id)
    {
    case PROP_CHILD:
      g_value_set_object (value, self->child);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;
    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;
    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;
    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_headed_scrollable_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  PdHeadedScrollable *self = PD_HEADED_SCROLLABLE (object);

  switch (prop_id)
    {
    case PROP_CHILD:
      pd_headed_scrollable_set_child (self, g_value_get_object (value));
      break;
    case PROP_TITLE:
      pd_headed_scrollable_set_title (self, g_value_get_string (value));
      break;
    case PROP_HADJUSTMENT:
      set_hadjustment (self, g_value_get_object (value));
      break;
    case PROP_VADJUSTMENT:
      set_vadjustment (self, g_value_get_object (value));
      break;
    case PROP_HSCROLL_POLICY:
      if (self->hscroll_policy != (GtkScrollablePolicy) g_value_get_enum (value))
        {
          self->hscroll_policy = g_value_get_enum (value);
          gtk_widget_queue_resize (GTK_WIDGET (self));
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_VSCROLL_POLICY:
      if (self->vscroll_policy != (GtkScrollablePolicy) g_value_get_enum (value))
        {
          self->vscroll_policy = g_value_get_enum (value);
          gtk_widget_queue_resize (GTK_WIDGET (self));
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_headed_scrollable_dispose (GObject *object)
{
  PdHeadedScrollable *self = PD_HEADED_SCROLLABLE (object);

  pd_headed_scrollable_set_child (self, NULL);
  g_clear_pointer (&self->heading, gtk_widget_unparent);
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_data (self->vadjustment, self);
  g_clear_object (&self->vadjustment);
  g_clear_object (&self->hadjustment);
  g_clear_pointer (&self->title, g_free);

  G_OBJECT_CLASS (pd_headed_scrollable_parent_class)->dispose (object);
}

static void
pd_headed_scrollable_class_init (PdHeadedScrollableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = pd_headed_scrollable_get_property;
  object_class->set_property = pd_headed_scrollable_set_property;
  object_class->dispose = pd_headed_scrollable_dispose;
  widget_class->get_request_mode = pd_headed_scrollable_get_request_mode;
  widget_class->measure = pd_headed_scrollable_measure;
  widget_class->size_allocate = pd_headed_scrollable_size_allocate;

  properties[PROP_CHILD] =
    g_param_spec_object ("child", NULL, NULL, GTK_TYPE_WIDGET,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "headedscrollable");
}

static void
pd_headed_scrollable_init (PdHeadedScrollable *self)
{
  self->heading = gtk_label_new (NULL);
  gtk_label_set_use_markup (GTK_LABEL (self->heading), FALSE);
  gtk_label_set_use_underline (GTK_LABEL (self->heading), FALSE);
  gtk_label_set_xalign (GTK_LABEL (self->heading), 0);
  gtk_label_set_wrap (GTK_LABEL (self->heading), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->heading), PANGO_WRAP_WORD_CHAR);
  _pd_label_no_hyphens (self->heading);
  gtk_widget_set_margin_start (self->heading, 12);
  gtk_widget_set_margin_end (self->heading, 12);
  gtk_widget_set_margin_top (self->heading, 12);
  gtk_widget_set_margin_bottom (self->heading, 6);
  gtk_widget_add_css_class (self->heading, "title-3");
  gtk_widget_add_css_class (self->heading, "pd-session-title");
  gtk_widget_set_visible (self->heading, FALSE);
  gtk_widget_set_parent (self->heading, GTK_WIDGET (self));
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  set_vadjustment (self, NULL);
}

GtkWidget *
pd_headed_scrollable_new (void)
{
  return g_object_new (PD_TYPE_HEADED_SCROLLABLE, NULL);
}

/**
 * pd_headed_scrollable_get_child:
 *
 * Returns: (transfer none) (nullable): the list under the heading
 */
GtkWidget *
pd_headed_scrollable_get_child (PdHeadedScrollable *self)
{
  g_return_val_if_fail (PD_IS_HEADED_SCROLLABLE (self), NULL);
  return self->child;
}

/**
 * pd_headed_scrollable_set_child:
 * @child: (nullable): a GtkScrollable, the list
 */
void
pd_headed_scrollable_set_child (PdHeadedScrollable *self,
                                GtkWidget          *child)
{
  g_return_if_fail (PD_IS_HEADED_SCROLLABLE (self));
  g_return_if_fail (child == NULL || GTK_IS_SCROLLABLE (child));

  if (self->child == child)
    return;
  if (self->child != NULL)
    {
      set_inner (self, NULL);
      g_clear_pointer (&self->child, gtk_widget_unparent);
    }
  if (child != NULL)
    {
      self->child = child;
      gtk_widget_set_parent (child, GTK_WIDGET (self));
      if (self->hadjustment != NULL)
        gtk_scrollable_set_hadjustment (GTK_SCROLLABLE (child), self->hadjustment);
      set_inner (self, gtk_adjustment_new (0, 0, 0, 0, 0, 0));
      gtk_scrollable_set_vadjustment (GTK_SCROLLABLE (child), self->inner);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHILD]);
}

const char *
pd_headed_scrollable_get_title (PdHeadedScrollable *self)
{
  g_return_val_if_fail (PD_IS_HEADED_SCROLLABLE (self), NULL);
  return self->title;
}

/**
 * pd_headed_scrollable_set_title:
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads the list with @title, plain, whole and wrapped; none without one.
 */
void
pd_headed_scrollable_set_title (PdHeadedScrollable *self,
                                const char         *title)
{
  g_autofree char *safe = NULL;

  g_return_if_fail (PD_IS_HEADED_SCROLLABLE (self));

  if (title != NULL && title[0] == '\0')
    title = NULL;
  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  safe = title != NULL ? _pd_isolated_short (title, TITLE_CHARS) : NULL;
  gtk_label_set_text (GTK_LABEL (self->heading), safe != NULL ? safe : "");
  gtk_widget_set_visible (self->heading, safe != NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

static gboolean
find_below (GtkWidget  *widget,
            GtkWidget **found)
{
  if (PD_IS_HEADED_SCROLLABLE (widget))
    {
      *found = widget;
      return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (find_below (child, found))
      return TRUE;
  return FALSE;
}

/**
 * pd_headed_scrollable_find:
 * @root: a page
 *
 * Returns: (transfer none) (nullable): the first headed list inside @root
 */
PdHeadedScrollable *
pd_headed_scrollable_find (GtkWidget *root)
{
  GtkWidget *found = NULL;

  g_return_val_if_fail (GTK_IS_WIDGET (root), NULL);
  find_below (root, &found);
  return found != NULL ? PD_HEADED_SCROLLABLE (found) : NULL;
}

/**
 * pd_headed_scrollable_scroll_to_end:
 *
 * Takes the page to its end at its next layout, past the heading: the
 * list asked to show its last row shows it, but a list that fits under
 * its heading does not move, and the page stayed at its top, the newest
 * row hidden under the heading's height (the Events page, following its
 * newest event, never settled there).
 */
void
pd_headed_scrollable_scroll_to_end (PdHeadedScrollable *self)
{
  g_return_if_fail (PD_IS_HEADED_SCROLLABLE (self));
  self->to_end = TRUE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

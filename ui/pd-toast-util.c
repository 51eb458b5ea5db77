/* pd-toast-util.c: toasts that are never hidden while they appear
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2's AdwToastOverlay frees a toast's record when the toast's
 * hide animation ends; its show animation's "done" handler then reads that
 * record if it had not ended first.  A toast dismissed while it appears
 * (its timeout, its close button, Escape, Undo, a newer tick's toast of
 * the checklist replacing it) hides in 300 ms while it appears in 300 ms,
 * or 500 ms when it replaces another: both end in the same frame, or the
 * hiding first, and GTK runs the newer of a widget's tick callbacks first,
 * so the record is freed before the show animation is done with it.  The
 * imported-pages test crashed so, 1 run in 4 with MALLOC_PERTURB_, when
 * its main loop drew no frame between "Reading…" appearing and its
 * 1 s timeout (fixed in libadwaita 1.3; Debian 12 has 1.2.2).
 *
 * Every toast goes through _pd_toast_add(): a dismissal that comes before
 * a frame has drawn every toast's appearing to its end waits for that
 * frame, then goes on.
 *
 * libadwaita 1.2 gives a toast's close button no name: a screen reader
 * said "GtkImage".  Each toast shown in a place _pd_toast_add() was given
 * gets its close button named "Close Notification", and its action button
 * by its label as shown ("Undo"), as its widget comes.
 *
 * Its title is cut at the toast's width ("Session “Plan the release…”
 * del…" at 1.5× text and 360 px, tried as a new user would): it wraps
 * instead, the toast as tall as its text.
 */
#define G_LOG_DOMAIN "pd-toast-util"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"

#define GATE_KEY "pd-toast-gate"
#define NAMER_KEY "pd-toast-namer"
#define ABOVE_KEY "pd-toast-above"

/* libadwaita 1.2's longest appearing (a toast replacing another), and
 * some frames to spare. */
#define APPEARING_US ((500 + 50) * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  GtkWidget *widget;      /* (unowned) holds the gate */
  gint64     settles_at;  /* frame time by which every appearing has ended */
  gboolean   settled;     /* a frame at or after settles_at was drawn */
  guint      tick_id;
  guint      release_id;
  GPtrArray *held;        /* (element-type AdwToast) dismissals waiting */
} ToastGate;

static void
gate_free (gpointer data)
{
  ToastGate *gate = data;

  /* The widget is finalized: its tick callbacks went with it. */
  g_clear_handle_id (&gate->release_id, g_source_remove);
  g_ptr_array_unref (gate->held);
  g_free (gate);
}

static gboolean gate_release (gpointer data);

static void
gate_schedule_release (ToastGate *gate)
{
  if (gate->held->len > 0 && gate->release_id == 0 &&
      (gate->settled || !gtk_widget_get_mapped (gate->widget)))
    gate->release_id = g_idle_add (gate_release, gate);
}

static gboolean
gate_tick (GtkWidget     *widget,
           GdkFrameClock *clock,
           gpointer       data)
{
  ToastGate *gate = data;

  if (gdk_frame_clock_get_frame_time (clock) < gate->settles_at)
    return G_SOURCE_CONTINUE;
  /* The show animations' ticks end in this same frame: what waits goes
   * on once it is drawn. */
  gate->settled = TRUE;
  gate->tick_id = 0;
  gate_schedule_release (gate);
  return G_SOURCE_REMOVE;
}

/* A held dismissal goes on.  The toast's own handler, first of all, took
 * it off its overlay when it was held: adw_toast_dismiss() would do
 * nothing now. */
static void
gate_release_one (ToastGate *gate)
{
  g_autoptr(AdwToast) toast = g_ptr_array_steal_index (gate->held, 0);

  g_signal_emit_by_name (toast, "dismissed");
}

/* Connected after the widget's own unmap and the animations' handlers:
 * every animation was skipped to its end, nothing appears any more, and
 * what waits goes on now, before the widget may be disposed. */
static void
gate_unmapped (GtkWidget *widget,
               ToastGate *gate)
{
  gate->settled = TRUE;
  if (gate->tick_id != 0)
    gtk_widget_remove_tick_callback (widget, gate->tick_id);
  gate->tick_id = 0;
  g_clear_handle_id (&gate->release_id, g_source_remove);
  while (gate->held->len > 0)
    gate_release_one (gate);
}

static ToastGate *
gate_get (GtkWidget *widget)
{
  ToastGate *gate = g_object_get_data (G_OBJECT (widget), GATE_KEY);

  if (gate == NULL)
    {
      gate = g_new0 (ToastGate, 1);
      gate->widget = widget;
      gate->settled = TRUE;
      gate->held = g_ptr_array_new_with_free_func (g_object_unref);
      g_object_set_data_full (G_OBJECT (widget), GATE_KEY, gate, gate_free);
      g_signal_connect_after (widget, "unmap", G_CALLBACK (gate_unmapped), gate);
    }
  return gate;
}

/* A toast may begin to appear now: dismissals wait until a frame has
 * drawn its appearing to the end.  Nothing animates while unmapped. */
static void
gate_stamp (ToastGate *gate)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (gate->widget);

  if (clock == NULL || !gtk_widget_get_mapped (gate->widget))
    return;
  gate->settles_at = MAX (gate->settles_at, gdk_frame_clock_get_frame_time (clock) + APPEARING_US);
  gate->settled = FALSE;
  if (gate->tick_id == 0)
    gate->tick_id = gtk_widget_add_tick_callback (gate->widget, gate_tick, gate, NULL);
}

static void
on_dismissed (AdwToast  *toast,
              GtkWidget *widget)
{
  ToastGate *gate = gate_get (widget);

  if (!gate->settled && gtk_widget_get_mapped (widget))
    {
      /* Held: the overlay's handler (and ours after it) does not run. */
      g_signal_stop_emission_by_name (toast, "dismissed");
      if (!g_ptr_array_find (gate->held, toast, NULL))
        g_ptr_array_add (gate->held, g_object_ref (toast));
      return;
    }
  /* Goes on: the overlay hides it and shows the next toast. */
  g_signal_handlers_disconnect_by_func (toast, on_dismissed, widget);
  g_ptr_array_remove (gate->held, toast);
  gate_stamp (gate);
}

static gboolean
gate_release (gpointer data)
{
  ToastGate *gate = data;

  gate->release_id = 0;
  if (gate->held->len == 0 || (!gate->settled && gtk_widget_get_mapped (gate->widget)))
    return G_SOURCE_REMOVE;
  /* One at a time: the next may be the toast this one's going shows. */
  gate_release_one (gate);
  gate_schedule_release (gate);
  return G_SOURCE_REMOVE;
}

/* --- the close button's name --------------------------------------------- */

/* libadwaita 1.2's toast widget: a type of its own, not public. */
static gboolean
is_toast_widget (GtkWidget *widget)
{
  return g_str_equal (G_OBJECT_TYPE_NAME (widget), "AdwToastWidget");
}

/* @label without its mnemonic's underscores ("_Undo" is "Undo"). */
static char *
without_mnemonic (const char *label)
{
  GString *text = g_string_new (NULL);

  for (const char *p = label; *p != '\0'; p++)
    {
      if (*p == '_')
        {
          if (p[1] != '_')
            continue;
          p++;
        }
      g_string_append_c (text, *p);
    }
  return g_string_free (text, FALSE);
}

static void
name_buttons (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget) &&
      g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "window-close-symbolic") == 0)
    {
      /* Translators: how a screen reader names a toast's close button */
      gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Close Notification"), -1);
      return;
    }
  /* Its action (Undo): GTK 4.8 named it by its label as written and by
   * its mnemonic label (labelled by it), "_Undo Undo", until it took the
   * focus (tried with a screen reader).  Named by the label as shown from
   * the start, and by that alone. */
  if (GTK_IS_BUTTON (widget) && gtk_button_get_label (GTK_BUTTON (widget)) != NULL)
    {
      g_autofree char *name = without_mnemonic (gtk_button_get_label (GTK_BUTTON (widget)));

      gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
      gtk_accessible_reset_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    name_buttons (child);
}

/* The title of a toast's widget: its one label outside a button. */
static GtkWidget *
find_title (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget))
    return NULL;
  if (GTK_IS_LABEL (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_title (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* libadwaita 1.2's overlay gives a toast the height it asks for at its
 * natural width, then a narrower width when the window is narrow: a
 * wrapping title, asked for its width at one line's height, took the
 * whole line and went past the toast's edge.  Its natural width is kept
 * to what the overlay has room for, beside the toast's buttons, so the
 * height asked for is that of the lines it wraps to. */
static gboolean
fit_title (GtkWidget     *toast,
           GdkFrameClock *clock,
           gpointer       user_data)
{
  GtkWidget *overlay = gtk_widget_get_parent (toast);
  GtkWidget *title = find_title (toast);
  PangoFontMetrics *metrics;
  int toast_natural = 0;
  int title_natural = 0;
  int char_width;
  int chars;

  if (overlay == NULL || title == NULL || gtk_widget_get_width (overlay) == 0)
    return G_SOURCE_CONTINUE;
  /* Once it kept its fit a few frames, nothing more until the window's
   * width changes (title_refit()). */
  if (gtk_widget_get_width (overlay) == GPOINTER_TO_INT (g_object_get_data (G_OBJECT (toast), "pd-fit-width")))
    {
      int idle = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (toast), "pd-fit-idle")) + 1;

      g_object_set_data (G_OBJECT (toast), "pd-fit-idle", GINT_TO_POINTER (idle));
      if (idle >= 5)
        {
          g_object_set_data (G_OBJECT (toast), "pd-fit-tick", NULL);
          return G_SOURCE_REMOVE;
        }
    }
  else
    {
      g_object_set_data (G_OBJECT (toast), "pd-fit-width", GINT_TO_POINTER (gtk_widget_get_width (overlay)));
      g_object_set_data (G_OBJECT (toast), "pd-fit-idle", NULL);
    }
  gtk_widget_measure (toast, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &toast_natural, NULL, NULL);
  gtk_widget_measure (title, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &title_natural, NULL, NULL);
  /* As GtkLabel counts a character's width. */
  metrics = pango_context_get_metrics (gtk_widget_get_pango_context (title), NULL, NULL);
  char_width = MAX (pango_font_metrics_get_approximate_char_width (metrics),
                    pango_font_metrics_get_approximate_digit_width (metrics)) / PANGO_SCALE;
  pango_font_metrics_unref (metrics);
  chars = (gtk_widget_get_width (overlay) - (toast_natural - title_natural)) / MAX (char_width, 1);
  chars = MAX (chars, 8);
  if (gtk_label_get_max_width_chars (GTK_LABEL (title)) != chars)
    gtk_label_set_max_width_chars (GTK_LABEL (title), chars);
  /* A pill of several lines is a circle: rounded as a card then. */
  if (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (title))) > 1)
    gtk_widget_add_css_class (toast, "pd-toast-lines");
  else
    gtk_widget_remove_css_class (toast, "pd-toast-lines");
  return G_SOURCE_CONTINUE;
}

static void
title_refit (GtkWidget *toast)
{
  if (g_object_get_data (G_OBJECT (toast), "pd-fit-tick") != NULL)
    return;
  g_object_set_data (G_OBJECT (toast), "pd-fit-tick", GINT_TO_POINTER (TRUE));
  g_object_set_data (G_OBJECT (toast), "pd-fit-idle", NULL);
  gtk_widget_add_tick_callback (toast, fit_title, NULL, NULL);
}

/* The title wraps rather than end in "…": a toast says its whole text. */
static void
wrap_title (GtkWidget *toast)
{
  GtkRoot *root = gtk_widget_get_root (toast);
  GtkWidget *title = find_title (toast);

  if (title == NULL || g_object_get_data (G_OBJECT (title), "pd-toast-title") != NULL)
    return;
  g_object_set_data (G_OBJECT (title), "pd-toast-title", GINT_TO_POINTER (TRUE));
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_NONE);
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (title), PANGO_WRAP_WORD_CHAR);
  _pd_label_no_hyphens (title);
  gtk_widget_add_css_class (title, "pd-toast-title");
  title_refit (toast);
  /* Fitted again as its window's width changes. */
  if (GTK_IS_WINDOW (root))
    g_signal_connect_object (root, "notify::default-width", G_CALLBACK (title_refit), toast,
                             G_CONNECT_SWAPPED);
}

/* --- what a screen reader is told ------------------------------------------ */

/* A toast's text was in no object's name (tried as a new user would,
 * with a screen reader).  Its widget is a status (AT-SPI's "status bar",
 * which a reader's "read the status bar" key reads), named by its title
 * as shown (plain text, the markup already read).  GTK 4.8 has no
 * gtk_accessible_announce(), and sends nothing for an object whose
 * AT-SPI context no reader has asked for yet (a toast's, as it comes):
 * a name set again on map reached no listener on a real bus. */
static void
make_status (GtkWidget *toast)
{
  GtkWidget *title = find_title (toast);

  if (g_object_get_data (G_OBJECT (toast), "pd-toast-named") != NULL)
    return;
  g_object_set_data (G_OBJECT (toast), "pd-toast-named", GINT_TO_POINTER (TRUE));
  /* Its role can change only before GTK hands its object to AT-SPI. */
  if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (toast)) == GTK_ACCESSIBLE_ROLE_WIDGET)
    g_object_set (toast, "accessible-role", GTK_ACCESSIBLE_ROLE_STATUS, NULL);
  if (title == NULL)
    return;
  gtk_accessible_update_property (GTK_ACCESSIBLE (toast), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (GTK_LABEL (title)), -1);
}

#define ANNOUNCER_KEY "pd-toast-announcer"

/* The toast's own status came too late for a reader to hear (above): its
 * words go to a status that was in the window from its start, whose name
 * GTK 4.8 then sends as it changes (an AT-SPI PropertyChange of
 * accessible-name); emptied first, so the same words again are sent
 * again.  Which toast the status said last is what "read the status bar"
 * reads. */
static void
announce (GtkWidget *overlay,
          GtkWidget *toast)
{
  GtkWidget *announcer = g_object_get_data (G_OBJECT (overlay), ANNOUNCER_KEY);
  GtkWidget *title = find_title (toast);

  if (announcer == NULL || title == NULL)
    return;
  gtk_accessible_update_property (GTK_ACCESSIBLE (announcer), GTK_ACCESSIBLE_PROPERTY_LABEL, "", -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (announcer), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (GTK_LABEL (title)), -1);
}

/*
 * _pd_toast_set_announcer:
 * @overlay: an #AdwToastOverlay
 * @announcer: a widget of the status role, in the window from its start
 *
 * Each toast shown in @overlay names @announcer by its words: GTK 4.8
 * sends nothing for the toast itself.
 */
void
_pd_toast_set_announcer (GtkWidget *overlay,
                         GtkWidget *announcer)
{
  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (announcer)) == GTK_ACCESSIBLE_ROLE_STATUS);

  g_object_set_data (G_OBJECT (overlay), ANNOUNCER_KEY, announcer);
}

/* A toast shows at the overlay's bottom: over the bars below the content
 * given to _pd_toast_keep_above() (the message entry of the Now page,
 * tried as a new user would), unless raised above them. */
static void
keep_above_content (GtkWidget *overlay,
                    GtkWidget *toast)
{
  GtkWidget *content = g_object_get_data (G_OBJECT (overlay), ABOVE_KEY);
  graphene_point_t bottom;
  int inset = 0;

  if (content != NULL && gtk_widget_get_mapped (content) &&
      gtk_widget_compute_point (content, overlay, &GRAPHENE_POINT_INIT (0, gtk_widget_get_height (content)), &bottom))
    inset = CLAMP (gtk_widget_get_height (overlay) - (int) bottom.y, 0, gtk_widget_get_height (overlay) / 2);
  gtk_widget_set_margin_bottom (toast, inset);
}

/* A toast's widget came into the overlay (at once, or when the toasts
 * before it went): its close button is named, its title wraps, and it is
 * kept above the bars. */
static void
on_overlay_children (GListModel *children,
                     guint       position,
                     guint       removed,
                     guint       added,
                     gpointer    overlay)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GtkWidget) child = g_list_model_get_item (children, i);

      if (child != NULL && is_toast_widget (child))
        {
          make_status (child);
          announce (overlay, child);
          _pd_toast_parts_quiet (child);
          name_buttons (child);
          wrap_title (child);
          keep_above_content (overlay, child);
        }
    }
}

static GtkWidget *
find_toast_overlay (GtkWidget *widget)
{
  if (ADW_IS_TOAST_OVERLAY (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_toast_overlay (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The overlay @where shows its toasts in (a preferences window's own) is
 * watched once for toast widgets coming, and those there named. */
static void
name_toasts_in (GtkWidget *where)
{
  GtkWidget *overlay = find_toast_overlay (where);
  GListModel *children;

  if (overlay == NULL || g_object_get_data (G_OBJECT (overlay), NAMER_KEY) != NULL)
    return;
  children = gtk_widget_observe_children (overlay);
  g_object_set_data_full (G_OBJECT (overlay), NAMER_KEY, children, g_object_unref);
  g_signal_connect (children, "items-changed", G_CALLBACK (on_overlay_children), overlay);
  on_overlay_children (children, 0, 0, g_list_model_get_n_items (children), overlay);
}

/**
 * _pd_toast_keep_above:
 * @overlay: an #AdwToastOverlay
 * @content: a widget inside it, with bars below it
 *
 * Toasts shown in @overlay while @content is mapped come above the bottom
 * edge of @content, not over the bars below it.
 */
void
_pd_toast_keep_above (GtkWidget *overlay,
                      GtkWidget *content)
{
  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (gtk_widget_is_ancestor (content, overlay));

  /* A descendant: it lives as long as the overlay. */
  g_object_set_data (G_OBJECT (overlay), ABOVE_KEY, content);
}

/**
 * _pd_toast_add:
 * @where: an #AdwToastOverlay, or an #AdwPreferencesWindow
 * @toast: (transfer full): a toast not added before
 *
 * Shows @toast in @where, as adw_toast_overlay_add_toast() does.  When
 * @toast is dismissed (adw_toast_dismiss(), its timeout, its close
 * button) before a frame has drawn the appearing of every toast added to
 * @where to its end, the dismissal waits for that frame: libadwaita 1.2
 * reads freed memory when a toast hides before it has finished appearing.
 */
void
_pd_toast_add (GtkWidget *where,
               AdwToast  *toast)
{
  g_return_if_fail (ADW_IS_TOAST_OVERLAY (where) || ADW_IS_PREFERENCES_WINDOW (where));
  g_return_if_fail (ADW_IS_TOAST (toast));

  /* Before the overlay's own handler, to be able to hold it. */
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (on_dismissed), where, 0);
  gate_stamp (gate_get (where));
  name_toasts_in (where);
  if (ADW_IS_TOAST_OVERLAY (where))
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (where), toast);
  else
    adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (where), toast);
}

/**
 * _pd_toast_add_text:
 * @where: an #AdwToastOverlay, or an #AdwPreferencesWindow
 * @text: plain text for a person to read (a title, a server's message)
 *
 * Shows @text in a new toast in @where, as _pd_toast_add() does.  A toast's
 * title is Pango markup in libadwaita 1.2: @text is escaped, never read as
 * markup.
 */
void
_pd_toast_add_text (GtkWidget  *where,
                    const char *text)
{
  g_autofree char *escaped = NULL;

  g_return_if_fail (text != NULL);

  escaped = g_markup_escape_text (text, -1);
  _pd_toast_add (where, adw_toast_new (escaped));
}

/* pd-approval-preview.c: the approval dialog's preview of a call, one row to a line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each line of a call's preview (a command, an edit's old and new lines, a
 * file's content) is a row of its own: its number, its mark ("$" for a
 * command's first line, "+" and "-" for what an edit puts in and takes
 * out) and its text, which wraps inside its own column.  A wrapped part
 * starts under the text, past the number and the mark, with neither beside
 * it: it cannot read as a line of its own ("+ keep… - delete_backups()"
 * wrapped before "- delete_backups()"), and a line of the command always
 * has its number.  One label holding every line, unwrapped and scrolled
 * sideways, kept that apart too but cut the command at 1.5× text and
 * 360 px: its tail was off the edge (tried as a new user would).
 */
#define G_LOG_DOMAIN "pd-approval-preview"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-approval-preview-private.h"
#include "pd-ui-util-private.h"

/* Lines of the preview shown before it scrolls, at most. */
#define PREVIEW_SHOWN_LINES 12

/* The preview grows, up to this height, then scrolls. */
#define PREVIEW_MAX_HEIGHT 320

/* The marks a preview's line starts with (pd_tool_preview()): a command's
 * first line, its next lines, and an edit's or write's lines. */
static const char * const marks[] = { "$ ", "  ", "+ ", "- " };

static GtkWidget *
preview_box (GtkWidget *preview)
{
  GtkWidget *child = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (preview));

  if (GTK_IS_VIEWPORT (child))
    child = gtk_viewport_get_child (GTK_VIEWPORT (child));
  return child;
}

/* The lines cut at the width they got wrap from now on (in their own
 * column); whether any did. */
static gboolean
wrap_cut_lines (GtkWidget *preview)
{
  gboolean wrapped = FALSE;

  for (GtkWidget *row = gtk_widget_get_first_child (preview_box (preview)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkLabel *label = GTK_LABEL (gtk_overlay_get_child (GTK_OVERLAY (row)));

      if (gtk_label_get_wrap (label) || gtk_widget_get_width (GTK_WIDGET (label)) == 0 ||
          !pango_layout_is_ellipsized (gtk_label_get_layout (label)))
        continue;
      gtk_label_set_ellipsize (label, PANGO_ELLIPSIZE_NONE);
      gtk_label_set_wrap (label, TRUE);
      wrapped = TRUE;
    }
  return wrapped;
}

/* Each line's text starts past the gutter laid over it: its margin is the
 * gutter's width (the same in every row: the numbers are as wide as the
 * last one's). */
static void
align_text_column (GtkWidget *preview)
{
  GtkWidget *first = gtk_widget_get_first_child (preview_box (preview));
  int width = 0;

  if (first == NULL)
    return;
  gtk_widget_measure (gtk_widget_get_last_child (first), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width,
                      NULL, NULL);
  if (width == gtk_widget_get_margin_start (gtk_overlay_get_child (GTK_OVERLAY (first))))
    return;
  for (GtkWidget *row = first; row != NULL; row = gtk_widget_get_next_sibling (row))
    gtk_widget_set_margin_start (gtk_overlay_get_child (GTK_OVERLAY (row)), width);
}

/* The dialog takes its height from its width as first measured; the
 * preview, wrapped at the narrower width it gets, then needed more than
 * that and its scroller was squeezed to two lines of a long command
 * (tried at 300 and 360 px).  Once laid out, the lines cut at their
 * width wrap, and the scroller asks for the preview's height at its real
 * width, up to PREVIEW_SHOWN_LINES lines, and the dialog grows to it.
 * Done again whenever the width changes (the window made narrower). */
static gboolean
fit_preview_when_laid_out (GtkWidget     *scroller,
                           GdkFrameClock *clock,
                           gpointer       user_data)
{
  GtkWidget *lines = preview_box (scroller);
  GtkWidget *first = NULL;
  int width = gtk_widget_get_width (scroller);
  int fitted_width = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (scroller), "pd-fitted-width"));
  int natural = 0;
  int line = 0;
  int wanted;

  /* Before the first layout too: the text never drawn under the gutter. */
  align_text_column (scroller);
  if (width == 0)
    return G_SOURCE_CONTINUE;
  /* Fitted at this width and it kept it a few frames (a new width comes a
   * frame or two after the window's): nothing to do until it changes. */
  if (width == fitted_width)
    {
      int idle = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (scroller), "pd-fit-idle")) + 1;

      g_object_set_data (G_OBJECT (scroller), "pd-fit-idle", GINT_TO_POINTER (idle));
      if (idle < 5)
        return G_SOURCE_CONTINUE;
      g_object_set_data (G_OBJECT (scroller), "pd-fit-tick", NULL);
      return G_SOURCE_REMOVE;
    }
  g_object_set_data (G_OBJECT (scroller), "pd-fit-idle", NULL);
  if (g_object_get_data (G_OBJECT (scroller), "pd-fit-first-frame") == NULL)
    g_object_set_data (G_OBJECT (scroller), "pd-fit-first-frame",
                       GINT_TO_POINTER ((int) gdk_frame_clock_get_frame_counter (clock) + 1));
  /* Laid out again with them wrapped before the height is asked. */
  if (wrap_cut_lines (scroller))
    {
      g_object_set_data (G_OBJECT (scroller), "pd-preview-fitted", NULL);
      return G_SOURCE_CONTINUE;
    }
  gtk_widget_measure (lines, GTK_ORIENTATION_VERTICAL, width, NULL, &natural, NULL, NULL);
  first = _pd_approval_preview_line (scroller, 0);
  if (first != NULL)
    {
      PangoLayout *layout = gtk_widget_create_pango_layout (first, "X");

      pango_layout_get_pixel_size (layout, NULL, &line);
      g_object_unref (layout);
    }
  wanted = MIN (MIN (natural, line * PREVIEW_SHOWN_LINES),
                gtk_scrolled_window_get_max_content_height (GTK_SCROLLED_WINDOW (scroller)));
  /* Kept as the scroller's minimum: a later layout of the dialog (its
   * responses stacked or side by side) must not take it back. */
  if (wanted > gtk_scrolled_window_get_min_content_height (GTK_SCROLLED_WINDOW (scroller)))
    gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), wanted);
  /* Fitted, or given up on after a second of frames (a window that
   * cannot grow): either way, nothing more until the width changes. */
  if (wanted <= gtk_widget_get_height (scroller) + 1 ||
      gdk_frame_clock_get_frame_counter (clock) >
      GPOINTER_TO_INT (g_object_get_data (G_OBJECT (scroller), "pd-fit-first-frame")) + 60)
    {
      g_object_set_data (G_OBJECT (scroller), "pd-fitted-width", GINT_TO_POINTER (width));
      g_object_set_data (G_OBJECT (scroller), "pd-fit-first-frame", NULL);
      /* For the tests: the preview is laid out as it stays. */
      g_object_set_data (G_OBJECT (scroller), "pd-preview-fitted", GINT_TO_POINTER (TRUE));
    }
  return G_SOURCE_CONTINUE;
}

/* Fits the preview from the next frame on, until it keeps its width. */
static void
arm_fit (GtkWidget *scroller)
{
  if (g_object_get_data (G_OBJECT (scroller), "pd-fit-tick") != NULL)
    return;
  g_object_set_data (G_OBJECT (scroller), "pd-fit-idle", NULL);
  g_object_set_data (G_OBJECT (scroller), "pd-fit-tick", GINT_TO_POINTER (TRUE));
  gtk_widget_add_tick_callback (scroller, fit_preview_when_laid_out, NULL, NULL);
}

/* Its viewport laid out again (its sideways adjustment takes the width it
 * shows): fitted again if that width is new.  Its window's default width
 * is not enough: a window manager's resize leaves it as it was, and on a
 * loaded machine the new width came from the X server more than five
 * frames after it, when the fitting had stopped, and was never fitted. */
static void
on_viewport_changed (GtkAdjustment *sideways,
                     GtkWidget     *scroller)
{
  int fitted_width = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (scroller), "pd-fitted-width"));

  if (gtk_widget_get_mapped (scroller) && gtk_widget_get_width (scroller) != fitted_width)
    arm_fit (scroller);
}

/* Fitted again whenever its window's width changes (made narrower by
 * hand, or by the tests), with no tick while it keeps it. */
static void
watch_window_width (GtkWidget *scroller)
{
  GtkRoot *root = gtk_widget_get_root (scroller);

  arm_fit (scroller);
  if (!GTK_IS_WINDOW (root) || g_object_get_data (G_OBJECT (scroller), "pd-fit-watched") != NULL)
    return;
  g_object_set_data (G_OBJECT (scroller), "pd-fit-watched", GINT_TO_POINTER (TRUE));
  g_signal_connect_object (root, "notify::default-width", G_CALLBACK (arm_fit), scroller,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (root, "notify::maximized", G_CALLBACK (arm_fit), scroller,
                           G_CONNECT_SWAPPED);
}

/* The mark @line starts with ("$ ", "+ "…), or NULL. */
static const char *
line_mark (const char *line)
{
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    if (g_str_has_prefix (line, marks[i]))
      return marks[i];
  return NULL;
}

static GtkWidget *
gutter_label (const char *text,
              int         width_chars,
              const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
  gtk_label_set_width_chars (GTK_LABEL (label), width_chars);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_yalign (GTK_LABEL (label), 0);
  /* Down the whole row, its wrapped parts too: the gutter's rule is one. */
  gtk_widget_set_valign (label, GTK_ALIGN_FILL);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, css_class);
  return label;
}

/* One row: the line's text, wrapping in its own column, with the gutter
 * (its number and its mark) laid over the room its margin leaves
 * (align_text_column()). A box of the three measured every wrapping line
 * for its width and again for its height, three times as long to show
 * as the text alone. */
static GtkWidget *
preview_row (const char *line,
             guint       number,
             int         number_chars)
{
  GtkWidget *row = gtk_overlay_new ();
  GtkWidget *gutter = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  const char *mark = line_mark (line);
  g_autofree char *number_text = g_strdup_printf ("%u", number);
  g_autofree char *mark_text = g_strndup (mark != NULL ? mark : "", 1);
  /* Left to right, whatever letter the model starts it with
   * (_pd_ltr_lines()): a command reads as it runs. */
  g_autofree char *text = _pd_ltr_lines (mark != NULL ? line + strlen (mark) : line);
  GtkWidget *number_label = gutter_label (number_text, number_chars, "pd-approval-number");
  GtkWidget *mark_label = gutter_label (mark_text, 1, "pd-approval-mark");
  GtkWidget *label;

  gtk_widget_add_css_class (number_label, "dim-label");
  gtk_widget_add_css_class (number_label, "numeric");
  gtk_box_append (GTK_BOX (gutter), number_label);
  gtk_box_append (GTK_BOX (gutter), mark_label);
  gtk_widget_set_halign (gutter, GTK_ALIGN_START);
  gtk_widget_set_valign (gutter, GTK_ALIGN_FILL);
  gtk_widget_add_css_class (gutter, "pd-approval-gutter");
  /* For the eye: a reader meets each line once, as its text names it,
   * mark and all. */
  gtk_accessible_update_state (GTK_ACCESSIBLE (gutter), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);

  /* Model-derived text: a plain label, never markup; wrapped anywhere,
   * never hyphenated (a hyphen of Pango's is no character of the
   * command). */
  label = _pd_plain_label (text, "monospace");
  _pd_accessible_set_text (label, line, NULL);
  /* Wrapped only once it must (wrap_cut_lines()): a wrapping label is
   * costly to measure; most lines fit. Until then it is cut, for the
   * frame before it wraps. */
  gtk_label_set_wrap (GTK_LABEL (label), FALSE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "pd-approval-line");
  gtk_label_set_yalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  /* Its natural width a line of a dialog, not the longest line's: the
   * rest wraps. */
  gtk_label_set_max_width_chars (GTK_LABEL (label), 50);
  /* Selectable for copying with the pointer, but no line is a Tab stop:
   * the preview is one, its scroller (_pd_approval_preview_new()). The
   * first line as the stop kept the focus on every Tab after it, and a
   * reader heard only that line (tried with a screen reader). */
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_focusable (label, FALSE);
  /* Out of the Tab chain too: a selectable label takes a Tab and says it
   * did, focusable or not (GTK 4.8's gtk_label_focus()), so the focus
   * went no further than the line before it. */
  gtk_widget_set_can_focus (label, FALSE);

  gtk_overlay_set_child (GTK_OVERLAY (row), label);
  gtk_overlay_add_overlay (GTK_OVERLAY (row), gutter);
  gtk_widget_set_direction (row, GTK_TEXT_DIR_LTR);
  gtk_widget_set_direction (gutter, GTK_TEXT_DIR_LTR);
  gtk_widget_add_css_class (row, "pd-approval-row");
  return row;
}

/* The preview is one Tab stop, its scroller, from which the keys scroll
 * it (Ctrl+Down, Ctrl+End): named for what it shows and how long, and
 * described by its whole text, so a reader hears the command at once. */
static void
name_preview (GtkWidget          *scroller,
              const char * const *lines,
              guint               n)
{
  gboolean command = FALSE;
  g_autofree char *name = NULL;
  g_autofree char *whole = g_strjoinv ("\n", (char **) lines);

  GtkWidget *viewport = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller));

  for (guint i = 0; i < n && !command; i++)
    command = g_str_has_prefix (lines[i], marks[0]);
  if (command)
    /* Translators: the approval dialog's preview of a command, as a
     * screen reader names it; %u is how many lines it has */
    name = g_strdup_printf (ngettext ("Command, %u line", "Command, %u lines", n), n);
  else
    /* Translators: the approval dialog's preview of a change (an edit,
     * a file written), as a screen reader names it; %u is how many
     * lines it has */
    name = g_strdup_printf (ngettext ("Change, %u line", "Change, %u lines", n), n);
  /* The viewport is the stop: a scrolled window hands the focus it is
   * given on to its child, and is no stop of its own. */
  gtk_widget_set_focusable (viewport, TRUE);
  gtk_widget_set_focusable (scroller, FALSE);
  _pd_accessible_set_text (viewport, name, whole);
  _pd_accessible_set_text (scroller, name, NULL);
}

/**
 * _pd_approval_preview_new:
 * @text: the preview as pd_safe_text_approval() shows it, lines ending in
 *   "\n" (a last one need not)
 *
 * Returns: (transfer floating): a scrolled window that grows with the
 *   preview up to PREVIEW_MAX_HEIGHT, a row for each line of @text
 */
GtkWidget *
_pd_approval_preview_new (const char *text)
{
  g_auto(GStrv) lines = NULL;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  guint n;
  int number_chars;

  /* The preview ends its last line; a row would show an empty one. */
  if (g_str_has_suffix (text, "\n"))
    {
      g_autofree char *trimmed = g_strndup (text, strlen (text) - 1);

      lines = g_strsplit (trimmed, "\n", -1);
    }
  else
    lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  if (n == 0)
    {
      g_strfreev (lines);
      lines = g_new0 (char *, 2);
      lines[0] = g_strdup ("");
      n = 1;
    }
  {
    g_autofree char *digits = g_strdup_printf ("%u", n);

    number_chars = (int) strlen (digits);
  }
  for (guint i = 0; i < n; i++)
    gtk_box_append (GTK_BOX (box), preview_row (lines[i], i + 1, number_chars));
  gtk_widget_add_css_class (box, "pd-approval-preview");
  gtk_widget_set_direction (box, GTK_TEXT_DIR_LTR);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), box);
  /* Nothing scrolls sideways: every line wraps in its own row. */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  /* Long previews scroll: the whole text is there, never cut here. */
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), PREVIEW_MAX_HEIGHT);
  /* A scrollbar always drawn when there is more: an overlay one shows
   * only under the pointer, and a tail below the edge gave no sign. */
  gtk_scrolled_window_set_overlay_scrolling (GTK_SCROLLED_WINDOW (scroller), FALSE);
  /* The preview from its start when its first line takes the focus. */
  gtk_viewport_set_scroll_to_focus (GTK_VIEWPORT (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller))),
                                    FALSE);
  gtk_widget_add_css_class (scroller, "card");
  gtk_widget_add_css_class (scroller, "pd-approval-scroller");
  name_preview (scroller, (const char * const *) lines, n);
  g_signal_connect (scroller, "map", G_CALLBACK (watch_window_width), NULL);
  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller)), "changed",
                           G_CALLBACK (on_viewport_changed), scroller, 0);

  return scroller;
}

/**
 * _pd_approval_preview_get_n_lines:
 * @preview: what _pd_approval_preview_new() made
 *
 * Returns: how many lines of the preview it shows, a row each
 */
guint
_pd_approval_preview_get_n_lines (GtkWidget *preview)
{
  guint n = 0;

  for (GtkWidget *row = gtk_widget_get_first_child (preview_box (preview)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    n++;
  return n;
}

/**
 * _pd_approval_preview_line:
 * @preview: what _pd_approval_preview_new() made
 * @index: a line's index, from 0
 *
 * Returns: (transfer none) (nullable): the label showing line @index's
 *   text (its mark aside), %NULL past the last
 */
GtkWidget *
_pd_approval_preview_line (GtkWidget *preview,
                           guint      index)
{
  GtkWidget *row = gtk_widget_get_first_child (preview_box (preview));

  for (guint i = 0; row != NULL && i < index; i++)
    row = gtk_widget_get_next_sibling (row);
  return row != NULL ? gtk_overlay_get_child (GTK_OVERLAY (row)) : NULL;
}

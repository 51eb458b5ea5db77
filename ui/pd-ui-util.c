/* pd-ui-util.c: small helpers the inspector views share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-ui-util"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

/**
 * _pd_file_chooser_take_path:
 * @chooser: (transfer full): a file chooser that answered
 * @response: its response
 *
 * Ends a file chooser's ::response: destroys @chooser and drops the
 * reference its caller kept for the answer.
 *
 * Returns: (transfer full) (nullable): the local path a person accepted;
 *   %NULL when cancelled, or for a file with no local path
 */
char *
_pd_file_chooser_take_path (GtkNativeDialog *chooser,
                            int              response)
{
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      path = file != NULL ? g_file_get_path (file) : NULL;
    }

  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);

  return g_steal_pointer (&path);
}

/**
 * _pd_plain_label:
 * @text: text that may come from a model, an agent or a file
 * @css_class: (nullable): a style class to add
 *
 * Returns: (transfer floating): a start-aligned label showing @text as
 *   plain text (never Pango markup), wrapped wherever a long word needs,
 *   with no hyphen of Pango's own at a wrap: a plan's or an agent's text
 *   (a Cline task's at 360 px read "inter-" "face") shows its own
 *   characters only
 */
GtkWidget *
_pd_plain_label (const char *text,
                 const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
  gtk_label_set_text (GTK_LABEL (label), text);
  /* A selectable label is a Tab stop a reader names by its text: the
   * isolates it shows are not said. */
  _pd_accessible_set_text (label, text, NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  _pd_label_no_hyphens (label);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);

  return label;
}

/**
 * _pd_accessible_text:
 * @text: (nullable): text as shown, perhaps with bidi isolates
 *
 * @text as a screen reader should get it. The shown text wraps names in
 * isolates (U+2066–U+2069), marks direction (U+200E, U+200F, U+202A–U+202E)
 * and pads numbers with figure spaces (U+2007); a reader may say those or
 * pass them on to braille, and a name is not the place for layout. The
 * formatting characters are left out and a figure space becomes a space.
 *
 * Returns: (transfer full) (nullable): the plain text
 */
char *
_pd_accessible_text (const char *text)
{
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F ||
          (c >= 0x202A && c <= 0x202E))
        continue;
      if (c == 0x2007)
        c = ' ';
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

/**
 * _pd_accessible_set_text:
 * @widget: the widget a screen reader names
 * @label: (nullable): its accessible name as shown; %NULL leaves it
 * @description: (nullable): its description as shown; %NULL leaves it
 *
 * Sets @widget's accessible name and description through
 * _pd_accessible_text(): every name and description built from shown text
 * goes through here.
 */
void
_pd_accessible_set_text (GtkWidget  *widget,
                         const char *label,
                         const char *description)
{
  g_autofree char *plain_label = _pd_accessible_text (label);
  g_autofree char *plain_description = _pd_accessible_text (description);

  if (plain_label != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, plain_label, -1);
  if (plain_description != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                    plain_description, -1);
}

/**
 * _pd_label_no_hyphens:
 * @label: a label showing a command, a path, code, or a plan's text
 *
 * Lets @label wrap at any character without a hyphen of Pango's own:
 * "AAAA-" read as a flag or a path the text does not have (tried as an
 * attacker would).
 */
void
_pd_label_no_hyphens (GtkWidget *label)
{
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (GTK_LABEL (label), attrs);
  pango_attr_list_unref (attrs);
}

static void
on_selectable_leave (GtkEventControllerFocus *controller,
                     gpointer                 data)
{
  gtk_label_select_region (GTK_LABEL (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller))), 0, 0);
}

/* Lets go of a selectable @label's selection as the focus leaves it (and
 * its menu): a Tab through it selected the whole text, which stayed grey
 * once the focus had gone on (tried with the keyboard alone). */
void
_pd_label_unselect_on_leave (GtkWidget *label)
{
  GtkEventController *focus = gtk_event_controller_focus_new ();

  g_signal_connect (focus, "leave", G_CALLBACK (on_selectable_leave), NULL);
  gtk_widget_add_controller (label, focus);
}

/* What an inscription's lines were last worked out for: at the same width
 * and text the answer is the same, and a card is allocated at every
 * layout of its list. */
typedef struct
{
  int    width;
  char  *text;
  guint  lines;
} FitMemo;

static void
fit_memo_free (gpointer data)
{
  FitMemo *memo = data;

  g_free (memo->text);
  g_free (memo);
}

/* The lines @inscription's text takes at its width, at most its bound
 * (_pd_inscription_limit_lines()), or 0 unknown. */
static guint
inscription_lines (GtkInscription *inscription)
{
  const char *text = gtk_inscription_get_text (inscription);
  int width = gtk_widget_get_width (GTK_WIDGET (inscription));
  guint most = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (inscription), "pd-fit-most"));
  FitMemo *memo = g_object_get_data (G_OBJECT (inscription), "pd-fit-memo");
  g_autoptr(PangoLayout) layout = NULL;
  guint lines;

  if (text == NULL || width <= 0)
    return 0;
  if (memo != NULL && memo->width == width && g_strcmp0 (memo->text, text) == 0)
    return memo->lines;
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (inscription), text);
  pango_layout_set_width (layout, width * PANGO_SCALE);
  pango_layout_set_wrap (layout, gtk_inscription_get_wrap_mode (inscription));
  lines = (guint) MAX (pango_layout_get_line_count (layout), 1);
  if (most > 0)
    lines = MIN (lines, most);
  if (memo == NULL)
    {
      memo = g_new0 (FitMemo, 1);
      g_object_set_data_full (G_OBJECT (inscription), "pd-fit-memo", memo, fit_memo_free);
    }
  memo->width = width;
  g_free (memo->text);
  memo->text = g_strdup (text);
  memo->lines = lines;
  return lines;
}

static gboolean
fit_lines_idle (gpointer data)
{
  GtkInscription *inscription = data;
  guint lines = inscription_lines (inscription);

  g_object_set_data (G_OBJECT (inscription), "pd-fit-lines", NULL);
  if (lines > 0 && gtk_inscription_get_min_lines (inscription) != lines)
    {
      gtk_inscription_set_min_lines (inscription, lines);
      gtk_inscription_set_nat_lines (inscription, lines);
    }
  return G_SOURCE_REMOVE;
}

/* Gives a wrapping @inscription the lines its text takes at its width,
 * once the allocation under way is done: a list view gives a row its least
 * height, an inscription's min-lines, so a text wrapped to two lines at
 * 1.5× text showed one, cut.  A new text of as many lines is not measured. */
void
_pd_inscription_fit_lines (GtkInscription *inscription)
{
  guint lines = inscription_lines (inscription);

  if (lines == 0 || gtk_inscription_get_min_lines (inscription) == lines ||
      g_object_get_data (G_OBJECT (inscription), "pd-fit-lines") != NULL)
    return;
  g_object_set_data (G_OBJECT (inscription), "pd-fit-lines", GUINT_TO_POINTER (1));
  g_idle_add_full (G_PRIORITY_DEFAULT, fit_lines_idle, g_object_ref (inscription), g_object_unref);
}

/* The most lines _pd_inscription_fit_lines() gives @inscription (its
 * text ellipsized past them), as a label's lines. */
void
_pd_inscription_limit_lines (GtkInscription *inscription,
                             guint           most)
{
  g_object_set_data (G_OBJECT (inscription), "pd-fit-most", GUINT_TO_POINTER (most));
}

/**
 * _pd_unwrapped_scroller:
 * @label: a label showing a change or a command, one source line to a line
 *
 * Stops @label wrapping and puts it in a scrolled window that scrolls
 * sideways: a soft-wrapped tail had no marker, so `+ keep_this - delete()`
 * drawn as "+ keep_this" over "- delete()" read as a removed line, and the
 * model chooses where its words break (tried as an attacker would).  Each
 * drawn line is one line of the text; a long one scrolls.
 *
 * Returns: (transfer floating): the scrolled window holding @label
 */
GtkWidget *
_pd_unwrapped_scroller (GtkWidget *label)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_label_set_wrap (GTK_LABEL (label), FALSE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_NONE);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_NEVER);
  /* A scrollbar always drawn when a line goes on: an overlay one shows
   * only under the pointer, and a tail cut at the edge (`; rm …`) gave no
   * sign it was there. */
  gtk_scrolled_window_set_overlay_scrolling (GTK_SCROLLED_WINDOW (scroller), FALSE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), label);
  /* The text from its start when it takes the focus: a selectable label
   * given the focus had its viewport scroll to the end of its longest
   * line, and a card's or dialog's command opened on its tail (tried with
   * the keyboard alone). */
  gtk_viewport_set_scroll_to_focus (GTK_VIEWPORT (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller))),
                                    FALSE);
  return scroller;
}

/**
 * _pd_ltr_lines:
 * @text: a command, a path or code, any number of lines
 *
 * Returns: (transfer full): @text with a left-to-right mark (U+200E) at
 *   the start of each line.  A line's direction is taken from its first
 *   strong letter, which the model chooses: `א; touch x #ב echo done` was
 *   laid out right to left, so the part that runs read as a comment
 *   (tried as an attacker would).  An isolate does not help: Pango finds a
 *   paragraph's direction through it.  A command reads as it runs.
 */
char *
_pd_ltr_lines (const char *text)
{
  GString *out = g_string_new ("\xe2\x80\x8e");

  for (const char *p = text; *p != '\0'; p++)
    {
      g_string_append_c (out, *p);
      if (*p == '\n' && p[1] != '\0')
        g_string_append (out, "\xe2\x80\x8e");
    }
  return g_string_free (out, FALSE);
}

/**
 * _pd_isolated_line:
 * @text: (nullable): anyone's text (a session's title) going into a
 *   sentence of ours
 *
 * Returns: (transfer full): @text on one line with its controls made
 *   visible (pd_safe_text_line()), inside a first-strong isolate (U+2068 …
 *   U+2069): a right-to-left title cannot reorder the quotes and words
 *   around it, and none of its own controls can end the isolate.
 */
char *
_pd_isolated_line (const char *text)
{
  g_autofree char *safe = pd_safe_text_line (text);

  return g_strconcat ("\xe2\x81\xa8" /* U+2068 */, safe, "\xe2\x81\xa9" /* U+2069 */, NULL);
}

/**
 * _pd_isolated_short:
 * @text: (nullable): anyone's text going into a short sentence of ours (a
 *   toast's title)
 * @max_chars: how many characters of it to show at most
 *
 * Returns: (transfer full): as _pd_isolated_line(), cut to its first
 *   @max_chars - 1 characters and "…" when longer: a toast ellipsizes its
 *   whole title, so a long title would hide the end of our sentence and
 *   push its button away; the start of a title is enough to know it.
 */
char *
_pd_isolated_short (const char *text,
                    guint       max_chars)
{
  g_autofree char *safe = pd_safe_text_line (text);

  g_return_val_if_fail (max_chars > 1, NULL);

  if (g_utf8_strlen (safe, -1) > max_chars)
    {
      g_autofree char *head = g_utf8_substring (safe, 0, max_chars - 1);

      return g_strconcat ("\xe2\x81\xa8", head, "…\xe2\x81\xa9", NULL);
    }
  return g_strconcat ("\xe2\x81\xa8", safe, "\xe2\x81\xa9", NULL);
}

/**
 * _pd_session_delete_label:
 * @imported: whether the session is another agent's
 *
 * One name for deleting a session, in every menu: "Delete" for ours,
 * "Remove From List" for another agent's, whose transcript stays (the
 * row's menu said one thing and the window's menu "Delete Session" for
 * both, tried as a new user would).  The toasts say the same: "deleted",
 * "removed from the list".
 *
 * Returns: (transfer none): the menu label, with its mnemonic
 */
const char *
_pd_session_delete_label (gboolean imported)
{
  return imported ? _("_Remove From List") : _("_Delete");
}

/**
 * _pd_toast_quote:
 * @text: (nullable): anyone's text (a session's title) the toast quotes
 *
 * A toast's title wraps (pd-toast-util.c), so the quote need not be cut
 * to what fits beside the rest of the sentence: cut to the width there
 * was, "“Flaky s…” removed from the list…" said 7 characters of a
 * 17-character title while the toast wrapped to 4 lines with room to
 * spare (tried with a screen reader at 360 px and 1.5× text).  A title is
 * still bounded: a toast is no place for a page of text.
 *
 * Returns: (transfer full): @text isolated (_pd_isolated_short()), cut
 *   to at most PD_TOAST_QUOTE_CHARS characters
 */
char *
_pd_toast_quote (const char *text)
{
  return _pd_isolated_short (text, PD_TOAST_QUOTE_CHARS);
}

/*
 * _pd_name_drop_down:
 * @name: what a screen reader says for it
 *
 * GTK 4.8 gives a drop-down's own button (the part that takes focus) no
 * relation to the drop-down, so a screen reader names it by its class,
 * "GtkToggleButton". The button carries the name as well.  A mnemonic
 * label beside it ("_Type") would be said after the name ("Event type
 * Type"): the name replaces it.
 */
void
_pd_name_drop_down (GtkDropDown *drop_down,
                    const char  *name)
{
  GtkWidget *button = gtk_widget_get_first_child (GTK_WIDGET (drop_down));

  _pd_accessible_set_text (GTK_WIDGET (drop_down), name, NULL);
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (drop_down), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  if (GTK_IS_TOGGLE_BUTTON (button))
    _pd_accessible_set_text (GTK_WIDGET (button), name, NULL);
}

static void
combo_row_choice_to_tooltip (AdwComboRow *row)
{
  gpointer item = adw_combo_row_get_selected_item (row);

  gtk_widget_set_tooltip_text (GTK_WIDGET (row),
                               GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (item) : NULL);
}

/*
 * _pd_combo_row_choice_tooltip:
 * @row: a combo row whose model is a #GtkStringList
 *
 * The choice a combo row shows is cut to the row's width: at 1.5× text
 * New Session's "Ask Every Time" read "Ask Every…", and at 360 px
 * "Local OpenAI-com…" (tried as a new user would, with Large Text). The
 * row's tooltip has the whole choice.
 */
void
_pd_combo_row_choice_tooltip (AdwComboRow *row)
{
  g_signal_connect (row, "notify::selected-item", G_CALLBACK (combo_row_choice_to_tooltip), NULL);
  combo_row_choice_to_tooltip (row);
  /* Not over the list of choices, once opened. */
  _pd_popover_tooltips_quiet (GTK_WIDGET (row));
}

/*
 * _pd_set_tooltip_lines:
 * @widget: a widget whose text may be cut (a check chip)
 * @first: its own text, said first
 * @rest: what follows on the next lines
 *
 * A History check chip is ellipsized on a narrow window: at 360 px and 1.5×
 * text "build · passed" read "bui…", its tooltip only the check's
 * description (tried as a new user would, with Large Text). The tooltip,
 * plain text, starts with the chip's own words.
 */
void
_pd_set_tooltip_lines (GtkWidget  *widget,
                       const char *first,
                       const char *rest)
{
  g_autofree char *whole = g_strconcat (first, "\n", rest, NULL);

  gtk_widget_set_tooltip_text (widget, whole);
}

/*
 * _pd_name_tooltip_buttons:
 *
 * The icon-only buttons libadwaita 1.2 builds inside its widgets (a
 * preferences window's search, a password row's "Show Text") carry only a
 * tooltip, which GTK 4.8 makes the description: the name is the image's
 * class, "GtkImage". Each button under @root with no label of its own is
 * named by its tooltip (libadwaita's, translated). Our own buttons are
 * named in their templates.
 */
void
_pd_name_tooltip_buttons (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_BUTTON (child) && gtk_button_get_label (GTK_BUTTON (child)) == NULL &&
          gtk_widget_get_tooltip_text (child) != NULL)
        _pd_accessible_set_text (GTK_WIDGET (child), gtk_widget_get_tooltip_text (child), NULL);
      else
        _pd_name_tooltip_buttons (child);
    }
}

/* A button with a mnemonic label ("_Retry Now") is named twice by GTK 4.8:
 * gtk_button_set_label() makes the raw label, underscore and all, the
 * button's accessible LABEL, and its mnemonic label names it again through
 * LABELLED_BY, so a screen reader said "_Retry Now Retry Now". The label
 * alone names it: the button's own LABEL is dropped, and dropped again
 * whenever the label changes (gtk_button_set_label() sets it first, then
 * notifies). */
static void
drop_mnemonic_duplicate (GtkButton *button)
{
  /* A button named more precisely than its label ("pd-own-name") keeps
   * that name. */
  if (g_object_get_data (G_OBJECT (button), "pd-own-name") != NULL)
    return;
  if (gtk_button_get_use_underline (button) && gtk_button_get_label (button) != NULL)
    gtk_accessible_reset_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

static void
name_mnemonic_buttons (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget))
    {
      if (g_object_get_data (G_OBJECT (widget), "pd-mnemonic-name") == NULL)
        {
          g_object_set_data (G_OBJECT (widget), "pd-mnemonic-name", GINT_TO_POINTER (TRUE));
          g_signal_connect (widget, "notify::label", G_CALLBACK (drop_mnemonic_duplicate), NULL);
          g_signal_connect (widget, "notify::use-underline", G_CALLBACK (drop_mnemonic_duplicate), NULL);
        }
      drop_mnemonic_duplicate (GTK_BUTTON (widget));
    }
  _pd_scrollbar_speak (widget);
  _pd_stack_speak (widget);
  _pd_scroller_speak (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    name_mnemonic_buttons (child);
}

/* What has the focus is what a screen reader says first: buttons built
 * after the window was shown (a toast's Undo) are named once focused. */
static void
on_toplevel_focus (GtkWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    if (GTK_IS_BUTTON (w))
      name_mnemonic_buttons (w);
}

static void
on_toplevels_changed (GListModel *toplevels,
                      guint       position,
                      guint       removed,
                      guint       added)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (g_object_get_data (G_OBJECT (window), "pd-mnemonic-names") != NULL)
        continue;
      g_object_set_data (G_OBJECT (window), "pd-mnemonic-names", GINT_TO_POINTER (TRUE));
      g_signal_connect (window, "map", G_CALLBACK (name_mnemonic_buttons), NULL);
      g_signal_connect (window, "notify::focus-widget", G_CALLBACK (on_toplevel_focus), NULL);
      name_mnemonic_buttons (window);
    }
}

/*
 * _pd_name_mnemonic_buttons:
 *
 * From now on, every button with a mnemonic label in every window of the
 * process is named by its label once, not twice (drop_mnemonic_duplicate):
 * each window's buttons when it is shown, and what takes the focus.
 */
void
_pd_name_mnemonic_buttons (void)
{
  static gsize watching = 0;

  if (g_once_init_enter (&watching))
    {
      GListModel *toplevels = gtk_window_get_toplevels ();

      g_signal_connect (toplevels, "items-changed", G_CALLBACK (on_toplevels_changed), NULL);
      on_toplevels_changed (toplevels, 0, 0, g_list_model_get_n_items (toplevels));
      _pd_scrollbars_speak ();
      g_once_init_leave (&watching, 1);
    }
}

/*
 * _pd_wrap_button_labels:
 * @box: a box of text buttons (a status page's pill buttons)
 *
 * Each button's label wraps, centred, instead of asking for its whole
 * line: at 1.5× text "Read Other Agents’ Sessions" alone asked for 392
 * pixels, so the window could not be narrowed to a phone's 360.
 */
void
_pd_wrap_button_labels (GtkWidget *box)
{
  for (GtkWidget *child = gtk_widget_get_first_child (box);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *label = GTK_IS_BUTTON (child) ? gtk_button_get_child (GTK_BUTTON (child)) : NULL;

      if (label == NULL || !GTK_IS_LABEL (label))
        continue;
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_CENTER);
    }
}

/*
 * _pd_text_width:
 * @chars: how many average characters
 *
 * The width of @chars characters of @widget's font, in pixels: panes that
 * hold text are sized with it, so they grow with a larger text size
 * (Large Text, a higher font scaling) instead of cutting titles at a
 * width chosen for the default font.
 */
int
_pd_text_width (GtkWidget *widget,
                double     chars)
{
  PangoContext *context = gtk_widget_get_pango_context (widget);
  PangoFontMetrics *metrics = pango_context_get_metrics (context, NULL, NULL);
  int width = pango_font_metrics_get_approximate_char_width (metrics);

  pango_font_metrics_unref (metrics);
  return (int) (chars * width / PANGO_SCALE + 0.5);
}

/*
 * _pd_list_leave:
 * @list: a list the focus is in
 * @direction: %GTK_DIR_TAB_FORWARD or %GTK_DIR_TAB_BACKWARD
 *
 * Moves the focus to the window's next (or previous) stop outside @list.
 *
 * Returns: whether the focus moved
 */
gboolean
_pd_list_leave (GtkWidget        *list,
                GtkDirectionType  direction)
{
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (list));
  gboolean moved;

  if (root == NULL)
    return FALSE;
  /* While the list cannot take the focus, the window's next stop is the
   * widget after (or before) the whole list. */
  gtk_widget_set_can_focus (list, FALSE);
  moved = gtk_widget_child_focus (root, direction);
  gtk_widget_set_can_focus (list, TRUE);
  return moved;
}

static gboolean
leave_list (GtkWidget *list,
            GVariant  *args,
            gpointer   user_data)
{
  return _pd_list_leave (list, g_variant_get_int32 (args));
}

/* One frame of _pd_list_view_scroll_to_end(). */
static gboolean
scroll_to_end_tick (GtkWidget     *list,
                    GdkFrameClock *clock,
                    gpointer       data)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));
  GListModel *model = G_LIST_MODEL (gtk_list_view_get_model (GTK_LIST_VIEW (list)));
  guint n_items = model != NULL ? g_list_model_get_n_items (model) : 0;
  double upper = gtk_adjustment_get_upper (adjustment);
  guint frames = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (list), "pd-scroll-end-frames"));

  if (n_items == 0 || frames >= 60 ||
      (upper > 0 && gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >= upper - 1))
    {
      g_object_set_data (G_OBJECT (list), "pd-scroll-end-tick", NULL);
      return G_SOURCE_REMOVE;
    }
  g_object_set_data (G_OBJECT (list), "pd-scroll-end-frames", GUINT_TO_POINTER (frames + 1));
  gtk_widget_activate_action (list, "list.scroll-to-item", "u", n_items - 1);
  return G_SOURCE_CONTINUE;
}

/*
 * _pd_list_view_scroll_to_end:
 * @list: a list view
 *
 * Brings the list's last row into sight, as soon as the list has laid it
 * out: "list.scroll-to-item" moves only to a row laid out (it ignores
 * others and never warns, see pd-events-view.c), so it is asked again each
 * frame until the list shows its end, for a second at most.  (A long
 * History opened at its oldest listed row, the selected newest a thousand
 * rows below: tried as a new user would.)
 */
void
_pd_list_view_scroll_to_end (GtkWidget *list)
{
  g_return_if_fail (GTK_IS_LIST_VIEW (list));

  g_object_set_data (G_OBJECT (list), "pd-scroll-end-frames", NULL);
  if (g_object_get_data (G_OBJECT (list), "pd-scroll-end-tick") == NULL)
    g_object_set_data (G_OBJECT (list), "pd-scroll-end-tick",
                       GUINT_TO_POINTER (gtk_widget_add_tick_callback (list, scroll_to_end_tick, NULL, NULL)));
}

/*
 * _pd_list_one_tab_stop:
 * @list: a list view, column view or list box
 *
 * GTK 4.8 makes every row of a list view a Tab stop (the list's
 * tab-behavior came in 4.12), and a list box's too: a keyboard user tabbed
 * through every event, plan version and step to get past them. The list
 * becomes one stop:
 * Tab and Shift+Tab leave it, the arrow keys move between its rows.
 */
void
_pd_list_one_tab_stop (GtkWidget *list)
{
  _pd_take_tab (list, GTK_PHASE_BUBBLE, leave_list);
}

/*
 * _pd_take_tab:
 * @widget: the widget whose Tab keys @callback answers
 * @phase: when: GTK_PHASE_CAPTURE before the widget's children take Tab
 * @callback: called with the direction (a GtkDirectionType) as an int32
 *
 * Tab and Shift+Tab, of the main and the keypad keys (and ISO_Left_Tab,
 * which Shift+Tab sends on some layouts), handed to @callback.
 */
void
_pd_take_tab (GtkWidget           *widget,
              GtkPropagationPhase  phase,
              GtkShortcutFunc      callback)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  const struct { guint keyval; GdkModifierType mods; GtkDirectionType direction; } keys[] = {
    { GDK_KEY_Tab, 0, GTK_DIR_TAB_FORWARD },
    { GDK_KEY_KP_Tab, 0, GTK_DIR_TAB_FORWARD },
    { GDK_KEY_Tab, GDK_SHIFT_MASK, GTK_DIR_TAB_BACKWARD },
    { GDK_KEY_KP_Tab, GDK_SHIFT_MASK, GTK_DIR_TAB_BACKWARD },
    { GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK, GTK_DIR_TAB_BACKWARD },
  };

  gtk_event_controller_set_propagation_phase (controller, phase);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].keyval, keys[i].mods),
                                                gtk_callback_action_new (callback, NULL, NULL));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_int32 (keys[i].direction));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller), shortcut);
    }
  gtk_widget_add_controller (widget, controller);
}

/* Only the page shown is in a reader's tree.  GTK 4.8 says VISIBLE of
 * every object it presents and SHOWING of none but a window
 * (gtkatspicontext.c, collect_states()), so a reader could not tell the
 * page on screen from the three hidden behind it (nu22 #3: SHOWING on 1
 * of 663 objects, VISIBLE on all).  The hidden state takes a page out:
 * GTK 4.8 presents no object that has it, and tells the reader
 * (children-changed) as it comes and goes.  It costs a state each. */
static void
reader_shown_only (GtkWidget *stack,
                   GtkWidget *shown)
{
  for (GtkWidget *child = gtk_widget_get_first_child (stack); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_accessible_update_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_HIDDEN,
                                 shown != NULL && child != shown, -1);
}

static void
view_stack_reader_shown_only (AdwViewStack *stack)
{
  reader_shown_only (GTK_WIDGET (stack), adw_view_stack_get_visible_child (stack));
}

/*
 * _pd_view_stack_reader_shown_only:
 * @stack: a view stack
 *
 * Keeps the pages @stack does not show out of a reader's tree, as
 * _pd_stack_tab_shown_only() does for a GtkStack's.
 */
void
_pd_view_stack_reader_shown_only (AdwViewStack *stack)
{
  g_signal_connect (stack, "notify::visible-child", G_CALLBACK (view_stack_reader_shown_only), NULL);
  view_stack_reader_shown_only (stack);
}

static void
stack_tab_shown_only (GtkStack *stack)
{
  GtkWidget *shown = gtk_stack_get_visible_child (stack);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (stack));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (stack));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_widget_set_can_focus (child, child == shown);
  reader_shown_only (GTK_WIDGET (stack), shown);
  /* The focus was in the page going away (the stack moves it before it
   * says which page is shown, while the new page still refused it). */
  if (focus != NULL && shown != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (stack)) &&
      !gtk_widget_is_ancestor (focus, shown) && focus != shown)
    gtk_widget_child_focus (shown, GTK_DIR_TAB_FORWARD);
}

/*
 * _pd_stack_tab_shown_only:
 * @stack: a stack of pages
 *
 * Only the page @stack shows takes the focus, and only it is in a
 * reader's tree (reader_shown_only()). During a cross-fade the page
 * going away stays mapped for its 200 ms, and Tab went into it: a plan's
 * steps fading out, a status page's scroller with nothing to see (tried
 * with the keyboard alone).
 */
void
_pd_stack_tab_shown_only (GtkStack *stack)
{
  g_signal_connect (stack, "notify::visible-child", G_CALLBACK (stack_tab_shown_only), NULL);
  stack_tab_shown_only (stack);
}

/*
 * _pd_stack_show_moving_focus:
 * @stack: a stack of pages
 * @name: the page to show
 *
 * Shows @name; a focus in the page hidden leaves it first, and the
 * window's own rules put it in the page shown (a session opened, a run's
 * page).  Left for GTK 4.8 to move as the page hid (after an Overview card
 * had it), the focus chain it built in the page shown was never let go:
 * the session page and its views outlived the closed window.
 */
void
_pd_stack_show_moving_focus (GtkStack   *stack,
                             const char *name)
{
  GtkWidget *shown = gtk_stack_get_visible_child (stack);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (stack));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  gboolean leaves = focus != NULL && shown != NULL && gtk_widget_is_ancestor (focus, shown) &&
                    g_strcmp0 (gtk_stack_get_visible_child_name (stack), name) != 0;

  if (leaves)
    gtk_root_set_focus (root, NULL);
  gtk_stack_set_visible_child_name (stack, name);
}

/* A status page's scroller is a Tab stop only while its text must be scrolled;
 * a page of text only is out of the chain (GTK 4.8's scroller took Tab). */
static void
status_scroller_tab_if_scrolls (GtkAdjustment *adjustment,
                                GtkWidget     *scroller)
{
  gboolean scrolls = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment) >
                     gtk_adjustment_get_page_size (adjustment) + 0.5;

  gtk_widget_set_focusable (scroller, scrolls);
  gtk_widget_set_can_focus (scroller, scrolls || adw_status_page_get_child (ADW_STATUS_PAGE (gtk_widget_get_parent (scroller))) != NULL);
}

/*
 * _pd_status_pages_tab_to_controls:
 * @root: a widget with status pages inside it
 *
 * Each status page below @root (an empty page, a failed run, an unreachable source) is a Tab
 * stop only while its text must be scrolled to be read; Tab goes to the first control, its own
 * buttons or the page's next (tried with the keyboard alone); named without isolates.
 */
void
_pd_status_pages_tab_to_controls (GtkWidget *root)
{
  if (ADW_IS_STATUS_PAGE (root))
    {
      GtkWidget *scroller = gtk_widget_get_first_child (root);

      if (GTK_IS_SCROLLED_WINDOW (scroller))
        {
          GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

          g_signal_connect_object (adjustment, "changed",
                                   G_CALLBACK (status_scroller_tab_if_scrolls), scroller, 0);
          status_scroller_tab_if_scrolls (adjustment, scroller);
        }
      _pd_status_page_plain_names (ADW_STATUS_PAGE (root));
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_status_pages_tab_to_controls (child);
}

/*
 * _pd_name_shortcut_keys:
 * @widget: a shortcuts window, or a widget inside one
 *
 * GTK 4.8's shortcuts window shows a key without a character by its keysym
 * name, in words only where GTK's catalogue has the language: in English,
 * Ctrl+Page Down showed as "Ctrl + Page_Down". Each such key cap gets its
 * name in words: ours where we have one, else the keysym name with spaces.
 */
void
_pd_name_shortcut_keys (GtkWidget *widget)
{
  static const struct { const char *keysym; const char *words; } keys[] = {
    { "Page_Up", NC_("keyboard label", "Page Up") },
    { "Page_Down", NC_("keyboard label", "Page Down") },
  };

  if (GTK_IS_LABEL (widget) && GTK_IS_SHORTCUT_LABEL (gtk_widget_get_parent (widget)))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (widget));

      if (strchr (text, '_') != NULL && !gtk_label_get_use_underline (GTK_LABEL (widget)))
        {
          g_autofree char *words = g_strdelimit (g_strdup (text), "_", ' ');
          const char *named = words;

          for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
            if (g_str_equal (text, keys[i].keysym))
              named = g_dpgettext2 (GETTEXT_PACKAGE, "keyboard label", keys[i].words);
          gtk_label_set_text (GTK_LABEL (widget), named);
        }
    }
  /* The window's search button is an icon alone, which GTK 4.8 names
   * nothing: a screen reader said "toggle button". */
  if (GTK_IS_TOGGLE_BUTTON (widget) && GTK_IS_IMAGE (gtk_button_get_child (GTK_BUTTON (widget))) &&
      g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (gtk_button_get_child (GTK_BUTTON (widget)))),
                 "edit-find-symbolic") == 0)
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    _("Search Shortcuts"), -1);
  /* Its search field said its class, "GtkSearchEntry". */
  if (GTK_IS_SEARCH_ENTRY (widget))
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    _("Search Shortcuts"), -1);
  /* A section's columns are pages of its own stack, named "_1", "_2":
   * each is named by the section's title (_pd_stack_speak()). */
  _pd_stack_speak (widget);
  _pd_shortcuts_window_part_speak (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_name_shortcut_keys (child);
}

/*
 * _pd_name_menus:
 * @root: a widget whose menu buttons' menus are named
 * @name: their name, "Main Menu"
 *
 * GTK 4.8 names a menu nothing, and AT-SPI says its class,
 * "GtkPopoverMenu": each menu button's menu is named.
 */
void
_pd_name_menus (GtkWidget  *root,
                const char *name)
{
  if (GTK_IS_MENU_BUTTON (root) && GTK_IS_POPOVER_MENU (gtk_menu_button_get_popover (GTK_MENU_BUTTON (root))))
    _pd_menu_set_name (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (root))), name);
  else if (GTK_IS_MENU_BUTTON (root) && gtk_menu_button_get_popover (GTK_MENU_BUTTON (root)) != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (gtk_menu_button_get_popover (GTK_MENU_BUTTON (root))),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    _pd_name_menus (child, name);
}

/*
 * _pd_widen_view_switcher_bar:
 * @bar: a view switcher bar
 *
 * libadwaita 1.2 keeps 10 px free at each end of the bar, and its tabs
 * share the rest equally: at 360 px and 1.5× text "Transcript" was cut to
 * "Transcri…" for 3 px. The tabs take the bar's whole width.
 */
static GtkWidget *
find_view_switcher (GtkWidget *widget)
{
  if (ADW_IS_VIEW_SWITCHER (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_view_switcher (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

void
_pd_widen_view_switcher_bar (AdwViewSwitcherBar *bar)
{
  GtkWidget *switcher = find_view_switcher (GTK_WIDGET (bar));

  g_return_if_fail (switcher != NULL);
  gtk_widget_set_margin_start (switcher, 0);
  gtk_widget_set_margin_end (switcher, 0);
}

/* --- a moment before a dialog answers ------------------------------------ */

/* For half a second (or GTK's double-click time, when longer) after a
 * question's dialog is mapped, or becomes the top one again, none of its
 * responses can be activated. Each new dialog opens in the same place with
 * its buttons where the last one's were: the second click of a
 * double-click on Approve Once answered the next question unseen, even
 * with Always for This Session (tried as an attacker would). The guard
 * covers every response, keys included: a key still held is no answer
 * either. Closing the dialog still denies (or dismisses a plan review),
 * the safe answer. */
#define RESPONSE_GUARD_MS 500

static guint
response_guard_ms (GtkWidget *dialog)
{
  int double_click = 0;

  g_object_get (gtk_widget_get_settings (dialog), "gtk-double-click-time", &double_click, NULL);
  return MAX (RESPONSE_GUARD_MS, double_click);
}

static void
set_responses_enabled (GtkWidget *dialog,
                       gboolean   enabled)
{
  const char * const *responses = g_object_get_data (G_OBJECT (dialog), "pd-responses");

  for (guint i = 0; responses != NULL && responses[i] != NULL; i++)
    adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (dialog), responses[i], enabled);
}

static gboolean
release_response_guard (gpointer data)
{
  g_autoptr(GtkWidget) dialog = g_weak_ref_get (data);

  if (dialog != NULL)
    {
      /* This source ends by itself. */
      g_object_steal_data (G_OBJECT (dialog), "pd-guard-source");
      set_responses_enabled (dialog, TRUE);
    }
  return G_SOURCE_REMOVE;
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static void
remove_source (gpointer data)
{
  g_source_remove (GPOINTER_TO_UINT (data));
}

/**
 * _pd_dialog_arm_response_guard:
 * @dialog: an #AdwMessageDialog whose responses _pd_dialog_guard_responses() named
 *
 * Holds back its responses for the guard's time from now.
 */
void
_pd_dialog_arm_response_guard (GtkWidget *dialog)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);
  guint source;

  g_weak_ref_init (ref, dialog);
  set_responses_enabled (dialog, FALSE);
  /* A guard armed again starts over; one still running goes with the
   * dialog. */
  g_object_set_data (G_OBJECT (dialog), "pd-guard-source", NULL);
  source = g_timeout_add_full (G_PRIORITY_DEFAULT, response_guard_ms (dialog),
                               release_response_guard, ref, weak_ref_free);
  g_object_set_data_full (G_OBJECT (dialog), "pd-guard-source", GUINT_TO_POINTER (source),
                          remove_source);
}

/**
 * _pd_dialog_guard_responses:
 * @dialog: an #AdwMessageDialog
 * @responses: the ids of its responses the guard holds back
 *
 * None of @responses answers before @dialog is shown and its guard has
 * ended (the approval dialogs, the plan review, the Overview card's
 * Review dialog).
 */
void
_pd_dialog_guard_responses (GtkWidget          *dialog,
                            const char * const *responses)
{
  g_object_set_data_full (G_OBJECT (dialog), "pd-responses",
                          g_strdupv ((char **) responses), (GDestroyNotify) g_strfreev);
  set_responses_enabled (dialog, FALSE);
  g_signal_connect_after (dialog, "map", G_CALLBACK (_pd_dialog_arm_response_guard), NULL);
}

/* A run in progress holds the application (when there is one, not in a
 * widget test): Quit, the last window closed, or SIGTERM closes the
 * windows, which cancels the run, and the process ends once its engine has
 * recorded it stopped and stopped its commands, not while it does (the row
 * stayed "running", the command ran on). */
void
_pd_run_hold_application (void)
{
  GApplication *app = g_application_get_default ();

  if (app != NULL)
    g_application_hold (app);
}

void
_pd_run_release_application (void)
{
  GApplication *app = g_application_get_default ();

  if (app != NULL)
    g_application_release (app);
}

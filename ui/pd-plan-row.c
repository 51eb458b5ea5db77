/* pd-plan-row.c: one step in the Now workspace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Status glyph (a symbolic icon with an accessible name), id, title, note,
 * and one chip per acceptance check.  Everything here comes from the
 * model or an endpoint, so every text is set as plain text, never as
 * markup, and through pd_safe_text_line() (pd_safe_text_block() for the
 * note): a bidi override shows as "<U+202E>" instead of reversing what
 * follows, as on the cards and session rows.  The row is read-only:
 * nothing in it changes the plan.
 *
 * A plan may have 500 steps: the Now page makes a row light
 * (pd_plan_row_new_lazy()), with its name, description and state but none
 * of its labels and chips and the height it will about have, and makes
 * what it shows (pd_plan_row_ensure_content()) when it comes into sight.
 * Every text is shown cut to what a row shows (a title of 100 KB was laid
 * out whole): the title to TITLE_SHOWN_CHARS, the note to
 * NOTE_SHOWN_CHARS, a chip to CHECK_SHOWN_CHARS; the tooltips have up to
 * TOOLTIP_CHARS.  What a screen reader hears of a row is made with the
 * light row, 500 at once: the title and note as shown, each check's
 * description and arguments to CHECK_SAID_CHARS.
 */
#define G_LOG_DOMAIN "pd-plan-row"

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "pd-plan-row.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"
#include "pd-wrap-box.h"

/* What a row shows of a step's texts: a title as the engine keeps it
 * (PD_PLAN_MAX_TITLE_CHARS), a note in its four lines, a check's chip about
 * 32 characters; a tooltip and what a screen reader says have more, still
 * bounded. */
#define TITLE_SHOWN_CHARS 200
#define NOTE_SHOWN_CHARS  400
#define CHECK_SHOWN_CHARS 64
#define CHECK_SAID_CHARS  200
#define TOOLTIP_CHARS     2000

/* What a row shows, made when it comes into sight. */
#define PD_TYPE_PLAN_ROW_CONTENT (pd_plan_row_content_get_type ())
G_DECLARE_FINAL_TYPE (PdPlanRowContent, pd_plan_row_content, PD, PLAN_ROW_CONTENT, GtkBox)

struct _PdPlanRowContent
{
  GtkBox         parent_instance;

  /* Template widgets */
  GtkImage      *status_icon;
  GtkLabel      *id_label;
  GtkLabel      *title_label;
  GtkLabel      *note_label;
  GtkLabel      *unverified_label;
  PdWrapBox     *checks_box;
};

G_DEFINE_FINAL_TYPE (PdPlanRowContent, pd_plan_row_content, GTK_TYPE_BOX)

struct _PdPlanRow
{
  GtkListBoxRow  parent_instance;

  PdPlanRowItem *item;
  gulong         step_handler;
  PdPlanRowContent *content;    /* NULL until made */
};

G_DEFINE_FINAL_TYPE (PdPlanRow, pd_plan_row, GTK_TYPE_LIST_BOX_ROW)

/* How many characters @text has, counting to @max_chars + 1 at most. */
static guint
count_chars (const char *text,
             guint       max_chars)
{
  guint n = 0;

  for (const char *p = text != NULL ? text : ""; *p != '\0' && n <= max_chars; p = g_utf8_find_next_char (p, NULL))
    n++;
  return n;
}

/* The first @max_chars characters of @text made safe to show (as
 * pd_safe_text_line(), or pd_safe_text_block() when @block), and "…" when
 * there was more; only what is kept is read. */
static char *
cut_text (const char *text,
          guint       max_chars,
          gboolean    block)
{
  const char *end = text != NULL ? text : "";
  g_autofree char *head = NULL;
  char *safe;

  for (guint n = 0; *end != '\0' && n < max_chars; n++)
    end = g_utf8_find_next_char (end, NULL);
  head = g_strndup (text != NULL ? text : "", end - (text != NULL ? text : ""));
  safe = block ? pd_safe_text_block (head) : pd_safe_text_line (head);
  if (*end == '\0')
    return safe;
  head = g_strconcat (safe, "…", NULL);
  g_free (safe);
  return g_steal_pointer (&head);
}

static const char * const step_classes[] = { "pending", "in-progress", "done", "blocked" };
static const char * const check_classes[] = { "pending", "passed", "failed", "blocked" };

/* What a check is called where it is shown: its description, else its id,
 * made safe to show (the caller frees it). */
/* A check's arguments (canonical JSON) as a reader says them: "command
 * make test, timeout_ms 5000", strings without their quotes, other values
 * as JSON; "" for none.  The braces and quotes of the JSON were read out
 * one by one (tried as a new user would, with a screen reader). */
static char *
arguments_in_words (const char *arguments)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GString) said = g_string_new (NULL);
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (arguments == NULL || !json_parser_load_from_data (parser, arguments, -1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return g_strdup (arguments != NULL && strcmp (arguments, "{}") != 0 ? arguments : "");

  json_object_iter_init (&iter, json_node_get_object (json_parser_get_root (parser)));
  while (json_object_iter_next (&iter, &name, &value))
    {
      if (said->len > 0)
        g_string_append (said, ", ");
      g_string_append_printf (said, "%s ", name);
      if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
        g_string_append (said, json_node_get_string (value));
      else
        {
          g_autofree char *text = json_to_string (value, FALSE);

          g_string_append (said, text);
        }
    }
  return g_string_free (g_steal_pointer (&said), FALSE);
}

static char *
check_what (const PdPlanCheck *check,
            guint              max_chars)
{
  return cut_text (check->description != NULL && check->description[0] != '\0'
                   ? check->description : check->id, max_chars, FALSE);
}

static char *
check_tooltip (const PdPlanCheck *check)
{
  GString *text = g_string_new (NULL);
  g_autofree char *id = cut_text (check->id, CHECK_SHOWN_CHARS, FALSE);
  g_autofree char *tool = cut_text (check->tool != NULL ? check->tool : "", CHECK_SHOWN_CHARS, FALSE);
  g_autofree char *arguments = cut_text (check->arguments != NULL ? check->arguments : "{}", TOOLTIP_CHARS, FALSE);

  if (check->description != NULL && check->description[0] != '\0')
    {
      g_autofree char *description = cut_text (check->description, TOOLTIP_CHARS, FALSE);

      g_string_append_printf (text, "%s\n", description);
    }
  /* Translators: a line of an acceptance check's tooltip */
  g_string_append_printf (text, _("Check: %s"), id);
  g_string_append_c (text, '\n');
  g_string_append_printf (text, _("State: %s"), pd_plan_check_status_label (check->status));
  g_string_append_c (text, '\n');
  g_string_append_printf (text, _("Tool: %s"), tool);
  g_string_append_c (text, '\n');
  g_string_append_printf (text, _("Arguments: %s"), arguments);

  return g_string_free (text, FALSE);
}

static GtkWidget *
check_chip_new (const PdPlanCheck *check)
{
  g_autofree char *tooltip = check_tooltip (check);
  g_autofree char *what = check_what (check, CHECK_SHOWN_CHARS);
  const char *state = pd_plan_check_status_label (check->status);
  GtkWidget *chip = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *icon = gtk_image_new_from_icon_name (pd_plan_check_status_icon_name (check->status));
  GtkWidget *label = gtk_label_new (NULL);
  g_autofree char *said = NULL;
  g_autofree char *accessible = NULL;

  gtk_widget_add_css_class (chip, "check-chip");
  /* Its own width in the flow box's line, not the line's. */
  gtk_widget_set_halign (chip, GTK_ALIGN_START);
  gtk_widget_add_css_class (chip, check_classes[check->status]);
  gtk_widget_set_tooltip_text (chip, tooltip);

  _pd_accessible_set_text (GTK_WIDGET (icon), state, NULL);

  gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
  gtk_label_set_text (GTK_LABEL (label), what);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 32);
  gtk_label_set_width_chars (GTK_LABEL (label), MIN (6, (int) g_utf8_strlen (gtk_label_get_text (GTK_LABEL (label)), -1)));
  gtk_label_set_xalign (GTK_LABEL (label), 0);

  said = check_what (check, CHECK_SAID_CHARS);
  /* Translators: what a screen reader says for a check chip: description, state */
  accessible = g_strdup_printf (_("%s: %s"), said, state);
  _pd_accessible_set_text (GTK_WIDGET (chip), accessible, NULL);

  gtk_box_append (GTK_BOX (chip), icon);
  gtk_box_append (GTK_BOX (chip), label);

  return chip;
}

/* What a screen reader says for the row: its name "s2: Port to GKeyFile",
 * and as its description the status, a done step's "Unverified" line as
 * shown (@unverified, "" for none: it was only on screen, beside the
 * chips' glyphs), the note and each check with its state in words and
 * what the tooltips show (tool, arguments, evidence), since the chips take
 * no focus and their tooltips are never read. */
static void
pd_plan_row_sync_accessible (PdPlanRow        *self,
                             const PdPlanStep *step,
                             const char       *unverified,
                             gboolean          halted)
{
  g_autofree char *name = NULL;
  g_autofree char *id = cut_text (step->id, CHECK_SHOWN_CHARS, FALSE);
  g_autofree char *title = cut_text (step->title, TITLE_SHOWN_CHARS, FALSE);
  /* The glyph's words: a step of a run that stopped was spoken "In
   * progress" (tried as a new user would, with a screen reader). */
  g_autoptr(GString) description = g_string_new (_pd_step_status_text (step->status, halted));

  /* Translators: a plan step's spoken name: "s2: Port to GKeyFile" */
  name = g_strdup_printf (_("%s: %s"), id, title);
  if (unverified[0] != '\0')
    g_string_append_printf (description, ". %s", unverified);
  if (step->note != NULL && step->note[0] != '\0')
    {
      g_autofree char *note = cut_text (step->note, NOTE_SHOWN_CHARS, FALSE);

      /* Translators: appended to a step's spoken status: its note */
      g_string_append_printf (description, _(". Note: %s"), note);
    }
  for (guint i = 0; i < step->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (step->checks, i);
      g_autofree char *what = check_what (check, CHECK_SAID_CHARS);
      g_autofree char *tool = cut_text (check->tool != NULL ? check->tool : "", CHECK_SHOWN_CHARS, FALSE);
      g_autofree char *said_arguments = arguments_in_words (check->arguments);
      g_autofree char *arguments = cut_text (said_arguments, CHECK_SAID_CHARS, FALSE);

      /* Translators: one acceptance check in a step's spoken description:
       * "Check tests pass: passed, tool shell" */
      g_string_append_printf (description, _(". Check %s: %s, tool %s"), what,
                              pd_plan_check_status_label (check->status), tool);
      if (arguments[0] != '\0')
        /* Translators: a check's arguments, said as "name value" pairs: ", with command make test" */
        g_string_append_printf (description, _(", with %s"), arguments);
      if (check->call_id != NULL)
        {
          g_autofree char *call_id = cut_text (check->call_id, CHECK_SHOWN_CHARS, FALSE);

          /* Translators: the tool call whose result is a check's evidence */
          g_string_append_printf (description, _(", evidence from %s"), call_id);
        }
    }
  _pd_accessible_set_text (GTK_WIDGET (self), name, description->str);
}

/* A step marked done whose checks did not all pass is the model's word
 * only (a denied test run, say): said in words, as `plan status` says it.
 * A chip's small icon was all that told it (tried as a new user would:
 * "4/4 done" read as verified).  "" when there is nothing to say. */
static char *
unverified_text (const PdPlanStep *step)
{
  GString *unverified = g_string_new (NULL);

  for (guint i = 0; step->status == PD_PLAN_STEP_DONE && i < step->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (step->checks, i);
      g_autofree char *what = NULL;

      if (check->status == PD_PLAN_CHECK_PASSED)
        continue;
      what = check_what (check, CHECK_SHOWN_CHARS);
      /* Translators: a done step's check that did not pass: “the tests pass”: blocked */
      g_string_append_printf (unverified, unverified->len ? _(", “%s”: %s") : _("Unverified: check “%s”: %s"),
                              what, _pd_check_status_label (check->status));
    }
  return g_string_free (unverified, FALSE);
}

static void
pd_plan_row_content_sync (PdPlanRowContent *self,
                          const PdPlanStep *step,
                          const char       *unverified,
                          gboolean          halted)
{
  const char *status = _pd_step_status_text (step->status, halted);
  g_autofree char *id = cut_text (step->id, CHECK_SHOWN_CHARS, FALSE);
  g_autofree char *title = cut_text (step->title, TITLE_SHOWN_CHARS, FALSE);
  g_autofree char *note = cut_text (step->note, NOTE_SHOWN_CHARS, TRUE);
  GtkWidget *child;

  gtk_image_set_from_icon_name (self->status_icon, _pd_step_status_icon_name (step->status, halted));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_icon), status);
  _pd_accessible_set_text (GTK_WIDGET (self->status_icon), status, NULL);

  gtk_label_set_text (self->id_label, id);
  gtk_label_set_text (self->title_label, title);
  /* A title cut to what a row shows: more of it in its tooltip. */
  if (count_chars (step->title, TITLE_SHOWN_CHARS) > TITLE_SHOWN_CHARS)
    {
      g_autofree char *longer = cut_text (step->title, TOOLTIP_CHARS, FALSE);

      gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_label), longer);
    }
  else
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_label), NULL);

  gtk_label_set_text (self->note_label, note);
  if (note[0] != '\0')
    {
      g_autofree char *longer = cut_text (step->note, TOOLTIP_CHARS, TRUE);

      gtk_widget_set_tooltip_text (GTK_WIDGET (self->note_label), longer);
    }
  else
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->note_label), NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note[0] != '\0');

  gtk_label_set_text (self->unverified_label, unverified);
  gtk_widget_set_visible (GTK_WIDGET (self->unverified_label), unverified[0] != '\0');

  pd_wrap_box_remove_all (self->checks_box);
  /* The chips wrap onto more lines as the row narrows (in one line, at
   * 360 px and large text, they were cut), each after the one before at an
   * even spacing; a chip wider than the row ellipsizes, its whole text in
   * its name and tooltip. The chips take no focus: the row says every
   * check. */
  for (guint i = 0; i < step->checks->len; i++)
    {
      child = check_chip_new (g_ptr_array_index (step->checks, i));
      gtk_widget_set_focusable (child, FALSE);
      pd_wrap_box_append (self->checks_box, child);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->checks_box), step->checks->len > 0);
}

static void
pd_plan_row_content_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), PD_TYPE_PLAN_ROW_CONTENT);

  G_OBJECT_CLASS (pd_plan_row_content_parent_class)->dispose (object);
}

static void
pd_plan_row_content_class_init (PdPlanRowContentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_plan_row_content_dispose;

  g_type_ensure (PD_TYPE_WRAP_BOX);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-plan-row.ui");
  gtk_widget_class_bind_template_child (widget_class, PdPlanRowContent, status_icon);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRowContent, id_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRowContent, title_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRowContent, note_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRowContent, unverified_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRowContent, checks_box);
}

static void
pd_plan_row_content_init (PdPlanRowContent *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Plan text: wrapped with no hyphen it does not have. */
  _pd_label_no_hyphens (GTK_WIDGET (self->title_label));
  _pd_label_no_hyphens (GTK_WIDGET (self->note_label));
}

/* The height a row about takes once made, in a window of usual width: a
 * row not made yet takes it, so the page's length and its scroll bar
 * change little as rows are made. */
static int
estimated_height (const PdPlanStep *step,
                  gboolean          unverified)
{
  guint title_chars = MIN (count_chars (step->title, TITLE_SHOWN_CHARS), TITLE_SHOWN_CHARS);
  guint note_chars = MIN (count_chars (step->note, NOTE_SHOWN_CHARS), NOTE_SHOWN_CHARS);
  int height = 20 + 20 * CLAMP ((title_chars + 89) / 90, 1, 4);

  if (note_chars > 0)
    height += 4 + 17 * CLAMP ((note_chars + 99) / 100, 1, 4);
  if (unverified)
    height += 4 + 17;
  if (step->checks->len > 0)
    height += 4 + 2 + 20;
  return height;
}

static void
pd_plan_row_sync (PdPlanRow *self)
{
  const PdPlanStep *step = pd_plan_row_item_get_step (self->item);
  g_autofree char *unverified = unverified_text (step);

  for (guint i = 0; i < G_N_ELEMENTS (step_classes); i++)
    gtk_widget_remove_css_class (GTK_WIDGET (self), step_classes[i]);
  gtk_widget_add_css_class (GTK_WIDGET (self), step_classes[step->status]);

  if (self->content != NULL)
    pd_plan_row_content_sync (self->content, step, unverified, pd_plan_row_item_get_halted (self->item));
  else
    gtk_widget_set_size_request (GTK_WIDGET (self), -1, estimated_height (step, unverified[0] != '\0'));
  pd_plan_row_sync_accessible (self, step, unverified, pd_plan_row_item_get_halted (self->item));
}

static void
pd_plan_row_dispose (GObject *object)
{
  PdPlanRow *self = PD_PLAN_ROW (object);

  if (self->item != NULL)
    g_clear_signal_handler (&self->step_handler, self->item);
  g_clear_object (&self->item);
  self->content = NULL;

  G_OBJECT_CLASS (pd_plan_row_parent_class)->dispose (object);
}

static void
pd_plan_row_class_init (PdPlanRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_plan_row_dispose;
}

static void
pd_plan_row_init (PdPlanRow *self)
{
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (self), FALSE);
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (self), FALSE);
}

/**
 * pd_plan_row_new_lazy:
 * @item: the step to show; the row follows its changes
 *
 * A row with its step's name, description and state, and the height it
 * about takes, that shows nothing until pd_plan_row_ensure_content().
 *
 * Returns: (transfer floating): a new row
 */
GtkWidget *
pd_plan_row_new_lazy (PdPlanRowItem *item)
{
  PdPlanRow *self;

  g_return_val_if_fail (PD_IS_PLAN_ROW_ITEM (item), NULL);

  self = g_object_new (PD_TYPE_PLAN_ROW, NULL);
  self->item = g_object_ref (item);
  self->step_handler = g_signal_connect_swapped (item, "notify::step",
                                                 G_CALLBACK (pd_plan_row_sync), self);
  pd_plan_row_sync (self);

  return GTK_WIDGET (self);
}

/**
 * pd_plan_row_new:
 * @item: the step to show; the row follows its changes
 *
 * Returns: (transfer floating): a new row, showing its step
 */
GtkWidget *
pd_plan_row_new (PdPlanRowItem *item)
{
  GtkWidget *self = pd_plan_row_new_lazy (item);

  if (self != NULL)
    pd_plan_row_ensure_content (PD_PLAN_ROW (self));
  return self;
}

/**
 * pd_plan_row_ensure_content:
 *
 * Makes what the row shows (its glyph, labels and chips), once.
 *
 * Returns: %TRUE when it was made now
 */
gboolean
pd_plan_row_ensure_content (PdPlanRow *self)
{
  const PdPlanStep *step;
  g_autofree char *unverified = NULL;

  g_return_val_if_fail (PD_IS_PLAN_ROW (self), FALSE);

  if (self->content != NULL)
    return FALSE;
  step = pd_plan_row_item_get_step (self->item);
  unverified = unverified_text (step);
  self->content = g_object_new (PD_TYPE_PLAN_ROW_CONTENT, NULL);
  pd_plan_row_content_sync (self->content, step, unverified, pd_plan_row_item_get_halted (self->item));
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (self), GTK_WIDGET (self->content));
  gtk_widget_set_size_request (GTK_WIDGET (self), -1, -1);
  return TRUE;
}

gboolean
pd_plan_row_has_content (PdPlanRow *self)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW (self), FALSE);

  return self->content != NULL;
}

PdPlanRowItem *
pd_plan_row_get_item (PdPlanRow *self)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW (self), NULL);

  return self->item;
}

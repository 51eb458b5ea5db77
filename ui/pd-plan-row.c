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
 */
#define G_LOG_DOMAIN "pd-plan-row"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-plan-row.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"
#include "pd-wrap-box.h"

struct _PdPlanRow
{
  GtkListBoxRow  parent_instance;

  PdPlanRowItem *item;
  gulong         step_handler;

  /* Template widgets */
  GtkImage      *status_icon;
  GtkLabel      *id_label;
  GtkLabel      *title_label;
  GtkLabel      *note_label;
  GtkLabel      *unverified_label;
  PdWrapBox     *checks_box;
};

G_DEFINE_FINAL_TYPE (PdPlanRow, pd_plan_row, GTK_TYPE_LIST_BOX_ROW)

static const char * const step_classes[] = { "pending", "in-progress", "done", "blocked" };
static const char * const check_classes[] = { "pending", "passed", "failed", "blocked" };

/* What a check is called where it is shown: its description, else its id,
 * made safe to show (the caller frees it). */
static char *
check_what (const PdPlanCheck *check)
{
  return pd_safe_text_line (check->description != NULL && check->description[0] != '\0'
                            ? check->description : check->id);
}

static char *
check_tooltip (const PdPlanCheck *check)
{
  GString *text = g_string_new (NULL);
  g_autofree char *id = pd_safe_text_line (check->id);
  g_autofree char *tool = pd_safe_text_line (check->tool != NULL ? check->tool : "");
  g_autofree char *arguments = pd_safe_text_line (check->arguments != NULL ? check->arguments : "{}");

  if (check->description != NULL && check->description[0] != '\0')
    {
      g_autofree char *description = pd_safe_text_line (check->description);

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
  g_autofree char *what = check_what (check);
  const char *state = pd_plan_check_status_label (check->status);
  GtkWidget *chip = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *icon = gtk_image_new_from_icon_name (pd_plan_check_status_icon_name (check->status));
  GtkWidget *label = gtk_label_new (NULL);
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

  /* Translators: what a screen reader says for a check chip: description, state */
  accessible = g_strdup_printf (_("%s: %s"), gtk_label_get_text (GTK_LABEL (label)), state);
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
                             const char       *unverified)
{
  g_autofree char *name = NULL;
  g_autofree char *id = pd_safe_text_line (step->id);
  g_autofree char *title = pd_safe_text_line (step->title);
  g_autoptr(GString) description = g_string_new (pd_plan_step_status_label (step->status));

  /* Translators: a plan step's spoken name: "s2: Port to GKeyFile" */
  name = g_strdup_printf (_("%s: %s"), id, title);
  if (unverified[0] != '\0')
    g_string_append_printf (description, ". %s", unverified);
  if (step->note != NULL && step->note[0] != '\0')
    {
      g_autofree char *note = pd_safe_text_line (step->note);

      /* Translators: appended to a step's spoken status: its note */
      g_string_append_printf (description, _(". Note: %s"), note);
    }
  for (guint i = 0; i < step->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (step->checks, i);
      g_autofree char *what = check_what (check);
      g_autofree char *tool = pd_safe_text_line (check->tool != NULL ? check->tool : "");
      g_autofree char *arguments = pd_safe_text_line (check->arguments != NULL ? check->arguments : "{}");

      /* Translators: one acceptance check in a step's spoken description:
       * "Check tests pass: passed, tool shell, arguments {…}" */
      g_string_append_printf (description, _(". Check %s: %s, tool %s, arguments %s"), what,
                              pd_plan_check_status_label (check->status), tool, arguments);
      if (check->call_id != NULL)
        {
          g_autofree char *call_id = pd_safe_text_line (check->call_id);

          /* Translators: the tool call whose result is a check's evidence */
          g_string_append_printf (description, _(", evidence from %s"), call_id);
        }
    }
  _pd_accessible_set_text (GTK_WIDGET (self), name, description->str);
}

static void
pd_plan_row_sync (PdPlanRow *self)
{
  const PdPlanStep *step = pd_plan_row_item_get_step (self->item);
  const char *status = pd_plan_step_status_label (step->status);
  g_autoptr(GString) unverified = g_string_new (NULL);
  g_autofree char *id = pd_safe_text_line (step->id);
  g_autofree char *title = pd_safe_text_line (step->title);
  g_autofree char *note = pd_safe_text_block (step->note != NULL ? step->note : "");
  GtkWidget *child;

  gtk_image_set_from_icon_name (self->status_icon, pd_plan_step_status_icon_name (step->status));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_icon), status);
  _pd_accessible_set_text (GTK_WIDGET (self->status_icon), status, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (step_classes); i++)
    gtk_widget_remove_css_class (GTK_WIDGET (self), step_classes[i]);
  gtk_widget_add_css_class (GTK_WIDGET (self), step_classes[step->status]);

  gtk_label_set_text (self->id_label, id);
  gtk_label_set_text (self->title_label, title);

  gtk_label_set_text (self->note_label, note);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->note_label), note[0] != '\0' ? note : NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note[0] != '\0');

  /* A step marked done whose checks did not all pass is the model's word
   * only (a denied test run, say): said in words, as `plan status` says
   * it.  A chip's small icon was all that told it (tried as a new user
   * would: "4/4 done" read as verified). */
  for (guint i = 0; step->status == PD_PLAN_STEP_DONE && i < step->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (step->checks, i);
      g_autofree char *what = NULL;

      if (check->status == PD_PLAN_CHECK_PASSED)
        continue;
      what = check_what (check);
      /* Translators: a done step's check that did not pass: “the tests pass”: blocked */
      g_string_append_printf (unverified, unverified->len ? _(", “%s”: %s") : _("Unverified: check “%s”: %s"),
                              what, _pd_check_status_label (check->status));
    }
  gtk_label_set_text (self->unverified_label, unverified->str);
  gtk_widget_set_visible (GTK_WIDGET (self->unverified_label), unverified->len > 0);

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
  pd_plan_row_sync_accessible (self, step, unverified->str);
}

static void
pd_plan_row_dispose (GObject *object)
{
  PdPlanRow *self = PD_PLAN_ROW (object);

  if (self->item != NULL)
    g_clear_signal_handler (&self->step_handler, self->item);
  g_clear_object (&self->item);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_PLAN_ROW);

  G_OBJECT_CLASS (pd_plan_row_parent_class)->dispose (object);
}

static void
pd_plan_row_class_init (PdPlanRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_plan_row_dispose;

  g_type_ensure (PD_TYPE_WRAP_BOX);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-plan-row.ui");
  gtk_widget_class_bind_template_child (widget_class, PdPlanRow, status_icon);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRow, id_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRow, note_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRow, unverified_label);
  gtk_widget_class_bind_template_child (widget_class, PdPlanRow, checks_box);
}

static void
pd_plan_row_init (PdPlanRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Plan text: wrapped with no hyphen it does not have. */
  _pd_label_no_hyphens (GTK_WIDGET (self->title_label));
  _pd_label_no_hyphens (GTK_WIDGET (self->note_label));
}

/**
 * pd_plan_row_new:
 * @item: the step to show; the row follows its changes
 *
 * Returns: (transfer floating): a new row
 */
GtkWidget *
pd_plan_row_new (PdPlanRowItem *item)
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

PdPlanRowItem *
pd_plan_row_get_item (PdPlanRow *self)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW (self), NULL);

  return self->item;
}

/* pd-history-view.c: every version of a session's plan, and what changed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On the left the versions in order ("v3 · 12:04:31 · 2/5 done"), merged by
 * version on refresh; on the right the selected version as it was (status
 * glyph, id, title, note, check chips) and the PdPlanDiff from the version
 * before it.  The diff is computed in core; this file only words it, with
 * statuses as words.  Of a session imported from another agent, the steps
 * the user ticked or unticked are marked, and its plan documents
 * (ExitPlanMode, Codex's proposed plans) follow, their markdown rendered by
 * pd_markdown.  When versions are missing from the list (the plan changed
 * more than once in one turn, and a turn keeps only its last version), one
 * line says which and why.  All plan text is set with gtk_label_set_text or
 * pd_markdown: plain, never markup.
 */
#define G_LOG_DOMAIN "pd-history-view"

#include "config.h"

#include "pd-json.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "pd-history-changes-private.h"
#include "pd-history-view.h"
#include "pd-markdown.h"
#include "pd-paned-fit.h"
#include "pd-plan-artifact.h"
#include "pd-safe-text.h"
#include "pd-plan-version-item.h"
#include "pd-row-name.h"
#include "pd-event.h"
#include "pd-json-util.h"
#include "pd-plan-row-item.h"
#include "pd-ui-util-private.h"
#include "pd-wrap-box.h"

struct _PdHistoryView
{
  PdSessionView       parent_instance;

  GListStore         *versions;
  GtkSingleSelection *selection;
  gboolean            narrow;
  gboolean            run_stopped;  /* see pd_history_view_set_run_stopped() */

  /* Template widgets */
  GtkPaned           *paned;
  GtkWidget          *versions_pane;
  GtkLabel           *older_label;
  GtkStack           *stack;
  AdwStatusPage      *empty_page;
  GtkListView        *version_list;
  GtkLabel           *gaps_label;
  GtkLabel           *session_title;
  GtkLabel           *plan_title;
  GtkLabel           *revision_label;
  GtkListBox         *steps_list;
  GtkLabel           *changes_title;
  GtkListBox         *changes_list;
  GtkLabel           *artifacts_title;
  GtkListBox         *artifacts_list;
  GtkLabel           *documents_title;
  GtkListBox         *documents_list;
};

G_DEFINE_FINAL_TYPE (PdHistoryView, pd_history_view, PD_TYPE_SESSION_VIEW)

enum {
  PROP_0,
  PROP_NARROW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* --- the selected version ------------------------------------------------ */

/* A check named as the Now page names it, by its text (its id, the kind of
 * check, in the tooltip): the demo's read "the greeting test passes" on
 * the Now page and "tests · passed" here (tried as a new user would,
 * nu15). */
static GtkWidget *
check_chip (const PdPlanCheck *check)
{
  const char *what = check->description != NULL && check->description[0] != '\0' ? check->description : check->id;
  g_autofree char *text = g_strdup_printf ("%s · %s", what, _pd_check_status_label (check->status));
  g_autofree char *kind = g_strdup_printf (_("Check: %s"), check->id);
  g_autofree char *tooltip = NULL;
  g_autofree char *status_class = g_strdup_printf ("pd-check-%s", pd_plan_check_status_to_string (check->status));
  GtkWidget *chip = _pd_plain_label (text, "pd-chip");

  /* Its text is a sentence now: wrapped whole, its state read at its end
   * (cut to "export tests pass · fa…" at 1.5× text, a11y-title). */
  gtk_label_set_wrap (GTK_LABEL (chip), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (chip), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_ellipsize (GTK_LABEL (chip), PANGO_ELLIPSIZE_NONE);
  gtk_widget_add_css_class (chip, "caption");
  gtk_widget_add_css_class (chip, status_class);

  if (check->call_id != NULL)
    /* Translators: a check chip's tooltip: description, the tool and
     * arguments of the required call, then the call that gave the evidence */
    {
      g_autofree char *call_id = _pd_isolated_line (check->call_id);

      tooltip = g_strdup_printf (_("%s\n%s %s\nEvidence: %s"), check->description, check->tool,
                                 check->arguments, call_id);
    }
  else
    tooltip = g_strdup_printf ("%s\n%s %s", check->description, check->tool, check->arguments);
  {
    char *with_kind = g_strconcat (tooltip, "\n", kind, NULL);

    g_free (tooltip);
    tooltip = with_kind;
  }
  /* Plain text too; the chip's own words first (cut at 1.5× text, 360 px). */
  _pd_set_tooltip_lines (chip, text, tooltip);

  return chip;
}

/* What the user did to an imported agent's step, and what the agent said
 * of it beyond our four statuses: read from the version's state JSON, where
 * the transcript pages put "user_checked" and "agent_status". */
static const char *
step_mark (JsonObject *marks,
           const char *step_id)
{
  JsonObject *mark = marks && json_object_has_member (marks, step_id) ? json_object_get_object_member (marks, step_id) : NULL;
  JsonNode *checked = mark ? json_object_get_member (mark, "user_checked") : NULL;

  if (checked != NULL && JSON_NODE_HOLDS_VALUE (checked) && json_node_get_value_type (checked) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (checked) ? _("Ticked by you") : _("Unticked by you");
  if (mark != NULL && g_strcmp0 (pd_json_get_string (mark, "agent_status"), "cancelled") == 0)
    return _("Cancelled by the agent");
  return NULL;
}

static gboolean
step_cancelled (JsonObject *marks,
                const char *step_id)
{
  JsonObject *mark = marks && json_object_has_member (marks, step_id) ? json_object_get_object_member (marks, step_id) : NULL;

  return mark != NULL && !json_object_has_member (mark, "user_checked") &&
         g_strcmp0 (pd_json_get_string (mark, "agent_status"), "cancelled") == 0;
}

/* Each step's object by id, from a version's state JSON. */
static JsonObject *
step_marks (const char *state_json)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonObject *marks = json_object_new ();
  JsonNode *root;
  JsonNode *steps;

  if (state_json == NULL || pd_json_nesting_exceeds (state_json, -1, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, state_json, -1, NULL))
    return marks;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return marks;
  steps = json_object_get_member (json_node_get_object (root), "steps");
  if (steps == NULL || !JSON_NODE_HOLDS_ARRAY (steps))
    return marks;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (steps)); i++)
    {
      JsonNode *step = json_array_get_element (json_node_get_array (steps), i);
      const char *id;

      if (!JSON_NODE_HOLDS_OBJECT (step))
        continue;
      id = pd_json_get_string (json_node_get_object (step), "id");
      if (id != NULL && (json_object_has_member (json_node_get_object (step), "user_checked") ||
                         json_object_has_member (json_node_get_object (step), "agent_status")))
        json_object_set_object_member (marks, id, json_object_ref (json_node_get_object (step)));
    }
  return marks;
}

/* @child in a row of its own, named: a list box row is what takes the
 * focus, and GTK 4.8 reads a row by its own name only (a name on the box
 * inside was not read: tried with a screen reader's view).  Nothing to
 * activate in it. */
static GtkWidget *
named_row (GtkWidget  *child,
           const char *name,
           const char *description)
{
  GtkWidget *row = gtk_list_box_row_new ();

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), child);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  _pd_accessible_set_text (row, name, description);
  return row;
}

/* @cancelled: an imported agent's item it cancelled, which the plan's
 * words call blocked: shown with the cancelled glyph, as the checklist
 * strikes it out and `sessions show` marks it "➖ … (cancelled)"; it had
 * the red glyph of a blocked step here (tried as a new user would). */
static GtkWidget *
step_row (const PdPlanStep *step,
          gboolean          imported,
          const char       *mark,
          gboolean          cancelled,
          gboolean          run_stopped)
{
  GtkWidget *row = _pd_row_box_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name (cancelled ? _pd_step_cancelled_icon_name ()
                                                            : _pd_step_status_icon_name (step->status, run_stopped));
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  g_autofree char *status_class = g_strdup_printf ("pd-step-%s", cancelled ? "cancelled"
                                                   : pd_plan_step_status_to_string (step->status));
  const char *status_text = cancelled ? _pd_step_cancelled_text () : _pd_step_status_text (step->status, run_stopped);
  GtkWidget *id;
  GtkWidget *title;
  g_autofree char *safe_title = NULL;

  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_widget_add_css_class (icon, status_class);
  gtk_widget_set_tooltip_text (icon, status_text);
  _pd_accessible_set_text (GTK_WIDGET (icon), status_text, NULL);
  gtk_box_append (GTK_BOX (row), icon);

  /* An id is read whole: the title wraps instead.  An imported agent's
   * ids are Plandeck's own hashes, which say nothing: not shown. */
  if (!imported)
    {
      g_autofree char *safe_id = pd_safe_text_line (step->id);

      id = _pd_plain_label (safe_id, "dim-label");
      gtk_label_set_wrap (GTK_LABEL (id), FALSE);
      gtk_widget_set_valign (id, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (line), id);
    }
  /* Model or endpoint text: a bidi override shown by name, as on the
   * Now page, not reversing what follows. */
  safe_title = pd_safe_text_line (step->title);
  title = _pd_plain_label (safe_title, NULL);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_box_append (GTK_BOX (line), title);
  gtk_box_append (GTK_BOX (text), line);

  if (mark != NULL)
    {
      GtkWidget *badge = _pd_plain_label (mark, "pd-badge");

      gtk_widget_add_css_class (badge, "caption");
      gtk_widget_set_halign (badge, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (text), badge);
    }

  if (step->note != NULL && step->note[0] != '\0')
    {
      g_autofree char *safe_note = pd_safe_text_block (step->note);
      GtkWidget *note = _pd_plain_label (safe_note, "dim-label");

      gtk_widget_add_css_class (note, "caption");
      gtk_box_append (GTK_BOX (text), note);
    }

  if (step->checks->len > 0)
    {
      /* The chips wrap onto more lines, as on the Now page: in one line
       * they were cut at 1.5× text ("build · p…"), their state unread. */
      GtkWidget *chips = pd_wrap_box_new ();

      for (guint i = 0; i < step->checks->len; i++)
        pd_wrap_box_append (PD_WRAP_BOX (chips), check_chip (g_ptr_array_index (step->checks, i)));
      gtk_box_append (GTK_BOX (text), chips);
    }

  gtk_widget_set_hexpand (text, TRUE);
  gtk_box_append (GTK_BOX (row), text);

  /* Spoken as "s2: Port to GKeyFile", the status in words as its
   * description (an imported agent's hashed id is left out, as on screen). */
  {
    g_autofree char *safe_id = pd_safe_text_line (step->id);
    g_autofree char *name = imported ? g_strdup (safe_title)
                                     /* Translators: a plan step's spoken name: "s2: Port to GKeyFile" */
                                     : g_strdup_printf (_("%s: %s"), safe_id, safe_title);

    return named_row (row, name, status_text);
  }
}

static GtkWidget *
change_row (const PdPlanDiffEntry *entry,
            const char            *step_name,
            const char            *said)
{
  GtkWidget *row = _pd_row_box_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name (_pd_history_change_icon_name (entry));
  g_autofree char *text = said != NULL ? g_strdup (said) : _pd_history_change_text (entry, step_name);
  GtkWidget *label = _pd_plain_label (text, NULL);

  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_widget_add_css_class (icon, "dim-label");
  _pd_accessible_set_text (GTK_WIDGET (icon), _pd_history_change_kind_label (entry->kind), NULL);
  gtk_widget_set_hexpand (label, TRUE);
  /* Selectable with the mouse, no Tab stop: the row says it all. */
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  g_object_set (label, "focusable", FALSE, "can-focus", FALSE, NULL);
  gtk_box_append (GTK_BOX (row), icon);
  gtk_box_append (GTK_BOX (row), label);

  return named_row (row, text, _pd_history_change_kind_label (entry->kind));
}

static void
list_box_clear (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static void
list_box_add_placeholder_row (GtkListBox *list,
                              const char *text)
{
  GtkWidget *label = _pd_plain_label (text, "dim-label");
  GtkWidget *row = gtk_list_box_row_new ();

  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 12);
  gtk_widget_set_margin_bottom (label, 12);
  /* Text to read, not a row to stop on. */
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_set_focusable (row, FALSE);
  gtk_list_box_append (list, row);
}

static void
pd_history_view_show_selected (PdHistoryView *self)
{
  guint position = gtk_single_selection_get_selected (self->selection);
  g_autoptr(PdPlanVersionItem) item = NULL;
  g_autoptr(PdPlanVersionItem) previous = NULL;
  g_autoptr(PdPlanDiff) diff = NULL;
  g_autofree char *title = NULL;
  g_autoptr(JsonObject) marks = NULL;
  gboolean imported = FALSE;
  gboolean run_stopped;
  guint n_cancelled;
  const PdPlanState *state;
  PdPlanCounts counts = { 0 };

  list_box_clear (self->steps_list);
  list_box_clear (self->changes_list);

  if (position == GTK_INVALID_LIST_POSITION)
    {
      gtk_label_set_text (self->plan_title, "");
      gtk_label_set_text (self->changes_title, "");
      gtk_widget_set_visible (GTK_WIDGET (self->revision_label), FALSE);
      return;
    }

  item = g_list_model_get_item (G_LIST_MODEL (self->versions), position);
  if (position > 0)
    previous = g_list_model_get_item (G_LIST_MODEL (self->versions), position - 1);
  state = pd_plan_version_item_get_state (item);

  pd_plan_state_count (state, &counts);
  n_cancelled = MIN (pd_plan_version_item_get_n_cancelled (item), counts.blocked);
  if (n_cancelled > 0)
    /* Translators: an imported agent's plan: "Plan — v3 · 2/3 done · 1 cancelled" */
    title = g_strdup_printf (_("Plan — v%lld · %u/%u done · %u cancelled"),
                             (long long) pd_plan_version_item_get_version (item),
                             counts.done, counts.steps - n_cancelled, n_cancelled);
  else if (counts.blocked > 0)
    title = g_strdup_printf (_("Plan — v%lld · %u/%u done · %u blocked"),
                             (long long) pd_plan_version_item_get_version (item),
                             counts.done, counts.steps, counts.blocked);
  else
    title = g_strdup_printf (_("Plan — v%lld · %u/%u done"),
                             (long long) pd_plan_version_item_get_version (item),
                             counts.done, counts.steps);
  gtk_label_set_text (self->plan_title, title);

  if (state->revision != NULL)
    {
      g_autofree char *reason = _pd_history_iso (state->revision->reason);
      g_autofree char *revision = g_strdup_printf (_("Revision reason: %s"), reason);

      gtk_label_set_text (self->revision_label, revision);
      _pd_accessible_set_text (GTK_WIDGET (self->revision_label), revision, NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->revision_label), TRUE);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->revision_label), FALSE);

  marks = step_marks (pd_plan_version_item_get_state_json (item));
  imported = json_object_get_size (marks) > 0;
  /* Only the newest version is the plan the stopped run left: in an older
   * one the step was in progress, and was worked on after. */
  run_stopped = self->run_stopped && position + 1 == g_list_model_get_n_items (G_LIST_MODEL (self->versions));
  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      gtk_list_box_append (self->steps_list,
                           _pd_list_box_roving_row (step_row (step, imported, step_mark (marks, step->id),
                                                              step_cancelled (marks, step->id), run_stopped)));
    }
  if (state->steps->len == 0)
    list_box_add_placeholder_row (self->steps_list, _("The plan had no steps"));

  diff = pd_plan_diff_new (previous ? pd_plan_version_item_get_state (previous) : NULL, state);
  if (previous != NULL)
    {
      g_autofree char *changes = g_strdup_printf (_("Changes from v%lld"),
                                                  (long long) pd_plan_version_item_get_version (previous));

      gtk_label_set_text (self->changes_title, changes);
    }
  else
    gtk_label_set_text (self->changes_title, _("First version"));

  for (guint i = 0; i < diff->entries->len; i++)
    {
      const PdPlanDiffEntry *entry = g_ptr_array_index (diff->entries, i);
      g_autofree char *name = NULL;

      /* An imported agent's step ids are made up by Plandeck: its title
       * names the step. */
      if (imported && entry->step_id != NULL)
        for (guint j = 0; j < state->steps->len && name == NULL; j++)
          {
            const PdPlanStep *step = g_ptr_array_index (state->steps, j);

            if (g_strcmp0 (step->id, entry->step_id) == 0)
              {
                g_autofree char *step_title = _pd_history_iso (step->title);

                name = _pd_history_quoted (step_title);
              }
          }
      if (imported && name == NULL && entry->kind == PD_PLAN_DIFF_STEP_REMOVED)
        {
          g_autofree char *step_title = _pd_history_iso (entry->old_value);

          name = _pd_history_quoted (step_title);
        }
      if (name == NULL)
        name = _pd_history_iso (entry->step_id);
      /* "Blocked" is how the pages write an agent's cancelled item. */
      if (entry->kind == PD_PLAN_DIFF_STEP_STATUS && g_strcmp0 (entry->new_value, "blocked") == 0 &&
          step_cancelled (marks, entry->step_id))
        {
          g_autofree char *text = g_strdup_printf (_("%s: %s → %s"), name,
                                                   _pd_history_step_status_word (entry->old_value), _("Cancelled"));
          gtk_list_box_append (self->changes_list, _pd_list_box_roving_row (change_row (entry, name, text)));
          continue;
        }
      gtk_list_box_append (self->changes_list, _pd_list_box_roving_row (change_row (entry, name, NULL)));
    }
  if (pd_plan_diff_is_empty (diff))
    list_box_add_placeholder_row (self->changes_list, _("No change to steps or checks"));
  /* Each list one Tab stop, the arrows inside (see pd-list-stop-util.c). */
  _pd_list_box_one_stop (self->steps_list);
  _pd_list_box_one_stop (self->changes_list);
}

/* --- loading ------------------------------------------------------------- */

static void
pd_history_view_update_state (PdHistoryView *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->versions)) == 0;

  if (pd_session_view_get_session_id (PD_SESSION_VIEW (self)) == NULL)
    {
      adw_status_page_set_title (self->empty_page, _("No Session Selected"));
      adw_status_page_set_description (self->empty_page,
                                       _("Choose a session to see how its plan changed"));
    }
  else
    {
      adw_status_page_set_title (self->empty_page, _("No Plan Versions Yet"));
      adw_status_page_set_description (self->empty_page,
                                       _("Each change of this session’s plan will be listed here"));
    }

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "history");
}

/* Merge by version: unchanged versions keep their items, a changed one is
 * replaced in place, new ones are appended.  The version selected stays
 * selected wherever it moved to (another agent's newest versions, listed
 * from a later one, all move up); the newest selected, the newest. */
static void
pd_history_view_merge (PdHistoryView *self,
                       GPtrArray     *history)
{
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->versions));
  guint selected = gtk_single_selection_get_selected (self->selection);
  gboolean on_newest = n_old == 0 || selected == n_old - 1 || selected == GTK_INVALID_LIST_POSITION;
  gint64 selected_version = on_newest ? 0 : pd_history_view_get_selected_version (self);
  g_autoptr(GPtrArray) appended = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_new = history->len;

  for (guint i = 0; i < n_new; i++)
    {
      PdPlanVersionInfo *info = g_ptr_array_index (history, i);

      if (i < n_old)
        {
          g_autoptr(PdPlanVersionItem) old = g_list_model_get_item (G_LIST_MODEL (self->versions), i);

          if (pd_plan_version_item_get_version (old) != info->version ||
              g_strcmp0 (pd_plan_version_item_get_state_json (old), info->state_json) != 0)
            {
              g_autoptr(PdPlanVersionItem) item = pd_plan_version_item_new (info->version, info->created_at,
                                                                            info->state_json);

              g_list_store_splice (self->versions, i, 1, (gpointer *) &item, 1);
            }
        }
      else
        g_ptr_array_add (appended, pd_plan_version_item_new (info->version, info->created_at,
                                                             info->state_json));
    }

  if (n_new < n_old)
    g_list_store_splice (self->versions, n_new, n_old - n_new, NULL, 0);
  else if (appended->len > 0)
    g_list_store_splice (self->versions, n_old, 0, appended->pdata, appended->len);

  /* Someone reading an older version keeps reading it: the list moved
   * under it, the selection stayed at its place, on another version (or
   * none, its item replaced), and it read the oldest (tried as a new user
   * would). */
  if (!on_newest && selected_version != 0 &&
      pd_history_view_get_selected_version (self) != selected_version &&
      pd_history_view_select_version (self, selected_version))
    return;
  /* Someone reading the newest version keeps reading the newest. */
  if (n_new > 0 && (on_newest || gtk_single_selection_get_selected (self->selection) == GTK_INVALID_LIST_POSITION))
    {
      gtk_single_selection_set_selected (self->selection, n_new - 1);
      /* Moved only when the list is new or grew: a refresh that brings
       * nothing leaves where the user scrolled to. */
      if (n_old == 0 || n_new > n_old)
        _pd_list_view_scroll_to_end (GTK_WIDGET (self->version_list));
    }
}


/* --- approved plan artifacts ------------------------------------------- */

static void
on_open_artifact (GtkButton *button,
                  gpointer   user_data)
{
  const char *path = g_object_get_data (G_OBJECT (button), "path");
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));

  if (uri != NULL)
    gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
}

/* One row per plan a person approved (exit_plan_mode), with its time and,
 * when the file is on this machine, a button to open it. */
static GtkWidget *
artifact_row (const char *path,
              gint64      timestamp)
{
  GtkWidget *row = _pd_row_box_new ();
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *when = _pd_format_local_time (timestamp);
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *subtitle = gtk_label_new (NULL);


  /* File names derive from model text: plain text only. */
  gtk_label_set_use_markup (GTK_LABEL (title), FALSE);
  gtk_label_set_text (GTK_LABEL (title), name);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_tooltip_text (title, path);
  gtk_label_set_text (GTK_LABEL (subtitle), when);
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0);
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_widget_add_css_class (subtitle, "caption");
  gtk_box_append (GTK_BOX (labels), title);
  gtk_box_append (GTK_BOX (labels), subtitle);
  gtk_widget_set_hexpand (labels, TRUE);
  gtk_box_append (GTK_BOX (row), labels);

  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      GtkWidget *open = gtk_button_new_with_label (_("Open"));

      gtk_widget_set_valign (open, GTK_ALIGN_CENTER);
      g_object_set_data_full (G_OBJECT (open), "path", g_strdup (path), g_free);
      g_signal_connect (open, "clicked", G_CALLBACK (on_open_artifact), NULL);
      gtk_box_append (GTK_BOX (row), open);
    }

  return named_row (row, name, when);
}

static void
on_artifacts_loaded (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(GPtrArray) events = pd_source_get_events_finish (PD_SOURCE (object), result, NULL);
  PdHistoryView *self;
  guint shown = 0;

  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_HISTORY_VIEW (request->view);

  list_box_clear (self->artifacts_list);

  for (guint i = 0; events != NULL && i < events->len; i++)
    {
      const PdStoredEvent *stored = g_ptr_array_index (events, i);
      g_autoptr(PdEvent) event = pd_event_new_from_json (stored->event_json, NULL);
      JsonObject *data;
      const char *path;

      if (event == NULL || g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_PLAN_ARTIFACT_SAVED) != 0)
        continue;
      data = pd_event_get_data (event);
      /* Another writer's event, or a remote server's: a path of another
       * type is none. */
      path = pd_json_get_string (data, "path");
      if (path == NULL)
        continue;
      gtk_list_box_append (self->artifacts_list, artifact_row (path, pd_event_get_timestamp (event)));
      shown++;
    }

  gtk_widget_set_visible (GTK_WIDGET (self->artifacts_title), shown > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->artifacts_list), shown > 0);
}

/* --- plan documents of imported sessions ---------------------------------- */

static const char *
document_status_word (PdArtifactPlanStatus status)
{
  static const char * const labels[] = {
    [PD_ARTIFACT_PLAN_PROPOSED] = NC_("plan document", "Proposed"),
    [PD_ARTIFACT_PLAN_APPROVED] = NC_("plan document", "Approved"),
    [PD_ARTIFACT_PLAN_REJECTED] = NC_("plan document", "Rejected"),
  };

  return _pd_enum_label (labels, G_N_ELEMENTS (labels), "plan document", status);
}

/* One plan document: its status, title and time, its markdown folded. */
static GtkWidget *
document_row (const PdArtifactPlan *plan)
{
  g_autofree char *title = pd_plan_artifact_title (plan->markdown ? plan->markdown : "");
  g_autofree char *isolated = _pd_history_iso (title);
  g_autofree char *when = plan->time > 0 ? _pd_format_local_time (plan->time) : g_strdup ("");
  g_autofree char *heading = NULL;
  GtkWidget *expander = gtk_expander_new (NULL);
  GtkWidget *heading_label;
  GtkWidget *body = _pd_plain_label ("", NULL);
  GtkWidget *box;

  if (when[0] != '\0')
    /* Translators: a plan document: "Approved · 14:02:11 · Move the settings to TOML" */
    heading = g_strdup_printf (_("%s · %s · %s"), document_status_word (plan->status), when, isolated);
  else
    heading = g_strdup_printf (_("%s · %s"), document_status_word (plan->status), isolated);
  heading_label = _pd_plain_label (heading, NULL);
  gtk_expander_set_label_widget (GTK_EXPANDER (expander), heading_label);

  pd_markdown_set_label (GTK_LABEL (body), plan->markdown);
  gtk_label_set_selectable (GTK_LABEL (body), TRUE);
  gtk_widget_set_margin_top (body, 8);
  /* In a box: GTK 4.8's folded expander offered Tab to the selectable
   * label, which said it took it, and Tab stayed (pd-message-row.ui). */
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (box), body);
  gtk_expander_set_child (GTK_EXPANDER (expander), box);
  /* GTK 4.8 does not name an expander by its label widget. */
  _pd_accessible_set_text (expander, heading, NULL);

  gtk_widget_set_margin_start (expander, 12);
  gtk_widget_set_margin_end (expander, 12);
  gtk_widget_set_margin_top (expander, 8);
  gtk_widget_set_margin_bottom (expander, 8);
  gtk_widget_add_css_class (expander, "pd-plan-document");

  return named_row (expander, heading, NULL);
}

static void
on_documents_loaded (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(GPtrArray) plans = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  PdHistoryView *self;

  /* Our own sessions have no checklist to read: no documents, no error. */
  checklist = pd_source_get_checklist_finish (PD_SOURCE (object), result, &plans, NULL);

  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_HISTORY_VIEW (request->view);

  /* The approved plan files of our own sessions ride on the events.  An
   * imported session has none (its events are its tool calls): asking
   * would read its whole transcript for nothing. */
  if (checklist == NULL)
    pd_source_get_events_async (request->source, request->session_id, 0, 1000, request->cancellable,
                                on_artifacts_loaded, pd_session_view_request_copy (request));

  list_box_clear (self->documents_list);
  for (guint i = 0; plans != NULL && i < plans->len; i++)
    gtk_list_box_append (self->documents_list, document_row (g_ptr_array_index (plans, i)));
  gtk_widget_set_visible (GTK_WIDGET (self->documents_title), plans != NULL && plans->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->documents_list), plans != NULL && plans->len > 0);
}

/* Versions not listed: those a turn replaced before it was saved, and of
 * another agent's long history the older ones, each said in one line. */
static void
pd_history_view_update_gaps (PdHistoryView *self)
{
  g_autofree char *gaps = pd_plan_version_item_describe_gaps (G_LIST_MODEL (self->versions));
  g_autofree char *older = pd_plan_version_item_describe_older (G_LIST_MODEL (self->versions));

  gtk_label_set_text (self->gaps_label, gaps ? gaps : "");
  gtk_widget_set_visible (GTK_WIDGET (self->gaps_label), gaps != NULL);
  gtk_label_set_text (self->older_label, older ? older : "");
  gtk_widget_set_visible (GTK_WIDGET (self->older_label), older != NULL);
}

static void
on_history_loaded (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GError) error = NULL;
  PdHistoryView *self;

  history = pd_source_get_plan_history_finish (PD_SOURCE (object), result, &error);

  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_HISTORY_VIEW (request->view);

  if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND))
    g_clear_error (&error);
  else if (history != NULL)
    pd_history_view_merge (self, history);

  pd_history_view_update_gaps (self);
  pd_history_view_update_state (self);
  pd_session_view_reload_done (request, error);
}

static void
pd_history_view_reload (PdSessionView        *view,
                        PdSessionViewRequest *request)
{
  /* The plan documents of an imported session come with its checklist;
   * our own sessions' plan files then (on_documents_loaded()); the
   * versions end the reload. */
  pd_source_get_checklist_async (request->source, request->session_id, request->cancellable,
                                 on_documents_loaded, pd_session_view_request_copy (request));
  pd_source_get_plan_history_async (request->source, request->session_id, request->cancellable,
                                    on_history_loaded, request);
}

static void
pd_history_view_clear (PdSessionView *view)
{
  PdHistoryView *self = PD_HISTORY_VIEW (view);

  g_list_store_remove_all (self->versions);
  list_box_clear (self->documents_list);
  list_box_clear (self->artifacts_list);
  gtk_widget_set_visible (GTK_WIDGET (self->documents_title), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->documents_list), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->artifacts_title), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->artifacts_list), FALSE);
  pd_history_view_update_gaps (self);
  pd_history_view_update_state (self);
}

/* --- GObject ------------------------------------------------------------- */

static void
pd_history_view_dispose (GObject *object)
{
  PdHistoryView *self = PD_HISTORY_VIEW (object);

  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_HISTORY_VIEW);
  /* The root box of the template is not bound to a field, so unparent it. */
  {
    GtkWidget *child = gtk_widget_get_last_child (GTK_WIDGET (self));

    if (GTK_IS_BOX (child))
      gtk_widget_unparent (child);
  }
  g_clear_object (&self->selection);
  if (self->versions != NULL)
    g_signal_handlers_disconnect_by_data (self->versions, self);
  g_clear_object (&self->versions);

  G_OBJECT_CLASS (pd_history_view_parent_class)->dispose (object);
}

static void
pd_history_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PdHistoryView *self = PD_HISTORY_VIEW (object);

  switch (prop_id)
    {
    case PROP_NARROW:
      g_value_set_boolean (value, self->narrow);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_history_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  PdHistoryView *self = PD_HISTORY_VIEW (object);

  switch (prop_id)
    {
    case PROP_NARROW:
      pd_history_view_set_narrow (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* New versions: the versions pane widens to their text (pd-paned-fit.c). */
static void
on_versions_changed (PdHistoryView *self)
{
  if (!self->narrow)
    _pd_paned_fit_start (self->paned, FALSE);
}

static void
pd_history_view_class_init (PdHistoryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_history_view_dispose;
  object_class->get_property = pd_history_view_get_property;
  object_class->set_property = pd_history_view_set_property;

  PD_SESSION_VIEW_CLASS (klass)->reload = pd_history_view_reload;
  PD_SESSION_VIEW_CLASS (klass)->clear = pd_history_view_clear;
  /* A live session's versions come as the Now page's plan does: on the
   * push, and polled as it polls.  History read on the push alone lagged
   * 10–15 s behind the Now page (tried as a new user would). */
  pd_session_view_class_set_polls (PD_SESSION_VIEW_CLASS (klass), TRUE);

  /* Set by the window when it folds: the versions go above the plan, not
   * beside it, so the plan keeps the whole width of a phone. */
  properties[PROP_NARROW] =
    g_param_spec_boolean ("narrow", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE |
                           G_PARAM_EXPLICIT_NOTIFY |
                           G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PD_TYPE_PLAN_VERSION_ITEM);
  g_type_ensure (PD_TYPE_ROW_NAME);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-history-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, paned);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, versions_pane);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, older_label);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, version_list);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, gaps_label);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, session_title);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, plan_title);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, revision_label);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, steps_list);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, changes_title);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, changes_list);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, artifacts_title);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, artifacts_list);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, documents_title);
  gtk_widget_class_bind_template_child (widget_class, PdHistoryView, documents_list);
}

static void
pd_history_view_init (PdHistoryView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Plan text: wrapped with no hyphen it does not have. */
  _pd_label_no_hyphens (GTK_WIDGET (self->session_title));
  _pd_label_no_hyphens (GTK_WIDGET (self->plan_title));
  _pd_label_no_hyphens (GTK_WIDGET (self->revision_label));
  _pd_stack_tab_shown_only (self->stack);
  /* Wide, the versions pane is as wide as their text at any text size, and
   * as it changes; the plan keeps room for 20 characters. */
  _pd_paned_fit_follow (self->paned, 20);
  _pd_list_one_tab_stop (GTK_WIDGET (self->version_list));

  self->versions = g_list_store_new (PD_TYPE_PLAN_VERSION_ITEM);
  g_signal_connect_swapped (self->versions, "items-changed", G_CALLBACK (on_versions_changed), self);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->versions)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, FALSE);
  g_signal_connect_swapped (self->selection, "notify::selected-item",
                            G_CALLBACK (pd_history_view_show_selected), self);
  gtk_list_view_set_model (self->version_list, GTK_SELECTION_MODEL (self->selection));

  pd_history_view_update_state (self);
}

GtkWidget *
pd_history_view_new (void)
{
  return g_object_new (PD_TYPE_HISTORY_VIEW, NULL);
}

gboolean
pd_history_view_get_narrow (PdHistoryView *self)
{
  g_return_val_if_fail (PD_IS_HISTORY_VIEW (self), FALSE);
  return self->narrow;
}

/**
 * pd_history_view_set_narrow:
 *
 * Narrow, the version list sits above the plan with a few rows' height;
 * wide, beside it.
 */
void
pd_history_view_set_narrow (PdHistoryView *self,
                            gboolean       narrow)
{
  g_return_if_fail (PD_IS_HISTORY_VIEW (self));

  narrow = !!narrow;
  if (self->narrow == narrow)
    return;
  self->narrow = narrow;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->paned),
                                  narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
  /* Narrow, the versions sit above the plan, a few rows high. */
  gtk_widget_set_size_request (self->versions_pane, -1, narrow ? 96 : -1);
  if (narrow)
    gtk_paned_set_position (self->paned, 140);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NARROW]);
}

/**
 * pd_history_view_refresh:
 *
 * Reads the plan history again and merges it into the list.
 */
void
pd_history_view_refresh (PdHistoryView *self)
{
  g_return_if_fail (PD_IS_HISTORY_VIEW (self));

  pd_session_view_reload (PD_SESSION_VIEW (self));
}

/**
 * pd_history_view_get_model:
 *
 * Returns: (transfer none): the versions listed, as #PdPlanVersionItem
 */
GListModel *
pd_history_view_get_model (PdHistoryView *self)
{
  g_return_val_if_fail (PD_IS_HISTORY_VIEW (self), NULL);
  return G_LIST_MODEL (self->versions);
}

/**
 * pd_history_view_get_selected_version:
 *
 * Returns: the plan version shown, or 0 when none is
 */
gint64
pd_history_view_get_selected_version (PdHistoryView *self)
{
  PdPlanVersionItem *item;

  g_return_val_if_fail (PD_IS_HISTORY_VIEW (self), 0);

  item = gtk_single_selection_get_selected_item (self->selection);
  return item ? pd_plan_version_item_get_version (item) : 0;
}

/**
 * pd_history_view_select_version:
 *
 * Returns: whether @version is listed (and is now shown)
 */
gboolean
pd_history_view_select_version (PdHistoryView *self,
                                gint64         version)
{
  guint n;

  g_return_val_if_fail (PD_IS_HISTORY_VIEW (self), FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->versions));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdPlanVersionItem) item = g_list_model_get_item (G_LIST_MODEL (self->versions), i);

      if (pd_plan_version_item_get_version (item) == version)
        {
          gtk_single_selection_set_selected (self->selection, i);
          return TRUE;
        }
    }

  return FALSE;
}

/**
 * pd_history_view_set_run_stopped:
 * @run_stopped: the session's last run ended short and none goes on
 *
 * A step the newest version has in progress is then shown as the Now page
 * shows it: "In progress when the run stopped", its square.
 */
void
pd_history_view_set_run_stopped (PdHistoryView *self,
                                 gboolean       run_stopped)
{
  g_return_if_fail (PD_IS_HISTORY_VIEW (self));

  if (self->run_stopped == !!run_stopped)
    return;
  self->run_stopped = !!run_stopped;
  pd_history_view_show_selected (self);
}

/**
 * pd_history_view_set_title:
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads the versions' detail with the session's title, plain, whole and
 * wrapped, as the Now page heads its plan: the header cuts it at 360 px.
 */
void
pd_history_view_set_title (PdHistoryView *self,
                           const char    *title)
{
  g_autofree char *safe = title != NULL && title[0] != '\0' ? _pd_isolated_short (title, 240) : NULL;

  g_return_if_fail (PD_IS_HISTORY_VIEW (self));
  gtk_label_set_text (self->session_title, safe != NULL ? safe : "");
  gtk_widget_set_visible (GTK_WIDGET (self->session_title), safe != NULL);
}

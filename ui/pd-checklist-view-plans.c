/* pd-checklist-view-plans.c: the plan documents of the checklist page, the
 * name of the agent that wrote it, and whether a reread changed anything on it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session on an endpoint is read again at each ::changed of the source,
 * which another session's run on the same endpoint emits every second or
 * two.  A reread that brings what is shown leaves the page alone: rebuilt,
 * the list lost its scroll position and its focused row.
 */
#define G_LOG_DOMAIN "pd-checklist-view"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "pd-checklist-view-private.h"
#include "pd-markdown.h"
#include "pd-session-item.h"

/* The agent that wrote the list, named as in the session list (one table:
 * pd_session_source_label()), so a heading never names another agent. */
const char *
_pd_checklist_origin_label (PdChecklistOrigin origin)
{
  switch (origin)
    {
    case PD_CHECKLIST_ORIGIN_TODO_LIST:
      return pd_session_source_label ("claude-code");
    case PD_CHECKLIST_ORIGIN_CLAUDE_TASKS:
      return _("Claude Code Tasks");
    case PD_CHECKLIST_ORIGIN_DESKTOP_PLAN:
      return _("Claude Desktop");
    case PD_CHECKLIST_ORIGIN_CODEX_PLAN:
      return pd_session_source_label ("codex");
    case PD_CHECKLIST_ORIGIN_OPENCODE_TODOS:
      return pd_session_source_label ("opencode");
    case PD_CHECKLIST_ORIGIN_QWEN_TODOS:
      return pd_session_source_label ("qwen");
    case PD_CHECKLIST_ORIGIN_GEMINI_TODOS:
      return pd_session_source_label ("gemini");
    case PD_CHECKLIST_ORIGIN_CLINE_PROGRESS:
      return pd_session_source_label ("cline");
    case PD_CHECKLIST_ORIGIN_ROO_TODOS:
      return pd_session_source_label ("roo");
    case PD_CHECKLIST_ORIGIN_KILO_TODOS:
      return pd_session_source_label ("kilo");
    case PD_CHECKLIST_ORIGIN_KILO_CLI_TODOS:
      return pd_session_source_label ("kilo-cli");
    case PD_CHECKLIST_ORIGIN_NONE:
    case PD_CHECKLIST_ORIGIN_USER:
    default:
      return _("Another agent");
    }
}

static const char *
plan_status_label (PdArtifactPlanStatus status)
{
  switch (status)
    {
    case PD_ARTIFACT_PLAN_APPROVED:
      return _("Approved");
    case PD_ARTIFACT_PLAN_REJECTED:
      return _("Rejected");
    case PD_ARTIFACT_PLAN_PROPOSED:
    default:
      return _("Proposed");
    }
}


GtkWidget *
_pd_checklist_plan_expander (const PdArtifactPlan *plan,
                             guint                 number)
{
  GtkWidget *expander = gtk_expander_new (NULL);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  g_autofree char *title = g_strdup_printf (_("Plan %u"), number);
  GtkWidget *title_label = gtk_label_new (title);
  GtkWidget *badge = gtk_label_new (plan_status_label (plan->status));
  GtkWidget *text = _pd_checklist_text_label (plan->markdown ? plan->markdown : "");
  g_autofree char *badge_class = g_strdup_printf ("pd-plan-%s", pd_artifact_plan_status_to_string (plan->status));

  gtk_widget_add_css_class (badge, "pd-badge");
  gtk_widget_add_css_class (badge, "caption");
  gtk_widget_add_css_class (badge, badge_class);
  gtk_box_append (GTK_BOX (header), title_label);
  gtk_box_append (GTK_BOX (header), badge);
  gtk_expander_set_label_widget (GTK_EXPANDER (expander), header);

  /* Drawn as the History page and the transcript draw it: shown as its
   * source, a plan read "# Parser plan" and "- Fix the escaping". */
  pd_markdown_set_label (GTK_LABEL (text), plan->markdown);
  gtk_label_set_selectable (GTK_LABEL (text), TRUE);
  gtk_widget_add_css_class (text, "pd-plan-markdown");
  gtk_widget_set_margin_top (text, 6);
  gtk_widget_set_margin_start (text, 18);
  gtk_expander_set_child (GTK_EXPANDER (expander), text);
  gtk_widget_add_css_class (expander, "pd-plan-document");
  return expander;
}

gboolean
_pd_checklist_same_reading (PdChecklist *shown,
                            GPtrArray   *shown_plans,
                            PdChecklist *read,
                            GPtrArray   *read_plans)
{
  g_autoptr(JsonNode) shown_json = NULL;
  g_autoptr(JsonNode) read_json = NULL;
  guint n_plans = shown_plans ? shown_plans->len : 0;

  if (shown == NULL || read == NULL)
    return FALSE;
  if (n_plans != (read_plans ? read_plans->len : 0))
    return FALSE;
  for (guint i = 0; i < n_plans; i++)
    {
      const PdArtifactPlan *a = g_ptr_array_index (shown_plans, i);
      const PdArtifactPlan *b = g_ptr_array_index (read_plans, i);

      if (a->status != b->status || g_strcmp0 (a->markdown, b->markdown) != 0)
        return FALSE;
    }

  /* Items, statuses as shown (the user's overrides applied), the user's
   * items, the count of items not shown. */
  shown_json = pd_checklist_to_json (shown);
  read_json = pd_checklist_to_json (read);
  return json_node_equal (shown_json, read_json);
}

/* An item's text cut to what a row shows, the rest (to a bound) in its
 * tooltip: 200 items of 1 500 characters with no blank froze the window
 * over 4 minutes laying them out whole (tried as an attacker would). */
#define ITEM_SHOWN_CHARS   200
#define ITEM_TOOLTIP_CHARS 2000

static char *
cut_chars (const char *text,
           guint       max_chars)
{
  const char *end = text;

  for (guint n = 0; *end != '\0' && n < max_chars; n++)
    end = g_utf8_find_next_char (end, NULL);
  if (*end == '\0')
    return g_strdup (text);
  return g_strdup_printf ("%.*s…", (int) (end - text), text);
}

GtkWidget *
_pd_checklist_item_text_label (const char *text)
{
  g_autofree char *shown = cut_chars (text != NULL ? text : "", ITEM_SHOWN_CHARS);
  GtkWidget *label = _pd_checklist_text_label (shown);

  if (text != NULL && strcmp (shown, text) != 0)
    {
      g_autofree char *longer = cut_chars (text, ITEM_TOOLTIP_CHARS);

      gtk_widget_set_tooltip_text (label, longer);
    }
  return label;
}

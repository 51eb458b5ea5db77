/* pd-message-row.c: how the transcript view draws one message
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A header (role, a "Plan" badge on the protected plan message, the tool
 * name or call id, a copy button), the text, tool output folded behind its
 * first lines and "Show all", the system prompt folded whole, and each
 * assistant tool call as an expander with its arguments pretty-printed; a
 * call that started a subagent (Claude Code's Task) holds that subagent's
 * conversation, built when opened.  Our own plan message shows as a plan
 * card (its version, counts and steps), with the text the model reads
 * folded.  An assistant turn also shows its thinking folded, and says when
 * the model refused or its answer was cut off by the output limit.
 * Assistant text is markdown rendered by pd_markdown: styles built in code,
 * never markup; everything else is plain text.
 */
#define G_LOG_DOMAIN "pd-message-row"

#include "config.h"

#include "pd-json.h"

#include <glib/gi18n.h>

#include "pd-json-util.h"
#include "pd-markdown.h"
#include "pd-message-row.h"
#include "pd-plan.h"
#include "pd-safe-text.h"
#include "pd-plan-row-item.h"
#include "pd-ui-util-private.h"

struct _PdMessageRow
{
  GtkWidget      parent_instance;

  PdMessageItem *item;
  char          *role_class;
  gboolean       entered;      /* given the focus from outside, this turn */
  guint          entered_idle;

  /* Template widgets */
  GtkWidget     *box;
  GtkLabel      *role_label;
  GtkWidget     *plan_badge;
  GtkLabel      *meta_label;
  GtkWidget     *copy_button;
  GtkExpander   *thinking_expander;
  GtkLabel      *thinking_label;
  GtkLabel      *content_label;
  GtkWidget     *plan_card;
  GtkLabel      *plan_card_title;
  GtkWidget     *plan_card_steps;
  GtkLabel      *outcome_label;
  GtkExpander   *fold_expander;
  GtkLabel      *full_label;
  GtkWidget     *calls_box;
};

G_DEFINE_FINAL_TYPE (PdMessageRow, pd_message_row, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *
role_title (const char *role)
{
  if (g_strcmp0 (role, "system") == 0)
    return _("System");
  if (g_strcmp0 (role, "user") == 0)
    return _("User");
  if (g_strcmp0 (role, "assistant") == 0)
    return _("Assistant");
  if (g_strcmp0 (role, "tool") == 0)
    return _("Tool");
  return role;
}

/* The first @max_lines lines of @text, at most PD_MESSAGE_ROW_FOLD_CHARS,
 * or NULL when the whole text is short enough to show; "" when @max_lines
 * is 0 (folded whole). */
/* The title of @self's row: its role's, or "Notice" for Plandeck's note
 * of how a run ended (it read "System", as the system prompt). */
static const char *
row_title (PdMessageRow *self,
           const char   *role)
{
  if (self->item != NULL && pd_message_item_get_is_note (self->item))
    /* Translators: the title of Plandeck's note in a transcript of how the run ended ("the run stopped because …") */
    return _("Notice");
  return role_title (role);
}

static char *
fold_preview (const char *text,
              guint       max_lines,
              guint      *n_lines)
{
  const char *p;
  const char *cut = NULL;
  guint lines = 1;

  for (p = text; *p != '\0'; p++)
    {
      if (*p == '\n')
        {
          if (lines == max_lines && cut == NULL)
            cut = p;
          lines++;
        }
    }
  *n_lines = lines;

  if (max_lines == 0)
    return g_strdup ("");

  if (cut == NULL && (gsize) (p - text) <= PD_MESSAGE_ROW_FOLD_CHARS)
    return NULL;

  if (cut == NULL || (gsize) (cut - text) > PD_MESSAGE_ROW_FOLD_CHARS)
    {
      cut = text + PD_MESSAGE_ROW_FOLD_CHARS;
      /* Never cut inside a UTF-8 sequence. */
      cut = g_utf8_find_prev_char (text, cut + 1);
    }

  {
    g_autofree char *head = g_utf8_make_valid (text, cut - text);

    return g_strconcat (head, "…", NULL);
  }
}

static char *
pretty_arguments (JsonObject *function)
{
  JsonNode *node = function ? json_object_get_member (function, "arguments") : NULL;
  g_autoptr(JsonParser) parser = NULL;
  const char *text;

  if (node == NULL)
    return g_strdup ("{}");
  /* Arguments arrive as a JSON string; show it parsed when it parses. */
  if ((text = pd_json_node_get_string (node)) == NULL)
    return json_to_string (node, TRUE);

  parser = json_parser_new_immutable ();
  if (!pd_json_nesting_exceeds (text, -1, PD_JSON_FOREIGN_MAX_DEPTH) &&
      json_parser_load_from_data (parser, text, -1, NULL) && json_parser_get_root (parser) != NULL)
    return json_to_string (json_parser_get_root (parser), TRUE);

  return g_strdup (text);
}

/* An expander whose title wraps: titles hold model text of any length,
 * and a phone-wide window must not grow for them. */
static GtkWidget *
wrapping_expander (const char *title)
{
  GtkWidget *expander = gtk_expander_new (NULL);

  gtk_expander_set_label_widget (GTK_EXPANDER (expander), _pd_plain_label (title, NULL));
  /* GTK 4.8 does not name an expander by its label: a screen reader said
   * "GtkExpander" for every tool call. */
  _pd_accessible_set_text (GTK_WIDGET (expander), title, NULL);
  return expander;
}

static GtkWidget *
dim_caption (const char *text)
{
  GtkWidget *label = _pd_plain_label (text, "dim-label");

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "caption");
  return label;
}

/* The subagent's messages, as rows of their own, made when the person
 * opens the subagent: a long Task costs nothing until then. */
static void
on_subagent_expanded (GtkExpander *expander)
{
  JsonArray *messages = g_object_get_data (G_OBJECT (expander), "messages");
  GtkWidget *box = gtk_expander_get_child (expander);

  if (!gtk_expander_get_expanded (expander) || messages == NULL || gtk_widget_get_first_child (box) != NULL)
    return;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      g_autoptr(PdMessageItem) item = NULL;
      GtkWidget *row;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = pd_message_item_new_from_json (i, json_node_get_object (node));
      row = g_object_new (PD_TYPE_MESSAGE_ROW, "item", item, NULL);
      gtk_widget_add_css_class (row, "pd-subagent-message");
      gtk_box_append (GTK_BOX (box), row);
    }
}

/* A call that started a subagent: its description and type, and its
 * conversation folded under it. */
static GtkWidget *
subagent_widget (JsonObject *subagent)
{
  JsonNode *messages_node = json_object_get_member (subagent, "messages");
  JsonArray *messages = messages_node && JSON_NODE_HOLDS_ARRAY (messages_node) ? json_node_get_array (messages_node) : NULL;
  guint n = messages ? json_array_get_length (messages) : 0;
  const char *description = pd_json_get_string (subagent, "description");
  const char *type = pd_json_get_string (subagent, "agent_type");
  /* Model text in our sentence: shown and isolated (_pd_isolated_line()). */
  g_autofree char *safe_description = description != NULL && description[0] != '\0'
                                      ? _pd_isolated_line (description) : g_strdup ("");
  g_autofree char *safe_type = type ? _pd_isolated_line (type) : NULL;
  g_autofree char *count = NULL;
  g_autofree char *title = NULL;
  GtkWidget *expander;
  GtkWidget *box;

  /* Translators: the number of messages of a subagent's conversation */
  count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u message", "%u messages", n), n);
  if (safe_description[0] != '\0' && safe_type != NULL)
    /* Translators: a subagent's conversation: "Subagent (Explore): Find the callers · 12 messages" */
    title = g_strdup_printf (_("Subagent (%s): %s · %s"), safe_type, safe_description, count);
  else if (safe_description[0] != '\0')
    title = g_strdup_printf (_("Subagent: %s · %s"), safe_description, count);
  else
    title = g_strdup_printf (_("Subagent · %s"), count);

  expander = wrapping_expander (title);
  gtk_widget_add_css_class (expander, "pd-subagent");
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_add_css_class (box, "pd-subagent-messages");
  gtk_widget_set_margin_start (box, 12);
  gtk_expander_set_child (GTK_EXPANDER (expander), box);
  if (messages != NULL)
    g_object_set_data_full (G_OBJECT (expander), "messages", json_array_ref (messages),
                            (GDestroyNotify) json_array_unref);
  g_signal_connect (expander, "notify::expanded", G_CALLBACK (on_subagent_expanded), NULL);

  return expander;
}

static GtkWidget *
tool_call_widget (JsonObject *call)
{
  JsonNode *function_node = json_object_get_member (call, "function");
  JsonNode *subagent_node = json_object_get_member (call, "subagent");
  JsonObject *function = NULL;
  g_autofree char *arguments = NULL;
  g_autofree char *safe_arguments = NULL;
  g_autofree char *safe_name = NULL;
  g_autofree char *title = NULL;
  const char *name;
  const char *call_id;
  GtkWidget *expander;
  GtkWidget *box;
  GtkWidget *label;

  if (function_node != NULL && JSON_NODE_HOLDS_OBJECT (function_node))
    function = json_node_get_object (function_node);
  name = pd_json_get_string (function, "name");
  call_id = pd_json_get_string (call, "id");
  arguments = pretty_arguments (function);
  safe_arguments = pd_safe_text_block (arguments);
  safe_name = _pd_isolated_line (name ? name : "?");

  /* Translators: an assistant's tool call; %s is the tool's name. */
  title = g_strdup_printf (_("Tool call: %s"), safe_name);
  expander = wrapping_expander (title);
  gtk_widget_add_css_class (expander, "pd-tool-call");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_margin_start (box, 18);
  if (call_id != NULL)
    {
      g_autofree char *safe_id = pd_safe_text_line (call_id);

      gtk_box_append (GTK_BOX (box), dim_caption (safe_id));
    }
  label = _pd_plain_label (safe_arguments, "monospace");
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_box_append (GTK_BOX (box), label);

  /* An imported transcript's long arguments end with "… (cut, N bytes)"
   * (arguments_cut): the text says it, no second note. */
  gtk_expander_set_child (GTK_EXPANDER (expander), box);

  if (subagent_node != NULL && JSON_NODE_HOLDS_OBJECT (subagent_node))
    {
      GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

      gtk_box_append (GTK_BOX (outer), expander);
      gtk_box_append (GTK_BOX (outer), subagent_widget (json_node_get_object (subagent_node)));
      return outer;
    }

  return expander;
}

static void
clear_calls (PdMessageRow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->calls_box)) != NULL)
    gtk_box_remove (GTK_BOX (self->calls_box), child);
}

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    gtk_box_remove (GTK_BOX (box), child);
}

/* Our own plan message as a card: its version and counts, then each step
 * with its status as an icon and a word.  A plan that does not parse (an
 * older or cut render) has no card; its text stays folded below. */
static void
pd_message_row_update_plan_card (PdMessageRow *self,
                                 const char   *plan_text,
                                 gboolean      run_stopped)
{
  g_autoptr(PdPlanState) state = NULL;
  g_autofree char *title = NULL;
  PdPlanCounts counts = { 0 };

  clear_box (self->plan_card_steps);
  if (plan_text != NULL)
    state = pd_plan_parse (plan_text, PD_PLAN_STEP_CEILING, NULL);
  gtk_widget_set_visible (self->plan_card, state != NULL);
  if (state == NULL)
    return;

  pd_plan_state_count (state, &counts);
  if (state->steps->len == 0 && state->version > 0)
    /* Translators: a finished plan the model now sees collapsed to one line */
    title = g_strdup_printf (_("Plan v%lld · all done"), (long long) state->version);
  else if (counts.blocked > 0)
    title = g_strdup_printf (_("Plan v%lld · %u/%u done · %u blocked"), (long long) state->version,
                             counts.done, counts.steps, counts.blocked);
  else
    title = g_strdup_printf (_("Plan v%lld · %u/%u done"), (long long) state->version,
                             counts.done, counts.steps);
  gtk_label_set_text (self->plan_card_title, title);

  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);
      g_autofree char *status_class = g_strdup_printf ("pd-step-%s", pd_plan_step_status_to_string (step->status));
      g_autofree char *title_text = pd_safe_text_line (step->title);
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *icon = gtk_image_new_from_icon_name (_pd_step_status_icon_name (step->status, run_stopped));
      GtkWidget *label = _pd_plain_label (title_text, NULL);

      gtk_widget_add_css_class (icon, status_class);
      gtk_widget_set_valign (icon, GTK_ALIGN_START);
      gtk_widget_set_tooltip_text (icon, _pd_step_status_text (step->status, run_stopped));
      _pd_accessible_set_text (GTK_WIDGET (icon), _pd_step_status_text (step->status, run_stopped), NULL);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (line), icon);
      gtk_box_append (GTK_BOX (line), label);
      gtk_box_append (GTK_BOX (self->plan_card_steps), line);
    }
}

/* The list an imported agent's plan call left (TodoWrite, update_plan,
 * write_todos…), which the transcript pages put beside the call as
 * "plan": the newest such call of the turn, or NULL. */
static JsonObject *
calls_plan (JsonArray *calls)
{
  for (guint i = calls != NULL ? json_array_get_length (calls) : 0; i > 0; i--)
    {
      JsonObject *call = pd_json_array_get_object (calls, i - 1);
      JsonObject *plan = call != NULL ? pd_json_get_object (call, "plan") : NULL;

      if (plan != NULL && pd_json_get_array (plan, "items") != NULL)
        return plan;
    }
  return NULL;
}

/* That list as a card where the call is, as our own plan's card shows
 * where the plan tool was called: its counts, each item with
 * the glyph of its status (a cancelled one its own, out of the count, as
 * on History).  It showed no card (tried as a new user would). */
static void
pd_message_row_update_checklist_card (PdMessageRow *self,
                                      JsonObject   *plan)
{
  JsonArray *items = pd_json_get_array (plan, "items");
  guint n = json_array_get_length (items);
  gint64 hidden = pd_json_get_int (plan, "hidden", 0);
  guint done = 0, counted = 0;
  g_autofree char *title = NULL;

  clear_box (self->plan_card_steps);
  for (guint i = 0; i < n; i++)
    {
      JsonObject *item = pd_json_array_get_object (items, i);
      const char *status = item != NULL ? pd_json_get_string (item, "status") : NULL;
      gboolean cancelled = g_strcmp0 (status, "cancelled") == 0;
      PdPlanStepStatus step_status = g_strcmp0 (status, "completed") == 0 ? PD_PLAN_STEP_DONE
                                     : g_strcmp0 (status, "in_progress") == 0 ? PD_PLAN_STEP_IN_PROGRESS
                                     : PD_PLAN_STEP_PENDING;
      g_autofree char *text = pd_safe_text_line (item != NULL && pd_json_get_string (item, "text") != NULL
                                                 ? pd_json_get_string (item, "text") : "");
      g_autofree char *status_class = g_strdup_printf ("pd-step-%s", cancelled ? "cancelled"
                                                       : pd_plan_step_status_to_string (step_status));
      const char *words = cancelled ? _pd_step_cancelled_text () : _pd_step_status_text (step_status, FALSE);
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *icon = gtk_image_new_from_icon_name (cancelled ? _pd_step_cancelled_icon_name ()
                                                                : _pd_step_status_icon_name (step_status, FALSE));
      GtkWidget *label = _pd_plain_label (text, NULL);

      counted += !cancelled;
      done += step_status == PD_PLAN_STEP_DONE && !cancelled;
      gtk_widget_add_css_class (icon, status_class);
      gtk_widget_set_valign (icon, GTK_ALIGN_START);
      gtk_widget_set_tooltip_text (icon, words);
      _pd_accessible_set_text (GTK_WIDGET (icon), words, NULL);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (line), icon);
      gtk_box_append (GTK_BOX (line), label);
      gtk_box_append (GTK_BOX (self->plan_card_steps), line);
    }
  if (hidden > 0)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more item", "%u more items",
                                                            (gulong) hidden), (guint) MIN (hidden, G_MAXUINT));

      gtk_box_append (GTK_BOX (self->plan_card_steps), _pd_plain_label (more, "dim-label"));
    }
  /* Translators: an imported agent's list where its plan tool was called: "Checklist · 1/3 done" */
  title = g_strdup_printf (_("Checklist · %u/%u done"), done, counted);
  gtk_label_set_text (self->plan_card_title, title);
  gtk_widget_set_visible (self->plan_card, TRUE);
}

/* How many characters of a message its spoken name quotes. */
#define NAME_CHARS 60

/* The start of @text's first line that has any, shortened, or NULL. */
static char *
first_words (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      if (lines[i][0] != '\0')
        return _pd_isolated_short (lines[i], NAME_CHARS);
    }
  return NULL;
}

/* The row is a Tab stop of its own, named for what it holds ("User: Fix
 * the parser…", "Tool call: shell"), and its Copy button says which
 * message it copies: a screen reader met unnamed rows and a column of
 * buttons that all said "Copy Message" (tried with a screen reader's
 * view).  Model text in the names is made safe and shortened. */
static void
pd_message_row_update_names (PdMessageRow *self,
                             const char   *role,
                             const char   *content,
                             JsonArray    *calls,
                             gboolean      is_plan)
{
  g_autofree char *words = first_words (content);
  g_autofree char *name = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(GString) tools = g_string_new (NULL);
  guint n_calls = 0;

  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      JsonNode *function = JSON_NODE_HOLDS_OBJECT (node) ? json_object_get_member (json_node_get_object (node), "function") : NULL;
      const char *tool = function != NULL && JSON_NODE_HOLDS_OBJECT (function)
                         ? pd_json_get_string (json_node_get_object (function), "name") : NULL;
      g_autofree char *safe = _pd_isolated_short (tool != NULL ? tool : "?", NAME_CHARS);

      if (n_calls++ > 0)
        g_string_append (tools, ", ");
      g_string_append (tools, safe);
    }

  if (is_plan && gtk_widget_get_visible (self->plan_card))
    /* Translators: a plan message's spoken name: "Plan: Plan v2 · 1/4 done" */
    name = g_strdup_printf (_("Plan: %s"), gtk_label_get_text (self->plan_card_title));
  else if (g_strcmp0 (role, "tool") == 0)
    {
      const char *tool = self->item ? pd_message_item_get_name (self->item) : NULL;
      g_autofree char *safe = tool != NULL ? _pd_isolated_short (tool, NAME_CHARS) : NULL;

      if (safe != NULL && words != NULL)
        /* Translators: a tool result's spoken name: "Tool result, shell: ok 1 - parser" */
        name = g_strdup_printf (_("Tool result, %s: %s"), safe, words);
      else if (safe != NULL || words != NULL)
        name = g_strdup_printf (_("Tool result: %s"), safe != NULL ? safe : words);
      else
        name = g_strdup (_("Tool result"));
    }
  else if (words == NULL && n_calls > 0)
    /* Translators: an assistant turn that only calls tools: "Tool calls: shell, read_file" */
    name = g_strdup_printf (n_calls == 1 ? _("Tool call: %s") : _("Tool calls: %s"), tools->str);
  else if (words != NULL)
    /* Translators: a message's spoken name: "User: Fix the parser…" */
    name = g_strdup_printf (_("%s: %s"), row_title (self, role), words);
  else
    name = g_strdup (row_title (self, role));

  _pd_accessible_set_text (GTK_WIDGET (self), name, NULL);
  /* Translators: the Copy button's description: which message it copies */
  copy = g_strdup_printf (_("Copies the message “%s”"), name);
  _pd_accessible_set_text (self->copy_button, NULL, copy);
}

static void
pd_message_row_update (PdMessageRow *self)
{
  const char *role = self->item ? pd_message_item_get_role (self->item) : "";
  /* The item shows its content, thinking, refusal and cut-off note safely
   * already (pd-message-item.c); names, ids and tool calls are made safe here. */
  const char *content = self->item ? pd_message_item_get_content (self->item) : "";
  JsonArray *calls = self->item ? pd_message_item_get_tool_calls (self->item) : NULL;
  gboolean is_plan = self->item ? pd_message_item_get_is_plan (self->item) : FALSE;
  gboolean is_tool = g_strcmp0 (role, "tool") == 0;
  gboolean is_note = self->item ? pd_message_item_get_is_note (self->item) : FALSE;
  /* A note is shown whole: it is not the system prompt, and what it says
   * (the run stopped, and why) was under a folded "System prompt". */
  gboolean foldable = is_tool || (g_strcmp0 (role, "system") == 0 && !is_plan && !is_note);
  g_autofree char *preview = NULL;
  g_autofree char *meta = NULL;
  guint n_lines = 0;

  if (self->role_class != NULL)
    gtk_widget_remove_css_class (GTK_WIDGET (self), self->role_class);
  g_free (self->role_class);
  self->role_class = g_strdup_printf ("pd-role-%s",
                                      (g_strcmp0 (role, "system") == 0 ||
                                       g_strcmp0 (role, "user") == 0 ||
                                       g_strcmp0 (role, "assistant") == 0 ||
                                       is_tool) ? role : "other");
  gtk_widget_add_css_class (GTK_WIDGET (self), self->role_class);

  gtk_label_set_text (self->role_label, row_title (self, role));
  gtk_widget_set_visible (self->plan_badge, is_plan);

  if (self->item != NULL)
    {
      const char *name = pd_message_item_get_name (self->item);
      const char *call_id = pd_message_item_get_tool_call_id (self->item);

      if (name != NULL && call_id != NULL)
        {
          /* Each part isolated: the one cannot reorder the other. */
          g_autofree char *safe_name = _pd_isolated_line (name);
          g_autofree char *safe_id = _pd_isolated_line (call_id);

          meta = g_strdup_printf ("%s · %s", safe_name, safe_id);
        }
      else if (name != NULL || call_id != NULL)
        meta = _pd_isolated_line (name ? name : call_id);
    }
  /* Made safe to show by _pd_isolated_line() already. */
  gtk_label_set_text (self->meta_label, meta ? meta : "");

  if (is_tool)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->content_label), "monospace");
      gtk_widget_add_css_class (GTK_WIDGET (self->full_label), "monospace");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->content_label), "monospace");
      gtk_widget_remove_css_class (GTK_WIDGET (self->full_label), "monospace");
    }

  if (is_tool)
    preview = fold_preview (content, PD_MESSAGE_ROW_FOLD_LINES, &n_lines);
  else if (foldable || is_plan)
    preview = fold_preview (content, 0, &n_lines);

  gtk_expander_set_expanded (self->fold_expander, FALSE);
  gtk_label_set_attributes (self->content_label, NULL);
  if (preview != NULL)
    {
      g_autofree char *show_all = NULL;

      if (is_plan)
        /* Translators: expands the plan message as the model reads it */
        show_all = g_strdup (_("As the model reads it"));
      else if (!is_tool)
        /* Translators: expands the folded system prompt; %u is its number of lines. */
        show_all = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "System prompt (%u line)",
                                                 "System prompt (%u lines)", n_lines), n_lines);
      else
        /* Translators: expands folded output; %u is its number of lines. */
        show_all = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Show all (%u line)",
                                                 "Show all (%u lines)", n_lines), n_lines);
      gtk_label_set_text (self->content_label, preview);
      gtk_label_set_text (self->full_label, content);
      gtk_expander_set_label (self->fold_expander, show_all);
      _pd_accessible_set_text (GTK_WIDGET (self->fold_expander), show_all, NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->fold_expander), TRUE);
    }
  else
    {
      if (g_strcmp0 (role, "assistant") == 0)
        pd_markdown_set_label (self->content_label, content);
      else
        gtk_label_set_text (self->content_label, content);
      gtk_label_set_text (self->full_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->fold_expander), FALSE);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->content_label),
                          gtk_label_get_text (self->content_label)[0] != '\0');

  pd_message_row_update_plan_card (self, is_plan ? content : NULL,
                                   self->item != NULL && pd_message_item_get_run_stopped (self->item));
  if (!is_plan && calls_plan (calls) != NULL)
    pd_message_row_update_checklist_card (self, calls_plan (calls));

  /* Thinking is there to look into, not to read first: always folded. */
  {
    const char *thinking = self->item ? pd_message_item_get_thinking (self->item) : NULL;

    gtk_expander_set_expanded (self->thinking_expander, FALSE);
    gtk_label_set_text (self->thinking_label, thinking ? thinking : "");
    gtk_widget_set_visible (GTK_WIDGET (self->thinking_expander), thinking != NULL);
  }

  /* How the turn ended, when that is not a whole answer. */
  {
    const char *refusal = self->item ? pd_message_item_get_refusal (self->item) : NULL;
    const char *incomplete = self->item ? pd_message_item_get_incomplete (self->item) : NULL;
    g_autofree char *outcome = NULL;

    gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_label), "error");
    gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_label), "warning");
    if (refusal != NULL)
      {
        /* Translators: the model declined to answer; %s is the explanation it or the server gave. */
        g_autofree char *why = _pd_isolated_line (refusal);

        outcome = g_strdup_printf (_("Refused: %s"), why);
        gtk_widget_add_css_class (GTK_WIDGET (self->outcome_label), "error");
      }
    else if (incomplete != NULL)
      {
        /* Translators: %s is the server's stop reason, e.g. max_tokens. */
        g_autofree char *why = _pd_isolated_line (incomplete);

        outcome = g_strdup_printf (_("Cut off at the output limit (%s): this answer is incomplete."), why);
        gtk_widget_add_css_class (GTK_WIDGET (self->outcome_label), "warning");
      }
    gtk_label_set_text (self->outcome_label, outcome ? outcome : "");
    gtk_widget_set_visible (GTK_WIDGET (self->outcome_label), outcome != NULL);
  }

  clear_calls (self);
  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonNode *call = json_array_get_element (calls, i);

      if (JSON_NODE_HOLDS_OBJECT (call))
        gtk_box_append (GTK_BOX (self->calls_box), tool_call_widget (json_node_get_object (call)));
    }
  gtk_widget_set_visible (self->calls_box, gtk_widget_get_first_child (self->calls_box) != NULL);

  pd_message_row_update_names (self, role, content, calls, is_plan);
}

static void
on_fold_expander_expanded_cb (PdMessageRow *self)
{
  g_assert (PD_IS_MESSAGE_ROW (self));

  /* Expanded, the full text replaces the preview rather than repeating it. */
  gtk_widget_set_visible (GTK_WIDGET (self->content_label),
                          !gtk_expander_get_expanded (self->fold_expander) &&
                          gtk_label_get_text (self->content_label)[0] != '\0');
}

static void
on_copy_button_clicked_cb (PdMessageRow *self)
{
  g_autofree char *text = NULL;

  g_assert (PD_IS_MESSAGE_ROW (self));

  if (self->item == NULL)
    return;

  text = pd_message_item_dup_copy_text (self->item);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
}

static void
forget_focus_children (GtkWidget *widget)
{
  gtk_widget_set_focus_child (widget, NULL);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    forget_focus_children (child);
}

static gboolean
entered_done (gpointer data)
{
  PdMessageRow *self = data;

  self->entered = FALSE;
  self->entered_idle = 0;
  return G_SOURCE_REMOVE;
}

static void
on_focus_enter (GtkEventControllerFocus *controller,
                PdMessageRow            *self)
{
  if (!gtk_event_controller_focus_is_focus (controller))
    return;
  self->entered = TRUE;
  if (self->entered_idle == 0)
    self->entered_idle = g_idle_add_full (G_PRIORITY_HIGH, entered_done, self, NULL);
}

/* The focus coming in from outside lands on the message.  GTK 4.8's list
 * leaves its rows' focus children set after the focus has left, and moves
 * the focus on from a row it has just focused (it grabs the row, then asks
 * it to take the focus forward): the second F6 into the Transcript landed
 * on a Copy button, the third on the system prompt's fold (tried with the
 * keyboard alone).  A row given the focus from outside keeps it for the
 * rest of that turn of the main loop; the next Tab moves on. */
static gboolean
pd_message_row_focus (GtkWidget        *widget,
                      GtkDirectionType  direction)
{
  PdMessageRow *self = PD_MESSAGE_ROW (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if (focus == widget && self->entered && direction != GTK_DIR_TAB_BACKWARD)
    return TRUE;
  if (focus == NULL || (focus != widget && !gtk_widget_is_ancestor (focus, widget)))
    {
      forget_focus_children (widget);
      /* Forward (Tab, F6, the arrows) onto the message; backward GTK's
       * way, to its last control. */
      if (direction != GTK_DIR_TAB_BACKWARD)
        return gtk_widget_grab_focus (widget);
    }
  return GTK_WIDGET_CLASS (pd_message_row_parent_class)->focus (widget, direction);
}

static void
pd_message_row_dispose (GObject *object)
{
  PdMessageRow *self = PD_MESSAGE_ROW (object);

  g_clear_handle_id (&self->entered_idle, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_MESSAGE_ROW);
  g_clear_object (&self->item);

  G_OBJECT_CLASS (pd_message_row_parent_class)->dispose (object);
}

static void
pd_message_row_finalize (GObject *object)
{
  PdMessageRow *self = PD_MESSAGE_ROW (object);

  g_free (self->role_class);

  G_OBJECT_CLASS (pd_message_row_parent_class)->finalize (object);
}

static void
pd_message_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PdMessageRow *self = PD_MESSAGE_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_message_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  PdMessageRow *self = PD_MESSAGE_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      pd_message_row_set_item (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_message_row_class_init (PdMessageRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_message_row_dispose;
  object_class->finalize = pd_message_row_finalize;
  object_class->get_property = pd_message_row_get_property;
  object_class->set_property = pd_message_row_set_property;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL,
                         PD_TYPE_MESSAGE_ITEM,
                         (G_PARAM_READWRITE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  widget_class->focus = pd_message_row_focus;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "pdmessagerow");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-message-row.ui");
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, box);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, role_label);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, plan_badge);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, meta_label);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, copy_button);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, thinking_expander);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, thinking_label);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, content_label);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, plan_card);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, plan_card_title);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, plan_card_steps);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, outcome_label);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, fold_expander);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, full_label);
  gtk_widget_class_bind_template_child (widget_class, PdMessageRow, calls_box);
  gtk_widget_class_bind_template_callback (widget_class, on_copy_button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_fold_expander_expanded_cb);
}

static void
pd_message_row_init (PdMessageRow *self)
{
  GtkEventController *focus = gtk_event_controller_focus_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  /* A Tab stop before its controls: F6 and Tab land on the message. */
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  g_signal_connect (focus, "enter", G_CALLBACK (on_focus_enter), self);
  gtk_widget_add_controller (GTK_WIDGET (self), focus);
}

PdMessageItem *
pd_message_row_get_item (PdMessageRow *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ROW (self), NULL);
  return self->item;
}

void
pd_message_row_set_item (PdMessageRow  *self,
                         PdMessageItem *item)
{
  g_return_if_fail (PD_IS_MESSAGE_ROW (self));
  g_return_if_fail (item == NULL || PD_IS_MESSAGE_ITEM (item));

  if (!g_set_object (&self->item, item))
    return;

  pd_message_row_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

/* test-transcript-view.c: the transcript as a person reads it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real PdTranscriptView on a real database, written through the session
 * store as a run would write it.
 */
#define G_LOG_DOMAIN "test-transcript-view"

#include "config.h"

/* First strong isolate and pop directional isolate, in UTF-8. */
#define FSI "\342\201\250"
#define PDI "\342\201\251"

#include <string.h>

#include "../pd-import-test.h"
#include "pd-import-index.h"
#include "pd-session-reads.h"
#include "pd-message-item.h"
#include "pd-message-row.h"
#include "pd-plan.h"
#include "pd-plan-row-item.h"
#include "pd-test-fixtures.h"
#include "pd-test-db.h"
#include "pd-test-stopped-run.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"

#define LONG_LINES 40

static char *
long_output (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 1; i <= LONG_LINES; i++)
    g_string_append_printf (out, "%sok %u - parser case %u", i > 1 ? "\n" : "", i, i);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static JsonObject *
assistant_with_call (void)
{
  JsonObject *message = pd_test_message ("assistant", "Running the tests.");
  JsonArray *calls = json_array_new ();
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();

  json_object_set_string_member (function, "name", "shell");
  json_object_set_string_member (function, "arguments", "{\"command\":\"make check\",\"timeout\":60}");
  json_object_set_string_member (call, "id", "call_1");
  json_object_set_string_member (call, "type", "function");
  json_object_set_object_member (call, "function", function);
  json_array_add_object_element (calls, call);
  json_object_set_array_member (message, "tool_calls", calls);

  return message;
}

static JsonObject *
tool_result (const char *content)
{
  JsonObject *message = pd_test_message ("tool", content);

  json_object_set_string_member (message, "tool_call_id", "call_1");
  json_object_set_string_member (message, "name", "shell");
  return message;
}

/* The first transcript: system prompt, the plan message, the task with
 * markup-looking text, a tool call, its long result, and a tool result that
 * quotes a plan. */
static JsonArray *
first_transcript (const char *plan_text)
{
  JsonArray *messages = json_array_new ();
  g_autofree char *output = long_output ();

  json_array_add_object_element (messages, pd_test_message ("system", "You are a careful coding agent."));
  json_array_add_object_element (messages, pd_test_message ("system", plan_text));
  json_array_add_object_element (messages, pd_test_message ("user", "Fix <b>the</b> parser"));
  json_array_add_object_element (messages, assistant_with_call ());
  json_array_add_object_element (messages, tool_result (output));
  json_array_add_object_element (messages, tool_result ("[Current plan: quoted by cat, not a plan]"));

  return messages;
}

static gboolean
badge_visible (PdMessageRow *row)
{
  GtkWidget *badge = pd_test_find_label (GTK_WIDGET (row), "Plan");

  g_assert_nonnull (badge);
  return gtk_widget_get_visible (badge);
}

static GtkExpander *
find_expander (GtkWidget  *root,
               const char *label)
{
  g_autoptr(GPtrArray) expanders = g_ptr_array_new ();

  pd_test_collect (root, GTK_TYPE_EXPANDER, expanders);
  for (guint i = 0; i < expanders->len; i++)
    if (g_strcmp0 (gtk_expander_get_label (g_ptr_array_index (expanders, i)), label) == 0)
      return g_ptr_array_index (expanders, i);

  return NULL;
}

static void
test_transcript_shows_messages (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(JsonArray) messages = first_transcript ("[Current plan: v1 · 0/2 done]\n⬜ s1 Read\n⬜ s2 Fix");
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  PdMessageRow *row;
  GtkExpander *fold;
  GtkExpander *call;
  GtkWidget *label;
  g_autofree char *output = long_output ();

  pd_test_db_save (db, id, messages, 0, NULL);

  window = pd_test_show_session (view, db, id, 900, 1400);

  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 6;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  gtk_test_widget_wait_for_draw (view);

  /* Roles. */
  g_assert_nonnull (pd_test_find_label (view, "System"));
  g_assert_nonnull (pd_test_find_label (view, "User"));
  g_assert_nonnull (pd_test_find_label (view, "Assistant"));
  g_assert_nonnull (pd_test_find_label (view, "Tool"));

  /* The plan message, and only it, carries the badge. */
  row = pd_test_message_row (view, 1);
  g_assert_nonnull (row);
  g_assert_true (pd_message_item_get_is_plan (pd_message_row_get_item (row)));
  g_assert_true (badge_visible (row));
  g_assert_false (badge_visible (pd_test_message_row (view, 0)));
  row = pd_test_message_row (view, 5);
  g_assert_nonnull (row);
  g_assert_false (pd_message_item_get_is_plan (pd_message_row_get_item (row)));
  g_assert_false (badge_visible (row));

  /* Markup-looking text is shown as it is. */
  label = pd_test_find_label (view, "Fix <b>the</b> parser");
  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_true (gtk_widget_get_mapped (label));

  /* The tool call: name in the expander, arguments pretty-printed. */
  row = pd_test_message_row (view, 3);
  call = find_expander (GTK_WIDGET (row), "Tool call: " FSI "shell" PDI);
  g_assert_nonnull (call);
  g_assert_false (gtk_expander_get_expanded (call));
  /* A collapsed expander keeps its child out of the widget tree. */
  label = pd_test_find_label_containing (gtk_expander_get_child (call), "\"command\" : \"make check\"");
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_has_css_class (label, "monospace"));
  gtk_expander_set_expanded (call, TRUE);

  /* The long result is folded: its first lines, then "Show all". */
  row = pd_test_message_row (view, 4);
  fold = find_expander (GTK_WIDGET (row), "Show all (40 lines)");
  g_assert_nonnull (fold);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (fold)));
  g_assert_false (gtk_expander_get_expanded (fold));
  label = pd_test_find_label_containing (GTK_WIDGET (row), "ok 3 - parser case 3");
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (label)), "ok 4 "));
  g_assert_true (gtk_widget_has_css_class (label, "monospace"));
  /* Expanded, the whole output replaces the preview. */
  gtk_expander_set_expanded (fold, TRUE);
  g_assert_false (gtk_widget_get_visible (label));
  g_assert_nonnull (pd_test_find_label (gtk_expander_get_child (fold), output));
  gtk_expander_set_expanded (fold, FALSE);

  /* A short tool result is not folded. */
  {
    g_autoptr(GPtrArray) expanders = g_ptr_array_new ();

    pd_test_collect (GTK_WIDGET (pd_test_message_row (view, 5)), GTK_TYPE_EXPANDER, expanders);
    g_assert_cmpuint (expanders->len, >, 0);
    for (guint i = 0; i < expanders->len; i++)
      g_assert_false (gtk_widget_get_visible (g_ptr_array_index (expanders, i)));
  }

  pd_test_screenshot (GTK_WIDGET (window), "transcript");
  pd_test_destroy_window (window, view);
}

static void
test_transcript_grows_in_place (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(JsonArray) messages = first_transcript ("[Current plan: v1]");
  g_autoptr(JsonArray) grown = NULL;
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func (g_object_unref);
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  GListModel *model;
  PdTestCountWait wait;

  pd_test_db_save (db, id, messages, 0, NULL);

  window = pd_test_show_session (view, db, id, 800, 600);
  model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.model = model;
  wait.n = 6;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  for (guint i = 0; i < 6; i++)
    g_ptr_array_add (before, g_list_model_get_item (model, i));

  /* The run goes on: the plan message is rewritten, two messages added. */
  grown = first_transcript ("[Current plan: v2]");
  json_array_add_object_element (grown, pd_test_message ("assistant", "All tests pass."));
  json_array_add_object_element (grown, pd_test_message ("user", "Thanks"));
  pd_test_db_save (db, id, grown, 1, NULL);

  pd_transcript_view_refresh (PD_TRANSCRIPT_VIEW (view));
  wait.n = 8;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));

  for (guint i = 0; i < 6; i++)
    {
      g_autoptr(GObject) now = g_list_model_get_item (model, i);

      if (i == 1)
        {
          /* Only the changed message got a new item. */
          g_assert_true (now != g_ptr_array_index (before, i));
          g_assert_cmpstr (pd_message_item_get_content (PD_MESSAGE_ITEM (now)), ==, "[Current plan: v2]");
        }
      else
        g_assert_true (now == g_ptr_array_index (before, i));
    }

  /* A refresh with nothing new changes nothing. */
  {
    g_autoptr(GObject) last = g_list_model_get_item (model, 7);
    g_autoptr(GObject) last_again = NULL;
    gulong changes = 0;
    gulong handler = g_signal_connect_swapped (model, "items-changed",
                                               G_CALLBACK (g_atomic_int_inc), &changes);

    pd_transcript_view_refresh (PD_TRANSCRIPT_VIEW (view));
    pd_test_spin (300);
    g_signal_handler_disconnect (model, handler);
    g_assert_cmpuint (changes, ==, 0);
    last_again = g_list_model_get_item (model, 7);
    g_assert_true (last == last_again);
  }

  pd_test_destroy_window (window, view);
}

/* How a model's turn ended, and what it thought: a refused turn says so
 * with its explanation, a cut answer says it is incomplete, thinking is
 * folded away.  All of it plain text. */
static void
test_transcript_model_outcomes (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "outcomes");
  g_autoptr(JsonArray) messages = json_array_new ();
  JsonObject *refused = pd_test_message ("assistant", NULL);
  JsonObject *cut = pd_test_message ("assistant", "The first half of the <i>answer");
  JsonObject *thought = pd_test_message ("assistant", "Done.");
  JsonArray *blocks = json_array_new ();
  JsonObject *block = json_object_new ();
  JsonObject *redacted = json_object_new ();
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  GtkExpander *thinking;
  GtkWidget *label;
  PdTestCountWait wait;

  json_object_set_string_member (refused, "refusal", "This request was refused due to <b>policy</b>.");
  json_object_set_string_member (refused, "refusal_category", "cyber");
  json_object_set_string_member (cut, "incomplete", "max_tokens");
  json_object_set_string_member (block, "type", "thinking");
  json_object_set_string_member (block, "thinking", "Let me check <the> file first.");
  json_object_set_string_member (block, "signature", "EqQBCkgIAhABGAIiQL");
  json_object_set_string_member (redacted, "type", "redacted_thinking");
  json_object_set_string_member (redacted, "data", "EmwKAhgBEgy3va3pzix");
  json_array_add_object_element (blocks, block);
  json_array_add_object_element (blocks, redacted);
  json_object_set_array_member (thought, "thinking", blocks);

  json_array_add_object_element (messages, pd_test_message ("user", "Do it"));
  json_array_add_object_element (messages, refused);
  json_array_add_object_element (messages, cut);
  json_array_add_object_element (messages, thought);
  pd_test_db_save (db, id, messages, 0, NULL);

  window = pd_test_show_session (view, db, id, 800, 900);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  gtk_test_widget_wait_for_draw (view);

  label = pd_test_find_label (GTK_WIDGET (pd_test_message_row (view, 1)),
                              "Refused: " FSI "This request was refused due to <b>policy</b>." PDI);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));

  label = pd_test_find_label (GTK_WIDGET (pd_test_message_row (view, 2)),
                              "Cut off at the output limit (" FSI "max_tokens" PDI "): this answer is incomplete.");
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (pd_test_message_row (view, 2)), "The first half of the <i>answer"));

  /* Thinking: folded, its text (and the redacted block named) inside. */
  thinking = find_expander (GTK_WIDGET (pd_test_message_row (view, 3)), "Thinking");
  g_assert_nonnull (thinking);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (thinking)));
  g_assert_false (gtk_expander_get_expanded (thinking));
  label = pd_test_find_label (gtk_expander_get_child (thinking),
                              "Let me check <the> file first.\n\n(redacted thinking)");
  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  /* The answer itself shows no outcome line and no thinking of others. */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (find_expander (GTK_WIDGET (pd_test_message_row (view, 1)), "Thinking"))));
  g_assert_null (pd_test_find_label_containing (GTK_WIDGET (pd_test_message_row (view, 3)), "Refused"));

  pd_test_destroy_window (window, view);
}

static void
test_transcript_empty_and_switch (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *full = pd_test_db_create_session (db, "with messages");
  g_autofree char *empty = pd_test_db_create_session (db, "without messages");
  g_autoptr(JsonArray) messages = first_transcript ("[Current plan: v1]");
  GtkWidget *view = pd_transcript_view_new ();
  AdwStatusPage *status;
  GtkWindow *window;
  PdTestCountWait wait;

  pd_test_db_save (db, full, messages, 0, NULL);
  window = pd_test_present (view, 600, 500);

  /* Nothing chosen yet. */
  status = ADW_STATUS_PAGE (pd_test_find_widget (view, ADW_TYPE_STATUS_PAGE));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (status)));
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "No Session Selected");

  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), full);
  /* Switched away before the reply: the reply for "full" is dropped. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), empty);
  pd_test_spin (400);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 0;
  g_assert_true (pd_test_has_n_items (&wait));
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "No Messages Yet");
  gtk_test_widget_wait_for_draw (view);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (status)));

  pd_session_view_set_session_id (PD_SESSION_VIEW (view), full);
  wait.n = 6;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));

  /* Destroyed with a request in flight: the reply is cancelled, no crash. */
  pd_transcript_view_refresh (PD_TRANSCRIPT_VIEW (view));
  pd_test_destroy_window (window, view);
  pd_test_spin (300);
}

/* A label or expander whose text holds a bidi control (U+202A–202E,
 * U+2066–2069) or a control character other than a line break or tab. */
static gboolean
text_is_unsafe (const char *text)
{
  gboolean isolated = FALSE;

  for (const char *p = text; p && *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      /* Our own isolate around model text in a sentence (U+2068 … U+2069,
       * never nested) is what makes it safe; any other control is not. */
      if (c == 0x2068 && !isolated)
        isolated = TRUE;
      else if (c == 0x2069 && isolated)
        isolated = FALSE;
      else if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
               (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
        return TRUE;
    }
  return isolated;
}

static gboolean
is_unsafe_widget (GtkWidget     *widget,
                  gconstpointer  data)
{
  if (GTK_IS_LABEL (widget))
    return text_is_unsafe (gtk_label_get_text (GTK_LABEL (widget)));
  if (GTK_IS_EXPANDER (widget))
    return text_is_unsafe (gtk_expander_get_label (GTK_EXPANDER (widget)));
  return FALSE;
}

/* Plandeck's own session, as a model could write it: bidi controls in the
 * answer, a tool's name, its arguments, its result and the thinking, and a
 * terminal escape.  They were shown raw (the text read in another order than
 * it is written); imported transcripts were already cleaned on import. */
static void
test_transcript_bidi_shown (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "bidi");
  g_autoptr(JsonArray) messages = json_array_new ();
  JsonObject *call_message = pd_test_message ("assistant", "Deploy \u202etxt.exe now");
  JsonObject *thought = pd_test_message ("assistant", "Done \x1b]0;title\x07.");
  JsonArray *calls = json_array_new ();
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();
  JsonArray *blocks = json_array_new ();
  JsonObject *block = json_object_new ();
  JsonObject *result = tool_result ("line one\nadmin \u2066secret\u2069 rights");
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;

  json_object_set_string_member (function, "name", "evil\u202etxt");
  json_object_set_string_member (function, "arguments", "{\"path\":\"a\u2067b\"}");
  json_object_set_string_member (call, "id", "call_\u202e1");
  json_object_set_object_member (call, "function", function);
  json_array_add_object_element (calls, call);
  json_object_set_array_member (call_message, "tool_calls", calls);
  json_object_set_string_member (block, "type", "thinking");
  json_object_set_string_member (block, "thinking", "Hide \u202eit");
  json_array_add_object_element (blocks, block);
  json_object_set_array_member (thought, "thinking", blocks);
  json_object_set_string_member (result, "name", "sh\u202ell");

  json_array_add_object_element (messages, pd_test_message ("user", "Do it"));
  json_array_add_object_element (messages, call_message);
  json_array_add_object_element (messages, result);
  json_array_add_object_element (messages, thought);
  pd_test_db_save (db, id, messages, 0, NULL);

  window = pd_test_show_session (view, db, id, 800, 900);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  gtk_test_widget_wait_for_draw (view);

  g_assert_nonnull (pd_test_find_label (view, "Deploy <U+202E>txt.exe now"));
  g_assert_nonnull (pd_test_find_label (view, "line one\nadmin <U+2066>secret<U+2069> rights"));
  g_assert_nonnull (find_expander (view, "Tool call: " FSI "evil<U+202E>txt" PDI));
  /* The result's tool and call: each in its isolate. */
  g_assert_nonnull (pd_test_find_label (view, FSI "sh<U+202E>ll" PDI " · " FSI "call_1" PDI));
  g_assert_null (pd_test_find_first (view, is_unsafe_widget, NULL));

  pd_test_destroy_window (window, view);
}

/* Our own session as a person reads it: the system prompt folded away, the
 * plan message as a plan card (never its wrapper and check JSON), statuses
 * as words, the answer's markdown rendered. */
static void
test_transcript_plain_language (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Add the export");
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (2);
  g_autofree char *render = pd_plan_render_full (plan);
  g_autofree char *nonce = pd_plan_new_nonce ();
  g_autofree char *wrapped = pd_plan_wrap (render, nonce);
  g_autoptr(JsonArray) messages = json_array_new ();
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  PdMessageRow *row;
  GtkExpander *fold;
  GtkWidget *label;
  GtkWidget *image;

  g_assert_nonnull (strstr (wrapped, "<untrusted_content_"));
  json_array_add_object_element (messages, pd_test_message ("system", "You are a careful coding agent.\nUse the plan tool."));
  json_array_add_object_element (messages, pd_test_message ("system", wrapped));
  json_array_add_object_element (messages, pd_test_message ("user", "Add the export"));
  json_array_add_object_element (messages, pd_test_message ("assistant", "## Export added\n\nRun **make check** and `plandeck-agent sessions export`."));
  pd_test_db_save (db, id, messages, 0, NULL);

  window = pd_test_show_session (view, db, id, 900, 1400);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  gtk_test_widget_wait_for_draw (view);

  /* The system prompt: folded whole. */
  row = pd_test_message_row (view, 0);
  fold = find_expander (GTK_WIDGET (row), "System prompt (2 lines)");
  g_assert_nonnull (fold);
  g_assert_false (gtk_expander_get_expanded (fold));
  g_assert_null (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "careful coding agent"));

  /* The plan: a card with its counts and steps, statuses as words; the
   * text the model reads is folded, its wrapper and checks never shown. */
  row = pd_test_message_row (view, 1);
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "Plan v2 · 1/4 done · 1 blocked"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (row), pd_test_is_mapped_label_containing, "Add the export subcommand"));
  image = pd_test_find_first (GTK_WIDGET (row), pd_test_is_image_with_tooltip, "In progress");
  g_assert_nonnull (image);
  /* The Now page's glyph for it (a triangle here before, its arrows there). */
  g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (image)), ==, pd_plan_step_status_icon_name (PD_PLAN_STEP_IN_PROGRESS));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (row), pd_test_is_image_with_tooltip, "Blocked"));
  g_assert_null (pd_test_find_first (view, pd_test_is_mapped_label_containing, "untrusted_content"));
  g_assert_null (pd_test_find_first (view, pd_test_is_mapped_label_containing, "in_progress"));
  g_assert_null (pd_test_find_first (view, pd_test_is_mapped_label_containing, "\"tool\""));
  fold = find_expander (GTK_WIDGET (row), "As the model reads it");
  g_assert_nonnull (fold);
  g_assert_false (gtk_expander_get_expanded (fold));

  /* The answer: markdown rendered, its markers gone. */
  label = pd_test_find_first (GTK_WIDGET (pd_test_message_row (view, 3)), pd_test_is_mapped_label_containing, "Export added");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "Export added\n\nRun make check and plandeck-agent sessions export.");
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_nonnull (gtk_label_get_attributes (GTK_LABEL (label)));

  pd_test_screenshot (GTK_WIDGET (window), "transcript-plain-language");
  pd_test_destroy_window (window, view);
}

/* --- following the newest during a live run ------------------------------------ */

static gboolean
is_mapped_text (GtkWidget     *widget,
                gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

typedef struct
{
  GtkWidget  *view;
  const char *text;
} DrawnWait;

/* The scrolled window of the messages' list. */
static GtkWidget *
list_scroller (GtkWidget *view)
{
  return gtk_widget_get_ancestor (pd_test_find_widget (view, GTK_TYPE_LIST_VIEW), GTK_TYPE_SCROLLED_WINDOW);
}

/* The label @text is drawn whole inside the transcript's scroller. */
static gboolean
drawn_in_view (gpointer data)
{
  DrawnWait *wait = data;
  GtkWidget *scroller = list_scroller (wait->view);
  GtkWidget *label = pd_test_find_first (wait->view, is_mapped_text, wait->text);
  graphene_rect_t bounds;

  if (label == NULL || !gtk_widget_compute_bounds (label, scroller, &bounds))
    return FALSE;
  return bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller) + 1;
}

static JsonArray *
numbered_messages (guint n)
{
  JsonArray *messages = json_array_new ();

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("Message %u", i);

      json_array_add_object_element (messages, pd_test_message (i % 2 ? "assistant" : "user", text));
    }
  return messages;
}

/* Tried as a new user would: during a live run the Transcript stayed
 * where it was while messages came below.  At the end, it follows the
 * newest; scrolled up, it stays put. */
static void
test_transcript_follows_newest (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(JsonArray) first = numbered_messages (30);
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  DrawnWait drawn = { view, "Message 29" };

  pd_test_db_save (db, id, first, 0, NULL);
  window = pd_test_show_session (view, db, id, 800, 400);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 30;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  pd_test_wait_until (drawn_in_view, &drawn, "the newest message in view");

  /* The run writes more: the newest is drawn, with no click. */
  {
    g_autoptr(JsonArray) more = numbered_messages (36);

    pd_test_db_save (db, id, more, 30, NULL);
  }
  pd_transcript_view_refresh (PD_TRANSCRIPT_VIEW (view));
  wait.n = 36;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  drawn.text = "Message 35";
  pd_test_wait_until (drawn_in_view, &drawn, "the new newest message in view");

  /* Scrolled up to read (Ctrl+Home): more messages move nothing. */
  pd_test_flush (view);
  {
    gboolean handled = FALSE;

    /* Right after a change of the list's own (a row measured again) whose
     * idle has not run yet, as on a loaded machine: the person's scroll
     * was taken for the list's, and after the Now page the view went back
     * to the newest message (timed out waiting for the first, 1 ui run in
     * a few under load; every run with this). */
    g_signal_emit_by_name (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (list_scroller (view))), "changed");
    g_signal_emit_by_name (list_scroller (view), "scroll-child", GTK_SCROLL_START, FALSE, &handled);
  }
  drawn.text = "Message 1";
  pd_test_wait_until (drawn_in_view, &drawn, "the first messages, scrolled to");
  pd_test_flush (view);
  {
    g_autoptr(JsonArray) more = numbered_messages (42);

    pd_test_db_save (db, id, more, 36, NULL);
  }
  pd_transcript_view_refresh (PD_TRANSCRIPT_VIEW (view));
  wait.n = 42;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  pd_test_flush (view);
  pd_test_spin (200);
  gtk_test_widget_wait_for_draw (view);
  g_assert_true (drawn_in_view (&drawn));
  drawn.text = "Message 41";
  g_assert_false (drawn_in_view (&drawn));

  pd_test_destroy_window (window, view);
}


/* A Qwen Code session of @n_calls todo_write calls (a call and its result
 * each: 2 × @n_calls + 1 messages), imported into @db. */
static char *
import_many_calls (PdTestDb   *db,
                   const char *dir,
                   guint       n_calls)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *chats = g_build_filename (dir, "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "s1.jsonl", NULL);
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  PdImportIndexStats stats;
  const char *head = "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"cwd\":\"/w\",";

  g_string_append_printf (text, "%s\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Go\"}]}}\n", head);
  for (guint i = 0; i < n_calls; i++)
    g_string_append_printf (text,
                            "%s\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":"
                            "\"Step %u\",\"status\":\"in_progress\"}]}}}]}}\n"
                            "%s\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                            "\"toolCallResult\":{\"callId\":\"c%u\",\"status\":\"success\"}}\n",
                            head, i, i, head, i, i);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
  info = pd_import_test_import_fresh (db->store, dir, &stats);
  return g_strdup (info->id);
}

static GtkWidget *
earlier_button (GtkWidget *view)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (buttons->pdata[i]), "Show Earlier Messages") == 0)
      return buttons->pdata[i];
  return NULL;
}

static gboolean
earlier_button_shown (gpointer user_data)
{
  GtkWidget *button = earlier_button (user_data);

  return button != NULL && gtk_widget_get_mapped (button) && gtk_widget_get_sensitive (button);
}

static guint
first_index (GtkWidget *view)
{
  g_autoptr(PdMessageItem) item = g_list_model_get_item (pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view)), 0);

  return pd_message_item_get_index (item);
}

/* Tried as an attacker would: a transcript of 300,000 plan calls held the
 * window at 1.7–3.8 GB, every message of it in the list.  A long one (over
 * the tail threshold, lowered here) shows its newest part and says how
 * many earlier messages are not shown; "Show Earlier Messages" reads the
 * part before it, above what is shown. */
static void
test_transcript_long_newest_part (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *id = NULL;
  g_autofree char *said = NULL;
  GtkWidget *view = pd_transcript_view_new ();
  GtkWidget *button;
  GtkWindow *window;
  PdTestCountWait wait;
  const guint n_calls = 300;
  const guint total = 2 * n_calls + 1;   /* 3 parts and one message */

  _pd_import_set_tail_limits (16 * 1024, 16 * 1024);
  id = import_many_calls (db, dir, n_calls);

  window = pd_test_show_session (view, db, id, 800, 600);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = PD_SESSION_READS_PART_MAX;
  pd_test_wait_until (pd_test_has_n_items, &wait, "the newest part");
  pd_test_wait_until (earlier_button_shown, view, "Show Earlier Messages");
  g_assert_cmpuint (first_index (view), ==, total - PD_SESSION_READS_PART_MAX);
  said = g_strdup_printf ("%u earlier messages not shown", total - PD_SESSION_READS_PART_MAX);
  g_assert_nonnull (pd_test_find_label_containing (view, said));
  pd_test_screenshot (GTK_WIDGET (window), "transcript-long-newest-part");

  /* The part before: above what is shown, and the count goes down. */
  button = earlier_button (view);
  gtk_widget_activate (button);
  wait.n = 2 * PD_SESSION_READS_PART_MAX;
  pd_test_wait_until (pd_test_has_n_items, &wait, "the part before");
  g_assert_cmpuint (first_index (view), ==, total - 2 * PD_SESSION_READS_PART_MAX);
  pd_test_wait_until (earlier_button_shown, view, "Show Earlier Messages again");

  /* The rest, a part at a time: all of it shown, the button gone. */
  gtk_widget_activate (earlier_button (view));
  wait.n = 3 * PD_SESSION_READS_PART_MAX;
  pd_test_wait_until (pd_test_has_n_items, &wait, "the third part");
  pd_test_wait_until (earlier_button_shown, view, "Show Earlier Messages for the first message");
  gtk_widget_activate (earlier_button (view));
  wait.n = total;
  pd_test_wait_until (pd_test_has_n_items, &wait, "the whole transcript");
  g_assert_cmpuint (first_index (view), ==, 0);
  g_assert_false (gtk_widget_get_mapped (earlier_button (view)));

  /* A refresh (the agent wrote on) keeps the earlier parts read. */
  pd_transcript_view_refresh (PD_TRANSCRIPT_VIEW (view));
  pd_test_spin (100);
  pd_test_wait_until (pd_test_has_n_items, &wait, "the whole transcript after a refresh");

  pd_test_destroy_window (window, view);
  _pd_import_set_tail_limits (0, 0);
  pd_test_remove_tree (dir);
}

static gboolean
read_once (gpointer user_data)
{
  return pd_session_view_get_n_reloads (user_data) == 1 && !pd_session_view_get_busy (user_data);
}

/* Opening a session read every page of the session view, shown or not.  A
 * page in another tab reads when it is first shown. */
static void
test_transcript_reads_when_shown (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(JsonArray) messages = numbered_messages (3);
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;

  pd_test_db_save (db, id, messages, 0, NULL);
  gtk_stack_add_named (GTK_STACK (stack), gtk_label_new ("Now"), "now");
  gtk_stack_add_named (GTK_STACK (stack), view, "transcript");
  window = pd_test_present (stack, 800, 600);
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "now");
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_test_spin (300);
  g_assert_cmpuint (pd_session_view_get_n_reloads (PD_SESSION_VIEW (view)), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view))), ==, 0);

  gtk_stack_set_visible_child_name (GTK_STACK (stack), "transcript");
  pd_test_wait_until (read_once, view, "the page read once shown");
  g_assert_cmpuint (g_list_model_get_n_items (pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view))), ==, 3);

  pd_test_destroy_window (window, view);
}

/* --- where the page opens, and stays ------------------------------------ */

/* @n messages of a few lines each, "Message 0" … numbered on their first. */
static JsonArray *
long_messages (guint n)
{
  JsonArray *messages = json_array_new ();

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("Message %u\n\nA paragraph the agent wrote about the parser, "
                                               "long enough to wrap on a line or two at this width.\n\n"
                                               "- a list item\n- another one", i);

      json_array_add_object_element (messages, pd_test_message (i % 2 ? "assistant" : "user", text));
    }
  return messages;
}

static gboolean
is_mapped_text_start (GtkWidget     *widget,
                      gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), data);
}

/* A label starting with @text is drawn inside the transcript's scroller. */
static gboolean
start_in_view (gpointer data)
{
  DrawnWait *wait = data;
  GtkWidget *scroller = list_scroller (wait->view);
  GtkWidget *label = pd_test_find_first (wait->view, is_mapped_text_start, wait->text);
  graphene_rect_t bounds;

  if (label == NULL || !gtk_widget_compute_bounds (label, scroller, &bounds))
    return FALSE;
  return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height (scroller);
}

/* Back on the page after another: the same messages drawn, frames on. */
static void
switch_away_and_back (GtkStack *stack)
{
  gtk_stack_set_visible_child_name (stack, "now");
  pd_test_flush (GTK_WIDGET (stack));
  pd_test_spin (100);
  gtk_stack_set_visible_child_name (stack, "transcript");
  pd_test_flush (GTK_WIDGET (stack));
  pd_test_spin (200);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (stack));
}

/* A long session's Transcript opens at its newest message, as a chat does;
 * it opened at its oldest.  Each session keeps where it was read, on a
 * switch to the Now page and back (it went back to its top) and to
 * another session and back (tried as a new user would).  With @data, the
 * scroll to the top is not animated: its one step lands before the list
 * is laid out there, as a loaded machine's last frame of it does (the
 * place kept was the message the view had shown before). */
static void
test_transcript_opens_at_newest (gconstpointer data)
{
  gboolean unanimated = GPOINTER_TO_INT (data);
  gboolean animations = TRUE;
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autofree char *other = pd_test_db_create_session (db, "Write the docs");
  g_autoptr(JsonArray) messages = long_messages (150);
  g_autoptr(JsonArray) few = numbered_messages (3);
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *view = pd_transcript_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  DrawnWait drawn = { view, "Message 149" };

  pd_test_db_save (db, id, messages, 0, NULL);
  pd_test_db_save (db, other, few, 0, NULL);
  gtk_stack_add_named (GTK_STACK (stack), gtk_label_new ("Now"), "now");
  gtk_stack_add_named (GTK_STACK (stack), view, "transcript");
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "transcript");
  window = pd_test_present (stack, 800, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  wait.n = 150;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  pd_test_wait_until (start_in_view, &drawn, "the newest message in view when opened");
  pd_test_screenshot (GTK_WIDGET (window), "transcript-opens-at-newest");

  /* The Now page and back: still the newest. */
  switch_away_and_back (GTK_STACK (stack));
  pd_test_wait_until (start_in_view, &drawn, "the newest message after the Now page");

  /* Read from the top (Ctrl+Home): there it stays, away and back. */
  g_object_get (gtk_settings_get_default (), "gtk-enable-animations", &animations, NULL);
  if (unanimated)
    g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  {
    gboolean handled = FALSE;

    g_signal_emit_by_name (list_scroller (view), "scroll-child", GTK_SCROLL_START, FALSE, &handled);
  }
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", animations, NULL);
  drawn.text = "Message 0";
  pd_test_wait_until (start_in_view, &drawn, "the first message, scrolled to");
  pd_test_flush (view);
  switch_away_and_back (GTK_STACK (stack));
  pd_test_wait_until (start_in_view, &drawn, "the first message after the Now page");
  drawn.text = "Message 149";
  g_assert_false (start_in_view (&drawn));

  /* Another session and back: where it was read. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), other);
  wait.n = 3;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.n = 150;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
  drawn.text = "Message 0";
  pd_test_wait_until (start_in_view, &drawn, "the first message again, back on the session");

  pd_test_destroy_window (window, stack);
}

/* --- an imported agent's plan calls ----------------------------------------- */

static gboolean
is_mapped_label_text (GtkWidget     *widget,
                      gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_equal (gtk_label_get_text (GTK_LABEL (widget)), data);
}

static gboolean
card_shown (gpointer data)
{
  return pd_test_find_first (data, is_mapped_label_text, "Checklist · 0/3 done") != NULL;
}

/* The last card: its title, and the cancelled glyph in it. */
static gboolean
is_cancelled_glyph (GtkWidget     *widget,
                    gconstpointer  data)
{
  return GTK_IS_IMAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (widget)), "list-remove-symbolic") == 0 &&
         g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Cancelled") == 0;
}

static gboolean
last_card_shown (gpointer data)
{
  return pd_test_find_first (data, is_mapped_label_text, "Checklist · 3/4 done") != NULL &&
         pd_test_find_first (data, is_cancelled_glyph, NULL) != NULL;
}

/* Tried as a new user would: the app's own sessions show their plan's card
 * where the plan tool was called; an imported session's Transcript showed
 * none at its TodoWrite, update_plan or write_todos.  The Gemini CLI
 * fixture's write_todos calls: each one the replay applied carries the list
 * it left (3, 4, 4 then 5 items), the one it ignored (its status "error")
 * none; the first is drawn as a card under its turn, a cancelled item with
 * the cancelled glyph in the last. */
static void
test_transcript_imported_plan_cards (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *lantern = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "gemini", "tmp", "lantern", "chats",
                                               "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  const char *paths[2] = { lantern, NULL };
  GtkWidget *view = pd_transcript_view_new ();
  GListModel *model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  g_autoptr(GString) versions = g_string_new (NULL);
  JsonObject *last_plan = NULL;
  guint last_position = 0;
  guint n_plain_calls = 0;
  GtkWindow *window;
  PdTestCountWait wait = { model, 0 };

  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  window = pd_test_present (view, 900, 700);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  pd_test_wait_until (card_shown, view, "the first list's card");

  wait.n = g_list_model_get_n_items (model);
  for (guint i = 0; i < wait.n; i++)
    {
      g_autoptr(PdMessageItem) item = g_list_model_get_item (model, i);
      JsonArray *calls = pd_message_item_get_tool_calls (item);

      for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
        {
          JsonObject *call = json_array_get_object_element (calls, j);
          JsonObject *function = json_object_get_object_member (call, "function");

          if (g_strcmp0 (json_object_get_string_member (function, "name"), "write_todos") != 0)
            continue;
          if (json_object_has_member (call, "plan"))
            {
              last_plan = json_object_get_object_member (call, "plan");
              last_position = i;
              g_string_append_printf (versions, "%u ",
                                      json_array_get_length (json_object_get_array_member (last_plan, "items")));
            }
          else
            n_plain_calls++;
        }
    }
  g_assert_cmpstr (versions->str, ==, "3 4 4 5 ");   /* the items of each list */
  g_assert_cmpuint (n_plain_calls, ==, 1);   /* the one with status "error" */
  g_assert_nonnull (last_plan);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (last_plan, "items")), ==, 5);

  /* The last card, scrolled to: 3 of 4 done, the cancelled item out of the
   * count with its glyph. */
  gtk_widget_activate_action (pd_test_find_widget (view, GTK_TYPE_LIST_VIEW), "list.scroll-to-item", "u",
                              last_position);
  pd_test_wait_until (last_card_shown, view, "the last list's card");
  pd_test_screenshot_sizes (window, "transcript-imported-plan-card");
  pd_test_destroy_window (window, view);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/transcript-view/shows-messages", test_transcript_shows_messages);
  g_test_add_func ("/pd/ui/transcript-view/plain-language", test_transcript_plain_language);
  g_test_add_func ("/pd/ui/transcript-view/grows-in-place", test_transcript_grows_in_place);
  g_test_add_func ("/pd/ui/transcript-view/empty-and-switch", test_transcript_empty_and_switch);
  g_test_add_func ("/pd/ui/transcript-view/model-outcomes", test_transcript_model_outcomes);
  g_test_add_func ("/pd/ui/transcript-view/bidi-shown", test_transcript_bidi_shown);
  g_test_add_func ("/pd/ui/transcript-view/follows-newest", test_transcript_follows_newest);
  g_test_add_data_func ("/pd/ui/transcript-view/opens-at-newest", GINT_TO_POINTER (FALSE),
                        test_transcript_opens_at_newest);
  g_test_add_data_func ("/pd/ui/transcript-view/opens-at-newest-unanimated", GINT_TO_POINTER (TRUE),
                        test_transcript_opens_at_newest);
  g_test_add_func ("/pd/ui/transcript-view/long-newest-part", test_transcript_long_newest_part);
  g_test_add_func ("/pd/ui/transcript-view/reads-when-shown", test_transcript_reads_when_shown);
  g_test_add_func ("/pd/ui/transcript-view/imported-plan-cards", test_transcript_imported_plan_cards);

  return g_test_run ();
}

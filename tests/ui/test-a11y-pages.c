/* test-a11y-pages.c: the Transcript, Events and History pages with the
 * keyboard alone and as a screen reader reads them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does.  A session with a
 * transcript (a folded system prompt, the task, a tool call and its
 * result) and a plan in two versions, and a session with nothing yet.
 * Keys are given as GTK gives them: the capture phase from the window down
 * to the focus widget, then the focus widget's shortcuts and each
 * ancestor's up to the window's, then the window's own move-focus.
 */
#define G_LOG_DOMAIN "test-a11y-pages"

#include "config.h"

#include <string.h>

#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-message-item.h"
#include "pd-message-row.h"
#include "pd-session-list.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"

typedef struct
{
  char *full;    /* a transcript and a plan */
  char *empty;   /* nothing yet */
} Sessions;

/* Tab from @start (or the window's first stop) goes on each time until it
 * comes round to a stop it met: no stop keeps it.  @keyval is Tab or Shift+Tab.
 * Returns the stops, in order. */
static GPtrArray *
assert_tab_goes_round (GtkWidget  *window,
                       GtkWidget  *start,
                       guint       keyval,
                       const char *where)
{
  GPtrArray *seen = g_ptr_array_new ();
  GdkModifierType mods = keyval == GDK_KEY_ISO_Left_Tab ? GDK_SHIFT_MASK : 0;

  if (start != NULL)
    g_assert_true (gtk_widget_grab_focus (start));
  else
    {
      gtk_root_set_focus (GTK_ROOT (window), NULL);
      g_assert_true (gtk_widget_child_focus (window, GTK_DIR_TAB_FORWARD));
    }
  start = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (start);
  g_ptr_array_add (seen, start);
  for (guint i = 0; i < 300; i++)
    {
      GtkWidget *before = gtk_root_get_focus (GTK_ROOT (window));
      GtkWidget *after;

      g_assert_true (pd_test_a11y_key_in (GTK_WINDOW (window), keyval, mods));
      pd_test_flush (window);
      after = gtk_root_get_focus (GTK_ROOT (window));
      if (after == NULL || after == before)
        {
          g_autofree char *path = pd_test_a11y_describe (before);

          g_error ("%s: %s from %s (stop %u) %s", where, mods ? "Shift+Tab" : "Tab", path, i + 1,
                   after == NULL ? "lost the focus" : "stayed on it");
        }
      /* Round: a list goes back in at the row it was left on, so the
       * round may close there rather than at @start. */
      if (g_ptr_array_find (seen, after, NULL))
        {
          g_test_message ("%s: %u stops, then round again", where, seen->len);
          return seen;
        }
      g_ptr_array_add (seen, after);
    }
  for (guint i = seen->len - 12; i < seen->len; i++)
    {
      g_autofree char *path = pd_test_a11y_describe (g_ptr_array_index (seen, i));

      g_test_message ("%s: stop %u: %s", where, i + 1, path);
    }
  g_error ("%s: Tab did not come round in 300 stops", where);
  return NULL;
}

static gboolean
any_inside (GPtrArray *stops,
            GtkWidget *within)
{
  for (guint i = 0; i < stops->len; i++)
    if (gtk_widget_is_ancestor (g_ptr_array_index (stops, i), within))
      return TRUE;
  return FALSE;
}

static gboolean
any_outside (GPtrArray *stops,
             GtkWidget *within)
{
  for (guint i = 0; i < stops->len; i++)
    if (!gtk_widget_is_ancestor (g_ptr_array_index (stops, i), within))
      return TRUE;
  return FALSE;
}

static void
show_page (PdWindow   *window,
           const char *page)
{
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), page);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
}

typedef struct
{
  PdWindow   *window;
  const char *id;
  guint       n_messages;
} OpenWait;

static gboolean
session_open (gpointer data)
{
  OpenWait *wait = data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (wait->window), PD_TYPE_SESSION_LIST));
  GtkWidget *transcript = pd_test_find_widget (GTK_WIDGET (wait->window), PD_TYPE_TRANSCRIPT_VIEW);
  PdSessionItem *item = pd_session_list_get_selected_item (list);

  return pd_test_a11y_window_settled (wait->window) && item != NULL &&
         g_strcmp0 (pd_session_view_get_session_id (PD_SESSION_VIEW (transcript)), wait->id) == 0 &&
         g_list_model_get_n_items (pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (transcript))) == wait->n_messages;
}

static void
open_session (PdWindow   *window,
              const char *id,
              guint       n_messages)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  OpenWait wait = { window, id, n_messages };

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  g_assert_true (pd_session_list_select (list, id));
  /* The transcript is read when its page is shown. */
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "transcript");
  pd_test_wait_until (session_open, &wait, "the session open with its transcript");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
}

static JsonObject *
assistant_with_call (const char *text,
                     const char *tool)
{
  JsonObject *message = pd_test_message ("assistant", text);
  JsonArray *calls = json_array_new ();
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();

  json_object_set_string_member (function, "name", tool);
  json_object_set_string_member (function, "arguments", "{\"command\":\"make check\"}");
  json_object_set_string_member (call, "id", "call_1");
  json_object_set_string_member (call, "type", "function");
  json_object_set_object_member (call, "function", function);
  json_array_add_object_element (calls, call);
  json_object_set_array_member (message, "tool_calls", calls);
  return message;
}

#define N_MESSAGES 5

static Sessions *
make_sessions (PdTestDb *db)
{
  Sessions *sessions = g_new0 (Sessions, 1);
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(PdPlanState) v1 = pd_test_sample_plan (1);
  g_autoptr(PdPlanState) v2 = pd_test_sample_plan (2);
  JsonObject *result;

  sessions->full = pd_test_db_create_session (db, "Fix the parser of the config loader");
  json_array_add_object_element (messages, pd_test_message ("system", "You are a careful coding agent.\nUse the plan tool.\nKeep the tests green."));
  json_array_add_object_element (messages, pd_test_message ("user", "Fix the parser of the config loader, then run every test we have"));
  json_array_add_object_element (messages, assistant_with_call ("Running the tests first.", "shell"));
  result = pd_test_message ("tool", "ok 1 - parser");
  json_object_set_string_member (result, "tool_call_id", "call_1");
  json_object_set_string_member (result, "name", "shell");
  json_array_add_object_element (messages, result);
  json_array_add_object_element (messages, assistant_with_call ("", "read_file"));
  pd_test_db_save (db, sessions->full, messages, 0, v1);
  pd_test_db_save (db, sessions->full, messages, N_MESSAGES, v2);
  /* Newer, so first in the list. */
  g_usleep (20000);
  sessions->empty = pd_test_db_create_session (db, "Nothing said yet");
  return sessions;
}

static void
sessions_free (Sessions *sessions)
{
  g_free (sessions->full);
  g_free (sessions->empty);
  g_free (sessions);
}

static int
run_pages (PdTestWindowFunc func)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  Sessions *sessions = make_sessions (db);
  const char *args[] = { "--db", db->path, NULL };
  int status = pd_test_run_app (args, func, sessions, NULL);

  sessions_free (sessions);
  return status;
}

/* --- 1, 2: Tab goes through the page and out ------------------------------- */

static GtkExpander *
system_prompt_expander (GtkWidget *view)
{
  g_autoptr(GPtrArray) expanders = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_EXPANDER, expanders);
  for (guint i = 0; i < expanders->len; i++)
    if (g_str_has_prefix (gtk_expander_get_label (g_ptr_array_index (expanders, i)), "System prompt"))
      return g_ptr_array_index (expanders, i);
  return NULL;
}

static void
check_tab_leaves (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  Sessions *sessions = user_data;
  GtkWidget *transcript = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_TRANSCRIPT_VIEW);
  GtkWidget *events = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  GtkExpander *fold;
  g_autoptr(GPtrArray) stops = NULL;
  g_autoptr(GPtrArray) back = NULL;

  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  open_session (window, sessions->full, N_MESSAGES);
  show_page (window, "transcript");
  fold = system_prompt_expander (transcript);
  g_assert_nonnull (fold);

  /* From the system prompt's fold, Tab goes on through the messages and
   * out of the page, and round to it again; Shift+Tab too. */
  stops = assert_tab_goes_round (GTK_WIDGET (window), GTK_WIDGET (fold), GDK_KEY_Tab, "transcript, from the system prompt");
  g_assert_true (any_inside (stops, transcript));
  g_assert_true (any_outside (stops, transcript));
  g_clear_pointer (&stops, g_ptr_array_unref);
  back = assert_tab_goes_round (GTK_WIDGET (window), GTK_WIDGET (fold), GDK_KEY_ISO_Left_Tab, "transcript, back from the system prompt");
  g_assert_true (any_outside (back, transcript));
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_Tab, "transcript");
  g_assert_true (g_ptr_array_find (stops, fold, NULL));
  g_clear_pointer (&stops, g_ptr_array_unref);

  /* The same session's Events and History. */
  show_page (window, "events");
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_Tab, "events");
  g_clear_pointer (&stops, g_ptr_array_unref);
  show_page (window, "history");
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_Tab, "history");
  g_clear_pointer (&stops, g_ptr_array_unref);

  /* An empty Transcript and Events page: Tab leaves them (it stayed on
   * the control before them). */
  open_session (window, sessions->empty, 0);
  show_page (window, "transcript");
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_Tab, "empty transcript");
  g_assert_false (any_inside (stops, transcript));
  g_clear_pointer (&stops, g_ptr_array_unref);
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_ISO_Left_Tab, "empty transcript, backwards");
  g_clear_pointer (&stops, g_ptr_array_unref);
  show_page (window, "events");
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_Tab, "empty events");
  g_clear_pointer (&stops, g_ptr_array_unref);
  stops = assert_tab_goes_round (GTK_WIDGET (window), NULL, GDK_KEY_ISO_Left_Tab, "empty events, backwards");
  (void) events;
}

static void
test_tab_leaves (void)
{
  g_assert_cmpint (run_pages (check_tab_leaves), ==, 0);
}

/* --- 3: History's rows are named where they take the focus --------------- */

static void
check_history_rows (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Sessions *sessions = user_data;
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  guint n_steps = 0, n_named = 0;

  open_session (window, sessions->full, N_MESSAGES);
  show_page (window, "history");
  pd_test_collect (history, GTK_TYPE_LIST_BOX_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      g_autofree char *name = NULL;
      g_autofree char *description = NULL;

      /* A row of a list that is one Tab stop takes the focus with the
       * arrows (pd-list-stop-util.c). */
      if (!gtk_widget_get_mapped (row) ||
          (!gtk_widget_get_focusable (row) && g_object_get_data (G_OBJECT (row), "pd-list-stop-row") == NULL))
        continue;
      name = pd_test_a11y_name (row);
      description = pd_test_a11y_description (row);
      g_test_message ("history row: \"%s\" (%s)", name ? name : "", description ? description : "");
      if (name == NULL || name[0] == '\0' || g_str_has_prefix (name, "Gtk"))
        {
          g_autofree char *path = pd_test_a11y_describe (row);

          g_error ("history: a row takes the focus unnamed: %s", path);
        }
      n_named++;
      if (g_str_has_prefix (name, "s2: Add the export subcommand"))
        {
          g_assert_cmpstr (description, ==, "In progress");
          n_steps++;
        }
      if (g_str_has_prefix (name, "s3: "))
        {
          g_assert_cmpstr (description, ==, "Blocked");
          n_steps++;
        }
    }
  g_assert_cmpuint (n_steps, ==, 2);
  g_assert_cmpuint (n_named, >=, 4);
}

static void
test_history_rows (void)
{
  g_assert_cmpint (run_pages (check_history_rows), ==, 0);
}

/* --- 4: messages named, Copy buttons told apart, F6 lands on one ---------- */

static const char * const message_names[N_MESSAGES] = {
  "System: You are a careful coding agent.",
  "User: Fix the parser of the config loader, then run every test we…",
  "Assistant: Running the tests first.",
  "Tool result, shell: ok 1 - parser",
  "Tool call: read_file",
};

static gboolean
focus_on_message (gpointer data)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (data));

  return focus != NULL && PD_IS_MESSAGE_ROW (focus);
}

static void
check_messages_named (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  Sessions *sessions = user_data;
  GtkWidget *transcript = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_TRANSCRIPT_VIEW);
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autoptr(GHashTable) copies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *focused = NULL;

  open_session (window, sessions->full, N_MESSAGES);
  show_page (window, "transcript");
  pd_test_collect (transcript, PD_TYPE_MESSAGE_ROW, rows);
  g_assert_cmpuint (rows->len, ==, N_MESSAGES);
  for (guint i = 0; i < rows->len; i++)
    {
      PdMessageRow *row = g_ptr_array_index (rows, i);
      guint index = pd_message_item_get_index (pd_message_row_get_item (row));
      GtkWidget *copy = NULL;
      g_autofree char *name = pd_test_a11y_name (GTK_WIDGET (row));
      g_autofree char *copy_name = NULL;
      g_autofree char *copy_description = NULL;
      g_autofree char *wanted = NULL;

      g_assert_cmpuint (index, <, N_MESSAGES);
      g_test_message ("message %u: \"%s\"", index, name ? name : "");
      g_assert_cmpstr (name, ==, message_names[index]);
      g_assert_true (gtk_widget_get_focusable (GTK_WIDGET (row)));

      {
        g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

        pd_test_collect (GTK_WIDGET (row), GTK_TYPE_BUTTON, buttons);
        for (guint j = 0; j < buttons->len && copy == NULL; j++)
          if (g_strcmp0 (gtk_button_get_icon_name (g_ptr_array_index (buttons, j)), "edit-copy-symbolic") == 0)
            copy = g_ptr_array_index (buttons, j);
      }
      g_assert_nonnull (copy);
      copy_name = pd_test_a11y_name (copy);
      copy_description = pd_test_a11y_description (copy);
      g_assert_cmpstr (copy_name, ==, "Copy Message");
      wanted = g_strdup_printf ("Copies the message “%s”", message_names[index]);
      g_assert_cmpstr (copy_description, ==, wanted);
      g_assert_true (g_hash_table_add (copies, g_strdup (copy_description)));
    }

  /* F6 from the session list lands on a message, named. */
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_focus_inside (list));
  g_assert_true (pd_test_a11y_key_in (GTK_WINDOW (window), GDK_KEY_F6, 0));
  pd_test_wait_until (focus_on_message, window, "the focus on a message");
  focused = pd_test_a11y_name (gtk_root_get_focus (GTK_ROOT (window)));
  g_test_message ("F6 landed on \"%s\"", focused);
  g_assert_nonnull (focused);

  /* And each time again, back from the list (the second landed on a Copy
   * button, the third on the system prompt's fold). */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *again = NULL;

      g_assert_true (pd_test_a11y_key_in (GTK_WINDOW (window), GDK_KEY_F6, 0));
      pd_test_flush (GTK_WIDGET (window));
      g_assert_true (pd_test_a11y_focus_inside (list));
      g_assert_true (pd_test_a11y_key_in (GTK_WINDOW (window), GDK_KEY_F6, 0));
      pd_test_wait_until (focus_on_message, window, "the focus on a message again");
      again = pd_test_a11y_name (gtk_root_get_focus (GTK_ROOT (window)));
      g_assert_cmpstr (again, ==, focused);
    }
}

static void
test_messages_named (void)
{
  g_assert_cmpint (run_pages (check_messages_named), ==, 0);
}

/* --- 5: a search's count is told ------------------------------------------ */

typedef struct
{
  GtkWidget  *list;
  const char *page;   /* of the list's stack */
  guint       n;      /* rows listed, on the "list" page */
} ListedWait;

static gboolean
search_listed (gpointer data)
{
  ListedWait *wait = data;
  GtkWidget *rows = pd_test_find_widget (wait->list, GTK_TYPE_LIST_VIEW);
  GtkStack *stack = GTK_STACK (gtk_widget_get_ancestor (rows, GTK_TYPE_STACK));

  if (g_strcmp0 (gtk_stack_get_visible_child_name (stack), wait->page) != 0)
    return FALSE;
  return !g_str_equal (wait->page, "list") ||
         g_list_model_get_n_items (G_LIST_MODEL (gtk_list_view_get_model (GTK_LIST_VIEW (rows)))) == wait->n;
}

/* The description a screen reader gets of the search field and of its
 * text, which holds the focus: the same, or the test fails. */
static char *
search_description (GtkWidget *entry)
{
  GtkWidget *text = GTK_WIDGET (gtk_editable_get_delegate (GTK_EDITABLE (entry)));
  g_autofree char *of_text = pd_test_a11y_description (text);
  char *of_entry = pd_test_a11y_description (entry);

  g_assert_cmpstr (of_text, ==, of_entry);
  return of_entry;
}

static void
check_search_told (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  Sessions *sessions = user_data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_SEARCH_ENTRY);
  ListedWait wait = { GTK_WIDGET (list), "list", 1 };
  g_autofree char *one = NULL;
  g_autofree char *none = NULL;
  g_autofree char *cleared = NULL;

  open_session (window, sessions->full, N_MESSAGES);
  pd_session_list_start_search (list);
  gtk_editable_set_text (GTK_EDITABLE (entry), "parser");
  pd_test_wait_until (search_listed, &wait, "one session found");
  one = search_description (entry);
  g_assert_cmpstr (one, ==, "1 session found");

  gtk_editable_set_text (GTK_EDITABLE (entry), "zzzq");
  wait.page = "empty";
  pd_test_wait_until (search_listed, &wait, "no session found");
  none = search_description (entry);
  g_assert_cmpstr (none, ==, "No sessions found");

  /* The search emptied: nothing to tell. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  wait.page = "list";
  wait.n = 2;
  pd_test_wait_until (search_listed, &wait, "every session listed");
  cleared = search_description (entry);
  g_assert_true (cleared == NULL || cleared[0] == '\0');
}

static void
test_search_told (void)
{
  g_assert_cmpint (run_pages (check_search_told), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/pages/tab-leaves", test_tab_leaves);
  g_test_add_func ("/pd/ui/a11y/pages/history-rows", test_history_rows);
  g_test_add_func ("/pd/ui/a11y/pages/messages-named", test_messages_named);
  g_test_add_func ("/pd/ui/a11y/pages/search-told", test_search_told);

  return g_test_run ();
}

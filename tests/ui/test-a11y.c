/* test-a11y.c: the window as a screen reader and a keyboard meet it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The names: keyboard use is in test-a11y-keyboard.c, contrast and large
 * text in test-a11y-layout.c, the helpers they share in pd-test-a11y.c.
 *
 * Runs with GTK_A11Y=test, so every widget carries the accessible
 * properties and relations GTK 4.8's AT-SPI backend reads; the names are
 * computed the way that backend computes them (pd-test-a11y.c). Each page
 * of the main window, with every kind of session of the showcase, and each
 * dialog is walked: any control a person can reach (focusable, or with a
 * control's role) must have a name that is not empty and not its class.
 */
#define G_LOG_DOMAIN "test-a11y"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-entry-row.h"
#include "pd-event.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-new-session-dialog.h"
#include "pd-now-view.h"
#include "pd-plan-row.h"
#include "pd-session-row.h"
#include "pd-run-controller.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-model.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"

static GtkWindow *
open_dialog (PdWindow   *window,
             const char *action,
             GType       type)
{
  GtkWindow *dialog;

  gtk_widget_activate_action (GTK_WIDGET (window), action, NULL);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (type), action);
  dialog = pd_test_mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

static gboolean
walk_pages (PdWindow   *window,
            const char *session)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  gboolean all_named = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *where = g_strdup_printf ("%s, page %s", session, pages[i]);
      guint n_controls = 0;
      g_autoptr(GPtrArray) unnamed = NULL;

      adw_view_stack_set_visible_child_name (views, pages[i]);
      pd_test_flush (GTK_WIDGET (window));
      unnamed = pd_test_a11y_unnamed (GTK_WIDGET (window), &n_controls);
      g_test_message ("%s: %u controls, %u unnamed", where, n_controls, unnamed->len);
      for (guint j = 0; j < unnamed->len; j++)
        g_test_message ("  unnamed: %s", (char *) g_ptr_array_index (unnamed, j));
      all_named = all_named && unnamed->len == 0;
    }
  adw_view_stack_set_visible_child_name (views, "now");
  return all_named;
}

static void
check_window_names (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GListModel *model;
  gboolean all_named = TRUE;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* The search field, open. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  pd_test_flush (GTK_WIDGET (window));

  /* Every page of every kind of session the showcase holds: running with
   * a blocked step, failed, done, imported from two agents, without a plan. */
  model = G_LIST_MODEL (pd_session_list_get_model (list));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      g_autofree char *id = g_strdup (pd_session_item_get_id (item));
      g_autofree char *title = g_strdup (pd_session_item_get_title (item));

      g_assert_true (pd_session_list_select (list, id));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      all_named = walk_pages (window, title) && all_named;
    }

  /* The Overview, the window's home, with the showcase's cards. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (window));
  {
    guint n_controls = 0;
    g_autoptr(GPtrArray) unnamed = pd_test_a11y_unnamed (GTK_WIDGET (window), &n_controls);

    g_test_message ("Overview: %u controls, %u unnamed", n_controls, unnamed->len);
    for (guint j = 0; j < unnamed->len; j++)
      g_test_message ("  unnamed: %s", (char *) g_ptr_array_index (unnamed, j));
    all_named = all_named && unnamed->len == 0;
  }
  g_assert_true (all_named);
}

static void
test_names_window (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_window_names, NULL), ==, 0);
}

static void
count_start (guint *started)
{
  (*started)++;
}

static void
expand_all (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_EXPANDER_ROW (child))
        adw_expander_row_set_expanded (ADW_EXPANDER_ROW (child), TRUE);
      expand_all (child);
    }
}

/* The pages the window switches between (its view stack's). */
static void
collect_pages (GtkWidget *root,
               GPtrArray *pages)
{
  GtkWidget *stack = pd_test_find_widget (root, ADW_TYPE_VIEW_STACK);
  g_autoptr(GtkSelectionModel) model = adw_view_stack_get_pages (ADW_VIEW_STACK (stack));

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (model), i);
      GtkWidget *child = adw_view_stack_page_get_child (page);

      if (ADW_IS_PREFERENCES_PAGE (child))
        g_ptr_array_add (pages, child);
    }
}

/* A key or a token is typed in a masked field, "password text" to AT-SPI. */
static void
assert_secrets_masked (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (PD_IS_ENTRY_ROW (child))
        {
          const char *title = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child));
          gboolean secret = (strstr (title, "Key") != NULL && strstr (title, "Variable") == NULL) ||
                            strstr (title, "Token") != NULL;

          g_assert_true (GTK_IS_PASSWORD_ENTRY (pd_entry_row_get_entry (PD_ENTRY_ROW (child))) == secret);

          /* Shift+Tab leaves the field (it came back to it: the row took
           * the focus and gave it to its field, tried with a screen
           * reader's view). */
          if (gtk_widget_get_mapped (child))
            {
              GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (child));
              GtkWidget *focus;

              g_assert_true (gtk_widget_grab_focus (pd_entry_row_get_entry (PD_ENTRY_ROW (child))));
              gtk_widget_child_focus (window, GTK_DIR_TAB_BACKWARD);
              focus = gtk_root_get_focus (GTK_ROOT (window));
              g_assert_true (focus == NULL || !gtk_widget_is_ancestor (focus, child));
            }
        }
      assert_secrets_masked (child);
    }
}

static gboolean
is_add_profile (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) &&
         g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Add Profile") == 0;
}

/* Every page of Preferences, a provider profile open on Providers: its
 * text fields (AdwEntryRow on libadwaita 1.2, whose text no screen reader
 * found) are each a text box named by its row. */
static void
check_preferences_fields (PdWindow *window)
{
  GtkWindow *dialog = open_dialog (window, "win.preferences", ADW_TYPE_PREFERENCES_WINDOW);
  g_autoptr(GPtrArray) pages = g_ptr_array_new ();
  GtkWidget *add = pd_test_find_first (GTK_WIDGET (dialog), is_add_profile, NULL);

  g_assert_nonnull (add);
  g_signal_emit_by_name (add, "clicked");
  collect_pages (GTK_WIDGET (dialog), pages);
  g_assert_cmpuint (pages->len, >=, 3);
  for (guint i = 0; i < pages->len; i++)
    {
      AdwPreferencesPage *page = g_ptr_array_index (pages, i);
      g_autofree char *where = g_strdup_printf ("Preferences, page %s",
                                                adw_preferences_page_get_title (page));

      adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (dialog), page);
      expand_all (GTK_WIDGET (page));
      pd_test_flush (GTK_WIDGET (dialog));
      pd_test_a11y_assert_named (GTK_WIDGET (dialog), where);
    }
  assert_secrets_masked (GTK_WIDGET (dialog));
  gtk_window_destroy (dialog);
}

static gboolean
is_provider_row (GtkWidget     *widget,
                 gconstpointer  data)
{
  return ADW_IS_COMBO_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), "Provider") == 0;
}

static void
check_dialog_names (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");

  dialog = open_dialog (window, "win.preferences", ADW_TYPE_PREFERENCES_WINDOW);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Preferences");
  /* Each profile's Remove button names its profile: three alike said only
   * "Remove Profile". */
  {
    g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
    g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    guint n_remove = 0;

    pd_test_collect (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, buttons);
    for (guint i = 0; i < buttons->len; i++)
      {
        GtkWidget *button = g_ptr_array_index (buttons, i);
        char *name;

        if (g_strcmp0 (gtk_button_get_label (GTK_BUTTON (button)), "_Remove Profile") != 0)
          continue;
        name = pd_test_a11y_name (button);
        g_test_message ("profile's remove button: “%s”", name);
        g_assert_true (g_str_has_prefix (name, "Remove Profile “"));
        g_assert_true (g_str_has_suffix (name, "”"));
        g_assert_false (g_hash_table_contains (names, name));
        /* Its row, untitled, is named as it is (it was "GtkLabel"). */
        {
          g_autofree char *row = pd_test_a11y_name (gtk_widget_get_ancestor (button, ADW_TYPE_ACTION_ROW));

          g_test_message ("its row: “%s”", row);
          g_assert_cmpstr (row, ==, name);
        }
        g_hash_table_add (names, name);
        n_remove++;
      }
    g_assert_cmpuint (n_remove, >=, 2);
  }
  pd_test_screenshot_sizes (dialog, "a11y-preferences");
  gtk_window_destroy (dialog);
  check_preferences_fields (window);

  /* Connect to Endpoint: its token field's Caps Lock warning, met once
   * Caps Lock is on, had no name; each response met once. */
  dialog = open_dialog (window, "win.connect-endpoint", ADW_TYPE_MESSAGE_DIALOG);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Connect to Endpoint");
  pd_test_a11y_assert_once (GTK_WIDGET (dialog), "Connect to Endpoint");
  gtk_window_destroy (dialog);

  dialog = open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "New Session");
  /* It opens on the task: typing goes there. */
  g_assert_true (GTK_IS_TEXT_VIEW (gtk_root_get_focus (GTK_ROOT (dialog))));
  /* The recording's field, shown for a replay. */
  {
    GtkWidget *kind = pd_test_find_first (GTK_WIDGET (dialog), is_provider_row, NULL);
    guint before;

    g_assert_nonnull (kind);
    before = adw_combo_row_get_selected (ADW_COMBO_ROW (kind));
    adw_combo_row_set_selected (ADW_COMBO_ROW (kind), 2);
    pd_test_flush (GTK_WIDGET (dialog));
    pd_test_a11y_assert_named (GTK_WIDGET (dialog), "New Session, a replay");
    assert_secrets_masked (GTK_WIDGET (dialog));
    adw_combo_row_set_selected (ADW_COMBO_ROW (kind), before);
    pd_test_flush (GTK_WIDGET (dialog));
  }
  pd_test_screenshot_sizes (dialog, "a11y-new-session");
  gtk_window_destroy (dialog);

  /* Ctrl+Enter in the task starts (Tab to Start was the only way), in a
   * dialog of its own: the window's would start a run. */
  {
    GtkWindow *own = GTK_WINDOW (pd_new_session_dialog_new (GTK_WINDOW (window)));
    GtkWidget *task;
    guint started = 0;

    g_object_ref (own);
    gtk_window_present (own);
    pd_test_flush (GTK_WIDGET (own));
    task = gtk_root_get_focus (GTK_ROOT (own));
    g_assert_true (GTK_IS_TEXT_VIEW (task));
    gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (task)), "Say hello", -1);
    g_signal_connect_swapped (own, "start", G_CALLBACK (count_start), &started);
    g_assert_true (pd_test_a11y_press (task, GDK_KEY_Return, GDK_CONTROL_MASK));
    g_assert_cmpuint (started, ==, 1);
    g_object_unref (own);
  }

  /* About and the shortcuts window: libadwaita's and GTK's dialogs, with
   * what Plandeck puts in them. */
  dialog = open_dialog (window, "app.about", ADW_TYPE_ABOUT_WINDOW);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "About");
  gtk_window_destroy (dialog);

  dialog = open_dialog (window, "win.show-help-overlay", GTK_TYPE_SHORTCUTS_WINDOW);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Keyboard Shortcuts");
  gtk_window_destroy (dialog);
}

static void
test_names_dialogs (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_dialog_names, NULL), ==, 0);
}

/* --- rows ---------------------------------------------------------------- */

static gboolean
is_named (GtkWidget     *widget,
          gconstpointer  name)
{
  g_autofree char *own = NULL;

  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  own = pd_test_a11y_name (widget);
  return g_strcmp0 (own, name) == 0;
}

/* The mapped row of the session @data. */
static gboolean
is_session_row (GtkWidget     *widget,
                gconstpointer  data)
{
  return PD_IS_SESSION_ROW (widget) && gtk_widget_get_mapped (widget) &&
         pd_session_row_get_item (PD_SESSION_ROW (widget)) == data;
}

static void
assert_contains (const char *text,
                 const char *part)
{
  if (text == NULL || strstr (text, part) == NULL)
    g_error ("“%s” does not say “%s”", text ? text : "(null)", part);
}

static void
check_rows (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  PdSessionItem *item;
  GtkWidget *row;
  GtkWidget *history;
  g_autofree char *description = NULL;
  g_autoptr(GPtrArray) images = g_ptr_array_new ();
  guint n_change_icons = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* The session row: its title as the name; status, agent, time and
   * "1 of 4 steps done, 1 blocked" (only in a tooltip before) as the
   * description, status after the title. */
  item = pd_session_list_get_selected_item (list);
  g_assert_nonnull (item);
  row = pd_test_find_first (GTK_WIDGET (list), is_session_row, item);
  g_assert_true (PD_IS_SESSION_ROW (row));
  g_assert_true (is_named (row, pd_session_item_get_title (item)));
  description = pd_test_a11y_description (row);
  g_test_message ("session row: “%s”, “%s”", pd_session_item_get_title (item), description);
  g_assert_true (g_str_has_prefix (description, pd_session_item_get_status_label (item)));
  assert_contains (description, pd_session_item_get_source_label (item));
  assert_contains (description, "1 of 4 steps done, 1 blocked");
  /* It is pinned, which only its place at the top showed. */
  g_assert_true (pd_session_item_get_pinned (item));
  assert_contains (description, ", Pinned, ");
  /* The list item around it takes the focus: a screen reader says its
   * name, and it had none. */
  {
    g_autofree char *item_name = pd_test_a11y_name (gtk_widget_get_parent (row));
    g_autofree char *item_description = pd_test_a11y_description (gtk_widget_get_parent (row));

    g_assert_cmpstr (item_name, ==, pd_session_item_get_title (item));
    g_assert_cmpstr (item_description, ==, description);
  }

  /* A step row of the Now page: "s3: title", then its status, note and
   * checks (tool and arguments were only in tooltips of unfocusable chips). */
  row = pd_test_find_first (GTK_WIDGET (window), is_named, "s3: Document the export format");
  g_assert_true (PD_IS_PLAN_ROW (row));
  g_clear_pointer (&description, g_free);
  description = pd_test_a11y_description (row);
  g_test_message ("step row: “s3: Document the export format”, “%s”", description);
  assert_contains (description, pd_plan_step_status_label (PD_PLAN_STEP_BLOCKED));
  assert_contains (description, "Waiting for the format to be agreed on");
  assert_contains (description, "man page builds");
  assert_contains (description, "make -C docs man");

  /* History: steps named the same way, changes in words, not the diff's
   * ids ("check_evidence", "step_status"). */
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  pd_test_flush (GTK_WIDGET (window));
  history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  g_assert_nonnull (pd_test_find_first (history, is_named, "s3: Document the export format"));
  /* Each version in the list, which takes the focus, says which one
   * (a list item GTK 4.8 names nothing: it said nothing). */
  {
    GtkWidget *versions = pd_test_find_widget (history, GTK_TYPE_LIST_VIEW);
    guint n_versions = 0;

    for (GtkWidget *child = gtk_widget_get_first_child (versions); child != NULL;
         child = gtk_widget_get_next_sibling (child))
      {
        g_autofree char *name = NULL;

        if (!gtk_widget_get_mapped (child) ||
            gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (child)) != GTK_ACCESSIBLE_ROLE_LIST_ITEM)
          continue;
        name = pd_test_a11y_name (child);
        g_test_message ("History version: “%s”", name);
        if (name[0] != 'v' || !g_ascii_isdigit (name[1]))
          g_error ("a History version is named “%s”", name);
        n_versions++;
      }
    g_assert_cmpuint (n_versions, >=, 1);
  }
  pd_test_collect (history, GTK_TYPE_IMAGE, images);
  for (guint i = 0; i < images->len; i++)
    {
      g_autofree char *name = pd_test_a11y_name (g_ptr_array_index (images, i));

      if (!gtk_widget_get_mapped (g_ptr_array_index (images, i)) || g_str_equal (name, "GtkImage"))
        continue;
      n_change_icons++;
      if (strchr (name, '_') != NULL)
        g_error ("a History icon says the id “%s”", name);
    }
  g_test_message ("History: %u named icons", n_change_icons);
  g_assert_cmpuint (n_change_icons, >, 0);

  /* The Events page's type filter is named once: it was "Event type Type",
   * its name and then the mnemonic label beside it. */
  {
    GtkWidget *events = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
    GtkWidget *drop_down = pd_test_find_widget (events, GTK_TYPE_DROP_DOWN);
    g_autofree char *name = pd_test_a11y_name (drop_down);
    g_autofree char *button_name = pd_test_a11y_name (gtk_widget_get_first_child (drop_down));

    g_test_message ("Events type filter: “%s”, its button “%s”", name, button_name);
    g_assert_cmpstr (name, ==, "Event type");
    g_assert_cmpstr (button_name, ==, "Event type");
  }
}

static void
test_rows (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_rows, NULL), ==, 0);
}

/* --- dialogs of a run ---------------------------------------------------- */

typedef struct
{
  char      *dir;
  char      *db;
  char      *project;
  char      *replay;
  gboolean   finished;
  GPtrArray *activities;
} RunFixture;

static RunFixture *
run_fixture_new (const char *replay_json)
{
  RunFixture *fixture = g_new0 (RunFixture, 1);

  fixture->dir = pd_test_make_tmp_dir ();
  fixture->db = g_build_filename (fixture->dir, "sessions.db", NULL);
  fixture->project = g_build_filename (fixture->dir, "project", NULL);
  fixture->replay = g_build_filename (fixture->dir, "replay.json", NULL);
  fixture->activities = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (g_mkdir (fixture->project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fixture->replay, replay_json, -1, NULL));
  g_object_unref (pd_test_open_store (fixture->db));
  return fixture;
}

static void
run_fixture_free (RunFixture *fixture)
{
  g_ptr_array_unref (fixture->activities);
  g_free (fixture->replay);
  g_free (fixture->project);
  g_free (fixture->db);
  g_free (fixture->dir);
  g_free (fixture);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RunFixture, run_fixture_free)

static void
on_run_finished (PdRunController *runs,
                 int              status,
                 const char      *message,
                 RunFixture      *fixture)
{
  fixture->finished = TRUE;
}

static void
on_run_activity (PdRunController *runs,
                 GParamSpec      *pspec,
                 RunFixture      *fixture)
{
  if (pd_run_controller_get_activity (runs) != NULL)
    g_ptr_array_add (fixture->activities, g_strdup (pd_run_controller_get_activity (runs)));
}

static gboolean
run_finished (gpointer data)
{
  return ((RunFixture *) data)->finished;
}

static void
start_replay (PdWindow   *window,
              RunFixture *fixture,
              const char *prompt)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (fixture->replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = PD_APPROVAL_POLICY_ASK;
  settings->planning = TRUE;
  g_signal_connect (runs, "finished", G_CALLBACK (on_run_finished), fixture);
  g_signal_connect (runs, "notify::activity", G_CALLBACK (on_run_activity), fixture);
  g_assert_true (pd_run_controller_start (runs, settings, prompt, &error));
  g_assert_no_error (error);
}

static gboolean
activities_contain (RunFixture *fixture,
                    const char *text)
{
  for (guint i = 0; i < fixture->activities->len; i++)
    if (g_strcmp0 (g_ptr_array_index (fixture->activities, i), text) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
focus_on_default (gpointer data)
{
  GtkWindow *dialog = data;

  return gtk_window_get_default_widget (dialog) != NULL &&
         gtk_root_get_focus (GTK_ROOT (dialog)) == gtk_window_get_default_widget (dialog);
}

static void
assert_event_rows_named (PdWindow *window)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  GtkWidget *table = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autofree char *tool_started = g_strdup_printf ("%s: ", _pd_event_type_label ("tool_call_started"));
  guint n_tool_started = 0;

  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "events");
  pd_test_flush (GTK_WIDGET (window));
  /* The header row says what it is, by the column titles (it had no name:
   * a screen reader said "row"). Compact, at large text, it is hidden. */
  if (!pd_events_view_get_compact (PD_EVENTS_VIEW (view)))
    {
      GtkWidget *header = gtk_widget_get_first_child (table);
      g_autofree char *name = pd_test_a11y_name (header);

      g_test_message ("Events header row: “%s”", name);
      g_assert_true (pd_test_a11y_is_row (header, NULL));
      if (g_str_has_prefix (name, "Gtk") || strstr (name, "Time") == NULL || strstr (name, "Tool") == NULL)
        g_error ("the Events header row is named “%s”, not by its column titles", name);
    }
  else
    g_test_message ("Events: compact, no header row");
  /* The rows of its list. */
  pd_test_a11y_collect_rows (pd_test_find_widget (table, GTK_TYPE_LIST_VIEW), rows);
  g_assert_cmpuint (rows->len, >=, 5);
  for (guint i = 0; i < rows->len; i++)
    {
      g_autofree char *name = pd_test_a11y_name (g_ptr_array_index (rows, i));

      g_test_message ("Events row: “%s”", name);
      if (g_str_has_prefix (name, "Gtk") || strstr (name, ", ") == NULL || !g_ascii_isdigit (name[0]))
        g_error ("an Events row is named “%s”, not “time, type: summary”", name);
      if (strstr (name, tool_started) != NULL && strstr (name, "shell") != NULL)
        n_tool_started++;
    }
  g_assert_cmpuint (n_tool_started, >, 0);
}

/* A planned run with a tool call: the approval dialog, then every page. */
static const char *replay_shell =
  "{\"label\": \"test: a11y\", \"turns\": ["
  " {\"content\": \"Planning.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "   {\"id\": \"look\", \"title\": \"Look at the files\"}, {\"id\": \"say\", \"title\": \"Say hello\"}]}}]},"
  " {\"content\": \"Looking.\", \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Saying it.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hello > said.txt\"}}]},"
  " {\"content\": \"Done.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"update\", \"updates\": ["
  "   {\"id\": \"look\", \"status\": \"done\"}, {\"id\": \"say\", \"status\": \"blocked\", \"note\": \"Not allowed\"}]}}]},"
  " {\"content\": \"I could not say it.\"}]}";

static gboolean
default_sensitive (gpointer data)
{
  GtkWidget *button = gtk_window_get_default_widget (data);

  return button != NULL && gtk_widget_is_sensitive (button);
}

static gboolean
is_drawn_button (GtkWidget     *widget,
                 gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static void
check_run_dialogs (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  g_autofree char *said = g_build_filename (fixture->project, "said.txt", NULL);

  start_replay (window, fixture, "Say hello");

  /* The approval: every control named; Enter (the window's default
   * action) denies, it never runs the command. */
  dialog = pd_test_a11y_wait_for_message_dialog ("the approval dialog");
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Approval");
  pd_test_a11y_assert_once (GTK_WIDGET (dialog), "Approval");
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), !=, "once");
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), !=, "always");
  /* What has the focus takes Enter: once laid out, the dialog's default
   * (never Approve Once or Always). */
  pd_test_wait_until (focus_on_default, dialog, "the focus on the default response");
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (dialog));
    const char *label = GTK_IS_BUTTON (focus) ? gtk_button_get_label (GTK_BUTTON (focus)) : NULL;

    g_test_message ("the approval opens with the focus on %s “%s”",
                    focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing", label ? label : "");
    g_assert_cmpstr (label, !=, "_Approve Once");
    g_assert_cmpstr (label, !=, "Always for This _Session");
    /* The focus is drawn: what Enter does is seen before it is pressed. */
    g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (dialog)));
  }
  pd_test_screenshot_sizes (GTK_WINDOW (dialog), "a11y-approval");
  /* Each response met once, its buttons in a column (narrow) or in a
   * row (wide): the other layout's were met too, never drawn. */
  {
    int width = gtk_widget_get_width (GTK_WIDGET (dialog));
    GtkWidget *narrow_deny;

    gtk_window_set_default_size (GTK_WINDOW (dialog), 360, -1);
    for (guint i = 0; i < 3; i++)
      pd_test_flush (GTK_WIDGET (dialog));
    pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Approval at 360 px");
    pd_test_a11y_assert_once (GTK_WIDGET (dialog), "Approval at 360 px");
    narrow_deny = pd_test_find_first (GTK_WIDGET (dialog), is_drawn_button, "_Deny");
    gtk_window_set_default_size (GTK_WINDOW (dialog), 1000, -1);
    for (guint i = 0; i < 3; i++)
      pd_test_flush (GTK_WIDGET (dialog));
    pd_test_a11y_assert_once (GTK_WIDGET (dialog), "Approval at 1000 px");
    /* The other layout's buttons drawn now. */
    g_assert_nonnull (narrow_deny);
    g_assert_true (pd_test_find_first (GTK_WIDGET (dialog), is_drawn_button, "_Deny") != narrow_deny);
    gtk_window_set_default_size (GTK_WINDOW (dialog), width, -1);
    for (guint i = 0; i < 3; i++)
      pd_test_flush (GTK_WIDGET (dialog));
  }
  /* Enter once the dialog's guard lets its responses answer. */
  pd_test_wait_until (default_sensitive, dialog, "the dialog's guard to end");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (dialog), "default.activate", NULL));

  pd_test_wait_until (run_finished, fixture, "the run to end");
  g_assert_false (g_file_test (said, G_FILE_TEST_EXISTS));
  g_assert_true (activities_contain (fixture, "Not allowed: shell: echo hello > said.txt"));

  /* The run's session, with its tool calls, events and plan versions. */
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (walk_pages (window, "after the run"));

  /* The Events rows are one Tab stop (each event was one). */
  pd_test_a11y_assert_one_tab_stop (window, "events", PD_TYPE_EVENTS_VIEW, GTK_TYPE_COLUMN_VIEW);

  /* Each Events row is named "time, type: summary" (it said its class). */
  assert_event_rows_named (window);
}

static void
test_run_dialogs (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_shell);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_run_dialogs, fixture, NULL), ==, 0);
}

/* Plan mode's review: Enter in the feedback sends it (Keep Planning). */
static const char *replay_review =
  "{\"label\": \"test: a11y review\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy the README\\n\\n- read it\\n\"}}]},"
  " {\"content\": \"I will say which line.\"}]}";

static void
check_review (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  GtkWidget *feedback;
  GtkEditable *text;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  gboolean feedback_sent = FALSE;

  start_replay (window, fixture, "/plan Tidy the README");
  dialog = pd_test_a11y_wait_for_message_dialog ("the plan review");
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Plan review");

  feedback = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  gtk_widget_grab_focus (feedback);
  gtk_editable_set_text (GTK_EDITABLE (feedback), "Say which line");
  pd_test_wait_until (default_sensitive, dialog, "the review's guard to end");
  /* Enter in the field: the signal its GtkText binds to the key. */
  text = gtk_editable_get_delegate (GTK_EDITABLE (feedback));
  g_assert_true (GTK_IS_TEXT (text));
  g_signal_emit_by_name (text, "activate");

  pd_test_wait_until (run_finished, fixture, "the run to end");
  store = pd_test_open_store (fixture->db);
  messages = pd_session_store_load_messages (store, pd_run_controller_get_session_id (runs), &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "role", ""), "tool") == 0 &&
          strstr (json_object_get_string_member_with_default (message, "content", ""), "Say which line") != NULL)
        feedback_sent = TRUE;
    }
  g_assert_true (feedback_sent);
}

static void
test_review (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_review);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_review, fixture, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/names/window", test_names_window);
  g_test_add_func ("/pd/ui/a11y/names/dialogs", test_names_dialogs);
  g_test_add_func ("/pd/ui/a11y/rows", test_rows);
  g_test_add_func ("/pd/ui/a11y/run-dialogs", test_run_dialogs);
  g_test_add_func ("/pd/ui/a11y/plan-review-enter", test_review);

  return g_test_run ();
}

/* test-a11y-dialogs.c: New Session, Preferences and the drop-downs as a
 * screen reader and a keyboard meet them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does, on the showcase database.
 * Each finding here was read over AT-SPI first (a screen reader's view):
 * the open list of a drop-down, the role of a dialog's window, the Tab
 * stops of a switch row, the expanded state of a profile.
 */
#define G_LOG_DOMAIN "test-a11y-dialogs"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-events-view.h"
#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-run-controller.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

/* A name that is a class's ("GtkSwitch") or none. */
static gboolean
name_is_class (const char *name)
{
  return name == NULL || *name == '\0' || g_str_has_prefix (name, "Gtk") || g_str_has_prefix (name, "Adw");
}

static gboolean
has_list_items (gpointer data)
{
  GtkWidget *popover = data;
  GtkWidget *list = pd_test_find_widget (popover, GTK_TYPE_LIST_VIEW);

  return list != NULL && gtk_widget_get_mapped (list) && gtk_widget_get_first_child (list) != NULL &&
         gtk_widget_get_mapped (gtk_widget_get_first_child (list));
}

static gboolean
is_choice_owner (GtkWidget     *widget,
                 gconstpointer  data)
{
  return (ADW_IS_COMBO_ROW (widget) || GTK_IS_DROP_DOWN (widget)) && gtk_widget_get_mapped (widget);
}

static gboolean
has_mapped_choice (gpointer root)
{
  return pd_test_find_first (root, is_choice_owner, NULL) != NULL;
}

/* Opens the list of each shown drop-down below @root, as Enter on it
 * does, and walks it: each choice has a name a screen reader says.
 * Returns how many were opened. */
static guint
check_choices (GtkWidget  *root,
               const char *where)
{
  g_autoptr(GPtrArray) owners = g_ptr_array_new ();
  guint n_lists = 0;

  {
    g_autoptr(GPtrArray) rows = g_ptr_array_new ();
    g_autoptr(GPtrArray) drops = g_ptr_array_new ();

    pd_test_collect (root, ADW_TYPE_COMBO_ROW, rows);
    pd_test_collect (root, GTK_TYPE_DROP_DOWN, drops);
    g_ptr_array_extend_and_steal (owners, g_steal_pointer (&rows));
    g_ptr_array_extend_and_steal (owners, g_steal_pointer (&drops));
  }
  for (guint i = 0; i < owners->len; i++)
    {
      GtkWidget *owner = g_ptr_array_index (owners, i);
      GtkWidget *popover = pd_test_find_widget (owner, GTK_TYPE_POPOVER);
      g_autofree char *name = pd_test_a11y_name (owner);
      g_autofree char *place = g_strdup_printf ("%s, the open list of “%s”", where, name);

      if (!is_choice_owner (owner, NULL))
        continue;
      g_assert_nonnull (popover);
      /* As from the keyboard: focused (scrolled to), then opened. */
      gtk_widget_grab_focus (owner);
      pd_test_flush (owner);
      pd_test_spin (100);
      gtk_popover_popup (GTK_POPOVER (popover));
      pd_test_wait_until (has_list_items, popover, place);
      pd_test_flush (popover);
      pd_test_a11y_assert_named (popover, place);
      gtk_popover_popdown (GTK_POPOVER (popover));
      pd_test_flush (owner);
      n_lists++;
    }
  return n_lists;
}

static void
expand_all (GtkWidget *root)
{
  g_autoptr(GPtrArray) expanders = g_ptr_array_new ();

  pd_test_collect (root, ADW_TYPE_EXPANDER_ROW, expanders);
  for (guint i = 0; i < expanders->len; i++)
    adw_expander_row_set_expanded (g_ptr_array_index (expanders, i), TRUE);
  pd_test_flush (root);
}

/* --- the choices of drop-downs ----------------------------------------------- */

static void
check_drop_down_choices (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  GtkWindow *dialog;
  GtkWidget *events;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");

  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  /* Profile, Provider and Changes (once shown). */
  pd_test_wait_until (has_mapped_choice, dialog, "New Session's drop-downs");
  g_assert_cmpuint (check_choices (GTK_WIDGET (dialog), "New Session"), ==, 3);
  gtk_window_destroy (dialog);

  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  expand_all (GTK_WIDGET (dialog));
  pd_test_wait_until (has_mapped_choice, dialog, "a profile's Provider");
  /* A profile's Provider. */
  g_assert_cmpuint (check_choices (GTK_WIDGET (dialog), "Preferences"), >=, 1);
  gtk_window_destroy (dialog);

  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "events");
  pd_test_flush (GTK_WIDGET (window));
  events = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  /* The type filter, once the page has read its events. */
  pd_test_wait_until (has_mapped_choice, events, "the Events page's type filter");
  g_assert_cmpuint (check_choices (events, "Events"), ==, 1);
}

static void
test_drop_down_choices (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_drop_down_choices, NULL), ==, 0);
}

/* --- New Session opens on its task ----------------------------------------- */

/* A dialog by its role, and the focus on the task once shown (set then, not
 * while it is built: test-a11y-atspi.c reads why). */
static void
check_new_session_opens (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (dialog)), ==, GTK_ACCESSIBLE_ROLE_DIALOG);
  g_assert_true (GTK_IS_TEXT_VIEW (gtk_root_get_focus (GTK_ROOT (dialog))));
  gtk_window_destroy (dialog);
}

static void
test_new_session_opens (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_new_session_opens, NULL), ==, 0);
}

/* --- switch rows: one Tab stop ---------------------------------------------- */

static gboolean
is_switch_row (GtkWidget *widget)
{
  return ADW_IS_ACTION_ROW (widget) &&
         GTK_IS_SWITCH (adw_action_row_get_activatable_widget (ADW_ACTION_ROW (widget)));
}

/* Each shown switch of @window is a Tab stop, and its row is none.
 * Returns how many switches. */
static guint
check_switch_stops (GtkWindow  *window,
                    const char *where)
{
  g_autoptr(GPtrArray) stops = pd_test_a11y_tab_stops (window);
  g_autoptr(GPtrArray) switches = g_ptr_array_new ();
  guint n_shown = 0;

  for (guint i = 0; i < stops->len; i++)
    {
      GtkWidget *stop = g_ptr_array_index (stops, i);

      if (is_switch_row (stop))
        g_error ("%s: the row “%s” is a Tab stop before its switch", where,
                 adw_preferences_row_get_title (ADW_PREFERENCES_ROW (stop)));
    }
  pd_test_collect (GTK_WIDGET (window), GTK_TYPE_SWITCH, switches);
  for (guint i = 0; i < switches->len; i++)
    {
      GtkWidget *toggle = g_ptr_array_index (switches, i);
      g_autofree char *name = NULL;

      if (!gtk_widget_get_mapped (toggle))
        continue;
      n_shown++;
      name = pd_test_a11y_name (toggle);
      g_test_message ("%s: the switch “%s” is %sa Tab stop", where, name,
                      g_ptr_array_find (stops, toggle, NULL) ? "" : "no ");
      g_assert_true (g_ptr_array_find (stops, toggle, NULL));
      g_assert_false (name_is_class (name));
    }
  return n_shown;
}

static void
check_switch_rows (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  /* Planning and Start in Plan Mode. */
  g_assert_cmpuint (check_switch_stops (dialog, "New Session"), ==, 2);
  gtk_window_destroy (dialog);

  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  {
    g_autoptr(GPtrArray) pages = g_ptr_array_new ();
    guint n_switches = 0;

    pd_test_collect (GTK_WIDGET (dialog), ADW_TYPE_PREFERENCES_PAGE, pages);
    for (guint i = 0; i < pages->len; i++)
      {
        AdwPreferencesPage *page = g_ptr_array_index (pages, i);
        g_autofree char *where = g_strdup_printf ("Preferences, %s", adw_preferences_page_get_title (page));

        /* A page of the window's own (not one inside a page). */
        if (!ADW_IS_VIEW_STACK (gtk_widget_get_parent (GTK_WIDGET (page))))
          continue;
        adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (dialog), page);
        pd_test_flush (GTK_WIDGET (dialog));
        n_switches += check_switch_stops (dialog, where);
      }
    /* General's two, Alerts' six. */
    g_assert_cmpuint (n_switches, >=, 8);
  }
  gtk_window_destroy (dialog);
}

static void
test_switch_rows (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_switch_rows, NULL), ==, 0);
}

/* --- Preferences: expanders, lists, search, Sources ------------------------- */

static GtkWidget *
expander_header (GtkWidget *expander)
{
  GtkWidget *list = pd_test_find_widget (expander, GTK_TYPE_LIST_BOX);

  return list != NULL ? gtk_widget_get_first_child (list) : NULL;
}

/* The row a reader focuses in @expander says it is @expanded. */
static void
assert_expanded_state (GtkWidget *expander,
                       gboolean   expanded)
{
  GtkWidget *header = expander_header (expander);
  g_autofree char *wrong = NULL;

  g_assert_true (GTK_IS_LIST_BOX_ROW (header));
  g_assert_true (gtk_widget_get_focusable (header));
  if (!gtk_test_accessible_has_state (GTK_ACCESSIBLE (header), GTK_ACCESSIBLE_STATE_EXPANDED))
    g_error ("the profile “%s” says nothing of being open or closed",
             adw_preferences_row_get_title (ADW_PREFERENCES_ROW (expander)));
  wrong = gtk_test_accessible_check_state (GTK_ACCESSIBLE (header), GTK_ACCESSIBLE_STATE_EXPANDED, expanded);
  if (wrong != NULL)
    g_error ("the profile “%s” is %s, its row says %s",
             adw_preferences_row_get_title (ADW_PREFERENCES_ROW (expander)),
             expanded ? "open" : "closed", wrong);
}

/* Each shown list below @root is named, not "GtkListBox"; returns how many. */
static guint
assert_lists_named (GtkWidget  *root,
                    const char *where)
{
  g_autoptr(GPtrArray) lists = g_ptr_array_new ();
  guint n = 0;

  pd_test_collect (root, GTK_TYPE_LIST_BOX, lists);
  for (guint i = 0; i < lists->len; i++)
    {
      GtkWidget *list = g_ptr_array_index (lists, i);
      g_autofree char *name = NULL;

      if (!gtk_widget_get_mapped (list))
        continue;
      name = pd_test_a11y_name (list);
      n++;
      if (name_is_class (name))
        g_error ("%s: a list is named “%s”", where, name);
    }
  return n;
}

static gboolean
is_titled_row (GtkWidget     *widget,
               gconstpointer  title)
{
  return ADW_IS_PREFERENCES_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0;
}

static void
check_preferences_readers (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  GtkWindow *dialog;
  g_autoptr(GPtrArray) expanders = g_ptr_array_new ();
  g_autofree char *search_name = NULL;
  GtkWidget *empty_row;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");

  /* Each profile says whether it is open, and follows. */
  pd_test_collect (GTK_WIDGET (dialog), ADW_TYPE_EXPANDER_ROW, expanders);
  g_assert_cmpuint (expanders->len, >, 0);
  for (guint i = 0; i < expanders->len; i++)
    {
      AdwExpanderRow *expander = g_ptr_array_index (expanders, i);

      assert_expanded_state (GTK_WIDGET (expander), adw_expander_row_get_expanded (expander));
      adw_expander_row_set_expanded (expander, TRUE);
      assert_expanded_state (GTK_WIDGET (expander), TRUE);
    }
  pd_test_flush (GTK_WIDGET (dialog));
  /* Its lists and the lists inside each profile. */
  g_assert_cmpuint (assert_lists_named (GTK_WIDGET (dialog), "Preferences, Providers"), >, expanders->len);
  adw_expander_row_set_expanded (g_ptr_array_index (expanders, 0), FALSE);
  assert_expanded_state (g_ptr_array_index (expanders, 0), FALSE);

  search_name = pd_test_a11y_name (pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_SEARCH_ENTRY));
  g_assert_cmpstr (search_name, ==, "Search Preferences");

  /* Sources with no endpoint: its "No endpoints yet" is no Tab stop. */
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (dialog), "sources");
  pd_test_flush (GTK_WIDGET (dialog));
  empty_row = pd_test_find_first (GTK_WIDGET (dialog), is_titled_row, "No endpoints yet");
  g_assert_nonnull (empty_row);
  g_assert_true (gtk_widget_get_mapped (empty_row));
  {
    g_autoptr(GPtrArray) stops = pd_test_a11y_tab_stops (dialog);

    g_assert_false (g_ptr_array_find (stops, empty_row, NULL));
  }
  gtk_window_destroy (dialog);
}

static void
test_preferences_readers (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_preferences_readers, NULL), ==, 0);
}

/* --- Preferences' Remove rows ------------------------------------------------ */

/* Each Remove and the row holding it name what they remove: a profile's
 * untitled row was "GtkLabel", each endpoint's "Remove from the Window"
 * alike, its button "Remove Build box Remove" (tried with a screen
 * reader's view). */
static void
check_remove_rows (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.plandeck.Plandeck");
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  /* An endpoint nobody answers at: its row is all this needs. */
  g_settings_set_value (settings, "sources",
                        g_variant_new_parsed ("[('build-box', 'Build box', 'http://127.0.0.1:9/')]"));
  dialog = pd_test_a11y_open_dialog (window, "win.preferences", PD_TYPE_PREFERENCES_WINDOW, "Preferences");
  pd_test_a11y_assert_remove_named (GTK_WIDGET (dialog), "_Remove Profile", "Remove Profile “Local OpenAI-compatible”");
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (dialog), "sources");
  pd_test_flush (GTK_WIDGET (dialog));
  pd_test_a11y_assert_remove_named (GTK_WIDGET (dialog), "_Remove", "Remove Build box");
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Preferences, Sources with an endpoint");
  gtk_window_destroy (dialog);
  g_settings_reset (settings, "sources");
}

static void
test_remove_rows (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_remove_rows, NULL), ==, 0);
}

/* --- the plan review: the plan first ---------------------------------------- */

static const char *replay_review =
  "{\"label\": \"test: a11y review order\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy the README\\n\\n- read it\\n\"}}]},"
  " {\"content\": \"Still planning.\"}]}";

typedef struct
{
  char     *dir;
  char     *db;
  char     *project;
  char     *replay;
  gboolean  finished;
} ReviewFixture;

static void
on_run_finished (PdRunController *runs,
                 int              status,
                 const char      *message,
                 ReviewFixture   *fixture)
{
  fixture->finished = TRUE;
}

static gboolean
run_finished (gpointer data)
{
  return ((ReviewFixture *) data)->finished;
}

static gboolean
focus_placed (gpointer data)
{
  return gtk_root_get_focus (GTK_ROOT (data)) != NULL;
}

static gboolean
is_response_button (GtkWidget     *widget,
                    gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static gboolean
approve_enabled (gpointer data)
{
  return adw_message_dialog_get_response_enabled (data, "approve");
}

/* The widget Tab moves the focus to from where it is, as GTK moves it. */
static GtkWidget *
tab (GtkWindow *dialog)
{
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (dialog), GTK_DIR_TAB_FORWARD));
  return gtk_root_get_focus (GTK_ROOT (dialog));
}

static void
check_review_order (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  ReviewFixture *fixture = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  g_autofree char *name = NULL;
  AdwMessageDialog *dialog;
  GtkWidget *plan;
  GtkWidget *feedback;
  GtkWidget *focus;

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (fixture->replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = PD_APPROVAL_POLICY_ASK;
  settings->planning = TRUE;
  g_signal_connect (runs, "finished", G_CALLBACK (on_run_finished), fixture);
  g_assert_true (pd_run_controller_start (runs, settings, "/plan Tidy the README", &error));
  g_assert_no_error (error);

  dialog = pd_test_a11y_wait_for_message_dialog ("the plan review");
  pd_test_wait_until (focus_placed, dialog, "the review's first focus");
  pd_test_wait_until (approve_enabled, dialog, "the review's guard to end");
  plan = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW);
  feedback = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);

  /* The plan first, named and described by its text. */
  g_assert_true (gtk_root_get_focus (GTK_ROOT (dialog)) == plan);
  name = pd_test_a11y_name (plan);
  description = pd_test_a11y_description (plan);
  g_test_message ("the plan: “%s”, “%s”", name, description);
  g_assert_cmpstr (name, ==, "Proposed plan");
  g_assert_nonnull (strstr (description, "Tidy the README"));
  /* Then the feedback, then Keep Planning and Approve. */
  focus = tab (GTK_WINDOW (dialog));
  g_assert_true (focus == feedback || gtk_widget_is_ancestor (focus, feedback));
  focus = tab (GTK_WINDOW (dialog));
  g_assert_true (is_response_button (focus, "_Keep Planning"));
  focus = tab (GTK_WINDOW (dialog));
  g_assert_true (is_response_button (focus, "_Approve"));

  gtk_window_close (GTK_WINDOW (dialog));
  pd_test_wait_until (run_finished, fixture, "the run to end");
}

static void
test_review_order (void)
{
  ReviewFixture fixture = { 0 };
  const char *args[] = { NULL, NULL, NULL };

  fixture.dir = pd_test_make_tmp_dir ();
  fixture.db = g_build_filename (fixture.dir, "sessions.db", NULL);
  fixture.project = g_build_filename (fixture.dir, "project", NULL);
  fixture.replay = g_build_filename (fixture.dir, "replay.json", NULL);
  g_assert_cmpint (g_mkdir (fixture.project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fixture.replay, replay_review, -1, NULL));
  g_object_unref (pd_test_open_store (fixture.db));
  args[0] = "--db";
  args[1] = fixture.db;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_review_order, &fixture, NULL), ==, 0);
  g_free (fixture.replay);
  g_free (fixture.project);
  g_free (fixture.db);
  g_free (fixture.dir);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/dialogs/choices", test_drop_down_choices);
  g_test_add_func ("/pd/ui/a11y/dialogs/new-session-opens", test_new_session_opens);
  g_test_add_func ("/pd/ui/a11y/dialogs/review-order", test_review_order);
  g_test_add_func ("/pd/ui/a11y/dialogs/switch-rows", test_switch_rows);
  g_test_add_func ("/pd/ui/a11y/dialogs/preferences", test_preferences_readers);
  g_test_add_func ("/pd/ui/a11y/dialogs/remove-rows", test_remove_rows);

  return g_test_run ();
}

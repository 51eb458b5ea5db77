/* test-checklist-view.c: the checklist of another agent's session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real PdChecklistView on a real database holding a session imported
 * from a synthetic Claude Code transcript (and, for the screenshot, a real
 * one from ../shared/fixtures).
 */
#define G_LOG_DOMAIN "test-checklist-view"

#include "config.h"

#include <string.h>

#include "../pd-checklist-test.h"
#include "pd-checklist-view.h"
#include "pd-plan-row-item.h"
#include "pd-test-db.h"
#include "pd-test-a11y.h"
#include "pd-test-ui.h"

typedef struct
{
  PdTestDb  *db;
  char      *dir;
  char      *session_id;
  GtkWidget *view;
  GtkWindow *window;
} Fixture;

static gboolean
is_idle (gpointer user_data)
{
  PdChecklistView *view = user_data;

  return !pd_checklist_view_is_busy (view);
}

static gboolean
is_loaded (gpointer user_data)
{
  PdChecklistView *view = user_data;

  return !pd_checklist_view_is_busy (view) && pd_checklist_view_get_checklist (view) != NULL;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->db = pd_test_db_new ();
  f->dir = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_assert_no_error (error);
  f->session_id = pd_checklist_test_import (f->db->store, f->dir);
  f->view = pd_checklist_view_new ();
  f->window = pd_test_present (f->view, 720, 900);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_destroy_window (f->window, f->view);
  pd_test_spin (20);
  pd_test_db_free (f->db);
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->session_id);
}

static void
show_session (Fixture *f)
{
  pd_session_view_set_source (PD_SESSION_VIEW (f->view), PD_SOURCE (f->db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (f->view), f->session_id);
  g_assert_true (pd_test_wait_for (is_loaded, f->view));
}

static const char *
visible_page (GtkWidget *view)
{
  GtkWidget *stack = pd_test_find_widget (view, GTK_TYPE_STACK);

  g_assert_nonnull (stack);
  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

/* The check buttons in the order they are shown. */
static GPtrArray *
check_buttons (GtkWidget *view)
{
  GPtrArray *out = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_CHECK_BUTTON, out);
  return out;
}

/* The stored checklist, read the way a new view would read it. */
static PdChecklist *
stored (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  PdChecklist *checklist = pd_import_index_load_checklist (f->db->store, f->session_id, &error);

  g_assert_no_error (error);
  return checklist;
}

static gboolean
label_shown (GtkWidget  *view,
             const char *text)
{
  GtkWidget *label = pd_test_find_label_containing (view, text);

  return label != NULL && gtk_widget_is_visible (label);
}

static int
label_index (GtkWidget  *view,
             const char *text)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (labels->pdata[i]), text) == 0)
      return (int) i;
  return -1;
}

static gboolean
is_progress_glyph (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_IMAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_widget_get_tooltip_text (widget), "In progress") == 0;
}

static void
test_sections (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) checks = NULL;
  GtkWidget *markup;
  GtkWidget *entry;

  show_session (f);
  g_assert_cmpstr (visible_page (f->view), ==, "checklist");
  g_assert_true (label_shown (f->view, "Claude Code"));
  g_assert_true (label_shown (f->view, "1/3 done · 1 step in progress"));

  /* Agent text is plain: markup shows literally. */
  markup = pd_test_find_label_containing (f->view, PD_CHECKLIST_TEST_ITEM_1);
  g_assert_nonnull (markup);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (markup)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (markup)), ==, PD_CHECKLIST_TEST_ITEM_1);

  /* The agent's items reflect their status. */
  checks = check_buttons (f->view);
  g_assert_cmpuint (checks->len, ==, 3);
  g_assert_true (gtk_check_button_get_active (checks->pdata[0]));
  g_assert_false (gtk_check_button_get_active (checks->pdata[1]));
  g_assert_false (gtk_check_button_get_active (checks->pdata[2]));
  /* The item in progress: the glyph a step in progress has on every other
   * page (a triangle here, circling arrows there, tried as a new user
   * would). */
  {
    GtkWidget *glyph = pd_test_find_first (f->view, is_progress_glyph, NULL);

    g_assert_nonnull (glyph);
    g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (glyph)), ==,
                     pd_plan_step_status_icon_name (PD_PLAN_STEP_IN_PROGRESS));
  }

  /* The plan document, drawn from its markdown (attributes on plain
   * text, never Pango markup), with its badge. */
  g_assert_true (label_shown (f->view, "Approved"));
  g_assert_true (label_shown (f->view, "Parser plan"));
  g_assert_false (label_shown (f->view, "# Parser plan"));

  /* A user item goes after the agent's. */
  entry = pd_test_find_widget (f->view, GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (entry), "Tell the team");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  g_clear_pointer (&checks, g_ptr_array_unref);
  checks = check_buttons (f->view);
  g_assert_cmpuint (checks->len, ==, 4);
  g_assert_cmpint (label_index (f->view, PD_CHECKLIST_TEST_ITEM_2), >=, 0);
  g_assert_cmpint (label_index (f->view, PD_CHECKLIST_TEST_ITEM_2), <, label_index (f->view, "Tell the team"));
  g_assert_true (label_shown (f->view, "1/4 done"));

  pd_test_spin (100);
  pd_test_screenshot (GTK_WIDGET (f->window), "checklist-synthetic");

}

static void
test_override (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) checks = NULL;
  g_autoptr(PdChecklist) saved = NULL;
  gboolean checked = FALSE;

  show_session (f);
  g_assert_false (label_shown (f->view, "ticked by you"));

  /* Ticking the pending item overrides it, and is saved. */
  checks = check_buttons (f->view);
  gtk_check_button_set_active (checks->pdata[2], TRUE);
  g_assert_true (label_shown (f->view, "ticked by you"));
  g_assert_true (label_shown (f->view, "2/3 done"));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  saved = stored (f);
  g_assert_true (pd_checklist_get_override (saved, 2, &checked));
  g_assert_true (checked);
  g_clear_object (&saved);

  /* It survives a refresh. */
  pd_checklist_view_refresh (PD_CHECKLIST_VIEW (f->view));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  g_assert_true (label_shown (f->view, "ticked by you"));

  /* Unticking the agent's completed item: "unticked by you". */
  g_clear_pointer (&checks, g_ptr_array_unref);
  checks = check_buttons (f->view);
  gtk_check_button_set_active (checks->pdata[0], FALSE);
  g_assert_true (label_shown (f->view, "unticked by you"));

  /* Choosing the agent's own status again removes the overrides. */
  gtk_check_button_set_active (checks->pdata[0], TRUE);
  gtk_check_button_set_active (checks->pdata[2], FALSE);
  g_assert_false (label_shown (f->view, "ticked by you"));
  g_assert_false (label_shown (f->view, "unticked by you"));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  saved = stored (f);
  g_assert_false (pd_checklist_get_override (saved, 0, NULL));
  g_assert_false (pd_checklist_get_override (saved, 2, NULL));
  g_assert_cmpuint (pd_checklist_get_n_overrides (saved), ==, 0);
}

/* The agent's items are one Tab stop, their rows named as the items; Space
 * or Enter on a row ticks it, and the focus stays on it once the change is
 * saved and the list read again (tried as a new user would: each item was
 * two stops, a row with no name and its check button, and after Space the
 * focus went to nothing). */
static void
test_keyboard (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) checks = NULL;
  g_autoptr(PdChecklist) saved = NULL;
  g_autofree char *name = NULL;
  GtkWidget *list;
  GtkWidget *focus;
  GtkListBoxRow *row;
  gboolean checked = FALSE;

  show_session (f);
  checks = check_buttons (f->view);
  list = gtk_widget_get_ancestor (checks->pdata[0], GTK_TYPE_LIST_BOX);
  g_assert_nonnull (list);

  /* Tab lands on the first item's row, named as the item. */
  gtk_root_set_focus (GTK_ROOT (f->window), NULL);
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_true (GTK_IS_LIST_BOX_ROW (focus));
  name = pd_test_a11y_name (focus);
  g_assert_cmpstr (name, ==, PD_CHECKLIST_TEST_ITEM_0);
  /* A done item says so in words, as the other states do. */
  {
    g_autofree char *description = pd_test_a11y_description (focus);

    g_assert_cmpstr (description, ==, "Done");
  }
  for (guint i = 0; i < checks->len; i++)
    g_assert_false (gtk_widget_get_can_focus (checks->pdata[i]));

  /* Shift+Tab from the field for a new item comes back to the items (a
   * check button that could not take the focus said it took it, and the
   * focus stayed in the field: tried as a new user would). */
  {
    GtkWidget *entry = pd_test_find_widget (f->view, GTK_TYPE_ENTRY);

    gtk_widget_grab_focus (entry);
    g_assert_true (gtk_widget_child_focus (GTK_WIDGET (f->window), GTK_DIR_TAB_BACKWARD));
    g_assert_true (GTK_IS_LIST_BOX_ROW (gtk_root_get_focus (GTK_ROOT (f->window))));
    g_assert_true (pd_test_a11y_focus_inside (list));
  }

  /* Tab and Shift+Tab leave the list. */
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_false (pd_test_a11y_focus_inside (list));
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_false (pd_test_a11y_focus_inside (list));

  /* The third (pending) item, activated as Space does: ticked, saved, and
   * the focus still on it after the list is read again. */
  row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 2);
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (row)));
  g_signal_emit_by_name (row, "activate");
  g_assert_true (gtk_check_button_get_active (checks->pdata[2]));
  g_assert_true (label_shown (f->view, "ticked by you"));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  saved = stored (f);
  g_assert_true (pd_checklist_get_override (saved, 2, &checked));
  g_assert_true (checked);
  pd_checklist_view_refresh (PD_CHECKLIST_VIEW (f->view));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (GTK_IS_LIST_BOX_ROW (focus));
  g_assert_cmpint (gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (focus)), ==, 2);
  g_clear_pointer (&name, g_free);
  name = pd_test_a11y_name (focus);
  g_assert_cmpstr (name, ==, PD_CHECKLIST_TEST_ITEM_2);
}

static GtkWidget *
find_remove_button (GtkWidget *root)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

  pd_test_collect (root, GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (buttons->pdata[i]), "Remove") == 0)
      return buttons->pdata[i];
  return NULL;
}

static void
test_user_items (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PdChecklist) saved = NULL;
  g_autoptr(GPtrArray) checks = NULL;
  GtkWidget *entry;
  GtkWidget *remove;

  show_session (f);
  entry = pd_test_find_widget (f->view, GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (entry), "Tell the <i>team</i>");
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "");
  g_assert_true (pd_test_wait_for (is_idle, f->view));

  /* Tick it; both persist across a refresh. */
  checks = check_buttons (f->view);
  g_assert_cmpuint (checks->len, ==, 4);
  gtk_check_button_set_active (checks->pdata[3], TRUE);
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  pd_checklist_view_refresh (PD_CHECKLIST_VIEW (f->view));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  g_assert_cmpint (label_index (f->view, "Tell the <i>team</i>"), >=, 0);
  g_clear_pointer (&checks, g_ptr_array_unref);
  checks = check_buttons (f->view);
  g_assert_true (gtk_check_button_get_active (checks->pdata[3]));
  saved = stored (f);
  g_assert_cmpuint (pd_checklist_get_n_user_items (saved), ==, 1);
  g_assert_cmpint (pd_checklist_get_user_item (saved, 0)->status, ==, PD_CHECKLIST_STATUS_COMPLETED);
  g_clear_object (&saved);

  /* Remove it; gone after a refresh too. The button's accessible name
   * names the item without the isolate (U+2068 … U+2069) its shown text
   * has: a screen reader is given no layout characters. */
  remove = find_remove_button (f->view);
  g_assert_nonnull (remove);
  {
    g_autofree char *wrong = gtk_test_accessible_check_property (GTK_ACCESSIBLE (remove),
                                                                GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                                "Remove \xe2\x80\x9c"
                                                                "Tell the <i>team</i>"
                                                                "\xe2\x80\x9d");

    g_assert_null (wrong);
  }
  g_signal_emit_by_name (remove, "clicked");
  g_assert_cmpint (label_index (f->view, "Tell the <i>team</i>"), <, 0);
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  pd_checklist_view_refresh (PD_CHECKLIST_VIEW (f->view));
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  g_assert_cmpint (label_index (f->view, "Tell the <i>team</i>"), <, 0);
  saved = stored (f);
  g_assert_cmpuint (pd_checklist_get_n_user_items (saved), ==, 0);
}

static void
test_privacy_off (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.plandeck.Plandeck");

  g_settings_set_boolean (settings, "read-agent-plans", FALSE);
  pd_session_view_set_source (PD_SESSION_VIEW (f->view), PD_SOURCE (f->db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (f->view), f->session_id);
  pd_test_spin (200);
  g_assert_cmpstr (visible_page (f->view), ==, "off");
  g_assert_false (pd_checklist_view_is_busy (PD_CHECKLIST_VIEW (f->view)));
  g_assert_null (pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (f->view)));
  g_assert_null (pd_test_find_label_containing (f->view, "Zanzibar"));

  /* Turned on again, it reads. */
  g_settings_set_boolean (settings, "read-agent-plans", TRUE);
  g_assert_true (pd_test_wait_for (is_loaded, f->view));
  g_assert_cmpstr (visible_page (f->view), ==, "checklist");

  /* And off again, it forgets. */
  g_settings_set_boolean (settings, "read-agent-plans", FALSE);
  g_assert_cmpstr (visible_page (f->view), ==, "off");
  g_assert_null (pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (f->view)));
  g_settings_reset (settings, "read-agent-plans");
}

static void
test_empty_and_switch (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *own = pd_test_db_create_session (f->db, "A session of Plandeck's own");

  show_session (f);
  /* A session with no agent checklist: the empty page, no error. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (f->view), own);
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  g_assert_cmpstr (visible_page (f->view), ==, "empty");
  g_assert_null (pd_test_find_label_containing (f->view, "Could not"));

  /* Switching while a read is in flight drops the late reply. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (f->view), f->session_id);
  pd_session_view_set_session_id (PD_SESSION_VIEW (f->view), own);
  pd_test_spin (300);
  g_assert_true (pd_test_wait_for (is_idle, f->view));
  g_assert_cmpstr (visible_page (f->view), ==, "empty");
  g_assert_null (pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (f->view)));

  /* Disposed while a read is in flight. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (f->view), f->session_id);
}

/* The one session imported from @path into a new database, shown. */
static GtkWidget *
show_imported (PdTestDb   *db,
               const char *path)
{
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[2] = { path, NULL };
  GtkWidget *view;

  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  view = pd_checklist_view_new ();
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  return view;
}

static gboolean
is_button_with_icon (GtkWidget     *widget,
                     gconstpointer  icon)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon) == 0;
}

static gboolean
continue_in_cline_shown (gpointer data)
{
  return label_shown (data, "Continue in Cline");
}

static gboolean
folder_note_shown (gpointer data)
{
  return label_shown (data, "does not say which folder");
}

/* Tried as a new user would: a Cline task's page said nothing of how to go
 * on with it (the extension has no command), and an older Gemini CLI
 * session whose folder is not recorded showed its command with no word
 * that it only works in the project's folder. */
static void
test_continue_hints (void)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  g_autofree char *cline = NULL;
  g_autofree char *lantern = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *hashed = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *view;
  GtkWindow *window;

  g_assert_nonnull (root);
  cline = g_build_filename (root, "vscode", "User", "globalStorage", "saoudrizwan.claude-dev", "tasks",
                            "1775300000000", "ui_messages.json", NULL);
  {
    g_autoptr(PdTestDb) db = pd_test_db_new ();
    GtkWidget *copy;

    view = show_imported (db, cline);
    window = pd_test_present (view, 720, 900);
    g_assert_true (pd_test_wait_for (continue_in_cline_shown, view));
    g_assert_true (label_shown (view, "pick this task from its task history"));
    g_assert_false (label_shown (view, "does not say which folder"));
    /* Nothing to copy or to run. */
    copy = pd_test_find_first (view, is_button_with_icon, "edit-copy-symbolic");
    g_assert_true (copy == NULL || !gtk_widget_is_visible (copy));
    pd_test_destroy_window (window, view);
    pd_test_spin (20);
  }

  /* An older Gemini CLI session in a hashed folder (no .project_root). */
  tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_assert_no_error (error);
  hashed = g_build_filename (tmp, "9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f9f", "chats", NULL);
  g_mkdir_with_parents (hashed, 0700);
  lantern = g_build_filename (root, "gemini", "tmp", "lantern", "chats", "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  {
    g_autoptr(PdTestDb) db = pd_test_db_new ();
    g_autofree char *contents = NULL;
    g_autofree char *copy = g_build_filename (hashed, "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
    gsize length;

    g_assert_true (g_file_get_contents (lantern, &contents, &length, &error));
    g_assert_true (g_file_set_contents (copy, contents, (gssize) length, &error));
    view = show_imported (db, copy);
    window = pd_test_present (view, 720, 900);
    g_assert_true (pd_test_wait_for (folder_note_shown, view));
    g_assert_true (label_shown (view, "Continue in Gemini CLI"));
    pd_test_destroy_window (window, view);
    pd_test_spin (20);
  }
  pd_test_remove_tree (tmp);
}

static gboolean
hidden_items_said (gpointer data)
{
  return label_shown (data, "200 more items of the agent’s list not shown");
}

/* A list longer than a checklist keeps: a Cline task_progress of 700
 * items shows the first 500 and says how many more there are (the rest
 * was left out in silence). */
static void
test_long_list (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autofree char *task = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GString) text = g_string_new ("[{\"ts\":1775300000000,\"type\":\"say\",\"say\":\"task\",\"text\":\"Tidy\"},"
                                          "{\"ts\":1775300000001,\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"");
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(GPtrArray) checks = NULL;
  GtkWidget *view;
  GtkWindow *window;

  g_assert_no_error (error);
  task = g_build_filename (tmp, "saoudrizwan.claude-dev", "tasks", "1775300000000", NULL);
  g_mkdir_with_parents (task, 0700);
  for (guint i = 0; i < 700; i++)
    g_string_append_printf (text, "- [ ] Step %u\\n", i + 1);
  g_string_append (text, "\"}]");
  path = g_build_filename (task, "ui_messages.json", NULL);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));

  view = show_imported (db, path);
  window = pd_test_present (view, 720, 900);
  g_assert_true (pd_test_wait_for (hidden_items_said, view));
  g_assert_true (label_shown (view, "Step 500"));
  g_assert_false (label_shown (view, "Step 501"));
  checks = check_buttons (view);
  g_assert_cmpuint (checks->len, ==, 500);
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* A Cline task of @n items in a folder under @tmp, imported and shown. */
static GtkWidget *
show_long_list (PdTestDb   *db,
                const char *tmp,
                guint       n)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *task = g_build_filename (tmp, "saoudrizwan.claude-dev", "tasks", "1775300000000", NULL);
  g_autofree char *path = g_build_filename (task, "ui_messages.json", NULL);
  g_autoptr(GString) text = g_string_new ("[{\"ts\":1775300000000,\"type\":\"say\",\"say\":\"task\",\"text\":\"Tidy\"},"
                                          "{\"ts\":1775300000001,\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"");

  g_mkdir_with_parents (task, 0700);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "- [ ] Step %u\\n", i + 1);
  g_string_append (text, "\"}]");
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
  return show_imported (db, path);
}

static int
focused_row (GtkWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  g_assert_true (GTK_IS_LIST_BOX_ROW (focus));
  return gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (focus));
}

static GtkAdjustment *
list_adjustment (GtkWidget *list)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);

  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
}

/* Tried as a new user would: a 600-item session on an endpoint where another
 * session ran jumped back to item 1 every second or two, each ::changed of
 * the source rereading the page and rebuilding the list.  A reread that
 * brings the same items keeps the scroll position and the focused row. */
static void
test_reread_keeps_place (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  GtkWidget *view, *list;
  GtkWindow *window;
  GtkAdjustment *adjustment;
  GtkListBoxRow *last;
  double value;

  g_assert_no_error (error);
  view = show_long_list (db, tmp, 600);
  window = pd_test_present (view, 720, 700);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  g_assert_true (label_shown (view, "100 more items of the agent’s list not shown"));
  pd_test_flush (GTK_WIDGET (window));
  list = pd_test_find_widget (view, GTK_TYPE_LIST_BOX);
  adjustment = list_adjustment (list);

  /* End: the last item focused, the page scrolled to the bottom. */
  last = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 499);
  g_assert_nonnull (last);
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (last)));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  value = gtk_adjustment_get_value (adjustment);
  g_assert_cmpfloat (value, >, 0);
  g_assert_cmpint (focused_row (window), ==, 499);

  for (guint round = 0; round < 3; round++)
    {
      pd_checklist_view_refresh (PD_CHECKLIST_VIEW (view));
      g_assert_true (pd_test_wait_for (is_loaded, view));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      g_test_message ("reread %u: scrolled to %.0f px of %.0f, focused item %d", round + 1,
                      gtk_adjustment_get_value (adjustment), value, focused_row (window) + 1);
      g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, value);
      g_assert_cmpint (focused_row (window), ==, 499);
      g_assert_true (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 499) == last);
    }
  /* The agent ticks its first item: the list is rebuilt, and stays where it
   * was scrolled. */
  {
    g_autofree char *path = g_build_filename (tmp, "saoudrizwan.claude-dev", "tasks", "1775300000000",
                                              "ui_messages.json", NULL);
    g_autoptr(PdImportIndex) index = pd_import_index_new ();
    g_autofree char *contents = NULL;
    const char *paths[2] = { path, NULL };
    char *first;

    g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
    first = strstr (contents, "- [ ] Step 1\\n");
    g_assert_nonnull (first);
    first[3] = 'x';
    g_assert_true (g_file_set_contents (path, contents, -1, &error));
    g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
    g_assert_no_error (error);
    pd_checklist_view_refresh (PD_CHECKLIST_VIEW (view));
    g_assert_true (pd_test_wait_for (is_loaded, view));
    pd_test_flush (GTK_WIDGET (window));
    pd_test_spin (200);
    g_test_message ("changed reread: scrolled to %.0f px of %.0f", gtk_adjustment_get_value (adjustment), value);
    g_assert_cmpuint (pd_checklist_get_effective_status (pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (view)), 0),
                      ==, PD_CHECKLIST_STATUS_COMPLETED);
    g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, value);
    g_assert_cmpint (focused_row (window), ==, 499);
  }
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* Tried as a new user would: Page Down and Page Up moved one or two items,
 * the list keeping GtkListBox's default page of 100 px. */
static void
test_page_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  GtkWidget *view, *list;
  GtkWindow *window;
  GtkListBoxRow *first;
  int down, further, up;

  g_assert_no_error (error);
  view = show_long_list (db, tmp, 200);
  window = pd_test_present (view, 900, 700);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  list = pd_test_find_widget (view, GTK_TYPE_LIST_BOX);
  first = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 0);
  g_assert_true (gtk_widget_grab_focus (GTK_WIDGET (first)));
  g_assert_cmpint (focused_row (window), ==, 0);

  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Page_Down, 0));
  pd_test_flush (GTK_WIDGET (window));
  down = focused_row (window);
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Page_Down, 0));
  pd_test_flush (GTK_WIDGET (window));
  further = focused_row (window);
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Page_Up, 0));
  pd_test_flush (GTK_WIDGET (window));
  up = focused_row (window);
  pd_test_screenshot (GTK_WIDGET (window), "checklist-page-keys");
  g_test_message ("Page Down from item 1: item %d, again: item %d; Page Up: item %d", down + 1, further + 1, up + 1);
  g_assert_cmpint (down, >=, 5);
  g_assert_cmpint (further - down, >=, 5);
  g_assert_cmpint (further - up, >=, 5);
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* --- a plan and no list ------------------------------------------------------- */

/* Tried as a new user would: a session with a plan document and no list
 * showed "Another agent" and "0/0 done".  It says it has no checklist. */
static void
test_plan_without_list (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autofree char *project = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  GtkWidget *view;
  GtkWindow *window;

  g_assert_no_error (error);
  project = g_build_filename (tmp, "-work-app", NULL);
  g_mkdir_with_parents (project, 0700);
  /* The user's message, ExitPlanMode and its answer: no TodoWrite. */
  for (guint i = 0; i < 3; i++)
    g_string_append_printf (text, "%s\n", pd_checklist_test_lines[i]);
  path = g_build_filename (project, "0b7c0c1e-5f7e-4d21-9a43-3c2d1e0f9a12.jsonl", NULL);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));

  view = show_imported (db, path);
  window = pd_test_present (view, 720, 900);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  g_assert_cmpstr (visible_page (view), ==, "checklist");
  g_assert_true (label_shown (view, "No checklist"));
  g_assert_false (label_shown (view, "0/0 done"));
  g_assert_false (label_shown (view, "Another agent"));
  /* The plan document is drawn, not shown as its markdown source. */
  g_assert_true (label_shown (view, "Parser plan"));
  g_assert_false (label_shown (view, "# Parser plan"));
  g_assert_false (label_shown (view, "- Fix the escaping"));
  g_assert_true (label_shown (view, "Fix the escaping"));
  pd_test_screenshot (GTK_WIDGET (window), "checklist-plan-only");
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* As an attacker would write a transcript: its folder (@cwd, as JSON)
 * makes a pasted line run something else.  Copy copies nothing then, and
 * the panel says @why where the line would be. */
static void
check_copy_refused (const char *cwd,
                    const char *why)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autofree char *project = NULL;
  g_autofree char *path = NULL;
  g_autofree char *member = g_strdup_printf ("\"cwd\":\"%s\"", cwd);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  GtkWidget *view;
  GtkWidget *copy;
  GtkWindow *window;

  g_assert_no_error (error);
  project = g_build_filename (tmp, "-work-app", NULL);
  g_mkdir_with_parents (project, 0700);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GString) line = g_string_new (pd_checklist_test_lines[i]);

      g_string_replace (line, "\"cwd\":\"/work/app\"", member, 0);
      g_string_append_printf (text, "%s\n", line->str);
    }
  path = g_build_filename (project, "0b7c0c1e-5f7e-4d21-9a43-3c2d1e0f9a13.jsonl", NULL);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));

  view = show_imported (db, path);
  window = pd_test_present (view, 720, 900);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  /* The command is still shown, and the reason under it. */
  g_assert_true (label_shown (view, "claude --resume s1"));
  g_assert_true (label_shown (view, why));
  gdk_clipboard_set_text (gtk_widget_get_clipboard (view), "before");
  copy = pd_test_find_first (view, is_button_with_icon, "edit-copy-symbolic");
  g_assert_nonnull (copy);
  g_assert_false (gtk_widget_is_visible (copy));
  g_signal_emit_by_name (copy, "clicked");
  {
    GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (view));
    g_auto(GValue) value = G_VALUE_INIT;

    g_value_init (&value, G_TYPE_STRING);
    g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
    g_assert_cmpstr (g_value_get_string (&value), ==, "before");
  }
  g_assert_cmpstr (gtk_widget_get_tooltip_text (copy), ==, why);
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* Ctrl+U and a line break: pasted into a shell, `cd '/tmp/x^U touch …\n'`
 * lost its cd to the line editor and ran the rest. */
static void
test_copy_control_folder (void)
{
  check_copy_refused ("/tmp/x\\u0015touch /tmp/pwned\\n", "Not copied: the command holds control characters");
}

/* fish reads \' inside single quotes as a quote: `cd 'x\'\'' ; touch …`
 * ran touch there (bash and zsh did not; att15). */
static void
test_copy_quote_folder (void)
{
  check_copy_refused ("/tmp/x\\\\' ; touch /tmp/FISH_PWNED ; echo \\\\'",
                      "No line to copy: the folder's name holds a quote or a backslash, which shells read "
                      "differently. Open it in a terminal, or go to the folder first.");
}

/* --- a long item in the tick toast -------------------------------------------- */

#define LONG_ITEM "Move every preference of the old INI file to GSettings and keep the migration for a release"

static gboolean
is_ticked_label (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), "Ticked “\u2068Move");
}

static gboolean
ticked_toast_shown (gpointer root)
{
  return pd_test_find_first (root, is_ticked_label, NULL) != NULL;
}

/* The tick's toast quotes a long item as the other toasts quote a title
 * (_pd_toast_quote()): cut to what fits at the window's width, so that the
 * sentence ends whole and Undo stays beside it.  Its own cut of 40
 * characters was ellipsized at 360 px. */
static void
test_long_item_toast (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autofree char *task = NULL;
  g_autofree char *path = NULL;
  const char *text = "[{\"ts\":1775300000000,\"type\":\"say\",\"say\":\"task\",\"text\":\"Tidy\"},"
                     "{\"ts\":1775300000001,\"type\":\"say\",\"say\":\"task_progress\",\"text\":\""
                     "- [ ] " LONG_ITEM "\\n- [ ] Tell the team\"}]";
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(GPtrArray) checks = NULL;
  GtkWidget *overlay = adw_toast_overlay_new ();
  GtkWidget *view;
  GtkWidget *label;
  GtkWindow *window;

  g_assert_no_error (error);
  task = g_build_filename (tmp, "saoudrizwan.claude-dev", "tasks", "1775300000000", NULL);
  g_mkdir_with_parents (task, 0700);
  path = g_build_filename (task, "ui_messages.json", NULL);
  g_assert_true (g_file_set_contents (path, text, -1, &error));

  view = show_imported (db, path);
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), view);
  window = pd_test_present (overlay, 360, 640);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  checks = check_buttons (view);
  g_assert_cmpuint (checks->len, ==, 2);
  gtk_check_button_set_active (checks->pdata[0], TRUE);
  g_assert_true (pd_test_wait_for (ticked_toast_shown, window));
  pd_test_spin (400);
  label = pd_test_find_first (GTK_WIDGET (window), is_ticked_label, NULL);
  g_assert_nonnull (label);
  g_test_message ("narrow toast: %s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_true (g_str_has_suffix (gtk_label_get_text (GTK_LABEL (label)), "…\u2069”"));
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  pd_test_screenshot (GTK_WIDGET (window), "checklist-tick-toast-360");
  g_assert_true (pd_test_wait_for (is_idle, view));
  pd_test_destroy_window (window, overlay);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* 50 items of 1 500 characters that cannot be broken, a bidi override in
 * each: shown cut to what a row shows, the rest in a tooltip (200 such items
 * froze the window over 4 minutes laying them out whole, tried as an
 * attacker would). */
static void
test_long_item_texts (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("pd-checklist-view-XXXXXX", &error);
  g_autofree char *task = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GString) text = g_string_new ("[{\"ts\":1775300000000,\"type\":\"say\",\"say\":\"task\",\"text\":\"Tidy\"},"
                                          "{\"ts\":1775300000001,\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"");
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GtkWidget *view;
  GtkWindow *window;
  guint long_ones = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < 50; i++)
    {
      g_string_append_printf (text, "- [ ] \\u202e%u", i);
      for (guint j = 0; j < 1500; j++)
        g_string_append_c (text, 'W');
      g_string_append (text, "\\n");
    }
  g_string_append (text, "\"}]");
  task = g_build_filename (tmp, "saoudrizwan.claude-dev", "tasks", "1775300000000", NULL);
  g_mkdir_with_parents (task, 0700);
  path = g_build_filename (task, "ui_messages.json", NULL);
  g_assert_true (g_file_set_contents (path, text->str, -1, &error));

  view = show_imported (db, path);
  window = pd_test_present (view, 900, 700);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  pd_test_collect (view, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *shown = gtk_label_get_text (labels->pdata[i]);

      if (strstr (shown, "WWWW") == NULL)
        continue;
      long_ones++;
      g_assert_cmpuint (g_utf8_strlen (shown, -1), <=, 240);
      g_assert_true (g_str_has_suffix (shown, "…"));
      g_assert_nonnull (gtk_widget_get_tooltip_text (labels->pdata[i]));
    }
  g_assert_cmpuint (long_ones, ==, 50);
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
  pd_test_remove_tree (tmp);
}

/* A Claude Code session with TodoWrite and ExitPlanMode: the project's own
 * fixture (the review screenshot), and a shared recording when it is there
 * (an extra check). */
static void
test_fixture_screenshot (gconstpointer fixture_file)
{
  const char *file = fixture_file;
  gboolean shared = g_str_has_prefix (file, "-Users-");
  const char *root = g_getenv (shared ? "PD_SHARED_FIXTURES_DIR" : "PD_FIXTURES_DIR");
  g_autofree char *path = NULL;
  g_autoptr(PdTestDb) db = NULL;
  g_autoptr(PdImportIndex) index = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[2] = { NULL, NULL };
  GtkWidget *view;
  GtkWindow *window;

  if (shared && (root == NULL || !g_file_test (root, G_FILE_TEST_IS_DIR)))
    {
      g_test_skip ("../shared/fixtures (the third-party recordings) is not beside the source tree: this extra "
                   "check is skipped; /pd/ui/checklist-view/fixture-screenshot ran on the project's own fixture");
      return;
    }
  g_assert_nonnull (root);
  path = g_build_filename (root, "claude-code", file, NULL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));

  db = pd_test_db_new ();
  index = pd_import_index_new ();
  paths[0] = path;
  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);

  view = pd_checklist_view_new ();
  window = pd_test_present (view, 820, 1000);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  g_assert_cmpstr (visible_page (view), ==, "checklist");
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_checklist_view_get_checklist (PD_CHECKLIST_VIEW (view))), >, 0);

  /* One override and one item of the user's own, as a person would have. */
  {
    g_autoptr(GPtrArray) checks = check_buttons (view);
    GtkWidget *entry = pd_test_find_widget (view, GTK_TYPE_ENTRY);

    g_assert_cmpuint (checks->len, >, 0);
    gtk_check_button_set_active (checks->pdata[checks->len - 1],
                                 !gtk_check_button_get_active (checks->pdata[checks->len - 1]));
    g_assert_true (label_shown (view, "by you"));
    gtk_editable_set_text (GTK_EDITABLE (entry), "Check the deploy preview on a phone");
    g_signal_emit_by_name (entry, "activate");
    g_assert_true (pd_test_wait_for (is_idle, view));
  }

  pd_test_spin (100);
  pd_test_screenshot (GTK_WIDGET (window), shared ? "checklist-shared" : "checklist");
  pd_test_destroy_window (window, view);
  pd_test_spin (20);
}

int
main (int   argc,
      char *argv[])
{
  /* GTK's test accessibility backend: the accessible labels can be read. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  pd_test_views_init (&argc, &argv);

  g_test_add ("/pd/ui/checklist-view/sections", Fixture, NULL, fixture_setup, test_sections, fixture_teardown);
  g_test_add ("/pd/ui/checklist-view/override", Fixture, NULL, fixture_setup, test_override, fixture_teardown);
  g_test_add ("/pd/ui/checklist-view/user-items", Fixture, NULL, fixture_setup, test_user_items, fixture_teardown);
  g_test_add ("/pd/ui/checklist-view/keyboard", Fixture, NULL, fixture_setup, test_keyboard, fixture_teardown);
  g_test_add ("/pd/ui/checklist-view/privacy-off", Fixture, NULL, fixture_setup, test_privacy_off, fixture_teardown);
  g_test_add ("/pd/ui/checklist-view/empty-and-switch", Fixture, NULL, fixture_setup, test_empty_and_switch, fixture_teardown);
  g_test_add_func ("/pd/ui/checklist-view/continue-hints", test_continue_hints);
  g_test_add_func ("/pd/ui/checklist-view/long-list", test_long_list);
  g_test_add_func ("/pd/ui/checklist-view/long-item-toast", test_long_item_toast);
  g_test_add_func ("/pd/ui/checklist-view/long-item-texts", test_long_item_texts);
  g_test_add_func ("/pd/ui/checklist-view/reread-keeps-place", test_reread_keeps_place);
  g_test_add_func ("/pd/ui/checklist-view/page-keys", test_page_keys);
  g_test_add_func ("/pd/ui/checklist-view/plan-without-list", test_plan_without_list);
  g_test_add_func ("/pd/ui/checklist-view/copy-control-folder", test_copy_control_folder);
  g_test_add_func ("/pd/ui/checklist-view/copy-quote-folder", test_copy_quote_folder);
  g_test_add_data_func ("/pd/ui/checklist-view/fixture-screenshot",
                        "-home-dev-src-inkwell/b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl", test_fixture_screenshot);
  g_test_add_data_func ("/pd/ui/checklist-view/fixture-shared",
                        "-Users-dain-workspace-danieldemmel-me-next/f852ad25-1024-47da-964e-5eaae5bd6e6a.jsonl",
                        test_fixture_screenshot);

  return g_test_run ();
}

/* test-checklist-cancelled.c: an imported checklist's cancelled item says
 * "cancelled" in words beside its struck-through text.
 *
 * The project's Gemini CLI fixture (one of its items cancelled) is read
 * into a real SQLite database and shown in a PdChecklistView.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-checklist-view.h"
#include "pd-import-index.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

static gboolean
is_loaded (gpointer user_data)
{
  PdChecklistView *view = user_data;

  return !pd_checklist_view_is_busy (view) && pd_checklist_view_get_checklist (view) != NULL;
}

/* The row (the GtkListBoxRow or other box) that holds the label @text. */
static GtkWidget *
row_of (GtkWidget  *view,
        const char *text)
{
  GtkWidget *label = pd_test_find_label (view, text);

  g_assert_nonnull (label);
  return gtk_widget_get_ancestor (label, GTK_TYPE_LIST_BOX_ROW);
}

static gboolean
shows_label (GtkWidget  *root,
             const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child) && gtk_widget_get_mapped (child) &&
          g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), text) == 0)
        return TRUE;
      if (shows_label (child, text))
        return TRUE;
    }
  return FALSE;
}

/* The state was told by the strike-through alone (tried as a new user
 * would): "cancelled" now shows as "ticked by you" does. */
static void
test_cancelled_in_words (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "gemini", "tmp", "lantern", "chats",
                                            "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[2] = { path, NULL };
  GtkWidget *view;
  GtkWindow *window;

  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);

  view = pd_checklist_view_new ();
  window = pd_test_present (view, 720, 900);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  g_assert_true (pd_test_wait_for (is_loaded, view));
  pd_test_flush (GTK_WIDGET (window));

  g_assert_true (shows_label (row_of (view, "Document the signal"), "cancelled"));
  /* Only there: an item not cancelled says nothing of the kind. */
  g_assert_false (shows_label (row_of (view, "Log each reload"), "cancelled"));

  pd_test_destroy_window (window, view);
  pd_test_spin (20);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/checklist-cancelled/in-words", test_cancelled_in_words);

  return g_test_run ();
}

/* test-session-actions.c: Delete with Undo, Export, Create a database, About
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real application on a real database: the actions of the session's
 * context menu and of the header's session menu, with the toast's Undo and
 * close buttons pressed as a user would, the file chooser answered as a
 * user would, and the database read afterwards.
 */
#define G_LOG_DOMAIN "test-session-actions"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "pd-session-export.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

static PdSessionList *
session_list_of (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

static gboolean
list_loaded (gpointer window)
{
  return pd_session_list_get_loaded (session_list_of (window)) &&
         !pd_session_list_get_busy (session_list_of (window));
}

static const char *
selected_id (PdSessionList *list)
{
  PdSessionItem *item = pd_session_list_get_selected_item (list);

  return item != NULL ? pd_session_item_get_id (item) : NULL;
}

static gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static gboolean
is_close_button (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "window-close-symbolic") == 0 &&
         gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY) != NULL;
}

typedef struct
{
  GtkWidget         *root;
  PdTestWidgetMatch  match;
  gconstpointer      data;
} Find;

static gboolean
found (gpointer data)
{
  Find *find = data;

  return pd_test_find_first (find->root, find->match, find->data) != NULL;
}

/* Waits for the widget (the toast is shown after its animation starts). */
static GtkWidget *
wait_for_widget (GtkWidget         *root,
                 PdTestWidgetMatch  match,
                 gconstpointer      data,
                 const char        *what)
{
  Find find = { root, match, data };

  pd_test_wait_until (found, &find, what);
  return pd_test_find_first (root, match, data);
}

/* First strong isolate and pop directional isolate, in UTF-8. */
#define FSI "\342\201\250"
#define PDI "\342\201\251"

typedef struct
{
  char           *dir;
  char           *db;
  PdSessionStore *store;
  char           *ours;
  char           *other;
  char           *imported;
  char           *closing;
  char           *running;
} DeleteFixture;

static gboolean
stored (PdSessionStore *store,
        const char     *id)
{
  g_autoptr(PdSessionInfo) info = pd_session_store_get (store, id, NULL);

  return info != NULL;
}

static gboolean
listed_in_store (PdSessionStore *store,
                 const char     *id)
{
  g_autoptr(GPtrArray) list = pd_session_store_list (store, NULL, FALSE, 0, 100, NULL, NULL);

  for (guint i = 0; list != NULL && i < list->len; i++)
    if (g_str_equal (((PdSessionInfo *) g_ptr_array_index (list, i))->id, id))
      return TRUE;
  return FALSE;
}

typedef struct
{
  PdSessionStore *store;
  const char     *id;
} Gone;

static gboolean
gone_from_store (gpointer data)
{
  Gone *gone = data;

  return !stored (gone->store, gone->id);
}

static gboolean
gone_from_listing (gpointer data)
{
  Gone *gone = data;

  return !listed_in_store (gone->store, gone->id);
}

static gboolean
is_toast (GtkWidget     *widget,
          gconstpointer  data)
{
  return g_strcmp0 (gtk_widget_get_css_name (widget), "toast") == 0;
}

static gboolean
no_toast (gpointer window)
{
  return pd_test_find_first (window, is_toast, NULL) == NULL;
}

/* Until the toast has gone, with its animation. */
static void
wait_toast_gone (PdWindow *window)
{
  pd_test_wait_until (no_toast, window, "the toast to go");
}

/* The toast closed by its close button, as a user does.  First it is
 * let finish appearing: libadwaita 1.2 frees a toast's animations twice
 * when it is closed during its 300 ms show animation (a crash no person's
 * click is fast enough for). */
static void
dismiss_toast (PdWindow *window)
{
  GtkWidget *close = wait_for_widget (GTK_WIDGET (window), is_close_button, NULL, "the toast's close button");

  pd_test_spin (500);
  g_signal_emit_by_name (close, "clicked");
}

static gboolean
is_menu_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)) != NULL;
}

/* The label of the last item of the main menu's Session section. */
static char *
main_menu_delete_label (PdWindow *window)
{
  GtkWidget *button = pd_test_find_first (GTK_WIDGET (window), is_menu_button, NULL);
  GMenuModel *menu;
  g_autoptr(GMenuModel) section = NULL;
  char *label = NULL;
  int n;

  g_assert_nonnull (button);
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_nonnull (section);
  n = g_menu_model_get_n_items (section);
  g_assert_cmpint (n, >, 0);
  g_assert_true (g_menu_model_get_item_attribute (section, n - 1, G_MENU_ATTRIBUTE_LABEL, "s", &label));
  return label;
}

static void
check_delete (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  DeleteFixture *f = user_data;
  PdSessionList *list = session_list_of (window);
  GtkWidget *undo;

  pd_test_wait_until (list_loaded, window, "the list");
  g_assert_true (pd_session_list_select (list, f->ours));

  /* Deleted from the row's menu: gone from the list at once, still stored
   * while Undo is offered. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->ours);
  g_assert_false (pd_session_list_select (list, f->ours));
  g_assert_true (stored (f->store, f->ours));
  g_assert_nonnull (wait_for_widget (GTK_WIDGET (window), is_button_labelled,
                                     "_Undo", "the Undo button"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window), "“" FSI "Tidy the parser" PDI "” deleted"));
  pd_test_spin (400);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "delete-undo");

  /* Undo: back in the list, selected again as it was (the selection had
   * moved on to another session and stayed there), and never deleted. */
  g_assert_cmpstr (selected_id (list), !=, f->ours);
  undo = pd_test_find_first (GTK_WIDGET (window), is_button_labelled, "_Undo");
  pd_test_spin (500);
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);
  g_assert_cmpstr (selected_id (list), ==, f->ours);

  /* A session that was not selected comes back without taking the
   * selection from the one that is. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->other);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  g_assert_cmpstr (selected_id (list), ==, f->ours);
  pd_test_spin (500);
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);
  g_assert_cmpstr (selected_id (list), ==, f->ours);
  g_assert_true (pd_session_list_select (list, f->other));
  g_assert_true (pd_session_list_select (list, f->ours));
  pd_test_spin (300);
  pd_session_list_refresh (list);
  pd_test_wait_until (list_loaded, window, "the list again");
  g_assert_true (stored (f->store, f->ours));
  g_assert_true (pd_session_list_select (list, f->ours));

  /* The header's session menu names deleting as the row's menu does for
   * the session shown: one name for each kind (it said "Delete Session"
   * for an agent's session too, which only leaves the list). */
  {
    g_autofree char *imported_label = NULL;
    g_autofree char *ours_label = NULL;

    g_assert_true (pd_session_list_select (list, f->imported));
    imported_label = main_menu_delete_label (window);
    g_assert_cmpstr (imported_label, ==, "_Remove From List");
    g_assert_true (pd_session_list_select (list, f->ours));
    ours_label = main_menu_delete_label (window);
    g_assert_cmpstr (ours_label, ==, "_Delete");
  }

  /* From the header's session menu (the shown session), then the toast
   * closed: deleted, rows and all. */
  pd_test_flush (GTK_WIDGET (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", "");
  g_assert_false (pd_session_list_select (list, f->ours));
  dismiss_toast (window);
  {
    Gone gone = { f->store, f->ours };

    pd_test_wait_until (gone_from_store, &gone, "the session to be deleted");
  }
  wait_toast_gone (window);

  /* An imported session: hidden from the index, the toast says the
   * agent's transcript stays. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->imported);
  g_assert_nonnull (wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window), "the agent’s own transcript is kept"));
  dismiss_toast (window);
  {
    Gone gone = { f->store, f->imported };

    pd_test_wait_until (gone_from_listing, &gone, "the imported session to leave the index");
    g_assert_true (stored (f->store, f->imported));
  }
  wait_toast_gone (window);

  /* A session whose run goes on (this process's, so alive): deleting it
   * let the run go on unrecorded (found as an attacker would).  The window
   * says to stop the run and hides nothing; no Undo is offered. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->running);
  g_assert_true (pd_session_list_select (list, f->running));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window),
                                                   "“" FSI "Running now" PDI "” is running: stop the run first"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (window), is_button_labelled, "_Undo"));
  g_assert_true (stored (f->store, f->running));
  dismiss_toast (window);
  wait_toast_gone (window);

  /* Deleted, and the window closes before the toast goes: it is deleted
   * (checked once the application is gone). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->closing);
  g_assert_true (stored (f->store, f->closing));
}

static void
test_delete (void)
{
  DeleteFixture f = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  f.dir = pd_test_make_tmp_dir ();
  f.db = g_build_filename (f.dir, "sessions.db", NULL);
  f.store = pd_test_open_store (f.db);
  f.other = pd_test_add_session (f.store, "Keep this one", "plandeck");
  f.closing = pd_test_add_session (f.store, "Close before the toast goes", "plandeck");
  f.imported = pd_test_add_session (f.store, "An agent's session", "claude-code");
  f.ours = pd_test_add_session (f.store, "Tidy the parser", "plandeck");
  f.running = pd_test_add_session (f.store, "Running now", "plandeck");
  g_assert_true (pd_session_store_set_status (f.store, f.running, PD_SESSION_STATUS_RUNNING, NULL));
  args[1] = f.db;

  g_assert_cmpint (pd_test_run_app (args, check_delete, &f, NULL), ==, 0);

  g_assert_false (stored (f.store, f.closing));
  g_assert_false (stored (f.store, f.ours));
  g_assert_true (listed_in_store (f.store, f.other));
  g_assert_true (stored (f.store, f.running));

  g_object_unref (f.store);
  g_free (f.ours);
  g_free (f.other);
  g_free (f.imported);
  g_free (f.closing);
  g_free (f.running);
  g_free (f.db);
  g_free (f.dir);
}

/* --- a bidi-safe toast ------------------------------------------------------ */

/* As an attacker would title a session: a right-to-left override (U+202E)
 * and a left-to-right embedding (U+202A) that, obeyed, reorder the rest of
 * the toast ("“…” deleted" read backwards, "exe.txt" shown as "txt.exe"). */
#define BIDI_TITLE "Report \342\200\256fdp.exe\342\200\252 now"

static gboolean
is_running_label (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), "is running") != NULL;
}

static gboolean
is_deleted_label (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), "deleted") != NULL;
}

/* Whether @text holds an embedding, override or isolate control. */
static guint
count_bidi_controls (const char *text,
                     gunichar   *first)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069))
        {
          if (n++ == 0 && first != NULL)
            *first = c;
        }
    }
  return n;
}

static void
check_bidi_toast (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  const char * const *ids = user_data;
  const char *id = ids[0];
  GtkWidget *label;
  GtkWidget *undo;
  const char *text;
  gunichar first = 0;

  pd_test_wait_until (list_loaded, window, "the list");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", id);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  label = pd_test_find_first (GTK_WIDGET (window), is_deleted_label, NULL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  g_test_message ("toast: %s", text);

  /* The title's controls are shown, not obeyed, and the title sits in an
   * isolate of its own: the only controls are its FSI and PDI, in order. */
  g_assert_cmpstr (text, ==, "“" FSI "Report <U+202E>fdp.exe<U+202A> now" PDI "” deleted");
  g_assert_cmpuint (count_bidi_controls (text, &first), ==, 2);
  g_assert_cmpuint (first, ==, 0x2068);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "delete-bidi-toast");

  pd_test_spin (500);
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);

  /* The toast that refuses to delete a running session names it alike
   * (it showed the title raw, controls and all). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", ids[1]);
  label = pd_test_find_first (GTK_WIDGET (window), is_running_label, NULL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  g_assert_cmpstr (text, ==, "“" FSI "Running <U+202E>fdp.exe now" PDI "” is running: stop the run first, then delete it");
  g_assert_cmpuint (count_bidi_controls (text, NULL), ==, 2);
  dismiss_toast (window);
  wait_toast_gone (window);
}

static void
test_delete_bidi_toast (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, BIDI_TITLE);
  g_autofree char *running = pd_test_db_create_session (db, "Running \342\200\256fdp.exe now");
  const char *ids[] = { id, running };
  const char *args[] = { "--db", db->path, NULL };

  g_assert_true (pd_session_store_set_status (db->store, running, PD_SESSION_STATUS_RUNNING, NULL));
  g_assert_cmpint (pd_test_run_app (args, check_bidi_toast, ids, NULL), ==, 0);
}

/* --- a long title in the toast ------------------------------------------------ */

/* 120 characters: as a person writes a task in its first message. */
#define LONG_TITLE "Move every preference of the old INI file to GSettings, keep the migration for a release, " \
                   "and document it in the README"

static gboolean
is_title_label (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), "“" FSI "Move");
}

static gboolean
is_narrow (gpointer window)
{
  return gtk_widget_get_width (GTK_WIDGET (window)) == 360;
}

static void
check_long_title_toast (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  const char *id = user_data;
  GtkWidget *undo;
  GtkWidget *label;
  graphene_rect_t bounds;

  pd_test_wait_until (list_loaded, window, "the list");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", id);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  pd_test_spin (400);
  label = pd_test_find_first (GTK_WIDGET (window), is_title_label, NULL);
  g_assert_nonnull (label);

  /* The title's start, cut with "…" inside its isolate; the sentence
   * whole, and drawn whole (the label was ellipsized at its end, losing
   * "deleted"). */
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "“" FSI "Move every preference of the old INI fi…" PDI "” deleted");
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  /* Undo inside the window, beside the sentence. */
  g_assert_true (gtk_widget_get_mapped (undo));
  g_assert_true (gtk_widget_compute_bounds (undo, GTK_WIDGET (window), &bounds));
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (GTK_WIDGET (window)));
  g_assert_cmpfloat (bounds.size.width, >, 0);
  pd_test_screenshot (GTK_WIDGET (window), "delete-long-title");
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);

  /* On a phone's 360 px the title is cut to what fits: the sentence and
   * Undo stay whole there too (40 characters still hid "deleted"). */
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 640);
  pd_test_wait_until (is_narrow, window, "the window to be narrow");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", id);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  pd_test_spin (400);
  label = pd_test_find_first (GTK_WIDGET (window), is_title_label, NULL);
  g_assert_nonnull (label);
  g_test_message ("narrow toast: %s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_true (g_str_has_suffix (gtk_label_get_text (GTK_LABEL (label)), "…" PDI "” deleted"));
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  g_assert_true (gtk_widget_compute_bounds (undo, GTK_WIDGET (window), &bounds));
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (GTK_WIDGET (window)));
  pd_test_screenshot (GTK_WIDGET (window), "delete-long-title-360");
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);
}

static void
test_delete_long_title (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, LONG_TITLE);
  const char *args[] = { "--db", db->path, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_long_title_toast, id, NULL), ==, 0);
}

/* --- export ------------------------------------------------------------------ */

typedef struct
{
  PdTestDb *db;
  char     *id;
  char     *out_dir;
  gboolean  done;
  GError   *error;
} ExportFixture;

static GtkWindow *
file_chooser (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER (window) && gtk_widget_get_mapped (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

static gboolean
no_file_chooser (gpointer data)
{
  return file_chooser () == NULL;
}

static gboolean
chooser_shown (gpointer data)
{
  return file_chooser () != NULL;
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
on_exported (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ExportFixture *f = user_data;

  pd_session_export_finish (result, &f->error);
  f->done = TRUE;
}

static gboolean
export_done (gpointer data)
{
  return ((ExportFixture *) data)->done;
}

static void
check_export (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  ExportFixture *f = user_data;
  g_autofree char *markdown_path = g_build_filename (f->out_dir, "parser.md", NULL);
  g_autofree char *json_path = g_build_filename (f->out_dir, "parser.json", NULL);
  g_autofree char *markdown = NULL;
  g_autofree char *json = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (f->out_dir);
  g_autoptr(GFile) json_file = g_file_new_for_path (json_path);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *chooser;
  JsonObject *object;

  pd_test_wait_until (list_loaded, window, "the list");

  /* From the row's menu: a file chooser asks where, offering a name made
   * from the title; cancelled, nothing is written. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-markdown", "s", f->id);
  pd_test_wait_until (chooser_shown, NULL, "the file chooser");
  chooser = file_chooser ();
  {
    g_autofree char *name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));

    g_assert_cmpstr (name, ==, "Tidy the parser.md");
    g_assert_true (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (chooser)) == GTK_FILE_CHOOSER_ACTION_SAVE);
  }
  pd_test_screenshot_sizes (chooser, "export-chooser");
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  pd_test_wait_until (no_file_chooser, NULL, "the file chooser to close");

  /* What the chooser's Export writes, to the file it names. */
  {
    g_autoptr(GFile) markdown_file = g_file_new_for_path (markdown_path);

    pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, markdown_file,
                             NULL, on_exported, f);
    pd_test_wait_until (export_done, f, "the Markdown export");
    g_assert_no_error (f->error);
    f->done = FALSE;
  }
  (void) folder;
  (void) file_exists;

  /* A new export is the user's alone; one written over keeps its mode. */
  {
    g_autofree char *kept_path = g_build_filename (f->out_dir, "kept.md", NULL);
    g_autoptr(GFile) kept = g_file_new_for_path (kept_path);
    g_autoptr(GFile) markdown_file = g_file_new_for_path (markdown_path);
    GStatBuf st;

    g_assert_cmpint (g_stat (markdown_path, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 0777, ==, 0600);
    g_assert_true (g_file_set_contents (kept_path, "old", -1, NULL));
    g_assert_cmpint (g_chmod (kept_path, 0640), ==, 0);
    pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, kept,
                             NULL, on_exported, f);
    pd_test_wait_until (export_done, f, "the export over a file");
    g_assert_no_error (f->error);
    f->done = FALSE;
    g_assert_cmpint (g_stat (kept_path, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 0777, ==, 0640);
    (void) markdown_file;
  }

  /* A FIFO is refused at once, not opened to wait for a reader. */
  {
    g_autofree char *fifo_path = g_build_filename (f->out_dir, "pipe.md", NULL);
    g_autoptr(GFile) fifo = g_file_new_for_path (fifo_path);

    g_assert_cmpint (mkfifo (fifo_path, 0600), ==, 0);
    pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, fifo,
                             NULL, on_exported, f);
    pd_test_wait_until (export_done, f, "the export to a FIFO");
    g_assert_error (f->error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
    g_clear_error (&f->error);
    f->done = FALSE;
  }

  g_assert_true (g_file_get_contents (markdown_path, &markdown, NULL, NULL));
  g_test_message ("%s", markdown);
  g_assert_true (g_str_has_prefix (markdown, "# Tidy the parser\n"));
  g_assert_nonnull (strstr (markdown, f->id));
  g_assert_nonnull (strstr (markdown, "- [x] Read the session store and its migrations (done)"));
  g_assert_nonnull (strstr (markdown, "- [ ] Document the export format (blocked)"));
  g_assert_nonnull (strstr (markdown, "### User\n\n```\nPlease tidy the parser\n```"));
  /* A message that holds a fence sits in a longer one: it cannot end it
   * and turn the rest into Markdown of the model's making. */
  g_assert_nonnull (strstr (markdown, "````\nHere:\n```\n<b>not bold</b>\n```\n````"));

  /* JSON, through the same reads. */
  pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_JSON, json_file,
                           NULL, on_exported, f);
  pd_test_wait_until (export_done, f, "the JSON export");
  g_assert_no_error (f->error);
  g_assert_true (g_file_get_contents (json_path, &json, NULL, NULL));
  root = json_from_string (json, &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f->id);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "messages")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "plan_versions")), ==, 1);
  /* The session's own token stays in the database. */
  {
    g_autoptr(PdSessionInfo) info = pd_session_store_get (f->db->store, f->id, NULL);

    g_assert_nonnull (info);
    g_assert_cmpuint (strlen (info->auth_token), >, 0);
    g_assert_null (strstr (json, info->auth_token));
    g_assert_null (strstr (markdown, info->auth_token));
  }
}

static void
test_export (void)
{
  ExportFixture f = { 0 };
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  const char *args[] = { "--db", NULL, NULL };

  f.db = pd_test_db_new ();
  f.out_dir = pd_test_make_tmp_dir ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  json_array_add_object_element (messages, pd_test_message ("user", "Please tidy the parser"));
  json_array_add_object_element (messages, pd_test_message ("assistant", "Here:\n```\n<b>not bold</b>\n```"));
  pd_test_db_save (f.db, f.id, messages, 0, plan);
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export, &f, NULL), ==, 0);

  g_free (f.id);
  g_free (f.out_dir);
  pd_test_db_free (f.db);
}

/* --- where the export's chooser starts -------------------------------------- */

static gboolean
has_folder (gpointer chooser)
{
  g_autoptr(GFile) folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));

  return folder != NULL;
}

/* The folder the chooser shows, once it has loaded it. */
static char *
chooser_folder (GtkWindow *chooser)
{
  g_autoptr(GFile) folder = NULL;

  pd_test_wait_until (has_folder, chooser, "the chooser's folder");
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
  return g_file_get_path (folder);
}

static void
check_export_folder (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  ExportFixture *f = user_data;
  const char *documents = g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS);
  const char *expected = documents != NULL && g_file_test (documents, G_FILE_TEST_IS_DIR)
                         ? documents : g_get_home_dir ();
  g_autofree char *written = g_build_filename (f->out_dir, "first.md", NULL);
  g_autofree char *cwd = g_get_current_dir ();
  g_autoptr(GFile) out = g_file_new_for_path (f->out_dir);
  GtkWindow *chooser;

  pd_test_wait_until (list_loaded, window, "the list");

  /* The first export starts in Documents (or home), not in the folder
   * the app was started from (the test's own folder here). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-markdown", "s", f->id);
  pd_test_wait_until (chooser_shown, NULL, "the file chooser");
  chooser = file_chooser ();
  {
    g_autofree char *folder = chooser_folder (chooser);

    g_assert_cmpstr (folder, ==, expected);
    g_assert_cmpstr (folder, !=, cwd);
  }

  /* Exported elsewhere: the next export starts there. */
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), out, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "first.md");
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  pd_test_wait_until (file_exists, written, "the export to be written");
  pd_test_spin (100);
  g_assert_null (file_chooser ());

  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-json", "s", f->id);
  pd_test_wait_until (chooser_shown, NULL, "the file chooser again");
  chooser = file_chooser ();
  {
    g_autofree char *folder = chooser_folder (chooser);

    g_assert_cmpstr (folder, ==, f->out_dir);
  }
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  pd_test_spin (100);
  g_assert_null (file_chooser ());
}

static void
test_export_folder (void)
{
  ExportFixture f = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  pd_test_reset_settings ();
  f.db = pd_test_db_new ();
  f.out_dir = pd_test_make_tmp_dir ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export_folder, &f, NULL), ==, 0);

  g_free (f.id);
  g_free (f.out_dir);
  pd_test_db_free (f.db);
}

/* --- the export's write, off the main thread ------------------------------- */

/* A file that tells which thread writes it, and whose first write waits
 * for the main loop to turn once after the write began: written on the
 * main thread, that turn could not come until the write ended, and the
 * write gives up waiting (after half the wait bound, in that failure
 * only, so that the export's own wait still ends) and says so. */

typedef struct
{
  GMutex      lock;
  GCond       cond;
  GThread    *writer;        /* the thread of the first write */
  gboolean    main_turned;   /* an idle added by that write ran */
  gboolean    gave_up;
  GByteArray *bytes;
} WriteProbe;

static gboolean
probe_main_turn (gpointer data)
{
  WriteProbe *probe = data;

  g_mutex_lock (&probe->lock);
  probe->main_turned = TRUE;
  g_cond_broadcast (&probe->cond);
  g_mutex_unlock (&probe->lock);
  return G_SOURCE_REMOVE;
}

#define PD_TYPE_PROBE_STREAM (pd_probe_stream_get_type ())
G_DECLARE_FINAL_TYPE (PdProbeStream, pd_probe_stream, PD, PROBE_STREAM, GFileOutputStream)

struct _PdProbeStream
{
  GFileOutputStream  parent_instance;
  WriteProbe        *probe;
};

G_DEFINE_FINAL_TYPE (PdProbeStream, pd_probe_stream, G_TYPE_FILE_OUTPUT_STREAM)

static gssize
pd_probe_stream_write (GOutputStream  *stream,
                       const void     *buffer,
                       gsize           count,
                       GCancellable   *cancellable,
                       GError        **error)
{
  WriteProbe *probe = PD_PROBE_STREAM (stream)->probe;
  gint64 end = g_get_monotonic_time () + (gint64) PD_TEST_WAIT_MS / 2 * 1000;

  g_mutex_lock (&probe->lock);
  if (probe->writer == NULL)
    {
      probe->writer = g_thread_self ();
      /* An idle never runs inside g_idle_add(), whatever the thread. */
      g_idle_add (probe_main_turn, probe);
    }
  while (!probe->main_turned && !probe->gave_up)
    if (!g_cond_wait_until (&probe->cond, &probe->lock, end))
      probe->gave_up = TRUE;
  g_byte_array_append (probe->bytes, buffer, count);
  g_mutex_unlock (&probe->lock);
  return count;
}

static void
pd_probe_stream_class_init (PdProbeStreamClass *klass)
{
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = pd_probe_stream_write;
}

static void
pd_probe_stream_init (PdProbeStream *self)
{
}

#define PD_TYPE_PROBE_FILE (pd_probe_file_get_type ())
G_DECLARE_FINAL_TYPE (PdProbeFile, pd_probe_file, PD, PROBE_FILE, GObject)

struct _PdProbeFile
{
  GObject     parent_instance;
  WriteProbe *probe;
};

static GFile *
pd_probe_file_dup (GFile *file)
{
  return g_object_ref (file);
}

static guint
pd_probe_file_hash (GFile *file)
{
  return g_direct_hash (file);
}

static gboolean
pd_probe_file_equal (GFile *a,
                     GFile *b)
{
  return a == b;
}

static gboolean
pd_probe_file_is_native (GFile *file)
{
  return FALSE;
}

static char *
pd_probe_file_get_uri (GFile *file)
{
  return g_strdup ("probe:///export.md");
}

static char *
pd_probe_file_get_basename (GFile *file)
{
  return g_strdup ("export.md");
}

/* Not a local file: the export has no path to look at first. */
static char *
pd_probe_file_get_path (GFile *file)
{
  return NULL;
}

static GFileOutputStream *
pd_probe_file_replace (GFile             *file,
                       const char        *etag,
                       gboolean           make_backup,
                       GFileCreateFlags   flags,
                       GCancellable      *cancellable,
                       GError           **error)
{
  PdProbeStream *stream = g_object_new (PD_TYPE_PROBE_STREAM, NULL);

  stream->probe = PD_PROBE_FILE (file)->probe;
  return G_FILE_OUTPUT_STREAM (stream);
}

static void
pd_probe_file_iface_init (GFileIface *iface)
{
  iface->dup = pd_probe_file_dup;
  iface->hash = pd_probe_file_hash;
  iface->equal = pd_probe_file_equal;
  iface->is_native = pd_probe_file_is_native;
  iface->get_uri = pd_probe_file_get_uri;
  iface->get_parse_name = pd_probe_file_get_uri;
  iface->get_basename = pd_probe_file_get_basename;
  iface->get_path = pd_probe_file_get_path;
  iface->replace = pd_probe_file_replace;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (PdProbeFile, pd_probe_file, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_FILE, pd_probe_file_iface_init))

static void
pd_probe_file_class_init (PdProbeFileClass *klass)
{
}

static void
pd_probe_file_init (PdProbeFile *self)
{
}

static void
check_export_off_main (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  ExportFixture *f = user_data;
  WriteProbe probe = { 0 };
  g_autoptr(PdProbeFile) file = g_object_new (PD_TYPE_PROBE_FILE, NULL);
  g_autofree char *written = NULL;

  g_mutex_init (&probe.lock);
  g_cond_init (&probe.cond);
  probe.bytes = g_byte_array_new ();
  file->probe = &probe;

  pd_test_wait_until (list_loaded, window, "the list");
  pd_session_export_async (pd_window_get_source (window), f->id, PD_SESSION_EXPORT_MARKDOWN, G_FILE (file),
                           NULL, on_exported, f);
  pd_test_wait_until (export_done, f, "the export");
  g_assert_no_error (f->error);

  /* Written by another thread, while the main loop went on turning. */
  g_assert_nonnull (probe.writer);
  g_assert_true (probe.writer != g_thread_self ());
  g_assert_false (probe.gave_up);
  g_assert_true (probe.main_turned);
  written = g_strndup ((const char *) probe.bytes->data, probe.bytes->len);
  g_assert_true (g_str_has_prefix (written, "# Tidy the parser\n"));

  g_byte_array_unref (probe.bytes);
  g_mutex_clear (&probe.lock);
  g_cond_clear (&probe.cond);
}

static void
test_export_off_main (void)
{
  ExportFixture f = { 0 };
  g_autoptr(JsonArray) messages = json_array_new ();
  const char *args[] = { "--db", NULL, NULL };

  f.db = pd_test_db_new ();
  f.id = pd_test_db_create_session (f.db, "Tidy the parser");
  json_array_add_object_element (messages, pd_test_message ("user", "Please tidy the parser"));
  pd_test_db_save (f.db, f.id, messages, 0, NULL);
  args[1] = f.db->path;

  g_assert_cmpint (pd_test_run_app (args, check_export_off_main, &f, NULL), ==, 0);

  g_free (f.id);
  pd_test_db_free (f.db);
}

/* As an attacker would: a session whose every field is hostile.  Outside
 * fences nothing may stay HTML or Markdown of the attacker's making, and no
 * control or bidi character may reach the file raw, inside fences either. */
#define HOSTILE "Title <b>bold</b> <a href=\"http://evil\">x</a> \033[31mred \342\200\256evil``` *em* _u_ [l](x) # & <img src=x onerror=alert(1)>"

/* Whether @line holds a "<" that starts anything but our "<U+XXXX>". */
static gboolean
has_raw_tag (const char *line)
{
  for (const char *p = strchr (line, '<'); p != NULL; p = strchr (p + 1, '<'))
    if (!g_str_has_prefix (p, "<U+"))
      return TRUE;
  return FALSE;
}

static void
test_export_hostile (void)
{
  PdSessionInfo info = { 0 };
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  g_autoptr(GPtrArray) versions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  g_autoptr(JsonArray) messages = json_array_new ();
  PdPlanVersionInfo *version = g_new0 (PdPlanVersionInfo, 1);
  PdPlanStep *step = g_ptr_array_index (plan->steps, 0);
  g_autofree char *markdown = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean in_fence = FALSE;
  g_autofree char *fence = NULL;

  info.id = (char *) "id-1";
  info.name = (char *) HOSTILE;
  info.task = (char *) HOSTILE;
  info.model = (char *) HOSTILE;
  info.provider = (char *) HOSTILE;
  info.source = (char *) HOSTILE;
  info.cwd = (char *) "/tmp/a`b ``c <d>";
  g_free (step->title);
  step->title = g_strdup (HOSTILE);
  g_free (step->note);
  step->note = g_strdup (HOSTILE);
  version->version = 1;
  version->state_json = pd_plan_state_to_json (plan);
  g_ptr_array_add (versions, version);
  json_array_add_object_element (messages, pd_test_message ("tool", "out \033]0;title\007 \033[2J \342\200\256rev\302\233x"));

  markdown = pd_session_export_markdown (&info, messages, versions);
  g_test_message ("%s", markdown);

  /* Nowhere raw: ESC, BEL, C1 CSI, U+202E. */
  g_assert_null (strchr (markdown, '\033'));
  g_assert_null (strchr (markdown, '\007'));
  g_assert_null (strstr (markdown, "\302\233"));
  g_assert_null (strstr (markdown, "\342\200\256"));
  g_assert_nonnull (strstr (markdown, "<U+001B>]0;title<U+0007>"));
  g_assert_nonnull (strstr (markdown, "<U+202E>rev"));

  g_assert_true (g_str_has_prefix (markdown,
    "# Title &lt;b&gt;bold&lt;/b&gt; &lt;a href=\"http://evil\"&gt;x&lt;/a&gt; <U+001B>\\[31mred <U+202E>evil\\`\\`\\` "
    "\\*em\\* \\_u\\_ \\[l\\]\\(x\\) \\# &amp; &lt;img src=x onerror=alert\\(1\\)&gt;\n"));
  /* The folder's span outlasts the backticks inside it. */
  g_assert_nonnull (strstr (markdown, "- Folder: ```/tmp/a`b ``c <d>```\n"));

  /* Every line outside fences: no tag, no unescaped backtick or emphasis. */
  lines = g_strsplit (markdown, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (in_fence)
        {
          if (g_str_equal (line, fence))
            in_fence = FALSE;
          g_assert_null (strchr (line, '\033'));
          continue;
        }
      if (g_str_has_prefix (line, "```"))
        {
          g_free (fence);
          fence = g_strndup (line, strspn (line, "`"));
          in_fence = TRUE;
          continue;
        }
      if (g_str_has_prefix (line, "- Folder: "))
        continue;
      g_assert_false (has_raw_tag (line));
      for (const char *p = line; *p; p++)
        if (strchr ("`*_[]", *p) != NULL && !(p > line && p[-1] == '\\') &&
            !(g_str_has_prefix (line, "- [") && p - line <= 4) &&
            !g_str_has_prefix (line, "- Session: ") && !g_str_has_prefix (line, "Tool call: "))
          g_error ("unescaped %c in line %s", *p, line);
    }
  g_assert_false (in_fence);
}

/* --- create a database ------------------------------------------------------------ */

static gboolean
is_shown_button_for (GtkWidget     *widget,
                     gconstpointer  action)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0;
}

/* The button a person sees for @action, or NULL. */
static GtkWidget *
shown_button_for (PdWindow   *window,
                  const char *action)
{
  pd_test_flush (GTK_WIDGET (window));
  return pd_test_find_first (GTK_WIDGET (window), is_shown_button_for, action);
}

static gboolean
is_shown_status_page (GtkWidget     *widget,
                      gconstpointer  data)
{
  return ADW_IS_STATUS_PAGE (widget) && gtk_widget_get_mapped (widget);
}

static const char *
error_page_icon (PdWindow *window)
{
  GtkWidget *page = pd_test_find_first (GTK_WIDGET (window), is_shown_status_page, NULL);

  g_assert_nonnull (page);
  return adw_status_page_get_icon_name (ADW_STATUS_PAGE (page));
}

static void
check_create (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  const char *path = user_data;
  GtkWidget *create = shown_button_for (window, "win.create-database");
  GtkWidget *open = shown_button_for (window, "win.open-database");

  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "No Database Here"));
  g_assert_nonnull (create);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (create)), ==, "_Create a New Database Here");
  g_assert_true (gtk_widget_has_css_class (create, "suggested-action"));
  /* A new file is offered: its page shows a new document, not the stop
   * sign of an error (which a missing folder keeps, below). */
  g_assert_cmpstr (error_page_icon (window), ==, "document-new-symbolic");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "create-database");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* "…or open another": the page's description says it, a button does it
   * (there was none: Create took the place of Open). */
  g_assert_nonnull (open);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (open)), ==, "_Open Another Database…");
  gtk_widget_activate (open);
  pd_test_wait_until (chooser_shown, NULL, "the file chooser to open another database");
  g_assert_true (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (file_chooser ())) == GTK_FILE_CHOOSER_ACTION_OPEN);
  gtk_dialog_response (GTK_DIALOG (file_chooser ()), GTK_RESPONSE_CANCEL);
  pd_test_wait_until (no_file_chooser, NULL, "the file chooser to close");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  gtk_widget_activate (create);
  pd_test_wait_until (list_loaded, window, "the new database's list");
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_nonnull (pd_window_get_source (window));
  g_assert_false (gtk_widget_get_visible (create));
}

static void
check_no_folder (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "No Database Here"));
  /* A missing folder is refused: no button makes it. */
  g_assert_null (shown_button_for (window, "win.create-database"));
  g_assert_cmpstr (error_page_icon (window), ==, "dialog-error-symbolic");
  g_assert_nonnull (shown_button_for (window, "win.open-database"));
}

static gboolean
refusal_shown (gpointer data)
{
  return pd_test_find_label_containing (GTK_WIDGET (data), "no database is created through a link") != NULL;
}

/* A dangling symbolic link at the path: Create made the database where it
 * pointed, outside the folder (found as an attacker would).  The page names
 * the link and offers no Create. */
static void
check_dangling_link (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  const char *path = user_data;
  g_autofree char *text = g_strdup_printf ("%s is a symbolic link to a file that does not exist", path);

  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "No Database Here"));
  g_assert_null (shown_button_for (window, "win.create-database"));
  g_assert_nonnull (shown_button_for (window, "win.open-database"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window), text));
  /* Activated anyway (a stale button, a shortcut): the store refuses. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.create-database", NULL);
  pd_test_wait_until (refusal_shown, window, "the store's refusal");
}

static void
test_create_database (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "new.db", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "new.db", NULL);
  g_autofree char *missing_dir = g_path_get_dirname (missing);
  const char *args[] = { "--db", path, NULL };
  const char *missing_args[] = { "--db", missing, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_create, path, NULL), ==, 0);
  g_assert_cmpint (pd_test_run_app (missing_args, check_no_folder, NULL, NULL), ==, 0);
  g_assert_false (g_file_test (missing_dir, G_FILE_TEST_EXISTS));

  {
    g_autofree char *elsewhere = g_build_filename (dir, "elsewhere", NULL);
    g_autofree char *target = g_build_filename (elsewhere, "out.db", NULL);
    g_autofree char *link = g_build_filename (dir, "dangling.db", NULL);
    const char *link_args[] = { "--db", link, NULL };

    g_assert_cmpint (g_mkdir (elsewhere, 0700), ==, 0);
    g_assert_cmpint (symlink (target, link), ==, 0);
    g_assert_cmpint (pd_test_run_app (link_args, check_dangling_link, link, NULL), ==, 0);
    g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  }
}

/* --- About ------------------------------------------------------------------- */

static gboolean
about_shown (gpointer data)
{
  return pd_test_find_toplevel (ADW_TYPE_ABOUT_WINDOW) != NULL;
}

/* A row of the page on screen whose title, less its mnemonic, is @title. */
static gboolean
is_shown_row_titled (GtkWidget     *widget,
                     gconstpointer  title)
{
  g_autofree char *text = NULL;
  char *out;

  if (!ADW_IS_PREFERENCES_ROW (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  text = g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)));
  out = text;
  for (const char *in = text; *in != '\0'; in++)
    if (*in != '_')
      *out++ = *in;
  *out = '\0';
  return g_strcmp0 (text, title) == 0;
}

static void
check_about (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  AdwAboutWindow *about;
  const char * const *developers;

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  pd_test_wait_until (about_shown, NULL, "the About window");
  about = ADW_ABOUT_WINDOW (pd_test_find_toplevel (ADW_TYPE_ABOUT_WINDOW));
  g_assert_cmpstr (adw_about_window_get_website (about), ==, "https://github.com/plandeck/plandeck");
  g_assert_cmpstr (adw_about_window_get_issue_url (about), ==, "https://github.com/plandeck/plandeck/issues");
  g_assert_nonnull (strstr (adw_about_window_get_copyright (about), "The Plandeck Project"));
  pd_test_screenshot_sizes (GTK_WINDOW (about), "about");
  /* What a person sees first: the website, the issue tracker, credits and
   * the legal page (copyright) as rows of the main page.  The website
   * was in a Details page, behind a row, while comments were set. */
  pd_test_flush (GTK_WIDGET (about));
  {
    /* Mapped once the main page is laid out (later under load). */
    Find find = { GTK_WIDGET (about), is_shown_row_titled, "Website" };

    pd_test_wait_until (found, &find, "the Website row on the About window's main page");
  }
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (about), is_shown_row_titled, "Report an Issue"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (about), is_shown_row_titled, "Credits"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (about), is_shown_row_titled, "Legal"));
  developers = adw_about_window_get_developers (about);
  g_assert_nonnull (developers);
  g_assert_nonnull (developers[0]);
  pd_test_destroy_window (about, NULL);
}

static void
test_about (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  const char *args[] = { "--db", db->path, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_about, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();


  g_test_add_func ("/pd/ui/session-actions/delete-undo", test_delete);
  g_test_add_func ("/pd/ui/session-actions/delete-bidi-toast", test_delete_bidi_toast);
  g_test_add_func ("/pd/ui/session-actions/delete-long-title", test_delete_long_title);
  g_test_add_func ("/pd/ui/session-actions/export", test_export);
  g_test_add_func ("/pd/ui/session-actions/export-folder", test_export_folder);
  g_test_add_func ("/pd/ui/session-actions/export-off-main-thread", test_export_off_main);
  g_test_add_func ("/pd/ui/session-actions/export-hostile", test_export_hostile);
  g_test_add_func ("/pd/ui/session-actions/create-database", test_create_database);
  g_test_add_func ("/pd/ui/session-actions/about", test_about);

  return g_test_run ();
}

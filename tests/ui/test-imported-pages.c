/* test-import-pages.c: every page of another agent's session, in the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The project's own Claude Code, Codex and OpenCode transcripts
 * (tests/fixtures) are imported from the window, as a new user does; then
 * each session is opened on its Transcript, History and Events pages.  None
 * may say it is empty when the transcript has messages, plan updates and
 * tool calls: the Transcript lists every message (the core's count, read on
 * its own), History one version per applied full-list update (the number in
 * tests/fixtures/README.md), Events the tool calls and plan updates.  The
 * third-party recordings in ../shared/fixtures are an extra run that skips
 * when the folder is absent.  Each run is made at the default size and
 * 360 px wide.
 */
#define G_LOG_DOMAIN "test-import-pages"

#include "config.h"

#include <glib/gstdio.h>

#include "pd-checklist-view.h"
#include "pd-db.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-import-index.h"
#include "pd-local-source.h"
#include "pd-message-row.h"
#include "pd-session-list.h"
#include "pd-session-reads.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"

typedef struct
{
  const char *agent;          /* names the case */
  const char *title_prefix;   /* how the session is found in the list */
  int         n_versions;     /* applied full-list updates; -1: the core's count */
} PageCase;

/* tests/fixtures/README.md: "N lists applied" of each transcript. */
static const PageCase own_cases[] = {
  { "claude-code-todowrite", "Word count in the status bar", 4 },
  { "claude-code-plan-mode", "Settings are read from", 6 },
  { "claude-code-tasks", "Upload rate limits", 12 },
  { "codex", "Add a --since filter", 6 },
  { "codex-no-plan", "Why does `logtail tail`", 0 },
  { "opencode", "Retry failed webhook deliveries", 3 },
  { "opencode-subagent", "Find callers of deliver", 0 },
};

typedef struct
{
  const PageCase *cases;
  guint           n_cases;
  const char     *db_path;
  int             width;     /* 0: the default size */
} PagesRun;

static PdSessionList *
session_list (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

/* Returns: (transfer full) (nullable) */
static PdSessionItem *
find_session (PdWindow   *window,
              const char *title_prefix)
{
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (session_list (window)));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);

      if (g_str_has_prefix (pd_session_item_get_title (item), title_prefix))
        return g_steal_pointer (&item);
    }
  return NULL;
}

typedef struct
{
  PdWindow   *window;
  const char *title_prefix;
} FindWait;

static gboolean
session_listed (gpointer data)
{
  FindWait *wait = data;

  g_autoptr(PdSessionItem) item = find_session (wait->window, wait->title_prefix);

  return item != NULL;
}

static gboolean
import_done (gpointer data)
{
  PdWindow *window = data;
  PdSource *source = pd_window_get_source (window);

  /* Once the import ends, its transcripts are followed. */
  return PD_IS_LOCAL_SOURCE (source) && pd_local_source_get_n_followed (PD_LOCAL_SOURCE (source)) > 0 &&
         pd_session_list_get_loaded (session_list (window)) && !pd_session_list_get_busy (session_list (window));
}

/* The view shows @id and @n items in @model. */
typedef struct
{
  GtkWidget  *view;
  GListModel *model;
  const char *id;
  guint       n;
} PageWait;

static gboolean
page_filled (gpointer data)
{
  PageWait *wait = data;

  if (g_getenv ("PD_TEST_DEBUG"))
    g_printerr ("%s/%s busy=%d n=%u want %u\n", pd_session_view_get_session_id (PD_SESSION_VIEW (wait->view)), wait->id,
                pd_session_view_get_busy (PD_SESSION_VIEW (wait->view)), g_list_model_get_n_items (wait->model), wait->n);
  return g_strcmp0 (pd_session_view_get_session_id (PD_SESSION_VIEW (wait->view)), wait->id) == 0 &&
         !pd_session_view_get_busy (PD_SESSION_VIEW (wait->view)) &&
         g_list_model_get_n_items (wait->model) == wait->n;
}

/* Names the widgets that ask for more than @width, from @widget down. */
static void
print_wide_chain (GtkWidget *widget,
                  int        width,
                  guint      depth)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      int minimum = 0;

      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      if (minimum > width)
        {
          g_printerr ("# %*s%s.%s needs %d px%s%s\n", (int) depth * 2, "", G_OBJECT_TYPE_NAME (child),
                      gtk_widget_get_css_name (child), minimum, GTK_IS_LABEL (child) ? ": " : "",
                      GTK_IS_LABEL (child) ? gtk_label_get_text (GTK_LABEL (child)) : "");
          print_wide_chain (child, width, depth + 1);
        }
    }
}

/* At 360 px, nothing on the page asks for more. */
static void
assert_fits (PdWindow   *window,
             int         width,
             const char *what)
{
  GtkWidget *content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  int minimum = 0;

  if (width == 0)
    return;
  pd_test_flush (GTK_WIDGET (window));
  gtk_widget_measure (content, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  if (minimum > width)
    print_wide_chain (content, width, 0);
  if (minimum > width)
    g_error ("%s needs %d px, more than %d", what, minimum, width);
}

/* The page's own stack shows its content, not "No … Yet". */
static void
assert_not_empty_page (GtkWidget  *view,
                       const char *what)
{
  GtkStack *stack = GTK_STACK (pd_test_find_widget (view, GTK_TYPE_STACK));

  g_assert_nonnull (stack);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (stack), "empty") == 0)
    g_error ("%s says it is empty", what);
}

static GtkExpander *
find_expander_prefix (GtkWidget  *root,
                      const char *prefix)
{
  g_autoptr(GPtrArray) expanders = g_ptr_array_new ();

  pd_test_collect (root, GTK_TYPE_EXPANDER, expanders);
  for (guint i = 0; i < expanders->len; i++)
    {
      const char *label = gtk_expander_get_label (g_ptr_array_index (expanders, i));

      if (label != NULL && g_str_has_prefix (label, prefix))
        return g_ptr_array_index (expanders, i);
    }
  return NULL;
}

/* Claude Code's Task: the subagent's conversation is under the call that
 * started it, folded, and its messages are rows of their own once open. */
static void
check_subagent_nested (GtkWidget *transcript)
{
  GtkExpander *subagent = NULL;
  GtkWidget *box;
  guint n_rows = 0;

  /* The list builds rows for what is on screen: look through all of it. */
  {
    GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (pd_test_find_widget (transcript, GTK_TYPE_SCROLLED_WINDOW));
    GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scroller);

    double y = 0;

    for (guint step = 0; subagent == NULL && step < 200 && y <= gtk_adjustment_get_upper (adjustment); step++)
      {
        y += MAX (gtk_adjustment_get_page_size (adjustment) / 2, 50);
        gtk_adjustment_set_value (adjustment, y);
        pd_test_flush (transcript);
        subagent = find_expander_prefix (transcript, "Subagent");
      }
  }
  g_assert_nonnull (subagent);
  g_assert_false (gtk_expander_get_expanded (subagent));
  /* Under a tool call's row. */
  g_assert_nonnull (gtk_widget_get_ancestor (GTK_WIDGET (subagent), PD_TYPE_MESSAGE_ROW));
  g_assert_nonnull (find_expander_prefix (gtk_widget_get_parent (GTK_WIDGET (subagent)), "Tool call: "));

  gtk_expander_set_expanded (subagent, TRUE);
  box = gtk_expander_get_child (subagent);
  for (GtkWidget *child = gtk_widget_get_first_child (box); child; child = gtk_widget_get_next_sibling (child))
    if (PD_IS_MESSAGE_ROW (child))
      n_rows++;
  /* The subagent's prompt, its TaskUpdate calls and their results. */
  g_assert_cmpuint (n_rows, >=, 3);
  g_assert_nonnull (find_expander_prefix (box, "Tool call: \342\201\250TaskUpdate\342\201\251"));
  gtk_expander_set_expanded (subagent, FALSE);
}

/* Long tool output shows its first lines, the rest folded. */
static void
check_tool_output_folded (GtkWidget *transcript)
{
  GtkExpander *fold = find_expander_prefix (transcript, "Show all (");

  g_assert_nonnull (fold);
  g_assert_false (gtk_expander_get_expanded (fold));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (fold)));
}

static gboolean
is_mapped_label_with_prefix (GtkWidget     *widget,
                             gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), data);
}

/* The user unticks the agent's first item (done by the agent). */
static void
untick_first_item (PdSessionStore *store,
                   const char     *id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdImportedSession) session = pd_import_index_load_session (store, id, &error);
  PdChecklist *checklist;

  g_assert_no_error (error);
  checklist = pd_imported_session_get_checklist (session);
  pd_checklist_set_checked (checklist, 0, FALSE);
  g_assert_true (pd_import_index_save_annotations (store, id, checklist, &error));
  g_assert_no_error (error);
}

/* Claude Code's plan mode: the newest version marks the step the user
 * unticked, and both plan documents follow, with their answers. */
static gboolean
documents_shown (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_mapped_label_with_prefix, "Approved · ") != NULL;
}

static void
check_history_marks_and_documents (GtkWidget *history)
{
  pd_test_wait_until (documents_shown, history, "the plan documents in History");
  g_assert_nonnull (pd_test_find_first (history, is_mapped_label_with_prefix, "Unticked by you"));
  g_assert_nonnull (pd_test_find_first (history, is_mapped_label_with_prefix, "Plan Documents"));
  g_assert_nonnull (pd_test_find_first (history, is_mapped_label_with_prefix, "Rejected · "));
  g_assert_nonnull (pd_test_find_first (history, is_mapped_label_with_prefix, "Approved · "));
}

static void check_each_session (PagesRun       *run,
                                PdWindow       *window,
                                AdwViewStack   *views,
                                GtkWidget      *transcript,
                                GtkWidget      *history,
                                GtkWidget      *events,
                                PdSessionStore *store);

static void
check_pages (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  PagesRun *run = user_data;
  AdwViewStack *views = ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  GtkWidget *transcript = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_TRANSCRIPT_VIEW);
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  GtkWidget *events = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW);
  g_autoptr(PdSessionStore) store = NULL;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  for (guint i = 0; i < run->n_cases; i++)
    {
      FindWait find = { window, run->cases[i].title_prefix };

      pd_test_wait_until (session_listed, &find, run->cases[i].title_prefix);
    }
  pd_test_wait_until (import_done, window, "the import to end");
  store = pd_test_open_store (run->db_path);

  /* A case with no title stands for every session listed. */
  {
    GListModel *model = G_LIST_MODEL (pd_session_list_get_model (session_list (window)));
    g_autoptr(GArray) expanded = g_array_new (FALSE, FALSE, sizeof (PageCase));
    g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; i < run->n_cases; i++)
      {
        if (run->cases[i].title_prefix[0] != '\0')
          {
            g_array_append_val (expanded, run->cases[i]);
            continue;
          }
        for (guint j = 0; j < g_list_model_get_n_items (model); j++)
          {
            g_autoptr(PdSessionItem) listed = g_list_model_get_item (model, j);
            PageCase each = { run->cases[i].agent, NULL, -1 };

            g_ptr_array_add (titles, g_strdup (pd_session_item_get_title (listed)));
            each.title_prefix = g_ptr_array_index (titles, titles->len - 1);
            g_array_append_val (expanded, each);
          }
      }
    g_assert_cmpuint (expanded->len, >, 0);
    run->cases = (const PageCase *) expanded->data;
    run->n_cases = expanded->len;
    check_each_session (run, window, views, transcript, history, events, store);
  }
}

static void
check_each_session (PagesRun       *run,
                    PdWindow       *window,
                    AdwViewStack   *views,
                    GtkWidget      *transcript,
                    GtkWidget      *history,
                    GtkWidget      *events,
                    PdSessionStore *store)
{
  for (guint i = 0; i < run->n_cases; i++)
    {
      const PageCase *c = &run->cases[i];
      FindWait find = { window, c->title_prefix };
      g_autoptr(JsonArray) messages = NULL;
      g_autoptr(GPtrArray) versions = NULL;
      g_autoptr(GPtrArray) stored_events = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(PdSessionItem) item = NULL;
      g_autofree char *id = NULL;
      PageWait wait;
      g_autofree char *what = NULL;

      pd_test_wait_until (session_listed, &find, c->title_prefix);
      item = find_session (window, c->title_prefix);
      /* The list may replace its items on a refresh: the id is copied. */
      id = g_strdup (pd_session_item_get_id (item));
      g_assert_true (pd_session_item_is_imported (item));
      if (g_str_equal (c->agent, "claude-code-plan-mode"))
        untick_first_item (store, id);
      g_assert_true (pd_session_list_select (session_list (window), id));

      /* What the core reads of the transcript, asked on its own. */
      messages = pd_session_reads_load_messages (store, id, &error);
      g_assert_no_error (error);
      versions = pd_session_reads_list_plan_versions (store, id, &error);
      g_assert_no_error (error);
      stored_events = pd_session_reads_list_events (store, id, NULL, 0, 0, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (json_array_get_length (messages), >, 0);
      g_assert_cmpuint (stored_events->len, >, 0);
      if (c->n_versions >= 0)
        g_assert_cmpuint (versions->len, ==, (guint) c->n_versions);

      /* Transcript: every message. */
      adw_view_stack_set_visible_child_name (views, "transcript");
      wait = (PageWait) { transcript, pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (transcript)), id,
                          json_array_get_length (messages) };
      what = g_strdup_printf ("the Transcript of %s", c->title_prefix);
      pd_test_wait_until (page_filled, &wait, what);
      assert_not_empty_page (transcript, what);
      assert_fits (window, run->width, what);
      if (g_str_equal (c->agent, "claude-code-tasks"))
        check_subagent_nested (transcript);
      if (g_str_equal (c->agent, "claude-code-plan-mode"))
        check_tool_output_folded (transcript);

      /* History: one version per applied update. */
      adw_view_stack_set_visible_child_name (views, "history");
      g_free (what);
      what = g_strdup_printf ("the History of %s", c->title_prefix);
      wait = (PageWait) { history, pd_history_view_get_model (PD_HISTORY_VIEW (history)), id, versions->len };
      pd_test_wait_until (page_filled, &wait, what);
      if (versions->len > 0)
        assert_not_empty_page (history, what);
      if (g_str_equal (c->agent, "claude-code-plan-mode"))
        check_history_marks_and_documents (history);
      assert_fits (window, run->width, what);

      /* Events: the tool calls and plan updates. */
      adw_view_stack_set_visible_child_name (views, "events");
      g_free (what);
      what = g_strdup_printf ("the Events of %s", c->title_prefix);
      wait = (PageWait) { events, pd_events_view_get_model (PD_EVENTS_VIEW (events)), id,
                          MIN (stored_events->len, PD_EVENTS_VIEW_LATEST_MAX) };
      pd_test_wait_until (page_filled, &wait, what);
      assert_not_empty_page (events, what);
      /* Types in words, as on every page. */
      g_assert_null (pd_test_find_first (events, is_mapped_label_with_prefix, "tool_call_"));
      assert_fits (window, run->width, what);
    }
}

/* A home of the test's own holding @fixtures' transcripts of every agent,
 * and an empty database in it. */
static char *
make_home (const char *fixtures,
           char      **db_path)
{
  char *home = pd_test_make_tmp_dir ();
  g_autofree char *claude = g_build_filename (home, "claude", NULL);
  g_autofree char *codex = g_build_filename (home, "codex", NULL);
  g_autofree char *claude_from = g_build_filename (fixtures, "claude-code", NULL);
  g_autofree char *claude_to = g_build_filename (claude, "projects", NULL);
  g_autofree char *codex_from = g_build_filename (fixtures, "codex", NULL);
  g_autofree char *opencode_from = g_build_filename (fixtures, "opencode", "storage", NULL);
  /* GLib reads XDG_DATA_HOME once: main() set it to a folder of this test. */
  g_autofree char *opencode_to = g_build_filename (g_get_user_data_dir (), "opencode", "storage", NULL);

  pd_test_copy_tree (claude_from, claude_to);
  /* The shared recordings hold Codex and OpenCode files in no agent's
   * layout: only what is laid out as the agents store it is copied. */
  {
    g_autofree char *codex_sessions = g_build_filename (codex_from, "sessions", NULL);

    if (g_file_test (codex_sessions, G_FILE_TEST_IS_DIR))
      pd_test_copy_tree (codex_from, codex);
  }
  if (g_file_test (opencode_from, G_FILE_TEST_IS_DIR))
    pd_test_copy_tree (opencode_from, opencode_to);
  g_setenv ("CLAUDE_CONFIG_DIR", claude, TRUE);
  g_setenv ("CODEX_HOME", codex, TRUE);

  *db_path = g_build_filename (home, "sessions.db", NULL);
  {
    g_autoptr(PdDb) created = pd_db_open (*db_path, PD_DB_CREATE, NULL);

    g_assert_nonnull (created);
  }
  return home;
}

static void
run_pages (const PageCase *cases,
           guint           n_cases,
           const char     *fixtures,
           int             width)
{
  g_autofree char *db = NULL;
  g_autofree char *home = make_home (fixtures, &db);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  PagesRun run = { cases, n_cases, db, width };

  pd_test_reset_settings ();
  if (width > 0)
    {
      g_settings_set_int (settings, "window-width", width);
      g_settings_set_int (settings, "window-height", 720);
    }
  g_assert_cmpint (pd_test_run_app (args, check_pages, &run, NULL), ==, 0);
}

static void
test_pages_own (void)
{
  run_pages (own_cases, G_N_ELEMENTS (own_cases), g_getenv ("PD_FIXTURES_DIR"), 0);
}

/* The third-party Claude Code recordings of ../shared/fixtures: every
 * session of them, each page against the core's own count.  (Their Codex
 * and OpenCode files are single files and storage snapshots the window's
 * import does not find in an agent's layout: the core tests read those.) */
static const PageCase shared_cases[] = {
  { "shared-claude-code-log-sample", "", -1 },
};

static void
test_pages_shared (void)
{
  const char *fixtures = g_getenv ("PD_SHARED_FIXTURES_DIR");
  g_autofree char *claude = fixtures ? g_build_filename (fixtures, "claude-code", NULL) : NULL;

  if (claude == NULL || !g_file_test (claude, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("../shared/fixtures (the third-party recordings) is not beside the source tree: this extra "
                   "check is skipped; /pd/ui/imported-pages/own ran on the project's own fixtures");
      return;
    }
  run_pages (shared_cases, G_N_ELEMENTS (shared_cases), fixtures, 0);
}

static void
test_pages_own_narrow (void)
{
  run_pages (own_cases, G_N_ELEMENTS (own_cases), g_getenv ("PD_FIXTURES_DIR"), 360);
}

/* --- continue in the agent, and undo an override -------------------------- */

typedef struct
{
  const char *db_path;
  const char *record;     /* where the fake terminal writes what it was given */
} ResumeRun;

static gboolean
is_visible_resume_bar (GtkWidget     *widget,
                       gconstpointer  data)
{
  return gtk_widget_has_css_class (widget, "pd-resume-bar") && gtk_widget_get_mapped (widget);
}

static gboolean
resume_shown (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_visible_resume_bar, NULL) != NULL;
}

static gboolean
is_button_with_tooltip (GtkWidget     *widget,
                        gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_widget_get_tooltip_text (widget), data) == 0;
}

static gboolean
is_label_with_prefix (GtkWidget     *widget,
                      gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), data);
}

static gboolean
is_undo_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Undo") == 0;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static gboolean
undo_shown (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_undo_button, NULL) != NULL;
}

static gboolean
checklist_ready (gpointer data)
{
  PdChecklistView *view = data;

  return pd_checklist_view_get_checklist (view) != NULL && !pd_checklist_view_is_busy (view) &&
         gtk_widget_get_mapped (GTK_WIDGET (view));
}

/* The sidebar's row of the session and the Now page agree on the counts. */
typedef struct
{
  PdWindow        *window;
  PdChecklistView *view;
  const char      *id;
  guint            done;
} CountsWait;

static gboolean
counts_agree (gpointer data)
{
  CountsWait *wait = data;
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (session_list (wait->window)));
  PdChecklist *checklist = pd_checklist_view_get_checklist (wait->view);
  guint done = 0, total = 0, in_progress = 0;

  if (checklist == NULL || pd_checklist_view_is_busy (wait->view))
    return FALSE;
  pd_checklist_count (checklist, &done, &total, &in_progress);
  if (done != wait->done)
    return FALSE;
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      const PdSessionInfo *info = pd_session_item_get_info (item);

      if (g_strcmp0 (pd_session_item_get_id (item), wait->id) == 0)
        return info->plan_done == done && info->plan_total == total;
    }
  return FALSE;
}

static void
check_resume_and_undo (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  ResumeRun *run = user_data;
  FindWait find = { window, "Upload rate limits" };
  g_autoptr(PdSessionItem) item = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  g_autofree char *id = NULL;
  GtkWidget *bar;
  GtkWidget *button;
  PdChecklistView *checklist_view;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.import-transcripts", NULL);
  pd_test_wait_until (session_listed, &find, find.title_prefix);
  pd_test_wait_until (import_done, window, "the import to end");
  item = find_session (window, find.title_prefix);
  id = g_strdup (pd_session_item_get_id (item));
  g_assert_true (pd_session_list_select (session_list (window), id));

  /* The core's answer, asked on its own: Claude Code's own command. */
  store = pd_test_open_store (run->db_path);
  g_assert_true (pd_session_reads_get_resume (store, id, &argv, &workdir, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (argv[0], ==, "claude");
  g_assert_cmpstr (argv[1], ==, "--resume");

  /* The Now page offers it, with Copy and Open in Terminal. */
  pd_test_wait_until (resume_shown, window, "the command that continues the session");
  bar = pd_test_find_first (GTK_WIDGET (window), is_visible_resume_bar, NULL);
  g_assert_nonnull (pd_test_find_label (bar, "Continue in Claude Code"));
  {
    g_autofree char *line = g_strjoinv (" ", argv);

    g_assert_nonnull (pd_test_find_label (bar, line));
  }

  button = pd_test_find_first (bar, is_button_with_tooltip, "Copy the Command");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  {
    GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (GTK_WIDGET (window)));
    g_auto(GValue) value = G_VALUE_INIT;
    g_autofree char *line = g_strjoinv (" ", argv);
    g_autofree char *quoted = g_shell_quote (workdir);
    g_autofree char *in_folder = g_strdup_printf ("cd %s && %s", quoted, line);
    g_autofree char *runs_in = g_strdup_printf ("Runs in %s", workdir);

    /* The folder on the page, and Copy goes there first: the agents keep
     * their sessions per folder (tried as a new user would). */
    g_assert_nonnull (workdir);
    g_assert_nonnull (pd_test_find_label (bar, runs_in));
    g_assert_true (gtk_widget_is_visible (pd_test_find_label (bar, runs_in)));
    g_assert_nonnull (content);
    g_value_init (&value, G_TYPE_STRING);
    g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
    g_assert_cmpstr (g_value_get_string (&value), ==, in_folder);
  }

  /* Open in Terminal: the terminal gets the command as separate words. */
  button = pd_test_find_first (bar, is_button_with_tooltip, "Open in Terminal");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  pd_test_wait_until (file_exists, (gpointer) run->record, "the terminal to start");
  {
    g_autofree char *recorded = NULL;
    g_auto(GStrv) lines = NULL;

    /* Written whole by the script before it renames the file in place. */
    g_assert_true (g_file_get_contents (run->record, &recorded, NULL, NULL));
    lines = g_strsplit (recorded, "\n", -1);
    for (guint i = 0; argv[i] != NULL; i++)
      g_assert_cmpstr (lines[i], ==, argv[i]);
    g_assert_cmpstr (lines[g_strv_length (argv)], ==, "");
  }

  /* Unticking the agent's first item shows a toast; Undo puts it back. */
  checklist_view = PD_CHECKLIST_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_CHECKLIST_VIEW));
  pd_test_wait_until (checklist_ready, checklist_view, "the checklist");

  /* The page names the session: the header shows the page switcher at a
   * wide window, and only the agent's name headed the page (tried as a new
   * user would). */
  {
    g_autofree char *shown = g_strconcat ("\xe2\x81\xa8", pd_session_item_get_title (item), "\xe2\x81\xa9", NULL);
    GtkWidget *title = pd_test_find_mapped_label (GTK_WIDGET (checklist_view), shown);

    g_assert_true (g_str_has_prefix (pd_session_item_get_title (item), find.title_prefix));
    g_assert_nonnull (title);
    g_assert_true (gtk_widget_get_mapped (title));
  }
  {
    PdChecklist *checklist = pd_checklist_view_get_checklist (checklist_view);
    GtkWidget *check = pd_test_find_widget (GTK_WIDGET (checklist_view), GTK_TYPE_CHECK_BUTTON);
    gboolean was = gtk_check_button_get_active (GTK_CHECK_BUTTON (check));
    gboolean overridden;

    CountsWait counts = { window, checklist_view, id, 2 };

    g_assert_cmpuint (pd_checklist_get_n_overrides (checklist), ==, 0);
    g_assert_true (was);
    pd_test_wait_until (counts_agree, &counts, "the sidebar and the Now page at 2 of 3");
    gtk_check_button_set_active (GTK_CHECK_BUTTON (check), !was);
    g_assert_cmpuint (pd_checklist_get_n_overrides (pd_checklist_view_get_checklist (checklist_view)), ==, 1);
    /* Once saved, the sidebar's pill says what the Now page says. */
    counts.done = 1;
    pd_test_wait_until (counts_agree, &counts, "the sidebar and the Now page at 1 of 3");
    pd_test_wait_until (undo_shown, window, "the toast with Undo");
    g_assert_nonnull (pd_test_find_first (GTK_WIDGET (window), is_label_with_prefix,
                                          /* the item isolated (U+2068): its text cannot reorder ours */
                                          was ? "Unticked “\u2068Write a token bucket" : "Ticked “\u2068Write a token bucket"));
    g_signal_emit_by_name (pd_test_find_first (GTK_WIDGET (window), is_undo_button, NULL), "clicked");
    pd_test_flush (GTK_WIDGET (window));
    check = pd_test_find_widget (GTK_WIDGET (checklist_view), GTK_TYPE_CHECK_BUTTON);
    g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)) == was);
    checklist = pd_checklist_view_get_checklist (checklist_view);
    g_assert_false (pd_checklist_get_override (checklist, 0, &overridden));
    pd_test_wait_until (checklist_ready, checklist_view, "the undo to be saved");
    counts.done = 2;
    pd_test_wait_until (counts_agree, &counts, "the sidebar and the Now page back at 2 of 3");
  }
  {
    g_autoptr(PdImportedSession) session = pd_import_index_load_session (store, id, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (pd_checklist_get_n_overrides (pd_imported_session_get_checklist (session)), ==, 0);
  }
}

/* A terminal of the test's own on PATH, first of those Plandeck knows:
 * it writes the words it was given, one a line, to @record. */
static void
test_resume_and_undo (void)
{
  g_autofree char *db = NULL;
  g_autofree char *home = make_home (g_getenv ("PD_FIXTURES_DIR"), &db);
  g_autofree char *bin = g_build_filename (home, "bin", NULL);
  g_autofree char *terminal = g_build_filename (bin, "xdg-terminal-exec", NULL);
  g_autofree char *record = g_build_filename (home, "terminal-args", NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s.tmp'\nmv '%s.tmp' '%s'\n",
                                             record, record, record);
  g_autofree char *path = g_strconcat (bin, ":", g_getenv ("PATH"), NULL);
  const char *args[] = { "--db", db, NULL };
  ResumeRun run = { db, record };

  g_assert_cmpint (g_mkdir_with_parents (bin, 0700), ==, 0);
  g_assert_true (g_file_set_contents (terminal, script, -1, NULL));
  g_assert_cmpint (g_chmod (terminal, 0700), ==, 0);
  g_setenv ("PATH", path, TRUE);

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_resume_and_undo, &run, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data = g_dir_make_tmp ("pd-imported-pages-XXXXXX", NULL);

  /* OpenCode's storage is found under the user data folder, which GLib
   * reads once: a folder of this test's own, set before anything reads it. */
  g_assert_nonnull (data);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/imported-pages/own", test_pages_own);
  g_test_add_func ("/pd/ui/imported-pages/own-narrow", test_pages_own_narrow);
  g_test_add_func ("/pd/ui/imported-pages/shared", test_pages_shared);
  g_test_add_func ("/pd/ui/imported-pages/resume-and-undo", test_resume_and_undo);

  return g_test_run ();
}

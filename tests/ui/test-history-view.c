/* test-history-view.c: how a session's plan changed, version by version
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real PdHistoryView on a real database; plan versions are saved through
 * the session store as a run saves them.
 */
#define G_LOG_DOMAIN "test-history-view"

#include "config.h"

#include <glib/gstdio.h>

#include <string.h>

#include "pd-history-view.h"
#include "pd-import-index.h"
#include "pd-plan-version-item.h"
#include "pd-poll-timer.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"
#include "pd-transcript-pages.h"

/* First strong isolate and pop directional isolate, in UTF-8: the plan's
 * text in our sentences sits inside them. */
#define FSI "\342\201\250"
#define PDI "\342\201\251"
#define ISO(text) FSI text PDI

typedef struct
{
  GListModel *model;
  guint       n;
} CountWait;

static gboolean
has_n_items (gpointer user_data)
{
  CountWait *wait = user_data;

  return g_list_model_get_n_items (wait->model) == wait->n;
}

static PdPlanStep *
add_step (PdPlanState      *state,
          const char       *id,
          const char       *title,
          PdPlanStepStatus  status)
{
  PdPlanStep *step = pd_plan_step_new (id, title);

  step->status = status;
  g_ptr_array_add (state->steps, step);
  return step;
}

static PdPlanStep *
step (PdPlanState *state,
      const char  *id)
{
  PdPlanStep *found = pd_plan_state_find_step (state, id, NULL);

  g_assert_nonnull (found);
  return found;
}

/* v1: three pending steps, s2 with a check.
 * v2: s1 done, s2 in progress, s3 removed, s4 added, a revision.
 * v3: s2's check passed with call_x, s2 renamed to markup-looking text. */
static void
save_three_versions (PdTestDb   *db,
                     const char *id)
{
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();
  PdPlanStep *s2;
  PdPlanCheck *check;

  plan->version = 1;
  add_step (plan, "s1", "Read the parser", PD_PLAN_STEP_PENDING);
  s2 = add_step (plan, "s2", "Fix the parser", PD_PLAN_STEP_PENDING);
  g_ptr_array_add (s2->checks, pd_plan_check_new ("c1", "tests pass", "shell", "{\"command\":\"make check\"}"));
  g_ptr_array_add (s2->checks, pd_plan_check_new ("c2", "lint is clean", "shell", "{\"command\":\"make lint\"}"));
  add_step (plan, "s3", "Write docs", PD_PLAN_STEP_PENDING);
  pd_test_db_save (db, id, NULL, 0, plan);

  plan->version = 2;
  step (plan, "s1")->status = PD_PLAN_STEP_DONE;
  step (plan, "s2")->status = PD_PLAN_STEP_IN_PROGRESS;
  pd_plan_step_set_note (step (plan, "s2"), "the lexer drops <b> tags");
  g_ptr_array_remove_index (plan->steps, 2);
  add_step (plan, "s4", "Add a regression test", PD_PLAN_STEP_PENDING);
  plan->revision = pd_plan_revision_new ("docs moved to a later session");
  pd_plan_revision_add (plan->revision, "dropped s3");
  pd_test_db_save (db, id, NULL, 0, plan);

  plan->version = 3;
  s2 = step (plan, "s2");
  check = g_ptr_array_index (s2->checks, 0);
  check->status = PD_PLAN_CHECK_PASSED;
  check->call_id = g_strdup ("call_x");
  g_free (s2->title);
  s2->title = g_strdup ("Fix the <b>parser</b>");
  pd_test_db_save (db, id, NULL, 0, plan);
}

/* Everything a row draws lies inside the row: a chip laid out on a line the
 * row did not measure would be drawn over the next step. */
static void
assert_rows_hold_their_children (GtkWidget *root)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  pd_test_collect (root, GTK_TYPE_LIST_BOX_ROW, rows);
  g_assert_cmpuint (rows->len, >, 0);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();

      pd_test_collect (row, GTK_TYPE_LABEL, labels);
      for (guint j = 0; j < labels->len; j++)
        {
          GtkWidget *label = g_ptr_array_index (labels, j);
          graphene_rect_t bounds;

          if (!gtk_widget_get_mapped (label))
            continue;
          g_assert_true (gtk_widget_compute_bounds (label, row, &bounds));
          if (bounds.origin.y + bounds.size.height > gtk_widget_get_height (row) + 0.5)
            g_error ("“%s” is drawn below its row (%.0f > %d)", gtk_label_get_text (GTK_LABEL (label)),
                     bounds.origin.y + bounds.size.height, gtk_widget_get_height (row));
        }
    }
}

static void
test_history_lists_versions_and_changes (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func (g_object_unref);
  GtkWidget *view = pd_history_view_new ();
  GtkWindow *window;
  GListModel *model;
  CountWait wait;
  GtkWidget *label;

  save_three_versions (db, id);
  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);

  model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.model = model;
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  for (guint i = 0; i < 3; i++)
    {
      PdPlanVersionItem *item = g_list_model_get_item (model, i);

      g_assert_cmpint (pd_plan_version_item_get_version (item), ==, i + 1);
      g_ptr_array_add (before, item);
    }
  g_assert_true (g_str_has_prefix (pd_plan_version_item_get_label (g_ptr_array_index (before, 0)), "v1 · "));
  g_assert_true (g_str_has_suffix (pd_plan_version_item_get_label (g_ptr_array_index (before, 0)), " · 0/3 done"));
  g_assert_true (g_str_has_suffix (pd_plan_version_item_get_label (g_ptr_array_index (before, 1)), " · 1/3 done"));

  /* The newest version is shown first. */
  g_assert_cmpint (pd_history_view_get_selected_version (PD_HISTORY_VIEW (view)), ==, 3);
  gtk_test_widget_wait_for_draw (view);
  g_assert_nonnull (pd_test_find_label (view, "Plan — v3 · 1/3 done"));
  g_assert_nonnull (pd_test_find_label (view, "Changes from v2"));
  g_assert_nonnull (pd_test_find_label (view, ISO ("c1") ": pending → passed (" ISO ("call_x") ")"));
  assert_rows_hold_their_children (view);
  g_assert_nonnull (pd_test_find_label (view, ISO ("s2") " renamed: “" ISO ("Fix the parser") "” → “" ISO ("Fix the <b>parser</b>") "”"));
  /* Plan text is plain: the title shows its brackets. */
  label = pd_test_find_label (view, "Fix the <b>parser</b>");
  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_true (gtk_widget_get_mapped (label));
  /* A check by its text, as the Now page names it; it read "c1 · passed"
   * (the demo's "tests · passed" beside the Now page's "the greeting test
   * passes", tried as a new user would, nu15). */
  g_assert_nonnull (pd_test_find_label (view, "tests pass · passed"));
  g_assert_null (pd_test_find_label (view, "c1 · passed"));

  /* v2 against v1: added, removed, status changes, note, revision. */
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 2));
  gtk_test_widget_wait_for_draw (view);
  g_assert_nonnull (pd_test_find_label (view, "Changes from v1"));
  g_assert_nonnull (pd_test_find_label (view, "Removed " ISO ("s3") ": " ISO ("Write docs")));
  g_assert_nonnull (pd_test_find_label (view, "Added " ISO ("s4") ": " ISO ("Add a regression test")));
  g_assert_nonnull (pd_test_find_label (view, ISO ("s1") ": Pending → Done"));
  g_assert_nonnull (pd_test_find_label (view, ISO ("s2") ": Pending → In progress"));
  g_assert_nonnull (pd_test_find_label (view, ISO ("s2") " note: “" ISO ("the lexer drops <b> tags") "”"));
  g_assert_nonnull (pd_test_find_label (view, "Revised: " ISO ("docs moved to a later session") " — " ISO ("dropped s3")));
  g_assert_nonnull (pd_test_find_label (view, "Revision reason: " ISO ("docs moved to a later session")));
  g_assert_null (pd_test_find_label (view, ISO ("c1") ": pending → passed (" ISO ("call_x") ")"));
  /* The plan as it was: s3 is gone, s4 is there. */
  g_assert_null (pd_test_find_label (view, "Write docs"));
  g_assert_nonnull (pd_test_find_label (view, "Add a regression test"));
  pd_test_screenshot (GTK_WIDGET (window), "history");

  /* v1 is the first version. */
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 1));
  g_assert_nonnull (pd_test_find_label (view, "First version"));
  g_assert_nonnull (pd_test_find_label (view, "Added " ISO ("s3") ": " ISO ("Write docs")));

  /* A new version lands: appended, the others keep their items, and the
   * person reading v1 keeps reading v1. */
  {
    g_autoptr(PdPlanState) v4 = pd_plan_state_new_from_json (
      pd_plan_version_item_get_state_json (g_ptr_array_index (before, 2)), NULL);

    g_assert_nonnull (v4);
    v4->version = 4;
    step (v4, "s2")->status = PD_PLAN_STEP_DONE;
    pd_test_db_save (db, id, NULL, 0, v4);
  }
  pd_history_view_refresh (PD_HISTORY_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GObject) now = g_list_model_get_item (model, i);

      g_assert_true (now == g_ptr_array_index (before, i));
    }
  g_assert_cmpint (pd_history_view_get_selected_version (PD_HISTORY_VIEW (view)), ==, 1);

  /* Only a check's evidence changes (another call passed it): said as
   * that, not as "passed → passed" (tried as a new user would: "tests:
   * blocked → blocked"). */
  {
    g_autoptr(PdPlanState) v5 = pd_plan_state_new_from_json (
      pd_plan_version_item_get_state_json (g_ptr_array_index (before, 2)), NULL);
    PdPlanCheck *check;

    g_assert_nonnull (v5);
    v5->version = 5;
    check = g_ptr_array_index (step (v5, "s2")->checks, 0);
    g_free (check->call_id);
    check->call_id = g_strdup ("call_y");
    pd_test_db_save (db, id, NULL, 0, v5);
  }
  pd_history_view_refresh (PD_HISTORY_VIEW (view));
  wait.n = 5;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 5));
  gtk_test_widget_wait_for_draw (view);
  g_assert_nonnull (pd_test_find_label (view, "Changes from v4"));
  g_assert_nonnull (pd_test_find_label (view, ISO ("c1") ": still passed, evidence now from " ISO ("call_y")));
  g_assert_null (pd_test_find_label_containing (view, "passed → passed"));

  pd_test_destroy_window (window, view);
}

/* As an attacker would write a plan: a right-to-left override (U+202E)
 * in a step's title, its note and the revision reason, which, obeyed,
 * reverses the rest of our sentence ("renamed", "→").  Each is shown as
 * <U+202E> inside an isolate of its own. */
#define RLO "\342\200\256"

static void
test_history_bidi_isolates (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Bidi");
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();
  GtkWidget *view = pd_history_view_new ();
  GtkWindow *window;
  CountWait wait;

  plan->version = 1;
  add_step (plan, "s1", "Ship " RLO "exe.txt", PD_PLAN_STEP_PENDING);
  pd_test_db_save (db, id, NULL, 0, plan);
  plan->version = 2;
  g_free (step (plan, "s1")->title);
  step (plan, "s1")->title = g_strdup ("Ship " RLO "fdp.exe");
  pd_plan_step_set_note (step (plan, "s1"), "see " RLO "it");
  plan->revision = pd_plan_revision_new ("undo " RLO "it");
  pd_test_db_save (db, id, NULL, 0, plan);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 2;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 2));
  gtk_test_widget_wait_for_draw (view);

  g_assert_nonnull (pd_test_find_label (view, ISO ("s1") " renamed: “" ISO ("Ship <U+202E>exe.txt") "” → “"
                                              ISO ("Ship <U+202E>fdp.exe") "”"));
  g_assert_nonnull (pd_test_find_label (view, ISO ("s1") " note: “" ISO ("see <U+202E>it") "”"));
  g_assert_nonnull (pd_test_find_label (view, "Revised: " ISO ("undo <U+202E>it")));
  g_assert_nonnull (pd_test_find_label (view, "Revision reason: " ISO ("undo <U+202E>it")));
  /* The version's steps as they are: the title and note shown by name too
   * (tried as an attacker would: they reversed what followed). */
  g_assert_nonnull (pd_test_find_label (view, "Ship <U+202E>fdp.exe"));
  g_assert_nonnull (pd_test_find_label (view, "see <U+202E>it"));

  pd_test_destroy_window (window, view);
}

static void
test_history_status_glyphs_are_named (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(GPtrArray) images = g_ptr_array_new ();
  GtkWidget *view = pd_history_view_new ();
  GtkWindow *window;
  CountWait wait;
  guint named = 0;

  save_three_versions (db, id);
  window = pd_test_present (view, 900, 700);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));

  /* Each step's glyph says its status in words too (tooltip, a11y label). */
  pd_test_collect (view, GTK_TYPE_IMAGE, images);
  for (guint i = 0; i < images->len; i++)
    {
      GtkWidget *image = g_ptr_array_index (images, i);
      const char *tooltip = gtk_widget_get_tooltip_text (image);

      /* A step's glyph, not a check's (a passed check has the same). */
      if (!gtk_widget_has_css_class (image, "pd-step-done") && !gtk_widget_has_css_class (image, "pd-step-pending"))
        continue;
      if (g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (image)), "emblem-ok-symbolic") == 0)
        {
          g_assert_cmpstr (tooltip, ==, "Done");
          named++;
        }
      else if (g_strcmp0 (gtk_image_get_icon_name (GTK_IMAGE (image)), "content-loading-symbolic") == 0)
        {
          g_assert_cmpstr (tooltip, ==, "Pending");
          named++;
        }
    }
  g_assert_cmpuint (named, ==, 2);   /* v3: s1 done, s4 pending */

  pd_test_destroy_window (window, view);
}

static gboolean
label_shown (gpointer user_data)
{
  gpointer *args = user_data;
  GtkWidget *label = pd_test_find_label (args[0], args[1]);

  return label != NULL && gtk_widget_get_mapped (label);
}

/* An approved plan artifact (exit_plan_mode) is listed and can be opened. */
static void
test_history_lists_approved_plans (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Plan first");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-artifact-ui-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "20261130T030405Z-greeting-fix.md", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  GtkWidget *view = pd_history_view_new ();
  GtkWindow *window;
  gpointer args[2];
  gboolean has_open = FALSE;

  g_assert_true (g_file_set_contents (path, "# Greeting fix\n", -1, NULL));
  save_three_versions (db, id);
  {
    g_autoptr(JsonObject) object = json_object_new ();
    g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

    json_object_set_string_member (object, "path", path);
    json_node_set_object (node, object);
    data = json_to_string (node, FALSE);
  }
  /* One with a path of another type (another writer's, or a remote
   * server's) is passed over, not read as a string (a critical). */
  pd_test_db_add_event (db, id, "plan_artifact_saved", "exit_plan_mode", 2, "{\"path\":{\"name\":\"x.md\"}}");
  pd_test_db_add_event (db, id, "plan_artifact_saved", "exit_plan_mode", 2, data);
  pd_test_db_add_event (db, id, "plan_artifact_saved", "exit_plan_mode", 2, "{\"path\":[\"y.md\"]}");

  window = pd_test_present (view, 900, 800);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);

  args[0] = view;
  args[1] = (gpointer) "20261130T030405Z-greeting-fix.md";
  g_assert_true (pd_test_wait_for (label_shown, args));
  g_assert_nonnull (pd_test_find_label (view, "Approved Plans"));

  pd_test_collect (view, GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (buttons, i)), "Open") == 0)
      has_open = TRUE;
  g_assert_true (has_open);
  g_assert_null (pd_test_find_label (view, "x.md"));
  g_assert_null (pd_test_find_label (view, "y.md"));

  pd_test_destroy_window (window, view);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_history_empty_and_switch (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *with_plan = pd_test_db_create_session (db, "with a plan");
  g_autofree char *without = pd_test_db_create_session (db, "without a plan");
  GtkWidget *view = pd_history_view_new ();
  AdwStatusPage *status;
  GtkWindow *window;
  CountWait wait;

  save_three_versions (db, with_plan);
  window = pd_test_present (view, 800, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), with_plan);
  /* Switched before the reply came: it is dropped. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), without);
  pd_test_spin (400);

  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 0;
  g_assert_true (has_n_items (&wait));
  status = ADW_STATUS_PAGE (pd_test_find_widget (view, ADW_TYPE_STATUS_PAGE));
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "No Plan Versions Yet");
  gtk_test_widget_wait_for_draw (view);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (status)));

  pd_session_view_set_session_id (PD_SESSION_VIEW (view), with_plan);
  pd_history_view_refresh (PD_HISTORY_VIEW (view));
  pd_test_destroy_window (window, view);
  pd_test_spin (300);
}

static gboolean
is_mapped_label_with_prefix (GtkWidget     *widget,
                             gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), data);
}

/* Versions a turn replaced before it was saved (v2, v3, v5) are not in the
 * list, and one line says which and why; without gaps, no such line. */
static void
test_history_says_why_versions_are_missing (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autofree char *complete = pd_test_db_create_session (db, "Fix the lexer");
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();
  const gint64 saved[] = { 1, 4, 6 };
  GtkWidget *view = pd_history_view_new ();
  GtkWindow *window;
  CountWait wait;
  GtkWidget *label;

  add_step (plan, "s1", "Read the parser", PD_PLAN_STEP_PENDING);
  add_step (plan, "s2", "Fix the parser", PD_PLAN_STEP_PENDING);
  for (guint i = 0; i < G_N_ELEMENTS (saved); i++)
    {
      plan->version = saved[i];
      step (plan, "s1")->status = i > 0 ? PD_PLAN_STEP_DONE : PD_PLAN_STEP_PENDING;
      pd_test_db_save (db, id, NULL, 0, plan);
    }
  save_three_versions (db, complete);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (view);

  label = pd_test_find_first (view, is_mapped_label_with_prefix, "Not listed:");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "Not listed: v2, v3, v5. The plan changed more than once in one turn, "
                   "and each turn keeps only its last version.");
  pd_test_screenshot (GTK_WIDGET (window), "history-gaps");

  pd_session_view_set_session_id (PD_SESSION_VIEW (view), complete);
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (view);
  g_assert_null (pd_test_find_first (view, is_mapped_label_with_prefix, "Not listed:"));

  pd_test_destroy_window (window, view);
}

/* --- an imported agent's items are named by their text ---------------------- */

/* A change line that names a step by a hash of Plandeck's: "Added
 * f8f8d714: Log each reload". */
static gboolean
is_hash_named_change (GtkWidget     *widget,
                      gconstpointer  data)
{
  g_autoptr(GRegex) hashed = g_regex_new ("^(Added|Removed) " FSI "[0-9a-f]{8,}" PDI ":", 0, 0, NULL);

  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_regex_match (hashed, gtk_label_get_text (GTK_LABEL (widget)), 0, NULL);
}

/* Tried as a new user would: a Gemini CLI session's items have no id of the
 * agent's; History named one by Plandeck's hash of its text.  Each version's
 * changes name its items by their text. */
static void
test_history_names_imported_items (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *lantern = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "gemini", "tmp", "lantern", "chats",
                                               "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  const char *paths[2] = { lantern, NULL };
  GtkWidget *view = pd_history_view_new ();
  gboolean added_by_text = FALSE;
  GtkWindow *window;
  CountWait wait;
  guint n;

  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  n = g_list_model_get_n_items (wait.model);
  for (guint version = 1; version <= n; version++)
    {
      g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), version));
      gtk_test_widget_wait_for_draw (view);
      g_assert_null (pd_test_find_first (view, is_hash_named_change, NULL));
      added_by_text |= pd_test_find_label (view, "Added “" ISO ("Log each reload") "”") != NULL;
    }
  g_assert_true (added_by_text);
  pd_test_destroy_window (window, view);
}


/* The image in the same row as a label saying @data. */
static gboolean
is_row_of_label (GtkWidget     *widget,
                 gconstpointer  data)
{
  GtkWidget *label;

  if (!GTK_IS_LIST_BOX_ROW (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  label = pd_test_find_label (widget, data);
  return label != NULL && gtk_widget_get_mapped (label);
}

/* Tried as a new user would: a Gemini CLI session's cancelled item ("Document
 * the signal") had the red glyph of a blocked step on History, while the
 * checklist struck it out as cancelled and `sessions show` marked it "➖".
 * It has the cancelled glyph, named so; the blocked glyph is nowhere. */
static void
test_history_cancelled_glyph (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) images = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *lantern = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "gemini", "tmp", "lantern", "chats",
                                               "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  const char *paths[2] = { lantern, NULL };
  GtkWidget *view = pd_history_view_new ();
  GtkWidget *row;
  GtkImage *icon;
  GtkWindow *window;
  CountWait wait;

  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 4));
  gtk_test_widget_wait_for_draw (view);

  row = pd_test_find_first (view, is_row_of_label, "Document the signal");
  g_assert_nonnull (row);
  icon = GTK_IMAGE (pd_test_find_widget (row, GTK_TYPE_IMAGE));
  g_assert_cmpstr (gtk_image_get_icon_name (icon), ==, "list-remove-symbolic");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (icon)), ==, "Cancelled");
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (icon), "pd-step-cancelled"));
  /* No step of this version is blocked: no blocked glyph is drawn. */
  pd_test_collect (view, GTK_TYPE_IMAGE, images);
  for (guint i = 0; i < images->len; i++)
    if (gtk_widget_get_mapped (images->pdata[i]))
      g_assert_cmpstr (gtk_image_get_icon_name (images->pdata[i]), !=, "action-unavailable-symbolic");
  pd_test_screenshot_sizes (window, "history-cancelled-glyph");
  pd_test_destroy_window (window, view);
}


/* The glyph of a change row whose text is @text (mapped). */
static const char *
change_glyph (GtkWidget  *view,
              const char *text)
{
  GtkWidget *row = pd_test_find_first (view, is_row_of_label, text);

  g_assert_nonnull (row);
  return gtk_image_get_icon_name (GTK_IMAGE (pd_test_find_widget (row, GTK_TYPE_IMAGE)));
}

/* Tried as a new user would: History said "tests: failed → pending" beside
 * a tick, the glyph of a passed check (every check's change had it).  A
 * status change shows the glyph of the state it came to. */
static void
test_history_change_glyph_is_new_state (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Run the tests");
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();
  GtkWidget *view = pd_history_view_new ();
  PdPlanStep *s1;
  PdPlanCheck *check;
  GtkWindow *window;
  CountWait wait;

  plan->version = 1;
  s1 = add_step (plan, "s1", "Run the tests", PD_PLAN_STEP_IN_PROGRESS);
  check = pd_plan_check_new ("tests", "the tests pass", "shell", "{\"command\":\"make check\"}");
  check->status = PD_PLAN_CHECK_FAILED;
  check->call_id = g_strdup ("call_a");
  g_ptr_array_add (s1->checks, check);
  pd_test_db_save (db, id, NULL, 0, plan);
  plan->version = 2;
  check->status = PD_PLAN_CHECK_PENDING;
  g_clear_pointer (&check->call_id, g_free);
  pd_test_db_save (db, id, NULL, 0, plan);
  plan->version = 3;
  check->status = PD_PLAN_CHECK_PASSED;
  check->call_id = g_strdup ("call_b");
  s1->status = PD_PLAN_STEP_DONE;
  pd_test_db_save (db, id, NULL, 0, plan);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));

  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 2));
  gtk_test_widget_wait_for_draw (view);
  g_assert_cmpstr (change_glyph (view, ISO ("tests") ": failed → pending"), ==, "content-loading-symbolic");
  pd_test_screenshot_sizes (window, "history-check-pending-glyph");

  g_assert_true (pd_history_view_select_version (PD_HISTORY_VIEW (view), 3));
  gtk_test_widget_wait_for_draw (view);
  g_assert_cmpstr (change_glyph (view, ISO ("tests") ": pending → passed (" ISO ("call_b") ")"), ==,
                   "emblem-ok-symbolic");

  pd_test_destroy_window (window, view);
}

/* --- another agent's long history ------------------------------------------ */

G_STATIC_ASSERT (PD_PLAN_VERSION_ITEM_HISTORY_MAX == PD_TRANSCRIPT_PAGES_HISTORY_MAX);

/* Tried as an attacker would: a Qwen Code session of 90,003 plan versions
 * listed v89004…v90003 and said nothing of the others.  Its History says
 * how many older versions are not shown, above the list, at a phone's
 * width too. */
static gboolean
is_list_view (GtkWidget     *widget,
              gconstpointer  data)
{
  return GTK_IS_LIST_VIEW (widget) && gtk_widget_get_mapped (widget);
}

/* The list's last row in the view: scrolled to its end. */
static gboolean
list_at_bottom (gpointer data)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (data));
  double upper = gtk_adjustment_get_upper (adjustment);
  double page = gtk_adjustment_get_page_size (adjustment);

  return upper > page && gtk_adjustment_get_value (adjustment) + page >= upper - 1;
}

static void
test_history_says_older_versions_not_shown (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *dir = g_dir_make_tmp ("pd-history-XXXXXX", &error);
  g_autofree char *chats = g_build_filename (dir, "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "s1.jsonl", NULL);
  const char *paths[2] = { dir, NULL };
  const char *head = "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"cwd\":\"/w\",";
  const guint n_calls = PD_TRANSCRIPT_PAGES_HISTORY_MAX + 5;
  GtkWidget *view = pd_history_view_new ();
  GtkWidget *label;
  GtkWindow *window;
  CountWait wait;

  g_assert_no_error (error);
  for (guint i = 0; i < n_calls; i++)
    g_string_append_printf (text,
                            "%s\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":"
                            "\"Tidy the shop\",\"status\":\"%s\"}]}}}]}}\n"
                            "%s\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                            "\"toolCallResult\":{\"callId\":\"c%u\",\"status\":\"success\"}}\n",
                            head, i, i % 2 ? "completed" : "in_progress", head, i, i);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  wait.model = pd_history_view_get_model (PD_HISTORY_VIEW (view));
  wait.n = PD_TRANSCRIPT_PAGES_HISTORY_MAX;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (view);
  label = pd_test_find_first (view, is_mapped_label_with_prefix, "5 older versions not shown");
  g_assert_nonnull (label);
  /* The newest, selected, is in sight: the list opened at its oldest row
   * before, the selected version a thousand rows below. */
  {
    GtkWidget *versions = pd_test_find_first (view, is_list_view, NULL);

    g_assert_nonnull (versions);
    g_assert_true (pd_test_wait_for (list_at_bottom, versions));
  }
  /* Not a gap between versions: none is said. */
  g_assert_null (pd_test_find_first (view, is_mapped_label_with_prefix, "Not listed:"));
  pd_test_screenshot (GTK_WIDGET (window), "history-older-versions");

  /* At a phone's width (the window folds it narrow): still said, whole. */
  pd_history_view_set_narrow (PD_HISTORY_VIEW (view), TRUE);
  gtk_window_set_default_size (window, 360, 640);
  pd_test_flush (view);
  gtk_test_widget_wait_for_draw (view);
  g_assert_true (gtk_widget_get_mapped (label));
  g_assert_cmpint (gtk_widget_get_width (label), <=, 360);
  g_assert_false (gtk_label_get_ellipsize (GTK_LABEL (label)) != PANGO_ELLIPSIZE_NONE);
  pd_test_screenshot (GTK_WIDGET (window), "history-older-versions-narrow");

  pd_test_destroy_window (window, view);
  g_remove (path);
  g_rmdir (chats);
  g_rmdir (dir);
}

/* Another agent's transcript of @n todo_write calls, for a list that
 * alternates its item's status, written to @path. */
static void
write_todo_calls (const char *path,
                  guint       n)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  const char *head = "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"cwd\":\"/w\",";

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text,
                            "%s\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":"
                            "\"Tidy the shop\",\"status\":\"%s\"}]}}}]}}\n"
                            "%s\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                            "\"toolCallResult\":{\"callId\":\"c%u\",\"status\":\"success\"}}\n",
                            head, i, i % 2 ? "completed" : "in_progress", head, i, i);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
}

typedef struct
{
  GListModel *model;
  gint64      first;
} FirstWait;

static gboolean
first_version_is (gpointer data)
{
  FirstWait *wait = data;
  g_autoptr(PdPlanVersionItem) item = g_list_model_get_item (wait->model, 0);

  return item != NULL && pd_plan_version_item_get_version (item) == wait->first;
}

/* A live session's History keeps the version one reads while newer ones
 * come, and polls as the Now page does while the run goes on.  Another
 * agent's newest versions moved up under the selection, and History read
 * another version, or its oldest; it read on the push alone, 10–15 s
 * behind the Now page (tried as a new user would). */
static void
test_history_live_keeps_selected (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-history-XXXXXX", &error);
  g_autofree char *chats = g_build_filename (dir, "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "s1.jsonl", NULL);
  const char *paths[2] = { dir, NULL };
  GtkWidget *view = pd_history_view_new ();
  PdHistoryView *history = PD_HISTORY_VIEW (view);
  GObject *timer;
  GtkWindow *window;
  CountWait wait;
  FirstWait moved;
  gint64 first, reading, newest;

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  write_todo_calls (path, PD_TRANSCRIPT_PAGES_HISTORY_MAX + 2);
  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (db->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);

  window = pd_test_present (view, 1000, 760);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), ((PdSessionInfo *) list->pdata[0])->id);
  wait.model = pd_history_view_get_model (history);
  wait.n = PD_TRANSCRIPT_PAGES_HISTORY_MAX;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));

  /* Polled while the run goes on, as the Now page is. */
  pd_session_view_set_running (PD_SESSION_VIEW (view), TRUE);
  timer = pd_session_view_get_poll_timer (PD_SESSION_VIEW (view));
  g_assert_nonnull (timer);
  g_assert_cmpuint (pd_poll_timer_get_interval (PD_POLL_TIMER (timer)), >, 0);

  {
    g_autoptr(PdPlanVersionItem) item0 = g_list_model_get_item (wait.model, 0);
    g_autoptr(PdPlanVersionItem) item = g_list_model_get_item (wait.model, 10);

    first = pd_plan_version_item_get_version (item0);
    reading = pd_plan_version_item_get_version (item);
  }
  g_assert_true (pd_history_view_select_version (history, reading));

  /* Three more versions: the list moves up by three under the one read. */
  write_todo_calls (path, PD_TRANSCRIPT_PAGES_HISTORY_MAX + 5);
  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  pd_history_view_refresh (history);
  moved = (FirstWait) { wait.model, first + 3 };
  g_assert_true (pd_test_wait_for (first_version_is, &moved));
  pd_test_flush (view);
  g_assert_cmpint (pd_history_view_get_selected_version (history), ==, reading);

  /* The newest read: the newest it stays. */
  {
    g_autoptr(PdPlanVersionItem) last = g_list_model_get_item (wait.model, wait.n - 1);

    newest = pd_plan_version_item_get_version (last);
  }
  g_assert_true (pd_history_view_select_version (history, newest));
  write_todo_calls (path, PD_TRANSCRIPT_PAGES_HISTORY_MAX + 6);
  g_assert_true (pd_import_index_run_paths (index, db->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  pd_history_view_refresh (history);
  moved.first = first + 4;
  g_assert_true (pd_test_wait_for (first_version_is, &moved));
  pd_test_flush (view);
  g_assert_cmpint (pd_history_view_get_selected_version (history), ==, newest + 1);

  pd_session_view_set_running (PD_SESSION_VIEW (view), FALSE);
  pd_test_destroy_window (window, view);
  g_remove (path);
  g_rmdir (chats);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/history-view/lists-versions-and-changes", test_history_lists_versions_and_changes);
  g_test_add_func ("/pd/ui/history-view/status-glyphs-are-named", test_history_status_glyphs_are_named);
  g_test_add_func ("/pd/ui/history-view/bidi-isolates", test_history_bidi_isolates);
  g_test_add_func ("/pd/ui/history-view/empty-and-switch", test_history_empty_and_switch);
  g_test_add_func ("/pd/ui/history-view/lists-approved-plans", test_history_lists_approved_plans);
  g_test_add_func ("/pd/ui/history-view/says-why-versions-are-missing", test_history_says_why_versions_are_missing);
  g_test_add_func ("/pd/ui/history-view/names-imported-items", test_history_names_imported_items);
  g_test_add_func ("/pd/ui/history-view/cancelled-glyph", test_history_cancelled_glyph);
  g_test_add_func ("/pd/ui/history-view/change-glyph-is-new-state", test_history_change_glyph_is_new_state);
  g_test_add_func ("/pd/ui/history-view/says-older-versions-not-shown", test_history_says_older_versions_not_shown);
  g_test_add_func ("/pd/ui/history-view/live-keeps-selected", test_history_live_keeps_selected);

  return g_test_run ();
}

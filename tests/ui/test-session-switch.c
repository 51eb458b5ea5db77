/* test-session-switch.c: a switch to a session that is slow to read
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tried as a new user would: selecting a session whose reading takes a
 * while (a 10 MB imported transcript) after another one must not leave the
 * other one's plan, messages, checklist or "Continue in …" command in
 * sight.  Each view of a session (real widgets, a real database read
 * through a PdHeldSource that holds the replies back) is switched while
 * the new session's replies are held: nothing of the old session may be
 * shown, a "Loading…" page must say why the view is empty, and the new
 * session's content must show once the replies are let through.
 */
#define G_LOG_DOMAIN "test-session-switch"

#include "config.h"

#include "../pd-checklist-test.h"
#include "pd-checklist-view.h"
#include "pd-events-view.h"
#include "pd-held-source.h"
#include "pd-history-view.h"
#include "pd-now-view.h"
#include "pd-session-view.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"
#include "pd-transcript-view.h"

typedef struct
{
  GtkWidget  *view;
  const char *text;
} Shown;

/* Whether a label of @view holding @text is on screen (mapped: it and
 * everything above it shown). */
static gboolean
text_on_screen (GtkWidget  *view,
                const char *text)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *label_text = gtk_label_get_text (labels->pdata[i]);

      if (label_text != NULL && strstr (label_text, text) != NULL && gtk_widget_get_mapped (labels->pdata[i]))
        return TRUE;
    }
  return FALSE;
}

static gboolean
shown_and_idle (gpointer data)
{
  Shown *shown = data;

  return !pd_session_view_get_busy (PD_SESSION_VIEW (shown->view)) && text_on_screen (shown->view, shown->text);
}

static gboolean
shown (gpointer data)
{
  Shown *s = data;

  return text_on_screen (s->view, s->text);
}

static gboolean
held_at_least_one (gpointer data)
{
  return pd_held_source_n_held (data) > 0;
}

static void
save_session (PdTestDb   *db,
              const char *id,
              const char *word)
{
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();
  g_autofree char *step_title = g_strdup_printf ("%s step", word);
  g_autofree char *text = g_strdup_printf ("%s message", word);
  PdPlanStep *step = pd_plan_step_new ("s1", step_title);

  json_array_add_object_element (messages, pd_test_message ("user", text));
  plan->version = 1;
  g_ptr_array_add (plan->steps, step);
  pd_test_db_save (db, id, messages, 0, plan);
}

typedef GtkWidget *(*NewView) (void);

static void
check_switch (NewView     new_view,
              const char *name)
{
  PdTestDb *db = pd_test_db_new ();
  g_autofree char *alpha = pd_test_db_create_session (db, "Alpha task");
  g_autofree char *bravo = pd_test_db_create_session (db, "Bravo task");
  g_autoptr(PdHeldSource) source = pd_held_source_new (PD_SOURCE (db->source));
  GtkWidget *view = new_view ();
  GtkWindow *window;
  Shown old_content = { view, "Alpha" };
  Shown new_content = { view, "Bravo" };
  Shown loading = { view, "Loading" };

  g_test_message ("%s", name);
  save_session (db, alpha, "Alpha");
  save_session (db, bravo, "Bravo");

  window = pd_test_present (view, 800, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), alpha);
  g_assert_true (pd_test_wait_for (shown_and_idle, &old_content));

  /* Bravo is slow: its replies wait. */
  pd_held_source_hold (source);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), bravo);
  g_assert_false (text_on_screen (view, "Alpha"));
  g_assert_true (pd_test_wait_for (held_at_least_one, source));
  g_assert_true (pd_test_wait_for (shown, &loading));
  /* A while later (frames drawn, polls ticked), still nothing old. */
  pd_test_spin (300);
  g_assert_true (text_on_screen (view, "Loading"));
  g_assert_false (text_on_screen (view, "Alpha"));
  g_assert_false (text_on_screen (view, "Bravo"));
  if (g_strcmp0 (name, "now") == 0)
    pd_test_screenshot (GTK_WIDGET (window), "session-switch-loading");

  pd_held_source_release (source);
  g_assert_true (pd_test_wait_for (shown_and_idle, &new_content));
  g_assert_false (text_on_screen (view, "Loading"));
  g_assert_false (text_on_screen (view, "Alpha"));

  pd_test_destroy_window (window, view);
  g_clear_object (&source);
  pd_test_spin (20);
  pd_test_db_free (db);
}

static void
test_now (void)
{
  check_switch (pd_now_view_new, "now");
}

static void
test_transcript (void)
{
  check_switch (pd_transcript_view_new, "transcript");
}

static void
test_history (void)
{
  check_switch (pd_history_view_new, "history");
}

/* The checklist of an imported session and its "Continue in Claude Code"
 * command: switched to a session whose replies are held, neither stays;
 * the old session's late reply does not bring the command back. */
static gboolean
resume_on_screen (gpointer data)
{
  return text_on_screen (data, "--resume");
}

static gboolean
idle_with_loading_shown (gpointer data)
{
  return text_on_screen (data, "Loading");
}

static gboolean
not_busy (gpointer data)
{
  return !pd_session_view_get_busy (data);
}

static void
test_checklist_resume (void)
{
  PdTestDb *db = pd_test_db_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-session-switch-XXXXXX", &error);
  g_autofree char *imported = NULL;
  g_autofree char *own = NULL;
  g_autoptr(PdHeldSource) source = pd_held_source_new (PD_SOURCE (db->source));
  GtkWidget *view = pd_checklist_view_new ();
  GtkWindow *window;

  g_assert_no_error (error);
  imported = pd_checklist_test_import (db->store, dir);
  own = pd_test_db_create_session (db, "Bravo task");

  window = pd_test_present (view, 800, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), imported);
  g_assert_true (pd_test_wait_for (resume_on_screen, view));
  g_assert_true (text_on_screen (view, "Zanzibar"));

  /* Switched to a session whose replies are held. */
  pd_held_source_hold (source);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), own);
  g_assert_false (text_on_screen (view, "--resume"));
  g_assert_false (text_on_screen (view, "Zanzibar"));
  g_assert_true (pd_test_wait_for (idle_with_loading_shown, view));
  g_assert_false (text_on_screen (view, "--resume"));
  g_assert_false (text_on_screen (view, "Zanzibar"));
  pd_held_source_release (source);
  g_assert_true (pd_test_wait_for (not_busy, view));
  pd_test_spin (50);
  g_assert_false (text_on_screen (view, "Loading"));
  g_assert_false (text_on_screen (view, "--resume"));

  /* Back to the imported session, then away before its replies arrive:
   * its late resume command is dropped like its checklist. */
  pd_held_source_hold (source);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), imported);
  g_assert_true (pd_test_wait_for (held_at_least_one, source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), own);
  pd_held_source_release (source);
  g_assert_true (pd_test_wait_for (not_busy, view));
  pd_test_spin (200);
  g_assert_false (text_on_screen (view, "--resume"));
  g_assert_false (text_on_screen (view, "Zanzibar"));

  pd_test_destroy_window (window, view);
  g_clear_object (&source);
  pd_test_spin (20);
  pd_test_db_free (db);
  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/session-switch/now", test_now);
  g_test_add_func ("/pd/ui/session-switch/transcript", test_transcript);
  g_test_add_func ("/pd/ui/session-switch/history", test_history);
  g_test_add_func ("/pd/ui/session-switch/checklist-resume", test_checklist_resume);

  return g_test_run ();
}

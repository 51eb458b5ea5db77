/* shot-scenario.c: the application in a given state, for screenshots
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   shot-scenario SCENARIO FOLDER [plandeck arguments…]
 *
 * Runs the real application and, once its first window is up, brings it
 * into SCENARIO: "window" (as it is), "new-session" (the dialog, filled in),
 * "approval" (a replayed run asking to write a file), "review" (a
 * replayed run in plan mode proposing a plan) or "page" (the session
 * PD_SHOT_SESSION on its page PD_SHOT_PAGE: now, transcript, events or
 * history) or "pages" (the session PD_SHOT_SESSION, each page in turn for
 * PD_SHOT_DWELL seconds, 20 by default; then it prints its peak RSS and the
 * longest the main loop was held, and quits: the figures of a long
 * session's window in tests/README.md) or "export" (the session
 * PD_SHOT_SESSION exported as the session menu's Export does, to the file
 * PD_SHOT_EXPORT, as JSON when it ends in .json, else Markdown; then it
 * prints its peak RSS and quits).  FOLDER is the working
 * directory of the runs; the replay files are written there.  It runs until
 * killed.  take-screenshots.sh captures the windows.
 */
#define G_LOG_DOMAIN "shot-scenario"

#include "config.h"

#include <stdlib.h>

#include <glib/gstdio.h>

#include "pd-application.h"
#include "pd-new-session-dialog.h"
#include "pd-session-export.h"
#include "pd-session-list.h"
#include "pd-test-ui.h"
#include "pd-window.h"

static const char *scenario;
static const char *folder;

static const char *approval_replay =
  "{\"label\": \"screenshot: a write to approve\", \"turns\": ["
  " {\"content\": \"The README needs a usage section. I will add it.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"README.md\", \"content\": \"# greet\\n\\nUsage: sh greet.sh NAME\\n\"}}]},"
  " {\"content\": \"Done.\"}]}";

static const char *review_replay =
  "{\"label\": \"screenshot: a plan to review\", \"turns\": ["
  " {\"content\": \"I have read the project. Here is what I propose.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": "
  "\"# Fix the greeting and document the script\\n\\n"
  "The greeting in greet.sh is misspelled, and the README does not say how to run it.\\n\\n"
  "## Steps\\n\\n"
  "- Correct the greeting in greet.sh\\n"
  "- Run sh test.sh and see it pass\\n"
  "- Add a Usage section to README.md\\n\\n"
  "## Checks\\n\\n"
  "```\\nsh test.sh\\n```\\n\"}}]},"
  " {\"content\": \"Starting.\"}]}";

static void
start_replay (PdWindow   *window,
              const char *json,
              const char *message)
{
  g_autofree char *path = g_build_filename (folder, "replay.json", NULL);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  if (pd_window_get_run_controller (window) == NULL)
    g_error ("the window cannot run sessions (not an existing local database?)");
  if (!g_file_set_contents (path, json, -1, &error))
    g_error ("%s", error->message);

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (path);
  settings->working_directory = g_strdup (folder);
  settings->policy = PD_APPROVAL_POLICY_ASK;

  if (!pd_run_controller_start (pd_window_get_run_controller (window), settings, message, &error))
    g_error ("%s", error->message);
}

/* Selects the session once the list has it, then its page. */
static gboolean
show_page (gpointer user_data)
{
  PdWindow *window = user_data;
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  const char *id = g_getenv ("PD_SHOT_SESSION");
  const char *page = g_getenv ("PD_SHOT_PAGE");

  if (id != NULL && !pd_session_list_select (PD_SESSION_LIST (list), id))
    return G_SOURCE_CONTINUE;
  /* Opened as a person opens it (Enter): a window that opened on its
   * Overview leaves it even for the session already selected. */
  g_signal_emit_by_name (list, "session-activated", pd_session_list_get_selected_item (PD_SESSION_LIST (list)));
  if (page != NULL)
    adw_view_stack_set_visible_child_name (ADW_VIEW_STACK (views), page);
  g_object_unref (window);
  return G_SOURCE_REMOVE;
}

/* --- "pages": a session's pages visited, measured ------------------------ */

static const char *visit_pages[] = { "now", "transcript", "events", "history" };
static guint visit_next;
static gint64 last_tick;
static gint64 longest_stall;

static gboolean
on_tick (gpointer user_data)
{
  gint64 now = g_get_monotonic_time ();

  if (last_tick > 0 && now - last_tick > longest_stall)
    longest_stall = now - last_tick;
  last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void
print_peak (void)
{
  g_autofree char *status = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return;
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "VmHWM:") || g_str_has_prefix (lines[i], "VmRSS:"))
      g_print ("%s\n", lines[i]);
  /* The tick is every 10 ms: a stall is what the main loop took beyond. */
  g_print ("longest main-loop stall: %lld ms\n", (long long) (longest_stall / 1000));
}

static gboolean
visit_next_page (gpointer user_data)
{
  PdWindow *window = user_data;
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);

  if (visit_next == G_N_ELEMENTS (visit_pages))
    {
      print_peak ();
      g_application_quit (g_application_get_default ());
      return G_SOURCE_REMOVE;
    }
  g_print ("page %s\n", visit_pages[visit_next]);
  adw_view_stack_set_visible_child_name (ADW_VIEW_STACK (views), visit_pages[visit_next++]);
  return G_SOURCE_CONTINUE;
}

static gboolean
visit_pages_start (gpointer user_data)
{
  PdWindow *window = user_data;
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  const char *dwell = g_getenv ("PD_SHOT_DWELL");

  if (!pd_session_list_select (PD_SESSION_LIST (list), g_getenv ("PD_SHOT_SESSION")))
    return G_SOURCE_CONTINUE;
  g_signal_emit_by_name (list, "session-activated", pd_session_list_get_selected_item (PD_SESSION_LIST (list)));
  g_print ("selected\n");
  visit_next_page (window);
  g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, dwell ? (guint) atoi (dwell) : 20, visit_next_page,
                              window, g_object_unref);
  return G_SOURCE_REMOVE;
}

/* --- "export": a session exported, measured ------------------------------ */

static void
on_exported (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!pd_session_export_finish (result, &error))
    g_printerr ("export failed: %s\n", error->message);
  else
    g_print ("exported\n");
  print_peak ();
  g_application_quit (g_application_get_default ());
}

static gboolean
export_start (gpointer user_data)
{
  PdWindow *window = user_data;
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  const char *path = g_getenv ("PD_SHOT_EXPORT");
  g_autoptr(GFile) file = NULL;

  if (!pd_session_list_select (PD_SESSION_LIST (list), g_getenv ("PD_SHOT_SESSION")))
    return G_SOURCE_CONTINUE;
  if (path == NULL)
    g_error ("PD_SHOT_EXPORT names no file");
  file = g_file_new_for_path (path);
  pd_session_export_async (pd_window_get_source (window), g_getenv ("PD_SHOT_SESSION"),
                           g_str_has_suffix (path, ".json") ? PD_SESSION_EXPORT_JSON : PD_SESSION_EXPORT_MARKDOWN,
                           file, NULL, on_exported, NULL);
  return G_SOURCE_REMOVE;
}

static void
enter_scenario (gpointer user_data)
{
  PdWindow *window = user_data;

  if (g_str_equal (scenario, "new-session"))
    {
      PdNewSessionDialog *dialog = pd_new_session_dialog_new (GTK_WINDOW (window));

      pd_new_session_dialog_set_task (dialog, "Fix the greeting in greet.sh and describe the script in the README");
      pd_new_session_dialog_set_folder (dialog, folder);
      gtk_window_present (GTK_WINDOW (dialog));
    }
  else if (g_str_equal (scenario, "approval"))
    {
      start_replay (window, approval_replay, "Add a usage section to the README");
    }
  else if (g_str_equal (scenario, "review"))
    {
      start_replay (window, review_replay, "/plan Fix the greeting and document the script");
    }
  else if (g_str_equal (scenario, "page"))
    {
      g_timeout_add (100, show_page, g_object_ref (window));
    }
  else if (g_str_equal (scenario, "pages"))
    {
      g_timeout_add (10, on_tick, NULL);
      g_timeout_add (100, visit_pages_start, g_object_ref (window));
    }
  else if (g_str_equal (scenario, "export"))
    {
      g_timeout_add_full (G_PRIORITY_DEFAULT, 100, export_start, g_object_ref (window), g_object_unref);
    }

  g_object_unref (window);
}

static void
on_window_added (GtkApplication *app,
                 GtkWindow      *window,
                 gpointer        user_data)
{
  static gboolean seen;

  if (!PD_IS_WINDOW (window) || seen)
    return;
  seen = TRUE;
  g_timeout_add_once (1000, enter_scenario, g_object_ref (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PdApplication) app = NULL;

  if (argc < 3)
    {
      g_printerr ("usage: %s SCENARIO FOLDER [plandeck arguments…]\n", argv[0]);
      return 2;
    }

  scenario = argv[1];
  folder = argv[2];

  app = pd_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), NULL);

  /* The program name, then the application's arguments. */
  argv[2] = argv[0];
  return g_application_run (G_APPLICATION (app), argc - 2, argv + 2);
}

/* test-first-start.c: the first start, on the default database, of someone
 * with no other agent's folder: the window offers what to do.
 *
 * The home is the test's own and empty, set before anything asks for it;
 * the default database is new.  Then an agent's folder appears (the
 * project's fixture transcripts) and is read from the empty page's button.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>

#include "pd-session-list.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

static char *home;

static gboolean
settled (gpointer data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_SESSION_LIST));

  return list != NULL && pd_session_list_get_loaded (list) &&
         !pd_window_get_reading_agent_sessions (PD_WINDOW (data));
}

static gboolean
label_mapped (gpointer data)
{
  const char * const *pair = data;
  GtkWidget *label = pd_test_find_label (GTK_WIDGET (pair[0]), pair[1]);

  return label != NULL && gtk_widget_get_mapped (label);
}

static gboolean
label_gone (gpointer data)
{
  return !label_mapped (data);
}

/* The empty page's button labelled @text, shown and working. */
static GtkWidget *
empty_page (PdWindow *window)
{
  GtkWidget *title = pd_test_find_label (GTK_WIDGET (window), "No Sessions Yet");

  g_assert_nonnull (title);
  return gtk_widget_get_ancestor (title, ADW_TYPE_STATUS_PAGE);
}

static void
assert_button (PdWindow   *window,
               const char *text)
{
  GtkWidget *label = pd_test_find_label (empty_page (window), text);
  GtkWidget *button;

  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_mapped (label));
  button = gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_assert_nonnull (gtk_widget_get_ancestor (button, ADW_TYPE_STATUS_PAGE));
}

static void
check_first_start (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  const char *empty[] = { (const char *) window, "No Sessions Yet" };
  const char *claude[] = { (const char *) window, "Claude Code" };
  GtkWidget *quiet;
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;

  pd_test_wait_until (settled, window, "the list and the read at start");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_wait_until (label_mapped, empty, "“No Sessions Yet”");

  /* What a --db window on a new database offers: the first start showed
   * "No Active Sessions" on the Overview and nothing to do (tried as a
   * new user would). */
  assert_button (window, "Open Demo");
  assert_button (window, "Read Other Agents’ Sessions");
  assert_button (window, "Start a Session…");
  quiet = pd_test_find_label (GTK_WIDGET (window), "No Active Sessions");
  g_assert_true (quiet == NULL || !gtk_widget_get_mapped (quiet));

  /* An agent installed since: the empty page's button reads its folder,
   * and the window goes on to its sessions. */
  from = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "claude-code", "-home-dev-src-inkwell", NULL);
  to = g_build_filename (home, ".claude", "projects", "-home-dev-src-inkwell", NULL);
  pd_test_copy_tree (from, to);
  gtk_widget_activate (gtk_widget_get_ancestor (pd_test_find_label (empty_page (window), "Read Other Agents’ Sessions"),
                                                GTK_TYPE_BUTTON));
  pd_test_wait_until (label_mapped, claude, "a Claude Code session in the list");
  pd_test_wait_until (settled, window, "the read to end");
  pd_test_wait_until (label_gone, empty, "the empty page to go");
}

static void
test_first_start (void)
{
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_first_start, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  /* Before GTK or GLib asks for the home or the XDG folders. */
  home = pd_test_fixture_home ();

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/first-start/offers-actions", test_first_start);

  return g_test_run ();
}

/* test-overview-card-live.c: one Overview card, alone in a window, as its
 * session goes on
 *
 * The time since the last change is told on a card shown, when its words
 * change, and on a card kept aside as it is shown again; a card whose
 * plan moves on is drawn again with nothing measured.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview-card-live"

#include "config.h"

#include "test-overview-card-util.h"

static void
card_set_changed_at (PdOverviewCard *card,
                     gint64          changed_at)
{
  PdSessionInfo info = { 0 };

  info.id = (char *) pd_overview_card_get_session_id (card);
  info.task = (char *) pd_overview_card_get_title (card);
  info.source = (char *) pd_overview_card_get_agent (card);
  info.status = pd_overview_card_get_status (card);
  info.updated_at = changed_at;
  info.plan_done = pd_overview_card_get_done (card);
  info.plan_total = pd_overview_card_get_total (card);
  g_assert_true (_pd_overview_card_set_info (card, &info));
  _pd_overview_card_emit_changed (card);
}

/* The time since a card's last change is worked out on a card shown
 * alone: one the list keeps aside (not mapped) is told it as it is shown
 * again, and a change that keeps its words ("just now") tells nothing
 * new.  Each change of each of 500 cards made a GDateTime and a sentence,
 * shown or not (bench-overview --view). */
static void
test_card_time_shown (void)
{
  gint64 now = g_get_real_time ();
  g_autoptr(PdOverviewCard) card = card_new ("Time", "codex", "build-box");
  Alone alone = { 0 };

  card_set_changed_at (card, now - 5 * G_TIME_SPAN_MINUTE - 10 * G_TIME_SPAN_SECOND);
  alone_show (&alone, card, 600);
  g_assert_nonnull (pd_test_find_first (alone.row, label_contains, "5 min ago"));

  /* A change while shown: told at once. */
  card_set_changed_at (card, now);
  g_assert_nonnull (pd_test_find_first (alone.row, label_contains, "just now"));
  g_assert_null (pd_test_find_first (alone.row, label_contains, "min ago"));

  /* Kept aside: its changes do not work the time out… */
  g_object_ref (alone.row);
  gtk_window_set_child (GTK_WINDOW (alone.window), NULL);
  g_assert_false (gtk_widget_get_mapped (alone.row));
  card_set_changed_at (card, now - 12 * G_TIME_SPAN_MINUTE - 10 * G_TIME_SPAN_SECOND);
  g_assert_nonnull (pd_test_find_first (alone.row, label_contains, "just now"));
  g_assert_null (pd_test_find_first (alone.row, label_contains, "12 min ago"));

  /* …until it is shown again. */
  gtk_window_set_child (GTK_WINDOW (alone.window), alone.row);
  g_object_unref (alone.row);
  pd_test_wait_until (row_laid_out, &alone, "the card shown again");
  g_assert_nonnull (pd_test_find_first (alone.row, label_contains, "12 min ago"));
  alone_close (&alone);
}

/* The main context run for @ms: the idles and frames a change queued. */
static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
}

static void
count_sizes (GdkToplevel     *toplevel,
             GdkToplevelSize *size,
             guint           *n)
{
  (*n)++;
}

/* The card's plan moved on: @done steps done of 8, "Step N of the work"
 * the current one. */
static void
card_move_on (PdOverviewCard *card,
              guint           done)
{
  PdSessionInfo info = { 0 };
  g_autofree char *step = g_strdup_printf ("Step %u of the work", done + 1);

  info.id = (char *) pd_overview_card_get_session_id (card);
  info.task = (char *) pd_overview_card_get_title (card);
  info.source = (char *) pd_overview_card_get_agent (card);
  info.status = pd_overview_card_get_status (card);
  info.updated_at = g_get_real_time ();
  info.plan_version = done + 1;
  info.plan_done = done;
  info.plan_total = 8;
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_set_current_step (card, done + 1, step, TRUE, 0, NULL);
  _pd_overview_card_emit_changed (card);
}

/* A card whose plan moves on (its X/Y and its current step, on as many
 * lines) is drawn again, and nothing is measured: each label's new text
 * queued the window's size, which the X11 surface works out outside a
 * frame (GdkToplevel::compute-size, the whole window measured: 11–16 ms
 * with the Overview's 206 card rows, the longest waits between frames in
 * bench-overview --view).  A step that needs another line still gets it. */
static void
test_card_moves_unmeasured (void)
{
  g_autoptr(PdOverviewCard) card = card_new ("Moves on", "codex", "build-box");
  GdkSurface *surface;
  Alone alone = { 0 };
  guint sizes = 0;
  gulong handler;

  card_move_on (card, 1);
  alone_show (&alone, card, 600);
  spin (300);
  g_assert_nonnull (pd_test_find_first (alone.row, label_contains, "1/8"));
  g_assert_nonnull (pd_test_find_first (alone.row, label_contains, "Step 2 of the work"));

  surface = gtk_native_get_surface (GTK_NATIVE (alone.window));
  handler = g_signal_connect (surface, "compute-size", G_CALLBACK (count_sizes), &sizes);
  for (guint done = 2; done < 7; done++)
    {
      g_autofree char *progress = g_strdup_printf ("%u/8", done);
      g_autofree char *step = g_strdup_printf ("Step %u of the work", done + 1);

      card_move_on (card, done);
      spin (100);
      g_assert_nonnull (pd_test_find_first (alone.row, label_contains, progress));
      g_assert_nonnull (pd_test_find_first (alone.row, label_contains, step));
    }
  g_test_message ("the window's size worked out %u times for 5 moves", sizes);
  g_assert_cmpuint (sizes, ==, 0);
  g_signal_handler_disconnect (surface, handler);

  /* A step too long for one line wraps to a second, as it did. */
  {
    GtkWidget *step;
    int before, after;

    step = pd_test_find_first (alone.row, label_contains, "Step 7 of the work");
    g_assert_nonnull (step);
    before = gtk_widget_get_height (step);
    _pd_overview_card_set_current_step (card, 20, "A step with a long title that goes on and on about the work, "
                                        "what it touches and why, far past the width of a card of 600 pixels",
                                        TRUE, 0, NULL);
    _pd_overview_card_emit_changed (card);
    spin (300);
    after = gtk_widget_get_height (step);
    g_test_message ("the step's height: %d px on one line, %d px with the long title", before, after);
    g_assert_cmpint (after, >, before * 3 / 2);
  }
  alone_close (&alone);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/overview/card-time-shown", test_card_time_shown);
  g_test_add_func ("/pd/ui/overview/card-moves-unmeasured", test_card_moves_unmeasured);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}

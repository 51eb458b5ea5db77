/* test-poll-timer.c: the Now workspace's polling cadence
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A fake scheduler stands in for the main loop's timeouts, so the test
 * sees exactly which period is scheduled and can fire ticks itself.
 */
#define G_LOG_DOMAIN "test-poll-timer"

#include "config.h"

#include "pd-poll-timer.h"
#include "pd-test-ui.h"

typedef struct
{
  guint       next_id;
  guint       active_id;     /* the scheduled source, 0 when none */
  guint       interval;
  GSourceFunc func;
  gpointer    func_data;
  guint       n_added;
  guint       n_removed;
} FakeClock;

static guint
fake_add (guint       interval_ms,
          GSourceFunc func,
          gpointer    func_data,
          gpointer    user_data)
{
  FakeClock *clock = user_data;

  g_assert_cmpuint (clock->active_id, ==, 0);   /* never two at once */
  clock->active_id = ++clock->next_id;
  clock->interval = interval_ms;
  clock->func = func;
  clock->func_data = func_data;
  clock->n_added++;

  return clock->active_id;
}

static void
fake_remove (guint    id,
             gpointer user_data)
{
  FakeClock *clock = user_data;

  g_assert_cmpuint (id, ==, clock->active_id);
  clock->active_id = 0;
  clock->interval = 0;
  clock->n_removed++;
}

static void
count_tick (PdPollTimer *timer,
            guint       *ticks)
{
  (*ticks)++;
}

static void
fire (FakeClock *clock)
{
  g_assert_cmpuint (clock->active_id, !=, 0);
  g_assert_true (clock->func (clock->func_data) == G_SOURCE_CONTINUE);
}

static void
test_poll_timer_cadence (void)
{
  FakeClock clock = { 0 };
  g_autoptr(PdPollTimer) timer = pd_poll_timer_new (1000, 3000);
  guint ticks = 0;

  pd_poll_timer_set_scheduler (timer, fake_add, fake_remove, &clock);
  g_signal_connect (timer, "tick", G_CALLBACK (count_tick), &ticks);

  /* Not visible: nothing scheduled, even for a running session. */
  g_assert_cmpuint (pd_poll_timer_get_interval (timer), ==, 0);
  pd_poll_timer_set_running (timer, TRUE);
  g_assert_cmpuint (clock.n_added, ==, 0);
  pd_poll_timer_set_running (timer, FALSE);

  /* Starts: visible and idle, every 3 s. */
  pd_poll_timer_set_visible (timer, TRUE);
  g_assert_cmpuint (clock.active_id, !=, 0);
  g_assert_cmpuint (clock.interval, ==, 3000);
  g_assert_cmpuint (pd_poll_timer_get_interval (timer), ==, 3000);

  fire (&clock);
  fire (&clock);
  g_assert_cmpuint (ticks, ==, 2);

  /* Speeds up: the run became active, every 1 s. */
  pd_poll_timer_set_running (timer, TRUE);
  g_assert_cmpuint (clock.interval, ==, 1000);
  g_assert_cmpuint (pd_poll_timer_get_interval (timer), ==, 1000);
  g_assert_cmpuint (clock.n_removed, ==, 1);
  fire (&clock);
  g_assert_cmpuint (ticks, ==, 3);

  /* Setting the same state again does not reschedule. */
  pd_poll_timer_set_running (timer, TRUE);
  pd_poll_timer_set_visible (timer, TRUE);
  g_assert_cmpuint (clock.n_added, ==, 2);

  /* Slows down: the run ended. */
  pd_poll_timer_set_running (timer, FALSE);
  g_assert_cmpuint (clock.interval, ==, 3000);

  /* Stops: hidden. */
  pd_poll_timer_set_visible (timer, FALSE);
  g_assert_cmpuint (clock.active_id, ==, 0);
  g_assert_cmpuint (pd_poll_timer_get_interval (timer), ==, 0);
  g_assert_cmpuint (clock.n_added, ==, clock.n_removed);

  /* Back into view while a run is active: straight to every second. */
  pd_poll_timer_set_running (timer, TRUE);
  g_assert_cmpuint (clock.active_id, ==, 0);
  pd_poll_timer_set_visible (timer, TRUE);
  g_assert_cmpuint (clock.interval, ==, 1000);

  /* Disposing removes the source, and nothing else holds the timer. */
  g_assert_finalize_object (g_steal_pointer (&timer));
  g_assert_cmpuint (clock.active_id, ==, 0);
  g_assert_cmpuint (clock.n_added, ==, clock.n_removed);
}

static void
count_notify (guint *counter)
{
  (*counter)++;
}

static void
test_poll_timer_notifies_interval (void)
{
  FakeClock clock = { 0 };
  g_autoptr(PdPollTimer) timer = pd_poll_timer_new (1000, 3000);
  guint notified = 0;

  pd_poll_timer_set_scheduler (timer, fake_add, fake_remove, &clock);
  g_signal_connect_swapped (timer, "notify::interval", G_CALLBACK (count_notify), &notified);

  pd_poll_timer_set_visible (timer, TRUE);
  pd_poll_timer_set_running (timer, TRUE);
  pd_poll_timer_set_running (timer, TRUE);
  pd_poll_timer_set_visible (timer, FALSE);
  g_assert_cmpuint (notified, ==, 3);
}

/* The real main loop: ticks arrive on their own. */
static void
test_poll_timer_real_clock (void)
{
  g_autoptr(PdPollTimer) timer = pd_poll_timer_new (20, 3000);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  guint ticks = 0;
  gint64 deadline = g_get_monotonic_time () + (gint64) PD_TEST_WAIT_MS * 1000;

  g_signal_connect (timer, "tick", G_CALLBACK (count_tick), &ticks);
  pd_poll_timer_set_running (timer, TRUE);
  pd_poll_timer_set_visible (timer, TRUE);

  while (ticks < 3 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (ticks, >=, 3);

  pd_poll_timer_set_visible (timer, FALSE);
  ticks = 0;
  deadline = g_get_monotonic_time () + 100 * 1000;
  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (ticks, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/ui/poll-timer/cadence", test_poll_timer_cadence);
  g_test_add_func ("/pd/ui/poll-timer/notifies-interval", test_poll_timer_notifies_interval);
  g_test_add_func ("/pd/ui/poll-timer/real-clock", test_poll_timer_real_clock);

  return g_test_run ();
}

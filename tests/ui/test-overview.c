/* test-overview.c: the Overview page of the real application
 *
 * The default window (this computer's database) with two real
 * `plandeck-agent serve` processes (the replay provider, each on its own
 * database and folder) configured as endpoints in Preferences.  The window
 * opens on its Overview; its cards appear, each naming its own source,
 * follow a plan changed elsewhere, reorder (a blocked step goes first),
 * show an endpoint's question and answer it in place (the run goes on),
 * show one source's cards alone when it is chosen in the sidebar, keep an
 * endpoint's cards with its state in words while it is away (killed, then
 * back with a new token; a run waiting on a question when its endpoint was
 * killed reads "Interrupted", neutral), and open their session; every card and control
 * is named (GTK_A11Y=test, as the a11y test reads them).  (A card alone is
 * tested in test-overview-card.c.)  A question that comes above the cards shown, with
 * the list scrolled, says so at the top ("1 New Request"); a list at its
 * top stays there, the question in sight, as cards are placed under it.
 * An endpoint of 3,000 sessions added to the page, scrolled through while
 * its sessions change and removed, with no warning of GTK's.  At start-up,
 * endpoints' cards that come after this computer's, above it, leave the list
 * at its top.  Endpoints added
 * while the window runs (as Preferences adds them) keep their cards when
 * the next is added and while one is killed, and follow it when it is
 * back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview"

#include "config.h"

#include "pd-application.h"
#include "pd-overview-card-row.h"
#include "pd-overview-private.h"
#include "pd-overview-view.h"
#include "pd-secrets.h"
#include "pd-sources-page.h"
#include "pd-server.h"
#include "pd-source-list.h"
#include "pd-source-sidebar.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-runs.h"
#include "pd-window-private.h"

#include "test-overview-util.h"

/* --- the case ------------------------------------------------------------ */

static const char *endpoint_names[] = { "Endpoint A", "Endpoint B" };

static PdSource *
source_at (PdWindow *window,
           guint     position)
{
  g_autoptr(PdSource) source = g_list_model_get_item (_pd_window_get_sources (window), position);

  return source;
}

static gboolean
has_three_sources (gpointer data)
{
  return g_list_model_get_n_items (_pd_window_get_sources (data)) == 3;
}

typedef struct
{
  PdWindow *window;
  guint     n;
} ShownWait;

static gboolean
n_shown (gpointer data)
{
  ShownWait *wait = data;

  return g_list_model_get_n_items (pd_overview_view_get_shown (overview_view (wait->window))) == wait->n;
}

static const char *
subtitle (PdWindow *window)
{
  return adw_view_switcher_title_get_subtitle (
    ADW_VIEW_SWITCHER_TITLE (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_TITLE)));
}

static gboolean
n_listed (gpointer data)
{
  ShownWait *wait = data;

  return g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (session_list (wait->window)))) == wait->n;
}

static void
check_overview (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  Case *c = user_data;
  PdSourceSidebar *sidebar = PD_SOURCE_SIDEBAR (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SOURCE_SIDEBAR));
  g_autofree char *one = g_build_filename (c->served[0].serve.fixture->project, "one.txt", NULL);
  GtkWidget *row, *button;
  GtkListView *list;
  PdOverviewCard *card;

  /* The default window opens on its Overview, over this computer and the
   * two endpoints, whose cards name them. */
  pd_test_wait_until (has_three_sources, window, "the window's three sources");
  pd_test_wait_until (overview_page_shown, window, "the Overview page at start");
  wait_card (window, "Local work", "Step 2 of Local work", G_MAXUINT, FALSE, "the local card");
  wait_card (window, "Work on A", "1/3", G_MAXUINT, FALSE, "the card of endpoint A");
  wait_card (window, "Work on B", "Working", G_MAXUINT, FALSE, "the card of endpoint B");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_window_get_overview (window))), ==, 3);
  card = pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row_of (window, "Work on A")));
  g_assert_true (pd_overview_card_get_source (card) == source_at (window, 1));
  g_assert_cmpstr (pd_overview_card_get_source_title (card), ==, "Endpoint A");
  wait_card_says (window, "Work on A", "Endpoint A", "A's card to name its endpoint");
  wait_card_says (window, "Work on B", "Endpoint B", "B's card to name its endpoint");
  wait_card_says (window, "Local work", "This Computer", "the local card to name this computer");
  g_assert_null (pd_test_find_first (GTK_WIDGET (overview_view (window)), label_contains, "All Sources"));
  g_assert_cmpstr (subtitle (window), ==, "All Sources");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview");
  /* Every card and control is named for a screen reader. */
  pd_test_a11y_assert_named (GTK_WIDGET (overview_view (window)), "the Overview page");

  /* A step of B blocked elsewhere: B's card goes first and says so. */
  save_plan (c->served[1].store, c->served[1].id, "Work on B", 2, blocked, 3);
  wait_card (window, "Work on B", "1 Step Blocked", 0, FALSE, "B's card first, blocked");
  /* The local session moved on: its card follows. */
  save_plan (c->local_store, c->local_id, "Local work", 2, further, 3);
  wait_card (window, "Local work", "2/3", G_MAXUINT, FALSE, "the local card to follow its plan");
  /* Its run cancelled elsewhere: the card says it stopped, neutral, with the
   * runs done, after the working one (N21: red, above it, among the
   * failures); a new run clears it (issue 21). */
  g_assert_cmpint (pd_session_store_add_event (c->local_store, c->local_id, NULL, "run_failed", g_get_real_time (),
                                               "{\"data\":{\"error_class\":\"cancelled\"}}", NULL), >, 0);
  wait_card (window, "Local work", "Stopped", 2, FALSE, "the local card to say its run stopped");
  g_assert_cmpint (pd_session_store_add_event (c->local_store, c->local_id, NULL, "run_started", g_get_real_time (), "{}", NULL), >, 0);
  wait_card (window, "Local work", "Working", G_MAXUINT, FALSE, "a new run to clear the stop");

  /* One source chosen in the sidebar: its cards alone, and the header
   * says which. */
  pd_source_sidebar_select (sidebar, source_at (window, 2));
  pd_test_wait_until (n_shown, &(ShownWait) { window, 1 }, "B's cards alone");
  g_assert_null (row_of (window, "Local work"));
  g_assert_cmpstr (subtitle (window), ==, "Endpoint B");
  pd_source_sidebar_select (sidebar, NULL);
  pd_test_wait_until (n_shown, &(ShownWait) { window, 3 }, "every card again");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_wait_until (overview_page_shown, window, "the Overview page");
  g_assert_cmpstr (subtitle (window), ==, "All Sources");

  /* A run on A asks before writing: the card of the default window asks
   * too, first of all, and Approve Once there lets the run write. */
  start_run_elsewhere (c->served[0].serve.url, c->served[0].id, "Write two files");
  wait_card (window, "Work on A", "Waiting for Approval", 0, FALSE, "A's question on its card");
  row = row_of (window, "Work on A");
  g_assert_nonnull (pd_test_find_label (row, "The agent wants to write a file."));
  /* The endpoint denies a question no one answers in its time (60 s): the
   * card says how long is left, and counts it down (tried as a new user
   * would: the question went away by itself, with no word of why). */
  pd_test_wait_until (deadline_shown, window, "the time A's question has left");
  {
    g_autofree char *first = g_strdup (gtk_inscription_get_text (GTK_INSCRIPTION (deadline_label (window))));
    guint left = (guint) atoi (first + strlen ("The endpoint denies it by itself in "));

    g_assert_cmpuint (left, >, 0);
    g_assert_cmpuint (left, <=, PD_SERVER_APPROVAL_TIMEOUT);
    g_assert_true (g_str_has_suffix (first, " seconds") || g_str_has_suffix (first, " second"));
    pd_test_wait_until (deadline_moved, &(DeadlineWait) { window, first }, "A's question's time to count down");
  }
  /* What it writes, as the dialog shows it: the card showed only
   * "one.txt (2 bytes)" beside Approve Once (tried as an attacker would). */
  wait_card_says (window, "Work on A", "+ 1", "the content A's run would write");
  button = pd_test_find_first (row, is_button, "_Approve Once");
  g_assert_nonnull (button);
  g_assert_nonnull (pd_test_find_first (row, is_button, "_Deny"));
  g_assert_false (g_file_test (one, G_FILE_TEST_EXISTS));
  /* The buttons take clicks once the question has been shown a while. */
  pd_overview_card_row_set_answer_guard (PD_OVERVIEW_CARD_ROW (row), 0);
  gtk_widget_activate (button);
  pd_test_wait_until (has_file, one, "the approved write on endpoint A");
  /* Its next question: denied from the card, the run ends.  The card
   * may still show the first question, answered, a moment: the second is
   * the one about two.txt (Deny on the first answered nothing, and the
   * second waited until serve stopped). */
  wait_card (window, "Work on A", "Waiting for Approval", 0, FALSE, "A's second question");
  wait_card_says (window, "Work on A", "two.txt", "A's second question, about two.txt");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview-approval");
  pd_test_a11y_assert_named (row_of (window, "Work on A"), "a card with a question");
  pd_overview_card_row_set_answer_guard (PD_OVERVIEW_CARD_ROW (row_of (window, "Work on A")), 0);
  button = pd_test_find_first (row_of (window, "Work on A"), is_button, "_Deny");
  g_assert_nonnull (button);
  gtk_widget_activate (button);
  wait_card (window, "Work on B", NULL, 0, FALSE, "A's questions answered (B first again)");

  /* B killed: its card stays, saying so; the others follow on. */
  pd_test_served_stop (&c->served[1].serve);
  wait_card (window, "Work on B", NULL, G_MAXUINT, TRUE, "B's card to say its endpoint is away");
  wait_card_says (window, "Work on B", "Unreachable", "B's card to say its endpoint is unreachable");
  save_plan (c->local_store, c->local_id, "Local work", 3, working, 3);
  wait_card (window, "Local work", "1/3", G_MAXUINT, FALSE, "the local card to follow while B is away");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview-away");
  /* Back on its address with a new token: refused, the card still there;
   * the token given, its card follows again. */
  save_plan (c->served[1].store, c->served[1].id, "Work on B", 3, further, 3);
  pd_test_served_start (&c->served[1].serve);
  wait_card_says (window, "Work on B", "Token refused", "B's card to say its token is refused");
  g_assert_true (pd_window_set_endpoint_token (window, c->served[1].serve.base, c->served[1].serve.token));
  wait_card (window, "Work on B", "2/3", G_MAXUINT, FALSE, "B's card back");

  /* A's run waiting on a question, its endpoint killed (kill -9) and
   * started again: serve finds the session left running, no word of how
   * its run ended.  The card says "Interrupted", neutral, with the runs
   * done and its pie (it read red among the failures, tried as a new user
   * would). */
  start_run_elsewhere (c->served[0].serve.url, c->served[0].id, "Write two files");
  wait_card (window, "Work on A", "Waiting for Approval", 0, FALSE, "A's question once more");
  pd_test_served_stop (&c->served[0].serve);
  wait_card_says (window, "Work on A", "Unreachable", "A's card to say its endpoint is unreachable");
  pd_test_served_start (&c->served[0].serve);
  wait_card_says (window, "Work on A", "Token refused", "A's card to say its token is refused");
  g_assert_true (pd_window_set_endpoint_token (window, c->served[0].serve.base, c->served[0].serve.token));
  wait_card (window, "Work on A", "Interrupted", G_MAXUINT, FALSE, "A's card to say its run was interrupted");
  card = pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row_of (window, "Work on A")));
  g_assert_cmpint (pd_overview_card_get_status (card), ==, PD_SESSION_STATUS_INTERRUPTED);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_STOPPED);
  g_assert_false (gtk_widget_has_css_class (pd_test_find_first (row_of (window, "Work on A"), label_contains,
                                                                 "Interrupted"), "error"));
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview-interrupted");

  /* A click on a card opens its session, from its own source, even while
   * a search of the session list hides it (the page said "No Matching
   * Sessions", tried as a new user would): the search makes way. */
  pd_session_list_set_query (session_list (window), "Work on", FALSE);
  pd_test_wait_until (n_listed, &(ShownWait) { window, 2 }, "the search's two matches");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_wait_until (overview_page_shown, window, "the Overview over the search");
  list = GTK_LIST_VIEW (pd_test_find_widget (GTK_WIDGET (overview_view (window)), GTK_TYPE_LIST_VIEW));
  for (guint i = 0; i < g_list_model_get_n_items (pd_overview_view_get_shown (overview_view (window))); i++)
    {
      g_autoptr(PdOverviewCard) shown = g_list_model_get_item (pd_overview_view_get_shown (overview_view (window)), i);

      if (g_str_equal (pd_overview_card_get_title (shown), "Local work"))
        g_signal_emit_by_name (list, "activate", i);
    }
  pd_test_wait_until (session_page_shown, window, "the local session opened from its card");
  g_assert_null (pd_session_list_get_query (session_list (window)));
}

static void
test_overview (void)
{
  Case c = { 0 };
  const char *names[] = { "Work on A", "Work on B" };
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  c.local = run_fixture_new (replay_writes);
  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  c.local_store = pd_test_open_store (local_db);
  c.local_id = pd_test_add_session (c.local_store, "Local work", "plandeck");
  save_plan (c.local_store, c.local_id, "Local work", 1, working, 3);

  pd_test_reset_settings ();
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  for (guint i = 0; i < G_N_ELEMENTS (c.served); i++)
    {
      g_autofree char *id = g_strdup_printf ("endpoint-%u", i);

      c.served[i].serve.fixture = run_fixture_new (replay_writes);
      c.served[i].store = pd_test_open_store (c.served[i].serve.fixture->db);
      c.served[i].id = pd_test_add_session (c.served[i].store, names[i], "plandeck");
      save_plan (c.served[i].store, c.served[i].id, names[i], 1, working, 3);
      pd_test_served_start (&c.served[i].serve);
      /* The tokens as the keyring would give them (no keyring here). */
      pd_secrets_keep_for_session (c.served[i].serve.base, c.served[i].serve.token);
      g_variant_builder_add (&builder, "(sss)", id, endpoint_names[i], c.served[i].serve.base);
    }
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));

  g_assert_cmpint (pd_test_run_app (NULL, check_overview, &c, NULL), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (c.served); i++)
    {
      pd_test_served_stop (&c.served[i].serve);
      pd_secrets_keep_for_session (c.served[i].serve.base, NULL);
      pd_test_served_clear (&c.served[i].serve);
      g_clear_object (&c.served[i].store);
      g_free (c.served[i].id);
      run_fixture_free (c.served[i].serve.fixture);
    }
  g_clear_object (&c.local_store);
  g_free (c.local_id);
  run_fixture_free (c.local);
}

/* --- a card alone ------------------------------------------------------- */

typedef struct
{
  PdOverview     *overview;
  PdOverviewView *view;
  guint           n;
} Pill;

static gboolean
overview_has_cards (gpointer data)
{
  Pill *pill = data;

  return pd_overview_get_loaded (pill->overview) &&
         g_list_model_get_n_items (G_LIST_MODEL (pill->overview)) == pill->n;
}

/* The scrolled window of the cards (the empty page has one of its own). */
static GtkWidget *
overview_scroller (PdOverviewView *view)
{
  return gtk_widget_get_ancestor (pd_test_find_widget (GTK_WIDGET (view), GTK_TYPE_LIST_VIEW), GTK_TYPE_SCROLLED_WINDOW);
}

static GtkAdjustment *
overview_adjustment (PdOverviewView *view)
{
  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (overview_scroller (view)));
}

static gboolean
is_new_requests (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_has_css_class (widget, "pd-new-requests");
}

static gboolean
scrolled_to_bottom (gpointer data)
{
  GtkAdjustment *adjustment = overview_adjustment (data);

  /* The list measures its rows as they come into sight: its end moves. */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  return gtk_adjustment_get_value (adjustment) > 2 * gtk_adjustment_get_page_size (adjustment);
}

/* The empty page gone: the stack's cross-fade to the cards is over.  The
 * test's window gave the focus to that page's scroller, its only Tab stop
 * before the cards came (in the app's window a status page whose text fits
 * is none: _pd_status_pages_tab_to_controls()).  Hidden at the fade's end
 * with the focus in it, GTK gives the focus to the window's first Tab
 * stop, here the first card, and the list scrolls to it: a list scrolled
 * down before then went back to its top, and no button came (timed out
 * under load, 4 runs of 11). */
static gboolean
empty_page_gone (gpointer data)
{
  GtkWidget *empty = pd_test_find_widget (GTK_WIDGET (data), ADW_TYPE_STATUS_PAGE);

  return empty != NULL && !gtk_widget_get_mapped (empty);
}

static gboolean
pill_shown (gpointer data)
{
  GtkWidget *button = pd_test_find_first (GTK_WIDGET (data), is_new_requests, NULL);

  return button != NULL && gtk_widget_get_mapped (button);
}

/* The card row of @card, shown within the list's visible part. */
static gboolean
card_in_sight (PdOverviewView *view,
               PdOverviewCard *card)
{
  GtkWidget *scroller = overview_scroller (view);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  pd_test_collect (GTK_WIDGET (view), PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      graphene_rect_t bounds;

      if (gtk_widget_get_mapped (row) && pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row)) == card &&
          gtk_widget_compute_bounds (row, scroller, &bounds) &&
          bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller))
        return TRUE;
    }
  return FALSE;
}

/* A question comes for a session whose card is below; the card goes first.
 * Scrolled down, a person did not see it arrive (tried as a new user
 * would): "1 New Request" at the top says so, and takes the list there.  At
 * the top, the list stays there and the question is in sight. */
static void
test_new_request_pill (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdLocalSource) source = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GtkWindow *window;
  GtkWidget *button;
  GtkAdjustment *adjustment;
  Pill pill = { 0 };
  PdOverviewCard *asking;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Work %u", i);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, title, "m", "replay", "plandeck", dir, &error);

      g_assert_no_error (error);
      g_ptr_array_add (ids, g_strdup (info->id));
      save_plan (store, info->id, title, 1, working, G_N_ELEMENTS (working));
    }
  source = pd_local_source_new (db, FALSE);
  g_list_store_append (sources, source);
  pill.overview = pd_overview_new (G_LIST_MODEL (sources));
  pill.n = 30;
  pill.view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (pill.view, pill.overview);
  window = pd_test_present (GTK_WIDGET (pill.view), 600, 500);
  pd_test_wait_until (overview_has_cards, &pill, "30 cards");
  pd_test_wait_until (empty_page_gone, pill.view, "the empty page faded out");
  pd_test_flush (GTK_WIDGET (window));
  adjustment = overview_adjustment (pill.view);
  button = pd_test_find_first (GTK_WIDGET (pill.view), is_new_requests, NULL);
  g_assert_nonnull (button);
  g_assert_false (gtk_widget_get_visible (button));

  /* Scrolled to the bottom; the first session (the oldest, shown last)
   * asks a question. */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  pd_test_wait_until (scrolled_to_bottom, pill.view, "the list scrolled to its bottom");
  pd_test_flush (GTK_WIDGET (window));
  pd_overview_set_local_approval (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 0), "shell", "make", NULL, 1);
  asking = pd_overview_find (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 0));
  g_assert_true (g_list_model_get_item (G_LIST_MODEL (pill.overview), 0) == (gpointer) asking);
  g_object_unref (asking);   /* the get_item's */
  pd_test_wait_until (pill_shown, pill.view, "the new request button");
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "1 New Request");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (card_in_sight (pill.view, asking));
  g_assert_true (gtk_adjustment_get_value (adjustment) > 0);
  pd_test_a11y_assert_named (GTK_WIDGET (pill.view), "the Overview with its new request button");
  pd_test_screenshot_sizes (window, "overview-new-request");

  /* A second one adds to it. */
  pd_overview_set_local_approval (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 1), "shell", "make", NULL, 2);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "2 New Requests");

  /* The button takes the list to its top, where the question is. */
  g_signal_emit_by_name (button, "clicked");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (100);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (gtk_widget_get_visible (button));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_true (card_in_sight (pill.view, asking));

  /* At the top, a new question stays in sight, with no button. */
  pd_overview_set_local_approval (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 2), "shell", "make", NULL, 3);
  asking = pd_overview_find (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 2));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (100);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (gtk_widget_get_visible (button));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_true (card_in_sight (pill.view, asking));

  /* Scrolled back by hand to the top, the button goes. */
  pd_test_wait_until (scrolled_to_bottom, pill.view, "the list scrolled to its bottom again");
  pd_overview_set_local_approval (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 3), "shell", "make", NULL, 4);
  pd_test_wait_until (pill_shown, pill.view, "the new request button again");
  pd_test_flush (GTK_WIDGET (window));
  gtk_adjustment_set_value (adjustment, 0);
  g_assert_false (gtk_widget_get_visible (button));

  gtk_window_destroy (window);
  g_clear_object (&pill.overview);
}

typedef struct
{
  PdOverview *overview;
  const char *id;
} Placed;

static gboolean
card_placed_second (gpointer data)
{
  Placed *placed = data;
  g_autoptr(PdOverviewCard) card = g_list_model_get_item (G_LIST_MODEL (placed->overview), 1);

  return card != NULL && g_strcmp0 (pd_overview_card_get_session_id (card), placed->id) == 0 &&
         pd_overview_card_get_blocked (card) > 0;
}

/* A card asks (it goes first) and the second has the focus: as other
 * sessions' steps block one after another (each of them placed second,
 * under the question), the list at its top stays there with the question
 * in sight.  It moved only for a card that came first; GTK 4.8's list kept
 * the focused card in place as it went down, and the question went out of
 * sight above (tried as a new user would). */
static void
test_first_card_stays (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdLocalSource) source = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autoptr(PdOverviewCard) asking = NULL;
  g_autoptr(PdOverviewCard) second = NULL;
  GtkWindow *window;
  GtkAdjustment *adjustment;
  Pill pill = { 0 };

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Work %u", i);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, title, "m", "replay", "plandeck", dir, &error);

      g_assert_no_error (error);
      g_ptr_array_add (ids, g_strdup (info->id));
      save_plan (store, info->id, title, 1, working, G_N_ELEMENTS (working));
    }
  source = pd_local_source_new (db, FALSE);
  pd_local_source_watch (source, 50);
  g_list_store_append (sources, source);
  pill.overview = pd_overview_new (G_LIST_MODEL (sources));
  pill.n = 30;
  pill.view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (pill.view, pill.overview);
  window = pd_test_present (GTK_WIDGET (pill.view), 600, 500);
  pd_test_wait_until (overview_has_cards, &pill, "30 cards");
  pd_overview_set_local_approval (pill.overview, PD_SOURCE (source), g_ptr_array_index (ids, 0), "shell", "make", NULL, 1);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  adjustment = overview_adjustment (pill.view);
  asking = g_list_model_get_item (G_LIST_MODEL (pill.overview), 0);
  g_assert_true (pd_overview_card_has_approval (asking));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_true (card_in_sight (pill.view, asking));

  /* The second card takes the focus. */
  second = g_list_model_get_item (G_LIST_MODEL (pill.overview), 1);
  pd_test_collect (GTK_WIDGET (pill.view), PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    if (pd_overview_card_row_get_card (g_ptr_array_index (rows, i)) == second)
      gtk_widget_grab_focus (gtk_widget_get_parent (g_ptr_array_index (rows, i)));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (window)));

  /* The oldest sessions block one after another: each goes second. */
  for (guint i = 29; i > 21; i--)
    {
      g_autoptr(PdOverviewCard) placed = NULL;

      save_plan (store, g_ptr_array_index (ids, i), "Blocked", 2, blocked, G_N_ELEMENTS (blocked));
      pd_test_wait_until (card_placed_second, &(Placed) { pill.overview, g_ptr_array_index (ids, i) },
                          "the blocked card placed second");
      pd_test_flush (GTK_WIDGET (window));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_flush (GTK_WIDGET (window));
      g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
      g_assert_true (card_in_sight (pill.view, asking));
    }

  pd_local_source_watch (source, 0);
  gtk_window_destroy (window);
  g_clear_object (&pill.overview);
}

/* A source of @n sessions on a database of its own in @dir, their plans
 * @statuses. */
static PdLocalSource *
source_of (const char             *dir,
           const char             *name,
           guint                   n,
           const PdPlanStepStatus *statuses,
           guint                   n_statuses,
           char                  **first_id)
{
  g_autofree char *db = g_strdup_printf ("%s/%s.db", dir, name);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  PdLocalSource *source;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *title = g_strdup_printf ("%s %u", name, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, title, "m", "replay", "plandeck", dir, &error);

      g_assert_no_error (error);
      save_plan (store, info->id, title, 1, statuses, n_statuses);
      if (i == 0 && first_id != NULL)
        *first_id = g_strdup (info->id);
    }
  source = pd_local_source_new (db, FALSE);
  pd_local_source_watch (source, 50);
  return source;
}

static const PdPlanStepStatus all_done[] = { PD_PLAN_STEP_DONE, PD_PLAN_STEP_DONE, PD_PLAN_STEP_DONE };

/* At start-up this computer's card shows first, alone; the endpoints'
 * cards come after it, one endpoint after another, all of them above it.
 * The list was never scrolled: it is at its top when they are all there,
 * the question first and in sight.  It stayed on this computer's card, a
 * page and more below (5 of 9 start-ups with four endpoints, tried as a
 * new user would). */
static void
start_up_once (guint first_gap,
               guint gap)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autoptr(PdLocalSource) local = source_of (dir, "Here", 1, all_done, G_N_ELEMENTS (all_done), NULL);
  PdLocalSource *endpoints[8];
  g_autofree char *asking_id = NULL;
  g_autoptr(PdOverviewCard) first = NULL;
  GtkWindow *window;
  GtkAdjustment *adjustment;
  Pill pill = { 0 };

  g_list_store_append (sources, local);
  pill.overview = pd_overview_new (G_LIST_MODEL (sources));
  pill.n = 1;
  pill.view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (pill.view, pill.overview);
  window = pd_test_present (GTK_WIDGET (pill.view), 600, 500);
  pd_test_wait_until (overview_has_cards, &pill, "this computer's card");
  pd_test_flush (GTK_WIDGET (window));

  /* The window's focus is on this computer's card, as after a click. */
  pd_test_collect (GTK_WIDGET (pill.view), PD_TYPE_OVERVIEW_CARD_ROW, rows);
  g_assert_cmpuint (rows->len, ==, 1);
  gtk_widget_grab_focus (gtk_widget_get_parent (g_ptr_array_index (rows, 0)));
  pd_test_flush (GTK_WIDGET (window));

  for (guint i = 0; i < G_N_ELEMENTS (endpoints); i++)
    {
      g_autofree char *name = g_strdup_printf ("Endpoint%u", i);

      endpoints[i] = source_of (dir, name, 5, i == 0 ? working : blocked, 3, i == 0 ? &asking_id : NULL);
      g_list_store_append (sources, endpoints[i]);
      if (i == 0)
        pd_overview_set_local_approval (pill.overview, PD_SOURCE (endpoints[i]), asking_id, "shell", "make", NULL, 1);
      pill.n += 5;
      /* Each a little later than the one before: one of them comes while
       * GTK still holds the first card in place, a frame below the top. */
      pd_test_spin (first_gap + gap * i);
    }
  pd_test_wait_until (overview_has_cards, &pill, "the endpoints' cards");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));

  adjustment = overview_adjustment (pill.view);
  first = g_list_model_get_item (G_LIST_MODEL (pill.overview), 0);
  g_assert_true (pd_overview_card_has_approval (first));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));
  g_assert_true (card_in_sight (pill.view, first));

  for (guint i = 0; i < G_N_ELEMENTS (endpoints); i++)
    {
      pd_local_source_watch (endpoints[i], 0);
      g_object_unref (endpoints[i]);
    }
  pd_local_source_watch (local, 0);
  gtk_window_destroy (window);
  g_clear_object (&pill.overview);
}

static void
test_start_up_top (void)
{
  /* Start-ups with the endpoints a little faster or slower each. */
  start_up_once (4, 7);
  start_up_once (2, 5);
  start_up_once (9, 11);
  start_up_once (1, 3);
}

/* --- an endpoint of 3,000 sessions ---------------------------------------- */

static gboolean
overview_loaded_full (gpointer data)
{
  Pill *pill = data;

  return pd_overview_get_loaded (pill->overview) &&
         g_list_model_get_n_items (G_LIST_MODEL (pill->overview)) >= pill->n;
}

static gboolean
overview_empty (gpointer data)
{
  Pill *pill = data;

  return g_list_model_get_n_items (G_LIST_MODEL (pill->overview)) == 0;
}

/* An endpoint added with 3,000 active sessions (a real PdServer): its
 * cards come, are scrolled through, follow changes and go with it, with
 * no warning of GTK's (the ui tests run with G_DEBUG=fatal-warnings). */
static void
test_big_endpoint (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdServer) server = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  const char *token = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";
  GtkAdjustment *adjustment;
  GtkWindow *window;
  Pill pill = { 0 };

  /* Written fast: nothing here needs to outlive a crash. */
  g_assert_true (pd_db_exec (pd_session_store_get_db (store), "PRAGMA synchronous = OFF", &error));
  for (guint i = 0; i < 3000; i++)
    {
      g_autofree char *title = g_strdup_printf ("Agent %u", i);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, title, "m", "replay", "plandeck", dir, &error);

      g_assert_no_error (error);
      g_ptr_array_add (ids, g_strdup (info->id));
      save_plan (store, info->id, title, 1, working, G_N_ELEMENTS (working));
    }
  server = pd_server_new (db);
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, token);
  pd_server_set_rate_limit (server, 0);
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);

  pill.overview = pd_overview_new (G_LIST_MODEL (sources));
  pill.view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (pill.view, pill.overview);
  window = pd_test_present (GTK_WIDGET (pill.view), 600, 500);
  pd_test_flush (GTK_WIDGET (window));

  /* Added while the page is shown. */
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", pd_server_get_port (server), token);
  remote = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  pd_remote_source_watch (remote, PD_REMOTE_SOURCE_WATCH_MS);
  g_list_store_append (sources, remote);
  pill.n = PD_SESSION_LIST_MAX_LIMIT;
  pd_test_wait_until (overview_loaded_full, &pill, "the endpoint's cards");
  pd_test_flush (GTK_WIDGET (window));

  /* Scrolled through, while the newest sessions change. */
  adjustment = overview_adjustment (pill.view);
  for (guint step = 0; step <= 10; step++)
    {
      gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment) * step / 10);
      save_plan (store, g_ptr_array_index (ids, 2999 - step), "changed", 2 + step, step % 2 ? blocked : further,
                 G_N_ELEMENTS (working));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (100);
    }
  pd_test_spin (500);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_assert_named (GTK_WIDGET (pill.view), "the Overview of an endpoint of 3,000 sessions");

  /* The endpoint removed: its cards go. */
  g_list_store_remove (sources, 0);
  pd_test_wait_until (overview_empty, &pill, "the endpoint's cards to go");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);

  gtk_window_destroy (window);
  g_clear_object (&pill.overview);
  pd_remote_source_watch (remote, 0);
  pd_server_stop (server);
}

/* --- cards that move under the pointer ----------------------------------- */

typedef struct
{
  Pill       *pill;
  const char *title;
} FirstWait;

static gboolean
first_card_is (gpointer data)
{
  FirstWait *wait = data;
  g_autoptr(PdOverviewCard) first = g_list_model_get_item (G_LIST_MODEL (wait->pill->overview), 0);

  return first != NULL && g_strcmp0 (pd_overview_card_get_title (first), wait->title) == 0;
}

static gboolean
all_rows_take_answers (gpointer data)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  pd_test_collect (data, PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    if (!pd_overview_card_row_takes_answers (rows->pdata[i]))
      return FALSE;
  return rows->len > 0;
}

/* Tried as a new user would: the cards were placed again by need as the
 * pointer came to Approve Once, and the click approved the question of the
 * card that had moved there.  A row that moved takes no click for the
 * guard's time, as after its question changed. */
static void
test_moved_cards_hold_clicks (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdServer) server = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  const char *token = "d00dfeedd00dfeedd00dfeedd00dfeedd00dfeedd00dfeedd00dfeedd00dfeed";
  const char *titles[] = { "Agent one", "Agent two", "Agent three" };
  GtkWindow *window;
  Pill pill = { 0 };
  guint held = 0;

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, titles[i], "m", "replay", "plandeck", dir, &error);

      g_assert_no_error (error);
      g_ptr_array_add (ids, g_strdup (info->id));
      save_plan (store, info->id, titles[i], 1, working, G_N_ELEMENTS (working));
    }
  server = pd_server_new (db);
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, token);
  pd_server_set_rate_limit (server, 0);
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);

  pill.overview = pd_overview_new (G_LIST_MODEL (sources));
  pill.view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (pill.view, pill.overview);
  window = pd_test_present (GTK_WIDGET (pill.view), 600, 700);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", pd_server_get_port (server), token);
  remote = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  pd_remote_source_watch (remote, PD_REMOTE_SOURCE_WATCH_MS);
  g_list_store_append (sources, remote);
  pill.n = G_N_ELEMENTS (titles);
  pd_test_wait_until (overview_loaded_full, &pill, "the endpoint's cards");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_wait_until (all_rows_take_answers, pill.view, "every card to take clicks");

  /* The last card blocked: it goes first, the others move down. */
  save_plan (store, g_ptr_array_index (ids, 0), titles[0], 2, blocked, G_N_ELEMENTS (blocked));
  pd_test_wait_until (first_card_is, &(FirstWait) { &pill, titles[0] }, "the blocked card to go first");
  pd_test_collect (GTK_WIDGET (pill.view), PD_TYPE_OVERVIEW_CARD_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    if (!pd_overview_card_row_takes_answers (rows->pdata[i]))
      held++;
  /* At least the rows that now show another card's place hold clicks. */
  g_assert_cmpuint (held, >=, 2);
  /* And take them again once they have stayed put a moment. */
  pd_test_wait_until (all_rows_take_answers, pill.view, "the moved cards to take clicks again");

  gtk_window_destroy (window);
  g_clear_object (&pill.overview);
  pd_remote_source_watch (remote, 0);
  pd_server_stop (server);
}

/* --- a card's menu --------------------------------------------------------- */

static gboolean
popover_mapped (gpointer data)
{
  return data != NULL && gtk_widget_get_mapped (data);
}

typedef struct
{
  PdSessionStore *store;
  const char     *id;
} Gone;

static gboolean
session_gone (gpointer data)
{
  Gone *gone = data;
  g_autoptr(PdSessionInfo) info = pd_session_store_get (gone->store, gone->id, NULL);

  return info == NULL;
}

static gboolean
card_gone (gpointer data)
{
  return row_of (data, "Work on A") == NULL;
}

/* The card's menu: Export as Markdown and JSON, and Delete, for the card's
 * own session of its own source (an endpoint's here), all working; the
 * window's menu leaves out the session's items it cannot apply with no
 * session shown (N11: both greyed them out on the Overview). */
static void
check_card_menu (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  Case *c = user_data;
  PdOverviewView *view;
  PdOverviewCard *card;
  GtkWidget *menu;
  GMenuModel *model;
  GtkWindow *chooser;
  Gone gone = { c->served[0].store, c->served[0].id };

  pd_test_wait_until (overview_page_shown, window, "the Overview page at start");
  wait_card (window, "Work on A", "1/3", G_MAXUINT, FALSE, "the card of endpoint A");
  view = overview_view (window);
  card = pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row_of (window, "Work on A")));
  g_assert_true (pd_overview_card_get_source (card) == source_at (window, 1));

  /* With no session shown, the window's menu leaves out its Export and
   * Delete (off: no session to apply them to); the card's menu has them. */
  for (int i = 0; i < g_menu_model_get_n_items (G_MENU_MODEL (window->session_section)); i++)
    {
      g_autofree char *hidden = NULL;

      g_assert_true (g_menu_model_get_item_attribute (G_MENU_MODEL (window->session_section), i, "hidden-when", "s",
                                                      &hidden));
      g_assert_cmpstr (hidden, ==, "action-disabled");
    }
  g_assert_true (pd_overview_view_popup_card_menu (view, card));
  menu = pd_overview_view_get_card_menu (view);
  pd_test_wait_until (popover_mapped, menu, "the card's menu");
  model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu));
  g_assert_cmpint (g_menu_model_get_n_items (model), ==, 3);
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *action = NULL;
      const char *expected[] = { "win.card-export-markdown", "win.card-export-json", "win.card-delete" };

      g_assert_true (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &action));
      g_assert_cmpstr (action, ==, expected[i]);
    }
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview-card-menu");
  gtk_popover_popdown (GTK_POPOVER (menu));

  /* Export: the chooser, offering the card's title for a name. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.card-export-markdown", "(ss)", "endpoint-0",
                                             c->served[0].id));
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the export's file chooser");
  chooser = pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER);
  {
    g_autofree char *name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));

    g_assert_nonnull (strstr (name, "Work on A"));
    g_assert_true (g_str_has_suffix (name, ".md"));
  }
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  pd_test_wait_until (pd_test_toplevel_gone, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the chooser to close");

  /* Delete: from the endpoint, once its Undo has gone; the card goes. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.card-delete", "(ss)", "endpoint-0",
                                             c->served[0].id));
  pd_session_deleter_flush (window->deleter);
  pd_test_wait_until (session_gone, &gone, "the endpoint's session deleted");
  pd_test_wait_until (card_gone, window, "its card to go");
}

static void
test_card_menu (void)
{
  Case c = { 0 };
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  c.local_store = pd_test_open_store (local_db);
  pd_test_reset_settings ();
  c.served[0].serve.fixture = run_fixture_new (replay_writes);
  c.served[0].store = pd_test_open_store (c.served[0].serve.fixture->db);
  c.served[0].id = pd_test_add_session (c.served[0].store, "Work on A", "plandeck");
  save_plan (c.served[0].store, c.served[0].id, "Work on A", 1, working, 3);
  pd_test_served_start (&c.served[0].serve);
  pd_secrets_keep_for_session (c.served[0].serve.base, c.served[0].serve.token);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "endpoint-0", endpoint_names[0], c.served[0].serve.base);
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));

  g_assert_cmpint (pd_test_run_app (NULL, check_card_menu, &c, NULL), ==, 0);

  pd_test_served_stop (&c.served[0].serve);
  pd_secrets_keep_for_session (c.served[0].serve.base, NULL);
  pd_test_served_clear (&c.served[0].serve);
  g_clear_object (&c.served[0].store);
  g_free (c.served[0].id);
  run_fixture_free (c.served[0].serve.fixture);
  g_clear_object (&c.local_store);
}

/* --- an endpoint added while the window runs ------------------------------ */

static gboolean
has_sources (gpointer data)
{
  ShownWait *wait = data;

  return g_list_model_get_n_items (_pd_window_get_sources (wait->window)) == wait->n;
}

/* Endpoints added in Preferences while the window runs (the `sources`
 * setting as its Sources page writes it, each address as serve prints it,
 * its token kept apart), the first given its token in place, one killed
 * and back: its cards stay with its state in words while it is away and
 * follow it when it returns, as an endpoint's configured at start do. */
static void
set_endpoints (Case *c,
               guint n)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("endpoint-%u", i);
      g_autofree char *address = g_strconcat (c->served[i].serve.base, "/", NULL);

      g_variant_builder_add (&builder, "(sss)", id, endpoint_names[i], address);
    }
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
}

static void
check_added_endpoint (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  Case *c = user_data;
  g_autofree char *address = NULL;

  pd_test_wait_until (overview_page_shown, window, "the Overview page at start");
  wait_card (window, "Local work", NULL, G_MAXUINT, FALSE, "the local card");

  /* The first without its token: refused; its token given, its card. */
  set_endpoints (c, 1);
  pd_test_wait_until (has_sources, &(ShownWait) { window, 2 }, "the endpoint added");
  pd_sources_give_token (c->served[0].serve.base, c->served[0].serve.token);
  wait_card (window, "Work on A", "1/3", G_MAXUINT, FALSE, "the added endpoint's card");
  wait_card_says (window, "Work on A", "Endpoint A", "its card to name it");
  /* The next added, its token kept as Preferences keeps it, by its
   * address. */
  address = g_strconcat (c->served[1].serve.base, "/", NULL);
  pd_secrets_keep_for_session (address, c->served[1].serve.token);
  set_endpoints (c, 2);
  pd_test_wait_until (has_sources, &(ShownWait) { window, 3 }, "the second endpoint added");
  wait_card (window, "Work on B", "1/3", G_MAXUINT, FALSE, "the second endpoint's card");
  wait_card (window, "Work on A", "1/3", G_MAXUINT, FALSE, "the first endpoint's card still");

  /* Killed: its card stays, saying so. */
  pd_test_served_stop (&c->served[0].serve);
  wait_card_says (window, "Work on A", "Unreachable", "A's card to say its endpoint is unreachable");
  wait_card (window, "Work on A", NULL, G_MAXUINT, TRUE, "A's card kept while it is away");
  save_plan (c->local_store, c->local_id, "Local work", 2, further, 3);
  save_plan (c->served[1].store, c->served[1].id, "Work on B", 2, further, 3);
  wait_card (window, "Local work", "2/3", G_MAXUINT, FALSE, "the local card to follow while A is away");
  wait_card (window, "Work on B", "2/3", G_MAXUINT, FALSE, "B's card to follow while A is away");
  wait_card (window, "Work on A", NULL, G_MAXUINT, TRUE, "A's card still there");

  /* Back, moved on, with its new token: its card follows again. */
  save_plan (c->served[0].store, c->served[0].id, "Work on A", 2, further, 3);
  pd_test_served_start (&c->served[0].serve);
  pd_sources_give_token (c->served[0].serve.base, c->served[0].serve.token);
  wait_card (window, "Work on A", "2/3", G_MAXUINT, FALSE, "A's card back");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_window_get_overview (window))), ==, 3);
}

static void
test_added_endpoint (void)
{
  Case c = { 0 };
  const char *names[] = { "Work on A", "Work on B" };
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  c.local_store = pd_test_open_store (local_db);
  c.local_id = pd_test_add_session (c.local_store, "Local work", "plandeck");
  save_plan (c.local_store, c.local_id, "Local work", 1, working, 3);
  pd_test_reset_settings ();
  for (guint i = 0; i < G_N_ELEMENTS (c.served); i++)
    {
      c.served[i].serve.fixture = run_fixture_new (replay_writes);
      c.served[i].store = pd_test_open_store (c.served[i].serve.fixture->db);
      c.served[i].id = pd_test_add_session (c.served[i].store, names[i], "plandeck");
      save_plan (c.served[i].store, c.served[i].id, names[i], 1, working, 3);
      pd_test_served_start (&c.served[i].serve);
      pd_secrets_keep_for_session (c.served[i].serve.base, NULL);
    }

  g_assert_cmpint (pd_test_run_app (NULL, check_added_endpoint, &c, NULL), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (c.served); i++)
    {
      g_autofree char *address = g_strconcat (c.served[i].serve.base, "/", NULL);

      pd_test_served_stop (&c.served[i].serve);
      pd_secrets_keep_for_session (c.served[i].serve.base, NULL);
      pd_secrets_keep_for_session (address, NULL);
      pd_test_served_clear (&c.served[i].serve);
      g_clear_object (&c.served[i].store);
      g_free (c.served[i].id);
      run_fixture_free (c.served[i].serve.fixture);
    }
  g_clear_object (&c.local_store);
  g_free (c.local_id);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/overview/cards", test_overview);
  g_test_add_func ("/pd/ui/overview/new-request-pill", test_new_request_pill);
  g_test_add_func ("/pd/ui/overview/first-card-stays", test_first_card_stays);
  g_test_add_func ("/pd/ui/overview/start-up-top", test_start_up_top);
  g_test_add_func ("/pd/ui/overview/big-endpoint", test_big_endpoint);
  g_test_add_func ("/pd/ui/overview/moved-cards-hold-clicks", test_moved_cards_hold_clicks);
  g_test_add_func ("/pd/ui/overview/card-menu", test_card_menu);
  g_test_add_func ("/pd/ui/overview/added-endpoint", test_added_endpoint);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}

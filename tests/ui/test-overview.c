/* test-overview.c: the Overview page of the real application
 *
 * A window on a local database, and two real `plandeck-agent serve`
 * processes (the replay provider, each on its own database and folder)
 * whose endpoints the window's overview follows beside its own database,
 * as the window's list of sources will give them.  The cards appear, follow
 * a plan changed elsewhere, reorder (a blocked step goes first), answer an
 * endpoint's question in place (the run goes on), survive an endpoint
 * killed and started again on its address, and open their session; every
 * card and control is named (GTK_A11Y=test, as the a11y test reads them).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview"

#include "config.h"

#include <signal.h>
#include <sys/prctl.h>

#include "pd-overview-card-row.h"
#include "pd-test-a11y.h"
#include "pd-overview-view.h"
#include "pd-test-runs.h"

typedef struct
{
  RunFixture     *fixture;
  PdSessionStore *store;
  char           *id;
  GSubprocess    *process;
  char           *url;
  guint           port;
  PdRemoteSource *source;   /* the window's overview follows it */
} Served;

typedef struct
{
  RunFixture     *local;
  PdSessionStore *local_store;
  char           *local_id;
  Served          served[2];
} Case;

static void
die_with_test (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static void
served_start (Served *served)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *log = g_build_filename (served->fixture->dir, "serve.log", NULL);
  g_autofree char *listen = g_strdup_printf ("127.0.0.1:%u", served->port);
  const char *agent = g_getenv ("PLANDECK_AGENT");

  g_assert_nonnull (agent);
  g_subprocess_launcher_set_stderr_file_path (launcher, log);
  g_subprocess_launcher_set_child_setup (launcher, die_with_test, NULL, NULL);
  served->process = g_subprocess_launcher_spawn (launcher, &error, agent, "serve", "--db", served->fixture->db,
                                                 "--listen", listen, "--rate-limit", "0",
                                                 "--provider", "replay", "--replay", served->fixture->replay,
                                                 "-C", served->fixture->project, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (served->process));
  g_free (served->url);
  served->url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (served->url);
  g_assert_true (g_str_has_prefix (served->url, "http://127.0.0.1:"));
  served->port = (guint) atoi (served->url + strlen ("http://127.0.0.1:"));
}

static void
served_stop (Served *served)
{
  if (served->process != NULL)
    {
      g_subprocess_send_signal (served->process, SIGKILL);
      g_subprocess_wait (served->process, NULL, NULL);
    }
  g_clear_object (&served->process);
}

/* Steps of @statuses (PdPlanStepStatus), titled "Step N of TITLE". */
static void
save_plan (PdSessionStore         *store,
           const char             *id,
           const char             *title,
           gint64                  version,
           const PdPlanStepStatus *statuses,
           guint                   n)
{
  g_autoptr(PdPlanState) plan = pd_plan_state_new ();

  plan->version = version;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *step_id = g_strdup_printf ("s%u", i + 1);
      g_autofree char *step_title = g_strdup_printf ("Step %u of %s", i + 1, title);

      g_ptr_array_add (plan->steps, pd_test_step (step_id, step_title, statuses[i],
                                                  statuses[i] == PD_PLAN_STEP_BLOCKED ? "waits on a key" : NULL));
    }
  pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_IDLE);
}

static const PdPlanStepStatus working[] = { PD_PLAN_STEP_DONE, PD_PLAN_STEP_IN_PROGRESS, PD_PLAN_STEP_PENDING };
static const PdPlanStepStatus blocked[] = { PD_PLAN_STEP_DONE, PD_PLAN_STEP_BLOCKED, PD_PLAN_STEP_PENDING };
static const PdPlanStepStatus further[] = { PD_PLAN_STEP_DONE, PD_PLAN_STEP_DONE, PD_PLAN_STEP_IN_PROGRESS };

/* --- reading the page ------------------------------------------------------ */

static PdOverviewView *
overview_view (PdWindow *window)
{
  return PD_OVERVIEW_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW));
}

typedef struct
{
  PdWindow   *window;
  const char *title;
  const char *text;     /* (nullable) a label the card shows */
  guint       position; /* G_MAXUINT: anywhere */
  gboolean    errored;
} Want;

static gboolean
is_row_of (GtkWidget     *widget,
           gconstpointer  data)
{
  PdOverviewCard *card;

  if (!PD_IS_OVERVIEW_CARD_ROW (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  card = pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (widget));
  return card != NULL && g_strcmp0 (pd_overview_card_get_title (card), data) == 0;
}

static GtkWidget *
row_of (PdWindow   *window,
        const char *title)
{
  return pd_test_find_first (GTK_WIDGET (overview_view (window)), is_row_of, title);
}

static gboolean
card_shows (gpointer data)
{
  const Want *want = data;
  PdOverview *overview = pd_window_get_overview (want->window);
  GtkWidget *row = row_of (want->window, want->title);
  PdOverviewCard *card;
  g_autoptr(PdOverviewCard) at = NULL;

  if (row == NULL)
    return FALSE;
  card = pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row));
  if (want->text != NULL && pd_test_find_label (row, want->text) == NULL)
    return FALSE;
  if ((pd_overview_card_get_source_error (card) != NULL) != want->errored)
    return FALSE;
  if (want->position == G_MAXUINT)
    return TRUE;
  at = g_list_model_get_item (G_LIST_MODEL (overview), want->position);
  return at == card;
}

static void
wait_card (PdWindow   *window,
           const char *title,
           const char *text,
           guint       position,
           gboolean    errored,
           const char *what)
{
  Want want = { window, title, text, position, errored };

  pd_test_wait_until (card_shows, &want, what);
}

static gboolean
is_button (GtkWidget     *widget,
           gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

static gboolean
has_file (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static gboolean
session_page_shown (gpointer data)
{
  PdWindow *window = data;
  PdSessionItem *item = pd_session_list_get_selected_item (session_list (window));

  return !pd_window_get_overview_shown (window) && item != NULL &&
         g_strcmp0 (pd_session_item_get_title (item), "Local work") == 0 &&
         pd_test_find_label (GTK_WIDGET (window), "Step 2 of Local work") != NULL;
}

static gboolean
overview_page_shown (gpointer data)
{
  return pd_window_get_overview_shown (data) && gtk_widget_get_mapped (GTK_WIDGET (overview_view (data)));
}

/* --- the case ------------------------------------------------------------ */

static void
check_overview (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  Case *c = user_data;
  GListStore *sources = G_LIST_STORE (pd_overview_get_sources (pd_window_get_overview (window)));
  g_autofree char *one = g_build_filename (c->served[0].fixture->project, "one.txt", NULL);
  GtkWidget *row, *button;
  GtkListView *list;
  g_autoptr(PdOverviewCard) first = NULL;

  /* The endpoints beside the window's database. */
  for (guint i = 0; i < G_N_ELEMENTS (c->served); i++)
    {
      g_autoptr(GError) error = NULL;

      c->served[i].source = pd_remote_source_new (c->served[i].url, NULL, &error);
      g_assert_no_error (error);
      pd_remote_source_watch (c->served[i].source, PD_REMOTE_SOURCE_WATCH_MS);
      g_list_store_append (sources, c->served[i].source);
    }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_wait_until (overview_page_shown, window, "the Overview page");

  wait_card (window, "Local work", "Now: Step 2 of Local work", G_MAXUINT, FALSE, "the local card");
  wait_card (window, "Work on A", "1/3", G_MAXUINT, FALSE, "the card of endpoint A");
  wait_card (window, "Work on B", "Working", G_MAXUINT, FALSE, "the card of endpoint B");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_window_get_overview (window))), ==, 3);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview");
  /* Every card and control is named for a screen reader. */
  pd_test_a11y_assert_named (GTK_WIDGET (overview_view (window)), "the Overview page");

  /* A step of B blocked elsewhere: B's card goes first and says so. */
  save_plan (c->served[1].store, c->served[1].id, "Work on B", 2, blocked, 3);
  wait_card (window, "Work on B", "1 Step Blocked", 0, FALSE, "B's card first, blocked");
  /* The local session moved on: its card follows. */
  save_plan (c->local_store, c->local_id, "Local work", 2, further, 3);
  wait_card (window, "Local work", "2/3", G_MAXUINT, FALSE, "the local card to follow its plan");

  /* A run on A asks before writing: the card asks too, first of all, and
   * Approve Once there lets the run write. */
  start_run_elsewhere (c->served[0].url, c->served[0].id, "Write two files");
  wait_card (window, "Work on A", "Waiting for Approval", 0, FALSE, "A's question on its card");
  row = row_of (window, "Work on A");
  g_assert_nonnull (pd_test_find_label (row, "The agent wants to write a file."));
  button = pd_test_find_first (row, is_button, "_Approve Once");
  g_assert_nonnull (button);
  g_assert_nonnull (pd_test_find_first (row, is_button, "_Deny"));
  g_assert_false (g_file_test (one, G_FILE_TEST_EXISTS));
  gtk_widget_activate (button);
  pd_test_wait_until (has_file, one, "the approved write on endpoint A");
  /* Its next question: denied from the card, the run ends. */
  wait_card (window, "Work on A", "Waiting for Approval", 0, FALSE, "A's second question");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview-approval");
  pd_test_a11y_assert_named (row_of (window, "Work on A"), "a card with a question");
  button = pd_test_find_first (row_of (window, "Work on A"), is_button, "_Deny");
  g_assert_nonnull (button);
  gtk_widget_activate (button);
  wait_card (window, "Work on B", NULL, 0, FALSE, "A's questions answered (B first again)");

  /* B killed: its card stays, with why; the others follow on. */
  served_stop (&c->served[1]);
  wait_card (window, "Work on B", NULL, G_MAXUINT, TRUE, "B's card to say its endpoint is away");
  save_plan (c->local_store, c->local_id, "Local work", 3, working, 3);
  wait_card (window, "Local work", "1/3", G_MAXUINT, FALSE, "the local card to follow while B is away");
  /* Back on its address (serve starts with a new token, given to the
   * source as a person pastes it): its card follows again. */
  save_plan (c->served[1].store, c->served[1].id, "Work on B", 3, further, 3);
  served_start (&c->served[1]);
  {
    g_autoptr(GUri) uri = g_uri_parse (c->served[1].url, G_URI_FLAGS_NONE, NULL);
    g_autoptr(GHashTable) params = g_uri_parse_params (g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE, NULL);

    pd_remote_source_set_token (c->served[1].source, g_hash_table_lookup (params, "token"));
  }
  wait_card (window, "Work on B", "2/3", G_MAXUINT, FALSE, "B's card back");

  /* A click on a card opens its session. */
  list = GTK_LIST_VIEW (pd_test_find_widget (GTK_WIDGET (overview_view (window)), GTK_TYPE_LIST_VIEW));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pd_window_get_overview (window))); i++)
    {
      g_autoptr(PdOverviewCard) card = g_list_model_get_item (G_LIST_MODEL (pd_window_get_overview (window)), i);

      if (g_str_equal (pd_overview_card_get_title (card), "Local work"))
        g_signal_emit_by_name (list, "activate", i);
    }
  pd_test_wait_until (session_page_shown, window, "the local session opened from its card");

  first = g_list_model_get_item (G_LIST_MODEL (pd_window_get_overview (window)), 0);
  g_assert_nonnull (first);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PdRemoteSource) source = g_list_model_get_item (G_LIST_MODEL (sources), 1);

      pd_remote_source_watch (source, 0);
      g_list_store_remove (sources, 1);
    }
}

static void
test_overview (void)
{
  Case c = { 0 };
  const char *args[] = { "--db", NULL, NULL };
  const char *names[] = { "Work on A", "Work on B" };

  c.local = run_fixture_new (replay_writes);
  c.local_store = pd_test_open_store (c.local->db);
  c.local_id = pd_test_add_session (c.local_store, "Local work", "plandeck");
  save_plan (c.local_store, c.local_id, "Local work", 1, working, 3);
  for (guint i = 0; i < G_N_ELEMENTS (c.served); i++)
    {
      c.served[i].fixture = run_fixture_new (replay_writes);
      c.served[i].store = pd_test_open_store (c.served[i].fixture->db);
      c.served[i].id = pd_test_add_session (c.served[i].store, names[i], "plandeck");
      save_plan (c.served[i].store, c.served[i].id, names[i], 1, working, 3);
      served_start (&c.served[i]);
    }

  args[1] = c.local->db;
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_overview, &c, NULL), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (c.served); i++)
    {
      served_stop (&c.served[i]);
      g_clear_object (&c.served[i].source);
      g_clear_object (&c.served[i].store);
      g_free (c.served[i].id);
      g_free (c.served[i].url);
      run_fixture_free (c.served[i].fixture);
    }
  g_clear_object (&c.local_store);
  g_free (c.local_id);
  run_fixture_free (c.local);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/overview/cards", test_overview);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}

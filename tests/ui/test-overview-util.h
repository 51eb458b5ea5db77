/* test-overview-util.h: what test-overview.c's cases share: the served
 * endpoints' case, plans saved as a run saves them, and reading the
 * Overview page (its cards, rows and waits).  Included by test-overview.c
 * alone, after its includes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

typedef struct
{
  PdTestServed    serve;
  PdSessionStore *store;
  char           *id;
} Served;

typedef struct
{
  RunFixture     *local;
  PdSessionStore *local_store;
  char           *local_id;
  Served          served[2];
} Case;

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

static gboolean label_contains (GtkWidget     *widget,
                                gconstpointer  data);

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
  if (want->text != NULL && pd_test_find_first (row, label_contains, want->text) == NULL)
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

/* --- what a card says ------------------------------------------------------ */

/* A label's text, or an inscription's (a card's X/Y and current step). */
static gboolean
label_contains (GtkWidget     *widget,
                gconstpointer  data)
{
  const char *text = GTK_IS_LABEL (widget) ? gtk_label_get_text (GTK_LABEL (widget))
                   : GTK_IS_INSCRIPTION (widget) ? gtk_inscription_get_text (GTK_INSCRIPTION (widget)) : NULL;

  return text != NULL && gtk_widget_get_visible (widget) && strstr (text, data) != NULL;
}

typedef struct
{
  PdWindow   *window;
  const char *title;
  const char *part;     /* a part of a label of its card */
} PartWait;

static gboolean
card_says (gpointer data)
{
  PartWait *wait = data;
  GtkWidget *row = row_of (wait->window, wait->title);

  return row != NULL && pd_test_find_first (row, label_contains, wait->part) != NULL;
}

/* An inscription (the time a question has left) shown with @data in it. */
static gboolean
inscription_contains (GtkWidget     *widget,
                      gconstpointer  data)
{
  return GTK_IS_INSCRIPTION (widget) && gtk_widget_get_visible (widget) &&
         gtk_inscription_get_text (GTK_INSCRIPTION (widget)) != NULL &&
         strstr (gtk_inscription_get_text (GTK_INSCRIPTION (widget)), data) != NULL;
}

/* The card of @title says its question's time left, other than @text. */
typedef struct
{
  PdWindow   *window;
  const char *text;
} DeadlineWait;

static GtkWidget *
deadline_label (PdWindow *window)
{
  GtkWidget *row = row_of (window, "Work on A");

  return row != NULL ? pd_test_find_first (row, inscription_contains, "The endpoint denies it by itself") : NULL;
}

static gboolean
deadline_shown (gpointer data)
{
  return deadline_label (data) != NULL;
}

static gboolean
deadline_moved (gpointer data)
{
  DeadlineWait *wait = data;
  GtkWidget *label = deadline_label (wait->window);

  return label != NULL && g_strcmp0 (gtk_inscription_get_text (GTK_INSCRIPTION (label)), wait->text) != 0;
}

static void
wait_card_says (PdWindow   *window,
                const char *title,
                const char *part,
                const char *what)
{
  PartWait wait = { window, title, part };

  pd_test_wait_until (card_says, &wait, what);
}

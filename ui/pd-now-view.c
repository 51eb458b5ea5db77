/* pd-now-view.c: the Now workspace, the live plan of one session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shows the newest plan of a session: a header "Plan — vN · X/Y done ·
 * Z blocked", a progress bar, the latest revision reason, notices, and a
 * row per step.  It is strictly read-only.
 *
 * Live (PdSessionView): the source's ::changed reloads it at once; as a
 * fallback it also polls, every second while the session's run is active
 * and every three seconds while visible and idle, never while hidden.  A
 * session switch and the window becoming active refresh at once.  A reply
 * for another session or with an older plan version is dropped; a reply
 * equal to what is shown changes nothing; a new version is merged row by
 * row, so unchanged rows keep their widgets and the scroll position stays.
 * When a new version takes progress back (a done step reopened, passed
 * evidence invalidated) a notice says what went back and why.
 *
 * The notices of the event stream (a failed run, a reassessment, a blocked
 * streak) are read here, after the plan, forward from the last event read
 * a page at a time, keeping no event (PdEventNotices): the Events page
 * reads only when it is shown.
 *
 * What the window knows of the session besides its plan is given to it: a
 * question its run waits on (pd_now_view_set_approval(), shown above the
 * plan or its empty page, with a way to where it is answered), and how its
 * last run ended (pd_now_view_set_run_end(): a run that failed or stopped
 * before making a plan says so and why instead of "No Plan Yet").
 */
#define G_LOG_DOMAIN "pd-now-view"

#include "config.h"

#include <string.h>
#include <time.h>

#include <glib/gi18n.h>

#include "pd-event-notices.h"
#include "pd-now-view-private.h"
#include "pd-plan-diff.h"
#include "pd-plan-row.h"
#include "pd-plan-row-item.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

struct _PdNowView
{
  PdSessionView  parent_instance;

  PdPlanState   *plan;          /* shown; NULL when none */
  GListStore    *rows;          /* (element-type PdPlanRowItem) */
  guint          n_replies;
  char         **notices;       /* from the event stream, as shown */
  PdEventNotices *event_notices; /* kept as the stream is read forward */
  gint64         notices_seq;   /* the last event read for them */
  char          *regression;    /* why progress went back, or NULL */
  char          *regression_reason; /* the revision reason it quotes, or NULL */
  char          *approval_tool;    /* a question the run waits on, or NULL */
  char          *approval_summary;
  PdSessionStatus status;         /* how its last run ended */
  char          *stopped;
  char          *stopped_error;

  /* Template widgets */
  GtkBox        *content_box;   /* the question's notice above the pages */
  GtkStack      *stack;
  GtkBox        *approval_box;
  AdwStatusPage *empty_page;
  GtkLabel      *ended_label;
  GtkLabel      *title_label;
  GtkLabel      *header_label;
  GtkProgressBar *progress;
  GtkLabel      *revision_label;
  GtkBox        *notices_box;
  GtkScrolledWindow *scroller;
  GtkListBox    *rows_box;

  gboolean       fill_pending;  /* rows in sight may not be made */
  gulong         layout_handler; /* on the frame clock, while realized */
  gint64         fill_frame;    /* the frame rows were last made in */
  gulong         paint_handler;  /* after-paint on the frame clock */
  gint64         fill_cpu;      /* the thread's CPU as rows were made, in µs */
  guint          fill_made;     /* rows made in this frame */
  gint64         row_cost;      /* what a row made cost to its frame, in µs */
  guint          fill_tick;     /* the rows go on in the next frame, or 0 */
};

G_DEFINE_FINAL_TYPE (PdNowView, pd_now_view, PD_TYPE_SESSION_VIEW)

enum {
  PLAN_SHOWN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void pd_now_view_show_notices (PdNowView *self);

/* How much of a provider's reason the empty page shows; the Events page
 * has it whole. */
#define ENDED_TEXT_CHARS 600
static void pd_now_view_show_empty   (PdNowView *self);
static void pd_now_view_fill_soon    (PdNowView *self);

/* --- showing a plan ----------------------------------------------------- */

/* The run ended short and nothing runs now: a step in progress is shown
 * stopped. */
static void
pd_now_view_sync_halted (PdNowView *self)
{
  pd_plan_rows_set_halted (self->rows, _pd_run_left_off (self->status, self->stopped) &&
                                       !pd_session_view_get_running (PD_SESSION_VIEW (self)));
}

static void
pd_now_view_show_header (PdNowView         *self,
                         const PdPlanState *plan)
{
  g_autofree char *version = g_strdup_printf ("%" G_GINT64_FORMAT, plan->version);
  g_autofree char *header = NULL;
  PdPlanCounts counts;

  pd_plan_state_count (plan, &counts);

  if (counts.blocked > 0)
    /* Translators: the Now header; %s is the plan version, then done/total and blocked steps */
    header = g_strdup_printf (_("Plan — v%s · %u/%u done · %u blocked"),
                              version, counts.done, counts.steps, counts.blocked);
  else
    /* Translators: the Now header; %s is the plan version, then done/total steps */
    header = g_strdup_printf (_("Plan — v%s · %u/%u done"), version, counts.done, counts.steps);
  /* An endpoint's plan past what is kept: said, so "500 steps" is not
   * read as the whole plan. */
  if (plan->n_hidden > 0)
    {
      g_autofree char *hidden = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more step is not shown",
                                                              "%u more steps are not shown", plan->n_hidden),
                                                 plan->n_hidden);
      char *both = g_strdup_printf ("%s · %s", header, hidden);

      g_free (header);
      header = both;
    }

  gtk_label_set_text (self->header_label, header);
  gtk_progress_bar_set_fraction (self->progress,
                                 counts.steps > 0 ? (double) counts.done / counts.steps : 0.0);

  /* The notice of a step back quotes the revision reason already: said
   * once (tried as a new user would, the demo showed it twice). */
  if (plan->revision != NULL && plan->revision->reason != NULL && plan->revision->reason[0] != '\0' &&
      g_strcmp0 (self->regression_reason, plan->revision->reason) != 0)
    {
      /* Model text inside our sentence: isolated (see _pd_isolated_line()). */
      g_autofree char *reason = _pd_isolated_line (plan->revision->reason);
      g_autofree char *text = g_strdup_printf (_("Last revision: %s"), reason);

      gtk_label_set_text (self->revision_label, text);
      _pd_accessible_set_text (GTK_WIDGET (self->revision_label), text, NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->revision_label), TRUE);
    }
  else
    {
      gtk_label_set_text (self->revision_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->revision_label), FALSE);
    }
}

/* --- regressions ----------------------------------------------------------- */

/* Every step done: what the plan set out to do is finished. */
static gboolean
plan_is_finished (const PdPlanState *plan)
{
  if (plan->steps->len == 0)
    return FALSE;
  for (guint i = 0; i < plan->steps->len; i++)
    if (((const PdPlanStep *) g_ptr_array_index (plan->steps, i))->status != PD_PLAN_STEP_DONE)
      return FALSE;
  return TRUE;
}

/* Whether _pd_now_view_explain_regression() quotes the new revision
 * reason: the revision changed between the two. */
static gboolean
regression_quotes_revision (const PdPlanState *old_plan,
                            const PdPlanState *new_plan)
{
  g_autoptr(PdPlanDiff) diff = pd_plan_diff_new (old_plan, new_plan);
  const PdPlanDiffEntry *revision = pd_plan_diff_find (diff, PD_PLAN_DIFF_REVISION, NULL, NULL);

  return revision != NULL && revision->new_value != NULL && revision->new_value[0] != '\0';
}

PdNowApply
_pd_now_view_apply_plan (PdNowView         *self,
                         const char        *session_id,
                         const PdPlanState *plan)
{
  const char *shown_id;

  g_return_val_if_fail (PD_IS_NOW_VIEW (self), PD_NOW_DROPPED);

  shown_id = pd_session_view_get_session_id (PD_SESSION_VIEW (self));
  if (shown_id == NULL || g_strcmp0 (session_id, shown_id) != 0)
    return PD_NOW_DROPPED;

  if (plan != NULL && self->plan != NULL)
    {
      if (plan->version < self->plan->version)
        return PD_NOW_DROPPED;
      if (plan->version == self->plan->version && pd_plan_state_same_content (plan, self->plan))
        return PD_NOW_UNCHANGED;
    }

  if (plan == NULL || pd_plan_state_is_empty (plan))
    {
      if (self->plan == NULL && g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "empty") == 0)
        return PD_NOW_UNCHANGED;

      g_clear_pointer (&self->plan, pd_plan_state_free);
      pd_plan_rows_merge (self->rows, NULL);
      pd_now_view_show_empty (self);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      g_signal_emit (self, signals[PLAN_SHOWN], 0);
      return PD_NOW_APPLIED;
    }

  {
    g_autofree char *regression = _pd_now_view_explain_regression (self->plan, plan);

    /* A regression stays explained until another one replaces it, the
     * session changes, or every step is done: the person may look a while
     * after it happened, but a finished plan has nothing left that went
     * back, and the notice would say otherwise. */
    if (regression != NULL)
      {
        const char *reason = plan->revision != NULL ? plan->revision->reason : NULL;

        g_free (self->regression);
        self->regression = g_steal_pointer (&regression);
        g_free (self->regression_reason);
        self->regression_reason = reason != NULL && *reason != '\0' && regression_quotes_revision (self->plan, plan)
                                  ? g_strdup (reason) : NULL;
        pd_now_view_show_notices (self);
      }
    else if (self->regression != NULL && plan_is_finished (plan))
      {
        g_clear_pointer (&self->regression, g_free);
        g_clear_pointer (&self->regression_reason, g_free);
        pd_now_view_show_notices (self);
      }
  }

  {
    gboolean had_plan = self->plan != NULL;

    g_clear_pointer (&self->plan, pd_plan_state_free);
    self->plan = pd_plan_state_copy (plan);
    /* How the last run ended is said beside a plan only. */
    if (!had_plan)
      pd_now_view_show_notices (self);
  }

  pd_now_view_show_header (self, plan);
  pd_plan_rows_merge (self->rows, plan);
  pd_now_view_sync_halted (self);
  gtk_stack_set_visible_child_name (self->stack, "plan");
  pd_now_view_fill_soon (self);
  g_signal_emit (self, signals[PLAN_SHOWN], 0);

  return PD_NOW_APPLIED;
}

/* --- asking the source -------------------------------------------------- */

#define NOTICES_PAGE 500

static void pd_now_view_read_notices (PdNowView            *self,
                                      PdSessionViewRequest *request);

static void
on_notice_events (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(GError) error = NULL;
  gboolean changed = FALSE;
  PdNowView *self;

  stored = pd_source_get_events_finish (PD_SOURCE (object), result, &error);

  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_NOW_VIEW (request->view);

  /* The plan is shown: notices not read now are read at the next reload. */
  if (stored == NULL)
    {
      g_debug ("Could not read the events of %s: %s", request->session_id, error->message);
      self->n_replies++;
      pd_session_view_reload_done (request, NULL);
      return;
    }
  for (guint i = 0; i < stored->len; i++)
    {
      PdStoredEvent *event = g_ptr_array_index (stored, i);
      g_autoptr(PdEvent) parsed = NULL;

      /* Only ever forward. */
      if (event->seq <= self->notices_seq)
        continue;
      self->notices_seq = event->seq;
      if ((parsed = pd_event_new_from_json (event->event_json, NULL)))
        changed |= pd_event_notices_observe (self->event_notices, parsed);
    }
  if (changed)
    {
      g_strfreev (self->notices);
      self->notices = pd_event_notices_dup_all (self->event_notices);
      pd_now_view_show_notices (self);
    }
  if (stored->len >= NOTICES_PAGE)
    {
      pd_now_view_read_notices (self, g_steal_pointer (&request));
      return;
    }
  /* A reply is whole once its notices are read: the page then shows. */
  self->n_replies++;
  pd_session_view_reload_done (request, NULL);
}

static void
pd_now_view_read_notices (PdNowView            *self,
                          PdSessionViewRequest *request)
{
  pd_source_get_events_async (request->source, request->session_id, self->notices_seq, NOTICES_PAGE,
                              request->cancellable, on_notice_events, request);
}

static void
on_plan_ready (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;
  PdNowView *self;

  pd_source_get_plan_finish (PD_SOURCE (object), result, &plan, &error);

  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_NOW_VIEW (request->view);

  if (error != NULL)
    {
      /* Keep what is shown; the error says why it may be old. */
      g_debug ("Could not read the plan of %s: %s", request->session_id, error->message);
      pd_session_view_reload_done (request, error);
      return;
    }

  _pd_now_view_apply_plan (self, request->session_id, plan);
  pd_now_view_read_notices (self, g_steal_pointer (&request));
}

static void
pd_now_view_reload (PdSessionView        *view,
                    PdSessionViewRequest *request)
{
  pd_source_get_plan_async (request->source, request->session_id, request->cancellable,
                            on_plan_ready, request);
}

static void
pd_now_view_clear (PdSessionView *view)
{
  PdNowView *self = PD_NOW_VIEW (view);

  g_clear_pointer (&self->plan, pd_plan_state_free);
  g_clear_pointer (&self->regression, g_free);
  g_clear_pointer (&self->regression_reason, g_free);
  g_clear_pointer (&self->notices, g_strfreev);
  pd_event_notices_clear (self->event_notices);
  self->notices_seq = 0;
  pd_plan_rows_merge (self->rows, NULL);
  pd_now_view_show_notices (self);
  gtk_stack_set_visible_child_name (self->stack, "loading");
  /* Another session opens at its first step, not where the last one was
   * scrolled to (tried as a new user would). */
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->scroller), 0);
}

/**
 * pd_now_view_refresh:
 *
 * Asks for the plan now; merged with a request already on its way.
 */
void
pd_now_view_refresh (PdNowView *self)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  pd_session_view_reload (PD_SESSION_VIEW (self));
}

/* --- rows made as they come into sight ------------------------------------ */

/* A plan may have 500 steps: made whole, their rows took 6–13 s of the
 * main thread on a loaded machine, 36 s with long texts.  Every step has a
 * light row at once (its name, description and about its height: the
 * list's keys, Home, End and Page Down, reach every step, and a screen
 * reader names each), and what a row shows is made once it comes within
 * half a page of sight, at most FILL_BUDGET_USEC of each frame, the rows
 * in sight first.  A row not made yet has about the height it will have
 * (pd_plan_row_new_lazy()), so the page moves little as rows are made. */
#define FILL_BUDGET_USEC 8000
/* What a row is taken to cost before one was measured, in µs. */
#define ROW_COST_USEC    2000

/* The main thread's CPU time, in µs: a loaded machine's waits for a core
 * are not the page's cost. */
static gint64
thread_cpu_usec (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return (gint64) now.tv_sec * G_USEC_PER_SEC + now.tv_nsec / 1000;
}

/* The rows from @top to @bottom (the list's own coordinates), clamped to
 * the list. */
static void
rows_between (GtkListBox *list,
              double      top,
              double      bottom,
              guint       n_rows,
              guint      *first,
              guint      *last)
{
  double height = gtk_widget_get_height (GTK_WIDGET (list));
  GtkListBoxRow *row;

  row = gtk_list_box_get_row_at_y (list, (int) CLAMP (top, 0, height - 1));
  *first = row != NULL ? (guint) gtk_list_box_row_get_index (row) : 0;
  row = gtk_list_box_get_row_at_y (list, (int) CLAMP (bottom, 0, height - 1));
  *last = row != NULL ? (guint) gtk_list_box_row_get_index (row) : n_rows - 1;
}

/* Makes the rows in sight, as many as FILL_BUDGET_USEC of a frame allows:
 * what a row costs is mostly its layout, later in the frame, so each is
 * counted at what the last ones cost their frame (row_cost, measured
 * after the paint).  One at least.  Returns %TRUE when they all are made. */
static gboolean
fill_rows (PdNowView *self)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  GtkWidget *viewport = gtk_scrolled_window_get_child (self->scroller);
  guint n_rows = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  double page = gtk_adjustment_get_page_size (adjustment);
  graphene_point_t top;
  guint first, last;

  if (n_rows == 0 || page <= 0 || !gtk_widget_get_mapped (GTK_WIDGET (self->rows_box)) ||
      !gtk_widget_compute_point (viewport, GTK_WIDGET (self->rows_box), &GRAPHENE_POINT_INIT (0, 0), &top))
    return TRUE;

  /* In sight, then half a page below (where a scroll goes on); none
   * above, whose change of height would move what is in sight. */
  rows_between (self->rows_box, top.y, top.y + page * 3 / 2, n_rows, &first, &last);
  self->fill_cpu = thread_cpu_usec ();
  self->fill_made = 0;
  for (guint i = first; i <= last && i < n_rows; i++)
    {
      if (self->fill_made > 0 &&
          thread_cpu_usec () - self->fill_cpu + (self->fill_made + 1) * self->row_cost > FILL_BUDGET_USEC)
        return FALSE;
      if (pd_plan_row_ensure_content (PD_PLAN_ROW (gtk_list_box_get_row_at_index (self->rows_box, i))))
        self->fill_made++;
    }
  return TRUE;
}

/* The next frame goes on with the rows. */
static gboolean
fill_tick (GtkWidget     *widget,
           GdkFrameClock *clock,
           gpointer       user_data)
{
  PD_NOW_VIEW (widget)->fill_tick = 0;
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
  return G_SOURCE_REMOVE;
}

/* After the window's layout: the rows are where they are drawn, and what
 * is made now is laid out in the same frame (the frame clock lays out
 * again), so the first frame of a plan shows its rows in sight.  Once a
 * frame: the layout made again must not make more. */
static void
on_frame_layout (GdkFrameClock *clock,
                 PdNowView     *self)
{
  gint64 frame = gdk_frame_clock_get_frame_counter (clock);

  if (!self->fill_pending)
    return;
  if (frame != self->fill_frame)
    {
      self->fill_frame = frame;
      if (fill_rows (self))
        {
          self->fill_pending = FALSE;
          return;
        }
    }
  if (self->fill_tick == 0)
    self->fill_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), fill_tick, NULL, NULL);
}

/* What the rows made in this frame cost it, laid out and drawn: the
 * next frame makes as many as its budget allows at that cost. */
static void
on_frame_paint (GdkFrameClock *clock,
                PdNowView     *self)
{
  if (self->fill_made == 0)
    return;
  self->row_cost = MAX ((thread_cpu_usec () - self->fill_cpu) / self->fill_made, 100);
  self->fill_made = 0;
}

/* The rows in sight are made after the next layout (rows added, a scroll,
 * a new size and the page shown all lay out). */
static void
pd_now_view_fill_soon (PdNowView *self)
{
  self->fill_pending = TRUE;
}

static void
on_realize (PdNowView *self)
{
  self->layout_handler = g_signal_connect_object (gtk_widget_get_frame_clock (GTK_WIDGET (self)), "layout",
                                                  G_CALLBACK (on_frame_layout), self,
                                                  G_CONNECT_AFTER);
  self->paint_handler = g_signal_connect_object (gtk_widget_get_frame_clock (GTK_WIDGET (self)), "after-paint",
                                                 G_CALLBACK (on_frame_paint), self, 0);
  pd_now_view_fill_soon (self);
}

static void
on_unrealize (PdNowView *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  if (clock != NULL && self->layout_handler != 0)
    g_signal_handler_disconnect (clock, self->layout_handler);
  if (clock != NULL && self->paint_handler != 0)
    g_signal_handler_disconnect (clock, self->paint_handler);
  self->layout_handler = 0;
  self->paint_handler = 0;
  self->fill_made = 0;
  if (self->fill_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->fill_tick);
  self->fill_tick = 0;
}

/* --- GObject ------------------------------------------------------------ */

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  return pd_plan_row_new_lazy (PD_PLAN_ROW_ITEM (item));
}

static void
pd_now_view_dispose (GObject *object)
{
  PdNowView *self = PD_NOW_VIEW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_NOW_VIEW);

  g_clear_object (&self->rows);
  g_clear_pointer (&self->plan, pd_plan_state_free);

  G_OBJECT_CLASS (pd_now_view_parent_class)->dispose (object);
}

static void
pd_now_view_finalize (GObject *object)
{
  PdNowView *self = PD_NOW_VIEW (object);

  g_free (self->regression);
  g_free (self->regression_reason);
  g_free (self->approval_tool);
  g_free (self->approval_summary);
  g_free (self->stopped);
  g_free (self->stopped_error);
  g_strfreev (self->notices);
  pd_event_notices_free (self->event_notices);

  G_OBJECT_CLASS (pd_now_view_parent_class)->finalize (object);
}

static void
pd_now_view_class_init (PdNowViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PdSessionViewClass *view_class = PD_SESSION_VIEW_CLASS (klass);

  object_class->dispose = pd_now_view_dispose;
  object_class->finalize = pd_now_view_finalize;

  view_class->reload = pd_now_view_reload;
  view_class->clear = pd_now_view_clear;
  /* The plan is cheap to read: polling backs the push up. */
  pd_session_view_class_set_polls (view_class, TRUE);

  /**
   * PdNowView::plan-shown:
   *
   * A new plan (or none) is shown; read it with pd_now_view_get_plan().
   */
  signals[PLAN_SHOWN] = g_signal_new ("plan-shown", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-now-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdNowView, content_box);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, approval_box);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, ended_label);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, title_label);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, header_label);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, progress);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, revision_label);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, notices_box);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, scroller);
  gtk_widget_class_bind_template_child (widget_class, PdNowView, rows_box);
  gtk_widget_class_set_css_name (widget_class, "now-view");
}

static void
pd_now_view_init (PdNowView *self)
{
  self->event_notices = pd_event_notices_new ();
  self->row_cost = ROW_COST_USEC;
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Plan text: wrapped with no hyphen it does not have. */
  _pd_label_no_hyphens (GTK_WIDGET (self->header_label));
  _pd_label_no_hyphens (GTK_WIDGET (self->title_label));
  _pd_label_no_hyphens (GTK_WIDGET (self->revision_label));
  _pd_stack_tab_shown_only (self->stack);

  self->rows = pd_plan_rows_new ();
  gtk_list_box_bind_model (self->rows_box, G_LIST_MODEL (self->rows), create_row, NULL, NULL);
  /* The steps are one Tab stop, as the session list is: Up and Down move
   * between them (each step was a stop of its own). */
  _pd_list_one_tab_stop (GTK_WIDGET (self->rows_box));
  /* Page Down and Page Up move a page of the scroller: the list is not the
   * viewport's child, and moved its default of 100 px, one or two rows
   * (tried as a new user would). */
  gtk_list_box_set_adjustment (self->rows_box, gtk_scrolled_window_get_vadjustment (self->scroller));
  /* Scrolled, resized, shown: the rows now in sight are made. */
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "value-changed",
                           G_CALLBACK (pd_now_view_fill_soon), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "changed",
                           G_CALLBACK (pd_now_view_fill_soon), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self->rows_box, "map", G_CALLBACK (pd_now_view_fill_soon), self);
  g_signal_connect (self, "realize", G_CALLBACK (on_realize), NULL);
  g_signal_connect (self, "unrealize", G_CALLBACK (on_unrealize), NULL);
}

GtkWidget *
pd_now_view_new (void)
{
  return g_object_new (PD_TYPE_NOW_VIEW, NULL);
}

/**
 * pd_now_view_set_title:
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads the plan with the session's title, plain, whole and wrapped.
 */
void
pd_now_view_set_title (PdNowView  *self,
                       const char *title)
{
  g_autofree char *safe = title != NULL && title[0] != '\0' ? _pd_isolated_short (title, 240) : NULL;

  g_return_if_fail (PD_IS_NOW_VIEW (self));
  gtk_label_set_text (self->title_label, safe != NULL ? safe : "");
  gtk_widget_set_visible (GTK_WIDGET (self->title_label), safe != NULL);
}

/**
 * pd_now_view_set_running:
 * @running: whether the session's run is active; it is polled faster then
 */
void
pd_now_view_set_running (PdNowView *self,
                         gboolean   running)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  pd_session_view_set_running (PD_SESSION_VIEW (self), running);
  pd_now_view_sync_halted (self);
}

/**
 * pd_now_view_get_plan:
 *
 * Returns: (transfer none) (nullable): the plan shown
 */
const PdPlanState *
pd_now_view_get_plan (PdNowView *self)
{
  g_return_val_if_fail (PD_IS_NOW_VIEW (self), NULL);

  return self->plan;
}

/* A notice ("The run failed", a regression) is an alert: GTK 4.8 has no
 * announcement call, but an accessible of the alert role appearing is
 * what a screen reader announces (AT-SPI's notification role), by its
 * text. It takes the keyboard focus, so it can be read again with Tab; its
 * icon says what kind of notice it is. */
static void
add_notice (PdNowView  *self,
            const char *icon_name,
            const char *kind,
            const char *text,
            const char *css_class)
{
  GtkWidget *row = g_object_new (GTK_TYPE_BOX,
                                 "orientation", GTK_ORIENTATION_HORIZONTAL,
                                 "spacing", 8,
                                 "accessible-role", GTK_ACCESSIBLE_ROLE_ALERT,
                                 "focusable", TRUE,
                                 NULL);
  GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);
  /* Model-derived text (a revision reason): plain, never markup. */
  GtkWidget *label = _pd_plain_label (text, NULL);

  gtk_widget_add_css_class (row, "plan-notice");
  if (css_class != NULL)
    gtk_widget_add_css_class (row, css_class);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  _pd_accessible_set_text (GTK_WIDGET (icon), kind, NULL);
  _pd_accessible_set_text (GTK_WIDGET (row), text, kind);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (row), icon);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (self->notices_box, row);
}

static void
pd_now_view_show_notices (PdNowView *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->notices_box))) != NULL)
    gtk_box_remove (self->notices_box, child);

  if (self->regression != NULL)
    add_notice (self, "edit-undo-symbolic", _("Plan went back"), self->regression, "pd-regression");
  for (guint i = 0; self->notices != NULL && self->notices[i] != NULL; i++)
    add_notice (self, "dialog-information-symbolic", _("Notice"), self->notices[i], NULL);
  /* A session with a plan whose last run failed or stopped says so here
   * too, as its list row and Overview card do, when its events did not
   * (a run whose process was killed wrote none; tried as a new user would:
   * a failed session's Now page showed its plan and nothing else). */
  if (self->plan != NULL && !pd_event_notices_has_run_end (self->event_notices))
    {
      g_autofree char *ended = _pd_run_ended_short_text (self->status, self->stopped, self->stopped_error,
                                                         ENDED_TEXT_CHARS);

      if (ended != NULL)
        {
          /* Translators: %s is how the run ended, e.g. "Failed — HTTP 500" or "Interrupted" */
          g_autofree char *text = g_strdup_printf (_("Last run: %s"), ended);

          /* A failure warns; a run stopped or interrupted is neutral, as
           * its card and list row are. */
          add_notice (self, self->status == PD_SESSION_STATUS_FAILED ? "dialog-warning-symbolic"
                                                                    : "dialog-information-symbolic",
                      _("Run ended"), text, NULL);
        }
    }

  gtk_widget_set_visible (GTK_WIDGET (self->notices_box),
                          gtk_widget_get_first_child (GTK_WIDGET (self->notices_box)) != NULL);
}

/* --- what the window tells ------------------------------------------------ */


/* No plan: "No Plan Yet", or that the run ended short before making one,
 * in the words of the session's Overview card. */
static void
pd_now_view_show_empty (PdNowView *self)
{
  g_autofree char *ended = _pd_run_ended_short_text (self->status, self->stopped, self->stopped_error,
                                                     ENDED_TEXT_CHARS);

  if (ended == NULL)
    {
      adw_status_page_set_icon_name (self->empty_page, "view-list-bullet-symbolic");
      adw_status_page_set_title (self->empty_page, _("No Plan Yet"));
      adw_status_page_set_description (self->empty_page,
                                       _("When the agent of this session makes a plan, its steps, their acceptance "
                                         "checks and its progress show here, updated live."));
      gtk_label_set_text (self->ended_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->ended_label), FALSE);
      return;
    }

  if (self->status == PD_SESSION_STATUS_INTERRUPTED)
    adw_status_page_set_title (self->empty_page, _("Run Interrupted"));
  else if (self->stopped != NULL && g_strcmp0 (self->stopped, "failed") != 0)
    adw_status_page_set_title (self->empty_page, _("Run Stopped"));
  else
    adw_status_page_set_title (self->empty_page, _("Run Failed"));
  adw_status_page_set_icon_name (self->empty_page, "dialog-warning-symbolic");
  adw_status_page_set_description (self->empty_page, _("The run ended before the agent made a plan."));
  /* A provider's words: plain text in a label of its own, never the
   * description's markup. */
  gtk_label_set_text (self->ended_label, ended);
  gtk_widget_set_visible (GTK_WIDGET (self->ended_label), TRUE);
}

/**
 * pd_now_view_set_run_end:
 * @status: the session's status
 * @stopped: (nullable): how its last run ended short (PdSessionInfo.stopped)
 * @error: (nullable): the reason a failed run gave
 *
 * How the session's last run ended, as its listing says: a session with no
 * plan whose run failed or stopped says so and why, as its Overview card
 * does, not only "No Plan Yet".
 */
void
pd_now_view_set_run_end (PdNowView       *self,
                         PdSessionStatus  status,
                         const char      *stopped,
                         const char      *error)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  if (self->status == status && g_strcmp0 (self->stopped, stopped) == 0 &&
      g_strcmp0 (self->stopped_error, error) == 0)
    return;
  self->status = status;
  g_free (self->stopped);
  self->stopped = g_strdup (stopped);
  g_free (self->stopped_error);
  self->stopped_error = g_strdup (error);
  pd_now_view_sync_halted (self);
  pd_now_view_show_empty (self);
  pd_now_view_show_notices (self);
}

/* The first line of a call's summary, short: the notice names the call,
 * the place it is answered shows it whole. */
#define APPROVAL_SUMMARY_CHARS 160

static void
pd_now_view_show_approval (PdNowView *self)
{
  GtkWidget *child;
  GtkWidget *row, *text_box, *icon, *label, *button;
  g_autofree char *tool = NULL;
  g_autofree char *text = NULL;
  const char *summary_start;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->approval_box))) != NULL)
    gtk_box_remove (self->approval_box, child);
  gtk_widget_set_visible (GTK_WIDGET (self->approval_box), self->approval_tool != NULL);
  if (self->approval_tool == NULL)
    return;

  tool = _pd_isolated_line (self->approval_tool);
  summary_start = self->approval_summary;
  /* A run of this window words it "write_file: one.txt (2 bytes)", an
   * endpoint "one.txt (2 bytes)": the tool is named once. */
  if (summary_start != NULL && g_str_has_prefix (summary_start, self->approval_tool) &&
      g_str_has_prefix (summary_start + strlen (self->approval_tool), ": "))
    summary_start += strlen (self->approval_tool) + 2;
  if (summary_start != NULL && *summary_start != '\0')
    {
      const char *end = strchr (summary_start, '\n');
      g_autofree char *first = g_strndup (summary_start, end != NULL ? (gsize) (end - summary_start)
                                                                     : strlen (summary_start));
      /* Padding said, as the card says it: a space and an invisible mark
       * 200 times read as "make check" and nothing after (tried as an
       * attacker would). */
      g_autofree char *said = pd_safe_text_approval (first);
      g_autofree char *summary = _pd_isolated_short (said, APPROVAL_SUMMARY_CHARS);

      /* Translators: the run waits on the person; %s is a tool's name, then
       * what the call does (a command, a file), as the agent gave them */
      text = g_strdup_printf (_("Waiting for your approval: “%s” — %s"), tool, summary);
    }
  else
    /* Translators: the run waits on the person; %s is a tool's name */
    text = g_strdup_printf (_("Waiting for your approval: “%s”"), tool);

  /* An alert, as the other notices (see add_notice()): a screen reader
   * announces it as it appears, by its text; a new question is a new one. */
  row = g_object_new (GTK_TYPE_BOX,
                      "orientation", GTK_ORIENTATION_HORIZONTAL,
                      "spacing", 8,
                      "accessible-role", GTK_ACCESSIBLE_ROLE_ALERT,
                      "focusable", TRUE,
                      NULL);
  gtk_widget_add_css_class (row, "plan-notice");
  gtk_widget_add_css_class (row, "pd-approval-notice");
  /* Adwaita's question mark in a diamond read as a broken "�" glyph
   * (tried as a new user would). */
  icon = gtk_image_new_from_icon_name ("emblem-important-symbolic");
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  _pd_accessible_set_text (GTK_WIDGET (icon), _("Question"), NULL);
  _pd_accessible_set_text (GTK_WIDGET (row), text, _("Question"));
  text_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_hexpand (text_box, TRUE);
  /* The agent's words: plain, never markup. */
  label = _pd_plain_label (text, NULL);
  /* Where the question is answered: its card (Approve Once, Deny, or
   * Review for what it changes), for a run of this window and an
   * endpoint's alike. */
  button = gtk_button_new_with_mnemonic (_("_Answer on the Overview"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.show-overview");
  gtk_widget_set_halign (button, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (text_box), label);
  gtk_box_append (GTK_BOX (text_box), button);
  gtk_box_append (GTK_BOX (row), icon);
  gtk_box_append (GTK_BOX (row), text_box);
  g_object_set_data_full (G_OBJECT (row), "pd-text", g_steal_pointer (&text), g_free);
  gtk_box_append (self->approval_box, row);
}

/**
 * pd_now_view_set_approval:
 * @tool: (nullable): the tool the session's run asks to use, or %NULL when
 *   it waits on no question
 * @summary: (nullable): what the call does, as its question names it
 *   (anyone's text)
 *
 * Says above the plan (or its empty page) that the run waits for the
 * person, with a button to the Overview, where its card answers it.
 */
void
pd_now_view_set_approval (PdNowView  *self,
                          const char *tool,
                          const char *summary)
{
  g_return_if_fail (PD_IS_NOW_VIEW (self));

  if (tool == NULL)
    summary = NULL;
  if (g_strcmp0 (self->approval_tool, tool) == 0 && g_strcmp0 (self->approval_summary, summary) == 0)
    return;
  g_free (self->approval_tool);
  self->approval_tool = g_strdup (tool);
  g_free (self->approval_summary);
  self->approval_summary = g_strdup (summary);
  pd_now_view_show_approval (self);
}

/**
 * pd_now_view_get_approval:
 *
 * Returns: (nullable): the text of the question notice shown, or %NULL
 */
const char *
pd_now_view_get_approval (PdNowView *self)
{
  GtkWidget *row;

  g_return_val_if_fail (PD_IS_NOW_VIEW (self), NULL);

  row = gtk_widget_get_first_child (GTK_WIDGET (self->approval_box));
  return row != NULL ? g_object_get_data (G_OBJECT (row), "pd-text") : NULL;
}

/**
 * pd_now_view_get_notices:
 *
 * Reassessment notices, blocked-streak notices and the run's problems, as
 * read from the session's event stream, shown above the steps after the
 * explanation of a regression the view saw itself; plain text, the latest
 * of each since the latest run started.
 *
 * Returns: (transfer full) (array zero-terminated=1): the notices, maybe none
 */
char **
pd_now_view_get_notices (PdNowView *self)
{
  g_return_val_if_fail (PD_IS_NOW_VIEW (self), NULL);

  return pd_event_notices_dup_all (self->event_notices);
}

/**
 * pd_now_view_get_regression:
 *
 * Returns: (nullable): the notice that explains why progress went back
 */
const char *
pd_now_view_get_regression (PdNowView *self)
{
  g_return_val_if_fail (PD_IS_NOW_VIEW (self), NULL);

  return self->regression;
}

PdPollTimer *
_pd_now_view_get_poll_timer (PdNowView *self)
{
  return PD_POLL_TIMER (pd_session_view_get_poll_timer (PD_SESSION_VIEW (self)));
}

GListModel *
_pd_now_view_get_rows (PdNowView *self)
{
  return G_LIST_MODEL (self->rows);
}

/* The row at @position, made as it shows when in sight (NULL when none);
 * _pd_now_view_row_is_made() tells whether it was made without that. */
GtkWidget *
_pd_now_view_get_row_widget (PdNowView *self,
                             guint      position)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->rows_box, position);

  if (row != NULL)
    pd_plan_row_ensure_content (PD_PLAN_ROW (row));
  return GTK_WIDGET (row);
}

gboolean
_pd_now_view_row_is_made (PdNowView *self,
                          guint      position)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->rows_box, position);

  return row != NULL && pd_plan_row_has_content (PD_PLAN_ROW (row));
}

GtkWidget *
_pd_now_view_get_rows_box (PdNowView *self)
{
  return GTK_WIDGET (self->rows_box);
}

guint
_pd_now_view_get_n_replies (PdNowView *self)
{
  return self->n_replies;
}

gboolean
_pd_now_view_get_page_visible (PdNowView *self)
{
  return pd_session_view_get_visible_now (PD_SESSION_VIEW (self));
}

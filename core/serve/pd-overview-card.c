/* pd-overview-card.c: one active session on the Overview (see the header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-overview-card"

#include "config.h"

#include "pd-approver.h"
#include "pd-overview-private.h"

G_DEFINE_ENUM_TYPE (PdOverviewNeed, pd_overview_need,
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_APPROVAL, "approval"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_BLOCKED, "blocked"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_UNVERIFIED, "unverified"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_FAILED, "failed"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_STALLED, "stalled"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_RUNNING, "running"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_DONE, "done"),
                    G_DEFINE_ENUM_VALUE (PD_OVERVIEW_NEED_STOPPED, "stopped"))

struct _PdOverviewCard
{
  GObject          parent_instance;

  PdSource        *source;
  char            *session_id;
  char            *source_name;      /* (nullable) its name among the overview's sources */
  char            *source_error;     /* (nullable) why its source is not answering */
  char            *agent;
  char            *title;
  PdSessionStatus  status;
  char            *stopped;          /* (nullable) how its last run ended short */
  char            *stopped_error;    /* (nullable) */
  gboolean         run_ended;        /* its last run completed, none is on */
  guint            done;
  guint            total;
  guint            blocked;
  gint64           plan_version;     /* of the session's listing */
  gint64           step_version;     /* of current_step */
  gint64           step_asked_at;    /* monotonic µs: the plan last asked for */
  char            *current_step;     /* (nullable) */
  gboolean         step_started;     /* current_step is in progress, not the next pending */
  guint            unpassed;         /* of step_version: its checks not passed */
  char            *failed_check;     /* (nullable) of step_version: a check of a step not done that failed */
  gint64           changed_at;       /* unix µs */
  gint64           need_since;       /* unix µs: changed_at when it came to its need */
  gboolean         need_known;
  PdOverviewNeed   need;
  guint            pushed_serial;    /* its overview's serial of pushes when one last came to it */
  PdRemoteRun     *remote_run;       /* (nullable) a remote run waiting on a question */
  gint64           run_asked_at;     /* monotonic µs: its run last asked for (GET /api/runs); 0 never */
  gboolean         run_stale;        /* an event said its run moved since */
  char            *local_tool;       /* (nullable) a run of this window waiting */
  char            *local_command;
  char            *local_preview;
  guint            local_serial;
};

G_DEFINE_FINAL_TYPE (PdOverviewCard, pd_overview_card, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
pd_overview_card_finalize (GObject *object)
{
  PdOverviewCard *self = PD_OVERVIEW_CARD (object);

  g_clear_object (&self->source);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->source_name, g_free);
  g_clear_pointer (&self->source_error, g_free);
  g_clear_pointer (&self->agent, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->stopped, g_free);
  g_clear_pointer (&self->stopped_error, g_free);
  g_clear_pointer (&self->current_step, g_free);
  g_clear_pointer (&self->failed_check, g_free);
  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->local_tool, g_free);
  g_clear_pointer (&self->local_command, g_free);
  g_clear_pointer (&self->local_preview, g_free);

  G_OBJECT_CLASS (pd_overview_card_parent_class)->finalize (object);
}

static void
pd_overview_card_class_init (PdOverviewCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_overview_card_finalize;

  /**
   * PdOverviewCard::changed:
   *
   * Something the card shows changed; emitted by its PdOverview after a
   * merge, on the main context of the overview.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pd_overview_card_init (PdOverviewCard *self)
{
  self->need = PD_OVERVIEW_NEED_DONE;
}

PdOverviewCard *
_pd_overview_card_new (PdSource   *source,
                       const char *session_id)
{
  PdOverviewCard *self = g_object_new (PD_TYPE_OVERVIEW_CARD, NULL);

  self->source = g_object_ref (source);
  self->session_id = g_strdup (session_id);
  return self;
}

static gboolean
set_string (char       **slot,
            const char  *value)
{
  if (g_strcmp0 (*slot, value) == 0)
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

#define SET_VALUE(slot, value) \
  ((slot) != (value) ? ((slot) = (value), TRUE) : FALSE)

gboolean
_pd_overview_card_set_info (PdOverviewCard      *self,
                            const PdSessionInfo *info)
{
  gboolean changed = FALSE;
  const char *title = info->name != NULL && *info->name != '\0' ? info->name : info->task;

  changed |= set_string (&self->agent, info->source);
  changed |= set_string (&self->title, title);
  changed |= SET_VALUE (self->status, info->status);
  /* A new run clears it: the listing has none while one is on. */
  changed |= set_string (&self->stopped, info->status != PD_SESSION_STATUS_RUNNING ? info->stopped : NULL);
  changed |= set_string (&self->stopped_error, self->stopped != NULL ? info->stopped_error : NULL);
  changed |= SET_VALUE (self->run_ended, info->status != PD_SESSION_STATUS_RUNNING && info->run_ended);
  changed |= SET_VALUE (self->done, info->plan_done);
  changed |= SET_VALUE (self->total, info->plan_total);
  changed |= SET_VALUE (self->blocked, info->plan_blocked);
  changed |= SET_VALUE (self->plan_version, info->plan_version);
  changed |= SET_VALUE (self->changed_at, info->updated_at);
  /* A run that is over asks nothing any more. */
  if (info->status != PD_SESSION_STATUS_RUNNING && self->remote_run != NULL)
    {
      g_clear_pointer (&self->remote_run, pd_remote_run_free);
      changed = TRUE;
    }
  return changed;
}

/* Whether the current step of @info's plan must be read: a plan with
 * unfinished steps that the card has not read in this shape yet; called
 * before _pd_overview_card_set_info() with the new listing. */
gboolean
_pd_overview_card_needs_plan (PdOverviewCard      *self,
                              const PdSessionInfo *info)
{
  if (info->plan_total == 0)
    return FALSE;
  /* All done: read once per version, for its checks. */
  if (info->plan_done >= info->plan_total)
    return self->step_version != info->plan_version || info->plan_version == 0 ||
           self->done != info->plan_done || self->total != info->plan_total;
  /* Another version, or other counts: a plan written again from the
   * start may carry the version of the last. */
  return self->step_version != info->plan_version || info->plan_version == 0 ||
         self->done != info->plan_done || self->total != info->plan_total ||
         self->blocked != info->plan_blocked;
}

/* When the plan of @info may be asked for (monotonic µs): at once when its
 * counts moved (the step shown would not match them) or every step is done,
 * else at most once every @interval (a new version with the same counts: a
 * note, evidence).  A plan all done has no current step, but its checks
 * decide between "Done" and "Done · 1 check not passed", and a check
 * denied after the steps were done moves no count: held back, a run of
 * the window that ended so read "Done" for a minute, and the card of an
 * app started after it read right (issue 21). */
gint64
_pd_overview_card_get_step_due (PdOverviewCard      *self,
                                const PdSessionInfo *info,
                                gint64               interval)
{
  if (self->done != info->plan_done || self->total != info->plan_total || self->blocked != info->plan_blocked)
    return 0;
  if (info->plan_total > 0 && info->plan_done >= info->plan_total)
    return 0;
  return self->step_asked_at != 0 ? self->step_asked_at + interval : 0;
}

void
_pd_overview_card_mark_step_asked (PdOverviewCard *self,
                                   gint64          now)
{
  self->step_asked_at = now;
}

/* Whether the card's run, running, is asked again: never asked while
 * running, an event said it moved (a question asked or answered), or the
 * last ask is @interval old (an event lost). */
gboolean
_pd_overview_card_run_due (PdOverviewCard *self,
                           gint64          now,
                           gint64          interval)
{
  return self->status != PD_SESSION_STATUS_RUNNING || self->run_stale ||
         self->run_asked_at == 0 || now - self->run_asked_at >= interval;
}

void
_pd_overview_card_mark_run_asked (PdOverviewCard *self,
                                  gint64          now)
{
  self->run_asked_at = now;
  self->run_stale = FALSE;
}

void
_pd_overview_card_mark_run_stale (PdOverviewCard *self)
{
  self->run_stale = TRUE;
}

/* Whether @info (a listing, a push) is older than what the card shows: a
 * list asked before a push and answered after it.  The endpoint's own time
 * of the session's last change orders them; the same time is the same
 * record. */
gboolean
_pd_overview_card_is_newer (PdOverviewCard      *self,
                            const PdSessionInfo *info)
{
  return info->updated_at < self->changed_at;
}

void
_pd_overview_card_set_pushed_serial (PdOverviewCard *self,
                                     guint           serial)
{
  self->pushed_serial = serial;
}

guint
_pd_overview_card_get_pushed_serial (PdOverviewCard *self)
{
  return self->pushed_serial;
}

gboolean
_pd_overview_card_set_current_step (PdOverviewCard *self,
                                    gint64          plan_version,
                                    const char     *step,
                                    gboolean        started,
                                    guint           unpassed,
                                    const char     *failed_check)
{
  gboolean changed = SET_VALUE (self->unpassed, unpassed);

  changed |= SET_VALUE (self->step_started, !!started);

  self->step_version = plan_version;
  changed |= set_string (&self->failed_check, failed_check);
  return set_string (&self->current_step, step) || changed;
}

gboolean
_pd_overview_card_set_remote_run (PdOverviewCard    *self,
                                  const PdRemoteRun *run)
{
  /* Only a question matters here; a run that asks nothing is RUNNING. */
  if (run != NULL && run->approval_id == NULL)
    run = NULL;
  if (run == NULL && self->remote_run == NULL)
    return FALSE;
  if (run != NULL && self->remote_run != NULL &&
      g_strcmp0 (run->run_id, self->remote_run->run_id) == 0 &&
      g_strcmp0 (run->approval_id, self->remote_run->approval_id) == 0)
    return FALSE;
  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  self->remote_run = run != NULL ? pd_remote_run_copy (run) : NULL;
  return TRUE;
}

gboolean
_pd_overview_card_set_local_approval (PdOverviewCard *self,
                                      const char     *tool,
                                      const char     *command,
                                      const char     *preview,
                                      guint           serial)
{
  gboolean changed = FALSE;

  changed |= set_string (&self->local_tool, tool);
  changed |= set_string (&self->local_command, tool != NULL ? command : NULL);
  changed |= set_string (&self->local_preview, tool != NULL && preview != NULL && *preview != '\0' ? preview : NULL);
  changed |= SET_VALUE (self->local_serial, tool != NULL ? serial : 0);
  return changed;
}

gboolean
_pd_overview_card_set_source_name (PdOverviewCard *self,
                                   const char     *name)
{
  return set_string (&self->source_name, name);
}

gboolean
_pd_overview_card_set_source_error (PdOverviewCard *self,
                                    const char     *message)
{
  return set_string (&self->source_error, message);
}

gboolean
_pd_overview_card_update_need (PdOverviewCard *self,
                               gint64          now,
                               gint64          stalled_usec)
{
  PdOverviewNeed need;
  gboolean unfinished = self->total > 0 && self->done < self->total;
  /* Its last run failed, was cut off or its process went away: said over
   * a blocked step.  A failed session's card read "1 Step Blocked · Now:
   * Test", no reason, where the CLI and the Now page said failed (tried
   * as a new user would). */
  gboolean run_over = self->status == PD_SESSION_STATUS_FAILED || self->status == PD_SESSION_STATUS_INTERRUPTED ||
                      (self->stopped != NULL && g_strcmp0 (self->stopped, "cancelled") != 0 &&
                       g_strcmp0 (self->stopped, "budget") != 0);

  if (pd_overview_card_has_approval (self))
    need = PD_OVERVIEW_NEED_APPROVAL;
  else if (self->blocked > 0 && !run_over)
    need = PD_OVERVIEW_NEED_BLOCKED;
  /* Stopped by the person (the Stop button, a CLI's Ctrl+C): their own
   * choice, not a failure.  It read red "Stopped — cancelled" among the
   * failed runs (N21); it goes with the runs done lately, neutral.  So
   * does a run whose budget ran out: it stopped where the person said it
   * should, and read red "Failed at: …" (tried as a new user would). */
  else if (self->status != PD_SESSION_STATUS_INTERRUPTED && self->status != PD_SESSION_STATUS_RUNNING &&
           (g_strcmp0 (self->stopped, "cancelled") == 0 || g_strcmp0 (self->stopped, "budget") == 0))
    need = PD_OVERVIEW_NEED_STOPPED;
  /* Its run's process ended without ending the run (serve killed, then
   * started again, found the session left running): no one's failure,
   * as a run its endpoint stopped is not.  It read red "Interrupted"
   * among the failures, its pie gone (tried as a new user would). */
  else if (self->status == PD_SESSION_STATUS_INTERRUPTED && self->stopped == NULL)
    need = PD_OVERVIEW_NEED_STOPPED;
  /* A run that failed, was refused, or was cut off left the
   * session idle: it is over, not working, and says so above the running. */
  else if (self->status == PD_SESSION_STATUS_FAILED || self->status == PD_SESSION_STATUS_INTERRUPTED ||
           self->stopped != NULL)
    need = PD_OVERVIEW_NEED_FAILED;
  /* A run that completed with a step whose check failed (the step cannot
   * be completed so): over, not working.  It read "Working", then
   * "Stalled" (issue 21). */
  else if (self->status != PD_SESSION_STATUS_RUNNING && self->failed_check != NULL && unfinished)
    need = PD_OVERVIEW_NEED_FAILED;
  /* Its run completed with steps left (the model ended its turn): the
   * agent is not working on it any more, and no one is to blame.  It read
   * "Working" while nothing ran (tried as a new user would); it goes with
   * the runs done, as one the person stopped. */
  else if (self->run_ended && unfinished)
    need = PD_OVERVIEW_NEED_STOPPED;
  /* The rule `plandeck-agent sessions` says "working" by too. */
  else if (unfinished && !pd_session_changed_lately (self->changed_at, now, stalled_usec))
    need = PD_OVERVIEW_NEED_STALLED;
  else if (unfinished || self->status == PD_SESSION_STATUS_RUNNING)
    need = PD_OVERVIEW_NEED_RUNNING;
  else if (self->total > 0 && self->unpassed > 0)
    need = PD_OVERVIEW_NEED_UNVERIFIED;
  else
    need = PD_OVERVIEW_NEED_DONE;

  if (!self->need_known || need != self->need)
    self->need_since = self->changed_at;
  self->need_known = TRUE;
  return SET_VALUE (self->need, need);
}

/* Where a need ranks: a run the person stopped goes with the runs done. */
static int
need_rank (PdOverviewNeed need)
{
  return need == PD_OVERVIEW_NEED_STOPPED ? PD_OVERVIEW_NEED_DONE : (int) need;
}

/* Most needed first; then the newest to come to its need (a card that
 * just became blocked goes first of the blocked); then a fixed order.  A
 * card's changes that leave its need leave its place: ordered by its last
 * change, fifty endpoints of ten agents writing every second put every
 * working card in another place each second, a list no one could follow
 * whose card buttons (asleep half a second after a card moves) mostly
 * slept, and the window bound and measured every row shown again each
 * time (bench-overview --view). */
int
_pd_overview_card_compare (PdOverviewCard *a,
                           PdOverviewCard *b)
{
  int cmp;

  if (need_rank (a->need) != need_rank (b->need))
    return need_rank (a->need) < need_rank (b->need) ? -1 : 1;
  if (a->need_since != b->need_since)
    return a->need_since > b->need_since ? -1 : 1;
  if (a->source != b->source)
    return a->source < b->source ? -1 : 1;
  cmp = g_strcmp0 (a->session_id, b->session_id);
  return cmp;
}

void
_pd_overview_card_emit_changed (PdOverviewCard *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

/**
 * pd_overview_card_get_source:
 *
 * Returns: (transfer none): the source the session belongs to
 */
PdSource *
pd_overview_card_get_source (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->source;
}

/* Its source's name among the overview's sources ("This Computer", an
 * endpoint's name) when they are a PdSourceList, else the source's title. */
const char *
pd_overview_card_get_source_title (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  if (self->source_name != NULL)
    return self->source_name;
  return pd_source_get_title (self->source);
}

const char *
pd_overview_card_get_source_kind (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return pd_source_get_kind (self->source);
}

/**
 * pd_overview_card_get_source_error:
 *
 * Returns: (nullable): why the card's source does not answer now (its
 *   values are the last it gave), or %NULL
 */
const char *
pd_overview_card_get_source_error (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->source_error;
}

const char *
pd_overview_card_get_session_id (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->session_id;
}

/* The agent that keeps the session: "plandeck", "odek", "claude-code", … */
const char *
pd_overview_card_get_agent (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->agent != NULL ? self->agent : "";
}

const char *
pd_overview_card_get_title (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->title != NULL ? self->title : "";
}

PdSessionStatus
pd_overview_card_get_status (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), PD_SESSION_STATUS_IDLE);
  return self->status;
}

/**
 * pd_overview_card_get_stopped:
 *
 * Returns: (nullable): how the session's last run ended short of its
 *   answer ("cancelled", "refused", "budget", "incomplete", "failed"; see
 *   PdSessionInfo), or %NULL while a run is on or after one that completed
 */
const char *
pd_overview_card_get_stopped (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->stopped;
}

/**
 * pd_overview_card_get_stopped_error:
 *
 * Returns: (nullable): the reason a failed run gave (untrusted text)
 */
const char *
pd_overview_card_get_stopped_error (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->stopped_error;
}

guint
pd_overview_card_get_done (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->done;
}

guint
pd_overview_card_get_total (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->total;
}

guint
pd_overview_card_get_blocked (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->blocked;
}

gint64
pd_overview_card_get_plan_version (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->plan_version;
}

/**
 * pd_overview_card_get_current_step:
 *
 * Returns: (nullable): the title of the first step in progress, else of
 *   the first pending one; %NULL when all are done or there is no plan
 */
/**
 * pd_overview_card_get_current_step_started:
 *
 * Returns: whether pd_overview_card_get_current_step() is a step in
 *   progress (TRUE) or the next pending one, which no run began (FALSE)
 */
gboolean
pd_overview_card_get_current_step_started (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), FALSE);
  return self->step_started;
}

const char *
pd_overview_card_get_current_step (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  if (self->total == 0 || self->done >= self->total)
    return NULL;
  return self->current_step;
}

/* When the session last changed (its transcript or plan written), unix µs. */
gint64
pd_overview_card_get_changed_at (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->changed_at;
}

PdOverviewNeed
pd_overview_card_get_need (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), PD_OVERVIEW_NEED_DONE);
  return self->need;
}

/* How many acceptance checks of its plan have not passed (denied, failed or
 * never run), as of the plan last read; a plan all done with any is not a
 * plain "done" (PD_OVERVIEW_NEED_UNVERIFIED). */
guint
pd_overview_card_get_unpassed_checks (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->unpassed;
}

/**
 * pd_overview_card_get_failed_check:
 *
 * Returns: (nullable): the description of the first check of a step not
 *   done whose evidence failed, as of the plan last read (untrusted text);
 *   a run that ended with one is a failure (PD_OVERVIEW_NEED_FAILED)
 */
const char *
pd_overview_card_get_failed_check (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->failed_check;
}

gboolean
pd_overview_card_has_approval (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), FALSE);
  return self->remote_run != NULL || self->local_tool != NULL;
}

/**
 * pd_overview_card_get_approval_deadline:
 *
 * Returns: when the endpoint denies the question by itself, in monotonic
 *   µs (g_get_monotonic_time()); 0 when it did not say (a question of this
 *   window's own run waits for its answer)
 */
gint64
pd_overview_card_get_approval_deadline (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->remote_run != NULL ? self->remote_run->approval_expires_at : 0;
}

/* The tool a waiting run wants to use, or NULL. */
const char *
pd_overview_card_get_approval_tool (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  if (self->remote_run != NULL)
    return self->remote_run->approval_tool;
  return self->local_tool;
}

/* The call's preview, as its dialog shows it, else its summary. */
static const char *
approval_preview (PdOverviewCard *self)
{
  if (self->remote_run != NULL)
    return self->remote_run->approval_preview;
  return self->local_preview;
}

/* What it would run or change, as the dialog shows it: the call's preview
 * (the lines an edit takes out and puts in, a write's content, a command
 * and its folder), else its summary (nullable, untrusted text).  An
 * endpoint's card showed the summary alone, "one.txt (2 bytes)", beside
 * Approve Once (tried as an attacker would). */
const char *
pd_overview_card_get_approval_command (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  if (approval_preview (self) != NULL)
    return approval_preview (self);
  if (self->remote_run != NULL)
    return self->remote_run->approval_command;
  return self->local_command;
}

/* What the waiting call does in a few words, as its question names it: a
 * command, a file and its size ("one.txt (2 bytes)"); never the preview
 * (nullable, untrusted text).  A notice that points to the card says this;
 * the card shows the whole change. */
const char *
pd_overview_card_get_approval_summary (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  if (self->remote_run != NULL)
    return self->remote_run->approval_command;
  return self->local_command;
}

/**
 * pd_overview_card_get_approval_whole:
 *
 * Whether pd_overview_card_get_approval_command() is all the question asks:
 * the call's preview, or the summary of a call whose summary is whole (a
 * command, pd_approver_summary_is_whole()).  An edit or a write that an
 * endpoint names by its file alone (odek's wire sends the path as its
 * "command", and no preview) is not: the card says so, and is never
 * approved from there.  Nor is a plan (exit_plan_mode's review), nor a
 * question whose command the endpoint masked part of, or that holds
 * control characters (pd_remote_run_approval_is_guarded()).
 *
 * Returns: whether the card may offer to approve its question
 */
gboolean
pd_overview_card_get_approval_whole (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), FALSE);
  if (!pd_overview_card_has_approval (self))
    return FALSE;
  /* A plan is reviewed in the session's plan review dialog, where Keep
   * Planning can say what to change: never approved from a card. */
  if (g_strcmp0 (pd_overview_card_get_approval_tool (self), "exit_plan_mode") == 0)
    return FALSE;
  /* Nor a command the endpoint masked part of ("masked"), or shows with
   * control characters as escapes ("controls"): its dialog says what that
   * means, a card has no room to. */
  if (pd_remote_run_approval_is_guarded (self->remote_run))
    return FALSE;
  return approval_preview (self) != NULL ||
         pd_approver_summary_is_whole (pd_overview_card_get_approval_tool (self),
                                       pd_overview_card_get_approval_command (self));
}

/**
 * pd_overview_card_get_remote_run:
 *
 * Returns: (nullable) (transfer none): the endpoint's run that waits on a
 *   question, to answer with pd_remote_source_answer_approval_async()
 */
const PdRemoteRun *
pd_overview_card_get_remote_run (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), NULL);
  return self->remote_run;
}

/* The question's number of a run in this window (0: none), which
 * pd_run_controller_answer_approval() names. */
guint
pd_overview_card_get_approval_serial (PdOverviewCard *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (self), 0);
  return self->local_serial;
}

/* pd-reassessment.c: failure-driven plan reassessment.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-reassessment.h"

#define MAX_CHECKS            64
#define MAX_CLASSES           3
#define MAX_CLASS_FINGERPRINTS 8
#define MAX_HINTS             2
#define COOLDOWN_BATCHES      3

typedef struct
{
  char  *key;
  guint  failed_batches;   /* separate batches in which it failed */
  guint  last_batch;       /* batch number of the last counted failure */
} CheckEntry;

struct _PdReassessment
{
  GObject     parent_instance;

  guint       batch;            /* completed batches so far */
  GQueue      checks;           /* CheckEntry, FIFO, at most 64 */
  char       *pending_reason;   /* a check crossed the threshold this batch */

  /* This batch's eligible observations. */
  gboolean    batch_any;
  gboolean    batch_success;
  GHashTable *batch_classes;    /* class → GHashTable of fingerprints */

  /* The varied-failure streak: consecutive all-failing batches sharing a
   * class, with the fingerprints seen under it. */
  guint       streak;
  char       *streak_class;
  GHashTable *streak_fingerprints;

  guint       hints;
  guint       last_hint_batch;
  gboolean    hinted;
};

G_DEFINE_FINAL_TYPE (PdReassessment, pd_reassessment, G_TYPE_OBJECT)

static void
check_entry_free (CheckEntry *entry)
{
  g_free (entry->key);
  g_free (entry);
}

static void
pd_reassessment_finalize (GObject *object)
{
  PdReassessment *self = (PdReassessment *) object;

  g_queue_clear_full (&self->checks, (GDestroyNotify) check_entry_free);
  g_clear_pointer (&self->pending_reason, g_free);
  g_clear_pointer (&self->batch_classes, g_hash_table_unref);
  g_clear_pointer (&self->streak_class, g_free);
  g_clear_pointer (&self->streak_fingerprints, g_hash_table_unref);

  G_OBJECT_CLASS (pd_reassessment_parent_class)->finalize (object);
}

static void
pd_reassessment_class_init (PdReassessmentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_reassessment_finalize;
}

static GHashTable *
new_set (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static void
pd_reassessment_init (PdReassessment *self)
{
  g_queue_init (&self->checks);
  self->batch_classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_hash_table_unref);
  self->streak_fingerprints = new_set ();
}

PdReassessment *
pd_reassessment_new (void)
{
  return g_object_new (PD_TYPE_REASSESSMENT, NULL);
}

/* Reassessment state is per turn: a new user turn starts clean. */
void
pd_reassessment_reset (PdReassessment *self)
{
  g_return_if_fail (PD_IS_REASSESSMENT (self));

  g_queue_clear_full (&self->checks, (GDestroyNotify) check_entry_free);
  g_clear_pointer (&self->pending_reason, g_free);
  g_hash_table_remove_all (self->batch_classes);
  self->batch_any = self->batch_success = FALSE;
  self->streak = 0;
  g_clear_pointer (&self->streak_class, g_free);
  g_hash_table_remove_all (self->streak_fingerprints);
  self->batch = 0;
  self->hints = 0;
  self->hinted = FALSE;
  self->last_hint_batch = 0;
}

static CheckEntry *
find_check (PdReassessment *self,
            const char     *key)
{
  for (GList *l = self->checks.head; l; l = l->next)
    if (strcmp (((CheckEntry *) l->data)->key, key) == 0)
      return l->data;
  return NULL;
}

/**
 * pd_reassessment_check_outcome:
 * @check_key: "step/check"
 *
 * A matching run of an acceptance check.  Success resets that check.
 */
void
pd_reassessment_check_outcome (PdReassessment *self,
                               const char     *check_key,
                               gboolean        passed)
{
  CheckEntry *entry;

  g_return_if_fail (PD_IS_REASSESSMENT (self));

  entry = find_check (self, check_key);

  if (passed)
    {
      if (entry != NULL)
        entry->failed_batches = 0;
      return;
    }

  if (entry == NULL)
    {
      entry = g_new0 (CheckEntry, 1);
      entry->key = g_strdup (check_key);
      entry->last_batch = G_MAXUINT;
      g_queue_push_tail (&self->checks, entry);
      if (g_queue_get_length (&self->checks) > MAX_CHECKS)
        check_entry_free (g_queue_pop_head (&self->checks));
    }

  /* Separate batches: two failures in one batch count once. */
  if (entry->last_batch == self->batch)
    return;
  entry->last_batch = self->batch;
  entry->failed_batches++;

  if (entry->failed_batches >= PD_REASSESS_FAILURE_BATCHES && self->pending_reason == NULL)
    {
      self->pending_reason = g_strdup (PD_REASSESS_REPEATED_CHECK_FAILURE);
      entry->failed_batches = 0;
    }
}

/**
 * pd_reassessment_tool_outcome:
 * @fingerprint: a hash of tool and arguments
 * @error_class: the trusted runtime class of a failure (timeout, not_found,
 *   command_failed, …); ignored for successes
 *
 * An eligible observation: not a denial, a cancellation, a budget skip or a
 * background poll — the caller leaves those out.
 */
void
pd_reassessment_tool_outcome (PdReassessment *self,
                              const char     *fingerprint,
                              gboolean        ok,
                              const char     *error_class)
{
  GHashTable *fingerprints;

  g_return_if_fail (PD_IS_REASSESSMENT (self));

  self->batch_any = TRUE;
  if (ok)
    {
      self->batch_success = TRUE;
      return;
    }

  if (error_class == NULL)
    error_class = "error";

  fingerprints = g_hash_table_lookup (self->batch_classes, error_class);
  if (fingerprints == NULL)
    {
      if (g_hash_table_size (self->batch_classes) >= MAX_CLASSES)
        return;
      fingerprints = new_set ();
      g_hash_table_insert (self->batch_classes, g_strdup (error_class), fingerprints);
    }

  if (g_hash_table_size (fingerprints) < MAX_CLASS_FINGERPRINTS)
    g_hash_table_add (fingerprints, g_strdup (fingerprint));
}

static void
advance_streak (PdReassessment *self)
{
  GHashTable *fingerprints = NULL;

  /* Batches without eligible observations (plan-only batches) neither
   * advance nor break the streak; a success among failures breaks it. */
  if (!self->batch_any)
    return;

  if (self->batch_success)
    {
      self->streak = 0;
      g_clear_pointer (&self->streak_class, g_free);
      g_hash_table_remove_all (self->streak_fingerprints);
      return;
    }

  if (self->streak_class != NULL)
    fingerprints = g_hash_table_lookup (self->batch_classes, self->streak_class);

  if (fingerprints == NULL)
    {
      /* Start over with one of this batch's classes. */
      GHashTableIter iter;
      gpointer key, value;

      g_clear_pointer (&self->streak_class, g_free);
      g_hash_table_remove_all (self->streak_fingerprints);
      self->streak = 0;

      g_hash_table_iter_init (&iter, self->batch_classes);
      if (!g_hash_table_iter_next (&iter, &key, &value))
        return;
      self->streak_class = g_strdup (key);
      fingerprints = value;
    }

  self->streak++;
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, fingerprints);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      if (g_hash_table_size (self->streak_fingerprints) < MAX_CLASS_FINGERPRINTS)
        g_hash_table_add (self->streak_fingerprints, g_strdup (key));
  }

  if (self->streak >= PD_REASSESS_FAILURE_BATCHES && g_hash_table_size (self->streak_fingerprints) >= 2 &&
      self->pending_reason == NULL)
    {
      self->pending_reason = g_strdup (PD_REASSESS_VARIED_TOOL_FAILURES);
      self->streak = 0;
      g_clear_pointer (&self->streak_class, g_free);
      g_hash_table_remove_all (self->streak_fingerprints);
    }
}

/**
 * pd_reassessment_end_batch:
 * @plan_open: the plan exists and has open steps
 *
 * Returns: (nullable): the reason code of a hint due on the next model
 *   request, or %NULL
 */
const char *
pd_reassessment_end_batch (PdReassessment *self,
                           gboolean        plan_open)
{
  const char *reason = NULL;

  g_return_val_if_fail (PD_IS_REASSESSMENT (self), NULL);

  advance_streak (self);
  self->batch++;

  if (self->pending_reason != NULL && plan_open && self->hints < MAX_HINTS &&
      (!self->hinted || self->batch - self->last_hint_batch >= COOLDOWN_BATCHES))
    {
      reason = g_intern_string (self->pending_reason);
      self->hints++;
      self->hinted = TRUE;
      self->last_hint_batch = self->batch;
    }

  g_clear_pointer (&self->pending_reason, g_free);
  g_hash_table_remove_all (self->batch_classes);
  self->batch_any = self->batch_success = FALSE;

  return reason;
}

char *
pd_reassessment_format_hint (const char *reason)
{
  return g_strdup_printf ("[plandeck plan reassessment: %s] Three observed failure batches warrant reviewing the "
                          "approach. Consider changing the approach, splitting the work with plan revise, or "
                          "reporting a blocker after a bounded investigation. Keep acceptance checks, approvals "
                          "and budgets as they are; nothing was retried or changed for you.",
                          reason);
}

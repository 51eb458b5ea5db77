/* pd-stall-detector.c: noticing a model that repeats itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-stall-detector.h"

/* Fingerprints kept at most; the oldest are forgotten first. */
#define MAX_FINGERPRINTS 256

typedef struct
{
  guint count;
  guint next_fire;
  guint interval;
  guint fires;
} Entry;

struct _PdStallDetector
{
  GObject     parent_instance;

  guint       base_interval;
  GHashTable *entries;   /* fingerprint → Entry */
  GQueue      order;     /* fingerprints, oldest first */
};

G_DEFINE_FINAL_TYPE (PdStallDetector, pd_stall_detector, G_TYPE_OBJECT)

static void
pd_stall_detector_finalize (GObject *object)
{
  PdStallDetector *self = (PdStallDetector *) object;

  g_queue_clear (&self->order);
  g_clear_pointer (&self->entries, g_hash_table_unref);

  G_OBJECT_CLASS (pd_stall_detector_parent_class)->finalize (object);
}

static void
pd_stall_detector_class_init (PdStallDetectorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_stall_detector_finalize;
}

static void
pd_stall_detector_init (PdStallDetector *self)
{
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_queue_init (&self->order);
}

/**
 * pd_stall_detector_new:
 * @base_interval: identical calls before the first hint (3)
 */
PdStallDetector *
pd_stall_detector_new (guint base_interval)
{
  PdStallDetector *self = g_object_new (PD_TYPE_STALL_DETECTOR, NULL);

  self->base_interval = MAX (base_interval, 1);
  return self;
}

void
pd_stall_detector_reset (PdStallDetector *self)
{
  g_return_if_fail (PD_IS_STALL_DETECTOR (self));

  g_hash_table_remove_all (self->entries);
  g_queue_clear (&self->order);
}

void
pd_stall_free (PdStall *stall)
{
  if (stall == NULL)
    return;
  g_free (stall->tool);
  g_free (stall);
}

/* Background polling tools: a poll that keeps returning the same thing is
 * only a stall after three times as many calls. */
static gboolean
is_background_poll (const char *tool)
{
  return g_str_has_prefix (tool, "bg_");
}

/**
 * pd_stall_detector_observe:
 * @result: the call's result text; part of the fingerprint, so a poll whose
 *   answer changes is never a stall
 * @writes: the call may change the world (write, shell)
 * @denied: the call was refused
 *
 * Returns: (transfer full) (nullable): a stall when a hint is due
 */
PdStall *
pd_stall_detector_observe (PdStallDetector *self,
                           const char      *tool,
                           const char      *canonical_args,
                           const char      *result,
                           gboolean         writes,
                           gboolean         denied)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  char *fingerprint;
  Entry *entry;
  PdStall *stall;

  g_return_val_if_fail (PD_IS_STALL_DETECTOR (self), NULL);
  g_return_val_if_fail (tool != NULL, NULL);

  g_checksum_update (checksum, (const guchar *) tool, -1);
  g_checksum_update (checksum, (const guchar *) "\0", 1);
  g_checksum_update (checksum, (const guchar *) (canonical_args ? canonical_args : ""), -1);
  g_checksum_update (checksum, (const guchar *) "\0", 1);
  g_checksum_update (checksum, (const guchar *) (result ? result : ""), -1);
  g_checksum_update (checksum, (const guchar *) (denied ? "\1" : "\0"), 1);
  fingerprint = g_strdup (g_checksum_get_string (checksum));

  entry = g_hash_table_lookup (self->entries, fingerprint);
  if (entry == NULL)
    {
      entry = g_new0 (Entry, 1);
      entry->interval = self->base_interval * (is_background_poll (tool) ? 3 : 1);
      entry->next_fire = entry->interval;
      g_hash_table_insert (self->entries, fingerprint, entry);
      g_queue_push_tail (&self->order, fingerprint);

      if (g_queue_get_length (&self->order) > MAX_FINGERPRINTS)
        g_hash_table_remove (self->entries, g_queue_pop_head (&self->order));
    }
  else
    g_free (fingerprint);

  entry->count++;
  if (entry->count < entry->next_fire)
    return NULL;

  /* Fire, then double the interval until the next one. */
  stall = g_new0 (PdStall, 1);
  stall->tool = g_strdup (tool);
  stall->count = entry->count;
  stall->again = entry->fires > 0;
  stall->escalate = writes || denied;
  entry->fires++;
  entry->interval *= 2;
  entry->next_fire = entry->count + entry->interval;

  return stall;
}

/* Engine-trusted text: ids only, never titles or notes (those stay inside
 * the wrapped plan message). */
char *
pd_stall_format_hint (const PdStall *stall,
                      const char    *in_progress_id,
                      const char    *next_pending_id)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "[plandeck stall: repeated identical call (%ux%s%s)] ",
                          stall->count, stall->tool, stall->again ? ", again" : "");

  if (stall->escalate)
    g_string_append (out, "The same call keeps producing the same outcome. Stop retrying this class of action; "
                          "report what blocks it, or move to work that does not need it.");
  else
    g_string_append (out, "The same call keeps producing the same result. Change the approach instead of repeating it.");

  if (in_progress_id != NULL || next_pending_id != NULL)
    {
      g_string_append (out, " Plan:");
      if (in_progress_id != NULL)
        g_string_append_printf (out, " in_progress=%s", in_progress_id);
      if (next_pending_id != NULL)
        g_string_append_printf (out, " %s=%s", stall->escalate ? "next_non_mutating" : "next_pending", next_pending_id);
      g_string_append_c (out, '.');
    }

  return g_string_free (out, FALSE);
}

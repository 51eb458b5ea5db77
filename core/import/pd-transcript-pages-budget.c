/* pd-transcript-pages-budget.c: what whole pages keep of a transcript of
 * many tiny values.
 *
 * Each message, tool call and result the pages keep costs far more than
 * its bytes in a transcript of tiny values: a message's structure, its
 * place in the lists, its text held and then written as JSON, a call's
 * events.  A 40-byte call of Gemini CLI cost 1.2 KB, so a 10 MB file of
 * them 306 MB (tried as an attacker would).  The whole pages count every
 * item with that overhead in a budget of their own: 2.5 times the
 * transcript's bytes (16 MiB at least), PD_IMPORT_SESSION_BYTES_MAX at
 * most; past it the rest of the transcript is left out, counted,
 * and a message where it was cut says how much.  A part of a long session
 * or an export's stream lets its messages go as it reads, and is not held
 * to it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "pd-transcript-pages-build-private.h"

static gsize budget_bytes;
static gsize cost_floor;

void
_pd_transcript_pages_set_budget_bytes (gsize max)
{
  budget_bytes = max;
}

void
_pd_transcript_pages_set_cost_floor (gsize floor)
{
  cost_floor = floor;
}

static gsize
budget_base (void)
{
  return budget_bytes > 0 ? budget_bytes : PD_IMPORT_SESSION_BYTES_MAX;
}

void
_pd_transcript_pages_budget_init (PdTranscriptPages *self)
{
  _pd_import_budget_init (&self->budget);
  /* Its own: a reader's budget lowered by a test leaves the pages'. */
  self->budget.max = budget_base ();
}

void
_pd_transcript_pages_set_source_bytes (PdTranscriptPages *self,
                                       gsize              bytes)
{
  gsize floor = cost_floor > 0 ? cost_floor : PD_TRANSCRIPT_PAGES_COST_FLOOR;
  gsize share;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self));
  if (bytes == 0)
    return;
  /* An honest session's items cost less than its bytes (its texts are
   * most of them); a transcript of tiny values cost 30 times them. */
  share = bytes <= (G_MAXSIZE - floor) / PD_TRANSCRIPT_PAGES_COST_PER_BYTE
          ? MAX (floor, bytes * PD_TRANSCRIPT_PAGES_COST_PER_BYTE / 2) : G_MAXSIZE;
  /* The Events' and the History's pages are read beside the whole ones
   * (an export, `serve`): a third of that, their calls keep no text. */
  if (self->events_only || self->history_only)
    share = MAX (floor, share / 3);
  /* Of the base, not of the budget set before: followed pages are given
   * the transcript's size at each read (pd-import-follow.c), and their
   * budget grows with it as a whole read's would. */
  self->budget.max = MIN (budget_base (), share);
}

gsize
_pd_transcript_pages_get_budget_max (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self), 0);
  return self->budget.max;
}

gboolean
_pd_transcript_pages_lets_go (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self), FALSE);
  return self->windowed;
}

gboolean
_pd_transcript_pages_take (PdTranscriptPages *self,
                           gsize              cost,
                           gsize              bytes)
{
  /* A part or a stream lets its messages go: bounded by the window. */
  if (self->windowed)
    return TRUE;
  if (!self->over_budget && _pd_import_budget_take (&self->budget, cost))
    return TRUE;
  if (!self->over_budget)
    {
      self->over_budget = TRUE;
      /* Said where the rest begins: its text written once it is known. */
      if (!self->history_only && !self->events_only)
        self->cut_notice = _pd_transcript_pages_message_add (self, _pd_transcript_pages_conversation_get (self, NULL),
                                                             "system", NULL, 0);
      if (self->cut_notice != NULL)
        self->cut_notice->notice = TRUE;
    }
  self->left_out_items++;
  self->left_out_bytes += bytes;
  return FALSE;
}

void
_pd_transcript_pages_budget_seal (PdTranscriptPages *self)
{
  g_autofree char *items = NULL;

  if (self->cut_notice == NULL || self->cut_notice->content == NULL)
    return;
  items = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                        "%llu more message or tool call",
                                        "%llu more messages and tool calls",
                                        self->left_out_items),
                           (unsigned long long) self->left_out_items);
  g_string_printf (self->cut_notice->content,
                   g_dngettext (GETTEXT_PACKAGE,
                                "The rest of this transcript is not shown: it holds more items than a session may show (%s, %llu byte of text)",
                                "The rest of this transcript is not shown: it holds more items than a session may show (%s, %llu bytes of text)",
                                self->left_out_bytes),
                   items, (unsigned long long) self->left_out_bytes);
}

gboolean
_pd_transcript_pages_get_cut (PdTranscriptPages *self,
                              guint64           *items,
                              gsize             *bytes)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self), FALSE);
  if (items != NULL)
    *items = self->left_out_items;
  if (bytes != NULL)
    *bytes = self->left_out_bytes;
  return self->over_budget;
}

/* pd-pending-calls.h: tool calls waiting for their result.
 *
 * A reader replaying a transcript keeps each plan call until the result
 * that says whether it ran (seed 001: "At most 100 pending requests"): at
 * most PD_IMPORT_MAX_PENDING wait, the oldest given up first.  The Claude
 * Code, Codex and Qwen readers keep their calls here; each holds its own
 * kind of value per call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-imported-session.h"

G_BEGIN_DECLS

typedef struct _PdPendingCalls PdPendingCalls;

/* @value_free (nullable) frees a call's value when it is given up. */
PdPendingCalls *_pd_pending_calls_new        (GDestroyNotify   value_free);
void            _pd_pending_calls_free       (PdPendingCalls  *self);

/* @value (owned, nullable) waits under @id.  An id already waiting is
 * replaced: its older value is freed and the newer call waits last.  When
 * the bound is reached the oldest call is given up, counted in
 * @stats->ignored_updates.  Readers that keep the first call of an id
 * check _pd_pending_calls_contains() first. */
void            _pd_pending_calls_add        (PdPendingCalls  *self,
                                              const char      *id,
                                              gpointer         value,
                                              PdImportStats   *stats);
gboolean        _pd_pending_calls_contains   (PdPendingCalls  *self,
                                              const char      *id);
/* The call waiting under @id, taken out: TRUE with its value (owned, may
 * be NULL) in *@value; FALSE when none waits under it (or @id is NULL). */
gboolean        _pd_pending_calls_take       (PdPendingCalls  *self,
                                              const char      *id,
                                              gpointer        *value);
guint           _pd_pending_calls_get_size   (PdPendingCalls  *self);
/* Whether the id of a waiting call occurs in @text: a cheap test, before
 * parsing, that a result line may answer one. */
gboolean        _pd_pending_calls_any_id_in  (PdPendingCalls  *self,
                                              const char      *text,
                                              gsize            length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPendingCalls, _pd_pending_calls_free)

G_END_DECLS

/* pd-codex-reader.h: Codex CLI rollouts.
 *
 * Reads ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl and replays the plan:
 * update_plan function calls (each a full list, applied once their output
 * is seen and is not an error), the code-mode form (an exec script holding
 * exactly one tools.update_plan({...}) call with a literal argument), live
 * plan_update events when a tool wrote them, and plan mode's proposed plans
 * (<proposed_plan> blocks and completed Plan items; the last of a turn wins).
 *
 * A PdTranscriptReader: like the Claude Code reader it keeps its state, so a second update reads
 * only what was appended; and a first read of a rollout over the threshold
 * starts from the newest full list that applies, found backwards within the
 * bound (its head is still read for the session's facts).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-reader.h"

G_BEGIN_DECLS

#define PD_TYPE_CODEX_READER (pd_codex_reader_get_type ())
G_DECLARE_FINAL_TYPE (PdCodexReader, pd_codex_reader, PD, CODEX_READER, GObject)

PdCodexReader     *pd_codex_reader_new          (const char     *path);

PdImportedSession *pd_codex_read                (const char     *path,
                                                 GError        **error);

/* The argument of the one update_plan({...}) call in a code-mode script, as
 * JSON; NULL when there is not exactly one, or it is not a plain literal. */
JsonNode          *pd_codex_extract_exec_plan   (const char     *script);

G_END_DECLS

/* pd-replay-provider.h: recorded assistant turns, played back.
 *
 * For demos and tests only, and labelled as such: no model is asked.  The
 * file is a JSON object
 *
 *   {"label": "…",
 *    "turns": [{"content": "…",
 *               "reasoning": "…",
 *               "tool_calls": [{"name": "…", "arguments": {…}}],
 *               "finish_reason": "…", "delay_ms": 0,
 *               "input_tokens": 0, "output_tokens": 0}, …]}
 *
 * A turn with "refusal": "explanation" is the model declining (finish
 * reason "refusal"), as a server says it.
 * Every field of a turn is optional.  "arguments" may also be a string of
 * JSON text, which lets a recording reproduce a model that sends broken
 * arguments: such a turn fails like the HTTP providers do.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-provider.h"

G_BEGIN_DECLS

#define PD_TYPE_REPLAY_PROVIDER (pd_replay_provider_get_type ())
G_DECLARE_FINAL_TYPE (PdReplayProvider, pd_replay_provider, PD, REPLAY_PROVIDER, GObject)

PdReplayProvider *pd_replay_provider_new_from_file  (const char       *path,
                                                     GError          **error);
PdReplayProvider *pd_replay_provider_new_from_json  (JsonNode         *root,
                                                     GError          **error);
/* The recording's "label", or a default naming it a replay; never NULL. */
const char       *pd_replay_provider_get_label      (PdReplayProvider *self);
guint             pd_replay_provider_get_n_turns    (PdReplayProvider *self);
/* How many turns chat() has handed out so far. */
guint             pd_replay_provider_get_position   (PdReplayProvider *self);

G_END_DECLS

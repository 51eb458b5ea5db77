/* pd-codex-reader-private.h: what the scanner and the index hand the Codex
 * reader beside its public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-codex-reader.h"
#include "pd-jsonl-reader.h"

G_BEGIN_DECLS

/* @opened (taken): the rollout, open at its start, as the look that
 * recognised it left it (_pd_import_sniff_jsonl_open()); the first update
 * reads it instead of opening the file again. */
void _pd_codex_reader_take_opened (PdCodexReader *self,
                                   PdJsonlReader *opened);

G_END_DECLS

/* pd-transcript-view-private.h: what the tests count of the Transcript page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-transcript-view.h"

G_BEGIN_DECLS

/* The newest rows a followed transcript may still change (a tool's result,
 * a subagent's conversation under its call), as the pages hold them: what
 * a reload of a followed transcript reads again, with what came after. */
#define PD_TRANSCRIPT_VIEW_FOLLOW_TAIL 64

/* The rows built on the main thread to merge the reads into the list, so
 * far, and how many reads were merged (*@n_merged): a followed
 * transcript's change builds its newest rows only. */
guint _pd_transcript_view_get_n_built (PdTranscriptView *self,
                                       guint            *n_merged);

G_END_DECLS

/* pd-transcript-view.h: a session's messages, by role
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-session-view.h"

G_BEGIN_DECLS

#define PD_TYPE_TRANSCRIPT_VIEW (pd_transcript_view_get_type ())

G_DECLARE_FINAL_TYPE (PdTranscriptView, pd_transcript_view, PD, TRANSCRIPT_VIEW, PdSessionView)

GtkWidget  *pd_transcript_view_new            (void);
void        pd_transcript_view_refresh        (PdTranscriptView *self);
void        pd_transcript_view_set_title       (PdTranscriptView *self,
                                                const char       *title);
void        pd_transcript_view_set_run_stopped (PdTranscriptView *self,
                                                gboolean          run_stopped);
GListModel *pd_transcript_view_get_model      (PdTranscriptView *self);

G_END_DECLS

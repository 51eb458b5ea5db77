/* pd-run-note.h: the engine's note of how a run ended, in a person's words.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *pd_run_note_budget_name (const char *name);
char *pd_run_note_to_text     (const char *note);

G_END_DECLS

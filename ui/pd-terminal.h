/* pd-terminal.h: running a command in a terminal window of its own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-source.h"

G_BEGIN_DECLS

gboolean pd_terminal_is_available (void);
gboolean pd_terminal_launch       (const char * const  *argv,
                                   const char          *workdir,
                                   GError             **error);
/* Why a command has no line to paste, said where the line would be. */
const char *pd_terminal_paste_refusal (const PdResumeCommand *resume);

G_END_DECLS

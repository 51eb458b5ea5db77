/* pd-terminal.h: running a command in a terminal window of its own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean pd_terminal_is_available (void);
gboolean pd_terminal_launch       (const char * const  *argv,
                                   const char          *workdir,
                                   GError             **error);

G_END_DECLS

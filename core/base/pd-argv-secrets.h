/* pd-argv-secrets.h: tokens out of what /proc/PID/cmdline shows.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint pd_argv_hide_tokens (int    argc,
                           char **argv);

G_END_DECLS

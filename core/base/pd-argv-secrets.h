/* pd-argv-secrets.h: tokens out of what /proc/PID/cmdline shows. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint pd_argv_hide_tokens (int    argc,
                           char **argv);

G_END_DECLS

/* pd-test-spawn.h: processes a ui test starts, which end with it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

GSubprocessLauncher *pd_test_launcher_new (GSubprocessFlags   flags);
GSubprocess         *pd_test_spawn        (GSubprocessFlags   flags,
                                           GError           **error,
                                           const char        *argv0,
                                           ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS

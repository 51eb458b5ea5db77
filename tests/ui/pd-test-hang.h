/* pd-test-hang.h: what a ui test's wait that timed out says of itself
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64 started;       /* monotonic µs */
  gint64 cpu_us;        /* the process's CPU then */
  guint  iterations;    /* of the main loop since */
} PdTestHangWatch;

void pd_test_hang_watch_start (PdTestHangWatch       *watch);
void pd_test_hang_report      (const PdTestHangWatch *watch,
                               const char            *what);

G_END_DECLS

/* pd-random-private.h: the fallback reader, for tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-random.h"

G_BEGIN_DECLS

gboolean _pd_random_read_urandom (const char  *path,
                                  guint8      *buffer,
                                  gsize        length,
                                  GError     **error);

G_END_DECLS

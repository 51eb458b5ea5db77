/* pd-decimal.h: whole decimal numbers read without errno or locale.
 *
 * GLib's g_ascii_strtoull() and g_ascii_string_to_unsigned() trust errno,
 * which the first call's C-locale setup can leave set when another thread
 * holds GLib's once-lock (its futex wait fails with EAGAIN). A plain "15"
 * was then refused now and then. These read digits and nothing else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean pd_decimal_parse (const char *text,
                           gssize      length,
                           guint64     max,
                           guint64    *out);

G_END_DECLS

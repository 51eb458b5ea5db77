/* pd-secret-text.h: keys and tokens that leave no copy behind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A freed string stays in the heap until something else takes its place:
 * a core dump, /proc/PID/mem or a later read past a bug shows it there.
 * An API key is overwritten before it is freed.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void  pd_secret_text_wipe    (char        *text);
void  pd_secret_text_free    (char        *text);
void  pd_secret_text_replace (char       **field,
                              const char  *value);

G_END_DECLS

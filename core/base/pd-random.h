/* pd-random.h: the one source of ids, tokens and nonces.
 *
 * Everything an attacker must not guess — the serve instance token, session
 * ids and tokens, run ids, the plan wrapper's nonce, imported sessions'
 * tokens — comes from the kernel's cryptographic generator: getrandom(2),
 * or /dev/urandom where getrandom is unavailable.  Never from GLib's
 * g_random_*, which is a seeded Mersenne Twister.  Without either source
 * the process stops (g_error): minting a guessable token would be worse.
 *
 * Thread-safe; no state.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void   pd_random_bytes (guint8 *buffer,
                        gsize   length);
char  *pd_random_hex   (gsize   n_bytes);

G_END_DECLS

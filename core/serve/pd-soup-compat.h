/* pd-soup-compat.h: what Plandeck does about libsoup 3.2's server leaks.
 *
 * Debian 12 ships libsoup 3.2.3.  Its listener keeps a reference to every
 * socket it accepts and never drops it (upstream b545d5f0, "soup-listener:
 * Plug a leak", in 3.4.0): a few hundred bytes per connection, for the life
 * of the process.  pd_soup_server_plug_accept_leak() drops that reference
 * when, and only when, it is there: on a libsoup that has the fix (or a
 * distribution that backported it) it does nothing.
 *
 * The other leak, of kept-alive connections their clients close (a
 * descriptor each), needs a watch on each connection: pd-server-conns.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

void pd_soup_server_plug_accept_leak (SoupServer *server);

G_END_DECLS

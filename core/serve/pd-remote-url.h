/* pd-remote-url.h: an endpoint's address: the base its API paths are
 * joined to (its path and query kept, its token taken out), and the key
 * under which two spellings of one endpoint are the same.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean  pd_remote_url_split   (const char  *url,
                                 char       **base,
                                 char       **query,
                                 char       **token,
                                 GError     **error);
char     *pd_remote_url_join    (const char  *base,
                                 const char  *query,
                                 const char  *path);
char     *pd_remote_url_dup_key (const char  *url);

G_END_DECLS

/* pd-multi-source-private.h: between the parts of PdMultiSource: the
 * merged listing (pd-multi-source.c) and the calls handed over to the
 * session's own source (pd-multi-source-calls.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-multi-source.h"
#include "pd-source.h"

G_BEGIN_DECLS

void           _pd_multi_source_calls_iface_init (PdSourceInterface   *iface);
PdSessionInfo *_pd_multi_source_list_info        (PdMultiSource       *self,
                                                  PdSource            *source,
                                                  const PdSessionInfo *info);

G_END_DECLS

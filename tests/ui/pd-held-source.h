/* pd-held-source.h: a source whose replies can be held back, for tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-source.h"

G_BEGIN_DECLS

#define PD_TYPE_HELD_SOURCE (pd_held_source_get_type ())

G_DECLARE_FINAL_TYPE (PdHeldSource, pd_held_source, PD, HELD_SOURCE, GObject)

PdHeldSource *pd_held_source_new       (PdSource     *inner);
void          pd_held_source_hold      (PdHeldSource *self);
guint         pd_held_source_n_held    (PdHeldSource *self);
void          pd_held_source_release   (PdHeldSource *self);

G_END_DECLS

/* pd-embedded.h: files compiled into the library (build-aux/embed-files.py).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *name;     /* NULL ends a table */
  const char *data;     /* nul-terminated */
  gsize       length;
} PdEmbeddedFile;

extern const PdEmbeddedFile pd_demo_files[];

G_END_DECLS

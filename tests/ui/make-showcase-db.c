/* make-showcase-db.c: writes the database the screenshots are taken of
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: make-showcase-db [--empty] PATH
 */
#define G_LOG_DOMAIN "make-showcase-db"

#include "config.h"

#include "pd-test-fixtures.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PdSessionStore) store = NULL;
  gboolean empty = argc == 3 && g_str_equal (argv[1], "--empty");

  if (argc != 2 && !empty)
    {
      g_printerr ("usage: %s [--empty] PATH\n", argv[0]);
      return 64;
    }

  store = pd_test_open_store (argv[argc - 1]);
  if (!empty)
    pd_test_fill_showcase (store);

  return 0;
}

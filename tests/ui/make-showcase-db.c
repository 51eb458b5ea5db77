/* make-showcase-db.c: writes the database the screenshots are taken of
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: make-showcase-db PATH
 */
#define G_LOG_DOMAIN "make-showcase-db"

#include "config.h"

#include "pd-test-fixtures.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PdSessionStore) store = NULL;

  if (argc != 2)
    {
      g_printerr ("usage: %s PATH\n", argv[0]);
      return 64;
    }

  store = pd_test_open_store (argv[1]);
  pd_test_fill_showcase (store);

  return 0;
}

/* pd-argv-secrets.c: tokens out of what /proc/PID/cmdline shows.
 *
 * `plandeck --remote 'http://host:8080/?token=T'` is the form serve
 * prints.  Every local user can read a process's arguments (ps -eo args)
 * for as long as it runs, and the token opens the whole API.  Linux reads
 * /proc/PID/cmdline from the process's own argument memory, so the value
 * is overwritten there once the program has its own copy.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-argv"

#include "config.h"
#include <string.h>
#include "pd-argv-secrets.h"

/* Overwrites the value of each `token=` parameter in @arg; the count. */
static guint
hide_in_argument (char *arg)
{
  guint hidden = 0;
  char *query = strchr (arg, '?');

  if (query == NULL)
    return 0;
  for (char *p = query + 1; *p != '\0' && *p != '#'; )
    {
      char *end = p + strcspn (p, "&#");

      if (strncmp (p, "token=", 6) == 0 && end > p + 6)
        {
          memset (p + 6, '*', (gsize) (end - (p + 6)));
          hidden++;
        }
      p = *end == '&' ? end + 1 : end;
    }
  return hidden;
}

/**
 * pd_argv_hide_tokens:
 * @argv: (array length=argc): the process's own arguments, as main() got them
 *
 * Overwrites, in place, the value of every `token=` query parameter in a
 * URL among @argv with asterisks of the same length (the memory cannot
 * grow).  Call it on main()'s argv after a copy has been taken for
 * parsing.
 *
 * Returns: how many values were hidden
 */
guint
pd_argv_hide_tokens (int    argc,
                     char **argv)
{
  guint hidden = 0;

  for (int i = 1; i < argc && argv[i] != NULL; i++)
    hidden += hide_in_argument (argv[i]);
  return hidden;
}

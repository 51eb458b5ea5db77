/* pd-secret-text.c: keys and tokens that leave no copy behind
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-secret-text"

#include "config.h"

#include <string.h>

#include "pd-secret-text.h"

/**
 * pd_secret_text_wipe:
 * @text: (nullable): a key or token
 *
 * Overwrites @text with zero bytes, in a way the compiler keeps
 * (explicit_bzero(): a memset() before free() may be dropped as a dead
 * store).
 */
void
pd_secret_text_wipe (char *text)
{
  if (text != NULL)
    explicit_bzero (text, strlen (text));
}

/**
 * pd_secret_text_free:
 * @text: (nullable) (transfer full): a key or token
 *
 * Wipes @text (pd_secret_text_wipe()), then frees it.
 */
void
pd_secret_text_free (char *text)
{
  pd_secret_text_wipe (text);
  g_free (text);
}

/**
 * pd_secret_text_replace:
 * @field: where a key is kept
 * @value: (nullable): the new key; %NULL or "" for none
 *
 * Replaces the key in @field with a copy of @value, wiping the old one.
 */
void
pd_secret_text_replace (char       **field,
                        const char  *value)
{
  char *copy = value != NULL && *value != '\0' ? g_strdup (value) : NULL;

  pd_secret_text_free (*field);
  *field = copy;
}

/* pd-decimal.c: whole decimal numbers read without errno or locale.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-decimal.h"

/**
 * pd_decimal_parse:
 * @text: ASCII digits
 * @length: bytes of @text, or -1 when it is NUL-terminated
 * @max: the largest value accepted
 * @out: (out) (optional): the value
 *
 * Reads one or more ASCII digits, with nothing before or after them (no
 * sign, no spaces), whose value is at most @max.
 *
 * Returns: %TRUE when @text is such a number; @out is untouched otherwise
 */
gboolean
pd_decimal_parse (const char *text,
                  gssize      length,
                  guint64     max,
                  guint64    *out)
{
  guint64 value = 0;
  gsize len;

  if (text == NULL)
    return FALSE;

  len = length < 0 ? strlen (text) : (gsize) length;
  if (len == 0)
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      guint digit;

      if (!g_ascii_isdigit (text[i]))
        return FALSE;
      digit = (guint) (text[i] - '0');
      if (digit > max || value > (max - digit) / 10)
        return FALSE;
      value = value * 10 + digit;
    }

  if (out != NULL)
    *out = value;
  return TRUE;
}

/* pd-redact-values.c: which values the redactor leaves as they are.
 *
 * A name may be secret-like and its value still hold no secret: a flag, a
 * reference to a variable, what the shell runs, the gap between two JSON
 * strings, a count of passes.  The scan of pd-redact.c and the JSON walk
 * of pd-redact-json.c both ask here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"

/* Values that hold no secret: flags and nothing, what the shell runs, and
 * references to one ($TOKEN, ${TOKEN}, %(password)s) — but not in single
 * quotes, where the shell reads $ as the text it is (--password='$ecr3t'). */
gboolean
_pd_redact_value_is_secret (const char *value,
                            gboolean    single_quoted)
{
  static const char * const plain[] = {
    "true", "false", "null", "none", "nil", "undefined", "yes", "no", "on", "off", NULL,
  };
  g_autofree char *lower = g_ascii_strdown (value, -1);

  if ((value[0] == '$' && !single_quoted) || value[0] == '%' || strcmp (value, PD_REDACTED) == 0)
    return FALSE;
  if (_pd_redact_value_runs_command (value))
    return FALSE;
  return !_pd_redact_word_in (lower, plain);
}

/* In JSON text, the quote that ends a string ("…token:", "next") read as
 * a value's opening quote: the "value" is the gap between two strings, and
 * masking it joined them (a plan step titled "Rotate the token:" was
 * stored as invalid JSON and lost its steps; tried as an attacker would). */
gboolean
_pd_redact_value_is_json_gap (const char *value)
{
  value += strspn (value, " \t\r\n");
  return *value == ',' || *value == ':' || *value == '}' || *value == ']';
}

/* The bare name pass with a number of one or two digits (pass=12 fail=0,
 * x264's --pass=2, ffmpeg's -pass 1) counts or numbers steps: no password.
 * A longer number may be one (mysql --pass=1234, a PIN): masked. */
gboolean
_pd_redact_value_is_pass_count (const char *name,
                                const char *value)
{
  while (*name == '-')
    name++;
  if (g_ascii_strcasecmp (name, "pass") != 0 || *value == '\0' || strlen (value) > 2)
    return FALSE;
  for (const char *p = value; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

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
  char lower[16];
  gsize len;

  if ((value[0] == '$' && !single_quoted) || value[0] == '%' || strcmp (value, PD_REDACTED) == 0)
    return FALSE;
  if (_pd_redact_value_runs_command (value))
    return FALSE;
  /* The plain words are short: a longer value is none (and not copied). */
  len = strnlen (value, sizeof lower);
  if (len >= sizeof lower)
    return TRUE;
  for (gsize i = 0; i <= len; i++)
    lower[i] = _pd_redact_lower (value[i]);
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

/* Blanks of a command line: a space or a tab. */
static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* A JSON escape at @p of a character that ends or joins a command: \n, \r,
 * or \u of a line break, ; & | < or > (\u000a, \u003B…). */
static gboolean
json_escape_is_syntax (const char *p,
                       const char *end)
{
  static const char * const codes[] = { "000a", "000d", "003b", "0026", "007c", "003c", "003e", NULL };
  char code[5];

  if (p + 1 >= end || p[0] != '\\')
    return FALSE;
  if (p[1] == 'n' || p[1] == 'r')
    return TRUE;
  if ((p[1] != 'u' && p[1] != 'U') || end - p < 6)
    return FALSE;
  for (guint i = 0; i < 4; i++)
    code[i] = _pd_redact_lower (p[2 + i]);
  code[4] = '\0';
  return _pd_redact_word_in (code, codes);
}

gboolean
_pd_redact_syntax_at (const char *p,
                      const char *end)
{
  if (p >= end)
    return FALSE;
  return (*p != '\0' && strchr (";&|<>\n\r", *p) != NULL) || (*p == '\\' && json_escape_is_syntax (p, end));
}

gboolean
_pd_redact_value_hides_syntax (const char *value,
                               gsize       len)
{
  const char *end = value + len;
  const char *inner = value, *inner_end = end;
  guint words = 0;

  for (const char *p = value; p < end; p++)
    {
      gsize cont = _pd_redact_continuation_len (p, (gsize) (end - p), 0);

      /* A line continuation, raw or in a JSON string (\\ and \n), ends no
       * command: the shell takes it out, in quotes too. */
      if (cont > 0)
        {
          p += cont - 1;
          continue;
        }
      if (_pd_redact_syntax_at (p, end))
        return TRUE;
      if (!is_blank (*p) && (p == value || is_blank (p[-1])))
        {
          /* A word that looks like an option: x -rf, x --force. */
          if (p > value && *p == '-' && p + 1 < end && (g_ascii_isalnum (p[1]) || p[1] == '-'))
            return TRUE;
          if (++words > 4)
            return TRUE;
        }
      /* A backslash escaped, \\, and read as a pair, so that \\\\ and \n (a
       * line break after it) is seen as one; but inside $'…' of a JSON
       * string \\n and \\u000a are line breaks too. */
      if (p[0] == '\\' && p + 1 < end && p[1] == '\\')
        {
          if (_pd_redact_syntax_at (p + 1, end))
            return TRUE;
          p++;
        }
    }

  /* Starts or ends with a blank, inside its quotes: "x; y " read from a
   * quote that was not the value's. */
  if (inner < inner_end && *inner == '$')
    inner++;
  if (inner < inner_end && *inner == '\\')
    inner++;
  if (inner < inner_end && (*inner == '"' || *inner == '\''))
    inner++;
  else
    inner = value;
  if (inner_end > inner && (inner_end[-1] == '"' || inner_end[-1] == '\''))
    {
      inner_end--;
      if (inner_end > inner && inner_end[-1] == '\\')
        inner_end--;
    }
  return inner < inner_end && (is_blank (*inner) || is_blank (inner_end[-1]));
}

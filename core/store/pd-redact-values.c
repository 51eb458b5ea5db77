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
                      const char *end,
                      guint       depth)
{
  if (p >= end)
    return FALSE;
  return (*p != '\0' && strchr (";&|<>\n\r", *p) != NULL) || (depth > 0 && *p == '\\' && json_escape_is_syntax (p, end));
}

/* The byte a character of @n hex or octal digits at @p stands for (of one
 * past ASCII, 'x': a value's), and in *@used how many it took. */
static char
digits_value (const char *p,
              const char *end,
              guint       n,
              guint       base,
              gsize      *used)
{
  guint32 v = 0;
  gsize k = 0;

  for (; k < n && p + k < end; k++)
    {
      int d = base == 16 ? g_ascii_xdigit_value (p[k]) : (p[k] >= '0' && p[k] <= '7' ? p[k] - '0' : -1);

      if (d < 0)
        break;
      v = v * base + (guint32) d;
    }
  *used = k;
  return v < 0x80 ? (char) v : 'x';
}

/* @len bytes of a JSON string's text at @p read as what they spell, into
 * @out (never longer): \n a line break, \\ a backslash, \u003b a ;.  Its
 * length. */
static gsize
json_unescape (const char *p,
               gsize       len,
               char       *out)
{
  const char *end = p + len;
  gsize o = 0, used;
  char c;

  while (p < end)
    {
      if (*p != '\\' || p + 1 >= end)
        {
          out[o++] = *p++;
          continue;
        }
      switch (p[1])
        {
        case 'n': out[o++] = '\n'; p += 2; break;
        case 'r': out[o++] = '\r'; p += 2; break;
        case 't': out[o++] = '\t'; p += 2; break;
        case 'b': case 'f': out[o++] = 'x'; p += 2; break;
        case '"': case '\\': case '/': out[o++] = p[1]; p += 2; break;
        case 'u': case 'U':
          /* Read before written: @out may be @p. */
          c = digits_value (p + 2, end, 4, 16, &used);
          if (used == 4 && c != '\0')
            out[o++] = c, p += 6;
          else
            out[o++] = *p++;  /* no escape JSON knows: as written */
          break;
        default:
          out[o++] = *p++;
          break;
        }
    }
  return o;
}

/* The character an escape of bash's $'…' at @p stands for (\n, \x0a,
 * \012, \cJ, \u000a…), and in *@n how many bytes it takes. */
static char
ansi_escape (const char *p,
             const char *end,
             gsize      *n)
{
  gsize used = 0;
  char c;

  *n = 2;
  switch (p[1])
    {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'c':
      if (p + 2 >= end)
        return 'c';
      *n = 3;
      return (char) (p[2] & 0x1f);
    case 'x': case 'u': case 'U':
      c = digits_value (p + 2, end, p[1] == 'x' ? 2 : p[1] == 'u' ? 4 : 8, 16, &used);
      break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
      c = digits_value (p + 1, end, 3, 8, &used);
      *n = 1 + used;
      return c;
    default:
      return p[1];
    }
  *n = 2 + used;
  return used > 0 ? c : p[1];
}

static inline gboolean
is_syntax_char (char c)
{
  return c != '\0' && strchr (";&|<>\n\r", c) != NULL;
}

/* The value as the shell reads it from @quoting on (the JSON escapes of
 * its strings read already): TRUE at a sign that ends or joins a command,
 * escaped or not (\; too: a value is never masked over one), more than 4
 * words or a word like an option.  A line continuation (\ and a line
 * break, unquoted or in "…") the shell takes out. */
static gboolean
shell_reading_hides_syntax (const char     *p,
                            gsize           len,
                            PdRedactQuoting quoting)
{
  const char *start = p, *end = p + len;
  gboolean blank_before = TRUE;
  guint words = 0;

  while (p < end)
    {
      const char *here = p;
      char c = *p;
      gsize n = 1;
      gboolean quote = FALSE;

      if (c == '\\' && p + 1 < end && quoting != QUOTING_SINGLE
          && (p[1] == '\n' || (p[1] == '\r' && p + 2 < end && p[2] == '\n')))
        {
          p += p[1] == '\n' ? 2 : 3;  /* a continuation (in $'…' too: read so before) */
          continue;
        }
      if (c == '\\' && p + 1 < end && quoting == QUOTING_ANSI)
        c = ansi_escape (p, end, &n);
      else if (c == '\\' && p + 1 < end
               && (quoting == QUOTING_NONE || strchr ("$`\"\\", p[1]) != NULL) && quoting != QUOTING_SINGLE)
        c = p[1], n = 2;  /* escaped: the character itself, no quote */
      else if (quoting == QUOTING_NONE && (c == '\'' || c == '"'))
        quoting = c == '"' ? QUOTING_DOUBLE : QUOTING_SINGLE, quote = TRUE;
      else if (quoting == QUOTING_NONE && c == '$' && p + 1 < end && (p[1] == '\'' || p[1] == '"'))
        quoting = p[1] == '"' ? QUOTING_DOUBLE : QUOTING_ANSI, n = 2, quote = TRUE;
      else if ((quoting == QUOTING_DOUBLE && c == '"') || (quoting != QUOTING_NONE && quoting != QUOTING_DOUBLE && c == '\''))
        quoting = QUOTING_NONE, quote = TRUE;
      p += n;
      if (quote)
        continue;
      if (is_syntax_char (c))
        return TRUE;
      if (!is_blank (c) && blank_before)
        {
          /* A word that looks like an option: x -rf, x --force. */
          if (here > start && c == '-' && p < end && (g_ascii_isalnum (*p) || *p == '-'))
            return TRUE;
          if (++words > 4)
            return TRUE;
        }
      blank_before = is_blank (c);
    }
  return FALSE;
}

gboolean
_pd_redact_value_hides_syntax (const char     *value,
                               gsize           len,
                               PdRedactQuoting quoting,
                               guint           depth)
{
  const char *end = value + len;
  const char *inner = value, *inner_end = end;
  g_autofree char *read = depth > 0 ? g_strndup (value, len) : NULL;
  gsize read_len = len;

  /* What the JSON strings the value is in spell (a JSON string's \n is a
   * line break of its command, \\n a backslash and n), then the shell's
   * reading of that: bash makes \n a line break in $'…' only
   * (PGPASSWORD='x9\nQ7' was kept as a command's; tried as an attacker
   * would). */
  for (guint i = 0; i < depth; i++)
    read_len = json_unescape (read, read_len, read);
  if (shell_reading_hides_syntax (read != NULL ? read : value, read_len, quoting))
    return TRUE;

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

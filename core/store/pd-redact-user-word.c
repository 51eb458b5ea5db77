/* pd-redact-user-word.c: curl's -u user:password and a NAME=value word
 * read as bash reads them (pd-redact-shell-word.c).
 *
 * The patterns read -u's value and NAME=value as written, a quoted part
 * at a time: curl -u user:$'SECRET', -u "user":'SEC'"RET", --user=…,
 * -uuser:$'…' were stored as written, and a NAME of quoted parts
 * (API"_KEY"=SECRET, which env, export and docker -e take as an
 * assignment) was no name (tried as an attacker would).  A word with a
 * quote, a backslash or a $ in it is read here: the decision on its
 * dequoted text, the mask where each byte is written, the quotes in
 * sight.  A word written as it reads stays the patterns', as it always
 * was; a word the reader is unsure of, or that runs a command, too.
 *
 * httpie's -a user:SECRET (xh's too) is read here the same way, quoted
 * or not: it was stored in clear (tried as an attacker would).
 *
 * So is NAME=value or --name=value in a JSON string whose value holds
 * an escape (the shell's \\ , JSON's \u00c4): the patterns read the
 * string's escapes and the shell's apart, and masked the value up to
 * the first (PGPASSWORD=S3cret\\ Zq9 kept Zq9; tried as an attacker
 * would).
 *
 * So is a value in double quotes that starts with $' (PGPASSWORD="$'X'",
 * --password "$'X'"): in double quotes $' is text, the secret as written,
 * where the patterns read a variable's $ and kept it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-patterns-private.h"
#include "pd-redact-scan-private.h"
#include "pd-redact-shell-word-private.h"

/* Whether a dequoted value reads as words of a command to whoever reads
 * it, as _pd_redact_value_hides_syntax() says of a value as written: more
 * than 4 words, a word after a blank that looks like an option, a blank at
 * its start or end.  Such a value stays in sight. */
static gboolean
reads_as_words (const char *value,
                gsize       len)
{
  guint words = 0;

  if (g_ascii_isspace (value[0]) || g_ascii_isspace (value[len - 1]))
    return TRUE;
  for (gsize k = 0; k < len; k++)
    if (k == 0 || (g_ascii_isspace (value[k - 1]) && !g_ascii_isspace (value[k])))
      {
        if (++words > 4 || (k > 0 && value[k] == '-'))
          return TRUE;
      }
  return FALSE;
}

/* Masks the dequoted bytes [ds, de) of @w, a value bash reads as a word's
 * part from @ws: where the scan goes on, or @i when it is not masked (or
 * the dequoted bytes from @written_from on are written as they read, the
 * word starting as written or after one quote: the patterns'; G_MAXSIZE:
 * never). */
static gsize
mask_value (Redactor          *r,
            const PdShellWord *w,
            gsize              i,
            gsize              ws,
            gsize              ds,
            gsize              de,
            gsize              written_from)
{
  if (de <= ds || !_pd_shell_word_value_hides_nothing (w->d->str + ds, de - ds) || reads_as_words (w->d->str + ds, de - ds))
    return i;
  /* the patterns read a value as written, bare or after one quote; not
   * after $' or '' ("curl -u $'bob:SECRET" was left to them, stored in
   * clear; tried as an attacker would) */
  if (written_from != G_MAXSIZE && w->from[written_from] <= ws + 1
      && (w->from[written_from] == ws || strchr ("'\"", r->text[ws]) != NULL)
      && _pd_shell_word_as_written (w, written_from, de))
    return i;
  if (r->states == NULL)
    r->states = _pd_redact_reading_states (r->text, r->len, r->depths);
  if (!_pd_redact_reading_unquoted (r->states, ws))
    return i;
  if (!_pd_redact_mask_dequoted (r, w, ds, de))
    return i;
  return MAX (r->copied, MAX (w->end, i + 1));
}

/* Reads the word at @vs (at @depth) if it has a quote, a backslash or a $
 * in it, a plain $NAME or ${NAME} in it as one byte of its own; FALSE
 * (nothing read) when it has none or the reading is unsure. */
static gboolean
read_quoted_word (Redactor    *r,
                  PdShellWord *w,
                  gsize        vs,
                  guint        depth)
{
  gsize end;

  if (vs >= r->len || !_pd_shell_word_has_quotes (r, vs, depth, &end))
    return FALSE;
  _pd_shell_word_read_variables (w, r->text, r->len, vs, depth == 1);
  r->line.bytes_read += w->end - vs;
  if (w->stop != PD_SHELL_WORD_END || !w->quoted)
    {
      _pd_shell_word_clear (w);
      return FALSE;
    }
  return TRUE;
}

gsize
_pd_redact_user_word_at (Redactor *r,
                         gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k = i + 1, vs, colon, next;
  PdShellWord w;

  if (depth > 1)
    return i;
  /* the option: -[flags]u, -U, --user, --proxy-user; then blanks, '='
   * or the value glued */
  if (strncmp (t + i, "--user", 6) == 0)
    k = i + 6;
  else if (strncmp (t + i, "--proxy-user", 12) == 0)
    k = i + 12;
  else
    {
      while (k < r->len && k - i < 17 && strchr (CURL_FLAGS, t[k]) != NULL)
        k++;
      if (k >= r->len || (t[k] != 'u' && t[k] != 'U'))
        return i;
      k++;
    }
  if (k < r->len && t[k] == '=')
    vs = k + 1;
  else if (k < r->len && (t[k] == ' ' || t[k] == '\t'))
    {
      for (vs = k; vs < r->len && (t[vs] == ' ' || t[vs] == '\t'); vs++)
        ;
    }
  else if (t[i + 1] == '-')
    return i;
  else
    vs = k;  /* -uuser:… */
  if (!read_quoted_word (r, &w, vs, depth))
    return i;
  next = i;
  colon = 0;
  while (colon < w.d->len && w.d->str[colon] != ':')
    colon++;
  /* user:password, not a URL (redis-cli -u redis://…: the URL's rule) */
  /* a user named by a variable ("$USER":SECRET, "${USER}":… were stored
   * in clear; tried as an attacker would) is a user; a password that
   * expands one is none written here */
  if (colon < w.d->len && !(w.d->len > colon + 2 && w.d->str[colon + 1] == '/' && w.d->str[colon + 2] == '/')
      && memchr (w.d->str + colon, PD_SHELL_WORD_VARIABLE_BYTE, w.d->len - colon) == NULL)
    next = mask_value (r, &w, i, vs, colon + 1, w.d->len, 0);
  _pd_shell_word_clear (&w);
  return next;
}

gsize
_pd_redact_httpie_auth_at (Redactor *r,
                           gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k, vs, colon, next = i;
  PdShellWord w;

  if (depth > 1)
    return i;
  /* -a, then blanks, '=' or the value glued; --auth then blanks or '='
   * (--auth-type is another option) */
  if (strncmp (t + i, "--auth", 6) == 0)
    {
      k = i + 6;
      if (k >= r->len || (t[k] != ' ' && t[k] != '\t' && t[k] != '='))
        return i;
    }
  else
    k = i + 2;
  if (k < r->len && t[k] == '=')
    vs = k + 1;
  else
    for (vs = k; vs < r->len && (t[vs] == ' ' || t[vs] == '\t'); vs++)
      ;
  if (vs >= r->len)
    return i;
  _pd_shell_word_read_variables (&w, t, r->len, vs, depth == 1);
  r->line.bytes_read += w.end - vs;
  if (w.stop == PD_SHELL_WORD_END)
    {
      for (colon = 0; colon < w.d->len && w.d->str[colon] != ':'; colon++)
        ;
      if (colon < w.d->len && !(w.d->len > colon + 2 && w.d->str[colon + 1] == '/' && w.d->str[colon + 2] == '/')
          && memchr (w.d->str + colon, PD_SHELL_WORD_VARIABLE_BYTE, w.d->len - colon) == NULL)
        next = mask_value (r, &w, i, vs, colon + 1, w.d->len, G_MAXSIZE);
    }
  _pd_shell_word_clear (&w);
  return next;
}

/* NAME=value or --name=value in @w, read from @ws: the value masked when
 * the name rule says it is a secret's; a name written as it reads only
 * when @written_name (else the patterns read it).  Where the scan goes
 * on, @i when nothing was masked. */
static gsize
assignment (Redactor          *r,
            const PdShellWord *w,
            gsize              i,
            gsize              ws,
            gboolean           written_name)
{
  const GString *d = w->d;
  gsize eq, ns;
  g_autofree char *name = NULL;
  g_autofree char *value = NULL;

  for (ns = 0; ns < 2 && ns < d->len && d->str[ns] == '-'; ns++)
    ;
  for (eq = ns; eq < d->len && eq - ns < 64 && (g_ascii_isalnum (d->str[eq]) || strchr ("_-.", d->str[eq]) != NULL); eq++)
    ;
  if (eq == ns || eq >= d->len || d->str[eq] != '=' || !g_ascii_isalpha (d->str[ns])
      || (!written_name && _pd_shell_word_as_written (w, 0, eq + 1)))
    return i;
  name = g_strndup (d->str + ns, eq - ns);
  value = g_strndup (d->str + eq + 1, d->len - eq - 1);
  /* read to its end (the JSON string's word), every $ left in it is
   * text (S3cret\\$\\(id\\)Zq9 is S3cret$(id)Zq9 to bash, no command;
   * judged as one, Zq9 was kept) */
  if (written_name)
    g_strdelimit (value, "$", '_');
  if (!_pd_redact_name_is_secret (name) || !_pd_redact_value_is_secret (value, TRUE)
      || _pd_redact_value_is_pass_count (name, value))
    return i;
  return mask_value (r, w, i, ws, eq + 1, d->len, G_MAXSIZE);
}

gsize
_pd_redact_assignment_word (Redactor          *r,
                            const PdShellWord *w,
                            gsize              i,
                            gsize              ws)
{
  /* the name of quoted parts (written as it reads, the patterns read it) */
  return assignment (r, w, i, ws, FALSE);
}

gsize
_pd_redact_json_assignment_at (Redactor *r,
                               gsize     start,
                               gsize     name_end)
{
  const char *t = r->text;
  gsize next = start, eq;
  PdShellWord w;

  if (_pd_redact_depth_at (r->depths, start) != 1 || name_end >= r->len || t[name_end] != '='
      || !_pd_shell_word_starts_at (r, start, 1))
    return start;
  _pd_shell_word_read (&w, t, r->len, start, TRUE);
  r->line.bytes_read += w.end - start;
  eq = name_end - start;
  /* a value written as it reads is the patterns' */
  if (w.stop == PD_SHELL_WORD_END && eq < w.d->len && w.d->str[eq] == '=' && _pd_shell_word_as_written (&w, 0, eq + 1)
      && !_pd_shell_word_as_written (&w, eq + 1, w.d->len))
    next = assignment (r, &w, start, start, TRUE);
  _pd_shell_word_clear (&w);
  return next;
}

gsize
_pd_redact_dollar_quote_value_at (Redactor *r,
                                  gsize     start,
                                  gsize     name_end)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, start);
  gsize ws = name_end, next = start;
  PdShellWord w;

  if (depth > 1)
    return start;
  if (ws < r->len && t[ws] == '=')
    ws++;
  else
    while (ws < r->len && (t[ws] == ' ' || t[ws] == '\t'))
      ws++;
  /* the value's word opens a double quote ("…, or \"… in a JSON string) */
  if (ws + 3 >= r->len || !(t[ws] == '"' || (depth == 1 && t[ws] == '\\' && t[ws + 1] == '"')))
    return start;
  _pd_shell_word_read (&w, t, r->len, ws, depth == 1);
  r->line.bytes_read += w.end - ws;
  if (w.stop == PD_SHELL_WORD_END && w.d->len > 2 && w.d->str[0] == '$' && w.d->str[1] == '\''
      && _pd_redact_value_is_secret (w.d->str, TRUE))
    next = mask_value (r, &w, start, ws, 0, w.d->len, G_MAXSIZE);
  _pd_shell_word_clear (&w);
  return next;
}

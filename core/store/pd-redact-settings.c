/* pd-redact-settings.c: secrets set by the name of a setting, where no
 * NAME=value spelling of the name rule says so (tried as an attacker
 * would: each was stored as written):
 *  - a YAML block value, password: | or password: >- and the lines
 *    indented under it, each of one word; password: and a scalar on the
 *    lines under it (plain or "quoted");
 *  - .NET's configuration, <add key="Password" value="X"/> (key= or name=
 *    a secret's name, the name rule's), its attributes in any order;
 *  - SQL: IDENTIFIED BY X (CREATE USER, ALTER USER, Oracle's, MySQL's
 *    IDENTIFIED WITH plugin BY 'X'), PASSWORD 'X' (PostgreSQL's WITH
 *    PASSWORD 'X'), SET PASSWORD … = 'X' or = PASSWORD('X');
 *  - nmcli's settings: password X, wifi-sec.psk X, 802-1x.password X;
 *  - npm config set (pnpm's, yarn's) KEY VALUE, KEY a secret's name
 *    (//registry.npmjs.org/:_authToken).
 * And a value the name rule found that is none: a NAME=value inside the
 * quoted program of sed or awk (s/^API_TOKEN=//p) is code.  Each value
 * goes through _pd_redact_span(), and so through the rules and the last
 * guard every value does.  What is read is bounded (a line, 256 bytes of
 * words, 64 block lines of 256 bytes): linear.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

#define READ_MAX 256
#define BLOCK_LINES_MAX 64

static inline gboolean
starts_with_ci (const char *text,
                const char *word)
{
  for (; *word; text++, word++)
    if (_pd_redact_lower (*text) != *word)
      return FALSE;
  return TRUE;
}

/* The length of a line break at @k (in a JSON string, @depth > 0, its
 * escapes \n and \r\n too), or 0. */
static gsize
line_break_len (Redactor *r,
                gsize     k,
                guint     depth)
{
  const char *t = r->text;

  if (k >= r->len)
    return 0;
  if (t[k] == '\n')
    return 1;
  if (t[k] == '\r' && k + 1 < r->len && t[k + 1] == '\n')
    return 2;
  if (depth > 0 && t[k] == '\\' && k + 1 < r->len && t[k + 1] == 'n')
    return 2;
  if (depth > 0 && k + 3 < r->len && memcmp (t + k, "\\r\\n", 4) == 0)
    return 4;
  return 0;
}

/* Whether @k ends the line, the text, or the JSON string @depth. */
static gboolean
line_ends_at (Redactor *r,
              gsize     k,
              guint     depth)
{
  return k >= r->len || line_break_len (r, k, depth) > 0 || _pd_redact_depth_at (r->depths, k) != depth
         || r->text[k] == '\r';
}

/* Masks [vs, ve) when it holds a secret. */
static void
mask_value (Redactor *r,
            gsize     vs,
            gsize     ve)
{
  if (ve > vs && ve > r->copied && vs >= r->copied && _pd_redact_found_value_is_secret (r, vs, ve))
    _pd_redact_span (r, vs, ve);
}

/* The length of a quote at @k: ' or ", or \" in a JSON string; 0 when
 * none.  *@q is the quote's character. */
static gsize
quote_at (Redactor *r,
          gsize     k,
          char     *q)
{
  const char *t = r->text;

  if (k >= r->len)
    return 0;
  if (t[k] == '\'' || t[k] == '"')
    {
      *q = t[k];
      return 1;
    }
  if (t[k] == '\\' && k + 1 < r->len && t[k + 1] == '"' && _pd_redact_depth_at (r->depths, k) > 0)
    {
      *q = '"';
      return 2;
    }
  return 0;
}

/* A quoted literal at @k ('X', "X", \"X\" in a JSON string) on one line:
 * its text in [*vs, *ve), and where it ends after its closing quote; 0
 * when none is there. */
static gsize
quoted_literal (Redactor *r,
                gsize     k,
                gsize    *vs,
                gsize    *ve)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, k);
  gsize open;
  char q = 0;

  if ((open = quote_at (r, k, &q)) == 0)
    return 0;
  /* No quote of the other kind, $, backslash or backtick inside: a
   * literal, not a word the shell joins ('…'"$x"'…') */
  for (gsize e = k + open; e < r->len && e - k < READ_MAX && !line_ends_at (r, e, depth); e++)
    {
      if (t[e] == q && open == 1)
        {
          *vs = k + open;
          *ve = e;
          return *ve > *vs ? e + 1 : 0;
        }
      if (open == 2 && t[e] == '\\' && e + 1 < r->len && t[e + 1] == '"')
        {
          *vs = k + open;
          *ve = e;
          return *ve > *vs ? e + 2 : 0;
        }
      if (strchr ("'\"$`\\", t[e]) != NULL)
        return 0;
    }
  return 0;
}

/* A dollar-quoted SQL string at @k, $$X$$ or $tag$X$tag$ (PostgreSQL's),
 * on one line, no $, quote, backslash or backtick inside: its text in
 * [*vs, *ve), and where it ends; 0 when none is there.  bash reads
 * $$X$$ as its pid and the text X, so X masked hides nothing; of
 * $tag$X$tag$ it expands $X, a variable's name, so X is masked only where
 * bash reads it in '…' (psql -c '…$pw$X$pw$'), as text. */
static gsize
dollar_quoted (Redactor *r,
               gsize     k,
               gsize    *vs,
               gsize    *ve)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, k);
  gsize tag = k + 1, e;

  if (k >= r->len || t[k] != '$')
    return 0;
  while (tag < r->len && tag - k < 32 && (g_ascii_isalpha (t[tag]) || t[tag] == '_'
                                          || (tag > k + 1 && g_ascii_isdigit (t[tag]))))
    tag++;
  if (tag >= r->len || t[tag] != '$')
    return 0;
  tag++;  /* the tag is [k, tag) */
  for (e = tag; e < r->len && e - tag < READ_MAX && !line_ends_at (r, e, depth); e++)
    {
      if (t[e] == '$')
        {
          if (e + (tag - k) > r->len || memcmp (t + e, t + k, tag - k) != 0 || e == tag)
            return 0;
          if (tag - k > 2)
            {
              if (r->states == NULL)
                r->states = _pd_redact_reading_states (t, r->len, r->depths);
              if (!_pd_redact_reading_single_quoted (r->states, k))
                return 0;
            }
          *vs = tag;
          *ve = e;
          return e + (tag - k);
        }
      if (strchr ("'\"\\`", t[e]) != NULL)
        return 0;
    }
  return 0;
}

/* A SQL string at @k after PASSWORD: 'X', "X", PostgreSQL's E'X' (no
 * backslash in it: its escapes are SQL's) and dollar-quoted $$X$$,
 * $tag$X$tag$ (dollar_quoted()).  Its text in [*vs, *ve), and where it
 * ends; 0 when none is there. */
static gsize
sql_string (Redactor *r,
            gsize     k,
            gsize    *vs,
            gsize    *ve)
{
  gsize after;

  if ((after = quoted_literal (r, k, vs, ve)) > 0)
    return after;
  if (k + 1 < r->len && (r->text[k] == 'E' || r->text[k] == 'e') && r->text[k + 1] == '\'')
    return quoted_literal (r, k + 1, vs, ve);
  return dollar_quoted (r, k, vs, ve);
}

/* An unquoted SQL value at @k, to a blank, ; , ) or the line's end. */
static gsize
bare_literal (Redactor *r,
              gsize     k)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, k);
  gsize e = k;

  while (e < r->len && e - k < READ_MAX && !line_ends_at (r, e, depth) && !g_ascii_isspace (t[e])
         && strchr (";,)'\"\\`$(", t[e]) == NULL)
    e++;
  return e;
}

static gsize
skip_blanks (Redactor *r,
             gsize     k)
{
  while (k < r->len && (r->text[k] == ' ' || r->text[k] == '\t'))
    k++;
  return k;
}

/* The SQL value at @k, quoted or bare: masked.  Where the scan goes on,
 * or @k when none is there. */
static gsize
sql_value (Redactor *r,
           gsize     k)
{
  gsize vs, ve, end;

  if ((end = quoted_literal (r, k, &vs, &ve)) > 0)
    {
      mask_value (r, vs, ve);
      return MAX (end, r->copied);
    }
  if (quote_at (r, k, &(char){ 0 }) > 0)
    return k;
  ve = bare_literal (r, k);
  mask_value (r, k, ve);
  return MAX (ve, r->copied);
}

/* A SQL word (letters, digits, _) at @k: its end, or @k. */
static gsize
sql_word (Redactor *r,
          gsize     k)
{
  gsize e = k;

  while (e < r->len && e - k < 64 && (g_ascii_isalnum (r->text[e]) || r->text[e] == '_'))
    e++;
  return e;
}

/* Whether [from, to) holds a word that names a user, a role or a login,
 * or grants, a blank or a line break after it. */
static gboolean
account_word_in (Redactor *r,
                 gsize     from,
                 gsize     to)
{
  static const char * const words[] = { "user", "role", "login", "grant", NULL };
  const char *t = r->text;

  for (gsize k = from; k + 5 <= to; k++)
    for (guint w = 0; words[w] != NULL; w++)
      {
        gsize n = strlen (words[w]);

        if ((k == from || !g_ascii_isalnum (t[k - 1])) && starts_with_ci (t + k, words[w])
            && strchr (" \t\r\n", t[k + n]) != NULL)
          return TRUE;
      }
  return FALSE;
}

/* Whether the statement before @i (at most 128 bytes back, to a ';' or
 * an empty line) names a user, a role or a login, or grants: SQL's
 * IDENTIFIED, not prose's "the bug identified by the review".  On the
 * line of @i the word is enough; a statement of more lines (CREATE USER u
 * then IDENTIFIED BY 'X' on the next) starts with CREATE, ALTER or GRANT
 * at its first line's start. */
/* The length of the line break that ends right before @k, in a JSON
 * string of @depth its \n too (1 or 2), or 0. */
static gsize
break_before (Redactor *r,
              gsize     k,
              guint     depth)
{
  const char *t = r->text;

  if (k >= 1 && t[k - 1] == '\n')
    return 1;
  return depth > 0 && k >= 2 && t[k - 1] == 'n' && t[k - 2] == '\\' ? 2 : 0;
}

/* Whether @k starts the text or the JSON string of @depth it is in. */
static gboolean
text_starts_at (Redactor *r,
                gsize     k,
                guint     depth)
{
  return k == 0 || _pd_redact_depth_at (r->depths, k - 1) != depth
         || (r->depths != NULL && (r->depths[k - 1] & JSON_OPENS));
}

static gboolean
names_account (Redactor *r,
               gsize     i)
{
  static const char * const starts[] = { "create ", "alter ", "grant ", NULL };
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize line = i, stmt, b, n;

  while (!text_starts_at (r, line, depth) && i - line < 128 && t[line - 1] != ';' && break_before (r, line, depth) == 0)
    line--;
  if (account_word_in (r, line, i))
    return TRUE;
  /* The lines before, each of more than blanks, back to the statement's
   * start. */
  for (stmt = line; (n = break_before (r, stmt, depth)) > 0 && i - stmt < 128; stmt = b)
    {
      gsize e = stmt - n, k;

      for (b = e; !text_starts_at (r, b, depth) && i - b < 128 && t[b - 1] != ';' && break_before (r, b, depth) == 0; b--)
        ;
      for (k = b; k < e && (t[k] == ' ' || t[k] == '\t' || t[k] == '\r'); k++)
        ;
      if (k == e || i - b >= 128)
        break;  /* an empty line: the statement starts after it */
      stmt = b;
    }
  if (stmt == line)
    return FALSE;
  for (b = stmt; b < i && (t[b] == ' ' || t[b] == '\t'); b++)
    ;
  for (guint w = 0; starts[w] != NULL; w++)
    if (b + strlen (starts[w]) <= i && starts_with_ci (t + b, starts[w]))
      return account_word_in (r, stmt, i);
  return FALSE;
}

/* The blanks and line breaks at @k of a SQL statement of more lines (a
 * JSON string's \n too), at most 64 bytes: where they end. */
static gsize
skip_sql_space (Redactor *r,
                gsize     k)
{
  guint depth = _pd_redact_depth_at (r->depths, k);
  gsize from = k, n;

  while (k < r->len && k - from < 64)
    {
      if (r->text[k] == ' ' || r->text[k] == '\t')
        k++;
      else if ((n = line_break_len (r, k, depth)) > 0)
        k += n;
      else
        break;
    }
  return k;
}

/* Whether the SQL word at @k is @word (lower case), blanks or a line
 * break after it: where they end, or 0. */
static gsize
sql_keyword (Redactor   *r,
             gsize       k,
             const char *word)
{
  gsize n = strlen (word), e;

  if (k + n >= r->len || !starts_with_ci (r->text + k, word))
    return 0;
  e = skip_sql_space (r, k + n);
  return e > k + n ? e : 0;
}

gsize
_pd_redact_identified_at (Redactor *r,
                          gsize     i)
{
  gsize k, e;

  if ((k = sql_keyword (r, i, "identified")) == 0 || !names_account (r, i))
    return i;
  /* IDENTIFIED WITH plugin [BY | AS] 'X' (MySQL's) */
  if ((e = sql_keyword (r, k, "with")) > 0)
    {
      k = e;
      if ((e = sql_word (r, k)) == k)
        return i;
      k = skip_sql_space (r, e);
      if (k == e)
        return i;
    }
  if ((e = sql_keyword (r, k, "by")) == 0 && (e = sql_keyword (r, k, "as")) == 0)
    return i;
  k = e;
  /* IDENTIFIED BY PASSWORD 'hash' (MySQL's), BY VALUES 'hash' (Oracle's);
   * BY RANDOM PASSWORD holds none */
  if ((e = sql_keyword (r, k, "password")) > 0 || (e = sql_keyword (r, k, "values")) > 0)
    k = e;
  else if (sql_keyword (r, k, "random") > 0)
    return k + 6;
  r->name_start = i;
  return sql_value (r, k);
}

/* PASSWORD at [start, end) (the name rule's): PASSWORD 'X' (PostgreSQL's
 * WITH PASSWORD 'X', nmcli's password "X"), and SET PASSWORD … = 'X',
 * = PASSWORD('X').  Where the scan goes on, or 0 when neither is there. */
gsize
_pd_redact_password_literal (Redactor *r,
                             gsize     start,
                             gsize     end)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, start);
  gsize k = skip_blanks (r, end), vs, ve, after;

  if (end - start != 8 || !starts_with_ci (t + start, "password"))
    return 0;
  if (k > end && (after = sql_string (r, k, &vs, &ve)) > 0)
    {
      mask_value (r, vs, ve);
      return MAX (after, r->copied);
    }
  if (!(start >= 4 && starts_with_ci (t + start - 4, "set ")))
    return 0;
  /* SET PASSWORD [FOR user] = …: the '=' on the line */
  for (; k < r->len && k - end < 128 && !line_ends_at (r, k, depth) && t[k] != ';' && t[k] != '='; k++)
    ;
  if (k >= r->len || t[k] != '=')
    return 0;
  k = skip_blanks (r, k + 1);
  if (starts_with_ci (t + k, "password(") || starts_with_ci (t + k, "old_password("))
    k = skip_blanks (r, (gsize) (strchr (t + k, '(') - t) + 1);
  r->name_start = start;
  after = sql_value (r, k);
  return after > k ? after : 0;
}

/* Whether the column of the line @k is on, counted to @k: the indent of
 * a YAML key ("- " of a list item counted).  G_MAXSIZE when more than
 * the key's blanks and dashes come before it. */
static gsize
yaml_column (Redactor *r,
             gsize     k,
             guint     depth)
{
  const char *t = r->text;
  gsize ls = k;

  while (ls > 0 && k - ls < READ_MAX && (t[ls - 1] == ' ' || t[ls - 1] == '-'))
    ls--;
  if (ls > 0 && !(t[ls - 1] == '\n' || (depth > 0 && ls >= 2 && t[ls - 1] == 'n' && t[ls - 2] == '\\')
                  || ((r->depths != NULL) && (r->depths[ls - 1] & JSON_OPENS))))
    return G_MAXSIZE;
  return k - ls;
}

/* Whether the word [ws, we), a line of its own under a YAML key, reads
 * as a command's name, which bash running the text runs: lower case
 * letters, digits and . / _ + - (reboot, ./pwn, python3).  It stays in
 * sight: password: | then reboot was stored as password: | then
 * [REDACTED], hiding the program the pipe runs (tried as an attacker
 * would).  The cost: a password of those characters only (hunter2)
 * under its key is stored as written. */
static gboolean
names_command (Redactor *r,
               gsize     ws,
               gsize     we)
{
  const char *t = r->text;

  for (gsize k = ws; k < we; k++)
    if (!(g_ascii_islower (t[k]) || g_ascii_isdigit (t[k]) || strchr ("./_+-", t[k]) != NULL))
      return FALSE;
  return we > ws && !g_ascii_isdigit (t[ws]);
}

/* Whether the line [cs, ce) under a YAML key is a plain scalar's (or a
 * quoted one's, "X" or 'X', its text then in [*vs, *ve)): not a mapping
 * (a ": " in it or a ':' at its end), a sequence (- ), a comment, an
 * anchor, an alias, a tag, a block or a flow collection. */
static gboolean
plain_scalar_line (Redactor *r,
                   gsize     cs,
                   gsize     ce,
                   gsize    *vs,
                   gsize    *ve)
{
  const char *t = r->text;
  gsize open;
  char q = 0;

  if (ce <= cs || strchr ("#&*!|>{[%@`?", t[cs]) != NULL
      || (t[cs] == '-' && (cs + 1 == ce || t[cs + 1] == ' ' || t[cs + 1] == '\t')) || t[ce - 1] == ':')
    return FALSE;
  for (gsize k = cs; k + 1 < ce; k++)
    if (t[k] == ':' && (t[k + 1] == ' ' || t[k + 1] == '\t'))
      return FALSE;
  *vs = cs;
  *ve = ce;
  if ((open = quote_at (r, cs, &q)) > 0)
    {
      /* quoted whole: the text inside its quotes */
      if (ce - cs < 2 * open + 1 || t[ce - 1] != q || (open == 2 && t[ce - 2] != '\\'))
        return FALSE;
      *vs = cs + open;
      *ve = ce - open;
    }
  return TRUE;
}

/* A YAML block value at @end, after the name [start, end): ": |" or
 * ": >" (a chomping or indent sign after it), then the line's end; the
 * lines indented deeper than the key under it are its text, each masked
 * as a value of its own.  Where the scan goes on, or 0 when no block
 * starts there. */
gsize
_pd_redact_yaml_block (Redactor *r,
                       gsize     start,
                       gsize     end)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, start);
  gsize k = end, column, brk, last = 0, open;
  gboolean plain;
  char q = 0;

  if (k >= r->len || t[k] != ':')
    return 0;
  k = skip_blanks (r, k + 1);
  /* NAME: and the line's end: a plain (or quoted) scalar on the lines
   * under it, password:\n  X */
  plain = line_break_len (r, k, depth) > 0;
  if (!plain && (k == end + 1 || k >= r->len || (t[k] != '|' && t[k] != '>')))
    return 0;
  for (k += plain ? 0 : 1; k < r->len && (t[k] == '-' || t[k] == '+' || g_ascii_isdigit (t[k])) && k - end < 6; k++)
    ;
  k = skip_blanks (r, k);
  if ((brk = line_break_len (r, k, depth)) == 0 || _pd_redact_depth_at (r->depths, k) != depth)
    return 0;
  if ((column = yaml_column (r, start, depth)) == G_MAXSIZE)
    return 0;
  k += brk;
  r->name_start = start;
  for (guint n = 0; n < BLOCK_LINES_MAX && k < r->len && _pd_redact_depth_at (r->depths, k) == depth; n++)
    {
      gsize cs = skip_blanks (r, k), ce;

      if ((brk = line_break_len (r, cs, depth)) > 0)
        {
          k = cs + brk;  /* an empty line of the block */
          continue;
        }
      if (cs - k <= column || line_ends_at (r, cs, depth))
        break;
      /* "X" read as a JSON string of its own (a quote after a ':'): its
       * text, no escape in it, the line's end after it */
      if (plain && (open = quote_at (r, cs, &q)) > 0 && q == '"' && cs + open < r->len
          && _pd_redact_depth_at (r->depths, cs + open) == depth + 1)
        {
          gsize vs = cs + open;

          for (ce = vs; ce < r->len && ce - vs < READ_MAX && t[ce] != '"' && t[ce] != '\\'
                        && _pd_redact_depth_at (r->depths, ce) == depth + 1; ce++)
            ;
          if (ce >= r->len || quote_at (r, ce, &q) != open || q != '"' || ce == vs)
            break;
          last = skip_blanks (r, ce + open);
          if (!line_ends_at (r, last, depth))
            break;
          if (!names_command (r, vs, ce))
            mask_value (r, vs, ce);
          if ((brk = line_break_len (r, last, depth)) == 0)
            break;
          k = last + brk;
          continue;
        }
      for (ce = cs; !line_ends_at (r, ce, depth) && ce - cs < READ_MAX; ce++)
        ;
      if (!line_ends_at (r, ce, depth))
        break;
      last = ce;
      while (ce > cs && (t[ce - 1] == ' ' || t[ce - 1] == '\t'))
        ce--;
      /* A plain scalar's line is none of a mapping, a sequence, a
       * comment, an anchor, an alias, a tag or a flow collection: the key
       * holds no scalar then (password:\n  file: /run/pw). */
      if (plain && !plain_scalar_line (r, cs, ce, &cs, &ce))
        break;
      /* One word: a key's, a token's or a base64 line.  A line of words
       * stays in sight: bash running the text runs it (password: | pipes
       * into it), and `touch pwned` read as a secret hid a command. */
      if (memchr (t + cs, ' ', ce - cs) == NULL && memchr (t + cs, '\t', ce - cs) == NULL
          && !names_command (r, cs, ce))
        mask_value (r, cs, ce);
      if ((brk = line_break_len (r, last, depth)) == 0)
        break;
      k = last + brk;
    }
  return last > 0 ? MAX (last, r->copied) : k;
}

/* .NET's <add key="NAME" value="X"/>: NAME at [start, end) in quotes
 * after key= or name=, a secret's name; the value after it masked.
 * Where the scan goes on, or 0 when it is no such element. */
gsize
_pd_redact_add_value (Redactor *r,
                      gsize     start,
                      gsize     end)
{
  const char *t = r->text;
  gsize open, close, k, vs, ve, after;
  char q = 0, q2 = 0;

  if (start == 0)
    return 0;
  open = start - 1;
  if (t[open] != '"' && t[open] != '\'')
    return 0;
  if (open > 0 && t[open - 1] == '\\')
    open--;
  if (quote_at (r, open, &q) == 0 || (close = quote_at (r, end, &q2)) == 0 || q != q2)
    return 0;
  if (!((open >= 4 && starts_with_ci (t + open - 4, "key=")) || (open >= 5 && starts_with_ci (t + open - 5, "name="))))
    return 0;
  k = skip_blanks (r, end + close);
  if (k == end + close || !starts_with_ci (t + k, "value="))
    return 0;
  if ((after = quoted_literal (r, k + 6, &vs, &ve)) == 0)
    return 0;
  r->name_start = start;
  mask_value (r, vs, ve);
  return MAX (after, r->copied);
}

gsize
_pd_redact_add_element (Redactor *r,
                        gsize     i)
{
  const char *t = r->text;
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize k = i + 4, ns, ne, vs, ve, after;
  gsize key_s = 0, key_e = 0, val_s = 0, val_e = 0, end = 0;
  g_autofree char *key = NULL;

  /* <add ATTR="V" …/>: its attributes on one line, each quoted ("…",
   * '…', \"…\" in a JSON string), to its > */
  while (k < limit)
    {
      k = skip_blanks (r, k);
      if (k < limit && (t[k] == '>' || (t[k] == '/' && k + 1 < limit && t[k + 1] == '>')))
        {
          end = k + (t[k] == '>' ? 1 : 2);
          break;
        }
      for (ns = k; k < limit && (g_ascii_isalnum (t[k]) || t[k] == '_' || t[k] == '-' || t[k] == ':'); k++)
        ;
      if ((ne = k) == ns || k >= limit || t[k] != '=')
        return i;
      if ((after = quoted_literal (r, k + 1, &vs, &ve)) == 0)
        return i;
      if ((ne - ns == 3 && starts_with_ci (t + ns, "key")) || (ne - ns == 4 && starts_with_ci (t + ns, "name")))
        key_s = vs, key_e = ve;
      else if (ne - ns == 5 && starts_with_ci (t + ns, "value"))
        val_s = vs, val_e = ve;
      k = after;
    }
  if (end == 0 || key_e == 0 || val_e == 0)
    return i;
  key = g_strndup (t + key_s, key_e - key_s);
  if (!(g_ascii_isalpha (key[0]) || key[0] == '_') || !_pd_redact_name_is_secret (key))
    return i;
  r->name_start = key_s;
  mask_value (r, val_s, val_e);
  return MAX (end, r->copied);
}

/* Whether the setting name of nmcli's word [ws, we) is a secret's:
 * password (dev wifi connect … password X), or a property whose last
 * part is psk, password, a wep-keyN, pin, or a name the name rule says
 * is a secret's (802-1x.password, vpn.secrets…); not its -flags. */
static gboolean
nmcli_secret_setting (Redactor *r,
                      gsize     ws,
                      gsize     we)
{
  g_autofree char *word = g_ascii_strdown (r->text + ws, (gssize) (we - ws));
  const char *last = strrchr (word, '.');

  last = last ? last + 1 : word + strspn (word, "+-");
  if (g_str_has_suffix (last, "-flags") || g_str_has_suffix (last, "-type"))
    return FALSE;
  return strcmp (last, "psk") == 0 || strcmp (last, "pin") == 0 || g_str_has_prefix (last, "wep-key")
         || strcmp (last, "password") == 0 || _pd_redact_name_is_secret (last);
}

gsize
_pd_redact_nmcli_at (Redactor *r,
                     gsize     i)
{
  gsize limit = MIN (r->len, i + 4 * READ_MAX);
  gsize p = i + 5, ws, we, end = i;
  gboolean secret = FALSE;

  /* The words an nmcli before it read are not read again (nmcli nmcli …
   * read each word once per nmcli before it). */
  if (i < r->words_to)
    return i;
  while (_pd_redact_next_word (r, &p, limit, &ws, &we))
    {
      if (secret)
        {
          r->name_start = ws;
          _pd_redact_mask_word (r, ws, we);
          secret = FALSE;
          end = MAX (we, r->copied);  /* the words before it are read no more */
        }
      else
        secret = nmcli_secret_setting (r, ws, we);
    }
  r->words_to = p;
  return end;
}

gsize
_pd_redact_npm_config_at (Redactor *r,
                          gsize     i)
{
  const char *t = r->text;
  gsize limit = MIN (r->len, i + 2 * READ_MAX);
  gsize p = i, ws, we;
  const char *last;
  g_autofree char *key = NULL;

  /* npm [config] set [--options] KEY VALUE */
  if (!_pd_redact_next_word (r, &p, limit, &ws, &we) || !_pd_redact_next_word (r, &p, limit, &ws, &we))
    return i;
  if (we - ws == 6 && strncmp (t + ws, "config", 6) == 0 && !_pd_redact_next_word (r, &p, limit, &ws, &we))
    return i;
  if (!(we - ws == 3 && strncmp (t + ws, "set", 3) == 0))
    return i;
  do
    if (!_pd_redact_next_word (r, &p, limit, &ws, &we))
      return i;
  while (t[ws] == '-');
  if (memchr (t + ws, '=', we - ws) != NULL)
    return i;  /* KEY=VALUE: the name rule's */
  key = g_strndup (t + ws, we - ws);
  _pd_redact_unquote_word (key);
  last = key + strlen (key);
  while (last > key && (g_ascii_isalnum (last[-1]) || last[-1] == '_' || last[-1] == '-'))
    last--;
  last += strspn (last, "_-");
  if (*last == '\0' || !_pd_redact_name_is_secret (last) || !_pd_redact_next_word (r, &p, limit, &ws, &we))
    return i;
  r->name_start = ws;
  _pd_redact_mask_word (r, ws, we);
  return MAX (we, r->copied);
}

gsize
_pd_redact_program_value (Redactor *r,
                          gsize     start,
                          gsize     vs,
                          gsize    *ve)
{
  const char *t = r->text;
  gsize cut = vs, next;

  if ((_pd_redact_password_options_at (&r->line, t, start) & PW_PROGRAM) == 0)
    return 0;
  if (r->states == NULL)
    r->states = _pd_redact_reading_states (t, r->len, r->depths);
  if (_pd_redact_reading_unquoted (r->states, start))
    return 0;
  /* s/^NAME=VALUE/…/: the value ends at the program's delimiter, and the
   * scan goes on there (s/^X=.*\/X=VALUE/ has a name after it) */
  while (cut < *ve && t[cut] != '/')
    cut++;
  next = cut;
  for (gsize k = vs; k < cut; k++)
    if (strchr (".*[]^$\\+?", t[k]) != NULL)
      {
        cut = vs;
        break;
      }
  *ve = cut;
  return MAX (next, vs + 1);
}

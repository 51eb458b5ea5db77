/* pd-markdown.c: model-written markdown shown as plain text with styles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small subset, line by line: ATX headings, fenced code, bullet, numbered
 * and task lists (nesting by indentation or by markers on one line), block
 * quotes, rules, and inline code, strong, emphasis, strike-through and
 * links.  Whatever does not parse stays as written.  Styles are Pango
 * attributes over byte ranges of the output; the output is never parsed as
 * markup by anyone.
 *
 * Every search for a closing marker remembers where it found one (or that
 * there is none): positions only grow, so a line of ten thousand unclosed
 * "**" or "[" costs one scan, not ten thousand.
 */
#define G_LOG_DOMAIN "pd-markdown"

#include "config.h"

#include <string.h>

#include "pd-markdown.h"

typedef struct
{
  GString       *out;
  PangoAttrList *attrs;
} Renderer;

/* Where a needle next occurs in the line, remembered across searches. */
typedef struct
{
  gssize   pos;    /* the last occurrence found, or -1 */
  gboolean none;   /* none from the last search start on */
} Finder;

static gssize
finder_find (Finder     *finder,
             const char *line,
             gsize       len,
             gsize       from,
             const char *needle)
{
  gsize needle_len = strlen (needle);
  const char *found;

  if (finder->none)
    return -1;
  if (finder->pos >= 0 && (gsize) finder->pos >= from)
    return finder->pos;
  if (from + needle_len > len)
    {
      finder->none = TRUE;
      return -1;
    }

  found = g_strstr_len (line + from, len - from, needle);
  if (found == NULL)
    {
      finder->none = TRUE;
      return -1;
    }
  finder->pos = found - line;
  return finder->pos;
}

static void
add_attr (Renderer       *r,
          PangoAttribute *attr,
          gsize           start,
          gsize           end)
{
  if (end <= start)
    {
      pango_attribute_destroy (attr);
      return;
    }
  attr->start_index = start;
  attr->end_index = end;
  pango_attr_list_insert (r->attrs, attr);
}

enum {
  FIND_CODE_1, FIND_CODE_2, FIND_CODE_3,
  FIND_STRONG_STAR, FIND_STRONG_UNDER, FIND_STRONG_EM,
  FIND_EM_STAR, FIND_EM_UNDER,
  FIND_STRIKE,
  FIND_LINK_MID, FIND_LINK_END,
  N_FINDERS
};

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || (guchar) c >= 0x80;
}

/* Inline styles of one line's text. */
static void
render_inline (Renderer   *r,
               const char *s,
               gsize       len)
{
  Finder finders[N_FINDERS];
  gsize i = 0;

  for (guint f = 0; f < N_FINDERS; f++)
    finders[f] = (Finder) { -1, FALSE };

  while (i < len)
    {
      char c = s[i];

      /* A backslash keeps the next punctuation as written. */
      if (c == '\\' && i + 1 < len && g_ascii_ispunct (s[i + 1]))
        {
          g_string_append_c (r->out, s[i + 1]);
          i += 2;
          continue;
        }

      if (c == '`')
        {
          gsize run = 1;

          while (i + run < len && s[i + run] == '`')
            run++;
          if (run <= 3)
            {
              static const char *ticks[] = { "`", "``", "```" };
              gssize close = finder_find (&finders[FIND_CODE_1 + run - 1], s, len, i + run, ticks[run - 1]);

              if (close > (gssize) (i + run))
                {
                  gsize start = r->out->len;

                  g_string_append_len (r->out, s + i + run, close - (i + run));
                  add_attr (r, pango_attr_family_new ("monospace"), start, r->out->len);
                  i = close + run;
                  continue;
                }
            }
          g_string_append_len (r->out, s + i, run);
          i += run;
          continue;
        }

      if (c == '*' || c == '_')
        {
          gsize run = 1;
          gboolean under = c == '_';

          while (i + run < len && s[i + run] == c && run < 3)
            run++;

          /* snake_case_words stay as they are. */
          if (under && i > 0 && is_word_char (s[i - 1]))
            {
              g_string_append_len (r->out, s + i, run);
              i += run;
              continue;
            }

          if (i + run < len && s[i + run] != ' ')
            {
              const char *marker = run >= 3 ? (under ? "___" : "***") : run == 2 ? (under ? "__" : "**") : (under ? "_" : "*");
              guint which = run >= 3 ? FIND_STRONG_EM : run == 2 ? (under ? FIND_STRONG_UNDER : FIND_STRONG_STAR)
                                                                 : (under ? FIND_EM_UNDER : FIND_EM_STAR);
              gssize close = finder_find (&finders[which], s, len, i + run, marker);

              if (close > (gssize) (i + run))
                {
                  gsize start = r->out->len;

                  g_string_append_len (r->out, s + i + run, close - (i + run));
                  if (run >= 2)
                    add_attr (r, pango_attr_weight_new (PANGO_WEIGHT_BOLD), start, r->out->len);
                  if (run != 2)
                    add_attr (r, pango_attr_style_new (PANGO_STYLE_ITALIC), start, r->out->len);
                  i = close + run;
                  continue;
                }
            }
          g_string_append_len (r->out, s + i, run);
          i += run;
          continue;
        }

      if (c == '~' && i + 1 < len && s[i + 1] == '~')
        {
          gssize close = finder_find (&finders[FIND_STRIKE], s, len, i + 2, "~~");

          if (close > (gssize) (i + 2))
            {
              gsize start = r->out->len;

              g_string_append_len (r->out, s + i + 2, close - (i + 2));
              add_attr (r, pango_attr_strikethrough_new (TRUE), start, r->out->len);
              i = close + 2;
              continue;
            }
          g_string_append (r->out, "~~");
          i += 2;
          continue;
        }

      /* [text](url) reads as "text (url)": the address stays visible, and
       * nothing is clickable. */
      if (c == '[')
        {
          gssize mid = finder_find (&finders[FIND_LINK_MID], s, len, i + 1, "](");
          gssize end = mid > 0 ? finder_find (&finders[FIND_LINK_END], s, len, mid + 2, ")") : -1;

          if (mid > (gssize) i + 1 && end > mid + 2 && memchr (s + i + 1, ']', mid - i - 1) == NULL)
            {
              gsize start = r->out->len;
              gsize text_len = mid - i - 1;
              gsize url_len = end - mid - 2;

              g_string_append_len (r->out, s + i + 1, text_len);
              add_attr (r, pango_attr_underline_new (PANGO_UNDERLINE_SINGLE), start, r->out->len);
              if (url_len != text_len || memcmp (s + i + 1, s + mid + 2, text_len) != 0)
                {
                  g_string_append (r->out, " (");
                  g_string_append_len (r->out, s + mid + 2, url_len);
                  g_string_append_c (r->out, ')');
                }
              i = end + 1;
              continue;
            }
        }

      g_string_append_c (r->out, c);
      i++;
    }
}

static gsize
count_leading (const char *s,
               gsize       len,
               char        c)
{
  gsize n = 0;

  while (n < len && s[n] == c)
    n++;
  return n;
}

/* A list marker at @s: "- ", "* ", "+ ", "12. ", "3) ".  Returns its
 * length with the space, 0 when there is none; @number the digits. */
static gsize
list_marker (const char *s,
             gsize       len,
             gsize      *digits)
{
  gsize n = 0;

  *digits = 0;
  if (len >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ')
    return 2;

  while (n < len && n < 9 && g_ascii_isdigit (s[n]))
    n++;
  if (n > 0 && n + 1 < len && (s[n] == '.' || s[n] == ')') && s[n + 1] == ' ')
    {
      *digits = n;
      return n + 2;
    }
  return 0;
}

static gboolean
is_rule (const char *s,
         gsize       len)
{
  char mark = 0;
  guint n = 0;

  for (gsize i = 0; i < len; i++)
    {
      if (s[i] == ' ')
        continue;
      if (s[i] != '-' && s[i] != '*' && s[i] != '_')
        return FALSE;
      if (mark != 0 && s[i] != mark)
        return FALSE;
      mark = s[i];
      n++;
    }
  return n >= 3;
}

static gboolean
is_fence (const char *s,
          gsize       len)
{
  return len >= 3 && (strncmp (s, "```", 3) == 0 || strncmp (s, "~~~", 3) == 0);
}

/**
 * pd_markdown_render:
 * @markdown: (nullable): the text, in any encoding (invalid UTF-8 is replaced)
 * @attrs: (out) (transfer full): the styles of the returned text
 *
 * Returns: (transfer full): the text to show, without markdown markers
 */
char *
pd_markdown_render (const char     *markdown,
                    PangoAttrList **attrs)
{
  g_autofree char *valid = g_utf8_make_valid (markdown ? markdown : "", -1);
  Renderer r = { g_string_new (NULL), pango_attr_list_new () };
  gboolean in_fence = FALSE;
  gboolean pending_blank = FALSE;
  gsize code_start = 0;
  const char *p = valid;

  g_return_val_if_fail (attrs != NULL, NULL);

  while (*p != '\0' || p == valid)
    {
      const char *nl = strchr (p, '\n');
      gsize len = nl ? (gsize) (nl - p) : strlen (p);
      const char *line = p;
      gsize indent;
      const char *text;
      gsize text_len;
      gsize start;

      p = nl ? nl + 1 : p + len;
      if (len > 0 && line[len - 1] == '\r')
        len--;

      indent = count_leading (line, len, ' ');
      text = line + indent;
      text_len = len - indent;

      if (in_fence)
        {
          if (indent <= 3 && is_fence (text, text_len))
            {
              in_fence = FALSE;
              if (r.out->len > code_start && r.out->str[r.out->len - 1] == '\n')
                g_string_truncate (r.out, r.out->len - 1);
              add_attr (&r, pango_attr_family_new ("monospace"), code_start, r.out->len);
            }
          else
            {
              g_string_append_len (r.out, line, len);
              g_string_append_c (r.out, '\n');
            }
          if (nl == NULL)
            break;
          continue;
        }

      /* Blank lines: one at most between blocks, none at the start. */
      if (text_len == 0)
        {
          pending_blank = r.out->len > 0;
          if (nl == NULL)
            break;
          continue;
        }

      if (r.out->len > 0)
        {
          g_string_append_c (r.out, '\n');
          if (pending_blank)
            g_string_append_c (r.out, '\n');
        }
      pending_blank = FALSE;
      start = r.out->len;

      if (indent <= 3 && is_fence (text, text_len))
        {
          in_fence = TRUE;
          code_start = r.out->len;
        }
      else if (text[0] == '#' && count_leading (text, text_len, '#') <= 6 &&
               (count_leading (text, text_len, '#') == text_len || text[count_leading (text, text_len, '#')] == ' '))
        {
          gsize level = count_leading (text, text_len, '#');
          gsize body = level;
          gsize end = text_len;

          while (body < text_len && text[body] == ' ')
            body++;
          /* A closing run of # is not part of the heading. */
          while (end > body && text[end - 1] == '#')
            end--;
          while (end > body && text[end - 1] == ' ')
            end--;
          render_inline (&r, text + body, end - body);
          add_attr (&r, pango_attr_weight_new (PANGO_WEIGHT_BOLD), start, r.out->len);
          if (level <= 2)
            add_attr (&r, pango_attr_scale_new (level == 1 ? 1.3 : 1.15), start, r.out->len);
        }
      else if (text[0] == '>')
        {
          gsize i = 0;

          /* Quotes in quotes read as one quote. */
          while (i < text_len && (text[i] == '>' || text[i] == ' '))
            i++;
          g_string_append (r.out, "▎ ");
          render_inline (&r, text + i, text_len - i);
          add_attr (&r, pango_attr_style_new (PANGO_STYLE_ITALIC), start, r.out->len);
        }
      else if (is_rule (text, text_len))
        {
          g_string_append (r.out, "────────");
          add_attr (&r, pango_attr_foreground_alpha_new (0x8000), start, r.out->len);
        }
      else
        {
          gsize digits;
          gsize marker = list_marker (text, text_len, &digits);

          if (marker > 0)
            {
              gsize depth = indent / 2;
              gsize i = 0;
              const char *number = text;
              gsize number_len = digits;

              /* "- - - item" nests on one line: each marker is a level. */
              for (;;)
                {
                  gsize more_digits;
                  gsize more;

                  i += marker;
                  while (i < text_len && text[i] == ' ')
                    i++;
                  more = list_marker (text + i, text_len - i, &more_digits);
                  if (more == 0)
                    break;
                  depth++;
                  marker = more;
                  number = text + i;
                  number_len = more_digits;
                }

              depth = MIN (depth, PD_MARKDOWN_MAX_DEPTH);
              for (gsize d = 0; d < depth; d++)
                g_string_append (r.out, "    ");
              if (number_len > 0)
                {
                  g_string_append_len (r.out, number, number_len);
                  g_string_append (r.out, ". ");
                }
              else if (text_len - i >= 4 && text[i] == '[' && text[i + 2] == ']' && text[i + 3] == ' ' &&
                       (text[i + 1] == ' ' || text[i + 1] == 'x' || text[i + 1] == 'X'))
                {
                  g_string_append (r.out, text[i + 1] == ' ' ? "☐ " : "☑ ");
                  i += 4;
                }
              else
                g_string_append (r.out, "• ");
              render_inline (&r, text + i, text_len - i);
            }
          else
            render_inline (&r, text, text_len);
        }

      if (nl == NULL)
        break;
    }

  /* An unclosed fence runs to the end, as its author's viewer shows it. */
  if (in_fence)
    {
      if (r.out->len > code_start && r.out->str[r.out->len - 1] == '\n')
        g_string_truncate (r.out, r.out->len - 1);
      add_attr (&r, pango_attr_family_new ("monospace"), code_start, r.out->len);
    }
  while (r.out->len > 0 && r.out->str[r.out->len - 1] == '\n')
    g_string_truncate (r.out, r.out->len - 1);

  *attrs = r.attrs;
  return g_string_free (r.out, FALSE);
}

/**
 * pd_markdown_set_label:
 *
 * Shows @markdown in @label as styled plain text; the label never
 * interprets markup.
 */
void
pd_markdown_set_label (GtkLabel   *label,
                       const char *markdown)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *text = pd_markdown_render (markdown, &attrs);

  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_label_set_use_markup (label, FALSE);
  gtk_label_set_text (label, text);
  gtk_label_set_attributes (label, attrs);
}

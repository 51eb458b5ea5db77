/* pd-approver-terminal.c: `plandeck-agent run`'s approval prompt on a terminal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The call is shown as the window's dialog shows it (pd-approval-preview.c):
 * how many lines it has, then a row to a line with its number and its
 * mark, a long line folded under its text with a ":" beside it and no
 * number.  A line of the call cannot pass for the prompt's own words
 * (`Allow it? [y/N] y`, `(approved)` in a command drew as the prompt's),
 * and a call taller than the terminal is shown a page at a time, the rest
 * counted, never scrolled away unseen (a `curl | sh` on line 151 of 301
 * was off the top of an 80×24 terminal; tried as an attacker would).
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "pd-approver.h"
#include "pd-safe-text.h"

/* A terminal that does not say its size. */
#define DEFAULT_COLUMNS 80
#define DEFAULT_ROWS 24

/* Rows of the call on a page at least, however short the terminal. */
#define MIN_PAGE_ROWS 4

/* Cells of a line's text on a row at least, however narrow. */
#define MIN_TEXT_COLUMNS 16

#define TAB_WIDTH 8

static guint
cell_width (gunichar c)
{
  if (g_unichar_iszerowidth (c) || g_unichar_ismark (c))
    return 0;
  return g_unichar_iswide (c) ? 2 : 1;
}

/* How many rows @text takes on a terminal @columns wide. */
static guint
rows_of (const char *text,
         guint       columns)
{
  guint rows = 0;
  guint col = 0;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      guint w = cell_width (c);

      if (c == '\n')
        {
          rows++;
          col = 0;
          continue;
        }
      if (col + w > columns)
        {
          rows++;
          col = 0;
        }
      col += w;
    }
  return rows + (col > 0 ? 1 : 0);
}

/* Appends @line (one line of the shown call) as rows of at most @columns
 * cells to @rows: the first after its number, the rest after ":". */
static void
fold_line (GPtrArray  *rows,
           GArray     *numbers,
           const char *line,
           guint       number,
           guint       digits,
           guint       columns)
{
  g_autofree char *gutter = g_strdup_printf ("  %*u | ", (int) digits, number);
  g_autofree char *more = g_strdup_printf ("  %*s : ", (int) digits, "");
  guint gutter_width = (guint) strlen (gutter);
  guint text_columns = columns > gutter_width + MIN_TEXT_COLUMNS ? columns - gutter_width : MIN_TEXT_COLUMNS;
  GString *row = g_string_new (gutter);
  guint col = 0;

  for (const char *p = line; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      /* A TAB goes to the terminal's next stop, counted from the edge. */
      guint w = c == '\t' ? TAB_WIDTH - (gutter_width + col) % TAB_WIDTH : cell_width (c);

      if (col > 0 && col + w > text_columns)
        {
          g_ptr_array_add (rows, g_string_free (row, FALSE));
          g_array_append_val (numbers, number);
          row = g_string_new (more);
          col = 0;
          if (c == '\t')
            w = TAB_WIDTH - gutter_width % TAB_WIDTH;
        }
      g_string_append_len (row, p, g_utf8_next_char (p) - p);
      col += w;
    }
  g_ptr_array_add (rows, g_string_free (row, FALSE));
  g_array_append_val (numbers, number);
}

/* The shown call's rows, the line each is of into @numbers, and its
 * number of lines into @n_lines. */
static GPtrArray *
call_rows (const char *shown,
           guint       columns,
           GArray     *numbers,
           guint      *n_lines)
{
  g_autofree char *trimmed = g_str_has_suffix (shown, "\n") ? g_strndup (shown, strlen (shown) - 1)
                                                             : g_strdup (shown);
  g_auto(GStrv) lines = g_strsplit (trimmed, "\n", -1);
  guint n = g_strv_length (lines);
  g_autofree char *last = g_strdup_printf ("%u", MAX (n, 1));
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    fold_line (rows, numbers, lines[i], i + 1, (guint) strlen (last), columns);
  if (n == 0)
    fold_line (rows, numbers, "", 1, 1, columns);
  *n_lines = MAX (n, 1);
  return rows;
}

/**
 * pd_approver_terminal_pages:
 * @tool: the tool's name
 * @summary: (nullable): the call's one-line summary
 * @preview: (nullable): the call's preview, shown when it has one
 * @controls: pd_approver_asked_controls_kinds() (%TRUE: control characters)
 * @columns: the terminal's width, 0 when it is not known
 * @rows: the terminal's height, 0 when it is not known
 *
 * What pd_approver_terminal_func() writes, a page to fit the terminal
 * each: the tool and how many lines the call has, then its lines, each
 * numbered with its mark (a long one folded under its text, ":" beside
 * it).  Every page but the last ends asking Enter for the next, with how
 * many lines are left; the last, the sentence of a call with control
 * characters and y/N.
 *
 * Returns: (transfer full): the pages, %NULL-terminated
 */
char **
pd_approver_terminal_pages (const char *tool,
                            const char *summary,
                            const char *preview,
                            guint       controls,
                            guint       columns,
                            guint       rows)
{
  g_autofree char *name = pd_safe_text_line (tool != NULL ? tool : "");
  g_autofree char *shown = pd_safe_text_approval (preview != NULL && preview[0] != '\0' ? preview
                                                  : summary != NULL ? summary : "");
  g_autoptr(GPtrArray) pages = g_ptr_array_new ();
  g_autoptr(GPtrArray) call = NULL;
  g_autoptr(GArray) numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *heading = NULL;
  g_autofree char *sentence = NULL;
  guint n_lines = 0;
  guint head_rows, tail_rows;
  guint at = 0;

  columns = columns > 0 ? columns : DEFAULT_COLUMNS;
  rows = rows > 0 ? rows : DEFAULT_ROWS;
  call = call_rows (shown, columns, numbers, &n_lines);

  /* Translators: %s is the name of a tool, such as shell; the call's lines
   * follow, numbered */
  heading = g_strdup_printf (_("The agent wants to use the tool “%s”, which can change files or run commands:"),
                             name);
  {
    /* Translators: before the numbered lines of a call put to a person to
     * approve on a terminal */
    g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "(%u line)", "(%u lines)", n_lines),
                                              n_lines);
    char *both = g_strconcat (heading, " ", count, NULL);

    g_free (heading);
    heading = both;
  }
  if (controls != 0)
    sentence = pd_approver_controls_describe (tool, controls);
  /* A blank line and the heading; the sentence and the question. */
  head_rows = 1 + rows_of (heading, columns);
  tail_rows = (sentence != NULL ? rows_of (sentence, columns) : 0) + 1;

  while (TRUE)
    {
      GString *page = g_string_new (NULL);
      guint top = at == 0 ? head_rows : 0;
      guint fit_last = rows > top + tail_rows + MIN_PAGE_ROWS ? rows - top - tail_rows : MIN_PAGE_ROWS;
      guint fit_more = rows > top + 1 + MIN_PAGE_ROWS ? rows - top - 1 : MIN_PAGE_ROWS;
      gboolean last = call->len - at <= fit_last;
      guint to = last ? call->len : at + fit_more;

      if (at == 0)
        g_string_append_printf (page, "\n%s\n", heading);
      for (guint i = at; i < to; i++)
        {
          g_string_append (page, g_ptr_array_index (call, i));
          g_string_append_c (page, '\n');
        }
      if (last)
        {
          if (sentence != NULL)
            g_string_append_printf (page, "%s\n", sentence);
          g_string_append (page, _("Allow it? [y/N] "));
          g_ptr_array_add (pages, g_string_free (page, FALSE));
          break;
        }
      {
        /* The line the next page starts in, and those after it. */
        guint left = n_lines - g_array_index (numbers, guint, to) + 1;

        /* Translators: on a terminal, under a page of a call's numbered
         * lines; Enter shows the next page, n denies the call */
        g_string_append_printf (page, g_dngettext (GETTEXT_PACKAGE,
                                                   "-- %u more line to read: Enter shows it, n denies -- ",
                                                   "-- %u more lines to read: Enter shows them, n denies -- ",
                                                   left), left);
      }
      g_ptr_array_add (pages, g_string_free (page, FALSE));
      at = to;
    }
  g_ptr_array_add (pages, NULL);
  return (char **) g_ptr_array_steal (pages, NULL);
}

/**
 * pd_approver_terminal_question:
 * @controls: pd_approver_asked_controls_kinds()
 *
 * Returns: (transfer full): what pd_approver_terminal_func() asks on a
 *   terminal 80 columns wide and tall enough for all of it: the tool, how
 *   many lines the call has, the call's numbered lines (the preview, else
 *   the summary), a sentence when the call holds control characters, and
 *   y/N
 */
char *
pd_approver_terminal_question (const char *tool,
                               const char *summary,
                               const char *preview,
                               guint       controls)
{
  g_auto(GStrv) pages = pd_approver_terminal_pages (tool, summary, preview, controls, DEFAULT_COLUMNS,
                                                    G_MAXUINT / 2);

  return g_strjoinv ("", pages);
}

static gboolean
write_all (int         fd,
           const char *text)
{
  gsize len = strlen (text);

  while (len > 0)
    {
      gssize n = write (fd, text, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      text += n;
      len -= (gsize) n;
    }

  return TRUE;
}

/* Reads one line of at most 63 bytes (the rest of a longer line is
 * discarded).  FALSE at end of file or on an error. */
static gboolean
read_answer (int   fd,
             char *buf,
             gsize size)
{
  gsize len = 0;

  for (;;)
    {
      char c;
      gssize n = read (fd, &c, 1);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      if (c == '\n')
        break;
      if (len + 1 < size)
        buf[len++] = c;
    }

  buf[len] = '\0';
  return TRUE;
}

static gboolean
said (const char *answer,
      const char *word,
      const char *short_word)
{
  g_autofree char *text = g_strstrip (g_ascii_strdown (answer, -1));

  return strcmp (text, short_word) == 0 || strcmp (text, word) == 0;
}

/**
 * pd_approver_terminal_func:
 *
 * A #PdApprovalFunc for the command line: asks y/N on the controlling
 * terminal.  It reads /dev/tty, not stdin, because stdin may carry the
 * task.  Without a terminal the answer is no.
 *
 * It shows what the approval dialog shows: the call's preview (a command
 * and its folder, a write's file and content, an edit's old and new
 * lines), else its summary, as pd_safe_text_approval() makes it (long
 * padding and blank lines said, look-alike blanks and controls named),
 * numbered a line each, a page at a time to fit the terminal
 * (pd_approver_terminal_pages()): y/N is asked under the last.  The
 * summary alone, cut at 2,000 characters and with padding printed raw,
 * asked about a command whose curl stood out of sight past 1,900 spaces,
 * or past its cut, and approved writes nobody saw (tried as an attacker
 * would).  pd_approver_decide() asks only about a call its preview shows
 * whole.
 */
gboolean
pd_approver_terminal_func (const char *tool,
                           const char *summary,
                           const char *preview,
                           gpointer    user_data)
{
  g_auto(GStrv) pages = NULL;
  struct winsize size = { 0 };
  char answer[64];
  gboolean ok = TRUE;
  int fd;

  fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      pd_approver_set_denial_reason ("no terminal to ask on");
      return FALSE;
    }

  if (ioctl (fd, TIOCGWINSZ, &size) != 0)
    memset (&size, 0, sizeof size);
  pages = pd_approver_terminal_pages (tool, summary, preview, pd_approver_asked_controls_kinds (),
                                      size.ws_col, size.ws_row);

  for (guint i = 0; ok && pages[i] != NULL; i++)
    {
      ok = write_all (fd, pages[i]) && read_answer (fd, answer, sizeof answer);
      /* n on a page of the call denies it; anything else shows the next. */
      if (ok && pages[i + 1] != NULL && said (answer, "no", "n"))
        {
          close (fd);
          return FALSE;
        }
    }

  if (!ok)
    write_all (fd, "\n");

  close (fd);

  if (!ok)
    {
      /* The terminal closed, or the run was interrupted while it asked. */
      pd_approver_set_denial_reason ("interrupted: the terminal went away before anyone answered");
      return FALSE;
    }

  return said (answer, "yes", "y");
}

/* pd-tool-preview.c: what a call of a built-in tool would do, as text for a
 * person asked to approve it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The text is the model's: every line made valid UTF-8, with controls,
 * direction overrides, look-alike blanks and invisible characters shown
 * as escapes (\r, \x1b, \u202e, \u00a0: the set the approval summary
 * escapes, written by the same function, pd_tool_text_append_escaped()), long lines and long texts cut with a note of how much was
 * left out.  It is plain text; a GUI shows it as text.
 *
 * A CR is one of them, also before a line's LF: bash reads `\<CR><LF>` as
 * an escaped CR and a line end, so `echo hi \<CR><LF>rm -f victim` runs
 * rm on its own.  Dropped, the CR made it read as one echo continued onto
 * a second line (tried as an attacker would).
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-json-util.h"
#include "pd-safe-text.h"
#include "pd-tool-private.h"

/* A line this long is shown whole (a minified line of a file, a long
 * command line); the rest of a longer one is counted. */
#define PREVIEW_LINE_MAX_CHARS 10000

/* Put before each note of what a cut left out, and taken out again by
 * _pd_tool_preview_seal(): it says the preview is not the whole call.  The
 * model's text can never hold it (every control character is escaped). */
#define PREVIEW_CUT_MARK '\x01'

/**
 * pd_tool_text_is_control:
 *
 * Whether @c changes what a text runs or how it reads, wherever it is,
 * and is shown as an escape wherever a call is put to a person: a control
 * character but LF and TAB (CR, ESC, DEL, C1 too), a line or paragraph
 * separator, a direction override or isolate, an invisible format
 * character (pd_safe_text_is_invisible(): zero-width space, LRM/RLM, tag
 * characters).  What is escaped besides, by its place in the text
 * (look-alike blanks, variation selectors, joiners outside a word…), is
 * pd_safe_text_is_hidden()'s: pd_tool_text_append_escaped() escapes both.
 */
gboolean
pd_tool_text_is_control (gunichar c)
{
  return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || (c >= 0x80 && c < 0xa0) ||
         c == 0x2028 || c == 0x2029 || pd_safe_text_is_invisible (c);
}

/* Whether @c at @p (before @end) is shown as an escape: a control, what
 * pd_safe_text_is_hidden() names between its neighbours (but a no-break
 * space in quoted prose), a look-alike (pd-tool-look-alike.c; @w: this
 * pass's, which then reads the shell's quotes over @c).  ASCII is by
 * itself. */
static PdToolEscapes
is_escaped_at (PdToolLookAlike *w,
               const char      *text,
               gunichar         c,
               const char      *p,
               const char      *end)
{
  gunichar before, after;
  PdToolEscapes escaped;

  if (c < 0x80)
    {
      _pd_tool_look_alike_step (w, c == '#' ? pd_safe_text_char_before (text, p) : 0, c, p);
      return pd_tool_text_is_control (c) ? PD_TOOL_ESCAPES_CONTROLS : PD_TOOL_ESCAPES_NONE;
    }
  before = pd_safe_text_char_before (text, p);
  after = pd_safe_text_char_after (p, end);
  if (pd_tool_text_is_control (c) ||
      (pd_safe_text_is_hidden (before, c, after) &&
       !_pd_tool_look_alike_spares_blank (w, text, c, p, end)))
    escaped = PD_TOOL_ESCAPES_CONTROLS;
  else
    escaped = _pd_tool_looks_alike_at (w, text, before, c, after, p, end);
  _pd_tool_look_alike_step (w, before, c, p);
  return escaped;
}

/* Where the blanks (spaces, TABs) that end the line [@text, @end) after a
 * backslash start, or @end.  `echo hi \<space><LF>rm x` read as one echo
 * continued onto a second line, and bash ran rm on its own: a backslash
 * escapes the blank, not the line break (tried as an attacker would). */
static const char *
blanks_after_backslash (const char *text,
                        const char *end)
{
  const char *p = end;

  while (p > text && (p[-1] == ' ' || p[-1] == '\t'))
    p--;
  return p < end && p > text && p[-1] == '\\' ? p : end;
}

/**
 * pd_tool_text_append_escape:
 *
 * Appends @c as a person reads it in an approval: \r for a CR, \n for a
 * line break, \xNN for another ASCII control or DEL, \uXXXX for C1
 * controls, separators and invisible characters, else @c itself.
 *
 * Returns: whether @c was escaped
 */
gboolean
pd_tool_text_append_escape (GString  *out,
                            gunichar  c)
{
  if (c == '\r')
    g_string_append (out, "\\r");
  else if (c == '\n')
    g_string_append (out, "\\n");
  else if (!pd_tool_text_is_control (c))
    {
      g_string_append_unichar (out, c);
      return FALSE;
    }
  else if (c < 0x80)
    g_string_append_printf (out, "\\x%02x", c);
  else
    g_string_append_printf (out, "\\u%04x", c);
  return TRUE;
}

/* Whether the run [@p, @run_end) holds what is escaped wherever it is
 * (pd_tool_text_is_control(): a bidi override, U+200B), or a TAB where
 * one is written \t (@one_line). */
static gboolean
run_has_control (const char *p,
                 const char *run_end,
                 gboolean    one_line)
{
  for (; p < run_end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (pd_tool_text_is_control (c) || (one_line && c == '\t'))
        return TRUE;
    }
  return FALSE;
}

/* The characters of [@text, @end) before @blanks as
 * pd_tool_text_append_escaped() writes them, at most @max_chars of them
 * (a run left whole counts whole).  Their number into @n_out. */
static const char *
append_escaped (GString         *out,
                PdToolLookAlike *w,
                const char      *text,
                const char      *blanks,
                const char      *end,
                gboolean         one_line,
                guint            max_chars,
                guint           *n_out)
{
  const char *quiet = text;   /* no run to leave whole starts before it */
  guint n = *n_out;
  const char *p;

  for (p = text; p < blanks && n < max_chars; )
    {
      gunichar c = g_utf8_get_char (p);

      if (p >= quiet)
        {
          gsize k;
          const char *run_end = pd_safe_text_blank_run (p, blanks, &k);

          if (k >= PD_SAFE_TEXT_RUN_SAID && !run_has_control (p, run_end, one_line))
            {
              g_string_append_len (out, p, run_end - p);
              n = (guint) MIN ((gsize) n + k, G_MAXUINT);
              for (const char *q = p; q < run_end; q = g_utf8_next_char (q))
                _pd_tool_look_alike_step (w, 0, g_utf8_get_char (q), q);
              p = run_end;
              continue;
            }
          /* A run that starts inside this one is shorter, or escaped
           * with it. */
          quiet = run_end;
        }
      if (one_line && (c == '\t' || c == '\n'))
        {
          g_string_append (out, c == '\t' ? "\\t" : "\\n");
          _pd_tool_look_alike_step (w, 0, c, p);
        }
      else if (!is_escaped_at (w, text, c, p, end))
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      else if (pd_tool_text_is_control (c))
        pd_tool_text_append_escape (out, c);
      else
        g_string_append_printf (out, "\\u%04x", c);
      p = g_utf8_next_char (p);
      n++;
    }
  *n_out = n;
  return p;
}

/**
 * pd_tool_text_append_escaped:
 * @text: the model's text, valid UTF-8
 * @end: its end
 * @one_line: a line break and a TAB written \n and \t (the summary)
 * @max_chars: at most this many characters are written
 *
 * Appends [@text, @end) as a person reads it in an approval: what
 * pd_tool_text_is_control() and pd_safe_text_is_hidden() name as escapes
 * (\r, \x1b, \u202e, \u00a0, \ufe0f), in the same pass as it finds the
 * runs of PD_SAFE_TEXT_RUN_SAID or more that draw nothing
 * (pd_safe_text_blank_run()), which it leaves as they are: every place a
 * question is shown says them (pd_safe_text_approval(): "[900 × U+3000]"),
 * where escaped one by one they printed 5,400 characters (tried as an
 * attacker would), and serve's redactor reads them as the blanks they
 * are (said before, `PGPASSWORD=S3cret[40 × U+3000]x` kept its secret).
 * A run that holds a control is escaped whole.  What the previews and the
 * summary of a call write (one function).
 *
 * Returns: where it stopped, @end when all of @text was written
 */
const char *
pd_tool_text_append_escaped (GString    *out,
                             const char *text,
                             const char *end,
                             gboolean    one_line,
                             guint       max_chars)
{
  guint n = 0;
  PdToolLookAlike w = { 0 };

  return append_escaped (out, &w, text, end, end, one_line, max_chars, &n);
}

/**
 * pd_tool_text_escaped:
 * @text: a preview or a summary (@one_line) in which what
 *   pd_tool_text_append_escaped() escapes may stand as it is again (serve
 *   puts look-alike blanks back to redact it)
 *
 * Returns: (transfer full): @text escaped again, line by line
 */
char *
pd_tool_text_escaped (const char *text,
                      gboolean    one_line)
{
  GString *out = g_string_sized_new (strlen (text));
  const char *p = text;
  const char *text_end = text + strlen (text);
  PdToolLookAlike w = { .text_end = text_end };

  for (;;)
    {
      const char *eol = one_line ? NULL : strchr (p, '\n');
      const char *line_end = eol != NULL ? eol : text_end;
      guint n = 0;

      append_escaped (out, &w, p, line_end, line_end, one_line, G_MAXUINT, &n);
      if (eol == NULL)
        break;
      g_string_append_c (out, '\n');
      _pd_tool_look_alike_step (&w, 0, '\n', eol);
      p = eol + 1;
    }
  return g_string_free (out, FALSE);
}

/**
 * pd_tool_text_escapes:
 * @text: (nullable): the model's text
 *
 * Returns: what pd_tool_text_append_escaped() escapes in @text, by kind
 *   (an invalid byte is no such character: it is shown as U+FFFD)
 */
PdToolEscapes
pd_tool_text_escapes (const char *text)
{
  const PdToolEscapes all = PD_TOOL_ESCAPES_CONTROLS | PD_TOOL_ESCAPES_LETTERS | PD_TOOL_ESCAPES_SIGNS;
  PdToolEscapes found = PD_TOOL_ESCAPES_NONE;
  const char *end;
  PdToolLookAlike w = { 0 };

  if (text == NULL)
    return PD_TOOL_ESCAPES_NONE;
  end = text + strlen (text);
  w.text_end = end;
  for (const char *p = text; *p != '\0' && found != all; )
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      /* Blanks after a backslash before a line break (shown escaped). */
      if (c == '\n' && blanks_after_backslash (text, p) != p)
        found |= PD_TOOL_ESCAPES_CONTROLS;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          p++;
          continue;
        }
      found |= is_escaped_at (&w, text, c, p, end);
      p = g_utf8_next_char (p);
    }
  return found;
}

/**
 * pd_tool_text_has_control:
 * @text: (nullable): the model's text
 *
 * Returns: whether @text holds a character pd_tool_text_append_escaped()
 *   escapes (pd_tool_text_escapes())
 */
gboolean
pd_tool_text_has_control (const char *text)
{
  const char *end;
  PdToolLookAlike w = { 0 };

  if (text == NULL)
    return FALSE;
  end = text + strlen (text);
  w.text_end = end;
  for (const char *p = text; *p != '\0'; )
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == '\n' && blanks_after_backslash (text, p) != p)
        return TRUE;
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          p++;
          continue;
        }
      if (is_escaped_at (&w, text, c, p, end) != PD_TOOL_ESCAPES_NONE)
        return TRUE;
      p = g_utf8_next_char (p);
    }
  return FALSE;
}

/* Appends [@text, @end) as one line: escaped, at most
 * PREVIEW_LINE_MAX_CHARS characters.  @w: the pass over the whole text
 * (its quotes go on from line to line), or NULL for a text of one line.
 * A line of invalid UTF-8 is read in a valid copy, on its own. */
static void
append_line (GString         *out,
             PdToolLookAlike *w,
             const char      *text,
             const char      *end,
             gboolean         one_line)
{
  g_autofree char *valid = NULL;
  const char *valid_end = end;
  PdToolLookAlike own = { 0 };
  const char *blanks;
  guint n = 0;
  const char *p;

  if (w == NULL || !g_utf8_validate (text, end - text, NULL))
    {
      valid = g_utf8_make_valid (text, end - text);
      valid_end = valid + strlen (valid);
      text = valid;
      own.quote = w != NULL ? w->quote : 0;
    }
  blanks = blanks_after_backslash (text, valid_end);
  p = append_escaped (out, valid != NULL ? &own : w, text, blanks, valid_end, one_line,
                      PREVIEW_LINE_MAX_CHARS, &n);
  for (; p < valid_end && n < PREVIEW_LINE_MAX_CHARS; p = g_utf8_next_char (p), n++)
    {
      g_string_append (out, *p == '\t' ? "\\t" : "\\x20");
      _pd_tool_look_alike_step (valid != NULL ? &own : w, 0, (guchar) *p, p);
    }
  if (p < valid_end)
    {
      glong rest = g_utf8_strlen (p, valid_end - p);
      PdToolLookAlike *state = valid != NULL ? &own : w;

      /* the quotes of what is left out go on to the next line */
      for (const char *q = p; state != NULL && q < valid_end; q = g_utf8_next_char (q))
        _pd_tool_look_alike_step (state, *q == '#' ? pd_safe_text_char_before (text, q) : 0,
                                  g_utf8_get_char (q), q);

      g_string_append_c (out, ' ');
      g_string_append_c (out, PREVIEW_CUT_MARK);
      /* Translators: the end of a line too long to show whole */
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "… (%ld more character)",
                                                "… (%ld more characters)", rest), rest);
    }
  if (valid != NULL && w != NULL)
    w->quote = own.quote;
}

/**
 * _pd_tool_preview_append_text:
 * @text: (nullable): the model's text, one line (a path)
 *
 * Appends @text escaped, its line breaks as \n, then a line break.
 */
void
_pd_tool_preview_append_text (GString    *out,
                              const char *text)
{
  if (text != NULL)
    append_line (out, NULL, text, text + strlen (text), TRUE);
  g_string_append_c (out, '\n');
}

/**
 * _pd_tool_preview_lands_at:
 * @context: (nullable): the call's context
 * @path: (nullable): the call's "path" as the model wrote it
 *
 * Where a write to @path lands, as the call's context resolved it
 * (pd_tool_context_approve_path()), else as it resolves now: `/.` padding
 * or `..` after missing names can make the path as written read as one
 * file while it names another far down the line (tried as an attacker
 * would: 4 041 characters that began `docs/notes.md/./.` wrote
 * .git/hooks/pre-commit).
 *
 * Returns: (transfer full) (nullable): the resolved path relative to the
 *   working folder (absolute outside it) when it differs from @path
 */
char *
_pd_tool_preview_lands_at (PdToolContext *context,
                           const char    *path)
{
  g_autofree char *resolved = NULL;
  g_autofree char *display = NULL;

  if (context == NULL || path == NULL)
    return NULL;
  /* The call's one resolution when it has one (the engine's: what the
   * tool writes), so the question names the file written. */
  if (pd_tool_context_get_approved_path (context) != NULL)
    resolved = g_strdup (pd_tool_context_get_approved_path (context));
  else
    resolved = pd_tool_context_resolve_path (context, path, NULL);
  if (resolved == NULL || *resolved == '\0')
    return NULL;
  display = pd_tool_context_display_path (context, resolved);
  if (strcmp (display, path) == 0)
    return NULL;

  return g_steal_pointer (&display);
}

/**
 * _pd_tool_preview_append_folder:
 * @context: (nullable): the call's context
 *
 * Appends "In FOLDER:" and a line break, the folder the call's paths are
 * read from (nothing without a context): a command's preview and a file
 * write's or edit's start alike.
 */
void
_pd_tool_preview_append_folder (GString       *out,
                                PdToolContext *context)
{
  g_autoptr(GString) folder = NULL;

  if (context == NULL)
    return;
  folder = g_string_new (NULL);
  _pd_tool_preview_append_text (folder, pd_tool_context_get_working_dir (context));
  g_string_truncate (folder, folder->len - 1);
  /* Translators: in the preview of a command or a file write; %s is a
   * folder */
  g_string_append_printf (out, _("In %s:"), folder->str);
  g_string_append_c (out, '\n');
}

/**
 * _pd_tool_preview_new_file:
 * @context: (nullable): the call's context
 * @args: the call's arguments
 * @edit: whether the call edits (else it writes)
 *
 * Returns: (transfer full): a preview whose first line names the folder
 *   (with a context), the next which file is written when that differs
 *   from the call's "path" as the model wrote it, then that path, escaped
 *   (an empty line when there is none)
 */
GString *
_pd_tool_preview_new_file (PdToolContext *context,
                           JsonObject    *args,
                           gboolean       edit)
{
  GString *out = g_string_new (NULL);
  const char *path = pd_json_get_string (args, "path");
  g_autofree char *lands = _pd_tool_preview_lands_at (context, path);

  /* The folder a relative path is read from, as a command's preview
   * says it: "notes.md" alone did not say where (tried as a new user
   * would). */
  _pd_tool_preview_append_folder (out, context);
  if (lands != NULL)
    {
      g_autoptr(GString) name = g_string_new (NULL);

      _pd_tool_preview_append_text (name, lands);
      g_string_truncate (name, name->len - 1);
      if (edit)
        /* Translators: the first line of an edit's preview when the path
         * as written reads otherwise; %s is the file, from the folder */
        g_string_append_printf (out, _("Edits %s"), name->str);
      else
        /* Translators: the first line of a write's preview when the path
         * as written reads otherwise; %s is the file, from the folder */
        g_string_append_printf (out, _("Writes %s"), name->str);
      g_string_append_c (out, '\n');
    }
  _pd_tool_preview_append_text (out, path);

  return out;
}

/**
 * _pd_tool_preview_append_lines:
 * @prefix: put before the first line ("- ", "+ ", "$ ")
 * @next_prefix: put before each later line
 * @text: (nullable): the model's text, any number of lines
 * @max_lines: how many lines are shown; the rest are counted
 *
 * Appends each line of @text ("\n" ends one) with @prefix; an empty @text
 * as one empty line.  A CR is shown as \r wherever it is, before a line
 * break too: what runs or is written holds it.
 */
void
_pd_tool_preview_append_lines (GString    *out,
                               const char *prefix,
                               const char *next_prefix,
                               const char *text,
                               guint       max_lines)
{
  const char *p = text != NULL ? text : "";
  const char *end = p + strlen (p);
  PdToolLookAlike w = { .text_end = end };
  guint shown = 0;
  guint rest = 0;

  /* A final line break ends the last line; it starts no empty one. */
  if (end > p && end[-1] == '\n')
    end--;

  for (;;)
    {
      const char *eol = memchr (p, '\n', end - p);
      const char *line_end = eol != NULL ? eol : end;

      if (shown < max_lines)
        {
          g_string_append (out, shown == 0 ? prefix : next_prefix);
          append_line (out, &w, p, line_end, FALSE);
          g_string_append_c (out, '\n');
          shown++;
        }
      else
        rest++;
      if (eol == NULL)
        break;
      _pd_tool_look_alike_step (&w, 0, '\n', eol);
      p = eol + 1;
    }

  if (rest > 0)
    {
      g_string_append_c (out, PREVIEW_CUT_MARK);
      /* Translators: after the first lines of a file or of a text to replace */
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "… %u more line",
                                                "… %u more lines", rest), rest);
      g_string_append_c (out, '\n');
    }
}

/**
 * _pd_tool_preview_seal:
 * @preview: (transfer full) (nullable): a tool's preview
 * @whole: (out) (optional): whether nothing of the call was left out
 *
 * Cuts @preview at PD_TOOL_PREVIEW_MAX_BYTES (at a line's end), and takes
 * out the marks the cuts left, saying in @whole whether there were any: a
 * call whose preview had to be cut is never put to a person to approve
 * (pd_approver_decide()), as what it would do is not all shown.
 *
 * Returns: (transfer full) (nullable): the preview
 */
char *
_pd_tool_preview_seal (char     *preview,
                       gboolean *whole)
{
  gboolean cut = FALSE;
  char *in, *out;

  if (preview == NULL)
    {
      if (whole != NULL)
        *whole = TRUE;
      return NULL;
    }

  if (strlen (preview) > PD_TOOL_PREVIEW_MAX_BYTES)
    {
      GString *text = g_string_new_len (preview, PD_TOOL_PREVIEW_MAX_BYTES);
      const char *last_line_end = strrchr (text->str, '\n');
      guint rest = 0;

      g_string_truncate (text, last_line_end != NULL ? (gsize) (last_line_end - text->str) + 1 : 0);
      for (const char *p = preview + text->len; *p != '\0'; p++)
        if (*p == '\n')
          rest++;
      rest = MAX (rest, 1);
      /* Translators: at the end of the preview of a call too long to show */
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "… %u more line",
                                                 "… %u more lines", rest), rest);
      g_string_append_c (text, '\n');
      g_free (preview);
      preview = g_string_free (text, FALSE);
      cut = TRUE;
    }

  for (in = out = preview; *in != '\0'; in++)
    {
      if (*in == PREVIEW_CUT_MARK)
        cut = TRUE;
      else
        *out++ = *in;
    }
  *out = '\0';

  if (whole != NULL)
    *whole = !cut;
  return preview;
}

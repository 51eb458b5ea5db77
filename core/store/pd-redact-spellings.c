/* pd-redact-spellings.c: secrets that no name or option names, found by
 * where they stand (tried as an attacker would: each was stored as
 * written):
 *  - cookies: the values of Cookie: name=VALUE; name=VALUE, of
 *    Set-Cookie: name=VALUE (its attributes stay), of curl -b and
 *    --cookie when they hold a '=' (else a cookie file), when the name
 *    is a secret's or the value looks random (cookie_is_secret());
 *  - a password a program reads from its input: the word echo or printf
 *    writes into a pipe (echo X | sudo -S …), or a here-string
 *    (… <<< X), to sudo -S (--stdin), passwd --stdin, and to a program
 *    given --password-stdin or --with-token (docker login, gh auth login);
 *    the password of user:PASSWORD into chpasswd;
 *  - AUTH [USER] PASSWORD written into redis-cli (valkey-cli, keydb-cli)
 *    by echo or printf through a pipe, or a here-string;
 *  - vault login TOKEN, htpasswd -b FILE USER PASSWORD (-nb USER PASSWORD);
 *  - the password of an Oracle connect string, user/PASSWORD@db.
 * Each value goes through _pd_redact_span(), and so through the rules
 * and the last guard every value does.  The words are read forward from
 * where the scan is, at most 256 bytes: linear.
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

/* How far the words of a command are read. */
#define READ_MAX 256

static inline gboolean
starts_with_ci (const char *text,
                const char *word)
{
  for (; *word; text++, word++)
    if (_pd_redact_lower (*text) != *word)
      return FALSE;
  return TRUE;
}

/* Whether @k of @r's text ends a command's words: a sign, a line break
 * (in a JSON string its \n), or the end of the JSON string @depth. */
static gboolean
words_end_at (Redactor *r,
              gsize     k,
              guint     depth)
{
  const char *t = r->text;

  return k >= r->len || strchr (";|&<>()\n\r", t[k]) != NULL || _pd_redact_depth_at (r->depths, k) != depth
         || (depth > 0 && t[k] == '\\' && k + 1 < r->len && (t[k + 1] == 'n' || t[k + 1] == 'r'));
}

/* The next shell word from *@p, blanks skipped, before @limit: [*ws, *we),
 * *@p after it; FALSE where the command's words end.  A word quoted whole
 * ('…', "…", or \"…\" in a JSON string) is read to its closing quote. */
gboolean
_pd_redact_next_word (Redactor *r,
           gsize    *p,
           gsize     limit,
           gsize    *ws,
           gsize    *we)
{
  const char *t = r->text;
  guint depth;
  gsize k = *p;

  while (k < limit && (t[k] == ' ' || t[k] == '\t'))
    k++;
  depth = _pd_redact_depth_at (r->depths, k);
  if (k >= limit || words_end_at (r, k, depth))
    return FALSE;
  *ws = k;
  if (t[k] == '\'' || t[k] == '"' || (t[k] == '\\' && k + 1 < limit && t[k + 1] == '"'))
    {
      gsize open = t[k] == '\\' ? 2 : 1;
      char q = t[k + open - 1];

      for (k += open; k < limit && t[k] != '\n' && t[k] != '\r'; k++)
        if (t[k] == q && (open == 2 ? t[k - 1] == '\\' : q == '\'' || t[k - 1] != '\\'))
          break;
      if (k >= limit || t[k] != q)
        return FALSE;
      k++;
    }
  else
    while (k < limit && t[k] != ' ' && t[k] != '\t' && !words_end_at (r, k, depth))
      k++;
  *we = k;
  *p = k;
  return *we > *ws;
}

/* The value a word [ws, we) holds: inside its quotes when quoted whole,
 * the word when it has no quote, backslash or $ (its value as written);
 * FALSE for any other. */
gboolean
_pd_redact_word_value (Redactor *r,
            gsize     ws,
            gsize     we,
            gsize    *vs,
            gsize    *ve)
{
  const char *t = r->text;

  if (t[ws] == '\\' && we - ws > 4)
    *vs = ws + 2, *ve = we - 2;
  else if ((t[ws] == '\'' || t[ws] == '"') && we - ws > 2)
    *vs = ws + 1, *ve = we - 1;
  else
    *vs = ws, *ve = we;
  for (gsize k = *vs; k < *ve; k++)
    if (strchr ("'\"\\$`", t[k]) != NULL)
      return FALSE;
  return *ve > *vs;
}

/* Whether the word [ws, we) is @word. */
static gboolean
word_is (Redactor   *r,
         gsize       ws,
         gsize       we,
         const char *word)
{
  return we - ws == strlen (word) && strncmp (r->text + ws, word, we - ws) == 0;
}

/* Masks the value of the word [ws, we) when it is a secret's. */
void
_pd_redact_mask_word (Redactor *r,
           gsize     ws,
           gsize     we)
{
  gsize vs, ve;

  if (_pd_redact_word_value (r, ws, we, &vs, &ve) && _pd_redact_found_value_is_secret (r, vs, ve))
    _pd_redact_span (r, vs, ve);
}

/* Whether the program named by the word [ws, we) (its path's last part,
 * a version after it: python3.11) may read its input as code, or as data
 * it writes: a shell, an interpreter, tee, xargs, su, a precommand that
 * runs another…  A name the reading is unsure of (quoted, $X) may. */
static gboolean
program_reads_input (Redactor *r,
                     gsize     ws,
                     gsize     we)
{
  static const char * const readers[] = {
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox", "su",
    "python", "perl", "ruby", "node", "nodejs", "php", "lua", "tclsh", "awk", "gawk", "mawk", "bc",
    "tee", "xargs", "parallel", "dd", "sponge", "cp", "install", "crontab", "at", "batch", "ssh",
    "sudo", "doas", "env", "nohup", "nice", "ionice", "timeout", "stdbuf", "setsid", "command",
    "exec", "time", "script", "chroot", "runuser", "unbuffer", "flock", "systemd-run", NULL,
  };
  const char *t = r->text;
  gsize bs = ws, be = we;
  g_autofree char *base = NULL;

  for (gsize k = ws; k < we; k++)
    {
      if (strchr ("'\"\\$`", t[k]) != NULL)
        return TRUE;
      if (t[k] == '/')
        bs = k + 1;
    }
  while (be > bs && (g_ascii_isdigit (t[be - 1]) || t[be - 1] == '.'))
    be--;
  base = g_strndup (t + bs, be - bs);
  return _pd_redact_word_in (base, readers);
}

/* Whether sudo's option word [ws, we) (after sudo -S) makes it run a
 * shell (-s, -i, --shell, --login); *@arg set when the next word is its
 * argument (-u root, --user root). */
static gboolean
sudo_option_runs_shell (Redactor *r,
                        gsize     ws,
                        gsize     we,
                        gboolean *arg)
{
  static const char * const with_arg[] = {
    "--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type",
    "--other-user", "--command-timeout", "--chroot", NULL,
  };
  const char *t = r->text;

  *arg = FALSE;
  if (t[ws + 1] == '-')
    {
      g_autofree char *word = g_strndup (t + ws, we - ws);

      if (strcmp (word, "--shell") == 0 || strcmp (word, "--login") == 0)
        return TRUE;
      *arg = _pd_redact_word_in (word, with_arg);
      return FALSE;
    }
  for (gsize k = ws + 1; k < we; k++)
    {
      if (t[k] == 's' || t[k] == 'i')
        return TRUE;
      if (strchr ("ugCDhprtUTR", t[k]) != NULL)
        {
          *arg = k + 1 == we;  /* else its argument is the rest: -uroot */
          return FALSE;
        }
    }
  return FALSE;
}

/* What a command reads from its input: nothing secret, a password, or
 * user:PASSWORD lines (chpasswd). */
enum { READS_NOTHING, READS_SECRET, READS_USER_SECRET };

/* What the command in [from, to) reads from its input: a password of
 * sudo -S (or --stdin, -kS…), passwd --stdin, or a program given
 * --password-stdin or --with-token; user:PASSWORD of chpasswd (sudo's
 * too).  Not sudo -S running a program that
 * may read the input itself: a shell, an interpreter, tee… (sudo reads no
 * password when its credentials are cached, and the program reads the
 * word: echo reboot | sudo -S sh stored as echo [REDACTED] | sudo -S sh
 * hid what runs, tried as an attacker would). */
static guint
command_reads_secret (Redactor *r,
                      gsize     from,
                      gsize     to)
{
  const char *t = r->text;
  gsize p = from, ws, we;
  gboolean sudo = FALSE, options = TRUE, stdin_ = FALSE, arg = FALSE;

  for (guint n = 0; n < 32 && _pd_redact_next_word (r, &p, to, &ws, &we); n++)
    {
      if (!sudo && (word_is (r, ws, we, "--password-stdin") || word_is (r, ws, we, "--with-token")
                    || (word_is (r, ws, we, "--stdin") && n > 0)))
        return READS_SECRET;
      if ((n == 0 || (sudo && !stdin_ && !arg && t[ws] != '-' && memchr (t + ws, '=', we - ws) == NULL))
          && word_is (r, ws, we, "chpasswd"))
        return READS_USER_SECRET;
      if (n == 0)
        sudo = word_is (r, ws, we, "sudo");
      else if (!sudo)
        continue;
      else if (arg)
        arg = FALSE;
      else if (options && word_is (r, ws, we, "--"))
        options = FALSE;
      else if (options && t[ws] == '-' && we - ws >= 2)
        {
          if (word_is (r, ws, we, "--stdin") || (t[ws + 1] != '-' && memchr (t + ws, 'S', we - ws) != NULL))
            stdin_ = TRUE;
          if (sudo_option_runs_shell (r, ws, we, &arg))
            return READS_NOTHING;
        }
      else if (memchr (t + ws, '=', we - ws) != NULL)
        continue;  /* sudo VAR=value command */
      else if (stdin_)
        return program_reads_input (r, ws, we) ? READS_NOTHING : READS_SECRET;
      else
        sudo = FALSE;  /* sudo passwd --stdin: the program's words */
    }
  return stdin_ ? READS_SECRET : READS_NOTHING;
}

/* Masks what the word [ws, we) a command reads from its input holds of
 * a secret (@reads: command_reads_secret()): the word, or the password
 * after user: (chpasswd). */
static void
mask_read_word (Redactor *r,
                gsize     ws,
                gsize     we,
                guint     reads)
{
  gsize vs, ve;
  const char *colon;

  if (reads != READS_USER_SECRET)
    {
      _pd_redact_mask_word (r, ws, we);
      return;
    }
  if (!_pd_redact_word_value (r, ws, we, &vs, &ve) || (colon = memchr (r->text + vs, ':', ve - vs)) == NULL
      || (gsize) (colon - r->text) + 1 >= ve)
    return;
  vs = (gsize) (colon - r->text) + 1;
  if (_pd_redact_found_value_is_secret (r, vs, ve))
    _pd_redact_span (r, vs, ve);
}

/* Whether the word at @p (blanks skipped, before @limit) names
 * redis-cli, valkey-cli or keydb-cli: a client that reads commands from
 * its input. */
static gboolean
redis_client_at (Redactor *r,
                 gsize     p,
                 gsize     limit)
{
  static const char * const clients[] = { "redis-cli", "valkey-cli", "keydb-cli", NULL };
  gsize ws, we, bs;
  g_autofree char *word = NULL;

  if (!_pd_redact_next_word (r, &p, limit, &ws, &we))
    return FALSE;
  for (bs = we; bs > ws && r->text[bs - 1] != '/'; bs--)
    ;
  word = g_strndup (r->text + bs, we - bs);
  return _pd_redact_word_in (word, clients);
}

/* A byte a word of an AUTH command redis-cli reads may hold. */
static inline gboolean
auth_word_char (char c)
{
  return c != '\0' && !g_ascii_isspace (c) && strchr ("'\"\\`$;|&<>(){}[]", c) == NULL;
}

/* AUTH [USER] PASSWORD in [from, to), the text echo or printf writes
 * into redis-cli (or a here-string gives it): AUTH at a word's or a
 * line's start (after a quote, a blank or printf's \n), one or two words
 * after it, then the text's or a quoted part's end or an escape (\n).
 * The last word, the password, in [*ps, *pe). */
static gboolean
redis_auth_words (Redactor *r,
                  gsize     from,
                  gsize     to,
                  gsize    *ps,
                  gsize    *pe)
{
  const char *t = r->text;

  for (gsize k = from; k + 4 < to; k++)
    {
      gsize e, n = 0;

      if (!starts_with_ci (t + k, "auth")
          || !(k == from || strchr (" \t'\"", t[k - 1]) != NULL
               || (k >= from + 2 && (t[k - 1] == 'n' || t[k - 1] == 'r') && t[k - 2] == '\\')))
        continue;
      for (e = k + 4; n < 3; n++)
        {
          gsize b = e;

          while (e < to && (t[e] == ' ' || t[e] == '\t'))
            e++;
          if (e == b || e >= to || !auth_word_char (t[e]))
            break;
          *ps = e;
          while (e < to && auth_word_char (t[e]))
            e++;
          *pe = e;
        }
      while (e < to && (t[e] == ' ' || t[e] == '\t'))
        e++;
      return n >= 1 && n <= 2 && (e >= to || t[e] == '\'' || t[e] == '"' || t[e] == '\\');
    }
  return FALSE;
}

/* The password of AUTH in [from, to) into redis-cli (redis_auth_words()),
 * masked; or, printf's format saying AUTH %s, its argument [as, ae)
 * (as 0: none).  Where the scan goes on, or 0. */
static gsize
redis_auth_input (Redactor *r,
                  gsize     from,
                  gsize     to,
                  gsize     as,
                  gsize     ae)
{
  gsize ps = 0, pe = 0;

  if (!redis_auth_words (r, from, to, &ps, &pe))
    return 0;
  r->name_start = ps;
  if (pe - ps == 2 && strncmp (r->text + ps, "%s", 2) == 0)
    {
      if (as == 0)
        return 0;
      _pd_redact_mask_word (r, as, ae);
      return MAX (ae, r->copied);
    }
  if (_pd_redact_found_value_is_secret (r, ps, pe))
    _pd_redact_span (r, ps, pe);
  return MAX (pe, r->copied);
}

/* echo or printf at @i writing one word into a pipe to a command that
 * reads a password from it: that word is masked; or AUTH [USER] X into
 * redis-cli (redis_auth_input()).  Where the scan goes on, or @i. */
static gsize
piped_secret (Redactor *r,
              gsize     i)
{
  const char *t = r->text;
  gboolean printf_ = t[i] == 'p';
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize p = i + (printf_ ? 6 : 4), ws, we, as = 0, ae = 0, end, from = p;
  guint args = 0, reads;

  if (!(t[p] == ' ' || t[p] == '\t'))
    return i;
  while (_pd_redact_next_word (r, &p, limit, &ws, &we))
    {
      if (args == 0 && !printf_ && t[ws] == '-' && we - ws <= 3)
        continue;  /* echo -n, -e, -ne */
      if (args == 0 && printf_ && memchr (t + ws, '%', we - ws) != NULL)
        {
          printf_ = FALSE;  /* the format; its argument comes next */
          continue;
        }
      as = ws, ae = we;
      args++;
    }
  end = p;
  while (end < limit && (t[end] == ' ' || t[end] == '\t'))
    end++;
  if (end + 1 >= limit || t[end] != '|' || t[end + 1] == '|')
    return i;
  if (redis_client_at (r, end + 1, limit))
    {
      gsize after = redis_auth_input (r, from, p, args == 1 && !printf_ && t[i] == 'p' ? as : 0, ae);

      return after > 0 ? after : i;
    }
  if (args != 1)
    return i;
  if ((reads = command_reads_secret (r, end + 1, limit)) == READS_NOTHING)
    return i;
  r->name_start = i;
  mask_read_word (r, as, ae, reads);
  return MAX (ae, r->copied);
}

/* A here-string (<<<) at @i into a command that reads a password from
 * its input: its word is masked. */
static gsize
here_string_secret (Redactor *r,
                    gsize     i)
{
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize from = i, p = i + 3, ws, we;
  guint reads;

  while (from > r->copied && i - from < READ_MAX && !words_end_at (r, from - 1, depth)
         && !(r->depths != NULL && (r->depths[from - 1] & JSON_OPENS)))
    from--;
  /* redis-cli <<< 'AUTH X' */
  if (redis_client_at (r, from, i) && _pd_redact_next_word (r, &p, MIN (r->len, p + READ_MAX), &ws, &we))
    {
      gsize after = redis_auth_input (r, ws, we, 0, 0);

      return after > 0 ? after : i + 3;
    }
  if ((reads = command_reads_secret (r, from, i)) == READS_NOTHING
      || !_pd_redact_next_word (r, &p, MIN (r->len, p + READ_MAX), &ws, &we))
    return i + 3;
  r->name_start = ws;
  mask_read_word (r, ws, we, reads);
  return MAX (we, r->copied);
}

/* vault login TOKEN (its options before it) at @i. */
static gsize
vault_login (Redactor *r,
             gsize     i)
{
  const char *t = r->text;
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize p = i + 5, ws, we;

  if (!_pd_redact_next_word (r, &p, limit, &ws, &we) || !word_is (r, ws, we, "login"))
    return i;
  while (_pd_redact_next_word (r, &p, limit, &ws, &we))
    {
      if (t[ws] == '-')
        {
          if (we - ws == 1)
            return p;  /* vault login -: the token on its input */
          continue;
        }
      if (memchr (t + ws, '=', we - ws) != NULL)
        return i;  /* key=value: the name rule's */
      r->name_start = ws;
      _pd_redact_mask_word (r, ws, we);
      return MAX (we, r->copied);
    }
  return i;
}

/* htpasswd -b FILE USER PASSWORD, -nb USER PASSWORD at @i. */
static gsize
htpasswd_batch (Redactor *r,
                gsize     i)
{
  const char *t = r->text;
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize p = i + 8, ws, we;
  gboolean batch = FALSE, no_file = FALSE, arg = FALSE;
  guint n = 0;

  while (_pd_redact_next_word (r, &p, limit, &ws, &we))
    {
      if (arg)
        {
          arg = FALSE;
          continue;
        }
      if (t[ws] == '-' && we - ws >= 2 && n == 0)
        {
          batch = batch || memchr (t + ws, 'b', we - ws) != NULL;
          no_file = no_file || memchr (t + ws, 'n', we - ws) != NULL;
          arg = t[we - 1] == 'C' || t[we - 1] == 'r';  /* -C cost, -r rounds */
          continue;
        }
      if (++n == (no_file ? 2u : 3u))
        {
          if (batch)
            {
              r->name_start = ws;
              _pd_redact_mask_word (r, ws, we);
            }
          return MAX (we, r->copied);
        }
    }
  return i;
}

gsize
_pd_redact_try_spelling (Redactor *r,
                         gsize     i)
{
  const char *p = r->text + i;

  if (*p == '<' && strncmp (p, "<add", 4) == 0 && (p[4] == ' ' || p[4] == '\t'))
    return _pd_redact_add_element (r, i);
  if (*p == '<')
    return p[1] == '<' && p[2] == '<' ? here_string_secret (r, i) : i;
  if (strncmp (p, "echo", 4) == 0 || strncmp (p, "printf", 6) == 0)
    return piped_secret (r, i);
  if (strncmp (p, "vault", 5) == 0 && (p[5] == ' ' || p[5] == '\t'))
    return vault_login (r, i);
  if (strncmp (p, "htpasswd", 8) == 0 && (p[8] == ' ' || p[8] == '\t'))
    return htpasswd_batch (r, i);
  return i;
}

/* Whether the cookie name=value at @pos, its value at @vs, assigns a
 * variable the text runs. */
static gboolean
cookie_variable_runs (Redactor *r,
                      gsize     pos,
                      gsize     vs)
{
  g_autofree char *name = NULL;

  if (vs <= pos + 1 || r->text[vs - 1] != '=')
    return FALSE;
  name = g_strndup (r->text + pos, vs - 1 - pos);
  return _pd_redact_assigned_variable_runs (r, name, pos, vs - 1);
}

/* Whether the cookie name=value holds a secret: its name is a session's
 * or a secret's (session, sid, token, auth, csrf, xsrf, jwt, a word with
 * key, secret or pass; the name rule's), or its value looks random: 8 or
 * more bytes of letters and digits both, or of no letter (an id), or 16 of
 * upper and lower case.  Cookie: theme=darkmode was masked, and the
 * setting lost (over-masking). */
gboolean
_pd_redact_cookie_is_secret (const char *name_text,
                             gsize       name_len,
                             const char *value,
                             gsize       value_len)
{
  static const char * const words[] = { "sess", "sid", "token", "auth", "csrf", "xsrf", "jwt", "key",
                                        "secret", "pass", "login", "remember", "sso", "saml", NULL };
  g_autofree char *name = NULL;
  gboolean digit = FALSE, letter = FALSE, upper = FALSE, lower = FALSE;

  if (name_len == 0 || name_len > 128)
    return TRUE;
  name = g_ascii_strdown (name_text, (gssize) name_len);
  for (guint k = 0; words[k] != NULL; k++)
    if (strstr (name, words[k]) != NULL)
      return TRUE;
  if (_pd_redact_name_is_secret (name))
    return TRUE;
  for (gsize k = 0; k < value_len; k++)
    {
      digit = digit || g_ascii_isdigit (value[k]);
      letter = letter || g_ascii_isalpha (value[k]);
      upper = upper || g_ascii_isupper (value[k]);
      lower = lower || g_ascii_islower (value[k]);
    }
  return (value_len >= 8 && digit && letter) || (value_len >= 16 && upper && lower)
         || (value_len >= 8 && !letter);
}

/* Whether the cookie name=value [pos, vs - 1), [vs, ve) holds a secret. */
static gboolean
cookie_is_secret (Redactor *r,
                  gsize     pos,
                  gsize     vs,
                  gsize     ve)
{
  if (vs <= pos + 1 || vs - pos > 129)
    return TRUE;
  return _pd_redact_cookie_is_secret (r->text + pos, vs - 1 - pos, r->text + vs, ve - vs);
}

gsize
_pd_redact_cookie_values (Redactor *r,
                          gsize     pos,
                          gboolean  one)
{
  const char *t = r->text;

  for (guint n = 0; n < 32 && pos < r->len; n++)
    {
      gsize vs, ve, b = 0;

      if (!_pd_redact_match_at (r, RE_COOKIE, pos, &vs, &ve))
        break;
      /* A short value is a setting (lang=en), a long one a session's.
       * A name=value the shell reads as an assignment whose variable the
       * text runs is a command, kept in sight (echo Cookie: a=abcdef;
       * API_TOKEN=reboot; eval "$API_TOKEN" hid reboot, tried as an
       * attacker would). */
      if (ve - vs >= 6 && cookie_is_secret (r, pos, vs, ve) && !cookie_variable_runs (r, pos, vs)
          && _pd_redact_credential_is_secret (r, vs, ve, vs > 0 && t[vs - 1] == '\''))
        _pd_redact_span (r, vs, ve);
      pos = MAX (ve, r->copied);
      /* the separator, escaped too (\; as the shell reads a word) */
      while (pos + b < r->len && b < 15 && t[pos + b] == '\\')
        b++;
      if (one || pos + b + 1 >= r->len || t[pos + b] != ';')
        break;
      for (pos += b + 1; pos < r->len;)
        {
          for (b = 0; pos + b < r->len && b < 15 && t[pos + b] == '\\';)
            b++;
          if (pos + b >= r->len || (t[pos + b] != ' ' && t[pos + b] != '\t'))
            break;
          pos += b + 1;
        }
    }
  return pos;
}

/* The length of blanks quoted at @k of @t, opened and closed by the same
 * quote, as bash reads the word (-H Cookie:' 'a=X, Cookie:$'\t'a=X, the
 * shell's \" and \\t inside a JSON string): 0 if none. */
static gsize
quoted_blanks_len (const char *t,
                   gsize       len,
                   gsize       k)
{
  gsize p = k, b = 0, start;
  char q;

  if (p < len && t[p] == '$')
    p++;
  while (p + b < len && b < 15 && t[p + b] == '\\')
    b++;
  if (p + b >= len || (t[p + b] != '\'' && t[p + b] != '"'))
    return 0;
  q = t[p + b];
  p += b + 1;
  start = p;
  while (p < len)
    {
      gsize e = 0;

      if (t[p] == ' ' || t[p] == '\t')
        {
          p++;
          continue;
        }
      while (p + e < len && e < 15 && t[p + e] == '\\')
        e++;
      if (e == 0 || p + e >= len || (t[p + e] != 't' && t[p + e] != ' ' && t[p + e] != '\t'))
        break;
      p += e + 1;
    }
  if (p == start)
    return 0;
  for (gsize i = 0; i < b; i++)
    if (p + i >= len || t[p + i] != '\\')
      return 0;
  if (p + b >= len || t[p + b] != q)
    return 0;
  return p + b + 1 - k;
}

gsize
_pd_redact_cookie_at (Redactor *r,
                      gsize     i)
{
  const char *t = r->text;
  gboolean set = i >= 4 && starts_with_ci (t + i - 4, "set-");
  gsize k = i + 6;

  if (!set && i > 0 && (g_ascii_isalnum (t[i - 1]) || t[i - 1] == '_' || t[i - 1] == '-'))
    return i;
  while (k < r->len && (t[k] == ' ' || t[k] == '\t'))
    k++;
  if (k >= r->len || t[k] != ':')
    return i;
  /* blanks, escaped too as bash reads the word: -H Cookie:\ a=X (the
   * shell's \\  inside a JSON string; it was stored as written) */
  for (k++; k < r->len;)
    {
      gsize b = 0;

      while (k + b < r->len && b < 15 && t[k + b] == '\\')
        b++;
      if (k + b < r->len && (t[k + b] == ' ' || t[k + b] == '\t'))
        k += b + 1;
      else if ((b = quoted_blanks_len (t, r->len, k)) > 0)
        k += b;
      else
        break;
    }
  r->name_start = set ? i - 4 : i;
  return _pd_redact_cookie_values (r, k, set);
}

gsize
_pd_redact_curl_cookie_at (Redactor *r,
                           gsize     i)
{
  const char *t = r->text;
  gsize k = t[i + 1] == 'b' ? i + 2 : i + 8;
  gsize q;

  while (k < r->len && (t[k] == ' ' || t[k] == '\t' || t[k] == '='))
    k++;
  /* Opened by a quote, or its JSON string's escaped one. */
  q = k < r->len && (t[k] == '\'' || t[k] == '"') ? 1 : _pd_redact_escaped_quote_len (t, r->len, k, _pd_redact_depth_at (r->depths, k));
  for (gsize e = k + q; e < r->len && e - k < 128 && !g_ascii_isspace (t[e]) && t[e] != '\'' && t[e] != '"' && t[e] != '\\'; e++)
    if (t[e] == '=')
      return _pd_redact_cookie_values (r, k + q, FALSE);
  return i;  /* a cookie file */
}

gsize
_pd_redact_oracle_at (Redactor *r,
                      gsize     i)
{
  const char *t = r->text;
  gsize us = i, vs, ve;

  while (us > r->copied && i - us < 128 && (g_ascii_isalnum (t[us - 1]) || strchr ("_#.", t[us - 1]) != NULL))
    us--;
  if (us == i)
    return i;
  /* The connect string is a word of its own, or userid='s value. */
  if (!(us == 0 || t[us - 1] == ' ' || t[us - 1] == '\t' || t[us - 1] == '\'' || t[us - 1] == '"'
        || (us >= 7 && t[us - 1] == '=' && starts_with_ci (t + us - 7, "userid"))))
    return i;
  if ((_pd_redact_password_options_at (&r->line, t, us) & PW_ORACLE) == 0
      || !_pd_redact_match_at (r, RE_ORACLE, us, &vs, &ve))
    return i;
  r->name_start = us;
  /* Oracle's quoted password, user/"A b"@db: the quotes are Oracle's, not
   * a part of a word the shell joins (@db was masked with it). */
  if (t[vs - 1] == '"')
    {
      guint depth = _pd_redact_depth_at (r->depths, vs);

      if (_pd_redact_found_value_is_secret (r, vs, ve)
          && !_pd_redact_value_hides_syntax (t + vs, ve - vs, QUOTING_DOUBLE, depth))
        _pd_redact_mask_span (r, vs, ve, FALSE);
      return MAX (ve, r->copied);
    }
  if (_pd_redact_found_value_is_secret (r, vs, ve))
    _pd_redact_span (r, vs, ve);
  return MAX (ve, r->copied);
}

/* The word before @k on its line (blanks skipped back), in [*ws, *we):
 * FALSE at the line's or a command's start, or past READ_MAX. */
static gboolean
word_before (Redactor *r,
             gsize     k,
             gsize    *ws,
             gsize    *we)
{
  const char *t = r->text;
  gsize from = k;

  while (k > 0 && from - k < READ_MAX && (t[k - 1] == ' ' || t[k - 1] == '\t'))
    k--;
  *we = k;
  while (k > 0 && from - k < READ_MAX && !g_ascii_isspace (t[k - 1]) && strchr (";|&()`", t[k - 1]) == NULL)
    k--;
  *ws = k;
  return *we > *ws && from - k < READ_MAX;
}

/* Whether the word [ws, we) is @word, ASCII case-insensitively. */
static gboolean
word_is_ci (Redactor   *r,
            gsize       ws,
            gsize       we,
            const char *word)
{
  return we - ws == strlen (word) && starts_with_ci (r->text + ws, word);
}

/* redis-cli's AUTH [USER] PASSWORD, its command given as its words
 * (redis-cli -h h AUTH X): AUTH right after the client's name, an option
 * or an option's value, and one or two words after it, the last the
 * password (redis-cli GET auth is a key). */
static gsize
redis_auth (Redactor *r,
            gsize     i)
{
  const char *t = r->text;
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize p = i + 4, ws, we, ps, pe, qs, qe, last_s = 0, last_e = 0;
  guint n = 0;

  if (!(t[p] == ' ' || t[p] == '\t')
      || (_pd_redact_password_options_at (&r->line, t, i) & PW_SPACED_A) == 0
      || !word_before (r, i, &ps, &pe))
    return i;
  if (t[ps] != '-')
    {
      gboolean client = FALSE;

      for (gsize k = ps; k + 4 <= pe; k++)
        client = client || strncmp (t + k, "-cli", 4) == 0;
      if (!client && !(word_before (r, ps, &qs, &qe) && t[qs] == '-'))
        return i;
    }
  while (_pd_redact_next_word (r, &p, limit, &ws, &we))
    {
      if (++n > 2)
        return i;
      last_s = ws;
      last_e = we;
    }
  if (n == 0)
    return i;
  r->name_start = i;
  _pd_redact_mask_word (r, last_s, last_e);
  return MAX (last_e, r->copied);
}

/* SQL's PASSWORD 'X' of a role or a user (ALTER USER u WITH PASSWORD 'X',
 * CREATE ROLE u LOGIN PASSWORD 'X', WITH ENCRYPTED PASSWORD 'X'): after
 * WITH, LOGIN, ENCRYPTED or UNENCRYPTED, a quoted literal. */
static gsize
sql_password (Redactor *r,
              gsize     i)
{
  static const char * const before[] = { "with", "login", "encrypted", "unencrypted", NULL };
  const char *t = r->text;
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize p = i + 8, ws, we, ps, pe;
  gboolean known = FALSE;

  if (!(t[p] == ' ' || t[p] == '\t') || !word_before (r, i, &ps, &pe))
    return i;
  for (guint k = 0; before[k] && !known; k++)
    known = word_is_ci (r, ps, pe, before[k]);
  if (!known || !_pd_redact_next_word (r, &p, limit, &ws, &we) || t[ws] != '\'')
    return i;
  r->name_start = i;
  _pd_redact_mask_word (r, ws, we);
  return MAX (we, r->copied);
}

/* npm's, pnpm's and yarn's config set NAME VALUE (@config "config"), the
 * AWS CLI's configure set NAME VALUE (@config "configure"), NAME a
 * secret's (//reg/:_password, _authToken, npmAuthToken,
 * aws_secret_access_key: the name rule's, after its last : or /). */
static gsize
package_config_set (Redactor   *r,
                    gsize       i,
                    gsize       name_len,
                    const char *config)
{
  const char *t = r->text;
  gsize limit = MIN (r->len, i + READ_MAX);
  gsize p = i + name_len, ws, we, ns, ne, k;
  g_autofree char *name = NULL;

  if (!(t[p] == ' ' || t[p] == '\t')
      || !_pd_redact_next_word (r, &p, limit, &ws, &we) || !word_is (r, ws, we, config)
      || !_pd_redact_next_word (r, &p, limit, &ws, &we) || !word_is (r, ws, we, "set")
      || !_pd_redact_next_word (r, &p, limit, &ns, &ne) || memchr (t + ns, '=', ne - ns) != NULL)
    return i;
  for (k = ne; k > ns && t[k - 1] != ':' && t[k - 1] != '/'; k--)
    ;
  name = g_strndup (t + k, ne - k);
  if (!_pd_redact_name_is_secret (name + strspn (name, "_"))
      || !_pd_redact_next_word (r, &p, limit, &ws, &we))
    return i;
  r->name_start = ns;
  _pd_redact_mask_word (r, ws, we);
  return MAX (we, r->copied);
}

gsize
_pd_redact_try_positional (Redactor *r,
                           gsize     i)
{
  const char *p = r->text + i;

  if (starts_with_ci (p, "auth"))
    return redis_auth (r, i);
  if (starts_with_ci (p, "password"))
    return sql_password (r, i);
  if (strncmp (p, "npm", 3) == 0 || strncmp (p, "yarn", 4) == 0)
    return package_config_set (r, i, *p == 'n' ? 3 : 4, "config");
  if (strncmp (p, "pnpm", 4) == 0)
    return package_config_set (r, i, 4, "config");
  if (strncmp (p, "aws", 3) == 0)
    return package_config_set (r, i, 3, "configure");
  return i;
}

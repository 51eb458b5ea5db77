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
#include "pd-redact-scan-private.h"
#include "pd-secret-text.h"

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
gboolean
_pd_redact_match_at (Redactor *r,
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
/* Whether a comma list's field, NAME=, starts at @k. */
static gboolean
comma_field_at (const char *t,
                gsize       len,
                gsize       k)
{
  gsize e = k;

  while (e < len && e - k < 64 && (g_ascii_isalnum (t[e]) || t[e] == '_' || t[e] == '-' || t[e] == '.'))
    e++;
  return e > k && e < len && t[e] == '=' && (g_ascii_isalpha (t[k]) || t[k] == '_');
}

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
   * feed inside): the word to its end, not its first part only; but not
   * past a comma list's next field (mount -o password=X,uid=0: ",uid=0"
   * was masked, hiding what the command does; tried as an attacker
   * would). */
  if (ve + 1 < r->len && strchr (",]{}\v\f", t[ve]) != NULL && t[ve] != '\0'
      && !g_ascii_isspace (t[ve + 1]) && strchr ("\"'`\\[]{}()<>,;&|", t[ve + 1]) == NULL)
    {
      while (e < r->len && e - ve < 256 && (t[e] == '\v' || t[e] == '\f' || !g_ascii_isspace (t[e]))
             && strchr ("\"'`\\()<>;&|", t[e]) == NULL
             && _pd_redact_unicode_space_len (t + e, r->len - e) == 0
             && !(t[e] == ',' && comma_field_at (t, r->len, e + 1)))
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
/* Whether the value at @vs opened a double quote ("…, \"… in a JSON
 * string) and the one at @k closes it, the word ending after it. */
static gboolean
double_quoted_default_ends (Redactor *r,
                            gsize     vs,
                            gsize     k)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, vs);
  gsize q = depth == 0 ? 1 : 2;

  if (depth > 1 || vs < q || k + q > r->len || t[vs - 1] != '"' || t[k + q - 1] != '"'
      || (depth == 1 && (t[vs - 2] != '\\' || t[k] != '\\')))
    return FALSE;
  k += q;
  return k >= r->len || (t[k] != '\0' && strchr (" \t\n\r;|&()<>", t[k]) != NULL)
         || (depth == 1 && (t[k] == '"' || (t[k] == '\\' && k + 1 < r->len && strchr ("nrt", t[k + 1]) != NULL)));
}

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
  /* ${NAME:=DEFAULT} assigns it too, ${NAME:+VALUE} gives it when NAME
   * is set: the same literal */
  if (k >= r->len || (t[k] != '-' && t[k] != '=' && t[k] != '+'))
    return 0;
  *ds = ++k;
  while (k < r->len && k - *ds < 256 && (g_ascii_isalnum (t[k]) || strchr ("_./+=:@%-", t[k]) != NULL))
    k++;
  if (k == *ds || k >= r->len || t[k] != '}')
    return 0;
  *de = k++;
  /* The word ends after it: a blank, or an operator bash ends a word at
   * (API_KEY="${X:-S}";./run was kept whole: tried as an attacker would). */
  if (k < r->len && !(t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r'
                      || (t[k] != '\0' && strchr (";|&()<>", t[k]) != NULL)
                      || (t[k] == '"' && _pd_redact_depth_at (r->depths, k) < _pd_redact_depth_at (r->depths, vs))
                      /* "${X:-DEFAULT}": the double quote around it closes */
                      || double_quoted_default_ends (r, vs, k)
                      || (_pd_redact_depth_at (r->depths, vs) == 1 && t[k] == '\\' && k + 1 < r->len
                          && strchr ("nrt", t[k + 1]) != NULL)))
    return 0;
  return k;
}

/* Whether @name at [@start, @name_end), assigned (NAME=, NAME+=) or
 * expanded with a default (${NAME:-…}), is a shell variable the text
 * runs (pd-redact-runs.c): its value is a command (API_TOKEN=reboot;
 * eval "$API_TOKEN"), and masked it hid what runs from whoever approves
 * the command (tried as an attacker would).  The text is read for it
 * once, at the first such name. */
gboolean
_pd_redact_assigned_variable_runs (Redactor   *r,
                                   const char *name,
                                   gsize       start,
                                   gsize       name_end)
{
  const char *t = r->text;

  if (!(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *c = name; *c; c++)
    if (!(g_ascii_isalnum (*c) || *c == '_'))
      return FALSE;
  if (!(t[name_end] == '=' || (t[name_end] == '+' && t[name_end + 1] == '=')
        || (start >= 2 && t[start - 1] == '{' && t[start - 2] == '$')))
    return FALSE;
  if (!r->runs_read)
    {
      r->runs = _pd_redact_run_names (t, r->len, r->depths);
      r->runs_read = TRUE;
    }
  return r->runs != NULL && g_hash_table_contains (r->runs, name);
}

/* Whether @name, a lower case topic (auth, keys…), and
 * the lower case word at @k after its ':' are a command line's
 * topic:command (heroku auth:token). */
static gboolean
cli_topic_command (Redactor   *r,
                   const char *name,
                   gsize       k)
{
  static const char * const topics[] = { "auth", "authorizations", "keys", "tokens", NULL };
  const char *t = r->text;
  gsize e = k;

  if (!_pd_redact_word_in (name, topics))
    return FALSE;
  while (e < r->len && e - k <= 20 && (g_ascii_islower (t[e]) || (e > k && t[e] == '-')))
    e++;
  return e > k && e - k <= 20 && (e >= r->len || strchr (" \t\n;&|)\"", t[e]) != NULL
                                  || (t[e] == '\\' && _pd_redact_depth_at (r->depths, e) > 0));
}

/* Whether the text of the XML element <NAME>…</ at [@start, @end) (its
 * name), the text ending at @ve, is a redirection's word to bash: the
 * < read unquoted, and </NAME not closed by a > that bash finds no word
 * for (the line's, the text's or its JSON string's end, or a <: a syntax
 * error, nothing runs).  : <password>important.db</password empties
 * important.db; masked, its name was hidden (tried as an attacker would). */
static gboolean
xml_value_is_redirection (Redactor *r,
                          gsize     start,
                          gsize     end,
                          gsize     ve)
{
  const char *t = r->text;
  gsize k = ve + 2 + (end - start);
  guint depth = _pd_redact_depth_at (r->depths, ve);

  if (r->states == NULL)
    r->states = _pd_redact_reading_states (t, r->len, r->depths);
  if (!_pd_redact_reading_unquoted (r->states, start - 1))
    return FALSE;
  if (k >= r->len || strncmp (t + ve + 2, t + start, end - start) != 0 || t[k] != '>')
    return TRUE;
  for (k++; k < r->len && (t[k] == ' ' || t[k] == '\t'); k++)
    ;
  return !(k >= r->len || t[k] == '\n' || t[k] == '\r' || t[k] == '<'
           || _pd_redact_depth_at (r->depths, k) < depth
           || (depth > 0 && t[k] == '\\' && k + 1 < r->len && (t[k + 1] == 'n' || t[k + 1] == 'r')));
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
  gsize n;

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

  /* <password>X</password>, <db:password>X</db:password>: an XML
   * element's text (a namespace's prefix before the name). */
  if (bare == name && start > 0 && t[end] == '>' && (t[start - 1] == '<' || t[start - 1] == ':'))
    {
      gsize qs = start;

      if (t[start - 1] == ':')
        {
          for (qs = start - 1; qs > r->copied && start - qs < 64 && is_name_char (t[qs - 1]); qs--)
            ;
          if (qs == start - 1 || qs == r->copied || t[qs - 1] != '<')
            qs = 0;
        }
      if (qs > 0 && _pd_redact_match_at (r, RE_XML, qs, &vs, &ve))
        {
          if (!xml_value_is_redirection (r, qs, end, ve) && _pd_redact_found_value_is_secret (r, vs, ve))
            _pd_redact_span (r, vs, ve);
          return ve;
        }
      if (qs > 0)
        return end;
    }

  /* Settings named by a secret's name with no NAME=value spelling: a YAML
   * block, .NET's <add key="NAME" value="X"/>, SQL's PASSWORD 'X'
   * (pd-redact-settings.c). */
  if (bare == name && ((n = _pd_redact_yaml_block (r, start, end)) > 0 || (n = _pd_redact_add_value (r, start, end)) > 0
                       || (n = _pd_redact_password_literal (r, start, end)) > 0))
    return n;

  /* heroku auth:token, auth:whoami: a command's topic and its command (a
   * word of its own, in lower case, a weak name's), no secret. */
  if (bare == name && t[end] == ':' && (start == 0 || t[start - 1] == ' ' || t[start - 1] == '\t')
      && cli_topic_command (r, name, end + 1))
    return end + 1;

  /* psql --password production_db: a flag (or, of mysql, a value only
   * after '='), the word after it no value. */
  if (bare > name && end < r->len && t[end] != '='
      && (_pd_redact_password_options_at (&r->line, t, start) & PW_LONG_NO_SPACED) != 0)
    return end;
  /* API_KEY=(X), API_KEY+=(X); API_KEY=X\;Y masked whole or kept
   * (pd-redact-assign-forms.c) */
  if (bare == name && end + 1 < r->len && (t[end] == '=' || t[end] == '+')
      && !_pd_redact_assigned_variable_runs (r, name, start, end)
      && ((n = _pd_redact_array_value_at (r, start, end)) != start
          || (n = _pd_redact_escaped_value_at (r, start, end)) != start))
    return n;
  if (_pd_redact_match_at (r, RE_ASSIGN, start, &vs, &ve))
    {
      /* A count is two digits at most: three bytes tell it, and a long
       * value is not copied for it. */
      g_autofree char *value = g_strndup (t + vs, MIN (ve - vs, 3));
      gsize whole = r->joined ? ve : value_goes_on (r, name, end, vs, ve);
      gsize ds = 0, de = 0;
      gsize after = r->joined ? 0 : expansion_default (r, vs, &ds, &de);

      /* Kept in sight, and read for known token shapes only. */
      if (bare == name && _pd_redact_assigned_variable_runs (r, name, start, end))
        {
          r->refused_from = vs;
          r->refused_end = MAX (r->refused_end, MAX (whole, after));
          return MAX (whole, after);
        }
      /* in a JSON string, a value with escapes read as bash reads it
       * (pd-redact-user-word.c) */
      if (!r->joined && (n = _pd_redact_json_assignment_at (r, start, end)) != start)
        return n;
      /* "$'SECRET'": no variable's $, the secret as written (read as
       * bash reads it, pd-redact-user-word.c) */
      if (t[vs] == '$' && vs + 1 < r->len && t[vs + 1] == '\''
          && (n = _pd_redact_dollar_quote_value_at (r, start, end)) != start)
        return n;
      if (after > 0)
        {
          g_autofree char *fallback = g_strndup (t + ds, de - ds);

          if (_pd_redact_value_is_secret (fallback, FALSE))
            _pd_redact_mask_span (r, ds, de, FALSE);
          return after;
        }

      /* A value followed by ( or [ is code (get_key(), env["X"]), not a
       * secret, unless value_goes_on() took it.  Either way the scan goes
       * on after the value, never into it again: each byte is looked at a
       * bounded number of times. */
      if (whole == ve && (ve < r->len && (t[ve] == '(' || t[ve] == '[')))
        return ve;
      /* sed -n 's/^API_TOKEN=//p' .env: the program is code; a literal
       * in it (s/^X=.*\/X=VALUE/) is the value, to the program's '/'. */
      if (bare == name && (n = _pd_redact_program_value (r, start, vs, &whole)) > 0)
        {
          if (whole > vs && _pd_redact_found_value_is_secret (r, vs, whole))
            _pd_redact_span (r, vs, whole);
          return MAX (n, r->copied);
        }
      if ((whole > ve || !_pd_redact_value_is_pass_count (name, value)) && _pd_redact_found_value_is_secret (r, vs, whole))
        _pd_redact_span (r, vs, whole);
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
      && _pd_redact_match_at (r, RE_HOOK, start, &vs, &ve))
    {
      _pd_redact_span (r, vs, ve);
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
  if (at && (_pd_redact_match_at (r, RE_USERINFO, start, &vs, &ve) || _pd_redact_match_at (r, RE_USERTOKEN, start, &vs, &ve)))
    {
      /* mysql://u:x$(id)@h: what the shell runs stays in sight. */
      if (_pd_redact_credential_is_secret (r, vs, ve, FALSE))
        _pd_redact_span (r, vs, ve);
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

/* Where the value at @vs of an Authorization header or a bearer token
 * found from @from is read from as the shell reads its quotes: past a
 * quote that closes one opened right after the scheme, the value is
 * unquoted (Bearer$'\t'TOKEN, Bearer$'\x20'TOKEN: that quote was taken
 * for the one closing the header's word, and the token stored as
 * written; tried as an attacker would), else @from. */
static gsize
scheme_value_from (Redactor *r,
                   gsize     from,
                   gsize     vs)
{
  const char *t = r->text;
  char q = vs > from + 2 ? t[vs - 1] : 0;

  if (q != '\'' && q != '"')
    return from;
  for (gsize k = vs - 1; k > from + 1 && vs - k < 48; k--)
    {
      char c = t[k - 1];

      if (c == q)
        return g_ascii_isalpha (t[k - 2]) || (t[k - 2] == '$' && g_ascii_isalpha (t[k - 3])) ? vs : from;
      if (!(c == ' ' || c == '\t' || c == '\\' || g_ascii_isalnum (c)))
        return from;
    }
  return from;
}

/* Everything that may start at @i.  Returns where the scan goes on (@i
 * when nothing did). */
static gsize
try_at (Redactor *r,
        gsize     i)
{
  const char *p = r->text + i;
  gboolean word_start = i == 0 || !is_word_char (p[-1]);
  gboolean named;
  guint form, forms;
  gsize vs, ve, n;

  r->name_start = i;
  if (word_start && has_key_prefix (p) && _pd_redact_match_at (r, RE_KEY, i, &vs, &ve))
    {
      _pd_redact_mask_span (r, vs, ve, FALSE);
      return ve;
    }
  if (i < r->refused_end)
    return i;  /* inside a value left in sight: known token shapes only */
  /* user = "bob:X", pass X: a line of curl's config (pd-redact-curl-config.c) */
  if ((word_start || (i >= 2 && p[-1] == 'n' && p[-2] == '\\')) && (*p == 'u' || *p == 'p' || *p == 'o')
      && (n = _pd_redact_curl_config_at (r, i)) != i)
    return n;
  /* auth=('bob', 'X'), HTTPBasicAuth('bob', 'X'): code's (pd-redact-code.c) */
  if ((*p == 'a' || *p == 'A') && p[1] == 'u' && (n = _pd_redact_code_auth_at (r, i)) != i)
    return n;
  /* s.login("bob", "X"), btoa("bob:X"): code's calls (pd-redact-code-calls.c) */
  if ((*p == 'l' || *p == 'a' || *p == 'b' || *p == 'e' || *p == 's' || *p == 'u') && word_start
      && (n = _pd_redact_code_call_at (r, i)) != i)
    return n;
  named = g_ascii_isalpha (*p) && has_name_trigger (p);
  /* An HTTP header's word, read as bash reads it (pd-redact-header.c). */
  if (i >= r->header_end && (named || ((*p == 'c' || *p == 'C') && starts_with_ci (p, "cookie")))
      && (n = _pd_redact_header_at (r, i)) != i)
    return n;
  if (*p == '/')
    return _pd_redact_oracle_at (r, i);
  if ((*p == '<' || (word_start && (*p == 'e' || *p == 'p' || *p == 'v' || *p == 'h')))
      && (n = _pd_redact_try_spelling (r, i)) != i)
    return n;
  if (word_start && strchr ("aApPny", *p) != NULL && (n = _pd_redact_try_positional (r, i)) != i)
    return n;
  if ((*p == 'c' || *p == 'C') && starts_with_ci (p, "cookie") && (n = _pd_redact_cookie_at (r, i)) != i)
    return n;
  /* (IDENTIFIED at a line's start in a JSON string too, after its \n) */
  if ((word_start || (i >= 2 && p[-1] == 'n' && p[-2] == '\\' && _pd_redact_depth_at (r->depths, i) > 0))
      && (*p == 'i' || *p == 'I') && (n = _pd_redact_identified_at (r, i)) != i)
    return n;
  if (word_start && *p == 'n' && strncmp (p, "nmcli", 5) == 0 && (p[5] == ' ' || p[5] == '\t')
      && (n = _pd_redact_nmcli_at (r, i)) != i)
    return n;
  if (word_start && (strncmp (p, "npm ", 4) == 0 || strncmp (p, "pnpm ", 5) == 0 || strncmp (p, "yarn ", 5) == 0)
      && (n = _pd_redact_npm_config_at (r, i)) != i)
    return n;
  if (*p == '-' && word_start
      && ((p[1] == 'b' && _pd_redact_option_blank (p + 2))
          || (strncmp (p, "--cookie", 8) == 0 && (p[8] == ' ' || p[8] == '\t' || p[8] == '=')))
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_GLUED_U) != 0
      && (n = _pd_redact_curl_cookie_at (r, i)) != i)
    return n;
  if (*p == '-' && word_start && p[1] == 'u' && _pd_redact_option_blank (p + 2)
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_LFTP_U) != 0)
    {
      if (_pd_redact_match_at (r, RE_LFTP, i, &vs, &ve))
        {
          if (_pd_redact_credential_is_secret (r, vs, ve, ve < r->len && r->text[ve] == '\''))
            _pd_redact_span (r, vs, ve);
          return ve;
        }
      return i + 2;
    }
  if (word_start && (*p == 'a' || *p == 'A' || *p == 'p' || *p == 'P')
      && (starts_with_ci (p, "authorization") || starts_with_ci (p, "proxy-authorization"))
      && _pd_redact_match_at (r, RE_AUTH, i, &vs, &ve))
    {
      /* "Basic "+btoa("bob:X"): a call, no value (the mask took
       * +btoa, the password after it in clear; tried as an attacker
       * would): what it is given is read from there */
      if (ve < r->len && r->text[ve] == '(')
        return vs;
      /* Authorization: Bearer $TOKEN stays as written, single quoted
       * too (-H '…: Bearer $TOKEN' is a placeholder, no token). */
      r->name_start = scheme_value_from (r, i, vs);
      if (_pd_redact_credential_is_secret (r, vs, ve, FALSE))
        _pd_redact_span (r, vs, ve);
      return ve;
    }
  if ((*p == 'b' || *p == 'B') && (i == 0 || !(g_ascii_isalnum (p[-1]) || p[-1] == '_'))
      && starts_with_ci (p, "bearer") && _pd_redact_match_at (r, RE_BEARER, i, &vs, &ve))
    {
      r->name_start = scheme_value_from (r, i, vs);
      if (_pd_redact_credential_is_secret (r, vs, ve, FALSE))
        _pd_redact_span (r, vs, ve);
      return ve;
    }
  if (*p == '-' && word_start && (p[1] == 'U' || strncmp (p, "--user", 6) == 0)
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_SMB_U) != 0 && _pd_redact_match_at (r, RE_SMB, i, &vs, &ve))
    {
      if (_pd_redact_credential_is_secret (r, vs, ve, ve < r->len && r->text[ve] == '\''))
        _pd_redact_span (r, vs, ve);
      return ve;
    }
  /* httpie's -a user:SECRET was stored in clear (its --auth=… was
   * masked by the name; tried as an attacker would) */
  if (*p == '-' && word_start && (p[1] == 'a' || strncmp (p, "--auth", 6) == 0)
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_HTTPIE_A) != 0
      && ((n = _pd_redact_httpie_auth_at (r, i)) != i || (n = _pd_redact_httpie_split_at (r, i)) != i))
    return n;
  /* "-u", -"u", $'-u': curl's -u to bash (pd-redact-user-split.c) */
  if (word_start && *p == '-' && (p[1] == '"' || p[1] == '\'' || p[1] == '\\')
      && (n = _pd_redact_quoted_user_option_at (r, i)) != i)
    return n;
  /* curl's --proxy-pass X, --cert FILE:X, -E FILE:X (pd-redact-curl-options.c) */
  if (*p == '-' && word_start && (p[1] == 'E' || strncmp (p, "--proxy-", 8) == 0 || strncmp (p, "--cert", 6) == 0)
      && (n = _pd_redact_curl_option_at (r, i)) != i)
    return n;
  /* printf 'user bob:%s' X | curl -K- */
  if (*p == 'p' && word_start && strncmp (p, "printf", 6) == 0 && (n = _pd_redact_printf_config_at (r, i)) != i)
    return n;
  /* its user:password word of quoted parts read as bash reads it
   * (pd-redact-user-word.c: -u user:$'SECRET' was stored as written) */
  if (*p == '-' && word_start && ((p[1] == 'u' && (p[2] == ' ' || p[2] == '\t' || p[2] == '='))
                                  || strncmp (p, "--user", 6) == 0 || strncmp (p, "--proxy-user", 12) == 0
                                  || curl_user_option_at (r, i))
      && ((n = _pd_redact_user_word_at (r, i)) != i || (n = _pd_redact_user_split_at (r, i)) != i))
    return n;
  if (*p == '-' && word_start && ((p[1] == 'u' && (p[2] == ' ' || p[2] == '\t' || p[2] == '='))
                                  || strncmp (p, "--user", 6) == 0 || strncmp (p, "--proxy-user", 12) == 0
                                  || curl_user_option_at (r, i))
      && _pd_redact_match_at (r, RE_CURL, i, &vs, &ve))
    {
      /* -u scheme://user:PASSWORD@host is a URL (redis-cli -u): only its
       * password goes (the URL's rule), the host stays in sight (it was
       * masked with it; tried as an attacker would). */
      if (ve - vs >= 2 && r->text[vs] == '/' && r->text[vs + 1] == '/')
        return i + 2;
      /* -u 'user:$x' is the text $x: the shell puts nothing in. */
      if (_pd_redact_credential_is_secret (r, vs, ve, ve < r->len && r->text[ve] == '\''))
        _pd_redact_span (r, vs, ve);
      return ve;
    }
  if (*p == '-' && word_start && (n = _pd_redact_passphrase_option_len (p)) > 0)
    {
      gsize source;

      if (_pd_redact_match_at (r, RE_PASSARG, i, &vs, &ve))
        {
          if (_pd_redact_found_value_is_secret (r, vs, ve))
            _pd_redact_span (r, vs, ve);
          return ve;
        }
      /* -pass env:VAR is no secret, nor a value for the name rule. */
      if ((source = passphrase_source_len (p + n)) > 0)
        return i + n + source;
    }
  /* ssh-keygen's -N and -P, after its flags or glued (-qN X, -NX) */
  if (*p == '-' && word_start && _pd_redact_keygen_option_len (p) > 0
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_KEYGEN) != 0)
    {
      if (_pd_redact_match_at (r, RE_KEYGEN, i, &vs, &ve))
        {
          if (_pd_redact_found_value_is_secret (r, vs, ve))
            _pd_redact_span (r, vs, ve);
          return ve;
        }
      return i + _pd_redact_keygen_option_len (p);
    }
  /* MySQL's --pas=X, a unique prefix of --password its clients take */
  if (*p == '-' && word_start && strncmp (p, "--pas=", 6) == 0
      && (_pd_redact_password_options_at (&r->line, r->text, i) & PW_LONG_PREFIX) != 0)
    {
      if (_pd_redact_match_at (r, RE_ASSIGN, i, &vs, &ve))
        {
          if (_pd_redact_found_value_is_secret (r, vs, ve))
            _pd_redact_span (r, vs, ve);
          return ve;
        }
      return i + 6;
    }
  if (*p == '-' && word_start && (form = _pd_redact_password_option_form (p)) != 0
      && ((forms = _pd_redact_password_options_at (&r->line, r->text, i)) & form) != 0
      /* 7-Zip's -p glued, after no flag (-spf is a switch) */
      && (!(forms & PW_SEVENZIP) || (p[1] == 'p' && p[2] != '='))
      && _pd_redact_match_at (r, form == PW_GLUED_P ? RE_GLUED : (form == PW_GLUED_W || form == PW_GLUED_CAP_P) ? RE_GLUED_WP
                              : form == PW_GROUPED_CAP_P ? RE_GROUPED_CAP_P : form == PW_GLUED_K ? RE_GLUED_K : RE_SPACED,
                   i, &vs, &ve)
      && _pd_redact_found_value_is_secret (r, vs, ve))
    {
      _pd_redact_span (r, vs, ve);
      return ve;
    }
  if (*p == ':' && p[1] == '/' && p[2] == '/')
    return try_url (r, i);
  if ((*p == 'p' || *p == 'P') && word_start && netrc_password_at (r, i)
      && _pd_redact_match_at (r, RE_NETRC, i, &vs, &ve))
    {
      if (_pd_redact_credential_is_secret (r, vs, ve, FALSE))
        _pd_redact_span (r, vs, ve);
      return ve;
    }
  if (named)
    return try_assignment (r, i);
  return i;
}

/* Which bytes may start something: ANYWHERE, a word of a secret-like name
 * (inside names too: DB_PASSWORD, apiKey) or the ':' of "://";
 * AT_WORD_START, a token prefix, Authorization, Bearer, curl's -u, a
 * line of curl's config (user, oauth2-bearer). */
enum { ANYWHERE = 1, AT_WORD_START = 2 };

static const guint8 may_start[256] = {
  ['a'] = ANYWHERE, ['A'] = ANYWHERE | AT_WORD_START, ['c'] = ANYWHERE, ['C'] = ANYWHERE,
  ['k'] = ANYWHERE, ['K'] = ANYWHERE, ['p'] = ANYWHERE | AT_WORD_START, ['P'] = ANYWHERE | AT_WORD_START,
  ['s'] = ANYWHERE | AT_WORD_START, ['S'] = ANYWHERE | AT_WORD_START, ['t'] = ANYWHERE, ['T'] = ANYWHERE,
  [':'] = ANYWHERE, ['/'] = ANYWHERE, ['<'] = ANYWHERE,
  ['r'] = AT_WORD_START, ['v'] = AT_WORD_START, ['g'] = AT_WORD_START, ['n'] = AT_WORD_START, ['x'] = AT_WORD_START,
  ['h'] = AT_WORD_START, ['d'] = AT_WORD_START, ['e'] = AT_WORD_START, ['b'] = AT_WORD_START,
  ['i'] = AT_WORD_START, ['I'] = AT_WORD_START, ['y'] = AT_WORD_START, ['u'] = AT_WORD_START, ['o'] = AT_WORD_START,
  ['B'] = AT_WORD_START, ['-'] = AT_WORD_START, ['l'] = AT_WORD_START,
};

char *
pd_redact (const char *text,
           guint      *n_redacted)
{
  return _pd_redact_counting (text, n_redacted, NULL);
}

char *
_pd_redact_scan (const char *text,
                 gsize       len,
                 guint      *count,
                 gsize      *line_bytes,
                 GArray     *spans)
{
  Redactor r = { 0 };

  r.text = text;
  r.len = len;
  r.spans = spans;
  r.refused_from = G_MAXSIZE;
  r.depths = _pd_redact_json_depths (r.text, r.len);
  _pd_redact_command_line_init (&r.line);
  r.line.depths = r.depths;
  for (gsize i = 0; i < r.len; )
    {
      guchar c = (guchar) r.text[i];
      gsize next;

      /* A word with a quote, a backslash or a $ in it: a header's word
       * whatever its quotes (pd-redact-header.c reads it once). */
      if ((c == '\'' || c == '"' || c == '\\' || c == '$') && i >= r.header_end && i >= r.refused_end
          && (next = _pd_redact_header_at (&r, i)) != i)
        {
          i = MAX (next, r.copied);
          continue;
        }
      /* "-u", '-u', $'-u': an option's name in quotes (pd-redact-user-split.c) */
      if ((c == '\'' || c == '"' || c == '$' || c == '\\') && (i == 0 || !is_word_char (r.text[i - 1]))
          && i + 3 < r.len && memchr (r.text + i + 1, '-', 3) != NULL && i >= r.refused_end
          && (next = _pd_redact_quoted_user_option_at (&r, i)) != i)
        {
          i = MAX (next, r.copied);
          continue;
        }
      /* Most bytes can start nothing: one table lookup, and on. */
      if (!(may_start[c] & ANYWHERE)
          && !((may_start[c] & AT_WORD_START) && (i == 0 || !is_word_char (r.text[i - 1])))
          /* a statement's line in a JSON string starts after its \n, and
           * a line of curl's config after printf's */
          && !((c == 'i' || c == 'I' || c == 'u' || c == 'o') && i >= 2 && r.text[i - 1] == 'n' && r.text[i - 2] == '\\'))
        {
          i++;
          continue;
        }
      next = try_at (&r, i);
      /* A value refused by _pd_redact_span() is scanned again, from its start
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
       * continuation, _pd_redact_span()). */
      i = MAX (i, r.copied);
    }

  *count += r.count;
  if (line_bytes)
    *line_bytes += r.line.bytes_read;
  g_free (r.depths);
  g_free (r.states);
  g_clear_pointer (&r.runs, g_hash_table_unref);
  if (r.out == NULL)
    return NULL;
  g_string_append_len (r.out, r.text + r.copied, r.len - r.copied);
  return g_string_free (r.out, FALSE);
}

char *
_pd_redact_counting (const char *text,
                     guint      *n_redacted,
                     gsize      *line_bytes)
{
  g_autofree char *without_keys = NULL;
  g_autofree char *masked = NULL;
  char *result = NULL;
  guint pem_count = 0;
  guint known_count = 0;
  guint count = 0;
  gsize bytes = 0;

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
  if (without_keys != NULL)
    text = without_keys;

  /* As bash reads it: its line continuations taken out, when it holds
   * any (pd-redact-continuation.c: mysql \<newline> -pX). */
  if (!_pd_redact_continued (text, &result, &count, &bytes))
    result = _pd_redact_scan (text, strlen (text), &count, &bytes, NULL);
  if (result == NULL)
    result = g_strdup (text);

  if (n_redacted)
    *n_redacted = known_count + pem_count + count;
  if (line_bytes)
    *line_bytes = bytes;
  return result;
}

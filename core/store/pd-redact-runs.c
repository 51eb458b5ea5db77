/* pd-redact-runs.c: the shell variables a text runs.
 *
 * A value assigned to a variable the shell then runs is a command:
 * API_TOKEN=reboot; eval "$API_TOKEN" masked as API_TOKEN=[REDACTED] hid
 * reboot from whoever approves the command (tried as an attacker would).
 * One pass over the text reads it as bash would, word by word, and names
 * the variables expanded where what they hold runs:
 *  - in a command's word ($TOKEN, "${TOKEN}", also in $(…), `…`, after
 *    a keyword, and after a precommand: exec, env, sudo, doas, nohup,
 *    time, command, builtin, nice, ionice, timeout, xargs, parallel,
 *    stdbuf, setsid, unbuffer, flock, strace…, its options skipped);
 *  - in any word of eval, source, ., watch, and of ssh after its host;
 *  - in the code of a shell (sh, bash, zsh, dash, ksh, mksh, ash, su:
 *    the word after -c, a script's path) or an interpreter (python -c,
 *    perl -e, node -e / -p, ruby -e, php -r, python -m, a script's path),
 *    a here-string (<<<) into one, or what the stage before a pipe into
 *    one (or into xargs, parallel) writes: echo "$X" | sh.
 * In eval's words and in code any $NAME counts, quoted or escaped: the
 * code expands it when it runs.  What runs passes on: a variable given
 * another's value (X=$T; eval "$X"), a loop's (for t in $T; do $t; done),
 * the words of an alias of the text (alias go=eval; go "$T"), of a
 * program named by a variable the text sets (x=eval; $x "$T"), and of the
 * calls of a function of the text when the text runs $1…, $@ or $*
 * (run() { eval "$1"; }; run "$T").  The text is read as it stands, and each
 * JSON string in it (pd-redact-private.h's depths) as a text of its own,
 * read through its escapes (a tool call's {"command":"…"}), the strings
 * held in it left out, and once more with them unless it is a JSON
 * document (shell quotes can be taken for JSON strings).  Where the
 * reading is unsure it names more: a value kept in sight is a leak, the
 * lesser harm.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact-private.h"

/* What a command does with its words. */
typedef enum
{
  CMD_START,   /* the next word that is no assignment, keyword or redirection is its command */
  CMD_PLAIN,   /* its words are data */
  CMD_ALL,     /* its words are code */
  CMD_PRE,     /* a precommand: its next word that is no option runs */
  CMD_SHELL,   /* a shell: the word after -c, or a script's path, is code */
  CMD_INTERP,  /* an interpreter: the word after -c, -e…, or a script's path, is code */
  CMD_SSH,     /* ssh: its host, then its command */
  CMD_FIND,    /* find: the words after -exec, -execdir, -ok, -okdir run */
  CMD_FOR,     /* for NAME in WORDS: NAME takes what the words hold */
  CMD_FUNC,    /* function NAME: a function of the text */
  CMD_FUNC_CALL, /* a function or alias of the text: its words may run */
} CmdMode;

typedef struct
{
  CmdMode     mode;
  const char *arg_opts;   /* the options (letters) that take the next word */
  const char *code_opts;  /* the options after which the next word is code */
  gboolean    stdin_runs; /* the command runs what it reads (sh, python, xargs…) */
  gboolean    after_pipe; /* its stage follows a pipe */
  gboolean    skip_next;  /* the next word is an option's argument */
  gboolean    code_next;  /* the next word is code */
  gboolean    redirect;   /* the next word is a redirection's */
  gboolean    herestring; /* …and a here-string's */
  gboolean    duration;   /* timeout's duration is still to come */
  gboolean    user;       /* su's user is still to come: no script's path */
  gboolean    input;      /* …an input's (<, <<<, < <(…)) */
  gboolean    alias;      /* alias: its NAME=… names a command of the text */
  gsize       var;        /* for's NAME (var_len 0: still to come) */
  gsize       var_len;
} Cmd;

/* A reading inside $(…), `…` or <(…), or the text's own. */
typedef struct
{
  Cmd     cmd;
  char    quote;        /* 0, ' " or A ($'…') */
  char    closes;       /* what ends it: ) or ` (0: the text's) */
  guint   parens;       /* subshells open in it */
  gsize   word;         /* where its word in progress starts (G_MAXSIZE: none) */
  GArray *real;         /* the expansions of that word bash performs: (start, length) */
  gboolean positional;  /* and one of them is $1…, $@ or $* */
} Ctx;

#define CTX_MAX 16

/* What the text defines a command's name as (Lexer's functions). */
enum { DEFINED_FUNCTION = 1, DEFINED_ALIAS = 2 };

typedef struct
{
  const char *s;
  gsize       n;
  GHashTable *names;    /* the names that run */
  GHashTable *deps;     /* a name assigned → the names its values expand (GPtrArray) */
  GHashTable *assigned; /* the names the text assigns */
  GHashTable *functions; /* the functions and aliases the text defines */
  GPtrArray  *fn_args;  /* the names the calls of those expand */
  gboolean    positional_runs; /* $1…, $@ or $* runs: a function runs its arguments */
  Ctx         ctx[CTX_MAX];
  guint       depth;    /* ctx[depth] is the reading */
  guint       overflow; /* substitutions opened past CTX_MAX: every name there runs */
  GArray     *stage;    /* the names the pipeline's stage in progress expands */
  GArray     *piped;    /* and those of the stage before its pipe */
} Lexer;

typedef struct
{
  gsize start;
  gsize len;
} Span;

static void
add_name (Lexer *x,
          gsize  start,
          gsize  len)
{
  if (len > 0 && len <= 256)
    g_hash_table_add (x->names, g_strndup (x->s + start, len));
}

static void
add_spans (Lexer  *x,
           GArray *spans)
{
  for (guint i = 0; i < spans->len; i++)
    add_name (x, g_array_index (spans, Span, i).start, g_array_index (spans, Span, i).len);
}

static inline gboolean
is_name_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static inline gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* The name of an expansion whose $ is at @p ($NAME, ${NAME…}, ${!NAME},
 * ${#NAME}): its start in *@start, its length returned, or 0. */
static gsize
expansion_name (const Lexer *x,
                gsize        p,
                gsize       *start)
{
  gsize k = p + 1;

  if (k < x->n && x->s[k] == '{')
    {
      k++;
      if (k < x->n && (x->s[k] == '!' || x->s[k] == '#'))
        k++;
    }
  if (k >= x->n || !is_name_start (x->s[k]))
    return 0;
  *start = k;
  while (k < x->n && is_name_char (x->s[k]))
    k++;
  return k - *start;
}

/* Whether the $ at @p expands a positional parameter: $1…$9, $@, $*,
 * ${1…}, ${@…}, ${*…}. */
static gboolean
positional_at (const Lexer *x,
               gsize        p)
{
  gsize k = p + 1;

  if (k < x->n && x->s[k] == '{')
    k++;
  return k < x->n && x->s[k] != '0' && (g_ascii_isdigit (x->s[k]) || x->s[k] == '@' || x->s[k] == '*');
}

/* Every $NAME written in [a, b), whatever its quoting, to @spans (NULL:
 * the names that run). */
static void
text_names (Lexer  *x,
            gsize   a,
            gsize   b,
            GArray *spans)
{
  for (gsize k = a; k < b; k++)
    {
      gsize start, len;

      if (x->s[k] == '$' && spans == NULL && positional_at (x, k))
        x->positional_runs = TRUE;
      if (x->s[k] != '$' || (len = expansion_name (x, k, &start)) == 0)
        continue;
      if (spans != NULL)
        g_array_append_val (spans, ((Span) { start, len }));
      else
        add_name (x, start, len);
    }
}

/* The names @target [target, target + target_len) takes from [a, b):
 * when it runs, so do they (X=$T; eval "$X"). */
static void
add_edges (Lexer *x,
           gsize  target,
           gsize  target_len,
           gsize  a,
           gsize  b)
{
  g_autofree char *name = NULL;
  GPtrArray *to;

  if (target_len == 0 || target_len > 256 || memchr (x->s + a, '$', b - a) == NULL)
    return;
  name = g_strndup (x->s + target, target_len);
  to = g_hash_table_lookup (x->deps, name);
  if (to == NULL)
    {
      to = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (x->deps, g_steal_pointer (&name), to);
    }
  for (gsize k = a; k < b; k++)
    {
      gsize start, len;

      if (x->s[k] == '$' && (len = expansion_name (x, k, &start)) > 0 && len <= 256 && to->len < 4096)
        g_ptr_array_add (to, g_strndup (x->s + start, len));
    }
}

/* The length of the name an assignment word at @w names (NAME=…), or 0. */
static gsize
assigned_name_len (const char *w,
                   gsize       len)
{
  gsize k = 0;

  while (k < len && is_name_char (w[k]))
    k++;
  return k;
}

static void
cmd_reset (Cmd     *cmd,
           gboolean after_pipe)
{
  *cmd = (Cmd) { .mode = CMD_START, .after_pipe = after_pipe };
}

static gboolean
word_in (const char         *word,
         const char * const *set)
{
  return _pd_redact_word_in (word, set);
}

/* Whether the word is an assignment: NAME=, NAME+=, NAME[…]=. */
static gboolean
is_assignment (const char *w,
               gsize       len)
{
  gsize k = 0;

  if (len == 0 || !is_name_start (w[0]))
    return FALSE;
  while (k < len && is_name_char (w[k]))
    k++;
  if (k < len && w[k] == '[')
    while (k < len && w[k] != ']')
      k++;
  if (k < len && w[k] == ']')
    k++;
  if (k < len && w[k] == '+')
    k++;
  return k < len && w[k] == '=';
}

/* What the command named @base does with its words. */
static void
classify (Cmd        *cmd,
          const char *base)
{
  static const char * const all[] = { "eval", "source", ".", "watch", "trap", "alias", NULL };
  static const char * const shells[] = { "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "su", NULL };
  static const char * const pre[] = {
    "exec", "env", "sudo", "doas", "nohup", "time", "command", "builtin", "nice", "ionice", "timeout",
    "xargs", "parallel", "stdbuf", "setsid", "unbuffer", "flock", "strace", "ltrace", "chrt", "taskset",
    "caffeinate", "runuser", "sg", "fakeroot", "catchsegv", "nsenter", "unshare", "systemd-run", NULL,
  };

  if (word_in (base, all))
    {
      cmd->mode = CMD_ALL;
      cmd->alias = strcmp (base, "alias") == 0;
    }
  else if (strcmp (base, "for") == 0 || strcmp (base, "select") == 0)
    cmd->mode = CMD_FOR;
  else if (strcmp (base, "function") == 0)
    cmd->mode = CMD_FUNC;
  else if (word_in (base, shells))
    {
      cmd->mode = CMD_SHELL;
      cmd->code_opts = "c";
      cmd->arg_opts = strcmp (base, "su") == 0 ? "sgGw" : "oO";
      cmd->stdin_runs = TRUE;
      cmd->user = strcmp (base, "su") == 0;
    }
  else if (g_str_has_prefix (base, "python") || g_str_has_prefix (base, "pypy"))
    {
      cmd->mode = CMD_INTERP;
      cmd->code_opts = "cm";
      cmd->arg_opts = "WX";
      cmd->stdin_runs = TRUE;
    }
  else if (g_str_has_prefix (base, "perl") || strcmp (base, "ruby") == 0 || strcmp (base, "node") == 0
           || strcmp (base, "nodejs") == 0 || strcmp (base, "php") == 0 || strcmp (base, "deno") == 0
           || strcmp (base, "bun") == 0 || strcmp (base, "lua") == 0 || strcmp (base, "Rscript") == 0)
    {
      cmd->mode = CMD_INTERP;
      cmd->code_opts = base[0] == 'p' && base[1] == 'h' ? "r" : base[0] == 'n' ? "ep" : "eE";
      cmd->arg_opts = base[0] == 'p' && base[1] == 'e' ? "IMm" : base[0] == 'r' ? "Ir" : "";
      cmd->stdin_runs = TRUE;
    }
  else if (strcmp (base, "awk") == 0 || strcmp (base, "gawk") == 0 || strcmp (base, "mawk") == 0
           || strcmp (base, "nawk") == 0 || strcmp (base, "sed") == 0 || strcmp (base, "gsed") == 0)
    {
      /* awk's program (system()), sed's script (its e command). */
      cmd->mode = CMD_INTERP;
      cmd->code_opts = base[0] == 'a' || base[1] == 'a' ? "f" : "ef";
      cmd->arg_opts = base[0] == 'a' || base[1] == 'a' ? "vF" : "l";
    }
  else if (strcmp (base, "find") == 0)
    cmd->mode = CMD_FIND;
  else if (strcmp (base, "ssh") == 0)
    {
      cmd->mode = CMD_SSH;
      cmd->arg_opts = "BbcDEeFIiJLlmOopQRSWw";
    }
  else if (word_in (base, pre))
    {
      cmd->mode = CMD_PRE;
      cmd->stdin_runs = strcmp (base, "xargs") == 0 || strcmp (base, "parallel") == 0;
      cmd->duration = strcmp (base, "timeout") == 0;
      cmd->code_opts = strcmp (base, "env") == 0 ? "S" : "";
      if (strcmp (base, "sudo") == 0)
        cmd->arg_opts = "ughpCDrtUT";
      else if (strcmp (base, "doas") == 0 || strcmp (base, "runuser") == 0)
        cmd->arg_opts = "uCgl";
      else if (strcmp (base, "env") == 0)
        cmd->arg_opts = "uC";
      else if (strcmp (base, "exec") == 0)
        cmd->arg_opts = "a";
      else if (strcmp (base, "time") == 0)
        cmd->arg_opts = "fo";
      else if (strcmp (base, "nice") == 0 || strcmp (base, "ionice") == 0)
        cmd->arg_opts = "ncp";
      else if (strcmp (base, "timeout") == 0)
        cmd->arg_opts = "sk";
      else if (strcmp (base, "xargs") == 0)
        cmd->arg_opts = "IndPaELs";
      else if (strcmp (base, "stdbuf") == 0)
        cmd->arg_opts = "ioe";
      else if (strcmp (base, "strace") == 0 || strcmp (base, "ltrace") == 0)
        cmd->arg_opts = "eopsuSaAXPI";
      else if (strcmp (base, "flock") == 0)
        cmd->arg_opts = "wEc";
      else
        cmd->arg_opts = "";
    }
  else
    cmd->mode = CMD_PLAIN;
}

/* The options of the word @w (@len bytes) that starts with '-': whether
 * one says the next word is code (*@code) or an argument (*@arg). */
static void
read_option (const Cmd  *cmd,
             const char *w,
             gsize       len,
             gboolean   *code,
             gboolean   *arg)
{
  *code = *arg = FALSE;
  if (len >= 2 && w[1] == '-')
    {
      *code = (len == 6 && strncmp (w, "--eval", 6) == 0) || (len == 7 && strncmp (w, "--print", 7) == 0)
              || (len == 9 && strncmp (w, "--command", 9) == 0);
      *arg = (len == 8 && strncmp (w, "--rcfile", 8) == 0) || (len == 11 && strncmp (w, "--init-file", 11) == 0)
             || (len == 6 && strncmp (w, "--user", 6) == 0);
      return;
    }
  for (gsize k = 1; k < len && g_ascii_isalpha (w[k]); k++)
    {
      if (cmd->code_opts != NULL && strchr (cmd->code_opts, w[k]) != NULL)
        *code = TRUE;
      /* An argument glued to its option (-uroot) takes no word. */
      *arg = cmd->arg_opts != NULL && strchr (cmd->arg_opts, w[k]) != NULL && k + 1 == len;
      if (cmd->arg_opts != NULL && strchr (cmd->arg_opts, w[k]) != NULL)
        break;
    }
}

/* The command's word [a, b) in the reading @c: names what runs. */
static void
command_word (Lexer *x,
              Ctx   *c,
              gsize  a,
              gsize  b)
{
  static const char * const keywords[] = {
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac", NULL,
  };
  Cmd *cmd = &c->cmd;
  g_autofree char *word = g_strndup (x->s + a, MIN (b - a, 256));
  const char *base;

  if (cmd->mode == CMD_START && (is_assignment (x->s + a, b - a) || word_in (word, keywords)))
    return;
  if (cmd->mode == CMD_PRE)
    {
      gboolean code, arg;

      if (word[0] == '-' && word[1] != '\0')
        {
          read_option (cmd, word, strlen (word), &code, &arg);
          cmd->code_next = code;
          cmd->skip_next = arg;
          return;
        }
      if (is_assignment (x->s + a, b - a))
        return;  /* env A=1 cmd */
      if (cmd->duration && g_ascii_isdigit (word[0]))
        {
          cmd->duration = FALSE;
          return;
        }
    }
  add_spans (x, c->real);
  _pd_redact_unquote_word (word);
  base = strrchr (word, '/');
  base = base != NULL ? base + 1 : word;
  if (c->positional)
    x->positional_runs = TRUE;
  {
    gboolean after_pipe = cmd->after_pipe;
    gboolean assigned = FALSE;

    /* A program named by a variable the text assigns (x=eval; $x "$T"):
     * what it does with its words is unknown, they may run. */
    for (guint i = 0; i < c->real->len && !assigned; i++)
      {
        g_autofree char *name = g_strndup (x->s + g_array_index (c->real, Span, i).start,
                                           g_array_index (c->real, Span, i).len);

        assigned = g_hash_table_contains (x->deps, name) || g_hash_table_contains (x->assigned, name);
      }
    cmd_reset (cmd, after_pipe);
    if (assigned)
      cmd->mode = CMD_ALL;
    else if (g_hash_table_lookup (x->functions, base) == GINT_TO_POINTER (DEFINED_ALIAS))
      cmd->mode = CMD_ALL;  /* its words go after the alias's text */
    else if (g_hash_table_lookup (x->functions, base) == GINT_TO_POINTER (DEFINED_FUNCTION))
      cmd->mode = CMD_FUNC_CALL;
    else
      classify (cmd, base);
    /* Once named, not again (echo "$X" | sh | sh | … stays linear). */
    if (after_pipe && cmd->stdin_runs)
      {
        add_spans (x, x->piped);
        g_array_set_size (x->piped, 0);
      }
  }
}

/* The word [a, b) of the reading @c is whole. */
static void
end_word (Lexer *x,
          Ctx   *c,
          gsize  a,
          gsize  b)
{
  Cmd *cmd = &c->cmd;
  gboolean code, arg;
  gsize assigned = is_assignment (x->s + a, b - a) ? assigned_name_len (x->s + a, b - a) : 0;

  text_names (x, a, b, x->stage);
  if (assigned > 0 && !cmd->redirect)
    {
      g_hash_table_add (x->assigned, g_strndup (x->s + a, assigned));
      add_edges (x, a, assigned, a + assigned, b);
      if (cmd->alias)
        g_hash_table_insert (x->functions, g_strndup (x->s + a, assigned), GINT_TO_POINTER (DEFINED_ALIAS));
    }
  if (cmd->redirect)
    {
      /* What a shell reads from its input runs: <<< "$X", < <(echo "$X"). */
      if (cmd->input && cmd->stdin_runs)
        text_names (x, a, b, NULL);
      cmd->redirect = cmd->herestring = cmd->input = FALSE;
      return;
    }
  if (cmd->skip_next)
    {
      cmd->skip_next = FALSE;
      return;
    }
  if (cmd->code_next)
    {
      text_names (x, a, b, NULL);
      cmd->code_next = FALSE;
      if (cmd->mode != CMD_PRE)
        cmd->mode = CMD_PLAIN;  /* the words after the code are its arguments */
      return;
    }
  switch (cmd->mode)
    {
    case CMD_START:
    case CMD_PRE:
      command_word (x, c, a, b);
      break;
    case CMD_ALL:
      text_names (x, a, b, NULL);
      break;
    case CMD_SHELL:
    case CMD_INTERP:
    case CMD_SSH:
      if (x->s[a] == '-' && b - a > 1)
        {
          read_option (cmd, x->s + a, b - a, &code, &arg);
          cmd->code_next = code;
          cmd->skip_next = arg;
        }
      else if (cmd->user)
        cmd->user = FALSE;  /* su's user, then its options */
      else if (!(b - a == 1 && x->s[a] == '-'))
        {
          /* A script's path, or ssh's host. */
          if (cmd->mode != CMD_SSH)
            text_names (x, a, b, NULL);
          cmd->mode = cmd->mode == CMD_SSH ? CMD_ALL : CMD_PLAIN;
        }
      break;
    case CMD_FIND:
      if (b - a >= 3 && x->s[a] == '-'
          && ((b - a == 5 && strncmp (x->s + a, "-exec", 5) == 0) || (b - a == 8 && strncmp (x->s + a, "-execdir", 8) == 0)
              || (b - a == 3 && strncmp (x->s + a, "-ok", 3) == 0) || (b - a == 6 && strncmp (x->s + a, "-okdir", 6) == 0)))
        cmd->mode = CMD_ALL;
      break;
    case CMD_FOR:
      if (cmd->var_len == 0)
        {
          cmd->var = a;
          cmd->var_len = assigned_name_len (x->s + a, b - a) == b - a ? b - a : 0;
          if (cmd->var_len == 0)
            cmd->mode = CMD_PLAIN;
        }
      else
        add_edges (x, cmd->var, cmd->var_len, a, b);
      break;
    case CMD_FUNC:
      {
        g_autofree char *name = g_strndup (x->s + a, MIN (b - a, 256));
        char *paren = strchr (name, '(');

        if (paren != NULL)
          *paren = '\0';
        g_hash_table_insert (x->functions, g_steal_pointer (&name), GINT_TO_POINTER (DEFINED_FUNCTION));
        cmd_reset (cmd, FALSE);
      }
      break;
    case CMD_FUNC_CALL:
      {
        GArray *spans = g_array_new (FALSE, FALSE, sizeof (Span));

        text_names (x, a, b, spans);
        for (guint i = 0; i < spans->len && x->fn_args->len < 65536; i++)
          g_ptr_array_add (x->fn_args, g_strndup (x->s + g_array_index (spans, Span, i).start,
                                                  g_array_index (spans, Span, i).len));
        g_array_free (spans, TRUE);
      }
      break;
    case CMD_PLAIN:
    default:
      break;
    }
}

static void
close_word (Lexer *x,
            gsize  at)
{
  Ctx *c = &x->ctx[x->depth];

  if (c->word != G_MAXSIZE)
    end_word (x, c, c->word, at);
  c->word = G_MAXSIZE;
  c->positional = FALSE;
  g_array_set_size (c->real, 0);
}

/* A command ends (@pipe: at a pipe, its output into the next). */
static void
end_command (Lexer   *x,
             gsize    at,
             gboolean pipe)
{
  Ctx *c = &x->ctx[x->depth];

  close_word (x, at);
  /* What a pipeline's stages write goes on through each (echo "$X" |
   * tee f | sh): the names of every stage before. */
  if (pipe)
    g_array_append_vals (x->piped, x->stage->data, x->stage->len);
  else
    g_array_set_size (x->piped, 0);
  g_array_set_size (x->stage, 0);
  cmd_reset (&c->cmd, pipe);
}

/* A substitution opens ($(, <(, `): a reading of its own. */
static void
push (Lexer *x,
      char   closes)
{
  Ctx *c;

  if (x->depth + 1 >= CTX_MAX || x->overflow > 0)
    {
      x->overflow++;
      return;
    }
  c = &x->ctx[++x->depth];
  cmd_reset (&c->cmd, FALSE);
  c->quote = 0;
  c->closes = closes;
  c->parens = 0;
  c->word = G_MAXSIZE;
  g_array_set_size (c->real, 0);
}

static void
pop (Lexer *x,
     gsize  at)
{
  if (x->overflow > 0)
    {
      x->overflow--;
      return;
    }
  close_word (x, at);
  x->depth--;
}

/* The $ at @k, unescaped outside '…': an expansion bash performs. */
static void
dollar (Lexer *x,
        gsize  k)
{
  gsize start, len = expansion_name (x, k, &start);

  if (positional_at (x, k))
    x->ctx[x->depth].positional = TRUE;
  if (len == 0)
    return;
  if (x->overflow > 0)
    add_name (x, start, len);
  else
    g_array_append_val (x->ctx[x->depth].real, ((Span) { start, len }));
}

/* Reads the text @s (@n bytes) as bash would. */
static void
lex (Lexer      *x,
     const char *s,
     gsize       n)
{
  gboolean escape = FALSE;

  x->s = s;
  x->n = n;
  x->depth = 0;
  x->overflow = 0;
  g_array_set_size (x->stage, 0);
  g_array_set_size (x->piped, 0);
  cmd_reset (&x->ctx[0].cmd, FALSE);
  x->ctx[0].quote = 0;
  x->ctx[0].closes = 0;
  x->ctx[0].parens = 0;
  x->ctx[0].word = G_MAXSIZE;
  g_array_set_size (x->ctx[0].real, 0);
  for (gsize k = 0; k < n; k++)
    {
      Ctx *c = &x->ctx[x->depth];
      char ch = s[k];

      if (escape)
        {
          escape = FALSE;
          if (c->word == G_MAXSIZE && !(ch == '\n' && c->quote == 0))
            c->word = k - 1;
          continue;
        }
      if (c->quote == '\'')
        {
          if (ch == '\'')
            c->quote = 0;
          continue;
        }
      if (c->quote == 'A')
        {
          if (ch == '\\')
            escape = TRUE;
          else if (ch == '\'')
            c->quote = 0;
          continue;
        }
      if (ch == '\\')
        {
          escape = TRUE;
          continue;
        }
      if (ch == '$' && k + 1 < n && s[k + 1] == '(')
        {
          if (c->word == G_MAXSIZE)
            c->word = k;
          push (x, ')');
          k++;
          continue;
        }
      if (ch == '`')
        {
          if (c->word == G_MAXSIZE && c->closes != '`')
            c->word = k;
          if (c->closes == '`' && x->overflow == 0)
            pop (x, k);
          else
            push (x, '`');
          continue;
        }
      if (ch == '$')
        {
          if (c->word == G_MAXSIZE)
            c->word = k;
          dollar (x, k);
          if (c->quote == 0 && k + 1 < n && s[k + 1] == '\'')
            {
              c->quote = 'A';
              k++;
            }
          continue;
        }
      if (c->quote == '"')
        {
          if (ch == '"')
            c->quote = 0;
          continue;
        }
      /* Unquoted. */
      if (ch == '\'' || ch == '"')
        {
          if (c->word == G_MAXSIZE)
            c->word = k;
          c->quote = ch;
          continue;
        }
      if (ch == '#' && c->word == G_MAXSIZE)
        {
          while (k + 1 < n && s[k + 1] != '\n')
            k++;
          continue;
        }
      if (ch == ' ' || ch == '\t' || ch == '\r')
        {
          close_word (x, k);
          continue;
        }
      if (ch == '\n' || ch == ';')
        {
          end_command (x, k, FALSE);
          continue;
        }
      if (ch == '&')
        {
          if (k + 1 < n && s[k + 1] == '>')
            {
              close_word (x, k);
              c->cmd.redirect = TRUE;
              k++;
              continue;
            }
          end_command (x, k, FALSE);
          if (k + 1 < n && s[k + 1] == '&')
            k++;
          continue;
        }
      if (ch == '|')
        {
          gboolean pipe = !(k + 1 < n && s[k + 1] == '|');

          end_command (x, k, pipe);
          if (k + 1 < n && (s[k + 1] == '|' || s[k + 1] == '&'))
            k++;
          continue;
        }
      if ((ch == '<' || ch == '>') && k + 1 < n && s[k + 1] == '(')
        {
          if (c->word == G_MAXSIZE)
            c->word = k;
          push (x, ')');
          k++;
          continue;
        }
      if (ch == '<' || ch == '>')
        {
          gboolean here = k + 2 < n && ch == '<' && s[k + 1] == '<' && s[k + 2] == '<';

          /* 2>&1: the descriptor before it is the redirection's. */
          if (c->word != G_MAXSIZE && k - c->word <= 2 && g_ascii_isdigit (s[c->word]))
            {
              c->word = G_MAXSIZE;
              g_array_set_size (c->real, 0);
            }
          close_word (x, k);
          c->cmd.redirect = TRUE;
          c->cmd.herestring = here;
          c->cmd.input = ch == '<';
          while (k + 1 < n && strchr ("<>&|-", s[k + 1]) != NULL)
            k++;
          continue;
        }
      if (ch == '(' && c->word != G_MAXSIZE && c->cmd.mode == CMD_START && k + 1 < n && s[k + 1] == ')')
        {
          /* NAME(): a function of the text, defined. */
          g_hash_table_insert (x->functions, g_strndup (s + c->word, MIN (k - c->word, 256)),
                               GINT_TO_POINTER (DEFINED_FUNCTION));
          c->word = G_MAXSIZE;
          g_array_set_size (c->real, 0);
          k++;
          continue;
        }
      if (ch == '(')
        {
          end_command (x, k, FALSE);
          c->parens++;
          continue;
        }
      if (ch == ')')
        {
          if (c->parens > 0)
            {
              end_command (x, k, FALSE);
              c->parens--;
            }
          else if (c->closes == ')' || x->overflow > 0)
            pop (x, k);
          else
            end_command (x, k, FALSE);
          continue;
        }
      if (c->word == G_MAXSIZE)
        c->word = k;
    }
  while (x->depth > 0)
    pop (x, n);
  end_command (x, n, FALSE);
}

/* The text of the JSON string at [a, b) read through its escapes, once,
 * in place: its length. */
static gsize
json_unescape (char  *s,
               gsize  n)
{
  gsize o = 0;

  for (gsize k = 0; k < n; k++)
    {
      if (s[k] != '\\' || k + 1 >= n)
        {
          s[o++] = s[k];
          continue;
        }
      k++;
      switch (s[k])
        {
        case 'n': s[o++] = '\n'; break;
        case 'r': s[o++] = '\r'; break;
        case 't': s[o++] = '\t'; break;
        case 'b': case 'f': s[o++] = ' '; break;
        case 'u':
          if (k + 4 < n && g_ascii_isxdigit (s[k + 1]) && g_ascii_isxdigit (s[k + 2])
              && g_ascii_isxdigit (s[k + 3]) && g_ascii_isxdigit (s[k + 4]))
            {
              guint v = g_ascii_xdigit_value (s[k + 1]) << 12 | g_ascii_xdigit_value (s[k + 2]) << 8
                        | g_ascii_xdigit_value (s[k + 3]) << 4 | g_ascii_xdigit_value (s[k + 4]);

              s[o++] = v > 0 && v < 0x80 ? (char) v : 'x';
              k += 4;
            }
          else
            s[o++] = 'x';
          break;
        default:
          s[o++] = s[k];  /* \" \\ \/ */
          break;
        }
    }
  return o;
}

/* Whether @t is one JSON document (a tool call's arguments): then the
 * strings found in it are its strings. */
static gboolean
is_json_document (const char *t,
                  gsize       len)
{
  g_autoptr(JsonParser) parser = NULL;
  gsize k = 0;

  while (k < len && g_ascii_isspace (t[k]))
    k++;
  if (k >= len || (t[k] != '{' && t[k] != '['))
    return FALSE;
  parser = json_parser_new_immutable ();
  return json_parser_load_from_data (parser, t, (gssize) len, NULL);
}

GHashTable *
_pd_redact_run_names (const char   *t,
                      gsize         len,
                      const guint8 *depths)
{
  Lexer x = { 0 };
  guint deepest = 0;

  if (memchr (t, '$', len) == NULL)
    return NULL;
  x.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  x.deps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  x.assigned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  x.functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  x.fn_args = g_ptr_array_new_with_free_func (g_free);
  x.stage = g_array_new (FALSE, FALSE, sizeof (Span));
  x.piped = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint i = 0; i < CTX_MAX; i++)
    x.ctx[i].real = g_array_new (FALSE, FALSE, sizeof (Span));

  if (depths == NULL)
    lex (&x, t, len);
  else
    {
      g_autofree char *view = g_malloc (len + 1);
      g_autofree char *whole = g_malloc (len + 1);

      for (gsize k = 0; k < len; k++)
        deepest = MAX (deepest, _pd_redact_depth_at (depths, k));
      /* The text, then each JSON string as a text of its own, read through
       * its escapes (@level times), the strings held in it each an x; and
       * each once more with the strings held in it, unless it is a JSON
       * document: shell quotes can be taken for JSON strings (echo
       * '{"b":"' ; eval "$T" ; echo '"}' left the eval out of every view,
       * tried as an attacker would).  More names is the lesser harm. */
      for (guint level = 0; level <= deepest; level++)
        for (gsize k = 0; k < len; )
          {
            gsize e = k, n = 0, m;
            gboolean held = FALSE;

            if (_pd_redact_depth_at (depths, k) < level)
              {
                k++;
                continue;
              }
            while (e < len && _pd_redact_depth_at (depths, e) >= level)
              {
                held = held || _pd_redact_depth_at (depths, e) > level;
                view[n] = _pd_redact_depth_at (depths, e) > level ? 'x' : t[e];
                whole[n++] = t[e];
                e++;
              }
            m = n;
            for (guint l = 0; l < level; l++)
              n = json_unescape (view, n);
            lex (&x, view, n);
            if (held)
              {
                for (guint l = 0; l < level; l++)
                  m = json_unescape (whole, m);
                if (!is_json_document (whole, m))
                  lex (&x, whole, m);
              }
            k = e;
          }
    }

  /* A function that runs its arguments runs what its calls give it. */
  if (x.positional_runs)
    for (guint i = 0; i < x.fn_args->len; i++)
      g_hash_table_add (x.names, g_strdup (g_ptr_array_index (x.fn_args, i)));
  /* What a variable that runs was given runs: X=$T; eval "$X" runs T's,
   * for t in $T; do $t; done too.  Each name is followed once. */
  {
    g_autoptr(GPtrArray) work = g_ptr_array_new ();
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, x.names);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      g_ptr_array_add (work, key);
    while (work->len > 0)
      {
        GPtrArray *to = g_hash_table_lookup (x.deps, g_ptr_array_steal_index_fast (work, work->len - 1));

        for (guint i = 0; to != NULL && i < to->len; i++)
          if (!g_hash_table_contains (x.names, g_ptr_array_index (to, i)))
            {
              char *name = g_strdup (g_ptr_array_index (to, i));

              g_hash_table_add (x.names, name);
              g_ptr_array_add (work, name);
            }
      }
  }
  for (guint i = 0; i < CTX_MAX; i++)
    g_array_free (x.ctx[i].real, TRUE);
  g_array_free (x.stage, TRUE);
  g_array_free (x.piped, TRUE);
  g_hash_table_unref (x.deps);
  g_hash_table_unref (x.assigned);
  g_hash_table_unref (x.functions);
  g_ptr_array_unref (x.fn_args);
  if (g_hash_table_size (x.names) == 0)
    g_clear_pointer (&x.names, g_hash_table_unref);
  return x.names;
}

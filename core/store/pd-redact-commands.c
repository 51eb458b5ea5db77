/* pd-redact-commands.c: the command a password option belongs to, read
 * forward along the command line as the scan of pd-redact.c goes, and the
 * forms of the password options themselves (pd-redact-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact-private.h"

void
_pd_redact_command_line_init (PdRedactCommandLine *line)
{
  gsize bytes_read = line->bytes_read;
  const guint8 *depths = line->depths;

  memset (line, 0, sizeof *line);
  line->word = G_MAXSIZE;
  line->bytes_read = bytes_read;  /* counted over every reading */
  line->depths = depths;
}

/* What the word [w, e) says as a command: its PW_* forms, or 0; a
 * registry client (docker, podman…) sets *@registry, and "login" after
 * one is its login. */
static guint
command_word_forms (const char *text,
                    gsize       w,
                    gsize       e,
                    gboolean   *registry)
{
  static const char * const registry_clients[] = {
    "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "crane", "oras", "az", NULL,
  };
  static const char * const redis_clients[] = { "redis-cli", "valkey-cli", "keydb-cli", NULL };
  static const char * const httpie_clients[] = { "http", "https", "xh", "xhs", NULL };
  static const char * const sql_server_clients[] = { "sqlcmd", "bcp", NULL };
  static const char * const postgres_clients[] = {
    "psql", "pg_dump", "pg_dumpall", "pg_restore", "pg_basebackup", "pg_receivewal", "pg_recvlogical",
    "pgbench", "createdb", "dropdb", "createuser", "dropuser", "vacuumdb", "reindexdb", "clusterdb", NULL,
  };
  static const char * const samba_clients[] = {
    "smbclient", "rpcclient", "smbcacls", "smbget", "smbtree", "net", "smbpasswd", NULL,
  };
  static const char * const user_tools[] = { "usermod", "useradd", NULL };
  static const char * const programs[] = { "sed", "gsed", "awk", "gawk", "mawk", "nawk", NULL };
  static const char * const sevenzip[] = { "7z", "7za", "7zr", "7zz", NULL };
  static const char * const zip_clients[] = { "zip", "unzip", "zipcloak", "funzip", NULL };
  static const char * const oracle_clients[] = {
    "sqlplus", "sqlldr", "rman", "expdp", "impdp", "exp", "imp", "dgmgrl", NULL,
  };
  g_autofree char *word = NULL;
  const char *base;

  /* Longer than any client's path: no command name (and no copy of it). */
  if (e <= w || e - w > 256)
    return 0;
  word = g_strndup (text + w, e - w);
  /* A command quoted for another shell: ssh host "mysql -pX",
   * bash -c 'mysql -pX', also escaped inside a JSON string; or
   * its name quoted: "mysql" -pX. */
  _pd_redact_unquote_word (word);
  base = strrchr (word, '/');
  base = base ? base + 1 : word;
  if (*base == '\0')
    return 0;
  for (const char *c = base; *c; c++)
    if (!(g_ascii_isalnum (*c) || *c == '-' || *c == '_' || *c == '.'))
      return 0;
  if (g_str_has_prefix (base, "mysql") || g_str_has_prefix (base, "mariadb"))
    return PW_GLUED_P | PW_LONG_NO_SPACED | PW_LONG_PREFIX;
  if (_pd_redact_word_in (base, postgres_clients))
    return PW_LONG_NO_SPACED;
  if (strcmp (base, "sshpass") == 0)
    return PW_GLUED_P | PW_SPACED_P;
  if (_pd_redact_word_in (base, redis_clients))
    return PW_SPACED_A;
  if (strcmp (base, "curl") == 0)
    return PW_GLUED_U;
  if (_pd_redact_word_in (base, httpie_clients))
    return PW_HTTPIE_A;
  if (g_str_has_prefix (base, "mongo"))
    return PW_GLUED_P | PW_SPACED_P;
  if (g_str_has_prefix (base, "ldap"))
    return PW_SPACED_W | PW_GLUED_W;
  if (_pd_redact_word_in (base, sql_server_clients))
    return PW_SPACED_CAP_P | PW_GLUED_CAP_P;
  if (_pd_redact_word_in (base, samba_clients))
    return PW_SMB_U;
  if (_pd_redact_word_in (base, sevenzip))
    return PW_GLUED_P | PW_SEVENZIP;
  if (_pd_redact_word_in (base, zip_clients))
    return PW_SPACED_CAP_P | PW_GLUED_CAP_P | PW_GROUPED_CAP_P;
  if (strcmp (base, "openssl") == 0)
    return PW_SPACED_K | PW_GLUED_K | PW_SPACED_CAP_K;
  if (strcmp (base, "ssh-keygen") == 0)
    return PW_KEYGEN;
  if (strcmp (base, "lftp") == 0)
    return PW_LFTP_U;
  if (_pd_redact_word_in (base, oracle_clients))
    return PW_ORACLE;
  if (strcmp (base, "keytool") == 0)
    return PW_SPACED_NEW;
  /* twine upload -p X (its --password's short form) */
  if (strcmp (base, "twine") == 0)
    return PW_GLUED_P | PW_SPACED_P;
  if (_pd_redact_word_in (base, user_tools))
    return PW_SPACED_P;
  if (_pd_redact_word_in (base, programs))
    return PW_PROGRAM;
  if (_pd_redact_word_in (base, registry_clients))
    *registry = TRUE;
  else if (*registry && strcmp (base, "login") == 0)
    return PW_GLUED_P | PW_SPACED_P;
  return 0;
}

/* Whether @k starts a command line: after ; | & ( ` or a line break, or
 * a line break escaped in a JSON string (\n): a tool call's arguments are
 * redacted as their JSON text; or after the quote that opens a JSON string
 * ({"command":"mysql -pX"} in text was read as the word {"command":"mysql,
 * no client, and kept; tried as an attacker would). */
static inline gboolean
ends_command_line (const PdRedactCommandLine *r,
                   const char                *t,
                   gsize                      k)
{
  return strchr (";|&(`\n", t[k]) != NULL || (t[k] == 'n' && k > 0 && t[k - 1] == '\\')
         || (r->depths != NULL && (r->depths[k] & JSON_OPENS) != 0);
}

/* Reads the command line forward up to @upto (password_options_at()). */
static void
read_command_line (PdRedactCommandLine *r,
                   const char          *t,
                   gsize                upto)
{
  if (upto > r->pos)
    r->bytes_read += upto - r->pos;
  for (; r->pos < upto; r->pos++)
    {
      gsize k = r->pos;

      if (ends_command_line (r, t, k))
        {
          r->word = G_MAXSIZE;
          r->forms = 0;
          r->registry = FALSE;
        }
      else if (g_ascii_isspace (t[k]))
        {
          if (r->word != G_MAXSIZE && r->forms == 0 && !r->word_masked)
            r->forms = command_word_forms (t, r->word, k, &r->registry);
          r->word = G_MAXSIZE;
        }
      else if (r->word == G_MAXSIZE)
        {
          r->word = k;
          r->word_masked = FALSE;
        }
    }
}

/* Only the line @upto is on is read: the last line end between the place
 * read to and @upto is looked for from @upto back (each byte once still),
 * so the words of the lines before are not. */
static void
skip_to_line (PdRedactCommandLine *r,
              const char          *t,
              gsize                upto)
{
  for (gsize k = upto; k > r->pos; k--)
    if (ends_command_line (r, t, k - 1))
      {
        r->bytes_read += upto - k + 1;
        r->pos = k;
        r->word = G_MAXSIZE;
        r->forms = 0;
        r->registry = FALSE;
        return;
      }
  if (upto > r->pos)
    r->bytes_read += upto - r->pos;
}

/* A mask over [start, end): to the command line it is part of a word, as
 * [REDACTED] is when the text is redacted again (a ( inside a masked
 * quoted part ended the line the first time, not the second: found by
 * fuzz-redact). */
void
_pd_redact_command_line_masked (PdRedactCommandLine *r,
                                const char          *t,
                                gsize                start,
                                gsize                end)
{
  if (start < r->pos)
    return;
  skip_to_line (r, t, start);
  read_command_line (r, t, start);
  if (r->word == G_MAXSIZE)
    r->word = start;
  r->word_masked = TRUE;
  r->pos = end;
}

guint
_pd_redact_password_options_at (PdRedactCommandLine *r,
                                const char          *t,
                                gsize                i)
{
  gboolean registry;

  /* Read forward from where the last question left off: each byte of a
   * command line is read once, however many options it has (4 MiB of
   * "-p -p …" read the line back for each: quadratic).  A question
   * behind that place (the scan stepped back) starts the line again. */
  if (i < r->pos)
    {
      gsize start = i;

      while (start > 0 && i - start < 256 && !ends_command_line (r, t, start - 1))
        start--;
      r->bytes_read += i - start;
      r->pos = start;
      r->word = G_MAXSIZE;
      r->forms = 0;
      r->registry = FALSE;
    }
  else
    skip_to_line (r, t, i);
  read_command_line (r, t, i);
  if (r->forms != 0 || r->word == G_MAXSIZE || r->word_masked)
    return r->forms;
  /* A word cut at @i ("mysql"-p…): read, not kept. */
  registry = r->registry;
  return command_word_forms (t, r->word, i, &registry);
}

/* Whether a blank (BLANK: a space, a tab, one of Unicode's spaces, or \
 * and a line break) is at @p. */
gboolean
_pd_redact_option_blank (const char *p)
{
  return *p == ' ' || *p == '\t' || _pd_redact_unicode_space_len (p, strnlen (p, 4)) > 0
         || (p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')));
}

guint
_pd_redact_password_option_form (const char *p)
{
  guint k = 1;

  if (p[0] != '-')
    return 0;
  /* ssh-keygen's -N X, keytool's -new X (N is a grouped flag of mysql's) */
  if (p[1] == 'N' && _pd_redact_option_blank (p + 2))
    return PW_SPACED_N;
  if (strncmp (p, "-new", 4) == 0 && _pd_redact_option_blank (p + 4))
    return PW_SPACED_NEW;
  /* openssl's -K HEX (K is a grouped flag of mysql's) */
  if (p[1] == 'K' && _pd_redact_option_blank (p + 2))
    return PW_SPACED_CAP_K;
  while (k < 17 && p[k] != '\0' && strchr (GROUPED_FLAGS, p[k]) != NULL)
    k++;
  if (p[k] == 'p' && p[k + 1] != '\0' && !g_ascii_isspace (p[k + 1])
      && (p[k + 1] != '=' || (p[k + 2] != '\0' && !g_ascii_isspace (p[k + 2]))))
    return PW_GLUED_P;
  if (k == 1 && (p[1] == 'p' || p[1] == 'a') && _pd_redact_option_blank (p + 2))
    return p[1] == 'p' ? PW_SPACED_P : PW_SPACED_A;
  if (k == 1 && p[1] == 'k' && _pd_redact_option_blank (p + 2))
    return PW_SPACED_K;
  if (k == 1 && (p[1] == 'w' || p[1] == 'P') && _pd_redact_option_blank (p + 2))
    return p[1] == 'w' ? PW_SPACED_W : PW_SPACED_CAP_P;
  /* OpenLDAP's -wSECRET, sqlcmd's and bcp's -PSECRET. */
  if (k == 1 && (p[1] == 'w' || p[1] == 'P') && p[2] != '\0' && !g_ascii_isspace (p[2]) && p[2] != '-')
    return p[1] == 'w' ? PW_GLUED_W : PW_GLUED_CAP_P;
  if (strncmp (p, "--pass", 6) == 0 && _pd_redact_option_blank (p + 6))
    return PW_SPACED_A;
  /* OpenLDAP's -w after grouped flags of its own (-xw X, -xwX, -xWw X) */
  for (k = 1; k < 9 && p[k] != '\0' && strchr (LDAP_FLAGS, p[k]) != NULL; k++)
    ;
  if (k > 1 && p[k] == 'w' && _pd_redact_option_blank (p + k + 1))
    return PW_SPACED_W;
  if (k > 1 && p[k] == 'w' && p[k + 1] != '\0' && !g_ascii_isspace (p[k + 1]) && p[k + 1] != '-')
    return PW_GLUED_W;
  /* zip's -P after grouped flags of its own (-rP X, -eP X) */
  for (k = 1; k < 9 && g_ascii_isalnum (p[k]) && p[k] != 'P'; k++)
    ;
  if (k > 1 && p[k] == 'P' && _pd_redact_option_blank (p + k + 1))
    return PW_GROUPED_CAP_P;
  /* openssl's -kX, -k=X: not its options -key…, -kdf…, -kfile, -kek…,
   * -kem… (lower case letters, digits, _ and - to the word's end or a
   * '='); a password spelled so stays. */
  if (p[1] == 'k' && p[2] != '\0' && !_pd_redact_option_blank (p + 2) && !g_ascii_isspace (p[2]) && p[2] != '-')
    {
      static const char * const options[] = { "ey", "df", "file", "ek", "em", NULL };

      for (guint o = 0; options[o] != NULL; o++)
        if (g_str_has_prefix (p + 2, options[o]))
          {
            for (k = 2; g_ascii_islower (p[k]) || g_ascii_isdigit (p[k]) || p[k] == '_' || p[k] == '-'; k++)
              ;
            if (p[k] == '\0' || p[k] == '=' || g_ascii_isspace (p[k]) || strchr ("\"';&|)<>\\", p[k]) != NULL)
              return 0;
          }
      return PW_GLUED_K;
    }
  return 0;
}

gsize
_pd_redact_keygen_option_len (const char *p)
{
  gsize k = 1;

  if (p[0] != '-')
    return 0;
  while (k < 17 && p[k] != '\0' && strchr (KEYGEN_FLAGS, p[k]) != NULL)
    k++;
  return p[k] == 'N' || p[k] == 'P' ? k + 1 : 0;
}

gsize
_pd_redact_passphrase_option_len (const char *p)
{
  gsize n = p[1] == '-' ? 2 : 1;

  if (strncmp (p + n, "pass", 4) != 0)
    return 0;
  n += 4;
  if (strncmp (p + n, "in", 2) == 0)
    n += 2;
  else if (strncmp (p + n, "out", 3) == 0)
    n += 3;
  if (p[n] == '=')
    return n + 1;
  if (p[n] != ' ' && p[n] != '\t')
    return 0;
  while (p[n] == ' ' || p[n] == '\t')
    n++;
  return n;
}

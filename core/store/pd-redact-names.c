/* pd-redact-names.c: the name rule of the redactor (pd-redact.h states
 * it): whether a name (DB_PASSWORD, apiKey, --pass) is a secret's, so that
 * its value is masked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact-private.h"

/* The words of a name, lower case, split at _ - . and where camelCase
 * turns (apiKey → api key, APIKey → api key): NUL-separated in @buf, their
 * starts in @words.  Names are at most 68 bytes (the scan's bound). */
#define NAME_MAX_BYTES 68

typedef struct
{
  char        buf[2 * NAME_MAX_BYTES + 2];
  const char *words[NAME_MAX_BYTES];
  guint       n;
} NameWords;

static void
name_words (const char *name,
            NameWords  *w)
{
  char *out = w->buf;
  char *word = out;

  w->n = 0;
  for (const char *p = name; ; p++)
    {
      char c = *p;
      gboolean boundary = FALSE;

      if (c == '\0' || c == '_' || c == '-' || c == '.' || p - name >= NAME_MAX_BYTES)
        boundary = TRUE;
      else if (out > word && g_ascii_isupper (c))
        {
          char prev = p[-1];
          /* aB, or the B of ABc */
          boundary = g_ascii_islower (prev) || g_ascii_isdigit (prev)
                     || (g_ascii_isupper (prev) && g_ascii_islower (p[1]));
        }

      if (boundary && out > word)
        {
          *out++ = '\0';
          w->words[w->n++] = word;
          word = out;
        }
      if (c == '\0' || p - name >= NAME_MAX_BYTES)
        break;
      if (c != '_' && c != '-' && c != '.')
        *out++ = _pd_redact_lower (c);
    }
}

/* A word that ends in password, passwd or passphrase after a prefix of its
 * own, as PGPASSWORD and SMBPASSWD are written (sudo's NOPASSWD is no
 * password). */
static gboolean
fused_password (const char *word)
{
  static const char * const ends[] = { "password", "passwd", "passphrase", NULL };
  gsize len = strlen (word);

  if (g_str_has_prefix (word, "no"))
    return FALSE;
  for (guint i = 0; ends[i]; i++)
    {
      gsize n = strlen (ends[i]);

      if (len > n && strcmp (word + len - n, ends[i]) == 0)
        return TRUE;
    }
  return FALSE;
}

/* The rule, as pd-redact.h states it. */
gboolean
_pd_redact_name_is_secret (const char *name)
{
  /* A secret whatever comes after it. */
  static const char * const strong[] = {
    "secret", "secrets", "password", "passwords", "passwd", "passphrase", "pwd",
    "credential", "credentials", "creds", "apikey", "accesskey", "secretkey", "privatekey",
    "authtoken", "accesstoken", "refreshtoken", "clientsecret",
    /* keytool's and jarsigner's key store and key passwords */
    "storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass",
    /* sshpass -e's environment variable */
    "sshpass",
    /* prefixes of password and passphrase, which MySQL's clients and gpg
     * take for the whole option (mysql --passw=X, gpg --passph X) */
    "passw", "passwo", "passwor", "passph", "passphr", "passphra", "passphras", NULL,
  };
  /* Secret only as the last word (GITLAB_TOKEN, api_key, X-Auth), not
   * before another (token_count, key_id, auth_type). */
  static const char * const weak[] = { "key", "token", "auth", "pass", "bearer", NULL };
  /* A last word that makes the name about a secret, not the secret. */
  static const char * const meta[] = {
    "count", "counts", "length", "len", "size", "limit", "min", "max", "type", "types", "kind",
    "file", "path", "dir", "name", "names", "id", "ids", "url", "uri", "endpoint", "domain",
    "enabled", "disabled", "required", "format", "version", "expiry", "expires", "expiration",
    "ttl", "timeout", "method", "mode", "provider", "policy", "field", "param", "env", "var",
    "header", "prefix", "suffix", "hint", "label", "strength", "pattern", "regex", "rotation",
    "usage", "used", "ratio", "budget", "index", "stdin", "fd",
    /* A program that is run to get the secret (RESTIC_PASSWORD_COMMAND,
     * credential.helper, credential_process, credsStore): what runs must
     * stay in sight of whoever approves the command (tried as an attacker
     * would: `git -c credential.helper='!touch pwned'` was stored masked). */
    "command", "cmd", "helper", "helpers", "process", "program", "exec", "store", NULL,
  };
  /* KEY after these is a lookup key, not a secret. */
  static const char * const key_words[] = {
    "sort", "primary", "foreign", "public", "partition", "cache", "idempotency", "unique",
    "composite", "routing", "group", "map", "lookup", "shortcut", "hot", "row", "column",
    "index", "object", "dedup", "dedupe", "hash", "range", "s3", "bucket", "next", "last",
    "start", "end", "natural", "surrogate", "sort", "dict", "host", "translation", "i18n",
    "react", "list", "item", "cursor", NULL,
  };
  /* TOKEN after these is a count, a tokenizer's token or a page cursor. */
  static const char * const token_words[] = {
    "max", "input", "output", "total", "num", "next", "continuation", "page", "sync",
    "cancellation", "eos", "bos", "pad", "unk", "sep", "cls", "mask", "special", "start", "end",
    "stop", "completion", "prompt", "reasoning", "cached", "cache", "new", "last", NULL,
  };
  /* PASS after these is a step of a process (a compiler's, a renderer's). */
  static const char * const pass_words[] = {
    "first", "second", "third", "final", "last", "next", "single", "multi", "one", "two", "each",
    "render", "shadow", "depth", "compile", "compiler", "optimization", "test", "skip", "by", NULL,
  };
  /* nginx's proxy_pass and its kin name the upstream a request goes on to;
   * nginx writes them in lower case, and PROXY_PASS=…, an environment
   * variable's spelling, is a proxy's password (tried as an attacker
   * would: it was stored as written). */
  static const char * const upstream_words[] = {
    "proxy", "fastcgi", "uwsgi", "scgi", "grpc", "memcached", NULL,
  };
  NameWords w;
  const char *last, *prev;

  name_words (name, &w);
  if (w.n == 0)
    return FALSE;
  last = w.words[w.n - 1];
  prev = w.n > 1 ? w.words[w.n - 2] : NULL;

  /* The shell's working directories. */
  if (w.n == 1 && (strcmp (last, "pwd") == 0 || strcmp (last, "oldpwd") == 0))
    return FALSE;
  /* A flag that asks for the secret (wget --ask-password, ansible's
   * --ask-pass, --ask-vault-pass), and openvpn's --auth-user-pass, a
   * file's path: the word after them was masked (tried as an attacker
   * would). */
  if (strcmp (w.words[0], "ask") == 0
      || (w.n == 3 && strcmp (w.words[0], "auth") == 0 && strcmp (w.words[1], "user") == 0 && strcmp (last, "pass") == 0))
    return FALSE;
  if (_pd_redact_word_in (last, weak))
    {
      if (strcmp (last, "key") == 0 && (prev == NULL || _pd_redact_word_in (prev, key_words)))
        return FALSE;  /* a bare "key" is a map's key far more often */
      if (strcmp (last, "token") == 0 && prev != NULL && _pd_redact_word_in (prev, token_words))
        return FALSE;
      if (strcmp (last, "pass") == 0 && prev != NULL && _pd_redact_word_in (prev, pass_words))
        return FALSE;
      if (strcmp (last, "pass") == 0 && prev != NULL && _pd_redact_word_in (prev, upstream_words))
        {
          for (const char *c = name; *c; c++)
            if (g_ascii_islower (*c))
              return FALSE;
        }
      return TRUE;
    }
  for (guint i = 0; i < w.n; i++)
    if (_pd_redact_word_in (w.words[i], strong) || fused_password (w.words[i]))
      return !_pd_redact_word_in (last, meta);
  return FALSE;
}

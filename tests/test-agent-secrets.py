#!/usr/bin/env python3
"""Secrets a run is given never show, tried as an attacker would on the real
`plandeck-agent`.

usage: test-agent-secrets.py AGENT

URL secrets: `run --base-url http://user:PASSWORD@127.0.0.1:PORT/v1?token=T`
against a loopback provider that answers 503 (so the run retries) and echoes
the request in its error body.  While the run waits on its first request,
/proc/PID/cmdline must not hold the password or the token; neither may its
stderr (the retry lines, the failure), the session database, nor what
`sessions show --json` and `events` print.

An echoing provider: the API key, of no known shape, sent back by the
provider in an error body (500, retried) and then in the model's answer.
The key must not be in stdout, stderr, the database, or `events`.

Database clients' spellings: a recorded shell call (replay provider) whose
command and output hold MySQL's -pPASSWORD, --password=, PGPASSWORD=, a
mysql:// URL's password and MYSQL_PWD=, quoted option values (also bash's
$'…'), -vpPASSWORD, redis-cli's -a and --pass and sshpass -p PASSWORD.
None may be in the database,
`sessions show --json`, `events` or `sessions export`; nor may the
spellings found a third time (single-quoted $, a client quoted for another
shell, docker and podman login -p, --pass=, pass=, escaped values) and a
fourth (a client named in quotes, registry logins, curl -uuser:pw, openssl's
-passin pass:…, values the shell joins of quoted parts), while counts
(pass=12, --pass=2), nginx's proxy_pass and -pass env:VAR stay as written,
and so does a value holding what the shell runs (curl -u "u:$(…)",
Authorization: Basic $(…), single quotes inside ssh host "…'$(…)'…").

Prints TAP.
"""
import http.server
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading

from pd_tap import Tap

HANG_BOUND = 120
PASSWORD = "Pa55wordOfTheUrl"
TOKEN = "UrlTokenValue9876"
# No shape any pattern knows: only the key itself can find it.
KEY = "plain.Key~With-NoKnownShape42"


class Provider(http.server.ThreadingHTTPServer):
    def __init__(self, mode):
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode = mode
        self.requests = 0
        self.first_arrived = threading.Event()
        self.release = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, document):
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("retry-after-ms", "10")
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        server = self.server
        server.requests += 1
        auth = self.headers.get("Authorization", "")
        key = auth.split(" ", 1)[1] if " " in auth else auth
        if server.mode == "url":
            if server.requests == 1:
                server.first_arrived.set()
                server.release.wait(HANG_BOUND)
            self.reply(503, {"error": {"message": f"overloaded; you asked {self.path} with {key}"}})
        elif server.requests == 1:
            self.reply(500, {"error": {"message": f"internal error handling key {key}"}})
        else:
            message = {"role": "assistant", "content": f"I saw {key} in your request."}
            self.reply(200, {"id": "x", "object": "chat.completion", "model": "test",
                             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


def env_for(tmp):
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
        env[var] = tmp
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "PLANDECK_MODEL", "PLANDECK_PLANNING"):
        env.pop(var, None)
    return env


def dump(db):
    with sqlite3.connect(db) as conn:
        return "\n".join(conn.iterdump())


def reads(agent, env, db):
    """What the stored session prints as: sessions show --json and events."""
    with sqlite3.connect(db) as conn:
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    shown = subprocess.run([agent, "sessions", "show", sid, "--json", "--db", db], env=env,
                           capture_output=True, text=True, timeout=HANG_BOUND)
    events = subprocess.run([agent, "events", "--db", db], env=env, capture_output=True, text=True,
                            timeout=HANG_BOUND)
    return shown.stdout + shown.stderr + events.stdout + events.stderr


def start(mode):
    server = Provider(mode)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def case_url(tap, agent, tmp):
    env = env_for(tmp)
    env["OPENAI_API_KEY"] = "sk-test-irrelevant-0000000000000000"
    db = os.path.join(tmp, "url.db")
    server = start("url")
    port = server.server_address[1]
    url = f"http://someone:{PASSWORD}@127.0.0.1:{port}/v1?token={TOKEN}"
    proc = subprocess.Popen([agent, "run", "--db", db, "--provider", "openai", "--base-url", url,
                             "--model", "test", "--no-planning", "-C", tmp, "hello"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        arrived = server.first_arrived.wait(HANG_BOUND)
        with open(f"/proc/{proc.pid}/cmdline", "rb") as f:
            cmdline = f.read().decode(errors="replace").replace("\0", " ")
        server.release.set()
        out, err = proc.communicate(timeout=HANG_BOUND)
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        if proc.poll() is None:
            proc.kill()
    tap.check(arrived and "127.0.0.1" in cmdline and PASSWORD not in cmdline and TOKEN not in cmdline
              and "someone" not in cmdline,
              "url: ps shows no password or token of --base-url", cmdline)
    tap.check(proc.returncode == 1 and "attempt 2 of 4" in err, "url: the run retried and failed", err)
    tap.check(PASSWORD not in err and TOKEN not in err and "someone" not in err,
              "url: no password, user or token on stderr (retry lines, failure)", err)
    tap.check(PASSWORD not in out and TOKEN not in out, "url: none on stdout", out)
    stored = dump(db)
    tap.check(PASSWORD not in stored and TOKEN not in stored, "url: none in the database",
              "\n".join(line for line in stored.splitlines() if PASSWORD in line or TOKEN in line))
    printed = reads(agent, env, db)
    tap.check(PASSWORD not in printed and TOKEN not in printed and "provider_retry" in printed,
              "url: none in sessions show --json or events", printed)


def case_echoed_key(tap, agent, tmp):
    env = env_for(tmp)
    env["OPENAI_API_KEY"] = KEY
    db = os.path.join(tmp, "echo.db")
    server = start("echo")
    try:
        proc = subprocess.run([agent, "run", "--db", db, "--provider", "openai",
                               "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
                               "--model", "test", "--no-planning", "-C", tmp, "hello"],
                              env=env, capture_output=True, text=True, timeout=HANG_BOUND)
    finally:
        server.shutdown()
        server.server_close()
    tap.check(proc.returncode == 0 and server.requests == 2 and "I saw [REDACTED] in your request." in proc.stdout,
              "echo: the run retried the 500 and answered, the key masked", f"{proc.stdout}\n{proc.stderr}")
    tap.check(KEY not in proc.stdout and KEY not in proc.stderr, "echo: the key is not printed",
              f"{proc.stdout}\n{proc.stderr}")
    stored = dump(db)
    tap.check(KEY not in stored, "echo: the key is not in the database",
              "\n".join(line for line in stored.splitlines() if KEY in line))
    printed = reads(agent, env, db)
    tap.check(KEY not in printed, "echo: the key is not in sessions show --json or events", printed)


# Password spellings of database clients (tried as an attacker would).
DB_SECRETS = {
    "mysql -uroot -pGluedPw4Mysql shop": "GluedPw4Mysql",
    "mysql --password=EqPw5Mysql shop": "EqPw5Mysql",
    "PGPASSWORD=PgPw6Env psql -h db app": "PgPw6Env",
    "mysql://appuser:UrlPw7Mysql@db.internal/shop": "UrlPw7Mysql",
    "MYSQL_PWD=MyPwd8Env mysql shop": "MyPwd8Env",
    # Quoted, ANSI-C quoted, grouped, and other clients' options (tried
    # as an attacker would, a second time).
    "mysql --password='QuotePw9' shop": "QuotePw9",
    'mongosh --password "DquotePw10" shop': "DquotePw10",
    "mysql -uroot -p$'AnsiPw11' shop": "AnsiPw11",
    "PGPASSWORD=$'AnsiPg12' psql app": "AnsiPg12",
    "mysql -uroot -vpGroupPw13 shop": "GroupPw13",
    "redis-cli -a RedisPw14 ping": "RedisPw14",
    "redis-cli --pass RedisPw15 ping": "RedisPw15",
    "sshpass -p SshSpacedPw16 ssh deploy@host": "SshSpacedPw16",
}


def case_database_spellings(tap, agent, tmp):
    env = env_for(tmp)
    db = os.path.join(tmp, "spellings.db")
    work = os.path.join(tmp, "spellings")
    os.mkdir(work)
    command = "; ".join(f"echo {line}" for line in DB_SECRETS)
    replay = os.path.join(tmp, "spellings.json")
    with open(replay, "w") as f:
        json.dump({"label": "spellings", "turns": [
            {"tool_calls": [{"name": "shell", "arguments": {"command": command}}]},
            {"content": "done"}]}, f)
    proc = subprocess.run([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                           "--approve", "auto", "--no-planning", "-C", work, "connect"],
                          env=env, capture_output=True, text=True, timeout=HANG_BOUND)
    tap.check(proc.returncode == 0, "spellings: the run ran the command", f"{proc.stdout}\n{proc.stderr}")
    stored = dump(db)
    printed = reads(agent, env, db)
    with sqlite3.connect(db) as conn:
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    export = subprocess.run([agent, "sessions", "export", "--db", db, sid], env=env,
                            capture_output=True, text=True, timeout=HANG_BOUND)
    for line, secret in DB_SECRETS.items():
        tap.check(secret not in stored and secret not in printed and secret not in export.stdout,
                  f"spellings: {line.replace(secret, '…')} is redacted (database, show, events, export)",
                  "\n".join(l for l in (stored + printed + export.stdout).splitlines() if secret in l))
    kept = "mysql -uroot -p[REDACTED] shop"
    tap.check(kept in export.stdout, "spellings: the command around -p is kept", export.stdout)
    kept = "redis-cli -a [REDACTED] ping"
    tap.check(kept in export.stdout, "spellings: the command around redis-cli's -a is kept", export.stdout)


# A third time: single-quoted $, a client quoted for another shell, docker
# and podman login, --pass=, pass=, escapes in a value.  The command is
# shell no-ops (:), so only the command holds them (echo would print
# '$ecr3t' unquoted, where it reads as a variable).
CMD_SECRETS = {
    "mysql --password='$ecr3tPw1' shop": "ecr3tPw1",
    "mysql -uroot -p'$ecr3tPw2' shop": "ecr3tPw2",
    'ssh db.internal "mysql -uroot -pSshMy3 shop"': "SshMy3",
    "bash -c 'PGPASSWORD=BashPg4 psql app'": "BashPg4",
    'sh -c "mysql --password=ShMy5 shop"': "ShMy5",
    "docker login -u me -p DockPw6 registry.example.com": "DockPw6",
    "podman login -u me -p PodPw7 quay.io": "PodPw7",
    "mysql --pass=PassPw8 shop": "PassPw8",
    "curl -d user=me -d pass=FormPw9 https://h/login": "FormPw9",
    "mysql --password=Esc\\ Pw10 shop": "Pw10",
    'mysql --password="Esc\\"Pw11" shop': "Pw11",
    # A fourth time: a client named in quotes, registry logins, curl's
    # glued -u, openssl's pass phrase arguments, values the shell joins.
    '"mysql" -uroot -pQuotedCli12 shop': "QuotedCli12",
    "docker login -u me -p=DockEq13 registry.example.com": "DockEq13",
    "helm registry login -u me -p Helm14 registry.example.com": "Helm14",
    "skopeo login -u me --password=Skopeo15 quay.io": "Skopeo15",
    "curl -s -uadmin:CurlGlued16 https://h/": "CurlGlued16",
    "curl -s -u 'admin:two CurlWords17' https://h/": "CurlWords17",
    "openssl pkcs12 -in a.p12 -passin pass:Ossl18 -nokeys": "Ossl18",
    "openssl enc -aes256 -pass 'pass:two Ossl19' -in f": "Ossl19",
    "PGPASSWORD=\'\'\'TripleQ20\'\'\' psql app": "TripleQ20",
    'mysql -p"a"bJoin21 shop': "bJoin21",
    "mysql --password='a'\"bJoin22\" shop": "bJoin22",
    # A value before a no-break space: masked up to it, the text still
    # UTF-8 (a lone byte of it was left, and reading the database failed).
    "PGPASSWORD=Nbsp23Pw\u00a0psql app": "Nbsp23Pw",
    # A fifth time: curl's grouped flags and proxy user, openssl's quoted
    # pass: and -passin=.
    "curl -fsSu deploy:Grouped24 https://h/": "Grouped24",
    "curl -x http://p:3128 --proxy-user u:Proxy25 https://h/": "Proxy25",
    "openssl enc -pass pass:'two Ossl26' -in f": "Ossl26",
    "openssl enc -passin=pass:Ossl27 -in f": "Ossl27",
    "PROXY_PASS=ProxyEnv28 ./run": "ProxyEnv28",
    "PGPASSWORD=Brack29[2x] psql app": "Brack29",
    "mysql -uroot -p\\Escaped30 shop": "Escaped30",
    "curl -d pass=12,Count31x https://h/": "Count31x",
    "az acr login -n reg -u me -p Azure32": "Azure32",
    "ldapsearch -x -D cn=admin -w Ldap33 -b dc=x": "Ldap33",
    "smbclient //h/share -U u%Smb34 -c ls": "Smb34",
}

# What the same commands hold no secret in: kept as written.
CMD_KEPT = (
    ": ls -a; : docker run -p 8080:80 img",
    ": pass=12 fail=0",
    ": x264 --pass=2 in.y4m",
    ": ffmpeg -i in.mp4 -pass 1 -f null /dev/null",
    ": proxy_pass=http://backend",
    ": openssl enc -pass env:OSSL_PW -in f",
    ": curl -u admin https://h/",
    ": helm registry login --password-stdin registry.example.com",
    # What the shell runs stays in sight of whoever approves the command,
    # whatever its quoting (tried as an attacker would; $(true) runs nothing).
    ': curl -u "deploy:$(true)" https://h/',
    ": curl -uu:a$(true) https://h/",
    ': curl -H "Authorization: Basic $(true)" https://h/',
    ': curl -H "Authorization: Bearer x$(true)" https://h/',
    ': curl -H "Authorization: Bearer $TOKEN" https://h/',
    ': ssh host "PGPASSWORD=\'$(true)\' psql"',
    ': bash -c "mysql -p\'$(true)\' shop"',
    ': ssh host "PGPASSWORD=\'$(true)\'x psql"',
    ': bash -c "mysql -p\'x\'\\`true\\` shop"',
    # An empty assignment runs the word after it (":" runs nothing here);
    # psql's --password is a flag and MySQL's takes a value only after '='
    # (round 2).
    ": PGPASSWORD= rm important.db",
    ": export API_TOKEN= touch x",
    ": psql --password production_db",
    ": mysql --password production",
)


def case_command_spellings(tap, agent, tmp):
    env = env_for(tmp)
    db = os.path.join(tmp, "commands.db")
    work = os.path.join(tmp, "commands")
    os.mkdir(work)
    command = "; ".join([f": {line}" for line in CMD_SECRETS] + list(CMD_KEPT))
    replay = os.path.join(tmp, "commands.json")
    with open(replay, "w") as f:
        json.dump({"label": "commands", "turns": [
            {"tool_calls": [{"name": "shell", "arguments": {"command": command}}]},
            {"content": "done"}]}, f)
    proc = subprocess.run([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                           "--approve", "auto", "--no-planning", "-C", work, "connect"],
                          env=env, capture_output=True, text=True, timeout=HANG_BOUND)
    tap.check(proc.returncode == 0, "commands: the run ran the command", f"{proc.stdout}\n{proc.stderr}")
    stored = dump(db)
    printed = reads(agent, env, db)
    with sqlite3.connect(db) as conn:
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    export = subprocess.run([agent, "sessions", "export", "--db", db, sid], env=env,
                            capture_output=True, text=True, timeout=HANG_BOUND)
    tap.check(export.returncode == 0 and "docker login" in export.stdout, "commands: the session exports",
              export.stderr)
    for line, secret in CMD_SECRETS.items():
        tap.check(secret not in stored and secret not in printed and secret not in export.stdout,
                  f"commands: {line.replace(secret, '…')} is redacted (database, show, events, export)",
                  "\n".join(l for l in (stored + printed + export.stdout).splitlines() if secret in l))
    for kept in ("docker login -u me -p [REDACTED] registry.example.com", "curl -s -u 'admin:[REDACTED]' https://h/",
                 "openssl pkcs12 -in a.p12 -passin pass:[REDACTED] -nokeys",
                 "PGPASSWORD=[REDACTED] psql app", "PGPASSWORD=[REDACTED]\u00a0psql app") + CMD_KEPT:
        # the export is JSON, the call's arguments JSON text in it: a quote
        # is escaped twice there
        escaped = json.dumps(json.dumps(kept)[1:-1])[1:-1]
        tap.check(kept in export.stdout or escaped in export.stdout,
                  f"commands: {kept} is in the export as written", export.stdout)


# A quote opened in one plan step (tried as an attacker would): the plan's
# state was redacted as one JSON text, so PGPASSWORD='… took every step up
# to the next quote, three steps later, and the stored plan kept one step.
# The value of an unclosed quote is its first word, as in any text.
PLAN_STEPS = {
    "Export PGPASSWORD='see vault": "Export PGPASSWORD='[REDACTED] vault",
    "Connect with pass='see vault": "Connect with pass='[REDACTED] vault",
    "Log in with mysql -p'see vault": "Log in with mysql -p'[REDACTED] vault",
    "Send token: 'see vault": "Send token: '[REDACTED] vault",
}
PLAN_AFTER = ("Delete the staging database", "Run the migration", "Check it's green")


def case_plan_steps(tap, agent, tmp):
    env = env_for(tmp)
    for n, (first, masked) in enumerate(PLAN_STEPS.items()):
        db = os.path.join(tmp, f"plan{n}.db")
        work = os.path.join(tmp, f"plan{n}")
        os.mkdir(work)
        steps = [first] + list(PLAN_AFTER)
        replay = os.path.join(tmp, f"plan{n}.json")
        with open(replay, "w") as f:
            json.dump({"label": "plan", "turns": [
                {"tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": steps}}]},
                {"content": "done"}]}, f)
        proc = subprocess.run([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                               "--approve", "auto", "-C", work, "plan it"],
                              env=env, capture_output=True, text=True, timeout=HANG_BOUND)
        # The run ends failed (the replay has no turn left for the open
        # steps' reminder); the plan was made before that.
        tap.check("plan: create" in proc.stdout + proc.stderr, f"plan {n}: the run made the plan",
                  f"{proc.stdout}\n{proc.stderr}")
        with sqlite3.connect(db) as conn:
            sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
            texts = [row[0] for row in conn.execute("SELECT state_json FROM plan_versions")]
        titles = []
        for text in texts:
            try:
                state = json.loads(text)
            except ValueError as e:
                tap.check(False, f"plan {n}: the stored plan is JSON", f"{e}\n{text}")
                continue
            titles = [step.get("title") for step in state.get("steps", [])]
        tap.check(len(texts) > 0 and titles == [masked] + list(PLAN_AFTER),
                  f"plan {n}: the stored plan keeps its 4 steps, the secret masked in its own", "\n".join(texts))
        status = subprocess.run([agent, "plan", "status", "--db", db, sid], env=env,
                                capture_output=True, text=True, timeout=HANG_BOUND)
        tap.check(status.returncode == 0 and all(t in status.stdout for t in (masked,) + PLAN_AFTER)
                  and "see vault" not in status.stdout,
                  f"plan {n}: plan status shows the 4 steps", status.stdout + status.stderr)


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-agent-secrets-") as tmp:
        case_url(tap, agent, tmp)
        case_echoed_key(tap, agent, tmp)
        case_database_spellings(tap, agent, tmp)
        case_command_spellings(tap, agent, tmp)
        case_plan_steps(tap, agent, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Hostile files on the real `plandeck-agent`, as an attacker would leave them.

usage: test-hostile-files.py AGENT

Databases: a session database with user_version -1, a file that is not
SQLite, a truncated one, one with a table dropped, one with a column
dropped, a newer schema, a folder, and (as a user who cannot write it) a
read-only file.  Every command that opens a database must end with a clear
error naming the file and the reason (never a signal, never a hang, never
exit 0 having written nothing), and `serve` must refuse to start.

Transcript folders: a FIFO named like a transcript (import used to wait on
it for ever), one as a session's subagent, a transcript this user may not
read (it was counted nowhere), a symbolic link.  `import`, with and without
--db and --json, must finish, read the good transcript, and name every
file it passed over with the reason.

Bidi controls in a transcript's title, items and file name never reach
the terminal raw, from import or sessions, text or JSON.

Prints TAP.
"""
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from pd_tap import Tap, detail

RECORDING = {"label": "hostile files", "turns": [
    {"tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
        {"id": "a", "title": "Look"}]}}]},
    {"tool_calls": [{"name": "plan", "arguments": {"verb": "complete", "step_id": "a"}}]},
    {"content": "Done."}]}
NOBODY = 65534


def as_nobody():
    """A preexec_fn: give up root, so file permissions apply."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


class Agent:
    def __init__(self, path, env, cwd):
        self.path = path
        self.env = env
        self.cwd = cwd

    def run(self, *args, timeout=60, nobody=False):
        try:
            return subprocess.run([self.path, *args], env=self.env, cwd=self.cwd, capture_output=True,
                                  text=True, timeout=timeout, preexec_fn=as_nobody if nobody else None)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(e.cmd, "timeout", e.stdout or "", e.stderr or "")


def make_databases(agent, tmp, recording):
    """ok.db with one finished session, and the hostile files made from it."""
    ok = os.path.join(tmp, "ok.db")
    proc = agent.run("run", "--db", ok, "--provider", "replay", "--replay", recording,
                     "--approve", "auto", "-C", tmp, "Look around")
    if proc.returncode != 0:
        raise RuntimeError(detail(proc))
    with sqlite3.connect(ok) as db:
        sid = db.execute("SELECT id FROM sessions").fetchone()[0]
        db.execute("PRAGMA journal_mode = DELETE")

    def copy(name, *sql):
        path = os.path.join(tmp, name)
        shutil.copyfile(ok, path)
        if sql:
            db = sqlite3.connect(path, isolation_level=None)
            for statement in sql:
                db.execute(statement)
            db.close()
        return path

    files = {}
    files["negative user_version"] = (copy("negative.db", "PRAGMA user_version = -1"),
                                      "schema version -1 is not one Plandeck writes")
    files["newer schema"] = (copy("newer.db", "PRAGMA user_version = 99"), "is newer than this Plandeck")
    files["missing table"] = (copy("no-plans.db", "DROP TABLE plan_versions"),
                              "its table “plan_versions” is missing")
    files["missing column"] = (copy("no-count.db", "ALTER TABLE sessions DROP COLUMN n_messages"),
                               "its column “sessions.n_messages” is missing")
    files["replaced table"] = (copy("odd-events.db", "DROP TABLE events", "CREATE TABLE events (x)"),
                               "its column “events.event_json” is missing")
    text = os.path.join(tmp, "notes.db")
    with open(text, "w") as f:
        f.write("These are my notes, not a database.\n" * 100)
    files["not SQLite"] = (text, "is not a Plandeck database (it is not an SQLite file)")
    truncated = os.path.join(tmp, "truncated.db")
    with open(ok, "rb") as src, open(truncated, "wb") as dst:
        dst.write(src.read(3000))
    files["truncated"] = (truncated, "is damaged")
    # SQLite's hot-journal check opened a FIFO named as the journal and
    # waited for ever (the file is in rollback-journal mode, as above).
    fifo_journal = copy("fifo-journal.db")
    os.mkfifo(fifo_journal + "-journal")
    files["FIFO journal"] = (fifo_journal, "fifo-journal.db-journal beside it is a FIFO")
    folder = os.path.join(tmp, "folder.db")
    os.mkdir(folder)
    files["folder"] = (folder, "not a regular file")
    return ok, sid, files


def commands(sid, recording, tmp):
    return [
        ("sessions list", ["sessions", "list"]),
        ("sessions show", ["sessions", "show", sid]),
        ("sessions export", ["sessions", "export", sid]),
        ("sessions rm", ["sessions", "rm", sid]),
        ("events", ["events"]),
        ("plan status", ["plan", "status", sid]),
        ("run", ["run", "--provider", "replay", "--replay", recording, "--approve", "auto", "-C", tmp, "Again"]),
        ("continue", ["continue", sid, "--provider", "replay", "--replay", recording, "--approve", "auto",
                      "-C", tmp, "More"]),
        ("import --db", ["import", "--claude-dir", tmp, "--codex-dir", tmp, "--opencode-dir", tmp, "--qwen-dir", tmp,
                          "--gemini-dir", tmp, "--cline-dir", tmp, "--kilo-dir", tmp]),
        ("serve", ["serve", "--listen", "127.0.0.1:0"]),
    ]


def refused(tap, proc, what, path, phrase):
    # Named once: `serve` said "w.db: w.db is not a Plandeck database".
    ok = (proc.returncode == 1 and len(re.findall(re.escape(path) + "(?!-)", proc.stderr)) == 1
          and phrase in proc.stderr
          and "CRITICAL" not in proc.stderr and "WARNING" not in proc.stderr)
    return tap.check(ok, what, detail(proc))


def test_databases(tap, agent, tmp, recording):
    ok, sid, files = make_databases(agent, tmp, recording)
    for kind, (path, phrase) in files.items():
        before = None if os.path.isdir(path) else open(path, "rb").read()
        for name, args in commands(sid, recording, tmp):
            # serve would run until stopped: a refusal ends it at once.
            proc = agent.run(*args, "--db", path, timeout=20)
            refused(tap, proc, f"{kind}: {name} refuses with a clear error", path, phrase)
        if before is not None:
            tap.check(open(path, "rb").read() == before, f"{kind}: the file is unchanged")

    # A read-only file, for a user who may not write it: reading works,
    # writing is refused before anything runs.
    ro_dir = os.path.join(tmp, "ro")
    os.mkdir(ro_dir)
    os.chmod(ro_dir, 0o777)
    ro = os.path.join(ro_dir, "ro.db")
    shutil.copyfile(ok, ro)
    os.chmod(ro, 0o444)
    for name, args in commands(sid, recording, tmp):
        if name == "serve":
            continue  # serving a read-only file for reading is allowed
        proc = agent.run(*args, "--db", ro, timeout=20, nobody=True)
        if name in ("sessions list", "sessions show", "sessions export", "events", "plan status"):
            tap.check(proc.returncode == 0 and "WARNING" not in proc.stderr, f"read-only: {name} reads", detail(proc))
        else:
            refused(tap, proc, f"read-only: {name} refuses to write", ro, "cannot be written")
    test_serve_read_only(tap, agent, ro, sid)
    test_deep_rows(tap, agent, tmp, recording, ok, sid)
    test_database_links(tap, agent, tmp, recording, ok, sid)
    with sqlite3.connect(ro) as db:
        tap.check(db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
                  and db.execute("PRAGMA integrity_check").fetchone()[0] == "ok",
                  "read-only: the session is still there")

def test_deep_rows(tap, agent, tmp, recording, ok, sid):
    """A database whose rows hold JSON nested 300 000 deep (anyone who can
    write the file can write them): json-glib recursed once a level and
    every command that read the row died of a stack overflow (SIGSEGV), as
    did `serve` on a GET of the session, taking every client with it."""
    deep = "[" * 300000 + "]" * 300000
    path = os.path.join(tmp, "deep.db")
    shutil.copyfile(ok, path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE messages SET tool_calls = ?", (deep,))
    db.execute("UPDATE messages SET content = ?, content_json = 1 WHERE role = 'assistant'", (deep,))
    db.execute("UPDATE messages SET extra = ?", (deep,))
    db.execute("UPDATE plan_versions SET state_json = ?", (deep,))
    # (events.event_json is left alone: SQLite's own JSON functions refuse
    # it first, "malformed JSON", and that would hide the rest.)
    db.close()
    for name, args in commands(sid, recording, tmp):
        if name in ("serve", "sessions rm", "import --db"):
            continue
        proc = agent.run(*args, "--db", path, timeout=60)
        tap.check(proc.returncode in (0, 1) and "CRITICAL" not in proc.stderr,
                  f"deep rows: {name} ends without crashing", detail(proc))
    proc = subprocess.Popen([agent.path, "serve", "--db", path, "--listen", "127.0.0.1:0"], env=agent.env,
                            cwd=agent.cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        base, _, token = url.partition("/?token=")
        for suffix in ("", "/plan", "/plan/detail", "/export", "/events"):
            where = f"/api/sessions/{sid}{suffix}" if suffix != "/events" else f"/api/events?session_id={sid}"
            request = urllib.request.Request(base + where, headers={"X-Plandeck-Token": token})
            try:
                with urllib.request.urlopen(request, timeout=60) as reply:
                    status = reply.status
            except urllib.error.HTTPError as e:
                status = e.code
            except (urllib.error.URLError, ConnectionError) as e:
                status = f"no answer: {e}"
            tap.check(status in (200, 500) and proc.poll() is None,
                      f"deep rows: serve answers GET {where.split('?')[0]} and lives", f"{status}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def test_database_links(tap, agent, tmp, recording, ok, sid):
    """--db PATH where another user left a link or their own database (tried
    as an attacker would, in a folder both can write): a dangling link is
    never followed to make a database where it points; a database of another
    user is read, never written, and through a link not opened at all."""
    shared = os.path.join(tmp, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    target = os.path.join(shared, "their-target.db")
    dangling = os.path.join(shared, "dangling.db")
    os.symlink(target, dangling)
    for name, args in commands(sid, recording, tmp):
        proc = agent.run(*args, "--db", dangling, timeout=20)
        tap.check(proc.returncode != 0 and not os.path.lexists(target)
                  and not os.path.lexists(target + "-wal") and "CRITICAL" not in proc.stderr,
                  f"dangling link: {name} makes nothing where it points", detail(proc))
    if os.geteuid() != 0:
        tap.check(True, "# SKIP databases of another user need root to make")
        return
    theirs = os.path.join(shared, "theirs.db")
    shutil.copyfile(ok, theirs)
    os.chmod(theirs, 0o666)
    os.chown(theirs, NOBODY, NOBODY)
    link = os.path.join(shared, "link.db")
    os.symlink(theirs, link)
    before = open(theirs, "rb").read()
    for name, args in commands(sid, recording, tmp):
        proc = agent.run(*args, "--db", link, timeout=20)
        refused(tap, proc, f"link to another user's database: {name} refuses", link,
                "symbolic link to a database of another user")
        if name == "serve":
            continue
        proc = agent.run(*args, "--db", theirs, timeout=20)
        if name in ("sessions list", "sessions show", "sessions export", "events", "plan status"):
            tap.check(proc.returncode == 0 and "WARNING" not in proc.stderr,
                      f"another user's database: {name} reads", detail(proc))
        else:
            refused(tap, proc, f"another user's database: {name} refuses to write", theirs,
                    "belongs to another user")
    tap.check(open(theirs, "rb").read() == before and not os.path.exists(theirs + "-wal"),
              "another user's database is unchanged")


def test_serve_read_only(tap, agent, ro, sid):
    """`serve` of a file it may not write: reads are served, and a run,
    which could save nothing, is refused up front (it was accepted, 202,
    and then warned at each save that nothing was saved)."""
    proc = subprocess.Popen([agent.path, "serve", "--db", ro, "--listen", "127.0.0.1:0"], env=agent.env,
                            cwd=agent.cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_nobody)
    try:
        url = proc.stdout.readline().strip()
        base, _, token = url.partition("/?token=")
        headers = {"X-Plandeck-Token": token}

        def call(method, path, body=None):
            request = urllib.request.Request(base + path, method=method, headers=dict(headers),
                                             data=None if body is None else json.dumps(body).encode())
            if body is not None:
                request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=20) as reply:
                    return reply.status, reply.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        status, body = call("GET", "/api/sessions")
        tap.check(status == 200 and sid in body, "read-only: serve serves the sessions", f"{status} {body}")
        status, body = call("POST", "/api/prompt", {"message": "Write something"})
        tap.check(status == 503 and "runs are refused" in body and "cannot be written" in body
                  and ro in body, "read-only: serve refuses a run up front, saying why", f"{status} {body}")
        status, body = call("POST", "/api/prompt", {"message": "More", "session_id": sid})
        tap.check(status == 503 and "runs are refused" in body,
                  "read-only: serve refuses to continue a session", f"{status} {body}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    tap.check("runs are refused" in err and "CRITICAL" not in err,
              "read-only: serve says at start that runs are refused", err)


def claude_transcript(session, title, todos):
    """A small Claude Code transcript: a prompt, a TodoWrite call and its result."""
    lines = [
        {"type": "user", "timestamp": "2026-03-04T10:00:00Z", "sessionId": session, "cwd": "/work/app",
         "message": {"role": "user", "content": title}},
        {"type": "assistant", "timestamp": "2026-03-04T10:00:01Z", "sessionId": session, "cwd": "/work/app",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "tu1", "name": "TodoWrite",
              "input": {"todos": [{"content": t, "status": "pending"} for t in todos]}}]}},
        {"type": "user", "timestamp": "2026-03-04T10:00:02Z", "sessionId": session,
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "tu1", "content": "ok", "is_error": False}]}},
    ]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def test_import(tap, agent, tmp):
    root = os.path.join(tmp, "agents")
    project = os.path.join(root, "claude", "-work-app")
    empty = os.path.join(root, "none")
    os.makedirs(os.path.join(project, "good", "subagents"))
    os.makedirs(empty)
    for d in (root, os.path.join(root, "claude"), project, empty):
        os.chmod(d, 0o777)
    with open(os.path.join(project, "good.jsonl"), "w") as f:
        f.write(claude_transcript("good", "Tidy the build", ["Zanzibar step one", "Zanzibar step two"]))
    secret = os.path.join(project, "secret.jsonl")
    with open(secret, "w") as f:
        f.write(claude_transcript("secret", "Not yours", ["Hidden"]))
    os.chmod(secret, 0)
    trap = os.path.join(project, "trap.jsonl")
    os.mkfifo(trap)
    sub_trap = os.path.join(project, "good", "subagents", "agent-f.jsonl")
    os.mkfifo(sub_trap)
    link = os.path.join(project, "link.jsonl")
    os.symlink(os.path.join(project, "good.jsonl"), link)
    # The agents read whole: a Cline task's messages and a Gemini CLI
    # session of the older format as FIFOs, a Qwen Code session a link.
    cline_trap = os.path.join(root, "vscode", "saoudrizwan.claude-dev", "tasks", "1", "ui_messages.json")
    gemini_trap = os.path.join(root, "gemini", "p", "chats", "session-x.json")
    qwen_link = os.path.join(root, "qwen", "-w", "chats", "s.jsonl")
    for path in (cline_trap, gemini_trap, qwen_link):
        os.makedirs(os.path.dirname(path))
    os.mkfifo(cline_trap)
    os.mkfifo(gemini_trap)
    os.symlink(os.path.join(project, "good.jsonl"), qwen_link)
    for folder, _, _ in os.walk(root):
        os.chmod(folder, 0o777)
    expected = {
        trap: "not a regular file (a FIFO)",
        sub_trap: "not a regular file (a FIFO)",
        secret: "cannot be opened: Permission denied",
        link: "a symbolic link (not followed)",
        cline_trap: "not a regular file (a FIFO)",
        gemini_trap: "not a regular file (a FIFO)",
        qwen_link: "a symbolic link (not followed)",
    }
    dirs = ["--claude-dir", os.path.join(root, "claude"), "--codex-dir", empty, "--opencode-dir", empty,
            "--qwen-dir", os.path.join(root, "qwen"), "--gemini-dir", os.path.join(root, "gemini"),
            "--cline-dir", os.path.join(root, "vscode"), "--kilo-dir", empty]
    db_dir = os.path.join(tmp, "import-db")
    os.mkdir(db_dir)
    os.chmod(db_dir, 0o777)
    db = os.path.join(db_dir, "sessions.db")

    # Without --db, text: the session, then every skipped file.
    proc = agent.run("import", *dirs, timeout=60, nobody=True)
    tap.check(proc.returncode == 0, "import ends (a FIFO is not waited on)", detail(proc))
    tap.check("Zanzibar step one" in proc.stdout and "Hidden" not in proc.stdout,
              "import reads the good transcript", detail(proc))
    tap.check("7 files skipped:" in proc.stdout
              and all(f"{path}: {reason}" in proc.stdout for path, reason in expected.items()),
              "import names every skipped file with its reason", detail(proc))

    # --json: the same, as a list.
    proc = agent.run("import", "--json", *dirs, timeout=60, nobody=True)
    try:
        listing = json.loads(proc.stdout)
    except ValueError:
        listing = {}
    skipped = {item.get("path"): item.get("reason") for item in listing.get("skipped", [])}
    tap.check(proc.returncode == 0 and listing.get("count") == 1 and skipped == expected,
              "import --json lists the skipped files", detail(proc))

    # --db: counted in the index figures, named in the text and the JSON.
    proc = agent.run("import", "--db", db, *dirs, timeout=60, nobody=True)
    tap.check(proc.returncode == 0 and "1 sessions added" in proc.stdout
              and all(f"{path}: {reason}" in proc.stdout for path, reason in expected.items()),
              "import --db names every skipped file", detail(proc))
    proc = agent.run("import", "--db", db, "--json", *dirs, timeout=60, nobody=True)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = {}
    skipped = {item.get("path"): item.get("reason") for item in report.get("skipped", [])}
    # The second run finds good.jsonl unchanged and does not open it, so its
    # subagent FIFO is not met again; the files found by the walk are.
    walk = {path: reason for path, reason in expected.items() if path != sub_trap}
    tap.check(proc.returncode == 0 and report.get("index", {}).get("skipped") == len(walk) and skipped == walk,
              "import --db --json counts and lists them", detail(proc))

    # An OpenCode folder from elsewhere whose database has a FIFO as its
    # journal: import waited for ever in SQLite's open.
    oc = os.path.join(tmp, "opencode-fifo")
    os.mkdir(oc)
    with sqlite3.connect(os.path.join(oc, "opencode.db")) as odb:
        odb.execute("CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT)")
        odb.execute("INSERT INTO session VALUES ('ses_a', 'Session A')")
    odb.close()
    os.mkfifo(os.path.join(oc, "opencode.db-journal"))
    proc = agent.run("import", "--claude-dir", empty, "--codex-dir", empty, "--opencode-dir", oc, "--qwen-dir", empty,
                     "--gemini-dir", empty, "--cline-dir", empty, "--kilo-dir", empty, timeout=30)
    tap.check(proc.returncode != "timeout" and "opencode.db-journal beside it is a FIFO" in proc.stdout + proc.stderr,
              "import ends on an OpenCode database with a FIFO journal, naming it", detail(proc))

    # A Kilo database from elsewhere whose session (or part) is an endless
    # recursive view: import ran for ever, its memory growing by the GB.
    # It ends, naming what it refused; a table without ids is named too.
    for name, sql, phrase in [
            ("view-session",
             "CREATE VIEW session AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
             "SELECT 'ses_'||x AS id, printf('%.1000c','t') AS title, '/tmp' AS directory FROM c; "
             "CREATE TABLE part(session_id,id,data);",
             "its session is a view, not a table"),
            ("view-part",
             "CREATE TABLE session(id, title); INSERT INTO session VALUES ('ses_a', 'A'); "
             "CREATE VIEW part AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
             "SELECT 'ses_a' AS session_id, x AS id, '{\"tool\":\"todowrite\"}' AS data FROM c;",
             "its part is a view, not a table"),
            ("no-id", "CREATE TABLE session(title); INSERT INTO session VALUES ('A');",
             "its session table has no id column")]:
        kilo = os.path.join(tmp, "kilo-" + name)
        os.mkdir(kilo)
        with sqlite3.connect(os.path.join(kilo, "kilo.db")) as kdb:
            kdb.executescript(sql)
        kdb.close()
        proc = agent.run("import", "--claude-dir", empty, "--codex-dir", empty, "--opencode-dir", empty,
                         "--qwen-dir", empty, "--gemini-dir", empty, "--cline-dir", empty, "--kilo-dir", kilo,
                         timeout=60)
        tap.check(proc.returncode == 0 and phrase in proc.stdout + proc.stderr,
                  f"import ends on a Kilo database ({name}), naming why it is skipped", detail(proc))

    # Named on the command line, a FIFO is an error that says what it is.
    proc = agent.run("import", trap, timeout=60)
    tap.check(proc.returncode == 1 and "is not a regular file (a FIFO)" in proc.stderr,
              "import FIFO refuses it", detail(proc))


BIDI = [chr(c) for c in list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)) + [0x200E, 0x200F, 0x061C]]


def raw_bidi(text):
    return [f"U+{ord(c):04X}" for c in set(text) if c in BIDI or 0xE0000 <= ord(c) <= 0xE007F]


def test_bidi(tap, agent, tmp):
    """Bidi overrides and isolates in a transcript (a title that reads
    reversed, an item hiding its end, a file name): printed, they reordered
    the terminal's line.  Every output shows them as <U+202E>, or as \\u
    escapes in JSON."""
    root = os.path.join(tmp, "bidi")
    project = os.path.join(root, "-work-app")
    empty = os.path.join(tmp, "bidi-none")
    os.makedirs(project)
    os.makedirs(empty)
    name = os.path.join(project, "evil\u202egnp.jsonl")
    with open(name, "w") as f:
        f.write(claude_transcript("bidi", "Deploy \u202etxt.exe now",
                                  ["Check \u2066admin\u2069 \u2067rights", "Tag \U000E0041\U000E0042 hidden"]))
    dirs = ["--claude-dir", root, "--codex-dir", empty, "--opencode-dir", empty, "--qwen-dir", empty,
            "--gemini-dir", empty, "--cline-dir", empty, "--kilo-dir", empty]
    db = os.path.join(tmp, "bidi.db")

    proc = agent.run("import", *dirs, timeout=60)
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout)
              and "Deploy <U+202E>txt.exe now" in proc.stdout and "Check <U+2066>admin<U+2069>" in proc.stdout
              and "evil<U+202E>gnp.jsonl" in proc.stdout,
              "import shows bidi controls, never prints them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    proc = agent.run("import", "--json", *dirs, timeout=60)
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and "\\u202e" in proc.stdout,
              "import --json escapes them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    proc = agent.run("import", "--db", db, *dirs, timeout=60)
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and "<U+202E>" in proc.stdout,
              "import --db shows them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    proc = agent.run("sessions", "list", "--db", db, timeout=60)
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and "Deploy <U+202E>txt.exe now" in proc.stdout,
              "sessions list shows them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    proc = agent.run("sessions", "list", "--db", db, "--json", timeout=60)
    ids = []
    try:
        ids = [item["id"] for item in json.loads(proc.stdout)["sessions"]]
    except (ValueError, KeyError):
        pass
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and len(ids) == 1,
              "sessions list --json has none raw", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    if ids:
        proc = agent.run("sessions", "show", "--db", db, ids[0], timeout=60)
        tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and "<U+202E>" in proc.stdout,
                  "sessions show shows them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")


BIDI_RUN = {"label": "bidi run", "turns": [
    {"tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
        {"id": "a", "title": "Look \u202etxt.exe now"}]}}]},
    {"tool_calls": [{"name": "evil\u202etxt.exe", "arguments": {"x": "\u2066y"}}]},
    {"content": "Done \u202e evil.\u001b]0;pwned\u0007 end"}]}


def test_bidi_own(tap, agent, tmp):
    """Plandeck's own sessions: a plan title and a tool name the model wrote
    with bidi controls, an answer with a terminal escape.  `plan status`
    and `events` printed them raw; so did `run` on its terminal."""
    recording = os.path.join(tmp, "bidi-run.json")
    with open(recording, "w") as f:
        json.dump(BIDI_RUN, f)
    db = os.path.join(tmp, "bidi-own.db")
    args = ["run", "--db", db, "--provider", "replay", "--replay", recording, "--approve", "auto", "-C", tmp, "Look"]
    proc = agent.run(*args, timeout=60)
    tap.check(not raw_bidi(proc.stderr) and "evil<U+202E>txt.exe" in proc.stderr,
              "run: a tool name's bidi controls are shown on stderr", f"raw: {raw_bidi(proc.stderr)}\n{detail(proc)}")
    tap.check("\u001b]0;pwned\u0007" in proc.stdout, "run: a piped answer stays as the model wrote it", detail(proc))
    with sqlite3.connect(db) as conn:
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    conn.close()
    proc = agent.run("plan", "status", "--db", db, sid, timeout=60)
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and "Look <U+202E>txt.exe now" in proc.stdout,
              "plan status shows bidi controls, never prints them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    proc = agent.run("events", "--db", db, timeout=60)
    tap.check(proc.returncode == 0 and not raw_bidi(proc.stdout) and "evil\\u202etxt.exe" in proc.stdout,
              "events escapes them", f"raw: {raw_bidi(proc.stdout)}\n{detail(proc)}")
    # A database from elsewhere may hold raw control characters in an event.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET event_json = replace(event_json, 'evil', ?)", ("a\x1b]0;x\x07\nforged",))
    conn.close()
    proc = agent.run("events", "--db", db, timeout=60)
    tap.check(proc.returncode == 0 and "\x1b" not in proc.stdout and "\nforged" not in proc.stdout
              and all(json.loads(line) for line in proc.stdout.splitlines()),
              "events: control characters from the database are escaped, one event a line", detail(proc))

    # On a terminal the answer is shown safe too.
    import pty
    master, slave = pty.openpty()
    child = subprocess.Popen([agent.path, *args], env=agent.env, cwd=agent.cwd, stdin=subprocess.DEVNULL,
                             stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    child.wait(timeout=60)
    os.close(master)
    text = out.decode(errors="replace")
    tap.check("\x1b" not in text and not raw_bidi(text) and "Done <U+202E> evil." in text,
              "run: on a terminal the answer's escape and bidi controls are shown, never obeyed", repr(text))

def test_bad_id(tap, agent, tmp):
    """An id argument that is no id is named in the error as one safe line:
    its terminal escapes were printed raw (tried as an attacker would)."""
    hostile = "x\x1b]0;PWN\x07\x1b[2J\u202e"
    db = os.path.join(tmp, "ids.db")
    for args in (["sessions", "show", hostile], ["sessions", "restore", hostile], ["events", "--session", hostile],
                 ["plan", "status", hostile]):
        proc = agent.run(*args, "--db", db)
        tap.check(proc.returncode == 2 and "is not a session id" in proc.stderr and "\x1b" not in proc.stderr
                  and "\x07" not in proc.stderr and "\u202e" not in proc.stderr,
                  f"{' '.join(args[:2])}: a hostile id is shown safe", detail(proc))


def test_folder_swapped(tap, agent, tmp):
    """A stored imported session read again after its project folder was
    swapped for a link to elsewhere holding a file of the same name:
    `sessions export` and `sessions show` read the linked file (tried as an
    attacker would, att15).  They refuse the link, as import does."""
    root = os.path.join(tmp, "swap")
    project = os.path.join(root, "projects", "p")
    elsewhere = os.path.join(tmp, "swap-elsewhere", "p")
    name = "33333333-3333-4333-8333-333333333333.jsonl"
    os.makedirs(project)
    os.makedirs(elsewhere)
    with open(os.path.join(project, name), "w") as f:
        f.write(claude_transcript("swap", "Zanzibar the real one", ["Real step"]))
    with open(os.path.join(elsewhere, name), "w") as f:
        f.write(claude_transcript("swap", "SECRET-FROM-LINK-TARGET", ["SECRET-FROM-LINK-TARGET"]))
    db = os.path.join(tmp, "swap.db")
    proc = agent.run("import", "--db", db, "--claude-dir", os.path.join(root, "projects"), "--json")
    sid = None
    try:
        sid = json.loads(proc.stdout)["sessions"][0]["id"]
    except (ValueError, KeyError, IndexError, TypeError):
        pass
    if not tap.check(proc.returncode == 0 and sid, "swap: the session is imported", detail(proc)):
        return
    proc = agent.run("sessions", "export", sid, "--db", db)
    tap.check(proc.returncode == 0 and "Zanzibar the real one" in proc.stdout, "swap: exported before the swap",
              detail(proc))
    os.rename(project, project + ".real")
    os.symlink(elsewhere, project)
    for args in (["sessions", "export", sid], ["sessions", "show", sid], ["sessions", "show", sid, "--json"]):
        proc = agent.run(*args, "--db", db)
        tap.check("SECRET-FROM-LINK-TARGET" not in proc.stdout + proc.stderr
                  and f"{project}: a symbolic link (not followed)" in proc.stderr,
                  f"{' '.join(args[:2])}: a project folder swapped for a link is not followed", detail(proc))


def main():
    agent_path = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-hostile-files-") as tmp:
        os.chmod(tmp, 0o755)
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
                    "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
            env.pop(var, None)
        agent = Agent(agent_path, env, tmp)
        recording = os.path.join(tmp, "run.json")
        with open(recording, "w") as f:
            json.dump(RECORDING, f)
        test_databases(tap, agent, tmp, recording)
        test_import(tap, agent, tmp)
        test_bidi(tap, agent, tmp)
        test_bidi_own(tap, agent, tmp)
        test_bad_id(tap, agent, tmp)
        test_folder_swapped(tap, agent, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

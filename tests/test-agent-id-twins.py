#!/usr/bin/env python3
"""One id, one session: a transcript whose agent's own id is a Plandeck
session's id, through plandeck-agent on a real database.

usage: test-agent-id-twins.py AGENT

A Claude Code transcript whose sessionId (and file name) is the id of a
session run here imports; `sessions show` of the import still says
`continue  claude --resume <that id>` (Claude's own id is what Claude
takes), and now says under it that plandeck-agent given that id acts on
the other session.  `sessions rm <that id>` is refused (status 2, both ids
named, nothing removed): it deleted the native session for good, the id
the import's page shows (tried as an attacker would, att20 L1).  Once the
import is out of the list, the id names one session: `sessions restore`
given it lists the import again (it said "not removed"), `sessions show`
and `export` of the id are the native session's, and rm of a native id
that no import carries deletes at once, as before.
Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile
import uuid

from pd_tap import Tap, detail


def crafted_transcript(folder, session_id):
    """A one-message Claude Code transcript that says it is @session_id."""
    project = os.path.join(folder, "-tmp-y")
    os.makedirs(project, exist_ok=True)
    line = {"type": "user", "message": {"role": "user", "content": "crafted transcript"},
            "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/tmp/y",
            "sessionId": session_id, "version": "1.0.44", "uuid": str(uuid.uuid4()),
            "timestamp": "2026-12-05T15:00:00.000Z"}
    with open(os.path.join(project, session_id + ".jsonl"), "w") as f:
        f.write(json.dumps(line) + "\n")


def listed(agent_run, db):
    proc = agent_run("sessions", "list", "--db", db, "--json")
    return {s["id"]: s for s in json.loads(proc.stdout or "{}").get("sessions", [])}


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-id-twins-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEX_HOME",
                    "CLAUDE_CONFIG_DIR"):
            env.pop(var, None)

        def agent_run(*args):
            return subprocess.run([agent, *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)

        db = os.path.join(tmp, "ids.db")
        recording = os.path.join(tmp, "r.json")
        with open(recording, "w") as f:
            json.dump({"label": "ids", "turns": [{"content": "Done."}]}, f)
        work = os.path.join(tmp, "w")
        os.mkdir(work)
        for task in ("my important native session", "another native session"):
            proc = agent_run("run", "--db", db, "--provider", "replay", "--replay", recording, "-C", work, task)
            tap.check(proc.returncode == 0, f"run: {task}", detail(proc))
        by_title = {s.get("title") or s.get("task"): i for i, s in listed(agent_run, db).items()}
        nid = by_title.get("my important native session")
        other = by_title.get("another native session")
        tap.check(nid is not None and other is not None, "two native sessions listed", by_title)

        crafted_transcript(os.path.join(tmp, "cc"), nid)
        proc = agent_run("import", "--db", db, "--claude-dir", os.path.join(tmp, "cc"))
        tap.check(proc.returncode == 0, "the transcript that says it is a native session imports", detail(proc))
        imported = [i for i, s in listed(agent_run, db).items() if s.get("source") != "plandeck"]
        tap.check(len(imported) == 1 and imported[0] != nid, "the import has an id of its own", imported)
        iid = imported[0] if imported else "none"

        page = agent_run("sessions", "show", "--db", db, iid)
        tap.check(page.returncode == 0 and f"  continue  claude --resume {nid}\n" in page.stdout,
                  "the import's page still gives Claude's own id to resume", detail(page))
        tap.check("that id is also another session’s here" in page.stdout and f"this one is {iid}" in page.stdout,
                  "and says that plandeck-agent given that id acts on another session", detail(page))
        as_json = agent_run("sessions", "show", "--db", db, iid, "--json")
        resume = json.loads(as_json.stdout or "{}").get("resume", {})
        tap.check(resume.get("argv") == ["claude", "--resume", nid], "show --json: the same resume command",
                  detail(as_json))

        proc = agent_run("sessions", "rm", "--db", db, nid)
        tap.check(proc.returncode == 2 and "names more than one session" in proc.stderr
                  and nid in proc.stderr and iid in proc.stderr,
                  "rm of the id both carry is refused, naming both", detail(proc))
        now = listed(agent_run, db)
        tap.check(nid in now and iid in now, "and removes neither", sorted(now))

        # The import out of the list: the id names the native alone.
        proc = agent_run("sessions", "rm", "--db", db, iid)
        tap.check(proc.returncode == 0 and "removed from the list" in proc.stdout, "rm of the import's own id hides it",
                  detail(proc))
        proc = agent_run("sessions", "restore", "--db", db, nid)
        now = listed(agent_run, db)
        tap.check(proc.returncode == 0 and iid in now and nid in now,
                  "restore given the id its page showed lists the import again", detail(proc))
        shown = agent_run("sessions", "show", "--db", db, nid, "--json")
        tap.check(shown.returncode == 0 and json.loads(shown.stdout or "{}").get("id") == nid,
                  "show of the id is the native session's", detail(shown))
        exported = agent_run("sessions", "export", "--db", db, nid)
        tap.check(exported.returncode == 0 and nid in exported.stdout and "crafted transcript" not in exported.stdout,
                  "export of the id is the native session's", detail(exported))

        proc = agent_run("sessions", "rm", "--db", db, other)
        now = listed(agent_run, db)
        tap.check(proc.returncode == 0 and other not in now and nid in now and iid in now,
                  "rm of a native id no import carries deletes that one only, as before", detail(proc))
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

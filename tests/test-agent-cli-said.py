#!/usr/bin/env python3
"""What plandeck-agent tells a person, end to end with the replay provider.

usage: test-agent-cli-said.py AGENT

A run stopped by --max-iterations says why on stderr, and the plan steps
left, plain: the wrapper the note carries for the model
(<untrusted_content_…>) is not for the person.  import --codex-dir of a
folder that holds no Codex sessions is an error (status 2, as a folder
that is not there; it was 0), with --json and --db too, `--codex-dir ~`
names ~/.codex and `--codex-dir=~` says the shell did not expand it.
sessions list/show say "stopped" of a run that ended short, the window's
word (--json keeps "idle").  The demo recording's turns give their tokens:
--max-tokens stops it, and --max-iterations 3 says 3 of 3, its
budget_exceeded event of iteration 3.  plan status of an imported Gemini
CLI or OpenCode session reads as sessions show's plan (its cancelled item
cancelled, not blocked).  import --claude-dir of an empty folder names
it, and says it held nothing (status 2) when the default folders of other
agents hold sessions.  run's progress line of a call ("→ shell: …" on
stderr) is masked as the stored session is (it showed the password).
sessions rm of another agent's session says it is removed from the list,
its transcript kept, as the window says (it said "Removed session ID").
Prints TAP.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from pd_tap import Tap, detail

RECORDING = {
    "label": "budget",
    "turns": [
        {"content": "Planning.",
         "tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
             {"id": "look", "title": "List the files"},
             {"id": "tell", "title": "Report them"}]}}]},
        {"content": "not reached"},
    ],
}


def budget_stop(tap, agent_run, tmp):
    recording = os.path.join(tmp, "budget.json")
    with open(recording, "w") as f:
        json.dump(RECORDING, f)
    work = os.path.join(tmp, "budget-work")
    os.mkdir(work)
    proc = agent_run("run", "--db", os.path.join(tmp, "budget.db"), "--provider", "replay", "--replay", recording,
                     "--approve", "auto", "-C", work, "--max-iterations", "1", "Two things")
    said = ("The run stopped: its iteration budget ran out (1 of 1)\n"
            "Steps left: look pending, tell pending\n")
    tap.check(proc.returncode == 3 and said in proc.stderr, "run --max-iterations says why it stopped, plain",
              detail(proc))
    tap.check("untrusted_content" not in proc.stdout + proc.stderr,
              "run --max-iterations prints no wrapper meant for the model", detail(proc))
    # The window says "Stopped" of that session: the CLI said "idle".
    db = os.path.join(tmp, "budget.db")
    listed = agent_run("sessions", "list", "--db", db)
    rows = [line.split() for line in listed.stdout.splitlines()[1:] if line.strip()]
    tap.check(listed.returncode == 0 and len(rows) == 1 and rows[0][1] == "stopped",
              "sessions list says stopped of a run its budget stopped, as the window does", detail(listed))
    as_json = agent_run("sessions", "list", "--db", db, "--json")
    sessions = json.loads(as_json.stdout or "{}").get("sessions", [])
    tap.check(as_json.returncode == 0 and len(sessions) == 1 and sessions[0].get("status") == "idle",
              "sessions list --json keeps the stored status", detail(as_json))
    if rows:
        shown = agent_run("sessions", "show", rows[0][0], "--db", db)
        tap.check(shown.returncode == 0 and "\n  status    stopped\n" in shown.stdout,
                  "sessions show says stopped too", detail(shown))


def demo_budgets(tap, agent_run, tmp):
    """The demo recording, as a new user tries the budgets on it: its turns
    gave no tokens, so --max-tokens never stopped it.  They give what such
    turns take, and --max-tokens stops it; --max-iterations 3 says 3 of 3,
    and its budget_exceeded event is of the third turn, the last that ran
    (it said the fourth, on the Events page)."""
    demo = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data", "demo")
    with open(os.path.join(demo, "demo-run.json")) as f:
        turns = json.load(f)["turns"]
    tap.check(all(t.get("input_tokens", 0) > 0 and t.get("output_tokens", 0) > 0 for t in turns),
              "every turn of the demo recording gives its tokens", "")
    for name, args, said in (("tokens", ["--max-tokens", "20000"], "its token budget ran out ("),
                             ("iterations", ["--max-iterations", "3"], "its iteration budget ran out (3 of 3)")):
        work = os.path.join(tmp, "demo-" + name)
        shutil.copytree(os.path.join(demo, "project"), work)
        db = os.path.join(tmp, "demo-" + name + ".db")
        proc = agent_run("run", "--db", db, "--provider", "replay", "--replay", os.path.join(demo, "demo-run.json"),
                         "--approve", "auto", "-C", work, *args, "Fix it")
        tap.check(proc.returncode == 3 and said in proc.stderr,
                  "the demo with " + " ".join(args) + " stops by that budget", detail(proc))
        if name != "iterations":
            continue
        sid = next((line.split()[1].rstrip(":") for line in proc.stderr.splitlines()
                    if line.startswith("session ")), "")
        tap.check("after 3 iterations" in proc.stderr, "run says it stopped after 3 iterations", detail(proc))
        events = agent_run("events", "--db", db, "--session", sid, "--type", "budget_exceeded")
        budget = [json.loads(line) for line in events.stdout.splitlines()
                  if line.strip() and json.loads(line).get("type") == "budget_exceeded"]
        tap.check(events.returncode == 0 and len(budget) == 1 and budget[0].get("iteration") == 3,
                  "its budget_exceeded event is of iteration 3, the last that ran", detail(events))


def codex_dir(tap, agent_run, tmp):
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "codex")
    home = os.path.join(tmp, "home-like")
    os.makedirs(os.path.join(home, ".codex"))
    shutil.copytree(os.path.join(fixtures, "sessions"), os.path.join(home, ".codex", "sessions"))
    missing = agent_run("import", "--codex-dir", os.path.join(tmp, "not-there"))
    wrong = agent_run("import", "--codex-dir", home)
    tap.check(missing.returncode == 2 and wrong.returncode == 2,
              "import --codex-dir: a wrong folder exits 2, as a missing one does", detail(wrong))
    tap.check("--codex-dir takes Codex's home folder" in wrong.stderr
              and wrong.stderr.endswith(": --codex-dir " + os.path.join(home, ".codex") + "\n"),
              "import --codex-dir of the home folder names the .codex in it", detail(wrong))
    wrong_json = agent_run("import", "--json", "--codex-dir", home)
    listed = json.loads(wrong_json.stdout or "{}")
    tap.check(wrong_json.returncode == 2 and listed.get("count") == 0
              and "--codex-dir " + os.path.join(home, ".codex") in wrong_json.stderr,
              "import --json of a wrong folder: the empty listing, status 2, the hint on stderr", detail(wrong_json))
    right = agent_run("import", "--json", "--codex-dir", os.path.join(home, ".codex"))
    tap.check(right.returncode == 0 and json.loads(right.stdout or "{}").get("count", 0) > 0,
              "import --codex-dir ~/.codex reads its sessions", detail(right))
    # With --db the same wrong folder exited 0 where without it exited 2.
    db = os.path.join(tmp, "import.db")
    wrong_db = agent_run("import", "--db", db, "--codex-dir", home)
    tap.check(wrong_db.returncode == 2 and "--codex-dir " + os.path.join(home, ".codex") in wrong_db.stderr,
              "import --db of a wrong folder: status 2, as without --db, and the hint", detail(wrong_db))
    wrong_db_json = agent_run("import", "--db", db, "--json", "--codex-dir", home)
    tap.check(wrong_db_json.returncode == 2 and json.loads(wrong_db_json.stdout or "{}").get("count") == 0,
              "import --db --json of a wrong folder: the empty listing, status 2", detail(wrong_db_json))
    right_db = agent_run("import", "--db", db, "--json", "--codex-dir", os.path.join(home, ".codex"))
    tap.check(right_db.returncode == 0 and json.loads(right_db.stdout or "{}").get("count", 0) > 0,
              "import --db --codex-dir ~/.codex indexes its sessions", detail(right_db))
    # `--codex-dir=~`: no shell expands ~ after =.
    tilde = agent_run("import", "--codex-dir=~")
    tap.check(tilde.returncode == 2 and "~ was not expanded" in tilde.stderr
              and "--codex-dir=$HOME or --codex-dir ~" in tilde.stderr,
              "import --codex-dir=~ says ~ was not expanded and how to write it", detail(tilde))
    tilde_sub = agent_run("import", "--codex-dir=~/.codex")
    tap.check(tilde_sub.returncode == 2 and "--codex-dir=$HOME/.codex or --codex-dir ~/.codex" in tilde_sub.stderr,
              "import --codex-dir=~/.codex says how to write it", detail(tilde_sub))
    default = agent_run("import")
    tap.check(default.returncode == 0 and "No transcripts found." in default.stdout,
              "import of the default folders finding nothing is no error", detail(default))


def plan_status_imported(tap, agent_run, tmp):
    """plan status of an imported agent's session: the plan as sessions show
    gives it.  Of the Gemini CLI fixture's session it said "3/5 done ·
    1 blocked" and ⛔ on the item the agent cancelled, where show said
    "3/4 done · 1 cancelled" and ➖ "(cancelled)"; of OpenCode's likewise."""
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    db = os.path.join(tmp, "imported.db")
    proc = agent_run("import", "--db", db, "--gemini-dir", os.path.join(fixtures, "gemini", "tmp"),
                     "--opencode-dir", os.path.join(fixtures, "opencode"))
    listed = agent_run("sessions", "list", "--db", db, "--json")
    sessions = json.loads(listed.stdout or "{}").get("sessions", []) if listed.returncode == 0 else []
    sources = {s.get("source") for s in sessions}
    tap.check(proc.returncode == 0 and {"gemini", "opencode"} <= sources,
              "import of the Gemini CLI and OpenCode fixtures into a db", detail(proc))
    cancelled = {}
    for session in sessions:
        status = agent_run("plan", "status", "--db", db, session["id"])
        show = agent_run("sessions", "show", "--db", db, session["id"])
        plan = show.stdout.split("\n\n", 1)[1] if "\n\n" in show.stdout else ""
        tap.check(status.returncode == 0 and show.returncode == 0 and plan != "" and status.stdout == plan,
                  "plan status of a %s session reads as sessions show's plan" % session.get("source"),
                  detail(status) + "\n" + detail(show))
        if " cancelled\n" in status.stdout:
            cancelled[session.get("source")] = status.stdout
    gemini = cancelled.get("gemini", "")
    tap.check("\U0001f4cb Plan \u2014 v4 \u00b7 3/4 done \u00b7 1 cancelled\n" in gemini
              and "\u2796 5b8a4a2c Document the signal (cancelled)\n" in gemini and "blocked" not in gemini,
              "plan status of the Gemini CLI session: the cancelled item cancelled, 3/4 done", gemini)
    opencode = cancelled.get("opencode", "")
    tap.check(" \u00b7 1 cancelled\n" in opencode and "(cancelled)\n" in opencode and "blocked" not in opencode,
              "plan status of the OpenCode session: its cancelled item cancelled, not blocked", opencode)


def given_empty(tap, agent_run, tmp):
    """import --claude-dir of an empty folder: the heading "looked in these
    folders" named none under it; with the default folders of other agents
    holding sessions it exited 0 without a word of the folder given."""
    empty = os.path.join(tmp, "claude-empty")
    os.makedirs(empty)
    alone = agent_run("import", "--claude-dir", empty)
    tap.check(alone.returncode == 2 and "none of which holds a transcript:\n  " + empty + "\n" in alone.stderr,
              "import --claude-dir of an empty folder names it under \"looked in these folders\"", detail(alone))
    alone_json = agent_run("import", "--json", "--gemini-dir", empty)
    tap.check(alone_json.returncode == 2 and "none of which holds a transcript:\n  " + empty + "\n" in alone_json.stderr,
              "import --json --gemini-dir of an empty folder names it too", detail(alone_json))
    # Codex's default folder ($HOME/.codex) holds sessions from here on.
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    shutil.copytree(os.path.join(fixtures, "codex", "sessions"), os.path.join(tmp, ".codex", "sessions"))
    said = "plandeck-agent import: --claude-dir " + empty + " holds no transcript"
    for extra in ([], ["--json"], ["--db", os.path.join(tmp, "given-empty.db")]):
        proc = agent_run("import", *extra, "--claude-dir", empty)
        tap.check(proc.returncode == 2 and said in proc.stderr and "rollout" not in proc.stderr,
                  "import %s--claude-dir of an empty folder beside Codex's sessions: said, status 2"
                  % "".join(e + " " for e in extra[:1]), detail(proc))
    proc = agent_run("import", "--json", "--claude-dir", empty)
    tap.check(json.loads(proc.stdout or "{}").get("count", 0) > 0,
              "import --json --claude-dir of an empty folder still lists the default folders' sessions", detail(proc))
    both = agent_run("import", "--claude-dir", empty, "--gemini-dir", os.path.join(fixtures, "gemini", "tmp"))
    tap.check(both.returncode == 0 and said in both.stderr and "--gemini-dir" not in both.stderr,
              "an empty folder given beside one that holds transcripts: said, status 0", detail(both))
    # OpenCode's sessions come from its storage folder, kept as a folder,
    # not as files: `import --db --opencode-dir` alone said the folder held
    # no transcript and exited 2 (bench-import --real-only stopped on it).
    opencode = os.path.join(fixtures, "opencode")
    for extra in (["--json"], ["--db", os.path.join(tmp, "opencode-alone.db")]):
        for run in ("first", "again"):
            proc = agent_run("import", *extra, "--opencode-dir", opencode)
            tap.check(proc.returncode == 0 and "holds no transcript" not in proc.stderr and "opencode" in proc.stdout,
                      "import %s--opencode-dir of OpenCode's fixtures alone (%s): status 0, nothing said"
                      % (extra[0] + " ", run), detail(proc))
    default = agent_run("import")
    tap.check(default.returncode == 0 and "holds no transcript" not in default.stderr,
              "import of the default folders alone says nothing of a folder given", detail(default))


def progress_masked(tap, agent_run, tmp):
    """Tried as an attacker would: the stored session masked the password of
    a shell call, but run's progress line printed the command as the model
    wrote it."""
    secret = "Zq9Secr3tTailXy"
    recording = os.path.join(tmp, "progress.json")
    with open(recording, "w") as f:
        json.dump({"turns": [
            {"tool_calls": [{"name": "shell", "arguments": {"command": "MYSQL_PWD=" + secret + " true"}},
                            {"name": "shell", "arguments": {
                                "command": "curl -H X-Api-Key:' '$'" + secret + "' http://127.0.0.1:9 || true"}}]},
            {"content": "done"}]}, f)
    work = os.path.join(tmp, "progress-work")
    os.mkdir(work)
    db = os.path.join(tmp, "progress.db")
    proc = agent_run("run", "--db", db, "--provider", "replay", "--replay", recording, "--approve", "auto",
                     "-C", work, "Check the database")
    tap.check(proc.returncode == 0 and "MYSQL_PWD=[REDACTED] true" in proc.stderr,
              "run's progress line shows the shell call masked", detail(proc))
    tap.check(secret not in proc.stdout + proc.stderr, "run prints no password of a tool call's arguments",
              detail(proc))


def rm_imported(tap, agent_run, tmp):
    """sessions rm of another agent's session says what the window says: it
    printed "Removed session ID", which read as a delete of the agent's
    transcript (tried as a new user would, nu15)."""
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "codex")
    codex = os.path.join(tmp, "rm-codex")
    shutil.copytree(os.path.join(fixtures, "sessions"), os.path.join(codex, "sessions"))
    db = os.path.join(tmp, "rm.db")
    agent_run("import", "--db", db, "--codex-dir", codex)
    listed = json.loads(agent_run("sessions", "list", "--db", db, "--json").stdout or "{}").get("sessions", [])
    sid = listed[0]["id"] if listed else "none"
    proc = agent_run("sessions", "rm", "--db", db, sid)
    tap.check(proc.returncode == 0
              and f"Session {sid} removed from the list; the agent’s own transcript is kept" in proc.stdout
              and "Removed session" not in proc.stdout,
              "sessions rm of an agent's session says it is removed from the list, its transcript kept", detail(proc))


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-cli-said-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEX_HOME",
                    "CLAUDE_CONFIG_DIR"):
            env.pop(var, None)

        def agent_run(*args):
            return subprocess.run([agent, *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)

        budget_stop(tap, agent_run, tmp)
        demo_budgets(tap, agent_run, tmp)
        codex_dir(tap, agent_run, tmp)
        plan_status_imported(tap, agent_run, tmp)
        given_empty(tap, agent_run, tmp)
        progress_masked(tap, agent_run, tmp)
        rm_imported(tap, agent_run, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

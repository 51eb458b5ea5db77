#!/usr/bin/env python3
"""plandeck-agent says what the window says, end to end with the replay provider.

usage: test-agent-cli-words.py AGENT

Tried as a new user would, the CLI beside the window (2026-12-05):
- a run its budget stopped printed the engine's note, "its iterations
  budget is exhausted (2 of 2)", where the window's Now page says "The run
  stopped: its iteration budget ran out (2 of 2)": the CLI says the
  window's words (and with --quiet too), the steps left after them;
- `sessions list` and `sessions show` said "idle" of a session whose plan
  is all done, which the window's Overview card calls "Done" (its row a
  tick): they say "done";
- a step left in progress by a run that stopped showed 🔄 in `plan status`
  and `sessions show`, as if it went on, where the window shows a square,
  "In progress when the run stopped": ⏹ and those words.
Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

from pd_tap import Tap, detail

STOPPED = {
    "label": "stopped",
    "turns": [
        {"content": "Planning.",
         "tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
             {"id": "look", "title": "List the files"},
             {"id": "tell", "title": "Report them"}]}}]},
        {"tool_calls": [{"name": "plan", "arguments": {"verb": "update",
                                                       "updates": [{"id": "look", "status": "in_progress"}]}}]},
        {"content": "not reached"},
    ],
}

DONE = {
    "label": "done",
    "turns": [
        {"tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
            {"id": "look", "title": "List the files"}]}}]},
        {"tool_calls": [{"name": "plan", "arguments": {"verb": "complete", "step_id": "look"}}]},
        {"content": "Listed."},
    ],
}

HALTED = "\u23f9 look List the files (in progress when the run stopped)\n"
CIRCLING = "\U0001f504"


def write(tmp, name, recording):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(recording, f)
    work = os.path.join(tmp, name + "-work")
    os.mkdir(work)
    return path, work


def budget_words(tap, agent_run, tmp):
    recording, work = write(tmp, "stopped", STOPPED)
    db = os.path.join(tmp, "stopped.db")
    proc = agent_run("run", "--db", db, "--provider", "replay", "--replay", recording, "--approve", "auto",
                     "-C", work, "--max-iterations", "2", "Two things")
    said = ("The run stopped: its iteration budget ran out (2 of 2)\n"
            "Steps left: look in progress, tell pending\n")
    tap.check(proc.returncode == 3 and said in proc.stderr,
              "run --max-iterations says the window's words: its iteration budget ran out", detail(proc))
    tap.check("is exhausted" not in proc.stderr and "iterations budget" not in proc.stderr,
              "run --max-iterations no longer prints the engine's note", detail(proc))
    tap.check(proc.stderr.count("The run stopped:") == 1, "the stop is said once", detail(proc))

    quiet_work = os.path.join(tmp, "stopped-quiet")
    os.mkdir(quiet_work)
    quiet = agent_run("run", "--db", os.path.join(tmp, "quiet.db"), "--provider", "replay", "--replay", recording,
                      "--approve", "auto", "-C", quiet_work, "--max-iterations", "2", "--quiet", "Two things")
    tap.check(quiet.returncode == 3
              and "plandeck-agent run: The run stopped: its iteration budget ran out (2 of 2)\n" in quiet.stderr
              and "is exhausted" not in quiet.stderr,
              "run --quiet says the same words once", detail(quiet))

    listed = agent_run("sessions", "list", "--db", db)
    rows = [line.split() for line in listed.stdout.splitlines()[1:] if line.strip()]
    tap.check(listed.returncode == 0 and len(rows) == 1 and rows[0][1] == "stopped",
              "sessions list says stopped of it", detail(listed))
    sid = rows[0][0] if rows else ""
    status = agent_run("plan", "status", "--db", db, sid)
    tap.check(status.returncode == 0 and HALTED in status.stdout and CIRCLING not in status.stdout,
              "plan status shows its step in progress as the window does: stopped", detail(status))
    tap.check("\u2b1c tell Report them\n" in status.stdout, "plan status keeps a pending step as it was",
              detail(status))
    shown = agent_run("sessions", "show", "--db", db, sid)
    tap.check(shown.returncode == 0 and HALTED in shown.stdout and CIRCLING not in shown.stdout,
              "sessions show shows it the same", detail(shown))


def done_word(tap, agent_run, tmp):
    recording, work = write(tmp, "done", DONE)
    db = os.path.join(tmp, "done.db")
    proc = agent_run("run", "--db", db, "--provider", "replay", "--replay", recording, "--approve", "auto",
                     "-C", work, "One thing")
    tap.check(proc.returncode == 0, "a run that does its one step", detail(proc))
    listed = agent_run("sessions", "list", "--db", db)
    rows = [line.split() for line in listed.stdout.splitlines()[1:] if line.strip()]
    tap.check(listed.returncode == 0 and len(rows) == 1 and rows[0][1] == "done" and rows[0][2] == "1/1",
              "sessions list says done of a session whose plan is done, as the window's card", detail(listed))
    as_json = agent_run("sessions", "list", "--db", db, "--json")
    sessions = json.loads(as_json.stdout or "{}").get("sessions", [])
    tap.check(len(sessions) == 1 and sessions[0].get("status") == "idle",
              "sessions list --json keeps the stored status", detail(as_json))
    if rows:
        shown = agent_run("sessions", "show", "--db", db, rows[0][0])
        tap.check(shown.returncode == 0 and "\n  status    done\n" in shown.stdout
                  and "\u2705 look List the files\n" in shown.stdout,
                  "sessions show says done too", detail(shown))


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-cli-words-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEX_HOME",
                    "CLAUDE_CONFIG_DIR", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            env.pop(var, None)
        env["LANG"] = "C.UTF-8"

        def agent_run(*args):
            return subprocess.run([agent, *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)

        budget_words(tap, agent_run, tmp)
        done_word(tap, agent_run, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Crash safety: SIGKILL `plandeck-agent run` at random points, many times.

usage: test-crash-safety.py AGENT [KILLS] [SEED]

Each round starts a replayed run (a plan of 8 steps, then 40 turns that
update it and write files, 10 ms apart) on one database shared by all
rounds, with --events-jsonl, and kills it with SIGKILL at a random moment
of the run.  After each kill:

  - PRAGMA integrity_check is "ok";
  - every turn the events reported as session_saved is in the database:
    at least as many messages, and each reported plan version stored;
  - the killed run's session reads as "interrupted" (sessions show), and
    is written so, unless the run had saved its end before the kill; while
    the run is alive it never does (checked before the kill);
  - `plandeck-agent continue` resumes the session with its plan: a plan
    update in the continuation succeeds (it fails without a plan) and the
    plan after it is the stored plan, one version later, with the note.
    (A plan with every step done resumes collapsed, as seed 000 says; then
    the stored plan must be left as it was.)

Prints TAP and a closing figures line (# figures: ...).
"""
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from pd_tap import Tap

STEPS = [{"id": f"s{i}", "title": f"Step {i}"} for i in range(1, 9)]


def recording():
    turns = [{"tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": STEPS}}]}]
    for t in range(40):
        status = ["in_progress", "done", "pending", "blocked"][t % 4] if t < 32 else "done"
        turns.append({"delay_ms": 10, "tool_calls": [
            {"name": "plan", "arguments": {"verb": "update",
                                           "updates": [{"id": f"s{t % 8 + 1}", "status": status,
                                                        "note": f"turn {t}"}]}},
            {"name": "write_file", "arguments": {"path": f"out{t % 3}.txt", "content": "x" * 100 + str(t)}}]})
    turns.append({"content": "Done."})
    return {"label": "crash safety", "turns": turns}


CONTINUE_WITH_PLAN = {"turns": [
    {"tool_calls": [{"name": "plan", "arguments": {"verb": "update",
                                                   "updates": [{"id": "s1", "note": "resumed"}]}}]},
    {"content": "Resumed."}, {"content": "Resumed."}, {"content": "Resumed."}]}
CONTINUE_PLAIN = {"turns": [{"content": "Resumed."}, {"content": "Resumed."}, {"content": "Resumed."}]}


def read_events(path):
    events = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass  # a line torn by the kill
    except FileNotFoundError:
        pass
    return events


def main():
    agent = os.path.abspath(sys.argv[1])
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
    rng = random.Random(seed)
    print(f"# seed {seed}, {kills} kills")
    tap = Tap(detail_lines=30)
    figures = {"killed_mid_run": 0, "saves_checked": 0, "resumed_with_plan": 0, "finished_before_kill": 0,
               "seen_running_alive": 0, "marked_interrupted": 0}
    started = time.monotonic()

    with tempfile.TemporaryDirectory(prefix="pd-crash-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            env.pop(var, None)
        db = os.path.join(tmp, "sessions.db")
        paths = {}
        for name, value in (("run", recording()), ("plan", CONTINUE_WITH_PLAN), ("plain", CONTINUE_PLAIN)):
            paths[name] = os.path.join(tmp, name + ".json")
            with open(paths[name], "w") as f:
                json.dump(value, f)

        def agent_run(*args):
            return subprocess.run([agent, *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=60)

        def raw_status(sid):
            con = sqlite3.connect(db)
            row = con.execute("SELECT status FROM sessions WHERE id = ?", (sid,)).fetchone()
            con.close()
            return row[0] if row else None

        def shown_status(sid):
            proc_show = agent_run("sessions", "show", "--db", db, "--json", sid)
            try:
                return json.loads(proc_show.stdout).get("status")
            except ValueError:
                return proc_show.stdout + proc_show.stderr

        for round_ in range(kills):
            work = os.path.join(tmp, f"work{round_}")
            os.mkdir(work)
            events_path = os.path.join(tmp, f"events{round_}.jsonl")
            proc = subprocess.Popen([agent, "run", "--db", db, "--provider", "replay", "--replay", paths["run"],
                                     "--approve", "auto", "-C", work, "--events-jsonl", events_path,
                                     f"Crash round {round_}"],
                                    env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.03, 0.8))
            # While the run lives, reading its session never marks it
            # interrupted (it may have finished meanwhile: then idle).
            live_saves = [e for e in read_events(events_path) if e.get("type") == "session_saved"]
            if proc.poll() is None and live_saves:
                seen = shown_status(live_saves[0]["session_id"])
                tap.check(seen in ("running", "idle") and raw_status(live_saves[0]["session_id"]) != "interrupted",
                          f"round {round_}: the live run's session is not marked interrupted", seen)
                figures["seen_running_alive"] += seen == "running"
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                figures["killed_mid_run"] += 1
            else:
                figures["finished_before_kill"] += 1
            proc.wait()

            con = sqlite3.connect(db)
            integrity = con.execute("PRAGMA integrity_check").fetchall()
            con.close()
            tap.check(integrity == [("ok",)], f"round {round_}: integrity_check is ok", integrity)

            events = read_events(events_path)
            saves = [e for e in events if e.get("type") == "session_saved"]
            sids = {e.get("session_id") for e in events if e.get("session_id")}
            if not saves:
                tap.check(len(sids) <= 1, f"round {round_}: killed before the first save", events[-3:])
                continue
            sid = saves[0]["session_id"]
            # Killed before the run wrote its end: the next read says so.
            before = raw_status(sid)
            seen = shown_status(sid)
            if before == "running":
                tap.check(seen == "interrupted" and raw_status(sid) == "interrupted",
                          f"round {round_}: the killed run's session reads as interrupted", f"{seen}, {raw_status(sid)}")
                figures["marked_interrupted"] += 1
            else:
                tap.check(before == "idle" and seen == "idle",
                          f"round {round_}: the finished run's session stays idle", f"{before}, {seen}")
            proc_export = agent_run("sessions", "export", "--db", db, sid)
            if not tap.check(proc_export.returncode == 0, f"round {round_}: the session is stored",
                             proc_export.stderr):
                continue
            export = json.loads(proc_export.stdout)
            stored_versions = {v["version"] for v in export.get("plan_versions", [])}
            missing = [s["data"] for s in saves
                       if len(export["messages"]) < s["data"]["messages"]
                       or ("plan_version" in s["data"] and s["data"]["plan_version"] not in stored_versions)]
            figures["saves_checked"] += len(saves)
            tap.check(not missing, f"round {round_}: all {len(saves)} reported saves are in the database",
                      f"missing: {missing[:3]}; stored {len(export['messages'])} messages, "
                      f"versions {sorted(stored_versions)[-3:]}")

            plan_before = export.get("plan_versions", [])[-1]["state"] if export.get("plan_versions") else None
            # A plan with every step done renders collapsed and resumes as
            # its version without rows (seed 000); it must stay stored as is.
            all_done = plan_before and all(s["status"] == "done" for s in plan_before["steps"])
            if all_done:
                plan_before, finished_plan = None, plan_before
            else:
                finished_plan = None
            proc_continue = agent_run("continue", "--db", db, "--provider", "replay",
                                      "--replay", paths["plan" if plan_before else "plain"],
                                      "--approve", "auto", "-C", work, sid, "Go on")
            tap.check(proc_continue.returncode == 0 and "Resumed." in proc_continue.stdout,
                      f"round {round_}: continue resumes the session", proc_continue.stdout + proc_continue.stderr)
            if finished_plan:
                after = json.loads(agent_run("sessions", "export", "--db", db, sid).stdout)
                tap.check(after["plan_versions"][-1]["state"] == finished_plan,
                          f"round {round_}: the finished plan is kept as it was", after["plan_versions"][-1])
            if plan_before:
                after = json.loads(agent_run("sessions", "export", "--db", db, sid).stdout)
                state = after["plan_versions"][-1]["state"]
                expected = [dict(step) for step in plan_before["steps"]]
                expected[0]["note"] = "resumed"
                ok = (state["version"] == plan_before["version"] + 1
                      and [{k: v for k, v in s.items()} for s in state["steps"]] == expected)
                figures["resumed_with_plan"] += ok
                tap.check(ok, f"round {round_}: the plan was restored (v{plan_before['version']} "
                              f"→ v{state['version']})",
                          json.dumps(state)[:800] + "\nexpected " + json.dumps(expected)[:800])

    figures["seconds"] = round(time.monotonic() - started, 1)
    print("# figures: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Peak memory of `events --session` on a long transcript, on the real `plandeck-agent`.

usage: test-events-memory.py AGENT MAKE_MANY_PLAN_CALLS [CALLS]

A Qwen Code session of many small todo_write calls (tests/bench/make-many-plan-calls.py,
90 000 calls by default: about 76 MB, over the 64 MB past which a transcript is read
from its end) is imported into a database, and `plandeck-agent events --session ID`
prints its timeline.  It built the whole timeline before printing a line (402 MB
for a 203 MB transcript); it now reads it a part at a time as it prints.  Its peak
resident size (getrusage through wait4) must stay under a bound that does not grow
with the transcript (48 MB; about 10 MB measured), and every call's events must be
printed once, in order: started, completed, the plan update.

In the proofs suite: a sanitizer build's memory is not the program's.  Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

from pd_tap import Tap

BOUND = 48 * 1024 * 1024


def peak_run(argv, env, out):
    """Runs argv, its output to the file @out; its exit, stderr and peak RSS in bytes."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), err.read().decode(), usage.ru_maxrss * 1024


def check_events(tap, path, calls):
    """Every call's three events, once each and in order, read a line at a time."""
    expected = ("tool_call_started", "tool_call_completed", "plan_updated")
    n = 0
    bad = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            call, kind = divmod(n, 3)
            want_id = f"call_{call}"
            if event.get("type") != expected[kind] or (kind < 2 and event.get("data", {}).get("call_id") != want_id):
                bad = f"event {n}: {line[:300]}"
                break
            n += 1
    tap.check(bad is None and n == 3 * calls, f"every one of the {calls} calls' events printed once, in order",
              bad or f"{n} events for {calls} calls")


def main():
    agent, maker = sys.argv[1], sys.argv[2]
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 90000
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="plandeck-events-memory-") as tmp:
        # Not meson's MALLOC_PERTURB_: it writes every byte malloc hands
        # out, so room a buffer keeps and never uses would count as
        # resident, which no user's process holds.
        base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_PERTURB_", "MALLOC_CHECK_")}
        env = dict(base, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        qwen = os.path.join(tmp, "qwen")
        # Written by another process: a child's peak RSS starts from its
        # parent's, so this one never holds the transcript.
        path = subprocess.run([sys.executable, maker, qwen, str(calls)], check=True, capture_output=True,
                              text=True).stdout.strip()
        size = os.path.getsize(path)
        db = os.path.join(tmp, "sessions.db")
        proc = subprocess.run([agent, "import", "--db", db, "--qwen-dir", qwen], env=env, capture_output=True, text=True)
        listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env, capture_output=True, text=True)
        sessions = json.loads(listed.stdout)["sessions"] if listed.returncode == 0 else []
        if not tap.check(proc.returncode == 0 and len(sessions) == 1, "the long transcript imported into a database",
                         proc.stderr[-2000:] + listed.stderr[-2000:]):
            print(f"1..{tap.n}")
            return 1
        printed = os.path.join(tmp, "events.jsonl")
        with open(printed, "wb") as out:
            code, err, peak = peak_run([agent, "events", "--db", db, "--session", sessions[0]["id"]], env, out)
        print(f"# events --session: {size / 1048576:.1f} MB transcript, {os.path.getsize(printed) / 1048576:.1f} MB "
              f"printed, peak RSS {peak / 1048576:.1f} MB", flush=True)
        tap.check(code == 0, "events --session ends well", f"exit {code}\n{err[-2000:]}")
        check_events(tap, printed, calls)
        tap.check(peak <= BOUND, f"its peak RSS within {BOUND // 1048576} MB, whatever the transcript's length "
                  f"({peak / 1048576:.1f} MB for {size / 1048576:.1f} MB)")
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A run ended by a signal stops its shell calls' commands with it.

usage: test-agent-signals.py AGENT

`plandeck-agent run` replays a shell call whose command writes a line to a
file every 100 ms for 20 s (and its own pid first); once the first line is
there the agent gets SIGTERM (kill, a service manager), SIGHUP (its terminal
closed) or SIGINT (Ctrl+C). For each: the agent exits within 10 s, and
after it the command is gone: its pid no longer alive and the file no longer
growing. Before, SIGTERM and SIGHUP ended the agent at once and the command
wrote on for the rest of its 20 s (tried as an attacker would: 13 s after).

Prints TAP.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from pd_tap import Tap

COMMAND = "echo $$ > pid; for i in $(seq 1 200); do echo $i >> ticks; sleep 0.1; done"


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return len(f.readlines())
    except FileNotFoundError:
        return 0


def wait_for(predicate, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def one(tap, agent, tmp, name, signum):
    work = os.path.join(tmp, name)
    os.makedirs(work)
    replay = os.path.join(tmp, name + ".json")
    with open(replay, "w", encoding="utf-8") as f:
        json.dump({"turns": [{"tool_calls": [{"name": "shell", "arguments": {"command": COMMAND}}]},
                             {"content": "Done."}]}, f)
    env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
               XDG_DATA_HOME=os.path.join(tmp, "data"))
    proc = subprocess.Popen([agent, "run", "--db", os.path.join(tmp, name + ".db"), "--provider", "replay",
                             "--replay", replay, "--approve", "auto", "-C", work, "count"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True)
    ticks = os.path.join(work, "ticks")
    started = wait_for(lambda: lines(ticks) > 0 and os.path.exists(os.path.join(work, "pid")), 30)
    if not started:
        proc.kill()
        out, err = proc.communicate()
        tap.check(False, f"{name}: the command started", err.decode(errors="replace"))
        return
    with open(os.path.join(work, "pid"), encoding="utf-8") as f:
        pid = int(f.read().strip() or 0)
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=10)
        exited = True
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        exited = False
    tap.check(exited, f"{name}: the agent exits within 10 s (status {proc.returncode})",
           err.decode(errors="replace"))
    gone = wait_for(lambda: not alive(pid), 3)
    at_exit = lines(ticks)
    time.sleep(1.0)
    after = lines(ticks)
    tap.check(gone and after == at_exit,
           f"{name}: the command is gone after the agent (pid {pid} alive: {alive(pid)}, "
           f"{at_exit} lines then {after} a second later)")
    if alive(pid):
        os.kill(pid, signal.SIGKILL)


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-signals-") as tmp:
        for name, signum in (("SIGTERM", signal.SIGTERM), ("SIGHUP", signal.SIGHUP), ("SIGINT", signal.SIGINT)):
            one(tap, agent, tmp, name, signum)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

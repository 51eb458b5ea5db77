#!/usr/bin/env python3
"""plandeck (the window) ended by SIGTERM or SIGHUP with a run in progress
quits as Quit does: its run is cancelled, as the CLI cancels one.

usage: test-app-signals.py PLANDECK SCHEMA_DIR

The real binary on a display (xvfb-run), with --demo: the recorded run
replayed against the real tools in a temporary folder.  Its test.sh is
replaced, before the run calls it, by a command that says its pid and
sleeps.  Once that command runs, the signal: plandeck exits 0 (SIGTERM
ended it at once, status -15), before its 20 s bound; the run's row is no
longer "running" and its last event is run_failed of class "cancelled"
(read through a connection opened before, as the demo's folder goes); the
command is gone, not running on with no one watching; and the demo's
temporary folder is removed, as a quit removes it (it stayed behind).
Prints TAP.
"""
import glob
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from pd_tap import Tap

# Every wait is a hang detector, not a timing (tests/ui/pd-test-ui.h): far
# above what a loaded machine takes, times PD_TEST_WAIT_SCALE.
WAIT_S = 90 * float(os.environ.get("PD_TEST_WAIT_SCALE") or 1)
# What the application waits at most for the runs a signal cancelled.
APP_BOUND_S = 20
# A sleep no one else runs: found again in /proc if it outlived the run.
SLEEP = "67.25"


def wait_for(what, timeout=WAIT_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = what()
        if found:
            return found
        time.sleep(0.02)
    return None


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def sleeps_left():
    left = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if f.read() == b"sleep\0" + SLEEP.encode() + b"\0" and alive(name):
                    left.append(int(name))
        except OSError:
            pass
    return left


def ended_by(tap, app, schema_dir, signum, tmp):
    name = signal.Signals(signum).name
    home = os.path.join(tmp, name)
    temp = os.path.join(home, "tmp")
    os.makedirs(temp)
    env = dict(os.environ)
    env.update({"HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home, "XDG_CACHE_HOME": home,
                "XDG_STATE_HOME": home, "TMPDIR": temp, "GSETTINGS_SCHEMA_DIR": schema_dir,
                "GSETTINGS_BACKEND": "memory", "PLANDECK_DEMO_SPEED": "4", "LC_ALL": "C.UTF-8"})
    env.pop("LANGUAGE", None)
    pid_file = os.path.join(home, "command.pid")
    proc = subprocess.Popen([app, "--demo"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    conn = None
    try:
        test_sh = wait_for(lambda: glob.glob(os.path.join(temp, "plandeck-demo-*", "project", "test.sh")))
        tap.check(test_sh is not None, f"{name}: the demo's folder is made")
        if test_sh is None:
            return
        folder = os.path.dirname(os.path.dirname(test_sh[0]))
        # The run reads test.sh, then runs `sh test.sh`: this one waits.
        with open(test_sh[0], "w") as f:
            f.write(f"echo $$ > {pid_file}\nsleep {SLEEP}\n")
        started = wait_for(lambda: os.path.exists(pid_file) and open(pid_file).read().strip())
        tap.check(bool(started), f"{name}: the run calls the command")
        if not started:
            return
        command = int(started)
        wait_for(lambda: sleeps_left())
        conn = sqlite3.connect(os.path.join(folder, "sessions.db"))
        before = conn.execute("SELECT status FROM sessions").fetchall()
        tap.check(before == [("running",)], f"{name}: its row says running", before)

        sent = time.monotonic()
        proc.send_signal(signum)
        try:
            status = proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            status = "still running"
        took = time.monotonic() - sent
        stderr = proc.stderr.read() if proc.poll() is not None else ""
        tap.check(status == 0 and took < APP_BOUND_S, f"{name}: plandeck exits 0, its run ended, not its bound",
                  f"status {status} after {took:.1f} s\n{stderr}")
        after = conn.execute("SELECT status FROM sessions").fetchall()
        last = conn.execute("SELECT type, event_json FROM events ORDER BY seq DESC LIMIT 1").fetchall()
        tap.check(after and after[0][0] != "running" and last and last[0][0] == "run_failed"
                  and '"error_class":"cancelled"' in last[0][1],
                  f"{name}: the run is recorded cancelled, not left running", f"{after}\n{last}")
        tap.check(not alive(command) and not sleeps_left(), f"{name}: its command is stopped with it",
                  f"command {command} alive {alive(command)}, sleeps {sleeps_left()}")
        tap.check(not os.path.exists(folder), f"{name}: the demo's temporary folder is removed, as by Quit",
                  os.listdir(temp))
    finally:
        if conn is not None:
            conn.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in sleeps_left():
            os.kill(pid, signal.SIGKILL)


def main():
    app = os.path.abspath(sys.argv[1])
    schema_dir = sys.argv[2]
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-app-signals-") as tmp:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            ended_by(tap, app, schema_dir, signum, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

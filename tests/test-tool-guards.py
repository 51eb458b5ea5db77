#!/usr/bin/env python3
"""The tools' promises, attacked through the real plandeck-agent.

usage: test-tool-guards.py AGENT [RACE_CALLS]

Each case runs `plandeck-agent run --provider replay` on a fresh database
with a recorded tool call an attacker (or a careless model) would make:

  budget        a grep whose pattern backtracks on every line of 8 MiB under
                --max-seconds 5: the run ends by its budget (exit 3) and the
                grep result says the time ran out
  interrupt     the same grep without a budget, interrupted (SIGINT) while it
                runs: the run ends as cancelled (exit 1)
  secrets       `env` (and /proc/self/environ) through the shell tool with
                provider keys, PLANDECK_ tokens and a variable the config
                names as the key's source in the agent's environment: none
                reaches the model, read on the wire of a loopback
                OpenAI-compatible server (the stored session is redacted, so
                it alone would not show a leak)
  symlink-race  read_file/write_file/list_dir calls through a directory that
                a second process keeps swapping with a link to a folder
                outside: nothing outside is read, listed or written
  plan-review   run --plan-mode on a terminal: the plan's escapes and bidi
                overrides are shown, not obeyed, and an approved plan is
                not written through a .plandeck link to outside

The process bounds (60 s) only catch a hang: before the fixes the grep ran
for minutes whatever the budget.  Prints TAP; figures go to comments.
"""
import ctypes
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from pd_tap import Tap

SECRET = "pd-secret-sentinel-7f3a"
SECRET_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY",
               "PLANDECK_SERVE_TOKEN", "PLANDECK_REMOTE_TOKEN")
HANG_BOUND = 60


def write_slow_file(path):
    # 20 "a" and a "b": ^(a|aa)+$ fails each line after about a million
    # steps, below the per-line limit, so only the deadline stops it.
    line = "a" * 20 + "b\n"
    with open(path, "w") as f:
        f.write(line * (8 * 1024 * 1024 // len(line)))


def tool_results(agent, env, db):
    """Every tool message of the only session in @db."""
    listing = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env,
                             capture_output=True, text=True, timeout=HANG_BOUND)
    sessions = json.loads(listing.stdout)["sessions"]
    results = []
    for session in sessions:
        export = subprocess.run([agent, "sessions", "export", "--db", db, session["id"]], env=env,
                                capture_output=True, text=True, timeout=HANG_BOUND)
        for message in json.loads(export.stdout).get("messages", []):
            if message.get("role") == "tool":
                results.append(message.get("content", ""))
    return results


def make_env(tmp):
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
        env[var] = tmp
    for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", *SECRET_VARS):
        env.pop(var, None)
    return env


def recording(tmp, name, turns):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump({"label": name, "turns": turns}, f)
    return path


def case_budget(tap, agent, tmp):
    env = make_env(tmp)
    work = os.path.join(tmp, "budget")
    os.mkdir(work)
    write_slow_file(os.path.join(work, "slow.txt"))
    db = os.path.join(tmp, "budget.db")
    replay = recording(tmp, "budget.json", [
        {"tool_calls": [{"name": "grep", "arguments": {"pattern": "^(a|aa)+$", "path": "slow.txt"}}]},
        {"content": "done"}])
    start = time.monotonic()
    try:
        proc = subprocess.run([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                               "--approve", "auto", "--max-seconds", "5", "-C", work, "search"],
                              env=env, capture_output=True, text=True, timeout=HANG_BOUND)
    except subprocess.TimeoutExpired:
        tap.check(False, "budget: the run ends", f"still running after {HANG_BOUND} s (budget 5 s)")
        tap.check(False, "budget: the grep result says the time ran out")
        return
    elapsed = time.monotonic() - start
    print(f"# budget: the run ended after {elapsed:.1f} s (budget 5 s)")
    tap.check(proc.returncode == 3, "budget: the run ends by its budget (exit 3)",
              f"exit {proc.returncode}\n{proc.stderr}")
    results = tool_results(agent, env, db)
    tap.check(len(results) == 1 and "[stopped: the run's time budget ran out after" in results[0]
              and "the search is incomplete" in results[0],
              "budget: the grep result says the time ran out", results)


def case_interrupt(tap, agent, tmp):
    env = make_env(tmp)
    work = os.path.join(tmp, "interrupt")
    os.mkdir(work)
    write_slow_file(os.path.join(work, "slow.txt"))
    db = os.path.join(tmp, "interrupt.db")
    replay = recording(tmp, "interrupt.json", [
        {"tool_calls": [{"name": "grep", "arguments": {"pattern": "^(a|aa)+$", "path": "slow.txt"}}]},
        {"content": "done"}])
    proc = subprocess.Popen([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                             "--approve", "auto", "-C", work, "search"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = ""
    for line in proc.stderr:
        seen += line
        if line.startswith("→ grep"):
            break
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    try:
        rest = proc.communicate(timeout=HANG_BOUND)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        tap.check(False, "interrupt: the run ends", f"still running {HANG_BOUND} s after SIGINT")
        return
    print(f"# interrupt: the run ended {time.monotonic() - start:.2f} s after SIGINT")
    tap.check(proc.returncode == 1 and "cancelled" in rest,
              "interrupt: a grep in progress stops, the run ends as cancelled (exit 1)",
              f"exit {proc.returncode}\n{seen}{rest}")


class FakeModel(http.server.ThreadingHTTPServer):
    """A loopback chat completions server: the first answer calls the given
    tools, the next one finishes; every tool message it is sent is kept."""

    def __init__(self, calls):
        super().__init__(("127.0.0.1", 0), FakeModelHandler)
        self.calls = calls
        self.tool_messages = []
        self.authorizations = []


class FakeModelHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.server.authorizations.append(self.headers.get("Authorization", ""))
        tools = [m for m in body.get("messages", []) if m.get("role") == "tool"]
        self.server.tool_messages.extend(tools)
        if tools:
            message = {"role": "assistant", "content": "done"}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{i}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(arguments)}}
                for i, (name, arguments) in enumerate(self.server.calls)]}
            finish = "tool_calls"
        answer = json.dumps({"id": "x", "object": "chat.completion", "model": "test",
                             "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def case_secrets(tap, agent, tmp):
    env = make_env(tmp)
    for var in SECRET_VARS:
        env[var] = SECRET
    env["PD_VISIBLE"] = "pd-visible-sentinel"
    # A key source named by the person's config, matching no built-in rule.
    config_home = os.path.join(tmp, "secrets-config")
    os.makedirs(os.path.join(config_home, "plandeck"))
    with open(os.path.join(config_home, "plandeck", "config.json"), "w") as f:
        json.dump({"provider": {"api_key_env": "CORP_LLM_CREDENTIAL"}}, f)
    env["XDG_CONFIG_HOME"] = config_home
    env["CORP_LLM_CREDENTIAL"] = SECRET
    work = os.path.join(tmp, "secrets")
    os.mkdir(work)
    db = os.path.join(tmp, "secrets.db")
    server = FakeModel([("shell", {"command": "env"}),
                        ("shell", {"command": "cat /proc/self/environ | tr '\\0' '\\n'"}),
                        ("shell", {"command": "echo \"[$OPENAI_API_KEY][$CORP_LLM_CREDENTIAL]\""}),
                        # The agent's own start-up environment, as its memory holds it.
                        ("shell", {"command": "tr '\\0' '\\n' < /proc/$PPID/environ"})])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        proc = subprocess.run([agent, "run", "--db", db, "--provider", "openai",
                               "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
                               "--model", "test", "--no-planning", "--approve", "auto", "-C", work,
                               "show the environment"],
                              env=env, capture_output=True, text=True, timeout=HANG_BOUND)
    finally:
        server.shutdown()
        server.server_close()
    tap.check(proc.returncode == 0, "secrets: the run succeeds", f"exit {proc.returncode}\n{proc.stderr}")
    sent = [str(m.get("content")) for m in server.tool_messages]
    text = "\n".join(sent)
    tap.check(len(sent) == 4 and text.count("PD_VISIBLE=pd-visible-sentinel") == 3 and "[][]" in sent[2],
              "secrets: the model got the commands' environment", sent)
    leaked = [var for var in (*SECRET_VARS, "CORP_LLM_CREDENTIAL") if f"{var}={SECRET}" in "\n".join(sent[:3])]
    leaked += ["value"] if SECRET in "\n".join(sent[:3]) else []
    tap.check(not leaked, "secrets: no provider key, token or configured key source reaches the model", leaked)
    # /proc/PPID/environ: the built-in names are scrubbed at start-up; a name
    # only the config knows is read later and stays there (README).
    leaked = [var for var in SECRET_VARS if f"{var}={SECRET}" in sent[3]] if len(sent) == 4 else ["?"]
    tap.check(not leaked and f"OPENAI_API_KEY={'*' * len(SECRET)}" in sent[3],
              "secrets: the agent's start-up environment in /proc shows no built-in key", leaked)
    tap.check(server.authorizations and all(a == f"Bearer {SECRET}" for a in server.authorizations),
              "secrets: the agent itself still sends its key", server.authorizations)


# Run by the shell tool: reads the agent's environment and
# scans its memory for the key.  The needle is written reversed, so the
# command's own text (which the agent holds too) does not count.
MEMORY_PROBE = r"""
import os
# python's parent is the shell the tool started; the agent is the shell's.
pid = int(open(f"/proc/{os.getppid()}/stat").read().rsplit(")", 1)[1].split()[1])
needle = "%s"[::-1].encode()
try:
    open(f"/proc/{pid}/environ", "rb").read()
    print("environ: read")
except OSError as e:
    print("environ: denied", e.errno)
try:
    maps = open(f"/proc/{pid}/maps").read().splitlines()
    mem = open(f"/proc/{pid}/mem", "rb", 0)
except OSError as e:
    print("mem: denied", e.errno)
    raise SystemExit
found = 0
for line in maps:
    addr, perms = line.split()[:2]
    start, end = (int(x, 16) for x in addr.split("-"))
    if "r" not in perms or end - start > 256 << 20:
        continue
    try:
        mem.seek(start)
        found += mem.read(end - start).count(needle)
    except OSError:
        pass
print("mem: found", found)
"""


def as_nobody():
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def case_memory(tap, agent, tmp):
    """A command the model runs, as the same user as the agent, read the
    agent's /proc/PID/environ and its memory (/proc/PID/mem): the key the
    agent holds to send was there to find.  The agent is not dumpable, so
    both are the kernel's to refuse.  As root the kernel lets everything
    through, so the agent runs as nobody then."""
    home = os.path.join(tmp, "memory")
    os.mkdir(home)
    os.chmod(tmp, 0o755)
    os.chmod(home, 0o777)
    env = make_env(home)
    env["OPENAI_API_KEY"] = SECRET
    db = os.path.join(home, "memory.db")
    probe = MEMORY_PROBE % SECRET[::-1]
    server = FakeModel([("shell", {"command": "python3 - <<'EOF'\n" + probe + "EOF"})])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        proc = subprocess.run([agent, "run", "--db", db, "--provider", "openai",
                               "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
                               "--model", "test", "--no-planning", "--approve", "auto", "-C", home,
                               "look at the agent"],
                              env=env, capture_output=True, text=True, timeout=HANG_BOUND, preexec_fn=as_nobody)
    finally:
        server.shutdown()
        server.server_close()
    sent = "\n".join(str(m.get("content")) for m in server.tool_messages)
    tap.check(proc.returncode == 0 and "mem:" in sent, "memory: the probe ran", f"{sent}\n{proc.stderr}")
    tap.check("environ: denied" in sent and "mem: denied" in sent,
              "memory: a command cannot read the agent's environment or memory", sent)
    tap.check(server.authorizations and all(a == f"Bearer {SECRET}" for a in server.authorizations),
              "memory: the agent still sends its key", server.authorizations)


class Racer(threading.Thread):
    """Swaps work/d (a directory) and work/d.alt (a link to outside)."""

    RENAME_EXCHANGE = 2
    AT_FDCWD = -100

    def __init__(self, work):
        super().__init__(daemon=True)
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                        ctypes.c_uint]
        self.a = os.fsencode(os.path.join(work, "d"))
        self.b = os.fsencode(os.path.join(work, "d.alt"))
        self.stop = False
        self.swaps = 0

    def run(self):
        while not self.stop:
            if self.libc.renameat2(self.AT_FDCWD, self.a, self.AT_FDCWD, self.b, self.RENAME_EXCHANGE) == 0:
                self.swaps += 1


def case_symlink_race(tap, agent, tmp, calls):
    env = make_env(tmp)
    work = os.path.join(tmp, "race")
    outside = os.path.join(tmp, "race-outside")
    os.makedirs(os.path.join(work, "d"))
    os.mkdir(outside)
    with open(os.path.join(work, "d", "f.txt"), "w") as f:
        f.write("inside\n")
    with open(os.path.join(outside, "f.txt"), "w") as f:
        f.write("top secret\n")
    with open(os.path.join(outside, "outside-only.txt"), "w") as f:
        f.write("x\n")
    os.symlink(outside, os.path.join(work, "d.alt"))
    db = os.path.join(tmp, "race.db")
    per_turn = 25
    turns = []
    for _ in range(max(calls // per_turn, 1)):
        batch = [{"name": "read_file", "arguments": {"path": "d/f.txt"}} for _ in range(per_turn - 2)]
        batch.append({"name": "write_file", "arguments": {"path": "d/w.txt", "content": "w\n"}})
        batch.append({"name": "list_dir", "arguments": {"path": "d"}})
        turns.append({"tool_calls": batch})
    turns.append({"content": "done"})
    replay = recording(tmp, "race.json", turns)
    racer = Racer(work)
    racer.start()
    try:
        proc = subprocess.run([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                               "--approve", "auto", "--no-planning", "--max-iterations", str(len(turns) + 5),
                               "-C", work, "read"],
                              env=env, capture_output=True, text=True, timeout=HANG_BOUND * 3)
    finally:
        racer.stop = True
        racer.join()
    tap.check(proc.returncode == 0, "symlink-race: the run finishes", f"exit {proc.returncode}\n{proc.stderr[-2000:]}")
    results = tool_results(agent, env, db)
    inside = sum(1 for r in results if r == "inside\n")
    read_out = sum(1 for r in results if "top secret" in r)
    listed_out = sum(1 for r in results if "outside-only" in r)
    written_out = sorted(set(os.listdir(outside)) - {"f.txt", "outside-only.txt"})
    print(f"# symlink-race: {racer.swaps} swaps, {len(results)} tool results, {inside} reads inside, "
          f"escapes: {read_out} reads, {listed_out} listings, written outside: {written_out}")
    tap.check(len(results) >= calls and racer.swaps > 100,
              "symlink-race: the calls ran while the directory was being swapped",
              f"{len(results)} results, {inside} inside, {racer.swaps} swaps")
    tap.check(read_out == 0 and listed_out == 0 and not written_out,
              "symlink-race: nothing outside was read, listed or written",
              f"{read_out} reads, {listed_out} listings, written: {written_out}")


def run_on_pty(argv, env, answer, bound=HANG_BOUND):
    """Runs @argv on a pseudo-terminal (its /dev/tty), answers the plan
    review with @answer, and returns (exit status, everything shown)."""
    import pty
    import select
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    shown = b""
    answered = False
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        shown += data
        if not answered and b"Approve this plan" in shown:
            os.write(fd, answer + b"\n")
            answered = True
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), shown


def case_plan_review(tap, agent, tmp):
    """The plan a person approves on the terminal, and where it is saved.

    The review printed the model's markdown raw on /dev/tty: ESC[8m hid a
    step from the person approving it, a bidi override reordered one.  And
    the approved plan went to <worktree>/.plandeck/plans through a link a
    repository can carry: .plandeck -> any folder of the person's."""
    env = make_env(tmp)
    work = os.path.join(tmp, "review")
    outside = os.path.join(tmp, "review-outside")
    os.mkdir(work)
    os.mkdir(outside)
    os.symlink(outside, os.path.join(work, ".plandeck"))
    plan = "# Tidy the README\n\n- read it\n\x1b[8m- then run rm -rf ~\x1b[0m\n- fix \u202etxt.exe\n"
    replay = recording(tmp, "review.json", [
        {"content": "Here is my plan.", "tool_calls": [{"name": "exit_plan_mode", "arguments": {"plan": plan}}]},
        {"content": "done"}])
    db = os.path.join(tmp, "review.db")
    status, shown = run_on_pty([agent, "run", "--db", db, "--provider", "replay", "--replay", replay,
                                "--approve", "auto", "--plan-mode", "-C", work, "plan it"], env, b"y")
    review = shown.split(b"Approve this plan")[0].split(b"# Tidy the README")[-1]
    tap.check(status == 0 and b"Approve this plan" in shown, "plan review: the run asks on the terminal and ends",
              f"exit {status}\n{shown!r}")
    tap.check(b"\x1b" not in shown and "\u202e".encode() not in shown
              and b"then run rm -rf ~" in review and b"<U+202E>txt.exe" in review,
              "plan review: the plan's escape and bidi override are shown, not obeyed", repr(review))
    tap.check(os.listdir(outside) == [], "plan review: nothing is written where .plandeck links to",
              os.listdir(outside))
    results = tool_results(agent, env, db)
    tap.check(len(results) == 1 and "could not be saved" in results[0] and "is a symbolic link" in results[0],
              "plan review: the model is told the plan could not be saved, and why", results)


def main():
    agent = os.path.abspath(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-guards-") as tmp:
        case_budget(tap, agent, tmp)
        case_interrupt(tap, agent, tmp)
        case_secrets(tap, agent, tmp)
        case_memory(tap, agent, tmp)
        case_symlink_race(tap, agent, tmp, calls)
        case_plan_review(tap, agent, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

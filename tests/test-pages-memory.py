#!/usr/bin/env python3
"""Peak memory of reading one long imported session, on the real `plandeck-agent`.

usage: test-pages-memory.py AGENT [MEGABYTES]

A transcript under the threshold of a long one (64 MB) is read whole when
its session is shown: `plandeck-agent sessions show --json`, the window's
pages, `serve`.  Reading one cost 8 to 27 times its size: each message was
kept in the pages and then built into a tree of json-glib objects (a node
and a hash table a member) to write the conversation's text, and Gemini CLI
kept every message's tree until its replay.  Here an honest session of
many short messages (prompts, answers with their thinking, shell calls and
their results, as each agent writes them) of MEGABYTES (20 by default) is
made for Claude Code, Codex and Gemini CLI, imported into a database of its
own, and `sessions show --json` and `sessions export` run on it: their
peak resident size (getrusage through wait4) must stay within 4 times the
file's size, the session must count its messages and the export write
them all.  Before: show 4.3×, 6.7× and 14.1×; export 4.4×, 6.8× and 14.1×
(it built the whole conversation as one tree to write it).

In the proofs suite: a sanitizer build's memory is not the program's.
Prints TAP.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

from pd_tap import Tap, detail

SESSION = "0badc0de-1111-4222-8333-444455556666"
WORDS = ("the build function returns a value when config is missing error handler parse line test passes "
         "index session store widget café \"quoted\" path\nnext").split(" ")
BOUND = 4


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def stamp(i):
    return (f"2026-02-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}"
            f".{i % 1000:03d}Z")


def claude_records(rng, i):
    base = {"parentUuid": f"{i - 1:08d}-aaaa-4bbb-8ccc-dddddddddddd", "isSidechain": False, "userType": "external",
            "cwd": "/home/dev/proj", "sessionId": SESSION, "version": "2.0.31", "gitBranch": "main",
            "uuid": f"{i:08d}-aaaa-4bbb-8ccc-dddddddddddd", "timestamp": stamp(i)}
    answer = {"id": f"msg_{i:012d}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5"}
    kind = i % 8
    if kind == 0:
        return [dict(base, type="user", message={"role": "user", "content": words(rng, 12)})]
    if kind < 4:
        return [dict(base, type="assistant", message=dict(answer, content=[{"type": "text", "text": words(rng, 14)}],
                                                         usage={"input_tokens": 4, "output_tokens": 60}))]
    if kind == 4:
        return [dict(base, type="assistant", message=dict(answer, content=[{"type": "thinking", "thinking": words(rng, 16),
                                                                            "signature": "c2ln" * 8}]))]
    call = f"toolu_{i:020d}"
    return [dict(base, type="assistant", message=dict(answer, content=[{"type": "tool_use", "id": call, "name": "Bash",
                                                                       "input": {"command": "rg " + words(rng, 3)}}])),
            dict(base, type="user", message={"role": "user", "content": [{"tool_use_id": call, "type": "tool_result",
                                                                         "content": words(rng, 20), "is_error": False}]},
                 toolUseResult={"stdout": words(rng, 20), "stderr": "", "interrupted": False})]


def codex_records(rng, i):
    def line(kind, payload):
        return {"timestamp": stamp(i), "type": kind, "payload": payload}

    kind = i % 8
    if i == 1:
        return [line("session_meta", {"id": SESSION, "cwd": "/home/dev/proj", "originator": "codex_cli_rs",
                                      "cli_version": "0.46.0"})]
    if kind == 0:
        return [line("response_item", {"type": "message", "role": "user",
                                       "content": [{"type": "input_text", "text": words(rng, 12)}]})]
    if kind < 4:
        text = words(rng, 14)
        return [line("event_msg", {"type": "agent_message", "message": text}),
                line("response_item", {"type": "message", "role": "assistant",
                                       "content": [{"type": "output_text", "text": text}]})]
    if kind == 4:
        return [line("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": words(rng, 16)}],
                                       "content": None, "encrypted_content": "gAAAA" + "x" * 40})]
    call = f"call_{i:020d}"
    arguments = json.dumps({"command": ["bash", "-lc", "rg " + words(rng, 3)], "workdir": "/home/dev/proj"})
    output = json.dumps({"output": words(rng, 20), "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
    return [line("response_item", {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call}),
            line("response_item", {"type": "function_call_output", "call_id": call, "output": output})]


def gemini_records(rng, i):
    if i == 1:
        return [{"sessionId": SESSION, "projectHash": "9f" * 32, "startTime": stamp(0), "lastUpdated": stamp(0),
                 "kind": "main"}]
    base = {"id": f"{i:08d}-aaaa-4bbb-8ccc-dddddddddddd", "timestamp": stamp(i)}
    tokens = {"input": 1200, "output": 20, "cached": 0, "thoughts": 10, "tool": 0, "total": 1230}
    kind = i % 8
    if kind == 0:
        return [dict(base, type="user", content=words(rng, 10))]
    if kind < 5:
        return [dict(base, type="gemini", content=words(rng, 10), tokens=tokens, model="gemini-2.5-pro",
                     thoughts=[{"subject": words(rng, 2), "description": words(rng, 8), "timestamp": stamp(i)}])]
    call = f"run_shell_command-{i}"
    return [dict(base, type="gemini", content="", tokens=tokens, model="gemini-2.5-pro",
                 toolCalls=[{"id": call, "name": "run_shell_command", "args": {"command": "rg " + words(rng, 2)},
                             "result": [{"functionResponse": {"id": call, "name": "run_shell_command",
                                                              "response": {"output": words(rng, 12)}}}],
                             "status": "success", "timestamp": stamp(i), "resultDisplay": words(rng, 12)}])]


AGENTS = {
    "claude": ("Claude Code", claude_records, "claude/-home-dev-proj/" + SESSION + ".jsonl"),
    "codex": ("Codex", codex_records, "codex/sessions/2026/02/01/rollout-2026-02-01T00-00-00-" + SESSION + ".jsonl"),
    "gemini": ("Gemini CLI", gemini_records, "gemini/tmp/proj/chats/session-2026-02-01T00-00-0badc0de.jsonl"),
}


def write_session(kind, path, target):
    rng = random.Random(11)
    size, i = 0, 0
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        while size < target:
            i += 1
            for record in AGENTS[kind][1](rng, i):
                line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
                f.write(line)
                size += len(line.encode())


def peak_run(argv, env):
    """Runs argv; its exit, output and peak RSS in bytes."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read().decode(), err.read().decode(), usage.ru_maxrss * 1024


def peak_run_to(argv, env, path):
    """Runs argv, its output to @path; its exit, error output and peak RSS in bytes."""
    with open(path, "wb") as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), err.read().decode(), usage.ru_maxrss * 1024


def main():
    if sys.argv[1] == "--write":
        write_session(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    if sys.argv[1] == "--count":
        with open(sys.argv[2], encoding="utf-8") as f:
            print(len(json.load(f)["messages"]))
        return 0
    agent = sys.argv[1]
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="plandeck-pages-memory-") as tmp:
        # Not meson's MALLOC_PERTURB_: it writes every byte malloc hands
        # out, so room a buffer keeps and never uses would count as
        # resident, which no user's process holds.
        base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_PERTURB_", "MALLOC_CHECK_")}
        env = dict(base, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        for kind, (name, _, relative) in AGENTS.items():
            path = os.path.join(tmp, relative)
            db = os.path.join(tmp, kind + ".db")
            # Written by another process: a child's peak RSS starts from its
            # parent's, which is kept small.
            subprocess.run([sys.executable, __file__, "--write", kind, path, str(int(megabytes * 1048576))], check=True)
            size = os.path.getsize(path)
            proc = subprocess.run([agent, "import", "--db", db, path], env=env, capture_output=True, text=True)
            listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env, capture_output=True,
                                    text=True)
            sessions = json.loads(listed.stdout)["sessions"] if listed.returncode == 0 else []
            if not tap.check(proc.returncode == 0 and len(sessions) == 1, f"{name}: imported into a database",
                             detail(proc) + "\n" + detail(listed)):
                continue
            code, out, err, peak = peak_run([agent, "sessions", "show", "--db", db, sessions[0]["id"], "--json"], env)
            shown = json.loads(out) if code == 0 else {}
            print(f"# {name}: {size / 1048576:.1f} MB, sessions show --json peak RSS {peak / 1048576:.1f} MB "
                  f"({peak / size:.2f}× the file), {shown.get('messages')} messages", flush=True)
            tap.check(code == 0 and isinstance(shown.get("messages"), int) and shown["messages"] > 1000,
                      f"{name}: sessions show --json counts the session's messages",
                      f"exit {code}\nstdout:\n{out[:2000]}\nstderr:\n{err[-2000:]}")
            tap.check(peak <= BOUND * size, f"{name}: sessions show --json's peak RSS within {BOUND}× the file's size "
                      f"({peak / 1048576:.1f} MB for {size / 1048576:.1f} MB)")
            # The export is counted by another process: read here, it would
            # raise the next child's peak (a child starts from its parent's).
            exported = os.path.join(tmp, kind + ".export.json")
            code, err, peak = peak_run_to([agent, "sessions", "export", "--db", db, sessions[0]["id"]], env, exported)
            counted = subprocess.run([sys.executable, __file__, "--count", exported], capture_output=True, text=True)
            n_exported = int(counted.stdout) if counted.returncode == 0 else -1
            os.unlink(exported)
            print(f"# {name}: sessions export peak RSS {peak / 1048576:.1f} MB ({peak / size:.2f}× the file), "
                  f"{n_exported} messages", flush=True)
            tap.check(code == 0 and n_exported == shown.get("messages"), f"{name}: sessions export writes every message",
                      f"exit {code}\nstderr:\n{err[-2000:]}\ncount: {counted.stdout} {counted.stderr[-2000:]}")
            tap.check(peak <= BOUND * size, f"{name}: sessions export's peak RSS within {BOUND}× the file's size "
                      f"({peak / 1048576:.1f} MB for {size / 1048576:.1f} MB)")
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

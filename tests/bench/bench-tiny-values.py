#!/usr/bin/env python3
# bench-tiny-values.py: an attacker's transcripts of many tiny values, and
# what reading one whole costs (tests/README.md gives the figures).
#
#   bench-tiny-values.py AGENT [MB] [SHAPES] [serve]
#
# For each shape (all by default; comma-separated), a transcript of MB (20)
# megabytes is written, imported into a database of its own, and the peak
# RSS of `plandeck-agent sessions show --json` and `sessions export` is
# printed (getrusage through wait4), with "serve" also that of a `serve`
# answering one GET of the session's record (VmHWM).  Every value is within
# the bounds a line is held to (one value for 4 bytes at most); the
# attacker has the values make many items instead: many tiny messages, a
# message of many tiny parts, many tiny tool calls, a call's arguments of
# many tiny values.  Nothing is asserted: `test-tiny-values.py` holds
# the surfaces to 4 times the file.
#
#   bench-tiny-values.py --write SHAPE PATH BYTES    only writes one
#
# SPDX-License-Identifier: GPL-3.0-or-later
import json
import os
import subprocess
import sys
import tempfile
import time

SESSION = "0badc0de-7777-4888-9999-aaaabbbbcccc"
STAMP = "2026-03-09T14:00:00.000Z"


def claude_line(kind, i, content):
    return json.dumps({"parentUuid": None, "sessionId": SESSION, "cwd": "/home/dev/proj", "type": kind,
                       "uuid": f"u{i}", "timestamp": STAMP,
                       "message": {"role": kind, "content": content}}, separators=(",", ":"))


def codex_line(payload):
    return json.dumps({"timestamp": STAMP, "type": "response_item", "payload": payload}, separators=(",", ":"))


def gemini_line(i, kind, content, calls=None):
    record = {"id": f"m{i}", "timestamp": STAMP, "type": kind, "content": content}
    if calls is not None:
        record["toolCalls"] = calls
    return json.dumps(record, separators=(",", ":"))


def qwen_line(i, kind, parts):
    return json.dumps({"uuid": f"u{i}", "parentUuid": None, "sessionId": SESSION, "timestamp": STAMP,
                       "type": kind, "cwd": "/home/dev/proj",
                       "message": {"role": "user" if kind == "user" else "model", "parts": parts}},
                      separators=(",", ":"))


def many(n, make):
    return [make(j) for j in range(n)]


# Each shape: a function of the line's index giving one line (of about
# PER_LINE bytes for the shapes of many items a line).
PER_LINE = 64 * 1024
VALUES = "[" + ",".join(["1  "] * (PER_LINE // 4)) + "]"

SHAPES = {
    # Claude Code
    "claude-messages": lambda i: claude_line("user" if i % 2 else "assistant", i,
                                             "a" if i % 2 else [{"type": "text", "text": "a"}]),
    "claude-parts": lambda i: claude_line("assistant", i, many(PER_LINE // 28, lambda j: {"type": "text", "text": "a"})),
    "claude-calls": lambda i: claude_line("assistant", i, many(PER_LINE // 48, lambda j: {
        "type": "tool_use", "id": f"t{i}_{j}", "name": "B", "input": {}})),
    "claude-results": lambda i: claude_line("user", i, many(PER_LINE // 48, lambda j: {
        "type": "tool_result", "tool_use_id": f"t{i}_{j}", "content": "a"})),
    "claude-values": lambda i: claude_line("assistant", i, [{"type": "tool_use", "id": f"t{i}", "name": "B",
                                                            "input": {"a": json.loads(VALUES)}}]),
    # Codex
    "codex-messages": lambda i: codex_line({"type": "message", "role": "user" if i % 2 else "assistant",
                                            "content": [{"type": "output_text", "text": "a"}]}),
    "codex-parts": lambda i: codex_line({"type": "message", "role": "assistant",
                                         "content": many(PER_LINE // 36, lambda j: {"type": "output_text", "text": "a"})}),
    "codex-calls": lambda i: codex_line({"type": "function_call", "name": "B", "arguments": "{}", "call_id": f"c{i}"}),
    "codex-values": lambda i: codex_line({"type": "function_call", "name": "B", "call_id": f"c{i}",
                                          "arguments": '{"a":' + VALUES + "}"}),
    # Gemini CLI (its JSON Lines format)
    "gemini-messages": lambda i: gemini_line(i, "user" if i % 2 else "gemini", "a"),
    "gemini-parts": lambda i: gemini_line(i, "gemini", many(PER_LINE // 12, lambda j: {"text": "a"})),
    "gemini-calls": lambda i: gemini_line(i, "gemini", "", many(PER_LINE // 40, lambda j: {
        "id": f"c{i}_{j}", "name": "B", "args": {}, "status": "success"})),
    # Qwen Code
    "qwen-messages": lambda i: qwen_line(i, "user" if i % 2 else "assistant", [{"text": "a"}]),
    "qwen-parts": lambda i: qwen_line(i, "assistant", many(PER_LINE // 12, lambda j: {"text": "a"})),
    "qwen-calls": lambda i: qwen_line(i, "assistant", many(PER_LINE // 48, lambda j: {
        "functionCall": {"id": f"c{i}_{j}", "name": "B", "args": {}}})),
}

# Where each agent's transcript goes under the temporary home.
PATHS = {
    "claude": "claude/-home-dev-proj/" + SESSION + ".jsonl",
    "codex": "codex/sessions/2026/03/09/rollout-2026-03-09T14-00-00-" + SESSION + ".jsonl",
    "gemini": "gemini/tmp/proj/chats/session-2026-03-09T14-00-0badc0de.jsonl",
    "qwen": "qwen/projects/-home-dev-proj/chats/" + SESSION + ".jsonl",
}


def write(shape, path, target):
    agent = shape.split("-")[0]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    size, i = 0, 0
    with open(path, "w", encoding="utf-8") as f:
        if agent == "codex":
            line = json.dumps({"timestamp": STAMP, "type": "session_meta",
                               "payload": {"id": SESSION, "cwd": "/home/dev/proj", "originator": "codex_cli_rs",
                                           "cli_version": "0.46.0"}}) + "\n"
            f.write(line)
            size += len(line)
        elif agent == "gemini":
            line = json.dumps({"sessionId": SESSION, "projectHash": "9f" * 32, "startTime": STAMP,
                               "lastUpdated": STAMP, "kind": "main"}) + "\n"
            f.write(line)
            size += len(line)
        make = SHAPES[shape]
        while size < target:
            i += 1
            line = make(i) + "\n"
            f.write(line)
            size += len(line)


def peak_run(argv, env, out_path=os.devnull):
    with open(out_path, "wb") as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), err.read().decode(), usage.ru_maxrss * 1024


def serve_peak(agent, env, tmp, db, sid):
    import http.client
    from urllib.parse import urlparse, parse_qs
    server = subprocess.Popen([agent, "serve", "--db", db, "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                              env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = urlparse(server.stdout.readline().strip())
        token = parse_qs(url.query).get("token", [""])[0]
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
        conn.request("GET", f"/api/sessions/{sid}", headers={"X-Plandeck-Token": token})
        resp = conn.getresponse()
        length = len(resp.read())
        conn.close()
        with open(f"/proc/{server.pid}/status") as f:
            hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
        return resp.status, length, hwm * 1024
    finally:
        server.terminate()
        server.wait()


def main():
    if sys.argv[1] == "--write":
        write(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    agent = sys.argv[1]
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    shapes = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] != "all" else list(SHAPES)
    serve = len(sys.argv) > 4 and sys.argv[4] == "serve"
    with tempfile.TemporaryDirectory(prefix="plandeck-tiny-values-") as tmp:
        base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_PERTURB_", "MALLOC_CHECK_")}
        env = dict(base, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        for shape in shapes:
            path = os.path.join(tmp, PATHS[shape.split("-")[0]])
            db = os.path.join(tmp, shape + ".db")
            subprocess.run([sys.executable, __file__, "--write", shape, path, str(int(megabytes * 1048576))],
                           check=True)
            size = os.path.getsize(path)
            proc = subprocess.run([agent, "import", "--db", db, path], env=env, capture_output=True, text=True)
            listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env,
                                    capture_output=True, text=True)
            sessions = json.loads(listed.stdout)["sessions"] if listed.returncode == 0 else []
            if proc.returncode != 0 or len(sessions) != 1:
                print(f"{shape}: not imported: {proc.stderr[-500:]}", flush=True)
                os.unlink(path)
                continue
            sid = sessions[0]["id"]
            started = time.monotonic()
            code, err, show = peak_run([agent, "sessions", "show", "--db", db, sid, "--json"], env)
            took = time.monotonic() - started
            code2, err2, export = peak_run([agent, "sessions", "export", "--db", db, sid], env)
            line = (f"{shape}: {size / 1048576:.1f} MB; show --json {show / 1048576:.1f} MB ({show / size:.2f}×, "
                    f"{took:.1f} s, exit {code}); export {export / 1048576:.1f} MB ({export / size:.2f}×, exit {code2})")
            if serve:
                status, length, peak = serve_peak(agent, env, tmp, db, sid)
                line += f"; serve GET {peak / 1048576:.1f} MB ({peak / size:.2f}×, {status}, {length} bytes)"
            print(line, flush=True)
            os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets into fuzz/corpus/<target>/.

usage: fuzz-corpus.py AGENT [SHARED_FIXTURES [SHARED_CONFORMANCE]]

AGENT is a built plandeck-agent (for renders of the conformance plans).
The seeds come from the project's own transcript fixtures (tests/fixtures)
and conformance scenarios (tests/conformance), and hand-written requests
and streams.  The shared third-party recordings and sample scenarios add
more seeds when they are there: SHARED_FIXTURES defaults to
../shared/fixtures and SHARED_CONFORMANCE to ../shared/conformance/plan,
beside the source tree; without them the script says so and writes the
rest.  Seeds are small (a transcript seed keeps the lines that matter to
the reader and is cut at 24 KiB) so the tree stays light; run it again
after adding fixtures or scenarios.  Existing seeds with the same name are
overwritten, others (regression inputs added by hand, and seeds of the
shared recordings written on a machine that had them) are kept.
"""
import glob
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 24 * 1024


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    data = data[:MAX_SEED]
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def scenarios(conformance):
    paths = sorted(glob.glob(os.path.join(conformance, "*.json"))) if conformance else []
    paths += sorted(glob.glob(os.path.join(ROOT, "tests", "conformance", "*.json")))
    for path in paths:
        with open(path) as f:
            yield os.path.basename(path)[:-5], json.load(f)


def plan_seeds(agent, conformance):
    for name, scenario in scenarios(conformance):
        calls = [step["in"]["call"] for step in scenario.get("steps", []) if "call" in step.get("in", {})]
        parses = [step["in"]["parse"] for step in scenario.get("steps", []) if "parse" in step.get("in", {})]
        if calls:
            write("plan-args", name, "\n".join(compact(c) for c in calls))
            lines = [compact({"call": c}) for c in calls] + [compact({"render": {"nonce": "n0"}})]
            out = subprocess.run([agent, "plan", "apply"], input="\n".join(lines) + "\n",
                                 capture_output=True, text=True, timeout=30).stdout.splitlines()
            if out:
                last = json.loads(out[-1])
                if last.get("render"):
                    write("plan-parse", name + "-render", last["render"])
                if last.get("wrapped"):
                    write("plan-parse", name + "-wrapped", last["wrapped"])
        for i, text in enumerate(parses):
            if isinstance(text, str):
                write("plan-parse", f"{name}-parse{i}", text)


PLAN_NEEDLES = ("TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "ExitPlanMode", "update_plan",
                "wrap_up", "tool_result", "plan_update", "proposed_plan", "custom-title", "summary",
                "\"cwd\"", "function_call", "exec")


def transcript_seeds(target, paths):
    for path in paths:
        with open(path, "rb") as f:
            lines = f.read().splitlines(keepends=True)
        keep = [l for l in lines if any(n.encode() in l for n in PLAN_NEEDLES)]
        out, size = [], 0
        for line in keep:
            if size + len(line) > MAX_SEED:
                continue
            out.append(line)
            size += len(line)
        name = os.path.basename(path).rsplit(".", 1)[0][:40]
        write(target, name, b"".join(out))
        # Single lines that matter, each a seed of its own (a few).
        for line in keep[:12]:
            if len(line) <= 4096:
                write(target, "line-" + hashlib.sha1(line).hexdigest()[:12], line)


def opencode_seeds(fixtures, prefix):
    parts = []
    for path in sorted(glob.glob(os.path.join(fixtures, "opencode", "**", "part", "**", "*.json"), recursive=True)):
        with open(path) as f:
            parts.append(compact(json.load(f)))
    for i, part in enumerate(parts):
        write("opencode-part", f"{prefix}part-{i:02d}", part)
    if parts:
        write("opencode-part", f"{prefix}all-parts", "\n".join(parts))


REST = [
    (0, "/api/health", [], ""),
    (0, "/api/sessions", [], ""),
    (0, "/api/sessions?q=parser&limit=2&offset=0", [], ""),
    (0, "/api/sessions/{plan}", [], ""),
    (0, "/api/sessions/{plan}/plan", [], ""),
    (0, "/api/sessions/{done}/plan/detail", [], ""),
    (0, "/api/sessions/{plain}/export", [], ""),
    (0, "/api/sessions/../../etc/passwd", [], ""),
    (0, "/api/events?limit=5&after_seq=0", [], ""),
    (0, "/api/events?session_id={plan}", [], ""),
    (0, "/api/events/stream?session_id={plan}", [], ""),
    (0, "/api/usage", [], ""),
    (0, "/api/runs", [], ""),
    (0, "/api/runs/nope", [], ""),
    (1, "/api/sessions/{plain}", ["Content-Type: application/json", "Origin: http://127.0.0.1"],
     '{"name":"Renamed <b>x</b>","pinned":true}'),
    (1, "/api/sessions/{plain}", ["Content-Type: application/json"], '{"pinned":"yes"}'),
    (1, "/api/prompt", ["Content-Type: application/json"], '{"message":"hello","session_id":"{plan}"}'),
    (1, "/api/cancel?session_id={plan}", [], ""),
    # 16: the harness sends the body chunked.
    (17, "/api/prompt", ["Content-Type: application/json"], '{"message":"hello in chunks"}'),
    (17, "/api/sessions/{plain}", ["Content-Type: application/json"], '{"name":"chunked"}'),
    (2, "/api/sessions/{done}", ["X-Session-Token: x"], ""),
    (4, "/api/sessions", ["Origin: http://evil.example"], ""),
    (8, "/api/health", [], ""),
]


def rest_seeds():
    for i, (method, target, headers, body) in enumerate(REST):
        data = bytes([method]) + ("\n".join([target] + headers) + "\n\n" + body).encode()
        write("rest-request", f"req-{i:02d}", data)
    write("rest-request", "raw-get", bytes([7]) + b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")


def sse(events, crlf=False):
    nl = "\r\n" if crlf else "\n"
    out = ""
    for event, data in events:
        if event:
            out += f"event: {event}{nl}"
        out += f"data: {data if isinstance(data, str) else compact(data)}{nl}{nl}"
    return out


def openai_seeds():
    def chunk(delta, finish=None, usage=None):
        c = {"id": "c1", "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage:
            c["usage"] = usage
        return (None, c)
    text = [chunk({"role": "assistant", "content": "Hel"}), chunk({"content": "lo ✓"}),
            chunk({}, "stop", {"prompt_tokens": 5, "completion_tokens": 2}), (None, "[DONE]")]
    tools = [chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                    "function": {"name": "plan", "arguments": "{\"verb\":"}}]}),
             chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\"create\",\"steps\":[\"a\"]}"}}]}),
             chunk({"tool_calls": [{"index": 1, "id": "call_2", "function": {"name": "list_dir", "arguments": "{}"}}]}),
             chunk({}, "tool_calls"), (None, "[DONE]")]
    reasoning = [chunk({"reasoning_content": "think"}), chunk({"content": "ok"}), chunk({}, "length")]
    seeds = {
        "text": sse(text), "text-crlf": sse(text, True), "tools": sse(tools), "reasoning": sse(reasoning),
        "error-line": "error: {\"message\":\"model not loaded\"}\n\n",
        "error-event": sse([(None, {"error": {"message": "overloaded", "type": "server_error"}})]),
        "comment-keepalive": ": ping\n\n" + sse(text),
        "cut": sse(text)[:60],
    }
    for name, body in seeds.items():
        for chunk_byte in (0x00, 0x0e, 0xfe):
            write("sse-openai", f"{name}-{chunk_byte:02x}", bytes([chunk_byte]) + body.encode())
    body = {"id": "x", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "ok", "tool_calls": [{"id": "c", "type": "function", "function": {
            "name": "plan", "arguments": "{\"verb\":\"create\",\"steps\":[\"a\"]}"}}]}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
    write("sse-openai", "json-body", bytes([1]) + compact(body).encode())
    write("sse-openai", "json-error", bytes([1]) + b'{"error":{"message":"bad key","type":"auth"}}')


def anthropic_seeds():
    start = ("message_start", {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": [],
                                                                    "usage": {"input_tokens": 9, "output_tokens": 1}}})
    stop = ("message_stop", {"type": "message_stop"})
    text = [start,
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi ✓"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
            stop]
    tools = [start,
             ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
             ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}}),
             ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {
                 "type": "tool_use", "id": "tu1", "name": "plan", "input": {}}}),
             ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
                 "type": "input_json_delta", "partial_json": "{\"verb\":\"create\","}}),
             ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
                 "type": "input_json_delta", "partial_json": "\"steps\":[\"a\"]}"}}),
             ("content_block_stop", {"type": "content_block_stop", "index": 1}),
             ("ping", {"type": "ping"}),
             ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
             stop]
    error = [start, ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})]
    seeds = {"text": sse(text), "text-crlf": sse(text, True), "tools": sse(tools), "error": sse(error),
             "cut": sse(text)[:200]}
    for name, body in seeds.items():
        for chunk_byte in (0x00, 0x0e, 0xfe):
            write("sse-anthropic", f"{name}-{chunk_byte:02x}", bytes([chunk_byte]) + body.encode())
    body = {"id": "m", "type": "message", "role": "assistant", "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t", "name": "plan",
                                                          "input": {"verb": "create", "steps": ["a"]}}],
            "usage": {"input_tokens": 1, "output_tokens": 2}}
    write("sse-anthropic", "json-body", bytes([1]) + compact(body).encode())
    write("sse-anthropic", "json-error", bytes([1]) + b'{"type":"error","error":{"type":"invalid_request_error","message":"no"}}')


def recording_seeds():
    """The provider recordings of tests/fixtures (real and made): whole
    answers with refusals, cut calls, thinking blocks and error events."""
    for wire, target in (("anthropic", "sse-anthropic"), ("openai", "sse-openai")):
        folder = os.path.join(ROOT, "tests", "fixtures", wire)
        for path in sorted(glob.glob(os.path.join(folder, "*"))):
            name, ext = os.path.splitext(os.path.basename(path))
            with open(path, "rb") as f:
                body = f.read()
            if ext == ".sse":
                for chunk_byte in (0x00, 0x1c):
                    write(target, f"rec-{name}-{chunk_byte:02x}", bytes([chunk_byte]) + body)
            elif ext == ".json":
                write(target, f"rec-{name}", bytes([1]) + body)


def transcripts(fixtures):
    """The Claude Code, Codex and OpenCode files of a fixtures folder."""
    claude = sorted(set(glob.glob(os.path.join(fixtures, "claude-code", "*", "*.jsonl"))
                        + glob.glob(os.path.join(fixtures, "claude-code", "*", "*", "subagents", "*.jsonl"))))
    codex = sorted(glob.glob(os.path.join(fixtures, "codex", "**", "*.jsonl"), recursive=True))
    return claude, codex


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    agent = sys.argv[1]
    shared_fixtures = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared", "fixtures")
    shared_conformance = (sys.argv[3] if len(sys.argv) > 3
                          else os.path.join(ROOT, "..", "shared", "conformance", "plan"))
    own_fixtures = os.path.join(ROOT, "tests", "fixtures")
    folders = [own_fixtures]
    if os.path.isdir(shared_fixtures):
        folders.append(shared_fixtures)
    else:
        print(f"note: {shared_fixtures} is not here: no seeds from the shared recordings "
              "(those already in fuzz/corpus are kept)", file=sys.stderr)
    if not os.path.isdir(shared_conformance):
        print(f"note: {shared_conformance} is not here: no seeds from the shared scenarios "
              "(those already in fuzz/corpus are kept)", file=sys.stderr)
        shared_conformance = None

    plan_seeds(agent, shared_conformance)
    for fixtures in folders:
        claude, codex = transcripts(fixtures)
        transcript_seeds("claude-line", claude)
        transcript_seeds("codex-line", codex)
        # The project's seeds have names of their own; the shared ones keep theirs.
        opencode_seeds(fixtures, "own-" if fixtures == own_fixtures else "")
    rest_seeds()
    openai_seeds()
    anthropic_seeds()
    recording_seeds()
    for target in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        print(f"{target}: {len(files)} seeds, {size} bytes")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Peak memory of reading whole-file transcripts, on the real `plandeck-agent`.

usage: test-import-memory.py AGENT [MEGABYTES]

Cline, Roo Code and Kilo Code rewrite a task's ui_messages.json whole, and
older Gemini CLI sessions are one JSON document: such a file can reach tens
of megabytes.  Their readers built the whole JSON tree, 14 to 30 times the
file's size in memory.  Here a generated Cline task, Roo task (one long
array each) and Gemini CLI session (an object whose `messages` array is
long) of MEGABYTES each (50 by default) are imported one at a time with
`plandeck-agent import --json FILE`; the child's peak resident size
(getrusage through wait4) is printed and must stay within 3 times the
file's size, and the import must still give the file's last checklist.

One plan call of a huge list (a to-do call of hundreds of thousands of
items) is tried the same way for each agent whose list tool the readers
share (Qwen Code's todo_write in a line just under the 16 MiB line bound,
Gemini CLI's write_todos in both formats, a Cline task_progress, a Roo
Code updateTodoList): a 67 MB call took 1.09 GB when its list was built
whole.  The checklist keeps the first 500 items and says how many more the
call held (`hidden_items`, `truncated`); the peak stays within 3 times the
file.

The pages of the Qwen and Gemini calls (`sessions export` of the imported session) keep
4 KiB of the call's arguments, end them with "… (cut, N bytes)", and stay
within 3 times the file too: they built the call's tree and then its text
whole.

In the proofs suite: a sanitizer build's memory is not the program's.
Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

from pd_tap import Tap


# Messages as the agents save them: many short ones with a few members
# each (what makes a whole tree many times the text), their text with
# quotes, newlines and non-ASCII, so that strings carry escapes.
FILLER = "The handler reads \"limit\" and \"offset\";\nthe café's tests pass."


def cline_messages(target):
    """Cline's shape: text, commands, and a task_progress list now and then."""
    out = [{"ts": 1775300000000, "type": "say", "say": "task", "text": "Page the orders endpoint"}]
    size, i = 0, 0
    while size < target:
        i += 1
        if i % 50 == 0:
            done = min(i // 50, 4)
            text = "\n".join(f"- [{'x' if k < done else ' '}] Step {k + 1}" for k in range(5))
            message = {"ts": 1775300000000 + i, "type": "say", "say": "task_progress", "text": text}
        else:
            message = {"ts": 1775300000000 + i, "type": "say", "say": "text", "text": f"{i}: {FILLER}",
                       "partial": False, "conversationHistoryIndex": i, "images": [], "files": [],
                       "conversationHistoryDeletedRange": [0, 2], "lastCheckpointHash": "9f3c2a1"}
        out.append(message)
        size += len(json.dumps(message)) + 1
    return out, i


def roo_messages(target):
    """Roo's shape: updateTodoList tool asks, whose text is JSON in a string."""
    out = [{"ts": 1775310000000, "type": "say", "say": "task", "text": "Split the checkout"}]
    size, i = 0, 0
    while size < target:
        i += 1
        if i % 50 == 0:
            todos = [{"id": f"{k}-{i}", "content": f"Step {k + 1}", "status": "completed" if k < 2 else "pending"}
                     for k in range(5)]
            text = json.dumps({"tool": "updateTodoList", "todos": todos})
            message = {"ts": 1775310000000 + i, "type": "ask", "ask": "tool", "text": text}
        else:
            text = json.dumps({"tool": "readFile", "path": "src/checkout.ts", "content": FILLER})
            message = {"ts": 1775310000000 + i, "type": "ask", "ask": "tool", "text": text, "partial": False,
                       "isProtected": False, "progressStatus": {"icon": "check", "text": "read"}}
        out.append(message)
        size += len(json.dumps(message)) + 1
    return out


def gemini_document(target):
    messages = []
    size, i = 0, 0
    while size < target:
        i += 1
        message = {"id": f"m{i}", "timestamp": "2026-04-02T08:00:00.000Z", "type": "gemini",
                   "content": f"{i}: {FILLER}", "model": "gemini-2.5-pro",
                   "thoughts": [{"subject": "Reading", "description": "the handler",
                                 "timestamp": "2026-04-02T08:00:00.000Z"}],
                   "tokens": {"input": 1200, "output": 80, "cached": 0, "thoughts": 12, "tool": 0, "total": 1292}}
        if i % 50 == 0:
            message["toolCalls"] = [{"id": f"c{i}", "name": "write_todos", "status": "success", "args": {"todos": [
                {"description": f"Step {k + 1}", "status": "completed" if k < 3 else "pending"} for k in range(5)]}}]
        messages.append(message)
        size += len(json.dumps(message)) + 1
    return {"sessionId": "6b1f4c2e-0000-4000-8000-000000000001", "projectHash": "ab" * 32,
            "startTime": "2026-04-02T08:00:00.000Z", "lastUpdated": "2026-04-02T09:00:00.000Z",
            "messages": messages}


def long_todos(n, text_member, id_member=None):
    todos = []
    for k in range(n):
        todo = {text_member: f"Step {k + 1} of a long list", "status": "completed" if k < 2 else "pending"}
        if id_member:
            todo[id_member] = str(k + 1)
        todos.append(todo)
    return todos


# Items per call: a Qwen or Gemini line of about 14 MB (the JSON lines
# readers skip lines over 16 MiB), and about 40 MB of a document.
LINE_ITEMS = 200000
DOCUMENT_ITEMS = 550000
CLINE_ITEMS = 1200000  # shorter items: about 40 MB too


def qwen_long_call(_target):
    base = {"sessionId": "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18", "cwd": "/home/dev/src/shop", "version": "0.6.2"}
    lines = [
        dict(base, uuid="1", timestamp="2026-04-02T08:30:14.000Z", type="user",
             message={"role": "user", "parts": [{"text": "Tidy the shop"}]}),
        dict(base, uuid="2", timestamp="2026-04-02T08:30:21.000Z", type="assistant",
             message={"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "todo_write",
                                                                    "args": {"todos": long_todos(LINE_ITEMS, "content", "id")}}}]}),
        dict(base, uuid="3", timestamp="2026-04-02T08:30:28.000Z", type="tool_result",
             message={"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "todo_write",
                                                                        "response": {"output": "ok"}}}]},
             toolCallResult={"callId": "c1", "status": "success"}),
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def gemini_long_message():
    return {"id": "m2", "timestamp": "2026-04-05T10:12:19.000Z", "type": "gemini", "content": "",
            "toolCalls": [{"id": "w1", "name": "write_todos", "status": "success",
                           "args": {"todos": long_todos(LINE_ITEMS, "description")}}]}


GEMINI_HEAD = {"sessionId": "3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a8b10", "projectHash": "9f" * 32,
               "startTime": "2026-04-05T10:12:00.000Z", "lastUpdated": "2026-04-05T10:12:00.000Z", "kind": "main"}
GEMINI_USER = {"id": "m1", "timestamp": "2026-04-05T10:12:09.000Z", "type": "user", "content": [{"text": "Tidy"}]}


def gemini_lines_long_call(_target):
    return "".join(json.dumps(x) + "\n" for x in (GEMINI_HEAD, GEMINI_USER, gemini_long_message()))


def gemini_document_long_call(_target):
    message = gemini_long_message()
    message["toolCalls"][0]["args"]["todos"] = long_todos(DOCUMENT_ITEMS, "description")
    return json.dumps(dict(GEMINI_HEAD, messages=[GEMINI_USER, message]))


def cline_long_call(_target):
    text = "\n".join(f"- [{'x' if k < 2 else ' '}] Step {k + 1} of a long list" for k in range(CLINE_ITEMS))
    return json.dumps([{"ts": 1775300000000, "type": "say", "say": "task", "text": "Tidy the shop"},
                       {"ts": 1775300000001, "type": "say", "say": "task_progress", "text": text}])


def roo_long_call(_target):
    todos = long_todos(DOCUMENT_ITEMS, "content", "id")
    return json.dumps([{"ts": 1775310000000, "type": "say", "say": "task", "text": "Tidy the shop"},
                       {"ts": 1775310000001, "type": "ask", "ask": "tool",
                        "text": json.dumps({"tool": "updateTodoList", "todos": todos})}])


LONG_CALLS = [
    ("Qwen Code todo_write", "qwen_long", "qwen/projects/-home-dev-src-shop/chats/5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18.jsonl",
     LINE_ITEMS),
    ("Gemini CLI write_todos (JSON lines)", "gemini_lines_long", "gemini/tmp/shop/chats/session-2026-04-05T10-12-3fa9c0d1.jsonl",
     LINE_ITEMS),
    ("Gemini CLI write_todos (older format)", "gemini_document_long", "gemini/tmp/shop/chats/session-2026-04-05T10-12-3fa9c0d1.json",
     DOCUMENT_ITEMS),
    ("Cline task_progress", "cline_long", "saoudrizwan.claude-dev/tasks/1775300000001/ui_messages.json", CLINE_ITEMS),
    ("Roo Code updateTodoList", "roo_long", "rooveterinaryinc.roo-cline/tasks/1775310000001/ui_messages.json",
     DOCUMENT_ITEMS),
]


def peak_import(agent, path, env):
    """Runs import --json on one file; its exit, output and peak RSS in bytes."""
    return peak_run([agent, "import", "--json", path], env)


def peak_run(argv, env):
    """Runs argv; its exit, output and peak RSS in bytes."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read().decode(), err.read().decode(), usage.ru_maxrss * 1024


WRITERS = {
    "cline": lambda target: cline_messages(target)[0],
    "roo": roo_messages,
    "gemini": gemini_document,
}

TEXT_WRITERS = {
    "qwen_long": qwen_long_call,
    "gemini_lines_long": gemini_lines_long_call,
    "gemini_document_long": gemini_document_long_call,
    "cline_long": cline_long_call,
    "roo_long": roo_long_call,
}


# The agents whose transcript pages built a huge plan call whole (its tree,
# then its text) before keeping 4 KiB of it.
PAGES_KINDS = ("qwen_long", "gemini_lines_long", "gemini_document_long")


def pages_of_long_call(tap, agent, env, tmp, name, path, size):
    """The session's pages (sessions export: its messages) of one huge plan
    call: the call's arguments cut to the page's bound, saying how much was
    cut, and the peak within 3× the file (Qwen's 14 MB took 13× it)."""
    db = os.path.join(tmp, "pages.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    proc = subprocess.run([agent, "import", "--db", db, path], env=env, capture_output=True, text=True)
    listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env, capture_output=True, text=True)
    sessions = json.loads(listed.stdout)["sessions"] if listed.returncode == 0 else []
    if not tap.check(proc.returncode == 0 and len(sessions) == 1, f"{name}: imported into a database",
                     proc.stderr[-2000:] + listed.stderr[-2000:]):
        return
    code, out, err, peak = peak_run([agent, "sessions", "export", "--db", db, sessions[0]["id"]], env)
    print(f"# {name}: its pages (sessions export) peak RSS {peak / 1048576:.1f} MB ({peak / size:.2f}× the file)",
          flush=True)
    calls = []
    if code == 0:
        for message in json.loads(out).get("messages", []):
            calls += message.get("tool_calls", [])
    arguments = calls[0].get("function", {}).get("arguments", "") if calls else ""
    cut = calls[0].get("arguments_cut", 0) if calls else 0
    tap.check(len(calls) == 1 and len(arguments.encode()) <= 4096 and cut > size // 2
              and arguments.endswith(f"… (cut, {cut} bytes)") and arguments.startswith('{"todos": [{'),
              f"{name}: its page shows the call's arguments cut to 4 KiB, saying how much was cut",
              f"exit {code}\n{len(calls)} calls, {len(arguments)} chars, cut {cut}\n"
              f"ends {arguments[-80:]!r}\nstderr:\n{err[-2000:]}")
    tap.check(peak <= 3 * size, f"{name}: its pages' peak RSS within 3× the file's size "
              f"({peak / 1048576:.1f} MB for {size / 1048576:.1f} MB)")


def write_document(kind, path, target):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        if kind in TEXT_WRITERS:
            f.write(TEXT_WRITERS[kind](target))
        else:
            json.dump(WRITERS[kind](target), f, ensure_ascii=False)


def main():
    if sys.argv[1] == "--write":
        write_document(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    agent = sys.argv[1]
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 50
    target = int(megabytes * 1024 * 1024)
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="plandeck-memory-") as tmp:
        # Not meson's MALLOC_PERTURB_: it writes every byte malloc hands
        # out, so room a buffer keeps and never uses would count as
        # resident, which no user's process holds.
        base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_PERTURB_", "MALLOC_CHECK_")}
        env = dict(base, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        cases = [
            ("Cline task", "cline", "saoudrizwan.claude-dev/tasks/1775300000000/ui_messages.json",
             "Step 1:completed|Step 2:completed|Step 3:completed|Step 4:completed|Step 5:pending"),
            ("Roo Code task", "roo", "rooveterinaryinc.roo-cline/tasks/1775310000000/ui_messages.json",
             "Step 1:completed|Step 2:completed|Step 3:pending|Step 4:pending|Step 5:pending"),
            ("Gemini CLI session (older format)", "gemini", "gemini/tmp/shop/chats/session-2026-04-02T08-00-6b1f4c2e.json",
             "Step 1:completed|Step 2:completed|Step 3:completed|Step 4:pending|Step 5:pending"),
        ]
        for name, kind, relative, expected in cases:
            path = os.path.join(tmp, relative)
            # Written by another process: a child's peak RSS starts from its
            # parent's (exec keeps the high-water mark of the memory it
            # replaces), so this one never holds the document.
            subprocess.run([sys.executable, __file__, "--write", kind, path, str(target)], check=True)
            size = os.path.getsize(path)
            code, out, err, peak = peak_import(agent, path, env)
            print(f"# {name}: {size / 1048576:.1f} MB file, peak RSS {peak / 1048576:.1f} MB "
                  f"({peak / size:.2f}× the file)", flush=True)
            got = ""
            if code == 0:
                sessions = json.loads(out)["sessions"]
                if sessions:
                    got = "|".join(f"{i['text']}:{i['status']}" for i in sessions[0]["checklist"]["agent_items"])
            tap.check(code == 0 and got == expected, f"{name} of {size // 1048576} MB imported with its last list",
                      f"exit {code}\ngot {got!r}\nexpected {expected!r}\nstderr:\n{err[-2000:]}")
            tap.check(peak <= 3 * size, f"{name}: peak RSS within 3× the file's size "
                      f"({peak / 1048576:.1f} MB for {size / 1048576:.1f} MB)")
            os.remove(path)
        for name, kind, relative, n_items in LONG_CALLS:
            path = os.path.join(tmp, relative)
            subprocess.run([sys.executable, __file__, "--write", kind, path, "0"], check=True)
            size = os.path.getsize(path)
            code, out, err, peak = peak_import(agent, path, env)
            print(f"# {name} of {n_items} items: {size / 1048576:.1f} MB file, peak RSS {peak / 1048576:.1f} MB "
                  f"({peak / size:.2f}× the file)", flush=True)
            checklist = {}
            if code == 0:
                sessions = json.loads(out)["sessions"]
                checklist = sessions[0]["checklist"] if sessions else {}
            items = checklist.get("agent_items", [])
            tap.check(len(items) == 500 and items[-1]["text"] == "Step 500 of a long list"
                      and checklist.get("hidden_items") == n_items - 500 and checklist.get("truncated") is True
                      and checklist.get("done") == 2 and checklist.get("total") == 500,
                      f"{name}: the first 500 of {n_items} items kept, the rest counted as not shown",
                      f"exit {code}\n{len(items)} items, last {items[-1] if items else None}\n"
                      f"hidden {checklist.get('hidden_items')} truncated {checklist.get('truncated')}\n"
                      f"stderr:\n{err[-2000:]}")
            tap.check(peak <= 3 * size, f"{name}: peak RSS within 3× the file's size "
                      f"({peak / 1048576:.1f} MB for {size / 1048576:.1f} MB)")
            if kind in PAGES_KINDS:
                pages_of_long_call(tap, agent, env, tmp, name, path, size)
            os.remove(path)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

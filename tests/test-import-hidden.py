#!/usr/bin/env python3
"""A plan longer than the readers keep says how much of it is not shown.

usage: test-import-hidden.py PLANDECK-AGENT

Every reader keeps the first 500 items of an agent's list (a defensive
bound: pd-import-private.h).  Here each agent's list tool writes one list
of 600 items, as the agent stores it, in a fresh HOME; the real
`plandeck-agent import --json` must give the first 500 and count the other
100 (`hidden_items`, `truncated`), as the endpoint's checklist does.
Claude Code's TodoWrite (its result's list, and its input's when the result
holds none), Claude desktop's update_plan, Codex's update_plan and its
plan_update event, OpenCode's todowrite, Qwen Code's todo_write, Gemini
CLI's write_todos, a Cline task_progress and a Roo Code updateTodoList are
tried; Claude Code's task list (at most 100 known tasks) counts the tasks
past it the same way.

Imported into a database (`import --db`), `sessions list --json` and
`sessions show --json` carry the count too: `plan.hidden` of each session,
kept when the next import reads on from where this one ended.

Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

from pd_tap import Tap

N_ITEMS = 600
KEPT = 500


def todos(n, text_member="content", id_member="id"):
    out = []
    for k in range(n):
        todo = {text_member: f"Step {k + 1}", "status": "completed" if k < 2 else "pending"}
        if id_member:
            todo[id_member] = str(k + 1)
        out.append(todo)
    return out


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def lines(records):
    return "".join(json.dumps(r) + "\n" for r in records)


# Claude Code ------------------------------------------------------------

CLAUDE_BASE = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/src/shop", "version": "2.1.118"}


def claude_session(sid, title, calls):
    """A user's line, then each (tool, input, toolUseResult) call and its result."""
    out = [dict(CLAUDE_BASE, sessionId=sid, type="user", uuid="u0", timestamp="2026-04-02T08:30:00.000Z",
                message={"role": "user", "content": title})]
    for i, (tool, tool_input, result) in enumerate(calls):
        out.append(dict(CLAUDE_BASE, sessionId=sid, type="assistant", uuid=f"a{i}",
                        timestamp=f"2026-04-02T08:31:{i:02d}.000Z",
                        message={"role": "assistant", "type": "message", "content": [
                            {"type": "tool_use", "id": f"toolu_{i}", "name": tool, "input": tool_input}]}))
        line = dict(CLAUDE_BASE, sessionId=sid, type="user", uuid=f"r{i}", timestamp=f"2026-04-02T08:31:{i:02d}.500Z",
                    message={"role": "user", "content": [{"tool_use_id": f"toolu_{i}", "type": "tool_result",
                                                          "content": "ok"}]})
        if result is not None:
            line["toolUseResult"] = result
        out.append(line)
    return lines(out)


def claude_tasks(sid, title, n):
    """A task reminder of @n tasks (Claude Code's task list, whole)."""
    tasks = [{"id": str(k + 1), "subject": f"Task {k + 1}", "status": "completed" if k < 2 else "pending"}
             for k in range(n)]
    return lines([dict(CLAUDE_BASE, sessionId=sid, type="user", uuid="u0", timestamp="2026-04-02T08:30:00.000Z",
                       message={"role": "user", "content": title}),
                  dict(CLAUDE_BASE, sessionId=sid, type="attachment", uuid="t0", timestamp="2026-04-02T08:31:00.000Z",
                       attachment={"type": "task_reminder", "content": tasks})])


# Codex ------------------------------------------------------------------

def codex_session(sid, title, event):
    meta = {"timestamp": "2026-04-02T08:30:00.000Z", "type": "session_meta",
            "payload": {"id": sid, "timestamp": "2026-04-02T08:30:00.000Z", "cwd": "/home/dev/src/shop",
                        "originator": "codex_cli_rs", "cli_version": "0.118.0", "source": "cli"}}
    user = {"timestamp": "2026-04-02T08:30:10.000Z", "type": "event_msg",
            "payload": {"type": "user_message", "message": title}}
    plan = {"plan": todos(N_ITEMS, "step", None)}
    if event:
        return lines([meta, user, {"timestamp": "2026-04-02T08:31:00.000Z", "type": "event_msg",
                                   "payload": dict(plan, type="plan_update")}])
    return lines([meta, user,
                  {"timestamp": "2026-04-02T08:31:00.000Z", "type": "response_item",
                   "payload": {"type": "function_call", "name": "update_plan", "arguments": json.dumps(plan),
                               "call_id": "call_1"}},
                  {"timestamp": "2026-04-02T08:31:01.000Z", "type": "response_item",
                   "payload": {"type": "function_call_output", "call_id": "call_1", "output": "Plan updated"}}])


# OpenCode ---------------------------------------------------------------

def opencode_storage(root, title):
    sid, mid, project = "ses_3a9f1c2e0ffeQk7wTb2LxNsd4R", "msg_3a9f00078kFRBZiwb8to", "9f2c41d07be3a56e1c880d4f2a7b"
    storage = os.path.join(root, "storage")
    write(os.path.join(storage, "session", project, sid + ".json"),
          json.dumps({"id": sid, "version": "1.0.85", "projectID": project, "directory": "/home/dev/src/shop",
                      "title": title, "time": {"created": 1773828312000, "updated": 1773828365150}}))
    write(os.path.join(storage, "message", sid, mid + ".json"),
          json.dumps({"id": mid, "sessionID": sid, "role": "assistant", "time": {"created": 1773828330983}}))
    write(os.path.join(storage, "part", mid, "prt_3a9f001636SERoENJrWq.json"),
          json.dumps({"id": "prt_3a9f001636SERoENJrWq", "sessionID": sid, "messageID": mid, "type": "tool",
                      "callID": "toolu_1", "tool": "todowrite",
                      "state": {"status": "completed", "input": {"todos": todos(N_ITEMS)},
                                "time": {"start": 1773828365150, "end": 1773828365160}}}))


# Qwen Code and Gemini CLI ------------------------------------------------

def qwen_session(title):
    base = {"sessionId": "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18", "cwd": "/home/dev/src/shop", "version": "0.6.2"}
    return lines([
        dict(base, uuid="1", timestamp="2026-04-02T08:30:14.000Z", type="user",
             message={"role": "user", "parts": [{"text": title}]}),
        dict(base, uuid="2", timestamp="2026-04-02T08:30:21.000Z", type="assistant",
             message={"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "todo_write",
                                                                    "args": {"todos": todos(N_ITEMS)}}}]}),
        dict(base, uuid="3", timestamp="2026-04-02T08:30:28.000Z", type="tool_result",
             message={"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "todo_write",
                                                                        "response": {"output": "ok"}}}]},
             toolCallResult={"callId": "c1", "status": "success"}),
    ])


def gemini_session(title):
    head = {"sessionId": "3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a8b10", "projectHash": "9f" * 32,
            "startTime": "2026-04-05T10:12:00.000Z", "lastUpdated": "2026-04-05T10:12:00.000Z", "kind": "main"}
    user = {"id": "m1", "timestamp": "2026-04-05T10:12:09.000Z", "type": "user", "content": [{"text": title}]}
    call = {"id": "m2", "timestamp": "2026-04-05T10:12:19.000Z", "type": "gemini", "content": "",
            "toolCalls": [{"id": "w1", "name": "write_todos", "status": "success",
                           "args": {"todos": todos(N_ITEMS, "description", None)}}]}
    return lines([head, user, call])


# Cline and Roo Code ----------------------------------------------------

def cline_task(title):
    text = "\n".join(f"- [{'x' if k < 2 else ' '}] Step {k + 1}" for k in range(N_ITEMS))
    return json.dumps([{"ts": 1775300000000, "type": "say", "say": "task", "text": title},
                       {"ts": 1775300000001, "type": "say", "say": "task_progress", "text": text}])


def roo_task(title):
    return json.dumps([{"ts": 1775310000000, "type": "say", "say": "task", "text": title},
                       {"ts": 1775310000001, "type": "ask", "ask": "tool",
                        "text": json.dumps({"tool": "updateTodoList", "todos": todos(N_ITEMS)})}])


def cases(tmp):
    """(name, the agent's id of the session, kept, hidden); the name is its title too."""
    claude = os.path.join(tmp, "claude")
    project = os.path.join(claude, "-home-dev-src-shop")
    out = []

    def claude_case(name, sid, text, kept=KEPT, hidden=N_ITEMS - KEPT):
        write(os.path.join(project, sid + ".jsonl"), text)
        out.append((name, sid, kept, hidden))

    name = "Claude Code TodoWrite (its result's list)"
    claude_case(name, "0b1f4c2e-0000-4000-8000-000000000001",
                claude_session("0b1f4c2e-0000-4000-8000-000000000001", name,
                               [("TodoWrite", {"todos": todos(N_ITEMS)}, {"oldTodos": [], "newTodos": todos(N_ITEMS)})]))
    name = "Claude Code TodoWrite (its input's list)"
    claude_case(name, "0b1f4c2e-0000-4000-8000-000000000002",
                claude_session("0b1f4c2e-0000-4000-8000-000000000002", name,
                               [("TodoWrite", {"todos": todos(N_ITEMS)}, None)]))
    name = "Claude desktop update_plan"
    claude_case(name, "0b1f4c2e-0000-4000-8000-000000000003",
                claude_session("0b1f4c2e-0000-4000-8000-000000000003", name,
                               [("mcp__ccd_turn__update_plan", {"items": todos(N_ITEMS, "text")}, None),
                                ("mcp__ccd_turn__update_plan", {"advance": True}, None)]))
    name = "Claude Code task list of 130 tasks"
    claude_case(name, "0b1f4c2e-0000-4000-8000-000000000004",
                claude_tasks("0b1f4c2e-0000-4000-8000-000000000004", name, 130), kept=100, hidden=30)

    codex = os.path.join(tmp, "codex")
    for name, sid, event in (("Codex update_plan", "019ceb9e-8409-72b7-bb14-1b6f441e1601", False),
                             ("Codex plan_update event", "019ceb9e-8409-72b7-bb14-1b6f441e1602", True)):
        write(os.path.join(codex, "sessions", "2026", "04", "02", f"rollout-2026-04-02T08-30-00-{sid}.jsonl"),
              codex_session(sid, name, event))
        out.append((name, sid, KEPT, N_ITEMS - KEPT))

    name = "OpenCode todowrite"
    opencode_storage(os.path.join(tmp, "opencode"), name)
    out.append((name, "ses_3a9f1c2e0ffeQk7wTb2LxNsd4R", KEPT, N_ITEMS - KEPT))

    name = "Qwen Code todo_write"
    write(os.path.join(tmp, "qwen", "-home-dev-src-shop", "chats", "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18.jsonl"),
          qwen_session(name))
    out.append((name, "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18", KEPT, N_ITEMS - KEPT))
    name = "Gemini CLI write_todos"
    write(os.path.join(tmp, "gemini", "shop", "chats", "session-2026-04-05T10-12-3fa9c0d1.jsonl"), gemini_session(name))
    out.append((name, "3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a8b10", KEPT, N_ITEMS - KEPT))

    cline = os.path.join(tmp, "vscode")
    name = "Cline task_progress"
    write(os.path.join(cline, "saoudrizwan.claude-dev", "tasks", "1775300000001", "ui_messages.json"), cline_task(name))
    out.append((name, "1775300000001", KEPT, N_ITEMS - KEPT))
    name = "Roo Code updateTodoList"
    write(os.path.join(cline, "rooveterinaryinc.roo-cline", "tasks", "1775310000001", "ui_messages.json"),
          roo_task(name))
    out.append((name, "1775310000001", KEPT, N_ITEMS - KEPT))
    return out


def main():
    agent = sys.argv[1]
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="plandeck-hidden-") as tmp:
        env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        expected = cases(tmp)
        os.makedirs(os.path.join(tmp, "kilo"))
        dirs = ["--claude-dir", os.path.join(tmp, "claude"), "--codex-dir", os.path.join(tmp, "codex"),
                "--opencode-dir", os.path.join(tmp, "opencode"), "--qwen-dir", os.path.join(tmp, "qwen"),
                "--gemini-dir", os.path.join(tmp, "gemini"), "--cline-dir", os.path.join(tmp, "vscode"),
                "--kilo-dir", os.path.join(tmp, "kilo")]

        proc = subprocess.run([agent, "import", "--json"] + dirs, env=env, capture_output=True, text=True)
        sessions = {}
        if tap.check(proc.returncode == 0, "import --json read the agents' folders", proc.stderr[-3000:]):
            sessions = {s["id"]: s for s in json.loads(proc.stdout)["sessions"]}
        for name, sid, kept, hidden in expected:
            checklist = sessions.get(sid, {}).get("checklist", {})
            items = checklist.get("agent_items", [])
            tap.check(len(items) == kept and checklist.get("hidden_items") == hidden
                      and checklist.get("truncated") is True,
                      f"{name}: {kept} items kept, {hidden} counted as not shown",
                      f"{len(items)} items, hidden_items {checklist.get('hidden_items')}, "
                      f"truncated {checklist.get('truncated')}")

        db = os.path.join(tmp, "plandeck.db")
        proc = subprocess.run([agent, "import", "--db", db] + dirs, env=env, capture_output=True, text=True)
        listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json", "--limit", "100"], env=env,
                                capture_output=True, text=True)
        rows = {}
        if tap.check(proc.returncode == 0 and listed.returncode == 0, "import --db, then sessions list --json",
                     proc.stderr[-2000:] + listed.stderr[-2000:]):
            rows = {s["title"]: s for s in json.loads(listed.stdout)["sessions"]}
        for name, _, kept, hidden in expected:
            row = rows.get(name, {})
            plan = row.get("plan", {})
            tap.check(plan.get("total") == kept and plan.get("hidden") == hidden,
                      f"{name}: sessions list --json says {hidden} more not shown (plan.hidden)", f"plan {plan}")
            shown = subprocess.run([agent, "sessions", "show", "--db", db, row.get("id", "-"), "--json"], env=env,
                                   capture_output=True, text=True)
            plan = json.loads(shown.stdout).get("plan", {}) if shown.returncode == 0 else {}
            tap.check(plan.get("total") == kept and plan.get("hidden") == hidden,
                      f"{name}: sessions show --json says {hidden} more not shown (plan.hidden)",
                      f"plan {plan}\n{shown.stderr[-2000:]}")

        # Read on from where that import ended (nothing new): the count stays.
        proc = subprocess.run([agent, "import", "--db", db] + dirs, env=env, capture_output=True, text=True)
        listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json", "--limit", "100"], env=env,
                                capture_output=True, text=True)
        rows = {s["title"]: s for s in json.loads(listed.stdout)["sessions"]} if listed.returncode == 0 else {}
        tap.check(proc.returncode == 0 and all(rows.get(name, {}).get("plan", {}).get("hidden") == hidden
                                               for name, _, _, hidden in expected),
                  "imported again: every session's count kept",
                  proc.stderr[-2000:] + "\n" + str({n: r.get("plan") for n, r in rows.items()}))
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Qwen Code session of many small todo_write calls, as an attacker would
write one (issue 20: 300 000 calls, about 209 MB).

    make-many-plan-calls.py QWEN_DIR [CALLS]

writes QWEN_DIR/projects/-home-dev-src-shop/chats/<id>.jsonl (the record
shapes of tests/fixtures/qwen) and prints its path.  Read it with
`plandeck-agent --qwen-dir QWEN_DIR ...` or `plandeck` with the folder set
(`import`, `sessions show/export`, `events --session`); tests/README.md has
the figures."""
import json
import os
import sys

SESSION = "7b1e4c2a-9d3f-4a6b-8c5e-2f1a0b9c8d7e"
BASE = {"sessionId": SESSION, "cwd": "/home/dev/src/shop"}


def stamp(second):
    return "2026-04-02T%02d:%02d:%02d.000Z" % (8 + second // 3600 % 16, second // 60 % 60, second % 60)


def main():
    root = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    chats = os.path.join(root, "projects", "-home-dev-src-shop", "chats")
    os.makedirs(chats, exist_ok=True)
    path = os.path.join(chats, SESSION + ".jsonl")
    steps = ["Read the code", "Fix the cart", "Test it"]
    with open(path, "w") as out:
        out.write(json.dumps(dict(BASE, uuid="u0", timestamp=stamp(0), type="user",
                                  message={"role": "user", "parts": [{"text": "Tidy the shop"}]})) + "\n")
        for i in range(calls):
            done = i % (len(steps) + 1)
            todos = [{"id": str(k + 1), "content": text,
                      "status": "completed" if k < done else "in_progress" if k == done else "pending"}
                     for k, text in enumerate(steps)]
            call_id = "call_%d" % i
            out.write(json.dumps(dict(BASE, uuid="a%d" % i, timestamp=stamp(i), type="assistant",
                                      message={"role": "model", "parts": [
                                          {"functionCall": {"id": call_id, "name": "todo_write",
                                                            "args": {"todos": todos}}}]})) + "\n")
            out.write(json.dumps(dict(BASE, uuid="r%d" % i, timestamp=stamp(i), type="tool_result",
                                      message={"role": "user", "parts": [
                                          {"functionResponse": {"id": call_id, "name": "todo_write",
                                                                "response": {"output": "ok"}}}]},
                                      toolCallResult={"callId": call_id, "status": "success"})) + "\n")
    print(path)


if __name__ == "__main__":
    main()

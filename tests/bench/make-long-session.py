#!/usr/bin/env python3
# make-long-session.py: a long Claude Code session written from the project's
# own fixture lines, for measuring what `serve` holds while it answers the
# pages of one big imported session (tests/README.md gives the figures).
#
#   make-long-session.py DIR [MB]   DIR/-home-dev-src-inkwell/<session>.jsonl of about MB (60) megabytes
#
# The fixture's conversation (a user's task, TodoWrite calls, tool calls and
# their results, a subagent's Task) is written again and again, each copy's
# ids (uuid, parentUuid, message and tool ids) made its own, so the session
# reads as one long conversation with as many plan updates as copies.
#
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "claude-code", "-home-dev-src-inkwell",
                       "b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl")
SESSION = "b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9"
IDS = re.compile(r'"(uuid|parentUuid|id|tool_use_id|messageId|requestId)":"([^"]+)"')


def main():
    root = sys.argv[1]
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    with open(FIXTURE) as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    folder = os.path.join(root, "-home-dev-src-inkwell")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, SESSION + ".jsonl")
    written = 0
    copy = 0
    with open(path, "w") as out:
        while written < megabytes * 1000 * 1000:
            for line in lines:
                text = IDS.sub(lambda m: '"%s":"%s-%d"' % (m.group(1), m.group(2), copy), line)
                out.write(text + "\n")
                written += len(text) + 1
            copy += 1
    print(path)


if __name__ == "__main__":
    main()

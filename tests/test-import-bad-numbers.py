#!/usr/bin/env python3
"""A bad number loses only itself, on the real `plandeck-agent import`.

usage: test-import-bad-numbers.py AGENT FIXTURES_DIR

A Cline task with `"ts":1e400` (a number beyond a double's range) was
dropped whole: the JSON check refused the document for one value.  Every
agent's transcript is a document or lines from elsewhere, so each reader is
tried the same way, on a copy of the project's own fixtures (Claude Code,
Codex, OpenCode, Qwen Code, Gemini CLI in both formats, Cline, Roo Code and
Kilo Code):

- every object of every file gains a member holding 1e400 (and one holding
  -1e400 in the lines that have a time);
- every time (`timestamp`, `ts`, `created`, `updated`, `startTime`,
  `lastUpdated`) is made out of range, negative or a "NaN" string, in turn.

Each import must still give every session with the same checklist (items,
statuses, counts) as the clean copy; a time it could not read is unknown,
not a reason to drop the record.  Prints TAP.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from pd_tap import Tap

AGENTS = ["claude-code", "codex", "opencode", "qwen", "gemini", "vscode"]
TIME_MEMBERS = r'"(timestamp|ts|created|updated|startTime|lastUpdated|time_created|time_updated)"\s*:\s*("[^"\\]*"|-?\d+(\.\d+)?)'


def with_out_of_range_members(text):
    # '{"' only ever opens an object: inside a JSON string the quote would
    # be escaped.  So every object gains the member, nothing else changes.
    return text.replace('{"', '{"pd_huge":1e400,"pd_tiny":-1e400,"pd_nan":"NaN","')


def with_bad_times(value):
    return lambda text: re.sub(TIME_MEMBERS, lambda m: f'"{m.group(1)}":{value}', text)


def transform_tree(src, dst, transform):
    shutil.copytree(src, dst)
    for root, _, files in os.walk(dst):
        for name in files:
            if not (name.endswith(".json") or name.endswith(".jsonl")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(transform(text))


def import_lists(agent, root, env):
    """path relative to @root → (title, checklist as text) of each session."""
    proc = subprocess.run([agent, "import", "--json", root], capture_output=True, text=True, env=env, timeout=120)
    if proc.returncode != 0:
        return None, proc.stderr
    sessions = {}
    for session in json.loads(proc.stdout)["sessions"]:
        checklist = session["checklist"]
        items = "|".join(f"{i['text']}:{i['status']}" for i in checklist["agent_items"])
        key = os.path.relpath(session["path"], root) + "#" + str(session.get("id"))
        sessions[key] = (checklist["origin"], items, checklist["done"], checklist["total"])
    return sessions, proc.stderr


def main():
    agent, fixtures = sys.argv[1], sys.argv[2]
    tap = Tap()
    cases = [
        ("members of 1e400, -1e400 and \"NaN\" in every object", with_out_of_range_members),
        ("every time 1e400", with_bad_times("1e400")),
        ("every time -1e400", with_bad_times("-1e400")),
        ("every time negative", with_bad_times("-5")),
        ("every time the string \"NaN\"", with_bad_times('"NaN"')),
        ("every time beyond any date (1e300)", with_bad_times("1e300")),
    ]
    with tempfile.TemporaryDirectory(prefix="plandeck-bad-numbers-") as tmp:
        env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        for agent_dir in AGENTS:
            src = os.path.join(fixtures, agent_dir)
            clean = os.path.join(tmp, "clean", agent_dir)
            shutil.copytree(src, clean)
            expected, err = import_lists(agent, clean, env)
            if not tap.check(expected, f"{agent_dir}: the clean fixtures import with their lists", err):
                continue
            for i, (what, transform) in enumerate(cases):
                bad = os.path.join(tmp, f"bad{i}", agent_dir)
                transform_tree(src, bad, transform)
                got, err = import_lists(agent, bad, env)
                missing = sorted(set(expected) - set(got or {}))
                differ = [f"{k}: got {got[k]!r}\n  expected {expected[k]!r}" for k in sorted(expected)
                          if got and k in got and got[k] != expected[k]]
                tap.check(got is not None and not missing and not differ,
                          f"{agent_dir}: {what}: every session read, with the same checklist",
                          f"import failed: {err}" if got is None else
                          "\n".join([f"session lost: {k}" for k in missing] + differ + [err[-1500:]]))
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

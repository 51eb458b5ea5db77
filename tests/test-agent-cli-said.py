#!/usr/bin/env python3
"""What plandeck-agent tells a person, end to end with the replay provider.

usage: test-agent-cli-said.py AGENT

A run stopped by --max-iterations says why on stderr, and the plan steps
left, plain: the wrapper the note carries for the model
(<untrusted_content_…>) is not for the person.  Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

RECORDING = {
    "label": "budget",
    "turns": [
        {"content": "Planning.",
         "tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
             {"id": "look", "title": "List the files"},
             {"id": "tell", "title": "Report them"}]}}]},
        {"content": "not reached"},
    ],
}


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} {what}", flush=True)
        if not ok:
            self.failed += 1
            for line in str(detail).splitlines()[:40]:
                print(f"# {line}")
        return ok


def detail(proc):
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"


def budget_stop(tap, agent_run, tmp):
    recording = os.path.join(tmp, "budget.json")
    with open(recording, "w") as f:
        json.dump(RECORDING, f)
    work = os.path.join(tmp, "budget-work")
    os.mkdir(work)
    proc = agent_run("run", "--db", os.path.join(tmp, "budget.db"), "--provider", "replay", "--replay", recording,
                     "--approve", "auto", "-C", work, "--max-iterations", "1", "Two things")
    said = ("[plandeck: the run stopped because its iterations budget is exhausted (1 of 1).]\n"
            "[plan remaining: look pending, tell pending]\n")
    tap.check(proc.returncode == 3 and said in proc.stderr, "run --max-iterations says why it stopped, plain",
              detail(proc))
    tap.check("untrusted_content" not in proc.stdout + proc.stderr,
              "run --max-iterations prints no wrapper meant for the model", detail(proc))


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pd-test-cli-said-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEX_HOME"):
            env.pop(var, None)

        def agent_run(*args):
            return subprocess.run([agent, *args], env=env, cwd=tmp, capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)

        budget_stop(tap, agent_run, tmp)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Plan mode through the real `plandeck-agent serve`, as odek's page speaks it.

usage: test-serve-plan-review.py AGENT

Found as a new user would: on a serve endpoint plan mode could never be
left.  `/plan Fix the greeting` from odek's page ran the replayed model's
read_file, exit_plan_mode, edit_file, and exit_plan_mode answered "no
review channel is available": no question came, the edit was refused.

  approve   `/plan …` over /ws: the plan comes as an approval_request
            (risk plan_review, description tool=exit_plan_mode, the plan as
            its command, no trust); approved, plan mode is left, the plan is
            saved, the edit is asked and runs
  deny      denied with a feedback (the window sends one): the call's
            result carries it, the edit is refused, nothing saved
  auto      `--approve auto`: the plan is approved unasked, the edit runs
  deny-all  `--approve deny`: the plan call fails, plan mode stays

Prints TAP.
"""
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse, parse_qs

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("ws_guard", os.path.join(HERE, "test-serve-ws-guard.py"))
ws = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ws)

PLAN = "# Fix the greeting\n\n1. Read greeting.txt\n2. Change Helo to Hello\n"
REPLAY = {"label": "plan", "turns": [
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "greeting.txt"}}]},
    {"tool_calls": [{"name": "exit_plan_mode", "arguments": {"plan": PLAN}}]},
    {"tool_calls": [{"name": "edit_file", "arguments": {"path": "greeting.txt", "old_string": "Helo",
                                                        "new_string": "Hello"}}]},
    {"content": "Done."}]}


class Serve:
    def __init__(self, agent, tmp, name, policy=None):
        self.work = os.path.join(tmp, name)
        os.mkdir(self.work)
        with open(os.path.join(self.work, "greeting.txt"), "w") as f:
            f.write("Helo, world\n")
        replay = os.path.join(tmp, name + ".json")
        with open(replay, "w") as f:
            json.dump(REPLAY, f)
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        argv = [agent, "serve", "--db", os.path.join(tmp, name + ".db"), "--listen", "127.0.0.1:0",
                "--provider", "replay", "--replay", replay, "-C", self.work]
        if policy:
            argv += ["--approve", policy]
        self.log = open(os.path.join(tmp, name + ".log"), "w")
        self.proc = subprocess.Popen(argv, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=self.log, text=True)
        url = urlparse(self.proc.stdout.readline().strip())
        self.token = parse_qs(url.query).get("token", [""])[0]
        self.port = url.port

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def greeting(self):
        with open(os.path.join(self.work, "greeting.txt")) as f:
            return f.read()

    def plans(self):
        return glob.glob(os.path.join(self.work, ".plandeck", "plans", "*"))

    def prompt(self, content, answer):
        """Sends @content as odek's page does; @answer(frame) gives the
        approval_response fields for each approval_request (or None).
        Returns the frames up to the terminator."""
        ours = {"Origin": f"http://127.0.0.1:{self.port}", "Cookie": f"odek_ws_token={self.token}"}
        sock, status, buffer = ws.handshake(self.port, "/ws", ours)
        frames = []
        try:
            if " 101 " not in status:
                return [{"type": "handshake", "status": status}]
            ws.send_text(sock, json.dumps({"type": "prompt", "content": content, "attachments": [],
                                           "session_id": None, "thinking": ""}))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                text, buffer = ws.read_text(sock, buffer)
                frame = json.loads(text)
                frames.append(frame)
                if frame.get("type") == "approval_request":
                    fields = answer(frame)
                    if fields is not None:
                        ws.send_text(sock, json.dumps({"type": "approval_response", "id": frame["id"], **fields}))
                if frame.get("type") in ("done", "error"):
                    break
        except (EOFError, OSError) as e:
            frames.append({"type": "lost", "why": str(e)})
        finally:
            sock.close()
        return frames


def result_of(frames, name):
    for frame in frames:
        if frame.get("type") == "tool_result" and frame.get("name") == name:
            return frame.get("data", "")
    return None


def questions(frames):
    return [f for f in frames if f.get("type") == "approval_request"]


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = ws.Tap()
    with tempfile.TemporaryDirectory(prefix="pd-plan-review-") as tmp:
        serve = Serve(agent, tmp, "ask")
        try:
            frames = serve.prompt("/plan Fix the greeting", lambda f: {"action": "approve"})
            asked = questions(frames)
            plan_q = asked[0] if asked else {}
            tap.check(plan_q.get("risk") == "plan_review" and plan_q.get("description") == "tool=exit_plan_mode"
                      and plan_q.get("command", "").startswith("# Fix the greeting\n\n1. Read greeting.txt")
                      and plan_q.get("allow_trust") is False,
                      "approve: the plan is asked as odek's page reads a question", json.dumps(frames)[:3000])
            tap.check(len(asked) == 2 and asked[1].get("risk") == "local_write",
                      "approve: the edit is asked once the plan is approved", json.dumps(asked)[:2000])
            tap.check((result_of(frames, "exit_plan_mode") or "").startswith('{"approved":true}'),
                      "approve: exit_plan_mode's result says approved", result_of(frames, "exit_plan_mode"))
            tap.check(serve.greeting() == "Hello, world\n" and frames[-1].get("type") == "done",
                      "approve: the edit ran", f"{serve.greeting()!r} {frames[-1]}")
            tap.check(len(serve.plans()) == 1, "approve: the plan is saved", serve.plans())

            with open(os.path.join(serve.work, "greeting.txt"), "w") as f:
                f.write("Helo, world\n")
            frames = serve.prompt("/plan Fix the greeting",
                                  lambda f: {"action": "deny", "feedback": "Also say goodbye"})
            result = result_of(frames, "exit_plan_mode") or ""
            tap.check("keep planning" in result and "their feedback: Also say goodbye" in result,
                      "deny: the call's result carries the feedback", result)
            tap.check("plan mode is active" in (result_of(frames, "edit_file") or "")
                      and len(questions(frames)) == 1 and serve.greeting() == "Helo, world\n",
                      "deny: plan mode stays, the edit is refused unasked", json.dumps(frames)[:3000])
            tap.check(len(serve.plans()) == 1, "deny: no plan saved", serve.plans())
        finally:
            serve.stop()

        serve = Serve(agent, tmp, "auto", "auto")
        try:
            frames = serve.prompt("/plan Fix the greeting", lambda f: {"action": "deny"})
            tap.check(not questions(frames) and serve.greeting() == "Hello, world\n"
                      and (result_of(frames, "exit_plan_mode") or "").startswith('{"approved":true}'),
                      "auto: --approve auto approves the plan unasked, the edit runs", json.dumps(frames)[:3000])
        finally:
            serve.stop()

        serve = Serve(agent, tmp, "deny", "deny")
        try:
            frames = serve.prompt("/plan Fix the greeting", lambda f: {"action": "approve"})
            result = result_of(frames, "exit_plan_mode") or ""
            tap.check(not questions(frames) and "not reviewed" in result and "--approve deny" in result
                      and "plan mode is active" in (result_of(frames, "edit_file") or "")
                      and serve.greeting() == "Helo, world\n",
                      "deny-all: --approve deny fails the plan call, plan mode stays", json.dumps(frames)[:3000])
        finally:
            serve.stop()

    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Peak memory of reading transcripts of many tiny values, on the real `plandeck-agent`.

usage: test-tiny-values-memory.py AGENT [MEGABYTES] [SHAPES] [BOUND]

Tried as an attacker would: a transcript of many tiny tool calls (40 bytes
each) cost 14 to 30 times its size in `sessions show --json`, 37 times in
`sessions export` (lines of calls with no message id joined one answer,
handed on as one tree) and 8 times in one `serve` GET of the session's
record (the whole conversation built as one tree to write it).  Here a
Claude Code transcript of MEGABYTES (40) of tiny calls is imported (SHAPES
of bench/bench-tiny-values.py's, claude-calls by default; codex-calls
measured 146 MB in most runs and 233 MB in some, cause not found), and
`sessions show --json`, `sessions export` and a `serve` answering one GET
of the record run on each: their peak RSS must stay within 4 times the
file, and the transcript's cut be said ("The rest of this transcript is not shown").

BOUND (4 by default) is the times the file each may take: Gemini CLI's
calls of 10 MB are held to 7.5 (`tiny-values-memory-gemini`; they took
7.6, 8.1 and 8.4 times, each call's texts kept in five blocks until the
replay; 6.4, 7.0 and 7.2 with one).

In the proofs suite: a sanitizer build's memory is not the program's.
Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "bench"))

from pd_tap import Tap  # noqa: E402

import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("bench_tiny_values", os.path.join(HERE, "bench", "bench-tiny-values.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

BOUND = 4
NOTICE = "The rest of this transcript is not shown"


def main():
    agent = sys.argv[1]
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 40
    shapes = sys.argv[3].split(",") if len(sys.argv) > 3 else ["claude-calls"]
    bound = float(sys.argv[4]) if len(sys.argv) > 4 else BOUND
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="plandeck-tiny-values-memory-") as tmp:
        base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_PERTURB_", "MALLOC_CHECK_")}
        env = dict(base, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"), LANG="C.UTF-8", LC_ALL="C.UTF-8")
        for shape in shapes:
            path = os.path.join(tmp, bench.PATHS[shape.split("-")[0]])
            db = os.path.join(tmp, shape + ".db")
            subprocess.run([sys.executable, bench.__file__, "--write", shape, path, str(int(megabytes * 1048576))],
                           check=True)
            size = os.path.getsize(path)
            proc = subprocess.run([agent, "import", "--db", db, path], env=env, capture_output=True, text=True)
            listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env, capture_output=True,
                                    text=True)
            sessions = json.loads(listed.stdout)["sessions"] if listed.returncode == 0 else []
            if not tap.check(proc.returncode == 0 and len(sessions) == 1, f"{shape}: imported into a database",
                             proc.stderr[-2000:] + listed.stderr[-2000:]):
                continue
            sid = sessions[0]["id"]
            code, err, show = bench.peak_run([agent, "sessions", "show", "--db", db, sid, "--json"], env)
            print(f"# {shape}: {size / 1048576:.1f} MB, sessions show --json {show / 1048576:.1f} MB "
                  f"({show / size:.2f}×)", flush=True)
            tap.check(code == 0 and show <= bound * size,
                      f"{shape}: sessions show --json within {bound}× the file", err[-2000:])
            exported = os.path.join(tmp, shape + ".export.json")
            code, err, export = bench.peak_run([agent, "sessions", "export", "--db", db, sid], env, exported)
            with open(exported, encoding="utf-8") as f:
                messages = json.load(f)["messages"] if code == 0 else []
            os.unlink(exported)
            print(f"# {shape}: sessions export {export / 1048576:.1f} MB ({export / size:.2f}×), "
                  f"{len(messages)} messages", flush=True)
            tap.check(code == 0 and export <= bound * size,
                      f"{shape}: sessions export within {bound}× the file", err[-2000:])
            tap.check(any(NOTICE in (m.get("content") or "") for m in messages),
                      f"{shape}: the export says where the transcript was cut")
            del messages
            status, length, served = bench.serve_peak(agent, env, tmp, db, sid)
            print(f"# {shape}: serve GET {served / 1048576:.1f} MB ({served / size:.2f}×), {status}, "
                  f"{length} bytes", flush=True)
            tap.check(status == 200 and served <= bound * size,
                      f"{shape}: serve's GET of the record within {bound}× the file")
            os.unlink(path)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

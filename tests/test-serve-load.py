#!/usr/bin/env python3
"""Load: `plandeck-agent serve` under concurrent readers while a run writes.

usage: test-serve-load.py AGENT [SECONDS] [READERS]

Starts `plandeck-agent serve --listen 127.0.0.1:0 --rate-limit 0` (loopback
only) on a fresh database, and for SECONDS (default 12) keeps a replayed
`plandeck-agent run` writing to the same database (one run after another:
each a plan and 200 turns 15 ms apart) while READERS threads (default 8)
loop over GET /api/sessions, /api/sessions/ID/plan and /api/events on
kept-alive connections.  Checks:

  - no reader error: every answer 200 and JSON, no connection failure;
  - the writer never stalls: no gap between two session_saved events of a
    run over 1 s more than the longest gap of a control writer (the same
    runs at the same time on a database of its own that nobody reads).  The
    control takes the machine's own pauses out of the figure: on a busy
    machine both wait for a core alike, while a writer held up by the
    server's readers is held up alone;
  - the server's memory is flat: VmRSS after the first third (warm-up)
    grows by less than 16 MiB to the end.

Prints TAP and the figures (# figures: ...).
"""
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from urllib.parse import urlparse, parse_qs

from pd_tap import Tap

RSS_BOUND_KB = 16 * 1024
STALL_S = 1.0


def recording():
    steps = [{"id": f"s{i}", "title": f"Step {i}"} for i in range(1, 7)]
    turns = [{"tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": steps}}]}]
    for t in range(200):
        turns.append({"delay_ms": 15, "tool_calls": [
            {"name": "plan", "arguments": {"verb": "update", "updates": [
                {"id": f"s{t % 6 + 1}", "status": ["in_progress", "pending"][t % 2], "note": f"turn {t}"}]}},
            {"name": "list_dir", "arguments": {}}]})
    turns.append({"tool_calls": [{"name": "plan", "arguments": {"verb": "update", "updates": [
        {"id": step["id"], "status": "done"} for step in steps]}}]})
    turns.append({"content": "Done."})
    return {"label": "serve load", "turns": turns}


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def parse_time(text):
    return datetime.strptime(text.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def main():
    agent = os.path.abspath(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 12
    readers = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    tap = Tap(detail_lines=30, echo_stderr=True)

    with tempfile.TemporaryDirectory(prefix="pd-load-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        for var in ("PLANDECK_PLANNING", "PLANDECK_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            env.pop(var, None)
        db = os.path.join(tmp, "sessions.db")
        replay = os.path.join(tmp, "run.json")
        with open(replay, "w") as f:
            json.dump(recording(), f)
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        with open(os.path.join(work, "a.txt"), "w") as f:
            f.write("a\n")

        # The database exists before the server opens it.
        subprocess.run([agent, "sessions", "list", "--db", db], env=env, capture_output=True, timeout=30)
        server = subprocess.Popen([agent, "serve", "--db", db, "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        url = urlparse(server.stdout.readline().strip())
        token = parse_qs(url.query).get("token", [""])[0]
        tap.check(url.hostname == "127.0.0.1" and url.port and token, "serve listens on loopback", url)
        host, port = url.hostname, url.port
        headers = {"X-Plandeck-Token": token}

        stop = threading.Event()
        lock = threading.Lock()
        stats = {"requests": 0, "errors": [], "max_latency": 0.0, "latencies": []}
        control_db = os.path.join(tmp, "control.db")
        subprocess.run([agent, "sessions", "list", "--db", control_db], env=env, capture_output=True, timeout=30)
        current = {"sid": None}

        def reader(index):
            conn = http.client.HTTPConnection(host, port, timeout=10)
            i = index
            while not stop.is_set():
                sid = current["sid"]
                paths = ["/api/sessions", "/api/events?limit=50"]
                if sid:
                    paths += [f"/api/sessions/{sid}/plan", f"/api/events?session_id={sid}&limit=50"]
                path = paths[i % len(paths)]
                i += 1
                began = time.monotonic()
                try:
                    conn.request("GET", path, headers=headers)
                    response = conn.getresponse()
                    body = response.read()
                    ok = response.status == 200
                    if ok:
                        json.loads(body)
                    error = None if ok else f"{path}: {response.status} {body[:200]!r}"
                except Exception as e:  # noqa: BLE001 - every failure counts
                    error = f"{path}: {e!r}"
                    conn.close()
                    conn = http.client.HTTPConnection(host, port, timeout=10)
                latency = time.monotonic() - began
                with lock:
                    stats["requests"] += 1
                    stats["latencies"].append(latency)
                    if error:
                        stats["errors"].append(error)
            conn.close()

        threads = [threading.Thread(target=reader, args=(k,)) for k in range(readers)]
        for t in threads:
            t.start()

        rss = []
        writers = {"load": {"db": db, "runs": [], "proc": None},
                   "control": {"db": control_db, "runs": [], "proc": None}}

        def start_run(name, w):
            index = len(w["runs"])
            events = os.path.join(tmp, f"{name}-events{index}.jsonl")
            # stderr goes to a file: a pipe nobody reads could fill and
            # stall the writer, and a file is there to show when it fails.
            errors = open(os.path.join(tmp, f"{name}-stderr{index}.txt"), "w")
            w["proc"] = subprocess.Popen([agent, "run", "--db", w["db"], "--provider", "replay", "--replay", replay,
                                          "--approve", "auto", "--max-iterations", "1000", "-C", work,
                                          "--events-jsonl", events, f"Load round {index}"],
                                         env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=errors)
            errors.close()
            w["runs"].append({"events": events, "stderr": errors.name, "rc": None})

        started = time.monotonic()
        while time.monotonic() - started < seconds:
            for name, w in writers.items():
                if w["proc"] is None or w["proc"].poll() is not None:
                    if w["proc"] is not None:
                        w["runs"][-1]["rc"] = w["proc"].returncode
                    start_run(name, w)
            runs = writers["load"]["runs"]
            if current["sid"] is None and os.path.exists(runs[-1]["events"]):
                with open(runs[-1]["events"]) as f:
                    for line in f:
                        if '"session_id"' in line:
                            try:
                                current["sid"] = json.loads(line).get("session_id")
                            except ValueError:
                                pass
                            break
            rss.append((time.monotonic() - started, rss_kb(server.pid)))
            time.sleep(0.25)

        # The last runs are finished rather than cut, so their gaps count too.
        for w in writers.values():
            w["proc"].wait(timeout=120)
            w["runs"][-1]["rc"] = w["proc"].returncode
        stop.set()
        for t in threads:
            t.join(timeout=30)
        rss.append((time.monotonic() - started, rss_kb(server.pid)))

        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

        # Writers: every run finished, and no gap between saves longer than
        # the control's longest by more than STALL_S.
        def gaps(w):
            saves, worst = 0, 0.0
            for run in w["runs"]:
                with open(run["events"]) as f:
                    times = [parse_time(e["timestamp"]) for e in map(json.loads, f)
                             if e.get("type") == "session_saved"]
                saves += len(times)
                worst = max([worst] + [b - a for a, b in zip(times, times[1:])])
            return saves, worst

        saves, worst_gap = gaps(writers["load"])
        control_saves, control_gap = gaps(writers["control"])
        runs = writers["load"]["runs"]
        failures = []
        for name, w in writers.items():
            for index, run in enumerate(w["runs"]):
                if run["rc"] != 0:
                    with open(run["stderr"], errors="replace") as f:
                        failures.append(f"{name} run {index}: exit {run['rc']}\n{f.read()[-1500:]}")
        tap.check(not failures, f"all {len(runs)} writer runs and {len(writers['control']['runs'])} control runs finished",
                  "\n".join(failures))
        tap.check(worst_gap < STALL_S + control_gap,
                  f"the writer never stalled (longest gap {worst_gap * 1000:.0f} ms, "
                  f"the control's {control_gap * 1000:.0f} ms)")

        latencies = sorted(stats["latencies"])
        p99 = latencies[int(len(latencies) * 0.99)] if latencies else 0
        tap.check(stats["requests"] > readers * 10, f"{stats['requests']} reads answered")
        tap.check(not stats["errors"], f"no reader errors ({len(stats['errors'])})", "\n".join(stats["errors"][:10]))

        warm = [kb for t, kb in rss if t >= seconds / 3]
        growth = warm[-1] - warm[0] if warm else 0
        tap.check(growth < RSS_BOUND_KB, f"server memory flat after warm-up (+{growth} KiB, "
                                         f"{warm[0] if warm else 0} → {warm[-1] if warm else 0} KiB)")
        tap.check(server.returncode == 0, "serve stops cleanly", server.stderr.read()[-2000:])

        print(f"# figures: {seconds:.0f} s, {readers} readers, {stats['requests']} reads "
              f"({stats['requests'] / seconds:.0f}/s), p99 {p99 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms, "
              f"{len(runs)} runs, {saves} saves, longest save gap {worst_gap * 1000:.0f} ms "
              f"(control: {control_saves} saves, {control_gap * 1000:.0f} ms), "
              f"server RSS {rss[0][1]} → {warm[0] if warm else 0} → {rss[-1][1]} KiB")
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What `serve` holds while clients read one long imported session at once.

usage: bench-serve-long-session.py AGENT [MB] [COUNTS] [mixed]

A Claude Code session of MB (60) megabytes written from the fixture's lines
(make-long-session.py) is imported into a database; for each count of
COUNTS (1,4,12) a fresh `plandeck-agent serve` gets that many concurrent
`GET /api/sessions/ID` from 127.0.0.1 while 127.0.0.2 asks for the session
list once they are under way.  Printed for each: the answers' statuses, the
server's peak RSS (VmHWM) once all are answered, the RSS it holds 2 s after,
and how long 127.0.0.2's list took.  With "mixed", each of the requests
asks another read (the record, plan, detail, export, events pages) from
an address of its own (127.0.0.3 on), as attackers past a client's share
would.  With PLANDECK_AGENT_BASELINE set to
another build's plandeck-agent, the same is measured with it in the same
run, first.  Nothing is asserted: test-server-reads counts.  `meson test -C
_build --benchmark serve-long-session` runs it.
"""
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlparse, parse_qs
import json

HERE = os.path.dirname(os.path.abspath(__file__))


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def get(host, port, token, path, source="127.0.0.1", timeout=600):
    conn = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", path, headers={"X-Plandeck-Token": token, "Connection": "close"})
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, len(body)
    finally:
        conn.close()


def start(agent, tmp, db):
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
        env[var] = tmp
    log = open(os.path.join(tmp, "serve.log"), "a")
    server = subprocess.Popen([agent, "serve", "--db", db, "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                              env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True)
    url = urlparse(server.stdout.readline().strip())
    return server, log, url.hostname, url.port, parse_qs(url.query).get("token", [""])[0]


def stop(server, log):
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    log.close()


MIXED = ["/api/sessions/{id}", "/api/sessions/{id}/plan", "/api/sessions/{id}/plan/detail",
         "/api/sessions/{id}/export"] + [f"/api/events?session_id={{id}}&after_seq={n}" for n in range(0, 800, 100)]


def measure(agent, tmp, db, count, mixed=False):
    server, log, host, port, token = start(agent, tmp, db)
    try:
        status, _ = get(host, port, token, "/api/sessions")
        listing = get_json(host, port, token, "/api/sessions")
        sid = next(s["id"] for s in listing if s.get("source") == "claude-code" or s.get("imported"))
        base = status_kb(server.pid, "VmRSS")
        results = []
        lock = threading.Lock()

        def one(i):
            if mixed:
                r = get(host, port, token, MIXED[i % len(MIXED)].format(id=sid), source=f"127.0.0.{3 + i}")
            else:
                r = get(host, port, token, f"/api/sessions/{sid}")
            with lock:
                results.append(r)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        start_list = time.monotonic()
        other = get(host, port, token, "/api/sessions", source="127.0.0.2")
        list_took = time.monotonic() - start_list
        for t in threads:
            t.join()
        peak = status_kb(server.pid, "VmHWM")
        time.sleep(2)
        held = status_kb(server.pid, "VmRSS")
        statuses = {}
        for s, _ in results:
            statuses[s] = statuses.get(s, 0) + 1
        size = max((n for s, n in results if s == 200), default=0)
        return {"count": count, "statuses": statuses, "body": size, "base_mb": base / 1024,
                "peak_mb": peak / 1024, "held_mb": held / 1024, "list_s": list_took, "list_status": other[0]}
    finally:
        stop(server, log)


def get_json(host, port, token, path):
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request("GET", path, headers={"X-Plandeck-Token": token})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def main():
    agent = sys.argv[1]
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    counts = [int(c) for c in (sys.argv[3] if len(sys.argv) > 3 else "1,4,12").split(",")]
    mixed = len(sys.argv) > 4 and sys.argv[4] == "mixed"
    agents = []
    if os.environ.get("PLANDECK_AGENT_BASELINE"):
        agents.append(("baseline", os.environ["PLANDECK_AGENT_BASELINE"]))
    agents.append(("this build", agent))
    with tempfile.TemporaryDirectory(prefix="pd-bench-long-") as tmp:
        claude = os.path.join(tmp, "claude")
        path = subprocess.run([sys.executable, os.path.join(HERE, "make-long-session.py"), claude, str(megabytes)],
                              check=True, capture_output=True, text=True).stdout.strip()
        print(f"# {path}: {os.path.getsize(path) / 1e6:.1f} MB", flush=True)
        for name, binary in agents:
            db = os.path.join(tmp, f"sessions-{len(name)}.db")
            subprocess.run([binary, "import", "--db", db, "--claude-dir", claude], check=True,
                           capture_output=True, env=dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=tmp))
            for count in counts:
                r = measure(binary, tmp, db, count, mixed)
                print(f"{name}: {r['count']:2d} concurrent {'different reads' if mixed else 'GETs'}: {r['statuses']}, reply {r['body'] / 1e6:.1f} MB, "
                      f"RSS at rest {r['base_mb']:.0f} MB, peak {r['peak_mb']:.0f} MB, held {r['held_mb']:.0f} MB; "
                      f"127.0.0.2's list {r['list_status']} in {r['list_s']:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

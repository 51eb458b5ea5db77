#!/usr/bin/env python3
"""Another client's latency while a flood of slow connections comes and goes.

usage: bench-serve-flood.py AGENT [REQUESTS] [CONNECTIONS]

As an attacker would: CONNECTIONS (3 000) connections from 127.0.0.1, each
sending a byte a second, every one the server closes opened again at once
(test-serve-hold.py's flood()), against `plandeck-agent serve` held to
1 024 descriptors.  127.0.0.2 asks /api/health REQUESTS (100) times, one
after the other, each on a new connection, first at rest (the baseline, on
the same machine in the same run), then under the flood; the time from
connect() to the status line is printed as p50 / p99 / max of each.
Nothing is asserted: serve-hold's flood case counts.  `meson test -C _build
--benchmark serve-flood` runs it.
"""
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlparse, parse_qs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))   # test-serve-hold.py's pd_tap
spec = importlib.util.spec_from_file_location("hold", os.path.join(HERE, "..", "test-serve-hold.py"))
hold = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hold)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def ask_all(host, port, token, requests):
    """@requests asked from 127.0.0.2: the times of those answered, and
    what the others got."""
    times, failed = [], []
    for _ in range(requests):
        start = time.monotonic()
        status = hold.ask(host, port, token, 60, source="127.0.0.2")
        took = time.monotonic() - start
        print(f"# {status} {took:.3f} s", file=sys.stderr, flush=True)
        if status == 200:
            times.append(took)
        else:
            failed.append(status)
        time.sleep(0.05)
    return times, failed


def report(what, result):
    times, failed = result
    line = f"  {what}: answered {len(times)}"
    if times:
        line += (f", p50 {percentile(times, 50):.3f} s, p99 {percentile(times, 99):.3f} s, "
                 f"max {max(times):.3f} s")
    print(line)
    if failed:
        print(f"    not answered {len(failed)}: {failed[:5]}")


def main():
    agent = os.path.abspath(sys.argv[1])
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    connections = int(sys.argv[3]) if len(sys.argv) > 3 else hold.SLOW
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))

    with tempfile.TemporaryDirectory(prefix="pd-flood-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"),
                                   "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, preexec_fn=hold.limit_descriptors)
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            host, port = url.hostname, url.port
            baseline = ask_all(host, port, token, requests)
            stop = threading.Event()
            flood = hold.flood(host, port, token, stop, connections)
            try:
                time.sleep(3)
                flooded = ask_all(host, port, token, requests)
            finally:
                stop.set()
                reopened = flood.join()
            print(f"{requests} requests from 127.0.0.2, one after the other, each on a new connection:")
            report("at rest (baseline)", baseline)
            report(f"under a flood of {connections} slow connections ({reopened} opened again after the "
                   f"server closed them)", flooded)
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


if __name__ == "__main__":
    sys.exit(main())

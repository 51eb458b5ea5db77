#!/usr/bin/env python3
"""Storm: kept-alive connections that their clients close, against the real
`plandeck-agent serve`, whose descriptor count must stay flat.

usage: test-serve-storm.py AGENT [CONNECTIONS] [WORKERS]

libsoup 3.2 (Debian 12) left every kept-alive connection its client closed
open in CLOSE-WAIT: with 1 024 descriptors the server stopped answering for
good after about 1 000 of them (pd-server-conns.c).  This starts
`plandeck-agent serve --listen 127.0.0.1:0` with RLIMIT_NOFILE at 1 024, as
on a stock desktop, and WORKERS processes (default 2) open CONNECTIONS
(default 100 000) connections between them, one at a time each.  Every
connection asks for one or two answers on the kept-alive connection (with
the instance token or without it: a 403 is an answer too), then the client
closes it: mostly with a FIN, every 16th with a reset, every 64th in the
middle of a request (headers cut short).  Clients bind loopback source
addresses of their own (127.R.R.x, a new one every 4 000 connections), so
their TIME_WAIT sockets never run short of ports.

Checks:
  - every connection got its answers (none refused, none timed out);
  - the server's descriptor count, sampled 20 times a second, never rose
    above its count at rest by more than the connections open at once (one
    per worker) plus slack;
  - once the storm is over the count is back where it was at rest;
  - its VmRSS grew by less than 16 MiB (libsoup 3.2's listener kept every
    accepted socket, 340 bytes each: 34 MB for the storm);
  - the server printed no warning (libsoup warns when it is asked for the
    address of a peer that has reset).

Prints TAP and the figures (# figures: ...).
"""
import multiprocessing
import os
import random
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse, parse_qs

from pd_tap import Tap

FD_LIMIT = 1024
SLACK = 16
RSS_BOUND_KB = 16 * 1024
ANSWER_TIMEOUT_S = 10
PER_SOURCE = 4000


def read_answer(sock, buffer):
    """One HTTP answer with a Content-Length body; returns (status, rest)."""
    while b"\r\n\r\n" not in buffer:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("closed before an answer")
        buffer += data
    head, rest = buffer.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("closed inside an answer")
        rest += data
    return status, rest[length:]


def worker(index, count, host, port, token, prefix, results):
    authorised = (f"GET /api/health HTTP/1.1\r\nHost: {host}:{port}\r\n"
                  f"X-Plandeck-Token: {token}\r\n\r\n").encode()
    anonymous = f"GET /api/sessions HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    answers = 0
    errors = []
    for i in range(count):
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.settimeout(ANSWER_TIMEOUT_S)
            # A fresh loopback source address every PER_SOURCE connections.
            sock.bind((f"{prefix}.{(index * 40 + i // PER_SOURCE) % 254 + 1}", 0))
            sock.connect((host, port))
            if i % 64 == 63:
                # Headers cut short, then gone.
                sock.sendall(authorised[:20])
                sock.close()
                continue
            rounds = 2 if i % 3 == 0 else 1
            buffer = b""
            for r in range(rounds):
                sock.sendall(authorised if (i + r) % 2 else anonymous)
                status, buffer = read_answer(sock, buffer)
                if status not in (200, 403):
                    raise ConnectionError(f"status {status}")
                answers += 1
            if i % 16 == 15:
                # A reset instead of a FIN.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        except (OSError, ValueError) as e:
            errors.append(f"worker {index}, connection {i}: {e!r}")
            break
    results.put((index, answers, errors))


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def main():
    agent = os.path.abspath(sys.argv[1])
    connections = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    tap = Tap(detail_lines=30, echo_stderr=True)

    with tempfile.TemporaryDirectory(prefix="pd-storm-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        db = os.path.join(tmp, "sessions.db")
        # stderr to a file: a pipe nobody reads would stop the server once full.
        log_path = os.path.join(tmp, "serve.log")
        log = open(log_path, "w")
        server = subprocess.Popen([agent, "serve", "--db", db, "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True,
                                  preexec_fn=limit_descriptors)
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            tap.check(url.port and token, "serve listens on loopback", url)
            host, port = url.hostname, url.port

            # Warm up (the database readers, libsoup's caches), then the count at rest.
            sock = socket.create_connection((host, port))
            sock.sendall(f"GET /api/sessions HTTP/1.1\r\nHost: {host}\r\nX-Plandeck-Token: {token}\r\n\r\n".encode())
            read_answer(sock, b"")
            sock.close()
            time.sleep(0.3)
            rest = fd_count(server.pid)
            rss_rest = rss_kb(server.pid)

            results = multiprocessing.Queue()
            share = [connections // workers + (1 if k < connections % workers else 0) for k in range(workers)]
            # 127.R.R.x, new for each run: the TIME_WAIT sockets of an earlier
            # run on the same addresses would slow the choice of a port.
            prefix = f"127.{random.randint(1, 254)}.{random.randint(0, 255)}"
            procs = [multiprocessing.Process(target=worker, args=(k, share[k], host, port, token, prefix, results))
                     for k in range(workers)]
            start = time.monotonic()
            cpu_start = cpu_seconds(server.pid)
            for p in procs:
                p.start()
            peak = rest
            samples = 0
            while any(p.is_alive() for p in procs):
                peak = max(peak, fd_count(server.pid))
                samples += 1
                time.sleep(0.05)
            elapsed = time.monotonic() - start
            cpu = cpu_seconds(server.pid) - cpu_start
            outcomes = [results.get(timeout=5) for _ in procs]
            for p in procs:
                p.join()

            answers = sum(o[1] for o in outcomes)
            errors = [e for o in outcomes for e in o[2]]
            tap.check(not errors, f"every one of {connections} connections answered", "\n".join(errors))

            # The server closes its side as it sees each end: give the last few
            # a moment, then the count must be back at rest.
            deadline = time.monotonic() + 5
            after = fd_count(server.pid)
            while after > rest and time.monotonic() < deadline:
                time.sleep(0.05)
                after = fd_count(server.pid)

            rss_after = rss_kb(server.pid)
            bound = rest + workers + SLACK
            tap.check(peak <= bound, f"descriptors never above {bound} during the storm",
                      f"at rest {rest}, peak {peak}")
            tap.check(after <= rest, "descriptors back at rest after the storm", f"at rest {rest}, after {after}")
            tap.check(rss_after - rss_rest < RSS_BOUND_KB, "VmRSS grew by less than 16 MiB",
                      f"{rss_rest} KiB at rest, {rss_after} KiB after")
            log.flush()
            with open(log_path) as f:
                warnings = [line for line in f if "WARNING" in line or "CRITICAL" in line]
            tap.check(not warnings, "no warning from the server", "".join(warnings[:5]))
            print(f"# figures: {connections} connections ({answers} answers) by {workers} workers in "
                  f"{elapsed:.1f} s ({connections / elapsed:.0f}/s; server CPU {cpu * 1e6 / connections:.0f} µs each); server descriptors at rest {rest}, "
                  f"peak {peak} ({samples} samples), after {after}; limit {FD_LIMIT}; VmRSS {rss_rest} -> {rss_after} KiB",
                  flush=True)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()

    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

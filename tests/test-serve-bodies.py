#!/usr/bin/env python3
"""Big request bodies against the real `plandeck-agent serve`: its memory stays flat.

usage: test-serve-bodies.py AGENT

serve used to read a request's whole body (and copy it once more) before
it checked the token, the Host or the size: a 1.2 GB POST with a wrong
token took it to 2.4 GB.  Here clients push bodies of up to 256 MiB at it,
announced by Content-Length (with a wrong token, a wrong Host, a right
token) or chunked with no announced size, and keep pushing until the
server stops taking them.  Checks, for each:

  - the answer is the refusal (403, 413), sent before the body;
  - the server stopped reading long before the end (under 16 MiB taken);
  - its VmRSS grew by less than 8 MiB.

Prints TAP and the figures (# figures: ...).
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
from urllib.parse import urlparse, parse_qs

PUSH = 256 * 1024 * 1024
TAKEN_BOUND = 16 * 1024 * 1024
RSS_BOUND_KB = 8 * 1024


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def push(host, port, head, chunked):
    """Sends @head and then body bytes until PUSH or the server stops taking
    them; returns (bytes taken, the answer's status line or None)."""
    sock = socket.create_connection((host, port))
    sock.settimeout(10)
    sock.sendall(head)
    piece = b" " * (64 * 1024)
    if chunked:
        piece = b"%x\r\n" % len(piece) + piece + b"\r\n"
    taken = 0
    try:
        while taken < PUSH:
            sock.sendall(piece)
            taken += len(piece)
    except OSError:
        pass
    answer = b""
    try:
        while b"\r\n" not in answer:
            data = sock.recv(4096)
            if not data:
                break
            answer += data
    except OSError:
        pass
    sock.close()
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") if answer else None
    return taken, status


def main():
    agent = os.path.abspath(sys.argv[1])
    n = 0
    failed = 0

    def check(ok, what, detail=""):
        nonlocal n, failed
        n += 1
        print(f"{'ok' if ok else 'not ok'} {n} {what}", flush=True)
        if not ok:
            failed += 1
            print(f"# {detail}")
            print(f"# {detail}", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="pd-bodies-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        log = open(os.path.join(tmp, "serve.log"), "w")
        server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"), "--listen", "127.0.0.1:0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            host, port = url.hostname, url.port
            check(port and token, "serve listens on loopback", url)

            cases = [
                ("a wrong token", 403, False,
                 f"POST /api/prompt HTTP/1.1\r\nHost: {host}\r\nX-Plandeck-Token: wrong\r\n"
                 f"Content-Type: application/json\r\nContent-Length: 1200000000\r\n\r\n"),
                ("a wrong Host", 403, False,
                 f"POST /api/prompt HTTP/1.1\r\nHost: evil.example\r\nX-Plandeck-Token: {token}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: 1200000000\r\n\r\n"),
                ("the token and 1.2 GB announced", 413, False,
                 f"POST /api/prompt HTTP/1.1\r\nHost: {host}\r\nX-Plandeck-Token: {token}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: 1200000000\r\n\r\n"),
                ("the token and an endless chunked body", 413, True,
                 f"POST /api/prompt HTTP/1.1\r\nHost: {host}\r\nX-Plandeck-Token: {token}\r\n"
                 f"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"),
            ]
            figures = []
            for what, status, chunked, head in cases:
                before = rss_kb(server.pid)
                taken, answer = push(host, port, head.encode(), chunked)
                growth = rss_kb(server.pid) - before
                figures.append(f"{what}: {taken >> 20} MiB taken, RSS +{growth} KiB, {answer}")
                # The answer may be lost to the reset of a client that goes on
                # sending; when it arrives it is the refusal.
                check(answer is None or re.match(rf"HTTP/1\.1 {status} ", answer),
                      f"{what}: answered {status}", answer)
                check(taken < TAKEN_BOUND, f"{what}: the server stopped reading (under 16 MiB taken)",
                      f"{taken} bytes taken")
                check(growth < RSS_BOUND_KB, f"{what}: VmRSS grew by less than 8 MiB", f"+{growth} KiB")
            print(f"# figures: {'; '.join(figures)}", flush=True)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()

    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What `serve` holds for clients of many addresses that ask and never read.

usage: bench-serve-unread.py AGENT [MB] [CLIENTS]

A Claude Code session of MB (60) megabytes (make-long-session.py) is
imported into a database; CLIENTS (60) clients, each from an address of its
own (127.0.0.2 on), send `GET /api/sessions/ID` with a small receive buffer
and never read past the answer's head, one after the other (each its own read
of the session: an answer that long is not kept for the next).  Printed: the answers' statuses (read
from their heads once the server stopped asking reads), the server's peak
RSS (VmHWM) and what it holds then.  Each address stays within its share of
heavy reads (PD_SERVER_HEAVY_PER_CLIENT); what bounds them all is the
server's bound of unsent answers.  Nothing is asserted:
`/pd/server-reads/unread-answers-bound` counts.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse, parse_qs

HERE = os.path.dirname(os.path.abspath(__file__))


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    agent = sys.argv[1]
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    with tempfile.TemporaryDirectory(prefix="plandeck-serve-unread-") as tmp:
        env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
                   XDG_DATA_HOME=os.path.join(tmp, "data"))
        subprocess.run([sys.executable, os.path.join(HERE, "make-long-session.py"), tmp, str(megabytes)], check=True,
                       stdout=subprocess.DEVNULL)
        db = os.path.join(tmp, "db.db")
        subprocess.run([agent, "import", "--db", db, os.path.join(tmp, "-home-dev-src-inkwell")], env=env,
                       check=True, capture_output=True)
        listed = subprocess.run([agent, "sessions", "list", "--db", db, "--json"], env=env, capture_output=True,
                                text=True, check=True)
        import json
        sid = json.loads(listed.stdout)["sessions"][0]["id"]
        server = subprocess.Popen([agent, "serve", "--db", db, "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            socks = []
            statuses = {}
            started = time.monotonic()
            for i in range(clients):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.bind((f"127.0.0.{2 + i}", 0))
                s.connect((url.hostname, url.port))
                s.sendall(f"GET /api/sessions/{sid} HTTP/1.1\r\nHost: 127.0.0.1:{url.port}\r\n"
                          f"X-Plandeck-Token: {token}\r\nConnection: close\r\n\r\n".encode())
                # Its answer's head (a few KiB read at most) before the next
                # asks: each a read of its own, none shared.
                s.settimeout(600)
                head = s.recv(64)
                status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.1 ") else "none"
                statuses[status] = statuses.get(status, 0) + 1
                socks.append(s)
            took = time.monotonic() - started
            time.sleep(1)
            peak = status_kb(server.pid, "VmHWM")
            held = status_kb(server.pid, "VmRSS")
            size = os.path.getsize(os.path.join(tmp, "-home-dev-src-inkwell", os.listdir(
                os.path.join(tmp, "-home-dev-src-inkwell"))[0]))
            print(f"{clients} clients of {clients} addresses, a {size / 1048576:.1f} MB session's record each, "
                  f"never read: statuses {statuses} in {took:.1f} s; peak RSS {peak / 1024:.1f} MB, "
                  f"held {held / 1024:.1f} MB", flush=True)
            for s in socks:
                s.close()
        finally:
            server.terminate()
            server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())

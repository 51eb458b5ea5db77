#!/usr/bin/env python3
"""Clients that stay: connections held open against the real
`plandeck-agent serve`, which must keep answering, and answer again after.

usage: test-serve-hold.py AGENT

As an attacker would (a slow client, slowloris): libsoup 3.2's listener
removes its source on the first accept() that fails, so a client that held
connections until the server's descriptors ran out (EMFILE) left a server
that never accepted anyone again — not even after that client had gone
(the listen queue filled and stayed full).  This starts serve with
RLIMIT_NOFILE at 1 024, as on a stock desktop, and:

  hold      opens 1 100 connections, each with half a request line sent, and
            keeps them: a request with the token is still answered while they
            are held, the server's descriptors stay below the limit, and once
            they are closed it is answered again;
  silent    a connection that sends half its request and then nothing is
            closed by the server (bounded wait: 60 s; the server's own limit
            is 15 s);
  small     serve under RLIMIT_NOFILE 48: 40 whole requests at once, held,
            then closed; it answers after (the cap on connections counted
            three quarters of the limit and not the ~25 descriptors serve
            already holds, so accept() met EMFILE and never accepted again);
  refusals  200 POSTs with a wrong token and a body announced (each refused
            and drained for a moment before it is closed), held open by the
            client: the server still answers.  (They come about 11 a
            second at most: libsoup listens with a backlog of 10, and a SYN
            past it waits for its retransmission.)

Prints TAP.
"""
import concurrent.futures
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse, parse_qs

FD_LIMIT = 1024
HOLD = 1100
REFUSALS = 200
SILENT_BOUND_S = 60


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} {what}", flush=True)
        if not ok:
            self.failed += 1
            for line in str(detail).splitlines()[:30]:
                print(f"# {line}")
        return ok


def limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))
    # Our own connections need descriptors too, beyond the server's limit.


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def ask(host, port, token, timeout=10):
    """One authorised request on a new connection: its status, or the error."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.sendall(f"GET /api/health HTTP/1.1\r\nHost: {host}:{port}\r\nX-Plandeck-Token: {token}\r\n"
                     f"Connection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        sock.close()
        return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else f"no answer: {data!r}"
    except OSError as e:
        return f"no answer: {e!r}"


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))

    with tempfile.TemporaryDirectory(prefix="pd-hold-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        log = open(os.path.join(tmp, "serve.log"), "w")
        server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"),
                                   "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True,
                                  preexec_fn=limit_descriptors)
        held = []
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            host, port = url.hostname, url.port
            tap.check(ask(host, port, token) == 200, "serve answers at rest")

            # hold
            # Many at once, as an attacker's threads would: one client alone
            # gets about 11 a second past libsoup's backlog of 10 (a SYN
            # past it waits a second for its retransmission).
            def open_one(_):
                sock = socket.socket()
                sock.settimeout(5)
                try:
                    sock.connect((host, port))
                    sock.sendall(b"GET /api/health HTTP/1.1\r\n")
                    return sock
                except OSError:
                    sock.close()
                    return None

            start = time.monotonic()
            with concurrent.futures.ThreadPoolExecutor(max_workers=64) as pool:
                opened = list(pool.map(open_one, range(HOLD)))
            held = [sock for sock in opened if sock is not None]
            refused = HOLD - len(held)
            print(f"# hold: {len(held)} opened in {time.monotonic() - start:.1f} s")
            time.sleep(0.5)
            peak = fd_count(server.pid)
            during = ask(host, port, token)
            tap.check(during == 200, f"hold: answered while {len(held)} connections are held", during)
            tap.check(peak < FD_LIMIT - 32, "hold: the server's descriptors stay below its limit",
                      f"{peak} of {FD_LIMIT}")
            print(f"# hold: {len(held)} held ({refused} not connected), server descriptors {peak} of {FD_LIMIT}")
            for sock in held:
                sock.close()
            held = []
            time.sleep(0.5)
            after = ask(host, port, token)
            tap.check(after == 200, "hold: answered once they are gone", after)

            # silent
            start = time.monotonic()
            try:
                sock = socket.create_connection((host, port), timeout=SILENT_BOUND_S)
                sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                start = time.monotonic()
                try:
                    closed = sock.recv(4096) == b""
                except OSError as e:
                    closed = not isinstance(e, socket.timeout)
                sock.close()
            except OSError:
                closed = False
            waited = time.monotonic() - start
            tap.check(closed, "silent: a client that stops sending its request is closed by the server",
                      f"still open after {waited:.0f} s")
            print(f"# silent: closed after {waited:.1f} s")

            # refusals
            body_head = (f"POST /api/prompt HTTP/1.1\r\nHost: {host}:{port}\r\nX-Plandeck-Token: wrong\r\n"
                         f"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n").encode()
            in_a_row = 0
            for _ in range(REFUSALS):
                try:
                    sock = socket.create_connection((host, port), timeout=5)
                    sock.sendall(body_head)
                    held.append(sock)
                    in_a_row = 0
                except OSError:
                    in_a_row += 1
                    if in_a_row == 3:
                        break   # nobody accepts any more
            after = ask(host, port, token)
            tap.check(after == 200, f"refusals: answered after {REFUSALS} refused requests", after)
            for sock in held:
                sock.close()
            held = []
            time.sleep(0.5)
            tap.check(ask(host, port, token) == 200, "refusals: answered once they are gone")
        finally:
            for sock in held:
                sock.close()
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()

    small_limit(agent, tap)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


SMALL_LIMIT = 48
SMALL_CLIENTS = 40


def small_limit(agent, tap):
    def limit_small():
        resource.setrlimit(resource.RLIMIT_NOFILE, (SMALL_LIMIT, SMALL_LIMIT))

    with tempfile.TemporaryDirectory(prefix="pd-hold-small-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        log = open(os.path.join(tmp, "serve.log"), "w")
        server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"),
                                   "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True,
                                  preexec_fn=limit_small)
        held = []
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            host, port = url.hostname, url.port
            tap.check(ask(host, port, token) == 200, f"small: serve answers at rest under a limit of {SMALL_LIMIT}")

            def open_one(_):
                sock = socket.socket()
                sock.settimeout(5)
                try:
                    sock.connect((host, port))
                    sock.sendall(f"GET /api/sessions HTTP/1.1\r\nHost: {host}:{port}\r\n"
                                 f"X-Plandeck-Token: {token}\r\n\r\n".encode())
                    return sock
                except OSError:
                    sock.close()
                    return None

            with concurrent.futures.ThreadPoolExecutor(max_workers=SMALL_CLIENTS) as pool:
                held = [sock for sock in pool.map(open_one, range(SMALL_CLIENTS)) if sock is not None]
            time.sleep(1.5)
            peak = fd_count(server.pid)
            print(f"# small: {len(held)} connected, server descriptors {peak} of {SMALL_LIMIT}")
            # Headroom for what serve opens besides connections (a request's
            # database read, a stream taken over): at the limit, accept()
            # meets EMFILE and libsoup's listener stops for good.
            tap.check(peak <= SMALL_LIMIT - 8, "small: the server keeps descriptors free under a small limit",
                      f"{peak} of {SMALL_LIMIT}")
            for sock in held:
                sock.close()
            held = []
            time.sleep(1.0)
            after = ask(host, port, token)
            tap.check(after == 200, f"small: answered once {SMALL_CLIENTS} clients are gone", after)
        finally:
            for sock in held:
                sock.close()
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()


if __name__ == "__main__":
    sys.exit(main())

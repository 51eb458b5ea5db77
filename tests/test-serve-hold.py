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
            then again with 8 WebSockets held beside them (the cap was fitted
            once, to what serve held when it began to listen; what it opened
            after was not counted: under load 48 of 48, and no answer again);
  slowloris 3 000 connections from 127.0.0.1, each sending a byte a second
            and opened again as soon as the server closes it, for 12 s: that
            address holds at most half of the connection cap (the server's
            descriptors, sampled), and a request from 127.0.0.2 is answered
            all the while
            (each new connection closed the oldest one held, its client came
            straight back, and the listen queue stayed full of that client's
            connections: 5 to 7 s, and past curl's 10 s on a busy machine);
  flood     3 000 slow connections from 127.0.0.1, each opened again the
            moment the server closes it: 127.0.0.2 answered in each of 20
            tries within 10 s, and within 1.5 s in half of them at least
            (libsoup's listener took one connection an iteration, and the
            listen queue stayed full of the flood: p50 about 5 s);
  refusals  200 POSTs with a wrong token and a body announced (each refused
            and drained for a moment before it is closed), held open by the
            client: the server still answers.  (They come about 11 a
            second at most: libsoup listens with a backlog of 10, and a SYN
            past it waits for its retransmission.)

Prints TAP.
"""
import base64
import concurrent.futures
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlparse, parse_qs

from pd_tap import Tap

FD_LIMIT = 1024
HOLD = 1100
REFUSALS = 200
SLOW = 3000
SLOW_THREADS = 6
SLOW_SECONDS = 12
FLOOD_THREADS = 4
FLOOD_TRIES = 20
FLOOD_BOUND_S = 10
FLOOD_QUICK_S = 1.5
# The share of the connection cap (3/4 of the descriptors) one address may
# hold: what makes room for the others, counted, not timed.  The answers'
# bound only keeps a hung server from hanging the test (before the share,
# the other address waited 5 to 7 s here, and past 10 s on a busy machine;
# a loaded CI machine is too slow for a tighter bound to mean the server).
SLOW_SHARE = FD_LIMIT // 4 * 3 // 2
SLOW_ANSWER_S = 20
SILENT_BOUND_S = 60


def limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))
    # Our own connections need descriptors too, beyond the server's limit.


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def ask(host, port, token, timeout=10, source=None):
    """One authorised request on a new connection (from the loopback
    address @source when given): its status, or the error."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout,
                                        source_address=(source, 0) if source else None)
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


def slowloris(host, port, token, stop):
    """As an attacker would: SLOW connections, a byte a second each, each
    opened again when the server has closed it."""
    request = (f"GET /api/sessions HTTP/1.1\r\nHost: {host}:{port}\r\nX-Plandeck-Token: {token}\r\n"
               f"X-Pad: {'a' * 200}\r\n\r\n").encode()

    def connect():
        sock = socket.socket()
        sock.settimeout(2)
        try:
            sock.connect((host, port))
            return [sock, 0]
        except OSError:
            sock.close()
            return None

    def run(n):
        conns = [connect() for _ in range(n)]
        while not stop.is_set():
            for i, conn in enumerate(conns):
                if stop.is_set():
                    break
                try:
                    if conn is None:
                        raise OSError
                    conn[0].send(request[conn[1]:conn[1] + 1])
                    conn[1] = (conn[1] + 1) % (len(request) - 4)
                except OSError:
                    if conn is not None:
                        conn[0].close()
                    conns[i] = connect()
            stop.wait(1)
        for conn in conns:
            if conn is not None:
                conn[0].close()

    threads = [threading.Thread(target=run, args=(SLOW // SLOW_THREADS,)) for _ in range(SLOW_THREADS)]
    for thread in threads:
        thread.start()
    return threads


class Flood:
    """As an attacker would: connections from 127.0.0.1 opened as fast as
    the server lets them, each sending a byte of a request a second, and
    each the server closes opened again at once (a selector sees the close
    as it comes, not at the next byte).  Non-blocking, FLOOD_THREADS
    threads."""

    def __init__(self, host, port, token, stop, n):
        self.request = (f"GET /api/sessions HTTP/1.1\r\nHost: {host}:{port}\r\nX-Plandeck-Token: {token}\r\n"
                        f"X-Pad: {'a' * 200}\r\n\r\n").encode()
        self.address = (host, port)
        self.stop = stop
        self.reopened = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(n // FLOOD_THREADS,))
                        for _ in range(FLOOD_THREADS)]
        for thread in self.threads:
            thread.start()

    def connect(self, selector):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(self.address)
        selector.register(sock, selectors.EVENT_READ, [0])
        return sock

    def run(self, n):
        selector = selectors.DefaultSelector()
        for _ in range(n):
            self.connect(selector)
        next_byte = time.monotonic() + 1
        reopened = 0
        while not self.stop.is_set():
            for key, _ in selector.select(timeout=0.05):
                try:
                    if key.fileobj.recv(4096):
                        continue    # an answer (408, 503): its close follows
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                selector.unregister(key.fileobj)
                key.fileobj.close()
                self.connect(selector)
                reopened += 1
            if time.monotonic() >= next_byte:
                next_byte += 1
                for key in list(selector.get_map().values()):
                    sent = key.data
                    try:
                        key.fileobj.send(self.request[sent[0]:sent[0] + 1])
                        sent[0] = (sent[0] + 1) % (len(self.request) - 4)
                    except OSError:
                        pass    # still connecting, or closed: the selector tells
        for key in list(selector.get_map().values()):
            key.fileobj.close()
        selector.close()
        with self.lock:
            self.reopened += reopened

    def join(self):
        """Waits for the threads (stop set): the connections opened again."""
        for thread in self.threads:
            thread.join()
        return self.reopened


def flood(host, port, token, stop, n=SLOW):
    return Flood(host, port, token, stop, n)


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap(detail_lines=30)
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
            # 127.0.0.1 holds its share: a new connection of its own takes
            # the place of one that has been sending its request for 2 s,
            # and is closed at once until one has.
            during = None
            deadline = time.monotonic() + 30
            while during != 200 and time.monotonic() < deadline:
                during = ask(host, port, token)
                if during != 200:
                    time.sleep(0.2)
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

            # slowloris
            stop = threading.Event()
            rest = fd_count(server.pid)
            watch = PeakWatch(server.pid)
            attackers = slowloris(host, port, token, stop)
            answers = []
            try:
                time.sleep(2)
                end = time.monotonic() + SLOW_SECONDS
                while time.monotonic() < end:
                    start = time.monotonic()
                    answers.append((ask(host, port, token, SLOW_ANSWER_S, source="127.0.0.2"),
                                    time.monotonic() - start))
                    time.sleep(0.5)
            finally:
                stop.set()
                for thread in attackers:
                    thread.join()
                peak = watch.end()
            print(f"# slowloris: server descriptors {rest} at rest, at most {peak} under it")
            tap.check(peak <= rest + SLOW_SHARE + 32,
                      "slowloris: one address holds at most half of the connection cap",
                      f"{peak - rest} held of a share of {SLOW_SHARE}")
            print("# slowloris: answers from 127.0.0.2 " +
                  " ".join(f"{status}/{took:.1f}s" for status, took in answers))
            tap.check(answers and all(status == 200 for status, _ in answers),
                      f"slowloris: 127.0.0.2 answered while {SLOW} slow connections come and go",
                      [status for status, _ in answers])
            time.sleep(0.5)
            tap.check(ask(host, port, token) == 200, "slowloris: answered once they are gone")

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

    small_limit(agent, tap, 0)
    small_limit(agent, tap, SMALL_SOCKETS)
    flood_case(agent, tap)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


def start_server(agent, tmp, limit):
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
        env[var] = tmp
    log = open(os.path.join(tmp, "serve.log"), "w")
    server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"),
                               "--listen", "127.0.0.1:0", "--rate-limit", "0"],
                              env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True,
                              preexec_fn=limit)
    url = urlparse(server.stdout.readline().strip())
    return server, log, url.hostname, url.port, parse_qs(url.query).get("token", [""])[0]


def stop_server(server, log):
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    log.close()


def flood_case(agent, tap):
    """flood: SLOW connections from 127.0.0.1 opened as fast as the server
    closes them (Flood), while 127.0.0.2 asks FLOOD_TRIES times: each must be
    answered within FLOOD_BOUND_S.  libsoup's listener accepted one
    connection per main-loop iteration, so the listen queue stayed full of
    the flood's connections and 127.0.0.2's waited behind them: 2 of 30
    unanswered after 60 s, the others 2.2 to 11.6 s (p50 4.8 s; load
    average 19 on 2 cores); another run 20 of 20 within 10 s, but 2 of 20
    within 1.5 s.  The bounds are generous (now: 14 and 17 of 20 within
    1.5 s, at the same load); the counts are what fail."""
    with tempfile.TemporaryDirectory(prefix="pd-hold-flood-") as tmp:
        server, log, host, port, token = start_server(agent, tmp, limit_descriptors)
        try:
            stop = threading.Event()
            attack = flood(host, port, token, stop)
            took = []
            try:
                time.sleep(3)
                for _ in range(FLOOD_TRIES):
                    start = time.monotonic()
                    status = ask(host, port, token, FLOOD_BOUND_S, source="127.0.0.2")
                    took.append((status, time.monotonic() - start))
            finally:
                stop.set()
                reopened = attack.join()
            print(f"# flood: {reopened} connections opened again; 127.0.0.2 answered " +
                  " ".join(f"{status}/{t:.1f}s" for status, t in took))
            late = [t for status, t in took if status != 200 or t > FLOOD_BOUND_S]
            quick = [t for status, t in took if status == 200 and t <= FLOOD_QUICK_S]
            tap.check(not late, f"flood: 127.0.0.2 answered within {FLOOD_BOUND_S} s in each of "
                      f"{FLOOD_TRIES} tries while {SLOW} slow connections are opened as fast as they close",
                      f"{len(late)} late or unanswered")
            tap.check(len(quick) * 2 >= FLOOD_TRIES,
                      f"flood: 127.0.0.2 answered within {FLOOD_QUICK_S} s in half of its tries at least",
                      f"{len(quick)} of {FLOOD_TRIES}")
            time.sleep(0.5)
            tap.check(ask(host, port, token) == 200, "flood: answered once it is over")
        finally:
            stop_server(server, log)


SMALL_LIMIT = 48
SMALL_CLIENTS = 40
SMALL_SOCKETS = 8


def ws_upgrade(host, port, token):
    """A WebSocket on /ws, held: the server takes it from libsoup, so no
    cap on connections counts it, yet it is a descriptor."""
    sock = socket.create_connection((host, port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Origin: http://{host}:{port}\r\nCookie: odek_ws_token={token}\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return sock, data.split(b"\r\n", 1)[0].decode("latin1")


class PeakWatch:
    """The most descriptors the server held, sampled every 2 ms while it
    runs: the peak of a burst, not one look after it."""

    def __init__(self, pid):
        self.pid = pid
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, fd_count(self.pid))
            except OSError:
                pass
            time.sleep(0.002)

    def end(self):
        self.stop.set()
        self.thread.join()
        return self.peak


def small_limit(agent, tap, sockets):
    """serve under RLIMIT_NOFILE 48, @sockets WebSockets held, then 40 whole
    requests at once, held.  The cap on connections was fitted once, to the
    descriptors held when serve began to listen: what the server opened
    after that (the database watcher's connection, on a worker thread, a
    little later under load; WebSockets taken over; a request's reads) was
    not counted, and under load it reached 48 of 48 and stopped answering.
    The held WebSockets make that deterministic."""
    name = f"small, {sockets} WebSockets held" if sockets else "small"

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
            tap.check(ask(host, port, token) == 200, f"{name}: serve answers at rest under a limit of {SMALL_LIMIT}")

            watch = PeakWatch(server.pid)
            upgraded = 0
            for _ in range(sockets):
                sock, status = ws_upgrade(host, port, token)
                held.append(sock)
                upgraded += " 101 " in status
            if sockets:
                tap.check(upgraded == sockets, f"{name}: {sockets} WebSockets upgrade", f"{upgraded} upgraded")

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
                clients = [sock for sock in pool.map(open_one, range(SMALL_CLIENTS)) if sock is not None]
            held += clients
            time.sleep(1.5)
            peak = watch.end()
            print(f"# {name}: {len(clients)} connected, server descriptors at most {peak} of {SMALL_LIMIT}")
            # Headroom for what serve opens besides connections (a request's
            # database read, a stream taken over): at the limit, accept()
            # meets EMFILE and libsoup's listener stops for good.  The peak
            # is sampled all along, not looked at once after the burst.
            tap.check(peak <= SMALL_LIMIT - 8, f"{name}: the server keeps descriptors free under a small limit",
                      f"{peak} of {SMALL_LIMIT}")
            # Answering, not only alive: a new client is served while they are
            # held (the oldest idle connection gives way; while every one is
            # still at work the new one is refused, so it asks again).
            during = None
            deadline = time.monotonic() + 60
            while during != 200 and time.monotonic() < deadline:
                during = ask(host, port, token)
                if during != 200:
                    time.sleep(0.2)
            tap.check(during == 200, f"{name}: answered while {len(clients)} clients are held", during)
            for sock in held:
                sock.close()
            held = []
            time.sleep(1.0)
            after = ask(host, port, token)
            tap.check(after == 200, f"{name}: answered once {SMALL_CLIENTS} clients are gone", after)
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
    if sys.argv[2:] == ["flood"]:
        only = Tap()
        flood_case(os.path.abspath(sys.argv[1]), only)
        print(f"1..{only.n}")
        sys.exit(1 if only.failed else 0)
    sys.exit(main())

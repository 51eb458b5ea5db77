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
            is 15 s), on a server of its own, waited for beside the others;
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
            moment the server closes it: the listening socket's accept queue
            (sampled) is seldom full, the server holds at most that address's
            share, and 127.0.0.2 is answered in each of 10 tries (libsoup's
            listener took one connection an iteration, and the listen queue
            stayed full of the flood: its SYNs dropped, p50 about 5 s);
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
import struct
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
FLOOD_TRIES = 10
FLOOD_BOUND_S = 30
# The listen queue may be found full in at most this share of at least
# FLOOD_SAMPLES samples taken during the flood.  Measured (2026-12-05, load
# average 12-20 on 2 cores, eleven runs and five): with serve's own accept
# loop 0 to 56 %, median queue 576 to 1 024 of 1 024 (busy, not drained);
# before it (1d7bd6c^, libsoup accepting one connection a main-loop turn)
# 76 to 88 %, median 1 024 to 1 025, full.
FLOOD_FULL_SHARE = 0.7
FLOOD_SAMPLES = 200
# The share of the connection cap (3/4 of the descriptors) one address may
# hold: what makes room for the others, counted, not timed.  The answers'
# bound only keeps a hung server from hanging the test (before the share,
# the other address waited 5 to 7 s here, and past 10 s on a busy machine;
# a loaded CI machine is too slow for a tighter bound to mean the server).
SLOW_SHARE = FD_LIMIT // 4 * 3 // 2
SLOW_ANSWER_S = 20
SILENT_BOUND_S = 60
# The flood's own threads run at this niceness: an attacker's CPU is its own
# machine's, and here they share the server's two cores.  At the server's
# priority they took the CPU it needed to accept, whatever it does with it:
# at load 17-20 the queue was full in up to 78 % of the samples, and a try
# from 127.0.0.2 went unanswered for 30 s (4 runs in 20).  Niced, the flood
# still keeps a server that accepts one connection a turn full (73-80 %,
# tries unanswered, 3 runs of 3 at load 26-38).
ATTACKER_NICE = 10


def limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))
    # Our own connections need descriptors too, beyond the server's limit.


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def retransmitted(sock):
    """The segments @sock sent again so far (struct tcp_info's
    tcpi_total_retrans): right after connect(), its SYN's retransmissions,
    each one a SYN the listener dropped with its accept queue full."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return struct.unpack_from("I", info, 100)[0]


def ask(host, port, token, timeout=10, source=None, syns=None):
    """One authorised request on a new connection (from the loopback
    address @source when given): its status, or the error.  Its SYN's
    retransmissions are appended to @syns when given."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout,
                                        source_address=(source, 0) if source else None)
        if syns is not None:
            syns.append(retransmitted(sock))
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


class Flood:
    """As an attacker would: @n connections from 127.0.0.1 opened as fast
    as the server lets them, each sending a byte of a request a second, and
    each the server closes opened again at once (a selector sees the close
    as it comes, not at the next byte).  Non-blocking, on @threads threads.
    The slowloris and flood cases' one connection loop."""

    def __init__(self, host, port, token, stop, n, threads=FLOOD_THREADS, nice=0):
        self.request = (f"GET /api/sessions HTTP/1.1\r\nHost: {host}:{port}\r\nX-Plandeck-Token: {token}\r\n"
                        f"X-Pad: {'a' * 200}\r\n\r\n").encode()
        self.address = (host, port)
        self.stop = stop
        self.nice = nice
        self.reopened = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(n // threads,))
                        for _ in range(threads)]
        for thread in self.threads:
            thread.start()

    def connect(self, selector):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(self.address)
        selector.register(sock, selectors.EVENT_READ, [0])
        return sock

    def run(self, n):
        if self.nice:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.nice)
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


def flood(host, port, token, stop, n=SLOW, threads=FLOOD_THREADS, nice=0):
    return Flood(host, port, token, stop, n, threads, nice)


def accepted_queue(port):
    """How many connections the kernel has set up on the socket listening
    at 127.0.0.1:@port that serve has not accepted yet (a listener's
    rx_queue in /proc/net/tcp, which lists listeners first: read up to
    it), or None when none listens there."""
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            fields = line.split()
            if fields[3] != "0A":
                continue
            if int(fields[1].split(":")[1], 16) == port:
                return int(fields[4].split(":")[1], 16)
    return None


def listen_backlog(port):
    """The most connections the listener at @port queues (ss's Send-Q of a
    LISTEN socket; without ss, net.core.somaxconn, which bounds it)."""
    try:
        out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True,
                             timeout=30).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[0] == "LISTEN":
                return int(fields[2])
    except FileNotFoundError:
        pass
    with open("/proc/sys/net/core/somaxconn") as somaxconn:
        return int(somaxconn.read())


class QueueWatch:
    """The listening socket's accept queue, sampled every 10 ms while it
    runs: how often it was full (a SYN that comes then is dropped, and its
    client waits a second or more for the retransmission)."""

    def __init__(self, port):
        self.port = port
        self.backlog = listen_backlog(port)
        self.samples = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            queued = accepted_queue(self.port)
            if queued is not None:
                self.samples.append(queued)
            self.stop.wait(0.01)

    def end(self):
        """Stops it: the samples, and how many of them found the queue full."""
        self.stop.set()
        self.thread.join()
        return self.samples, sum(1 for queued in self.samples if queued >= self.backlog)


def silent_case(agent):
    """silent, on a server of its own: a connection that sends half its
    request and then nothing.  Returns whether the server closed it, and
    after how long.  It waits for serve's own limit (15 s), so it runs in
    a thread beside the hold, slowloris and refusals cases (their server
    is another, so neither the per-address share nor the cap closes it for
    them): the run is that much shorter."""
    with tempfile.TemporaryDirectory(prefix="pd-hold-silent-") as tmp:
        server, log, host, port, _ = start_server(agent, tmp, limit_descriptors)
        try:
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
            return closed, time.monotonic() - start
        finally:
            stop_server(server, log)


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap(detail_lines=30)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    silent = concurrent.futures.ThreadPoolExecutor(max_workers=1).submit(silent_case, agent)

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

            # slowloris
            stop = threading.Event()
            rest = fd_count(server.pid)
            watch = PeakWatch(server.pid)
            attack = flood(host, port, token, stop, SLOW, SLOW_THREADS)
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
                attack.join()
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

            # silent: waited for on a server of its own, beside the cases above
            closed, waited = silent.result()
            tap.check(closed, "silent: a client that stops sending its request is closed by the server",
                      f"still open after {waited:.0f} s")
            print(f"# silent: closed after {waited:.1f} s")
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
    closes them (Flood, its threads at ATTACKER_NICE), while 127.0.0.2 asks
    FLOOD_TRIES times.  libsoup's
    listener accepted one connection per main-loop iteration, so the listen
    queue stayed full of the flood's connections and 127.0.0.2's SYNs were
    dropped behind them (p50 about 5 s, some unanswered after 60 s).
    Counted, not timed: the accept queue, sampled all along, is full in at
    most FLOOD_FULL_SHARE of the samples (serve's own accept loop takes up
    to 64 connections a dispatch: the queue, as long as the backlog, stays
    busy but is seldom full); the server's descriptors stay within the
    address's share of the connection cap; and each of 127.0.0.2's tries is
    answered at all (FLOOD_BOUND_S only keeps a hung server from hanging the
    test).  Its SYNs sent again (a SYN meeting a full queue is dropped) are
    printed, not counted: a few tries in ten, before and after alike."""
    with tempfile.TemporaryDirectory(prefix="pd-hold-flood-") as tmp:
        server, log, host, port, token = start_server(agent, tmp, limit_descriptors)
        try:
            stop = threading.Event()
            rest = fd_count(server.pid)
            attack = flood(host, port, token, stop, nice=ATTACKER_NICE)
            took = []
            syns = []
            try:
                time.sleep(3)
                queue = QueueWatch(port)
                descriptors = PeakWatch(server.pid)
                for _ in range(FLOOD_TRIES):
                    start = time.monotonic()
                    status = ask(host, port, token, FLOOD_BOUND_S, source="127.0.0.2", syns=syns)
                    took.append((status, time.monotonic() - start))
                # Counted over as many samples, however quickly the tries went.
                deadline = time.monotonic() + 60
                while len(queue.samples) < FLOOD_SAMPLES and time.monotonic() < deadline:
                    time.sleep(0.1)
            finally:
                samples, full = queue.end()
                peak = descriptors.end()
                stop.set()
                reopened = attack.join()
            backlog = queue.backlog
            queued = sorted(samples)
            print(f"# flood: {reopened} connections opened again; accept queue (of {backlog}) full in {full} of "
                  f"{len(samples)} samples, median {queued[len(queued) // 2] if queued else '-'}, "
                  f"max {queued[-1] if queued else '-'}; server descriptors {rest} at rest, at most {peak}")
            print("# flood: 127.0.0.2 answered " + " ".join(f"{status}/{t:.1f}s" for status, t in took))
            print(f"# flood: 127.0.0.2's SYNs sent again: {syns}")
            tap.check(len(samples) >= FLOOD_SAMPLES and full <= len(samples) * FLOOD_FULL_SHARE,
                      f"flood: the listen queue is full in at most {FLOOD_FULL_SHARE:.0%} of its samples while "
                      f"{SLOW} slow connections are opened as fast as they close",
                      f"full in {full} of {len(samples)} samples")
            tap.check(peak <= rest + SLOW_SHARE + 32,
                      "flood: 127.0.0.1 holds at most its share of the connection cap",
                      f"{peak - rest} held of a share of {SLOW_SHARE}")
            unanswered = [status for status, _ in took if status != 200]
            tap.check(not unanswered, f"flood: 127.0.0.2 answered in each of {FLOOD_TRIES} tries",
                      f"{len(unanswered)} unanswered within {FLOOD_BOUND_S} s: {unanswered[:3]}")
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

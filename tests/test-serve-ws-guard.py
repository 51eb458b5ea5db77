#!/usr/bin/env python3
"""The WebSocket's guard, attacked through the real `plandeck-agent serve`.

usage: test-serve-ws-guard.py AGENT

As an attacker would (a page on any site, or any local process): libsoup
hands the /ws handler every path that begins with "/ws" (its path map
matches a prefix, not a folder), but the guard judged only "/ws" exactly:
"/ws/", "/ws;x", "/ws%2f" and "/wsx" opened a WebSocket with no token and a
foreign Origin, and its prompt ran, its write approved by the same socket.

  paths     each spelling, with no token and Origin http://evil.example:
            refused (403), never 101; with the token and our Origin: only
            "/ws" itself upgrades, the others are 404
  exploit   the prompt over "/ws/" from evil.example writes nothing (the
            replayed model asks to write pwned.txt)
  no-origin the token cookie alone and no Origin (no page of ours: every
            browser sends one with a handshake and a POST) opens no
            WebSocket and changes nothing (403); the token as a header
            without an Origin (curl, the window) and the cookie with our
            Origin (odek's page) still work

Prints TAP.
"""
import base64
import http.client
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse, parse_qs

from pd_tap import Tap

SPELLINGS = ["/ws/", "/ws/x", "/ws;x", "/ws%2f", "/wsx", "/ws//", "/ws%20"]


def handshake(port, path, headers):
    """A WebSocket handshake: (socket, status line, bytes after the head)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
    for name, value in headers.items():
        request += f"{name}: {value}\r\n"
    sock.sendall((request + "\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return sock, head.split(b"\r\n", 1)[0].decode("latin1"), rest


def send_text(sock, text):
    payload = text.encode()
    mask = os.urandom(4)
    if len(payload) < 126:
        head = struct.pack("!BB", 0x81, 0x80 | len(payload))
    else:
        head = struct.pack("!BBH", 0x81, 0x80 | 126, len(payload))
    sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def read_text(sock, buffer):
    """The next text frame (server frames are not masked): (text, rest)."""
    def need(n):
        nonlocal buffer
        while len(buffer) < n:
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            buffer += chunk
    while True:
        need(2)
        opcode, length, offset = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
        if length == 126:
            need(4)
            length, offset = struct.unpack("!H", buffer[2:4])[0], 4
        elif length == 127:
            need(10)
            length, offset = struct.unpack("!Q", buffer[2:10])[0], 10
        need(offset + length)
        payload, buffer = buffer[offset:offset + length], buffer[offset + length:]
        if opcode == 8:
            raise EOFError("closed by the server")
        if opcode == 1:
            return payload.decode(), buffer


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap(detail_lines=30)
    with tempfile.TemporaryDirectory(prefix="pd-ws-guard-") as tmp:
        env = dict(os.environ)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HOME"):
            env[var] = tmp
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        replay = os.path.join(tmp, "write.json")
        with open(replay, "w") as f:
            json.dump({"label": "write", "turns": [
                {"content": "writing", "tool_calls": [{"name": "write_file",
                                                       "arguments": {"path": "pwned.txt", "content": "x"}}]},
                {"content": "done"}]}, f)
        log = open(os.path.join(tmp, "serve.log"), "w")
        server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"), "--listen",
                                   "127.0.0.1:0", "--provider", "replay", "--replay", replay, "-C", work],
                                  env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            url = urlparse(server.stdout.readline().strip())
            token = parse_qs(url.query).get("token", [""])[0]
            port = url.port
            evil = {"Origin": "http://evil.example"}
            ours = {"Origin": f"http://127.0.0.1:{port}", "Cookie": f"odek_ws_token={token}"}

            for path in ["/ws"] + SPELLINGS:
                sock, status, _ = handshake(port, path, evil)
                sock.close()
                tap.check(" 403 " in status, f"paths: {path} with no token from evil.example is refused", status)
            for path in SPELLINGS:
                sock, status, _ = handshake(port, path, ours)
                sock.close()
                tap.check(" 404 " in status, f"paths: {path} with the token is no WebSocket (404)", status)
            sock, status, _ = handshake(port, "/ws", ours)
            sock.close()
            tap.check(" 101 " in status, "paths: /ws with the token and our Origin upgrades", status)

            # no-origin: the cookie alone, as a forged request brings it.
            cookie_only = {"Cookie": f"odek_ws_token={token}"}
            sock, status, _ = handshake(port, "/ws", cookie_only)
            sock.close()
            tap.check(" 403 " in status, "no-origin: /ws with the cookie alone and no Origin is refused", status)

            def post(headers):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("POST", "/api/cancel?session_id=20260101-00000000000000000000000000000000",
                             body="{}", headers={"Content-Type": "application/json", **headers})
                response = conn.getresponse()
                body = response.read().decode(errors="replace")
                conn.close()
                return response.status, body

            status, body = post(cookie_only)
            tap.check(status == 403 and "Origin required" in body,
                      "no-origin: a POST with the cookie alone and no Origin is refused", f"{status} {body}")
            status, body = post(ours)
            tap.check(status != 403, "no-origin: the same POST with the cookie and our Origin passes the guard",
                      f"{status} {body}")
            status, body = post({"X-Plandeck-Token": token})
            tap.check(status != 403, "no-origin: the same POST with the token header and no Origin passes the guard",
                      f"{status} {body}")

            # exploit: what the page would do next, had the handshake passed.
            sock, status, buffer = handshake(port, "/ws/", evil)
            seen = []
            if " 101 " in status:
                send_text(sock, json.dumps({"type": "prompt", "content": "write it"}))
                deadline = time.monotonic() + 30
                try:
                    while time.monotonic() < deadline:
                        text, buffer = read_text(sock, buffer)
                        message = json.loads(text)
                        seen.append(message.get("type"))
                        if message.get("type") == "approval_request":
                            send_text(sock, json.dumps({"type": "approval_response", "id": message.get("id"),
                                                        "action": "approve"}))
                        if message.get("type") in ("done", "error"):
                            break
                except (EOFError, OSError):
                    pass
            sock.close()
            time.sleep(0.2)
            tap.check(not os.path.exists(os.path.join(work, "pwned.txt")),
                      "exploit: a prompt over /ws/ from evil.example writes nothing", f"{status}; frames {seen}")
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()

    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The URL `plandeck-agent serve` prints works, wherever it listens.

usage: test-serve-listen.py AGENT

Tried as an attacker and as a new user would: `--listen 127.0.0.2:P`
printed a URL that serve itself refused ("Host not allowed"), and
`--listen 0.0.0.0:P` printed http://0.0.0.0:P/ and said nothing of why
another machine's requests were refused.  Checks, on the real binary:

  - each printed URL answers /api/health with its token (200);
  - on 127.0.0.2 another spelling of it (127.2) is still refused;
  - on every address (0.0.0.0) the URL names 127.0.0.1, a request by
    another of its addresses is refused, and stderr says --allow-host;
    with --allow-host given, that line is not printed.

Prints TAP.
"""
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from urllib.parse import urlparse, parse_qs


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        self.n += 1
        print(("ok" if ok else "not ok") + f" {self.n} {what}")
        if not ok:
            self.failed += 1
            print(f"# {detail}")


def health(url, token, host=None):
    parsed = urlparse(url)
    request = urllib.request.Request(f"http://{parsed.hostname}:{parsed.port}/api/health",
                                     headers={"X-Plandeck-Token": token})
    if host is not None:
        request.add_header("Host", host)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def start(agent, tmp, listen, extra=()):
    server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"), "--listen", listen,
                               *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
    url = server.stdout.readline().strip()
    token = parse_qs(urlparse(url).query).get("token", [""])[0]
    return server, url, token


def stop(server):
    server.terminate()
    _, err = server.communicate(timeout=30)
    return err


def main():
    agent = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory() as tmp:
        server, url, token = start(agent, tmp, "127.0.0.2:0")
        try:
            port = urlparse(url).port
            tap.check(url.startswith("http://127.0.0.2:"), "--listen 127.0.0.2: the URL names it", url)
            tap.check(health(url, token) == 200, "--listen 127.0.0.2: its printed URL answers")
            tap.check(health(url, token, f"127.2:{port}") == 403, "--listen 127.0.0.2: Host 127.2 is refused")
            tap.check(health(url, token, f"evil.example:{port}") == 403, "--listen 127.0.0.2: a foreign Host is refused")
        finally:
            stop(server)

        server, url, token = start(agent, tmp, "0.0.0.0:0")
        try:
            port = urlparse(url).port
            tap.check(url.startswith("http://127.0.0.1:"), "--listen 0.0.0.0: the URL names 127.0.0.1", url)
            tap.check(health(url, token) == 200, "--listen 0.0.0.0: its printed URL answers")
            tap.check(health(f"http://127.0.0.2:{port}/", token) == 403,
                      "--listen 0.0.0.0: reached at another of its addresses, refused")
        finally:
            err = stop(server)
        tap.check("--allow-host" in err, "--listen 0.0.0.0: stderr says --allow-host", err)

        server, url, token = start(agent, tmp, "0.0.0.0:0", ("--allow-host", "127.0.0.2"))
        try:
            port = urlparse(url).port
            tap.check(health(f"http://127.0.0.2:{port}/", token) == 200,
                      "--listen 0.0.0.0 --allow-host 127.0.0.2: reached there, answered")
        finally:
            err = stop(server)
        tap.check("Other machines" not in err, "with --allow-host, no such line", err)
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())

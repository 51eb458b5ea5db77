#!/usr/bin/env python3
"""The URL `plandeck-agent serve` prints works, wherever it listens.

usage: test-serve-listen.py AGENT

Tried as an attacker and as a new user would: `--listen 127.0.0.2:P`
printed a URL that serve itself refused ("Host not allowed"), and
`--listen 0.0.0.0:P` printed http://0.0.0.0:P/ and said nothing of why
another machine's requests were refused.  Checks, on the real binary:

  - each printed URL answers /api/health with its token (200);
  - / is a small HTML page and stderr a line, both naming
    `plandeck --remote URL` (the printed URL in a browser showed a bare
    line, tried as a new user would, nu15);
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


def front_page(url):
    """GET / without the token: (status, content type, body)."""
    parsed = urlparse(url)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://{parsed.hostname}:{parsed.port}/", timeout=30) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), answer.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, "", ""


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
            # The printed URL in a browser: a bare line of text said nothing
            # of Plandeck (tried as a new user would, nu15).
            status, kind, body = front_page(url)
            tap.check(status == 200 and kind.startswith("text/html") and "plandeck --remote URL" in body
                      and token not in body, "/ is a small HTML page naming plandeck --remote, without the token",
                      f"{status} {kind} {body!r}")
        finally:
            err = stop(server)
        tap.check("Open it in Plandeck: plandeck --remote URL" in err and token not in err,
                  "stderr names plandeck --remote, not the token", err)

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

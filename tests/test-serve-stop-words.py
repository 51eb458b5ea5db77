#!/usr/bin/env python3
"""What `plandeck-agent serve` says as Ctrl+C stops it.

usage: test-serve-stop-words.py AGENT

Tried as a new user would (nu15 #17, nu19 #12): Ctrl+C on a serve that
had run nothing printed "Stopping: cancelling active runs…", as if a run
were being cut off.  With no run, it says "Stopping." and nothing of runs;
it still exits 0.  (A run in flight is cancelled and said so:
test-server-stream.c stops a server with one.)

Prints TAP.
"""
import os
import signal
import subprocess
import sys
import tempfile


def main():
    agent = sys.argv[1]
    n = 0
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
        server = subprocess.Popen([agent, "serve", "--db", os.path.join(tmp, "sessions.db"),
                                   "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=tmp, env=env)
        url = server.stdout.readline().strip()
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
        checks = [
            (url.startswith("http://127.0.0.1:"), "serve printed its URL", url),
            (server.returncode == 0, "serve exits 0 on Ctrl+C", str(server.returncode)),
            ("cancelling active runs" not in err, "no run: nothing said of cancelling runs", err),
            (err.rstrip().endswith("Stopping."), "it says it stops", err),
        ]
        for ok, what, detail in checks:
            n += 1
            print(("ok" if ok else "not ok") + f" {n} {what}")
            if not ok:
                failed += 1
                for line in detail.splitlines():
                    print(f"# {line}")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

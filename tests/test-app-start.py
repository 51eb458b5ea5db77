#!/usr/bin/env python3
"""plandeck started as a new user starts it from the build tree: without
its settings schema it says what to do and exits 1, instead of a GLib
error and an abort (SIGTRAP).  Run on a display (xvfb-run), where the
window would have opened."""
import os
import subprocess
import sys
import tempfile


def main():
    app = os.path.abspath(sys.argv[1])
    n = 0
    failed = False

    def check(ok, name, detail=""):
        nonlocal n, failed
        n += 1
        print(("ok" if ok else "not ok") + f" {n} {name}")
        if not ok:
            failed = True
            for line in str(detail).splitlines():
                print(f"# {line}")

    with tempfile.TemporaryDirectory(prefix="pd-test-app-start-") as tmp:
        env = dict(os.environ)
        # No schema anywhere: not the build tree's, not an installed one.
        env["GSETTINGS_SCHEMA_DIR"] = tmp
        env["XDG_DATA_DIRS"] = tmp
        env["XDG_DATA_HOME"] = tmp
        env["LC_ALL"] = "C.UTF-8"
        env.pop("LANGUAGE", None)
        proc = subprocess.run([app, "--db", os.path.join(tmp, "s.db")], env=env, capture_output=True, text=True,
                              timeout=60)
        detail = f"exit {proc.returncode}\nstderr:\n{proc.stderr}"
        check(proc.returncode == 1, "without its schema plandeck exits 1, not by a signal", detail)
        check("the settings schema io.github.plandeck.Plandeck is not installed" in proc.stderr
              and "build-aux/dev.sh run" in proc.stderr and "GSETTINGS_SCHEMA_DIR" in proc.stderr
              and "meson install" in proc.stderr and "GLib-GIO-ERROR" not in proc.stderr,
              "and says how to start it", detail)
        check(not os.path.exists(os.path.join(tmp, "s.db")), "and creates no database", os.listdir(tmp))
        proc = subprocess.run([app, "--version"], env=env, capture_output=True, text=True, timeout=60)
        check(proc.returncode == 0 and proc.stdout.startswith("plandeck "), "--version needs no schema",
              f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}")

    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

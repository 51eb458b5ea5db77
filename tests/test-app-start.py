#!/usr/bin/env python3
"""plandeck started as a new user starts it from the build tree: without
its settings schema it says what to do and exits 1, instead of a GLib
error and an abort (SIGTRAP).  Run on a display (xvfb-run), where the
window would have opened."""
import os
import subprocess
import sys
import tempfile
import time


# Every wait is a hang detector, not a timing (tests/ui/pd-test-ui.h): far
# above what a loaded machine takes, times PD_TEST_WAIT_SCALE.
WAIT_S = 90 * float(os.environ.get("PD_TEST_WAIT_SCALE") or 1)


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
                              timeout=WAIT_S)
        detail = f"exit {proc.returncode}\nstderr:\n{proc.stderr}"
        check(proc.returncode == 1, "without its schema plandeck exits 1, not by a signal", detail)
        check("the settings schema io.github.plandeck.Plandeck is not installed" in proc.stderr
              and "build-aux/dev.sh run" in proc.stderr and "GSETTINGS_SCHEMA_DIR" in proc.stderr
              and "meson install" in proc.stderr and "GLib-GIO-ERROR" not in proc.stderr,
              "and says how to start it", detail)
        check(not os.path.exists(os.path.join(tmp, "s.db")), "and creates no database", os.listdir(tmp))
        proc = subprocess.run([app, "--version"], env=env, capture_output=True, text=True, timeout=WAIT_S)
        check(proc.returncode == 0 and proc.stdout.startswith("plandeck "), "--version needs no schema",
              f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}")

    # The token in a --remote URL is not left in the arguments every local
    # user can read (ps -eo args): it stayed there while the window ran.
    schema_dir = sys.argv[2] if len(sys.argv) > 2 else None
    if schema_dir and os.path.exists(os.path.join(schema_dir, "gschemas.compiled")):
        with tempfile.TemporaryDirectory(prefix="pd-test-app-start-") as tmp:
            env = dict(os.environ)
            env.update({"GSETTINGS_SCHEMA_DIR": schema_dir, "GSETTINGS_BACKEND": "memory",
                        "XDG_CONFIG_HOME": tmp, "XDG_DATA_HOME": tmp, "XDG_CACHE_HOME": tmp,
                        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/plandeck-tests-have-no-bus",
                        "LC_ALL": "C.UTF-8"})
            secret = "pd7test0token0in0argv"
            proc = subprocess.Popen([app, "--remote", f"http://127.0.0.1:1/?token={secret}"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            seen = None
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    with open(f"/proc/{proc.pid}/cmdline", "rb") as f:
                        seen = f.read().decode(errors="replace").replace("\0", " ")
                except OSError:
                    seen = None
                if seen and secret not in seen and "token=" in seen:
                    break
                time.sleep(0.1)
            alive = proc.poll() is None
            proc.terminate()
            try:
                _, err = proc.communicate(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            check(alive and seen is not None and secret not in seen, "the --remote token is not in /proc/PID/cmdline",
                  f"alive {alive}\ncmdline: {seen}\nstderr:\n{err}")
            # A URL refused at the start is printed without its token
            # (tried as an attacker would: a typo printed it whole, and
            # GLib's own words about the URL quote it too).
            for bad in [f"ftp://127.0.0.1:1/?token={secret}", f"http://[::1/?token={secret}",
                        f"htp://u:{secret}@h/", f"http://[::1/#token={secret}"]:
                proc = subprocess.run([app, "--remote", bad], env=env, capture_output=True, text=True,
                                      timeout=WAIT_S)
                check(proc.returncode == 64 and "plandeck:" in proc.stderr and secret not in proc.stderr,
                      f"a refused --remote URL is printed without its token ({bad.split(':')[0]})",
                      f"exit {proc.returncode}\nstderr:\n{proc.stderr}")
    else:
        print("# no compiled schema given: the --remote token check is skipped")

    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

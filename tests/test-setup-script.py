#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""build-aux/setup.sh: its modes and the packages each installs.

usage: test-setup-script.py SOURCE_DIR

Runs the real script through bash, only in its paths that install
nothing: --list (the mode's packages) and --dry-run (what is missing, read
from dpkg, and not installed), and with arguments it refuses.  No network,
no apt.  `run` installs what building and running takes and none of the
test stack (a browser, node, clang, valgrind: once, running the app
installed them too; tried as a new user would).  Prints TAP.
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

# What `run` must install: the build, the toolkit, a display for the GUI.
RUN_NEEDS = {"meson", "ninja-build", "pkg-config", "gettext", "libgtk-4-dev", "libadwaita-1-dev",
             "libjson-glib-dev", "libsoup-3.0-dev", "libsqlite3-dev", "libsecret-1-dev", "xvfb"}
# What only the tests need: never installed by `run`.
TEST_ONLY = {"valgrind", "clang", "libclang-rt-dev", "chromium", "nodejs", "npm", "xdotool",
             "flatpak-builder", "zsh", "groff-base", "desktop-file-utils", "appstream"}
PACKAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9+.-]+$")

n = 0
failed = False


def check(ok, name, detail=""):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    if not ok:
        failed = True
        if detail:
            for line in str(detail).splitlines():
                print("# " + line)


def run(script, *args):
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)


def listed(script, *args):
    result = run(script, "--list", *args)
    check(result.returncode == 0 and result.stderr == "",
          "--list %s exits 0, silent on stderr" % " ".join(args or ("(default)",)),
          "exit %d, stderr %r" % (result.returncode, result.stderr))
    return result.stdout.split("\n")[:-1] if result.stdout.endswith("\n") else result.stdout.split("\n")


def main():
    script = Path(sys.argv[1]) / "build-aux" / "setup.sh"

    run_packages = listed(script, "run")
    test_packages = listed(script, "test")
    default_packages = listed(script)

    bad = [p for p in run_packages + test_packages if not PACKAGE_NAME.match(p)]
    check(run_packages and not bad, "each line a package name", bad)
    check(len(set(test_packages)) == len(test_packages), "no package listed twice in test mode",
          sorted({p for p in test_packages if test_packages.count(p) > 1}))
    check(default_packages == test_packages, "no mode is test mode")
    check(RUN_NEEDS <= set(run_packages), "run installs the build, the toolkit and a display",
          sorted(RUN_NEEDS - set(run_packages)))
    check(not TEST_ONLY & set(run_packages), "run installs none of the test stack",
          sorted(TEST_ONLY & set(run_packages)))
    check(set(run_packages) < set(test_packages) and TEST_ONLY <= set(test_packages),
          "test installs run's packages and the test stack", sorted(TEST_ONLY - set(test_packages)))

    for args in (["bogus"], ["run", "test"], ["--list", "bogus"], ["--dry-run", "run", "extra"]):
        result = run(script, *args)
        check(result.returncode == 2 and result.stdout == "" and result.stderr.startswith("setup: "),
              "refuses %s with exit 2 and a reason" % " ".join(args),
              "exit %d, stdout %r, stderr %r" % (result.returncode, result.stdout, result.stderr))

    if shutil.which("dpkg-query") is None:
        print("ok %d # SKIP --dry-run: no dpkg-query (not Debian)" % (n + 1))
        print("1..%d" % (n + 1))
        return 1 if failed else 0

    for mode, packages in (("run", run_packages), ("test", test_packages)):
        result = run(script, "--dry-run", mode)
        out = result.stdout.strip()
        if out.startswith("setup: would install "):
            missing = out[len("setup: would install "):].split()
            ok = bool(missing) and set(missing) <= set(packages)
        else:
            ok = out == "setup: all %d packages are installed" % len(packages)
        check(result.returncode == 0 and ok and "\n" not in out,
              "--dry-run %s says what it would install, or that all %d are installed" % (mode, len(packages)),
              "exit %d, stdout %r, stderr %r" % (result.returncode, result.stdout, result.stderr))

    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

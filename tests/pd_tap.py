# SPDX-License-Identifier: GPL-3.0-or-later
"""TAP output shared by the project's Python tests.

Each test script sits beside this module, so `from pd_tap import Tap`
finds it through the script's own folder on sys.path.
"""

import sys


class Tap:
    """Numbers the checks, prints `ok N what` / `not ok N what` and, for a
    failed check, the first lines of its detail as TAP comments."""

    def __init__(self, detail_lines=40, echo_stderr=False):
        self.n = 0
        self.failed = 0
        self.detail_lines = detail_lines
        # A test runner's console shows stderr, not stdout: the load tests
        # echo a failure's detail there too.
        self.echo_stderr = echo_stderr

    def check(self, ok, what, detail=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} {what}", flush=True)
        if not ok:
            self.failed += 1
            # A detail can be a whole process's output: cut it before
            # splitting so a huge one costs nothing.
            for line in str(detail)[:4000].splitlines()[:self.detail_lines]:
                print(f"# {line}")
                if self.echo_stderr:
                    print(f"# {line}", file=sys.stderr)
        return ok


def detail(proc):
    """What a finished subprocess said, for a failed check's detail."""
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"

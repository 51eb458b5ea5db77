#!/usr/bin/env python3
"""Runs the plan-engine conformance scenarios: the shared sample set and the
project's own (tests/conformance), with the shared runner.

usage: run-conformance.py SHARED_CONFORMANCE_DIR AGENT OWN_SCENARIOS_DIR

Prints TAP-free plain output and a closing 'N passed, M failed' line per set;
exits non-zero when any scenario fails or the shared runner is missing.
"""
import os
import subprocess
import sys


def main():
    shared, agent, own = sys.argv[1:4]
    runner = os.path.join(shared, "run-plan-conformance")
    if not os.path.exists(runner):
        print(f"conformance runner not found at {runner}; pass -Dconformance_dir=PATH", file=sys.stderr)
        return 1
    status = 0
    for scenarios in (os.path.join(shared, "plan"), own):
        print(f"# scenarios in {scenarios}", flush=True)
        result = subprocess.run([sys.executable, runner, agent, scenarios])
        status |= result.returncode
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())

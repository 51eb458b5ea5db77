#!/usr/bin/env python3
"""Runs the plan-engine conformance scenarios through `plandeck-agent plan`.

usage: run-conformance.py AGENT OWN_SCENARIOS_DIR [SHARED_CONFORMANCE_DIR]

The project's own scenarios (tests/conformance) always run, one TAP test
each, with this runner.  When SHARED_CONFORMANCE_DIR (../shared/conformance
beside the source tree, or -Dconformance_dir=PATH) holds the shared sample
set and its runner, that runner also runs the shared scenarios and, as a
cross-check of this runner's reading of the format, ours; when it is absent
that part is one SKIP with the reason.

A scenario is a JSON object, either
  {"name", "args": [extra arguments], "steps": [{"in": LINE, "expect": MATCH}, ...]}
for `plan apply` (one output line per input line, each matched against its
step), or
  {"name", "args", "parse": TEXT, "expect_exit": 0|1, "expect": MATCH}
for `plan parse` (the exit status must be zero or not as asked; on zero the
printed state is matched).
MATCH is partial: an object matches when each key it names matches (a key
whose value is {"$absent": true} must be missing); an array matches
element by element and has the same length; {"$startswith": S},
{"$contains": S}, {"$not_contains": S} and {"$len_le": N} test a string
(or, for $len_le, anything with a length); any other value must be equal,
and a boolean is never equal to a number.
"""
import json
import os
import subprocess
import sys

# Generous: the sanitizer build runs the same scenarios several times slower.
TIMEOUT = 120


class Mismatch(Exception):
    pass


def describe(value):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 240 else text[:240] + "…"


def is_operator(expected):
    return isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)).startswith("$")


def match_operator(expected, got, where):
    (op, arg), = expected.items()
    if op == "$absent":
        # Only meaningful as an object member; handled there.  Here: null.
        ok = got is None
    elif op == "$startswith":
        ok = isinstance(got, str) and got.startswith(arg)
    elif op == "$contains":
        ok = isinstance(got, str) and arg in got
    elif op == "$not_contains":
        ok = isinstance(got, str) and arg not in got
    elif op == "$len_le":
        ok = hasattr(got, "__len__") and len(got) <= arg
    else:
        raise Mismatch(f"{where}: the scenario uses an unknown operator {op}")
    if not ok:
        raise Mismatch(f"{where}: {op} {describe(arg)} does not hold for {describe(got)}")


def same_value(expected, got):
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    return expected == got


def match(expected, got, where="$"):
    if is_operator(expected):
        match_operator(expected, got, where)
    elif isinstance(expected, dict):
        if not isinstance(got, dict):
            raise Mismatch(f"{where}: wanted an object, got {describe(got)}")
        for key, want in expected.items():
            if isinstance(want, dict) and want.get("$absent") is True and len(want) == 1:
                if key in got:
                    raise Mismatch(f"{where}.{key}: wanted no such member, got {describe(got[key])}")
                continue
            if key not in got:
                raise Mismatch(f"{where}.{key}: missing from {describe(got)}")
            match(want, got[key], f"{where}.{key}")
    elif isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            raise Mismatch(f"{where}: wanted an array of {len(expected)}, got {describe(got)}")
        for i, (want, have) in enumerate(zip(expected, got)):
            match(want, have, f"{where}[{i}]")
    elif not same_value(expected, got):
        raise Mismatch(f"{where}: wanted {describe(expected)}, got {describe(got)}")


def run_apply(agent, scenario):
    steps = scenario["steps"]
    stdin = "".join(json.dumps(step["in"], ensure_ascii=False) + "\n" for step in steps)
    proc = subprocess.run([agent, "plan", "apply", *scenario.get("args", [])], input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT)
    answers = [line for line in proc.stdout.split("\n") if line.strip()]
    if len(answers) != len(steps):
        raise Mismatch(f"{len(steps)} input lines gave {len(answers)} answers "
                       f"(exit status {proc.returncode}, stderr: {proc.stderr.strip()[:300]!r})")
    for i, (step, answer) in enumerate(zip(steps, answers)):
        try:
            got = json.loads(answer)
        except ValueError:
            raise Mismatch(f"answer {i + 1} is not JSON: {answer[:240]!r}")
        match(step.get("expect", {}), got, f"answer {i + 1}")


def run_parse(agent, scenario):
    proc = subprocess.run([agent, "plan", "parse", *scenario.get("args", [])], input=scenario["parse"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    want_success = scenario.get("expect_exit", 0) == 0
    if (proc.returncode == 0) != want_success:
        raise Mismatch(f"exit status {proc.returncode}, wanted {'0' if want_success else 'non-zero'} "
                       f"(stderr: {proc.stderr.strip()[:300]!r})")
    if want_success and "expect" in scenario:
        try:
            got = json.loads(proc.stdout)
        except ValueError:
            raise Mismatch(f"the output is not JSON: {proc.stdout[:240]!r}")
        match(scenario["expect"], got)


def run_scenario(agent, path):
    """(name, None) when it passes, (name, reason) when it does not."""
    try:
        with open(path, encoding="utf-8") as f:
            scenario = json.load(f)
        name = scenario.get("name") or os.path.basename(path)[:-len(".json")]
        if "parse" in scenario:
            run_parse(agent, scenario)
        else:
            run_apply(agent, scenario)
    except Mismatch as e:
        return os.path.basename(path)[:-len(".json")], str(e)
    except (OSError, ValueError, KeyError, TypeError, subprocess.TimeoutExpired) as e:
        return os.path.basename(path)[:-len(".json")], f"{type(e).__name__}: {e}"
    return name, None


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        print("TAP version 13", flush=True)

    def result(self, ok, text, directive=""):
        self.n += 1
        if not ok:
            self.failed += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} - {text}{directive}", flush=True)

    def note(self, text):
        for line in text.splitlines():
            print(f"# {line}", flush=True)

    def end(self):
        print(f"1..{self.n}", flush=True)
        return 1 if self.failed else 0


def scenario_files(folder):
    return sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".json"))


def run_shared_runner(tap, runner, agent, folder, label):
    """The shared runner prints 'ok   NAME' or 'FAIL NAME: reason' per scenario."""
    proc = subprocess.run([sys.executable, runner, agent, folder], capture_output=True, text=True,
                          timeout=TIMEOUT * 10)
    seen = failed = 0
    for line in proc.stdout.splitlines():
        if line.startswith("ok "):
            seen += 1
            tap.result(True, f"{label}: {line[3:].strip()}")
        elif line.startswith("FAIL "):
            seen += 1
            failed += 1
            tap.result(False, f"{label}: {line[5:].strip()}")
    # A runner that fails without naming a failed scenario failed as a whole.
    if seen == 0 or (proc.returncode != 0 and failed == 0):
        tap.result(False, f"{label}: the shared runner exited with status {proc.returncode}: "
                          f"{(proc.stderr or proc.stdout).strip()[:300]!r}")


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    agent, own = sys.argv[1], sys.argv[2]
    shared = sys.argv[3] if len(sys.argv) == 4 else ""
    tap = Tap()

    files = scenario_files(own)
    if not files:
        tap.result(False, f"no scenarios in {own}")
    tap.note(f"the project's scenarios in {own}")
    for path in files:
        name, reason = run_scenario(agent, path)
        tap.result(reason is None, name)
        if reason:
            tap.note(reason)

    runner = os.path.join(shared, "run-plan-conformance") if shared else ""
    shared_plan = os.path.join(shared, "plan") if shared else ""
    if runner and os.path.isfile(runner) and os.path.isdir(shared_plan):
        tap.note(f"the shared sample set in {shared_plan}, with the shared runner")
        run_shared_runner(tap, runner, agent, shared_plan, "shared")
        tap.note("the project's scenarios again, with the shared runner (does it read them as this one does?)")
        run_shared_runner(tap, runner, agent, own, "shared runner, own")
    else:
        where = shared or "../shared/conformance"
        tap.result(True, "the shared conformance sample set",
                   f" # SKIP {where} is not here (it lies beside the source tree only in the development setup; "
                   f"pass -Dconformance_dir=PATH to run it). The project's own scenarios above ran.")
    return tap.end()


if __name__ == "__main__":
    sys.exit(main())

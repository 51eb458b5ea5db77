#!/usr/bin/env bash
# Developer entry point for Plandeck.
#
#   bash build-aux/dev.sh run [ARGS...]   install what it needs to build and run, build the
#                                         app, start plandeck
#   bash build-aux/dev.sh test            install what the tests need too, build, run every test
#                                         (the core suite once, under ASan+UBSan), then each
#                                         fuzz target for 10 s
#   bash build-aux/dev.sh valgrind        the core C tests under valgrind (before a core
#                                         change lands)
#
# PLANDECK_PROOFS=0 skips the proofs (for a quick local run; the plain build runs the core suite);
# CI runs them.  tests/README.md describes each.
# Works from a fresh Debian 12 machine (as root, or with sudo for the package step)
# and can be run again at any time: each step only does what is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
builddir="$root/_build"

# Each stage's wall-clock and CPU seconds, for the log: where a run's time
# goes.  The CPU is what this shell's finished children used (from
# /proc, read without a fork: a subshell would count from zero).
clock_ticks="$(getconf CLK_TCK 2>/dev/null || echo 100)"
children_cpu() {
  local stat fields
  read -r stat < "/proc/$$/stat"
  read -r -a fields <<< "${stat##*) }"
  # After the name: state is field 0, so cutime and cstime are 13 and 14.
  echo $(( (fields[13] + fields[14]) / clock_ticks ))
}
stage_begin() {
  stage_name="$1"
  stage_wall0=$SECONDS
  stage_cpu0=$(children_cpu)
}
stage_end() {
  echo "dev.sh: $stage_name: $((SECONDS - stage_wall0)) s, CPU $(( $(children_cpu) - stage_cpu0 )) s"
}

usage() {
  sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
}

# prepare run|test [with-proofs]: the packages for that, then the build
# (for run, the app, its CLI and its settings schema only; for test,
# everything, and with-proofs starts the sanitizer build beside it).
prepare() {
  stage_begin "setup (packages)"
  bash "$here/setup.sh" "$1"
  stage_end

  # CI's run: the sanitizer build and its tests start now, beside the
  # plain build and its tests (see proofs_start).
  if [ "$1" = test ] && [ "${2:-}" = with-proofs ]; then
    proofs_start
  fi

  stage_begin "build"
  if [ ! -f "$builddir/meson-private/coredata.dat" ]; then
    meson setup "$builddir" "$root"
  fi
  # meson compile reconfigures by itself when a meson.build changed.
  if [ "$1" = run ]; then
    meson compile -C "$builddir" plandeck plandeck-agent gsettings-compile-data
  else
    meson compile -C "$builddir"
  fi
  stage_end
}

run() {
  local cmd=("$builddir/app/plandeck" "$@")

  # Run uninstalled: the GSettings schema is compiled into the build tree.
  export GSETTINGS_SCHEMA_DIR="$builddir/data"

  if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v dbus-run-session >/dev/null; then
    cmd=(dbus-run-session -- "${cmd[@]}")
  fi

  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "dev.sh: no display found (DISPLAY and WAYLAND_DISPLAY are unset);" \
         "starting plandeck on a virtual X display with xvfb-run. Stop it with Ctrl+C." >&2
    cmd=(xvfb-run -a -s "-screen 0 1280x800x24" "${cmd[@]}")
  fi

  exec "${cmd[@]}"
}

# One closing line per test run that any reader of the log understands.
summary() {
  python3 - "$1" "$2" <<'PY' || true
import json, sys
passed = failed = skipped = 0
failures = []
for line in open(sys.argv[2]):
    result = json.loads(line).get("result")
    if result in ("OK", "EXPECTEDFAIL"): passed += 1
    elif result == "SKIP": skipped += 1
    else:
        failed += 1
        failures.append(json.loads(line))
print(f"{sys.argv[1]}: {passed} passed, {failed} failed, {skipped} skipped")
# Name each failure and show the end of what it printed: the log file
# itself stays on the machine that ran it, and CI keeps only this output.
for f in failures:
    print(f"{sys.argv[1]}: FAILED {f.get('name')} ({f.get('result')}, "
          f"exit {f.get('returncode')}, {f.get('duration', 0):.1f} s)")
    tail = (f.get("stdout") or "").splitlines()[-60:]
    for t in tail:
        print(f"  | {t}")
PY
}

# The proofs of tests/README.md that need their own build: the core suite
# under AddressSanitizer + UndefinedBehaviorSanitizer, and each fuzz target
# for 10 s.  One build serves both: _build-fuzz (clang, -Dfuzzing=true,
# -Dgui=false) compiles the core with ASan + UBSan and libFuzzer's
# coverage, which the test programs link without libFuzzer (it was a
# second sanitizer build of its own, the longest stage after the tests).
# Any UB aborts (-fno-sanitize-recover), a double cast to an integer it
# does not fit included (clang's -fsanitize=undefined has that check).
fuzzdir="$root/_build-fuzz"
proofs_configure() {
  if [ ! -f "$fuzzdir/meson-private/coredata.dat" ]; then
    CC=clang meson setup "$fuzzdir" "$root" -Dfuzzing=true -Dgui=false >/dev/null
  fi
}

# The sanitizer build and its core tests, started beside the plain build
# and its tests at the lowest CPU and I/O priority.  The plain build's
# links and those tests leave one core of two idle much of the time (many
# tests wait on servers, timers and the X server), so this chain runs in
# that idle time; at nice 19 it gets a sliver of a core whenever the
# others want both, which leaves the plain tests' timing as it was.  Its
# output goes to a log, shown if it fails; its stages' times are written
# there too and printed when it is waited for.
proofs_start() {
  local log="$root/_build-fuzz.log"
  # A process group of its own (job control on for the one job), ended
  # with this script if the plain build or a test run stops it early.  Not
  # a session of its own (setsid): with the kernel's autogroups a new
  # session is a new group scheduled as an equal of this one, whatever its
  # nice value, and the build took half the CPU from the plain build.
  set -m
  (
    exec nice -n 19 ionice -c 3 bash "$here/dev.sh" proofs-chain
  ) >"$log" 2>&1 &
  proofs_pid=$!
  set +m
  trap 'kill -- -"$proofs_pid" 2>/dev/null || true' EXIT
}

# The sanitizer build, then the core suite in it (ASan + UBSan).  Its
# timeouts are doubled twice over: the sanitizers slow a test about two
# times, and at nice 19 beside the plain tests it may wait for a core.
proofs_chain() {
  stage_begin "asan+ubsan build (with the fuzz targets)"
  proofs_configure
  meson compile -C "$fuzzdir" >/dev/null
  stage_end
  stage_begin "asan+ubsan tests"
  local ok=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    meson test -C "$fuzzdir" --suite core --print-errorlogs --timeout-multiplier 4 \
    --logbase asan >/dev/null || ok=1
  summary "asan+ubsan (core)" "$fuzzdir/meson-logs/asan.json"
  stage_end
  return "$ok"
}

proofs() {
  local ok=0

  stage_begin "asan+ubsan build and tests (what was left of them)"
  wait "$proofs_pid" || ok=1
  stage_end
  # What the chain did beside the plain run, or why it failed.
  if [ "$ok" = 0 ]; then
    grep -E '^(dev\.sh: asan|asan\+ubsan)' "$root/_build-fuzz.log" || true
  else
    cat "$root/_build-fuzz.log" >&2
    return 1
  fi

  stage_begin "fuzz"
  bash "$here/fuzz.sh" all "${PLANDECK_FUZZ_SECONDS:-10}" || ok=1
  stage_end

  return "$ok"
}

# The C unit tests of the core suite under valgrind: no errors, no definite
# leaks (meson names the log valgrind).  Run before a change to the core
# lands (tests/README.md); not in `test`, whose ASan + UBSan run finds the
# same memory errors and leaks in a fifth of valgrind's time, to keep CI
# under its time budget.  Valgrind adds reads of uninitialized memory.
#
# Skipped here, each running in the plain and sanitizer runs: the search
# test over 42000 messages (pure SQLite volume: two minutes under
# valgrind), the long-transcript parts and export (tens of megabytes read,
# over ten minutes), the Overview's pushed cards (it counts refetches
# against the stream's timing, which valgrind's slowness changes), the
# endpoint floods, the close loop and the large plan parsed off the main
# thread (each measures volume or time against the clock: a flood of 16
# MiB, reconnects in 4 s, ticks during a 3 MiB parse; the shown session's
# place among the lookups that a budget's burst let out first), and six
# loops of pure volume (60 to 170 times slower under valgrind, where the
# same code runs in the run's other cases): every code point after a
# command, every fixture line mutated, a transcript read in parts forwards
# and its latest pages, the needles over every fixture, and grep's
# deadline over a directory of many names.  GLib's, GIO's and libsoup's
# blocks kept per process or per worker thread are suppressed by name
# (valgrind-glib.supp): on some machines valgrind does not find their roots
# in the threads' TLS and called them lost.
valgrind_proof() {
  local ok=0
  stage_begin "valgrind"
  meson test -C "$builddir" --suite core-c --print-errorlogs --timeout-multiplier 5 --logbase valgrind \
    --wrap="valgrind --quiet --suppressions=$here/valgrind-glib.supp --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --error-exitcode=1 --num-callers=30" \
    --test-args="-s /pd/store/list/common-term -s /pd/import-pages-bounded/transcript-parts -s /pd/import-pages-bounded/export-streams -s /pd/overview/pushed -s /pd/remote-source/watch-flood -s /pd/remote-source/watch-push-flood -s /pd/remote-source/watch-close-loop -s /pd/remote-source/large-plan-off-main -s /pd/safe-text/approval-every-blank -s /pd/import-pick/lines -s /pd/import-events-parts/forward-pages -s /pd/import-pages-bounded/events-latest-pages -s /pd/import-util/needles -s /pd/tools/grep/deadline-reading-names -s /pd/remote-source/lookup-shown-first -s /pd/remote-source/lookup-shown-first-unlimited" >/dev/null || ok=1
  summary "valgrind (core C tests)" "$builddir/meson-logs/valgrind.json"
  stage_end
  return "$ok"
}

if [ $# -lt 1 ]; then
  usage
  exit 2
fi

command="$1"
shift

case "$command" in
  run)
    prepare run
    run "$@"
    ;;
  test)
    if [ $# -gt 0 ]; then
      echo "dev.sh: 'test' takes no arguments" >&2
      exit 2
    fi
    status=0
    # With the proofs, the core suite runs once, in the sanitizer build
    # (every core test, under ASan + UBSan); the plain build runs the rest:
    # the UI, the proofs that measure memory or time, the data checks.
    skip_core=()
    if [ "${PLANDECK_PROOFS:-1}" != 0 ]; then
      skip_core=(--no-suite core)
      prepare test with-proofs
    else
      prepare test
    fi
    stage_begin "tests"
    meson test -C "$builddir" --print-errorlogs "${skip_core[@]}" || status=$?
    summary "tests" "$builddir/meson-logs/testlog.json"
    stage_end
    if [ "${PLANDECK_PROOFS:-1}" != 0 ]; then
      proofs || status=1
    fi
    echo "dev.sh: total: $SECONDS s (exit $status)"
    exit "$status"
    ;;
  proofs-chain)
    # dev.sh test's background half (see proofs_start); not for use alone.
    proofs_chain
    ;;
  valgrind)
    prepare test
    valgrind_proof
    ;;
  -h|--help|help)
    usage
    ;;
  *)
    echo "dev.sh: unknown command '$command'" >&2
    usage
    exit 2
    ;;
esac

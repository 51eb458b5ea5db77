#!/usr/bin/env bash
# Developer entry point for Plandeck.
#
#   bash build-aux/dev.sh run [ARGS...]   install build dependencies, build, start plandeck
#   bash build-aux/dev.sh test            install build dependencies, build, run every test,
#                                         then the proofs: the core suite under ASan+UBSan
#                                         and valgrind, and each fuzz target for 10 s
#
# PLANDECK_PROOFS=0 skips the proofs after the tests (for a quick local run);
# CI runs them.  tests/README.md describes each.
# Works from a fresh Debian 12 machine (as root, or with sudo for the package step)
# and can be run again at any time: each step only does what is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
builddir="$root/_build"

usage() {
  sed -n '2,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
}

prepare() {
  bash "$here/setup.sh"

  if [ ! -f "$builddir/meson-private/coredata.dat" ]; then
    meson setup "$builddir" "$root"
  fi
  # meson compile reconfigures by itself when a meson.build changed.
  meson compile -C "$builddir"
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
for line in open(sys.argv[2]):
    result = json.loads(line).get("result")
    if result in ("OK", "EXPECTEDFAIL"): passed += 1
    elif result == "SKIP": skipped += 1
    else: failed += 1
print(f"{sys.argv[1]}: {passed} passed, {failed} failed, {skipped} skipped")
PY
}

# The proofs of tests/README.md that need their own build or a wrapper.
# Bounded for a 2-core CI machine: about 6 minutes together.
proofs() {
  local asan="$root/_build-asan" ok=0

  # 1. The core suite under AddressSanitizer + UndefinedBehaviorSanitizer
  #    (GUI left out: the core suite does not need it).  Any UB aborts,
  #    and so does a double cast to an integer it does not fit (GCC leaves
  #    that check out of -fsanitize=undefined).
  if [ ! -f "$asan/meson-private/coredata.dat" ]; then
    meson setup "$asan" "$root" -Dgui=false -Db_sanitize=address,undefined -Db_lundef=false \
      "-Dc_args=-fno-sanitize-recover=undefined -fsanitize=float-cast-overflow" >/dev/null
  fi
  meson compile -C "$asan" >/dev/null
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    meson test -C "$asan" --suite core --print-errorlogs --timeout-multiplier 2 \
    --logbase asan >/dev/null || ok=1
  summary "asan+ubsan (core)" "$asan/meson-logs/asan.json"

  # 2. The C unit tests of the core suite under valgrind: no errors, no
  #    definite leaks (meson names the log proofs-valgrind).  The search
  #    test over 42000 messages is skipped there (pure SQLite volume: two
  #    minutes under valgrind); it runs in the plain and sanitizer runs.
  meson test -C "$builddir" --suite core-c --print-errorlogs --timeout-multiplier 5 --logbase proofs \
    --wrap="valgrind --quiet --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --error-exitcode=1 --num-callers=30" \
    --test-args="-s /pd/store/list/common-term" >/dev/null || ok=1
  summary "valgrind (core C tests)" "$builddir/meson-logs/proofs-valgrind.json"

  # 3. Each fuzz target for 10 s from the corpus in fuzz/corpus.
  bash "$here/fuzz.sh" all "${PLANDECK_FUZZ_SECONDS:-10}" || ok=1

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
    prepare
    run "$@"
    ;;
  test)
    if [ $# -gt 0 ]; then
      echo "dev.sh: 'test' takes no arguments" >&2
      exit 2
    fi
    prepare
    status=0
    meson test -C "$builddir" --print-errorlogs || status=$?
    summary "tests" "$builddir/meson-logs/testlog.json"
    if [ "${PLANDECK_PROOFS:-1}" != 0 ]; then
      proofs || status=1
    fi
    exit "$status"
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

#!/usr/bin/env bash
# Developer entry point for Plandeck.
#
#   bash build-aux/dev.sh run [ARGS...]   install build dependencies, build, start plandeck
#   bash build-aux/dev.sh test            install build dependencies, build, run every test
#
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
    # One closing line that any reader of the log understands.
    python3 - "$builddir/meson-logs/testlog.json" <<'PY' || true
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    result = json.loads(line).get("result")
    if result in ("OK", "EXPECTEDFAIL"): passed += 1
    elif result == "SKIP": skipped += 1
    else: failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
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

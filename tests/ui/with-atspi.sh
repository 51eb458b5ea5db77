#!/bin/sh
# with-atspi.sh: runs a command with the accessibility bus a screen reader
# reads (at-spi-bus-launcher, its registry started on demand), on the
# session bus the caller set up (dbus-run-session with private-bus.conf).
#
# SPDX-License-Identifier: GPL-3.0-or-later
launcher=/usr/libexec/at-spi-bus-launcher
if [ ! -x "$launcher" ]; then
  echo "1..0 # SKIP no $launcher (Debian's at-spi2-core)"
  exit 0
fi
# Its registry says it started on stdout, which is the TAP stream here.
"$launcher" --launch-immediately >/dev/null 2>&1 &
pid=$!
if ! gdbus wait --session --timeout 30 org.a11y.Bus; then
  echo "Bail out! the accessibility bus did not start"
  kill "$pid"
  exit 1
fi
"$@"
status=$?
kill "$pid"
exit $status

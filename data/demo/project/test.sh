#!/bin/sh
# The greeting test: exits 0 when greet.sh greets correctly.
out=$(sh greet.sh Ada)
if [ "$out" = "Hello, Ada!" ]; then
  echo "ok: $out"
else
  echo "FAIL: expected \"Hello, Ada!\", got \"$out\""
  exit 1
fi

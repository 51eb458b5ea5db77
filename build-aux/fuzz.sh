#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ for a while each.
#
#   bash build-aux/fuzz.sh TARGET|all SECONDS [LIBFUZZER-ARGS...]
#
# Configures _build-fuzz (CC=clang, -Dfuzzing=true -Dgui=false) if needed and
# builds it.  Each target starts from its seeds in fuzz/corpus/TARGET (read
# only) and the inputs it found before in _build-fuzz/corpus/TARGET; a crash
# leaves its input in _build-fuzz/artifacts/TARGET/ and fails the script.
# Prints one line of figures per target.  Targets: plan-args plan-parse
# claude-line codex-line opencode-part qwen-line gemini-line cline-doc rest-request
# sse-openai sse-anthropic redact.
# The targets run as many at once as there are cores (PLANDECK_FUZZ_JOBS
# sets another number): each fuzzer is one process on one core, and each
# still gets its SECONDS.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
builddir="$root/_build-fuzz"
all_targets=(plan-args plan-parse claude-line codex-line opencode-part qwen-line gemini-line cline-doc rest-request sse-openai sse-anthropic redact)

if [ $# -lt 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
which="$1"
seconds="$2"
shift 2

if [ "$which" = all ]; then
  targets=("${all_targets[@]}")
else
  targets=("$which")
fi

if [ ! -f "$builddir/meson-private/coredata.dat" ]; then
  CC=clang meson setup "$builddir" "$root" -Dfuzzing=true -Dgui=false >/dev/null
fi
meson compile -C "$builddir" $(printf 'fuzz/fuzz-%s ' "${targets[@]}") >/dev/null
echo "fuzz.sh: targets built in $SECONDS s"

# One target's run; its line of figures goes to $builddir/fuzz-$t.result.
fuzz_one() {
  local t="$1"; shift
  local exe="$builddir/fuzz/fuzz-$t"
  local work="$builddir/corpus/$t"
  local artifacts="$builddir/artifacts/$t"
  local log="$builddir/fuzz-$t.log"
  local extra=() result runs rate cov
  mkdir -p "$work" "$artifacts"
  # libFuzzer looks for leaks after each input; the server target keeps a
  # thread whose caches would make that check slow (4x), so it is left to
  # the end of the run there (the valgrind run of test-server covers it).
  if [ "$t" = rest-request ]; then
    extra=(-detect_leaks=0)
  fi
  if ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}" \
     UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
     "$exe" "$work" "$root/fuzz/corpus/$t" \
       -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix="$artifacts/" -print_final_stats=1 "${extra[@]}" "$@" >"$log" 2>&1; then
    result=ok
  else
    result=CRASH
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d" " -f2 || true)
  printf 'fuzz %-14s %-5s %6ss  %9s runs  %7s/s  cov %s  corpus %s\n' \
    "$t" "$result" "$seconds" "${runs:-?}" "${rate:-?}" "${cov:-?}" "$(ls "$work" | wc -l)" \
    >"$builddir/fuzz-$t.result"
  [ "$result" = ok ]
}

for t in "${targets[@]}"; do
  if [ ! -x "$builddir/fuzz/fuzz-$t" ]; then
    echo "fuzz.sh: no target '$t'" >&2
    exit 2
  fi
done

jobs_max="${PLANDECK_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs_max" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  rm -f "$builddir/fuzz-$t.result"
  fuzz_one "$t" "$@" &
  running=$((running + 1))
done
wait || true

# The figures in the targets' order, and what each crash left.
status=0
for t in "${targets[@]}"; do
  if [ -f "$builddir/fuzz-$t.result" ]; then
    cat "$builddir/fuzz-$t.result"
  else
    printf 'fuzz %-14s CRASH (no figures)\n' "$t"
  fi
  if ! grep -q '^fuzz [^ ]* *ok ' "$builddir/fuzz-$t.result" 2>/dev/null; then
    status=1
    log="$builddir/fuzz-$t.log"
    grep -E 'ERROR|SUMMARY|runtime error|abort|Test unit written' "$log" | head -20 >&2 || true
    echo "fuzz.sh: full log: $log" >&2
  fi
done
exit "$status"

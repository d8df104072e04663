#!/bin/sh
# run-fuzz.sh - the long fuzz run (see README.md): build the libFuzzer
# targets with clang, ASan and UBSan in a separate build directory, make
# the seed corpus, run each target in turn for MINUTES (default 20), one
# fuzzing process at a time at low priority, and print per target the
# executions, exec/s, coverage, corpus size and failures found.
#
# usage: tests/fuzz/run-fuzz.sh [MINUTES [TARGET...]]    TARGET: frame session write
# environment: BUILD (default SOURCE/build-fuzz), CC (default clang, else clang-14),
#              FUZZ_MAX_LEN (65536), FUZZ_TIMEOUT (10 s per input), FUZZ_RSS_MB (2048),
#              FUZZ_NICE (19), FUZZ_ARGS (more libFuzzer flags)
# Outputs, all under BUILD/fuzz-out/: corpus/TARGET (kept between runs, so
# a later run goes on from it; fuzz-write also reads corpus/session),
# crashes/TARGET/ (crash-*, leak-*, timeout-*, oom-* inputs), TARGET.log
# (libFuzzer's output).
set -eu
export LC_ALL=C   # libFuzzer status lines hold raw bytes (dictionary entries)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
minutes=${1:-20}
[ $# -gt 0 ] && shift
targets=${*:-frame session write}
build=${BUILD:-$src/build-fuzz}
max_len=${FUZZ_MAX_LEN:-65536}
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')

if [ -z "${CC:-}" ]; then
    if command -v clang >/dev/null; then CC=clang; else CC=clang-14; fi
fi
export CC
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$src" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dc_args="-fno-sanitize-recover=undefined -fno-omit-frame-pointer"
fi
meson compile -C "$build"

fz=$build/tests/fuzz
out=$build/fuzz-out
"$here/make-seeds.sh" "$fz/seeds" "$build/tests/client/tracy-test-client" "$build/src/tracy-capture" \
    "$fz/fuzz-seed" "$src/../shared/fixtures"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
summary=""
for t in $targets; do
    case $t in frame) kind=frame ;; session|write) kind=session ;; *) echo "unknown target $t" >&2; exit 2 ;; esac
    # the writer also starts from what fuzz-session found (same input format)
    extra=
    [ "$t" = write ] && [ -d "$out/corpus/session" ] && extra=$out/corpus/session
    mkdir -p "$out/corpus/$t" "$out/crashes/$t"
    log=$out/$t.log
    cmd="nice -n ${FUZZ_NICE:-19} $fz/fuzz-$t -max_total_time=$seconds -max_len=$max_len \
-timeout=${FUZZ_TIMEOUT:-10} -rss_limit_mb=${FUZZ_RSS_MB:-2048} -print_final_stats=1 \
-artifact_prefix=$out/crashes/$t/ ${FUZZ_ARGS:-} $out/corpus/$t $fz/seeds/$kind $extra"
    echo "== fuzz-$t for $minutes min: $cmd"
    touch "$log.start"
    set +e
    $cmd >"$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corpus=$(find "$out/corpus/$t" -type f | wc -l)
    found=$(find "$out/crashes/$t" -type f -newer "$log.start" 2>/dev/null | wc -l || true)
    line="fuzz-$t: rc $rc, ${execs:-?} executions, ${eps:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus $corpus files, failures $found"
    echo "$line"
    [ "$rc" -eq 0 ] || { echo "   see $log and $out/crashes/$t/"; grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz check failed)' "$log" | head -n 5 | sed 's/^/   /'; }
    summary="$summary$line
"
done
echo
printf "%s" "$summary"

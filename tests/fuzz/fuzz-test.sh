#!/bin/sh
# fuzz-test.sh - the short fuzz run of the test suite: make the seed corpus
# (make-seeds.sh, once per build directory), run a target over its seeds,
# then mutate them for SECONDS. With the standalone driver (gcc builds) the
# mutation seed is fixed unless TC_FUZZ_SEED is set; TC_FUZZ_SECONDS
# overrides SECONDS. Failing inputs go to CRASH_DIR.
#
# usage: fuzz-test.sh driver|libfuzzer TARGET KIND SECONDS CRASH_DIR SEEDS CLIENT CAPTURE FUZZ_SEED [FIXTURES]
set -eu
[ $# -ge 9 ] || { echo "usage: $0 driver|libfuzzer TARGET KIND SECONDS CRASH_DIR SEEDS CLIENT CAPTURE FUZZ_SEED [FIXTURES]" >&2; exit 2; }
mode=$1 target=$2 kind=$3 seconds=${TC_FUZZ_SECONDS:-$4} crashes=$5 seeds=$6
shift 6
here=$(dirname "$0")
"$here/make-seeds.sh" "$seeds" "$@"
mkdir -p "$crashes"
n=$(find "$seeds/$kind" -type f | wc -l)
echo "$n seeds in $seeds/$kind"
[ "$n" -gt 0 ] || { echo "no seeds" >&2; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
if [ "$mode" = libfuzzer ]; then
    corpus=$(mktemp -d)
    trap 'rm -rf "$corpus"' EXIT
    "$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "$seeds/$kind"
else
    "$target" -t "$seconds" -s "${TC_FUZZ_SEED:-20261130}" -m 65536 -o "$crashes" "$seeds/$kind"
fi

#!/bin/sh
# check-fixture.sh: compare tracy-csv's output for a fixture's upstream-written
# capture.tracy with the upstream tracy-csvexport outputs stored next to it,
# byte for byte, in all five modes (default, -e, -u, -m, -g); also require
# --summary to succeed. For a fixture of an older release (its
# capture.tracy in that release's format, capture-0140.tracy the same
# converted by v0.14.0 tracy-update), the fixture's csv files are those of
# the converted file, and tracy-csv --format-fields must give the same for
# both files but for the version stamp and the queue delay (which the
# conversion drops): what our reader assumes for a field an old file
# lacks is what upstream's loader assumed when it converted the file.
#
# Usage: check-fixture.sh FIXTURE_DIR [TRACY_CSV]
#   TRACY_CSV defaults to $TRACY_CSV, then to tracy-csv in PATH.
# Exit: 0 all equal, 1 a difference or failure, 77 (skip) fixture absent.
set -u

fx=${1:?usage: check-fixture.sh FIXTURE_DIR [TRACY_CSV]}
tool=${2:-${TRACY_CSV:-tracy-csv}}

if [ ! -f "$fx/capture.tracy" ]; then
    echo "SKIP: fixture $fx not present"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-fixture.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# compare MODE_NAME EXPECTED_FILE [OPTIONS...]
compare() {
    name=$1 expected=$2
    shift 2
    if ! "$tool" "$@" "$fx/capture.tracy" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        echo "FAIL $name: tracy-csv $* exited with an error:"
        cat "$tmp/$name.err"
        status=1
    elif cmp "$expected" "$tmp/$name.out"; then
        echo "ok   $name ($(wc -l <"$tmp/$name.out") lines)"
    else
        echo "FAIL $name: output differs from $expected"
        status=1
    fi
}

compare default "$fx/capture.csv"
compare self "$fx/self.csv" -e
compare messages "$fx/messages.csv" -m
compare gpu "$fx/gpu.csv" -g

if command -v zstd >/dev/null 2>&1; then
    zstd -q -dc "$fx/unwrap.csv.zst" >"$tmp/unwrap.expected" || status=1
    compare unwrap "$tmp/unwrap.expected" -u
else
    echo "note: zstd not found, unwrap comparison skipped"
fi

if [ -f "$fx/capture-0140.tracy" ]; then
    # the fields not every version holds, but for the stamp and the delay
    fields() {
        "$tool" --format-fields "$1" >"$tmp/fields.raw" &&
            grep -v -e '^version: ' -e '^delay: ' "$tmp/fields.raw" >"$2"
    }
    if ! fields "$fx/capture.tracy" "$tmp/fields.old" || ! fields "$fx/capture-0140.tracy" "$tmp/fields.new"; then
        echo "FAIL format-fields: tracy-csv --format-fields failed"
        status=1
    elif cmp -s "$tmp/fields.old" "$tmp/fields.new"; then
        echo "ok   format-fields equal to those of the v0.14.0 conversion ($(wc -l <"$tmp/fields.new") lines)"
    else
        echo "FAIL format-fields: differ from those of the v0.14.0 conversion (< ours of the old file):"
        diff "$tmp/fields.old" "$tmp/fields.new" | head -20
        status=1
    fi
fi

if "$tool" --summary "$fx/capture.tracy" >"$tmp/summary.out" 2>"$tmp/summary.err"; then
    echo "ok   summary ($(grep '^zones:' "$tmp/summary.out"))"
else
    echo "FAIL summary:"
    cat "$tmp/summary.err"
    status=1
fi

exit $status

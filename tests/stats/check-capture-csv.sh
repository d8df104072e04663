#!/bin/sh
# check-capture-csv.sh: tracy-capture --csv and --csv-args, on recordings
# of the shared fixtures read back with --recover:
#  - --csv-args with each csvexport mode gives the fixture's csv file of it
#    (and a quoted separator keeps its space);
#  - an option the file's release lacks (-g in a 0.10 trace), or a --csv
#    that cannot be written (/dev/full): exit 10, the trace saved, no csv
#    and no temporary file left, the reason said;
#  - an existing --csv needs -f (exit 4, before anything is captured); one
#    in a missing directory: exit 5; bad --csv-args, --csv-args without
#    --csv, --csv naming the trace: exit 1.
#
# Usage: check-capture-csv.sh FIXTURES_DIR TRACY_CAPTURE TRACY_STATS
# Exit: 0 pass, 1 failure, 77 (skip) fixtures absent.
set -u
fixtures=${1:?usage: check-capture-csv.sh FIXTURES_DIR TRACY_CAPTURE TRACY_STATS}
capture=${2:?}
stats=${3:?}
kitchen=$fixtures/kitchen
old=$fixtures/kitchen-0100
if [ ! -f "$kitchen/client-to-server.bin" ] || [ ! -f "$old/client-to-server.bin" ]; then
    echo "SKIP: fixtures not present"
    exit 77
fi
command -v zstd >/dev/null 2>&1 || { echo "SKIP: zstd is needed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-capture-csv.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
fail() { echo "FAIL $*"; status=1; }

# mode NAME EXPECTED CSV_ARGS
mode() {
    rm -f "$tmp/t.tracy" "$tmp/t.csv"
    if ! "$capture" -q -o "$tmp/t.tracy" --recover "$kitchen/client-to-server.bin" --csv "$tmp/t.csv" \
        --csv-args "$3" 2>"$tmp/err"; then
        fail "$1: tracy-capture exited with an error:"; cat "$tmp/err"
    elif cmp -s "$2" "$tmp/t.csv"; then
        echo "ok   --csv-args '$3' ($(wc -l <"$tmp/t.csv") lines)"
    else
        fail "$1: --csv-args '$3' differs from $2"
    fi
}
zstd -q -dc "$kitchen/unwrap.csv.zst" >"$tmp/unwrap.csv"
mode self "$kitchen/self.csv" "-e"
mode messages "$kitchen/messages.csv" "--messages"
mode gpu "$kitchen/gpu.csv" "-g"
mode unwrap "$tmp/unwrap.csv" "-u"
awk -F, -v OFS='; ' '{ $1 = $1; print }' "$kitchen/capture.csv" >"$tmp/sep.csv"
mode quoted "$tmp/sep.csv" "-s '; '"

# no_csv WHAT: nothing but the trace beside it
no_csv() {
    left=$(ls "$tmp" | grep -e '^t\.csv' || true)
    [ -z "$left" ] || fail "$1: left behind: $left"
}

# not written: exit 10, the trace saved and readable
rm -f "$tmp/t.tracy" "$tmp/t.csv"
"$capture" -q -o "$tmp/t.tracy" --recover "$old/client-to-server.bin" --protocol 64 --csv "$tmp/t.csv" \
    --csv-args "-g" 2>"$tmp/err"
rc=$?
if [ $rc -eq 10 ] && grep -q "has no -g" "$tmp/err" && grep -q "the trace is saved as" "$tmp/err" &&
    "$stats" "$tmp/t.tracy" | cmp -s - "$old/own/capture.csv"; then
    echo "ok   an option the release lacks: exit 10, trace saved ($(head -n 1 "$tmp/err"))"
else
    fail "an option the release lacks: exit $rc:"; cat "$tmp/err"
fi
no_csv "an option the release lacks"
if [ -w /dev/full ]; then
    "$capture" -q -f -o "$tmp/t.tracy" --recover "$kitchen/client-to-server.bin" --csv /dev/full 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 10 ] && grep -q "No space left" "$tmp/err" && "$stats" "$tmp/t.tracy" >/dev/null; then
        echo "ok   --csv /dev/full: exit 10, trace saved"
    else
        fail "--csv /dev/full: exit $rc:"; cat "$tmp/err"
    fi
fi

# refused before the capture
before() { # WHAT STATUS ARGS...
    what=$1 want=$2
    shift 2
    rm -f "$tmp/u.tracy"
    "$capture" -q -o "$tmp/u.tracy" --recover "$kitchen/client-to-server.bin" "$@" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq "$want" ] && [ ! -e "$tmp/u.tracy" ]; then
        echo "ok   $what: exit $rc ($(head -n 1 "$tmp/err"))"
    else
        fail "$what: exit $rc, $want expected, or a trace was saved:"; cat "$tmp/err"
    fi
}
echo old >"$tmp/exists.csv"
before "an existing --csv without -f" 4 --csv "$tmp/exists.csv"
before "--csv in a missing directory" 5 --csv "$tmp/no/such.csv"
before "bad --csv-args" 1 --csv "$tmp/t.csv" --csv-args "-x"
before "unmatched quote in --csv-args" 1 --csv "$tmp/t.csv" --csv-args "-f 'a"
before "a file operand in --csv-args" 1 --csv "$tmp/t.csv" --csv-args "-e x.tracy"
before "--csv-args without --csv" 1 --csv-args "-e"
before "--csv naming the trace" 1 --csv "$tmp/u.tracy"
[ "$(cat "$tmp/exists.csv")" = old ] || fail "the existing csv was touched"
if "$capture" -q -f -o "$tmp/t.tracy" --recover "$kitchen/client-to-server.bin" --csv "$tmp/exists.csv" &&
    cmp -s "$tmp/exists.csv" "$kitchen/capture.csv"; then
    echo "ok   -f replaces an existing --csv"
else
    fail "-f did not replace the existing --csv"
fi
exit $status

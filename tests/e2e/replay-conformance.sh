#!/bin/sh
# replay-conformance.sh FIXTURE_DIR TRACY_CAPTURE TRACY_CSV REPLAY_TOOL [--no-disasm] [--protocol N]
#
# Replays a recorded Tracy session (../shared/fixtures/NAME) into our
# tracy-capture through the replay tool (with --protocol N: a recording of
# protocol N, which the replay tool then speaks and our capture is told to
# offer; default 82), then checks:
#  - with our own reader, that the saved file gives exactly the fixture's
#    tracy-csvexport output (default, -e, -u, -m, -g);
#  - that the reader's section-by-section summary of our file equals its
#    summary of the fixture's upstream-written capture.tracy (every count:
#    zones, locks, memory, GPU, call stacks, symbols, source files...); for
#    an older release, of capture-0140.tracy, that file converted to the
#    0.14 format by v0.14.0's tracy-update (our file is 0.14.0);
#  - that the queries we sent equal upstream's recorded ones, byte for byte.
# With CONFORMANCE_MODE=recover the capture reads the recording itself
# (tracy-capture --recover) instead of a replay; there are no queries to
# compare then.
# Exit 77 (skip) when the fixture or python3 is not available.
set -u
fx=$1 capture=$2 reader=$3 replay=$4
shift 4
s2c_opt= protocol=82 proto_opt=
while [ $# -gt 0 ]; do
    case $1 in
    --no-disasm) s2c_opt=--no-disasm ;;
    --protocol) protocol=$2 proto_opt="--protocol $2"; shift ;;
    *) echo "usage: unknown option $1"; exit 2 ;;
    esac
    shift
done
name=$(basename "$fx")
theirs_file=$fx/capture.tracy
[ -f "$fx/capture-0140.tracy" ] && theirs_file=$fx/capture-0140.tracy
. "$(dirname "$0")/replay-common.sh"
skip_unless_replayable "$fx"
make_tmp

if [ "${CONFORMANCE_MODE:-replay}" = recover ]; then
    "$capture" -o "$tmp/out.tracy" --recover "$fx/client-to-server.bin" $proto_opt -q 2>"$tmp/capture.err"
    rc=$?
else
    start_replay "$replay" --version "$protocol" --linger 20 --save-s2c "$tmp/s2c.bin" "$fx"

    # Answers to the disassembly-driven queries of upstream are not ours to
    # wait for in a replay: keep the end wait short.
    "$capture" -o "$tmp/out.tracy" -p "$port" $proto_opt --connect-timeout 10 --end-timeout 1 -q 2>"$tmp/capture.err"
    rc=$?
    wait $rpid
fi
cat "$tmp/capture.err"
[ $rc -eq 0 ] || { echo "FAIL: tracy-capture exited $rc"; exit 1; }
# A whole recording is a whole session: nothing to warn about.
if [ -s "$tmp/capture.err" ]; then echo "FAIL: $name: unexpected diagnostics"; exit 1; fi

fail=0
check() { # mode expected-file
    if ! "$reader" $1 "$tmp/out.tracy" > "$tmp/got.csv"; then
        echo "FAIL: $name: our reader rejected our file ($1)"; fail=1; return
    fi
    if cmp -s "$tmp/got.csv" "$2"; then
        echo "ok: $name ${1:-default} matches ($(wc -l < "$2") lines)"
    else
        echo "FAIL: $name ${1:-default} differs from the fixture:"
        diff "$tmp/got.csv" "$2" | head -20
        fail=1
    fi
}
check "" "$fx/capture.csv"
check -e "$fx/self.csv"
check -g "$fx/gpu.csv"
if ! zstd -dcq "$fx/unwrap.csv.zst" > "$tmp/unwrap.csv"; then
    echo "FAIL: cannot decompress $fx/unwrap.csv.zst (is zstd installed?)"; exit 1
fi
check -u "$tmp/unwrap.csv"
check -m "$fx/messages.csv"
# Every section, counted, against upstream's own file of the session.
"$reader" --summary "$theirs_file" | sort > "$tmp/theirs.sum"
"$reader" --summary "$tmp/out.tracy" | sort > "$tmp/ours.sum"
if cmp -s "$tmp/theirs.sum" "$tmp/ours.sum"; then
    echo "ok: $name summary of every section matches upstream's file ($(wc -l < "$tmp/ours.sum") lines)"
else
    echo "FAIL: $name summary differs from upstream's file (< upstream, > ours):"
    diff "$tmp/theirs.sum" "$tmp/ours.sum" | head -30
    fail=1
fi

# The feature counts upstream's loader reported for the session.
if [ -f "$fx/inspect.txt" ]; then
    python3 "$(dirname "$0")/check-inspect.py" "$fx/inspect.txt" "$tmp/ours.sum" || fail=1
fi

# The queries we sent, against upstream's recorded ones.
if [ -n "$rpid" ]; then
    python3 "$(dirname "$0")/compare-s2c.py" $s2c_opt --protocol "$protocol" "$tmp/s2c.bin" "$fx/server-to-client.bin" || fail=1
fi
exit $fail

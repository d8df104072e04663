#!/bin/sh
# replay-conformance.sh FIXTURE_DIR TRACY_CAPTURE TRACY_CSV REPLAY_TOOL [--no-disasm] [--protocol N]
#
# Replays a recorded Tracy session (../shared/fixtures/NAME) into our
# tracy-capture through the replay tool (with --protocol N: a recording of
# protocol N, which the replay tool then speaks; our capture finds it by
# its version search), then checks:
#  - that --csv wrote the fixture's capture.csv;
#  - with our own reader, that the saved file (in the format of the
#    client's release, the default) gives exactly the fixture's
#    tracy-csvexport output (default, -e, -u, -m, -g);
#  - that the reader's section-by-section summary of our file equals its
#    summary of the fixture's upstream-written capture.tracy (every count:
#    zones, locks, memory, GPU, call stacks, symbols, source files...);
#  - that the queries we sent equal upstream's recorded ones, byte for byte;
#  - that our spool of the capture, read back with --recover (its protocol
#    from the spool itself) and saved with --format 0.14, gives the same
#    csv files, and the summary of capture-0140.tracy (upstream's file
#    converted to 0.14 by v0.14.0's tracy-update).
# With CONFORMANCE_MODE=recover the capture reads the recording itself
# (tracy-capture --recover, told the protocol with --protocol N) instead of
# a replay; there are no queries to compare then. The recording is also
# read with no --protocol: the note (or, where several protocols fit it
# alike, the warning) must name protocol N, and the trace give the
# fixture's default csv.
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
theirs14=$fx/capture.tracy
[ -f "$fx/capture-0140.tracy" ] && theirs14=$fx/capture-0140.tracy
. "$(dirname "$0")/replay-common.sh"
skip_unless_replayable "$fx"
make_tmp

if [ "${CONFORMANCE_MODE:-replay}" = recover ]; then
    "$capture" -o "$tmp/out.tracy" --recover "$fx/client-to-server.bin" $proto_opt -q --csv "$tmp/out.csv" \
        2>"$tmp/capture.err"
    rc=$?
else
    start_replay "$replay" --version "$protocol" --linger 20 --save-s2c "$tmp/s2c.bin" "$fx"

    # Answers to the disassembly-driven queries of upstream are not ours to
    # wait for in a replay: keep the end wait short.
    "$capture" -o "$tmp/out.tracy" -p "$port" --spool "$tmp/spool.bin" --keep-spool --connect-timeout 10 --csv "$tmp/out.csv" \
        --end-timeout 1 -q 2>"$tmp/capture.err"
    rc=$?
    wait $rpid
fi
cat "$tmp/capture.err"
[ $rc -eq 0 ] || { echo "FAIL: tracy-capture exited $rc"; exit 1; }
# A whole recording is a whole session: nothing to warn about.
if [ -s "$tmp/capture.err" ]; then echo "FAIL: $name: unexpected diagnostics"; exit 1; fi

fail=0
# --csv: tracy-csvexport's default output of the saved file
if cmp -s "$tmp/out.csv" "$fx/capture.csv"; then
    echo "ok: $name --csv matches capture.csv"
else
    echo "FAIL: $name: the --csv file differs from capture.csv:"; diff "$tmp/out.csv" "$fx/capture.csv" | head -10; fail=1
fi
check() { # file mode expected-file
    if ! "$reader" $2 "$1" > "$tmp/got.csv"; then
        echo "FAIL: $name: our reader rejected our file $(basename "$1") ($2)"; fail=1; return
    fi
    if cmp -s "$tmp/got.csv" "$3"; then
        echo "ok: $name $(basename "$1") ${2:-default} matches ($(wc -l < "$3") lines)"
    else
        echo "FAIL: $name $(basename "$1") ${2:-default} differs from the fixture:"
        diff "$tmp/got.csv" "$3" | head -20
        fail=1
    fi
}
if ! zstd -dcq "$fx/unwrap.csv.zst" > "$tmp/unwrap.csv"; then
    echo "FAIL: cannot decompress $fx/unwrap.csv.zst (is zstd installed?)"; exit 1
fi
# Every csv mode, and every section counted against upstream's own file
# of the session in that format.
check_file() { # ours theirs
    check "$1" "" "$fx/capture.csv"
    check "$1" -e "$fx/self.csv"
    check "$1" -g "$fx/gpu.csv"
    check "$1" -u "$tmp/unwrap.csv"
    check "$1" -m "$fx/messages.csv"
    # (the stamp aside: ours is the lowest of the client's release family,
    # 0.13.0 where upstream's v0.13.1 wrote 0.13.1, so that every patch
    # release of the family opens it)
    "$reader" --summary "$2" | grep -v '^version: ' | sort > "$tmp/theirs.sum"
    "$reader" --summary "$1" | grep -v '^version: ' | sort > "$tmp/ours.sum"
    if cmp -s "$tmp/theirs.sum" "$tmp/ours.sum"; then
        echo "ok: $name $(basename "$1"): summary of every section matches $(basename "$2") ($(wc -l < "$tmp/ours.sum") lines)"
    else
        echo "FAIL: $name $(basename "$1"): summary differs from $(basename "$2") (< upstream, > ours):"
        diff "$tmp/theirs.sum" "$tmp/ours.sum" | head -30
        fail=1
    fi
    # The feature counts upstream's loader reported for the session.
    if [ -f "$fx/inspect.txt" ]; then
        python3 "$(dirname "$0")/check-inspect.py" "$fx/inspect.txt" "$tmp/ours.sum" || fail=1
    fi
}
check_file "$tmp/out.tracy" "$fx/capture.tracy"

# The spool names its protocol: read back with no --protocol, in 0.14.
if [ -f "$tmp/spool.bin" ]; then
    if "$capture" -o "$tmp/spool-0140.tracy" --recover "$tmp/spool.bin" --format 0.14 -q 2>"$tmp/recover.err" &&
       ! [ -s "$tmp/recover.err" ]; then
        check_file "$tmp/spool-0140.tracy" "$theirs14"
    else
        cat "$tmp/recover.err"; echo "FAIL: $name: --recover of our spool failed or warned"; fail=1
    fi
fi

# A bare recording with no --protocol: its protocol inferred.
if [ "${CONFORMANCE_MODE:-replay}" = recover ]; then
    if "$capture" -o "$tmp/inferred.tracy" --recover "$fx/client-to-server.bin" 2>"$tmp/infer.err" >/dev/null; then
        said=$(grep -E 'holds no handshake' "$tmp/infer.err")
        if printf '%s\n' "$said" | grep -qE "note: .*: read as protocol $protocol \(|warning: .*fit protocols ([0-9]+, )*$protocol(,|:| alike)"; then
            echo "ok: $name: with no --protocol, the recording is read as protocol $protocol or said to fit it: $said"
        else
            cat "$tmp/infer.err"; echo "FAIL: $name: with no --protocol, no note names protocol $protocol"; fail=1
        fi
        check "$tmp/inferred.tracy" "" "$fx/capture.csv"
        # stamped no later than the release's own format: its profiler opens it
        mine=$("$reader" --summary "$tmp/inferred.tracy" | sed -n 's/^version: //p')
        own=$("$reader" --summary "$tmp/out.tracy" | sed -n 's/^version: //p')
        if [ -n "$mine" ] && [ "$(printf '%s\n%s\n' "$mine" "$own" | sort -V | tail -1)" = "$own" ]; then
            echo "ok: $name: inferred, saved as $mine, which the release's own tools ($own) open"
        else
            echo "FAIL: $name: inferred, saved as '$mine', later than the release's own $own"; fail=1
        fi
    else
        cat "$tmp/infer.err"; echo "FAIL: $name: --recover with no --protocol failed"; fail=1
    fi
fi

# The queries we sent, against upstream's recorded ones.
if [ -n "$rpid" ]; then
    python3 "$(dirname "$0")/compare-s2c.py" $s2c_opt --protocol "$protocol" "$tmp/s2c.bin" "$fx/server-to-client.bin" || fail=1
fi
exit $fail

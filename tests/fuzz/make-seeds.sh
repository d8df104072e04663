#!/bin/sh
# make-seeds.sh - build the fuzz seed corpus in OUT (nothing is copied into
# the source tree): record a few small sessions of our test client
# (tracy-test-client --record, captured by tracy-capture), add short
# prefixes of the fixtures' client-to-server.bin when FIXTURES exists, and
# cut each recording into seeds with fuzz-seed:
#   OUT/frame/    frame streams after the handshake       (fuzz-frame)
#   OUT/session/  recorded (.raw) and plain (.plain) streams (fuzz-session, fuzz-write)
# Safe to call from parallel tests: the first caller builds, others wait.
#
# usage: make-seeds.sh OUT CLIENT CAPTURE FUZZ_SEED [FIXTURES_DIR]
set -eu
[ $# -ge 4 ] || { echo "usage: $0 OUT CLIENT CAPTURE FUZZ_SEED [FIXTURES_DIR]" >&2; exit 2; }
out=$1 client=$2 capture=$3 seedtool=$4 fixtures=${5:-}

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
[ -e "$out/.done" ] && exit 0
rm -rf "$out/rec" "$out/frame" "$out/session"
mkdir -p "$out/rec" "$out/frame" "$out/session"

# record NAME CLIENT_ARGS...: one capture of the test client.
record() {
    name=$1
    shift
    log="$out/rec/$name.log"
    : >"$log"    # exists before the client (whose redirection happens in the child) writes it
    "$client" -p 0 -q -T 30 -r "$out/rec/$name.bin" "$@" 2>"$log" &
    cpid=$!
    port=
    for _ in $(seq 100); do
        port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$log")
        [ -n "$port" ] && break
        sleep 0.05
    done
    if [ -z "$port" ]; then
        echo "make-seeds: the test client did not start ($name)" >&2
        kill "$cpid" 2>/dev/null || true
        return 1
    fi
    "$capture" -q -f --no-spool --connect-timeout 10 --end-timeout 5 \
        -o "$out/rec/$name.tracy" -p "$port" >/dev/null 2>&1 || true
    wait "$cpid" || true
    rm -f "$out/rec/$name.tracy"
}

# seeds NAME RECORDING: cut one recording into seeds of a few sizes.
seeds() {
    for len in 4096 32768; do
        "$seedtool" frames "$len" "$2" "$out/frame/$1-$len"
        "$seedtool" raw "$len" "$2" "$out/session/$1-$len.raw"
        "$seedtool" plain "$len" "$2" "$out/session/$1-$len.plain"
    done
}

record normal -S normal
record everything -S everything
record on-demand -S on-demand
record crash -S crash
record memory -S memory -z 2 -t 2
record zones -S zones -z 200 -t 2
record threads -S threads -z 20 -t 3
record open-zones -S open-zones
# every family in the older protocols' layouts too
for v in 76 72 66 64; do
    record "everything-p$v" -S everything --protocol "$v"
done

for rec in "$out"/rec/*.bin; do
    [ -s "$rec" ] && seeds "$(basename "$rec" .bin)" "$rec"
done
if [ -n "$fixtures" ] && [ -d "$fixtures" ]; then
    for fx in "$fixtures"/*/; do
        [ -f "$fx/client-to-server.bin" ] && seeds "fixture-$(basename "$fx")" "$fx/client-to-server.bin"
    done
fi
touch "$out/.done"

#!/bin/sh
# daemon-fixtures.sh FIXTURES_DIR TRACY_CAPTURE_DAEMON TRACY_CSV REPLAY_TOOL [MODE]
#
# Eight recorded sessions (../shared/fixtures: three of protocol 82, five of
# older releases) replayed at once into one tracy-capture-daemon
# --max-clients 8, which must end by itself with status 0. MODE announced
# (the default): each is announced on loopback as its release's client
# announces itself (announce.py, to 127.255.255.255 only) and its file must
# carry upstream's name for it, NAME_127.0.0.1_PORT.tracy with the
# announced name. MODE targets: every second one is not announced but
# given as -a 127.0.0.1:PORT (the daemon finds its protocol by itself), and
# its file is named by the program name of its welcome (the fixture's
# inspect.txt says it). Each file must give, read by our reader, exactly
# the fixture's tracy-csvexport output (default, -e, -u, -m, -g).
# Exit 77 (skip) when the fixtures or python3 are not available.
set -u
fixtures=$1 daemon=$2 reader=$3 replay=$4 mode=${5:-announced}
here=$(dirname "$0")
. "$here/replay-common.sh"
skip_unless_replayable "$fixtures/kitchen"
tmp=$(mktemp -d)
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

# a free UDP port for the announcements
udp=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("", 0)); print(s.getsockname()[1])')

set -- kitchen:82 zones-small:82 memory:82 kitchen-0131:76 zones-small-0122:74 kitchen-5479a42:72 \
       zones-small-0111:69 kitchen-0100:64
# every replay listening first; in targets mode the odd ones become -a
targets= k=0
: > "$tmp/clients"
for entry in "$@"; do
    fx=${entry%%:*} proto=${entry##*:}
    python3 "$replay" --port 0 --version "$proto" --linger 30 "$fixtures/$fx" 2>"$tmp/$fx.log" &
    rp=$!
    pids="$pids $rp"
    wait_listening "$tmp/$fx.log" "the replay of $fx"
    if [ "$mode" = targets ] && [ $((k % 2)) -eq 1 ]; then
        targets="$targets -a 127.0.0.1:$port"
        name=$(sed -n 's/^program: //p' "$fixtures/$fx/inspect.txt" | head -1)
        echo "$fx $port $proto $rp target $name" >> "$tmp/clients"
    else
        echo "$fx $port $proto $rp announced $fx" >> "$tmp/clients"
    fi
    k=$((k + 1))
done
# shellcheck disable=SC2086 # $targets is a list of options
"$daemon" -o "$tmp/out" -p "$udp" --max-clients 8 --end-timeout 1 $targets >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
dpid=$!
while read -r fx p proto rp how name; do
    [ "$how" = announced ] || continue
    python3 "$here/announce.py" --udp-port "$udp" --port "$p" --protocol "$proto" --pid "$rp" --name "$fx" &
    pids="$pids $!"
done < "$tmp/clients"
# the daemon ends by itself once the eight are saved
i=0
while kill -0 $dpid 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $dpid 2>/dev/null; then
    kill $dpid; cat "$tmp/daemon.out" "$tmp/daemon.err"; echo "FAIL: the daemon did not end by itself"; exit 1
fi
wait $dpid
rc=$?
cat "$tmp/daemon.out" "$tmp/daemon.err"
[ $rc -eq 0 ] || { echo "FAIL: tracy-capture-daemon exited $rc"; exit 1; }

fail=0
check() { # name file mode expected
    if ! "$reader" $3 "$2" > "$tmp/got.csv"; then
        echo "FAIL: $1: our reader rejected $(basename "$2") ($3)"; fail=1; return
    fi
    if cmp -s "$tmp/got.csv" "$4"; then
        echo "ok: $1 ${3:-default} matches ($(wc -l < "$4") lines)"
    else
        echo "FAIL: $1 ${3:-default} differs from the fixture:"; diff "$tmp/got.csv" "$4" | head -10; fail=1
    fi
}
while read -r fx p proto rp how name; do
    file=$tmp/out/${name}_127.0.0.1_$p.tracy
    if [ ! -f "$file" ]; then echo "FAIL: $fx: no $(basename "$file")"; ls "$tmp/out"; fail=1; continue; fi
    zstd -dcq "$fixtures/$fx/unwrap.csv.zst" > "$tmp/unwrap.csv" || { echo "FAIL: zstd"; exit 1; }
    check "$fx" "$file" "" "$fixtures/$fx/capture.csv"
    check "$fx" "$file" -e "$fixtures/$fx/self.csv"
    check "$fx" "$file" -g "$fixtures/$fx/gpu.csv"
    check "$fx" "$file" -u "$tmp/unwrap.csv"
    check "$fx" "$file" -m "$fixtures/$fx/messages.csv"
    echo "ok: $fx ($how, protocol $proto) saved as $(basename "$file")"
done < "$tmp/clients"
n=$(ls "$tmp/out" | grep -c '\.tracy$')
[ "$n" -eq 8 ] || { echo "FAIL: $n traces in the output directory, not 8:"; ls -la "$tmp/out"; fail=1; }
ls "$tmp/out" | grep -q spool && { echo "FAIL: a spool was left:"; ls "$tmp/out"; fail=1; }
exit $fail

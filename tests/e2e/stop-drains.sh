#!/bin/sh
# stop-drains.sh FIXTURE_DIR TRACY_CAPTURE TRACY_CSV REPLAY_TOOL
#
# A capture stopped early (-s 0.3, and a short --end-timeout) while the replay
# tool sends a recorded session at full speed: input received but not yet
# decoded when the wait gives up is still decoded and saved. The saved file
# must hold exactly what --recover rebuilds from the same capture's spool
# (every section's count, by our reader's summary).
# Exit 77 (skip) when the fixture or python3 is not available.
set -u
fx=$1 capture=$2 reader=$3 replay=$4
if [ ! -f "$fx/client-to-server.bin" ]; then
    echo "SKIP: fixture $fx not found (../shared is absent)"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is needed for the replay tool"
    exit 77
fi
tmp=$(mktemp -d)
rpid=
trap '[ -n "$rpid" ] && kill $rpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

python3 "$replay" --port 0 --linger 5 "$fx" 2>"$tmp/replay.log" &
rpid=$!
port=
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/replay.log")
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || { echo "FAIL: the replay tool did not start"; cat "$tmp/replay.log"; exit 1; }

"$capture" -o "$tmp/live.tracy" -p "$port" -s 0.3 --end-timeout 0.05 --keep-spool -q 2>"$tmp/capture.err"
rc=$?
wait $rpid
rpid=
cat "$tmp/capture.err"
[ $rc -eq 0 ] || { echo "FAIL: tracy-capture exited $rc"; exit 1; }
"$capture" -o "$tmp/recovered.tracy" --recover "$tmp/live.tracy.spool" -q 2>"$tmp/recover.err"
rc=$?
cat "$tmp/recover.err"
[ $rc -eq 0 ] || { echo "FAIL: tracy-capture --recover exited $rc"; exit 1; }

"$reader" --summary "$tmp/live.tracy" > "$tmp/live.sum" || { echo "FAIL: our reader rejected the live file"; exit 1; }
"$reader" --summary "$tmp/recovered.tracy" > "$tmp/recovered.sum" || { echo "FAIL: our reader rejected the recovered file"; exit 1; }
zones=$(sed -n 's/^zones: //p' "$tmp/live.sum")
if [ -z "$zones" ] || [ "$zones" -eq 0 ]; then echo "FAIL: no zones saved"; exit 1; fi
if ! cmp -s "$tmp/live.sum" "$tmp/recovered.sum"; then
    echo "FAIL: the live capture saved less (or other) than it received:"
    diff "$tmp/live.sum" "$tmp/recovered.sum" | head -20
    exit 1
fi
echo "ok: stopped capture saved everything it received ($zones zones, $(wc -c < "$tmp/live.tracy.spool") bytes)"

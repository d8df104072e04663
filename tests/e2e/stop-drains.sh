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
. "$(dirname "$0")/replay-common.sh"
skip_unless_replayable "$fx"
make_tmp
start_replay "$replay" --linger 5 "$fx"

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

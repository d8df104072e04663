# replay-common.sh - sourced by the replay tests: skip without a fixture
# or python3, a temporary directory removed at exit, and the replay tool
# started on a free port.

# skip_unless_replayable FIXTURE_DIR: exit 77 (skip) when it cannot run.
skip_unless_replayable() {
    if [ ! -f "$1/client-to-server.bin" ]; then
        echo "SKIP: fixture $1 not found (../shared is absent)"
        exit 77
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        echo "SKIP: python3 is needed for the replay tool"
        exit 77
    fi
}

# make_tmp: $tmp, removed at exit with the replay tool still running.
make_tmp() {
    tmp=$(mktemp -d)
    rpid=
    trap '[ -n "$rpid" ] && kill $rpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
}

# start_replay REPLAY_TOOL ARGS...: run it in the background ($rpid) and
# set $port to the port it listens on; its stderr goes to $tmp/replay.log.
start_replay() {
    python3 "$@" --port 0 2>"$tmp/replay.log" &
    rpid=$!
    wait_listening "$tmp/replay.log" "the replay tool"
}

# wait_listening LOG WHAT: set $port once LOG says "listening on
# 127.0.0.1:PORT" (within 5 s), or fail naming WHAT.
wait_listening() {
    port=
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { echo "FAIL: $2 did not start"; cat "$1"; exit 1; }
}

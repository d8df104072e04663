#!/bin/sh
# require-fixtures.sh FIXTURES_DIR TRACY_CAPTURE
#
# --require, the summary's families and --summary-json on the recorded
# sessions (../shared/fixtures), each read with --recover in its protocol:
#  - kitchen holds memory events: --require memory exits 0, saying nothing
#    with -q, and --summary-json's counts are those upstream's loader saw
#    (inspect.txt: zones, memory events of every pool);
#  - zones-small holds none: exit 9 after saving, and the hint names the
#    allocation interposer (LD_PRELOAD);
#  - no fixture holds samples (their clients were built without sampling):
#    --require sampling exits 9 on every one, naming the causes, and the
#    console's "Not captured:" line names sampling.
# Exit 77 (skip) when the fixtures or python3 are not available.
set -u
fixtures=$1 capture=$2
. "$(dirname "$0")/replay-common.sh"
skip_unless_replayable "$fixtures/kitchen"
make_tmp
fail=0

# The protocol of a fixture, from its folder's name (fixtures/README.md).
protocol_of() {
    case $1 in
    *-0131) echo 76 ;; *-0122) echo 74 ;; *-5479a42) echo 72 ;;
    *-0111) echo 69 ;; *-0110) echo 66 ;; *-0100) echo 64 ;; *) echo 82 ;;
    esac
}

# recover NAME OUT ARGS...: --recover the fixture NAME into OUT; $rc, and
# its stderr in $tmp/err, stdout in $tmp/out.
recover() {
    name=$1 out=$2
    shift 2
    "$capture" -o "$out" -f --recover "$fixtures/$name/client-to-server.bin" --protocol "$(protocol_of "$name")" \
        "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

recover kitchen "$tmp/kitchen.tracy" --require memory -q --summary-json "$tmp/kitchen.json"
if [ $rc -eq 0 ] && ! [ -s "$tmp/err" ] && ! [ -s "$tmp/out" ]; then
    echo "ok: kitchen: --require memory exits 0, silent with -q"
else
    cat "$tmp/err"; echo "FAIL: kitchen: --require memory exited $rc or said something"; fail=1
fi
if python3 - "$tmp/kitchen.json" "$fixtures/kitchen/inspect.txt" "$tmp/kitchen.tracy" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
inspect = open(sys.argv[2]).read()
zones = int(re.search(r"^zones: (\d+)", inspect, re.M).group(1))
mem = sum(int(n) for n in re.findall(r"^mempool '.*': events=(\d+)", inspect, re.M))
assert d["status"] == 0 and d["saved"] is True, d
assert d["path"] == sys.argv[3] and d["format"] == "0.14.0", d
assert d["zones"] == zones == d["families"]["zones"]["zones"], (d["zones"], zones)
assert d["families"]["memory"]["memory_events"] == mem, (d["families"]["memory"], mem)
assert d["required"] == ["memory"] and d["missing"] == [], d
assert "sampling" in d["empty"] and "memory" not in d["empty"], d["empty"]
print("ok: kitchen: --summary-json: %d zones, %d memory events, as upstream's loader saw them" % (zones, mem))
PY
then :; else echo "FAIL: kitchen: --summary-json"; fail=1; fi

recover zones-small "$tmp/zones.tracy" --require memory -q
if [ $rc -eq 9 ] && [ -s "$tmp/zones.tracy" ] && grep -q -- "--require memory: the capture holds no memory events" "$tmp/err" &&
   grep -q "LD_PRELOAD, it did not load" "$tmp/err"; then
    echo "ok: zones-small: --require memory exits 9 after saving: $(cat "$tmp/err")"
else
    cat "$tmp/err"; echo "FAIL: zones-small: --require memory exited $rc (not 9), or no hint"; fail=1
fi

n=0
for dir in "$fixtures"/*/; do
    name=$(basename "$dir")
    [ -f "$dir/client-to-server.bin" ] || continue
    n=$((n + 1))
    recover "$name" "$tmp/$name.tracy" --require sampling
    if [ $rc -eq 9 ] && grep -q -- "--require sampling: the capture holds no samples" "$tmp/err" &&
       grep -q "perf_event_paranoid at most 1" "$tmp/err" && grep -q "TRACY_NO_SAMPLING" "$tmp/err" &&
       grep -q "virtual machines" "$tmp/err" && grep -q "^Not captured: .*sampling" "$tmp/out"; then
        echo "ok: $name: --require sampling exits 9 and names the causes"
    else
        cat "$tmp/err"; echo "FAIL: $name: --require sampling exited $rc, or said no cause"; fail=1
    fi
    rm -f "$tmp/$name.tracy"
done
[ $n -gt 0 ] || { echo "FAIL: no fixture found in $fixtures"; fail=1; }
exit $fail

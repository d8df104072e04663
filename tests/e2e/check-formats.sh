#!/bin/sh
# check-formats.sh: tracy-capture --format saves every release's file
# format, and our reader (tracy-csv, which reads each the way v0.14.0's
# loader does) finds in it what that format can hold:
#  - the csv output of tracy-csvexport 0.14.0 (default, -e, -u, -m, -g) is
#    the same in every format: csvexport prints nothing that only some
#    formats hold (its -m prints only the message text and time, not the
#    source or severity 0.14.0 added);
#  - tracy-csv --format-fields equals that of the 0.14.0 file with what
#    the format cannot hold replaced by the loader's defaults
#    (expect-fields.py: sections, message source/severity, GPU notes and
#    query ids, wake-up CPUs, dies, group hints; the queue delay up to
#    0.12.x);
#  - each name --format accepts stamps its release (0.10: in the legacy
#    single-stream 'tZst' container), and an unknown one is exit 1 with the
#    list of accepted names.
#
# Usage:
#   check-formats.sh fixture FIXTURE_DIR TRACY_CAPTURE TRACY_CSV
#       --recover the fixture's recording in each format; the csv files
#       must be the fixture's own.
#   check-formats.sh client TEST_CLIENT TRACY_CAPTURE TRACY_CSV
#       capture the test client's 'everything' scenario live with
#       --format 0.11.1 and a kept spool, then --recover the spool in each
#       format; the csv files must be those of the 0.14.0 file.
# Exit: 0 pass, 1 failure, 77 (skip) fixture or python3 absent.
set -u
mode=${1:?usage: check-formats.sh fixture|client ...}
here=$(dirname "$0")
. "$here/replay-common.sh"

if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is needed for expect-fields.py"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-formats.XXXXXX") || exit 1
cpid=
trap '[ -n "$cpid" ] && kill $cpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
status=0

# Every name --format accepts, and the stamp it must write.
names="0.14=0.14.0 0.14.0=0.14.0 v0.14=0.14.0 0.13=0.13.0 0.13.0=0.13.0 0.13.1=0.13.1 0.12=0.12.0
0.12.0=0.12.0 0.12.1=0.12.1 v0.12.2=0.12.2 0.11.2=0.11.2 5479a42=0.11.2 0.11.1=0.11.1 0.11=0.11.0
0.11.0=0.11.0 0.10=0.10.0 v0.10.0=0.10.0"
# One name per stamp: the formats checked in full.
full="0.14.0 0.13.0 0.13.1 0.12.0 0.12.1 0.12.2 0.11.2 0.11.1 0.11.0 0.10.0"

# csv_of FILE PREFIX: the reader's five csv outputs of FILE into PREFIX.*
csv_of() {
    "$reader" "$1" >"$2.default" && "$reader" -e "$1" >"$2.self" && "$reader" -u "$1" >"$2.unwrap" &&
        "$reader" -m "$1" >"$2.messages" && "$reader" -g "$1" >"$2.gpu"
}

# check_file FILE STAMP: FILE is in the format STAMP and holds what it can.
check_file() {
    file=$1 stamp=$2
    magic=$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')
    want=7472fd50
    [ "$stamp" = 0.10.0 ] && want=745a7374
    if [ "$magic" != "$want" ]; then
        echo "FAIL $stamp: container starts $magic, not $want"
        status=1
        return
    fi
    if ! csv_of "$file" "$tmp/got"; then
        echo "FAIL $stamp: our reader rejected the file"
        status=1
        return
    fi
    for m in default self unwrap messages gpu; do
        if ! cmp -s "$tmp/got.$m" "$tmp/ref.$m"; then
            echo "FAIL $stamp: csv $m differs from the 0.14.0 one:"
            diff "$tmp/ref.$m" "$tmp/got.$m" | head -5
            status=1
            return
        fi
    done
    "$reader" --format-fields "$file" >"$tmp/got.fields" &&
        python3 "$here/expect-fields.py" "$stamp" <"$tmp/ref.fields" >"$tmp/want.fields" || {
        echo "FAIL $stamp: format fields not computed"
        status=1
        return
    }
    if cmp -s "$tmp/want.fields" "$tmp/got.fields"; then
        echo "ok   $stamp: $(wc -c <"$file") bytes, csv files and $(wc -l <"$tmp/got.fields") format fields as expected"
    else
        echo "FAIL $stamp: format fields differ (< expected, > got):"
        diff "$tmp/want.fields" "$tmp/got.fields" | head -20
        status=1
    fi
}

# recover_as RECORDING FORMAT OUT: --recover in that format.
recover_as() {
    if ! "$capture" -o "$3" -f -q --format "$2" --recover "$1" 2>"$tmp/capture.err" || [ -s "$tmp/capture.err" ]; then
        echo "FAIL --format $2: tracy-capture failed or complained:"
        cat "$tmp/capture.err"
        status=1
        return 1
    fi
}

# check_all RECORDING: every format of the recording against the 0.14.0 file
# ($tmp/ref.*).
check_all() {
    "$reader" --format-fields "$tmp/ref.tracy" >"$tmp/ref.fields" || { echo "FAIL: 0.14.0 file rejected"; exit 1; }
    for stamp in $full; do
        recover_as "$1" "$stamp" "$tmp/out.tracy" && check_file "$tmp/out.tracy" "$stamp"
    done
}

# check_names RECORDING: every name's stamp.
check_names() {
    for pair in $names; do
        name=${pair%=*} stamp=${pair#*=}
        recover_as "$1" "$name" "$tmp/out.tracy" || continue
        got=$("$reader" --format-fields "$tmp/out.tracy" | sed -n 's/^version: //p')
        if [ "$got" != "$stamp" ]; then
            echo "FAIL --format $name: stamped '$got', not $stamp"
            status=1
        fi
    done
    [ $status -eq 0 ] && echo "ok   every --format name stamps its release"
}

case $mode in
fixture)
    fx=${2:?} capture=${3:?} reader=${4:?}
    if [ ! -f "$fx/client-to-server.bin" ]; then
        echo "SKIP: fixture $fx not found (../shared is absent)"
        exit 77
    fi
    recover_as "$fx/client-to-server.bin" 0.14.0 "$tmp/ref.tracy" || exit 1
    csv_of "$tmp/ref.tracy" "$tmp/ref" || { echo "FAIL: 0.14.0 file rejected"; exit 1; }
    # the 0.14.0 file's csv files are the fixture's: so are every format's
    zstd -dcq "$fx/unwrap.csv.zst" >"$tmp/fx.unwrap" || { echo "FAIL: cannot decompress unwrap.csv.zst"; exit 1; }
    for pair in default=capture.csv self=self.csv messages=messages.csv gpu=gpu.csv; do
        cmp -s "$tmp/ref.${pair%=*}" "$fx/${pair#*=}" || { echo "FAIL: 0.14.0 ${pair#*=} differs"; exit 1; }
    done
    cmp -s "$tmp/ref.unwrap" "$tmp/fx.unwrap" || { echo "FAIL: 0.14.0 unwrap differs"; exit 1; }
    check_all "$fx/client-to-server.bin"
    ;;
client)
    client=${2:?} capture=${3:?} reader=${4:?}
    "$client" -p 0 -S everything -q >"$tmp/client.out" 2>&1 &
    cpid=$!
    wait_listening "$tmp/client.out" "the test client"
    # live, in an older format, keeping every byte received for --recover
    if ! "$capture" -o "$tmp/live.tracy" -p "$port" --connect-timeout 10 --keep-spool -q --format 0.11.1; then
        echo "FAIL: the live capture failed"
        exit 1
    fi
    wait $cpid
    cpid=
    recover_as "$tmp/live.tracy.spool" 0.14.0 "$tmp/ref.tracy" || exit 1
    csv_of "$tmp/ref.tracy" "$tmp/ref" || { echo "FAIL: 0.14.0 file rejected"; exit 1; }
    "$reader" --format-fields "$tmp/ref.tracy" >"$tmp/ref.fields" || exit 1
    echo "live --format 0.11.1:"
    check_file "$tmp/live.tracy" 0.11.1
    check_all "$tmp/live.tracy.spool"
    check_names "$tmp/live.tracy.spool"
    # an unknown format: exit 1, naming the accepted ones
    "$capture" -o "$tmp/x.tracy" --format 0.9 --recover "$tmp/live.tracy.spool" 2>"$tmp/bad.err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "unknown file format '0.9'" "$tmp/bad.err" && grep -q "0.11.2 (5479a42" "$tmp/bad.err" &&
        [ ! -e "$tmp/x.tracy" ]; then
        echo "ok   --format 0.9: exit 1 ($(cat "$tmp/bad.err"))"
    else
        echo "FAIL --format 0.9: exit $rc, stderr:"
        cat "$tmp/bad.err"
        status=1
    fi
    ;;
*)
    echo "usage: check-formats.sh fixture|client ..."
    exit 1
    ;;
esac
exit $status

#!/bin/sh
# check-compress.sh: tracy-capture's compression and --strip options, read
# back with our reader (tracy-csv, which reads every format as v0.14.0's
# loader does):
#  - each compression (--lz4, --lz4hc, --lz4-extreme, -z LEVEL) and stream
#    count (-j) writes the container header it says, and the file reads
#    back to the same csv (default, -e, -u, -m, -g) and --summary as the
#    default zstd 2, 4 streams; in the 0.10 format too, whose container
#    ('tZst' or 'tlZ' 4) has one stream: -j 4 with it is exit 1;
#  - each --strip letter (tracy-update -s's) empties what it names and
#    keeps the rest: the summary is the full file's with that family's
#    counts at zero (memory: the empty default pool), and the csv is the
#    same (-m, with m: "There are currently no messages!", as csvexport
#    says); all letters at once in older formats too.
#
# Usage:
#   check-compress.sh fixture FIXTURE_DIR TRACY_CAPTURE TRACY_CSV
#       --recover the fixture's recording (a 0.14 session).
#   check-compress.sh client TEST_CLIENT TRACY_CAPTURE TRACY_CSV
#       capture the test client's 'everything' scenario (samples, context
#       switches, every family) live with a kept spool, and --recover that.
# Exit: 0 pass, 1 failure, 77 (skip) fixture absent.
set -u
mode=${1:?usage: check-compress.sh fixture|client ...}
here=$(dirname "$0")
. "$here/replay-common.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-compress.XXXXXX") || exit 1
cpid=
trap '[ -n "$cpid" ] && kill $cpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
status=0

fail() {
    echo "FAIL $*"
    status=1
}

# save OUT ARGS...: --recover the recording into OUT with ARGS; quiet and
# warning-free.
save() {
    out=$1
    shift
    if ! "$capture" -o "$out" -f -q "$@" --recover "$recording" 2>"$tmp/capture.err" || [ -s "$tmp/capture.err" ]; then
        echo "tracy-capture $* failed:"
        cat "$tmp/capture.err"
        return 1
    fi
}

# read_back FILE PREFIX: the reader's csv outputs and summary of FILE into
# PREFIX.*
read_back() {
    "$reader" "$1" >"$2.default" && "$reader" -e "$1" >"$2.self" && "$reader" -u "$1" >"$2.unwrap" &&
        "$reader" -m "$1" >"$2.messages" && "$reader" -g "$1" >"$2.gpu" &&
        "$reader" --summary "$1" | sort >"$2.summary"
}

# header FILE: the container's first six bytes in hex.
header() {
    head -c 6 "$1" | od -An -tx1 | tr -d ' \n'
}

# same_as PREFIX REF WHAT: every output of PREFIX equals REF's.
same_as() {
    for m in default self unwrap messages gpu summary; do
        if ! cmp -s "$1.$m" "$2.$m"; then
            fail "$3: $m differs from the default file's:"
            diff "$2.$m" "$1.$m" | head -5
            return 1
        fi
    done
}

# check_mode FORMAT WANT_HEADER ARGS...: saved with ARGS in FORMAT, the
# file starts with WANT_HEADER (hex, a prefix) and reads back as the
# FORMAT's default file.
check_mode() {
    fmt=$1 want=$2
    shift 2
    what="--format $fmt $*"
    save "$tmp/m.tracy" --format "$fmt" "$@" || { fail "$what: not saved"; return; }
    got=$(header "$tmp/m.tracy")
    case $got in
    "$want"*) ;;
    *) fail "$what: header $got, not $want"; return ;;
    esac
    read_back "$tmp/m.tracy" "$tmp/m" || { fail "$what: our reader rejected the file"; return; }
    same_as "$tmp/m" "$tmp/ref-$fmt" "$what" && echo "ok   $what ($got, $(wc -c <"$tmp/m.tracy") bytes)"
}

# expect_stripped LETTERS < SUMMARY: the sorted summary of the full file as
# --strip LETTERS must leave it ('s' leaves the context switches, which
# lose those of threads that only had samples, to the caller).
expect_stripped() {
    script=
    case $1 in *l*) script="$script; s/^locks: .*/locks: 0/; s/^lockEvents: .*/lockEvents: 0/; /^lock [0-9]*: /d" ;; esac
    case $1 in *m*) script="$script; s/^messages: .*/messages: 0/; s/ messages=[0-9]* / messages=0 /" ;; esac
    case $1 in *p*) script="$script; s/^plots: .*/plots: 0/; s/^plotPoints: .*/plotPoints: 0/; /^plot '/d" ;; esac
    case $1 in *M*) script="$script; s/^memoryPools: .*/memoryPools: 1/; s/^memoryEvents: .*/memoryEvents: 0/
        s/^mempool '(default)': .*/mempool '(default)': events=0 active=0/; /^mempool '[^(]/d" ;; esac
    case $1 in *i*) script="$script; s/^frameImages: .*/frameImages: 0/" ;; esac
    case $1 in *c*) script="$script; s/^contextSwitches: .*/contextSwitches: 0/; s/^ctxSwitchPerCpu: .*/ctxSwitchPerCpu: 0/" ;; esac
    case $1 in *s*) script="$script; s/^samples: .*/samples: 0/; s/ samples=[0-9]*$/ samples=0/; /^contextSwitches: /d" ;; esac
    case $1 in *C*) script="$script; s/^symbolCode: .*/symbolCode: 0/; s/^symbolCodeBytes: .*/symbolCodeBytes: 0/" ;; esac
    case $1 in *S*) script="$script; s/^sourceFiles: .*/sourceFiles: 0/; s/^sourceFileBytes: .*/sourceFileBytes: 0/
        /^source file cached: /d" ;; esac
    sed "${script#; }"
}

# count KEY SUMMARY: the value of a summary line "KEY: N".
count() {
    sed -n "s/^$1: //p" "$2"
}

# check_strip FORMAT LETTERS: --strip LETTERS in FORMAT leaves out what they
# name and keeps the rest.
check_strip() {
    fmt=$1 letters=$2 what="--format $1 --strip $2"
    save "$tmp/s.tracy" --format "$fmt" --strip "$letters" || { fail "$what: not saved"; return; }
    read_back "$tmp/s.tracy" "$tmp/s" || { fail "$what: our reader rejected the file"; return; }
    ref="$tmp/ref-$fmt"
    expect_stripped "$letters" <"$ref.summary" | sort >"$tmp/want.summary"
    got="$tmp/s.summary"
    case $letters in
    *s*)
        # the context switches saved are those of threads with zones, or
        # with samples: with none kept, at most as many
        cs=$(count contextSwitches "$got") full=$(count contextSwitches "$ref.summary")
        case $letters in *c*) full=0 ;; esac
        [ "$cs" -le "$full" ] || fail "$what: $cs context switches, more than the $full of the full file"
        grep -v '^contextSwitches: ' "$got" >"$tmp/s.summary.cut"
        got="$tmp/s.summary.cut"
        ;;
    esac
    if ! cmp -s "$got" "$tmp/want.summary"; then
        fail "$what: the summary is not the full one with those families left out:"
        diff "$tmp/want.summary" "$got" | head -10
        return
    fi
    for m in default self unwrap gpu; do
        cmp -s "$tmp/s.$m" "$ref.$m" || { fail "$what: csv $m differs from the full file's"; return; }
    done
    case $letters in
    *m*) echo 'There are currently no messages!' | cmp -s - "$tmp/s.messages" || { fail "$what: messages are left"; return; } ;;
    *) cmp -s "$tmp/s.messages" "$ref.messages" || { fail "$what: messages differ"; return; } ;;
    esac
    echo "ok   $what ($(wc -c <"$tmp/s.tracy") bytes)"
}

# reference FORMAT: the default file of FORMAT, read back into ref-FORMAT.*
reference() {
    save "$tmp/ref-$1.tracy" --format "$1" && read_back "$tmp/ref-$1.tracy" "$tmp/ref-$1" ||
        { echo "FAIL: the default $1 file is not read back"; exit 1; }
}

# The compression modes and stream counts in the current container (zstd:
# type byte 01, LZ4: 00; then the stream count) and in the 0.10 one.
check_compression() {
    reference 0.14.0
    check_mode 0.14.0 7472fd500104
    check_mode 0.14.0 7472fd500004 --lz4
    check_mode 0.14.0 7472fd500004 --lz4hc
    check_mode 0.14.0 7472fd500004 --lz4-extreme
    check_mode 0.14.0 7472fd500104 -z 1
    check_mode 0.14.0 7472fd500104 -z 9
    check_mode 0.14.0 7472fd500104 --zstd=-5
    check_mode 0.14.0 7472fd500101 -j 1
    check_mode 0.14.0 7472fd500107 -j 7
    check_mode 0.14.0 7472fd5001ff -j 255
    check_mode 0.14.0 7472fd500002 --lz4hc --streams 2
    reference 0.11.0
    check_mode 0.11.0 7472fd500003 --lz4 -j 3
    reference 0.10.0
    check_mode 0.10.0 745a7374 -z 9
    check_mode 0.10.0 745a7374 -j 1
    check_mode 0.10.0 746c5a04 --lz4
    check_mode 0.10.0 746c5a04 --lz4hc
    check_mode 0.10.0 746c5a04 --lz4-extreme -j 1
    # refused: more streams than the 0.10 container has, two compressions
    for bad in "--format 0.10 -j 4" "--lz4 -z 3" "--lz4hc --lz4" "-z 23" "-j 256" "--strip lMx"; do
        # shellcheck disable=SC2086
        "$capture" -o "$tmp/bad.tracy" $bad --recover "$recording" >/dev/null 2>"$tmp/bad.err"
        rc=$?
        if [ $rc -eq 1 ] && [ ! -e "$tmp/bad.tracy" ] && [ -s "$tmp/bad.err" ]; then
            echo "ok   $bad: exit 1 ($(head -1 "$tmp/bad.err"))"
        else
            fail "$bad: exit $rc, or a file was written"
            cat "$tmp/bad.err"
        fi
        rm -f "$tmp/bad.tracy"
    done
}

# Each letter on its own, then all at once in older formats.
check_strips() {
    for l in l m p M i c s C S; do check_strip 0.14.0 "$l"; done
    check_strip 0.14.0 lmpMicsCS
    for fmt in 0.13.0 0.12.2 0.11.0 0.10.0; do
        [ -e "$tmp/ref-$fmt.summary" ] || reference "$fmt"
        check_strip "$fmt" lmpMicsCS
    done
}

case $mode in
fixture)
    fx=${2:?} capture=${3:?} reader=${4:?}
    if [ ! -f "$fx/client-to-server.bin" ]; then
        echo "SKIP: fixture $fx not found (../shared is absent)"
        exit 77
    fi
    recording="$fx/client-to-server.bin"
    check_compression
    check_strips
    ;;
client)
    client=${2:?} capture=${3:?} reader=${4:?}
    "$client" -p 0 -S everything -q >"$tmp/client.out" 2>&1 &
    cpid=$!
    wait_listening "$tmp/client.out" "the test client"
    if ! "$capture" -o "$tmp/live.tracy" -p "$port" --connect-timeout 10 --keep-spool -q; then
        echo "FAIL: the live capture failed"
        exit 1
    fi
    wait $cpid
    cpid=
    recording="$tmp/live.tracy.spool"
    reference 0.14.0
    [ "$(count samples "$tmp/ref-0.14.0.summary")" -gt 0 ] || fail "the 'everything' session has no samples"
    check_mode 0.14.0 7472fd500004 --lz4
    check_strips
    ;;
*)
    echo "usage: check-compress.sh fixture|client ..."
    exit 1
    ;;
esac
exit $status

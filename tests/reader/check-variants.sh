#!/bin/sh
# check-variants.sh: container and strictness tests for tracy-csv on
# variants of a fixture's capture.tracy made with tf-repack:
#  - re-packed with other container settings (zstd/LZ4, 1/3/255 streams,
#    legacy magics): output must be identical to the original's;
#  - broken payloads (trailing bytes, truncation, short chunk, newer version,
#    violated loader assumptions) and broken containers: must exit 2 with a
#    message naming the problem;
#  - with OLD_FIXTURE_DIR (a session of a release before 0.13.3, whose
#    writers could save plot points out of time order): the same plot
#    point moved before its predecessor is sorted back by the loader in
#    that file (same output), and rejected in the 0.14 file.
#
# Usage: check-variants.sh FIXTURE_DIR TRACY_CSV TF_REPACK [OLD_FIXTURE_DIR]
# Exit: 0 pass, 1 failure, 77 (skip) fixture absent.
set -u

fx=${1:?usage: check-variants.sh FIXTURE_DIR TRACY_CSV TF_REPACK}
tool=${2:?}
repack=${3:?}
old_fx=${4:-}
src=$fx/capture.tracy

if [ ! -f "$src" ]; then
    echo "SKIP: fixture $fx not present"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-variants.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

"$tool" "$src" >"$tmp/ref.csv" || { echo "FAIL: original file not accepted"; exit 1; }
"$tool" --sections "$src" >"$tmp/sections" || exit 1

# offset SECTION_NUMBER: payload offset where that section starts
offset() {
    awk -v n="$1" '$1 == n { print $2 }' "$tmp/sections"
}

# same NAME REPACK_OPTIONS...: the re-packed file must give identical output
same() {
    name=$1
    shift
    if ! "$repack" "$@" "$src" "$tmp/$name.tracy"; then
        echo "FAIL $name: tf-repack failed"
        status=1
        return
    fi
    if "$tool" "$tmp/$name.tracy" >"$tmp/$name.csv" && cmp -s "$tmp/ref.csv" "$tmp/$name.csv"; then
        echo "ok   $name: same output"
    else
        echo "FAIL $name: output differs or file rejected"
        status=1
    fi
    rm -f "$tmp/$name.tracy" "$tmp/$name.csv"
}

# rejected NAME FILE EXPECTED_MESSAGE_PART: tracy-csv must exit 2 and say it
rejected() {
    name=$1 file=$2 want=$3
    "$tool" "$file" >/dev/null 2>"$tmp/$name.err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q -- "$want" "$tmp/$name.err"; then
        echo "ok   $name: rejected ($(head -n 1 "$tmp/$name.err"))"
    else
        echo "FAIL $name: exit $rc, expected 2 with \"$want\"; stderr:"
        cat "$tmp/$name.err"
        status=1
    fi
}

# broken NAME EXPECTED_MESSAGE_PART REPACK_OPTIONS...
broken() {
    name=$1 want=$2
    shift 2
    if "$repack" "$@" "$src" "$tmp/$name.tracy"; then
        rejected "$name" "$tmp/$name.tracy" "$want"
    else
        echo "FAIL $name: tf-repack failed"
        status=1
    fi
    rm -f "$tmp/$name.tracy"
}

same zstd-1 --streams 1
same zstd-3 --streams 3
same zstd-255 --streams 255
same lz4-4 --lz4 --streams 4
same lz4-1 --lz4 --streams 1
same legacy-zstd --legacy
same legacy-lz4 --legacy --lz4

broken trailing "trailing bytes" --append 1
broken truncated "unexpected end of payload" --truncate 1
broken short-chunk "not 65536" --short-chunk
broken newer-version "unsupported file version" --patch 7=01
broken not-tracy-payload "does not start" --patch 0=58
broken thread-placeholder "entry 0 must be the placeholder" --patch "$(($(offset 10) + 8))=01"
broken extra-sentinel "entry 0 must be all zero" --patch "$(($(offset 19) + 8))=01"
# first §5.15 id -> 32766, an id nothing defines: its zones become unlisted
broken srcloc-unlisted "not listed in section 15" --patch "$(($(offset 15) + 8))=fe7f"
# first message id changed: the thread list now names an unknown message
broken message-owner "not referenced by any thread" --patch "$(($(offset 18) + 8))=ff"
# start delta of the first thread's first child zone -> -1: starts before its parent
# (section 20: 3 counts, thread header 33 bytes, parent zone 18 bytes, child srcloc 2)
broken zone-nesting "lies outside its parent" --patch "$(($(offset 20) + 24 + 33 + 18 + 2))=ffffffffffffffff"
# high byte of the first thread's zoneCount
broken thread-zone-count "zoneCount" --patch "$(($(offset 20) + 24 + 15))=7f"
# high byte of the first memory pool's freedCount
broken mem-freed "freedCount" --patch "$(($(offset 23) + 16 + 31))=7f"

# The second point of the first plot moved 1 ns before the first (its
# delta -1; section 22: plot count 8, plot header 40, point count 8, first
# point 16 bytes).
unsorted_plot_patch() {
    printf '%s=ffffffffffffffff' "$(($("$tool" --sections "$1" | awk '$1 == 22 { print $2 }') + 72))"
}
broken unsorted-plot "plot 0 point 1: out of time order" --patch "$(unsorted_plot_patch "$src")"
if [ -n "$old_fx" ] && [ -f "$old_fx/capture.tracy" ]; then
    old=$old_fx/capture.tracy
    "$tool" "$old" >"$tmp/old-ref.csv" || { echo "FAIL: $old not accepted"; status=1; }
    if "$repack" --patch "$(unsorted_plot_patch "$old")" "$old" "$tmp/old-unsorted.tracy" &&
        "$tool" "$tmp/old-unsorted.tracy" >"$tmp/old-unsorted.csv" && cmp -s "$tmp/old-ref.csv" "$tmp/old-unsorted.csv"; then
        echo "ok   old-unsorted-plot: sorted by the loader in a $(basename "$old_fx") file"
    else
        echo "FAIL old-unsorted-plot: an old file's unsorted plot was not sorted back"
        status=1
    fi
elif [ -n "$old_fx" ]; then
    echo "note: $old_fx not present, old-unsorted-plot skipped"
fi

# container-level damage
head -c "$(($(wc -c <"$src") - 1))" "$src" >"$tmp/cut.tracy"
rejected cut-file "$tmp/cut.tracy" "exceeds end of file"
printf 'XXXX' >"$tmp/magic.tracy"
rejected bad-magic "$tmp/magic.tracy" "not a Tracy dump"

# --lenient prints the problem but still produces output
"$repack" --patch "$(($(offset 19) + 8))=01" "$src" "$tmp/lenient.tracy" &&
    "$tool" --lenient "$tmp/lenient.tracy" >"$tmp/lenient.csv" 2>/dev/null &&
    cmp -s "$tmp/ref.csv" "$tmp/lenient.csv" && echo "ok   lenient" ||
    { echo "FAIL lenient"; status=1; }

exit $status

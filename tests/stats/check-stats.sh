#!/bin/sh
# check-stats.sh: tracy-stats of a fixture's files against what upstream's
# tracy-csvexport printed for them, byte for byte, with each option:
#  - capture.tracy (the release's own format) against that release's own
#    csvexport: the fixture's own/ files (older releases) or its csv files
#    (0.14 sessions): default, -e, -m, -u, and -g (an older release without
#    -g: refused, exit 1, nothing printed);
#  - capture-0140.tracy (the same converted to 0.14), and capture.tracy with
#    --release 0.14.0, against the fixture's csv files (0.14.0's);
#  - -s and -f/-c against what the csv files give with the separator
#    replaced or the rows filtered (where no field holds a comma);
#  - --truncated_mean (and -t), -u -e and -u -p against expected/FIXTURE/,
#    made by each release's csvexport (make-expected.sh); a release
#    without the option refuses it;
#  - a file that is missing or cut short: exit 1, the file and what is
#    wrong named.
#
# Usage: check-stats.sh FIXTURE_DIR TRACY_STATS EXPECTED_DIR
# Exit: 0 all equal, 1 a difference or failure, 77 (skip) fixture absent.
set -u

fx=${1:?usage: check-stats.sh FIXTURE_DIR TRACY_STATS EXPECTED_DIR}
tool=${2:?}
expected=${3:?}/$(basename "$fx")
name=$(basename "$fx")

if [ ! -f "$fx/capture.tracy" ]; then
    echo "SKIP: fixture $fx not present"
    exit 77
fi
command -v zstd >/dev/null 2>&1 || { echo "SKIP: zstd is needed to read the unwrap files"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-stats.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# compare WHAT EXPECTED_FILE TRACE OPTIONS...
compare() {
    what=$1 want=$2 trace=$3
    shift 3
    if ! "$tool" "$@" "$trace" >"$tmp/out" 2>"$tmp/err"; then
        echo "FAIL $what: tracy-stats $* $(basename "$trace") exited with an error:"
        cat "$tmp/err"
        status=1
    elif cmp -s "$want" "$tmp/out"; then
        echo "ok   $what ($(wc -l <"$tmp/out") lines)"
    else
        echo "FAIL $what: tracy-stats $* $(basename "$trace") differs from $want:"
        diff "$want" "$tmp/out" | head -10
        status=1
    fi
}

# refused WHAT MESSAGE_PART TRACE OPTIONS...: exit 1, nothing printed, said why
refused() {
    what=$1 part=$2 trace=$3
    shift 3
    "$tool" "$@" "$trace" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q -- "$part" "$tmp/err"; then
        echo "ok   $what refused ($(head -n 1 "$tmp/err"))"
    else
        echo "FAIL $what: exit $rc (1 expected), $(wc -c <"$tmp/out") bytes out, stderr:"
        cat "$tmp/err"
        status=1
    fi
}

unzst() { zstd -q -dc "$1" >"$2" || { echo "FAIL: cannot decompress $1"; exit 1; }; }

# the five modes of a file against a directory's csv files
five() { # LABEL DIR TRACE [OPTIONS...]
    label=$1 dir=$2 trace=$3
    shift 3
    unzst "$dir/unwrap.csv.zst" "$tmp/unwrap.$label"
    compare "$label default" "$dir/capture.csv" "$trace" "$@"
    compare "$label -e" "$dir/self.csv" "$trace" "$@" -e
    compare "$label -m" "$dir/messages.csv" "$trace" "$@" -m
    compare "$label -u" "$tmp/unwrap.$label" "$trace" "$@" -u
    if [ -f "$dir/gpu.csv" ]; then
        compare "$label -g" "$dir/gpu.csv" "$trace" "$@" -g
    else
        refused "$label -g" "has no -g" "$trace" "$@" -g
    fi
}

own=$fx
[ -d "$fx/own" ] && own=$fx/own
five own "$own" "$fx/capture.tracy"
if [ -f "$fx/capture-0140.tracy" ]; then
    five 0140 "$fx" "$fx/capture-0140.tracy"
    five release-0.14 "$fx" "$fx/capture.tracy" --release 0.14.0
fi

# -s: the csv file with its commas replaced, where every line has its
# fields' count (no field holds a comma)
separated() { # WHAT CSV FIELDS SEP OPTIONS...
    what=$1 csv=$2 n=$3 sep=$4
    shift 4
    if awk -F, -v n="$n" 'NF != n { bad = 1 } END { exit bad }' "$csv"; then
        awk -F, -v OFS="$sep" '{ $1 = $1; print }' "$csv" >"$tmp/sep.csv"
        compare "$what" "$tmp/sep.csv" "$fx/capture.tracy" "$@" -s "$sep"
    else
        echo "note $what skipped: a field of $csv holds a comma"
    fi
}
separated "-s ;" "$own/capture.csv" 10 ";"
separated "-e -s ::" "$own/self.csv" 10 "::" -e
separated "-m -s |" "$own/messages.csv" 2 "|" -m

# -f: the rows whose name contains the text (any case; with -c this case)
awk -F, 'NR == 1 || index(tolower($1), "e")' "$own/capture.csv" >"$tmp/f.csv"
compare "-f E" "$tmp/f.csv" "$fx/capture.tracy" -f E
awk -F, 'NR == 1 || index($1, "e")' "$own/capture.csv" >"$tmp/fc.csv"
compare "-c -f e" "$tmp/fc.csv" "$fx/capture.tracy" -c -f e
awk -F, 'NR == 1' "$own/capture.csv" >"$tmp/none.csv"
compare "-c -f E (no name)" "$tmp/none.csv" "$fx/capture.tracy" -c -f E

# what upstream printed for the options no fixture file holds
if [ -f "$expected/tmean.csv" ]; then
    compare "--truncated_mean" "$expected/tmean.csv" "$fx/capture.tracy" --truncated_mean
    compare "-t" "$expected/tmean.csv" "$fx/capture.tracy" -t
    compare "-e --truncated_mean=50" "$expected/tmean-self.csv" "$fx/capture.tracy" -e --truncated_mean=50
    compare "-et50" "$expected/tmean-self.csv" "$fx/capture.tracy" -et50
else
    refused "--truncated_mean" "has no --truncated_mean" "$fx/capture.tracy" --truncated_mean
fi
if [ -f "$expected/unwrap-self.csv.zst" ]; then
    unzst "$expected/unwrap-self.csv.zst" "$tmp/uself.csv"
    case $name in
    memory) compare "-u -e" "$tmp/uself.csv" "$fx/capture.tracy" -u -e ;;
    *) compare "-u -e -f frame" "$tmp/uself.csv" "$fx/capture.tracy" -u -e -f frame ;;
    esac
fi
if [ -f "$expected/plot.csv.zst" ]; then
    unzst "$expected/plot.csv.zst" "$tmp/plot.csv"
    compare "-u -p -f NOMATCH" "$tmp/plot.csv" "$fx/capture.tracy" -u -p -f NOMATCH
else
    refused "-u -p" "has no -p" "$fx/capture.tracy" -u -p
fi

# files it cannot read
refused "a missing file" "cannot open $tmp/none.tracy" "$tmp/none.tracy"
head -c "$(($(wc -c <"$fx/capture.tracy") / 2))" "$fx/capture.tracy" >"$tmp/cut.tracy"
refused "a file cut short" "cut.tracy: container: block" "$tmp/cut.tracy"

exit $status

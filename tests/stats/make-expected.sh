#!/bin/sh
# make-expected.sh: (run by hand, not by the tests) make expected/FIXTURE/
# with what each release's own tracy-csvexport prints for the options the
# fixtures hold no csv file of, for check-stats.sh:
#   tmean.csv          --truncated_mean            (0.13.1 and 0.14.0)
#   tmean-self.csv     -e --truncated_mean=50      (0.13.1 and 0.14.0)
#   unwrap-self.csv.zst  -u -e -f frame (kitchen*), -u -e (memory)
#   plot.csv.zst       -u -p -f NOMATCH: the header and the file's plots
#                      (5479a42 on), of the fixture stripped of its memory
#                      events by the same release's tracy-update -s M, for
#                      upstream also prints the memory-usage plots it rebuilds
#                      in threads that race with its output (tracy-stats
#                      does not; check-stats.sh compares the rest).
# -g output is retried: upstream's occasionally holds only the header.
#
# Usage: make-expected.sh FIXTURES_DIR UPSTREAM_DIR
#   (UPSTREAM_DIR/<tag>/tracy-csvexport, tracy-update for every release)
set -eu
fixtures=${1:?usage: make-expected.sh FIXTURES_DIR UPSTREAM_DIR}
upstream=${2:?}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tag_of() {
    case $1 in
    *-0100) echo v0.10 ;; *-0110) echo v0.11.0 ;; *-0111) echo v0.11.1 ;;
    *-5479a42) echo 5479a42 ;; *-0122) echo v0.12.2 ;; *-0131) echo v0.13.1 ;;
    *) echo v0.14.0 ;;
    esac
}

for dir in "$fixtures"/*/; do
    fx=$(basename "$dir")
    [ -f "$dir/capture.tracy" ] || continue
    tag=$(tag_of "$fx")
    csvx=$upstream/$tag/tracy-csvexport
    out=$here/expected/$fx
    mkdir -p "$out"
    case $tag in
    v0.13.1|v0.14.0)
        "$csvx" --truncated_mean "$dir/capture.tracy" >"$out/tmean.csv"
        "$csvx" -e --truncated_mean=50 "$dir/capture.tracy" >"$out/tmean-self.csv" ;;
    esac
    case $fx in
    kitchen*) "$csvx" -u -e -f frame "$dir/capture.tracy" | zstd -q -19 >"$out/unwrap-self.csv.zst" ;;
    memory) "$csvx" -u -e "$dir/capture.tracy" | zstd -q -19 >"$out/unwrap-self.csv.zst" ;;
    esac
    case $tag in
    v0.10|v0.11.0|v0.11.1) ;;
    *)
        "$upstream/$tag/tracy-update" -s M "$dir/capture.tracy" "$tmp/stripped.tracy" >/dev/null
        "$csvx" -u -p -f NOMATCH "$tmp/stripped.tracy" | zstd -q -19 >"$out/plot.csv.zst"
        rm -f "$tmp/stripped.tracy" ;;
    esac
    echo "$fx ($tag): $(ls "$out" | tr '\n' ' ')"
done

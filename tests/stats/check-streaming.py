#!/usr/bin/env python3
"""check-streaming.py TRACY_STATS TRACY_CAPTURE TEST_CLIENT: tracy-stats'
peak memory grows with the source locations and threads, not with the
zones.

Two traces of the test client's `zones` scenario (4 threads, 2 source
locations), one with ten times the zones of the other (1 M and 10 M),
are captured by tracy-capture; tracy-stats' peak RSS on each, by default
and with -e, must differ by less than 4 MB (the zones alone would take
hundreds). As a check that the measure sees memory per zone at all, -u
(which keeps every zone, as it prints them) must grow by more than 10 MB
between the smaller trace and a trace of a quarter of it. Exit 0 pass,
1 fail."""
import os
import re
import subprocess
import sys
import tempfile

LIMIT = 4 << 20
SMALL, LARGE = 250000, 2500000   # zones per thread (4 zones a round: 1 outer, 3 inner)


def capture(client, tracy_capture, zones, out):
    c = subprocess.Popen([client, "--port", "0", "--timeout", "0", "-q", "--scenario", "zones", "--threads", "4",
                          "--zones", str(zones)], stderr=subprocess.PIPE, text=True)
    port = re.search(r"listening on 127\.0\.0\.1:(\d+)", c.stderr.readline()).group(1)
    subprocess.run([tracy_capture, "-o", out, "-f", "-q", "-p", port], check=True)
    c.wait()


def peak_rss(tool, args, trace):
    p = subprocess.Popen([tool] + args + [trace], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit("FAIL: tracy-stats %s exited with status %d" % (" ".join(args), status))
    return usage.ru_maxrss * 1024


def main():
    tool, tracy_capture, client = sys.argv[1:4]
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        traces = {}
        for zones in (SMALL // 4, SMALL, LARGE):
            traces[zones] = os.path.join(tmp, "zones-%d.tracy" % zones)
            capture(client, tracy_capture, zones, traces[zones])
        for args in ([], ["-e"]):
            small, large = peak_rss(tool, args, traces[SMALL]), peak_rss(tool, args, traces[LARGE])
            ok = large - small < LIMIT
            fail |= not ok
            print("%s tracy-stats %s: peak RSS %.1f MB with %d zones, %.1f MB with %d" % (
                "ok  " if ok else "FAIL", " ".join(args) or "(default)", small / 2**20, 4 * SMALL,
                large / 2**20, 4 * LARGE))
        quarter, small = peak_rss(tool, ["-u"], traces[SMALL // 4]), peak_rss(tool, ["-u"], traces[SMALL])
        ok = small - quarter > 10 << 20
        fail |= not ok
        print("%s tracy-stats -u (keeps every zone): peak RSS %.1f MB with %d zones, %.1f MB with %d" % (
            "ok  " if ok else "FAIL", quarter / 2**20, SMALL, small / 2**20, 4 * SMALL))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())

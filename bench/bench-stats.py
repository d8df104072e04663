#!/usr/bin/env python3
"""bench-stats.py - time and peak memory of tracy-stats, side by side with
upstream's tracy-csvexport, on the 100 M-zone trace.

  bench/bench-stats.py [--runs N] [--scale S] [--modes ",-e"] [--cache DIR] [--build DIR]

The trace is bench.py's `zones` session (4 threads x 25 million zones;
--scale multiplies it), generated once by our test client into a recording
(cached in --cache, shared with bench.py) and made into a .tracy file once
by our tracy-capture --recover. Then our build's tracy-stats and, when
TRACY_UPSTREAM_CSVEXPORT names an upstream tracy-csvexport binary (0.14.0:
the trace is in the 0.14.0 format), that one too are run on it
alternately, --runs times each, for each mode in --modes (csvexport
options; "" is the default statistics); their outputs must be equal. Per
tool it prints the medians of the wall time, the CPU time (user + system,
all threads) and the peak RSS, and the ratios ours/upstream.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402  (the session generator and its cache)


def ensure_built(build):
    targets = ["src/tracy-stats", "src/tracy-capture", "tests/client/tracy-test-client"]
    if not os.path.exists(os.path.join(build, "build.ninja")):
        sys.exit("bench-stats.py: %s is no meson build directory: run 'meson setup %s' first (or name one with "
                 "--build)" % (build, build))
    r = subprocess.run(["meson", "compile", "-C", build] + targets, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("bench-stats.py: building %s failed:\n%s" % (", ".join(targets), r.stderr.strip()))


def make_trace(args):
    """The zones session's recording (bench.py's cache) and its .tracy file."""
    recording = os.path.join(args.cache, "zones-%g.bin" % args.scale)
    if not os.path.exists(recording):
        bench.generate(args, "zones", recording)
    trace = os.path.join(args.cache, "zones-%g-stats.tracy" % args.scale)
    if not os.path.exists(trace):
        capture = os.path.join(args.build, "src", "tracy-capture")
        subprocess.run([capture, "-q", "-f", "-o", trace, "--recover", recording], check=True,
                       stderr=subprocess.DEVNULL)
    return trace


def run(binary, mode, trace, out):
    """One run: (wall s, CPU s, peak RSS bytes); its output goes to out."""
    with open(out, "wb") as f:
        t0 = time.monotonic()
        p = subprocess.Popen([binary] + mode.split() + [trace], stdout=f, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        t1 = time.monotonic()
    if status != 0:
        raise RuntimeError("%s %s exited with status %d" % (binary, mode, status))
    return t1 - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--modes", default=",-e", help="comma-separated csvexport options per run ('' = default)")
    ap.add_argument("--cache", default=os.path.join(ROOT, "build", "bench-cache"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    ensure_built(args.build)
    os.makedirs(args.cache, exist_ok=True)
    upstream = os.environ.get("TRACY_UPSTREAM_CSVEXPORT")
    ours = os.path.join(args.build, "src", "tracy-stats")
    print("machine: %d cores, %.1f GB RAM" % (os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
                                              / 2**30))
    if not upstream:
        print("TRACY_UPSTREAM_CSVEXPORT is not set: measuring ours only")
    trace = make_trace(args)
    print("trace: %s, %.1f MB, %d M zones" % (trace, os.path.getsize(trace) / 1e6, round(100 * args.scale)))
    tools = {"ours": ours}
    if upstream:
        tools["upstream"] = upstream
    for mode in args.modes.split(","):
        results = {k: [] for k in tools}
        outs = {k: os.path.join(args.cache, "stats-%s.csv" % k) for k in tools}
        for _ in range(args.runs):
            for k, binary in tools.items():
                results[k].append(run(binary, mode, trace, outs[k]))
        same = ""
        if upstream:
            with open(outs["ours"], "rb") as a, open(outs["upstream"], "rb") as b:
                same = "; outputs equal" if a.read() == b.read() else "; OUTPUTS DIFFER"
        print("\n== tracy-stats %s%s" % (mode or "(default)", same))
        print("  %-9s %8s %8s %9s" % ("tool", "wall s", "CPU s", "RSS MB"))
        med = {}
        for k, rs in results.items():
            med[k] = [statistics.median(r[i] for r in rs) for i in range(3)]
            print("  %-9s %8.2f %8.2f %9.1f" % (k, med[k][0], med[k][1], med[k][2] / 2**20))
        if upstream:
            ratio = [med["ours"][i] / med["upstream"][i] if med["upstream"][i] else float("nan") for i in range(3)]
            print("  %-9s %8.2f %8.2f %9.2f" % ("ratio", *ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())

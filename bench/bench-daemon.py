#!/usr/bin/env python3
"""bench-daemon.py - many clients at once: our tracy-capture-daemon side by
side with upstream's (TRACY_UPSTREAM_DAEMON).

  bench/bench-daemon.py [--clients 8] [--runs 1] [--sessions zones,memory]
                        [--scale S] [--cache DIR] [--build DIR] [--settle S]

Each session of bench.py (generated once by our test client into a
recording, cached) is replayed --clients times at once
(../shared/tools/tracy-replay), every replay announced on loopback as a
0.14.0 client announces itself (tests/e2e/announce.py, to 127.255.255.255
only), into one daemon listening on a free UDP port: ours with
--max-clients N (it ends by itself once every trace is saved), upstream's
until it has said "done!" for every client (then SIGINT, as it cannot end
by itself). The replays are all started first, listening, and then
announced at once by one announcer. Per daemon it prints the wall time
from the announcer's start to the last trace saved, the CPU time (user + system, all threads), the peak RSS
of the daemon process and the size of each client's file, and the ratios
ours/upstream (the target: wall and RSS at most 0.5).
"""
import argparse
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ANNOUNCE = os.path.join(ROOT, "tests", "e2e", "announce.py")

spec = importlib.util.spec_from_file_location("bench", os.path.join(HERE, "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_times():
    """The machine's busy and idle time so far (s, all cores; iowait is idle)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    hz = os.sysconf("SC_CLK_TCK")
    idle = v[3] + v[4]
    return (sum(v) - idle) / hz, idle / hz


def run_daemon(binary, ours, recording, clients, workdir):
    """One run: (wall s, CPU s, peak RSS bytes, [file bytes], status,
    others' CPU s, idle core-s): the last two from the announcement to the
    last trace saved, the CPU of everything but the daemon (the replays,
    their announcers, the kernel's threads) and the cores' idle time."""
    out = os.path.join(workdir, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    udp = free_udp_port()
    args = [binary, "-o", out, "-p", str(udp)]
    if ours:
        args += ["--max-clients", str(clients), "--end-timeout", "5"]
    elif shutil.which("stdbuf"):
        # its " done!" lines wait in stdio's buffer in a pipe: line-buffer it
        args = ["stdbuf", "-oL"] + args
    # the recording read once, so that every replay finds it in the page
    # cache: a run after upstream's (20 GB for 8 x 100 M zones) would
    # otherwise have its replays wait for the disk
    with open(recording, "rb") as f:
        while f.read(1 << 24):
            pass
    d = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    saved = []
    marker = re.compile(rb"\] saved |done!")

    def watch():
        for line in iter(d.stdout.readline, b""):
            # upstream's "Saving X... done!" may share a line with others
            for _ in marker.finditer(line):
                saved.append(time.monotonic())

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    ended = []

    def reap():
        _, status, usage = os.wait4(d.pid, 0)
        ended.append((status, usage))

    r = threading.Thread(target=reap, daemon=True)
    r.start()
    time.sleep(0.3)                 # the daemon listens
    helpers = []
    try:
        # every replay listening first, then all announced at once by one
        # announcer: the clients appear together, and the replays' start
        # (a Python process each, reading its recording) is not timed
        announce = [sys.executable, ANNOUNCE, "--udp-port", str(udp), "--protocol", "82", "--name", "bench"]
        for _ in range(clients):
            replay, port = bench.start_replay(recording)
            helpers.append(replay)
            announce += ["--port", port, "--pid", str(replay.pid)]
        t0 = time.monotonic()
        busy0, idle0 = cpu_times()
        helpers.append(subprocess.Popen(announce))
        while len(saved) < clients and not ended:
            time.sleep(0.05)
        t_last = saved[-1] if len(saved) >= clients else time.monotonic()
        busy1, idle1 = cpu_times()
        if not ours and not ended:
            d.send_signal(2)
        r.join()
        status, usage = ended[0]
    finally:
        for h in helpers:
            h.kill()
            h.wait()
    w.join(5)
    sizes = sorted(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.endswith(".tracy"))
    cpu = usage.ru_utime + usage.ru_stime
    return (t_last - t0, cpu, usage.ru_maxrss * 1024, sizes, status, busy1 - busy0 - cpu, idle1 - idle0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--sessions", default="zones,memory")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--cache", default=os.path.join(ROOT, "build", "bench-cache"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--settle", type=float, default=5.0,
                    help="seconds to wait after each run (default 5)")
    args = ap.parse_args()
    bench.ensure_built(args.build)
    r = subprocess.run(["meson", "compile", "-C", args.build, "src/tracy-capture-daemon"], stdout=subprocess.DEVNULL)
    if r.returncode:
        sys.exit("bench-daemon.py: building tracy-capture-daemon failed")
    ours = os.path.join(args.build, "src", "tracy-capture-daemon")
    upstream = os.environ.get("TRACY_UPSTREAM_DAEMON")
    os.makedirs(args.cache, exist_ok=True)
    print("machine: %d cores, %.1f GB RAM; %d clients at once" % (
        os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, args.clients))
    if not upstream:
        print("TRACY_UPSTREAM_DAEMON is not set: measuring ours only")
    work = tempfile.mkdtemp(prefix="bench-daemon-", dir=args.cache)
    try:
        for name in args.sessions.split(","):
            recording = os.path.join(args.cache, "%s-%g.bin" % (name, args.scale))
            if not os.path.exists(recording):
                bench.generate(args, name, recording)
            print("\n== %s x %d: %.1f MB on the wire each" % (name, args.clients, os.path.getsize(recording) / 1e6))
            print("  %-9s %8s %8s %9s %8s %7s  %s" % ("daemon", "wall s", "CPU s", "RSS MB", "others", "idle", "files MB"))
            med = {}
            tools = [(t, b) for t, b in (("ours", ours), ("upstream", upstream)) if b]
            # the tools take turns, run by run, so that a machine whose
            # speed drifts (a VM's neighbours) weighs on both alike
            all_runs = {t: [] for t, _ in tools}
            for _ in range(args.runs):
                for tool, binary in tools:
                    all_runs[tool].append(run_daemon(binary, tool == "ours", recording, args.clients, work))
                    # a VM's kernel takes seconds to settle after a run
                    # that freed many GB; the next run would pay for it
                    time.sleep(args.settle)
            for tool, binary in tools:
                runs = all_runs[tool]
                walls = " ".join("%.2f" % r[0] for r in runs)
                runs.sort(key=lambda x: x[0])
                wall, cpu, rss, sizes, status, others, idle = runs[len(runs) // 2]
                med[tool] = (wall, cpu, rss, others, idle)
                note = "" if len(sizes) == args.clients else "  (%d files!)" % len(sizes)
                if tool == "ours" and status != 0:
                    note += "  (exit status %d)" % (status >> 8)
                print("  %-9s %8.2f %8.2f %9.0f %8.2f %7.2f  %s%s" % (tool, wall, cpu, rss / 2**20, others, idle,
                                                                    " ".join("%.1f" % (s / 1e6) for s in sizes), note))
                if args.runs > 1:
                    print("  %-9s (wall of each run, in order: %s)" % ("", walls))
            if "upstream" in med:
                o, u = med["ours"], med["upstream"]
                print("  %-9s %8.2f %8.2f %9.2f   (the target: wall and RSS at most 0.5)" % (
                    "ratio", o[0] / u[0], o[1] / u[1], o[2] / u[2]))
                # with every core busy, wall = (daemon + others + idle) / cores:
                # the daemon CPU at which ours would take half of upstream's wall
                cores = os.cpu_count() or 1
                need = 0.5 * u[0] * cores - o[3] - o[4]
                print("  %-9s ours would need %.2f s of CPU (now %.2f) for half of upstream's wall, "
                      "with its others and idle time unchanged" % ("bound", need, o[1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""bench.py - speed and memory of tracy-capture, side by side with upstream.

  bench/bench.py [--runs N] [--sessions zones,memory,threads] [--scale S]
                 [--cache DIR] [--build DIR]

Each session is generated once by our test client (tests/client) into a
recording of every byte a client sends (cached in --cache), so generating
and compressing it is not what is measured. Each recording is then replayed
(../shared/tools/tracy-replay, as fast as a local socket carries it) into
our build's tracy-capture and, when TRACY_UPSTREAM_CAPTURE names an
upstream tracy-capture binary, into that one too, alternately, --runs times
each. Per tool it prints the medians of: the time until the client has
handed over its last byte (the replayer's own "sent" time: how long the
profiled program is held by its capture), time taking the data in (until
the capture prints "Saving trace": everything received, decoded and
processed), time saving, total wall time, CPU time (user + system, all
threads), peak RSS and file size, and the ratios ours/upstream. It also prints the physical limits
measured on this machine: the wire (the recording sent into a sink), LZ4
decoding of the stream, and zstd level-3 compression of our payload.

Sessions (--scale multiplies their size; 1.0 is the issue's shape):
  zones    4 threads x 25 million zones (outer + 3 inner), 100 M zones
  memory   2 threads x 30000 batches of 100 allocations/frees with call stacks
  threads  256 threads with nested zones, messages and plots
"""
import argparse
import os
import re
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REPLAY = os.path.join(ROOT, "..", "shared", "tools", "tracy-replay")

SESSIONS = {
    "zones": lambda s: ["--scenario", "zones", "--threads", "4", "--zones", str(int(25000000 * s))],
    "memory": lambda s: ["--scenario", "memory", "--threads", "2", "--zones", str(int(30000 * s))],
    "threads": lambda s: ["--scenario", "threads", "--threads", "256", "--zones", str(max(1, int(4000 * s)))],
}


def start_replay(recording):
    p = subprocess.Popen([sys.executable, REPLAY, "--port", "0", "--linger", "120", recording],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = p.stderr.readline()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    if not m:
        raise RuntimeError("replay did not start: " + line)
    return p, m.group(1)


def generate(args, name, recording):
    """Record a session of our test client (captured by our tool)."""
    client = os.path.join(args.build, "tests", "client", "tracy-test-client")
    capture = os.path.join(args.build, "src", "tracy-capture")
    tmp = recording + ".part"
    c = subprocess.Popen([client, "--port", "0", "--record", tmp, "--timeout", "0", "-q"] + SESSIONS[name](args.scale),
                         stderr=subprocess.PIPE, text=True)
    port = re.search(r":(\d+)", c.stderr.readline()).group(1)
    t0 = time.monotonic()
    subprocess.run([capture, "-o", recording + ".tracy", "-f", "-q", "-p", port],
                   check=True)
    c.wait()
    os.rename(tmp, recording)
    os.unlink(recording + ".tracy")
    print("generated %s: %.1f MB in %.1f s" % (name, os.path.getsize(recording) / 1e6, time.monotonic() - t0))


COLUMNS = ("sent s", "in s", "save s", "total s", "CPU s", "RSS MB", "file MB")


REPLAYER_CPU = []


def wait_replay(replay):
    """Reap the replayer; its CPU seconds (it shares the machine's cores)."""
    _, status, usage = os.wait4(replay.pid, 0)
    replay.returncode = status
    return usage.ru_utime + usage.ru_stime


def replay_sent_seconds(replay):
    """The replayer's "sent N/N bytes in X s" (from its connection on)."""
    m = re.search(r"sent (\d+)/(\d+) bytes in ([0-9.]+) s", replay.stderr.read())
    if not m or m.group(1) != m.group(2):
        raise RuntimeError("the replayer did not send the whole recording")
    return float(m.group(3))


def run_capture(binary, recording, out, upstream):
    """One replay into one capture: (client sent s, data-in s, save s, total s, CPU s (user + system, all
    threads), peak RSS bytes, file bytes)."""
    replay, port = start_replay(recording)
    args = [binary, "-o", out, "-f", "-p", port]
    if not upstream:
        args += ["--end-timeout", "5"]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    saving = [None]

    def watch():
        buf = b""
        while True:
            d = p.stdout.read1(65536) if hasattr(p.stdout, "read1") else p.stdout.read(1)
            if not d:
                return
            buf = (buf + d)[-64:]
            if saving[0] is None and b"Saving trace" in buf:
                saving[0] = time.monotonic()

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    _, status, usage = os.wait4(p.pid, 0)
    t1 = time.monotonic()
    w.join(5)
    REPLAYER_CPU.append(wait_replay(replay))
    if status != 0:
        raise RuntimeError("%s exited with status %d" % (binary, status))
    t_save = saving[0] if saving[0] else t1
    return (replay_sent_seconds(replay), t_save - t0, t1 - t_save, t1 - t0, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss * 1024, os.path.getsize(out))


def wire_limit(recording):
    """The recording sent by the replay tool into a socket that only reads."""
    replay, port = start_replay(recording)
    s = socket.create_connection(("127.0.0.1", int(port)))
    s.sendall(b"TracyPrf" + struct.pack("<I", 82))
    want = os.path.getsize(recording)
    got = 0
    t0 = time.monotonic()
    while got < want:
        d = s.recv(1 << 20)
        if not d:
            break
        got += len(d)
    dt = time.monotonic() - t0
    s.close()
    replay.kill()
    replay.wait()
    return dt


def ensure_built(build):
    """Build (or bring up to date) the programs the benchmark runs; exit
    with a message saying how when that cannot be done."""
    targets = ["src/tracy-capture", "tests/client/tracy-test-client", "bench/bench-limits"]
    if not os.path.exists(os.path.join(build, "build.ninja")):
        sys.exit("bench.py: %s is no meson build directory: run 'meson setup %s' first (or name one with --build)"
                 % (build, build))
    try:
        r = subprocess.run(["meson", "compile", "-C", build] + targets, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        sys.exit("bench.py: meson is not installed; it builds %s" % ", ".join(targets))
    if r.returncode != 0:
        sys.exit("bench.py: building %s in %s failed:\n%s" % (", ".join(targets), build, r.stderr.strip()))


def fmt_row(name, vals):
    return "  %-9s %8.2f %8.2f %8.2f %8.2f %8.2f %9.0f %9.1f" % (name, *vals[:5], vals[5] / 2**20, vals[6] / 1e6)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sessions", default="zones,memory,threads")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--cache", default=os.path.join(ROOT, "build", "bench-cache"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    ensure_built(args.build)
    if not os.path.exists(REPLAY):
        sys.exit("bench.py: %s is missing: the benchmark replays its sessions with it (../shared beside the project)"
                 % os.path.normpath(REPLAY))
    upstream = os.environ.get("TRACY_UPSTREAM_CAPTURE")
    ours = os.path.join(args.build, "src", "tracy-capture")
    limits = os.path.join(args.build, "bench", "bench-limits")
    os.makedirs(args.cache, exist_ok=True)
    print("machine: %d cores, %.1f GB RAM" % (os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30))
    if not upstream:
        print("TRACY_UPSTREAM_CAPTURE is not set: measuring ours only")

    for name in args.sessions.split(","):
        recording = os.path.join(args.cache, "%s-%g.bin" % (name, args.scale))
        if not os.path.exists(recording):
            generate(args, name, recording)
        print("\n== %s: %.1f MB on the wire" % (name, os.path.getsize(recording) / 1e6))
        results = {"ours": [], "upstream": []}
        out = {k: os.path.join(args.cache, "%s-%s.tracy" % (name, k)) for k in results}
        for _ in range(args.runs):
            results["ours"].append(run_capture(ours, recording, out["ours"], False))
            if upstream:
                results["upstream"].append(run_capture(upstream, recording, out["upstream"], True))
        print("  %-9s %8s %8s %8s %8s %8s %9s %9s" % ("tool", *COLUMNS))
        med = {}
        for k, rs in results.items():
            if not rs:
                continue
            med[k] = [statistics.median(r[i] for r in rs) for i in range(len(COLUMNS))]
            print(fmt_row(k, med[k]))
        if "upstream" in med:
            ratio = [med["ours"][i] / med["upstream"][i] if med["upstream"][i] else float("nan")
                     for i in range(len(COLUMNS))]
            print("  %-9s %8.2f %8.2f %8.2f %8.2f %8.2f %9.2f %9.2f" % ("ratio", *ratio))
        replayer_cpu = statistics.median(REPLAYER_CPU)
        REPLAYER_CPU.clear()
        print("  limits:  wire %.2f s; the replayer itself used %.2f s CPU per run (median)"
              % (wire_limit(recording), replayer_cpu))
        lz4 = subprocess.run([limits, "lz4", recording], capture_output=True, text=True).stdout
        zstd = subprocess.run([limits, "zstd", out["ours"]], capture_output=True, text=True).stdout
        for line in (lz4 + zstd).splitlines():
            print("           " + line)
        m_lz4 = re.search(r"in ([0-9.]+) s", lz4)
        m_zstd = re.search(r", ([0-9.]+) s CPU", zstd)
        if m_lz4 and m_zstd:
            # Work no capture can skip: decode the stream once (one core),
            # compress the file at level 3, and the client's own sending.
            floor = (float(m_lz4.group(1)) + float(m_zstd.group(1)) + replayer_cpu) / os.cpu_count()
            line = "  floor:   %.2f s of total wall on %d cores (LZ4 + zstd + replayer CPU / cores)" % (
                floor, os.cpu_count())
            if "upstream" in med:
                line += "; the 0.5 target is %.2f s" % (0.5 * med["upstream"][3])
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

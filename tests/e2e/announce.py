#!/usr/bin/env python3
"""announce.py - announce a Tracy client the way a real one does, for the
daemon's tests: a version-3 broadcast datagram (protocol-82.md 1.2) sent to
127.255.255.255 only (nothing leaves the machine), every --interval ms,
until killed.

  announce.py --udp-port P --port DATA_PORT --protocol N --pid PID --name NAME

--port and --pid may be repeated, as many times each: one datagram per
client every interval, so that many clients appear at once (the daemon's
benchmark).
"""
import argparse
import socket
import struct
import time


def datagram(port, protocol, pid, active, name):
    raw = name.encode()[:63] + b"\0"
    return struct.pack("<HHIQi", 3, port, protocol, pid, active) + raw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--udp-port", type=int, required=True)
    ap.add_argument("--port", type=int, action="append", required=True)
    ap.add_argument("--protocol", type=int, default=82)
    ap.add_argument("--pid", type=int, action="append", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--interval", type=float, default=100)
    a = ap.parse_args()
    if len(a.port) != len(a.pid):
        ap.error("--port and --pid must be given as many times each")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    start = time.monotonic()
    while True:
        active = int(time.monotonic() - start)
        for port, pid in zip(a.port, a.pid):
            s.sendto(datagram(port, a.protocol, pid, active, a.name), ("127.255.255.255", a.udp_port))
        time.sleep(a.interval / 1000)


if __name__ == "__main__":
    main()

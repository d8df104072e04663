#!/usr/bin/env python3
"""compare-s2c.py [--no-disasm] [--protocol N] OURS UPSTREAM: compare the
bytes a capture sent to the client (handshake + 13-byte query packets) with
upstream's recording. They must be identical. The protocol (default 82)
names the query types in messages: 64 numbers Disconnect 8, CallstackFrame
9 and ExternalName 10.

With --no-disasm (a build without Capstone, which cannot disassemble symbol
code) they must agree up to the first query upstream issued after
disassembling symbol code (a CallstackFrame query for an instruction
address)."""
import struct
import sys

NAMES = ["Terminate", "String", "ThreadString", "SourceLocation", "PlotName", "FrameName",
         "Parameter", "FiberName", "ExternalName", "Disconnect", "CallstackFrame", "Symbol",
         "SymbolCode", "SourceCode", "DataTransfer", "DataTransferPart"]


NAMES_64 = NAMES[:8] + ["Disconnect", "CallstackFrame", "ExternalName"] + NAMES[11:]


def packets(buf):
    return [struct.unpack("<BQI", buf[o:o + 13]) for o in range(12, len(buf) - 12, 13)]


def main():
    args = sys.argv[1:]
    no_disasm, protocol = False, 82
    while args and args[0].startswith("--"):
        if args[0] == "--no-disasm":
            no_disasm, args = True, args[1:]
        elif args[0] == "--protocol":
            protocol, args = int(args[1]), args[2:]
        else:
            print("usage: unknown option %s" % args[0])
            return 2
    names = NAMES_64 if protocol == 64 else NAMES
    symbol_code = names.index("SymbolCode")
    callstack_frame = names.index("CallstackFrame")
    ours = open(args[0], "rb").read()
    theirs = open(args[1], "rb").read()
    if ours[:12] != theirs[:12]:
        print("FAIL: handshake differs")
        return 1
    a, b = packets(ours), packets(theirs)
    n = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    if n == len(a) == len(b):
        print("ok: %d query packets identical to upstream's" % n)
        return 0
    seen_code = any(p[0] == symbol_code for p in b[:n])
    if no_disasm and n < len(b) and b[n][0] == callstack_frame and seen_code:
        print("ok: %d query packets identical to upstream's, up to its first "
              "disassembly-driven CallstackFrame query" % n)
        return 0
    def show(p):
        return "%s(%#x, %d)" % (names[p[0]] if p[0] < len(names) else p[0], p[1], p[2])
    print("FAIL: query %d differs: ours %s, upstream %s" %
          (n, show(a[n]) if n < len(a) else "end", show(b[n]) if n < len(b) else "end"))
    return 1


sys.exit(main())

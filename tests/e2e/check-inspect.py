#!/usr/bin/env python3
"""check-inspect.py INSPECT_TXT SUMMARY: compare a fixture's inspect.txt
(feature counts the upstream 0.14 loader saw in upstream's file) with our
reader's --summary of a file.

Every per-item line of inspect.txt (frame sets, threads, locks, memory
pools, GPU contexts, user plots, app info, sections, cached source files)
must appear verbatim in the summary, and every aggregate count that the
file itself determines must be equal. Loader-side figures (strings
interned by the loader, memory plots it rebuilds, ghost zones,
parameters, which files never hold) are not compared."""
import re
import sys

# inspect.txt key -> our summary key (None: same name)
AGGREGATES = {
    "zones": None, "zoneExtra": None, "gpuZones": None, "srclocs": None,
    "locks": "lockEvents", "messages": None, "appInfo": None,
    "callstacks": None, "callstackFrames": None, "symbols": None,
    "symbolCode": None, "sourceFiles": None, "samples": None,
    "contextSwitches": None, "ctxSwitchPerCpu": None, "hwSamples": None,
    "frameImages": None,
}
BYTES = {"symbolCode": "symbolCodeBytes", "sourceFiles": "sourceFileBytes"}
AGGREGATE_LINE = re.compile(r"^(pid|zones|locks|callstacks|samples):")


def main():
    inspect = open(sys.argv[1]).read().splitlines()
    summary = open(sys.argv[2]).read().splitlines()
    ours = {}
    for line in summary:
        k, sep, v = line.partition(": ")
        if sep and k not in ours:
            ours[k] = v
    present = set(summary)
    bad = 0
    items = 0
    for line in inspect:
        if AGGREGATE_LINE.match(line):
            for key, val, extra in re.findall(r"(\w+(?:\(\w+\))?): (\d+)(?: \((\d+) bytes\))?", line):
                if key not in AGGREGATES:
                    continue
                mine = ours.get(AGGREGATES[key] or key)
                if mine != val:
                    print("FAIL: %s: upstream's loader saw %s, our file has %s" % (key, val, mine))
                    bad += 1
                if extra and ours.get(BYTES[key]) != extra:
                    print("FAIL: %s bytes: upstream's loader saw %s, our file has %s" % (key, extra, ours.get(BYTES[key])))
                    bad += 1
            continue
        if line.startswith(("program:", "capture:", "debug messages", "source files cached:",
                            "threads:", "plot '(internal)'")):
            continue
        items += 1
        if line not in present:
            print("FAIL: missing: %s" % line)
            bad += 1
    if bad:
        return 1
    print("ok: inspect.txt counts and %d item lines match" % items)
    return 0


sys.exit(main())

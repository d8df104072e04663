#!/usr/bin/env python3
"""expect-fields.py STAMP [DELAY] < FIELDS_0140 > EXPECTED

From tracy-csv --format-fields of a trace saved in the 0.14.0 format,
print what the same report must be for that trace saved in the format
stamped STAMP (e.g. 0.12.0) and read back the way v0.14.0's loader reads
it: what the older format cannot hold takes the loader's defaults
(tracy-file-older.md, section 0.2 and 2.2). DELAY is the queue delay the
formats up to 0.12.x carry (default 0).

The rules, written here apart from the writer's table:
  sections, message source/severity   0.14.0 only
  GPU note names, query ids, notes    0.13.0 on   (older: none, ids 0)
  no queue delay                      0.13.0 on   (older: an i64 delay)
  context-switch wake-up CPU          0.12.0 on   (older: the CPU)
  CPU topology die level              0.11.2 on   (older: die 0)
  thread group hint                   0.11.1 on   (older: 0)
"""
import re
import sys


def version(text):
    return tuple(int(x) for x in text.split("."))


def expect(lines, stamp, delay):
    v = version(stamp)
    sections, meta = v >= (0, 14, 0), v >= (0, 14, 0)
    gpu_notes, no_delay = v >= (0, 13, 0), v >= (0, 13, 0)
    wakeup_cpu, dies, group_hint = v >= (0, 12, 0), v >= (0, 11, 2), v >= (0, 11, 1)
    out = []
    messages = 0
    for line in lines:
        if line.startswith("version: "):
            line = "version: " + stamp
        elif line.startswith("delay: "):
            line = "delay: none" if no_delay else "delay: %d" % delay
        elif line.startswith("cpu ") and not dies:
            line = re.sub(r" die \d+ ", " die 0 ", line)
        elif line.startswith("section categories: ") and not sections:
            line = "section categories: 0"
        elif line.startswith("section descriptions: ") and not sections:
            line = "section descriptions: 0"
        elif line.startswith(("section category ", "section description ")) and not sections:
            continue
        elif line.startswith("messages: "):
            messages = int(line.split()[1])
            if not meta:
                out.append(line)
                if messages:
                    out.append("message source 0: %d" % messages)
                    out.append("message severity 2: %d" % messages)
                continue
        elif line.startswith(("message source ", "message severity ")) and not meta:
            continue
        elif " groupHint: " in line and not group_hint:
            line = re.sub(r"groupHint: -?\d+", "groupHint: 0", line)
        elif line.startswith("context switches of thread ") and not wakeup_cpu:
            cpu = re.search(r"cpu sum (\d+)", line).group(1)
            line = re.sub(r"wakeupCpu sum \d+", "wakeupCpu sum " + cpu, line)
            line = re.sub(r"wakeupCpu != cpu: \d+", "wakeupCpu != cpu: 0", line)
        elif line.startswith("gpu ctx ") and not gpu_notes:
            line = re.sub(r"note names \d+, noted queries \d+, notes \d+, zones with a query id \d+, "
                          r"query id sum \d+",
                          "note names 0, noted queries 0, notes 0, zones with a query id 0, query id sum 0",
                          line)
        out.append(line)
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    delay = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    lines = sys.stdin.read().splitlines()
    for line in expect(lines, sys.argv[1], delay):
        print(line)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Decodes the scheduling control bits of sm_90 SASS (cuobjdump -sass output on stdin) next to each instruction.

    scripts/sass.sh --waits OBJECT MANGLED_NAME_SUBSTRING [--all]

Each sm_70+ instruction is 128 bits; bits 105-125 (bits 41-61 of the second 64-bit word cuobjdump prints) hold the
stall count (4 bits), the yield bit, the scoreboard a result sets when it is ready (write barrier, 3 bits; 7 = none),
the scoreboard set until the source registers are read (read barrier, 3 bits) and the scoreboards this instruction
waits on (6-bit mask), then the operand-reuse flags. A wait on a scoreboard waits until every instruction that set
it has finished, so loads that share one scoreboard are waited for together: that is what made the depthwise
kernels' row prefetch useless (NOTE [depthwise async rows]). Counted waits (DEPBAR.LE SBn, k) appear as
instructions.

By default only memory instructions, DEPBARs, barriers, branches and instructions that wait are printed; --all prints
every instruction.
"""
import re
import signal
import sys

LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/")
CONTROL = re.compile(r"^\s*/\* (0x[0-9a-f]+) \*/\s*$")
KEEP = re.compile(r"LDG|STG|LDS|STS|LDGSTS|DEPBAR|BAR|BRA|EXIT|LDC|LDL|STL|ATOM|RED")


def decode(high):
    c = (high >> 41) & 0x1FFFFF
    return {
        "stall": c & 0xF,
        "write": (c >> 5) & 7,
        "read": (c >> 8) & 7,
        "wait": (c >> 11) & 0x3F,
    }


def barrier(b):
    return "-" if b == 7 else str(b)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly
    show_all = "--all" in sys.argv[1:]
    lines = sys.stdin.read().splitlines()
    print("addr     stall set read wait    instruction")
    i = 0
    while i < len(lines):
        m = LINE.match(lines[i])
        if not m or i + 1 >= len(lines):
            if "Function :" in lines[i]:
                print(lines[i].strip())
            i += 1
            continue
        control = CONTROL.match(lines[i + 1])
        if not control:
            i += 1
            continue
        ctl = decode(int(control.group(1), 16))
        text = m.group(2)
        waits = "".join(f"SB{b} " for b in range(6) if ctl["wait"] >> b & 1).strip()
        if show_all or waits or KEEP.search(text):
            print(f"{int(m.group(1), 16):06x}  {ctl['stall']:5d} {barrier(ctl['write']):>3} {barrier(ctl['read']):>4} "
                  f"{waits:<7} {text}")
        i += 2


if __name__ == "__main__":
    main()

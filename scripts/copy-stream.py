#!/usr/bin/env python3
"""copy-stream.py — a co-running stream of memory copies at a set rate, to
take memory bandwidth from a benchmark beside it (issue 37: emulate a host
with less bandwidth). Used by scripts/bench-other-host.

    copy-stream.py --gbps G [--mib M] [--seconds S]

Copies an M MiB buffer (default 64) into another, again and again, sleeping
between copies so that read + write traffic averages G GB/s, until killed
(SIGTERM) or S seconds pass; then prints the rate it reached on stderr. A
rate the machine cannot give runs flat out and says so.
"""

import argparse
import signal
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gbps", type=float, required=True, help="read + write GB/s to average")
    ap.add_argument("--mib", type=int, default=64, help="buffer size in MiB")
    ap.add_argument("--seconds", type=float, default=3600.0, help="stop after this long")
    args = ap.parse_args()
    if args.gbps <= 0 or args.mib <= 0:
        ap.error("--gbps and --mib must be positive")
    src = np.ones(args.mib << 20, dtype=np.uint8)
    dst = np.zeros_like(src)
    per_copy = 2.0 * src.nbytes  # read + write
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    start = time.monotonic()
    copies = 0
    behind = 0
    while not stop[0] and time.monotonic() - start < args.seconds:
        np.copyto(dst, src)
        copies += 1
        due = start + copies * per_copy / (args.gbps * 1e9)
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        else:
            behind += 1
    elapsed = max(time.monotonic() - start, 1e-9)
    rate = copies * per_copy / elapsed / 1e9
    note = " (could not keep up: ran flat out)" if behind > copies // 2 else ""
    print(f"copy-stream: {copies} copies of {args.mib} MiB in {elapsed:.1f} s: {rate:.1f} GB/s{note}", file=sys.stderr)


if __name__ == "__main__":
    main()

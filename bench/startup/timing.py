#!/usr/bin/env python3
"""Alternating start-up timings: runs each named command once per round, in a fixed order, for N rounds.

    timing.py ROUNDS OUTDIR NAME=CMD [NAME=CMD ...]      (CMD is a shell-free argv, split on spaces
                                                          after {placeholders} were filled by run.sh)

Alternating (a, b, c, a, b, c, ...) rather than a block per command means a change in machine load hits
every command alike. Wall time is measured around fork/exec/wait (the same small overhead for all);
CPU time (user + sys of the child) comes from wait4. Every command must exit 0, and its stdout is kept
from the first round so a broken command cannot look fast. Writes OUTDIR/raw.csv (one line per run)
and prints medians.
"""
import csv
import os
import statistics
import subprocess
import sys
import time


def run_once(argv):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    t1 = time.perf_counter()
    # communicate() reaped the child: its rusage is in RUSAGE_CHILDREN deltas, taken by the caller
    return t1 - t0, p.returncode, out, err


def main():
    rounds = int(sys.argv[1])
    outdir = sys.argv[2]
    cmds = []
    for spec in sys.argv[3:]:
        name, _, cmd = spec.partition("=")
        cmds.append((name, cmd.split("\x1f")))
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for r in range(rounds + 1):  # round 0 warms the page cache and is not counted
        for name, argv in cmds:
            before = os.times()
            wall, rc, out, err = run_once(argv)
            after = os.times()
            cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
            if rc != 0:
                sys.stderr.write(f"timing: {name} exited {rc}: {' '.join(argv)}\n{err.decode(errors='replace')}")
                sys.exit(1)
            if r == 0:
                with open(os.path.join(outdir, f"stdout-{name}.txt"), "wb") as f:
                    f.write(out)
                continue
            rows.append((r, name, f"{wall:.4f}", f"{cpu:.3f}"))
    with open(os.path.join(outdir, "raw.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["round", "command", "wall_s", "cpu_s"])
        w.writerows(rows)
    for name, _ in cmds:
        walls = [float(x[2]) for x in rows if x[1] == name]
        cpus = [float(x[3]) for x in rows if x[1] == name]
        print(f"{name}\t{statistics.median(walls):.4f}\t{min(walls):.4f}\t{statistics.median(cpus):.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Medians of per-round ratios from a bench/startup raw.csv: each command's wall time over the same
round's python and jvm runs, and its CPU time over python's. A ratio taken within one round is less
disturbed by a change of machine load during the run than a ratio of two medians.

    ratios.py RAW_CSV        (prints a Markdown table)
"""
import collections
import csv
import statistics
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    rounds = collections.defaultdict(dict)
    for r in rows:
        rounds[int(r["round"])][r["command"]] = (float(r["wall_s"]), float(r["cpu_s"]))
    print("| command | wall vs python | wall vs bare JVM | CPU vs python |")
    print("|---|---:|---:|---:|")
    for c in dict.fromkeys(r["command"] for r in rows):
        def med(f):
            return statistics.median(f(x) for x in rounds.values())
        w = med(lambda x: x[c][0] / x["python"][0])
        j = med(lambda x: x[c][0] / x["jvm"][0])
        u = med(lambda x: x[c][1] / x["python"][1])
        print(f"| {c} | {w:.2f}× | {j:.2f}× | {u:.2f}× |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fills the '?' expectations of cases.tsv from a -Dbadinput.record file (first stderr line, exact).

Usage: fill.py RECORD_FILE  (run from this folder). Review every filled line before committing:
a recorded message is pinned only once a person has judged it a good message.
"""
import sys

got = {}
for line in open(sys.argv[1], encoding="utf-8"):
    name, code, err = line.rstrip("\n").split("\t", 2)
    got[name] = (code, err.split(" \u23ce ")[0])
out = []
for line in open("cases.tsv", encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if not line.startswith("#") and len(f) == 8 and f[6] == "?" and f[0] in got:
        f[6] = got[f[0]][1]
        line = "\t".join(f) + "\n"
    out.append(line)
open("cases.tsv", "w", encoding="utf-8").writelines(out)

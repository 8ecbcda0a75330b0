#!/usr/bin/env python3
"""The seed's +241 / +494 slots translated through a recorded routing trace (issue 30).

Replays a STRATA_ARENA_TRACE of the tiny qwen3moe (record one with --experts resident: the trace is the router's,
whatever the arena) through LRU and LFU at every arena size around the seed's arena fraction, and reads the decode
miss rate at the seed's int8 and q4_0 arenas as fractions of its 24,576 model slots (upstream's M4 Pro: 15,840 /
16,081 at 32K, 15,163 / 15,657 at 64K), interpolating between whole slots. The assumption, which nothing here can
check: the seed's router, per layer, spreads its lookups over its experts the way this 16-expert router does, so
the miss rate depends on the arena's fraction of the model. Bytes per token at the seed: 480 lookups x 811,008 B.

usage: seedsim.py TRACE
"""
import collections
import sys


def read(path):
    pre, dec = [], []
    for line in open(path).read().splitlines()[1:]:
        f = line.split()
        keys = sorted({int(e) for t in f[3:] for e in t.split(",")})
        (dec if f[2] == "1" else pre).extend((int(f[1]), e) for e in keys)
    return pre, dec


def lru(seq, C):
    od, m = collections.OrderedDict(), 0
    for k in seq:
        if k in od:
            od.move_to_end(k)
        else:
            m += 1
            if len(od) >= C:
                od.popitem(last=False)
            od[k] = 1
    return m


def lfu(seq, C):
    cnt, last, cache, m = collections.Counter(), {}, set(), 0
    for clk, k in enumerate(seq):
        cnt[k] += 1
        if k not in cache:
            m += 1
            if len(cache) >= C:
                cache.remove(min(cache, key=lambda x: (cnt[x], last[x])))
            cache.add(k)
        last[k] = clk
    return m


def main():
    pre, dec = read(sys.argv[1])
    slots = 64
    rate = {}
    for C in range(16, slots + 1):
        rate[C] = tuple((f(pre + dec, C) - f(pre, C)) / len(dec) for f in (lru, lfu))

    def at(frac, i):
        x = frac * slots
        c = int(x)
        w = x - c
        return rate[c][i] * (1 - w) + rate[min(c + 1, slots)][i] * w

    print(f"decode lookups replayed: {len(dec)}")
    print("| context | policy | seed int8 arena | miss rate | seed q4_0 arena | miss rate | misses saved | "
          "MB / token at the seed's geometry, int8 -> q4_0 |")
    print("|---|---|---|---|---|---|---|---|")
    for ctx, a, b in (("32K", 15840, 16081), ("64K", 15163, 15657)):
        for i, pol in ((0, "lru"), (1, "lfu")):
            ma, mb = at(a / 24576, i), at(b / 24576, i)
            print(f"| {ctx} | {pol} | {a} ({100 * a / 24576:.2f} %) | {ma:.4f} | {b} ({100 * b / 24576:.2f} %) | "
                  f"{mb:.4f} | {100 * (1 - mb / ma):.1f} % | {480 * ma * 811008 / 1e6:.1f} -> {480 * mb * 811008 / 1e6:.1f} |")


if __name__ == "__main__":
    main()

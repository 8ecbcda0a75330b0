#!/usr/bin/env python3
"""Expert-arena sweep on a real router (issue 30): decode tok/s, miss rate and bytes read per token against the
arena's slots, int8 and q4_0 pools at the same --mem-budget-mb, LRU and LFU (STRATA_ARENA_POLICY).

Each point runs drive (bench/expert-arena/drive.c: the session API, real text from val.u16, PREFILL tokens as one
prompt, then DECODE tokens one at a time, teacher-forced) with STRATA_ARENA_BARE=1 (no stand-by, no page-cache
headroom: the tiny model's experts, 20 MB, weigh less than the 2 GiB headroom, so without it any streaming budget
holds every expert) and STRATA_ARENA_CACHE=drop on a private copy of the model (the shared file is mapped by other
processes, whose pages the kernel will not drop). Budgets: the int8 arena at 16 (one token's experts, the minimum
the engine accepts) .. 64 slots (every expert); q4_0 at the same budgets gets the slots its smaller pools free.
Plus --experts resident (every expert mapped). Counts are exact (the router is deterministic); speeds vary with the
machine's load: the median of REPS runs is reported, with uptime in machine.txt.

usage: sweep.py DRIVE MODEL TOKENS OUT_DIR [--reps N] [--prefill N] [--decode N] [--ctx N] [--threads N]
       sweep.py --render OUT_DIR
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

MIB = 1 << 20
INT8_SLOTS = [16, 20, 24, 28, 32, 36, 40, 44, 48, 56, 64]


def kv(line):
    d = {}
    for part in line.split():
        k, _, v = part.partition("=")
        if v:
            d[k] = v
    return d


def run(cmd, env, raw):
    t = time.time()
    e = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_")}
    e.update(env)
    p = subprocess.run(cmd, capture_output=True, text=True, env=e)
    raw.write("### " + " ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(cmd)
              + f"  (exit {p.returncode}, {time.time() - t:.1f} s wall, {open('/proc/loadavg').read().split()[0]} load)\n")
    raw.write(p.stdout + p.stderr + "\n")
    raw.flush()
    if p.returncode != 0:
        sys.exit(f"sweep: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    d = {"alloc": {}}
    for line in (p.stdout + p.stderr).splitlines():
        head, _, rest = line.partition(": ")
        if head in ("memory", "decode", "after_prefill", "after_decode"):
            if head == "memory" and "total=" not in rest:
                continue
            d[head] = kv(rest)
        elif head == "alloc":
            x = kv(rest)
            d["alloc"][x["item"]] = int(x["bytes"])
    return d


def main():
    a = sys.argv[1:]
    if a and a[0] == "--render":
        render(a[1])
        return
    drive, model, tokens, out = a[:4]
    opt = {"--reps": "2", "--prefill": "128", "--decode": "256", "--ctx": "2048", "--threads": "1"}
    rest = a[4:]
    for i in range(0, len(rest), 2):
        opt[rest[i]] = rest[i + 1]
    reps = int(opt["--reps"])
    base = ["--model", model, "--ctx", opt["--ctx"], "--threads", opt["--threads"]]
    work = [tokens, "0", opt["--prefill"], opt["--decode"]]
    raw = open(os.path.join(out, "raw.txt"), "w")
    bare = {"STRATA_ARENA_BARE": "1", "STRATA_ARENA_CACHE": "drop"}
    # every expert in the arena: the fixed items per format and the slot size
    fixed, slot = {}, 0
    for f in ("int8", "q4_0"):
        d = run([drive] + work + base + ["--kv", f], bare, raw)
        fixed[f] = sum(v for k, v in d["alloc"].items() if k != "arena")
        slot = int(d["memory"]["slot_bytes"])
    budgets = sorted({math.ceil((fixed["int8"] + n * slot) / MIB) for n in INT8_SLOTS})
    rows = []
    for rep in range(reps):
        for mb in budgets:
            for f in ("int8", "q4_0") if rep % 2 == 0 else ("q4_0", "int8"):
                for pol in ("lru", "lfu"):
                    d = run([drive] + work + base + ["--kv", f, "--mem-budget-mb", str(mb)],
                            dict(bare, STRATA_ARENA_POLICY=pol), raw)
                    rows.append(row(d, f, pol, mb, "stream", slot))
        for f in ("int8", "q4_0"):
            d = run([drive] + work + base + ["--kv", f, "--experts", "resident"], {}, raw)
            rows.append(row(d, f, "-", 0, "resident", slot))
    json.dump({"slot_bytes": slot, "fixed": fixed, "budgets_mb": budgets, "rows": rows, "options": opt},
              open(os.path.join(out, "results.json"), "w"), indent=1)
    render(out)


def row(d, f, pol, mb, mode, slot):
    dec = d["decode"]
    n = int(dec["tokens"])
    return {"format": f, "policy": pol, "budget_mb": mb, "mode": mode,
            "slots": int(d["memory"]["arena_slots"]), "model_slots": int(d["memory"]["model_slots"]),
            "token_slots": int(d["memory"]["token_slots"]),
            "tok_s": float(dec["tok_s"]), "lookups": int(dec["lookups"]), "misses": int(dec["misses"]),
            "bytes_read": int(dec["bytes_read"]), "read_seconds": float(dec["read_seconds"]), "tokens": n,
            "prefill_misses": int(d["after_prefill"]["misses"])}


def render(out):
    res = json.load(open(os.path.join(out, "results.json")))
    groups = {}
    for r in res["rows"]:
        groups.setdefault((r["mode"], r["budget_mb"], r["format"], r["policy"]), []).append(r)
    lines = ["| budget MiB | KV | policy | slots | decode misses / token | miss rate | bytes read / token | "
             "read ms / token | decode tok/s (median, runs) |", "|---|---|---|---|---|---|---|---|---|"]
    dat = {}
    for (mode, mb, f, pol), rs in sorted(groups.items(), key=lambda kv: (kv[0][0] != "stream", kv[0][1], kv[0][2], kv[0][3])):
        r = rs[0]
        assert all(x["misses"] == r["misses"] and x["slots"] == r["slots"] for x in rs), "counts are exact"
        n = r["tokens"]
        tps = statistics.median(x["tok_s"] for x in rs)
        runs = ", ".join("%.1f" % x["tok_s"] for x in rs)
        rms = statistics.median(x["read_seconds"] for x in rs) / n * 1000
        lines.append(f"| {mb if mode == 'stream' else 'resident'} | {f} | {pol} | {r['slots']} | {r['misses'] / n:.2f} | "
                     f"{r['misses'] / r['lookups']:.3f} | {r['bytes_read'] / n / 1e6:.3f} MB | {rms:.2f} | "
                     f"{tps:.1f} ({runs}) |")
        if mode == "stream":
            dat.setdefault((f, pol), []).append((r["slots"], r["misses"] / r["lookups"], r["bytes_read"] / n / 1e6, tps))
    open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
    for (f, pol), pts in dat.items():
        with open(os.path.join(out, f"curve-{f}-{pol}.dat"), "w") as w:
            w.write("# slots miss_rate MB_read_per_token decode_tok_s\n")
            for p in sorted(set(pts)):
                w.write(" ".join(str(x) for x in p) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

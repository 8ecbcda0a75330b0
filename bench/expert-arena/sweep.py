#!/usr/bin/env python3
"""Expert-arena budget sweep (issue 15): int8 vs q4_0 KV pools at the same --mem-budget-mb.

For each context and budget point, strata-ref (the strata-ref-run driver) runs the demo model's seed geometry
(512 experts x 48 MoE layers, 811,008-byte slots, TQ2_0, sparse zeros) once per format per repetition, formats
alternating; it reports the arena's slots, hits, misses, bytes read and the decode speed. The router is
deterministic (seeded by layer and position), so slots, misses and bytes read are exact; only the speed varies
between repetitions, and its median is reported.

Budget points, by the int8 arena they give: the tightest that fits (one token's experts, 480 slots), 2,000,
6,000 slots, this machine's whole budget (no --mem-budget-mb), and --experts resident (every expert mapped).

usage: sweep.py RUN MODEL OUT_DIR [--reps N] [--tokens N] [--threads N] [--ctx 32768,65536]
"""
import statistics
import subprocess
import sys
import time

MIB = 1 << 20


def parse(out):
    d = {}
    for line in out.splitlines():
        head, _, rest = line.partition(": ")
        if head in ("arena", "memory", "decode", "decode-cpu", "kv"):
            for kv in rest.split():
                k, _, v = kv.partition("=")
                d[head + "." + k] = v
        if line.startswith("alloc: "):
            item = line.split("item=")[1].split()[0]
            d["alloc." + item] = int(line.split("bytes=")[1])
    return d


def run(cmd, raw):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    raw.write("### " + " ".join(cmd) + f"  (exit {p.returncode}, {time.time() - t:.1f} s wall)\n")
    raw.write(p.stdout + p.stderr + "\n")
    raw.flush()
    if p.returncode != 0:
        sys.exit(f"sweep: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return parse(p.stdout + p.stderr)


def main():
    args = sys.argv[1:]
    run_bin, model, out = args[0], args[1], args[2]
    opts = dict(reps=3, tokens=6, threads=2, ctx="32768,65536")
    i = 3
    while i < len(args):
        opts[args[i][2:]] = args[i + 1]
        i += 2
    reps, tokens, threads = int(opts["reps"]), int(opts["tokens"]), int(opts["threads"])
    ctxs = [int(c) for c in str(opts["ctx"]).split(",")]
    raw = open(out + "/raw.txt", "w")
    rows = []
    for ctx in ctxs:
        base = ["--model", model, "--ctx", str(ctx), "--prompt-tokens", "64", "--threads", str(threads)]
        # the int8 plan's fixed part, from the engine's own accounting (no decode)
        probe = run([run_bin, "run"] + base + ["--kv", "int8", "--n-predict", "0"], raw)
        slot = int(probe["memory.slot_bytes"])
        token = int(probe["memory.token_slots"])
        fixed = (int(probe["memory.dense"]) + int(probe["memory.headroom"]) + probe["alloc.kv"]
                 + probe.get("alloc.standby", 0) + probe["alloc.scratch"])
        points = []
        for label, slots in (("tightest (1 token)", token), ("2,000 slots", 2000), ("6,000 slots", 6000)):
            points.append((label, ["--mem-budget-mb", str(-(-(fixed + slots * slot) // MIB))]))
        points.append(("whole machine", []))
        points.append(("resident", ["--experts", "resident"]))
        for label, extra in points:
            res = {"int8": [], "q4_0": []}
            for r in range(reps):
                order = ("int8", "q4_0") if r % 2 == 0 else ("q4_0", "int8")
                for f in order:
                    res[f].append(run([run_bin, "run"] + base + extra + ["--kv", f, "--n-predict", str(tokens)], raw))
            rows.append((ctx, label, extra, res))
    raw.close()
    with open(out + "/table.md", "w") as t:
        t.write("| ctx | budget point | --mem-budget-mb | format | arena slots | q4_0 - int8 slots | misses | miss rate"
                " | MB read / token | decode tok/s (median) | q4_0 / int8 tok/s |\n")
        t.write("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
        for ctx, label, extra, res in rows:
            mb = extra[1] if extra and extra[0] == "--mem-budget-mb" else ("(plan)" if not extra else "-")
            med = {f: statistics.median(float(d["decode.tok_s"]) for d in res[f]) for f in res}
            for f in ("int8", "q4_0"):
                d = res[f][0]
                same = all(x["arena.misses"] == d["arena.misses"] for x in res[f])
                diff = int(res["q4_0"][0]["arena.slots"]) - int(res["int8"][0]["arena.slots"])
                t.write(f"| {ctx} | {label} | {mb} | {f} | {int(d['arena.slots']):,} | "
                        f"{('+' + format(diff, ',')) if f == 'q4_0' else ''} | {int(d['arena.misses']):,}"
                        f"{'' if same else ' (varied!)'} | {float(d['arena.miss_rate']):.4f} | "
                        f"{int(d['arena.bytes_read_per_token']) / 1e6:.1f} | {med[f]:.2f} | "
                        f"{(med['q4_0'] / med['int8']) if f == 'q4_0' and med['int8'] > 0 else 0:.2f} |\n"
                        .replace("| 0.00 |\n", "| |\n"))
            t.write("| | | | speeds per rep | " + "; ".join(
                f"{f}: " + ", ".join(d["decode.tok_s"] for d in res[f]) for f in ("int8", "q4_0")) + " | | | | | | |\n")


if __name__ == "__main__":
    main()

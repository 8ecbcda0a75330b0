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
       sweep.py --render OUT_DIR     (table.md again from OUT_DIR/raw.txt)
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
    if args and args[0] == "--render":
        render(args[1])  # table.md again from an existing raw.txt
        return
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
    render(out)


def load_raw(path):
    """The runs of raw.txt: [(argv, parsed engine output)], in order."""
    runs, cmd, buf = [], None, []
    for line in open(path):
        if line.startswith("### "):
            if cmd is not None:
                runs.append((cmd, parse("".join(buf))))
            cmd, buf = line[4:].split("  (exit")[0].split(), []
        else:
            buf.append(line)
    if cmd is not None:
        runs.append((cmd, parse("".join(buf))))
    return runs


def render(out):
    """table.md from raw.txt: exact arena figures, medians of the decode times, q4_0 vs int8."""
    rows = {}  # (ctx, point) -> {fmt: [parsed]}
    order = []
    seen_mb = {}
    for cmd, d in load_raw(out + "/raw.txt"):
        arg = lambda k: cmd[cmd.index(k) + 1] if k in cmd else None
        if arg("--n-predict") == "0":
            continue
        ctx = int(arg("--ctx"))
        mb = arg("--mem-budget-mb")
        if mb is not None:
            labels = seen_mb.setdefault(ctx, [])
            if mb not in labels:
                labels.append(mb)
            point = ("tightest (1 token's experts)", "int8 arena 2,000 slots", "int8 arena 6,000 slots")[labels.index(mb)]
        elif arg("--experts") == "resident":
            point = "--experts resident"
        else:
            point = "whole machine (no --mem-budget-mb)"
        key = (ctx, point, mb or "")
        if key not in rows:
            rows[key] = {"int8": [], "q4_0": []}
            order.append(key)
        rows[key][arg("--kv")].append(d)
    med = lambda xs: statistics.median(xs)
    with open(out + "/table.md", "w") as t:
        t.write("| ctx | budget point | --mem-budget-mb | format | arena slots | q4_0 − int8 | misses | miss rate |"
                " MB read / token | decode s (median, wall) | CPU s (median) | int8 ÷ q4_0 wall | int8 ÷ q4_0 CPU |\n")
        t.write("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for key in order:
            ctx, point, mb = key
            res = rows[key]
            wall = {f: med([float(d["decode.seconds"]) for d in res[f]]) for f in res}
            cpu = {f: med([float(d["decode-cpu.seconds"]) for d in res[f]]) for f in res}
            for f in ("int8", "q4_0"):
                d = res[f][0]
                exact = all(x["arena.misses"] == d["arena.misses"] and x["arena.slots"] == d["arena.slots"]
                            for x in res[f])
                diff = int(res["q4_0"][0]["arena.slots"]) - int(res["int8"][0]["arena.slots"])
                t.write(f"| {ctx} | {point} | {mb or '-'} | {f} | {int(d['arena.slots']):,} | "
                        f"{('+' + format(diff, ',')) if f == 'q4_0' else ''} | {int(d['arena.misses']):,}"
                        f"{'' if exact else ' (varied)'} | {float(d['arena.miss_rate']):.4f} | "
                        f"{int(d['arena.bytes_read_per_token']) / 1e6:.1f} | {wall[f]:.3f} | {cpu[f]:.3f} | "
                        + (f"{wall['int8'] / wall['q4_0']:.2f} | {cpu['int8'] / cpu['q4_0']:.2f} |"
                           if f == "q4_0" else " | |") + "\n")
        t.write("\nPer repetition (decode wall s / CPU s, in run order):\n\n")
        for key in order:
            ctx, point, mb = key
            t.write(f"- {ctx}, {point}: " + "; ".join(
                f"{f} " + ", ".join(f"{d['decode.seconds']}/{d['decode-cpu.seconds']}" for d in rows[key][f])
                for f in ("int8", "q4_0")) + "\n")

if __name__ == "__main__":
    main()

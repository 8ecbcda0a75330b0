#!/usr/bin/env python3
"""table.py OUTDIR: the side-by-side table (markdown) of bench/quality/run.sh's results in OUTDIR."""
import csv
import glob
import json
import os
import sys

BYTES = {"llama-f16": 2048, "llama-q8_0": 1088, "llama-q4_0": 576, "fp16": 2048, "int8": 1056, "q4_0": 576}


def strata_chunks(path):
    per = {}
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            per.setdefault(r["format"], {})[int(r["chunk"])] = {k: float(v) for k, v in r.items()
                                                                if k not in ("chunk", "format")}
    return per


def row(model, engine, kv, bytes_, s, chunk_kl):
    spread = f"{min(chunk_kl):.6f} – {max(chunk_kl):.6f}" if chunk_kl else "–"
    return (f"| {model} | {engine} | {kv} | {bytes_:,} | {s['ppl']:.4f} | {s['mean_kl']:.6f} | {s['median_kl']:.6f} | "
            f"{s['p99_kl']:.5f} | {s['max_kl']:.4f} | {100 * s['same_top']:.2f}% | {100 * s['rms_dp']:.3f}% | {spread} |")


def main(out):
    lines = ["| model | engine | KV (reference) | B/cell/layer | PPL | mean KL | median KL | p99 KL | max KL | same top | RMS Δp | per-chunk mean KL (min – max) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    models = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(out, "*.strata.json"))})
    for m in models:
        f16 = json.load(open(os.path.join(out, f"{m}.llama-f16.run.json")))
        lines.append(f"| {m} | llama.cpp | f16 (itself) | 2,048 | {f16['ppl']:.4f} | 0 | 0 | 0 | 0 | 100.00% | 0 | – |")
        llama = {}
        for kv in ("q8_0", "q4_0"):
            for rot in ("rot", "no-rot"):
                p = os.path.join(out, f"{m}.llama-{kv}-{rot}.json")
                if not os.path.exists(p):
                    continue
                j = json.load(open(p))
                llama[(kv, rot)] = j
                ck = [c["mean_kl"] for c in j["chunks"].values()]
                lines.append(row(m, "llama.cpp", f"{kv} {'rotated' if rot == 'rot' else 'no rotation'} (f16)",
                                 BYTES["llama-" + kv], j["total"], ck))
        own = json.load(open(os.path.join(out, f"{m}.strata.json")))
        own_chunks = strata_chunks(os.path.join(out, f"{m}.strata", "chunks.tsv"))
        for kv, s in own["formats"].items():
            ck = [c["mean_kl"] for c in own_chunks.get(kv, {}).values()]
            label = {"fp16": "fp16 (itself)", "int8": "int8 (fp16)", "q4_0": "FWHT-256 q4_0 (fp16)"}[kv]
            lines.append(row(m, "strata-ref", label, s["bytes_per_cell_per_layer"], s, ck))
        cross_p = os.path.join(out, f"{m}.strata-vs-llama-f16.json")
        if os.path.exists(cross_p):
            cross = json.load(open(cross_p))
            cross_chunks = strata_chunks(os.path.join(out, f"{m}.strata-vs-llama-f16", "chunks.tsv"))
            for kv, s in cross["formats"].items():
                ck = [c["mean_kl"] for c in cross_chunks.get(kv, {}).values()]
                label = {"fp16": "fp16", "int8": "int8", "q4_0": "FWHT-256 q4_0"}[kv] + " (llama.cpp f16)"
                lines.append(row(m, "strata-ref", label, s["bytes_per_cell_per_layer"], s, ck))
        pd = own.get("prompt_vs_decode")
        if pd:
            notes.append(f"- {m}: prompt path vs decode path over strata-ref's {pd['kv']} pools, {pd['positions']} "
                         f"positions: mean KL {pd['mean_kl']:.3g}, max KL {pd['max_kl']:.3g}, same top "
                         f"{100 * pd['same_top']:.2f}%, max |Δ log p| {pd['max_abs_dlogp']:.3g}.")
        # equal bytes (576): FWHT-256 q4_0 against llama.cpp's q4_0, each against its own f16 KV
        ours = own["formats"].get("q4_0")
        if ours:
            for rot in ("rot", "no-rot"):
                j = llama.get(("q4_0", rot))
                if not j:
                    continue
                ratio = ours["mean_kl"] / j["total"]["mean_kl"]
                per = [own_chunks["q4_0"][c]["mean_kl"] / j["chunks"][str(c)]["mean_kl"]
                       for c in sorted(own_chunks["q4_0"]) if str(c) in j["chunks"]]
                wins = sum(1 for r in per if r < 1)
                notes.append(f"- {m}, 576 B: FWHT-256 q4_0 mean KL {ours['mean_kl']:.6f} vs llama.cpp q4_0 "
                             f"{'rotated' if rot == 'rot' else 'unrotated'} {j['total']['mean_kl']:.6f}: ratio "
                             f"{ratio:.3f} ({'lower is ours' if ratio < 1 else 'ours is higher'}); per chunk "
                             f"{min(per):.3f} – {max(per):.3f}, ours lower in {wins} of {len(per)} chunks; same top "
                             f"{100 * ours['same_top']:.2f}% vs {100 * j['total']['same_top']:.2f}%.")
    print("\n".join(lines))
    print()
    print("\n".join(notes))


if __name__ == "__main__":
    main(sys.argv[1])

"""agree_row.py NAME OUTDIR T0 T1 T2 — one row of agree.sh's summary.tsv from compare.py's JSON and the two engines'
greedy generations; also writes OUTDIR/NAME.gen.tsv (prompt, first differing index or -1, llama.cpp's top-2 log-prob
gap at that step: a tiny gap is a near-tie, where another engine may legitimately take the other token)."""
import json
import sys

name, out, t0, t1, t2 = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])
c = json.load(open(f"{out}/{name}.cmp.json"))
llama = [json.loads(line) for line in open(f"{out}/{name}.llama.gen.jsonl") if line.strip()]
ours = [list(map(int, line.split())) for line in open(f"{out}/{name}.ref.gen.txt")]
equal, rows = 0, []
for g, o in zip(llama, ours):
    first = next((i for i, (a, b) in enumerate(zip(g["tokens"], o)) if a != b), -1)
    if first < 0 and len(o) != len(g["tokens"]):
        first = min(len(o), len(g["tokens"]))
    step = g["steps"][first] if 0 <= first < len(g["steps"]) else {}
    gap = f'{step["gap"]:.6f}' if step.get("gap") is not None else ""
    equal += first < 0
    rows.append(f'{g["name"]}\t{first}\t{gap}')
with open(f"{out}/{name}.gen.tsv", "w") as f:
    f.write("prompt\tfirst_difference\tllama_top2_gap\n" + "\n".join(rows) + "\n")
print("\t".join(str(x) for x in [
    name, c["count"], round(100 * c["same_top"], 3), f'{c["kld_mean"]:.7f}', f'{c["kld_p99.0"]:.6f}',
    f'{c["kld_max"]:.6f}', round(c["ppl_b"], 4), round(c["ppl_a"], 4), equal, len(llama),
    round(t1 - t0, 1), round(t2 - t1, 1)]))

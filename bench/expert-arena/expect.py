#!/usr/bin/env python3
"""Plan vs run for the expert arena (issue 30, item 4): a run's decode bytes read per token beside an expectation
made before the decode, from the router's popularity on the prompt alone.

The expectation: each (MoE layer, expert) is an item requested at rate p_i per token, p_i = the share of the
prompt's tokens whose router chose it (the trace's prefill lines). Under independent requests (Che's approximation),
an LRU arena of C slots has characteristic time T with sum_i (1 - exp(-p_i T)) = C, and expects
sum_i p_i exp(-p_i T) misses per decoded token; an LFU arena holds the C most popular items and expects the sum of
the others' p_i. Bytes per token = misses x slot bytes. The uniform formula (every expert equally popular:
token_slots x (1 - C / model_slots)) is printed too. The check: |measured / expected - 1| <= 10 %.

usage: expect.py DRIVE MODEL TOKENS OUT_DIR BUDGET_MB... (int8, ctx 2048, STRATA_ARENA_BARE=1, cache dropped)
"""
import math
import os
import subprocess
import sys


def expectation(trace, C, policy):
    head = dict(kv.split("=") for kv in trace[0].split(": ", 1)[1].split())
    X, K, Lm = int(head["experts"]), int(head["used"]), int(head["moe_layers"])
    counts, tokens = {}, 0
    for line in trace[1:]:
        f = line.split()
        if int(f[2]) == 1:
            break  # the first decode step: the prompt is over
        if f[1] == "0":
            tokens += int(f[2])
        for t in f[3:]:
            for e in t.split(","):
                counts[(f[1], e)] = counts.get((f[1], e), 0) + 1
    p = [counts.get((str(l), str(e)), 0) / tokens for l in range(Lm) for e in range(X)]
    uniform = K * Lm * (1 - C / (X * Lm))
    if C >= len(p):
        return 0.0, uniform
    if policy == "lfu":
        return sum(sorted(p)[: len(p) - C]), uniform
    lo, hi = 0.0, 1e9
    for _ in range(200):
        T = (lo + hi) / 2
        if sum(1 - math.exp(-x * T) for x in p) < C:
            lo = T
        else:
            hi = T
    return sum(x * math.exp(-x * T) for x in p), uniform


def main():
    drive, model, tokens, out = sys.argv[1:5]
    rows = ["| policy | budget MiB | slots | expected MB / token (prompt popularity) | measured MB / token | "
            "measured / expected | uniform formula MB / token | measured / uniform |", "|---|---|---|---|---|---|---|---|"]
    ok = {"lru": True, "lfu": True}
    for policy in ("lru", "lfu"):
        for mb in sys.argv[5:]:
            trace = os.path.join(out, f"trace-{policy}-{mb}.txt")
            env = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_")}
            env.update(STRATA_ARENA_BARE="1", STRATA_ARENA_CACHE="drop", STRATA_ARENA_POLICY=policy,
                       STRATA_ARENA_TRACE=trace)
            r = subprocess.run([drive, tokens, "0", "128", "256", "--model", model, "--ctx", "2048", "--threads", "1",
                                "--kv", "int8", "--mem-budget-mb", mb], capture_output=True, text=True, env=env, check=True)
            mem = dict(kv.split("=") for kv in [l for l in r.stderr.splitlines() if l.startswith("memory: total=")][0][8:].split())
            dec = dict(kv.split("=") for kv in [l for l in r.stdout.splitlines() if l.startswith("decode: ")][0][8:].split())
            C, slot = int(mem["arena_slots"]), int(mem["slot_bytes"])
            exp, uni = expectation(open(trace).read().splitlines(), C, policy)
            meas = int(dec["misses"]) / int(dec["tokens"])
            ratio = meas / exp if exp > 0 else float("nan")
            ok[policy] &= abs(ratio - 1) <= 0.10
            rows.append(f"| {policy} | {mb} | {C} | {exp * slot / 1e6:.3f} | {meas * slot / 1e6:.3f} | {ratio:.3f} | "
                        f"{uni * slot / 1e6:.3f} | {meas / uni:.3f} |")
            os.remove(trace)
    text = "\n".join(rows) + "\n\nwithin 10 % at every size: " + ", ".join(
        f"{k} {'yes' if v else 'no'}" for k, v in ok.items()) + "\n"
    open(os.path.join(out, "plan-vs-run.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()

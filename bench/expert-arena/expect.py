#!/usr/bin/env python3
"""Plan vs run for the expert arena (issue 30, item 4): a run's decode bytes read per token beside the plan's
expectation (dev.strata.engine.plan.ExpectedReads, called through Expect.java: the rule --plan prints), made from a
routing trace that another run recorded on other text.

The profile: drive on TOKENS from offset 0 (PREFILL + DECODE tokens, every expert held, STRATA_ARENA_TRACE). The
runs: drive on TOKENS from offset OFFSET (default 100000: another document), same lengths, at each BUDGET_MB with
STRATA_ARENA_BARE=1 and the page cache dropped, LRU and LFU. The check: |measured / expected - 1| <= 10 %, in bytes
and in misses (the plan's bytes are misses x slot bytes; a model whose layers' experts differ in size reads less per
miss than the slot, e.g. Q4_K_M's q5_0/q8_0 ffn_down).

usage: expect.py DRIVE MODEL TOKENS OUT_DIR BUDGET_MB... [--offset N] [--prefill N] [--decode N]
       (run from the repository root after a build: Expect.java needs engine/target/classes)
"""
import os
import subprocess
import sys

JAVA = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")


def kv(line):
    return dict(p.split("=", 1) for p in line.split() if "=" in p)


def drive(exe, model, tokens, offset, prefill, decode, env_extra, budget=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_")}
    env.update(STRATA_ARENA_BARE="1", STRATA_ARENA_CACHE="drop", **env_extra)
    cmd = [exe, tokens, str(offset), str(prefill), str(decode), "--model", model, "--ctx", "2048", "--threads", "1",
           "--kv", "int8"] + (["--mem-budget-mb", str(budget)] if budget else [])
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    mem = kv([l for l in r.stderr.splitlines() if l.startswith("memory: total=")][0][8:])
    dec = kv([l for l in r.stdout.splitlines() if l.startswith("decode: ")][0][8:])
    return mem, dec


def main():
    a = sys.argv[1:]
    opt = {"--offset": "100000", "--prefill": "128", "--decode": "256"}
    pos = []
    i = 0
    while i < len(a):
        if a[i] in opt:
            opt[a[i]] = a[i + 1]
            i += 2
        else:
            pos.append(a[i])
            i += 1
    exe, model, tokens, out = pos[:4]
    budgets = pos[4:]
    pre, dec_n, off = int(opt["--prefill"]), int(opt["--decode"]), int(opt["--offset"])
    trace = os.path.join(out, "profile-trace.txt")
    mem, _ = drive(exe, model, tokens, 0, pre, dec_n, {"STRATA_ARENA_TRACE": trace})
    slot, model_slots, token_slots = mem["slot_bytes"], mem["model_slots"], mem["token_slots"]
    rows = [f"profile: {os.path.basename(model)}, val.u16 tokens 0..{pre + dec_n - 1} ({pre} prompt + {dec_n} decoded), "
            f"every expert held; runs: tokens {off}..{off + pre + dec_n - 1}, same lengths, page cache dropped\n",
            "| policy | budget MiB | slots | expected MB / token | measured MB / token | measured / expected (bytes) | "
            "expected misses / token | measured misses / token | measured / expected (misses) | uniform MB / token |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    ok = {}
    for policy in ("lru", "lfu"):
        for mb in budgets:
            m, d = drive(exe, model, tokens, off, pre, dec_n, {"STRATA_ARENA_POLICY": policy}, mb)
            slots = m["arena_slots"]
            e = subprocess.run([JAVA, "-cp", "engine/target/classes", "bench/expert-arena/Expect.java", trace, policy,
                                slot, model_slots, token_slots, slots], capture_output=True, text=True,
                               check=True).stdout.split()
            exp_miss, exp_bytes, uni = float(e[2]), int(e[3]), int(e[4])
            n = int(d["tokens"])
            meas_bytes, meas_miss = int(d["bytes_read"]) / n, int(d["misses"]) / n
            rb, rm = meas_bytes / exp_bytes, meas_miss / exp_miss
            ok.setdefault(policy, []).append((abs(rb - 1) <= 0.10, abs(rm - 1) <= 0.10))
            rows.append(f"| {policy} | {mb} | {slots} | {exp_bytes / 1e6:.3f} | {meas_bytes / 1e6:.3f} | {rb:.3f} | "
                        f"{exp_miss:.2f} | {meas_miss:.2f} | {rm:.3f} | {uni / 1e6:.3f} |")
    text = "\n".join(rows) + "\n\nwithin 10 % at every size (bytes, misses): " + ", ".join(
        f"{k} {'yes' if all(b for b, _ in v) else 'no'}, {'yes' if all(m for _, m in v) else 'no'}"
        for k, v in ok.items()) + "\n"
    open(os.path.join(out, f"plan-vs-run-{os.path.basename(model).replace('.gguf', '')}.md"), "w").write(text)
    os.remove(trace)
    print(text)


if __name__ == "__main__":
    main()

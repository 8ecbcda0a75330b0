#!/usr/bin/env python3
"""per_chunk.py BASE OTHER [--label L] [--tsv FILE] [--json FILE]

KL statistics of OTHER against BASE per chunk and in total, with strata-quality's definitions (which are
bench/llamacpp/compare.py's): KLD = sum over ids with log p_base > -16 of p_base * (log p_base - log p_other),
same top = argmax equal (first maximum), dp = p_other(next) - p_base(next), PPL = exp(mean nll).
Both files are bench/llamacpp formats ('_logits_' or '_lpf32__', read by compare.py's LogProbFile);
'_lpf32__' values are log-softmaxed again in double (they may be logits). numpy only.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llamacpp"))
from compare import LogProbFile  # noqa: E402


def as_logprobs(row):
    if isinstance(row, tuple):
        scale, min_lp, q = row
        v = np.frombuffer(q, dtype=np.uint16).astype(np.float64) * scale + min_lp
        return v, int(np.argmax(np.frombuffer(q, dtype=np.uint16)))
    v = np.frombuffer(row, dtype=np.float32).astype(np.float64)
    top = int(np.argmax(v))
    m = v.max()
    return v - (m + math.log(np.exp(v - m).sum())), top


def summarize(kl, nll, nll_b, dp, same):
    kl = np.sort(np.array(kl))
    n = len(kl)
    med = 0.5 * (kl[n // 2] + kl[n // 2 - 1]) if n % 2 == 0 else kl[n // 2]
    p = 0.99 * (n - 1)
    ip = int(p)
    p99 = (1 - (p - ip)) * kl[ip] + (p - ip) * kl[min(ip + 1, n - 1)]
    return {"positions": n, "ppl": math.exp(sum(nll) / n), "ppl_ref": math.exp(sum(nll_b) / n),
            "mean_kl": float(kl.mean()), "median_kl": float(med), "p99_kl": float(p99), "max_kl": float(kl[-1]),
            "same_top": sum(same) / n, "rms_dp": math.sqrt(sum(d * d for d in dp) / n)}


def main(argv):
    args = list(argv)
    opts = {}
    for k in ("--label", "--tsv", "--json"):
        if k in args:
            i = args.index(k)
            opts[k] = args[i + 1]
            del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = LogProbFile(args[0]), LogProbFile(args[1])
    if (a.n_ctx, a.n_vocab, a.n_chunk, a.first) != (b.n_ctx, b.n_vocab, b.n_chunk, b.first) or a.tokens != b.tokens:
        print("per_chunk.py: the two files hold different tokens or layouts", file=sys.stderr)
        return 2
    per = {}
    tot = ([], [], [], [], [])
    for (c, k, ra), (_, _, rb) in zip(a.rows(), b.rows()):
        la, ta = as_logprobs(ra)
        lb, tb = as_logprobs(rb)
        nxt = a.tokens[c * a.n_ctx + a.first + k + 1]
        mask = la > -16.0
        kl = float((np.exp(la[mask]) * (la[mask] - lb[mask])).sum())
        vals = (kl, -lb[nxt], -la[nxt], math.exp(lb[nxt]) - math.exp(la[nxt]), 1 if ta == tb else 0)
        d = per.setdefault(c, ([], [], [], [], []))
        for lst, v in zip(d, vals):
            lst.append(v)
        for lst, v in zip(tot, vals):
            lst.append(v)
    label = opts.get("--label", os.path.basename(args[1]))
    chunks = {c: summarize(*v) for c, v in sorted(per.items())}
    out = {"label": label, "base": args[0], "other": args[1], "total": summarize(*tot), "chunks": chunks}
    if "--tsv" in opts:
        with open(opts["--tsv"], "w") as f:
            f.write("chunk\tformat\tpositions\tppl\tppl_ref\tmean_kl\tmedian_kl\tp99_kl\tmax_kl\tsame_top\trms_dp\n")
            for c, s in chunks.items():
                f.write(f"{c}\t{label}\t{s['positions']}\t" + "\t".join(
                    f"{s[x]:.8g}" for x in ("ppl", "ppl_ref", "mean_kl", "median_kl", "p99_kl", "max_kl",
                                           "same_top", "rms_dp")) + "\n")
    text = json.dumps(out)
    if "--json" in opts:
        with open(opts["--json"], "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

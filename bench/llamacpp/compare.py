#!/usr/bin/env python3
"""compare.py A B — llama-perplexity --kl-divergence's statistics between two log-prob files.

A is the base (llama.cpp's "--kl-divergence-base" role, e.g. llama.cpp with f16 KV), B the one under test
(llama.cpp's "current model" role). Each file is either llama.cpp's "_logits_" file (uint16-quantized
log-probs, as llama-perplexity --kl-divergence-base writes it) or the "_lpf32__" float32 log-prob file
(bench/llamacpp/README.md, "File formats"); both must hold the same tokens, n_ctx, n_vocab, chunks and first
scored position. Definitions are tools/perplexity/perplexity.cpp's (function log_softmax(..., kld) and
kl_divergence()):

  per scored position (predicting token t = tokens[pos+1]):
    B: log p_B(i) = logit_B(i) - max - log(sum exp(logit_B - max)) for an "_lpf32__" file (its values are
       treated as logits, so raw logits work too); for a "_logits_" file the dequantized log-probs as they
       are (entries below max-16 are clamped there, and so is PPL(Q): prefer an "_lpf32__" B)
    A: log p_A(i) = scale*q(i) + min_log_prob for a "_logits_" file, the stored value for an "_lpf32__" file
    KLD         = sum over i with log p_A(i) > -16 of p_A(i) * (log p_A(i) - log p_B(i))
    nll         = -log p_B(t);  nll_base = -log p_A(t)
    Δp          = p_B(t) - p_A(t)
    same top    = argmax_i logit_B(i) == argmax_i log p_A(i) (first maximum in both)
  PPL(Q) = exp(mean nll), PPL(base) = exp(mean nll_base), RMS Δp = sqrt(mean Δp²),
  uncertainties and percentiles exactly as perplexity.cpp computes them (linear interpolation).

Arithmetic is double precision (llama.cpp mixes float and double; the difference is in the 7th digit).
Standard library only. Options: --json FILE (write all figures as JSON), --quiet (no per-chunk lines).
"""
import array
import json
import math
import os
import struct
import sys

MAGIC_Q = b"_logits_"
MAGIC_F = b"_lpf32__"


class LogProbFile:
    """One file: header fields, tokens, and an iterator over scored positions' log-prob rows."""

    def __init__(self, path):
        self.path = path
        self.f = open(path, "rb")
        size = os.fstat(self.f.fileno()).st_size
        magic = self.f.read(8)
        if magic == MAGIC_Q:
            self.kind = "q16"
            self.n_ctx, self.n_vocab, self.n_chunk = struct.unpack("<iii", self.f.read(12))
            hdr = 8 + 12
            self.nv = 2 * ((self.n_vocab + 1) // 2) + 4
            rec = self.nv * 2
            body = size - hdr - 4 * self.n_ctx * self.n_chunk
            if self.n_chunk <= 0 or body % (rec * self.n_chunk):
                raise ValueError(f"{path}: size {size} does not fit n_ctx={self.n_ctx} n_vocab={self.n_vocab} n_chunk={self.n_chunk}")
            self.n_scored = body // (rec * self.n_chunk)
            self.first = self.n_ctx - 1 - self.n_scored  # llama-perplexity: n_ctx/2
        elif magic == MAGIC_F:
            self.kind = "f32"
            version, self.n_ctx, self.n_vocab, self.n_chunk, self.first = struct.unpack("<iiiii", self.f.read(20))
            if version != 1:
                raise ValueError(f"{path}: _lpf32__ version {version}, expected 1")
            hdr = 8 + 20
            self.n_scored = self.n_ctx - 1 - self.first
            want = hdr + 4 * self.n_ctx * self.n_chunk + 4 * self.n_vocab * self.n_scored * self.n_chunk
            if size != want:
                raise ValueError(f"{path}: size {size}, expected {want} from its header")
        else:
            raise ValueError(f"{path}: neither a '_logits_' nor an '_lpf32__' file (magic {magic!r})")
        self.tokens = array.array("i")
        self.tokens.frombytes(self.f.read(4 * self.n_ctx * self.n_chunk))
        if sys.byteorder != "little":
            self.tokens.byteswap()

    def rows(self):
        """Yields (chunk, k, row); row is a list of n_vocab log-probs (f32) or (scale, min_log_prob, q) (q16)."""
        n = self.n_vocab
        for c in range(self.n_chunk):
            for k in range(self.n_scored):
                if self.kind == "f32":
                    a = array.array("f")
                    a.frombytes(self.f.read(4 * n))
                    if sys.byteorder != "little":
                        a.byteswap()
                    yield c, k, a
                else:
                    raw = self.f.read(2 * self.nv)
                    scale, min_lp = struct.unpack("<ff", raw[:8])
                    q = array.array("H")
                    q.frombytes(raw[8:8 + 2 * n])
                    if sys.byteorder != "little":
                        q.byteswap()
                    yield c, k, (scale, min_lp, q)


def as_logits(row):
    """B's values as a list of floats (dequantized for a q16 row)."""
    if isinstance(row, tuple):
        scale, min_lp, q = row
        return [scale * v + min_lp for v in q]
    return row


def mean_and_uncertainty(s, s2, count):
    if count < 1:
        return 0.0, 0.0
    f = s / count
    df = s2 / count - f * f
    df = math.sqrt(df / (count - 1)) if df > 0 and count > 10 else 0.0
    return f, df


def covariance(sa, sb, sab, count):
    if count < 10:
        return 0.0
    return (sab / count - (sa / count) * (sb / count)) / (count - 1)


def percentile(values, fraction):
    if fraction <= 0:
        return values[0]
    if fraction >= 1:
        return values[-1]
    p = fraction * (len(values) - 1)
    ip = int(p)
    p -= ip
    return (1 - p) * values[ip] + p * values[min(ip + 1, len(values) - 1)]


def median(values):
    n = len(values)
    return 0.5 * (values[n // 2] + values[n // 2 - 1]) if n % 2 == 0 else values[n // 2]


def compare(path_a, path_b, quiet=False, out=sys.stdout):
    A = LogProbFile(path_a)
    B = LogProbFile(path_b)
    for field in ("n_ctx", "n_vocab", "n_chunk", "first"):
        if getattr(A, field) != getattr(B, field):
            raise ValueError(f"{field} differs: {getattr(A, field)} ({path_a}) vs {getattr(B, field)} ({path_b})")
    if A.tokens != B.tokens:
        raise ValueError("the two files hold different tokens")
    n_vocab, n_ctx, first = A.n_vocab, A.n_ctx, A.first
    exp, log = math.exp, math.log
    s = dict(nll=0.0, nll2=0.0, nll_base=0.0, nll_base2=0.0, nll_nll_base=0.0, kld=0.0, kld2=0.0,
             p_diff=0.0, p_diff2=0.0, p_diff4=0.0)
    max_p_diff = 0.0
    n_same_top = 0
    count = 0
    kld_values = []
    p_diff_values = []
    if not quiet:
        print("chunk             PPL               ln(PPL(Q)/PPL(base))          KL Divergence              Δp RMS            Same top p", file=out)
    for (c, k, ra), (_, _, rb) in zip(A.rows(), B.rows()):
        tok = A.tokens[c * n_ctx + first + k + 1]
        # B: llama.cpp's log-softmax of the "current" logits
        lb = as_logits(rb)
        max_b = max(lb)
        imax = lb.index(max_b)
        if isinstance(rb, tuple):
            # already normalized log-probs; renormalizing would add the mass of the entries clamped at
            # max-16 (about 1e-4 of KL here), so take them as they are
            shift = 0.0
        elif max_b > 50:  # raw logits: shift before exp (log-prob files never need it)
            sum_exp = math.fsum(exp(v - max_b) for v in lb)
            shift = max_b + log(sum_exp)
        else:
            sum_exp = math.fsum(map(exp, lb))
            shift = log(sum_exp)
        nll = shift - lb[tok]
        # A: the base log-probs
        if isinstance(ra, tuple):
            scale, min_lp, q = ra
            qmax = max(q)
            imax_base = q.index(qmax)
            nll_base = -(scale * q[tok] + min_lp)
            if scale > 0:
                thr = (-16.0 - min_lp) / scale
                kld = 0.0
                for i, qi in enumerate(q):
                    if qi > thr:
                        pl = scale * qi + min_lp
                        if pl > -16.0:
                            kld += exp(pl) * (pl - lb[i] + shift)
            else:
                kld = 0.0
                if min_lp > -16.0:
                    kld = sum(exp(min_lp) * (min_lp - lb[i] + shift) for i in range(n_vocab))
        else:
            la = ra
            amax = max(la)
            imax_base = la.index(amax)
            nll_base = -la[tok]
            kld = 0.0
            for i, pl in enumerate(la):
                if pl > -16.0:
                    kld += exp(pl) * (pl - lb[i] + shift)
        s["nll"] += nll
        s["nll2"] += nll * nll
        s["nll_base"] += nll_base
        s["nll_base2"] += nll_base * nll_base
        s["nll_nll_base"] += nll * nll_base
        s["kld"] += kld
        s["kld2"] += kld * kld
        count += 1
        if imax == imax_base:
            n_same_top += 1
        p_diff = exp(-nll) - exp(-nll_base)
        s["p_diff"] += p_diff
        s["p_diff2"] += p_diff * p_diff
        s["p_diff4"] += p_diff ** 4
        max_p_diff = max(max_p_diff, abs(p_diff))
        kld_values.append(kld)
        p_diff_values.append(p_diff)
        if k == A.n_scored - 1 and not quiet:
            lp, lpu = mean_and_uncertainty(s["nll"], s["nll2"], count)
            lb_, lbu = mean_and_uncertainty(s["nll_base"], s["nll_base2"], count)
            cov = covariance(s["nll"], s["nll_base"], s["nll_nll_base"], count)
            ratio_unc = math.sqrt(max(0.0, lpu * lpu + lbu * lbu - 2.0 * cov))
            kl, klu = mean_and_uncertainty(s["kld"], s["kld2"], count)
            mse, mseu = mean_and_uncertainty(s["p_diff2"], s["p_diff4"], count)
            rms = math.sqrt(mse)
            rmsu = 0.5 / rms * mseu if rms > 0 else 0.0
            top = n_same_top / count
            topu = math.sqrt(top * (1 - top) / (count - 1)) if count > 1 else 0.0
            print(f"{c + 1:4d}    {exp(lp):9.4f} ± {exp(lp) * lpu:9.4f}    {lp - lb_:10.5f} ± {ratio_unc:10.5f}"
                  f"    {kl:10.5f} ± {klu:10.5f}    {100 * rms:6.3f} ± {100 * rmsu:6.3f} %    {100 * top:6.3f} ± {100 * topu:6.3f} %",
                  file=out)

    r = {"a": path_a, "b": path_b, "n_ctx": n_ctx, "n_vocab": n_vocab, "n_chunk": A.n_chunk, "first": first, "count": count}
    lp, lpu = mean_and_uncertainty(s["nll"], s["nll2"], count)
    lb_, lbu = mean_and_uncertainty(s["nll_base"], s["nll_base2"], count)
    cov = covariance(s["nll"], s["nll_base"], s["nll_nll_base"], count)
    r["ppl_b"], r["ppl_b_unc"] = exp(lp), exp(lp) * lpu
    r["ppl_a"], r["ppl_a_unc"] = exp(lb_), exp(lb_) * lbu
    r["cor_ln_ppl"] = cov / (lpu * lbu) if lpu > 0 and lbu > 0 else float("nan")
    r["ln_ppl_ratio"] = lp - lb_
    r["ln_ppl_ratio_unc"] = math.sqrt(max(0.0, lpu * lpu + lbu * lbu - 2.0 * cov))
    r["ppl_ratio"] = exp(r["ln_ppl_ratio"])
    r["ppl_ratio_unc"] = r["ppl_ratio"] * r["ln_ppl_ratio_unc"]
    ppl_cov = r["ppl_b"] * r["ppl_a"] * cov
    r["ppl_diff"] = r["ppl_b"] - r["ppl_a"]
    r["ppl_diff_unc"] = math.sqrt(max(0.0, r["ppl_b_unc"] ** 2 + r["ppl_a_unc"] ** 2 - 2.0 * ppl_cov))
    kld_values.sort()
    p_diff_values.sort()
    r["kld_mean"], r["kld_mean_unc"] = mean_and_uncertainty(s["kld"], s["kld2"], count)
    r["kld_max"] = kld_values[-1]
    for name, fr in (("99.9", 0.999), ("99.0", 0.99), ("95.0", 0.95), ("90.0", 0.90)):
        r[f"kld_p{name}"] = percentile(kld_values, fr)
    r["kld_median"] = median(kld_values)
    for name, fr in (("10.0", 0.10), ("5.0", 0.05), ("1.0", 0.01), ("0.1", 0.001)):
        r[f"kld_p{name}"] = percentile(kld_values, fr)
    r["kld_min"] = kld_values[0]
    r["dp_mean"], r["dp_mean_unc"] = mean_and_uncertainty(s["p_diff"], s["p_diff2"], count)
    r["dp_max"] = p_diff_values[-1]
    for name, fr in (("99.9", 0.999), ("99.0", 0.99), ("95.0", 0.95), ("90.0", 0.90), ("75.0", 0.75)):
        r[f"dp_p{name}"] = percentile(p_diff_values, fr)
    r["dp_median"] = median(p_diff_values)
    for name, fr in (("25.0", 0.25), ("10.0", 0.10), ("5.0", 0.05), ("1.0", 0.01), ("0.1", 0.001)):
        r[f"dp_p{name}"] = percentile(p_diff_values, fr)
    r["dp_min"] = p_diff_values[0]
    mse, mseu = mean_and_uncertainty(s["p_diff2"], s["p_diff4"], count)
    r["dp_rms"] = math.sqrt(mse)
    r["dp_rms_unc"] = 0.5 / r["dp_rms"] * mseu if r["dp_rms"] > 0 else 0.0
    r["dp_abs_max"] = max_p_diff
    r["same_top"] = n_same_top / count
    r["same_top_unc"] = math.sqrt(r["same_top"] * (1 - r["same_top"]) / (count - 1)) if count > 1 else 0.0
    r["n_same_top"] = n_same_top
    r["_kld_values"], r["_p_diff_values"] = kld_values, p_diff_values  # sorted; not written to --json

    P = lambda *x: print(*x, file=out)  # noqa: E731
    P()
    P(f"A (base): {path_a}")
    P(f"B:        {path_b}")
    P(f"{count} scored positions ({A.n_chunk} chunks of {n_ctx}, positions {first}..{n_ctx - 2})")
    P()
    P("====== Perplexity statistics ======")
    P(f"Mean PPL(Q)                   : {r['ppl_b']:10.6f} ± {r['ppl_b_unc']:10.6f}")
    P(f"Mean PPL(base)                : {r['ppl_a']:10.6f} ± {r['ppl_a_unc']:10.6f}")
    P(f"Cor(ln(PPL(Q)), ln(PPL(base))): {100 * r['cor_ln_ppl']:6.2f}%")
    P(f"Mean ln(PPL(Q)/PPL(base))     : {r['ln_ppl_ratio']:10.6f} ± {r['ln_ppl_ratio_unc']:10.6f}")
    P(f"Mean PPL(Q)/PPL(base)         : {r['ppl_ratio']:10.6f} ± {r['ppl_ratio_unc']:10.6f}")
    P(f"Mean PPL(Q)-PPL(base)         : {r['ppl_diff']:10.6f} ± {r['ppl_diff_unc']:10.6f}")
    P()
    P("====== KL divergence statistics ======")
    P(f"Mean    KLD: {r['kld_mean']:10.6f} ± {r['kld_mean_unc']:10.6f}")
    P(f"Maximum KLD: {r['kld_max']:10.6f}")
    for name in ("99.9", "99.0", "95.0", "90.0"):
        P(f"{name}%   KLD: {r['kld_p' + name]:10.6f}")
    P(f"Median  KLD: {r['kld_median']:10.6f}")
    for name in ("10.0", "5.0", "1.0", "0.1"):
        P(f"{name:>4}%   KLD: {r['kld_p' + name]:10.6f}")
    P(f"Minimum KLD: {r['kld_min']:10.6f}")
    P()
    P("====== Token probability statistics ======")
    P(f"Mean    Δp: {100 * r['dp_mean']:6.3f} ± {100 * r['dp_mean_unc']:5.3f} %")
    P(f"Maximum Δp: {100 * r['dp_max']:6.3f}%")
    for name in ("99.9", "99.0", "95.0", "90.0", "75.0"):
        P(f"{name}%   Δp: {100 * r['dp_p' + name]:6.3f}%")
    P(f"Median  Δp: {100 * r['dp_median']:6.3f}%")
    for name in ("25.0", "10.0", "5.0", "1.0", "0.1"):
        P(f"{name:>4}%   Δp: {100 * r['dp_p' + name]:6.3f}%")
    P(f"Minimum Δp: {100 * r['dp_min']:6.3f}%")
    P(f"RMS Δp    : {100 * r['dp_rms']:6.3f} ± {100 * r['dp_rms_unc']:5.3f} %")
    P(f"Same top p: {100 * r['same_top']:6.3f} ± {100 * r['same_top_unc']:5.3f} %")
    return r


def main(argv):
    usage = ("usage: compare.py A B [--json FILE] [--quiet]\n"
             "  A: the base log-prob file, B: the one under test ('_logits_' or '_lpf32__' files, same tokens).\n"
             "  Prints llama-perplexity --kl-divergence's statistics of B against A. Exit 0, or 2 on bad input.\n")
    args, json_out, quiet = [], None, False
    it = iter(argv)
    for x in it:
        if x in ("-h", "--help"):
            sys.stdout.write(usage + __doc__)
            return 0
        if x == "--json":
            json_out = next(it, None)
            if json_out is None:
                sys.stderr.write(usage)
                return 2
        elif x == "--quiet":
            quiet = True
        elif x.startswith("--"):
            sys.stderr.write(f"compare.py: unknown option {x}\n" + usage)
            return 2
        else:
            args.append(x)
    if len(args) != 2:
        sys.stderr.write(usage)
        return 2
    try:
        r = compare(args[0], args[1], quiet=quiet)
    except (ValueError, OSError) as e:
        sys.stderr.write(f"compare.py: {e}\n")
        return 2
    if json_out:
        with open(json_out, "w") as f:
            json.dump({k: v for k, v in r.items() if not k.startswith("_")}, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

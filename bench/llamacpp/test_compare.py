#!/usr/bin/env python3
"""test_compare.py — compare.py on small synthetic files (standard library only; python3 test_compare.py)."""
import array
import io
import math
import os
import random
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

N_CTX, N_VOCAB, N_CHUNK, FIRST = 64, 50, 3, 32
N_SCORED = N_CTX - 1 - FIRST


def log_softmax(xs):
    m = max(xs)
    lse = m + math.log(sum(math.exp(x - m) for x in xs))
    return [x - lse for x in xs]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write_f32(path, tokens, rows):
    with open(path, "wb") as f:
        f.write(b"_lpf32__" + struct.pack("<iiiii", 1, N_CTX, N_VOCAB, N_CHUNK, FIRST))
        f.write(array.array("i", tokens).tobytes())
        for r in rows:
            f.write(array.array("f", r).tobytes())


def write_q16(path, tokens, rows):
    """perplexity.cpp's log_softmax(n_vocab, logits, log_prob, tok) record, in Python."""
    nv = 2 * ((N_VOCAB + 1) // 2) + 4
    with open(path, "wb") as f:
        f.write(b"_logits_" + struct.pack("<iii", N_CTX, N_VOCAB, N_CHUNK))
        f.write(array.array("i", tokens).tobytes())
        for r in rows:
            mx, mn = max(r), max(min(r), max(r) - 16)
            lse = math.log(sum(math.exp(x - mx) for x in r))
            min_lp = f32(mn - mx - lse)
            scale = f32((mx - mn) / 65535)
            q = array.array("H", [0] * (nv - 4))
            for i, x in enumerate(r):
                q[i] = int(round((x - mn) / scale)) if x > mn else 0
            f.write(struct.pack("<ff", scale, min_lp) + q.tobytes())


class CompareTest(unittest.TestCase):
    def setUp(self):
        rnd = random.Random(7)
        self.dir = tempfile.mkdtemp()
        self.tokens = [rnd.randrange(N_VOCAB) for _ in range(N_CTX * N_CHUNK)]
        self.a = [log_softmax([rnd.gauss(0, 3) for _ in range(N_VOCAB)]) for _ in range(N_CHUNK * N_SCORED)]
        self.b = [log_softmax([x + rnd.gauss(0, 0.05) for x in r]) for r in self.a]

    def path(self, name):
        return os.path.join(self.dir, name)

    def run_compare(self, a, b):
        return compare.compare(self.path(a), self.path(b), quiet=True, out=io.StringIO())

    def expected_kl(self):
        # compare.py's definition: tokens with base log-prob > -16 only
        ks = [sum(math.exp(la) * (la - lb) for la, lb in zip(ra, rb) if la > -16) for ra, rb in zip(self.a, self.b)]
        return sum(ks) / len(ks)

    def test_identical_files(self):
        write_f32(self.path("a.f32"), self.tokens, self.a)
        r = self.run_compare("a.f32", "a.f32")
        self.assertEqual(r["count"], N_CHUNK * N_SCORED)
        self.assertAlmostEqual(r["kld_mean"], 0.0, places=6)
        self.assertEqual(r["same_top"], 1.0)
        self.assertAlmostEqual(r["ppl_a"] / r["ppl_b"], 1.0, places=6)
        self.assertAlmostEqual(r["dp_rms"], 0.0, places=6)

    def test_kl_and_ppl_f32(self):
        write_f32(self.path("a.f32"), self.tokens, self.a)
        write_f32(self.path("b.f32"), self.tokens, self.b)
        r = self.run_compare("a.f32", "b.f32")
        self.assertAlmostEqual(r["kld_mean"], self.expected_kl(), delta=1e-6)
        nll = [-self.b[c * N_SCORED + k][self.tokens[c * N_CTX + FIRST + k + 1]] for c in range(N_CHUNK) for k in range(N_SCORED)]
        self.assertAlmostEqual(r["ppl_b"], math.exp(sum(nll) / len(nll)), places=4)

    def test_quantized_base_and_raw_logits(self):
        write_q16(self.path("a.logits"), self.tokens, self.a)
        # B as raw logits (shifted by an arbitrary constant per row): compare.py log-softmaxes them
        write_f32(self.path("b.f32"), self.tokens, [[x + 60.0 for x in r] for r in self.b])
        r = self.run_compare("a.logits", "b.f32")
        self.assertEqual(r["first"], FIRST)  # derived from the file size
        self.assertAlmostEqual(r["kld_mean"], self.expected_kl(), delta=2e-4)
        top = sum(ra.index(max(ra)) == rb.index(max(rb)) for ra, rb in zip(self.a, self.b)) / len(self.a)
        self.assertAlmostEqual(r["same_top"], top)

    def test_mismatch_is_an_error(self):
        write_f32(self.path("a.f32"), self.tokens, self.a)
        write_f32(self.path("c.f32"), [0] * len(self.tokens), self.a)
        with self.assertRaises(ValueError):
            self.run_compare("a.f32", "c.f32")


if __name__ == "__main__":
    unittest.main()

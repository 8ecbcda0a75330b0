/* quant_test.c — the weight-type kernels (quant.h) of every compiled variant, tested against references
 * written here straight from ggml's block layouts (ggml/src/ggml-common.h), and on the real models:
 *
 *  1. the type table (ggml's ids, block sizes and bytes);
 *  2. the activation quantizers against llama.cpp's rules, byte for byte (q8_0: the x86 CPU backend's
 *     quantize_row_q8_0, rounding ties to even; q8_K: quantize_row_q8_K_ref);
 *  3. each variant's dequantization of random blocks against a per-value reference decoder;
 *  4. (quant_test_gemm.c) each variant's strata_gemm_rows, for every computable type, many ncols, unaligned rows and activations,
 *     row sub-ranges and strides, against
 *     (a) the double dot product of the dequantized weights with the dequantized (quantized) activations:
 *         |y - ref| <= 1e-5 * sum |w_i xq_i| (only float rounding differs: the block sums are exact integers);
 *     (b) the double dot product with the float activations, within the activation quantization bound
 *         |y - ref| <= sum_i |w_i| * e(block of i) + 1e-5 * sum |w_i x_i|, where e is the largest error of one
 *         quantized activation value: q8_0 e = d (1/2 + 127 * 2^-11) (half a step, plus the f16 rounding of d
 *         times the largest code), q8_K e = d (1/2 + 2^-20) (d is f32); float types e = 0;
 *     and the variants against each other; a corrupted scale must break (a) (the check can fail);
 *  5. (quant_test_real.c) on ../shared/data/models (or $STRATA_SHARED_DATA/models): every Q8_0 / Q4_K / Q6_K (/ Q5_K / Q4_0) tensor
 *     of tiny-qwen3-q8_0.gguf and -q4_k_m.gguf, dequantized, against the F16 tensor of the same name in
 *     tiny-qwen3-f16.gguf (relative RMS error below the type's bound), and gemm_rows on real tensors.
 * `quant_test [--quick]`; exit 0 when all pass. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>

#include "quant.h"
#include "quant_impl.h"
#include "quant_rand.h"
#include "quant_test.h"

int fails = 0, checks = 0;

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return xorshift64(&rs); }
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
float nrand(void) {
    double u = urand() + 1e-12, v = urand();
    return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

/* ---- an independent f16 / bf16 decoder and encoder (not half.h) ---- */
double ref_half(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return s ? -v : v;
}
uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
/* a finite half of magnitude in [2^lo, 2^hi), random sign when sign != 0 */
static uint16_t rand_half(int lo, int hi, int sign) {
    int e = lo + (int)(rnd() % (uint64_t)(hi - lo)) + 15;
    return (uint16_t)(((sign && (rnd() & 1)) ? 0x8000 : 0) | (e << 10) | (rnd() & 1023));
}
static void st16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* ---- reference decoders: value i of a row, straight from the layout ---- */
static void ref_k4_scale(const uint8_t *s, int j, int *sc, int *m) { /* get_scale_min_k4, spelled per bit */
    if (j < 4) {
        *sc = s[j] % 64;
        *m = s[4 + j] % 64;
    } else {
        *sc = (s[8 + (j - 4)] % 16) + 16 * (s[j - 4] / 64);
        *m = (s[8 + (j - 4)] / 16) + 16 * (s[j] / 64);
    }
}
/* value i and the magnitude of the terms that made it (for the tolerance) */
double ref_value(uint32_t t, const uint8_t *row, int64_t i, double *mag) {
    double v;
    switch (t) {
    case GGML_TYPE_F32: {
        float f;
        memcpy(&f, row + 4 * i, 4);
        v = f;
        break;
    }
    case GGML_TYPE_F16: v = ref_half(ld16(row + 2 * i)); break;
    case GGML_TYPE_BF16: {
        uint32_t u = (uint32_t)ld16(row + 2 * i) << 16;
        float f;
        memcpy(&f, &u, 4);
        v = f;
        break;
    }
    case GGML_TYPE_Q4_0: {
        const uint8_t *b = row + 18 * (i / 32);
        int j = (int)(i % 32);
        int q = j < 16 ? (b[2 + j] & 15) : (b[2 + j - 16] >> 4);
        v = (q - 8) * ref_half(ld16(b));
        break;
    }
    case GGML_TYPE_Q5_0: {
        const uint8_t *b = row + 22 * (i / 32);
        int j = (int)(i % 32);
        int q = (j < 16 ? (b[6 + j] & 15) : (b[6 + j - 16] >> 4)) + 16 * ((b[2 + j / 8] >> (j % 8)) & 1);
        v = (q - 16) * ref_half(ld16(b));
        break;
    }
    case GGML_TYPE_Q8_0: {
        const uint8_t *b = row + 34 * (i / 32);
        v = (int8_t)b[2 + i % 32] * ref_half(ld16(b));
        break;
    }
    case GGML_TYPE_Q4_K:
    case GGML_TYPE_Q5_K: {
        const int five = t == GGML_TYPE_Q5_K;
        const uint8_t *b = row + (five ? 176 : 144) * (i / 256);
        int p = (int)(i % 256), j = p / 32, l = p % 32, sc, m;
        ref_k4_scale(b + 4, j, &sc, &m);
        int byte = b[(five ? 48 : 16) + 32 * (j / 2) + l];
        int q = (j % 2) ? byte >> 4 : byte & 15;
        if (five && (b[16 + l] >> j) & 1) {
            q += 16;
        }
        double d = ref_half(ld16(b)), dmin = ref_half(ld16(b + 2));
        *mag = fabs(d * sc * q) + fabs(dmin * m);
        return d * sc * q - dmin * m;
    }
    case GGML_TYPE_Q6_K: {
        const uint8_t *b = row + 210 * (i / 256);
        int p = (int)(i % 256), h = p / 128, g = (p % 128) / 32, l = p % 32;
        int byte = b[64 * h + l + 32 * (g % 2)];
        int lo = g < 2 ? byte & 15 : byte >> 4;
        int hi = (b[128 + 32 * h + l] >> (2 * g)) & 3;
        int sc = (int8_t)b[192 + p / 16];
        v = ref_half(ld16(b + 208)) * sc * (lo + 16 * hi - 32);
        break;
    }
    case GGML_TYPE_Q8_K: {
        const uint8_t *b = row + 292 * (i / 256);
        float d;
        memcpy(&d, b, 4);
        v = d * (int8_t)b[4 + i % 256];
        break;
    }
    default: v = NAN;
    }
    *mag = fabs(v);
    return v;
}

/* ---- random rows of a type: random code bytes, scales drawn to be finite and in a sane range ---- */
static uint8_t rand_byte(void) { return (uint8_t)rnd(); }
/* f32 and bf16 values: normal draws; f16 values: magnitudes in [2^-8, 2^2) (exact as halves) */
static float rand_value(uint32_t t) {
    return t == GGML_TYPE_F16 ? strata_half_to_float(rand_half(-8, 2, 1)) : nrand();
}
/* block scales: q*_0 d in +-[2^-12, 2^-5), K-quant d and dmin in [2^-14, 2^-8) */
static uint16_t rand_scale(uint32_t t) {
    return t == GGML_TYPE_Q4_0 || t == GGML_TYPE_Q5_0 || t == GGML_TYPE_Q8_0 ? rand_half(-12, -5, 1)
                                                                              : rand_half(-14, -8, 0);
}
void rand_row(uint32_t t, uint8_t *row, int64_t n) {
    quant_fill(t, row, strata_row_bytes(t, n), rand_byte, rand_value, rand_scale);
}

const uint32_t COMPUTABLE[N_COMPUTABLE] = {GGML_TYPE_F32,  GGML_TYPE_F16,  GGML_TYPE_BF16,
                                          GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q5_0,
                                          GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K};

const strata_quant_ops *variants[2];
int n_variants;

/* ---- 1. the type table ---- */
static void test_table(void) {
    struct {
        uint32_t id;
        const char *name;
        uint32_t block, bytes;
        int comp;
    } want[] = {
        {0, "f32", 1, 4, 1},       {1, "f16", 1, 2, 1},        {2, "q4_0", 32, 18, 1},     {3, "q4_1", 32, 20, 0},
        {6, "q5_0", 32, 22, 1},    {7, "q5_1", 32, 24, 0},     {8, "q8_0", 32, 34, 1},     {9, "q8_1", 32, 36, 0},
        {10, "q2_K", 256, 84, 0},  {11, "q3_K", 256, 110, 0},  {12, "q4_K", 256, 144, 1},  {13, "q5_K", 256, 176, 1},
        {14, "q6_K", 256, 210, 1}, {15, "q8_K", 256, 292, 0},  {16, "iq2_xxs", 256, 66, 0}, {19, "iq1_s", 256, 50, 0},
        {20, "iq4_nl", 32, 18, 0}, {23, "iq4_xs", 256, 136, 0}, {30, "bf16", 1, 2, 1},     {34, "tq1_0", 256, 54, 0},
        {35, "tq2_0", 256, 66, 0}, {39, "mxfp4", 32, 17, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const strata_type_info *t = strata_type(want[i].id);
        CHECK(t != NULL && strcmp(t->name, want[i].name) == 0 && t->block == want[i].block &&
                  t->bytes == want[i].bytes && t->computable == want[i].comp,
              "type %u: %s", want[i].id, t ? t->name : "missing");
    }
    const uint32_t removed[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, 64, 1000};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        CHECK(strata_type(removed[i]) == NULL, "type %u should be unknown", removed[i]);
    }
    CHECK(strata_row_bytes(GGML_TYPE_Q4_K, 512) == 288 && strata_row_bytes(GGML_TYPE_Q4_K, 500) == 0 &&
              strata_row_bytes(GGML_TYPE_Q8_0, 64) == 68 && strata_row_bytes(GGML_TYPE_F16, 3) == 6,
          "row bytes");
    CHECK(strata_type(GGML_TYPE_Q4_K)->vec_dot_type == GGML_TYPE_Q8_K &&
              strata_type(GGML_TYPE_Q4_0)->vec_dot_type == GGML_TYPE_Q8_0 &&
              strata_type(GGML_TYPE_BF16)->vec_dot_type == GGML_TYPE_F32,
          "vec_dot types");
}

/* ---- 2. activation quantizers, against llama.cpp's rules restated ---- */
static void ref_q8_0(const float *x, uint8_t *o, int64_t n) { /* arch/x86/quants.c quantize_row_q8_0 */
    for (int64_t b = 0; b < n / 32; b++) {
        float amax = 0;
        for (int j = 0; j < 32; j++) {
            amax = fmaxf(amax, fabsf(x[32 * b + j]));
        }
        float d = amax / 127.f, id = amax != 0 ? 127.f / amax : 0.f;
        /* d to f16, round to nearest even: the smallest positive half >= d (bit patterns of positive halves
         * are ordered), or the one below it when that is nearer or as near with an even mantissa */
        uint16_t lo = 0, hi = 0x7c00;
        while (lo < hi) {
            uint16_t mid = (uint16_t)((lo + hi) / 2);
            if (ref_half(mid) >= d) {
                hi = mid;
            } else {
                lo = (uint16_t)(mid + 1);
            }
        }
        uint16_t best = lo;
        if (lo > 0) {
            double up = ref_half(lo) - d, down = d - ref_half((uint16_t)(lo - 1));
            if (down < up || (down == up && ((lo - 1) & 1) == 0)) {
                best = (uint16_t)(lo - 1);
            }
        }
        st16(o + 34 * b, best);
        for (int j = 0; j < 32; j++) {
            float v = x[32 * b + j] * id;
            o[34 * b + 2 + j] = (uint8_t)(int8_t)nearbyintf(v);
        }
    }
}
static void ref_q8_k(const float *x, uint8_t *o, int64_t n) { /* ggml-quants.c quantize_row_q8_K_ref */
    for (int64_t b = 0; b < n / 256; b++, x += 256, o += 292) {
        float amax = 0, max = 0;
        for (int j = 0; j < 256; j++) {
            if (fabsf(x[j]) > amax) {
                amax = fabsf(x[j]);
                max = x[j];
            }
        }
        memset(o, 0, 292);
        if (amax == 0) {
            continue;
        }
        float iscale = -127.f / max, d = 1 / iscale;
        memcpy(o, &d, 4);
        for (int j = 0; j < 256; j++) {
            float v = nearbyintf(iscale * x[j]);
            o[4 + j] = (uint8_t)(int8_t)(v > 127 ? 127 : v);
        }
        for (int i = 0; i < 16; i++) {
            int16_t s = 0;
            for (int j = 0; j < 16; j++) {
                s = (int16_t)(s + (int8_t)o[4 + 16 * i + j]);
            }
            memcpy(o + 260 + 2 * i, &s, 2);
        }
    }
}
static void test_quantize_act(void) {
    enum { N = 1024 };
    float x[N];
    uint8_t a[N / 32 * 34], b[N / 32 * 34], c[N / 256 * 292], e[N / 256 * 292];
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < N; i++) {
            x[i] = nrand() * (trial % 3 == 0 ? 1e-3f : 1.0f) * (i % 97 == 0 ? 30.0f : 1.0f);
        }
        if (trial == 1) {
            for (int i = 0; i < 256; i++) {
                x[i] = 0.0f; /* an all-zero block */
            }
        }
        if (trial == 2) { /* ties: amax 127 makes id = 1, so x = k + 1/2 must round to even */
            for (int i = 0; i < N; i++) {
                x[i] = i % 32 == 0 ? 127.0f : (float)((i % 50) - 25) + 0.5f;
            }
        }
        strata_quantize_act(GGML_TYPE_Q8_0, x, a, N);
        ref_q8_0(x, b, N);
        CHECK(memcmp(a, b, sizeof a) == 0, "q8_0 activation bytes (trial %d)", trial);
        strata_quantize_act(GGML_TYPE_Q8_K, x, c, N);
        ref_q8_k(x, e, N);
        CHECK(memcmp(c, e, sizeof c) == 0, "q8_K activation bytes (trial %d)", trial);
        if (trial == 2) {
            CHECK((int8_t)a[2 + 1] == -24 && (int8_t)a[2 + 2] == -22, "q8_0 ties to even: %d %d", (int8_t)a[3],
                  (int8_t)a[4]);
        }
    }
    float f[5] = {1, 2, 3, 4, 5}, g[5];
    strata_quantize_act(GGML_TYPE_F32, f, g, 5);
    CHECK(memcmp(f, g, sizeof f) == 0, "f32 activation copy");
}

/* ---- 3. dequantization ---- */
static void test_dequant(void) {
    enum { N = 1024 };
    static uint8_t row[N * 4];
    static float y[N];
    for (int v = 0; v < n_variants; v++) {
        for (size_t k = 0; k < N_COMPUTABLE; k++) {
            const uint32_t t = COMPUTABLE[k];
            int bad = 0;
            double worst = 0;
            for (int trial = 0; trial < 8; trial++) {
                const int64_t n = trial % 2 ? N : 256; /* one super-block and four */
                rand_row(t, row, n);
                variants[v]->dequant_row(t, row, y, n);
                for (int64_t i = 0; i < n; i++) {
                    double mag, r = ref_value(t, row, i, &mag);
                    double err = fabs(y[i] - r);
                    if (!(err <= 4 * 1.2e-7 * mag)) {
                        if (bad++ < 3) {
                            fprintf(stderr, "  %s %s value %lld: %g vs %g\n", variants[v]->isa,
                                    strata_type(t)->name, (long long)i, y[i], r);
                        }
                    }
                    worst = fmax(worst, mag > 0 ? err / mag : err);
                }
            }
            CHECK(bad == 0, "dequant %s (%s): %d values off", strata_type(t)->name, variants[v]->isa, bad);
        }
    }
    /* every one of the 65,536 halves (subnormals, infinities, NaNs) through each variant's f16 decoder */
    for (int v = 0; v < n_variants; v++) {
        static uint8_t all[65536 * 2];
        static float out[65536];
        for (uint32_t h = 0; h < 65536; h++) {
            st16(all + 2 * h, (uint16_t)h);
        }
        variants[v]->dequant_row(GGML_TYPE_F16, all, out, 65536);
        int bad = 0;
        for (uint32_t h = 0; h < 65536; h++) {
            const int e = (h >> 10) & 31, m = h & 1023;
            const double want = e == 31 ? (m ? NAN : (h & 0x8000 ? -INFINITY : INFINITY)) : ref_half((uint16_t)h);
            const int ok = isnan(want) ? isnan(out[h]) : (out[h] == want && !signbit(out[h]) == !signbit(want));
            if (!ok && bad++ < 3) {
                fprintf(stderr, "  %s f16 0x%04x: %g, want %g\n", variants[v]->isa, h, out[h], want);
            }
        }
        CHECK(bad == 0, "f16 decode (%s): %d of 65536 halves wrong", variants[v]->isa, bad);
    }
    /* the public entry point agrees with the chosen variant, and refuses what it cannot compute */
    rand_row(GGML_TYPE_Q6_K, row, 256);
    float z[256];
    strata_dequant_row(GGML_TYPE_Q6_K, row, z, 256);
    strata_quant_best()->dequant_row(GGML_TYPE_Q6_K, row, y, 256);
    CHECK(memcmp(z, y, sizeof z) == 0, "strata_dequant_row = best variant");
    strata_dequant_row(GGML_TYPE_Q3_K, row, z, 256);
    CHECK(isnan(z[0]) && isnan(z[255]), "q3_K dequant is refused with NaN");
}

int main(int argc, char **argv) {
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    test_threads(); /* first: its threads are the first callers */
    variants[n_variants++] = &strata_quant_base;
#if defined(__x86_64__)
    if (strata_quant_best() == &strata_quant_avx2) {
        variants[n_variants++] = &strata_quant_avx2;
    } else {
        printf("quant_test: the avx2 variant is not chosen here (no AVX2+FMA+F16C, or STRATA_QUANT_ISA=base): "
               "not tested\n");
    }
#endif
    test_table();
    test_quantize_act();
    test_dequant();
    test_gemm(quick);
    test_real(quick);
    printf("quant_test: %d checks, %d failed (gemm_rows uses %s)\n", checks, fails, strata_quant_isa());
    return fails == 0 ? 0 : 1;
}

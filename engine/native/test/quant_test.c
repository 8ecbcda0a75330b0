/* quant_test.c — the weight-type kernels (quant.h) of every compiled variant, tested against references
 * written here straight from ggml's block layouts (ggml/src/ggml-common.h), and on the real models:
 *
 *  1. the type table (ggml's ids, block sizes and bytes);
 *  2. the activation quantizers against llama.cpp's rules, byte for byte (q8_0: the x86 CPU backend's
 *     quantize_row_q8_0, rounding ties to even; q8_K: quantize_row_q8_K_ref);
 *  3. each variant's dequantization of random blocks against a per-value reference decoder;
 *  4. each variant's strata_gemm_rows, for every computable type, many ncols, unaligned rows and activations,
 *     row sub-ranges and strides, against
 *     (a) the double dot product of the dequantized weights with the dequantized (quantized) activations:
 *         |y - ref| <= 1e-5 * sum |w_i xq_i| (only float rounding differs: the block sums are exact integers);
 *     (b) the double dot product with the float activations, within the activation quantization bound
 *         |y - ref| <= sum_i |w_i| * e(block of i) + 1e-5 * sum |w_i x_i|, where e is the largest error of one
 *         quantized activation value: q8_0 e = d (1/2 + 127 * 2^-11) (half a step, plus the f16 rounding of d
 *         times the largest code), q8_K e = d (1/2 + 2^-20) (d is f32); float types e = 0;
 *     and the variants against each other; a corrupted scale must break (a) (the check can fail);
 *  5. on ../shared/data/models (or $STRATA_SHARED_DATA/models): every Q8_0 / Q4_K / Q6_K (/ Q5_K / Q4_0) tensor
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

static int fails = 0, checks = 0;
#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        checks++;                                                                                                     \
        if (!(cond)) {                                                                                                \
            fails++;                                                                                                  \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                                             \
            fputc('\n', stderr);                                                                                      \
        }                                                                                                             \
    } while (0)

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
static float nrand(void) {
    double u = urand() + 1e-12, v = urand();
    return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

/* ---- an independent f16 / bf16 decoder and encoder (not half.h) ---- */
static double ref_half(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return s ? -v : v;
}
static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
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
static double ref_value(uint32_t t, const uint8_t *row, int64_t i, double *mag) {
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
static void rand_row(uint32_t t, uint8_t *row, int64_t n) {
    size_t bytes = strata_row_bytes(t, n);
    for (size_t i = 0; i < bytes; i++) {
        row[i] = (uint8_t)rnd();
    }
    const strata_type_info *ti = strata_type(t);
    for (int64_t b = 0; b < n / ti->block; b++) {
        uint8_t *p = row + (size_t)b * ti->bytes;
        switch (t) {
        case GGML_TYPE_F32: {
            float f = nrand();
            memcpy(p, &f, 4);
            break;
        }
        case GGML_TYPE_F16: st16(p, rand_half(-8, 2, 1)); break;
        case GGML_TYPE_BF16: {
            float f = nrand();
            uint32_t u;
            memcpy(&u, &f, 4);
            st16(p, (uint16_t)(u >> 16));
            break;
        }
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q8_0: st16(p, rand_half(-12, -5, 1)); break;
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
            st16(p, rand_half(-14, -8, 0));
            st16(p + 2, rand_half(-14, -8, 0));
            break;
        case GGML_TYPE_Q6_K: st16(p + 208, rand_half(-14, -8, 0)); break;
        default: break;
        }
    }
}

static const uint32_t COMPUTABLE[] = {GGML_TYPE_F32,  GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
                                      GGML_TYPE_Q5_0, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K};
enum { N_COMPUTABLE = sizeof COMPUTABLE / sizeof COMPUTABLE[0] };

static const strata_quant_ops *variants[2];
static int n_variants;

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

/* ---- 4. gemm_rows ---- */
typedef struct {
    double worst_a, worst_b; /* largest error / bound seen */
} gemm_stats;

/* Largest error of one dequantized activation value of column x (quantized as vt) at value i: see the top. */
static double act_err(uint32_t vt, const uint8_t *xq, int64_t i) {
    if (vt == GGML_TYPE_Q8_0) {
        return ref_half(ld16(xq + 34 * (i / 32))) * (0.5 + 127.0 / 2048.0);
    }
    if (vt == GGML_TYPE_Q8_K) {
        float d;
        memcpy(&d, xq + 292 * (i / 256), 4);
        return fabs(d) * (0.5 + 1.0 / 1048576.0);
    }
    return 0.0;
}

/* Runs gemm_rows of variant ops on R random rows of type t, n values, ncols columns, and checks (a) and (b);
 * corrupt: flip bits of one scale first and expect (a) to fail instead. */
static void gemm_case(const strata_quant_ops *ops, uint32_t t, int64_t n, int R, int ncols, int corrupt,
                      gemm_stats *st) {
    const uint32_t vt = (uint32_t)strata_type(t)->vec_dot_type;
    const size_t rb = strata_row_bytes(t, n), wrow = rb + 5, xb = strata_row_bytes(vt, n), xs = xb + 3;
    const size_t ystride = (size_t)R + 2;
    uint8_t *wmem = malloc(wrow * (size_t)R + 1), *w = wmem + 1; /* rows at odd addresses */
    uint8_t *xmem = malloc(xs * (size_t)ncols + 1), *xq = xmem + 1;
    float *x = malloc(sizeof(float) * (size_t)n * (size_t)ncols);
    float *y = malloc(sizeof(float) * ystride * (size_t)ncols);
    double *wd = malloc(sizeof(double) * (size_t)n * (size_t)R), *wm = malloc(sizeof(double) * (size_t)n * (size_t)R);
    for (int r = 0; r < R; r++) {
        rand_row(t, w + (size_t)r * wrow, n);
        for (int64_t i = 0; i < n; i++) {
            const size_t k = (size_t)r * (size_t)n + (size_t)i;
            wd[k] = ref_value(t, w + (size_t)r * wrow, i, &wm[k]);
        }
    }
    for (int c = 0; c < ncols; c++) {
        for (int64_t i = 0; i < n; i++) {
            x[(size_t)c * (size_t)n + (size_t)i] = nrand() * (i % 61 == 0 ? 8.0f : 1.0f);
        }
        strata_quantize_act(vt, x + (size_t)c * (size_t)n, xq + (size_t)c * xs, n);
    }
    if (corrupt) { /* one scale of row R/2: q4_K/q5_K scale byte 0 of block 0, q6_K scales[3], else d */
        uint8_t *p = w + (size_t)(R / 2) * wrow;
        if (t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K) {
            p[4] ^= 0x05;
        } else if (t == GGML_TYPE_Q6_K) {
            p[192 + 3] ^= 0x05;
        } else {
            p[1] ^= 0x04;
        }
    }
    for (size_t i = 0; i < ystride * (size_t)ncols; i++) {
        y[i] = -777.0f;
    }
    const int r0 = R > 2 ? 1 : 0, r1 = R > 3 ? R - 1 : R;
    ops->gemm_rows(t, n, w, wrow, r0, r1, xq, xs, ncols, y, ystride);
    int bad_a = 0, bad_b = 0, bad_range = 0;
    for (int c = 0; c < ncols; c++) {
        const uint8_t *xc = xq + (size_t)c * xs;
        for (int r = 0; r < (int)ystride; r++) {
            const float got = y[(size_t)c * ystride + (size_t)r];
            if (r < r0 || r >= r1) {
                bad_range += got != -777.0f;
                continue;
            }
            double ra = 0, ma = 0, rf = 0, mf = 0, eb = 0;
            for (int64_t i = 0; i < n; i++) {
                double dummy, xv = ref_value(vt, xc, i, &dummy), xf = x[(size_t)c * (size_t)n + (size_t)i];
                double wv = wd[(size_t)r * (size_t)n + (size_t)i], wmag = wm[(size_t)r * (size_t)n + (size_t)i];
                ra += wv * xv;
                ma += fabs(wmag * xv);
                rf += wv * xf;
                mf += fabs(wmag * xf);
                eb += fabs(wv) * act_err(vt, xc, i);
            }
            const double ba = 1e-5 * ma + 1e-30, bb = eb + 1e-5 * mf + 1e-30;
            const double ea = fabs(got - ra), e_b = fabs(got - rf);
            if (!(ea <= ba)) {
                if (!corrupt && bad_a < 3) {
                    fprintf(stderr, "  %s %s n=%lld ncols=%d row %d col %d: %.9g vs %.9g (bound %.3g)\n", ops->isa,
                            strata_type(t)->name, (long long)n, ncols, r, c, got, ra, ba);
                }
                bad_a++;
            }
            bad_b += !(e_b <= bb);
            st->worst_a = fmax(st->worst_a, ea / ba);
            st->worst_b = fmax(st->worst_b, e_b / bb);
        }
    }
    /* every column alone (ncols = 1) gives the same bits as inside the batch: a prompt evaluated in one batch
     * and token by token see the same products */
    int bad_alone = 0;
    for (int c = 0; c < ncols && !corrupt; c++) {
        float one[16];
        ops->gemm_rows(t, n, w, wrow, r0, r1, xq + (size_t)c * xs, xs, 1, one, 0);
        for (int r = r0; r < r1; r++) {
            bad_alone += memcmp(&one[r], &y[(size_t)c * ystride + (size_t)r], sizeof(float)) != 0;
        }
    }
    CHECK(bad_alone == 0, "gemm %s (%s) ncols=%d: %d outputs differ from the same column alone", strata_type(t)->name,
          ops->isa, ncols, bad_alone);
    if (corrupt) {
        CHECK(bad_a > 0, "a corrupted %s scale went unnoticed (%s)", strata_type(t)->name, ops->isa);
    } else {
        CHECK(bad_a == 0 && bad_b == 0 && bad_range == 0,
              "gemm %s (%s) n=%lld ncols=%d: %d off exact, %d off the activation bound, %d written outside",
              strata_type(t)->name, ops->isa, (long long)n, ncols, bad_a, bad_b, bad_range);
    }
    free(wmem);
    free(xmem);
    free(x);
    free(y);
    free(wd);
    free(wm);
}

static void test_gemm(int quick) {
    const int ncols_list[] = {1, 2, 3, 4, 5, 9, 64};
    for (int v = 0; v < n_variants; v++) {
        for (size_t k = 0; k < N_COMPUTABLE; k++) {
            const uint32_t t = COMPUTABLE[k];
            const uint32_t blk = strata_type(t)->block;
            /* block counts odd and even; float rows with a tail that is not a multiple of 16 */
            const int64_t ns[] = {blk == 1 ? 37 : blk == 32 ? 544 : 256, blk == 1 ? 512 : blk == 32 ? 512 : 768};
            gemm_stats st = {0, 0};
            for (int ni = 0; ni < 2; ni++) {
                for (size_t ci = 0; ci < sizeof ncols_list / sizeof ncols_list[0]; ci++) {
                    if (quick && ncols_list[ci] == 64 && ni == 1) {
                        continue;
                    }
                    gemm_case(variants[v], t, ns[ni], ncols_list[ci] == 64 ? 3 : 7, ncols_list[ci], 0, &st);
                }
            }
            if (blk == 32) { /* the activation scales in column slices (n 6400, 64 columns) and on the heap (n 35200) */
                gemm_case(variants[v], t, 6400, 3, 64, 0, &st);
                gemm_case(variants[v], t, 35200, 3, 5, 0, &st);
            }
            printf("quant_test: gemm %-5s %-4s worst error / bound: exact %.3f, activation-quantized %.3f\n",
                   strata_type(t)->name, variants[v]->isa, st.worst_a, st.worst_b);
            if (t != GGML_TYPE_F32 && t != GGML_TYPE_BF16 && t != GGML_TYPE_F16) {
                gemm_case(variants[v], t, ns[1], 5, 2, 1, &st);
            }
        }
    }
    /* the variants agree with each other through the public entry point */
    if (n_variants == 2) {
        for (size_t k = 0; k < N_COMPUTABLE; k++) {
            const uint32_t t = COMPUTABLE[k], vt = (uint32_t)strata_type(t)->vec_dot_type;
            const int64_t n = 1024;
            const int R = 16, nc = 6;
            const size_t rb = strata_row_bytes(t, n), xb = strata_row_bytes(vt, n);
            uint8_t *w = malloc(rb * R), *xq = malloc(xb * nc);
            float x[1024], y0[16 * 6], y1[16 * 6];
            for (int r = 0; r < R; r++) {
                rand_row(t, w + rb * (size_t)r, n);
            }
            for (int c = 0; c < nc; c++) {
                for (int i = 0; i < n; i++) {
                    x[i] = nrand();
                }
                strata_quantize_act(vt, x, xq + xb * (size_t)c, n);
            }
            variants[0]->gemm_rows(t, n, w, rb, 0, R, xq, xb, nc, y0, R);
            strata_gemm_rows(t, n, w, rb, 0, R, xq, xb, nc, y1, R);
            double worst = 0; /* |difference| / sum_i |w_i xq_i| of the output, at most 2e-5 (twice (a)) */
            for (int c = 0; c < nc; c++) {
                for (int r = 0; r < R; r++) {
                    double m = 0, dm, dw;
                    for (int64_t i = 0; i < n; i++) {
                        ref_value(t, w + rb * (size_t)r, i, &dw);
                        m += dw * fabs(ref_value(vt, xq + xb * (size_t)c, i, &dm));
                    }
                    worst = fmax(worst, fabs(y0[c * R + r] - y1[c * R + r]) / (m + 1e-30));
                }
            }
            CHECK(worst <= 2e-5, "%s: base and %s differ by %g (relative to sum |w x|)", strata_type(t)->name,
                  strata_quant_isa(), worst);
            free(w);
            free(xq);
        }
    }
    float y[4] = {1, 1, 1, 1};
    uint8_t dummy[256] = {0};
    strata_gemm_rows(GGML_TYPE_Q3_K, 256, dummy, 110, 0, 2, dummy, 292, 2, y, 2);
    CHECK(isnan(y[0]) && isnan(y[3]), "gemm of a type strata-ref does not compute writes NaN");
}

/* ---- 4b. threads: the forward pass calls gemm_rows from several threads on disjoint row ranges; the first
 * calls (which pick the variant) race on purpose ---- */
typedef struct {
    const uint8_t *w, *xq;
    size_t rb, xb;
    int64_t n, r0, r1;
    int nc;
    float *y;
    size_t ys;
} thr_job;
static void *thr_run(void *p) {
    const thr_job *j = p;
    for (int rep = 0; rep < 20; rep++) {
        strata_gemm_rows(GGML_TYPE_Q4_K, j->n, j->w, j->rb, j->r0, j->r1, j->xq, j->xb, j->nc, j->y, j->ys);
    }
    return NULL;
}
static void test_threads(void) {
    enum { T = 4, R = 64, NC = 5 };
    const int64_t n = 512;
    const size_t rb = strata_row_bytes(GGML_TYPE_Q4_K, n), xb = strata_row_bytes(GGML_TYPE_Q8_K, n);
    uint8_t *w = malloc(rb * R), *xq = malloc(xb * NC);
    float x[512], *y = malloc(sizeof(float) * R * NC), *y1 = malloc(sizeof(float) * R * NC);
    for (int r = 0; r < R; r++) {
        rand_row(GGML_TYPE_Q4_K, w + rb * (size_t)r, n);
    }
    for (int c = 0; c < NC; c++) {
        for (int i = 0; i < n; i++) {
            x[i] = nrand();
        }
        strata_quantize_act(GGML_TYPE_Q8_K, x, xq + xb * (size_t)c, n);
    }
    pthread_t th[T];
    thr_job jobs[T];
    for (int t = 0; t < T; t++) {
        jobs[t] = (thr_job){w, xq, rb, xb, n, (int64_t)t * R / T, (int64_t)(t + 1) * R / T, NC, y, R};
        pthread_create(&th[t], NULL, thr_run, &jobs[t]);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
    }
    strata_gemm_rows(GGML_TYPE_Q4_K, n, w, rb, 0, R, xq, xb, NC, y1, R);
    CHECK(memcmp(y, y1, sizeof(float) * R * NC) == 0, "4 threads on disjoint rows = one call");
    free(w);
    free(xq);
    free(y);
    free(y1);
}

/* ---- 5. the real models: a test-only GGUF reader (header, keys skipped, tensor infos) ---- */
typedef struct {
    char name[96];
    uint32_t type;
    int64_t ne[4];
    uint64_t off;
} tinfo;
typedef struct {
    uint8_t *buf;
    size_t size;
    uint64_t nt;
    tinfo *t;
    size_t data;
} gfile;

static int rd(const gfile *g, size_t *p, void *v, size_t n) {
    if (*p + n > g->size) {
        return -1;
    }
    memcpy(v, g->buf + *p, n);
    *p += n;
    return 0;
}
static int skip_value(const gfile *g, size_t *p, uint32_t type, uint64_t *u32val) {
    static const int sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    if (type > 12) {
        return -1;
    }
    if (type == 8) {
        uint64_t len;
        if (rd(g, p, &len, 8) || len > g->size - *p) {
            return -1;
        }
        *p += len;
        return 0;
    }
    if (type == 9) {
        uint32_t at;
        uint64_t n;
        if (rd(g, p, &at, 4) || rd(g, p, &n, 8) || n > g->size) {
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            if (skip_value(g, p, at, NULL)) {
                return -1;
            }
        }
        return 0;
    }
    if (u32val != NULL && type == 4) {
        uint32_t v;
        memcpy(&v, g->buf + *p, 4);
        *u32val = v;
    }
    if (*p + (size_t)sz[type] > g->size) {
        return -1;
    }
    *p += (size_t)sz[type];
    return 0;
}
static int gopen(const char *path, gfile *g) {
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }
    fseek(f, 0, SEEK_END);
    g->size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    g->buf = malloc(g->size);
    size_t got = fread(g->buf, 1, g->size, f);
    fclose(f);
    size_t p = 0;
    uint32_t magic, version;
    uint64_t nkv, align = 32;
    if (got != g->size || rd(g, &p, &magic, 4) || memcmp(&magic, "GGUF", 4) || rd(g, &p, &version, 4) ||
        rd(g, &p, &g->nt, 8) || rd(g, &p, &nkv, 8) || g->nt > 100000) {
        return -1;
    }
    for (uint64_t i = 0; i < nkv; i++) {
        uint64_t len;
        char key[128] = {0};
        uint32_t type;
        if (rd(g, &p, &len, 8) || len > g->size - p) {
            return -1;
        }
        memcpy(key, g->buf + p, len < 127 ? len : 127);
        p += len;
        uint64_t v = 0;
        if (rd(g, &p, &type, 4) || skip_value(g, &p, type, &v)) {
            return -1;
        }
        if (strcmp(key, "general.alignment") == 0 && type == 4) {
            align = v;
        }
    }
    g->t = calloc(g->nt, sizeof(tinfo));
    for (uint64_t i = 0; i < g->nt; i++) {
        uint64_t len;
        uint32_t nd;
        if (rd(g, &p, &len, 8) || len > g->size - p || len > 95) {
            return -1;
        }
        memcpy(g->t[i].name, g->buf + p, len);
        p += len;
        if (rd(g, &p, &nd, 4) || nd > 4) {
            return -1;
        }
        for (int d = 0; d < 4; d++) {
            g->t[i].ne[d] = 1;
        }
        for (uint32_t d = 0; d < nd; d++) {
            if (rd(g, &p, &g->t[i].ne[d], 8)) {
                return -1;
            }
        }
        if (rd(g, &p, &g->t[i].type, 4) || rd(g, &p, &g->t[i].off, 8)) {
            return -1;
        }
    }
    g->data = (p + align - 1) / align * align;
    return 0;
}
static const tinfo *gfind(const gfile *g, const char *name) {
    for (uint64_t i = 0; i < g->nt; i++) {
        if (strcmp(g->t[i].name, name) == 0) {
            return &g->t[i];
        }
    }
    return NULL;
}
static const uint8_t *gdata(const gfile *g, const tinfo *t) {
    size_t rows = (size_t)(t->ne[1] * t->ne[2] * t->ne[3]);
    size_t bytes = strata_row_bytes(t->type, t->ne[0]) * rows;
    if (bytes == 0 || g->data + t->off + bytes > g->size) {
        return NULL;
    }
    return g->buf + g->data + t->off;
}
static void gclose(gfile *g) {
    free(g->buf);
    free(g->t);
}

/* The relative RMS error a tensor of this type may have against f16: q8_0 1 %, q6_K 3 %, q5_K 5 %, q4_K and
 * q4_0 8 % (about half a quantization step over the block's spread: 127, 63, 31, 15 steps), q5_0 5 %. */
static double type_bound(uint32_t t) {
    switch (t) {
    case GGML_TYPE_Q8_0: return 0.01;
    case GGML_TYPE_Q6_K: return 0.03;
    case GGML_TYPE_Q5_K:
    case GGML_TYPE_Q5_0: return 0.05;
    case GGML_TYPE_Q4_K:
    case GGML_TYPE_Q4_0: return 0.08;
    default: return 1e-6; /* f32 / f16 copies of the same tensor */
    }
}

/* Against a q8_0 reference (the MoE model has no f16 file) the bounds grow by the reference's own error (1 %). */
static void compare_file(const gfile *ref, const char *refname, const char *dir, const char *file, int quick) {
    const double slack = strcmp(refname, "f16") == 0 ? 0.0 : type_bound(GGML_TYPE_Q8_0);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    gfile g;
    if (gopen(path, &g) != 0) {
        CHECK(0, "%s: cannot read", path);
        gclose(&g);
        return;
    }
    struct {
        int count;
        double worst, sum;
        const char *worst_name;
    } per[GGML_TYPE_COUNT_MAX] = {{0, 0, 0, NULL}};
    int compared_gemm = 0;
    for (uint64_t i = 0; i < g.nt; i++) {
        const tinfo *t = &g.t[i];
        const tinfo *f = gfind(ref, t->name);
        const strata_type_info *ti = strata_type(t->type);
        CHECK(ti != NULL && ti->computable, "%s: %s has type %u, which strata-ref does not compute", file, t->name,
              t->type);
        if (f == NULL || ti == NULL || !ti->computable || (quick && i % 5 != 0)) {
            continue;
        }
        CHECK(memcmp(f->ne, t->ne, sizeof f->ne) == 0, "%s: %s shape", file, t->name);
        const uint8_t *qd = gdata(&g, t), *fd = gdata(ref, f);
        CHECK(qd != NULL && fd != NULL, "%s: %s data out of the file", file, t->name);
        if (qd == NULL || fd == NULL) {
            continue;
        }
        const int64_t n = t->ne[0], rows = t->ne[1] * t->ne[2] * t->ne[3];
        const size_t qrb = strata_row_bytes(t->type, n), frb = strata_row_bytes(f->type, n);
        float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
        double se = 0, sf = 0;
        for (int64_t r = 0; r < rows; r++) {
            strata_dequant_row(t->type, qd + (size_t)r * qrb, a, n);
            strata_dequant_row(f->type, fd + (size_t)r * frb, b, n);
            for (int64_t j = 0; j < n; j++) {
                se += ((double)a[j] - b[j]) * ((double)a[j] - b[j]);
                sf += (double)b[j] * b[j];
            }
        }
        const double rel = sqrt(se / (sf > 0 ? sf : 1));
        CHECK(rel < type_bound(t->type) + slack, "%s: %s (%s) relative RMS error %.4f%% >= %.1f%%", file, t->name,
              ti->name, 100 * rel, 100 * (type_bound(t->type) + slack));
        per[t->type].count++;
        per[t->type].sum += rel;
        if (rel >= per[t->type].worst) {
            per[t->type].worst = rel;
            per[t->type].worst_name = t->name;
        }
        /* gemm on the real rows (matrices only): (a) against the dequantized double dot, and the product against
         * the f16 tensor's within the type's bound */
        if (t->ne[1] > 1 && ti->block > 1 && compared_gemm < (quick ? 2 : 8)) {
            compared_gemm++;
            const uint32_t vt = (uint32_t)ti->vec_dot_type;
            const int nc = 3, R = rows < 64 ? (int)rows : 64;
            const size_t xb = strata_row_bytes(vt, n);
            uint8_t *xq = malloc(xb * nc);
            float *x = malloc(sizeof(float) * (size_t)n * nc), *y = malloc(sizeof(float) * (size_t)R * nc);
            float *yf = malloc(sizeof(float) * (size_t)R * nc);
            for (int c = 0; c < nc; c++) {
                for (int64_t j = 0; j < n; j++) {
                    x[(size_t)c * (size_t)n + (size_t)j] = nrand();
                }
                strata_quantize_act(vt, x + (size_t)c * (size_t)n, xq + xb * (size_t)c, n);
            }
            strata_gemm_rows(t->type, n, qd, qrb, 0, R, xq, xb, nc, y, (size_t)R);
            const uint32_t fvt = (uint32_t)strata_type(f->type)->vec_dot_type;
            const size_t fxb = strata_row_bytes(fvt, n);
            uint8_t *fxq = malloc(fxb * nc);
            for (int c = 0; c < nc; c++) {
                strata_quantize_act(fvt, x + (size_t)c * (size_t)n, fxq + fxb * (size_t)c, n);
            }
            strata_gemm_rows(f->type, n, fd, frb, 0, R, fxq, fxb, nc, yf, (size_t)R);
            free(fxq);
            int bad = 0;
            double de = 0, dfsum = 0;
            for (int c = 0; c < nc; c++) {
                for (int r = 0; r < R; r++) {
                    double s = 0, m = 0, dm;
                    for (int64_t j = 0; j < n; j++) {
                        double xv = ref_value(vt, xq + xb * (size_t)c, j, &dm);
                        double wv = ref_value(t->type, qd + (size_t)r * qrb, j, &dm);
                        s += wv * xv;
                        m += dm * fabs(xv);
                    }
                    const float got = y[(size_t)c * (size_t)R + (size_t)r], ff = yf[(size_t)c * (size_t)R + (size_t)r];
                    bad += !(fabs(got - s) <= 1e-5 * m + 1e-30);
                    de += ((double)got - ff) * ((double)got - ff);
                    dfsum += (double)ff * ff;
                }
            }
            const double yrel = sqrt(de / dfsum);
            CHECK(bad == 0, "%s: %s gemm_rows: %d outputs off the dequantized dot", file, t->name, bad);
            CHECK(yrel < type_bound(t->type) + slack + 0.01, "%s: %s gemm against the %s tensor: relative RMS %.4f%%", file,
                  t->name, refname, 100 * yrel);
            printf("quant_test: %s %s gemm_rows x3 vs the %s weights: relative RMS %.3f%%\n", file, t->name, refname,
                   100 * yrel);
            free(xq);
            free(x);
            free(y);
            free(yf);
        }
        free(a);
        free(b);
    }
    for (int k = 0; k < GGML_TYPE_COUNT_MAX; k++) {
        if (per[k].count > 0) {
            printf("quant_test: %s: %d %s tensors vs %s: relative RMS error mean %.3f%%, worst %.3f%% (%s), "
                   "bound %.1f%%\n",
                   file, per[k].count, strata_type((uint32_t)k)->name, refname, 100 * per[k].sum / per[k].count,
                   100 * per[k].worst, per[k].worst_name, 100 * (type_bound((uint32_t)k) + slack));
        }
    }
    gclose(&g);
}

static void test_real(int quick) {
    char dir[1024];
    const char *env = getenv("STRATA_SHARED_DATA");
    struct stat sb;
    const char *cands[] = {"../shared/data", "../../shared/data", "../../../shared/data", "../../../../shared/data",
                           "/work/shared/data"};
    dir[0] = 0;
    if (env != NULL && *env) {
        snprintf(dir, sizeof dir, "%s/models", env);
    } else {
        for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
            char p[1024];
            snprintf(p, sizeof p, "%s/models/tiny-qwen3-f16.gguf", cands[i]);
            if (stat(p, &sb) == 0) {
                snprintf(dir, sizeof dir, "%s/models", cands[i]);
                break;
            }
        }
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/tiny-qwen3-f16.gguf", dir);
    if (dir[0] == 0 || stat(path, &sb) != 0) {
        printf("quant_test: real models skipped (no tiny-qwen3-f16.gguf under $STRATA_SHARED_DATA/models or "
               "../shared/data/models)\n");
        return;
    }
    gfile ref;
    if (gopen(path, &ref) != 0) {
        CHECK(0, "%s: cannot read", path);
        gclose(&ref);
        return;
    }
    compare_file(&ref, "f16", dir, "tiny-qwen3-q8_0.gguf", quick);
    compare_file(&ref, "f16", dir, "tiny-qwen3-q4_k_m.gguf", quick);
    gclose(&ref);
    /* the MoE model: Q4_K_M with q5_0 / q8_0 expert down-projections (n = 192 is no multiple of 256), against
     * its q8_0 sibling */
    snprintf(path, sizeof path, "%s/tiny-qwen3moe-q8_0.gguf", dir);
    if (stat(path, &sb) != 0 || gopen(path, &ref) != 0) {
        printf("quant_test: MoE models skipped (no %s)\n", path);
        gclose(&ref);
        return;
    }
    compare_file(&ref, "q8_0", dir, "tiny-qwen3moe-q4_k_m.gguf", quick);
    gclose(&ref);
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

/* fused.c — the attention hot loops of strata-ref: dequantize-and-dot (scores) and dequantize-and-axpy
 * (weighted V) straight from int8 / q4_0 pool records, never materializing a float copy of the cache.
 *
 * Written with GCC/Clang vector extensions (8 x float), so the same source vectorizes to SSE/AVX2 on x86-64
 * and NEON on arm64. The Makefile compiles it twice on x86-64: FUSED_VARIANT=base (baseline ISA) and
 * FUSED_VARIANT=avx2 (-mavx2 -mfma); strata_fused_best() picks at run time. The self test checks every
 * variant against the kernels' decode of the same records. */
#include <math.h>
#include <string.h>

#include "half.h"
#include "ref_internal.h"

#ifndef FUSED_VARIANT
#define FUSED_VARIANT base
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(f) CAT(f##_, FUSED_VARIANT)
#define STR2(x) #x
#define STR(x) STR2(x)

typedef float v8f __attribute__((vector_size(32)));
typedef int8_t v8i8 __attribute__((vector_size(8)));
typedef uint8_t v8u8 __attribute__((vector_size(8)));
typedef int32_t v8i32 __attribute__((vector_size(32)));

static inline v8f ld8f(const float *p) {
    v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void st8f(float *p, v8f v) { memcpy(p, &v, sizeof v); }
static inline v8f splat(float x) { return (v8f){x, x, x, x, x, x, x, x}; }
static inline float hsum(v8f v) {
    return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

#if defined(__AVX2__) && defined(__F16C__)
/* GCC scalarizes __builtin_convertvector from byte vectors, so the x86 variant spells the widening out. */
#include <immintrin.h>
static inline v8f i8tof(const uint8_t *p) {
    return (v8f)_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}
/* A q4_0 block's 16 bytes → values 0..7, 8..15 (low nibbles) and 16..23, 24..31 (high nibbles), as codes. */
static inline void q4codes(const uint8_t *qs, v8f *x0, v8f *x1, v8f *x2, v8f *x3) {
    __m128i raw = _mm_loadu_si128((const __m128i *)(const void *)qs);
    __m128i m = _mm_set1_epi8(15);
    __m128i lo = _mm_and_si128(raw, m);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(raw, 4), m);
    *x0 = (v8f)_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(lo));
    *x1 = (v8f)_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)));
    *x2 = (v8f)_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(hi));
    *x3 = (v8f)_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)));
}
static inline float h2f(const uint8_t *p) { return _cvtsh_ss(strata_load_u16le(p)); }
#else
/* Portable: clang (the macOS build) lowers these to NEON widening moves. */
static inline v8f i8tof(const uint8_t *p) {
    v8i8 c;
    memcpy(&c, p, sizeof c);
    return __builtin_convertvector(__builtin_convertvector(c, v8i32), v8f);
}
static inline v8f u8tof(v8u8 c) { return __builtin_convertvector(__builtin_convertvector(c, v8i32), v8f); }
static inline void q4codes(const uint8_t *qs, v8f *x0, v8f *x1, v8f *x2, v8f *x3) {
    v8u8 a, b;
    memcpy(&a, qs, sizeof a);
    memcpy(&b, qs + 8, sizeof b);
    const v8u8 m = {15, 15, 15, 15, 15, 15, 15, 15};
    *x0 = u8tof(a & m);
    *x1 = u8tof(b & m);
    *x2 = u8tof(a >> 4);
    *x3 = u8tof(b >> 4);
}
static inline float h2f(const uint8_t *p) { return strata_half_to_float(strata_load_u16le(p)); }
#endif

/* The score pass is the first touch of every cell and reads the pools as one long stream; the hardware
 * prefetchers stop at 4 KB page boundaries, so the cell PF_CELLS ahead is requested explicitly. */
enum { PF_CELLS = 6 };
static inline void prefetch_cell(const uint8_t *cells, size_t cell_bytes, size_t n, size_t t) {
    if (t + PF_CELLS < n) {
        const uint8_t *c = cells + (t + PF_CELLS) * cell_bytes;
        for (size_t off = 0; off < cell_bytes; off += 64) {
            __builtin_prefetch(c + off, 0, 0);
        }
    }
}

/* ---- int8 records: hd codes, then hd/64 fp16 scales ---- */

static void NAME(score_int8)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                             const float *q, float scale, float *s) {
    const size_t rec = (size_t)hd + 2u * (size_t)(hd / 64);
    const int groups = hd / 64;
    for (size_t t = 0; t < n; t++) {
        const uint8_t *cell = cells + t * cell_bytes;
        prefetch_cell(cells, cell_bytes, n, t);
        for (int h = 0; h < heads; h++) {
            const uint8_t *r = cell + (size_t)h * rec;
            const float *qh = q + (size_t)h * hd;
            v8f acc = splat(0.0f);
            for (int g = 0; g < groups; g++) {
                const uint8_t *c = r + g * 64;
                const float *qq = qh + g * 64;
                v8f a0 = i8tof(c) * ld8f(qq) + i8tof(c + 8) * ld8f(qq + 8);
                v8f a1 = i8tof(c + 16) * ld8f(qq + 16) + i8tof(c + 24) * ld8f(qq + 24);
                v8f a2 = i8tof(c + 32) * ld8f(qq + 32) + i8tof(c + 40) * ld8f(qq + 40);
                v8f a3 = i8tof(c + 48) * ld8f(qq + 48) + i8tof(c + 56) * ld8f(qq + 56);
                float d = h2f(r + hd + 2 * g);
                acc += ((a0 + a1) + (a2 + a3)) * splat(d);
            }
            s[(size_t)h * n + t] = hsum(acc) * scale;
        }
    }
}

/* Register tiling: one 64-value group of the accumulator (8 vectors) stays in registers while the loop walks
 * the chunk's cells; the chunk was just pulled into cache by the score pass. */
static void NAME(axpy_int8)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                            const float *p, float *acc) {
    const size_t rec = (size_t)hd + 2u * (size_t)(hd / 64);
    const int groups = hd / 64;
    for (int h = 0; h < heads; h++) {
        const size_t voff = (size_t)heads * rec + (size_t)h * rec;
        const float *ph = p + (size_t)h * n;
        for (int g = 0; g < groups; g++) {
            float *a = acc + (size_t)h * hd + g * 64;
            v8f a0 = ld8f(a), a1 = ld8f(a + 8), a2 = ld8f(a + 16), a3 = ld8f(a + 24);
            v8f a4 = ld8f(a + 32), a5 = ld8f(a + 40), a6 = ld8f(a + 48), a7 = ld8f(a + 56);
            for (size_t t = 0; t < n; t++) {
                const uint8_t *r = cells + t * cell_bytes + voff;
                const uint8_t *c = r + g * 64;
                v8f w = splat(ph[t] * h2f(r + hd + 2 * g));
                a0 += w * i8tof(c);
                a1 += w * i8tof(c + 8);
                a2 += w * i8tof(c + 16);
                a3 += w * i8tof(c + 24);
                a4 += w * i8tof(c + 32);
                a5 += w * i8tof(c + 40);
                a6 += w * i8tof(c + 48);
                a7 += w * i8tof(c + 56);
            }
            st8f(a, a0), st8f(a + 8, a1), st8f(a + 16, a2), st8f(a + 24, a3);
            st8f(a + 32, a4), st8f(a + 40, a5), st8f(a + 48, a6), st8f(a + 56, a7);
        }
    }
}

/* ---- q4_0 records: 8 blocks of {fp16 d, 16 bytes: value j low nibble of byte j, j+16 high nibble} ----
 * Value = (code - 8) * d in the rotated domain. dot(q_rot, v) over a block = d * (sum code*q - 8 * sum q),
 * so the -8 is folded into a per-block sum of q, computed once per call. */

static void NAME(score_q4)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                           const float *q, float scale, float *s) {
    enum { B = 8, REC = 144 };
    (void)hd; /* q4_0 is defined for head_dim 256 only */
    float qsum[64 * B];
    int hh = heads > 64 ? 64 : heads;
    for (int h = 0; h < hh; h++) {
        for (int b = 0; b < B; b++) {
            float sum = 0.0f;
            for (int j = 0; j < 32; j++) {
                sum += q[h * 256 + b * 32 + j];
            }
            qsum[h * B + b] = 8.0f * sum;
        }
    }
    for (size_t t = 0; t < n; t++) {
        const uint8_t *cell = cells + t * cell_bytes;
        prefetch_cell(cells, cell_bytes, n, t);
        for (int h = 0; h < hh; h++) {
            const uint8_t *r = cell + (size_t)h * REC;
            const float *qh = q + (size_t)h * 256;
            v8f acc = splat(0.0f);
            float bias = 0.0f;
            for (int b = 0; b < B; b++) {
                const uint8_t *blk = r + b * 18;
                const float *qq = qh + b * 32;
                float d = h2f(blk);
                v8f c0, c1, c2, c3;
                q4codes(blk + 2, &c0, &c1, &c2, &c3);
                v8f x = (c0 * ld8f(qq) + c1 * ld8f(qq + 8)) + (c2 * ld8f(qq + 16) + c3 * ld8f(qq + 24));
                acc += x * splat(d);
                bias += d * qsum[h * B + b];
            }
            s[(size_t)h * n + t] = (hsum(acc) - bias) * scale;
        }
    }
}

static void NAME(axpy_q4)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                          const float *p, float *acc) {
    enum { REC = 144 };
    (void)hd;
    for (int h = 0; h < heads; h++) {
        const size_t voff = (size_t)heads * REC + (size_t)h * REC;
        const float *ph = p + (size_t)h * n;
        /* two blocks (64 values) of the accumulator per tile, as for int8 */
        for (int b = 0; b < 8; b += 2) {
            float *a = acc + (size_t)h * 256 + b * 32;
            v8f a0 = ld8f(a), a1 = ld8f(a + 8), a2 = ld8f(a + 16), a3 = ld8f(a + 24);
            v8f a4 = ld8f(a + 32), a5 = ld8f(a + 40), a6 = ld8f(a + 48), a7 = ld8f(a + 56);
            float wsum = 0.0f, wsum2 = 0.0f;
            for (size_t t = 0; t < n; t++) {
                const uint8_t *blk = cells + t * cell_bytes + voff + b * 18;
                float w0 = ph[t] * h2f(blk);
                float w1 = ph[t] * h2f(blk + 18);
                v8f v0 = splat(w0), v1 = splat(w1);
                v8f c0, c1, c2, c3, c4, c5, c6, c7;
                q4codes(blk + 2, &c0, &c1, &c2, &c3);
                q4codes(blk + 20, &c4, &c5, &c6, &c7);
                a0 += v0 * c0;
                a1 += v0 * c1;
                a2 += v0 * c2;
                a3 += v0 * c3;
                a4 += v1 * c4;
                a5 += v1 * c5;
                a6 += v1 * c6;
                a7 += v1 * c7;
                wsum += w0;
                wsum2 += w1;
            }
            /* the -8 offset of every code, applied once per tile: sum_t w_t * (-8) */
            v8f o0 = splat(8.0f * wsum), o1 = splat(8.0f * wsum2);
            st8f(a, a0 - o0), st8f(a + 8, a1 - o0), st8f(a + 16, a2 - o0), st8f(a + 24, a3 - o0);
            st8f(a + 32, a4 - o1), st8f(a + 40, a5 - o1), st8f(a + 48, a6 - o1), st8f(a + 56, a7 - o1);
        }
    }
}

/* exp(x - m) for x - m in [-inf, 0]: Cody–Waite range reduction and a degree-6 polynomial (relative error
 * below 2e-7), branch-free so it vectorizes; results below e^-87 flush to 0. */
static float NAME(expsum)(float *x, size_t n, float m) {
    for (size_t i = 0; i < n; i++) {
        float v = x[i] - m;
        v = v < -87.0f ? -87.0f : v;
        float t = v * 1.44269504088896341f + 12582912.0f;
        float k = t - 12582912.0f;
        float r = v - k * 0.693145751953125f;
        r = r - k * 1.428606765330187045e-06f;
        float p = 1.0f / 720.0f;
        p = p * r + 1.0f / 120.0f;
        p = p * r + 1.0f / 24.0f;
        p = p * r + 1.0f / 6.0f;
        p = p * r + 0.5f;
        p = p * r + 1.0f;
        p = p * r + 1.0f;
        int32_t ki = (int32_t)k;
        uint32_t bits = (uint32_t)(ki + 127) << 23;
        float two;
        memcpy(&two, &bits, sizeof two);
        float e = p * two;
        e = v <= -87.0f ? 0.0f : e;
        x[i] = e;
    }
    /* the sum in 8 lanes, so the compiler needs no reassociation licence */
    v8f acc = splat(0.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        acc += ld8f(x + i);
    }
    float total = hsum(acc);
    for (; i < n; i++) {
        total += x[i];
    }
    return total;
}

const strata_fused_ops CAT(strata_fused_, FUSED_VARIANT) = {
    STR(FUSED_VARIANT), NAME(score_int8), NAME(axpy_int8), NAME(score_q4), NAME(axpy_q4), NAME(expsum),
};

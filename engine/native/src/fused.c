/* fused.c — the attention hot loops of strata-ref, straight from int8 / q4_0 pool records, never materializing
 * a float copy of the cache: integer K·q scores against the query quantized to 8 bits per block (both
 * formats), the weighted V in integers for q4_0 (16-bit weights, paired cells) and in float for int8.
 *
 * Compiled twice on x86-64: FUSED_VARIANT=base (baseline ISA: portable C and GCC/Clang vector extensions,
 * which clang lowers to NEON on arm64) and FUSED_VARIANT=avx2 (-mavx2 -mfma -mf16c, intrinsics);
 * strata_fused_best() picks at run time. The self test checks every variant against the kernels' decode of the
 * same records plus float math, within the stated bounds of the integer paths (docs/ENGINE-ABI.md). */
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

/* ---- the query, quantized to 8 bits per block (see ref_internal.h) ---- */

static void NAME(quant_query)(int format, const float *q, int heads, int hd, strata_qq *qq) {
    const int blk = format == KV_Q4_0 ? 32 : 64;
    for (int h = 0; h < heads; h++) {
        const float *qh = q + (size_t)h * hd;
        strata_qq *o = qq + h;
        for (int b = 0; b < hd / blk; b++) {
            float amax = 0.0f;
            for (int j = 0; j < blk; j++) {
                float a = fabsf(qh[b * blk + j]);
                amax = a > amax ? a : amax;
            }
            float d = amax / 127.0f, id = amax > 0.0f ? 127.0f / amax : 0.0f;
            int sum = 0;
            for (int j = 0; j < blk; j++) {
                int v = (int)lrintf(qh[b * blk + j] * id); /* |v| <= 127 */
                o->qs[b * blk + j] = (int8_t)v;
                sum += v;
            }
            o->d[b] = d;
            o->bias[b] = 8.0f * d * (float)sum;
        }
    }
}

/* ---- int8 records: hd codes, then hd/64 fp16 scales ---- */

#if defined(__AVX2__)
/* sum over 32 values of k * q, exactly, as 8 int32 lanes: maddubs wants one unsigned operand, so |k| and
 * q with k's sign (|k| <= 128, |q| <= 127: the pair sums stay below 2^15). */
static inline __m256i dot32_i8(const uint8_t *k, const int8_t *q) {
    __m256i kv = _mm256_loadu_si256((const __m256i *)(const void *)k);
    __m256i qv = _mm256_loadu_si256((const __m256i *)(const void *)q);
    __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(kv, kv), _mm256_sign_epi8(qv, kv));
    return _mm256_madd_epi16(p, _mm256_set1_epi16(1));
}
/* q4_0 block codes (0..15) × q over 32 values: low nibbles are values 0..15, high nibbles 16..31, so the
 * two halves of one register line up with the query block in order. */
static inline __m256i dot32_q4(const uint8_t *qs, const int8_t *q) {
    __m128i raw = _mm_loadu_si128((const __m128i *)(const void *)qs);
    __m256i c = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(raw, 4), raw), _mm256_set1_epi8(15));
    __m256i qv = _mm256_loadu_si256((const __m256i *)(const void *)q);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(c, qv), _mm256_set1_epi16(1));
}
/* four 8-lane sums at once → one 4-lane vector {sum a, sum b, sum c, sum d} */
static inline __m128 hsum4(v8f a, v8f b, v8f c, v8f d) {
    __m256 ab = _mm256_hadd_ps((__m256)a, (__m256)b), cd = _mm256_hadd_ps((__m256)c, (__m256)d);
    __m256 x = _mm256_hadd_ps(ab, cd);
    return _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
}
#endif

/* One cell's K record r for one head: the sum over its blocks of (integer dot with the query block) ×
 * (record scale × query scale), as 8 lanes (AVX2) or one float, and in *bias what the score then takes off
 * (q4_0: the folded -8 offset, see quant_query; int8: nothing). */
#if defined(__AVX2__)
typedef v8f (*rec_dot)(const uint8_t *r, const strata_qq *qh, int hd, float *bias);
#else
typedef float (*rec_dot)(const uint8_t *r, const strata_qq *qh, int hd, float *bias);
#endif

/* The score pass of both formats: s[h * n + t] = (dot(cell t, head h) - bias) * scale, rec bytes a head.
 * Always inlined, so that each format's constant dot is inlined into its own loop. */
static inline __attribute__((always_inline)) void score_cells(const uint8_t *cells, size_t cell_bytes, size_t n,
                                                              int heads, int hd, size_t rec, const strata_qq *q,
                                                              float scale, float *s, rec_dot dot) {
#if defined(__AVX2__)
    /* four cells per iteration: their four accumulators are reduced together */
    size_t t = 0;
    for (; t + 4 <= n; t += 4) {
        for (int i = 0; i < 4; i++) {
            prefetch_cell(cells, cell_bytes, n, t + (size_t)i);
        }
        for (int h = 0; h < heads; h++) {
            v8f acc[4];
            float bias[4];
            for (int i = 0; i < 4; i++) {
                acc[i] = dot(cells + (t + (size_t)i) * cell_bytes + (size_t)h * rec, q + h, hd, &bias[i]);
            }
            __m128 r4 = _mm_sub_ps(hsum4(acc[0], acc[1], acc[2], acc[3]), _mm_loadu_ps(bias));
            _mm_storeu_ps(s + (size_t)h * n + t, _mm_mul_ps(r4, _mm_set1_ps(scale)));
        }
    }
    for (; t < n; t++) {
        for (int h = 0; h < heads; h++) {
            float bias;
            v8f a = dot(cells + t * cell_bytes + (size_t)h * rec, q + h, hd, &bias);
            s[(size_t)h * n + t] = (hsum(a) - bias) * scale;
        }
    }
#else
    for (size_t t = 0; t < n; t++) {
        const uint8_t *cell = cells + t * cell_bytes;
        prefetch_cell(cells, cell_bytes, n, t);
        for (int h = 0; h < heads; h++) {
            float bias;
            float a = dot(cell + (size_t)h * rec, q + h, hd, &bias);
            s[(size_t)h * n + t] = (a - bias) * scale;
        }
    }
#endif
}

#if defined(__AVX2__)
static inline v8f rec_int8(const uint8_t *r, const strata_qq *qh, int hd, float *bias) {
    v8f a = splat(0.0f);
    for (int g = 0; g < hd / 64; g++) {
        __m256i x = _mm256_add_epi32(dot32_i8(r + g * 64, qh->qs + g * 64),
                                     dot32_i8(r + g * 64 + 32, qh->qs + g * 64 + 32));
        a += (v8f)_mm256_cvtepi32_ps(x) * splat(h2f(r + hd + 2 * g) * qh->d[g]);
    }
    *bias = 0.0f;
    return a;
}
#else
static inline float rec_int8(const uint8_t *r, const strata_qq *qh, int hd, float *bias) {
    float acc = 0.0f;
    for (int g = 0; g < hd / 64; g++) {
        const int8_t *k = (const int8_t *)(const void *)(r + g * 64);
        const int8_t *qq = qh->qs + g * 64;
        int32_t x = 0;
        for (int j = 0; j < 64; j++) {
            x += (int32_t)k[j] * (int32_t)qq[j];
        }
        acc += (float)x * (h2f(r + hd + 2 * g) * qh->d[g]);
    }
    *bias = 0.0f;
    return acc;
}
#endif

static void NAME(score_int8)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                             const strata_qq *q, float scale, float *s) {
    score_cells(cells, cell_bytes, n, heads, hd, (size_t)hd + 2u * (size_t)(hd / 64), q, scale, s, rec_int8);
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
 * so the -8 is folded into the query's per-block bias (quant_query). */

enum { Q4_BLOCKS = 8, Q4_REC = 144 }; /* a head_dim-256 record: 8 blocks of 18 bytes */

#if defined(__AVX2__)
static inline v8f rec_q4(const uint8_t *r, const strata_qq *qh, int hd, float *bias) {
    (void)hd;
    v8f a = splat(0.0f);
    float bsum = 0.0f;
    for (int b = 0; b < Q4_BLOCKS; b++) {
        const uint8_t *blk = r + b * 18;
        float d = h2f(blk);
        a += (v8f)_mm256_cvtepi32_ps(dot32_q4(blk + 2, qh->qs + b * 32)) * splat(d * qh->d[b]);
        bsum += d * qh->bias[b];
    }
    *bias = bsum;
    return a;
}
#else
static inline float rec_q4(const uint8_t *r, const strata_qq *qh, int hd, float *bias) {
    (void)hd;
    float acc = 0.0f, bsum = 0.0f;
    for (int b = 0; b < Q4_BLOCKS; b++) {
        const uint8_t *blk = r + b * 18;
        const int8_t *qq = qh->qs + b * 32;
        int32_t x = 0;
        for (int j = 0; j < 16; j++) {
            x += (int32_t)(blk[2 + j] & 15) * qq[j] + (int32_t)(blk[2 + j] >> 4) * qq[j + 16];
        }
        float d = h2f(blk);
        acc += (float)x * (d * qh->d[b]);
        bsum += d * qh->bias[b];
    }
    *bias = bsum;
    return acc;
}
#endif

static void NAME(score_q4)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                           const strata_qq *q, float scale, float *s) {
    /* q4_0 is defined for head_dim 256 only */
    score_cells(cells, cell_bytes, n, heads, hd, Q4_REC, q, scale, s, rec_q4);
}

#if defined(__AVX2__)
/* The weighted V over q4_0 in integers. Per head and run of up to 64 cells, the weights w[t][b] = p[t] · d(t, b)
 * (softmax weight × block scale) are quantized to 16 bits per block b against the run's largest |w| of that
 * block (error <= W_b / 2 per weight, W_b = max |w| / 32767: 1.5e-5 of the largest contribution), and the
 * codes of two cells are paired so one madd_epi16 computes c_t · w_t + c_t1 · w_t1 exactly in int32 (at most
 * 2 · 15 · 32767 per lane per pair, 32 pairs: far below 2^31). The -8 offset of every code comes off once per
 * run: W_b · (sum_t w16 · c - 8 · sum_t w16). Half the instructions of converting every nibble to float. */
static void axpy_q4_run(const uint8_t *cells, size_t cell_bytes, size_t n, size_t voff, const float *ph,
                        float *acc) {
    enum { RUN = 64 };
    v8f wf[RUN];
    int32_t wpair[RUN / 2][8] __attribute__((aligned(32)));
    const __m256i lo16 = _mm256_set1_epi32(0xffff);
    v8f wmax = splat(0.0f);
    for (size_t t = 0; t < n; t++) {
        /* the 8 block scales of the record (scalar loads: a gather is slower on the CPUs measured) */
        const uint8_t *r = cells + t * cell_bytes + voff;
        __m128i dh = _mm_cvtsi32_si128(strata_load_u16le(r));
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 18), 1);
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 36), 2);
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 54), 3);
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 72), 4);
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 90), 5);
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 108), 6);
        dh = _mm_insert_epi16(dh, strata_load_u16le(r + 126), 7);
        v8f w = (v8f)_mm256_cvtph_ps(dh) * splat(ph[t]);
        wf[t] = w;
        wmax = (v8f)_mm256_max_ps((__m256)wmax, _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (__m256)w));
    }
    v8f inv, wq;
    for (int b = 0; b < 8; b++) {
        inv[b] = wmax[b] > 0.0f ? 32767.0f / wmax[b] : 0.0f;
        wq[b] = wmax[b] / 32767.0f;
    }
    __m256i wsum = _mm256_setzero_si256();
    for (size_t t = 0; t < n; t += 2) {
        __m256i a = _mm256_cvtps_epi32((__m256)(wf[t] * inv));
        __m256i b = t + 1 < n ? _mm256_cvtps_epi32((__m256)(wf[t + 1] * inv)) : _mm256_setzero_si256();
        wsum = _mm256_add_epi32(wsum, _mm256_add_epi32(a, b));
        _mm256_store_si256((__m256i *)(void *)wpair[t / 2],
                           _mm256_or_si256(_mm256_and_si256(a, lo16), _mm256_slli_epi32(b, 16)));
    }
    int32_t ws[8];
    memcpy(ws, &wsum, sizeof ws);
    const __m256i m4 = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
    for (int b = 0; b < 8; b++) {
        __m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        const uint8_t *base = cells + voff + (size_t)b * 18 + 2;
        for (size_t t = 0; t < n; t += 2) {
            __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)(base + t * cell_bytes));
            /* an odd last cell pairs with itself under weight 0 */
            __m128i r1 = t + 1 < n ? _mm_loadu_si128((const __m128i *)(const void *)(base + (t + 1) * cell_bytes)) : r0;
            /* byte pairs (cell t, cell t+1) of raw bytes j = 0..7 | 8..15 */
            __m256i pr = _mm256_set_m128i(_mm_unpackhi_epi8(r0, r1), _mm_unpacklo_epi8(r0, r1));
            __m256i lo = _mm256_and_si256(pr, m4), hi = _mm256_and_si256(_mm256_srli_epi16(pr, 4), m4);
            __m256i w = _mm256_set1_epi32(wpair[t / 2][b]);
            /* lanes: a0 values {0..3, 8..11}, a1 {4..7, 12..15}, a2/a3 the same + 16 */
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), w));
        }
        const __m256 sc = _mm256_set1_ps(wq[b]);
        const __m256 off = _mm256_set1_ps(8.0f * (float)ws[b]);
        float *o = acc + b * 32;
        __m256i v0 = _mm256_permute2x128_si256(a0, a1, 0x20), v1 = _mm256_permute2x128_si256(a0, a1, 0x31);
        __m256i v2 = _mm256_permute2x128_si256(a2, a3, 0x20), v3 = _mm256_permute2x128_si256(a2, a3, 0x31);
        st8f(o, ld8f(o) + (v8f)_mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(v0), off), sc));
        st8f(o + 8, ld8f(o + 8) + (v8f)_mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(v1), off), sc));
        st8f(o + 16, ld8f(o + 16) + (v8f)_mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(v2), off), sc));
        st8f(o + 24, ld8f(o + 24) + (v8f)_mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(v3), off), sc));
    }
}
#endif

static void NAME(axpy_q4)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd,
                          const float *p, float *acc) {
    (void)hd;
#if defined(__AVX2__)
    for (int h = 0; h < heads; h++) {
        const size_t voff = (size_t)heads * Q4_REC + (size_t)h * Q4_REC;
        for (size_t t0 = 0; t0 < n; t0 += 64) {
            size_t m = n - t0 < 64 ? n - t0 : 64;
            axpy_q4_run(cells + t0 * cell_bytes, cell_bytes, m, voff, p + (size_t)h * n + t0, acc + (size_t)h * 256);
        }
    }
#else
    for (int h = 0; h < heads; h++) {
        const size_t voff = (size_t)heads * Q4_REC + (size_t)h * Q4_REC;
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
#endif
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

/* fp16 pools (strata-ref's reference format: the quality harness's baseline): K·q and the weighted V in float from
 * the fp16 records, the query exact (no 8-bit step). Records are hd fp16 values (hd a multiple of 8). The AVX2
 * variant converts 8 halves per instruction (F16C); the portable one one at a time. */
#if defined(__AVX2__) && defined(__F16C__)
static inline v8f h8(const uint8_t *p) {
    return (v8f)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}
#else
static inline v8f h8(const uint8_t *p) {
    v8f v;
    for (int j = 0; j < 8; j++) {
        v[j] = h2f(p + 2 * j);
    }
    return v;
}
#endif

static void NAME(score_f16)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const float *q,
                            float scale, float *s) {
    for (int h = 0; h < heads; h++) {
        const float *qh = q + (size_t)h * hd;
        for (size_t t = 0; t < n; t++) {
            const uint8_t *k = cells + t * cell_bytes + (size_t)h * hd * 2;
            v8f a0 = splat(0.0f), a1 = splat(0.0f);
            int i = 0;
            for (; i + 16 <= hd; i += 16) {
                a0 += h8(k + 2 * (size_t)i) * ld8f(qh + i);
                a1 += h8(k + 2 * (size_t)(i + 8)) * ld8f(qh + i + 8);
            }
            for (; i < hd; i += 8) {
                a0 += h8(k + 2 * (size_t)i) * ld8f(qh + i);
            }
            s[(size_t)h * n + t] = scale * hsum(a0 + a1);
        }
    }
}

static void NAME(axpy_f16)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const float *p,
                           float *acc) {
    for (int h = 0; h < heads; h++) {
        float *ah = acc + (size_t)h * hd;
        for (size_t t = 0; t < n; t++) {
            const uint8_t *v = cells + t * cell_bytes + ((size_t)heads + h) * hd * 2;
            v8f w = splat(p[(size_t)h * n + t]);
            for (int i = 0; i < hd; i += 8) {
                st8f(ah + i, ld8f(ah + i) + w * h8(v + 2 * (size_t)i));
            }
        }
    }
}

const strata_fused_ops CAT(strata_fused_, FUSED_VARIANT) = {
    STR(FUSED_VARIANT), NAME(quant_query), NAME(score_int8), NAME(axpy_int8), NAME(score_q4), NAME(axpy_q4), NAME(expsum),
    NAME(score_f16), NAME(axpy_f16),
};

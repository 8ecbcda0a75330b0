/* quant_dot.c — the dot products of one weight row with up to NC = 4 activation rows already in the weight type's
 * vec_dot type (quant_kern.h), one set per instruction set: AVX2 intrinsics in QUANT_VARIANT=avx2, portable C in
 * base. quant_kern.c's gemm_rows drives them. Numerics: see quant_kern.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant_kern.h"

/* A kernel body k(w, n, x, nc, out) is written for any nc; this instantiates it for the constants 1..4 so the
 * compiler unrolls the column loops and keeps every accumulator in a register. */
#define DOT_NC(name)                                                                                    \
    static void name(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd, int nc,       \
                     float *out) {                                                                      \
        switch (nc) {                                                                                   \
        case 1: name##_k(w, n, x, xd, 1, out); break;                                                       \
        case 2: name##_k(w, n, x, xd, 2, out); break;                                                       \
        case 3: name##_k(w, n, x, xd, 3, out); break;                                                       \
        default: name##_k(w, n, x, xd, 4, out); break;                                                      \
        }                                                                                               \
    }

#if defined(QUANT_AVX2)

static inline float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline __m256i ldu256(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }

/* sum over 32 int8 pairs as 8 int32 lanes, exactly: maddubs takes one unsigned operand, so |w| and x with w's
 * sign (|w| <= 128, |x| <= 127: every pair sum stays below 2^15). */
static inline __m256i dot32_s8(__m256i wv, __m256i xv) {
    __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(wv, wv), _mm256_sign_epi8(xv, wv));
    return _mm256_madd_epi16(p, _mm256_set1_epi16(1));
}

/* ---- f32 / f16 / bf16 weights × f32 activations: 16 values a step, two accumulators per column ---- */
INLINE __m256 ld8w(uint32_t t, const uint8_t *p) {
    if (t == GGML_TYPE_F16) {
        return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
    }
    if (t == GGML_TYPE_BF16) {
        __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
        return _mm256_castsi256_ps(_mm256_slli_epi32(u, 16));
    }
    return _mm256_loadu_ps((const float *)(const void *)p);
}
INLINE float ld1w(uint32_t t, const uint8_t *p) {
    return t == GGML_TYPE_F16 ? h2f(p) : t == GGML_TYPE_BF16 ? bf2f(p) : ld_f32(p);
}
/* Four independent accumulator chains per column, 8 values each (the FMA latency is 4 cycles), in the same order
 * for any nc, so a column's result does not depend on the batch around it; columns go in pairs (8 accumulators
 * and the converted weights fit the 16 registers). */
INLINE void dot_float2_k(uint32_t t, const uint8_t *w, int64_t n, const uint8_t *const *x, int nc, float *out) {
    const size_t es = t == GGML_TYPE_F32 ? 4 : 2;
    enum { U = 4 };
    __m256 a[U][2];
    for (int u = 0; u < U; u++) {
        for (int c = 0; c < nc; c++) {
            a[u][c] = _mm256_setzero_ps();
        }
    }
    int64_t i = 0;
    for (; i + 8 * U <= n; i += 8 * U) {
        for (int u = 0; u < U; u++) {
            const __m256 wv = ld8w(t, w + es * (size_t)(i + 8 * u));
            for (int c = 0; c < nc; c++) {
                a[u][c] = _mm256_fmadd_ps(wv, _mm256_loadu_ps((const float *)(const void *)x[c] + i + 8 * u), a[u][c]);
            }
        }
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 wv = ld8w(t, w + es * (size_t)i);
        for (int c = 0; c < nc; c++) {
            a[0][c] = _mm256_fmadd_ps(wv, _mm256_loadu_ps((const float *)(const void *)x[c] + i), a[0][c]);
        }
    }
    for (int c = 0; c < nc; c++) {
        float s = hsum8(_mm256_add_ps(_mm256_add_ps(a[0][c], a[1][c]), _mm256_add_ps(a[2][c], a[3][c])));
        for (int64_t j = i; j < n; j++) {
            s += ld1w(t, w + es * (size_t)j) * ld_f32(x[c] + 4 * (size_t)j);
        }
        out[c] = s;
    }
}
/* f32 / f16 weights as llama.cpp's x86 backend multiplies them: llamafile's tinyBLAS (sgemm.cpp; the activations
 * already rounded to the weight type by the caller) keeps one vector accumulator per output, 16 lanes on an
 * AVX-512F CPU (tinyBLAS<16, __m512>) or 8 (tinyBLAS<8, __m256>), one FMA per step in order, then hsum:
 * 16 lanes: (a + b) over the two halves, then the 8-lane tree below (GCC's _mm512_reduce_add_ps). */
static int tinyblas_lanes(void) {
    static int lanes; /* 0 until the first call; a benign race (every thread computes the same value) */
    if (lanes == 0) {
        const char *force = getenv("STRATA_GGML_ISA");
        __builtin_cpu_init();
        lanes = (force == NULL || strcmp(force, "avx2") != 0) && __builtin_cpu_supports("avx512f") ? 16 : 8;
    }
    return lanes;
}
static inline float tree8(__m256 v) { /* ((v0+v4) + (v2+v6)) + ((v1+v5) + (v3+v7)) */
    __m128 x = _mm_add_ps(_mm256_extractf128_ps(v, 1), _mm256_castps256_ps128(v));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    x = _mm_add_ss(x, _mm_movehdup_ps(x));
    return _mm_cvtss_f32(x);
}
INLINE void dot_tinyblas_k(uint32_t t, int lanes, const uint8_t *w, int64_t n, const uint8_t *const *x, int nc,
                           float *out) {
    const size_t es = t == GGML_TYPE_F32 ? 4 : 2;
    __m256 lo[NC], hi[NC];
    for (int c = 0; c < nc; c++) {
        lo[c] = hi[c] = _mm256_setzero_ps();
    }
    int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
        const __m256 w0 = ld8w(t, w + es * (size_t)i);
        const __m256 w1 = lanes == 16 ? ld8w(t, w + es * (size_t)(i + 8)) : w0;
        for (int c = 0; c < nc; c++) {
            const float *xc = (const float *)(const void *)x[c] + i;
            lo[c] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(xc), lo[c]);
            if (lanes == 16) {
                hi[c] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(xc + 8), hi[c]);
            }
        }
    }
    for (int c = 0; c < nc; c++) {
        float s = tree8(lanes == 16 ? _mm256_add_ps(hi[c], lo[c]) : lo[c]);
        for (int64_t j = i; j < n; j++) { /* tinyBLAS needs k % lanes == 0; ggml's vec_dot takes the rest */
            s += ld1w(t, w + es * (size_t)j) * ld_f32(x[c] + 4 * (size_t)j);
        }
        out[c] = s;
    }
}
INLINE void dot_float_k(uint32_t t, const uint8_t *w, int64_t n, const uint8_t *const *x, int nc, float *out) {
    if (t != GGML_TYPE_BF16) {
        if (tinyblas_lanes() == 16) {
            dot_tinyblas_k(t, 16, w, n, x, nc, out);
        } else {
            dot_tinyblas_k(t, 8, w, n, x, nc, out);
        }
        return;
    }
    for (int c0 = 0; c0 < nc; c0 += 2) {
        dot_float2_k(t, w, n, x + c0, nc - c0 < 2 ? nc - c0 : 2, out + c0);
    }
}

/* ---- q8_0, q4_0 and q5_0 weights × q8_0 activations ---- */
enum { K_Q8_0, K_Q4_0, K_Q5_0 };
static inline size_t q_0_bytes(int kind) { return kind == K_Q4_0 ? Q4_0_BYTES : kind == K_Q5_0 ? Q5_0_BYTES : Q8_0_BYTES; }
INLINE __m256i nibbles32(const uint8_t *qs) { /* 16 bytes → values 0..15 (low nibbles), 16..31 (high) */
    __m128i raw = _mm_loadu_si128((const __m128i *)(const void *)qs);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(raw, 4), raw), _mm256_set1_epi8(0xF));
}
/* The 32 values of a block as int8: q8_0 as stored, q4_0 nibble - 8, q5_0 (nibble | qh bit j << 4) - 16; the
 * qh bits become bytes by sending byte j / 8 of qh to byte j and testing bit j % 8 there. */
INLINE __m256i q_0_codes(int kind, const uint8_t *b) {
    if (kind == K_Q8_0) {
        return ldu256(b + 2);
    }
    if (kind == K_Q4_0) {
        return _mm256_sub_epi8(nibbles32(b + 2), _mm256_set1_epi8(8));
    }
    uint32_t qh;
    memcpy(&qh, b + 2, 4);
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32((int)qh),
                                               _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
                                                                2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
    const __m256i q = _mm256_or_si256(nibbles32(b + 6), _mm256_and_si256(set, _mm256_set1_epi8(0x10)));
    return _mm256_sub_epi8(q, _mm256_set1_epi8(16));
}
/* One accumulator chain per column, block after block, then hsum8: the order of llama.cpp's AVX2
 * ggml_vec_dot_{q8_0,q4_0,q5_0}_q8_0, so a row's result is the same bits as theirs (and the same for any nc). */
INLINE void dot_q_0_k(int kind, const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd, int nc,
                      float *out) {
    const size_t wb = q_0_bytes(kind);
    __m256 acc[NC];
    for (int c = 0; c < nc; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < n / QK; b++) {
        const uint8_t *w0 = w + wb * (size_t)b;
        const __m256i q0 = q_0_codes(kind, w0);
        const float d0 = h2f(w0);
        for (int c = 0; c < nc; c++) {
            const uint8_t *x0 = x[c] + Q8_0_BYTES * (size_t)b;
            acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(d0 * xd[c][b]), _mm256_cvtepi32_ps(dot32_s8(q0, ldu256(x0 + 2))),
                                     acc[c]);
        }
    }
    for (int c = 0; c < nc; c++) {
        out[c] = hsum8(acc[c]);
    }
}

/* ---- q4_K / q5_K weights × q8_K activations ----
 * Per super-block: sumi = sum_j sc_j * sum_l q * x (codes 0..15 or 0..31 unsigned: maddubs, pair sums
 * <= 2 * 31 * 127 < 2^15; then × sc_j <= 63 into int32: |sumi| <= 256 * 31 * 127 * 63 < 2^27), and
 * result += d_x * (d * sumi - dmin * sum_j m_j * bsum_j). */
/* The 8 scales and 8 mins of a q4_K / q5_K block at once (the bit moves of strata_k4_scale_min on 32-bit words
 * of the 12 scale bytes s: scales 0..3 = s[0..3] & 63, mins 0..3 = s[4..7] & 63, scales 4..7 = low nibbles of
 * s[8..11] | top 2 bits of s[0..3] << 4, mins 4..7 = high nibbles of s[8..11] | top 2 bits of s[4..7] << 4). */
static inline void k4_scales_bytes(const uint8_t *s, uint8_t out[16]) {
    uint32_t a[3], u[4];
    memcpy(a, s, 12);
    u[0] = a[0] & 0x3f3f3f3fu;
    u[1] = (a[2] & 0x0f0f0f0fu) | (((a[0] >> 6) & 0x03030303u) << 4);
    u[2] = a[1] & 0x3f3f3f3fu;
    u[3] = ((a[2] >> 4) & 0x0f0f0f0fu) | (((a[1] >> 6) & 0x03030303u) << 4);
    memcpy(out, u, 16); /* out[0..8) scales, out[8..16) mins */
}

/* Four int32 vectors' totals, one per lane (exact). */
static inline __m128i hsum4_i32(__m256i a, __m256i b, __m256i c, __m256i d) {
    const __m256i t = _mm256_hadd_epi32(_mm256_hadd_epi32(a, b), _mm256_hadd_epi32(c, d));
    return _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

/* q4_K: llama.cpp's x86 CPU backend repacks q4_K weights (CPU_REPACK, q4_K_8x8, on every AVX2 CPU); its gemm and gemv
 * (arch/x86/repack.cpp ggml_gemm_q4_K_8x8_q8_K, ggml_gemv_q4_K_8x8_q8_K) keep one float lane per output:
 * A = fma((float)sumi, d·d_x, A), M = fma((float)summ, dmin·d_x, M), the result A - M, with sumi and summ the exact
 * integer sums of a super-block (gemv) or of each pair of sub-blocks (gemm4: the 4-row GEMM). Here lane c of ra, rm
 * is column c (the same operations as one scalar chain per column). q5_K: not repacked, llama.cpp's AVX2 q5_K dot:
 * 8 lanes + one float for the min term (same bits as theirs). */
INLINE void dot_q45_k_k(int five, int gemm4, const uint8_t *w, int64_t n, const uint8_t *const *x, int nc, float *out) {
    const size_t wbytes = five ? Q5_K_BYTES : Q4_K_BYTES;
    const __m256i m4 = _mm256_set1_epi8(0xF), one = _mm256_set1_epi8(1);
    __m256 acc[NC];
    float summs[NC];
    __m128 ra = _mm_setzero_ps(), rm = _mm_setzero_ps();
    for (int c = 0; c < nc; c++) {
        acc[c] = _mm256_setzero_ps();
        summs[c] = 0.0f;
    }
    for (int64_t b = 0; b < n / QK_K; b++) {
        const uint8_t *wb = w + wbytes * (size_t)b, *qs = wb + (five ? 48 : 16);
        const float d = h2f(wb), dmin = h2f(wb + 2);
        uint8_t sm[16];
        k4_scales_bytes(wb + 4, sm);
        const __m128i mins = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(sm + 8)));
        /* the 8 scales as int16 in both 128-bit lanes; scale j is broadcast with one byte shuffle */
        const __m256i scales =
            _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)sm)));
        __m256i sumi[NC], sk[NC];
        __m128i prod[NC];
        float dxs[NC] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int c = 0; c < NC; c++) { /* the min term: m_j * (bsum 2j + bsum 2j+1), pairs of j in 4 int32 lanes */
            sumi[c] = sk[c] = _mm256_setzero_si256();
            prod[c] = _mm_setzero_si128();
            if (c >= nc) {
                continue;
            }
            const uint8_t *xb = x[c] + Q8_K_BYTES * (size_t)b;
            const __m256i bs = ldu256(xb + Q8_K_BSUMS);
            const __m128i pairs = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
            prod[c] = _mm_madd_epi16(mins, pairs);
            dxs[c] = q8k_d(xb);
            if (five) {
                __m128i h = _mm_add_epi32(prod[c], _mm_srli_si128(prod[c], 8));
                h = _mm_add_epi32(h, _mm_srli_si128(h, 4));
                summs[c] += (-dxs[c] * dmin) * (float)_mm_cvtsi128_si32(h);
            }
        }
        const __m128 dx4 = _mm_loadu_ps(dxs);
        const __m128 dd4 = _mm_mul_ps(_mm_set1_ps(d), dx4), dm4 = _mm_mul_ps(_mm_set1_ps(dmin), dx4);
        /* the min sums, one lane per column: per pair of sub-blocks k (gemm4: lane k of each prod, transposed) or
         * per super-block (the 4 lanes' total) */
        __m128 pt[4] = {_mm_castsi128_ps(prod[0]), _mm_castsi128_ps(prod[1]), _mm_castsi128_ps(prod[2]),
                        _mm_castsi128_ps(prod[3])};
        if (!five && gemm4) {
            _MM_TRANSPOSE4_PS(pt[0], pt[1], pt[2], pt[3]); /* moves bits only */
        } else if (!five) {
            const __m128i tot = _mm_hadd_epi32(_mm_hadd_epi32(prod[0], prod[1]), _mm_hadd_epi32(prod[2], prod[3]));
            rm = _mm_fmadd_ps(_mm_cvtepi32_ps(tot), dm4, rm);
        }
        __m256i qh = five ? ldu256(wb + 16) : _mm256_setzero_si256();
        for (int k = 0; k < 4; k++) {
            const __m256i raw = ldu256(qs + 32 * k);
            __m256i lo = _mm256_and_si256(raw, m4), hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), m4);
            if (five) { /* bit 2k of qh[l] → 16 in sub-block 2k, bit 2k+1 → sub-block 2k+1 */
                lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(qh, one), 4));
                hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 1), one), 4));
                qh = _mm256_srli_epi16(qh, 2);
            }
            const __m256i sl = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * (2 * k))));
            const __m256i sh = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * (2 * k + 1))));
            for (int c = 0; c < nc; c++) {
                const uint8_t *xq = x[c] + Q8_K_BYTES * (size_t)b + Q8_K_QS + 64 * k;
                const __m256i pl = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, ldu256(xq)), sl);
                const __m256i ph = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, ldu256(xq + 32)), sh);
                sk[c] = _mm256_add_epi32(pl, ph);
                sumi[c] = _mm256_add_epi32(sumi[c], sk[c]);
            }
            if (gemm4 && !five) { /* ggml_gemm_q4_K_8x8_q8_K: A and M per pair of sub-blocks */
                ra = _mm_fmadd_ps(_mm_cvtepi32_ps(hsum4_i32(sk[0], sk[1], sk[2], sk[3])), dd4, ra);
                rm = _mm_fmadd_ps(_mm_cvtepi32_ps(_mm_castps_si128(pt[k])), dm4, rm);
            }
        }
        for (int c = 0; c < nc && five; c++) {
            acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi[c]), _mm256_set1_ps(d * dxs[c]), acc[c]);
        }
        if (!five && !gemm4) {
            ra = _mm_fmadd_ps(_mm_cvtepi32_ps(hsum4_i32(sumi[0], sumi[1], sumi[2], sumi[3])), dd4, ra);
        }
    }
    float r[4];
    _mm_storeu_ps(r, _mm_sub_ps(ra, rm));
    for (int c = 0; c < nc; c++) {
        out[c] = five ? hsum8(acc[c]) + summs[c] : r[c];
    }
}

/* ---- q6_K weights × q8_K activations ----
 * Per super-block: sumi = sum_i sc_i * (sum over its 16 values of q * x) - 32 * sum_i sc_i * bsum_i, q the
 * unsigned 6-bit code (maddubs pair sums <= 2 * 63 * 127 < 2^15; |sc| <= 128), result += d * d_x * sumi. */
INLINE void dot_q6_k_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    const __m256i m4 = _mm256_set1_epi8(0xF), m3 = _mm256_set1_epi8(3);
    __m256 acc[NC];
    for (int c = 0; c < nc; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < n / QK_K; b++) {
        const uint8_t *wb = w + Q6_K_BYTES * (size_t)b;
        const int8_t *sc = (const int8_t *)(wb + 192);
        const float d = h2f(wb + 208);
        const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)sc));
        __m256i sumi[NC];
        for (int c = 0; c < nc; c++) { /* the -32 offset: 32 * sum_i sc_i * bsum_i, subtracted up front */
            const __m256i bs = ldu256(x[c] + Q8_K_BYTES * (size_t)b + Q8_K_BSUMS);
            sumi[c] = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(_mm256_madd_epi16(sc16, bs), 5));
        }
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = wb + 64 * h;
            const __m256i A = ldu256(ql), B = ldu256(ql + 32), H = ldu256(wb + 128 + 32 * h);
            __m256i q[4];
            q[0] = _mm256_or_si256(_mm256_and_si256(A, m4), _mm256_slli_epi16(_mm256_and_si256(H, m3), 4));
            q[1] = _mm256_or_si256(_mm256_and_si256(B, m4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 2), m3), 4));
            q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(A, 4), m4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 4), m3), 4));
            q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(B, 4), m4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 6), m3), 4));
            for (int g = 0; g < 4; g++) {
                /* values 0..15 of the group take scale 8h + 2g, values 16..31 scale 8h + 2g + 1: the two
                 * 128-bit halves of maddubs' output. Scales 8h+2g, 8h+2g+1 are 32-bit element 4h+g of sc16:
                 * spread it to every element, then pick its low int16 in the low lane, its high in the high. */
                const __m256i pair = _mm256_permutevar8x32_epi32(sc16, _mm256_set1_epi32(4 * h + g));
                const __m256i lohi = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, /* low lane */
                                                      2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3);
                const __m256i s = _mm256_shuffle_epi8(pair, lohi);
                for (int c = 0; c < nc; c++) {
                    const uint8_t *xq = x[c] + Q8_K_BYTES * (size_t)b + Q8_K_QS + 128 * h + 32 * g;
                    sumi[c] = _mm256_add_epi32(sumi[c], _mm256_madd_epi16(_mm256_maddubs_epi16(q[g], ldu256(xq)), s));
                }
            }
        }
        for (int c = 0; c < nc; c++) {
            const float dd = d * q8k_d(x[c] + Q8_K_BYTES * (size_t)b);
            acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi[c]), _mm256_set1_ps(dd), acc[c]);
        }
    }
    for (int c = 0; c < nc; c++) {
        out[c] = hsum8(acc[c]);
    }
}

#else /* ---------------------------------- portable C ---------------------------------- */

/* The sum of a[j] * b[j] over len codes, exactly: the inner sum of ggml's *_generic dot kernels. Unsigned codes
 * (q4_K, q5_K: 0..31) have their own, which gcc vectorizes as unsigned × signed bytes: 3-6 % faster there than
 * signed × signed (bench/results/2026-12-02-native-dups). */
static inline int dot_i8(const int8_t *a, const int8_t *b, int len) {
    int s = 0;
    for (int j = 0; j < len; j++) {
        s += a[j] * b[j];
    }
    return s;
}
static inline int dot_u8(const uint8_t *a, const int8_t *b, int len) {
    int s = 0;
    for (int j = 0; j < len; j++) {
        s += a[j] * b[j];
    }
    return s;
}

/* Eight partial sums, so the compiler may vectorize without reassociating. */
INLINE void dot_float_k(uint32_t t, const uint8_t *w, int64_t n, const uint8_t *const *x, int nc, float *out) {
    const size_t es = t == GGML_TYPE_F32 ? 4 : 2;
    for (int c = 0; c < nc; c++) {
        const uint8_t *xc = x[c]; /* f32 values, read unaligned */
        float p[8] = {0};
        int64_t i = 0;
        for (; i + 8 <= n; i += 8) {
            for (int l = 0; l < 8; l++) {
                const uint8_t *e = w + es * (size_t)(i + l);
                const float wv = t == GGML_TYPE_F16 ? h2f(e) : t == GGML_TYPE_BF16 ? bf2f(e) : ld_f32(e);
                p[l] += wv * ld_f32(xc + 4 * (size_t)(i + l));
            }
        }
        float s = ((p[0] + p[4]) + (p[1] + p[5])) + ((p[2] + p[6]) + (p[3] + p[7]));
        for (; i < n; i++) {
            const uint8_t *e = w + es * (size_t)i;
            s += (t == GGML_TYPE_F16 ? h2f(e) : t == GGML_TYPE_BF16 ? bf2f(e) : ld_f32(e)) * ld_f32(xc + 4 * (size_t)i);
        }
        out[c] = s;
    }
}

/* q8_0 / q4_0 / q5_0 × q8_0 (ggml-cpu/quants.c ggml_vec_dot_*_q8_0_generic): exact int per block × d_w d_x. */
enum { K_Q8_0, K_Q4_0, K_Q5_0 };
static inline size_t q_0_bytes(int kind) { return kind == K_Q4_0 ? Q4_0_BYTES : kind == K_Q5_0 ? Q5_0_BYTES : Q8_0_BYTES; }
INLINE void dot_q_0_k(int kind, const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd, int nc,
                      float *out) {
    const size_t wb = q_0_bytes(kind);
    float acc[NC] = {0};
    for (int64_t b = 0; b < n / QK; b++) {
        const uint8_t *wq = w + wb * (size_t)b;
        int8_t q[QK];
        uint32_t qh = 0;
        if (kind == K_Q5_0) {
            memcpy(&qh, wq + 2, 4);
        }
        for (int j = 0; j < 16; j++) {
            if (kind == K_Q8_0) {
                q[j] = (int8_t)wq[2 + j];
                q[j + 16] = (int8_t)wq[2 + 16 + j];
            } else if (kind == K_Q4_0) {
                q[j] = (int8_t)((wq[2 + j] & 0xF) - 8);
                q[j + 16] = (int8_t)((wq[2 + j] >> 4) - 8);
            } else {
                q[j] = (int8_t)(((wq[6 + j] & 0xF) | (int)((qh >> j) & 1) << 4) - 16);
                q[j + 16] = (int8_t)(((wq[6 + j] >> 4) | (int)((qh >> (j + 16)) & 1) << 4) - 16);
            }
        }
        const float d = h2f(wq);
        for (int c = 0; c < nc; c++) {
            const uint8_t *xb = x[c] + Q8_0_BYTES * (size_t)b;
            const int s = dot_i8(q, (const int8_t *)(xb + 2), QK);
            acc[c] += (float)s * (d * xd[c][b]);
        }
    }
    for (int c = 0; c < nc; c++) {
        out[c] = acc[c];
    }
}

/* The integer part of a K-quant super-block × its q8_K block xb (ggml's *_K_q8_K_generic): the sum over nsub
 * sub-blocks of QK_K / nsub codes each of sc[j] × (the codes · x's). The codes are q's bytes: int8_t when
 * signed_codes (q6_K), else uint8_t (q4_K, q5_K); both arguments are constants of the caller. */
INLINE int k_sumi(const void *q, int signed_codes, const uint8_t *xb, const int *sc, int nsub) {
    const int8_t *xq = (const int8_t *)(xb + Q8_K_QS);
    const int len = QK_K / nsub;
    int sumi = 0;
    for (int j = 0; j < nsub; j++) {
        const int o = len * j;
        sumi += sc[j] * (signed_codes ? dot_i8((const int8_t *)q + o, xq + o, len)
                                      : dot_u8((const uint8_t *)q + o, xq + o, len));
    }
    return sumi;
}

/* q4_K / q5_K × q8_K (ggml_vec_dot_q{4,5}_K_q8_K_generic): see the AVX2 kernel's comment for the sums. */
INLINE void dot_q45_k_k(int five, int gemm4, const uint8_t *w, int64_t n, const uint8_t *const *x, int nc, float *out) {
    const size_t wbytes = five ? Q5_K_BYTES : Q4_K_BYTES;
    float acc[NC] = {0}, accm[NC] = {0};
    for (int64_t b = 0; b < n / QK_K; b++) {
        const uint8_t *wb = w + wbytes * (size_t)b, *qh = wb + 16, *qs = wb + (five ? 48 : 16);
        const float d = h2f(wb), dmin = h2f(wb + 2);
        int sc[8], m[8];
        k4_scales(wb + 4, sc, m);
        uint8_t q[QK_K];
        for (int k = 0; k < 4; k++) {
            for (int l = 0; l < 32; l++) {
                q[64 * k + l] = (uint8_t)((qs[32 * k + l] & 0xF) | (five ? ((qh[l] >> (2 * k)) & 1) << 4 : 0));
                q[64 * k + 32 + l] = (uint8_t)((qs[32 * k + l] >> 4) | (five ? ((qh[l] >> (2 * k + 1)) & 1) << 4 : 0));
            }
        }
        for (int c = 0; c < nc; c++) {
            const uint8_t *xb = x[c] + Q8_K_BYTES * (size_t)b;
            const float dx = q8k_d(xb);
            acc[c] += d * dx * (float)k_sumi(q, 0, xb, sc, 8);
            accm[c] += dmin * dx * (float)k4_minsum(m, xb);
        }
    }
    for (int c = 0; c < nc; c++) {
        out[c] = acc[c] - accm[c];
    }
}

/* q6_K × q8_K (ggml_vec_dot_q6_K_q8_K_generic), codes unpacked once into signed q - 32. */
INLINE void dot_q6_k_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    float acc[NC] = {0};
    for (int64_t b = 0; b < n / QK_K; b++) {
        const uint8_t *wb = w + Q6_K_BYTES * (size_t)b;
        int sc[16];
        for (int i = 0; i < 16; i++) {
            sc[i] = (int8_t)wb[192 + i];
        }
        const float d = h2f(wb + 208);
        int8_t q[QK_K];
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = wb + 64 * h, *qh = wb + 128 + 32 * h;
            for (int l = 0; l < 32; l++) {
                q[128 * h + l] = (int8_t)(((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
                q[128 * h + l + 32] = (int8_t)(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
                q[128 * h + l + 64] = (int8_t)(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
                q[128 * h + l + 96] = (int8_t)(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
            }
        }
        for (int c = 0; c < nc; c++) {
            const uint8_t *xb = x[c] + Q8_K_BYTES * (size_t)b;
            acc[c] += d * q8k_d(xb) * (float)k_sumi(q, 1, xb, sc, 16);
        }
    }
    for (int c = 0; c < nc; c++) {
        out[c] = acc[c];
    }
}

#endif

/* ---- the typed entry points, the same in both variants ---- */
INLINE void dot_f32_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                      int nc, float *out) {
    dot_float_k(GGML_TYPE_F32, w, n, x, nc, out);
}

INLINE void dot_f16_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                      int nc, float *out) {
    dot_float_k(GGML_TYPE_F16, w, n, x, nc, out);
}

INLINE void dot_bf16_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    dot_float_k(GGML_TYPE_BF16, w, n, x, nc, out);
}

INLINE void dot_q4_0_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    dot_q_0_k(K_Q4_0, w, n, x, xd, nc, out);
}

INLINE void dot_q5_0_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    dot_q_0_k(K_Q5_0, w, n, x, xd, nc, out);
}

INLINE void dot_q8_0_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    dot_q_0_k(K_Q8_0, w, n, x, xd, nc, out);
}

INLINE void dot_q4_k_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    dot_q45_k_k(0, 0, w, n, x, nc, out);
}

INLINE void dot_q4_k_gemm4_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                             int nc, float *out) {
    dot_q45_k_k(0, 1, w, n, x, nc, out); /* base: one order (llama.cpp repacks only with AVX2) */
}

INLINE void dot_q5_k_k(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd,
                       int nc, float *out) {
    dot_q45_k_k(1, 0, w, n, x, nc, out);
}

DOT_NC(dot_f32)
DOT_NC(dot_f16)
DOT_NC(dot_bf16)
DOT_NC(dot_q8_0)
DOT_NC(dot_q4_0)
DOT_NC(dot_q5_0)
DOT_NC(dot_q4_k)
DOT_NC(dot_q4_k_gemm4)
DOT_NC(dot_q5_k)
DOT_NC(dot_q6_k)

dot_fn NAME(strata_quant_dot)(uint32_t t) {
    switch (t) {
    case GGML_TYPE_F32: return dot_f32;
    case GGML_TYPE_F16: return dot_f16;
    case GGML_TYPE_BF16: return dot_bf16;
    case GGML_TYPE_Q8_0: return dot_q8_0;
    case GGML_TYPE_Q4_0: return dot_q4_0;
    case GGML_TYPE_Q5_0: return dot_q5_0;
    case GGML_TYPE_Q4_K: return dot_q4_k;
    case GGML_TYPE_Q4_K | STRATA_GEMM4: return dot_q4_k_gemm4;
    case GGML_TYPE_Q5_K: return dot_q5_k;
    case GGML_TYPE_Q6_K: return dot_q6_k;
    default: return NULL;
    }
}

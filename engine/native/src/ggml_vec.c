/* ggml_vec.c — llama.cpp's CPU float loops, bit for bit (ggml_vec.h). The x86 bodies are ggml's own intrinsics
 * (ggml/src/ggml-cpu/vec.h ggml_v_expf / ggml_v_silu, vec.cpp ggml_vec_swiglu_f32 / ggml_vec_soft_max_f32),
 * compiled for their instruction set with target attributes and picked at run time; the scalar ones are ggml's
 * fallbacks (ggml_silu_f32, expf). */
#include "ggml_vec.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"

enum { ISA_UNSET = 0, ISA_SCALAR, ISA_AVX2, ISA_AVX512 };
static atomic_int isa;

static int pick(void) {
    int v = atomic_load_explicit(&isa, memory_order_relaxed);
    if (v != ISA_UNSET) {
        return v;
    }
    v = ISA_SCALAR;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    const char *force = getenv("STRATA_GGML_ISA");
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    if (force != NULL && strcmp(force, "scalar") == 0) {
        v = ISA_SCALAR;
    } else if (avx512 && (force == NULL || strcmp(force, "avx2") != 0)) {
        v = ISA_AVX512;
    } else if (avx2) {
        v = ISA_AVX2;
    }
#endif
    atomic_store_explicit(&isa, v, memory_order_relaxed);
    return v;
}

const char *strata_ggml_isa(void) {
    int v = pick();
    return v == ISA_AVX512 ? "avx512" : v == ISA_AVX2 ? "avx2" : "scalar";
}

static inline float silu_f32(float x) { return x / (1.0f + expf(-x)); } /* ggml_silu_f32 */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define T512 __attribute__((target("avx512f,avx512dq,fma,avx2,f16c")))
#define T256 __attribute__((target("avx2,fma,f16c")))

/* ggml_v_expf, AVX-512F+DQ */
T512 static inline __m512 v_expf16(__m512 x) {
    const __m512 r = _mm512_set1_ps(0x1.8p23f);
    const __m512 z = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+0f), r);
    const __m512 n = _mm512_sub_ps(z, r);
    const __m512 b = _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.7f7d1cp-20f),
                                      _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.62e4p-1f), x));
    const __mmask16 d = _mm512_cmp_ps_mask(_mm512_abs_ps(n), _mm512_set1_ps(192), _CMP_GT_OQ);
    const __m512 u = _mm512_mul_ps(b, b);
    const __m512 j = _mm512_fmadd_ps(
        _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_set1_ps(0x1.0e4020p-7f), b, _mm512_set1_ps(0x1.573e2ep-5f)), u,
                        _mm512_fmadd_ps(_mm512_set1_ps(0x1.555e66p-3f), b, _mm512_set1_ps(0x1.fffdb6p-2f))),
        u, _mm512_fmadd_ps(_mm512_set1_ps(0x1.ffffecp-1f), b, _mm512_set1_ps(1.0F)));
    const __m512 res = _mm512_scalef_ps(j, n);
    if (_mm512_kortestz(d, d)) {
        return res;
    }
    const __m512 zero = _mm512_setzero_ps();
    const __m512 alt = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(n, zero, _CMP_LE_OQ), _mm512_set1_ps(INFINITY), zero);
    return _mm512_mask_blend_ps(d, res, alt);
}

/* ggml_v_expf, AVX2+FMA */
T256 static inline __m256 v_expf8(__m256 x) {
    const __m256 r = _mm256_set1_ps(0x1.8p23f);
    const __m256 z = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p+0f), r);
    const __m256 n = _mm256_sub_ps(z, r);
    const __m256 b = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.7f7d1cp-20f),
                                      _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.62e4p-1f), x));
    const __m256i e = _mm256_slli_epi32(_mm256_castps_si256(z), 23);
    const __m256 k = _mm256_castsi256_ps(_mm256_add_epi32(e, _mm256_castps_si256(_mm256_set1_ps(1))));
    const __m256i c =
        _mm256_castps_si256(_mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.f), n), _mm256_set1_ps(126), _CMP_GT_OQ));
    const __m256 u = _mm256_mul_ps(b, b);
    const __m256 j = _mm256_fmadd_ps(
        _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(0x1.0e4020p-7f), b, _mm256_set1_ps(0x1.573e2ep-5f)), u,
                        _mm256_fmadd_ps(_mm256_set1_ps(0x1.555e66p-3f), b, _mm256_set1_ps(0x1.fffdb6p-2f))),
        u, _mm256_mul_ps(_mm256_set1_ps(0x1.ffffecp-1f), b));
    if (!_mm256_movemask_ps(_mm256_castsi256_ps(c))) {
        return _mm256_fmadd_ps(j, k, k);
    }
    const __m256i g = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(n, _mm256_setzero_ps(), _CMP_LE_OQ)),
                                       _mm256_set1_epi32((int)0x82000000u));
    const __m256 s1 = _mm256_castsi256_ps(_mm256_add_epi32(g, _mm256_set1_epi32(0x7f000000)));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_sub_epi32(e, g));
    const __m256i d =
        _mm256_castps_si256(_mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.f), n), _mm256_set1_ps(192), _CMP_GT_OQ));
    return _mm256_or_ps(
        _mm256_and_ps(_mm256_castsi256_ps(d), _mm256_mul_ps(s1, s1)),
        _mm256_andnot_ps(_mm256_castsi256_ps(d),
                         _mm256_or_ps(_mm256_and_ps(_mm256_castsi256_ps(c), _mm256_mul_ps(_mm256_fmadd_ps(s2, j, s2), s1)),
                                      _mm256_andnot_ps(_mm256_castsi256_ps(c), _mm256_fmadd_ps(k, j, k)))));
}

/* e^x of one vector of 16 (8) floats at x into y, in ggml_v_expf's formula; ggml's callers put only the exponential
 * in vectors: the adds, the division and the products around it round the same in scalar code (IEEE, one rounding
 * each), and a vector's horizontal sum is spelled out below in the reduction's own order. */
T512 static void expf16(float *y, const float *x) { _mm512_storeu_ps(y, v_expf16(_mm512_loadu_ps(x))); }
T256 static void expf8(float *y, const float *x) { _mm256_storeu_ps(y, v_expf8(_mm256_loadu_ps(x))); }
T256 static inline __m256 ld_h8(const void *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

T256 static float dot_f16_16(const uint8_t *k, const uint16_t *q, int hd) {
    __m256 lo[4], hi[4];
    for (int j = 0; j < 4; j++) {
        lo[j] = hi[j] = _mm256_setzero_ps();
    }
    for (int i = 0; i < hd; i += 64) {
        for (int j = 0; j < 4; j++) {
            const int o = i + 16 * j;
            lo[j] = _mm256_fmadd_ps(ld_h8(k + 2 * o), ld_h8(q + o), lo[j]);
            hi[j] = _mm256_fmadd_ps(ld_h8(k + 2 * (o + 8)), ld_h8(q + o + 8), hi[j]);
        }
    }
    for (int j = 0; j < 2; j++) { /* GGML_F32x16_REDUCE: x0 + x2, x1 + x3, then x0 + x1, then the 16 lanes */
        lo[j] = _mm256_add_ps(lo[j], lo[j + 2]);
        hi[j] = _mm256_add_ps(hi[j], hi[j + 2]);
    }
    __m256 v = _mm256_add_ps(_mm256_add_ps(hi[0], hi[1]), _mm256_add_ps(lo[0], lo[1]));
    float t[8];
    _mm256_storeu_ps(t, v);
    float a0 = t[4] + t[0], a1 = t[5] + t[1], a2 = t[6] + t[2], a3 = t[7] + t[3];
    return (float)(double)((a0 + a2) + (a1 + a3));
}

T256 static void mad_f16_8(uint16_t *y, const uint8_t *v, float s, int hd) {
    const __m256 w = _mm256_set1_ps(s);
    for (int i = 0; i < hd; i += 8) {
        __m256 r = _mm256_fmadd_ps(ld_h8(v + 2 * i), w, ld_h8(y + i));
        _mm_storeu_si128((__m128i *)(void *)(y + i), _mm256_cvtps_ph(r, 0));
    }
}

T256 static void scale_f16_8(uint16_t *y, float s, int hd) {
    const __m256 w = _mm256_set1_ps(s);
    for (int i = 0; i < hd; i += 8) {
        _mm_storeu_si128((__m128i *)(void *)(y + i), _mm256_cvtps_ph(_mm256_mul_ps(ld_h8(y + i), w), 0));
    }
}

T256 static void fa_pack8(const uint8_t *cells, size_t cell_bytes, size_t koff, size_t voff, size_t cn, int hd,
                          float *kt, float *v) {
    for (size_t c = 0; c < cn; c++) {
        const uint8_t *vc = cells + c * cell_bytes + voff;
        for (int d = 0; d < hd; d += 8) {
            _mm256_storeu_ps(v + c * (size_t)hd + (size_t)d,
                             _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(vc + 2 * (size_t)d))));
        }
    }
    for (size_t c0 = 0; c0 < 64; c0 += 8) { /* 8 cells × 8 dims at a time, transposed in registers */
        for (int d = 0; d < hd; d += 8) {
            __m256 r[8];
            for (size_t c = 0; c < 8; c++) {
                r[c] = c0 + c < cn ? _mm256_cvtph_ps(_mm_loadu_si128(
                                         (const __m128i *)(const void *)(cells + (c0 + c) * cell_bytes + koff + 2 * (size_t)d)))
                                   : _mm256_setzero_ps();
            }
            __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
            __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
            __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
            __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
            __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
            __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
            __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
            __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
            const __m256 col[8] = {
                _mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31),
            };
            for (int j = 0; j < 8; j++) {
                _mm256_storeu_ps(kt + (size_t)(d + j) * 64 + c0, col[j]);
            }
        }
    }
}

T256 static void fa_kq8(const float *kt, int hd, const float *q, float scale, float s[64]) {
    __m256 acc[8];
    for (int j = 0; j < 8; j++) {
        acc[j] = _mm256_setzero_ps();
    }
    for (int d = 0; d < hd; d++) {
        const __m256 qd = _mm256_set1_ps(q[d]);
        for (int j = 0; j < 8; j++) {
            acc[j] = _mm256_fmadd_ps(_mm256_loadu_ps(kt + (size_t)d * 64 + 8 * j), qd, acc[j]);
        }
    }
    for (int j = 0; j < 8; j++) {
        _mm256_storeu_ps(s + 8 * j, _mm256_mul_ps(acc[j], _mm256_set1_ps(scale)));
    }
}

T256 static void fa_v8(const float *v, size_t n, int hd, const float *p, float *acc) {
    for (int d = 0; d < hd; d += 32) {
        __m256 a0 = _mm256_loadu_ps(acc + d), a1 = _mm256_loadu_ps(acc + d + 8);
        __m256 a2 = _mm256_loadu_ps(acc + d + 16), a3 = _mm256_loadu_ps(acc + d + 24);
        for (size_t c = 0; c < n; c++) {
            const float *vc = v + c * (size_t)hd + d;
            const __m256 w = _mm256_set1_ps(p[c]);
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(vc), w, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(vc + 8), w, a1);
            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(vc + 16), w, a2);
            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(vc + 24), w, a3);
        }
        _mm256_storeu_ps(acc + d, a0);
        _mm256_storeu_ps(acc + d + 8, a1);
        _mm256_storeu_ps(acc + d + 16, a2);
        _mm256_storeu_ps(acc + d + 24, a3);
    }
}
#endif

/* The vector width of this CPU's ggml_v_expf and its exponential, or 0 (scalar expf). */
static int vexp(void (**fn)(float *, const float *)) {
    *fn = NULL;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    int v = pick();
    *fn = v == ISA_AVX512 ? expf16 : v == ISA_AVX2 ? expf8 : NULL;
    return v == ISA_AVX512 ? 16 : v == ISA_AVX2 ? 8 : 0;
#else
    return 0;
#endif
}

void strata_ggml_swiglu(float *y, const float *x, const float *g, size_t n) {
    void (*ex)(float *, const float *);
    const size_t L = (size_t)vexp(&ex);
    size_t i = 0;
    for (; L != 0 && i + L <= n; i += L) { /* ggml_v_silu(x) * g: x / (1 + e^-x), then the product */
        float t[16], e[16];
        for (size_t j = 0; j < L; j++) {
            t[j] = 0.0f - x[i + j];
        }
        ex(e, t);
        for (size_t j = 0; j < L; j++) {
            y[i + j] = x[i + j] / (1.0f + e[j]) * g[i + j];
        }
    }
    for (; i < n; i++) {
        y[i] = silu_f32(x[i]) * g[i];
    }
}

double strata_ggml_soft_max(float *y, const float *x, size_t n, float max) {
    void (*ex)(float *, const float *);
    const size_t L = (size_t)vexp(&ex);
    double sum = 0.0;
    size_t i = 0;
    for (; L != 0 && i + L <= n; i += L) {
        float t[16], v[16];
        for (size_t j = 0; j < L; j++) {
            t[j] = x[i + j] - max;
        }
        ex(v, t);
        memcpy(y + i, v, L * sizeof(float));
        /* the horizontal sum: _mm512_reduce_add_ps (GCC: halves of 8, of 4, then (0+2) + (1+3)) folds 16 lanes
         * to 8 first; the AVX2 code's extract / movehl / movehdup is the same tree on 8 */
        if (L == 16) {
            for (size_t j = 0; j < 8; j++) {
                v[j] = v[j + 8] + v[j];
            }
        }
        float a0 = v[4] + v[0], a1 = v[5] + v[1], a2 = v[6] + v[2], a3 = v[7] + v[3];
        sum += (double)((a0 + a2) + (a1 + a3));
    }
    for (; i < n; i++) {
        float val = expf(x[i] - max);
        sum += (double)val;
        y[i] = val;
    }
    return sum;
}

void strata_ggml_fa_pack(const uint8_t *cells, size_t cell_bytes, size_t koff, size_t voff, size_t cn, int hd,
                         float *kt, float *v) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (pick() != ISA_SCALAR) {
        fa_pack8(cells, cell_bytes, koff, voff, cn, hd, kt, v);
        return;
    }
#endif
    for (size_t c = 0; c < 64; c++) {
        const uint8_t *k = cells + c * cell_bytes + koff, *vc = cells + c * cell_bytes + voff;
        for (int d = 0; d < hd; d++) {
            kt[(size_t)d * 64 + c] = c < cn ? strata_half_to_float(strata_load_u16le(k + 2 * (size_t)d)) : 0.0f;
            if (c < cn) {
                v[c * (size_t)hd + (size_t)d] = strata_half_to_float(strata_load_u16le(vc + 2 * (size_t)d));
            }
        }
    }
}

void strata_ggml_fa_kq(const float *kt, int hd, const float *q, float scale, float s[64]) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (pick() != ISA_SCALAR) {
        fa_kq8(kt, hd, q, scale, s);
        return;
    }
#endif
    for (int c = 0; c < 64; c++) {
        float a = 0.0f;
        for (int d = 0; d < hd; d++) {
            a = fmaf(kt[(size_t)d * 64 + (size_t)c], q[d], a);
        }
        s[c] = a * scale;
    }
}

void strata_ggml_fa_v(const float *v, size_t n, int hd, const float *p, float *acc) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (pick() != ISA_SCALAR && hd % 32 == 0) {
        fa_v8(v, n, hd, p, acc);
        return;
    }
#endif
    for (size_t c = 0; c < n; c++) {
        for (int d = 0; d < hd; d++) {
            acc[d] = fmaf(v[c * (size_t)hd + (size_t)d], p[c], acc[d]);
        }
    }
}

float strata_ggml_dot_f16(const uint8_t *k, const uint16_t *q16, int hd) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (pick() != ISA_SCALAR && hd % 64 == 0) {
        return dot_f16_16(k, q16, hd);
    }
#endif
    double sum = 0.0;
    for (int i = 0; i < hd; i++) {
        sum += (double)(strata_half_to_float(strata_load_u16le(k + 2 * i)) * strata_half_to_float(q16[i]));
    }
    return (float)sum;
}

void strata_ggml_mad_f16(uint16_t *y, const uint8_t *v, float s, int hd) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (pick() != ISA_SCALAR && hd % 8 == 0) {
        mad_f16_8(y, v, s, hd);
        return;
    }
#endif
    for (int i = 0; i < hd; i++) {
        y[i] = strata_float_to_half(fmaf(strata_half_to_float(strata_load_u16le(v + 2 * i)), s, strata_half_to_float(y[i])));
    }
}

void strata_ggml_scale_f16(uint16_t *y, float s, int hd) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (pick() != ISA_SCALAR && hd % 8 == 0) {
        scale_f16_8(y, s, hd);
        return;
    }
#endif
    for (int i = 0; i < hd; i++) {
        y[i] = strata_float_to_half(strata_half_to_float(y[i]) * s);
    }
}

/* quant_kern.h — what quant_kern.c (dequantization, gemm_rows) and quant_dot.c (the dot kernels) share, both
 * compiled once per instruction set (QUANT_VARIANT): the variant's name macros, f16 / bf16 / f32 loads, and the
 * dot kernels' interface. Internal to those two files. */
#ifndef STRATA_QUANT_KERN_H
#define STRATA_QUANT_KERN_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "quant_impl.h"

#ifndef QUANT_VARIANT
#define QUANT_VARIANT base
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(f) CAT(f##_, QUANT_VARIANT)
#define STR2(x) #x
#define STR(x) STR2(x)

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define QUANT_AVX2 1
#include <immintrin.h>
static inline float h2f(const uint8_t *p) { return _cvtsh_ss(strata_load_u16le(p)); }
#elif defined(__aarch64__)
/* AArch64 converts f16 in hardware (ACLE __fp16; the compiler vectorizes it to fcvtl). */
static inline float h2f(const uint8_t *p) {
    __fp16 h;
    memcpy(&h, p, sizeof h);
    return (float)h;
}
#else
/* f16 → f32 without branches, so loops over it vectorize (half.h's converter renormalizes subnormals in a loop).
 * two = exponent and mantissa at the top of a word (sign dropped). A normal, infinite or NaN half: shifted down
 * 4, exponent and mantissa sit in an f32's fields; adding 224 to the exponent field and scaling by 2^-112 rebases
 * the exponent by 127 - 15 (and leaves 31 → 255: inf and NaN stay). A subnormal m · 2^-24 (exponent field 0):
 * the f32 with exponent 126 and m in its low mantissa bits is 0.5 + m · 2^-24, minus 0.5 exactly. */
static inline float h2f(const uint8_t *p) {
    const uint32_t h = strata_load_u16le(p);
    const uint32_t sign = (h & 0x8000u) << 16, two = (h << 17) & 0xffffffffu; /* exponent and mantissa, sign gone */
    uint32_t nb = (two >> 4) + (224u << 23), db = (two >> 17) | (126u << 23);
    float nf, df;
    memcpy(&nf, &nb, 4);
    memcpy(&df, &db, 4);
    nf *= 0x1.0p-112f;
    df -= 0.5f;
    uint32_t nbits, dbits;
    memcpy(&nbits, &nf, 4);
    memcpy(&dbits, &df, 4);
    const uint32_t r = sign | (two < (1u << 27) ? dbits : nbits);
    float f;
    memcpy(&f, &r, 4);
    return f;
}
#endif

enum { NC = 4 }; /* activation columns per pass over a weight row */

#define INLINE static inline __attribute__((always_inline))

static inline float ld_f32(const uint8_t *p) {
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}
static inline float bf2f(const uint8_t *p) { /* bf16: the high 16 bits of an f32 */
    uint32_t u = (uint32_t)strata_load_u16le(p) << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ============================ dot products: one weight row × nc ≤ NC columns ============================
 * w: the row; n: its values; x[c]: activation column c in the vec_dot type; out[c] = the dot product. */
/* xd[c][b]: the f32 scale of block b of column c, for q8_0 / q4_0 (converted once per call, not once per row). */
typedef void (*dot_fn)(const uint8_t *w, int64_t n, const uint8_t *const *x, const float *const *xd, int nc,
                       float *out);

/* The K-quants' activation blocks: q8_K d, codes and block sums. */
static inline float q8k_d(const uint8_t *b) { return ld_f32(b); }
static inline int16_t q8k_bsum(const uint8_t *b, int i) {
    int16_t s;
    memcpy(&s, b + Q8_K_BSUMS + 2 * i, sizeof s);
    return s;
}

/* The min term of a q4_K / q5_K block against a q8_K block: sum_j m_j * (sum of the 32 codes of sub-block j). */
static inline int k4_minsum(const int *m, const uint8_t *xb) {
    int s = 0;
    for (int j = 0; j < 8; j++) {
        s += m[j] * (q8k_bsum(xb, 2 * j) + q8k_bsum(xb, 2 * j + 1));
    }
    return s;
}

static inline void k4_scales(const uint8_t *s, int *sc, int *m) {
    for (int j = 0; j < 8; j++) {
        strata_k4_scale_min(j, s, &sc[j], &m[j]);
    }
}

/* The dot kernel of weight type t (| STRATA_GEMM4 for q4_K's GEMM order), or NULL when t has none. */
dot_fn NAME(strata_quant_dot)(uint32_t t);

#endif

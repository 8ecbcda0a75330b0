/* quant_impl.h — the inside of quant.h: the weight-type kernels of one instruction set (quant_kern.c, compiled
 * once per variant like fused.c) and the byte layout of every block strata-ref computes.
 *
 * Block layouts, byte offsets inside one block (ggml/src/ggml-common.h; little-endian, no padding; ggml_half
 * is IEEE binary16):
 *   q4_0  18 B / 32:   d f16 @0, qs[16] @2        value j: low nibble of qs[j] (j < 16), high nibble of
 *                                                 qs[j-16] (j >= 16); x = (nibble - 8) * d
 *   q5_0  22 B / 32:   d f16 @0, qh[4] @2, qs[16] @6  as q4_0, plus bit j of the little-endian u32 qh as
 *                                                 the code's 5th bit (value 16); x = (code - 16) * d
 *   q8_0  34 B / 32:   d f16 @0, qs[32] int8 @2   x = qs[j] * d
 *   q4_K 144 B / 256:  d f16 @0, dmin f16 @2, scales[12] @4, qs[128] @16
 *   q5_K 176 B / 256:  d @0, dmin @2, scales[12] @4, qh[32] @16, qs[128] @48
 *   q6_K 210 B / 256:  ql[128] @0, qh[64] @128, scales[16] int8 @192, d f16 @208
 *   q8_K 292 B / 256:  d f32 @0, qs[256] int8 @4, bsums[16] int16 @260 (sum of each 16 qs)
 * The K-quant value formulas are spelled out next to the code that decodes them (quant_kern.c). */
#ifndef STRATA_QUANT_IMPL_H
#define STRATA_QUANT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "quant.h"

enum {
    QK = 32,     /* QK4_0 = QK8_0 */
    QK_K = 256,  /* the K-quants' super-block */
    Q4_0_BYTES = 18,
    Q5_0_BYTES = 22,
    Q8_0_BYTES = 34,
    Q4_K_BYTES = 144,
    Q5_K_BYTES = 176,
    Q6_K_BYTES = 210,
    Q8_K_BYTES = 292,
    /* offsets inside a q8_K block */
    Q8_K_QS = 4,
    Q8_K_BSUMS = 260,
};

typedef struct {
    const char *isa;
    /* dst[0..n) = the values of a row (wtype computable, n a multiple of its block) */
    void (*dequant_row)(uint32_t type, const uint8_t *src, float *dst, int64_t n);
    /* quant.h's strata_gemm_rows for a computable wtype (the public wrapper checks the type) */
    void (*gemm_rows)(uint32_t wtype, int64_t n, const uint8_t *w, size_t wrow_bytes, int64_t r0, int64_t r1,
                      const uint8_t *xq, size_t xstride, int ncols, float *y, size_t ystride);
} strata_quant_ops;

extern const strata_quant_ops strata_quant_base;
#if defined(__x86_64__)
extern const strata_quant_ops strata_quant_avx2;
#endif
/* The variant strata_gemm_rows uses on this CPU (AVX2+FMA+F16C on x86-64 when present, else base). */
const strata_quant_ops *strata_quant_best(void);

/* The 6-bit scale and min of sub-block j (0..7) of a q4_K / q5_K block from its 12 scale bytes
 * (ggml-quants.c get_scale_min_k4): j < 4: low 6 bits of bytes j and j+4; j >= 4: the nibbles of byte j+4 as
 * the low 4 bits, the top 2 bits of bytes j-4 (scale) and j (min) as the high 2. */
static inline void strata_k4_scale_min(int j, const uint8_t *s, int *sc, int *m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        *m = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

#endif

/* quant.c — ggml's type table, the activation quantizers and the run-time choice of the kernel variant
 * (quant.h). The kernels themselves are in quant_kern.c, compiled once per instruction set. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "quant_impl.h"

/* ggml's type_traits (ggml/src/ggml.c): name, values per block, bytes per block, for every id GGUF files may hold:
 * Java's dev.strata.engine.model.GgmlType, from the ggml_types.def the build writes from it. Removed ids (4, 5, 31..33,
 * 36..38) stay NULL here, as any id beyond the table does. What strata-ref computes is its own: the types it can
 * dequantize and dot with, each with the type activations are converted to (vec_dot_type; -1 where not computable). */
#define VEC_DOT(id)                                                                                                    \
    ((id) == GGML_TYPE_F32 || (id) == GGML_TYPE_F16 || (id) == GGML_TYPE_BF16    ? GGML_TYPE_F32                        \
     : (id) == GGML_TYPE_Q4_0 || (id) == GGML_TYPE_Q5_0 || (id) == GGML_TYPE_Q8_0 ? GGML_TYPE_Q8_0                       \
     : (id) == GGML_TYPE_Q4_K || (id) == GGML_TYPE_Q5_K || (id) == GGML_TYPE_Q6_K ? GGML_TYPE_Q8_K                       \
                                                                                  : -1)
#define STRATA_GGML_TYPE(id, nm, blk, sz) [id] = {nm, blk, sz, VEC_DOT(id) >= 0, VEC_DOT(id)},
static const strata_type_info TYPES[] = {
#include "ggml_types.def"
};
#undef STRATA_GGML_TYPE
#undef VEC_DOT

const strata_type_info *strata_type(uint32_t type) {
    if (type >= sizeof TYPES / sizeof TYPES[0] || TYPES[type].name == NULL) {
        return NULL;
    }
    return &TYPES[type];
}

const char *strata_types_computable(void) { return "f32, f16, bf16, q8_0, q4_0, q5_0, q4_K, q5_K, q6_K"; }

size_t strata_row_bytes(uint32_t type, int64_t n) {
    const strata_type_info *t = strata_type(type);
    if (t == NULL || n < 0 || n % t->block != 0) {
        return 0;
    }
    return (size_t)(n / t->block) * t->bytes;
}

/* Round to nearest, ties to even (the default rounding mode): what ggml's nearest_int (ggml-quants.c, the
 * 1.5 * 2^23 trick) and _mm256_round_ps(_MM_ROUND_NEAREST) compute. rintf, not the trick, so that no compiler
 * can fuse the caller's multiply into the addition (an FMA would round once instead of twice). */
static inline int nearest_int(float v) { return (int)rintf(v); }

/* Q8_0 as llama.cpp's CPU backend makes it on x86 (ggml-cpu/arch/x86/quants.c quantize_row_q8_0, AVX2):
 * d = amax / 127 stored as f16 (round to nearest even), codes = round-to-nearest-even(x * (127 / amax)),
 * computed with the unrounded 127 / amax. (ggml's scalar reference uses 1 / d and roundf, ties away from zero;
 * the two differ only on exact ties.) */
static void quantize_q8_0(const float *x, uint8_t *dst, int64_t n) {
    for (int64_t b = 0; b < n / QK; b++, x += QK, dst += Q8_0_BYTES) {
        float amax = 0.0f;
        for (int j = 0; j < QK; j++) {
            float a = fabsf(x[j]);
            amax = a > amax ? a : amax;
        }
        const float d = amax / 127.0f;
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        strata_store_u16le(dst, strata_float_to_half(d));
        for (int j = 0; j < QK; j++) {
            dst[2 + j] = (uint8_t)(int8_t)nearest_int(x[j] * id);
        }
    }
}

/* Q8_K as ggml-quants.c quantize_row_q8_K_ref (which the x86 CPU backend calls as is): the signed value of
 * largest magnitude (the first one on ties) sets iscale = -127 / max, codes = min(127, nearest_int(iscale * x)),
 * d = 1 / iscale (f32), bsums[i] = the sum of codes 16i..16i+15. An all-zero block has d = 0, codes 0 (and here
 * bsums 0; ggml leaves them unset). */
static void quantize_q8_k(const float *x, uint8_t *dst, int64_t n) {
    for (int64_t b = 0; b < n / QK_K; b++, x += QK_K, dst += Q8_K_BYTES) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < QK_K; j++) {
            float a = fabsf(x[j]);
            if (a > amax) {
                amax = a;
                max = x[j];
            }
        }
        int8_t q[QK_K];
        int16_t bsums[16];
        float d = 0.0f;
        if (amax == 0.0f) {
            memset(q, 0, sizeof q);
        } else {
            const float iscale = -127.0f / max;
            for (int j = 0; j < QK_K; j++) {
                int v = nearest_int(iscale * x[j]);
                q[j] = (int8_t)(v < 127 ? v : 127);
            }
            d = 1.0f / iscale;
        }
        for (int i = 0; i < 16; i++) {
            int s = 0;
            for (int j = 0; j < 16; j++) {
                s += q[16 * i + j];
            }
            bsums[i] = (int16_t)s;
        }
        memcpy(dst, &d, 4);
        memcpy(dst + Q8_K_QS, q, sizeof q);
        memcpy(dst + Q8_K_BSUMS, bsums, sizeof bsums);
    }
}

void strata_quantize_act(uint32_t vt, const float *x, void *dst, int64_t n) {
    switch (vt) {
    case GGML_TYPE_F32: memcpy(dst, x, (size_t)n * sizeof(float)); break;
    case GGML_TYPE_Q8_0: quantize_q8_0(x, dst, n); break;
    case GGML_TYPE_Q8_K: quantize_q8_k(x, dst, n); break;
    default: break;
    }
}

/* ---- the variant this CPU runs, chosen once (any thread may be first: the pointer is atomic); the environment
 * variable STRATA_QUANT_ISA=base forces the portable variant (as STRATA_KERNELS_ISA does for the KV kernels) ---- */

static _Atomic(const strata_quant_ops *) best;

const strata_quant_ops *strata_quant_best(void) {
    const strata_quant_ops *o = atomic_load_explicit(&best, memory_order_acquire);
    if (o != NULL) {
        return o;
    }
    o = &strata_quant_base;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    const char *force = getenv("STRATA_QUANT_ISA"); /* "base": the portable variant (tests and benchmarks) */
    __builtin_cpu_init();
    if ((force == NULL || strcmp(force, "base") != 0) && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) {
        o = &strata_quant_avx2;
    }
#endif
    atomic_store_explicit(&best, o, memory_order_release);
    return o;
}

const char *strata_quant_isa(void) { return strata_quant_best()->isa; }

void strata_dequant_row(uint32_t type, const void *src, float *dst, int64_t n) {
    const strata_type_info *t = strata_type(type);
    if (t == NULL || !t->computable || n % t->block != 0) {
        for (int64_t i = 0; i < n; i++) {
            dst[i] = NAN;
        }
        return;
    }
    strata_quant_best()->dequant_row(type, src, dst, n);
}

void strata_gemm_rows(uint32_t wtype, int64_t n, const uint8_t *w, size_t wrow_bytes, int64_t r0, int64_t r1,
                      const uint8_t *xq, size_t xstride, int ncols, float *y, size_t ystride) {
    const strata_type_info *t = strata_type(wtype & ~STRATA_GEMM4);
    if (r1 <= r0 || ncols <= 0) {
        return;
    }
    if (t == NULL || !t->computable || n <= 0 || n % t->block != 0) {
        /* a caller bug (the engine refuses such tensors at load): make it visible in the output */
        for (int c = 0; c < ncols; c++) {
            for (int64_t r = r0; r < r1; r++) {
                y[(size_t)c * ystride + (size_t)r] = NAN;
            }
        }
        return;
    }
    strata_quant_best()->gemm_rows(wtype, n, w, wrow_bytes, r0, r1, xq, xstride, ncols, y, ystride);
}

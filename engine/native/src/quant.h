/* quant.h — ggml tensor types as strata-ref computes them: block layouts exactly as ggml lays them out
 * (ggml/src/ggml-common.h of llama.cpp), dequantization and the dot products of the forward pass.
 *
 * A weight row of n values of type t holds n / block(t) blocks of bytes(t) each. The forward pass multiplies
 * a weight matrix by activations the way llama.cpp's CPU backend does: each activation row is converted once to
 * the weight type's "vec_dot type" (Q8_0 for Q8_0 and Q4_0 weights, Q8_K for the K-quants, F32 for F32, F16 and
 * BF16 weights: strata-ref keeps float activations for the float types) and every weight row is dotted with it.
 *
 * Ids are ggml's (enum ggml_type): they are what a GGUF tensor info stores. */
#ifndef STRATA_QUANT_H
#define STRATA_QUANT_H

#include <stddef.h>
#include <stdint.h>

enum {
    GGML_TYPE_F32 = 0,
    GGML_TYPE_F16 = 1,
    GGML_TYPE_Q4_0 = 2,
    GGML_TYPE_Q4_1 = 3,
    GGML_TYPE_Q5_0 = 6,
    GGML_TYPE_Q5_1 = 7,
    GGML_TYPE_Q8_0 = 8,
    GGML_TYPE_Q8_1 = 9,
    GGML_TYPE_Q2_K = 10,
    GGML_TYPE_Q3_K = 11,
    GGML_TYPE_Q4_K = 12,
    GGML_TYPE_Q5_K = 13,
    GGML_TYPE_Q6_K = 14,
    GGML_TYPE_Q8_K = 15,
    GGML_TYPE_BF16 = 30,
    GGML_TYPE_COUNT_MAX = 64
};

typedef struct {
    const char *name;   /* ggml's name: "f32", "q4_K", ... */
    uint32_t block;     /* values per block (1 for f32/f16/bf16, 32, or QK_K = 256) */
    uint32_t bytes;     /* bytes per block */
    int computable;     /* strata-ref can dequantize it and dot with it (F32 F16 BF16 Q8_0 Q4_0 Q5_0 Q4_K Q5_K
                         * Q6_K; Q5_0 is what llama.cpp's Q4_K_M falls back to for rows of n % 256 != 0) */
    int vec_dot_type;   /* the type activations are converted to for a dot with this weight type */
} strata_type_info;

/* The type table row of a ggml type id, or NULL for an id ggml does not define (or strata-ref does not know). */
const strata_type_info *strata_type(uint32_t type);
/* The names strata-ref computes, comma-separated ("f32, f16, bf16, q8_0, q4_0, q5_0, q4_K, q5_K, q6_K"). */
const char *strata_types_computable(void);
/* Bytes of a row of n values (n a multiple of the block size; 0 otherwise). */
size_t strata_row_bytes(uint32_t type, int64_t n);

/* dst[0..n) = the values of a row of n values of a computable type. */
void strata_dequant_row(uint32_t type, const void *src, float *dst, int64_t n);
/* Converts n floats to a row of the vec_dot type vt (F32: a copy; Q8_0; Q8_K), as ggml's quantize_row_*: the
 * bytes equal llama.cpp's x86 CPU backend's (Q8_0 rounds ties to even, as its AVX2 path). dst holds
 * strata_row_bytes(vt, n) bytes (any alignment); another vt writes nothing. */
void strata_quantize_act(uint32_t vt, const float *x, void *dst, int64_t n);

/* The matrix product of the forward pass, for rows [r0, r1) of a weight matrix W (wtype, rows of n values,
 * wrow_bytes apart) and ncols activation rows xq (already strata_quantize_act'ed to the vec_dot type of
 * wtype, xstride bytes apart):
 *   y[c * ystride + r] = dot(W row r, activation c)      for r0 <= r < r1, 0 <= c < ncols.
 * Picks the best instruction set at run time (AVX2+FMA+F16C on x86-64 when present, else the portable variant).
 * Thread-safe (no state but the variant, chosen once); no alignment needed of w, xq or y. A column's results do not
 * depend on ncols or on the rows around it (the same bits alone or in a batch); the AVX2 variant gives the bits of
 * the llama.cpp kernel that multiplies that type on an AVX2 CPU: ggml_vec_dot_*_q8_* for q8_0, q4_0, q5_0, q5_K,
 * q6_K (tools/ggml_quant_check), the repacked q4_K_8x8 gemv (or GEMM, STRATA_GEMM4) for q4_K, tinyBLAS for f32 /
 * f16 (tools/llamacpp_dump checks the last two through a whole forward pass). A type that is not
 * computable, or n not a multiple of its block, writes NaN to the rows asked for. */
/* wtype | STRATA_GEMM4: the columns are token rows that llama.cpp's x86 backend computes with its 4-row GEMM of
 * repacked q4_K weights (arch/x86/repack.cpp ggml_gemm_q4_K_8x8_q8_K: the float sums per pair of sub-blocks)
 * rather than with its gemv (per super-block, the order without the flag); only q4_K in the AVX2 variant changes. */
#define STRATA_GEMM4 0x10000u

void strata_gemm_rows(uint32_t wtype, int64_t n, const uint8_t *w, size_t wrow_bytes, int64_t r0, int64_t r1,
                      const uint8_t *xq, size_t xstride, int ncols, float *y, size_t ystride);

/* The instruction set strata_gemm_rows uses ("avx2" or "base"; arm64 runs "base", the portable C the compiler
 * vectorizes: there are no NEON intrinsics yet). STRATA_QUANT_ISA=base in the environment forces "base". */
const char *strata_quant_isa(void);

#endif

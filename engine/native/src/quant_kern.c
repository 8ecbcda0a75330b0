/* quant_kern.c — the weight-type kernels of strata-ref: dequantization and the dot products of a weight row
 * with activation rows already converted to the weight type's vec_dot type (quant.h).
 *
 * Compiled once per instruction set, like fused.c: QUANT_VARIANT=base (portable C, the baseline ISA; on arm64
 * this is what runs, auto-vectorized by the compiler: there are no NEON intrinsics here) and QUANT_VARIANT=avx2
 * (-mavx2 -mfma -mf16c, intrinsics); strata_quant_best() picks at run time.
 *
 * Numerics follow llama.cpp's CPU backend (ggml-cpu/quants.c and arch/x86/quants.c): the product of a quantized
 * weight block with a quantized activation block is summed exactly in integers, then scaled in float by
 * d_w * d_x (plus the K-quants' min term from the activation's block sums). The AVX2 variant sums the floats in
 * the order of the llama.cpp kernel that runs on an AVX2 CPU (quant.h); the base variant in its own order.
 *
 * gemm_rows walks the rows outer and the activation columns inner, NC = 4 columns at a time: a weight block is
 * loaded and unpacked once and dotted with up to four activation blocks, so a decode (ncols = 1) streams every
 * weight row once, and a prefill (ncols up to 64) reads each weight row from memory once and reuses it from L1
 * for all its columns. */
#include "quant_kern.h"

/* ======================================= dequantization ======================================= */

static void dequant_q4_0(const uint8_t *b, float *y, int64_t nb) {
    for (int64_t i = 0; i < nb; i++, b += Q4_0_BYTES, y += QK) {
        const float d = h2f(b);
        for (int j = 0; j < 16; j++) {
            y[j] = (float)((b[2 + j] & 0xF) - 8) * d;
            y[j + 16] = (float)((b[2 + j] >> 4) - 8) * d;
        }
    }
}

/* q5_0 (ggml-quants.c dequantize_row_q5_0): value j's 5th bit is bit j of the u32 qh. */
static void dequant_q5_0(const uint8_t *b, float *y, int64_t nb) {
    for (int64_t i = 0; i < nb; i++, b += Q5_0_BYTES, y += QK) {
        const float d = h2f(b);
        uint32_t qh;
        memcpy(&qh, b + 2, 4);
        for (int j = 0; j < 16; j++) {
            const int lo = (b[6 + j] & 0xF) | (int)((qh >> j) & 1) << 4;
            const int hi = (b[6 + j] >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
            y[j] = (float)(lo - 16) * d;
            y[j + 16] = (float)(hi - 16) * d;
        }
    }
}

static void dequant_q8_0(const uint8_t *b, float *y, int64_t nb) {
    for (int64_t i = 0; i < nb; i++, b += Q8_0_BYTES, y += QK) {
        const float d = h2f(b);
        for (int j = 0; j < QK; j++) {
            y[j] = (float)(int8_t)b[2 + j] * d;
        }
    }
}

/* q4_K (ggml-quants.c dequantize_row_q4_K): 8 sub-blocks of 32; qs chunk k (32 bytes) holds sub-block 2k in
 * its low nibbles and 2k+1 in its high nibbles; x = d * sc_j * q - dmin * m_j. q5_K adds bit (2k) resp.
 * (2k+1) of qh[l] as the 5th bit (value 16) of value l of those sub-blocks. */
static void dequant_q45_k(const uint8_t *b, float *y, int64_t nb, int five) {
    const size_t bytes = five ? Q5_K_BYTES : Q4_K_BYTES;
    for (int64_t i = 0; i < nb; i++, b += bytes, y += QK_K) {
        const float d = h2f(b), dmin = h2f(b + 2);
        const uint8_t *qh = b + 16, *qs = b + (five ? 48 : 16);
        for (int k = 0; k < 4; k++) {
            int sc0, m0, sc1, m1;
            strata_k4_scale_min(2 * k, b + 4, &sc0, &m0);
            strata_k4_scale_min(2 * k + 1, b + 4, &sc1, &m1);
            const float d0 = d * (float)sc0, n0 = dmin * (float)m0, d1 = d * (float)sc1, n1 = dmin * (float)m1;
            for (int l = 0; l < 32; l++) {
                int lo = qs[32 * k + l] & 0xF, hi = qs[32 * k + l] >> 4;
                if (five) {
                    lo += ((qh[l] >> (2 * k)) & 1) << 4;
                    hi += ((qh[l] >> (2 * k + 1)) & 1) << 4;
                }
                y[64 * k + l] = d0 * (float)lo - n0;
                y[64 * k + 32 + l] = d1 * (float)hi - n1;
            }
        }
    }
}

/* q6_K (ggml-quants.c dequantize_row_q6_K): two halves of 128 values, each from 64 ql bytes, 32 qh bytes and
 * 8 scales. Value l + 32g (g = 0..3, l < 32) of a half: 4 low bits from ql[l + 32 (g & 1)] (low nibble for
 * g < 2, high for g >= 2), 2 high bits (qh[l] >> 2g) & 3; x = d * scales[l / 16 + 2g] * (q - 32). */
static void dequant_q6_k(const uint8_t *b, float *y, int64_t nb) {
    for (int64_t i = 0; i < nb; i++, b += Q6_K_BYTES, y += QK_K) {
        const float d = h2f(b + 208);
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = b + 64 * h, *qh = b + 128 + 32 * h;
            const int8_t *sc = (const int8_t *)(b + 192 + 8 * h);
            for (int l = 0; l < 32; l++) {
                const int q0 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q1 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q2 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q3 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                const int s = l / 16;
                y[128 * h + l] = d * (float)sc[s] * (float)q0;
                y[128 * h + l + 32] = d * (float)sc[s + 2] * (float)q1;
                y[128 * h + l + 64] = d * (float)sc[s + 4] * (float)q2;
                y[128 * h + l + 96] = d * (float)sc[s + 6] * (float)q3;
            }
        }
    }
}

static void NAME(dequant_row)(uint32_t type, const uint8_t *src, float *dst, int64_t n) {
    switch (type) {
    case GGML_TYPE_F32: memcpy(dst, src, (size_t)n * sizeof(float)); break;
    case GGML_TYPE_F16:
        for (int64_t i = 0; i < n; i++) {
            dst[i] = h2f(src + 2 * i);
        }
        break;
    case GGML_TYPE_BF16:
        for (int64_t i = 0; i < n; i++) {
            dst[i] = bf2f(src + 2 * i);
        }
        break;
    case GGML_TYPE_Q4_0: dequant_q4_0(src, dst, n / QK); break;
    case GGML_TYPE_Q5_0: dequant_q5_0(src, dst, n / QK); break;
    case GGML_TYPE_Q8_0: dequant_q8_0(src, dst, n / QK); break;
    case GGML_TYPE_Q4_K: dequant_q45_k(src, dst, n / QK_K, 0); break;
    case GGML_TYPE_Q5_K: dequant_q45_k(src, dst, n / QK_K, 1); break;
    case GGML_TYPE_Q6_K: dequant_q6_k(src, dst, n / QK_K); break;
    default:
        for (int64_t i = 0; i < n; i++) {
            dst[i] = NAN;
        }
    }
}


/* Cache blocking for ncols > NC: a chunk of rows of about CHUNK_BYTES (at least one row) is dotted with every
 * group of NC columns in turn, so the chunk's weights and one group's activations both stay in L1 (32 KB) while
 * they are reused: weights come from memory once, activations from L2 once per chunk. For ncols <= NC this is
 * one pass over the rows, each streamed once. */
enum { CHUNK_BYTES = 12 * 1024 };

/* q8_0 / q4_0 / q5_0 weights: every q8_0 activation block's f16 scale is converted once per call into xd (on the stack for up to
 * XD_MAX blocks × columns, columns taken in slices that fit; n > 32768 takes the heap). */
enum { XD_MAX = 4096 };

static void NAME(gemm_rows)(uint32_t wtype, int64_t n, const uint8_t *w, size_t wrow_bytes, int64_t r0, int64_t r1,
                            const uint8_t *xq, size_t xstride, int ncols, float *y, size_t ystride) {
    const dot_fn dot = NAME(strata_quant_dot)(wtype) != NULL ? NAME(strata_quant_dot)(wtype)
                                                          : NAME(strata_quant_dot)(wtype & ~STRATA_GEMM4);
    wtype &= ~STRATA_GEMM4;
    const size_t rb = strata_row_bytes(wtype, n);
    const int q0 = wtype == GGML_TYPE_Q8_0 || wtype == GGML_TYPE_Q4_0 || wtype == GGML_TYPE_Q5_0;
    const int64_t nb = n / QK;
    float xd_stack[XD_MAX], *xd_heap = NULL, *xdb = xd_stack;
    int slice = ncols;
    if (q0 && (int64_t)ncols * nb > XD_MAX) {
        slice = (int)(XD_MAX / nb) / NC * NC;
        if (slice < NC) {
            xd_heap = malloc(sizeof(float) * (size_t)nb * (size_t)ncols);
            if (xd_heap == NULL) {
                for (int c = 0; c < ncols; c++) {
                    for (int64_t r = r0; r < r1; r++) {
                        y[(size_t)c * ystride + (size_t)r] = NAN;
                    }
                }
                return;
            }
            xdb = xd_heap;
            slice = ncols;
        }
    }
    const uint8_t *x[NC];
    const float *xd[NC] = {NULL, NULL, NULL, NULL};
    float out[NC];
    for (int cs = 0; cs < ncols; cs += slice) {
        const int ns = ncols - cs < slice ? ncols - cs : slice;
        for (int c = 0; q0 && c < ns; c++) {
            for (int64_t b = 0; b < nb; b++) {
                xdb[(size_t)c * (size_t)nb + (size_t)b] = h2f(xq + (size_t)(cs + c) * xstride + Q8_0_BYTES * (size_t)b);
            }
        }
        const int64_t chunk = ns <= NC ? r1 - r0 : (int64_t)(rb < CHUNK_BYTES ? CHUNK_BYTES / rb : 1);
        for (int64_t rc = r0; rc < r1; rc += chunk) {
            const int64_t re = r1 - rc < chunk ? r1 : rc + chunk;
            for (int c0 = 0; c0 < ns; c0 += NC) {
                const int nc = ns - c0 < NC ? ns - c0 : NC;
                for (int c = 0; c < nc; c++) {
                    x[c] = xq + (size_t)(cs + c0 + c) * xstride;
                    xd[c] = xdb + (size_t)(c0 + c) * (size_t)nb;
                }
                for (int64_t r = rc; r < re; r++) {
                    dot(w + (size_t)r * wrow_bytes, n, x, xd, nc, out);
                    for (int c = 0; c < nc; c++) {
                        y[(size_t)(cs + c0 + c) * ystride + (size_t)r] = out[c];
                    }
                }
            }
        }
    }
    free(xd_heap);
}

const strata_quant_ops NAME(strata_quant) = {STR(QUANT_VARIANT), NAME(dequant_row), NAME(gemm_rows)};

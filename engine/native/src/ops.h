/* ops.h — the operations of the forward pass (ops.c), as llama.cpp's ggml ops compute them:
 *  - strata_matmul: y[c][0..n_out) = W x[c] for c < ncols, W n_out rows of n_in values of wtype at w (a 2-D tensor, or
 *    one expert's slice of a 3-D one); x rows n_in floats xs apart, converted once to wtype's vec_dot type in xq
 *    (room for ncols rows: ncols × strata_row_bytes(vec_dot type, n_in) bytes); y rows ys apart; rows split over pool;
 *  - strata_rmsnorm: o = x / sqrt(mean(x²) + eps) · w (ggml_rms_norm: each square in float, their sum in double;
 *    then ggml_mul);
 *  - strata_rope: one head vector at position pos, theta_i = pos · base^(-2i/n_rot) (÷ rope_freqs[i] when the model has
 *    them; ggml_rope_ext without YaRN, the theta product in float as ggml_rope_cache_init); NEOX rotates pairs
 *    (i, i + n_rot/2), NORM pairs (2i, 2i+1), with the fused multiply-adds of llama.cpp's x86 FMA builds.
 * SwiGLU and the softmaxes are ggml_vec.h's. */
#ifndef STRATA_OPS_H
#define STRATA_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "gguf_map.h"
#include "model.h"
#include "threads.h"

/* ngemm4: the first ngemm4 columns are token rows that llama.cpp computes with its 4-row repacked GEMM (quant.h
 * STRATA_GEMM4), the others with its gemv / vec_dot. */
void strata_matmul(strata_pool *pool, uint8_t *xq, uint32_t wtype, const uint8_t *w, int64_t n_in, int64_t n_out,
                   const float *x, size_t xs, int ncols, int ngemm4, float *y, size_t ys);
/* strata_matmul of a 2-D weight tensor [n_in, n_out] on ncols contiguous rows of x into contiguous rows of y. */
void strata_matmul_t(strata_pool *pool, uint8_t *xq, const strata_gguf_tensor *t, const float *x, int ncols, int ngemm4,
                     float *y);
/* y[c][i] += b[i] for c < ncols, i < n (b: an f32 tensor; NULL: nothing) */
void strata_add_bias(float *y, const strata_gguf_tensor *b, int ncols, size_t n);
void strata_rmsnorm(float *o, const float *x, const float *w, size_t n, float eps);
void strata_rope(float *x, size_t pos, const strata_model *md);

#endif

/* ggml_vec.h — the few float loops of llama.cpp's CPU backend whose rounding strata-ref reproduces bit for bit
 * (ggml/src/ggml-cpu/vec.h, vec.cpp, simd-gemm.h, ops.cpp of the llama.cpp that node-llama-cpp 3.21.1 ships),
 * so that both engines feed the same floats to the 8-bit activation quantizers (q8_0 / q8_K) of the next matrix
 * product. llama.cpp's result depends on the instruction set of the CPU variant it loads (libggml-cpu-<variant>):
 * ggml_v_expf has one formula for AVX-512F+DQ (16 lanes, _mm512_scalef_ps), another for AVX2+FMA (8 lanes), and
 * the scalar libm expf where neither applies; strata_ggml_isa() names the one this CPU gets (chosen at first use;
 * STRATA_GGML_ISA=avx2|scalar forces a narrower one, for tests). */
#ifndef STRATA_GGML_VEC_H
#define STRATA_GGML_VEC_H

#include <stddef.h>
#include <stdint.h>

/* "avx512", "avx2" or "scalar". */
const char *strata_ggml_isa(void);

/* y[i] = silu(x[i]) * g[i], silu(x) = x / (1 + e^-x): ggml_vec_swiglu_f32 (the fused GLU op llama.cpp's
 * build_ffn uses for LLM_FFN_SILU + LLM_FFN_PAR). y may alias x. */
void strata_ggml_swiglu(float *y, const float *x, const float *g, size_t n);

/* y[i] = e^(x[i] - max), returns the sum in double: ggml_vec_soft_max_f32 (sum of per-vector float reductions).
 * y may alias x. */
double strata_ggml_soft_max(float *y, const float *x, size_t n, float max);

/* The two products of llama.cpp's tiled flash attention (ops.cpp ggml_compute_forward_flash_attn_ext_tiled, the
 * path of a ubatch of >= GGML_FA_TILE_Q = 64 query rows with f16 K/V; simd_gemm.h's order), for one query row and
 * one tile of 64 cells:
 *   kq: s[c] = scale * (fma chain over d = 0..hd-1 of kt[d*64 + c] * q[d], from 0), c < 64 (kt: the tile's K
 *       transposed, d-major, as llama.cpp packs it);
 *   v:  acc[d] = fma(v[c*hd + d], p[c], acc[d]) for c = 0..n-1 in order, d < hd (hd a multiple of 8). */
/* A tile's K and V records (cn <= 64 cells cell_bytes apart, hd fp16 values at koff / voff in each; hd a multiple
 * of 8) as the two products read them: kt[d*64 + c] (cells past cn 0), v[c*hd + d]. */
void strata_ggml_fa_pack(const uint8_t *cells, size_t cell_bytes, size_t koff, size_t voff, size_t cn, int hd,
                         float *kt, float *v);
void strata_ggml_fa_kq(const float *kt, int hd, const float *q, float scale, float s[64]);
void strata_ggml_fa_v(const float *v, size_t n, int hd, const float *p, float *acc);

/* llama.cpp's flash attention for a ubatch of fewer than 64 query rows (ops.cpp
 * ggml_compute_forward_flash_attn_ext_f16_one_chunk, f16 K/V) needs its f16 vector loops as an AVX-512 CPU runs them
 * (strata_ggml_isa() "avx512"; elsewhere these are not llama.cpp's order):
 *   dot_f16: ggml_vec_dot_f16 of hd fp16 records k and q16 (4 accumulators of 16 lanes, hd a multiple of 64);
 *   mad_f16: y[i] = f16(fma(v[i], s, y[i])) (ggml_vec_mad_f16); scale_f16: y[i] = f16(y[i] * s). */
float strata_ggml_dot_f16(const uint8_t *k, const uint16_t *q16, int hd);
void strata_ggml_mad_f16(uint16_t *y, const uint8_t *v, float s, int hd);
void strata_ggml_scale_f16(uint16_t *y, float s, int hd);

#endif

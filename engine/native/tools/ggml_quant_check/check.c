/* check.c — strata-ref's weight-type kernels against llama.cpp's own ggml CPU code on the same bytes (run.sh builds
 * it against a llama.cpp source tree; nothing of llama.cpp is copied here, it is linked).
 *
 * Weights: 512 rows of 1536 gaussian values quantized by ggml's reference quantizers; activations: 64 columns.
 * Reports, per type: activation blocks whose bytes differ from ggml's x86 quantize_row_q8_0 / q8_K; dequantized
 * values that differ from ggml's dequantize_row_*; strata_gemm_rows (ncols 1 and 64) against
 * ggml_vec_dot_*_q8_* (the AVX2 build): relative RMS difference and how many results are bit-identical.
 * Exit 1 when activations or dequantization differ at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "quant.h"
typedef uint16_t ggml_fp16_t;
void quantize_row_q8_0(const float *x, void *y, int64_t k);
void quantize_row_q8_K(const float *x, void *y, int64_t k);
void quantize_row_q4_0_ref(const float *x, void *y, int64_t k);
void quantize_row_q5_0_ref(const float *x, void *y, int64_t k);
void quantize_row_q8_0_ref(const float *x, void *y, int64_t k);
void quantize_row_q4_K_ref(const float *x, void *y, int64_t k);
void quantize_row_q5_K_ref(const float *x, void *y, int64_t k);
void quantize_row_q6_K_ref(const float *x, void *y, int64_t k);
void dequantize_row_q4_0(const void *x, float *y, int64_t k);
void dequantize_row_q5_0(const void *x, float *y, int64_t k);
void dequantize_row_q8_0(const void *x, float *y, int64_t k);
void dequantize_row_q4_K(const void *x, float *y, int64_t k);
void dequantize_row_q5_K(const void *x, float *y, int64_t k);
void dequantize_row_q6_K(const void *x, float *y, int64_t k);
typedef void (*vd)(int n, float *s, size_t bs, const void *vx, size_t bx, const void *vy, size_t by, int nrc);
void ggml_vec_dot_q4_0_q8_0(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q5_0_q8_0(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q8_0_q8_0(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q4_K_q8_K(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q5_K_q8_K(int, float *, size_t, const void *, size_t, const void *, size_t, int);
void ggml_vec_dot_q6_K_q8_K(int, float *, size_t, const void *, size_t, const void *, size_t, int);
static uint64_t rs = 12345;
static float nrand(void) { double u, v; rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; u = (double)(rs >> 11) / 9007199254740992.0 + 1e-12;
  rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; v = (double)(rs >> 11) / 9007199254740992.0; return (float)(sqrt(-2 * log(u)) * cos(6.283185307 * v)); }
int main(void) {
  struct { uint32_t t; void (*q)(const float *, void *, int64_t); void (*dq)(const void *, float *, int64_t); vd dot; } T[] = {
    {GGML_TYPE_Q8_0, quantize_row_q8_0_ref, dequantize_row_q8_0, ggml_vec_dot_q8_0_q8_0},
    {GGML_TYPE_Q4_0, quantize_row_q4_0_ref, dequantize_row_q4_0, ggml_vec_dot_q4_0_q8_0},
    {GGML_TYPE_Q5_0, quantize_row_q5_0_ref, dequantize_row_q5_0, ggml_vec_dot_q5_0_q8_0},
    {GGML_TYPE_Q4_K, quantize_row_q4_K_ref, dequantize_row_q4_K, ggml_vec_dot_q4_K_q8_K},
    {GGML_TYPE_Q5_K, quantize_row_q5_K_ref, dequantize_row_q5_K, ggml_vec_dot_q5_K_q8_K},
    {GGML_TYPE_Q6_K, quantize_row_q6_K_ref, dequantize_row_q6_K, ggml_vec_dot_q6_K_q8_K}};
  enum { N = 1536, R = 512, C = 64 };
  float *wf = malloc(sizeof(float) * N * R), *x = malloc(sizeof(float) * N * C), *a = malloc(4 * N), *b = malloc(4 * N);
  for (int i = 0; i < N * R; i++) wf[i] = nrand() * 0.02f;
  for (int i = 0; i < N * C; i++) x[i] = nrand() * (i % 101 == 0 ? 10 : 1);
  int bad = 0;
  for (int k = 0; k < 6; k++) {
    uint32_t t = T[k].t, vt = strata_type(t)->vec_dot_type;
    size_t rb = strata_row_bytes(t, N), xb = strata_row_bytes(vt, N);
    uint8_t *w = malloc(rb * R), *xs = malloc(xb * C), *xg = malloc(xb * C);
    for (int r = 0; r < R; r++) T[k].q(wf + (size_t)r * N, w + rb * r, N);
    int act_diff = 0;
    for (int c = 0; c < C; c++) {
      strata_quantize_act(vt, x + (size_t)c * N, xs + xb * c, N);
      if (vt == GGML_TYPE_Q8_0) quantize_row_q8_0(x + (size_t)c * N, xg + xb * c, N); else quantize_row_q8_K(x + (size_t)c * N, xg + xb * c, N);
      act_diff += memcmp(xs + xb * c, xg + xb * c, xb) != 0;
    }
    long deq_diff = 0; double deq_max = 0;
    for (int r = 0; r < R; r++) {
      strata_dequant_row(t, w + rb * r, a, N); T[k].dq(w + rb * r, b, N);
      for (int i = 0; i < N; i++) { if (a[i] != b[i]) deq_diff++; deq_max = fmax(deq_max, fabs(a[i] - b[i]) / (fabs(b[i]) + 1e-6)); }
    }
    bad += act_diff != 0 || deq_diff != 0;
    float *y = malloc(sizeof(float) * R * C);
    double maxrel = 0, sum_e = 0, sum_y = 0; int exact = 0;
    for (int nc = 1; nc <= C; nc += C - 1) {
      strata_gemm_rows(t, N, w, rb, 0, R, xg, xb, nc, y, R);
      for (int c = 0; c < nc; c++) for (int r = 0; r < R; r++) {
        float s; T[k].dot(N, &s, 0, w + rb * r, 0, xg + xb * c, 0, 1);
        double e = fabs(y[c * R + r] - s); exact += e == 0; sum_e += e * e; sum_y += (double)s * s;
        maxrel = fmax(maxrel, e / (fabs(s) + 1e-3));
      }
    }
    printf("%s: activations differing from ggml's (x86): %d of %d columns; dequant: %ld of %d values differ (max rel %.2g); "
           "gemm vs ggml_vec_dot: rms rel %.2g, max |e|/(|y|+1e-3) %.2g, %d of %d bit-identical\n",
           strata_type(t)->name, act_diff, C, deq_diff, N * R, deq_max, sqrt(sum_e / sum_y), maxrel, exact, R * (C + 1));
    free(w); free(xs); free(xg); free(y);
  }
  return bad ? 1 : 0;
}

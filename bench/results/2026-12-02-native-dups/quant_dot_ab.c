#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "quant.h"
#include "quant_kern.h"
#include "quant_rand.h"
dot_fn strata_quant_dot_baseold(uint32_t t);
dot_fn strata_quant_dot_basenew(uint32_t t);
static uint64_t rs = 88172645463325252ull;
static uint8_t rb(void) { return (uint8_t)xorshift64(&rs); }
static float rv(uint32_t t) { (void)t; return (float)((double)(xorshift64(&rs) >> 11) / 9007199254740992.0 * 2 - 1) * 0.05f; }
static uint16_t rsc(uint32_t t) { return strata_float_to_half(t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K || t == GGML_TYPE_Q6_K ? 1e-4f : 1e-3f); }
static double now(void) { struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); return ts.tv_sec + 1e-9 * ts.tv_nsec; }
int main(void) {
    const uint32_t ts[] = {GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_Q4_0, GGML_TYPE_Q5_0, GGML_TYPE_Q8_0};
    const char *nm[] = {"q4_K", "q5_K", "q6_K", "q4_0", "q5_0", "q8_0"};
    const int64_t n = 4096; const int rows = 64;
    for (int k = 0; k < 6; k++) {
        uint32_t t = ts[k];
        const uint32_t vt = (uint32_t)strata_type(t)->vec_dot_type;
        size_t wb = strata_row_bytes(t, n), xb = strata_row_bytes(vt, n);
        uint8_t *w = malloc(wb * rows), *xq = malloc(xb * 4);
        quant_fill(t, w, wb * rows, rb, rv, rsc);
        float *x = malloc(sizeof(float) * n);
        for (int c = 0; c < 4; c++) { for (int i = 0; i < n; i++) x[i] = rv(0) * 20; strata_quantize_act(vt, x, xq + xb * c, n); }
        const uint8_t *xs[4] = {xq, xq + xb, xq + 2 * xb, xq + 3 * xb};
        float *d = malloc(sizeof(float) * (size_t)(n / 32)); /* the q8_0 activations' block scales, as floats */
        for (int b = 0; b < n / 32; b++) d[b] = 0.01f;
        const float *xd[4] = {d, d, d, d};
        dot_fn f[2] = {strata_quant_dot_baseold(t), strata_quant_dot_basenew(t)};
        for (int nc = 1; nc <= 4; nc += 3) {
            double best[2] = {1e9, 1e9}; float out[2][4]; int same = 1;
            for (int rep = 0; rep < 30; rep++) for (int v = 0; v < 2; v++) {
                double t0 = now();
                for (int r = 0; r < rows; r++) f[v](w + wb * r, n, xs, xd, nc, out[v]);
                double dt = now() - t0; if (dt < best[v]) best[v] = dt;
            }
            for (int c = 0; c < nc; c++) same &= out[0][c] == out[1][c];
            printf("%s nc %d: old %.1f us new %.1f us new/old %.3f %s\n", nm[k], nc, best[0] * 1e6, best[1] * 1e6, best[1] / best[0], same ? "same result" : "DIFFERENT");
        }
    }
    return 0;
}

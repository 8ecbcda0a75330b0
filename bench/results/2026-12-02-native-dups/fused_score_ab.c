/* old vs new fused score kernels: bitwise equality and time, same run */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ref_internal.h"
extern const strata_fused_ops strata_fused_obase, strata_fused_nbase, strata_fused_oavx2, strata_fused_navx2;
static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }
static uint32_t rng = 12345;
static uint32_t rnd(void) { rng = rng * 1664525u + 1013904223u; return rng >> 8; }
static void halfrand(uint8_t *p) { /* a small positive/negative half: exponent 0x30..0x3b */
    uint16_t h = (uint16_t)(((rnd() & 1) << 15) | ((0x30 + rnd() % 12) << 10) | (rnd() & 0x3ff)); memcpy(p, &h, 2); }
int main(int argc, char **argv) {
    const int heads = 2, hd = 256; const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 4099;
    const size_t rec8 = hd + 2 * (hd / 64), rec4 = 144;
    const strata_fused_ops *pairs[2][2] = {{&strata_fused_obase, &strata_fused_nbase}, {&strata_fused_oavx2, &strata_fused_navx2}};
    for (int fmt = 0; fmt < 2; fmt++) {
        size_t rec = fmt == 0 ? rec8 : rec4, cell = 2 * heads * rec;
        uint8_t *cells = malloc(n * cell);
        for (size_t i = 0; i < n * cell; i++) cells[i] = (uint8_t)rnd();
        for (size_t t = 0; t < n; t++) for (int k = 0; k < 2 * heads; k++) {
            uint8_t *r = cells + t * cell + k * rec;
            if (fmt == 0) for (int g = 0; g < hd / 64; g++) halfrand(r + hd + 2 * g);
            else for (int b = 0; b < 8; b++) halfrand(r + b * 18);
        }
        float qf[2 * 256]; for (int i = 0; i < heads * hd; i++) qf[i] = (float)((int)(rnd() % 2001) - 1000) / 997.0f;
        for (int v = 0; v < 2; v++) {
            strata_qq qq[2];
            pairs[v][0]->quant_query(fmt == 0 ? KV_INT8 : KV_Q4_0, qf, heads, hd, qq);
            float *so = malloc(n * heads * 4), *sn = malloc(n * heads * 4);
            double to = 1e9, tn = 1e9;
            for (int rep = 0; rep < 15; rep++) {
                for (int w = 0; w < 2; w++) {
                    const strata_fused_ops *o = pairs[v][w]; float *s = w ? sn : so;
                    double t0 = now();
                    for (int k = 0; k < 20; k++) (fmt == 0 ? o->score_int8 : o->score_q4)(cells, cell, n, heads, hd, qq, 0.0625f, s);
                    double dt = now() - t0; if (w) { if (dt < tn) tn = dt; } else if (dt < to) to = dt;
                }
            }
            printf("%s %s: %s, old %.3f ms new %.3f ms new/old %.3f\n", fmt == 0 ? "int8" : "q4_0", v ? "avx2" : "base",
                   memcmp(so, sn, n * heads * 4) == 0 ? "bit-identical" : "DIFFER", to * 50, tn * 50, tn / to);
            free(so); free(sn);
        }
        free(cells);
    }
    return 0;
}

/* quant_test_gemm.c — quant_test's section 4 (quant_test.c): each variant's strata_gemm_rows against double
 * references, the variants against each other, and from several threads at once. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quant.h"
#include "quant_impl.h"
#include "quant_test.h"

/* ---- 4. gemm_rows ---- */
typedef struct {
    double worst_a, worst_b; /* largest error / bound seen */
} gemm_stats;

/* Largest error of one dequantized activation value of column x (quantized as vt) at value i: see the top. */
static double act_err(uint32_t vt, const uint8_t *xq, int64_t i) {
    if (vt == GGML_TYPE_Q8_0) {
        return ref_half(ld16(xq + 34 * (i / 32))) * (0.5 + 127.0 / 2048.0);
    }
    if (vt == GGML_TYPE_Q8_K) {
        float d;
        memcpy(&d, xq + 292 * (i / 256), 4);
        return fabs(d) * (0.5 + 1.0 / 1048576.0);
    }
    return 0.0;
}

/* The operands of a gemm: rows random rows of type t (strata_row_bytes(t, n) bytes each) into w, and nc rows of
 * normal draws quantized to t's vec_dot type (strata_row_bytes(vt, n) bytes each) into xq. */
static void rand_operands(uint32_t t, int64_t n, int rows, uint8_t *w, int nc, uint8_t *xq) {
    const uint32_t vt = (uint32_t)strata_type(t)->vec_dot_type;
    const size_t rb = strata_row_bytes(t, n), xb = strata_row_bytes(vt, n);
    float *x = malloc(sizeof(float) * (size_t)n);
    for (int r = 0; r < rows; r++) {
        rand_row(t, w + rb * (size_t)r, n);
    }
    for (int c = 0; c < nc; c++) {
        for (int64_t i = 0; i < n; i++) {
            x[i] = nrand();
        }
        strata_quantize_act(vt, x, xq + xb * (size_t)c, n);
    }
    free(x);
}

/* Runs gemm_rows of variant ops on R random rows of type t, n values, ncols columns, and checks (a) and (b);
 * corrupt: flip bits of one scale first and expect (a) to fail instead. */
static void gemm_case(const strata_quant_ops *ops, uint32_t t, int64_t n, int R, int ncols, int corrupt,
                      gemm_stats *st) {
    const uint32_t vt = (uint32_t)strata_type(t)->vec_dot_type;
    const size_t rb = strata_row_bytes(t, n), wrow = rb + 5, xb = strata_row_bytes(vt, n), xs = xb + 3;
    const size_t ystride = (size_t)R + 2;
    uint8_t *wmem = malloc(wrow * (size_t)R + 1), *w = wmem + 1; /* rows at odd addresses */
    uint8_t *xmem = malloc(xs * (size_t)ncols + 1), *xq = xmem + 1;
    float *x = malloc(sizeof(float) * (size_t)n * (size_t)ncols);
    float *y = malloc(sizeof(float) * ystride * (size_t)ncols);
    double *wd = malloc(sizeof(double) * (size_t)n * (size_t)R), *wm = malloc(sizeof(double) * (size_t)n * (size_t)R);
    for (int r = 0; r < R; r++) {
        rand_row(t, w + (size_t)r * wrow, n);
        for (int64_t i = 0; i < n; i++) {
            const size_t k = (size_t)r * (size_t)n + (size_t)i;
            wd[k] = ref_value(t, w + (size_t)r * wrow, i, &wm[k]);
        }
    }
    for (int c = 0; c < ncols; c++) {
        for (int64_t i = 0; i < n; i++) {
            x[(size_t)c * (size_t)n + (size_t)i] = nrand() * (i % 61 == 0 ? 8.0f : 1.0f);
        }
        strata_quantize_act(vt, x + (size_t)c * (size_t)n, xq + (size_t)c * xs, n);
    }
    if (corrupt) { /* one scale of row R/2: q4_K/q5_K scale byte 0 of block 0, q6_K scales[3], else d */
        uint8_t *p = w + (size_t)(R / 2) * wrow;
        if (t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K) {
            p[4] ^= 0x05;
        } else if (t == GGML_TYPE_Q6_K) {
            p[192 + 3] ^= 0x05;
        } else {
            p[1] ^= 0x04;
        }
    }
    for (size_t i = 0; i < ystride * (size_t)ncols; i++) {
        y[i] = -777.0f;
    }
    const int r0 = R > 2 ? 1 : 0, r1 = R > 3 ? R - 1 : R;
    ops->gemm_rows(t, n, w, wrow, r0, r1, xq, xs, ncols, y, ystride);
    int bad_a = 0, bad_b = 0, bad_range = 0;
    for (int c = 0; c < ncols; c++) {
        const uint8_t *xc = xq + (size_t)c * xs;
        for (int r = 0; r < (int)ystride; r++) {
            const float got = y[(size_t)c * ystride + (size_t)r];
            if (r < r0 || r >= r1) {
                bad_range += got != -777.0f;
                continue;
            }
            double ra = 0, ma = 0, rf = 0, mf = 0, eb = 0;
            for (int64_t i = 0; i < n; i++) {
                double dummy, xv = ref_value(vt, xc, i, &dummy), xf = x[(size_t)c * (size_t)n + (size_t)i];
                double wv = wd[(size_t)r * (size_t)n + (size_t)i], wmag = wm[(size_t)r * (size_t)n + (size_t)i];
                ra += wv * xv;
                ma += fabs(wmag * xv);
                rf += wv * xf;
                mf += fabs(wmag * xf);
                eb += fabs(wv) * act_err(vt, xc, i);
            }
            const double ba = 1e-5 * ma + 1e-30, bb = eb + 1e-5 * mf + 1e-30;
            const double ea = fabs(got - ra), e_b = fabs(got - rf);
            if (!(ea <= ba)) {
                if (!corrupt && bad_a < 3) {
                    fprintf(stderr, "  %s %s n=%lld ncols=%d row %d col %d: %.9g vs %.9g (bound %.3g)\n", ops->isa,
                            strata_type(t)->name, (long long)n, ncols, r, c, got, ra, ba);
                }
                bad_a++;
            }
            bad_b += !(e_b <= bb);
            st->worst_a = fmax(st->worst_a, ea / ba);
            st->worst_b = fmax(st->worst_b, e_b / bb);
        }
    }
    /* every column alone (ncols = 1) gives the same bits as inside the batch: a prompt evaluated in one batch
     * and token by token see the same products */
    int bad_alone = 0;
    for (int c = 0; c < ncols && !corrupt; c++) {
        float one[16];
        ops->gemm_rows(t, n, w, wrow, r0, r1, xq + (size_t)c * xs, xs, 1, one, 0);
        for (int r = r0; r < r1; r++) {
            bad_alone += memcmp(&one[r], &y[(size_t)c * ystride + (size_t)r], sizeof(float)) != 0;
        }
    }
    CHECK(bad_alone == 0, "gemm %s (%s) ncols=%d: %d outputs differ from the same column alone", strata_type(t)->name,
          ops->isa, ncols, bad_alone);
    if (corrupt) {
        CHECK(bad_a > 0, "a corrupted %s scale went unnoticed (%s)", strata_type(t)->name, ops->isa);
    } else {
        CHECK(bad_a == 0 && bad_b == 0 && bad_range == 0,
              "gemm %s (%s) n=%lld ncols=%d: %d off exact, %d off the activation bound, %d written outside",
              strata_type(t)->name, ops->isa, (long long)n, ncols, bad_a, bad_b, bad_range);
    }
    free(wmem);
    free(xmem);
    free(x);
    free(y);
    free(wd);
    free(wm);
}

void test_gemm(int quick) {
    const int ncols_list[] = {1, 2, 3, 4, 5, 9, 64};
    for (int v = 0; v < n_variants; v++) {
        for (size_t k = 0; k < N_COMPUTABLE; k++) {
            const uint32_t t = COMPUTABLE[k];
            const uint32_t blk = strata_type(t)->block;
            /* block counts odd and even; float rows with a tail that is not a multiple of 16 */
            const int64_t ns[] = {blk == 1 ? 37 : blk == 32 ? 544 : 256, blk == 1 ? 512 : blk == 32 ? 512 : 768};
            gemm_stats st = {0, 0};
            for (int ni = 0; ni < 2; ni++) {
                for (size_t ci = 0; ci < sizeof ncols_list / sizeof ncols_list[0]; ci++) {
                    if (quick && ncols_list[ci] == 64 && ni == 1) {
                        continue;
                    }
                    gemm_case(variants[v], t, ns[ni], ncols_list[ci] == 64 ? 3 : 7, ncols_list[ci], 0, &st);
                }
            }
            if (blk == 32) { /* the activation scales in column slices (n 6400, 64 columns) and on the heap (n 35200) */
                gemm_case(variants[v], t, 6400, 3, 64, 0, &st);
                gemm_case(variants[v], t, 35200, 3, 5, 0, &st);
            }
            printf("quant_test: gemm %-5s %-4s worst error / bound: exact %.3f, activation-quantized %.3f\n",
                   strata_type(t)->name, variants[v]->isa, st.worst_a, st.worst_b);
            if (t != GGML_TYPE_F32 && t != GGML_TYPE_BF16 && t != GGML_TYPE_F16) {
                gemm_case(variants[v], t, ns[1], 5, 2, 1, &st);
            }
        }
    }
    /* the variants agree with each other through the public entry point */
    if (n_variants == 2) {
        for (size_t k = 0; k < N_COMPUTABLE; k++) {
            const uint32_t t = COMPUTABLE[k], vt = (uint32_t)strata_type(t)->vec_dot_type;
            const int64_t n = 1024;
            const int R = 16, nc = 6;
            const size_t rb = strata_row_bytes(t, n), xb = strata_row_bytes(vt, n);
            uint8_t *w = malloc(rb * R), *xq = malloc(xb * nc);
            float y0[16 * 6], y1[16 * 6];
            rand_operands(t, n, R, w, nc, xq);
            variants[0]->gemm_rows(t, n, w, rb, 0, R, xq, xb, nc, y0, R);
            strata_gemm_rows(t, n, w, rb, 0, R, xq, xb, nc, y1, R);
            double worst = 0; /* |difference| / sum_i |w_i xq_i| of the output, at most 2e-5 (twice (a)) */
            for (int c = 0; c < nc; c++) {
                for (int r = 0; r < R; r++) {
                    double m = 0, dm, dw;
                    for (int64_t i = 0; i < n; i++) {
                        ref_value(t, w + rb * (size_t)r, i, &dw);
                        m += dw * fabs(ref_value(vt, xq + xb * (size_t)c, i, &dm));
                    }
                    worst = fmax(worst, fabs(y0[c * R + r] - y1[c * R + r]) / (m + 1e-30));
                }
            }
            CHECK(worst <= 2e-5, "%s: base and %s differ by %g (relative to sum |w x|)", strata_type(t)->name,
                  strata_quant_isa(), worst);
            free(w);
            free(xq);
        }
    }
    float y[4] = {1, 1, 1, 1};
    uint8_t dummy[256] = {0};
    strata_gemm_rows(GGML_TYPE_Q3_K, 256, dummy, 110, 0, 2, dummy, 292, 2, y, 2);
    CHECK(isnan(y[0]) && isnan(y[3]), "gemm of a type strata-ref does not compute writes NaN");
}

/* ---- 4b. threads: the forward pass calls gemm_rows from several threads on disjoint row ranges; the first
 * calls (which pick the variant) race on purpose ---- */
typedef struct {
    const uint8_t *w, *xq;
    size_t rb, xb;
    int64_t n, r0, r1;
    int nc;
    float *y;
    size_t ys;
} thr_job;
static void *thr_run(void *p) {
    const thr_job *j = p;
    for (int rep = 0; rep < 20; rep++) {
        strata_gemm_rows(GGML_TYPE_Q4_K, j->n, j->w, j->rb, j->r0, j->r1, j->xq, j->xb, j->nc, j->y, j->ys);
    }
    return NULL;
}
void test_threads(void) {
    enum { T = 4, R = 64, NC = 5 };
    const int64_t n = 512;
    const size_t rb = strata_row_bytes(GGML_TYPE_Q4_K, n), xb = strata_row_bytes(GGML_TYPE_Q8_K, n);
    uint8_t *w = malloc(rb * R), *xq = malloc(xb * NC);
    float *y = malloc(sizeof(float) * R * NC), *y1 = malloc(sizeof(float) * R * NC);
    rand_operands(GGML_TYPE_Q4_K, n, R, w, NC, xq);
    pthread_t th[T];
    thr_job jobs[T];
    for (int t = 0; t < T; t++) {
        jobs[t] = (thr_job){w, xq, rb, xb, n, (int64_t)t * R / T, (int64_t)(t + 1) * R / T, NC, y, R};
        pthread_create(&th[t], NULL, thr_run, &jobs[t]);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
    }
    strata_gemm_rows(GGML_TYPE_Q4_K, n, w, rb, 0, R, xq, xb, NC, y1, R);
    CHECK(memcmp(y, y1, sizeof(float) * R * NC) == 0, "4 threads on disjoint rows = one call");
    free(w);
    free(xq);
    free(y);
    free(y1);
}


/* quant_bench.c — strata_gemm_rows throughput per weight type (bench/quant/run.sh builds and runs it).
 *
 * For each computable type and each shape (n values per row × rows: 512 × 1536 is ffn_gate/up of tiny-qwen3,
 * 1536 × 512 its ffn_down) and ncols 1 and 64, one thread, rows [0, rows):
 *   hot:    the same matrix again and again (it stays in L2/L3: the kernel's own speed);
 *   stream: a ring of copies of the matrix totalling >= 128 MB, one after the other (every call reads its
 *           weights from DRAM, as a decode over a real model does).
 * GB/s = weight bytes read / time per call (the best of 5 timed runs of >= 60 ms each); time is this thread's
 * CPU time, not wall time: the machine is shared, and wall time would count the slices other processes held the
 * core (memory bandwidth stays shared either way). Beside them, memcpy in
 * the same run: of a matrix-sized buffer (hot) and of 128 MB (DRAM), counted as bytes copied per second (each byte is
 * read and written), and a plain read of 128 MB (the ceiling for a stream that only reads). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "half.h"
#include "quant.h"
#include "../wordsum.h"
#include "../../engine/native/test/quant_rand.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { return xorshift64(&rs); }
static float frand(void) { return (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.0 - 1.0); }

/* a matrix of random codes with finite, realistic scales (the values do not change the speed, NaNs could) */
static uint8_t rand_byte(void) { return (uint8_t)rnd(); }
static float rand_value(uint32_t t) {
    (void)t;
    return frand() * 0.05f;
}
static uint16_t rand_scale(uint32_t t) {
    const int k_quant = t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K || t == GGML_TYPE_Q6_K;
    return strata_float_to_half(k_quant ? 1e-4f : 1e-3f);
}
static void fill(uint32_t t, uint8_t *m, size_t bytes) { quant_fill(t, m, bytes, rand_byte, rand_value, rand_scale); }

typedef struct {
    uint32_t t;
    int64_t n, rows;
    int ncols;
    uint8_t **mats;
    int nmats;
    size_t rb;
    uint8_t *xq;
    size_t xs;
    float *y;
} job;

static double best_seconds_per_call(job *j) {
    double best = 1e30;
    int calls = 1;
    for (int run = 0; run < 5; run++) {
        double t0, el;
        for (;;) {
            t0 = now();
            for (int k = 0; k < calls; k++) {
                strata_gemm_rows(j->t, j->n, j->mats[k % j->nmats], j->rb, 0, j->rows, j->xq, j->xs, j->ncols, j->y,
                                 (size_t)j->rows);
            }
            el = now() - t0;
            if (el >= 0.06) {
                break;
            }
            calls = calls * 2 > j->nmats && j->nmats > 1 ? calls + j->nmats : calls * 2;
        }
        if (el / calls < best) {
            best = el / calls;
        }
    }
    return best;
}

static double memcpy_gbs(size_t bytes) {
    uint8_t *a = malloc(bytes), *b = malloc(bytes);
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        int calls = 0;
        double t0 = now(), el;
        do {
            memcpy(calls & 1 ? a : b, calls & 1 ? b : a, bytes);
            calls++;
            el = now() - t0;
        } while (el < 0.06);
        if (el / calls < best) {
            best = el / calls;
        }
    }
    volatile uint8_t sink = a[bytes / 2] ^ b[bytes / 3];
    (void)sink;
    free(a);
    free(b);
    return (double)bytes / best / 1e9;
}

/* A plain read of the same 128 MB (the sum of its 64-bit words, four chains): what a kernel that only reads
 * its weights can reach from DRAM on this machine; memcpy also writes, so it moves twice the bytes. */
static double read_gbs(size_t bytes) {
    uint64_t *a = malloc(bytes);
    memset(a, 3, bytes);
    const size_t nw = bytes / 8;
    double best = 1e30;
    uint64_t total = 0;
    for (int run = 0; run < 5; run++) {
        int calls = 0;
        double t0 = now(), el;
        do {
            total += strata_bench_sum_words(a, nw);
            calls++;
            el = now() - t0;
        } while (el < 0.06);
        if (el / calls < best) {
            best = el / calls;
        }
    }
    volatile uint64_t sink = total;
    (void)sink;
    free(a);
    return (double)bytes / best / 1e9;
}

int main(int argc, char **argv) { /* quant_bench [type ...]: only those types */
    const uint32_t types[] = {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q5_0,
                              GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K};
    const int64_t shapes[2][2] = {{512, 1536}, {1536, 512}};
    const size_t RING = (size_t)128 << 20;
    printf("gemm_rows isa: %s, 1 thread\n", strata_quant_isa());
    printf("memcpy: hot 1.5 MB %.1f GB/s, DRAM 128 MB %.1f GB/s (bytes copied per second); plain read of 128 MB: "
           "%.1f GB/s\n\n",
           memcpy_gbs((size_t)1536 * 512 * 2), memcpy_gbs(RING), read_gbs(RING));
    printf("| type | n × rows | bytes | ncols 1 hot GB/s | ncols 1 stream GB/s | ncols 64 hot GB/s "
           "| ncols 64 hot GFLOP/s |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const uint32_t t = types[ti], vt = (uint32_t)strata_type(t)->vec_dot_type;
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) {
            wanted |= strcmp(argv[a], strata_type(t)->name) == 0;
        }
        if (!wanted) {
            continue;
        }
        for (int s = 0; s < 2; s++) {
            const int64_t n = shapes[s][0], rows = shapes[s][1];
            const size_t rb = strata_row_bytes(t, n), mb = rb * (size_t)rows;
            int nmats = (int)(RING / mb) + 1;
            uint8_t **mats = malloc(sizeof(uint8_t *) * (size_t)nmats);
            for (int k = 0; k < nmats; k++) {
                mats[k] = malloc(mb);
                if (k == 0) {
                    fill(t, mats[0], mb);
                } else {
                    memcpy(mats[k], mats[0], mb);
                }
            }
            const size_t xs = strata_row_bytes(vt, n);
            uint8_t *xq = malloc(xs * 64);
            float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)rows * 64);
            for (int c = 0; c < 64; c++) {
                for (int64_t i = 0; i < n; i++) {
                    x[i] = frand();
                }
                strata_quantize_act(vt, x, xq + xs * (size_t)c, n);
            }
            job hot1 = {t, n, rows, 1, mats, 1, rb, xq, xs, y};
            job str1 = {t, n, rows, 1, mats, nmats, rb, xq, xs, y};
            job hot64 = {t, n, rows, 64, mats, 1, rb, xq, xs, y};
            const double h1 = best_seconds_per_call(&hot1), s1 = best_seconds_per_call(&str1);
            const double h64 = best_seconds_per_call(&hot64);
            printf("| %s | %lld × %lld | %zu | %.1f | %.1f | %.1f | %.1f |\n", strata_type(t)->name, (long long)n,
                   (long long)rows, mb, (double)mb / h1 / 1e9, (double)mb / s1 / 1e9, (double)mb / h64 / 1e9,
                   2.0 * (double)n * (double)rows * 64 / h64 / 1e9);
            fflush(stdout);
            for (int k = 0; k < nmats; k++) {
                free(mats[k]);
            }
            free(mats);
            free(xq);
            free(x);
            free(y);
        }
    }
    return 0;
}

/* bandwidth.c — the machine's read bandwidth as decode sees it: T threads each summing its part of a 512 MiB
 * buffer (8-byte words, every cache line), best of 5 passes. Prints GB/s (10^9 bytes per second).
 *   cc -O2 -pthread bandwidth.c -o bandwidth && ./bandwidth T */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../wordsum.h"

#define BYTES (512u << 20)
static uint64_t *buf;
static int threads;
static volatile uint64_t sink;

static void *part(void *arg) {
    size_t t = (size_t)arg, n = BYTES / 8 / (size_t)threads;
    const uint64_t *p = buf + t * n;
    sink += strata_bench_sum_words(p, n);
    return NULL;
}

int main(int argc, char **argv) {
    threads = argc > 1 ? atoi(argv[1]) : 1;
    if (threads < 1 || threads > 64) {
        return 2;
    }
    buf = malloc(BYTES);
    memset(buf, 1, BYTES);
    double best = 0.0;
    for (int r = 0; r < 5; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pthread_t th[64];
        for (int t = 0; t < threads; t++) {
            pthread_create(&th[t], NULL, part, (void *)(size_t)t);
        }
        for (int t = 0; t < threads; t++) {
            pthread_join(th[t], NULL);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        double gbs = (double)BYTES / s / 1e9;
        best = gbs > best ? gbs : best;
    }
    printf("%.2f\n", best);
    return 0;
}

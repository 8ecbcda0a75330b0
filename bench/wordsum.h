/* bench/wordsum.h — the read loop the bandwidth benchmarks share (bench/inference/bandwidth.c, bench/quant/quant_bench.c):
 * the sum of n 64-bit words, in four independent accumulators so the loop is bound by memory, not by one add chain.
 * n is rounded down to a multiple of 4. */
#ifndef STRATA_BENCH_WORDSUM_H
#define STRATA_BENCH_WORDSUM_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t strata_bench_sum_words(const uint64_t *p, size_t n) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        s0 += p[i];
        s1 += p[i + 1];
        s2 += p[i + 2];
        s3 += p[i + 3];
    }
    return s0 + s1 + s2 + s3;
}

#endif

/* testkit.h — what the native test programs share: CHECK (check.h: counts the check; a failure is reported with its
 * file and line on stderr and the test goes on), its counters `fails` and `checks`, a seeded splitmix64 `rnd` (seed it through
 * `rnd_state`) and a monotonic clock `now_s`. The file with main includes it as it is; a program's further files
 * define TESTKIT_PART first and count into the same counters. The including file defines _POSIX_C_SOURCE first
 * (clock_gettime). */
#ifndef STRATA_TESTKIT_H
#define STRATA_TESTKIT_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef TESTKIT_PART /* a further file of a test program: the counters are its main file's */
extern int fails, checks;
#else
int fails = 0, checks = 0;
#endif
#include "check.h" /* CHECK */

static uint64_t rnd_state __attribute__((unused));

/* splitmix64 (Steele, Lea, Flood 2014): the next of the sequence seeded by rnd_state */
static inline uint64_t rnd(void) {
    uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* seconds on the monotonic clock */
static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif

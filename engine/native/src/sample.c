/* sample.c — token sampling (sample.h). */
#include "sample.h"

#include <math.h>
#include <stdlib.h>

static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct {
    float v;
    int32_t id;
} cand;

static int by_value_desc(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->v != y->v) {
        return x->v > y->v ? -1 : 1;
    }
    return x->id < y->id ? -1 : x->id > y->id;
}

int32_t strata_sample(const float *logits, int32_t n, float temp, int32_t top_k, float top_p, uint64_t *rng) {
    int32_t best = 0;
    for (int32_t i = 1; i < n; i++) {
        if (logits[i] > logits[best]) {
            best = i;
        }
    }
    if (!(temp > 0.0f) || n == 1) {
        return best;
    }
    cand *c = malloc((size_t)n * sizeof *c);
    if (c == NULL) {
        return best;
    }
    for (int32_t i = 0; i < n; i++) {
        c[i].v = logits[i];
        c[i].id = i;
    }
    qsort(c, (size_t)n, sizeof *c, by_value_desc);
    int32_t k = top_k > 0 && top_k < n ? top_k : n;
    double sum = 0.0;
    for (int32_t i = 0; i < k; i++) {
        c[i].v = (float)exp((double)(c[i].v - c[0].v) / (double)temp);
        sum += c[i].v;
    }
    if (top_p < 1.0f) {
        double acc = 0.0;
        int32_t keep = k;
        for (int32_t i = 0; i < k; i++) {
            acc += c[i].v / sum;
            if (acc >= (double)top_p) {
                keep = i + 1;
                break;
            }
        }
        k = keep;
        sum = 0.0;
        for (int32_t i = 0; i < k; i++) {
            sum += c[i].v;
        }
    }
    double r = (double)(next(rng) >> 11) * (1.0 / 9007199254740992.0) * sum;
    int32_t pick = c[k - 1].id;
    double acc = 0.0;
    for (int32_t i = 0; i < k; i++) {
        acc += c[i].v;
        if (r < acc) {
            pick = c[i].id;
            break;
        }
    }
    free(c);
    return pick;
}

/* sample.h — picking the next token from logits: greedy, or temperature + top-k + top-p (nucleus) with a splitmix64
 * stream, the samplers llama.cpp users know (common/sampling.cpp's top_k → top_p → temp → dist order reduced to
 * what strata-launch exposes). */
#ifndef STRATA_SAMPLE_H
#define STRATA_SAMPLE_H

#include <stdint.h>

/* temp <= 0: the largest logit (the lowest id among equal maxima). Else softmax(logits / temp) over the top_k
 * largest (top_k <= 0 or >= n: all), cut to the smallest prefix whose probability reaches top_p (>= 1: no cut),
 * renormalized and drawn with *rng (advanced). n >= 1. */
int32_t strata_sample(const float *logits, int32_t n, float temp, int32_t top_k, float top_p, uint64_t *rng);

#endif

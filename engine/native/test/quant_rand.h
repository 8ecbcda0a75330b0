/* quant_rand.h — the random stream and the random weight blocks of quant_test.c (random rows) and
 * bench/quant/quant_bench.c (matrices to time); each keeps its own seed and draws.
 *
 * quant_fill: random blocks of a ggml weight type whose every float field is finite: random code bytes, then the
 * fields ggml-common.h gives each block type overwritten:
 *
 *   f32, f16, bf16  a block is one value: value(t) stored as f32, rounded to f16, or truncated to bf16
 *   q4_0 q5_0 q8_0  d (bytes 0-1) = scale(t)
 *   q4_K q5_K       d (bytes 0-1) = scale(t), then dmin (bytes 2-3) = scale(t)
 *   q6_K            d (bytes 208-209) = scale(t)
 *
 * Other types keep their random bytes. bytes is a whole number of blocks of t. */
#ifndef STRATA_QUANT_RAND_H
#define STRATA_QUANT_RAND_H

#include <stdint.h>
#include <string.h>

#include "half.h"
#include "quant.h"

/* xorshift64 (Marsaglia, "Xorshift RNGs", 2003: shifts 13, 7, 17); *s must not be 0. */
static inline uint64_t xorshift64(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline void quant_fill(uint32_t t, uint8_t *m, size_t bytes, uint8_t (*byte)(void), float (*value)(uint32_t t),
                              uint16_t (*scale)(uint32_t t)) {
    for (size_t i = 0; i < bytes; i++) {
        m[i] = byte();
    }
    const strata_type_info *ti = strata_type(t);
    for (size_t b = 0; b < bytes / ti->bytes; b++) {
        uint8_t *p = m + b * ti->bytes;
        switch (t) {
        case GGML_TYPE_F32: {
            float f = value(t);
            memcpy(p, &f, 4);
            break;
        }
        case GGML_TYPE_F16: strata_store_u16le(p, strata_float_to_half(value(t))); break;
        case GGML_TYPE_BF16: {
            float f = value(t);
            uint32_t u;
            memcpy(&u, &f, 4);
            strata_store_u16le(p, (uint16_t)(u >> 16));
            break;
        }
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q5_0: strata_store_u16le(p, scale(t)); break;
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
            strata_store_u16le(p, scale(t));
            strata_store_u16le(p + 2, scale(t));
            break;
        case GGML_TYPE_Q6_K: strata_store_u16le(p + 208, scale(t)); break;
        default: break;
        }
    }
}

#endif

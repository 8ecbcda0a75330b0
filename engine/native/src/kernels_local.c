/* kernels_local.c — the vector-record codecs of DESIGN §3, compiled only while the kernels module's
 * libstrata_kernels.a is absent (see src/compat/strata_kernels.h). Formats: 0 fp16, 1 int8, 2 q4_0. */
#include <math.h>
#include <string.h>

#include "half.h"
#include "ref_internal.h"
#include "strata_kernels.h"

size_t strata_kernels_record_bytes(int format, int head_dim) {
    if (head_dim <= 0) {
        return 0;
    }
    switch (format) {
    case 0:
        return 2u * (size_t)head_dim;
    case 1:
        return head_dim % 64 ? 0 : (size_t)head_dim + 2u * (size_t)(head_dim / 64);
    case 2:
        return head_dim != 256 ? 0 : (size_t)(head_dim / 32) * 18u;
    default:
        return 0; /* k8v4 has no single vector record */
    }
}

static void enc_int8(const float *x, int hd, uint8_t *dst) {
    for (int g = 0; g < hd / 64; g++) {
        const float *v = x + g * 64;
        float amax = 0.0f;
        for (int i = 0; i < 64; i++) {
            float a = fabsf(v[i]);
            amax = a > amax ? a : amax;
        }
        float d = amax / 127.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        for (int i = 0; i < 64; i++) {
            float c = roundf(v[i] * id);
            c = c > 127.0f ? 127.0f : (c < -127.0f ? -127.0f : c);
            dst[g * 64 + i] = (uint8_t)(int8_t)c;
        }
        strata_store_u16le(dst + hd + 2 * g, strata_float_to_half(d));
    }
}

static void dec_int8(const uint8_t *src, int hd, float *x) {
    for (int g = 0; g < hd / 64; g++) {
        float d = strata_half_to_float(strata_load_u16le(src + hd + 2 * g));
        for (int i = 0; i < 64; i++) {
            x[g * 64 + i] = (float)(int8_t)src[g * 64 + i] * d;
        }
    }
}

static void enc_q4(const float *x, uint8_t *dst) {
    float r[256];
    memcpy(r, x, sizeof r);
    strata_fwht256(r);
    for (int b = 0; b < 8; b++) {
        const float *v = r + b * 32;
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < 32; j++) {
            if (fabsf(v[j]) > amax) {
                amax = fabsf(v[j]);
                max = v[j];
            }
        }
        float d = max / -8.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        uint8_t *blk = dst + b * 18;
        strata_store_u16le(blk, strata_float_to_half(d));
        for (int j = 0; j < 16; j++) {
            int lo = (int)(v[j] * id + 8.5f);
            int hi = (int)(v[j + 16] * id + 8.5f);
            lo = lo > 15 ? 15 : (lo < 0 ? 0 : lo);
            hi = hi > 15 ? 15 : (hi < 0 ? 0 : hi);
            blk[2 + j] = (uint8_t)(lo | (hi << 4));
        }
    }
}

static void dec_q4(const uint8_t *src, float *x) {
    for (int b = 0; b < 8; b++) {
        const uint8_t *blk = src + b * 18;
        float d = strata_half_to_float(strata_load_u16le(blk));
        for (int j = 0; j < 16; j++) {
            x[b * 32 + j] = (float)((blk[2 + j] & 0x0f) - 8) * d;
            x[b * 32 + j + 16] = (float)((blk[2 + j] >> 4) - 8) * d;
        }
    }
    strata_fwht256(x);
}

int strata_kernels_encode(int format, const float *src, size_t n_vectors, int head_dim, uint8_t *dst) {
    size_t rec = strata_kernels_record_bytes(format, head_dim);
    if (rec == 0) {
        return format < 0 || format > 2 ? -1 : -2;
    }
    if (n_vectors > 0 && (src == NULL || dst == NULL)) {
        return -3;
    }
    for (size_t i = 0; i < n_vectors; i++) {
        const float *x = src + i * (size_t)head_dim;
        uint8_t *out = dst + i * rec;
        switch (format) {
        case 0:
            for (int k = 0; k < head_dim; k++) {
                strata_store_u16le(out + 2 * k, strata_float_to_half(x[k]));
            }
            break;
        case 1:
            enc_int8(x, head_dim, out);
            break;
        default:
            enc_q4(x, out);
            break;
        }
    }
    return 0;
}

int strata_kernels_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim, float *dst) {
    size_t rec = strata_kernels_record_bytes(format, head_dim);
    if (rec == 0) {
        return format < 0 || format > 2 ? -1 : -2;
    }
    if (n_vectors > 0 && (src == NULL || dst == NULL)) {
        return -3;
    }
    for (size_t i = 0; i < n_vectors; i++) {
        const uint8_t *in = src + i * rec;
        float *x = dst + i * (size_t)head_dim;
        switch (format) {
        case 0:
            for (int k = 0; k < head_dim; k++) {
                x[k] = strata_half_to_float(strata_load_u16le(in + 2 * k));
            }
            break;
        case 1:
            dec_int8(in, head_dim, x);
            break;
        default:
            dec_q4(in, x);
            break;
        }
    }
    return 0;
}

/* quant.c — TEMPORARY scalar stand-in (lead's, for developing the forward pass; replaced by the quant branch). */
#include "quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"

static const strata_type_info TYPES[GGML_TYPE_COUNT_MAX] = {
    [GGML_TYPE_F32] = {"f32", 1, 4, 1, GGML_TYPE_F32},
    [GGML_TYPE_F16] = {"f16", 1, 2, 1, GGML_TYPE_F32},
    [GGML_TYPE_Q4_0] = {"q4_0", 32, 18, 1, GGML_TYPE_F32},
    [GGML_TYPE_Q4_1] = {"q4_1", 32, 20, 0, 0},
    [GGML_TYPE_Q5_0] = {"q5_0", 32, 22, 0, 0},
    [GGML_TYPE_Q5_1] = {"q5_1", 32, 24, 0, 0},
    [GGML_TYPE_Q8_0] = {"q8_0", 32, 34, 1, GGML_TYPE_F32},
    [GGML_TYPE_Q8_1] = {"q8_1", 32, 36, 0, 0},
    [GGML_TYPE_Q2_K] = {"q2_K", 256, 84, 0, 0},
    [GGML_TYPE_Q3_K] = {"q3_K", 256, 110, 0, 0},
    [GGML_TYPE_Q4_K] = {"q4_K", 256, 144, 1, GGML_TYPE_F32},
    [GGML_TYPE_Q5_K] = {"q5_K", 256, 176, 0, 0},
    [GGML_TYPE_Q6_K] = {"q6_K", 256, 210, 1, GGML_TYPE_F32},
    [GGML_TYPE_Q8_K] = {"q8_K", 256, 292, 0, 0},
    [GGML_TYPE_BF16] = {"bf16", 1, 2, 1, GGML_TYPE_F32},
};

const strata_type_info *strata_type(uint32_t type) {
    if (type >= GGML_TYPE_COUNT_MAX || TYPES[type].name == NULL) return NULL;
    return &TYPES[type];
}
const char *strata_types_computable(void) { return "f32, f16, bf16, q8_0, q4_0, q4_K, q6_K"; }
size_t strata_row_bytes(uint32_t type, int64_t n) {
    const strata_type_info *t = strata_type(type);
    if (t == NULL || n % t->block) return 0;
    return (size_t)(n / t->block) * t->bytes;
}
static float h2f(const uint8_t *p) { uint16_t h; memcpy(&h, p, 2); return strata_half_to_float(h); }

static void get_scale_min_k4(int j, const uint8_t *q, uint8_t *d, uint8_t *m) {
    if (j < 4) { *d = q[j] & 63; *m = q[j + 4] & 63; }
    else { *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4); *m = (q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4); }
}

void strata_dequant_row(uint32_t type, const void *src, float *y, int64_t n) {
    const uint8_t *p = src;
    switch (type) {
    case GGML_TYPE_F32: memcpy(y, p, (size_t)n * 4); return;
    case GGML_TYPE_F16: for (int64_t i = 0; i < n; i++) y[i] = h2f(p + 2 * i); return;
    case GGML_TYPE_BF16: for (int64_t i = 0; i < n; i++) { uint32_t u = (uint32_t)(p[2*i] | (p[2*i+1] << 8)) << 16; memcpy(&y[i], &u, 4); } return;
    case GGML_TYPE_Q8_0:
        for (int64_t b = 0; b < n / 32; b++, p += 34) { float d = h2f(p); for (int j = 0; j < 32; j++) y[b*32+j] = d * (int8_t)p[2+j]; }
        return;
    case GGML_TYPE_Q4_0:
        for (int64_t b = 0; b < n / 32; b++, p += 18) { float d = h2f(p); for (int j = 0; j < 16; j++) { y[b*32+j] = d * ((p[2+j] & 15) - 8); y[b*32+j+16] = d * ((p[2+j] >> 4) - 8); } }
        return;
    case GGML_TYPE_Q4_K:
        for (int64_t b = 0; b < n / 256; b++, p += 144) {
            float d = h2f(p), dmin = h2f(p + 2); const uint8_t *sc = p + 4, *q = p + 16; float *o = y + b * 256;
            int is = 0;
            for (int j = 0; j < 256; j += 64) {
                uint8_t s, m; get_scale_min_k4(is, sc, &s, &m); float d1 = d * s, m1 = dmin * m;
                get_scale_min_k4(is + 1, sc, &s, &m); float d2 = d * s, m2 = dmin * m;
                for (int l = 0; l < 32; l++) *o++ = d1 * (q[l] & 0xF) - m1;
                for (int l = 0; l < 32; l++) *o++ = d2 * (q[l] >> 4) - m2;
                q += 32; is += 2;
            }
        }
        return;
    case GGML_TYPE_Q6_K:
        for (int64_t b = 0; b < n / 256; b++, p += 210) {
            const uint8_t *ql = p, *qh = p + 128; const int8_t *sc = (const int8_t *)(p + 192); float d = h2f(p + 208);
            float *o = y + b * 256;
            for (int k = 0; k < 256; k += 128) {
                for (int l = 0; l < 32; l++) {
                    int is = l / 16;
                    int q1 = (int)((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                    int q2 = (int)((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                    int q3 = (int)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                    int q4 = (int)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                    o[l] = d * sc[is] * q1; o[l + 32] = d * sc[is + 2] * q2; o[l + 64] = d * sc[is + 4] * q3; o[l + 96] = d * sc[is + 6] * q4;
                }
                o += 128; ql += 64; qh += 32; sc += 8;
            }
        }
        return;
    default: memset(y, 0, (size_t)n * 4); return;
    }
}

void strata_quantize_act(uint32_t vt, const float *x, void *dst, int64_t n) { (void)vt; memcpy(dst, x, (size_t)n * 4); }

void strata_gemm_rows(uint32_t wtype, int64_t n, const uint8_t *w, size_t wrow_bytes, int64_t r0, int64_t r1,
                      const uint8_t *xq, size_t xstride, int ncols, float *y, size_t ystride) {
    float *row = malloc((size_t)n * sizeof *row);
    for (int64_t r = r0; r < r1; r++) {
        strata_dequant_row(wtype, w + (size_t)r * wrow_bytes, row, n);
        for (int c = 0; c < ncols; c++) {
            const float *x = (const float *)(xq + (size_t)c * xstride);
            double s = 0; for (int64_t i = 0; i < n; i++) s += row[i] * x[i];
            y[(size_t)c * ystride + r] = (float)s;
        }
    }
    free(row);
}
const char *strata_quant_isa(void) { return "base"; }

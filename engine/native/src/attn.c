/* attn.c — attention over the pools (attn.h). */
#include "attn.h"

#include <math.h>
#include <string.h>

#include "ggml_vec.h"

enum { CHUNK = 64, MAX_KV_HEADS = 64, MAX_HD = 256 };

/* fp16 pools: llama.cpp's tiled flash attention (ggml_compute_forward_flash_attn_ext_tiled, KV tiles of
 * GGML_FA_TILE_KV = 64 cells from cell 0, the query in f32), operation for operation, so that the two engines
 * give the same floats: per tile the scores (strata_ggml_kq_f16), the tile's maximum, a rescale by expf(Mold -
 * Mnew) when it grows, the exponentials and their sum (ggml_vec_soft_max_f32 over the whole tile, cells past n
 * at -inf), then V accumulated cell by cell with one fused multiply-add per value (simd_gemm). */
static void attend_f16(const strata_kv *kv, const strata_fused_ops *ops, const uint8_t *base, size_t n, const float *q,
                       int n_head, int g0, int g1, float scale, float *out) {
    const int H = kv->kv_heads, D = kv->hd, G = n_head / H;
    float acc[MAX_HD], s[CHUNK];
    for (int h = 0; h < H; h++) {
        for (int g = g0; g < g1 && g < G; g++) {
            const float *qh = q + (size_t)(h * G + g) * D;
            float M = -INFINITY, S = 0.0f;
            memset(acc, 0, sizeof(float) * (size_t)D);
            for (size_t c0 = 0; c0 < n; c0 += CHUNK) {
                size_t cn = c0 + CHUNK < n ? CHUNK : n - c0;
                const uint8_t *cells = base + c0 * kv->cell_bytes;
                strata_ggml_kq_f16(cells, kv->cell_bytes, (size_t)h * (size_t)D * 2, cn, D, qh, scale, s);
                float tmax = -INFINITY;
                for (size_t t = 0; t < CHUNK; t++) {
                    if (t >= cn) {
                        s[t] = -INFINITY;
                    }
                    tmax = s[t] > tmax ? s[t] : tmax;
                }
                float Mnew = fmaxf(M, tmax);
                if (Mnew > M) {
                    float ms = expf(M - Mnew);
                    for (int i = 0; i < D; i++) {
                        acc[i] *= ms;
                    }
                    S *= ms;
                }
                M = Mnew;
                S = (float)((double)S + strata_ggml_soft_max(s, s, CHUNK, M));
                /* one head: with heads = 1 the axpy reads V at hd·2 bytes into a cell, so shift the cells by the
                 * (H + h - 1) records that come before V of head h */
                ops->axpy_f16(cells + (size_t)(H + h - 1) * (size_t)D * 2, kv->cell_bytes, cn, 1, D, s, acc);
            }
            float inv = S == 0.0f ? 0.0f : 1.0f / S;
            for (int i = 0; i < D; i++) {
                acc[i] *= inv;
            }
            memcpy(out + (size_t)(h * G + g) * D, acc, sizeof(float) * (size_t)D);
        }
    }
}

void strata_attend(const strata_kv *kv, const strata_fused_ops *ops, int seq, int layer, size_t n, const float *q,
                   int n_head, int g0, int g1, float scale, float *out) {
    const int H = kv->kv_heads, D = kv->hd, G = n_head / H;
    const uint8_t *base = strata_kv_cells(kv, seq, layer);
    if (kv->format == KV_FP16) {
        attend_f16(kv, ops, base, n, q, n_head, g0, g1, scale, out);
        return;
    }
    float qg[MAX_KV_HEADS * MAX_HD];
    float acc[MAX_KV_HEADS * MAX_HD];
    float s[MAX_KV_HEADS * CHUNK];
    float m[MAX_KV_HEADS], l[MAX_KV_HEADS];
    strata_qq qq[MAX_KV_HEADS];
    for (int g = g0; g < g1 && g < G; g++) {
        /* the g-th query head of every KV head's group, as one query per KV head */
        for (int h = 0; h < H; h++) {
            memcpy(qg + (size_t)h * D, q + (size_t)(h * G + g) * D, sizeof(float) * (size_t)D);
            if (kv->format == KV_Q4_0) {
                strata_fwht256(qg + (size_t)h * D);
            }
            m[h] = -INFINITY;
            l[h] = 0.0f;
        }
        if (kv->format != KV_FP16) {
            ops->quant_query(kv->format, qg, H, D, qq);
        }
        memset(acc, 0, sizeof(float) * (size_t)H * (size_t)D);
        for (size_t c0 = 0; c0 < n; c0 += CHUNK) {
            size_t cn = c0 + CHUNK < n ? CHUNK : n - c0;
            const uint8_t *cells = base + c0 * kv->cell_bytes;
            if (kv->format == KV_Q4_0) {
                ops->score_q4(cells, kv->cell_bytes, cn, H, D, qq, scale, s);
            } else if (kv->format == KV_INT8) {
                ops->score_int8(cells, kv->cell_bytes, cn, H, D, qq, scale, s);
            } else {
                ops->score_f16(cells, kv->cell_bytes, cn, H, D, qg, scale, s);
            }
            for (int h = 0; h < H; h++) {
                float *sh = s + (size_t)h * cn;
                float cm = m[h];
                for (size_t t = 0; t < cn; t++) {
                    cm = sh[t] > cm ? sh[t] : cm;
                }
                if (cm > m[h]) {
                    float f = expf(m[h] - cm); /* 0 on the first chunk */
                    float *ah = acc + (size_t)h * D;
                    for (int i = 0; i < D; i++) {
                        ah[i] *= f;
                    }
                    l[h] *= f;
                    m[h] = cm;
                }
                l[h] += ops->expsum(sh, cn, m[h]);
            }
            if (kv->format == KV_Q4_0) {
                ops->axpy_q4(cells, kv->cell_bytes, cn, H, D, s, acc);
            } else if (kv->format == KV_INT8) {
                ops->axpy_int8(cells, kv->cell_bytes, cn, H, D, s, acc);
            } else {
                ops->axpy_f16(cells, kv->cell_bytes, cn, H, D, s, acc);
            }
        }
        for (int h = 0; h < H; h++) {
            float *ah = acc + (size_t)h * D;
            float inv = 1.0f / l[h];
            for (int i = 0; i < D; i++) {
                ah[i] *= inv;
            }
            if (kv->format == KV_Q4_0) {
                strata_fwht256(ah); /* the weighted V back out of the rotated domain */
            }
            memcpy(out + (size_t)(h * G + g) * D, ah, sizeof(float) * (size_t)D);
        }
    }
}

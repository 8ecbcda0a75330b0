/* attn.c — attention over the pools (attn.h). */
#include "attn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ggml_vec.h"
#include "half.h"

/* the heads the stack buffers below hold: Java RefLimits (rules.def), so the plan refuses what they cannot hold */
enum { CHUNK = 64, MAX_KV_HEADS = STRATA_REF_MAX_KV_HEADS, MAX_HD = STRATA_REF_MAX_HEAD_DIM };

/* fp16 pools: llama.cpp's tiled flash attention (ggml_compute_forward_flash_attn_ext_tiled: KV tiles of
 * GGML_FA_TILE_KV = 64 cells from cell 0, K of a tile converted to f32 and transposed once for all the query rows,
 * the query in f32), operation for operation, so that the two engines give the same floats: per tile and query row
 * the scores (strata_ggml_fa_kq; cells past the row's own at -inf), the tile's maximum, a rescale by expf(Mold -
 * Mnew) when it grows, the exponentials and their sum (ggml_vec_soft_max_f32 over the whole tile), then V
 * accumulated cell by cell with one fused multiply-add per value (strata_ggml_fa_v). */
int strata_attend_f16(const strata_kv *kv, int seq, int layer, size_t pos0, int B, const float *q, int n_head, int h,
                      float scale, float *out) {
    const int H = kv->kv_heads, D = kv->hd, G = n_head / H, R = B * G; /* query rows: token t, group g → t·G + g */
    const uint8_t *base = strata_kv_cells(kv, seq, layer);
    const size_t Q = (size_t)n_head * (size_t)D;
    float *kt = malloc(sizeof(float) * ((size_t)D * CHUNK * 2 + (size_t)R * ((size_t)D + 2)));
    if (kt == NULL) {
        return -1;
    }
    float *v32 = kt + (size_t)D * CHUNK, *acc = v32 + (size_t)D * CHUNK, *M = acc + (size_t)R * D, *S = M + R;
    memset(acc, 0, sizeof(float) * (size_t)R * (size_t)D);
    for (int r = 0; r < R; r++) {
        M[r] = -INFINITY;
        S[r] = 0.0f;
    }
    const size_t nmax = pos0 + (size_t)B;
    for (size_t c0 = 0; c0 < nmax; c0 += CHUNK) {
        const size_t cn = c0 + CHUNK < nmax ? CHUNK : nmax - c0;
        strata_ggml_fa_pack(base + c0 * kv->cell_bytes, kv->cell_bytes, (size_t)h * (size_t)D * 2,
                            (size_t)(H + h) * (size_t)D * 2, cn, D, kt, v32);
        for (int r = 0; r < R; r++) {
            const int t = r / G, g = r % G;
            const size_t n = pos0 + (size_t)t + 1; /* the row's cells: [0, n) */
            if (n <= c0) {
                continue; /* a tile all masked for this row: llama.cpp skips it (tile_max = -inf) */
            }
            float s[CHUNK], *at = acc + (size_t)r * D;
            strata_ggml_fa_kq(kt, D, q + (size_t)t * Q + (size_t)(h * G + g) * D, scale, s);
            float tmax = -INFINITY;
            for (size_t c = 0; c < CHUNK; c++) {
                if (c0 + c >= n) {
                    s[c] = -INFINITY;
                }
                tmax = s[c] > tmax ? s[c] : tmax;
            }
            const float Mnew = fmaxf(M[r], tmax);
            if (Mnew > M[r]) {
                const float ms = expf(M[r] - Mnew);
                for (int i = 0; i < D; i++) {
                    at[i] *= ms;
                }
                S[r] *= ms;
            }
            M[r] = Mnew;
            S[r] = (float)((double)S[r] + strata_ggml_soft_max(s, s, CHUNK, Mnew));
            strata_ggml_fa_v(v32, n - c0 < cn ? n - c0 : cn, D, s, at);
        }
    }
    for (int r = 0; r < R; r++) {
        const float inv = S[r] == 0.0f ? 0.0f : 1.0f / S[r];
        float *o = out + (size_t)(r / G) * Q + (size_t)(h * G + r % G) * D;
        for (int i = 0; i < D; i++) {
            o[i] = acc[(size_t)r * D + (size_t)i] * inv;
        }
    }
    free(kt);
    return 0;
}

/* One query row over cells [c0, c1) (of [0, n): later cells are masked, so skipped) as
 * ggml_compute_forward_flash_attn_ext_f16_one_chunk runs it: K·q by ggml_vec_dot_f16 against the f16 query, the
 * weighted V summed in f16 (vkq), S = S·ms + vs (not fused; measured bit-exact against libggml-cpu-zen4.so). */
static void one_chunk(const strata_kv *kv, const uint8_t *base, int h, const uint16_t *q16, size_t c0, size_t c1,
                      float scale, float *M, float *S, uint16_t *vkq) {
    const int H = kv->kv_heads, D = kv->hd;
    *M = -INFINITY;
    *S = 0.0f;
    memset(vkq, 0, sizeof(uint16_t) * (size_t)D);
    for (size_t c = c0; c < c1; c++) {
        const uint8_t *cell = base + c * kv->cell_bytes;
        const float s = strata_ggml_dot_f16(cell + (size_t)h * (size_t)D * 2, q16, D) * scale;
        float ms = 1.0f, vs = 1.0f;
        if (s > *M) {
            const float Mold = *M;
            *M = s;
            ms = expf(Mold - *M);
            strata_ggml_scale_f16(vkq, ms, D);
        } else {
            vs = expf(s - *M);
        }
        strata_ggml_mad_f16(vkq, cell + (size_t)(H + h) * (size_t)D * 2, vs, D);
        *S = *S * ms + vs;
    }
}

/* fp16 pools, a llama.cpp ubatch of fewer than 64 rows: one_chunk over all cells; for a ubatch of one row whose KV
 * view (the cells used, padded to 256) reaches 512, llama.cpp splits the view over its nth threads and merges the
 * partial (M, S, VKQ) in order (ops.cpp ggml_flash_attn_ext_reduce_partials): the same here when nth > 0. */
void strata_attend_f16_row(const strata_kv *kv, int seq, int layer, size_t n, const float *q, int n_head, int h,
                           float scale, int nth, float *out) {
    const int H = kv->kv_heads, D = kv->hd, G = n_head / H;
    const uint8_t *base = strata_kv_cells(kv, seq, layer);
    uint16_t q16[MAX_HD], vkq[MAX_HD];
    float fin[MAX_HD];
    const size_t nkv = (n + 255) / 256 * 256 < 256 ? 256 : (n + 255) / 256 * 256;
    const int split = nth > 0 && nkv >= 512;
    const size_t chunk = split ? (nkv + (size_t)nth - 1) / (size_t)nth : nkv;
    for (int g = 0; g < G; g++) {
        const float *qh = q + (size_t)(h * G + g) * D;
        for (int i = 0; i < D; i++) {
            q16[i] = strata_float_to_half(qh[i]);
        }
        float Mf = -INFINITY, Sf = 0.0f;
        memset(fin, 0, sizeof fin);
        for (size_t c0 = 0; c0 < (split ? nkv : 1); c0 += chunk) {
            const size_t c1 = split ? (c0 + chunk < n ? c0 + chunk : n) : n;
            float M, S;
            one_chunk(kv, base, h, q16, c0 < n ? c0 : n, c1 > c0 ? c1 : c0, scale, &M, &S, vkq);
            if (!split) {
                Mf = M;
                Sf = S;
                for (int i = 0; i < D; i++) {
                    fin[i] = strata_half_to_float(vkq[i]);
                }
                break;
            }
            if (S == 0.0f) {
                continue;
            }
            const float Mn = fmaxf(Mf, M), so = expf(Mf - Mn), sn = expf(M - Mn);
            /* `a*so + b*sn` as the FMA build contracts it: the first product fused (measured bit-exact) */
            for (int i = 0; i < D; i++) {
                fin[i] = fmaf(fin[i], so, strata_half_to_float(vkq[i]) * sn);
            }
            Sf = fmaf(Sf, so, S * sn);
            Mf = Mn;
        }
        const float inv = Sf == 0.0f ? 0.0f : 1.0f / Sf;
        float *o = out + (size_t)(h * G + g) * D;
        for (int i = 0; i < D; i++) {
            o[i] = fin[i] * inv;
        }
    }
}

void strata_attend(const strata_kv *kv, const strata_fused_ops *ops, int seq, int layer, size_t n, const float *q,
                   int n_head, int g0, int g1, float scale, float *out) {
    const int H = kv->kv_heads, D = kv->hd, G = n_head / H;
    const uint8_t *base = strata_kv_cells(kv, seq, layer);
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

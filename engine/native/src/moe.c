/* moe.c — the MoE feed-forward of Qwen3-MoE (moe.h). */
#include "moe.h"

#include <math.h>

#include "ggml_vec.h"
#include <string.h>

#include "ops.h"

int strata_moe_ffn(strata_fwd *f, int layer, int B) {
    const strata_model *md = f->md;
    const strata_layer_w *w = &md->layers[layer];
    const size_t E = md->n_embd, X = md->n_expert, K = md->n_expert_used, F = md->n_ff_exp;
    float *logits = f->router;
    strata_matmul_t(f->pool, f->xq, w->gate_inp, f->xb, B, f->ngemm4, logits);
    strata_fwd_dump("ffn_moe_logits", layer, logits, X, B);
    for (int t = 0; t < B; t++) {
        float *p = logits + (size_t)t * X;
        /* ggml_soft_max (ops.cpp ggml_compute_forward_soft_max_f32): exponentials as ggml_vec_soft_max_f32, then
         * scaled by the float of 1/sum (a double) */
        float mx = p[0];
        for (size_t e = 1; e < X; e++) {
            mx = p[e] > mx ? p[e] : mx;
        }
        const float inv = (float)(1.0 / strata_ggml_soft_max(p, p, X, mx));
        for (size_t e = 0; e < X; e++) {
            p[e] *= inv;
        }
        /* top K by probability (ties: the lower id) */
        int32_t *sel = f->route_e + (size_t)t * K;
        float *sw = f->route_w + (size_t)t * K;
        double wsum = 0.0; /* ggml_sum_rows: ggml_vec_sum_f32 sums in double */
        for (size_t k = 0; k < K; k++) {
            int32_t best = -1;
            for (size_t e = 0; e < X; e++) {
                int taken = 0;
                for (size_t j = 0; j < k; j++) {
                    taken |= sel[j] == (int32_t)e;
                }
                if (!taken && (best < 0 || p[e] > p[best])) {
                    best = (int32_t)e;
                }
            }
            sel[k] = best;
            sw[k] = p[best];
            wsum += p[best];
        }
        if (md->expert_norm) {
            /* ggml_clamp to >= 6.103515625e-5, then ggml_div */
            const float ws = (float)wsum < 6.103515625e-5f ? 6.103515625e-5f : (float)wsum;
            for (size_t k = 0; k < K; k++) {
                sw[k] /= ws;
            }
        }
    }
    strata_fwd_dump("ffn_moe_probs", layer, logits, X, B);
    strata_fwd_dump("ffn_moe_weights_norm", layer, f->route_w, K, B);
    if (f->route != NULL) {
        f->route(f->expert_user, layer, B, f->route_e, (int)K);
    }
    int idx[STRATA_BATCH];
    float wt[STRATA_BATCH];
    for (size_t e = 0; e < X; e++) {
        int cnt = 0;
        for (int t = 0; t < B; t++) {
            for (size_t k = 0; k < K; k++) {
                if (f->route_e[(size_t)t * K + k] == (int32_t)e) {
                    idx[cnt] = t * (int)K + (int)k; /* the (token, slot) row of eo */
                    wt[cnt] = f->route_w[(size_t)t * K + k];
                    memcpy(f->xe + (size_t)cnt * E, f->xb + (size_t)t * E, sizeof(float) * E);
                    cnt++;
                }
            }
        }
        if (cnt == 0) {
            continue;
        }
        const uint8_t *ew[3];
        if (f->expert != NULL) {
            if (f->expert(f->expert_user, layer, (int)e, ew) != 0) {
                return -1;
            }
        } else {
            ew[0] = w->gate_exps->data + e * (w->gate_exps->bytes / X);
            ew[1] = w->up_exps->data + e * (w->up_exps->bytes / X);
            ew[2] = w->down_exps->data + e * (w->down_exps->bytes / X);
        }
        /* ngemm4 0: llama.cpp's mul_mat_id of repacked experts runs its gemv on every row */
        strata_matmul(f->pool, f->xq, w->gate_exps->type, ew[0], (int64_t)E, (int64_t)F, f->xe, E, cnt, 0, f->hb, F);
        strata_matmul(f->pool, f->xq, w->up_exps->type, ew[1], (int64_t)E, (int64_t)F, f->xe, E, cnt, 0, f->hb2, F);
        strata_ggml_swiglu(f->hb, f->hb, f->hb2, (size_t)cnt * F);
        float *out = f->xe; /* the gathered inputs are no longer needed */
        strata_matmul(f->pool, f->xq, w->down_exps->type, ew[2], (int64_t)F, (int64_t)E, f->hb, F, cnt, 0, out, E);
        for (int c = 0; c < cnt; c++) {
            float *o = f->eo + (size_t)idx[c] * E;
            for (size_t i = 0; i < E; i++) {
                o[i] = wt[c] * out[(size_t)c * E + i];
            }
        }
    }
    /* the weighted experts summed in slot order (llama.cpp build_moe_ffn: ggml_mul by the weights, then
     * ggml_add of slot 0 + slot 1 + ..., the slots in descending router probability), then the residual */
    for (int t = 0; t < B; t++) {
        const float *o = f->eo + (size_t)t * K * E;
        for (size_t i = 0; i < E; i++) {
            float acc = o[i];
            for (size_t k = 1; k < K; k++) {
                acc += o[k * E + i];
            }
            f->x[(size_t)t * E + i] += acc;
        }
    }
    return 0;
}


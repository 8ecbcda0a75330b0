/* forward.c — the forward pass (forward.h), top to bottom. Shapes: E = n_embd, Q = n_head·hd, KV = kv_heads·hd,
 * F = n_ff (dense) or n_ff_exp (one expert), B = tokens of the batch (<= STRATA_BATCH). Activations are rows of
 * floats, one per token; a matrix product converts them once to the weight type's vec_dot type (quant.h). */
#include "forward.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "quant.h"

static size_t maxz(size_t a, size_t b) { return a > b ? a : b; }

/* Largest activation row a matrix product quantizes, and the room its vec_dot form needs (Q8_K: 292 bytes per 256
 * values is the largest ratio; f32 4 per value is larger still). */
static size_t widest(const strata_model *md) {
    size_t w = maxz(md->n_embd, (size_t)md->n_head * md->head_dim);
    return maxz(w, maxz(md->n_ff, md->n_ff_exp));
}

uint64_t strata_fwd_scratch_bytes(const strata_model *md) {
    const size_t B = STRATA_BATCH, E = md->n_embd, Q = (size_t)md->n_head * md->head_dim;
    const size_t KV = (size_t)md->n_head_kv * md->head_dim, F = maxz(md->n_ff, md->n_ff_exp);
    const size_t X = md->n_expert;
    size_t floats = B * (E * 4 + Q * 2 + KV * 2 + F * 2 + X * 2);
    size_t xq = B * widest(md) * 4;
    return (uint64_t)(floats * sizeof(float) + xq + B * md->n_expert_used * (sizeof(int32_t) + sizeof(float)));
}

int strata_fwd_init(strata_fwd *f, const strata_model *md, strata_kv *kv, strata_pool *pool,
                    const strata_fused_ops *ops) {
    memset(f, 0, sizeof *f);
    f->md = md;
    f->kv = kv;
    f->pool = pool;
    f->ops = ops;
    const size_t B = STRATA_BATCH, E = md->n_embd, Q = (size_t)md->n_head * md->head_dim;
    const size_t KV = (size_t)md->n_head_kv * md->head_dim, F = maxz(md->n_ff, md->n_ff_exp);
    const size_t X = md->n_expert;
    f->x = malloc(B * E * sizeof(float));
    f->xb = malloc(B * E * sizeof(float));
    f->eo = malloc(B * E * sizeof(float));
    f->xe = malloc(B * E * sizeof(float));
    f->q = malloc(B * Q * sizeof(float));
    f->att = malloc(B * Q * sizeof(float));
    f->k = malloc(B * KV * sizeof(float));
    f->v = malloc(B * KV * sizeof(float));
    f->hb = malloc(B * F * sizeof(float));
    f->hb2 = malloc(B * F * sizeof(float));
    f->router = malloc(B * (X ? X : 1) * 2 * sizeof(float));
    f->xq_stride = widest(md) * 4;
    f->xq = malloc(B * f->xq_stride);
    f->route_e = malloc(B * (md->n_expert_used ? md->n_expert_used : 1) * sizeof(int32_t));
    f->route_w = malloc(B * (md->n_expert_used ? md->n_expert_used : 1) * sizeof(float));
    if (!f->x || !f->xb || !f->eo || !f->xe || !f->q || !f->att || !f->k || !f->v || !f->hb || !f->hb2 || !f->router ||
        !f->xq || !f->route_e || !f->route_w) {
        strata_fwd_free(f);
        return -1;
    }
    return 0;
}

void strata_fwd_free(strata_fwd *f) {
    free(f->x);
    free(f->xb);
    free(f->eo);
    free(f->xe);
    free(f->q);
    free(f->att);
    free(f->k);
    free(f->v);
    free(f->hb);
    free(f->hb2);
    free(f->router);
    free(f->xq);
    free(f->route_e);
    free(f->route_w);
    memset(f, 0, sizeof *f);
}

/* ---- matrix products, split over the pool by row ranges ---- */

typedef struct {
    uint32_t wtype;
    int64_t n_in, n_out, rows_per_item;
    const uint8_t *w;
    size_t wrow;
    const uint8_t *xq;
    size_t xstride;
    int ncols;
    float *y;
    size_t ystride;
} mm_job;

static void mm_item(void *ctx, size_t item) {
    const mm_job *j = ctx;
    int64_t r0 = (int64_t)item * j->rows_per_item;
    int64_t r1 = r0 + j->rows_per_item < j->n_out ? r0 + j->rows_per_item : j->n_out;
    strata_gemm_rows(j->wtype, j->n_in, j->w, j->wrow, r0, r1, j->xq, j->xstride, j->ncols, j->y, j->ystride);
}

/* y[c][0..n_out) = W x[c] for c < ncols: W is n_out rows of n_in values of wtype at w (a 2-D tensor, or one
 * expert's slice of a 3-D one); x rows are n_in floats, xs apart; y rows ys apart. */
static void matmul_raw(strata_fwd *f, uint32_t wtype, const uint8_t *w, int64_t n_in, int64_t n_out, const float *x,
                       size_t xs, int ncols, float *y, size_t ys) {
    const strata_type_info *ti = strata_type(wtype);
    uint32_t vt = (uint32_t)ti->vec_dot_type;
    size_t xrow = strata_row_bytes(vt, n_in);
    for (int c = 0; c < ncols; c++) {
        strata_quantize_act(vt, x + (size_t)c * xs, f->xq + (size_t)c * xrow, n_in);
    }
    int threads = strata_pool_size(f->pool);
    int64_t per = n_out / (threads * 4);
    per = per < 16 ? 16 : (per + 3) / 4 * 4;
    mm_job j = {wtype, n_in, n_out, per, w, strata_row_bytes(wtype, n_in), f->xq, xrow, ncols, y, ys};
    strata_pool_run(f->pool, (size_t)((n_out + per - 1) / per), mm_item, &j);
}

static void matmul(strata_fwd *f, const strata_gguf_tensor *t, const float *x, int ncols, float *y) {
    matmul_raw(f, t->type, t->data, t->ne[0], t->ne[1], x, (size_t)t->ne[0], ncols, y, (size_t)t->ne[1]);
}

static void add_bias(float *y, const strata_gguf_tensor *b, int ncols, size_t n) {
    if (b == NULL) {
        return;
    }
    const float *bv = (const float *)b->data;
    for (int c = 0; c < ncols; c++) {
        for (size_t i = 0; i < n; i++) {
            y[(size_t)c * n + i] += bv[i];
        }
    }
}

/* ---- elementwise ---- */

/* o = x / sqrt(mean(x²) + eps) · w (llama.cpp ggml_rms_norm then ggml_mul: the sum in double) */
static void rmsnorm(float *o, const float *x, const float *w, size_t n, float eps) {
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        ss += (double)x[i] * (double)x[i];
    }
    float scale = 1.0f / sqrtf((float)(ss / (double)n) + eps);
    for (size_t i = 0; i < n; i++) {
        o[i] = x[i] * scale * w[i];
    }
}

/* RoPE of one head vector at position pos (llama.cpp ggml_rope_ext without YaRN: theta_i = pos · base^(-2i/n_rot),
 * divided by rope_freqs[i] when the model has them; NEOX rotates pairs (i, i + n_rot/2), NORM pairs (2i, 2i+1)). */
static void rope(float *x, size_t pos, const strata_model *md) {
    const int nr = (int)md->n_rot;
    const float theta_scale = powf(md->rope_base, -2.0f / (float)nr);
    float theta = (float)pos;
    for (int i = 0; i < nr / 2; i++) {
        float t = md->rope_freqs != NULL ? theta / md->rope_freqs[i] : theta;
        float c = cosf(t), s = sinf(t);
        int a = md->rope_neox ? i : 2 * i;
        int b = md->rope_neox ? i + nr / 2 : 2 * i + 1;
        float x0 = x[a], x1 = x[b];
        x[a] = x0 * c - x1 * s;
        x[b] = x0 * s + x1 * c;
        theta *= theta_scale;
    }
}

static float silu(float x) { return x / (1.0f + expf(-x)); }

/* ---- attention over the pools, one item per (token, query group) ---- */

typedef struct {
    strata_fwd *f;
    int seq, layer, groups;
    size_t pos0;
    float scale;
} att_job;

static void att_item(void *ctx, size_t item) {
    const att_job *j = ctx;
    const strata_model *md = j->f->md;
    size_t t = item / (size_t)j->groups;
    int g = (int)(item % (size_t)j->groups);
    size_t Q = (size_t)md->n_head * md->head_dim;
    strata_attend(j->f->kv, j->f->ops, j->seq, j->layer, j->pos0 + t + 1, j->f->q + t * Q, (int)md->n_head, g, g + 1,
                  j->scale, j->f->att + t * Q);
}

/* ---- MoE: softmax router, top-k, renormalized weights, experts down(silu(gate(x)) · up(x)) ---- */

static int moe(strata_fwd *f, int layer, int B) {
    const strata_model *md = f->md;
    const strata_layer_w *w = &md->layers[layer];
    const size_t E = md->n_embd, X = md->n_expert, K = md->n_expert_used, F = md->n_ff_exp;
    float *logits = f->router;
    matmul(f, w->gate_inp, f->xb, B, logits);
    for (int t = 0; t < B; t++) {
        float *p = logits + (size_t)t * X;
        float mx = p[0];
        for (size_t e = 1; e < X; e++) {
            mx = p[e] > mx ? p[e] : mx;
        }
        double sum = 0.0;
        for (size_t e = 0; e < X; e++) {
            p[e] = expf(p[e] - mx);
            sum += p[e];
        }
        for (size_t e = 0; e < X; e++) {
            p[e] = (float)(p[e] / sum);
        }
        /* top K by probability (ties: the lower id) */
        int32_t *sel = f->route_e + (size_t)t * K;
        float *sw = f->route_w + (size_t)t * K;
        float wsum = 0.0f;
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
            for (size_t k = 0; k < K; k++) {
                sw[k] /= wsum;
            }
        }
    }
    memset(f->eo, 0, sizeof(float) * (size_t)B * E);
    int idx[STRATA_BATCH];
    float wt[STRATA_BATCH];
    for (size_t e = 0; e < X; e++) {
        int cnt = 0;
        for (int t = 0; t < B; t++) {
            for (size_t k = 0; k < K; k++) {
                if (f->route_e[(size_t)t * K + k] == (int32_t)e) {
                    idx[cnt] = t;
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
        matmul_raw(f, w->gate_exps->type, ew[0], (int64_t)E, (int64_t)F, f->xe, E, cnt, f->hb, F);
        matmul_raw(f, w->up_exps->type, ew[1], (int64_t)E, (int64_t)F, f->xe, E, cnt, f->hb2, F);
        for (size_t i = 0; i < (size_t)cnt * F; i++) {
            f->hb[i] = silu(f->hb[i]) * f->hb2[i];
        }
        float *out = f->xe; /* the gathered inputs are no longer needed */
        matmul_raw(f, w->down_exps->type, ew[2], (int64_t)F, (int64_t)E, f->hb, F, cnt, out, E);
        for (int c = 0; c < cnt; c++) {
            float *o = f->eo + (size_t)idx[c] * E;
            for (size_t i = 0; i < E; i++) {
                o[i] += wt[c] * out[(size_t)c * E + i];
            }
        }
    }
    for (size_t i = 0; i < (size_t)B * E; i++) {
        f->x[i] += f->eo[i];
    }
    return 0;
}

static int cancelled(const strata_fwd *f) {
    return f->cancel != NULL && atomic_load_explicit(f->cancel, memory_order_relaxed) != 0;
}

/* One batch of B tokens at positions pos0.. */
static int batch(strata_fwd *f, int seq, const int32_t *tokens, int B, size_t pos0, int logits_from, float *logits) {
    const strata_model *md = f->md;
    const size_t E = md->n_embd, D = md->head_dim, H = md->n_head, HK = md->n_head_kv;
    const size_t Q = H * D, KV = HK * D;
    for (int t = 0; t < B; t++) {
        const strata_gguf_tensor *te = md->tok_embd;
        strata_dequant_row(te->type, te->data + (size_t)tokens[t] * strata_row_bytes(te->type, (int64_t)E),
                           f->x + (size_t)t * E, (int64_t)E);
    }
    for (uint32_t l = 0; l < md->n_layer; l++) {
        if (cancelled(f)) {
            return 1;
        }
        const strata_layer_w *w = &md->layers[l];
        for (int t = 0; t < B; t++) {
            rmsnorm(f->xb + (size_t)t * E, f->x + (size_t)t * E, (const float *)w->attn_norm->data, E, md->eps);
        }
        matmul(f, w->wq, f->xb, B, f->q);
        matmul(f, w->wk, f->xb, B, f->k);
        matmul(f, w->wv, f->xb, B, f->v);
        add_bias(f->q, w->bq, B, Q);
        add_bias(f->k, w->bk, B, KV);
        add_bias(f->v, w->bv, B, KV);
        for (int t = 0; t < B; t++) {
            for (size_t h = 0; h < H; h++) {
                float *qh = f->q + (size_t)t * Q + h * D;
                if (w->q_norm != NULL) {
                    rmsnorm(qh, qh, (const float *)w->q_norm->data, D, md->eps);
                }
                rope(qh, pos0 + (size_t)t, md);
            }
            for (size_t h = 0; h < HK; h++) {
                float *kh = f->k + (size_t)t * KV + h * D;
                if (w->k_norm != NULL) {
                    rmsnorm(kh, kh, (const float *)w->k_norm->data, D, md->eps);
                }
                rope(kh, pos0 + (size_t)t, md);
            }
            if (strata_kv_store(f->kv, seq, (int)l, pos0 + (size_t)t, f->k + (size_t)t * KV, f->v + (size_t)t * KV) != 0) {
                return -1;
            }
        }
        att_job aj = {f, seq, (int)l, (int)(H / HK), pos0, 1.0f / sqrtf((float)D)};
        strata_pool_run(f->pool, (size_t)B * (H / HK), att_item, &aj);
        matmul(f, w->wo, f->att, B, f->xb);
        for (size_t i = 0; i < (size_t)B * E; i++) {
            f->x[i] += f->xb[i];
        }
        for (int t = 0; t < B; t++) {
            rmsnorm(f->xb + (size_t)t * E, f->x + (size_t)t * E, (const float *)w->ffn_norm->data, E, md->eps);
        }
        if (w->gate_inp != NULL) {
            if (moe(f, (int)l, B) != 0) {
                return -1;
            }
        } else {
            const size_t F = md->n_ff;
            matmul(f, w->ffn_gate, f->xb, B, f->hb);
            matmul(f, w->ffn_up, f->xb, B, f->hb2);
            for (size_t i = 0; i < (size_t)B * F; i++) {
                f->hb[i] = silu(f->hb[i]) * f->hb2[i];
            }
            matmul(f, w->ffn_down, f->hb, B, f->xb);
            for (size_t i = 0; i < (size_t)B * E; i++) {
                f->x[i] += f->xb[i];
            }
        }
    }
    if (logits_from < B && logits != NULL) {
        int nl = B - logits_from;
        for (int t = 0; t < nl; t++) {
            rmsnorm(f->xb + (size_t)t * E, f->x + (size_t)(logits_from + t) * E, (const float *)md->output_norm->data, E,
                    md->eps);
        }
        matmul(f, md->output, f->xb, nl, logits);
    }
    return 0;
}

int strata_forward(strata_fwd *f, int seq, const int32_t *tokens, size_t n, size_t pos0, size_t logits_from,
                   float *logits) {
    const size_t V = f->md->n_vocab;
    for (size_t b0 = 0; b0 < n; b0 += STRATA_BATCH) {
        int B = (int)(n - b0 < STRATA_BATCH ? n - b0 : STRATA_BATCH);
        int lf = logits_from <= b0 ? 0 : (logits_from - b0 >= (size_t)B ? B : (int)(logits_from - b0));
        float *out = logits != NULL && lf < B ? logits + (b0 + (size_t)lf - logits_from) * V : NULL;
        int rc = batch(f, seq, tokens + b0, B, pos0 + b0, lf, out);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

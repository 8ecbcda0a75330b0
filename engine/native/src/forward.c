/* forward.c — the forward pass (forward.h), top to bottom. Shapes: E = n_embd, Q = n_head·hd, KV = kv_heads·hd,
 * F = n_ff (dense) or n_ff_exp (one expert), B = tokens of the batch (<= STRATA_BATCH). Activations are rows of
 * floats, one per token; a matrix product converts them once to the weight type's vec_dot type (quant.h). */
#include "forward.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "ggml_vec.h"
#include "moe.h"
#include "ops.h"
#include "quant.h"

static size_t maxz(size_t a, size_t b) { return a > b ? a : b; }

/* The scratch buffers: the Java table RefScratch.BUFFERS (rules.def), one row each, so the plan's `scratch` item is
 * what is allocated here. A row is STRATA_BATCH × count × dim × by elements of elem bytes at field's offset. */
typedef struct {
    size_t offset, count, elem;
    int dim, by;
} fwd_buffer;

#define STRATA_FWD_BUFFER(field, count, dim, by, elem) {offsetof(strata_fwd, field), count, elem, dim, by},
static const fwd_buffer BUFFERS[STRATA_FWD_N_BUFFERS] = {STRATA_FWD_BUFFERS};
#undef STRATA_FWD_BUFFER

/* A width of one token's row (Java RefScratch.Dim), from the model. W: the largest activation row a matrix product
 * quantizes (its vec_dot form takes 4 bytes per value at most: f32; Q8_K 292 per 256). */
static size_t fwd_dim(const strata_model *md, int d) {
    const size_t Q = (size_t)md->n_head * md->head_dim, F = maxz(md->n_ff, md->n_ff_exp);
    switch (d) {
    case STRATA_FWD_DIM_E: return md->n_embd;
    case STRATA_FWD_DIM_Q: return Q;
    case STRATA_FWD_DIM_KV: return (size_t)md->n_head_kv * md->head_dim;
    case STRATA_FWD_DIM_F: return F;
    case STRATA_FWD_DIM_X: return maxz(md->n_expert, 1);
    case STRATA_FWD_DIM_K: return maxz(md->n_expert_used, 1);
    case STRATA_FWD_DIM_W: return maxz(maxz(md->n_embd, Q), F);
    default: return 1; /* STRATA_FWD_DIM_ONE */
    }
}

/* Bytes of one token's row of a buffer. */
static size_t row_bytes(const strata_model *md, const fwd_buffer *b) {
    return b->count * fwd_dim(md, b->dim) * fwd_dim(md, b->by) * b->elem;
}

uint64_t strata_fwd_scratch_bytes(const strata_model *md) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < STRATA_FWD_N_BUFFERS; i++) {
        bytes += (uint64_t)STRATA_BATCH * row_bytes(md, &BUFFERS[i]);
    }
    return bytes;
}

/* The buffer pointer at a row's field (every field of the table is a pointer to its elements). */
static void *buffer_get(const strata_fwd *f, const fwd_buffer *b) {
    void *p;
    memcpy(&p, (const char *)f + b->offset, sizeof p);
    return p;
}

int strata_fwd_init(strata_fwd *f, const strata_model *md, strata_kv *kv, strata_pool *pool,
                    const strata_fused_ops *ops) {
    memset(f, 0, sizeof *f);
    f->md = md;
    f->kv = kv;
    f->pool = pool;
    f->ops = ops;
    for (size_t i = 0; i < STRATA_FWD_N_BUFFERS; i++) {
        const fwd_buffer *b = &BUFFERS[i];
        void *p = malloc(STRATA_BATCH * row_bytes(md, b));
        if (p == NULL) {
            strata_fwd_free(f);
            return -1;
        }
        memcpy((char *)f + b->offset, &p, sizeof p);
        if (b->offset == offsetof(strata_fwd, xq)) {
            f->xq_stride = row_bytes(md, b);
        }
    }
    return 0;
}

void strata_fwd_free(strata_fwd *f) {
    for (size_t i = 0; i < STRATA_FWD_N_BUFFERS; i++) {
        free(buffer_get(f, &BUFFERS[i]));
    }
    memset(f, 0, sizeof *f);
}

/* ---- attention over the pools, one item per (token, query group) ---- */

typedef struct {
    strata_fwd *f;
    int seq, layer, groups;
    size_t pos0;
    float scale;
    int B;
    atomic_int failed;
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

static void att_item_f16(void *ctx, size_t item) {
    att_job *j = ctx;
    const strata_model *md = j->f->md;
    if (strata_attend_f16(j->f->kv, j->seq, j->layer, j->pos0, j->B, j->f->q, (int)md->n_head, (int)item, j->scale,
                          j->f->att) != 0) {
        atomic_store(&j->failed, 1);
    }
}

static void att_item_f16_row(void *ctx, size_t item) {
    att_job *j = ctx;
    const strata_model *md = j->f->md;
    const size_t t = item / md->n_head_kv, Q = (size_t)md->n_head * md->head_dim;
    strata_attend_f16_row(j->f->kv, j->seq, j->layer, j->pos0 + t + 1, j->f->q + t * Q, (int)md->n_head,
                          (int)(item % md->n_head_kv), j->scale, j->f->row_ubatch ? strata_pool_size(j->f->pool) : 0,
                          j->f->att + t * Q);
}

static int cancelled(const strata_fwd *f) {
    return f->cancel != NULL && atomic_load_explicit(f->cancel, memory_order_relaxed) != 0;
}

/* DEBUG dump (STRATA_DUMP=file): {char name[64]; int32 ne[4]; float data[]} records, lc_dump's format */
static FILE *dumpf;
void strata_fwd_dump(const char *name, int l, const float *d, size_t n, int B) {
    if (dumpf == NULL) {
        static int init;
        if (init++ || getenv("STRATA_DUMP") == NULL) return;
        dumpf = fopen(getenv("STRATA_DUMP"), "wb");
    }
    char nm[64] = {0};
    if (l >= 0) snprintf(nm, sizeof nm, "%s-%d", name, l); else snprintf(nm, sizeof nm, "%s", name);
    int32_t ne[4] = {(int32_t)n, B, 1, 1};
    fwrite(nm, 1, 64, dumpf);
    fwrite(ne, 4, 4, dumpf);
    fwrite(d, 4, n * (size_t)B, dumpf);
    fflush(dumpf);
}

/* The residual stream x += t·in of the B tokens (the attention's output projection, the FFN's down projection), with
 * llama.cpp's names of the product and the sum for the dump. */
static void residual(strata_fwd *f, const strata_gguf_tensor *t, const float *in, int B, int l, const char *product,
                     const char *sum) {
    const size_t E = f->md->n_embd;
    strata_matmul_t(f->pool, f->xq, t, in, B, f->ngemm4, f->xb);
    strata_fwd_dump(product, l, f->xb, E, B);
    for (size_t i = 0; i < (size_t)B * E; i++) {
        f->x[i] += f->xb[i];
    }
    strata_fwd_dump(sum, l, f->x, E, B);
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
    strata_fwd_dump("embd", -1, f->x, E, B);
    for (uint32_t l = 0; l < md->n_layer; l++) {
        if (cancelled(f)) {
            return 1;
        }
        const strata_layer_w *w = &md->layers[l];
        for (int t = 0; t < B; t++) {
            strata_rmsnorm(f->xb + (size_t)t * E, f->x + (size_t)t * E, (const float *)w->attn_norm->data, E, md->eps);
        }
        strata_fwd_dump("attn_norm", (int)l, f->xb, E, B);
        strata_matmul_t(f->pool, f->xq, w->wq, f->xb, B, f->ngemm4, f->q);
        strata_matmul_t(f->pool, f->xq, w->wk, f->xb, B, f->ngemm4, f->k);
        strata_matmul_t(f->pool, f->xq, w->wv, f->xb, B, f->ngemm4, f->v);
        strata_fwd_dump("Qmm", (int)l, f->q, Q, B);
        strata_fwd_dump("Kmm", (int)l, f->k, KV, B);
        strata_fwd_dump("Vcur", (int)l, f->v, KV, B);
        for (int t = 0; t < B; t++) {
            for (size_t h = 0; h < H && w->q_norm; h++) strata_rmsnorm(f->q + (size_t)t * Q + h * D, f->q + (size_t)t * Q + h * D, (const float *)w->q_norm->data, D, md->eps);
            for (size_t h = 0; h < HK && w->k_norm; h++) strata_rmsnorm(f->k + (size_t)t * KV + h * D, f->k + (size_t)t * KV + h * D, (const float *)w->k_norm->data, D, md->eps);
        }
        strata_fwd_dump("Qcur_normed", (int)l, f->q, Q, B);
        strata_fwd_dump("Kcur_normed", (int)l, f->k, KV, B);
        strata_add_bias(f->q, w->bq, B, Q);
        strata_add_bias(f->k, w->bk, B, KV);
        strata_add_bias(f->v, w->bv, B, KV);
        for (int t = 0; t < B; t++) {
            for (size_t h = 0; h < H; h++) {
                float *qh = f->q + (size_t)t * Q + h * D;
                strata_rope(qh, pos0 + (size_t)t, md);
            }
            for (size_t h = 0; h < HK; h++) {
                float *kh = f->k + (size_t)t * KV + h * D;
                strata_rope(kh, pos0 + (size_t)t, md);
            }
            if (strata_kv_store(f->kv, seq, (int)l, pos0 + (size_t)t, f->k + (size_t)t * KV, f->v + (size_t)t * KV) != 0) {
                return -1;
            }
        }
        strata_fwd_dump("Qrope", (int)l, f->q, Q, B);
        strata_fwd_dump("Krope", (int)l, f->k, KV, B);
        att_job aj = {f, seq, (int)l, (int)(H / HK), pos0, 1.0f / sqrtf((float)D), B, 0};
        if (f->kv->format == KV_FP16 && f->small_ubatch) { /* llama.cpp's one_chunk path: one item per (token, KV head) */
            strata_pool_run(f->pool, (size_t)B * HK, att_item_f16_row, &aj);
        } else if (f->kv->format == KV_FP16) { /* one item per KV head: its query heads and all B tokens share a tile */
            strata_pool_run(f->pool, (size_t)HK, att_item_f16, &aj);
            if (atomic_load(&aj.failed)) {
                return -1;
            }
        } else {
            strata_pool_run(f->pool, (size_t)B * (H / HK), att_item, &aj);
        }
        strata_fwd_dump("kqv_out", (int)l, f->att, Q, B);
        residual(f, w->wo, f->att, B, (int)l, "wo", "ffn_inp");
        for (int t = 0; t < B; t++) {
            strata_rmsnorm(f->xb + (size_t)t * E, f->x + (size_t)t * E, (const float *)w->ffn_norm->data, E, md->eps);
        }
        strata_fwd_dump("ffn_norm", (int)l, f->xb, E, B);
        if (w->gate_inp != NULL) {
            if (strata_moe_ffn(f, (int)l, B) != 0) {
                return -1;
            }
            strata_fwd_dump("l_out", (int)l, f->x, E, B);
        } else {
            const size_t F = md->n_ff;
            strata_matmul_t(f->pool, f->xq, w->ffn_gate, f->xb, B, f->ngemm4, f->hb);
            strata_matmul_t(f->pool, f->xq, w->ffn_up, f->xb, B, f->ngemm4, f->hb2);
            strata_fwd_dump("ffn_gate", (int)l, f->hb, F, B);
            strata_fwd_dump("ffn_up", (int)l, f->hb2, F, B);
            strata_ggml_swiglu(f->hb, f->hb, f->hb2, (size_t)B * F);
            strata_fwd_dump("ffn_swiglu", (int)l, f->hb, F, B);
            residual(f, w->ffn_down, f->hb, B, (int)l, "ffn_out", "l_out");
        }
    }
    if (logits_from < B && logits != NULL) {
        int nl = B - logits_from;
        for (int t = 0; t < nl; t++) {
            strata_rmsnorm(f->xb + (size_t)t * E, f->x + (size_t)(logits_from + t) * E, (const float *)md->output_norm->data, E,
                    md->eps);
        }
        strata_fwd_dump("result_norm", -1, f->xb, E, nl);
        strata_matmul_t(f->pool, f->xq, md->output, f->xb, nl, nl < f->ngemm4 ? nl : f->ngemm4, logits);
        strata_fwd_dump("result_output", -1, logits, md->n_vocab, nl);
    }
    return 0;
}

/* STRATA_LLAMA_UBATCH, or STRATA_LLAMA_UBATCH=N in the environment (1 or a multiple of STRATA_BATCH: the llama.cpp
 * run to agree with used --ubatch N) */
static size_t llama_ubatch(void) {
    static size_t u;
    if (u == 0) {
        const char *e = getenv("STRATA_LLAMA_UBATCH");
        long v = e != NULL ? strtol(e, NULL, 10) : 0;
        u = v == 1 || (v > 0 && v % STRATA_BATCH == 0) ? (size_t)v : STRATA_LLAMA_UBATCH;
    }
    return u;
}

/* STRATA_ONE_ORDER=1: one arithmetic for every batch (q4_K in the gemv's order, fp16 attention tiled), so that a
 * token's logits do not depend on the batch it came in: llama.cpp's do (its kernels depend on the ubatch's size),
 * and so do strata-ref's by default, to agree with them; the session test's batch = one-at-a-time checks set it. */
static int one_order(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("STRATA_ONE_ORDER");
        v = e != NULL && strcmp(e, "1") == 0;
    }
    return v;
}

int strata_forward(strata_fwd *f, int seq, const int32_t *tokens, size_t n, size_t pos0, size_t logits_from,
                   float *logits) {
    const size_t V = f->md->n_vocab;
    for (size_t b0 = 0; b0 < n; b0 += STRATA_BATCH) {
        int B = (int)(n - b0 < STRATA_BATCH ? n - b0 : STRATA_BATCH);
        int lf = logits_from <= b0 ? 0 : (logits_from - b0 >= (size_t)B ? B : (int)(logits_from - b0));
        float *out = logits != NULL && lf < B ? logits + (b0 + (size_t)lf - logits_from) * V : NULL;
        /* the llama.cpp ubatch holding these tokens: its rows in groups of 4 go through the repacked GEMM, the last
         * n_u % 4 through the gemv (repack.cpp forward_mul_mat_one_chunk) */
        const size_t U = llama_ubatch();
        size_t u0 = b0 / U * U;
        size_t nu = n - u0 < U ? n - u0 : U;
        size_t gend = u0 + nu - nu % 4;
        f->ngemm4 = one_order() || gend <= b0 ? 0 : (gend - b0 >= (size_t)B ? B : (int)(gend - b0));
        /* and its flash attention: tiled from 64 rows, else the f16 one_chunk path (ops.cpp), whose f16 loops are
         * mirrored for llama.cpp's AVX-512 variant only */
        f->small_ubatch = !one_order() && nu < 64 && strcmp(strata_ggml_isa(), "avx512") == 0;
        f->row_ubatch = f->small_ubatch && (nu == 1 || U == 1);
        int rc = batch(f, seq, tokens + b0, B, pos0 + b0, lf, out);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

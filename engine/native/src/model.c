/* model.c — hyper-parameters and weights of a model strata-ref computes (model.h). Keys and tensor names are
 * llama.cpp's (src/llama-arch.cpp: LLM_KV_*, LLM_TENSOR_*); which tensors each architecture needs follows its
 * loader (src/llama-model.cpp, load_tensors). */
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quant.h"

enum { RC_DAMAGED = 2, RC_REFUSED = 3 };

static int failf(char *err, size_t errlen, int rc, const char *path, const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "model: %s: %s", path, what);
    return rc;
}

typedef struct {
    const strata_gguf_map *m;
    const char *path;
    char *err;
    size_t errlen;
    int rc;
} ctx;

/* A tensor by name with its expected shape (ne of 0 = any); required or optional. Checks its type is computable. */
static const strata_gguf_tensor *want(ctx *c, int required, int64_t ne0, int64_t ne1, int64_t ne2, const char *fmt,
                                      ...) {
    if (c->rc != 0) {
        return NULL;
    }
    char name[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    const strata_gguf_tensor *t = strata_gguf_map_tensor(c->m, name);
    if (t == NULL) {
        if (required) {
            c->rc = failf(c->err, c->errlen, RC_DAMAGED, c->path,
                          "tensor %s is missing (the file is damaged or not a complete model)", name);
        }
        return NULL;
    }
    int64_t e[3] = {ne0, ne1, ne2};
    for (int d = 0; d < 3; d++) {
        if (e[d] != 0 && t->ne[d] != e[d]) {
            c->rc = failf(c->err, c->errlen, RC_DAMAGED, c->path,
                          "tensor %s has shape [%lld, %lld, %lld] but the header's keys give [%lld, %lld, %lld] (the file is damaged)",
                          name, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)(e[0] ? e[0] : t->ne[0]),
                          (long long)(e[1] ? e[1] : t->ne[1]), (long long)(e[2] ? e[2] : t->ne[2]));
            return NULL;
        }
    }
    const strata_type_info *ti = strata_type(t->type);
    if (ti == NULL || !ti->computable) {
        c->rc = failf(c->err, c->errlen, RC_REFUSED, c->path,
                      "tensor %s is of type %s, which strata-ref does not compute (it computes %s)", name,
                      ti != NULL ? ti->name : "unknown", strata_types_computable());
        return NULL;
    }
    return t;
}

/* A norm or bias vector must be f32 (llama.cpp's converters write 1-D tensors in f32). */
static const strata_gguf_tensor *want_f32(ctx *c, int required, int64_t n, const char *fmt, int layer) {
    const strata_gguf_tensor *t = want(c, required, n, 0, 0, fmt, layer);
    if (t != NULL && (t->type != GGML_TYPE_F32 || t->n_dims != 1)) {
        c->rc = failf(c->err, c->errlen, RC_REFUSED, c->path, "tensor %s is a %u-D %s tensor; strata-ref reads it as a 1-D f32 vector",
                      t->name, t->n_dims, strata_type(t->type)->name);
        return NULL;
    }
    return t;
}

static int key_u32(ctx *c, const char *arch, const char *suffix, int required, uint32_t dflt, uint32_t *v) {
    char key[128];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    uint64_t x;
    if (!strata_gguf_kv_u64(c->m, key, &x)) {
        if (required && strata_gguf_map_key(c->m, key) == NULL) {
            c->rc = failf(c->err, c->errlen, RC_DAMAGED, c->path, "key %s is missing (the file is not a complete %s model)", key, arch);
            return -1;
        }
        if (strata_gguf_map_key(c->m, key) != NULL) {
            c->rc = failf(c->err, c->errlen, RC_DAMAGED, c->path, "key %s is not a non-negative whole number (the file is damaged)", key);
            return -1;
        }
        *v = dflt;
        return 0;
    }
    if (x > (1u << 30)) {
        c->rc = failf(c->err, c->errlen, RC_DAMAGED, c->path, "key %s is %llu, out of range (the file is damaged)", key,
                      (unsigned long long)x);
        return -1;
    }
    *v = (uint32_t)x;
    return 0;
}

static float key_f32(const strata_gguf_map *m, const char *arch, const char *suffix, float dflt) {
    char key[128];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    float v;
    return strata_gguf_kv_f32(m, key, &v) ? v : dflt;
}

int strata_model_load(const strata_gguf_map *m, strata_model *md, char *err, size_t errlen) {
    memset(md, 0, sizeof *md);
    ctx c = {m, m->shards[0].path, err, errlen, 0};
    const char *a;
    size_t alen;
    if (!strata_gguf_kv_str(m, "general.architecture", &a, &alen)) {
        return failf(err, errlen, RC_DAMAGED, c.path, "key general.architecture is missing (the file is not a model)");
    }
    static const struct { const char *name; int id; } ARCHS[] = {
        {"llama", ARCH_LLAMA}, {"qwen2", ARCH_QWEN2}, {"qwen3", ARCH_QWEN3}, {"qwen3moe", ARCH_QWEN3MOE}};
    md->arch = -1;
    for (size_t i = 0; i < sizeof ARCHS / sizeof ARCHS[0]; i++) {
        if (strlen(ARCHS[i].name) == alen && memcmp(ARCHS[i].name, a, alen) == 0) {
            md->arch = ARCHS[i].id;
            md->arch_name = ARCHS[i].name;
        }
    }
    if (md->arch < 0) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(alen < 48 ? alen : 48), a);
        for (char *p = name; *p; p++) {
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                *p = '?';
            }
        }
        return failf(err, errlen, RC_REFUSED, c.path, "architecture %s is not one strata-ref computes (it computes %s)", name,
                     STRATA_ARCHS_COMPUTED);
    }
    const char *an = md->arch_name;
    if (key_u32(&c, an, "embedding_length", 1, 0, &md->n_embd) || key_u32(&c, an, "block_count", 1, 0, &md->n_layer) ||
        key_u32(&c, an, "attention.head_count", 1, 0, &md->n_head) ||
        key_u32(&c, an, "attention.head_count_kv", 0, md->n_head, &md->n_head_kv)) {
        return c.rc;
    }
    if (md->n_embd == 0 || md->n_layer == 0 || md->n_head == 0 || md->n_head_kv == 0 || md->n_head % md->n_head_kv != 0) {
        return failf(err, errlen, RC_DAMAGED, c.path,
                     "embedding_length %u, block_count %u, head_count %u, head_count_kv %u: each must be > 0 and head_count a multiple of head_count_kv (the file is damaged)",
                     md->n_embd, md->n_layer, md->n_head, md->n_head_kv);
    }
    uint32_t dflt_hd = md->n_embd / md->n_head, vlen;
    if (key_u32(&c, an, "attention.key_length", 0, dflt_hd, &md->head_dim) ||
        key_u32(&c, an, "attention.value_length", 0, md->head_dim, &vlen) ||
        key_u32(&c, an, "rope.dimension_count", 0, md->head_dim, &md->n_rot) ||
        key_u32(&c, an, "feed_forward_length", md->arch != ARCH_QWEN3MOE, 0, &md->n_ff) ||
        key_u32(&c, an, "expert_count", md->arch == ARCH_QWEN3MOE, 0, &md->n_expert) ||
        key_u32(&c, an, "expert_used_count", md->arch == ARCH_QWEN3MOE, 0, &md->n_expert_used) ||
        key_u32(&c, an, "expert_feed_forward_length", md->arch == ARCH_QWEN3MOE, 0, &md->n_ff_exp)) {
        return c.rc;
    }
    if (md->head_dim == 0 || vlen != md->head_dim || md->n_rot == 0 || md->n_rot > md->head_dim || md->n_rot % 2 != 0) {
        return failf(err, errlen, RC_DAMAGED, c.path,
                     "attention.key_length %u, value_length %u, rope.dimension_count %u: strata-ref needs key = value length > 0 and an even rope dimension up to it",
                     md->head_dim, vlen, md->n_rot);
    }
    if (md->arch == ARCH_QWEN3MOE && (md->n_expert == 0 || md->n_expert_used == 0 || md->n_expert_used > md->n_expert ||
                                      md->n_expert > 4096 || md->n_ff_exp == 0)) {
        return failf(err, errlen, RC_DAMAGED, c.path, "expert_count %u, expert_used_count %u, expert_feed_forward_length %u are not a valid MoE (the file is damaged)",
                     md->n_expert, md->n_expert_used, md->n_ff_exp);
    }
    uint32_t ctx_train;
    if (key_u32(&c, an, "context_length", 0, 0, &ctx_train)) {
        return c.rc;
    }
    md->ctx_train = ctx_train;
    md->rope_neox = md->arch != ARCH_LLAMA;
    md->rope_base = key_f32(m, an, "rope.freq_base", 10000.0f);
    md->eps = key_f32(m, an, "attention.layer_norm_rms_epsilon", 1e-5f);
    md->expert_norm = md->arch == ARCH_QWEN3MOE; /* llama.cpp qwen3moe: build_moe_ffn(..., norm_w = true, ...) */

    const int64_t E = md->n_embd, Q = (int64_t)md->n_head * md->head_dim, KV = (int64_t)md->n_head_kv * md->head_dim;
    md->tok_embd = want(&c, 1, E, 0, 0, "token_embd.weight");
    if (c.rc != 0) {
        return c.rc;
    }
    md->n_vocab = (uint32_t)md->tok_embd->ne[1];
    md->output_norm = want_f32(&c, 1, E, "output_norm.weight", 0);
    md->output = want(&c, 0, E, md->n_vocab, 0, "output.weight");
    if (md->output == NULL) {
        md->output = md->tok_embd; /* tied embeddings (LLM_TENSOR_OUTPUT absent: llama.cpp duplicates token_embd) */
    }
    const strata_gguf_tensor *rf = want(&c, 0, md->n_rot / 2, 0, 0, "rope_freqs.weight");
    if (rf != NULL) {
        if (rf->type != GGML_TYPE_F32) {
            return failf(err, errlen, RC_REFUSED, c.path, "tensor rope_freqs.weight is %s; strata-ref reads it as f32",
                         strata_type(rf->type)->name);
        }
        md->rope_freqs = (const float *)rf->data; /* GGUF data is aligned (general.alignment >= 32) */
    }
    md->layers = calloc(md->n_layer, sizeof *md->layers);
    if (md->layers == NULL) {
        return failf(err, errlen, RC_DAMAGED, c.path, "out of memory");
    }
    for (uint32_t l = 0; l < md->n_layer && c.rc == 0; l++) {
        strata_layer_w *w = &md->layers[l];
        int L = (int)l;
        w->attn_norm = want_f32(&c, 1, E, "blk.%d.attn_norm.weight", L);
        w->wq = want(&c, 1, E, Q, 0, "blk.%d.attn_q.weight", L);
        w->wk = want(&c, 1, E, KV, 0, "blk.%d.attn_k.weight", L);
        w->wv = want(&c, 1, E, KV, 0, "blk.%d.attn_v.weight", L);
        w->wo = want(&c, 1, Q, E, 0, "blk.%d.attn_output.weight", L);
        if (md->arch == ARCH_QWEN2) {
            w->bq = want_f32(&c, 1, Q, "blk.%d.attn_q.bias", L);
            w->bk = want_f32(&c, 1, KV, "blk.%d.attn_k.bias", L);
            w->bv = want_f32(&c, 1, KV, "blk.%d.attn_v.bias", L);
        } else if (md->arch == ARCH_LLAMA) {
            /* optional biases, as llama.cpp's llama loader allows */
            w->bq = want_f32(&c, 0, Q, "blk.%d.attn_q.bias", L);
            w->bk = want_f32(&c, 0, KV, "blk.%d.attn_k.bias", L);
            w->bv = want_f32(&c, 0, KV, "blk.%d.attn_v.bias", L);
        }
        if (md->arch == ARCH_QWEN3 || md->arch == ARCH_QWEN3MOE) {
            w->q_norm = want_f32(&c, 1, md->head_dim, "blk.%d.attn_q_norm.weight", L);
            w->k_norm = want_f32(&c, 1, md->head_dim, "blk.%d.attn_k_norm.weight", L);
        }
        w->ffn_norm = want_f32(&c, 1, E, "blk.%d.ffn_norm.weight", L);
        if (md->arch == ARCH_QWEN3MOE) {
            w->gate_inp = want(&c, 1, E, md->n_expert, 0, "blk.%d.ffn_gate_inp.weight", L);
            w->gate_exps = want(&c, 1, E, md->n_ff_exp, md->n_expert, "blk.%d.ffn_gate_exps.weight", L);
            w->up_exps = want(&c, 1, E, md->n_ff_exp, md->n_expert, "blk.%d.ffn_up_exps.weight", L);
            w->down_exps = want(&c, 1, md->n_ff_exp, E, md->n_expert, "blk.%d.ffn_down_exps.weight", L);
        } else {
            w->ffn_gate = want(&c, 1, E, md->n_ff, 0, "blk.%d.ffn_gate.weight", L);
            w->ffn_up = want(&c, 1, E, md->n_ff, 0, "blk.%d.ffn_up.weight", L);
            w->ffn_down = want(&c, 1, md->n_ff, E, 0, "blk.%d.ffn_down.weight", L);
        }
    }
    if (c.rc != 0) {
        strata_model_free(md);
        return c.rc;
    }
    return 0;
}

void strata_model_free(strata_model *md) {
    free(md->layers);
    md->layers = NULL;
}

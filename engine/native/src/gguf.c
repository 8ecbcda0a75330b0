/* gguf.c — a minimal, bounded GGUF v2/v3 reader: just enough metadata and tensor info for the geometry the
 * engine plans (docs/ENGINE-CONTRACT.md, docs/MODELS.md). The per-architecture rules, tensor names, keys and
 * limits come from archs.def, which the build writes from the Java table (dev.strata.engine.model.ArchTable), so this
 * reader and the Java GgufReader/GeometryRules apply one set of rules. Hostile files are expected: every length and count is checked against the bytes
 * left in the file before it is used, nothing is allocated from a count the file claims, arrays may not nest,
 * and each failure is one line naming the file and the problem.
 * This file resolves the geometry and reads every shard (strata_gguf_read); the reader's other files are named in
 * gguf_internal.h. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"

/* The architecture rules after the first shard's metadata: refusals, block counts. */
static int check_arch(rd *r, const meta *m, const arch_row **row) {
    if (!m->have_arch) {
        return gguf_fail(r, "has no general.architecture: not a model (a vocabulary or adapter file?)");
    }
    if (m->arch_bad) {
        return gguf_fail(r, "general.architecture is not an architecture name; the file is damaged");
    }
    *row = NULL;
    for (size_t i = 0; i < COUNT(ARCHES); i++) {
        if (strcmp(ARCHES[i].name, m->arch) == 0) {
            *row = &ARCHES[i];
        }
    }
    int support = *row ? (*row)->support : STRATA_SUPPORT_RUNS;
    if (gguf_find_key(m, KEY_MLA) != NULL || support == STRATA_SUPPORT_MLA) {
        return gguf_fail(r, "%s uses multi-head latent attention (K and V share one compressed latent), which no Strata "
                       "KV format holds; the engine runs per-head K/V attention (docs/MODELS.md)", m->arch);
    }
    if (support == STRATA_SUPPORT_ENCODER) {
        return gguf_fail(r, "%s is an encoder-only (embedding) model: it generates no text; the engine runs decoder "
                       "models (docs/MODELS.md)", m->arch);
    }
    if (support == STRATA_SUPPORT_RECURRENT_ONLY) {
        return gguf_fail(r, "%s is recurrent only (no attention layer, so no KV pool); the engine runs attention models "
                       "and attention/recurrent hybrids (docs/MODELS.md)", m->arch);
    }
    return 0;
}

/* Resolves the geometry from the first shard's metadata and the tensors of every shard. */
static int resolve(rd *r, const meta *m, const arch_row *row, layers_seen *ls, uint64_t block_count, uint64_t nextn,
                   strata_geometry *g) {
    uint64_t v;
    int k;
    /* MTP blocks: llama.cpp counts them in block_count (its last n); a file naming blocks past it counts them after */
    uint64_t blocks = block_count;
    if (nextn > 0 && ls->highest < (int64_t)block_count) {
        if (nextn >= block_count) {
            return gguf_fail(r, "%s.%s is %llu but %s.block_count is only %llu; the file is damaged", m->arch, KEY_NEXTN,
                        (unsigned long long)nextn, m->arch, (unsigned long long)block_count);
        }
        blocks = block_count - nextn;
    }
    uint64_t all = blocks + nextn;
    if (gguf_classify(r, m, row, ls, blocks, block_count)) {
        return -1;
    }
    uint64_t ctx = 0;
    if ((k = gguf_key_u64(r, m, "context_length", UINT64_MAX, &ctx)) < 0) {
        return -1;
    }
    if (k == 1 || ctx == 0) {
        return gguf_fail(r, k == 1 ? "has no %s.context_length; not a model strata can plan for"
                              : "%s.context_length is 0; the file is damaged", m->arch);
    }
    uint64_t experts = 0, used = 0;
    if (gguf_key_u64(r, m, "expert_count", LIM_MAX_SMALL, &experts) < 0 ||
        gguf_key_u64(r, m, "expert_used_count", LIM_MAX_SMALL, &used) < 0) {
        return -1;
    }
    if (experts > 0 && (used < 1 || used > experts)) {
        return gguf_fail(r, "%s.expert_used_count is %llu but it must be 1..%llu (the expert count); the file is damaged",
                    m->arch, (unsigned long long)used, (unsigned long long)experts);
    }
    uint64_t qsa = 0, drafter_kv = 0, recurrent = 0, dense = ls->outside, drafter = 0, moe_layers = 0, slot_max = 0;
    int kind = STRATA_STATE_NONE;
    for (uint64_t n = 0; n < all; n++) {
        blockinfo *b = &ls->bi[n];
        uint64_t exp_bytes = b->legacy_bytes;
        for (int i = 0; i < N_X; i++) {
            exp_bytes += b->per_expert[i] * experts;
        }
        if (n >= blocks) {
            drafter_kv += ls->kv[n];
            drafter += b->other_bytes + exp_bytes;
            continue;
        }
        dense += b->other_bytes;
        int any = b->has[X_GATE] | b->has[X_UP] | b->has[X_DOWN] | b->has[X_GATE_UP] | (b->legacy_bytes > 0);
        if (any) {
            const char *missing = NULL;
            if (b->legacy_bytes == 0) {
                int gate_up = b->has[X_GATE_UP] || (b->has[X_GATE] && b->has[X_UP]);
                missing = !b->has[X_DOWN] ? "ffn_down_exps.weight"
                          : !gate_up      ? (!b->has[X_GATE] ? "ffn_gate_exps.weight" : "ffn_up_exps.weight")
                                          : NULL;
            }
            if (missing != NULL) {
                return gguf_fail(r, "block %llu has expert tensors but no blk.%llu.%s; the model is incomplete",
                            (unsigned long long)n, (unsigned long long)n, missing);
            }
            uint64_t slot = b->legacy_bytes / (experts ? experts : 1);
            for (int i = 0; i < N_X; i++) {
                slot += b->per_expert[i];
            }
            slot_max = slot > slot_max ? slot : slot_max; /* an arena slot holds the largest layer's */
            moe_layers++;
        }
        qsa += ls->kv[n];
        if (ls->state[n]) {
            if (kind != STRATA_STATE_NONE && kind != ls->state[n]) {
                return gguf_fail(r, "mixes ssm_conv1d and shortconv.conv layers; the file is damaged");
            }
            kind = ls->state[n];
            recurrent++;
        }
    }
    if (experts > 0 && moe_layers == 0) {
        return gguf_fail(r, "%s.expert_count is %llu but no block holds expert tensors (ffn_gate_exps/ffn_up_exps/"
                       "ffn_down_exps, ffn_gate_up_exps or ffn_gate.E/ffn_up.E/ffn_down.E); the model is incomplete",
                    m->arch, (unsigned long long)experts);
    }
    if (qsa == 0) {
        return gguf_fail(r, "%s has no attention layer (no blk.N.attn_k or attn_qkv tensor); the engine runs models with "
                       "attention KV pools (docs/MODELS.md)", m->arch);
    }
    /* KV heads, per layer or one value, over the main and drafter attention layers */
    uint64_t kv = 0, heads = 0;
    int have_kv = gguf_key_per_layer(r, m, "attention.head_count_kv", block_count, ls->kv, all, &kv);
    int have_heads = gguf_key_per_layer(r, m, "attention.head_count", block_count, ls->kv, all, &heads);
    if (have_kv < 0 || have_heads < 0) {
        return -1;
    }
    if (have_kv == 1) {
        kv = have_heads == 0 ? heads : 0; /* llama.cpp's default: as many KV heads as heads */
    }
    if (have_kv == 0 && kv == 0) {
        return gguf_fail(r, "%s.attention.head_count_kv is 0 but the model has attention layers, which need at least one "
                       "KV head; the file is damaged", m->arch);
    }
    if (kv < 1) {
        return gguf_fail(r, "has attention layers but no %s.attention.head_count_kv; not a model strata can plan for",
                    m->arch);
    }
    uint64_t dims[2];
    const char *dim_keys[2] = {"attention.key_length", "attention.value_length"};
    for (int i = 0; i < 2; i++) {
        uint64_t width = 0;
        if ((k = gguf_key_u64(r, m, dim_keys[i], LIM_MAX_SMALL, &dims[i])) < 0) {
            return -1;
        }
        if (k == 0 && dims[i] == 0) {
            return gguf_fail(r, "%s.%s is 0, but an attention head needs at least one value; the file is damaged", m->arch,
                        dim_keys[i]);
        }
        if (k == 1) {
            dims[i] = 0;
            if (gguf_key_u64(r, m, "embedding_length", UINT64_MAX, &width) < 0) {
                return -1;
            }
            if (width > 0 && have_heads == 0 && heads > 0 && width % heads == 0) {
                dims[i] = width / heads; /* llama.cpp's default head size */
            }
        }
        if (dims[i] < 1) {
            return gguf_fail(r, "has attention layers but no %s.%s (nor embedding_length and head_count to derive it); not "
                           "a model strata can plan for", m->arch, dim_keys[i]);
        }
    }
    uint64_t window = 0;
    if (gguf_key_u64(r, m, "attention.sliding_window", LIM_MAX_WINDOW, &window) < 0) {
        return -1;
    }
    int pattern = row ? row->swa_pattern : 0;
    uint64_t swa = 0;
    for (uint64_t n = 0; n < blocks && window > 0; n++) {
        if (ls->kv[n] && (pattern == 1 || (pattern > 1 && n % (uint64_t)pattern < (uint64_t)pattern - 1))) {
            swa++;
        }
    }
    uint64_t state = 0;
    if (recurrent > 0) {
        uint64_t kv_[8] = {0};
        for (size_t i = 0; i < COUNT(STATE_KEYS); i++) {
            if (STATE_KEYS[i].kind != kind) {
                continue;
            }
            if ((k = gguf_key_u64(r, m, STATE_KEYS[i].key, LIM_MAX_WINDOW, &kv_[STATE_KEYS[i].index])) < 0) {
                return -1;
            }
            if (k == 1) {
                return gguf_fail(r, "has recurrent layers but no %s.%s; not a model strata can plan for", m->arch,
                            STATE_KEYS[i].key);
            }
        }
        /* llama.cpp's n_embd_r() + n_embd_s() in f32 (src/llama-hparams.cpp; docs/MODELS.md) */
        uint64_t conv = kv_[0] > 0 ? kv_[0] - 1 : 0;
        if (kind == STRATA_STATE_SSM) {
            state = 4 * (conv * (kv_[1] + 2 * kv_[3] * kv_[2]) + kv_[2] * kv_[1]);
        } else {
            state = 4 * kv_[1] * conv;
        }
    }
    g->blocks = (uint32_t)blocks;
    g->kv_heads = (uint32_t)kv;
    g->head_dim = (uint32_t)dims[0];
    g->head_dim_v = (uint32_t)dims[1];
    g->qsa_layers = (uint32_t)qsa;
    g->swa_layers = (uint32_t)swa;
    g->swa_window = swa > 0 ? window : 0;
    g->recurrent_layers = (uint32_t)recurrent;
    g->state_bytes_per_layer = state;
    g->drafter_blocks = (uint32_t)nextn;
    g->drafter_kv_layers = (uint32_t)drafter_kv;
    g->context_length = ctx;
    g->experts = (uint32_t)experts;
    g->experts_used = experts > 0 ? (uint32_t)used : 0;
    g->moe_layers = (uint32_t)moe_layers;
    g->expert_bytes = slot_max;
    g->dense_bytes = dense;
    g->drafter_bytes = drafter;
    if (gguf_find_key(m, "full_attention_interval") != NULL && gguf_key_u64(r, m, "full_attention_interval", UINT32_MAX, &v) == 0) {
        g->full_attention_interval = (uint32_t)v;
    }
    return 0;
}

int strata_gguf_geometry(const char *path, strata_geometry *g, char *err, size_t errlen) {
    return strata_gguf_read(path, g, NULL, err, errlen);
}

int strata_gguf_read(const char *path, strata_geometry *g, strata_expert_index *ix, char *err, size_t errlen) {
    rd r;
    meta m;
    uint64_t n_tensors;
    layers_seen ls;
    char *shard = NULL;
    int rc = -1;
    memset(g, 0, sizeof *g);
    if (ix != NULL) {
        memset(ix, 0, sizeof *ix);
    }
    memset(&m, 0, sizeof m);
    memset(&ls, 0, sizeof ls);
    ls.highest = -1;
    if (gguf_open_rd(&r, path, err, errlen)) {
        return -1;
    }
    if (gguf_read_header_and_meta(&r, &m, &n_tensors)) {
        goto out;
    }
    if (m.old_split && !m.have_split_count) {
        gguf_fail(&r, "carries the old split keys general.split* (an early gguf-split format that llama.cpp no longer "
                 "reads; the file is whole, its format is old): merge the shards with the gguf-split that wrote "
                 "them (gguf-split --merge) and re-split the merged file with a current llama.cpp's gguf-split (or "
                 "pass it whole)");
        goto out;
    }
    uint64_t count = m.have_split_count ? m.split_count : 1;
    if (count == 0 || count > MAX_SHARDS) {
        gguf_fail(&r, "split.count = %llu is out of range (1..%llu)", (unsigned long long)count,
             (unsigned long long)MAX_SHARDS);
        goto out;
    }
    if (m.have_split_no && m.split_no != 0) {
        gguf_fail(&r, "this is shard %llu of the split set; --model must name the first shard (-00001-of-)",
             (unsigned long long)m.split_no + 1);
        goto out;
    }
    const arch_row *row = NULL;
    uint64_t block_count = 0, nextn = 0;
    int k;
    if (n_tensors == 0 && count == 1) {
        gguf_fail(&r, "holds no tensors: a tokenizer file, not model weights; pass the model's .gguf file");
        goto out;
    }
    if (check_arch(&r, &m, &row)) {
        goto out;
    }
    if ((k = gguf_key_u64(&r, &m, "block_count", UINT64_MAX, &block_count)) < 0) {
        goto out;
    }
    if (k == 1 || block_count == 0 || block_count > MAX_BLOCKS) {
        gguf_fail(&r, k == 1 ? "has no %s.block_count; not a model strata can plan for"
                        : "%s.block_count is out of range (1..65536); the file is damaged", m.arch);
        goto out;
    }
    if (gguf_key_u64(&r, &m, KEY_NEXTN, LIM_MAX_SMALL, &nextn) < 0) {
        goto out;
    }
    uint64_t experts = 0;
    if (gguf_key_u64(&r, &m, "expert_count", LIM_MAX_SMALL, &experts) < 0) {
        goto out;
    }
    /* bounded: block_count and nextn are at most 65,536 each */
    ls.cap = block_count + nextn;
    ls.kv = calloc((size_t)ls.cap, 1);
    ls.state = calloc((size_t)ls.cap, 1);
    ls.bi = calloc((size_t)ls.cap, sizeof *ls.bi);
    if (ls.kv == NULL || ls.state == NULL || ls.bi == NULL) {
        gguf_fail(&r, "out of memory");
        goto out;
    }
    if (gguf_read_tensor_infos(&r, n_tensors, &ls, m.arch, block_count, experts, 0) || gguf_place_data(&r, &m, &ls, 0)) {
        goto out;
    }
    fclose(r.f);
    r.f = NULL;
    if (count > 1) {
        long at = gguf_split_suffix(path);
        if (at < 0) {
            gguf_fail(&r, "split.count = %llu but the name does not end in -00001-of-%05llu.gguf",
                 (unsigned long long)count, (unsigned long long)count);
            goto out;
        }
        size_t plen = strlen(path);
        shard = malloc(plen + 1);
        if (shard == NULL) {
            gguf_fail(&r, "out of memory");
            goto out;
        }
        for (uint64_t s_k = 1; s_k < count; s_k++) {
            memcpy(shard, path, plen + 1);
            char num[64];
            snprintf(num, sizeof num, "-%05llu-of-%05llu.gguf", (unsigned long long)s_k + 1, (unsigned long long)count);
            if (strlen(num) != 20) {
                gguf_fail(&r, "split.count = %llu does not fit the 5-digit shard names", (unsigned long long)count);
                goto out;
            }
            memcpy(shard + at, num, 20);
            rd s;
            meta sm;
            uint64_t st;
            memset(&sm, 0, sizeof sm);
            if (gguf_open_rd(&s, shard, err, errlen)) {
                snprintf(err + strlen(err), errlen - strlen(err), " [shard %llu of %llu]", (unsigned long long)s_k + 1,
                         (unsigned long long)count);
                goto out;
            }
            int bad = gguf_read_header_and_meta(&s, &sm, &st);
            if (!bad && (!sm.have_split_count || sm.split_count != count || !sm.have_split_no || sm.split_no != s_k)) {
                bad = gguf_fail(&s, "split keys say shard %llu of %llu, expected shard %llu of %llu (a shard from another set?)",
                           (unsigned long long)(sm.have_split_no ? sm.split_no + 1 : 0),
                           (unsigned long long)(sm.have_split_count ? sm.split_count : 0), (unsigned long long)s_k + 1,
                           (unsigned long long)count);
            }
            if (!bad) {
                bad = gguf_read_tensor_infos(&s, st, &ls, m.arch, block_count, experts, (uint32_t)s_k) ||
                      gguf_place_data(&s, &sm, &ls, (uint32_t)s_k);
            }
            gguf_meta_free(&sm);
            fclose(s.f);
            if (bad) {
                goto out;
            }
        }
    }
    if (ls.tensors == 0) {
        gguf_fail(&r, "holds no tensors: a tokenizer file, not model weights; pass the model's .gguf file");
        goto out;
    }
    if (resolve(&r, &m, row, &ls, block_count, nextn, g)) {
        goto out;
    }
    if (ix != NULL && g->moe_layers > 0) {
        ix->layers = calloc(g->moe_layers, sizeof *ix->layers);
        if (ix->layers == NULL) {
            gguf_fail(&r, "out of memory");
            goto out;
        }
        uint32_t j = 0;
        for (uint64_t n = 0; n < g->blocks && j < g->moe_layers; n++) {
            blockinfo *b = &ls.bi[n];
            if (!(b->has[X_GATE] | b->has[X_UP] | b->has[X_DOWN] | b->has[X_GATE_UP])) {
                continue;
            }
            ix->layers[j].block = (uint32_t)n;
            /* t[0..2] = gate, up, down; a merged gate_up stands in t[0] whole and t[1] is empty */
            ix->layers[j].t[0] = b->has[X_GATE_UP] ? b->where[X_GATE_UP] : b->where[X_GATE];
            ix->layers[j].t[1] = b->where[X_UP];
            if (b->has[X_GATE_UP]) {
                ix->layers[j].t[1] = b->where[X_GATE_UP];
                ix->layers[j].t[1].bytes_per_expert = 0;
            }
            ix->layers[j].t[2] = b->where[X_DOWN];
            j++;
        }
        ix->n_layers = j;
    }
    snprintf(g->arch, sizeof g->arch, "%s", m.arch);
    g->shards = (uint32_t)count;
    rc = 0;
out:
    if (r.f != NULL) {
        fclose(r.f);
    }
    if (rc != 0) {
        memset(g, 0, sizeof *g);
    }
    if (rc != 0 && ix != NULL) {
        strata_expert_index_free(ix);
    }
    gguf_meta_free(&m);
    free(ls.kv);
    free(ls.state);
    free(ls.bi);
    free(shard);
    return rc;
}

void strata_expert_index_free(strata_expert_index *ix) {
    if (ix != NULL) {
        free(ix->layers);
        ix->layers = NULL;
        ix->n_layers = 0;
    }
}

int strata_gguf_shard_path(const char *first, uint32_t k, uint32_t count, char *buf, size_t cap) {
    size_t plen = strlen(first);
    if (count <= 1) {
        return snprintf(buf, cap, "%s", first) < (int)cap ? 0 : -1;
    }
    long at = gguf_split_suffix(first);
    if (at < 0 || plen + 1 > cap || k >= count) {
        return -1;
    }
    memcpy(buf, first, plen + 1);
    char num[64];
    snprintf(num, sizeof num, "-%05u-of-%05u.gguf", k + 1, count);
    if (strlen(num) != 20) {
        return -1;
    }
    memcpy(buf + at, num, 20);
    return 0;
}

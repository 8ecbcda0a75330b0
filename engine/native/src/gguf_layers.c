/* gguf_layers.c — the GGUF reader's layer classification (gguf_internal.h): which blocks are attention, recurrent
 * or the MTP drafter's, by the architecture's rule (archs.def), each refusal naming the blocks it found. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"

/* Blocks n < count with sel[n] == want, as the Java LayerPattern.brief lists them: "[0, 1, 2, …, 27]". */
static const char *brief(const uint8_t *sel, uint64_t count, int want, char *buf, size_t len) {
    uint64_t total = 0, last = 0;
    for (uint64_t n = 0; n < count; n++) {
        if ((sel[n] != 0) == want) {
            total++;
            last = n;
        }
    }
    if (total == 0) {
        snprintf(buf, len, "none");
        return buf;
    }
    size_t at = 0;
    uint64_t shown = 0;
    at += (size_t)snprintf(buf + at, len - at, "[");
    for (uint64_t n = 0; n < count && at < len; n++) {
        if ((sel[n] != 0) != want) {
            continue;
        }
        if (total > 6 && shown == 3) {
            at += (size_t)snprintf(buf + at, len - at, ", …, %llu", (unsigned long long)last);
            break;
        }
        at += (size_t)snprintf(buf + at, len - at, shown ? ", %llu" : "%llu", (unsigned long long)n);
        shown++;
    }
    if (at < len) {
        snprintf(buf + at, len - at, "]");
    }
    return buf;
}

/* "block 3" or "blocks [0, 2]" (LayerPattern.listed); *one says which. */
static const char *listed(const uint8_t *sel, uint64_t count, char *buf, size_t len, int *one) {
    uint64_t total = 0, at = 0;
    for (uint64_t n = 0; n < count; n++) {
        total += sel[n] != 0;
        at = sel[n] && total == 1 ? n : at;
    }
    *one = total == 1;
    if (*one) {
        snprintf(buf, len, "block %llu", (unsigned long long)at);
        return buf;
    }
    char list[160];
    snprintf(buf, len, "blocks %s", brief(sel, count, 1, list, sizeof list));
    return buf;
}

#define KV_NAMES "blk.N.attn_k.weight or blk.N.attn_qkv.weight"

/* Which main blocks are attention layers: the row's layer rule (archs.def, the Java ArchTable.Layers and
 * LayerPattern), the pattern from the keys first, as llama.cpp's loaders decide it, then each block's tensors
 * checked against its kind. Leaves ls->kv[n] = 1 exactly for the attention layers (main blocks by the rule,
 * drafter blocks by their tensors) and ls->state only on recurrent layers. */
int gguf_classify(rd *r, const meta *m, const arch_row *row, layers_seen *ls, uint64_t blocks, uint64_t block_count) {
    int rule = row ? row->layers : STRATA_LAYERS_TENSORS;
    uint8_t *want = calloc(blocks ? blocks : 1, 1), *miss = calloc(blocks ? blocks : 1, 1);
    char a[160], b[160], key[128];
    int rc = -1, any_kv = 0, one = 0;
    uint64_t v = 0;
    int k;
    if (want == NULL || miss == NULL) {
        gguf_fail(r, "out of memory");
        goto out;
    }
    for (uint64_t n = 0; n < blocks; n++) {
        any_kv |= ls->kv[n] != 0;
    }
    if (rule == STRATA_LAYERS_TENSORS) {
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = ls->kv[n] != 0;
        }
        if ((k = gguf_key_u64(r, m, "full_attention_interval", UINT64_MAX, &v)) < 0) {
            goto out;
        }
        if (k == 0 && v == 0) {
            gguf_fail(r, "%s.full_attention_interval is 0; the file is damaged", m->arch);
            goto out;
        }
        for (uint64_t n = 0; n < blocks && k == 0; n++) {
            miss[n] = (n + 1) % v == 0;
            if (miss[n] != want[n]) {
                for (uint64_t i = n; i < blocks; i++) {
                    miss[i] = (i + 1) % v == 0;
                }
                gguf_fail(r, "%s.full_attention_interval %llu means attention layers %s but " KV_NAMES " exists for %s; the "
                        "model is damaged", m->arch, (unsigned long long)v, brief(miss, blocks, 1, a, sizeof a),
                     brief(want, blocks, 1, b, sizeof b));
                goto out;
            }
        }
    } else if (rule == STRATA_LAYERS_ALL) {
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = any_kv; /* none at all: "has no attention layer", below */
            miss[n] = any_kv && ls->kv[n] == 0;
        }
        if (any_kv && memchr(miss, 1, blocks) != NULL) {
            listed(miss, blocks, a, sizeof a, &one);
            gguf_fail(r, "%s has an attention layer in every block (as llama.cpp's %s loader reads it) but %s %s no " KV_NAMES
                    "; the model is incomplete", m->arch, m->arch, a, one ? "has" : "have");
            goto out;
        }
        snprintf(key, sizeof key, "%s has no recurrent layer", m->arch);
    } else if (rule == STRATA_LAYERS_INTERVAL) {
        if ((k = gguf_key_u64(r, m, "full_attention_interval", UINT64_MAX, &v)) < 0) {
            goto out;
        }
        if (k == 0 && v == 0) {
            gguf_fail(r, "%s.full_attention_interval is 0; the file is damaged", m->arch);
            goto out;
        }
        if (k == 1) {
            v = 4; /* llama.cpp's default */
            snprintf(key, sizeof key, "%s.full_attention_interval (absent: llama.cpp's default 4)", m->arch);
        } else {
            snprintf(key, sizeof key, "%s.full_attention_interval %llu", m->arch, (unsigned long long)v);
        }
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = (n + 1) % v == 0;
            miss[n] = want[n] && ls->kv[n] == 0;
        }
        if (memchr(want, 1, blocks) == NULL) {
            gguf_fail(r, "%s puts no attention layer in its %llu blocks; the engine runs models with attention KV pools "
                    "(docs/MODELS.md)", key, (unsigned long long)blocks);
            goto out;
        }
        if (memchr(miss, 1, blocks) != NULL) {
            listed(miss, blocks, b, sizeof b, &one);
            gguf_fail(r, "%s means attention layers %s but %s %s no " KV_NAMES "; the model is damaged", key,
                 brief(want, blocks, 1, a, sizeof a), b, one ? "has" : "have");
            goto out;
        }
        unsigned linear_ok = 0;
        for (size_t i = 0; i < COUNT(KV_TENSORS); i++) {
            for (size_t j = 0; j < COUNT(LINEAR_KV_TENSORS); j++) {
                linear_ok |= strcmp(KV_TENSORS[i], LINEAR_KV_TENSORS[j]) == 0 ? 1u << i : 0;
            }
        }
        for (uint64_t n = 0; n < blocks; n++) {
            miss[n] = !want[n] && (ls->kv[n] & ~linear_ok) != 0;
        }
        if (memchr(miss, 1, blocks) != NULL) {
            gguf_fail(r, "%s means linear-attention (recurrent) layers %s but blk.N.attn_k.weight exists for %s; the model "
                    "is damaged", key, brief(want, blocks, 0, a, sizeof a), brief(miss, blocks, 1, b, sizeof b));
            goto out;
        }
        snprintf(key + strlen(key), sizeof key - strlen(key), " means attention layers %s",
                 brief(want, blocks, 1, a, sizeof a));
    } else { /* STRATA_LAYERS_KV_HEADS: a block given 0 KV heads is recurrent */
        const captured *c = gguf_find_key(m, "attention.head_count_kv");
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = 1;
        }
        if (c != NULL && c->type == GGUF_T_ARRAY) {
            if (c->elems == NULL || c->length != block_count) {
                gguf_fail(r, "%s.attention.head_count_kv is an array of %llu, expected one integer per block (%llu)",
                     m->arch, (unsigned long long)c->length, (unsigned long long)block_count);
                goto out;
            }
            for (uint64_t n = 0; n < blocks; n++) {
                want[n] = c->elems[n] != 0;
            }
        }
        if (memchr(want, 1, blocks) != NULL) {
            for (uint64_t n = 0; n < blocks; n++) {
                miss[n] = want[n] && ls->kv[n] == 0;
            }
            if (memchr(miss, 1, blocks) != NULL) {
                listed(miss, blocks, a, sizeof a, &one);
                gguf_fail(r, "%s.attention.head_count_kv gives %s KV heads but %s no " KV_NAMES "; the model is damaged",
                     m->arch, a, one ? "it has" : "they have");
                goto out;
            }
            for (uint64_t n = 0; n < blocks; n++) {
                miss[n] = !want[n] && ls->kv[n] != 0;
            }
            if (memchr(miss, 1, blocks) != NULL) {
                listed(miss, blocks, a, sizeof a, &one);
                gguf_fail(r, "%s.attention.head_count_kv gives %s 0 KV heads (recurrent layers) but %s " KV_NAMES "; the "
                        "model is damaged", m->arch, a, one ? "it holds" : "they hold");
                goto out;
            }
        }
        snprintf(key, sizeof key, "%s.attention.head_count_kv gives attention layers %s", m->arch,
                 brief(want, blocks, 1, a, sizeof a));
    }
    for (uint64_t n = 0; n < blocks && rule != STRATA_LAYERS_TENSORS; n++) {
        if (want[n] && ls->state[n]) {
            for (size_t i = 0; i < COUNT(STATE_TENSORS); i++) {
                if (STATE_TENSORS[i].kind == ls->state[n]) {
                    gguf_fail(r, "%s but blk.%llu.%s (a recurrent layer's) exists; the model is damaged", key,
                         (unsigned long long)n, STATE_TENSORS[i].name);
                    goto out;
                }
            }
        }
    }
    for (uint64_t n = 0; n < ls->cap; n++) {
        ls->kv[n] = n < blocks ? want[n] : ls->kv[n] != 0;
    }
    rc = 0;
out:
    free(want);
    free(miss);
    return rc;
}

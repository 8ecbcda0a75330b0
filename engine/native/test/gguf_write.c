/* gguf_write.c — see gguf_write.h. Tensor data is not written; a sized model is extended (sparse zeros) to hold it. */
#define _POSIX_C_SOURCE 200809L
#include "gguf_write.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

gguf_model gguf_seed_model(int shards) {
    gguf_model m = {"qwen3next", shards, 48, 2, 256, 4, 4, 0};
    return m;
}

static void u32(FILE *f, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}
static void u64(FILE *f, uint64_t v) {
    u32(f, (uint32_t)v);
    u32(f, (uint32_t)(v >> 32));
}
static void str(FILE *f, const char *s) {
    u64(f, strlen(s));
    fwrite(s, 1, strlen(s), f);
}
static void kv_u32(FILE *f, const char *k, uint32_t v) {
    str(f, k);
    u32(f, 4);
    u32(f, v);
}
/* kv_u32 of the key "<arch>.<suffix>". */
static void kv_arch_u32(FILE *f, const char *arch, const char *suffix, uint32_t v) {
    char key[256];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    kv_u32(f, key, v);
}
static void kv_u16(FILE *f, const char *k, uint16_t v) {
    str(f, k);
    u32(f, 2);
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    fwrite(b, 1, 2, f);
}
static void kv_i32(FILE *f, const char *k, int32_t v) {
    str(f, k);
    u32(f, 5);
    u32(f, (uint32_t)v);
}
static void kv_str(FILE *f, const char *k, const char *v) {
    str(f, k);
    u32(f, 8);
    str(f, v);
}
static void tensor(FILE *f, const char *name, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t *offset) {
    str(f, name);
    u32(f, d2 ? 3 : 2);
    u64(f, d0);
    u64(f, d1);
    if (d2) {
        u64(f, d2);
    }
    u32(f, 1); /* F16 */
    u64(f, *offset);
    *offset += ((d0 * d1 * (d2 ? d2 : 1) * 2) + 31) / 32 * 32;
}

/* Shard k of n: NAME.gguf alone, else NAME-0000k-of-0000n.gguf (gguf-split's names); the first one's path in first. */
static FILE *open_shard(const char *dir, const char *stem, int k, int n, char *first, size_t cap) {
    char path[1024];
    if (n == 1) {
        snprintf(path, sizeof path, "%s/%s.gguf", dir, stem);
    } else {
        snprintf(path, sizeof path, "%s/%s-%05d-of-%05d.gguf", dir, stem, k + 1, n);
    }
    if (k == 0) {
        snprintf(first, cap, "%s", path);
    }
    return fopen(path, "wb");
}

int gguf_write_model(const char *dir, const char *stem, const gguf_model *m, char *first, size_t cap) {
    int n = m->shards < 1 ? 1 : m->shards;
    for (int k = 0; k < n; k++) {
        FILE *f = open_shard(dir, stem, k, n, first, cap);
        if (f == NULL) {
            return -1;
        }
        int b0 = k * m->blocks / n, b1 = (k + 1) * m->blocks / n;
        uint64_t n_tensors = 0;
        for (int b = b0; b < b1; b++) {
            n_tensors += ((b + 1) % m->qsa_every == 0) ? 4 : 1;
            n_tensors += 3;
        }
        uint64_t n_kv = k == 0 ? 11 + (m->interval ? 1 : 0) : 1;
        n_kv += n > 1 ? 3 : 0;
        fwrite("GGUF", 1, 4, f);
        u32(f, 3);
        u64(f, n_tensors);
        u64(f, n_kv);
        if (k == 0) {
            kv_str(f, "general.architecture", m->arch);
            kv_arch_u32(f, m->arch, "block_count", (uint32_t)m->blocks);
            kv_arch_u32(f, m->arch, "context_length", 262144);
            kv_arch_u32(f, m->arch, "embedding_length", 2048);
            kv_arch_u32(f, m->arch, "attention.head_count_kv", (uint32_t)m->kv_heads);
            kv_arch_u32(f, m->arch, "attention.key_length", (uint32_t)m->head_dim);
            kv_arch_u32(f, m->arch, "attention.value_length", (uint32_t)m->head_dim);
            kv_arch_u32(f, m->arch, "attention.head_count", 16);
            kv_arch_u32(f, m->arch, "expert_count", 512);
            kv_arch_u32(f, m->arch, "expert_used_count", 10);
            if (m->interval) {
                kv_arch_u32(f, m->arch, "full_attention_interval", (uint32_t)m->interval);
            }
        } else {
            kv_str(f, "general.architecture", m->arch);
        }
        if (k == 0) {
            /* a string array, as real files carry (the tokenizer), to exercise the skipping */
            str(f, "tokenizer.ggml.tokens");
            u32(f, 9);
            u32(f, 8);
            u64(f, 3);
            str(f, "a");
            str(f, "bc");
            str(f, "def");
        }
        if (n > 1) {
            kv_u16(f, "split.no", (uint16_t)k);
            kv_u16(f, "split.count", (uint16_t)n);
            kv_i32(f, "split.tensors.count", 0);
        }
        uint64_t off = 0;
        for (int b = b0; b < b1; b++) {
            char name[64];
            if ((b + 1) % m->qsa_every == 0) {
                snprintf(name, sizeof name, "blk.%d.attn_q.weight", b);
                tensor(f, name, 2048, 8192, 0, &off);
                snprintf(name, sizeof name, "blk.%d.attn_k.weight", b);
                tensor(f, name, 2048, (uint64_t)m->kv_heads * m->head_dim, 0, &off);
                snprintf(name, sizeof name, "blk.%d.attn_v.weight", b);
                tensor(f, name, 2048, (uint64_t)m->kv_heads * m->head_dim, 0, &off);
                snprintf(name, sizeof name, "blk.%d.attn_output.weight", b);
                tensor(f, name, 4096, 2048, 0, &off);
            } else {
                snprintf(name, sizeof name, "blk.%d.ssm_in.weight", b);
                tensor(f, name, 2048, 12288, 0, &off);
            }
            snprintf(name, sizeof name, "blk.%d.ffn_gate_exps.weight", b);
            tensor(f, name, 256, 16, 512, &off);
            snprintf(name, sizeof name, "blk.%d.ffn_up_exps.weight", b);
            tensor(f, name, 256, 16, 512, &off);
            snprintf(name, sizeof name, "blk.%d.ffn_down_exps.weight", b);
            tensor(f, name, 16, 256, 512, &off);
        }
        if (m->sized) {
            /* the data section starts at the end of the infos, aligned to 32 (GGUF's default alignment) */
            long end = ftell(f);
            if (end < 0 || fflush(f) != 0 || ftruncate(fileno(f), (off_t)(((uint64_t)end + 31) / 32 * 32 + off)) != 0) {
                fclose(f);
                return -1;
            }
        }
        if (fclose(f) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- tiny computable models ---- */

typedef struct {
    char name[64];
    uint64_t ne[3];
    int n_dims;
    int norm; /* 1: all ones (a norm's weight) */
} tiny_tensor;

enum { TINY_MAX_TENSORS = 64 };

gguf_tiny gguf_tiny_model(const char *arch, int shards) {
    int moe = strcmp(arch, "qwen3moe") == 0;
    gguf_tiny t = {arch, shards, 2, 64, 2, 2, 256, moe ? 0 : 128, moe ? 8 : 0, moe ? 2 : 0, moe ? 32 : 0, 256,
                   0x5eed0001ull};
    return t;
}

static void add_t(tiny_tensor *ts, int *n, int norm, int n_dims, uint64_t d0, uint64_t d1, uint64_t d2,
                  const char *name) {
    tiny_tensor *x = &ts[(*n)++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->ne[0] = d0;
    x->ne[1] = d1;
    x->ne[2] = d2;
    x->n_dims = n_dims;
    x->norm = norm;
}

static uint64_t tiny_bytes(const tiny_tensor *x) {
    return x->ne[0] * (x->n_dims > 1 ? x->ne[1] : 1) * (x->n_dims > 2 ? x->ne[2] : 1) * 4;
}

static void kv_f32(FILE *f, const char *k, float v) {
    str(f, k);
    u32(f, 6);
    uint32_t b;
    memcpy(&b, &v, 4);
    u32(f, b);
}

/* GPT-2's bytes_to_unicode: the printable bytes stand for themselves, the others for 256 + n in order; as UTF-8. */
static void byte_token(int b, char *out) {
    int cp = b;
    if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))) {
        int n = 0;
        for (int x = 0; x < b; x++) {
            n += !((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255));
        }
        cp = 256 + n;
    }
    if (cp < 0x80) {
        out[0] = (char)cp;
        out[1] = '\0';
    } else {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        out[2] = '\0';
    }
}

/* A byte-level BPE vocabulary of the 256 byte tokens and no merges (tokenizer.ggml.model gpt2). */
static void tiny_vocab(FILE *f, int vocab) {
    kv_str(f, "tokenizer.ggml.model", "gpt2");
    kv_str(f, "tokenizer.ggml.pre", "gpt-2");
    str(f, "tokenizer.ggml.tokens");
    u32(f, 9);
    u32(f, 8);
    u64(f, (uint64_t)vocab);
    for (int i = 0; i < vocab; i++) {
        char tok[16];
        if (i < 256) {
            byte_token(i, tok);
        } else {
            snprintf(tok, sizeof tok, "<x%d>", i);
        }
        str(f, tok);
    }
    str(f, "tokenizer.ggml.merges");
    u32(f, 9);
    u32(f, 8);
    u64(f, 0);
}

int gguf_write_tiny(const char *dir, const char *stem, const gguf_tiny *t, char *first, size_t cap) {
    tiny_tensor ts[TINY_MAX_TENSORS];
    int nt = 0;
    const uint64_t E = (uint64_t)t->embd, Q = (uint64_t)t->heads * t->head_dim, KV = (uint64_t)t->kv_heads * t->head_dim;
    const int moe = t->experts > 0;
    char name[64];
    add_t(ts, &nt, 0, 2, E, (uint64_t)t->vocab, 0, "token_embd.weight");
    add_t(ts, &nt, 1, 1, E, 0, 0, "output_norm.weight");
    for (int b = 0; b < t->blocks && nt + 16 <= TINY_MAX_TENSORS; b++) {
#define T(norm, nd, d0, d1, d2, suffix)                                   \
    do {                                                                  \
        snprintf(name, sizeof name, "blk.%d.%s", b, suffix);             \
        add_t(ts, &nt, norm, nd, d0, d1, d2, name);                       \
    } while (0)
        T(1, 1, E, 0, 0, "attn_norm.weight");
        T(0, 2, E, Q, 0, "attn_q.weight");
        T(0, 2, E, KV, 0, "attn_k.weight");
        T(0, 2, E, KV, 0, "attn_v.weight");
        T(0, 2, Q, E, 0, "attn_output.weight");
        T(1, 1, (uint64_t)t->head_dim, 0, 0, "attn_q_norm.weight");
        T(1, 1, (uint64_t)t->head_dim, 0, 0, "attn_k_norm.weight");
        T(1, 1, E, 0, 0, "ffn_norm.weight");
        if (moe) {
            T(0, 2, E, (uint64_t)t->experts, 0, "ffn_gate_inp.weight");
            T(0, 3, E, (uint64_t)t->ff_exp, (uint64_t)t->experts, "ffn_gate_exps.weight");
            T(0, 3, E, (uint64_t)t->ff_exp, (uint64_t)t->experts, "ffn_up_exps.weight");
            T(0, 3, (uint64_t)t->ff_exp, E, (uint64_t)t->experts, "ffn_down_exps.weight");
        } else {
            T(0, 2, E, (uint64_t)t->ff, 0, "ffn_gate.weight");
            T(0, 2, E, (uint64_t)t->ff, 0, "ffn_up.weight");
            T(0, 2, (uint64_t)t->ff, E, 0, "ffn_down.weight");
        }
#undef T
    }
    uint64_t rng = t->seed;
    int n = t->shards < 1 ? 1 : t->shards;
    for (int k = 0; k < n; k++) {
        FILE *f = open_shard(dir, stem, k, n, first, cap);
        if (f == NULL) {
            return -1;
        }
        int t0 = k * nt / n, t1 = (k + 1) * nt / n;
        const char *a = t->arch;
        uint64_t n_kv = (k == 0 ? (moe ? 19 : 17) : 1) + (n > 1 ? 3 : 0);
        fwrite("GGUF", 1, 4, f);
        u32(f, 3);
        u64(f, (uint64_t)(t1 - t0));
        u64(f, n_kv);
        kv_str(f, "general.architecture", a);
        if (k == 0) {
            kv_arch_u32(f, a, "block_count", (uint32_t)t->blocks);
            kv_arch_u32(f, a, "context_length", 262144);
            kv_arch_u32(f, a, "embedding_length", (uint32_t)t->embd);
            kv_arch_u32(f, a, "attention.head_count", (uint32_t)t->heads);
            kv_arch_u32(f, a, "attention.head_count_kv", (uint32_t)t->kv_heads);
            kv_arch_u32(f, a, "attention.key_length", (uint32_t)t->head_dim);
            kv_arch_u32(f, a, "attention.value_length", (uint32_t)t->head_dim);
            kv_arch_u32(f, a, "rope.dimension_count", (uint32_t)t->head_dim);
            char key[128];
            snprintf(key, sizeof key, "%s.rope.freq_base", a);
            kv_f32(f, key, 10000.0f);
            snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", a);
            kv_f32(f, key, 1e-6f);
            kv_u32(f, "general.alignment", 32);
            tiny_vocab(f, t->vocab);
            if (moe) {
                kv_arch_u32(f, a, "expert_count", (uint32_t)t->experts);
                kv_arch_u32(f, a, "expert_used_count", (uint32_t)t->experts_used);
                kv_arch_u32(f, a, "expert_feed_forward_length", (uint32_t)t->ff_exp);
            } else {
                kv_arch_u32(f, a, "feed_forward_length", (uint32_t)t->ff);
            }
        }
        if (n > 1) {
            kv_u16(f, "split.no", (uint16_t)k);
            kv_u16(f, "split.count", (uint16_t)n);
            kv_i32(f, "split.tensors.count", nt);
        }
        uint64_t off = 0;
        for (int i = t0; i < t1; i++) {
            const tiny_tensor *x = &ts[i];
            str(f, x->name);
            u32(f, (uint32_t)x->n_dims);
            for (int d = 0; d < x->n_dims; d++) {
                u64(f, x->ne[d]);
            }
            u32(f, 0); /* F32 */
            u64(f, off);
            off += (tiny_bytes(x) + 31) / 32 * 32;
        }
        long end = ftell(f);
        for (long p = end; p % 32 != 0; p++) {
            fputc(0, f);
        }
        for (int i = t0; i < t1; i++) {
            const tiny_tensor *x = &ts[i];
            uint64_t nv = tiny_bytes(x) / 4;
            for (uint64_t j = 0; j < nv; j++) {
                float v = 1.0f;
                if (!x->norm) {
                    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
                    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                    z ^= z >> 31;
                    v = ((float)(z >> 40) / (float)(1u << 24) - 0.5f) * 0.2f; /* uniform in [-0.1, 0.1) */
                }
                fwrite(&v, 4, 1, f);
            }
            for (uint64_t p = tiny_bytes(x); p % 32 != 0; p++) {
                fputc(0, f);
            }
        }
        if (fclose(f) != 0) {
            return -1;
        }
    }
    return 0;
}

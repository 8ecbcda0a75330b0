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

int gguf_write_model(const char *dir, const char *stem, const gguf_model *m, char *first, size_t cap) {
    int n = m->shards < 1 ? 1 : m->shards;
    for (int k = 0; k < n; k++) {
        char path[1024];
        if (n == 1) {
            snprintf(path, sizeof path, "%s/%s.gguf", dir, stem);
        } else {
            snprintf(path, sizeof path, "%s/%s-%05d-of-%05d.gguf", dir, stem, k + 1, n);
        }
        if (k == 0) {
            snprintf(first, cap, "%s", path);
        }
        FILE *f = fopen(path, "wb");
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

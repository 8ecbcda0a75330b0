/* synth_model.c — writes a small computable model of the llama or qwen2 family: the architecture's keys and tensor
 * layout as llama.cpp's converters write them (llama: q/k rows in the order convert_hf's permute gives them, NORM
 * RoPE; qwen2: q/k/v biases, NEOX RoPE), seeded random weights, and the tokenizer.* keys copied from a vocabulary
 * file (an SPM one for llama, a byte-level BPE one for qwen2). For comparing strata-ref with llama.cpp on those
 * families (bench/llamacpp/agree.sh).
 *   synth_model llama|qwen2 OUT.gguf VOCAB.gguf [f32|f16|q8_0] [SEED]
 * Geometry: embedding 256, 2 blocks, 4 heads of 64, 2 KV heads, FFN 768, context 2048, tied embeddings (llama:
 * separate output.weight). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_map.h"
#include "half.h"
#include "quant.h"

enum { E = 256, L = 2, H = 4, HKV = 2, HD = 64, FF = 768, CTX = 2048, ALIGN = 32 };

static uint64_t rng_state;
static double uniform(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return ((double)((z ^ (z >> 31)) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static float normal(void) { return (float)(sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform())); }

typedef struct {
    char name[96];
    uint32_t type, n_dims;
    uint64_t ne[2];
    float *data;
} tensor;

static tensor T[64];
static int nt;

static void add(const char *name, uint32_t type, uint64_t ne0, uint64_t ne1, float std, float mean) {
    tensor *t = &T[nt++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->type = ne1 > 1 ? type : GGML_TYPE_F32; /* 1-D tensors f32, as the converters write them */
    t->n_dims = ne1 > 1 ? 2 : 1;
    t->ne[0] = ne0;
    t->ne[1] = ne1;
    t->data = malloc(ne0 * ne1 * sizeof(float));
    for (uint64_t i = 0; i < ne0 * ne1; i++) {
        t->data[i] = mean + std * normal();
    }
}

static uint64_t tbytes(const tensor *t) { return strata_row_bytes(t->type, (int64_t)t->ne[0]) * t->ne[1]; }

static void w32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void w64(FILE *f, uint64_t v) { fwrite(&v, 8, 1, f); }
static void wstr(FILE *f, const char *s, uint64_t n) {
    w64(f, n);
    fwrite(s, 1, n, f);
}
static void kv_str(FILE *f, const char *k, const char *v) {
    wstr(f, k, strlen(k));
    w32(f, GGUF_T_STRING);
    wstr(f, v, strlen(v));
}
static void kv_u32(FILE *f, const char *k, uint32_t v) {
    wstr(f, k, strlen(k));
    w32(f, GGUF_T_U32);
    w32(f, v);
}
static void kv_f32(FILE *f, const char *k, float v) {
    wstr(f, k, strlen(k));
    w32(f, GGUF_T_F32);
    fwrite(&v, 4, 1, f);
}

/* The bytes of one key/value as it stands in the source file: the key, then its type and value verbatim. */
static void kv_copy(FILE *f, const strata_gguf_kv *kv) {
    static const uint8_t sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    wstr(f, kv->key, strlen(kv->key));
    w32(f, kv->type);
    if (kv->type == GGUF_T_STRING) {
        wstr(f, (const char *)kv->data, kv->n);
    } else if (kv->type == GGUF_T_ARRAY) {
        w32(f, kv->atype);
        w64(f, kv->n);
        if (kv->atype == GGUF_T_STRING) {
            for (uint64_t i = 0; i < kv->n; i++) {
                const char *s;
                size_t len;
                strata_gguf_arr_str(kv, i, &s, &len);
                wstr(f, s, len);
            }
        } else {
            fwrite(kv->data, sz[kv->atype], kv->n, f);
        }
    } else {
        fwrite(kv->data, sz[kv->type], 1, f);
    }
}

/* q8_0 as ggml's reference quantize_row_q8_0: d = amax / 127, q = round(x / d) */
static void write_data(FILE *f, const tensor *t) {
    uint64_t n = t->ne[0] * t->ne[1];
    if (t->type == GGML_TYPE_F32) {
        fwrite(t->data, 4, n, f);
    } else if (t->type == GGML_TYPE_F16) {
        for (uint64_t i = 0; i < n; i++) {
            uint16_t h = strata_float_to_half(t->data[i]);
            fwrite(&h, 2, 1, f);
        }
    } else {
        for (uint64_t b = 0; b < n / 32; b++) {
            const float *x = t->data + b * 32;
            float amax = 0.0f;
            for (int j = 0; j < 32; j++) {
                amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
            }
            float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
            uint16_t dh = strata_float_to_half(d);
            fwrite(&dh, 2, 1, f);
            for (int j = 0; j < 32; j++) {
                int8_t q = (int8_t)roundf(x[j] * id);
                fwrite(&q, 1, 1, f);
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 4 || (strcmp(argv[1], "llama") != 0 && strcmp(argv[1], "qwen2") != 0)) {
        fprintf(stderr, "usage: synth_model llama|qwen2 OUT.gguf VOCAB.gguf [f32|f16|q8_0] [SEED]\n");
        return 2;
    }
    const char *arch = argv[1];
    int llama = strcmp(arch, "llama") == 0;
    uint32_t wt = argc > 4 && !strcmp(argv[4], "f32") ? GGML_TYPE_F32 : argc > 4 && !strcmp(argv[4], "q8_0") ? GGML_TYPE_Q8_0 : GGML_TYPE_F16;
    rng_state = argc > 5 ? strtoull(argv[5], NULL, 10) : 42;
    strata_gguf_map vm;
    char err[512];
    if (strata_gguf_map_open(argv[3], &vm, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const strata_gguf_kv *toks = strata_gguf_map_key(&vm, "tokenizer.ggml.tokens");
    if (toks == NULL) {
        fprintf(stderr, "synth_model: %s has no tokenizer.ggml.tokens\n", argv[3]);
        return 2;
    }
    uint64_t V = toks->n;
    /* weights: std 1/sqrt(fan-in) for projections; the output rows (token_embd when tied) of std 0.25, so the logits
     * spread with a std of about 4: peaked enough that greedy decoding has few near-ties, not so peaked that the
     * distribution is one token */
    float s_e = 1.0f / sqrtf((float)E), s_f = 1.0f / sqrtf((float)FF), s_q = 1.0f / sqrtf((float)(H * HD));
    add("token_embd.weight", wt, E, V, llama ? 1.0f : 0.25f, 0.0f);
    add("output_norm.weight", wt, E, 1, 0.1f, 1.0f);
    if (llama) {
        add("output.weight", wt, E, V, 0.25f, 0.0f);
    }
    for (int l = 0; l < L; l++) {
        char n[96];
#define ADD(suffix, a, b, sd, mu)                                                                                       \
    do {                                                                                                               \
        snprintf(n, sizeof n, "blk.%d.%s", l, suffix);                                                                 \
        add(n, wt, a, b, sd, mu);                                                                                      \
    } while (0)
        ADD("attn_norm.weight", E, 1, 0.1f, 1.0f);
        ADD("attn_q.weight", E, H * HD, s_e, 0.0f);
        ADD("attn_k.weight", E, HKV * HD, s_e, 0.0f);
        ADD("attn_v.weight", E, HKV * HD, s_e, 0.0f);
        if (!llama) {
            ADD("attn_q.bias", H * HD, 1, 0.1f, 0.0f);
            ADD("attn_k.bias", HKV * HD, 1, 0.1f, 0.0f);
            ADD("attn_v.bias", HKV * HD, 1, 0.1f, 0.0f);
        }
        ADD("attn_output.weight", H * HD, E, s_q, 0.0f);
        ADD("ffn_norm.weight", E, 1, 0.1f, 1.0f);
        ADD("ffn_gate.weight", E, FF, s_e, 0.0f);
        ADD("ffn_up.weight", E, FF, s_e, 0.0f);
        ADD("ffn_down.weight", FF, E, s_f, 0.0f);
    }
    FILE *f = fopen(argv[2], "wb");
    if (f == NULL) {
        perror(argv[2]);
        return 2;
    }
    uint64_t n_tok_kv = 0;
    for (uint64_t i = 0; i < vm.n_kv; i++) {
        n_tok_kv += strncmp(vm.kv[i].key, "tokenizer.", 10) == 0 && (llama || strcmp(vm.kv[i].key, "tokenizer.ggml.pre") != 0);
    }
    fwrite("GGUF", 1, 4, f);
    w32(f, 3);
    w64(f, (uint64_t)nt);
    w64(f, 13 + n_tok_kv + (llama ? 0 : 1));
    char k[128];
    kv_str(f, "general.architecture", arch);
    kv_str(f, "general.name", llama ? "strata-synth-llama" : "strata-synth-qwen2");
#define AK(suffix) (snprintf(k, sizeof k, "%s.%s", arch, suffix), k)
    kv_u32(f, AK("context_length"), CTX);
    kv_u32(f, AK("embedding_length"), E);
    kv_u32(f, AK("block_count"), L);
    kv_u32(f, AK("feed_forward_length"), FF);
    kv_u32(f, AK("attention.head_count"), H);
    kv_u32(f, AK("attention.head_count_kv"), HKV);
    kv_u32(f, AK("rope.dimension_count"), HD);
    kv_f32(f, AK("rope.freq_base"), llama ? 500000.0f : 1000000.0f);
    kv_f32(f, AK("attention.layer_norm_rms_epsilon"), llama ? 1e-5f : 1e-6f);
    kv_u32(f, "general.alignment", ALIGN);
    kv_u32(f, "general.file_type", wt == GGML_TYPE_F32 ? 0 : wt == GGML_TYPE_F16 ? 1 : 7);
    for (uint64_t i = 0; i < vm.n_kv; i++) {
        if (strncmp(vm.kv[i].key, "tokenizer.", 10) == 0 && (llama || strcmp(vm.kv[i].key, "tokenizer.ggml.pre") != 0)) {
            kv_copy(f, &vm.kv[i]);
        }
    }
    if (!llama) {
        kv_str(f, "tokenizer.ggml.pre", "qwen2");
    }
    uint64_t off = 0;
    for (int i = 0; i < nt; i++) {
        wstr(f, T[i].name, strlen(T[i].name));
        w32(f, T[i].n_dims);
        for (uint32_t d = 0; d < T[i].n_dims; d++) {
            w64(f, T[i].ne[d]);
        }
        w32(f, T[i].type);
        w64(f, off);
        off += (tbytes(&T[i]) + ALIGN - 1) / ALIGN * ALIGN;
    }
    long pos = ftell(f);
    for (long p = pos; p % ALIGN != 0; p++) {
        fputc(0, f);
    }
    for (int i = 0; i < nt; i++) {
        write_data(f, &T[i]);
        for (uint64_t p = tbytes(&T[i]); p % ALIGN != 0; p++) {
            fputc(0, f);
        }
        free(T[i].data);
    }
    strata_gguf_map_close(&vm);
    if (fclose(f) != 0) {
        perror(argv[2]);
        return 2;
    }
    return 0;
}

/* gguf_write.h — writes small GGUF v3 model files for tests: the seed geometry (metadata + tensor infos, no tensor
 * data; strata-ref refuses its architecture) and tiny computable models with seeded weights. */
#ifndef STRATA_TEST_GGUF_WRITE_H
#define STRATA_TEST_GGUF_WRITE_H

#include <stddef.h>

typedef struct {
    const char *arch;  /* general.architecture */
    int shards;        /* 1: NAME.gguf; n > 1: NAME-0000k-of-0000n.gguf with split.* keys */
    int blocks;        /* block_count */
    int kv_heads;
    int head_dim;
    int qsa_every;     /* blocks with (n + 1) % qsa_every == 0 get blk.n.attn_k.weight */
    int interval;      /* {arch}.full_attention_interval; 0 = key absent */
    int sized;         /* 1: each file is extended (sparse) to hold its tensor data, so engine runs can read the
                        * experts; 0: metadata and tensor infos only (the parser tests read such files whole) */
} gguf_model;

/* The seed geometry (docs/ENGINE-CONTRACT.md): 48 blocks, QSA every 4th (12), 2 KV heads, head_dim 256; 512
 * experts (10 used) in every block, small ones (F16 256 x 16 per tensor: 24,576-byte slots) so engine runs stay
 * cheap. Not sized. */
gguf_model gguf_seed_model(int shards);

/* Writes the model into dir under stem; puts the first shard's path into first. Returns 0 or -1. */
int gguf_write_model(const char *dir, const char *stem, const gguf_model *m, char *first, size_t cap);

/* A small model strata-ref computes (engine/native/src/model.c): every tensor its architecture needs, in F32, weights
 * from a seeded generator (splitmix64), norms 1. qwen3 (dense SwiGLU FFN) or qwen3moe (experts, qwen3 attention). */
typedef struct {
    const char *arch;  /* "qwen3" or "qwen3moe" */
    int shards;        /* tensors split over this many files (split.* keys), 1: NAME.gguf */
    int blocks, embd, heads, kv_heads, head_dim, ff; /* ff: feed_forward_length (qwen3) */
    int experts, experts_used, ff_exp;              /* qwen3moe */
    int vocab;
    unsigned long long seed;
} gguf_tiny;

/* qwen3moe: 2 blocks, E 64, 2 heads of 256 (both KV), 8 experts of FFN 32 (2 used), vocabulary 256; qwen3: the same
 * attention with an FFN of 128. About 1.5 MB. */
gguf_tiny gguf_tiny_model(const char *arch, int shards);

/* Writes the tiny model into dir under stem; puts the first shard's path into first. Returns 0 or -1. */
int gguf_write_tiny(const char *dir, const char *stem, const gguf_tiny *t, char *first, size_t cap);

#endif

/* gguf_write.h — writes small GGUF v3 model files (metadata + tensor infos, no tensor data) for tests. */
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

#endif

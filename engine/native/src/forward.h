/* forward.h — the forward pass of strata-ref, for one sequence and a batch of tokens: embeddings, then per block
 * RMSNorm → Q/K/V (+bias) → q/k RMSNorm (qwen3) → RoPE → K,V into the pools → attention from the pools →
 * output projection → residual → RMSNorm → SwiGLU FFN or the MoE router and experts → residual; then the final
 * RMSNorm and the logits. The graph of llama.cpp's src/models/{llama,qwen2,qwen3,qwen3moe}.cpp. */
#ifndef STRATA_FORWARD_H
#define STRATA_FORWARD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"
#include "model.h"
#include "ref_internal.h"
#include "threads.h"

/* The bytes of expert e of a MoE layer's gate, up and down tensors. A resident model points into the mapping; a
 * streamed one into the arena slot the expert was read into. 0, or -1 on a read error. */
typedef int (*strata_expert_fn)(void *user, int layer, int expert, const uint8_t *w[3]);

/* The router's choices at a MoE layer for the B tokens of a forward call (K per token, token-major): a trace hook. */
typedef void (*strata_route_fn)(void *user, int layer, int B, const int32_t *sel, int K);

/* Tokens per batch of prompt processing. */
/* STRATA_BATCH, tokens per batch of prompt processing: rules.def (Java RefScratch.BATCH) */

/* llama.cpp's n_ubatch (its default, llama-perplexity's and node-llama-cpp's): an evaluation of n tokens is computed
 * as ubatches of this many, and some of its kernels depend on the ubatch's size (forward.c). A multiple of
 * STRATA_BATCH. */
#define STRATA_LLAMA_UBATCH 512

typedef struct {
    const strata_model *md;
    strata_kv *kv;
    strata_pool *pool;
    const strata_fused_ops *ops;
    strata_expert_fn expert;  /* NULL: resident (the mapping) */
    void *expert_user;
    strata_route_fn route;    /* NULL: no trace; called with expert_user */
    atomic_int *cancel;       /* checked between layers; 1 = stop */
    int ngemm4;               /* of the current batch: its first tokens in llama.cpp's 4-row GEMM (ops.h) */
    int small_ubatch;         /* of the current batch: llama.cpp's ubatch has < 64 rows (its f16 attention path) */
    int row_ubatch;           /* ... and one row (its split of the KV cells over the threads) */
    /* scratch, sized for STRATA_BATCH tokens */
    float *x, *xb, *q, *k, *v, *att, *hb, *hb2, *router, *eo, *xe;
    uint8_t *xq;
    size_t xq_stride;
    int32_t *route_e;
    float *route_w;
} strata_fwd;

/* Debugging: with STRATA_DUMP=FILE in the environment, appends the B rows of n floats at d as one record named
 * "name-l" (l >= 0) or "name" ({char name[64]; int32 ne[4] = {n, B, 1, 1}; float data[n·B]}) to FILE, the layout
 * of llama.cpp's tensors as a cb_eval callback sees them; nothing without it. */
void strata_fwd_dump(const char *name, int l, const float *d, size_t n, int B);

/* Bytes of scratch strata_fwd_init allocates for this model (the memory plan's `scratch` item). */
uint64_t strata_fwd_scratch_bytes(const strata_model *md);
/* 0, or -1 out of memory. */
int strata_fwd_init(strata_fwd *f, const strata_model *md, strata_kv *kv, strata_pool *pool,
                    const strata_fused_ops *ops);
void strata_fwd_free(strata_fwd *f);

/* Runs tokens[0..n) of sequence seq at positions pos0.. (the pools must hold them: pos0 + n <= kv->cells), writing
 * K and V into the pools; logits of positions [logits_from, n) into logits ((n - logits_from) × n_vocab). 0, 1 when
 * cancelled, -1 on an expert read error or a kernels refusal. */
int strata_forward(strata_fwd *f, int seq, const int32_t *tokens, size_t n, size_t pos0, size_t logits_from,
                   float *logits);

#endif

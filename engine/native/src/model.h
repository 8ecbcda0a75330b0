/* model.h — a model strata-ref computes: hyper-parameters from the GGUF keys and the weight tensors, in place in the
 * mapping (gguf_map.h). Architectures: llama (Llama 3.x, Mistral: NORM RoPE on the q/k rows convert_hf permuted),
 * qwen2 (q/k/v biases, NEOX RoPE), qwen3 (per-head q/k RMSNorm, NEOX RoPE), qwen3moe (qwen3 attention, a softmax
 * router over expert_count experts, expert_used_count used, weights renormalized). Names and keys as llama.cpp's
 * src/llama-arch.cpp spells them. */
#ifndef STRATA_MODEL_H
#define STRATA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "gguf_map.h"

enum { ARCH_LLAMA, ARCH_QWEN2, ARCH_QWEN3, ARCH_QWEN3MOE };

#define STRATA_ARCHS_COMPUTED "qwen3, qwen3moe, qwen2, llama"

typedef struct {
    const strata_gguf_tensor *attn_norm, *wq, *wk, *wv, *wo, *bq, *bk, *bv, *q_norm, *k_norm;
    const strata_gguf_tensor *ffn_norm, *ffn_gate, *ffn_up, *ffn_down;   /* dense FFN */
    const strata_gguf_tensor *gate_inp, *gate_exps, *up_exps, *down_exps; /* MoE FFN */
} strata_layer_w;

typedef struct {
    int arch;
    const char *arch_name;
    uint32_t n_embd, n_layer, n_head, n_head_kv, head_dim, n_ff, n_vocab;
    uint32_t n_expert, n_expert_used, n_ff_exp;
    uint32_t n_rot;          /* rope.dimension_count (default head_dim) */
    int rope_neox;           /* 1: NEOX (pairs i, i + n_rot/2); 0: NORM (pairs 2i, 2i+1) */
    float rope_base, eps;
    int expert_norm;         /* renormalize the top-k router weights */
    uint64_t ctx_train;
    const float *rope_freqs; /* rope_freqs.weight (Llama 3.1 scaling), n_rot/2 factors, or NULL */
    const strata_gguf_tensor *tok_embd, *output_norm, *output; /* output == tok_embd when tied */
    strata_layer_w *layers;
} strata_model;

/* Reads the hyper-parameters and finds every weight; checks each tensor's shape against the keys and its type
 * against what strata-ref computes. Returns 0; or 2 (a damaged file: a missing tensor, a shape that disagrees)
 * or 3 (refused: an architecture or a tensor type strata-ref does not compute) with one line in err. */
int strata_model_load(const strata_gguf_map *m, strata_model *md, char *err, size_t errlen);
void strata_model_free(strata_model *md);

#endif

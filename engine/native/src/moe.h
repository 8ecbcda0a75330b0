/* moe.h — the MoE feed-forward of a block, as llama.cpp's build_moe_ffn for qwen3moe (softmax gating, norm_w): router
 * logits = ffn_gate_inp · x, p = softmax over the experts, the top expert_used_count by p (ties: the lower id), their
 * weights p renormalized to sum 1; out = Σ_k w_k · down_e(silu(gate_e(x)) · up_e(x)). Each expert's tokens of the batch
 * are gathered so its weights are read once per batch; a streamed model gets each expert's bytes from the arena
 * (f->expert), a resident one from the mapping. */
#ifndef STRATA_MOE_H
#define STRATA_MOE_H

#include "forward.h"

/* x[t] += the MoE FFN of xb[t] for the B tokens of the batch, block `layer`. 0, or -1 on an expert read error. */
int strata_moe_ffn(strata_fwd *f, int layer, int B);

#endif

/* ref_internal.h — strata-ref's internal interfaces (hidden: the library exports only strata_engine.h). */
#ifndef STRATA_REF_INTERNAL_H
#define STRATA_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define STRATA_REF_NAME "strata-ref 0.1.0 (cpu)"

/* KV format ids (docs/ENGINE-CONTRACT.md, KV formats, the C ABI's numbers). */
enum { KV_FP16 = 0, KV_INT8 = 1, KV_Q4_0 = 2, KV_K8V4 = 3, KV_NONE = -1 };

/* Sylvester-ordered Walsh–Hadamard transform of 256 values, scaled by 1/16: orthonormal, its own inverse. */
void strata_fwht256(float *x);

/* ---- fused attention kernels (fused.c, compiled once per instruction set) ----
 * A cell is [K h0]..[K h(H-1)][V h0]..[V h(H-1)]; cells are cell_bytes apart.
 *
 * The scores are integer dot products: the query of each head is quantized once per decode item to 8 bits per
 * block (q8: blocks of 64 values for int8 pools, matching their 64-value scale groups; of 32 for q4_0, matching
 * its blocks), and K·q is summed exactly in integers per block, then scaled by d_K · d_q in float (as
 * llama.cpp's vec_dot_q8_0_q8_0 / q4_0_q8_0). That changes numerics against a float query: the score error is
 * bounded by scale · sum_i |k_i| · d_q(block of i) / 2 (the self test checks exactly that bound, and checks the
 * integer path against float math on the quantized query to 1e-4).
 *
 * quant_query: q (heads × hd floats; FWHT-rotated for q4_0) → qq[h] for format KV_INT8 or KV_Q4_0.
 * score: s[h*n + t] = scale * dot(q_h, K_h(cell t))   (q4_0: q already FWHT-rotated)
 * axpy:  acc[h*hd + i] += p[h*n + t] * V_h(cell t)[i]         (q4_0: acc stays in the rotated domain)
 * expsum: x[i] = exp(x[i] - m) for i < n, returns the sum (x[i] - m <= 0). */
typedef struct {
    int8_t qs[256]; /* q ≈ d[block] * qs */
    float d[8];     /* per block: 64 values (int8 pools) or 32 (q4_0 pools) */
    float bias[8];  /* q4_0: 8 · d · sum(qs of the block), the -8 offset of every code folded in */
} strata_qq;

typedef struct {
    const char *isa;
    void (*quant_query)(int format, const float *q, int heads, int hd, strata_qq *qq);
    void (*score_int8)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const strata_qq *q,
                       float scale, float *s);
    void (*axpy_int8)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const float *p,
                      float *acc);
    void (*score_q4)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const strata_qq *q,
                     float scale, float *s);
    void (*axpy_q4)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const float *p,
                    float *acc);
    float (*expsum)(float *x, size_t n, float m);
    /* fp16 pools: the same with an exact float query (hd a multiple of 8) */
    void (*score_f16)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const float *q,
                      float scale, float *s);
    void (*axpy_f16)(const uint8_t *cells, size_t cell_bytes, size_t n, int heads, int hd, const float *p,
                     float *acc);
} strata_fused_ops;

extern const strata_fused_ops strata_fused_base;
#if defined(__x86_64__)
extern const strata_fused_ops strata_fused_avx2;
#endif
/* The best variant this CPU runs (AVX2+FMA+F16C on x86-64 when present). */
const strata_fused_ops *strata_fused_best(void);

/* ---- GGUF geometry (gguf.c) ---- */
#define STRATA_GGUF_ERR_MAX 512
/* The geometry the engine plans and allocates from (docs/MODELS.md). Owned by gguf.c (models); the memory
 * accounting (arena) and strata_engine_check (onetruth) read these fields. Every attention layer has one cell
 * shape: kv_heads × (K record of head_dim + V record of head_dim_v). */
typedef struct {
    char arch[64];
    uint32_t blocks;                  /* main model blocks (block_count without the MTP blocks) */
    uint32_t kv_heads;
    uint32_t head_dim;                /* K head size (key_length, else embedding_length / head_count) */
    uint32_t head_dim_v;              /* V head size (value_length, else embedding_length / head_count) */
    uint32_t qsa_layers;              /* main attention layers, full and sliding-window */
    uint32_t swa_layers;              /* of those, sliding-window: pools of min(ctx, swa_window) + 128 cells */
    uint64_t swa_window;              /* attention.sliding_window; 0 when no layer slides */
    uint32_t shards;
    uint32_t full_attention_interval; /* 0 when absent */
    uint32_t recurrent_layers;        /* Gated DeltaNet / Mamba / short-conv layers */
    uint64_t state_bytes_per_layer;   /* per sequence, f32 (llama.cpp's n_embd_r + n_embd_s, × 4) */
    uint32_t drafter_blocks;          /* nextn_predict_layers: MTP blocks */
    uint32_t drafter_kv_layers;       /* MTP blocks with attention: full pools when --spec > 0 */
    uint64_t drafter_bytes;           /* every tensor of the MTP blocks (weights loaded when --spec > 0) */
    /* experts (Java ModelGeometry): {arch}.expert_count / expert_used_count (0 for a dense model), blocks holding
     * expert tensors (separate, merged gate_up or legacy per-expert), bytes of one expert of one MoE layer (the
     * largest over layers: one arena slot), bytes of every other tensor of the main model, {arch}.context_length */
    uint32_t experts, experts_used, moe_layers;
    uint64_t expert_bytes, dense_bytes, context_length;
} strata_geometry;

/* Where one expert tensor's data is: shard number (0-based), absolute file offset of expert 0's slice, and the
 * bytes of one expert's slice (tensor bytes / expert_count; expert e starts at offset + e * bytes_per_expert). */
typedef struct {
    uint32_t shard;
    uint64_t offset;
    uint64_t bytes_per_expert;
} strata_expert_tensor;

/* The expert tensors of every MoE layer, in block order: t[0..2] = ffn_gate_exps, ffn_up_exps, ffn_down_exps. */
typedef struct {
    uint32_t n_layers;
    struct {
        uint32_t block;
        strata_expert_tensor t[3];
    } *layers;
} strata_expert_index;

/* Reads the model geometry from the shard set whose first shard is path. Returns 0, or -1 with a one-line
 * message in err (names the file and what is wrong). Bounded: never allocates more than a few MB, whatever
 * the file claims. */
int strata_gguf_geometry(const char *path, strata_geometry *g, char *err, size_t errlen);
/* The same, and when ix is not NULL the expert tensor index too (free it with strata_expert_index_free). */
int strata_gguf_read(const char *path, strata_geometry *g, strata_expert_index *ix, char *err, size_t errlen);
void strata_expert_index_free(strata_expert_index *ix);
/* The path of shard k (0-based) of a set of count shards whose first is `first` (NAME-00001-of-0000n.gguf). */
int strata_gguf_shard_path(const char *first, uint32_t k, uint32_t count, char *buf, size_t cap);
/* Opens a model file for reading without blocking on a FIFO (O_NONBLOCK until fstat says it is a regular
 * file). Returns the descriptor, or -1 with a message in why: strerror, or what the path is when it is not a
 * regular file ("is a FIFO (named pipe), not a regular file"). Issue 28: a shard that is there is never
 * "missing". */
int strata_open_model_file(const char *path, char *why, size_t cap);

/* ---- memory accounting (memory.c): the one function that sizes every buffer strata-ref allocates ---- */

/* Decode attention is split into items of this many cells (engine.c); the scratch for the partials follows it. */
#define STRATA_SPLIT_CELLS 2048
#define STRATA_MEM_MAX_ITEMS 8

/* Everything the plan depends on. Geometry from strata_gguf_read; the rest from the flags, the environment and
 * the machine. */
typedef struct {
    uint32_t qsa_layers, kv_heads, head_dim;
    uint32_t experts, experts_used, moe_layers;
    uint64_t expert_bytes, dense_bytes;
    uint64_t ssm_state_bytes;   /* recurrent/SSM state of hybrid layers, per sequence (0: none) */
    uint32_t swa_layers;        /* of qsa_layers, sliding-window ones: pools of swa_cells */
    uint64_t swa_cells;         /* min(ctx, window) + 128 */
    uint32_t drafter_layers;    /* MTP attention layers planned (--spec > 0): full pools */
    uint64_t drafter_bytes;     /* MTP weights planned (--spec > 0) */
    uint64_t context;           /* --ctx */
    uint32_t n_seq;             /* --parallel: sequences, each with every pool (0 reads as 1) */
    int experts_resident;       /* --experts resident */
    int pools_format;           /* KV_INT8 or KV_Q4_0: the pools' format after the KV rules */
    uint64_t mem_budget_mb;     /* --mem-budget-mb, 0 = none */
    uint64_t total_memory;      /* the machine's physical memory (strata_memory_total) */
    int k4;                     /* an Apple10 (M5-class) GPU: never for strata-ref, which has none */
    const char *env_prompt;     /* getenv("STRATA_METAL_PROMPT") */
    const char *env_prompt_gemm; /* getenv("STRATA_METAL_PROMPT_GEMM") */
    const char *env_arena_bare;  /* getenv("STRATA_ARENA_BARE"): measurement only, strata-ref only (memory.c) */
    uint64_t fwd_scratch_bytes;  /* the forward pass's activations and one row of logits (forward.c) */
} strata_mem_inputs;

typedef struct {
    const char *name; /* kv, ssm_state, standby, arena, scratch */
    uint64_t bytes;
} strata_mem_item;

/* The plan: every figure of the Java MemoryPlan for backend cpu-reference, plus the list of items allocated. */
typedef struct {
    uint64_t total, usable, margin, budget, dense;
    uint64_t kv, kv_cells, kv_cell_bytes;
    int prompt_gemm;
    uint32_t standby_rule_slots; /* 576 or 64 by the rule; the stand-by bytes are 0 in resident mode */
    uint64_t standby, headroom;
    uint64_t slot_bytes, model_slots, token_slots, arena_slots, arena;
    uint64_t ssm_state, scratch;
    uint64_t fixed;      /* what the budget holds before the arena */
    int64_t free_bytes;  /* budget left after everything (negative when it does not fit) */
    int fits;
    uint64_t shortfall;
    int n_items;
    strata_mem_item items[STRATA_MEM_MAX_ITEMS];
    uint64_t allocated;  /* sum of the items */
} strata_mem_plan;

/* Plans: pure, O(1), no allocation and no I/O. Returns 0. */
int strata_memory_plan(const strata_mem_inputs *in, strata_mem_plan *out);
/* The item line `PREFIX: item=NAME bytes=N` of item i ("plan" for the check, "alloc" for main). 0 or -1. */
int strata_memory_item_line(const strata_mem_plan *p, int i, const char *prefix, char *buf, size_t cap);
/* strata-ref's own working buffers (docs/ENGINE-ABI.md lists them; Java MemoryPlan repeats the formula). */
uint64_t strata_memory_scratch_bytes(uint32_t experts, uint32_t moe_layers, uint64_t fwd_scratch_bytes);
/* The machine's physical memory in bytes, as the Java probe reads it (Linux: MemTotal of /proc/meminfo; macOS:
 * hw.memsize); 0 when unknown. */
uint64_t strata_memory_total(void);

/* ---- flags (flags.c) ---- */
typedef struct {
    const char *model;
    long ctx;
    int experts_resident;
    long threads;
    long mem_budget_mb;
    int kv; /* KV_NONE when absent */
    long spec;
    long suffix_draft;
    long parallel; /* sequences of a session, each with its own pools */
    long prompt_tokens;
    long n_predict;
    int fault; /* 0 none, 1 segv, 2 abort */
} strata_opts;

/* Parses argv (argv[0] is the program name and is skipped). Returns 0, or -1 with a message naming the flag. */
int strata_parse_flags(int argc, const char *const *argv, strata_opts *o, char *err, size_t errlen);

#endif

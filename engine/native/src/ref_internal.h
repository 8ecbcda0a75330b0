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
} strata_fused_ops;

extern const strata_fused_ops strata_fused_base;
#if defined(__x86_64__)
extern const strata_fused_ops strata_fused_avx2;
#endif
/* The best variant this CPU runs (AVX2+FMA+F16C on x86-64 when present). */
const strata_fused_ops *strata_fused_best(void);

/* ---- GGUF geometry (gguf.c) ---- */
#define STRATA_GGUF_ERR_MAX 512
typedef struct {
    char arch[64];
    uint32_t blocks;
    uint32_t kv_heads;
    uint32_t head_dim;
    uint32_t qsa_layers;
    uint32_t shards;
    uint32_t full_attention_interval; /* 0 when absent */
} strata_geometry;

/* Reads the model geometry from the shard set whose first shard is path. Returns 0, or -1 with a one-line
 * message in err (names the file and what is wrong). Bounded: never allocates more than a few MB, whatever
 * the file claims. */
int strata_gguf_geometry(const char *path, strata_geometry *g, char *err, size_t errlen);

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
    long prompt_tokens;
    long n_predict;
    int fault; /* 0 none, 1 segv, 2 abort */
} strata_opts;

/* Parses argv (argv[0] is the program name and is skipped). Returns 0, or -1 with a message naming the flag. */
int strata_parse_flags(int argc, const char *const *argv, strata_opts *o, char *err, size_t errlen);

#endif

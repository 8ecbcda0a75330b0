/* gguf_internal.h — the GGUF reader's own types and tables, shared by its files (hidden; the engine sees ref_internal.h):
 * gguf_read.c (opening a shard, the bounded value reader, the metadata keys), gguf_tensors.c (tensor infos and their
 * bytes), gguf_layers.c (which blocks are attention, recurrent or MTP) and gguf.c (the geometry, strata_gguf_read).
 * Calls go one way: gguf.c -> gguf_layers.c, gguf_tensors.c -> gguf_read.c. The per-architecture rules, tensor names,
 * keys and limits are archs.def, which the build writes from the Java table (dev.strata.engine.model.ArchTable). */
#ifndef STRATA_GGUF_INTERNAL_H
#define STRATA_GGUF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "gguf_map.h" /* the GGUF value types, GGUF_T_* */
#include "ref_internal.h"

#define STRATA_LIMIT(n, v) static const uint64_t LIM_##n = (v);
#include "archs.def"
#undef STRATA_LIMIT
#define NAME_MAX_LEN 255u
#define MAX_BLOCKS LIM_MAX_SMALL
#define MAX_SHARDS LIM_MAX_SHARDS
enum { STRATA_SUPPORT_RUNS, STRATA_SUPPORT_MLA, STRATA_SUPPORT_ENCODER, STRATA_SUPPORT_RECURRENT_ONLY };
enum { STRATA_STATE_NONE, STRATA_STATE_SSM, STRATA_STATE_SHORT_CONV, N_STATE_KINDS };
enum { STRATA_LAYERS_TENSORS, STRATA_LAYERS_ALL, STRATA_LAYERS_INTERVAL, STRATA_LAYERS_KV_HEADS };
typedef struct {
    const char *name;
    int support, swa_pattern, state, layers;
} arch_row;
#define STRATA_ARCH(n, s, p, k, l) {(n), (s), (p), (k), (l)},
static const arch_row ARCHES[] = {
#include "archs.def"
};
#undef STRATA_ARCH
#define STRATA_KV_TENSOR(n) (n),
static const char *const KV_TENSORS[] = {
#include "archs.def"
};
#undef STRATA_KV_TENSOR
#define STRATA_LINEAR_KV_TENSOR(n) (n),
static const char *const LINEAR_KV_TENSORS[] = {
#include "archs.def"
};
#undef STRATA_LINEAR_KV_TENSOR
typedef struct {
    const char *name;
    int kind;
} state_tensor;
#define STRATA_STATE_TENSOR(n, k) {(n), (k)},
static const state_tensor STATE_TENSORS[] = {
#include "archs.def"
};
#undef STRATA_STATE_TENSOR
typedef struct {
    int kind, index;
    const char *key;
} state_key;
#define STRATA_STATE_KEY(k, i, n) {(k), (i), (n)},
static const state_key STATE_KEYS[] = {
#include "archs.def"
};
#undef STRATA_STATE_KEY
#define STRATA_KEY(n, k) static const char KEY_##n[] = k;
#include "archs.def"
#undef STRATA_KEY
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define DEFAULT_ALIGNMENT 32u


#define STRATA_EXPERT_TENSOR(n) (n),
static const char *const EXPERT_TENSORS[] = {
#include "archs.def"
};
#undef STRATA_EXPERT_TENSOR
enum { X_GATE, X_UP, X_DOWN, X_GATE_UP, N_X };


typedef struct {
    FILE *f;
    const char *path;
    uint64_t size, pos;
    char *err;
    size_t errlen;
} rd;

/* ---- metadata: the keys the geometry reads, captured whatever order they come in ---- */

/* Keys after "{arch}." that the geometry reads (docs/MODELS.md). Arrays are kept for the per-layer ones. */
enum {
    K_BLOCKS, K_CONTEXT, K_WIDTH, K_HEADS, K_KV_HEADS, K_KEY_LEN, K_VALUE_LEN, K_WINDOW, K_INTERVAL, K_EXPERTS,
    K_EXPERTS_USED, K_NEXTN, K_MLA, K_STATE0, N_KEYS = K_STATE0 + 8
};
static const char *const KEY_SUFFIX[K_STATE0] = {
    "block_count", "context_length", "embedding_length", "attention.head_count", "attention.head_count_kv",
    "attention.key_length", "attention.value_length", "attention.sliding_window", "full_attention_interval",
    "expert_count", "expert_used_count", KEY_NEXTN, KEY_MLA,
};
enum { MAX_CAPTURED = 96, KEEP_ARRAY = 4096 };

typedef struct {
    char key[NAME_MAX_LEN + 1];
    uint32_t type;     /* value type; GGUF_T_ARRAY for arrays */
    uint32_t etype;    /* element type of an array */
    uint64_t value;    /* integer scalars */
    int negative;      /* a signed scalar below 0 */
    uint64_t length;   /* arrays */
    uint64_t *elems;   /* integer arrays up to KEEP_ARRAY elements; NULL otherwise */
} captured;

typedef struct {
    char arch[64];
    int have_arch, arch_bad, old_split, have_alignment;
    uint64_t alignment;
    uint64_t split_no, split_count;
    int have_split_no, have_split_count;
    captured cap[MAX_CAPTURED];
    int n_cap;
} meta;

/* ---- tensor infos: which blocks hold attention, recurrent state ---- */

/* What the tensor walk collects per block. */
typedef struct {
    uint8_t has[N_X];             /* the expert weight EXPERT_TENSORS[i] is present */
    uint64_t per_expert[N_X];     /* its bytes / expert_count (with its .bias/.scale) */
    strata_expert_tensor where[N_X];
    uint64_t legacy_bytes;        /* ffn_gate.E / ffn_up.E / ffn_down.E tensors: their bytes */
    uint64_t other_bytes;         /* every other tensor of the block */
} blockinfo;

typedef struct {
    uint64_t cap;       /* flags allocated: block_count + nextn */
    uint8_t *kv;        /* block n holds KV_TENSORS[i]: bit i */
    uint8_t *state;     /* block n holds a recurrent marker: its kind */
    blockinfo *bi;      /* per block */
    int64_t highest;    /* highest block index named */
    uint64_t tensors;   /* tensors over all shards */
    uint64_t outside;   /* bytes of tensors outside any block (embeddings, output) */
} layers_seen;
/* ---- the calls between the reader's files ---- */

/* gguf_read.c */
int gguf_fail(rd *r, const char *fmt, ...);
int gguf_ru32(rd *r, uint32_t *v, const char *what);
int gguf_ru64(rd *r, uint64_t *v, const char *what);
int gguf_rstr(rd *r, char *buf, size_t cap, int *fits, const char *what);
void gguf_meta_free(meta *m);
int gguf_read_header_and_meta(rd *r, meta *m, uint64_t *n_tensors);
const captured *gguf_find_key(const meta *m, const char *suffix);
int gguf_key_u64(rd *r, const meta *m, const char *suffix, uint64_t limit, uint64_t *v);
int gguf_key_per_layer(rd *r, const meta *m, const char *suffix, uint64_t blocks, const uint8_t *sel, uint64_t n_sel, uint64_t *v);
int gguf_open_rd(rd *r, const char *path, char *err, size_t errlen);
long gguf_split_suffix(const char *path);

/* gguf_tensors.c */
int gguf_read_tensor_infos(rd *r, uint64_t n_tensors, layers_seen *ls, const char *arch, uint64_t block_count, uint64_t experts, uint32_t shard);
int gguf_place_data(rd *r, const meta *m, layers_seen *ls, uint32_t shard);

/* gguf_layers.c */
int gguf_classify(rd *r, const meta *m, const arch_row *row, layers_seen *ls, uint64_t blocks, uint64_t block_count);

#endif

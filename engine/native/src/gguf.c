/* gguf.c — a minimal, bounded GGUF v2/v3 reader: just enough metadata and tensor info for the geometry the
 * engine plans (docs/ENGINE-CONTRACT.md, docs/MODELS.md). The per-architecture rules, tensor names, keys and
 * limits come from archs.def, generated from the Java table (dev.strata.engine.model.ArchTable), so this reader
 * and the Java GgufReader/GeometryRules apply one set of rules. Hostile files are expected: every length and count is checked against the bytes
 * left in the file before it is used, nothing is allocated from a count the file claims, arrays may not nest,
 * and each failure is one line naming the file and the problem. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ref_internal.h"

enum {
    T_U8 = 0, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STRING, T_ARRAY, T_U64, T_I64, T_F64,
};
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

/* ggml tensor types: id, values per block, bytes per block — the same table as the Java
 * dev.strata.engine.model.GgmlType (a Java test compares the two, GgmlTypeParityTest). */
static const struct {
    uint32_t id, block, bytes;
} GGML_TYPES[] = {
    {0, 1, 4},      {1, 1, 2},      {2, 32, 18},    {3, 32, 20},    {6, 32, 22},    {7, 32, 24},   {8, 32, 34},
    {9, 32, 36},    {10, 256, 84},  {11, 256, 110}, {12, 256, 144}, {13, 256, 176}, {14, 256, 210},
    {15, 256, 292}, {16, 256, 66},  {17, 256, 74},  {18, 256, 98},  {19, 256, 50},  {20, 32, 18},
    {21, 256, 110}, {22, 256, 82},  {23, 256, 136}, {24, 1, 1},     {25, 1, 2},     {26, 1, 4},
    {27, 1, 8},     {28, 1, 8},     {29, 256, 56},  {30, 1, 2},     {34, 256, 54},  {35, 256, 66},
    {39, 32, 17},   {40, 64, 36},   {41, 128, 18},  {42, 64, 18},
};

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

static int fail(rd *r, const char *fmt, ...) {
    char msg[STRATA_GGUF_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "model: %s: %s", r->path, msg);
    return -1;
}

static int need(rd *r, uint64_t n, const char *what) {
    if (n > r->size - r->pos) {
        return fail(r, "truncated at byte %llu reading %s (the file is %llu bytes; re-copy or re-download it)",
                    (unsigned long long)r->pos, what, (unsigned long long)r->size);
    }
    return 0;
}

static int rbytes(rd *r, void *dst, uint64_t n, const char *what) {
    if (need(r, n, what)) {
        return -1;
    }
    if (fread(dst, 1, (size_t)n, r->f) != (size_t)n) {
        return fail(r, "read error at byte %llu", (unsigned long long)r->pos);
    }
    r->pos += n;
    return 0;
}

static int rskip(rd *r, uint64_t n, const char *what) {
    if (need(r, n, what)) {
        return -1;
    }
    if (fseeko(r->f, (off_t)n, SEEK_CUR) != 0) {
        return fail(r, "seek error at byte %llu", (unsigned long long)r->pos);
    }
    r->pos += n;
    return 0;
}

static int ru32(rd *r, uint32_t *v, const char *what) {
    uint8_t b[4];
    if (rbytes(r, b, 4, what)) {
        return -1;
    }
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

static int ru64(rd *r, uint64_t *v, const char *what) {
    uint32_t lo, hi;
    if (ru32(r, &lo, what) || ru32(r, &hi, what)) {
        return -1;
    }
    *v = (uint64_t)hi << 32 | lo;
    return 0;
}

/* Reads a string's u64 length, refusing one over LIM_MAX_STRING. */
static int rstrlen(rd *r, uint64_t *len, const char *what) {
    if (ru64(r, len, what)) {
        return -1;
    }
    if (*len > LIM_MAX_STRING) {
        return fail(r, "claims a string of %llu bytes in %s (limit %llu)", (unsigned long long)*len, what,
                    (unsigned long long)LIM_MAX_STRING);
    }
    return 0;
}

/* Reads a string into buf when it fits (len < cap), else skips it and sets *fits = 0. */
static int rstr(rd *r, char *buf, size_t cap, int *fits, const char *what) {
    uint64_t len;
    if (rstrlen(r, &len, what)) {
        return -1;
    }
    if (need(r, len, what)) {
        return -1;
    }
    if (len < cap) {
        if (rbytes(r, buf, len, what)) {
            return -1;
        }
        buf[len] = '\0';
        *fits = memchr(buf, '\0', (size_t)len) == NULL; /* an embedded NUL never matches a key */
        return 0;
    }
    *fits = 0;
    return rskip(r, len, what);
}

static uint64_t scalar_size(uint32_t t) {
    switch (t) {
    case T_U8: case T_I8: case T_BOOL: return 1;
    case T_U16: case T_I16: return 2;
    case T_U32: case T_I32: case T_F32: return 4;
    case T_U64: case T_I64: case T_F64: return 8;
    default: return 0;
    }
}

static int skip_value(rd *r, uint32_t type, const char *key) {
    if (type == T_STRING) {
        uint64_t len;
        if (rstrlen(r, &len, key)) {
            return -1;
        }
        return rskip(r, len, key);
    }
    if (type == T_ARRAY) {
        uint32_t et;
        uint64_t count;
        if (ru32(r, &et, key) || ru64(r, &count, key)) {
            return -1;
        }
        if (et == T_ARRAY) {
            return fail(r, "key %s is a nested array (not valid GGUF metadata)", key);
        }
        if (et == T_STRING) {
            if (count > (r->size - r->pos) / 8) {
                return fail(r, "key %s claims %llu strings, more than the file can hold", key,
                            (unsigned long long)count);
            }
            for (uint64_t i = 0; i < count; i++) {
                uint64_t len;
                if (ru64(r, &len, key) || rskip(r, len, key)) {
                    return -1;
                }
            }
            return 0;
        }
        uint64_t sz = scalar_size(et);
        if (sz == 0) {
            return fail(r, "key %s has an array of unknown type %u", key, et);
        }
        if (count > (r->size - r->pos) / sz) {
            return fail(r, "key %s claims %llu elements, more than the file can hold", key, (unsigned long long)count);
        }
        return rskip(r, count * sz, key);
    }
    uint64_t sz = scalar_size(type);
    if (sz == 0) {
        return fail(r, "key %s has unknown type %u", key, type);
    }
    return rskip(r, sz, key);
}

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
    uint32_t type;     /* value type; T_ARRAY for arrays */
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

static void meta_free(meta *m) {
    for (int i = 0; i < m->n_cap; i++) {
        free(m->cap[i].elems);
    }
    m->n_cap = 0;
}

static int is_int_type(uint32_t t) {
    return t == T_U8 || t == T_I8 || t == T_U16 || t == T_I16 || t == T_U32 || t == T_I32 || t == T_U64 || t == T_I64;
}

static int is_signed_type(uint32_t t) { return t == T_I8 || t == T_I16 || t == T_I32 || t == T_I64; }

static int rint_raw(rd *r, uint32_t type, const char *key, uint64_t *out, int *negative) {
    uint64_t sz = scalar_size(type);
    uint8_t b[8] = {0};
    if (rbytes(r, b, sz, key)) {
        return -1;
    }
    uint64_t v = 0;
    for (uint64_t i = 0; i < sz; i++) {
        v |= (uint64_t)b[i] << (8 * i);
    }
    *negative = is_signed_type(type) && (b[sz - 1] & 0x80);
    *out = v;
    return 0;
}

/* Whether key is "<prefix>.<suffix>" for a suffix the geometry reads. */
static int wanted(const char *key) {
    size_t kl = strlen(key);
    for (int i = 0; i < K_STATE0 + (int)COUNT(STATE_KEYS); i++) {
        const char *suf = i < K_STATE0 ? KEY_SUFFIX[i] : STATE_KEYS[i - K_STATE0].key;
        size_t sl = strlen(suf);
        if (kl > sl + 1 && key[kl - sl - 1] == '.' && strcmp(key + kl - sl, suf) == 0) {
            return 1;
        }
    }
    return 0;
}

static int capture(rd *r, meta *m, const char *key, uint32_t type) {
    if (m->n_cap >= MAX_CAPTURED) {
        return skip_value(r, type, key);
    }
    captured *c = &m->cap[m->n_cap];
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    c->type = type;
    if (type == T_ARRAY) {
        uint32_t et;
        uint64_t n;
        if (ru32(r, &et, key) || ru64(r, &n, key)) {
            return -1;
        }
        c->etype = et;
        c->length = n;
        uint64_t sz = scalar_size(et);
        if (et == T_ARRAY) {
            return fail(r, "key %s is a nested array (not valid GGUF metadata)", key);
        }
        if (n > LIM_MAX_ARRAY) {
            return fail(r, "key %s claims %llu elements (limit %llu)", key, (unsigned long long)n,
                        (unsigned long long)LIM_MAX_ARRAY);
        }
        if (!is_int_type(et) || n > KEEP_ARRAY) {
            /* not kept: skip the elements (the array header is already read) */
            if (et == T_STRING) {
                for (uint64_t i = 0; i < n; i++) {
                    uint64_t len;
                    if (ru64(r, &len, key) || rskip(r, len, key)) {
                        return -1;
                    }
                }
            } else if (sz == 0) {
                return fail(r, "key %s has an array of unknown type %u", key, et);
            } else if (n > (r->size - r->pos) / sz) {
                return fail(r, "key %s claims %llu elements, more than the file can hold", key, (unsigned long long)n);
            } else if (rskip(r, n * sz, key)) {
                return -1;
            }
            m->n_cap++;
            return 0;
        }
        if (need(r, n * sz, key)) {
            return -1;
        }
        c->elems = calloc(n ? n : 1, sizeof *c->elems);
        if (c->elems == NULL) {
            return fail(r, "out of memory");
        }
        m->n_cap++;
        for (uint64_t i = 0; i < n; i++) {
            int neg;
            if (rint_raw(r, et, key, &c->elems[i], &neg)) {
                return -1;
            }
            if (neg) {
                c->elems[i] = UINT64_MAX; /* never a valid count */
            }
        }
        return 0;
    }
    if (!is_int_type(type)) {
        m->n_cap++;
        return skip_value(r, type, key);
    }
    m->n_cap++;
    return rint_raw(r, type, key, &c->value, &c->negative);
}

static int read_header_and_meta(rd *r, meta *m, uint64_t *n_tensors) {
    char magic[4];
    uint32_t version;
    uint64_t n_kv;
    if (rbytes(r, magic, 4, "the magic") != 0) {
        return -1;
    }
    if (memcmp(magic, "GGUF", 4) != 0) {
        return fail(r, "not a GGUF file (bad magic; point --model at the first .gguf shard)");
    }
    if (ru32(r, &version, "the version")) {
        return -1;
    }
    if (version != 2 && version != 3) {
        return fail(r, "GGUF version %u is not supported (strata reads GGUF v2 and v3)", version);
    }
    if (ru64(r, n_tensors, "the tensor count") || ru64(r, &n_kv, "the metadata count")) {
        return -1;
    }
    if (n_kv > LIM_MAX_KVS || n_kv > (r->size - r->pos) / 13) {
        return fail(r, "metadata count %llu is more than the file can hold", (unsigned long long)n_kv);
    }
    if (*n_tensors > LIM_MAX_TENSORS || *n_tensors > (r->size - r->pos) / 24) {
        return fail(r, "tensor count %llu is more than the file can hold", (unsigned long long)*n_tensors);
    }
    char key[NAME_MAX_LEN + 1];
    for (uint64_t i = 0; i < n_kv; i++) {
        int fits;
        uint32_t type;
        if (rstr(r, key, sizeof key, &fits, "a metadata key") || ru32(r, &type, "a metadata type")) {
            return -1;
        }
        const char *kname = fits ? key : "(long key)";
        if (fits && strcmp(key, "general.architecture") == 0) {
            if (type != T_STRING) {
                m->arch_bad = 1;
                if (skip_value(r, type, key)) {
                    return -1;
                }
                continue;
            }
            int afits;
            if (rstr(r, m->arch, sizeof m->arch, &afits, key)) {
                return -1;
            }
            m->have_arch = 1;
            m->arch_bad = !afits || m->arch[0] == '\0';
            for (const char *p = m->arch; !m->arch_bad && *p; p++) {
                char c = *p;
                m->arch_bad = !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                c == '_' || c == '.' || c == '-');
            }
            continue;
        }
        if (fits && strcmp(key, "general.alignment") == 0 && is_int_type(type)) {
            int neg;
            if (rint_raw(r, type, key, &m->alignment, &neg)) {
                return -1;
            }
            m->have_alignment = 1;
            if (neg) {
                m->alignment = 0;
            }
            continue;
        }
        /* the early split formats: general.split + general.split_count, then general.split.* */
        if (fits && strncmp(key, "general.split", 13) == 0 && (key[13] == '\0' || key[13] == '.' || key[13] == '_')) {
            m->old_split = 1;
        }
        if (fits && (strcmp(key, "split.no") == 0 || strcmp(key, "split.count") == 0)) {
            int no = key[6] == 'n';
            int neg;
            if (!is_int_type(type)) {
                return fail(r, "key %s is not an integer", key);
            }
            if (rint_raw(r, type, key, no ? &m->split_no : &m->split_count, &neg)) {
                return -1;
            }
            if (neg) {
                return fail(r, "key %s is negative", key);
            }
            *(no ? &m->have_split_no : &m->have_split_count) = 1;
            continue;
        }
        if (fits && wanted(key)) {
            if (capture(r, m, key, type)) {
                return -1;
            }
        } else if (skip_value(r, type, kname)) {
            return -1;
        }
    }
    return 0;
}

/* The captured "{arch}.<suffix>", or NULL. */
static const captured *find_key(const meta *m, const char *suffix) {
    size_t al = strlen(m->arch);
    for (int i = 0; i < m->n_cap; i++) {
        const char *k = m->cap[i].key;
        if (strncmp(k, m->arch, al) == 0 && k[al] == '.' && strcmp(k + al + 1, suffix) == 0) {
            return &m->cap[i];
        }
    }
    return NULL;
}

/* A non-negative integer key up to limit: 0 and *v set, 1 when absent, -1 on error (as GgufFile.unsigned). */
static int key_u64(rd *r, const meta *m, const char *suffix, uint64_t limit, uint64_t *v) {
    const captured *c = find_key(m, suffix);
    if (c == NULL) {
        return 1;
    }
    if (c->type == T_ARRAY || !is_int_type(c->type) || c->negative) {
        return fail(r, "%s.%s is not a non-negative integer; the file is damaged", m->arch, suffix);
    }
    if (c->value > limit) {
        return fail(r, "%s.%s is %llu (limit %llu); the file is damaged", m->arch, suffix,
                    (unsigned long long)c->value, (unsigned long long)limit);
    }
    *v = c->value;
    return 0;
}

/* A per-layer count (scalar or one integer per block) over the layers flagged in sel; all must agree.
 * 0 and *v set, 1 when absent, -1 on error. */
static int key_per_layer(rd *r, const meta *m, const char *suffix, uint64_t blocks, const uint8_t *sel,
                         uint64_t n_sel, uint64_t *v) {
    const captured *c = find_key(m, suffix);
    if (c == NULL || c->type != T_ARRAY) {
        return key_u64(r, m, suffix, LIM_MAX_SMALL, v);
    }
    if (c->elems == NULL || c->length != blocks) {
        return fail(r, "%s.%s is an array of %llu, expected one integer per block (%llu)", m->arch, suffix,
                    (unsigned long long)c->length, (unsigned long long)blocks);
    }
    int have = 0;
    for (uint64_t n = 0; n < n_sel && n < c->length; n++) {
        if (!sel[n]) {
            continue;
        }
        uint64_t x = c->elems[n];
        if (x < 1 || x > LIM_MAX_SMALL || (have && x != *v)) {
            return fail(r, "%s.%s gives attention layer %llu the value %llu; strata plans one KV shape for every "
                           "attention layer", m->arch, suffix, (unsigned long long)n, (unsigned long long)x);
        }
        *v = x;
        have = 1;
    }
    return have ? 0 : 1;
}

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

/* "ffn_gate_exps.weight" → X_GATE and is_weight; .bias/.scale too; -1 when not an expert tensor. */
static int expert_kind(const char *rest, int *is_weight) {
    for (int i = 0; i < N_X; i++) {
        size_t l = strlen(EXPERT_TENSORS[i]);
        if (strncmp(rest, EXPERT_TENSORS[i], l) == 0 &&
            (strcmp(rest + l, ".weight") == 0 || strcmp(rest + l, ".bias") == 0 || strcmp(rest + l, ".scale") == 0)) {
            *is_weight = strcmp(rest + l, ".weight") == 0;
            return i;
        }
    }
    return -1;
}

/* "ffn_gate.7.weight" (the legacy per-expert layout): 1, else 0. */
static int legacy_expert(const char *rest) {
    static const char *const L[3] = {"ffn_gate.", "ffn_up.", "ffn_down."};
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(L[i]);
        if (strncmp(rest, L[i], l) == 0) {
            const char *p = rest + l;
            int d = 0;
            while (*p >= '0' && *p <= '9' && d < 7) {
                p++;
                d++;
            }
            return d > 0 && strcmp(p, ".weight") == 0;
        }
    }
    return 0;
}

/* Bytes of a tensor of type `type` and dims (Java GgmlType.bytes): the row (dims[0]) in whole blocks. */
static int tensor_bytes(rd *r, const char *name, uint32_t type, const uint64_t *dims, uint32_t n_dims, uint64_t *out) {
    size_t t = 0, nt = sizeof GGML_TYPES / sizeof GGML_TYPES[0];
    while (t < nt && GGML_TYPES[t].id != type) {
        t++;
    }
    if (t == nt) {
        return fail(r, "tensor %s has ggml type %u, which this reader does not know; update strata or use another "
                       "quantization", name, type);
    }
    if (dims[0] % GGML_TYPES[t].block != 0) {
        return fail(r, "tensor %s: row of %llu elements is not a multiple of its type's block of %u", name,
                    (unsigned long long)dims[0], GGML_TYPES[t].block);
    }
    uint64_t b = dims[0] / GGML_TYPES[t].block * GGML_TYPES[t].bytes;
    for (uint32_t d = 1; d < n_dims; d++) {
        if (__builtin_mul_overflow(b, dims[d], &b)) {
            return fail(r, "tensor %s overflows 2^64 bytes", name);
        }
    }
    *out = b;
    return 0;
}

static int read_tensor_infos(rd *r, uint64_t n_tensors, layers_seen *ls, const char *arch, uint64_t block_count,
                             uint64_t experts, uint32_t shard) {
    char name[NAME_MAX_LEN + 1];
    for (uint64_t i = 0; i < n_tensors; i++) {
        int fits;
        uint32_t n_dims, type;
        uint64_t offset, dims[4] = {1, 1, 1, 1}, bytes = 0;
        if (rstr(r, name, sizeof name, &fits, "a tensor name") || ru32(r, &n_dims, "a tensor rank")) {
            return -1;
        }
        const char *shown = fits ? name : "(long name)";
        if (n_dims > LIM_MAX_DIMS) {
            return fail(r, "tensor %s has rank %u (GGUF allows up to %llu)", shown, n_dims,
                        (unsigned long long)LIM_MAX_DIMS);
        }
        for (uint32_t d = 0; d < n_dims; d++) {
            if (ru64(r, &dims[d], "a tensor dimension")) {
                return -1;
            }
        }
        if (ru32(r, &type, "a tensor type") || ru64(r, &offset, "a tensor offset")) {
            return -1;
        }
        if (tensor_bytes(r, shown, type, dims, n_dims == 0 ? 1 : n_dims, &bytes)) {
            return -1;
        }
        ls->tensors++;
        const char *p = NULL;
        uint64_t n = 0;
        if (fits && strncmp(name, "blk.", 4) == 0) {
            p = name + 4;
            int digits = 0;
            while (*p >= '0' && *p <= '9' && digits < 10) {
                n = n * 10 + (uint64_t)(*p - '0');
                p++;
                digits++;
            }
            p = digits > 0 && *p == '.' ? p + 1 : NULL;
        }
        if (p == NULL) {
            if (__builtin_add_overflow(ls->outside, bytes, &ls->outside)) {
                return fail(r, "tensor bytes overflow; the file is damaged");
            }
            continue;
        }
        if (n >= ls->cap) {
            return fail(r, "holds tensor %s but %s.block_count is %llu; the file is damaged", name, arch,
                        (unsigned long long)block_count);
        }
        ls->highest = (int64_t)n > ls->highest ? (int64_t)n : ls->highest;
        blockinfo *b = &ls->bi[n];
        int is_weight = 0;
        int x = expert_kind(p, &is_weight);
        if (x >= 0) {
            if (experts == 0) {
                return fail(r, "holds expert tensor %s but has no %s.expert_count; the file is damaged", name, arch);
            }
            if (n_dims == 0 || dims[n_dims - 1] != experts) {
                return fail(r, "tensor %s has its last dimension %llu but it must be the expert count %llu; the file is "
                               "damaged", name, (unsigned long long)dims[n_dims ? n_dims - 1 : 0],
                            (unsigned long long)experts);
            }
            b->per_expert[x] += bytes / experts;
            if (is_weight) {
                b->has[x] = 1;
                b->where[x].shard = shard;
                b->where[x].offset = offset; /* relative to the data section until place_data adds its start */
                b->where[x].bytes_per_expert = bytes / experts;
            }
            continue;
        }
        if (experts > 0 && legacy_expert(p)) {
            b->legacy_bytes += bytes;
            continue;
        }
        b->other_bytes += bytes;
        for (size_t k = 0; k < COUNT(KV_TENSORS); k++) {
            if (strcmp(p, KV_TENSORS[k]) == 0) {
                ls->kv[n] |= (uint8_t)(1u << k);
            }
        }
        for (size_t k = 0; k < COUNT(STATE_TENSORS); k++) {
            if (strcmp(p, STATE_TENSORS[k].name) == 0) {
                ls->state[n] = (uint8_t)STATE_TENSORS[k].kind;
            }
        }
    }
    return 0;
}

/* The data section of a file starts at the end of the tensor infos, aligned up (general.alignment, default 32);
 * adds it to the expert tensor offsets of this shard. */
static int place_data(rd *r, const meta *m, layers_seen *ls, uint32_t shard) {
    uint64_t align = m->have_alignment ? m->alignment : DEFAULT_ALIGNMENT;
    if (align == 0 || align > (1u << 30) || (align & (align - 1)) != 0) {
        return fail(r, "general.alignment is %llu; it must be a power of two up to 2^30; the file is damaged",
                    (unsigned long long)align);
    }
    uint64_t data = (r->pos + align - 1) & ~(align - 1);
    for (uint64_t n = 0; n < ls->cap; n++) {
        for (int i = 0; i < N_X; i++) {
            blockinfo *b = &ls->bi[n];
            if (b->has[i] && b->where[i].shard == shard && !(b->where[i].offset & (1ull << 63)) &&
                __builtin_add_overflow(b->where[i].offset, data, &b->where[i].offset)) {
                return fail(r, "tensor offset overflows; the file is damaged");
            }
        }
    }
    return 0;
}

static const char *file_kind(mode_t mode) {
    switch (mode & S_IFMT) {
    case S_IFDIR:
        return "a folder";
    case S_IFIFO:
        return "a FIFO (named pipe)";
    case S_IFSOCK:
        return "a socket";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    default:
        return "not a plain file";
    }
}

int strata_open_model_file(const char *path, char *why, size_t cap) {
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file ignores it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        struct stat ls;
        int link = lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode);
        snprintf(why, cap, "is %s%s, not a regular file", link ? "a symlink to " : "", file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) {
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    return fd;
}

static int open_rd(rd *r, const char *path, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->errlen = errlen;
    char why[128];
    int fd = strata_open_model_file(path, why, sizeof why);
    if (fd < 0) {
        return fail(r, "%s (--model names the model's first .gguf shard)", why);
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (r->f = fdopen(fd, "rb")) == NULL) {
        int e = errno;
        close(fd);
        return fail(r, "%s", strerror(e));
    }
    r->size = (uint64_t)st.st_size;
    return 0;
}

/* "NAME-00001-of-00004.gguf": returns the offset of "-00001-of-" or -1. */
static long split_suffix(const char *path) {
    size_t len = strlen(path);
    const size_t tail = strlen("-00001-of-00004.gguf");
    if (len < tail) {
        return -1;
    }
    const char *s = path + len - tail;
    for (int i = 0; i < 20; i++) {
        char c = s[i];
        int digit = (i >= 1 && i <= 5) || (i >= 10 && i <= 14);
        if (digit ? (c < '0' || c > '9') : (c != "-00001-of-00004.gguf"[i])) {
            return -1;
        }
    }
    return (long)(len - tail);
}

/* The architecture rules after the first shard's metadata: refusals, block counts. */
static int check_arch(rd *r, const meta *m, const arch_row **row) {
    if (!m->have_arch) {
        return fail(r, "has no general.architecture: not a model (a vocabulary or adapter file?)");
    }
    if (m->arch_bad) {
        return fail(r, "general.architecture is not an architecture name; the file is damaged");
    }
    *row = NULL;
    for (size_t i = 0; i < COUNT(ARCHES); i++) {
        if (strcmp(ARCHES[i].name, m->arch) == 0) {
            *row = &ARCHES[i];
        }
    }
    int support = *row ? (*row)->support : STRATA_SUPPORT_RUNS;
    if (find_key(m, KEY_MLA) != NULL || support == STRATA_SUPPORT_MLA) {
        return fail(r, "%s uses multi-head latent attention (K and V share one compressed latent), which no Strata "
                       "KV format holds; the engine runs per-head K/V attention (docs/MODELS.md)", m->arch);
    }
    if (support == STRATA_SUPPORT_ENCODER) {
        return fail(r, "%s is an encoder-only (embedding) model: it generates no text; the engine runs decoder "
                       "models (docs/MODELS.md)", m->arch);
    }
    if (support == STRATA_SUPPORT_RECURRENT_ONLY) {
        return fail(r, "%s is recurrent only (no attention layer, so no KV pool); the engine runs attention models "
                       "and attention/recurrent hybrids (docs/MODELS.md)", m->arch);
    }
    return 0;
}

/* Blocks n < count with sel[n] == want, as the Java LayerPattern.brief lists them: "[0, 1, 2, …, 27]". */
static const char *brief(const uint8_t *sel, uint64_t count, int want, char *buf, size_t len) {
    uint64_t total = 0, last = 0;
    for (uint64_t n = 0; n < count; n++) {
        if ((sel[n] != 0) == want) {
            total++;
            last = n;
        }
    }
    if (total == 0) {
        snprintf(buf, len, "none");
        return buf;
    }
    size_t at = 0;
    uint64_t shown = 0;
    at += (size_t)snprintf(buf + at, len - at, "[");
    for (uint64_t n = 0; n < count && at < len; n++) {
        if ((sel[n] != 0) != want) {
            continue;
        }
        if (total > 6 && shown == 3) {
            at += (size_t)snprintf(buf + at, len - at, ", …, %llu", (unsigned long long)last);
            break;
        }
        at += (size_t)snprintf(buf + at, len - at, shown ? ", %llu" : "%llu", (unsigned long long)n);
        shown++;
    }
    if (at < len) {
        snprintf(buf + at, len - at, "]");
    }
    return buf;
}

/* "block 3" or "blocks [0, 2]" (LayerPattern.listed); *one says which. */
static const char *listed(const uint8_t *sel, uint64_t count, char *buf, size_t len, int *one) {
    uint64_t total = 0, at = 0;
    for (uint64_t n = 0; n < count; n++) {
        total += sel[n] != 0;
        at = sel[n] && total == 1 ? n : at;
    }
    *one = total == 1;
    if (*one) {
        snprintf(buf, len, "block %llu", (unsigned long long)at);
        return buf;
    }
    char list[160];
    snprintf(buf, len, "blocks %s", brief(sel, count, 1, list, sizeof list));
    return buf;
}

#define KV_NAMES "blk.N.attn_k.weight or blk.N.attn_qkv.weight"

/* Which main blocks are attention layers: the row's layer rule (archs.def, the Java ArchTable.Layers and
 * LayerPattern), the pattern from the keys first, as llama.cpp's loaders decide it, then each block's tensors
 * checked against its kind. Leaves ls->kv[n] = 1 exactly for the attention layers (main blocks by the rule,
 * drafter blocks by their tensors) and ls->state only on recurrent layers. */
static int classify(rd *r, const meta *m, const arch_row *row, layers_seen *ls, uint64_t blocks, uint64_t block_count) {
    int rule = row ? row->layers : STRATA_LAYERS_TENSORS;
    uint8_t *want = calloc(blocks ? blocks : 1, 1), *miss = calloc(blocks ? blocks : 1, 1);
    char a[160], b[160], key[128];
    int rc = -1, any_kv = 0, one = 0;
    uint64_t v = 0;
    int k;
    if (want == NULL || miss == NULL) {
        fail(r, "out of memory");
        goto out;
    }
    for (uint64_t n = 0; n < blocks; n++) {
        any_kv |= ls->kv[n] != 0;
    }
    if (rule == STRATA_LAYERS_TENSORS) {
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = ls->kv[n] != 0;
        }
        if ((k = key_u64(r, m, "full_attention_interval", UINT64_MAX, &v)) < 0) {
            goto out;
        }
        if (k == 0 && v == 0) {
            fail(r, "%s.full_attention_interval is 0; the file is damaged", m->arch);
            goto out;
        }
        for (uint64_t n = 0; n < blocks && k == 0; n++) {
            miss[n] = (n + 1) % v == 0;
            if (miss[n] != want[n]) {
                for (uint64_t i = n; i < blocks; i++) {
                    miss[i] = (i + 1) % v == 0;
                }
                fail(r, "%s.full_attention_interval %llu means attention layers %s but " KV_NAMES " exists for %s; the "
                        "model is damaged", m->arch, (unsigned long long)v, brief(miss, blocks, 1, a, sizeof a),
                     brief(want, blocks, 1, b, sizeof b));
                goto out;
            }
        }
    } else if (rule == STRATA_LAYERS_ALL) {
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = any_kv; /* none at all: "has no attention layer", below */
            miss[n] = any_kv && ls->kv[n] == 0;
        }
        if (any_kv && memchr(miss, 1, blocks) != NULL) {
            listed(miss, blocks, a, sizeof a, &one);
            fail(r, "%s has an attention layer in every block (as llama.cpp's %s loader reads it) but %s %s no " KV_NAMES
                    "; the model is incomplete", m->arch, m->arch, a, one ? "has" : "have");
            goto out;
        }
        snprintf(key, sizeof key, "%s has no recurrent layer", m->arch);
    } else if (rule == STRATA_LAYERS_INTERVAL) {
        if ((k = key_u64(r, m, "full_attention_interval", UINT64_MAX, &v)) < 0) {
            goto out;
        }
        if (k == 0 && v == 0) {
            fail(r, "%s.full_attention_interval is 0; the file is damaged", m->arch);
            goto out;
        }
        if (k == 1) {
            v = 4; /* llama.cpp's default */
            snprintf(key, sizeof key, "%s.full_attention_interval (absent: llama.cpp's default 4)", m->arch);
        } else {
            snprintf(key, sizeof key, "%s.full_attention_interval %llu", m->arch, (unsigned long long)v);
        }
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = (n + 1) % v == 0;
            miss[n] = want[n] && ls->kv[n] == 0;
        }
        if (memchr(want, 1, blocks) == NULL) {
            fail(r, "%s puts no attention layer in its %llu blocks; the engine runs models with attention KV pools "
                    "(docs/MODELS.md)", key, (unsigned long long)blocks);
            goto out;
        }
        if (memchr(miss, 1, blocks) != NULL) {
            listed(miss, blocks, b, sizeof b, &one);
            fail(r, "%s means attention layers %s but %s %s no " KV_NAMES "; the model is damaged", key,
                 brief(want, blocks, 1, a, sizeof a), b, one ? "has" : "have");
            goto out;
        }
        unsigned linear_ok = 0;
        for (size_t i = 0; i < COUNT(KV_TENSORS); i++) {
            for (size_t j = 0; j < COUNT(LINEAR_KV_TENSORS); j++) {
                linear_ok |= strcmp(KV_TENSORS[i], LINEAR_KV_TENSORS[j]) == 0 ? 1u << i : 0;
            }
        }
        for (uint64_t n = 0; n < blocks; n++) {
            miss[n] = !want[n] && (ls->kv[n] & ~linear_ok) != 0;
        }
        if (memchr(miss, 1, blocks) != NULL) {
            fail(r, "%s means linear-attention (recurrent) layers %s but blk.N.attn_k.weight exists for %s; the model "
                    "is damaged", key, brief(want, blocks, 0, a, sizeof a), brief(miss, blocks, 1, b, sizeof b));
            goto out;
        }
        snprintf(key + strlen(key), sizeof key - strlen(key), " means attention layers %s",
                 brief(want, blocks, 1, a, sizeof a));
    } else { /* STRATA_LAYERS_KV_HEADS: a block given 0 KV heads is recurrent */
        const captured *c = find_key(m, "attention.head_count_kv");
        for (uint64_t n = 0; n < blocks; n++) {
            want[n] = 1;
        }
        if (c != NULL && c->type == T_ARRAY) {
            if (c->elems == NULL || c->length != block_count) {
                fail(r, "%s.attention.head_count_kv is an array of %llu, expected one integer per block (%llu)",
                     m->arch, (unsigned long long)c->length, (unsigned long long)block_count);
                goto out;
            }
            for (uint64_t n = 0; n < blocks; n++) {
                want[n] = c->elems[n] != 0;
            }
        }
        if (memchr(want, 1, blocks) != NULL) {
            for (uint64_t n = 0; n < blocks; n++) {
                miss[n] = want[n] && ls->kv[n] == 0;
            }
            if (memchr(miss, 1, blocks) != NULL) {
                listed(miss, blocks, a, sizeof a, &one);
                fail(r, "%s.attention.head_count_kv gives %s KV heads but %s no " KV_NAMES "; the model is damaged",
                     m->arch, a, one ? "it has" : "they have");
                goto out;
            }
            for (uint64_t n = 0; n < blocks; n++) {
                miss[n] = !want[n] && ls->kv[n] != 0;
            }
            if (memchr(miss, 1, blocks) != NULL) {
                listed(miss, blocks, a, sizeof a, &one);
                fail(r, "%s.attention.head_count_kv gives %s 0 KV heads (recurrent layers) but %s " KV_NAMES "; the "
                        "model is damaged", m->arch, a, one ? "it holds" : "they hold");
                goto out;
            }
        }
        snprintf(key, sizeof key, "%s.attention.head_count_kv gives attention layers %s", m->arch,
                 brief(want, blocks, 1, a, sizeof a));
    }
    for (uint64_t n = 0; n < blocks && rule != STRATA_LAYERS_TENSORS; n++) {
        if (want[n] && ls->state[n]) {
            for (size_t i = 0; i < COUNT(STATE_TENSORS); i++) {
                if (STATE_TENSORS[i].kind == ls->state[n]) {
                    fail(r, "%s but blk.%llu.%s (a recurrent layer's) exists; the model is damaged", key,
                         (unsigned long long)n, STATE_TENSORS[i].name);
                    goto out;
                }
            }
        }
    }
    for (uint64_t n = 0; n < ls->cap; n++) {
        ls->kv[n] = n < blocks ? want[n] : ls->kv[n] != 0;
    }
    rc = 0;
out:
    free(want);
    free(miss);
    return rc;
}

/* Resolves the geometry from the first shard's metadata and the tensors of every shard. */
static int resolve(rd *r, const meta *m, const arch_row *row, layers_seen *ls, uint64_t block_count, uint64_t nextn,
                   strata_geometry *g) {
    uint64_t v;
    int k;
    /* MTP blocks: llama.cpp counts them in block_count (its last n); a file naming blocks past it counts them after */
    uint64_t blocks = block_count;
    if (nextn > 0 && ls->highest < (int64_t)block_count) {
        if (nextn >= block_count) {
            return fail(r, "%s.%s is %llu but %s.block_count is only %llu; the file is damaged", m->arch, KEY_NEXTN,
                        (unsigned long long)nextn, m->arch, (unsigned long long)block_count);
        }
        blocks = block_count - nextn;
    }
    uint64_t all = blocks + nextn;
    if (classify(r, m, row, ls, blocks, block_count)) {
        return -1;
    }
    uint64_t ctx = 0;
    if ((k = key_u64(r, m, "context_length", UINT64_MAX, &ctx)) < 0) {
        return -1;
    }
    if (k == 1 || ctx == 0) {
        return fail(r, k == 1 ? "has no %s.context_length; not a model strata can plan for"
                              : "%s.context_length is 0; the file is damaged", m->arch);
    }
    uint64_t experts = 0, used = 0;
    if (key_u64(r, m, "expert_count", LIM_MAX_SMALL, &experts) < 0 ||
        key_u64(r, m, "expert_used_count", LIM_MAX_SMALL, &used) < 0) {
        return -1;
    }
    if (experts > 0 && (used < 1 || used > experts)) {
        return fail(r, "%s.expert_used_count is %llu but it must be 1..%llu (the expert count); the file is damaged",
                    m->arch, (unsigned long long)used, (unsigned long long)experts);
    }
    uint64_t qsa = 0, drafter_kv = 0, recurrent = 0, dense = ls->outside, drafter = 0, moe_layers = 0, slot_max = 0;
    int kind = STRATA_STATE_NONE;
    for (uint64_t n = 0; n < all; n++) {
        blockinfo *b = &ls->bi[n];
        uint64_t exp_bytes = b->legacy_bytes;
        for (int i = 0; i < N_X; i++) {
            exp_bytes += b->per_expert[i] * experts;
        }
        if (n >= blocks) {
            drafter_kv += ls->kv[n];
            drafter += b->other_bytes + exp_bytes;
            continue;
        }
        dense += b->other_bytes;
        int any = b->has[X_GATE] | b->has[X_UP] | b->has[X_DOWN] | b->has[X_GATE_UP] | (b->legacy_bytes > 0);
        if (any) {
            const char *missing = NULL;
            if (b->legacy_bytes == 0) {
                int gate_up = b->has[X_GATE_UP] || (b->has[X_GATE] && b->has[X_UP]);
                missing = !b->has[X_DOWN] ? "ffn_down_exps.weight"
                          : !gate_up      ? (!b->has[X_GATE] ? "ffn_gate_exps.weight" : "ffn_up_exps.weight")
                                          : NULL;
            }
            if (missing != NULL) {
                return fail(r, "block %llu has expert tensors but no blk.%llu.%s; the model is incomplete",
                            (unsigned long long)n, (unsigned long long)n, missing);
            }
            uint64_t slot = b->legacy_bytes / (experts ? experts : 1);
            for (int i = 0; i < N_X; i++) {
                slot += b->per_expert[i];
            }
            slot_max = slot > slot_max ? slot : slot_max; /* an arena slot holds the largest layer's */
            moe_layers++;
        }
        qsa += ls->kv[n];
        if (ls->state[n]) {
            if (kind != STRATA_STATE_NONE && kind != ls->state[n]) {
                return fail(r, "mixes ssm_conv1d and shortconv.conv layers; the file is damaged");
            }
            kind = ls->state[n];
            recurrent++;
        }
    }
    if (experts > 0 && moe_layers == 0) {
        return fail(r, "%s.expert_count is %llu but no block holds expert tensors (ffn_gate_exps/ffn_up_exps/"
                       "ffn_down_exps, ffn_gate_up_exps or ffn_gate.E/ffn_up.E/ffn_down.E); the model is incomplete",
                    m->arch, (unsigned long long)experts);
    }
    if (qsa == 0) {
        return fail(r, "%s has no attention layer (no blk.N.attn_k or attn_qkv tensor); the engine runs models with "
                       "attention KV pools (docs/MODELS.md)", m->arch);
    }
    /* KV heads, per layer or one value, over the main and drafter attention layers */
    uint64_t kv = 0, heads = 0;
    int have_kv = key_per_layer(r, m, "attention.head_count_kv", block_count, ls->kv, all, &kv);
    int have_heads = key_per_layer(r, m, "attention.head_count", block_count, ls->kv, all, &heads);
    if (have_kv < 0 || have_heads < 0) {
        return -1;
    }
    if (have_kv == 1) {
        kv = have_heads == 0 ? heads : 0; /* llama.cpp's default: as many KV heads as heads */
    }
    if (have_kv == 0 && kv == 0) {
        return fail(r, "%s.attention.head_count_kv is 0 but the model has attention layers, which need at least one "
                       "KV head; the file is damaged", m->arch);
    }
    if (kv < 1) {
        return fail(r, "has attention layers but no %s.attention.head_count_kv; not a model strata can plan for",
                    m->arch);
    }
    uint64_t dims[2];
    const char *dim_keys[2] = {"attention.key_length", "attention.value_length"};
    for (int i = 0; i < 2; i++) {
        uint64_t width = 0;
        if ((k = key_u64(r, m, dim_keys[i], LIM_MAX_SMALL, &dims[i])) < 0) {
            return -1;
        }
        if (k == 0 && dims[i] == 0) {
            return fail(r, "%s.%s is 0, but an attention head needs at least one value; the file is damaged", m->arch,
                        dim_keys[i]);
        }
        if (k == 1) {
            dims[i] = 0;
            if (key_u64(r, m, "embedding_length", UINT64_MAX, &width) < 0) {
                return -1;
            }
            if (width > 0 && have_heads == 0 && heads > 0 && width % heads == 0) {
                dims[i] = width / heads; /* llama.cpp's default head size */
            }
        }
        if (dims[i] < 1) {
            return fail(r, "has attention layers but no %s.%s (nor embedding_length and head_count to derive it); not "
                           "a model strata can plan for", m->arch, dim_keys[i]);
        }
    }
    uint64_t window = 0;
    if (key_u64(r, m, "attention.sliding_window", LIM_MAX_WINDOW, &window) < 0) {
        return -1;
    }
    int pattern = row ? row->swa_pattern : 0;
    uint64_t swa = 0;
    for (uint64_t n = 0; n < blocks && window > 0; n++) {
        if (ls->kv[n] && (pattern == 1 || (pattern > 1 && n % (uint64_t)pattern < (uint64_t)pattern - 1))) {
            swa++;
        }
    }
    uint64_t state = 0;
    if (recurrent > 0) {
        uint64_t kv_[8] = {0};
        for (size_t i = 0; i < COUNT(STATE_KEYS); i++) {
            if (STATE_KEYS[i].kind != kind) {
                continue;
            }
            if ((k = key_u64(r, m, STATE_KEYS[i].key, LIM_MAX_WINDOW, &kv_[STATE_KEYS[i].index])) < 0) {
                return -1;
            }
            if (k == 1) {
                return fail(r, "has recurrent layers but no %s.%s; not a model strata can plan for", m->arch,
                            STATE_KEYS[i].key);
            }
        }
        /* llama.cpp's n_embd_r() + n_embd_s() in f32 (src/llama-hparams.cpp; docs/MODELS.md) */
        uint64_t conv = kv_[0] > 0 ? kv_[0] - 1 : 0;
        if (kind == STRATA_STATE_SSM) {
            state = 4 * (conv * (kv_[1] + 2 * kv_[3] * kv_[2]) + kv_[2] * kv_[1]);
        } else {
            state = 4 * kv_[1] * conv;
        }
    }
    g->blocks = (uint32_t)blocks;
    g->kv_heads = (uint32_t)kv;
    g->head_dim = (uint32_t)dims[0];
    g->head_dim_v = (uint32_t)dims[1];
    g->qsa_layers = (uint32_t)qsa;
    g->swa_layers = (uint32_t)swa;
    g->swa_window = swa > 0 ? window : 0;
    g->recurrent_layers = (uint32_t)recurrent;
    g->state_bytes_per_layer = state;
    g->drafter_blocks = (uint32_t)nextn;
    g->drafter_kv_layers = (uint32_t)drafter_kv;
    g->context_length = ctx;
    g->experts = (uint32_t)experts;
    g->experts_used = experts > 0 ? (uint32_t)used : 0;
    g->moe_layers = (uint32_t)moe_layers;
    g->expert_bytes = slot_max;
    g->dense_bytes = dense;
    g->drafter_bytes = drafter;
    if (find_key(m, "full_attention_interval") != NULL && key_u64(r, m, "full_attention_interval", UINT32_MAX, &v) == 0) {
        g->full_attention_interval = (uint32_t)v;
    }
    return 0;
}

int strata_gguf_geometry(const char *path, strata_geometry *g, char *err, size_t errlen) {
    return strata_gguf_read(path, g, NULL, err, errlen);
}

int strata_gguf_read(const char *path, strata_geometry *g, strata_expert_index *ix, char *err, size_t errlen) {
    rd r;
    meta m;
    uint64_t n_tensors;
    layers_seen ls;
    char *shard = NULL;
    int rc = -1;
    memset(g, 0, sizeof *g);
    if (ix != NULL) {
        memset(ix, 0, sizeof *ix);
    }
    memset(&m, 0, sizeof m);
    memset(&ls, 0, sizeof ls);
    ls.highest = -1;
    if (open_rd(&r, path, err, errlen)) {
        return -1;
    }
    if (read_header_and_meta(&r, &m, &n_tensors)) {
        goto out;
    }
    if (m.old_split && !m.have_split_count) {
        fail(&r, "carries the old split keys general.split* (an early gguf-split format that llama.cpp no longer "
                 "reads; the file is whole, its format is old): merge the shards with the gguf-split that wrote "
                 "them (gguf-split --merge) and re-split the merged file with a current llama.cpp's gguf-split (or "
                 "pass it whole)");
        goto out;
    }
    uint64_t count = m.have_split_count ? m.split_count : 1;
    if (count == 0 || count > MAX_SHARDS) {
        fail(&r, "split.count = %llu is out of range (1..%llu)", (unsigned long long)count,
             (unsigned long long)MAX_SHARDS);
        goto out;
    }
    if (m.have_split_no && m.split_no != 0) {
        fail(&r, "this is shard %llu of the split set; --model must name the first shard (-00001-of-)",
             (unsigned long long)m.split_no + 1);
        goto out;
    }
    const arch_row *row = NULL;
    uint64_t block_count = 0, nextn = 0;
    int k;
    if (n_tensors == 0 && count == 1) {
        fail(&r, "holds no tensors: a tokenizer file, not model weights; pass the model's .gguf file");
        goto out;
    }
    if (check_arch(&r, &m, &row)) {
        goto out;
    }
    if ((k = key_u64(&r, &m, "block_count", UINT64_MAX, &block_count)) < 0) {
        goto out;
    }
    if (k == 1 || block_count == 0 || block_count > MAX_BLOCKS) {
        fail(&r, k == 1 ? "has no %s.block_count; not a model strata can plan for"
                        : "%s.block_count is out of range (1..65536); the file is damaged", m.arch);
        goto out;
    }
    if (key_u64(&r, &m, KEY_NEXTN, LIM_MAX_SMALL, &nextn) < 0) {
        goto out;
    }
    uint64_t experts = 0;
    if (key_u64(&r, &m, "expert_count", LIM_MAX_SMALL, &experts) < 0) {
        goto out;
    }
    /* bounded: block_count and nextn are at most 65,536 each */
    ls.cap = block_count + nextn;
    ls.kv = calloc((size_t)ls.cap, 1);
    ls.state = calloc((size_t)ls.cap, 1);
    ls.bi = calloc((size_t)ls.cap, sizeof *ls.bi);
    if (ls.kv == NULL || ls.state == NULL || ls.bi == NULL) {
        fail(&r, "out of memory");
        goto out;
    }
    if (read_tensor_infos(&r, n_tensors, &ls, m.arch, block_count, experts, 0) || place_data(&r, &m, &ls, 0)) {
        goto out;
    }
    fclose(r.f);
    r.f = NULL;
    if (count > 1) {
        long at = split_suffix(path);
        if (at < 0) {
            fail(&r, "split.count = %llu but the name does not end in -00001-of-%05llu.gguf",
                 (unsigned long long)count, (unsigned long long)count);
            goto out;
        }
        size_t plen = strlen(path);
        shard = malloc(plen + 1);
        if (shard == NULL) {
            fail(&r, "out of memory");
            goto out;
        }
        for (uint64_t s_k = 1; s_k < count; s_k++) {
            memcpy(shard, path, plen + 1);
            char num[64];
            snprintf(num, sizeof num, "-%05llu-of-%05llu.gguf", (unsigned long long)s_k + 1, (unsigned long long)count);
            if (strlen(num) != 20) {
                fail(&r, "split.count = %llu does not fit the 5-digit shard names", (unsigned long long)count);
                goto out;
            }
            memcpy(shard + at, num, 20);
            rd s;
            meta sm;
            uint64_t st;
            memset(&sm, 0, sizeof sm);
            if (open_rd(&s, shard, err, errlen)) {
                snprintf(err + strlen(err), errlen - strlen(err), " [shard %llu of %llu]", (unsigned long long)s_k + 1,
                         (unsigned long long)count);
                goto out;
            }
            int bad = read_header_and_meta(&s, &sm, &st);
            if (!bad && (!sm.have_split_count || sm.split_count != count || !sm.have_split_no || sm.split_no != s_k)) {
                bad = fail(&s, "split keys say shard %llu of %llu, expected shard %llu of %llu (a shard from another set?)",
                           (unsigned long long)(sm.have_split_no ? sm.split_no + 1 : 0),
                           (unsigned long long)(sm.have_split_count ? sm.split_count : 0), (unsigned long long)s_k + 1,
                           (unsigned long long)count);
            }
            if (!bad) {
                bad = read_tensor_infos(&s, st, &ls, m.arch, block_count, experts, (uint32_t)s_k) ||
                      place_data(&s, &sm, &ls, (uint32_t)s_k);
            }
            meta_free(&sm);
            fclose(s.f);
            if (bad) {
                goto out;
            }
        }
    }
    if (ls.tensors == 0) {
        fail(&r, "holds no tensors: a tokenizer file, not model weights; pass the model's .gguf file");
        goto out;
    }
    if (resolve(&r, &m, row, &ls, block_count, nextn, g)) {
        goto out;
    }
    if (ix != NULL && g->moe_layers > 0) {
        ix->layers = calloc(g->moe_layers, sizeof *ix->layers);
        if (ix->layers == NULL) {
            fail(&r, "out of memory");
            goto out;
        }
        uint32_t j = 0;
        for (uint64_t n = 0; n < g->blocks && j < g->moe_layers; n++) {
            blockinfo *b = &ls.bi[n];
            if (!(b->has[X_GATE] | b->has[X_UP] | b->has[X_DOWN] | b->has[X_GATE_UP])) {
                continue;
            }
            ix->layers[j].block = (uint32_t)n;
            /* t[0..2] = gate, up, down; a merged gate_up stands in t[0] whole and t[1] is empty */
            ix->layers[j].t[0] = b->has[X_GATE_UP] ? b->where[X_GATE_UP] : b->where[X_GATE];
            ix->layers[j].t[1] = b->where[X_UP];
            if (b->has[X_GATE_UP]) {
                ix->layers[j].t[1] = b->where[X_GATE_UP];
                ix->layers[j].t[1].bytes_per_expert = 0;
            }
            ix->layers[j].t[2] = b->where[X_DOWN];
            j++;
        }
        ix->n_layers = j;
    }
    snprintf(g->arch, sizeof g->arch, "%s", m.arch);
    g->shards = (uint32_t)count;
    rc = 0;
out:
    if (r.f != NULL) {
        fclose(r.f);
    }
    if (rc != 0) {
        memset(g, 0, sizeof *g);
    }
    if (rc != 0 && ix != NULL) {
        strata_expert_index_free(ix);
    }
    meta_free(&m);
    free(ls.kv);
    free(ls.state);
    free(ls.bi);
    free(shard);
    return rc;
}

void strata_expert_index_free(strata_expert_index *ix) {
    if (ix != NULL) {
        free(ix->layers);
        ix->layers = NULL;
        ix->n_layers = 0;
    }
}

int strata_gguf_shard_path(const char *first, uint32_t k, uint32_t count, char *buf, size_t cap) {
    size_t plen = strlen(first);
    if (count <= 1) {
        return snprintf(buf, cap, "%s", first) < (int)cap ? 0 : -1;
    }
    long at = split_suffix(first);
    if (at < 0 || plen + 1 > cap || k >= count) {
        return -1;
    }
    memcpy(buf, first, plen + 1);
    char num[64];
    snprintf(num, sizeof num, "-%05u-of-%05u.gguf", k + 1, count);
    if (strlen(num) != 20) {
        return -1;
    }
    memcpy(buf + at, num, 20);
    return 0;
}

/* gguf.c — a minimal, bounded GGUF v3 reader: just enough metadata and tensor info for the KV geometry
 * (docs/ENGINE-CONTRACT.md). Hostile files are expected: every length and count is checked against the bytes
 * left in the file before it is used, nothing is allocated from a count the file claims, arrays may not nest,
 * and each failure is one line naming the file and the problem. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ref_internal.h"

enum {
    T_U8 = 0, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STRING, T_ARRAY, T_U64, T_I64, T_F64,
};
#define MAX_BLOCKS 65536u
#define MAX_SHARDS 4096u
#define NAME_MAX_LEN 255u
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

/* The three tensors of an expert FFN (Java GeometryRules.EXPERT_TENSORS); their last dimension is the expert
 * count, and one expert's slice of each is what an arena slot holds. */
static const char *const EXPERT_TENSORS[3] = {".ffn_gate_exps.weight", ".ffn_up_exps.weight",
                                              ".ffn_down_exps.weight"};

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

/* Reads a string into buf when it fits (len < cap), else skips it and sets *fits = 0. */
static int rstr(rd *r, char *buf, size_t cap, int *fits, const char *what) {
    uint64_t len;
    if (ru64(r, &len, what) || need(r, len, what)) {
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

/* Reads an integer value of any integer type; negative or non-integer → error. */
static int rint_value(rd *r, uint32_t type, const char *key, uint64_t *out) {
    uint64_t sz = scalar_size(type);
    if (sz == 0 || type == T_F32 || type == T_F64 || type == T_BOOL) {
        return fail(r, "key %s has type %u, expected an integer", key, type);
    }
    uint8_t b[8] = {0};
    if (rbytes(r, b, sz, key)) {
        return -1;
    }
    uint64_t v = 0;
    for (uint64_t i = 0; i < sz; i++) {
        v |= (uint64_t)b[i] << (8 * i);
    }
    int is_signed = type == T_I8 || type == T_I16 || type == T_I32 || type == T_I64;
    if (is_signed && (b[sz - 1] & 0x80)) {
        return fail(r, "key %s is negative", key);
    }
    *out = v;
    return 0;
}

static int skip_value(rd *r, uint32_t type, const char *key) {
    if (type == T_STRING) {
        uint64_t len;
        return ru64(r, &len, key) || rskip(r, len, key) ? -1 : 0;
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

typedef struct {
    char arch[64];
    int have_arch;
    uint64_t blocks, kv_heads, head_dim, interval, split_no, split_count, alignment, experts, experts_used, context;
    int have_blocks, have_kv, have_hd, have_interval, have_split_no, have_split_count, have_alignment, have_experts,
        have_experts_used, have_context;
} meta;

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
    if (version != 3) {
        return fail(r, "GGUF version %u is not supported (strata reads GGUF v3)", version);
    }
    if (ru64(r, n_tensors, "the tensor count") || ru64(r, &n_kv, "the metadata count")) {
        return -1;
    }
    /* every metadata pair takes at least 13 bytes (key length, type, a 1-byte value); every tensor info 24 */
    if (n_kv > (r->size - r->pos) / 13) {
        return fail(r, "metadata count %llu is more than the file can hold", (unsigned long long)n_kv);
    }
    if (*n_tensors > (r->size - r->pos) / 24) {
        return fail(r, "tensor count %llu is more than the file can hold", (unsigned long long)*n_tensors);
    }
    char key[NAME_MAX_LEN + 1];
    char k_blocks[128], k_kv[128], k_hd[128], k_int[128], k_exp[128], k_used[128], k_ctx[128];
    k_blocks[0] = k_kv[0] = k_hd[0] = k_int[0] = k_exp[0] = k_used[0] = k_ctx[0] = '\0';
    for (uint64_t i = 0; i < n_kv; i++) {
        int fits;
        uint32_t type;
        if (rstr(r, key, sizeof key, &fits, "a metadata key") || ru32(r, &type, "a metadata type")) {
            return -1;
        }
        const char *kname = fits ? key : "(long key)";
        if (fits && strcmp(key, "general.architecture") == 0) {
            if (type != T_STRING) {
                return fail(r, "general.architecture is not a string");
            }
            int afits;
            if (rstr(r, m->arch, sizeof m->arch, &afits, key)) {
                return -1;
            }
            if (!afits || m->arch[0] == '\0') {
                return fail(r, "general.architecture is empty or longer than 63 bytes");
            }
            m->have_arch = 1;
            snprintf(k_blocks, sizeof k_blocks, "%s.block_count", m->arch);
            snprintf(k_kv, sizeof k_kv, "%s.attention.head_count_kv", m->arch);
            snprintf(k_hd, sizeof k_hd, "%s.attention.key_length", m->arch);
            snprintf(k_int, sizeof k_int, "%s.full_attention_interval", m->arch);
            snprintf(k_exp, sizeof k_exp, "%s.expert_count", m->arch);
            snprintf(k_used, sizeof k_used, "%s.expert_used_count", m->arch);
            snprintf(k_ctx, sizeof k_ctx, "%s.context_length", m->arch);
            continue;
        }
        uint64_t *dst = NULL;
        int *flag = NULL;
        if (fits && m->have_arch) {
            if (strcmp(key, k_blocks) == 0) dst = &m->blocks, flag = &m->have_blocks;
            else if (strcmp(key, k_kv) == 0) dst = &m->kv_heads, flag = &m->have_kv;
            else if (strcmp(key, k_hd) == 0) dst = &m->head_dim, flag = &m->have_hd;
            else if (strcmp(key, k_int) == 0) dst = &m->interval, flag = &m->have_interval;
            else if (strcmp(key, k_exp) == 0) dst = &m->experts, flag = &m->have_experts;
            else if (strcmp(key, k_used) == 0) dst = &m->experts_used, flag = &m->have_experts_used;
            else if (strcmp(key, k_ctx) == 0) dst = &m->context, flag = &m->have_context;
        }
        if (fits && dst == NULL) {
            if (strcmp(key, "split.no") == 0) dst = &m->split_no, flag = &m->have_split_no;
            else if (strcmp(key, "split.count") == 0) dst = &m->split_count, flag = &m->have_split_count;
            else if (strcmp(key, "general.alignment") == 0) dst = &m->alignment, flag = &m->have_alignment;
        }
        if (dst != NULL) {
            if (type == T_ARRAY) {
                return fail(r, "key %s is an array; strata needs one value", key);
            }
            if (rint_value(r, type, key, dst)) {
                return -1;
            }
            *flag = 1;
        } else if (skip_value(r, type, kname)) {
            return -1;
        }
    }
    return 0;
}

/* What the tensor walk collects per block. */
typedef struct {
    uint8_t qsa;        /* has blk.N.attn_k.weight */
    uint8_t has[3];     /* has the expert tensor EXPERT_TENSORS[i] */
    uint64_t per_expert[3];
    strata_expert_tensor where[3];
} blockinfo;

static const char *match_expert(const char *rest, int *which) {
    for (int i = 0; i < 3; i++) {
        if (strcmp(rest, EXPERT_TENSORS[i]) == 0) {
            *which = i;
            return rest;
        }
    }
    return NULL;
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

/* Walks the tensor infos of shard `shard`: marks blk.N.attn_k.weight (N < blocks), records the expert tensors of
 * each block, adds every other tensor's bytes to *dense, and leaves r->pos at the end of the infos. */
static int read_tensor_infos(rd *r, uint64_t n_tensors, blockinfo *bi, uint64_t blocks, uint64_t experts,
                             uint32_t shard, uint64_t *dense) {
    char name[NAME_MAX_LEN + 1];
    for (uint64_t i = 0; i < n_tensors; i++) {
        int fits;
        uint32_t n_dims, type;
        uint64_t offset, dims[4] = {1, 1, 1, 1}, bytes = 0;
        if (rstr(r, name, sizeof name, &fits, "a tensor name") || ru32(r, &n_dims, "a tensor rank")) {
            return -1;
        }
        const char *shown = fits ? name : "(long name)";
        if (n_dims == 0 || n_dims > 4) {
            return fail(r, "tensor %s has rank %u (GGUF allows 1..4)", shown, n_dims);
        }
        for (uint32_t d = 0; d < n_dims; d++) {
            if (ru64(r, &dims[d], "a tensor dimension")) {
                return -1;
            }
        }
        if (ru32(r, &type, "a tensor type") || ru64(r, &offset, "a tensor offset")) {
            return -1;
        }
        if (tensor_bytes(r, shown, type, dims, n_dims, &bytes)) {
            return -1;
        }
        int which = -1;
        uint64_t n = 0;
        const char *p = NULL;
        if (fits && strncmp(name, "blk.", 4) == 0) {
            p = name + 4;
            int digits = 0;
            while (*p >= '0' && *p <= '9' && digits < 10) {
                n = n * 10 + (uint64_t)(*p - '0');
                p++;
                digits++;
            }
            if (digits == 0) {
                p = NULL;
            }
        }
        if (p != NULL && match_expert(p, &which) != NULL) {
            if (n >= blocks) {
                return fail(r, "tensor %s names block %llu but block_count is %llu", name, (unsigned long long)n,
                            (unsigned long long)blocks);
            }
            if (experts == 0) {
                return fail(r, "holds expert tensor %s but has no expert_count; the file is damaged", name);
            }
            if (n_dims != 3 || dims[2] != experts) {
                return fail(r, "tensor %s has %u dimensions, last %llu, but its last dimension must be the expert "
                               "count %llu; the file is damaged", name, n_dims, (unsigned long long)dims[n_dims - 1],
                            (unsigned long long)experts);
            }
            bi[n].has[which] = 1;
            bi[n].per_expert[which] = bytes / experts;
            bi[n].where[which].shard = shard;
            bi[n].where[which].offset = offset; /* relative to the data section until the caller adds its start */
            bi[n].where[which].bytes_per_expert = bytes / experts;
            continue;
        }
        if (__builtin_add_overflow(*dense, bytes, dense)) {
            return fail(r, "tensor bytes overflow; the file is damaged");
        }
        if (p == NULL || strcmp(p, ".attn_k.weight") != 0) {
            continue;
        }
        if (n >= blocks) {
            return fail(r, "tensor %s names block %llu but block_count is %llu", name, (unsigned long long)n,
                        (unsigned long long)blocks);
        }
        bi[n].qsa = 1;
    }
    return 0;
}

/* The data section of a file starts at the end of the tensor infos, aligned up (general.alignment, default 32);
 * adds it to the expert tensor offsets of this shard. */
static int place_data(rd *r, const meta *m, blockinfo *bi, uint64_t blocks, uint32_t shard) {
    uint64_t align = m->have_alignment ? m->alignment : DEFAULT_ALIGNMENT;
    if (align == 0 || align > (1u << 30) || (align & (align - 1)) != 0) {
        return fail(r, "general.alignment is %llu; it must be a power of two up to 2^30; the file is damaged",
                    (unsigned long long)align);
    }
    uint64_t data = (r->pos + align - 1) & ~(align - 1);
    for (uint64_t n = 0; n < blocks; n++) {
        for (int i = 0; i < 3; i++) {
            /* entries of this shard were written by its tensor walk just before: each is placed exactly once */
            if (bi[n].has[i] && bi[n].where[i].shard == shard &&
                __builtin_add_overflow(bi[n].where[i].offset, data, &bi[n].where[i].offset)) {
                return fail(r, "tensor offset overflows; the file is damaged");
            }
        }
    }
    return 0;
}

static int open_rd(rd *r, const char *path, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->errlen = errlen;
    struct stat st;
    if (stat(path, &st) != 0) {
        return fail(r, "%s (check --model: it names the first shard)", strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return fail(r, "not a regular file (--model names the first .gguf shard, not a folder)");
    }
    r->f = fopen(path, "rb");
    if (r->f == NULL) {
        return fail(r, "%s", strerror(errno));
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

int strata_gguf_geometry(const char *path, strata_geometry *g, char *err, size_t errlen) {
    return strata_gguf_read(path, g, NULL, err, errlen);
}

int strata_gguf_read(const char *path, strata_geometry *g, strata_expert_index *ix, char *err, size_t errlen) {
    rd r;
    meta m;
    uint64_t n_tensors;
    blockinfo *bi = NULL;
    char *shard = NULL;
    int rc = -1;
    uint64_t dense = 0;
    memset(g, 0, sizeof *g);
    if (ix != NULL) {
        memset(ix, 0, sizeof *ix);
    }
    memset(&m, 0, sizeof m);
    if (open_rd(&r, path, err, errlen)) {
        return -1;
    }
    if (read_header_and_meta(&r, &m, &n_tensors)) {
        goto out;
    }
    if (!m.have_arch) {
        fail(&r, "missing key general.architecture (is this the first shard?)");
        goto out;
    }
    if (!m.have_blocks || !m.have_kv || !m.have_hd) {
        fail(&r, "missing key %s.%s", m.arch,
             !m.have_blocks ? "block_count" : !m.have_kv ? "attention.head_count_kv" : "attention.key_length");
        goto out;
    }
    if (m.blocks == 0 || m.blocks > MAX_BLOCKS) {
        fail(&r, "%s.block_count = %llu is out of range (1..%u)", m.arch, (unsigned long long)m.blocks, MAX_BLOCKS);
        goto out;
    }
    if (m.kv_heads == 0 || m.kv_heads > 64) {
        fail(&r, "%s.attention.head_count_kv = %llu is out of range (1..64)", m.arch, (unsigned long long)m.kv_heads);
        goto out;
    }
    if (m.head_dim == 0 || m.head_dim > 4096) {
        fail(&r, "%s.attention.key_length = %llu is out of range (1..4096)", m.arch, (unsigned long long)m.head_dim);
        goto out;
    }
    uint64_t count = m.have_split_count ? m.split_count : 1;
    if (count == 0 || count > MAX_SHARDS) {
        fail(&r, "split.count = %llu is out of range (1..%u)", (unsigned long long)count, MAX_SHARDS);
        goto out;
    }
    if (m.have_split_no && m.split_no != 0) {
        fail(&r, "this is shard %llu of the split set; --model must name the first shard (-00001-of-)",
             (unsigned long long)m.split_no + 1);
        goto out;
    }
    uint64_t experts = m.have_experts ? m.experts : 0;
    if (experts > 65536) {
        fail(&r, "%s.expert_count is %llu (limit 65536); the file is damaged", m.arch, (unsigned long long)experts);
        goto out;
    }
    uint64_t used = experts == 0 ? 0 : m.have_experts_used ? m.experts_used : 0;
    if (experts > 0 && (used < 1 || used > experts)) {
        fail(&r, "%s.expert_used_count is %llu but it must be 1..%llu (the expert count); the file is damaged", m.arch,
             (unsigned long long)used, (unsigned long long)experts);
        goto out;
    }
    /* bounded: block_count <= 65,536, so at most a few MB */
    bi = calloc((size_t)m.blocks, sizeof *bi);
    if (bi == NULL) {
        fail(&r, "out of memory");
        goto out;
    }
    if (read_tensor_infos(&r, n_tensors, bi, m.blocks, experts, 0, &dense) || place_data(&r, &m, bi, m.blocks, 0)) {
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
        for (uint64_t k = 1; k < count; k++) {
            memcpy(shard, path, plen + 1);
            char num[64];
            snprintf(num, sizeof num, "-%05llu-of-%05llu.gguf", (unsigned long long)k + 1, (unsigned long long)count);
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
                snprintf(err + strlen(err), errlen - strlen(err), " [shard %llu of %llu]", (unsigned long long)k + 1,
                         (unsigned long long)count);
                goto out;
            }
            int bad = read_header_and_meta(&s, &sm, &st);
            if (!bad && (!sm.have_split_count || sm.split_count != count || !sm.have_split_no || sm.split_no != k)) {
                bad = fail(&s, "split keys say shard %llu of %llu, expected shard %llu of %llu (a shard from another set?)",
                           (unsigned long long)(sm.have_split_no ? sm.split_no + 1 : 0),
                           (unsigned long long)(sm.have_split_count ? sm.split_count : 0), (unsigned long long)k + 1,
                           (unsigned long long)count);
            }
            if (!bad) {
                bad = read_tensor_infos(&s, st, bi, m.blocks, experts, (uint32_t)k, &dense) ||
                      place_data(&s, &sm, bi, m.blocks, (uint32_t)k);
            }
            fclose(s.f);
            if (bad) {
                goto out;
            }
        }
    }
    uint32_t layers = 0, moe_layers = 0;
    uint64_t expert_bytes = 0;
    for (uint64_t n = 0; n < m.blocks; n++) {
        layers += bi[n].qsa;
        int any = bi[n].has[0] | bi[n].has[1] | bi[n].has[2];
        if (any) {
            uint64_t slot = 0;
            for (int i = 0; i < 3; i++) {
                if (!bi[n].has[i]) {
                    fail(&r, "block %llu has expert tensors but no blk.%llu%s; the model is incomplete",
                         (unsigned long long)n, (unsigned long long)n, EXPERT_TENSORS[i]);
                    goto out;
                }
                slot += bi[n].per_expert[i];
            }
            moe_layers++;
            expert_bytes = slot > expert_bytes ? slot : expert_bytes; /* an arena slot holds the largest */
        }
        if (m.have_interval && m.interval > 0 && bi[n].qsa != ((n + 1) % m.interval == 0)) {
            fail(&r, "%s.full_attention_interval = %llu disagrees with the tensors at block %llu", m.arch,
                 (unsigned long long)m.interval, (unsigned long long)n);
            goto out;
        }
    }
    if (layers == 0) {
        fail(&r, "no full-attention (QSA) layer: no blk.N.attn_k.weight tensor in %llu shard(s)",
             (unsigned long long)count);
        goto out;
    }
    if (experts > 0 && moe_layers == 0) {
        fail(&r, "%s.expert_count is %llu but no block holds ffn_gate_exps/ffn_up_exps/ffn_down_exps; the model is "
                 "incomplete", m.arch, (unsigned long long)experts);
        goto out;
    }
    if (ix != NULL && moe_layers > 0) {
        ix->layers = calloc(moe_layers, sizeof *ix->layers);
        if (ix->layers == NULL) {
            fail(&r, "out of memory");
            goto out;
        }
        for (uint64_t n = 0, j = 0; n < m.blocks; n++) {
            if (bi[n].has[0]) {
                ix->layers[j].block = (uint32_t)n;
                memcpy(ix->layers[j].t, bi[n].where, sizeof bi[n].where);
                j++;
            }
        }
        ix->n_layers = moe_layers;
    }
    snprintf(g->arch, sizeof g->arch, "%s", m.arch);
    g->experts = (uint32_t)experts;
    g->experts_used = (uint32_t)used;
    g->moe_layers = moe_layers;
    g->expert_bytes = expert_bytes;
    g->dense_bytes = dense;
    g->context_length = m.have_context ? m.context : 0;
    g->blocks = (uint32_t)m.blocks;
    g->kv_heads = (uint32_t)m.kv_heads;
    g->head_dim = (uint32_t)m.head_dim;
    g->qsa_layers = layers;
    g->shards = (uint32_t)count;
    g->full_attention_interval = m.have_interval ? (uint32_t)m.interval : 0;
    rc = 0;
out:
    if (r.f != NULL) {
        fclose(r.f);
    }
    free(bi);
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

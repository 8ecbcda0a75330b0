/* gguf_map.c — a GGUF split set mapped read-only and indexed (gguf_map.h). The weights are used in place.
 *
 * Bounded against hostile files: every length and count is checked against the bytes left in the mapping before
 * it is used; arrays of strings get one offset table (8 bytes per element, and each element needs at least its own
 * 8-byte length, so the table never exceeds the file's size); nesting is refused; a tensor's data must lie inside
 * its shard. One failure = one line `model: PATH: what is wrong (what to do)`. */
#define _POSIX_C_SOURCE 200809L
#include "gguf_map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "quant.h"
#include "ref_internal.h"

#define GGUF_MAX_DIMS 4
#define MAX_SHARDS 4096

typedef struct {
    const uint8_t *p, *end;
    const char *path;
    char *err;
    size_t errlen;
} cur;

static int failf(char *err, size_t errlen, const char *path, const char *fmt, ...) {
    char what[STRATA_GGUF_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "model: %s: %s", path, what);
    return -1;
}

static int need(cur *c, uint64_t n, const char *what) {
    if ((uint64_t)(c->end - c->p) < n) {
        return failf(c->err, c->errlen, c->path, "the file ends inside %s: it is truncated (download it again)", what);
    }
    return 0;
}

static int get32(cur *c, uint32_t *v, const char *what) {
    if (need(c, 4, what) != 0) {
        return -1;
    }
    *v = strata_rd32(c->p);
    c->p += 4;
    return 0;
}
static int get64(cur *c, uint64_t *v, const char *what) {
    if (need(c, 8, what) != 0) {
        return -1;
    }
    *v = strata_rd64(c->p);
    c->p += 8;
    return 0;
}

/* A GGUF string: u64 length then bytes. */
static int getstr(cur *c, const uint8_t **s, uint64_t *len, const char *what) {
    if (get64(c, len, what) != 0 || need(c, *len, what) != 0) {
        return -1;
    }
    *s = c->p;
    c->p += *len;
    return 0;
}

static char *dupn(const uint8_t *s, uint64_t n) {
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static int read_value(cur *c, strata_gguf_kv *kv) {
    const char *what = kv->key;
    if (kv->type == GGUF_T_STRING) {
        return getstr(c, &kv->data, &kv->n, what);
    }
    if (kv->type == GGUF_T_ARRAY) {
        if (get32(c, &kv->atype, what) != 0 || get64(c, &kv->n, what) != 0) {
            return -1;
        }
        kv->data = c->p;
        if (kv->atype == GGUF_T_STRING) {
            /* each element needs at least 8 bytes: bound the table before allocating it */
            if (kv->n > (uint64_t)(c->end - c->p) / 8) {
                return failf(c->err, c->errlen, c->path, "key %s claims %llu strings, more than the file holds (the file is damaged)",
                             what, (unsigned long long)kv->n);
            }
            uint64_t *off = malloc((kv->n ? kv->n : 1) * sizeof *off);
            if (off == NULL) {
                return failf(c->err, c->errlen, c->path, "out of memory reading key %s", what);
            }
            for (uint64_t i = 0; i < kv->n; i++) {
                const uint8_t *s;
                uint64_t len;
                off[i] = (uint64_t)(c->p - kv->data);
                if (getstr(c, &s, &len, what) != 0) {
                    free(off);
                    return -1;
                }
            }
            kv->str_off = off;
            return 0;
        }
        uint64_t eb = strata_gguf_scalar_bytes(kv->atype);
        if (eb == 0) {
            return failf(c->err, c->errlen, c->path, "key %s is an array of type %u, which GGUF v3 does not nest here (the file is damaged)",
                         what, kv->atype);
        }
        if (kv->n > (uint64_t)(c->end - c->p) / eb) {
            return need(c, UINT64_MAX, what);
        }
        c->p += kv->n * eb;
        return 0;
    }
    uint64_t b = strata_gguf_scalar_bytes(kv->type);
    if (b == 0) {
        return failf(c->err, c->errlen, c->path, "key %s has value type %u, which GGUF v3 does not define (the file is damaged)",
                     what, kv->type);
    }
    if (need(c, b, what) != 0) {
        return -1;
    }
    kv->data = c->p;
    kv->n = 1;
    c->p += b;
    return 0;
}

/* An open-addressing hash of tensor names (FNV-1a). */
typedef struct {
    uint64_t cap;
    int64_t *slot; /* index into tensors, -1 empty */
} name_index;

static uint64_t fnv(const char *s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
    }
    return h;
}

static int map_file(const char *path, int *fd_out, const uint8_t **map, uint64_t *size, char *err, size_t errlen) {
    char why[128];
    int fd = strata_open_model_file(path, why, sizeof why);
    if (fd < 0) {
        return failf(err, errlen, path, "%s", why);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return failf(err, errlen, path, "cannot read: %s", strerror(e));
    }
    if (st.st_size < 24) {
        close(fd);
        return failf(err, errlen, path, "has %lld bytes, too few for a GGUF header (it is truncated or not a model)",
                     (long long)st.st_size);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return failf(err, errlen, path, "cannot map: %s", strerror(errno));
    }
    *fd_out = fd;
    *map = p;
    *size = (uint64_t)st.st_size;
    return 0;
}

/* Parses one shard's header, keys (kept only for shard 0) and tensor infos (appended). */
static int index_shard(strata_gguf_map *m, uint32_t k, uint64_t *cap_t, char *err, size_t errlen) {
    cur c = {m->shards[k].map, m->shards[k].map + m->shards[k].size, m->shards[k].path, err, errlen};
    if (memcmp(c.p, "GGUF", 4) != 0) {
        return failf(err, errlen, c.path, "is not a GGUF file (no GGUF magic)");
    }
    c.p += 4;
    uint32_t version;
    uint64_t n_tensors, n_kv;
    if (get32(&c, &version, "the header") != 0 || get64(&c, &n_tensors, "the header") != 0 ||
        get64(&c, &n_kv, "the header") != 0) {
        return -1;
    }
    if (version != 3) {
        return failf(err, errlen, c.path, "is GGUF version %u; strata-ref reads version 3 (convert it with current llama.cpp)", version);
    }
    /* each key needs >= 12 bytes, each tensor info >= 24: bound before allocating */
    if (n_kv > m->shards[k].size / 12 || n_tensors > m->shards[k].size / 24) {
        return failf(err, errlen, c.path, "claims %llu keys and %llu tensors, more than the file holds (the file is damaged)",
                     (unsigned long long)n_kv, (unsigned long long)n_tensors);
    }
    strata_gguf_kv *kvs = calloc(n_kv ? n_kv : 1, sizeof *kvs);
    if (kvs == NULL) {
        return failf(err, errlen, c.path, "out of memory");
    }
    uint64_t alignment = 32;
    uint64_t nk = 0;
    int rc = 0;
    for (uint64_t i = 0; i < n_kv && rc == 0; i++) {
        const uint8_t *ks;
        uint64_t klen;
        strata_gguf_kv *kv = &kvs[nk++];
        if (getstr(&c, &ks, &klen, "a key name") != 0 || (kv->key = dupn(ks, klen)) == NULL ||
            get32(&c, &kv->type, kv->key) != 0 || read_value(&c, kv) != 0) {
            rc = -1;
            break;
        }
        if (strcmp(kv->key, "general.alignment") == 0 && kv->type == GGUF_T_U32) {
            alignment = strata_rd32(kv->data);
            if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
                rc = failf(err, errlen, c.path, "general.alignment %llu is not a power of two (the file is damaged)",
                           (unsigned long long)alignment);
            }
        }
    }
    if (k == 0) {
        m->kv = kvs;
        m->n_kv = nk;
    } else {
        for (uint64_t i = 0; i < nk; i++) {
            free((void *)kvs[i].key);
            free((void *)kvs[i].str_off);
        }
        free(kvs);
    }
    if (rc != 0) {
        return -1;
    }
    uint64_t first = m->n_tensors;
    if (m->n_tensors + n_tensors > *cap_t) {
        uint64_t cap = (m->n_tensors + n_tensors) * 2;
        strata_gguf_tensor *t = realloc(m->tensors, cap * sizeof *t);
        if (t == NULL) {
            return failf(err, errlen, c.path, "out of memory");
        }
        m->tensors = t;
        *cap_t = cap;
    }
    for (uint64_t i = 0; i < n_tensors; i++) {
        strata_gguf_tensor *t = &m->tensors[m->n_tensors];
        memset(t, 0, sizeof *t);
        const uint8_t *ns;
        uint64_t nlen;
        if (getstr(&c, &ns, &nlen, "a tensor name") != 0) {
            return -1;
        }
        if ((t->name = dupn(ns, nlen)) == NULL) {
            return failf(err, errlen, c.path, "out of memory");
        }
        m->n_tensors++;
        if (get32(&c, &t->n_dims, t->name) != 0) {
            return -1;
        }
        if (t->n_dims == 0 || t->n_dims > GGUF_MAX_DIMS) {
            return failf(err, errlen, c.path, "tensor %s has %u dimensions (GGUF allows 1..4: the file is damaged)", t->name,
                         t->n_dims);
        }
        uint64_t values = 1;
        for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
            uint64_t ne = 1;
            if (d < t->n_dims && get64(&c, &ne, t->name) != 0) {
                return -1;
            }
            if (ne == 0 || ne > (1ULL << 40) || values > UINT64_MAX / ne) {
                return failf(err, errlen, c.path, "tensor %s has a dimension of %llu (the file is damaged)", t->name,
                             (unsigned long long)ne);
            }
            t->ne[d] = (int64_t)ne;
            values *= ne;
        }
        uint64_t rel;
        if (get32(&c, &t->type, t->name) != 0 || get64(&c, &rel, t->name) != 0) {
            return -1;
        }
        const strata_type_info *ti = strata_type(t->type);
        if (ti == NULL) {
            return failf(err, errlen, c.path, "tensor %s has ggml type %u, which ggml does not define (the file is damaged or newer than strata-ref)",
                         t->name, t->type);
        }
        if (t->ne[0] % ti->block != 0) {
            return failf(err, errlen, c.path, "tensor %s has rows of %lld values, not a multiple of %s's block of %u (the file is damaged)",
                         t->name, (long long)t->ne[0], ti->name, ti->block);
        }
        t->bytes = values / ti->block * ti->bytes;
        t->offset = rel; /* relative for now */
        t->shard = k;
    }
    uint64_t header_end = (uint64_t)(c.p - m->shards[k].map);
    uint64_t data_start = (header_end + alignment - 1) / alignment * alignment;
    for (uint64_t i = first; i < m->n_tensors; i++) {
        strata_gguf_tensor *t = &m->tensors[i];
        uint64_t off = data_start + t->offset;
        if (off < data_start || off > m->shards[k].size || t->bytes > m->shards[k].size - off) {
            return failf(err, errlen, c.path, "tensor %s ends at byte %llu but the file has %llu bytes: the file is truncated (download it again)",
                         t->name, (unsigned long long)(off + t->bytes), (unsigned long long)m->shards[k].size);
        }
        t->offset = off;
        t->data = m->shards[k].map + off;
    }
    return 0;
}

static int build_index(strata_gguf_map *m, char *err, size_t errlen) {
    name_index *ix = calloc(1, sizeof *ix);
    if (ix == NULL) {
        return failf(err, errlen, m->shards[0].path, "out of memory");
    }
    ix->cap = 16;
    while (ix->cap < m->n_tensors * 2) {
        ix->cap *= 2;
    }
    ix->slot = malloc(ix->cap * sizeof *ix->slot);
    if (ix->slot == NULL) {
        free(ix);
        return failf(err, errlen, m->shards[0].path, "out of memory");
    }
    memset(ix->slot, 0xff, ix->cap * sizeof *ix->slot);
    m->priv = ix;
    for (uint64_t i = 0; i < m->n_tensors; i++) {
        uint64_t h = fnv(m->tensors[i].name) & (ix->cap - 1);
        while (ix->slot[h] >= 0) {
            if (strcmp(m->tensors[ix->slot[h]].name, m->tensors[i].name) == 0) {
                return failf(err, errlen, m->shards[m->tensors[i].shard].path,
                             "tensor %s appears twice in the split set (the files are damaged or mixed from two models)",
                             m->tensors[i].name);
            }
            h = (h + 1) & (ix->cap - 1);
        }
        ix->slot[h] = (int64_t)i;
    }
    return 0;
}

int strata_gguf_map_open(const char *path, strata_gguf_map *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    uint64_t cap_t = 0;
    m->shards = calloc(1, sizeof *m->shards);
    if (m->shards == NULL) {
        return failf(err, errlen, path, "out of memory");
    }
    m->n_shards = 1;
    m->shards[0].fd = -1;
    m->shards[0].path = strdup(path);
    if (m->shards[0].path == NULL ||
        map_file(path, &m->shards[0].fd, &m->shards[0].map, &m->shards[0].size, err, errlen) != 0 ||
        index_shard(m, 0, &cap_t, err, errlen) != 0) {
        strata_gguf_map_close(m);
        return -1;
    }
    uint64_t count = 1;
    if (strata_gguf_kv_u64(m, "split.count", &count) && count > 1) {
        if (count > MAX_SHARDS) {
            failf(err, errlen, path, "split.count %llu is more than %d shards (the file is damaged)", (unsigned long long)count,
                  MAX_SHARDS);
            strata_gguf_map_close(m);
            return -1;
        }
        void *grown = realloc(m->shards, count * sizeof *m->shards);
        if (grown == NULL) {
            strata_gguf_map_close(m);
            return failf(err, errlen, path, "out of memory");
        }
        m->shards = grown;
        for (uint32_t k = 1; k < count; k++) {
            char p[4096];
            m->shards[k].fd = -1;
            m->shards[k].map = NULL;
            m->shards[k].path = NULL;
            m->n_shards = k + 1;
            if (strata_gguf_shard_path(path, k, (uint32_t)count, p, sizeof p) != 0 || (m->shards[k].path = strdup(p)) == NULL ||
                map_file(p, &m->shards[k].fd, &m->shards[k].map, &m->shards[k].size, err, errlen) != 0 ||
                index_shard(m, k, &cap_t, err, errlen) != 0) {
                if (m->shards[k].path == NULL) {
                    failf(err, errlen, path, "cannot name shard %u of %llu (the first shard's name is not NAME-00001-of-%05llu.gguf)",
                          k + 1, (unsigned long long)count, (unsigned long long)count);
                }
                strata_gguf_map_close(m);
                return -1;
            }
        }
    }
    if (build_index(m, err, errlen) != 0) {
        strata_gguf_map_close(m);
        return -1;
    }
    return 0;
}

void strata_gguf_map_close(strata_gguf_map *m) {
    for (uint32_t k = 0; k < m->n_shards && m->shards != NULL; k++) {
        if (m->shards[k].map != NULL) {
            munmap((void *)m->shards[k].map, m->shards[k].size);
        }
        if (m->shards[k].fd >= 0) {
            close(m->shards[k].fd);
        }
        free((void *)m->shards[k].path);
    }
    free(m->shards);
    for (uint64_t i = 0; i < m->n_kv; i++) {
        free((void *)m->kv[i].key);
        free((void *)m->kv[i].str_off);
    }
    free(m->kv);
    for (uint64_t i = 0; i < m->n_tensors; i++) {
        free((void *)m->tensors[i].name);
    }
    free(m->tensors);
    if (m->priv != NULL) {
        free(((name_index *)m->priv)->slot);
        free(m->priv);
    }
    memset(m, 0, sizeof *m);
}

const strata_gguf_kv *strata_gguf_map_key(const strata_gguf_map *m, const char *key) {
    for (uint64_t i = 0; i < m->n_kv; i++) {
        if (strcmp(m->kv[i].key, key) == 0) {
            return &m->kv[i];
        }
    }
    return NULL;
}

const strata_gguf_tensor *strata_gguf_map_tensor(const strata_gguf_map *m, const char *name) {
    const name_index *ix = m->priv;
    if (ix == NULL) {
        return NULL;
    }
    uint64_t h = fnv(name) & (ix->cap - 1);
    while (ix->slot[h] >= 0) {
        if (strcmp(m->tensors[ix->slot[h]].name, name) == 0) {
            return &m->tensors[ix->slot[h]];
        }
        h = (h + 1) & (ix->cap - 1);
    }
    return NULL;
}

static int scalar_int(uint32_t type, const uint8_t *p, int64_t *v, int *neg) {
    *neg = 0;
    switch (type) {
    case GGUF_T_U8: *v = p[0]; return 1;
    case GGUF_T_I8: *v = (int8_t)p[0]; break;
    case GGUF_T_U16: { uint16_t x; memcpy(&x, p, 2); *v = x; return 1; }
    case GGUF_T_I16: { int16_t x; memcpy(&x, p, 2); *v = x; break; }
    case GGUF_T_U32: *v = strata_rd32(p); return 1;
    case GGUF_T_I32: *v = (int32_t)strata_rd32(p); break;
    case GGUF_T_U64: { uint64_t x = strata_rd64(p); if (x > INT64_MAX) return 0; *v = (int64_t)x; return 1; }
    case GGUF_T_I64: *v = (int64_t)strata_rd64(p); break;
    case GGUF_T_BOOL: *v = p[0] != 0; return 1;
    default: return 0;
    }
    *neg = *v < 0;
    return 1;
}

int strata_gguf_kv_u64(const strata_gguf_map *m, const char *key, uint64_t *v) {
    const strata_gguf_kv *kv = strata_gguf_map_key(m, key);
    int64_t x;
    int neg;
    if (kv == NULL || !scalar_int(kv->type, kv->data, &x, &neg) || neg) {
        return 0;
    }
    *v = (uint64_t)x;
    return 1;
}

int strata_gguf_kv_f32(const strata_gguf_map *m, const char *key, float *v) {
    const strata_gguf_kv *kv = strata_gguf_map_key(m, key);
    if (kv == NULL) {
        return 0;
    }
    if (kv->type == GGUF_T_F32) {
        memcpy(v, kv->data, 4);
        return 1;
    }
    if (kv->type == GGUF_T_F64) {
        double d;
        memcpy(&d, kv->data, 8);
        *v = (float)d;
        return 1;
    }
    return 0;
}

int strata_gguf_kv_bool(const strata_gguf_map *m, const char *key, int *v) {
    const strata_gguf_kv *kv = strata_gguf_map_key(m, key);
    if (kv == NULL || kv->type != GGUF_T_BOOL) {
        return 0;
    }
    *v = kv->data[0] != 0;
    return 1;
}

int strata_gguf_kv_str(const strata_gguf_map *m, const char *key, const char **s, size_t *len) {
    const strata_gguf_kv *kv = strata_gguf_map_key(m, key);
    if (kv == NULL || kv->type != GGUF_T_STRING) {
        return 0;
    }
    *s = (const char *)kv->data;
    *len = (size_t)kv->n;
    return 1;
}

void strata_gguf_arr_str(const strata_gguf_kv *kv, uint64_t i, const char **s, size_t *len) {
    const uint8_t *p = kv->data + kv->str_off[i];
    *len = (size_t)strata_rd64(p);
    *s = (const char *)(p + 8);
}

int64_t strata_gguf_arr_int(const strata_gguf_kv *kv, uint64_t i) {
    uint64_t eb = strata_gguf_scalar_bytes(kv->atype);
    int64_t v = 0;
    int neg;
    if (kv->atype == GGUF_T_F32) {
        return (int64_t)strata_gguf_arr_f32(kv, i);
    }
    scalar_int(kv->atype, kv->data + i * eb, &v, &neg);
    return v;
}

float strata_gguf_arr_f32(const strata_gguf_kv *kv, uint64_t i) {
    if (kv->atype == GGUF_T_F32) {
        float f;
        memcpy(&f, kv->data + i * 4, 4);
        return f;
    }
    if (kv->atype == GGUF_T_F64) {
        double d;
        memcpy(&d, kv->data + i * 8, 8);
        return (float)d;
    }
    return (float)strata_gguf_arr_int(kv, i);
}

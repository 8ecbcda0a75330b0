/* gguf_read.c — the GGUF reader's bounded input (gguf_internal.h): opening a shard, reading values with every
 * length checked against the bytes left, and capturing the metadata keys the geometry reads. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "gguf_internal.h"

int gguf_fail(rd *r, const char *fmt, ...) {
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
        return gguf_fail(r, "truncated at byte %llu reading %s (the file is %llu bytes; re-copy or re-download it)",
                    (unsigned long long)r->pos, what, (unsigned long long)r->size);
    }
    return 0;
}

static int rbytes(rd *r, void *dst, uint64_t n, const char *what) {
    if (need(r, n, what)) {
        return -1;
    }
    if (fread(dst, 1, (size_t)n, r->f) != (size_t)n) {
        return gguf_fail(r, "read error at byte %llu", (unsigned long long)r->pos);
    }
    r->pos += n;
    return 0;
}

static int rskip(rd *r, uint64_t n, const char *what) {
    if (need(r, n, what)) {
        return -1;
    }
    if (fseeko(r->f, (off_t)n, SEEK_CUR) != 0) {
        return gguf_fail(r, "seek error at byte %llu", (unsigned long long)r->pos);
    }
    r->pos += n;
    return 0;
}

int gguf_ru32(rd *r, uint32_t *v, const char *what) {
    uint8_t b[4];
    if (rbytes(r, b, 4, what)) {
        return -1;
    }
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

int gguf_ru64(rd *r, uint64_t *v, const char *what) {
    uint32_t lo, hi;
    if (gguf_ru32(r, &lo, what) || gguf_ru32(r, &hi, what)) {
        return -1;
    }
    *v = (uint64_t)hi << 32 | lo;
    return 0;
}

/* Reads a string's u64 length, refusing one over LIM_MAX_STRING. */
static int rstrlen(rd *r, uint64_t *len, const char *what) {
    if (gguf_ru64(r, len, what)) {
        return -1;
    }
    if (*len > LIM_MAX_STRING) {
        return gguf_fail(r, "claims a string of %llu bytes in %s (limit %llu)", (unsigned long long)*len, what,
                    (unsigned long long)LIM_MAX_STRING);
    }
    return 0;
}

/* Reads a string into buf when it fits (len < cap), else skips it and sets *fits = 0. */
int gguf_rstr(rd *r, char *buf, size_t cap, int *fits, const char *what) {
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

uint64_t strata_gguf_scalar_bytes(uint32_t t) {
    switch (t) {
    case GGUF_T_U8: case GGUF_T_I8: case GGUF_T_BOOL: return 1;
    case GGUF_T_U16: case GGUF_T_I16: return 2;
    case GGUF_T_U32: case GGUF_T_I32: case GGUF_T_F32: return 4;
    case GGUF_T_U64: case GGUF_T_I64: case GGUF_T_F64: return 8;
    default: return 0;
    }
}

static int skip_value(rd *r, uint32_t type, const char *key) {
    if (type == GGUF_T_STRING) {
        uint64_t len;
        if (rstrlen(r, &len, key)) {
            return -1;
        }
        return rskip(r, len, key);
    }
    if (type == GGUF_T_ARRAY) {
        uint32_t et;
        uint64_t count;
        if (gguf_ru32(r, &et, key) || gguf_ru64(r, &count, key)) {
            return -1;
        }
        if (et == GGUF_T_ARRAY) {
            return gguf_fail(r, "key %s is a nested array (not valid GGUF metadata)", key);
        }
        if (et == GGUF_T_STRING) {
            if (count > (r->size - r->pos) / 8) {
                return gguf_fail(r, "key %s claims %llu strings, more than the file can hold", key,
                            (unsigned long long)count);
            }
            for (uint64_t i = 0; i < count; i++) {
                uint64_t len;
                if (gguf_ru64(r, &len, key) || rskip(r, len, key)) {
                    return -1;
                }
            }
            return 0;
        }
        uint64_t sz = strata_gguf_scalar_bytes(et);
        if (sz == 0) {
            return gguf_fail(r, "key %s has an array of unknown type %u", key, et);
        }
        if (count > (r->size - r->pos) / sz) {
            return gguf_fail(r, "key %s claims %llu elements, more than the file can hold", key, (unsigned long long)count);
        }
        return rskip(r, count * sz, key);
    }
    uint64_t sz = strata_gguf_scalar_bytes(type);
    if (sz == 0) {
        return gguf_fail(r, "key %s has unknown type %u", key, type);
    }
    return rskip(r, sz, key);
}

void gguf_meta_free(meta *m) {
    for (int i = 0; i < m->n_cap; i++) {
        free(m->cap[i].elems);
    }
    m->n_cap = 0;
}

static int is_int_type(uint32_t t) {
    return t == GGUF_T_U8 || t == GGUF_T_I8 || t == GGUF_T_U16 || t == GGUF_T_I16 || t == GGUF_T_U32 || t == GGUF_T_I32 || t == GGUF_T_U64 || t == GGUF_T_I64;
}

static int is_signed_type(uint32_t t) { return t == GGUF_T_I8 || t == GGUF_T_I16 || t == GGUF_T_I32 || t == GGUF_T_I64; }

static int rint_raw(rd *r, uint32_t type, const char *key, uint64_t *out, int *negative) {
    uint64_t sz = strata_gguf_scalar_bytes(type);
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
    if (type == GGUF_T_ARRAY) {
        uint32_t et;
        uint64_t n;
        if (gguf_ru32(r, &et, key) || gguf_ru64(r, &n, key)) {
            return -1;
        }
        c->etype = et;
        c->length = n;
        uint64_t sz = strata_gguf_scalar_bytes(et);
        if (et == GGUF_T_ARRAY) {
            return gguf_fail(r, "key %s is a nested array (not valid GGUF metadata)", key);
        }
        if (n > LIM_MAX_ARRAY) {
            return gguf_fail(r, "key %s claims %llu elements (limit %llu)", key, (unsigned long long)n,
                        (unsigned long long)LIM_MAX_ARRAY);
        }
        if (!is_int_type(et) || n > KEEP_ARRAY) {
            /* not kept: skip the elements (the array header is already read) */
            if (et == GGUF_T_STRING) {
                for (uint64_t i = 0; i < n; i++) {
                    uint64_t len;
                    if (gguf_ru64(r, &len, key) || rskip(r, len, key)) {
                        return -1;
                    }
                }
            } else if (sz == 0) {
                return gguf_fail(r, "key %s has an array of unknown type %u", key, et);
            } else if (n > (r->size - r->pos) / sz) {
                return gguf_fail(r, "key %s claims %llu elements, more than the file can hold", key, (unsigned long long)n);
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
            return gguf_fail(r, "out of memory");
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

int gguf_read_header_and_meta(rd *r, meta *m, uint64_t *n_tensors) {
    char magic[4];
    uint32_t version;
    uint64_t n_kv;
    if (rbytes(r, magic, 4, "the magic") != 0) {
        return -1;
    }
    if (memcmp(magic, "GGUF", 4) != 0) {
        return gguf_fail(r, "not a GGUF file (bad magic; point --model at the first .gguf shard)");
    }
    if (gguf_ru32(r, &version, "the version")) {
        return -1;
    }
    if (version != 2 && version != 3) {
        return gguf_fail(r, "GGUF version %u is not supported (strata reads GGUF v2 and v3)", version);
    }
    if (gguf_ru64(r, n_tensors, "the tensor count") || gguf_ru64(r, &n_kv, "the metadata count")) {
        return -1;
    }
    if (n_kv > LIM_MAX_KVS || n_kv > (r->size - r->pos) / 13) {
        return gguf_fail(r, "metadata count %llu is more than the file can hold", (unsigned long long)n_kv);
    }
    if (*n_tensors > LIM_MAX_TENSORS || *n_tensors > (r->size - r->pos) / 24) {
        return gguf_fail(r, "tensor count %llu is more than the file can hold", (unsigned long long)*n_tensors);
    }
    char key[NAME_MAX_LEN + 1];
    for (uint64_t i = 0; i < n_kv; i++) {
        int fits;
        uint32_t type;
        if (gguf_rstr(r, key, sizeof key, &fits, "a metadata key") || gguf_ru32(r, &type, "a metadata type")) {
            return -1;
        }
        const char *kname = fits ? key : "(long key)";
        if (fits && strcmp(key, "general.architecture") == 0) {
            if (type != GGUF_T_STRING) {
                m->arch_bad = 1;
                if (skip_value(r, type, key)) {
                    return -1;
                }
                continue;
            }
            int afits;
            if (gguf_rstr(r, m->arch, sizeof m->arch, &afits, key)) {
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
                return gguf_fail(r, "key %s is not an integer", key);
            }
            if (rint_raw(r, type, key, no ? &m->split_no : &m->split_count, &neg)) {
                return -1;
            }
            if (neg) {
                return gguf_fail(r, "key %s is negative", key);
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
const captured *gguf_find_key(const meta *m, const char *suffix) {
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
int gguf_key_u64(rd *r, const meta *m, const char *suffix, uint64_t limit, uint64_t *v) {
    const captured *c = gguf_find_key(m, suffix);
    if (c == NULL) {
        return 1;
    }
    if (c->type == GGUF_T_ARRAY || !is_int_type(c->type) || c->negative) {
        return gguf_fail(r, "%s.%s is not a non-negative integer; the file is damaged", m->arch, suffix);
    }
    if (c->value > limit) {
        return gguf_fail(r, "%s.%s is %llu (limit %llu); the file is damaged", m->arch, suffix,
                    (unsigned long long)c->value, (unsigned long long)limit);
    }
    *v = c->value;
    return 0;
}

/* A per-layer count (scalar or one integer per block) over the layers flagged in sel; all must agree.
 * 0 and *v set, 1 when absent, -1 on error. */
int gguf_key_per_layer(rd *r, const meta *m, const char *suffix, uint64_t blocks, const uint8_t *sel,
                         uint64_t n_sel, uint64_t *v) {
    const captured *c = gguf_find_key(m, suffix);
    if (c == NULL || c->type != GGUF_T_ARRAY) {
        return gguf_key_u64(r, m, suffix, LIM_MAX_SMALL, v);
    }
    if (c->elems == NULL || c->length != blocks) {
        return gguf_fail(r, "%s.%s is an array of %llu, expected one integer per block (%llu)", m->arch, suffix,
                    (unsigned long long)c->length, (unsigned long long)blocks);
    }
    int have = 0;
    for (uint64_t n = 0; n < n_sel && n < c->length; n++) {
        if (!sel[n]) {
            continue;
        }
        uint64_t x = c->elems[n];
        if (x < 1 || x > LIM_MAX_SMALL || (have && x != *v)) {
            return gguf_fail(r, "%s.%s gives attention layer %llu the value %llu; strata plans one KV shape for every "
                           "attention layer", m->arch, suffix, (unsigned long long)n, (unsigned long long)x);
        }
        *v = x;
        have = 1;
    }
    return have ? 0 : 1;
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

int gguf_open_rd(rd *r, const char *path, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->errlen = errlen;
    char why[128];
    int fd = strata_open_model_file(path, why, sizeof why);
    if (fd < 0) {
        return gguf_fail(r, "%s (--model names the model's first .gguf shard)", why);
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || (r->f = fdopen(fd, "rb")) == NULL) {
        int e = errno;
        close(fd);
        return gguf_fail(r, "%s", strerror(e));
    }
    r->size = (uint64_t)st.st_size;
    return 0;
}

/* "NAME-00001-of-00004.gguf": returns the offset of "-00001-of-" or -1. */
long gguf_split_suffix(const char *path) {
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

/* vocab_test_vocabs.c — vocab_test's vocabularies and texts (vocab_test.h): files read whole, the vocabularies of the
 * shared data (and the ones derived from them: another tokenizer.ggml.pre, the Qwen-like rewrite) kept open for the
 * run, tokenize/detokenize wrappers and the JSON string reader of val.jsonl. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TESTKIT_PART
#include "testkit.h"
#include "vocab_test.h"

char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t k;
    while (b != NULL && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *g = realloc(b, (cap *= 2) + 1);
            if (g == NULL) { free(b); b = NULL; }
            else b = g;
        }
    }
    fclose(f);
    if (b != NULL) b[n] = '\0';
    *len = n;
    return b;
}

int exists(const char *path) { return access(path, R_OK) == 0; }

/* ---- a vocabulary from a file, kept open for the run ---- */
loaded cache[16];
int n_cache = 0;
char tmpdir[256] = "";

/* The vocab file with tokenizer.ggml.pre = pre inserted as its first key, padded to 32 bytes (as vocab_vectors.mjs). */
int derive(const char *src, const char *pre, const char *dst) {
    size_t n;
    char *b = slurp(src, &n);
    if (b == NULL || n < 24) { free(b); return -1; }
    uint64_t nkv;
    memcpy(&nkv, b + 16, 8);
    nkv++;
    FILE *f = fopen(dst, "wb");
    if (f == NULL) { free(b); return -1; }
    const char *key = "tokenizer.ggml.pre";
    uint64_t kl = strlen(key), vl = strlen(pre);
    uint32_t t = 8;
    size_t w = 0;
    w += fwrite(b, 1, 16, f);
    w += 8 * fwrite(&nkv, 8, 1, f);
    w += 8 * fwrite(&kl, 8, 1, f);
    w += fwrite(key, 1, kl, f);
    w += 4 * fwrite(&t, 4, 1, f);
    w += 8 * fwrite(&vl, 8, 1, f);
    w += fwrite(pre, 1, vl, f);
    w += fwrite(b + 24, 1, n - 24, f);
    static const char zeros[32];
    w += fwrite(zeros, 1, (32 - w % 32) % 32, f);
    free(b);
    return fclose(f) == 0 ? 0 : -1;
}

/* "qwenlike" (vocab_vectors.mjs): the file's keys in order, no tensors, tokenizer.ggml.pre "qwen2", and Qwen's
 * control / user-defined tokens in place of the last 14. */
static const struct { const char *text; int type; } QWENLIKE[] = {
    {"<|im_start|>", 3}, {"<|im_end|>", 3}, {"<|fim_prefix|>", 3}, {"<|fim_middle|>", 3}, {"<|fim_suffix|>", 3},
    {"<|fim_pad|>", 3}, {"<|repo_name|>", 3}, {"<|file_sep|>", 3}, {"<|box_unused|>", 3}, {"<|vision_pad|>", 3},
    {"<tool_call>", 4}, {"</tool_call>", 4}, {"<think>", 4}, {"</think>", 4},
};
#define N_QWENLIKE (sizeof QWENLIKE / sizeof QWENLIKE[0])


static void w64(FILE *f, uint64_t v) { fwrite(&v, 8, 1, f); }
static void w32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void wstr(FILE *f, const char *s, uint64_t n) { w64(f, n); fwrite(s, 1, n, f); }

static int derive_qwenlike(const char *src, const char *dst) {
    strata_gguf_map m;
    char err[512];
    if (strata_gguf_map_open(src, &m, err, sizeof err) != 0) {
        CHECK(0, "%s", err);
        return -1;
    }
    FILE *f = fopen(dst, "wb");
    if (f == NULL) { strata_gguf_map_close(&m); return -1; }
    uint32_t version;
    memcpy(&version, m.shards[0].map + 4, 4);
    fwrite("GGUF", 1, 4, f);
    w32(f, version);
    w64(f, 0);
    w64(f, m.n_kv);
    for (uint64_t k = 0; k < m.n_kv; k++) {
        const strata_gguf_kv *kv = &m.kv[k];
        wstr(f, kv->key, strlen(kv->key));
        w32(f, kv->type);
        if (kv->type == GGUF_T_STRING) {
            if (strcmp(kv->key, "tokenizer.ggml.pre") == 0) wstr(f, "qwen2", 5);
            else wstr(f, (const char *)kv->data, kv->n);
        } else if (kv->type == GGUF_T_ARRAY) {
            w32(f, kv->atype);
            w64(f, kv->n);
            for (uint64_t i = 0; i < kv->n; i++) {
                int64_t j = (int64_t)i - (int64_t)(kv->n - N_QWENLIKE);
                if (kv->atype == GGUF_T_STRING) {
                    const char *s;
                    size_t len;
                    strata_gguf_arr_str(kv, i, &s, &len);
                    if (strcmp(kv->key, "tokenizer.ggml.tokens") == 0 && j >= 0)
                        wstr(f, QWENLIKE[j].text, strlen(QWENLIKE[j].text));
                    else wstr(f, s, len);
                } else if (strcmp(kv->key, "tokenizer.ggml.token_type") == 0 && j >= 0) {
                    w32(f, (uint32_t)QWENLIKE[j].type);
                } else {
                    fwrite(kv->data + i * strata_gguf_scalar_bytes(kv->atype), 1, strata_gguf_scalar_bytes(kv->atype), f);
                }
            }
        } else {
            fwrite(kv->data, 1, strata_gguf_scalar_bytes(kv->type), f);
        }
    }
    static const char zeros[32];
    long at = ftell(f);
    fwrite(zeros, 1, (size_t)((32 - at % 32) % 32), f);
    strata_gguf_map_close(&m);
    return fclose(f) == 0 ? 0 : -1;
}

/* name: a path under shared, optionally "+pre=X" or "+qwenlike". NULL when the file is absent (or fails: then a FAIL). */
strata_vocab *vocab_for(const char *shared, const char *name) {
    for (int i = 0; i < n_cache; i++)
        if (strcmp(cache[i].name, name) == 0) return cache[i].v;
    if (n_cache == (int)(sizeof cache / sizeof cache[0])) return NULL;
    char path[1024], file[256];
    snprintf(file, sizeof file, "%s", name);
    char *plus = strstr(file, "+pre="), *ql = strstr(file, "+qwenlike");
    if (plus != NULL) *plus = '\0';
    if (ql != NULL) *ql = '\0';
    snprintf(path, sizeof path, "%s/%s", shared, file);
    if (!exists(path)) return NULL;
    if (ql != NULL) {
        char dst[1024];
        snprintf(dst, sizeof dst, "%s/derived-%d.gguf", tmpdir, n_cache);
        if (derive_qwenlike(path, dst) != 0) {
            CHECK(0, "cannot derive %s", name);
            return NULL;
        }
        snprintf(path, sizeof path, "%s", dst);
    } else if (plus != NULL) {
        char dst[1024];
        snprintf(dst, sizeof dst, "%s/derived-%d.gguf", tmpdir, n_cache);
        if (derive(path, plus + 5, dst) != 0) {
            CHECK(0, "cannot derive %s", name);
            return NULL;
        }
        snprintf(path, sizeof path, "%s", dst);
    }
    loaded *l = &cache[n_cache];
    char err[512];
    if (strata_gguf_map_open(path, &l->map, err, sizeof err) != 0) {
        CHECK(0, "%s: %s", name, err);
        return NULL;
    }
    if (strata_vocab_load(&l->map, &l->v, err, sizeof err) != 0) {
        CHECK(0, "%s: %s", name, err);
        strata_gguf_map_close(&l->map);
        return NULL;
    }
    snprintf(l->name, sizeof l->name, "%s", name);
    n_cache++;
    return l->v;
}

int32_t *tokenize(const strata_vocab *v, const char *t, size_t n, int flags, int64_t *count) {
    int32_t small[4];
    int64_t k = strata_tokenize(v, t, n, flags, small, 4);
    *count = k;
    if (k < 0) return NULL;
    int32_t *ids = malloc(((size_t)k + 1) * sizeof *ids);
    int64_t k2 = strata_tokenize(v, t, n, flags, ids, (size_t)k);
    CHECK(k2 == k, "tokenize twice: %lld then %lld", (long long)k, (long long)k2);
    if (k > 0 && k <= 4) CHECK(memcmp(small, ids, (size_t)k * sizeof *ids) == 0, "short buffer holds other ids");
    return ids;
}

/* the pieces of ids, concatenated */
char *detokenize(const strata_vocab *v, const int32_t *ids, size_t n, int special, size_t *len) {
    size_t cap = 256, at = 0;
    char *out = malloc(cap);
    for (size_t i = 0; i < n; i++) {
        char small[8];
        int64_t k = strata_token_piece(v, ids[i], special, small, sizeof small);
        if (k < 0) { CHECK(0, "piece of %d: %lld", ids[i], (long long)k); continue; }
        while (at + (size_t)k + 1 > cap) out = realloc(out, cap *= 2);
        if ((size_t)k <= sizeof small) memcpy(out + at, small, (size_t)k);
        else CHECK(strata_token_piece(v, ids[i], special, out + at, (size_t)k) == k, "piece length changed");
        at += (size_t)k;
    }
    out[at] = '\0';
    *len = at;
    return out;
}

void show_ids(char *buf, size_t cap, const int32_t *ids, size_t n) {
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at + 16 < cap; i++) at += (size_t)snprintf(buf + at, cap - at, "%s%d", i ? " " : "", ids[i]);
}

/* ---- JSON string unescaping (the "text" field of val.jsonl) ---- */
static size_t put_utf8(char *o, uint32_t c) {
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xC0 | (c >> 6)); o[1] = (char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | (c >> 12)); o[1] = (char)(0x80 | ((c >> 6) & 0x3F)); o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18)); o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F)); o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static int hex4(const char *p, uint32_t *v) {
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        *v = *v * 16 + (uint32_t)d;
    }
    return 0;
}

/* *p at the opening quote; writes the unescaped string to out (room for the input length); returns its length and
 * moves *p past the closing quote, or -1. */
static long json_string(const char **p, char *out) {
    const char *s = *p;
    if (*s != '"') return -1;
    s++;
    size_t n = 0;
    for (;;) {
        char c = *s++;
        if (c == '\0') return -1;
        if (c == '"') break;
        if (c != '\\') { out[n++] = c; continue; }
        c = *s++;
        switch (c) {
            case '"': out[n++] = '"'; break;
            case '\\': out[n++] = '\\'; break;
            case '/': out[n++] = '/'; break;
            case 'b': out[n++] = '\b'; break;
            case 'f': out[n++] = '\f'; break;
            case 'n': out[n++] = '\n'; break;
            case 'r': out[n++] = '\r'; break;
            case 't': out[n++] = '\t'; break;
            case 'u': {
                uint32_t u, lo;
                if (hex4(s, &u) != 0) return -1;
                s += 4;
                if (u >= 0xD800 && u < 0xDC00 && s[0] == '\\' && s[1] == 'u' && hex4(s + 2, &lo) == 0 && lo >= 0xDC00 &&
                    lo < 0xE000) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
                n += put_utf8(out + n, u);
                break;
            }
            default: return -1;
        }
    }
    *p = s;
    return (long)n;
}

/* the "text" member of a one-line JSON object whose members are strings or scalars */
long json_text(const char *line, char *out) {
    const char *p = line;
    while (*p == ' ') p++;
    if (*p++ != '{') return -1;
    for (;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == '}') return -1;
        char key[64];
        long kl = json_string(&p, out);
        if (kl < 0 || kl >= (long)sizeof key) return -1;
        memcpy(key, out, (size_t)kl);
        key[kl] = '\0';
        while (*p == ' ') p++;
        if (*p++ != ':') return -1;
        while (*p == ' ') p++;
        if (*p == '"') {
            long vl = json_string(&p, out);
            if (vl < 0) return -1;
            if (strcmp(key, "text") == 0) return vl;
        } else if (*p == '{' || *p == '[') {
            return -1; /* not in this file */
        } else {
            while (*p && *p != ',' && *p != '}') p++;
        }
    }
}

/* the documents of val.jsonl, kept for the digests */

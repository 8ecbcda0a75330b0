/* vocab_test.c — strata-ref's tokenizer (vocab.h) against llama.cpp:
 *  - every document of models/val.jsonl through tiny-qwen3-q8_0.gguf's tokenizer equals models/val.u16 (the
 *    tokens llama.cpp gives), and detokenizes back to the text;
 *  - test/vocab_vectors.tsv (llama.cpp's ids from vocab_vectors.mjs) for the SPM and BPE vocabularies of
 *    shared/data/gguf/, the tiny model, and gpt-neox's vocabulary with the gpt-2, llama3 and qwen2 pre-tokenizers;
 *  - BOS/EOS, EOG, special ids, refusals, the piece buffer contract.
 *  - val.jsonl through every other vocabulary of the vectors: count and digest of llama.cpp's ids
 *    (test/vocab_val_digests.tsv).
 *  - BOS/EOS/EOT/newline ids and the end-of-generation set of each (test/vocab_specials.tsv);
 *  - the tiny model's tokenizer rewritten as a Qwen-family one ("+qwenlike": pre qwen2, Qwen's special tokens).
 * `vocab_test [--quick] [SHARED_DATA [VECTORS [DIGESTS [SPECIALS]]]]`; without SHARED_DATA, $STRATA_SHARED_DATA. Files that are absent
 * give "skipped" lines. --quick: the first 4 documents only (for the sanitizer run). Exit 0 when all pass. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gguf_map.h"
#include "vocab.h"

static int fails = 0, checks = 0;

static char *slurp(const char *path, size_t *len) {
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

static int exists(const char *path) { return access(path, R_OK) == 0; }

/* ---- a vocabulary from a file, kept open for the run ---- */
typedef struct { char name[256]; strata_gguf_map map; strata_vocab *v; } loaded;
static loaded cache[16];
static int n_cache = 0;
static char tmpdir[256] = "";

/* The vocab file with tokenizer.ggml.pre = pre inserted as its first key, padded to 32 bytes (as vocab_vectors.mjs). */
static int derive(const char *src, const char *pre, const char *dst) {
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

static size_t scalar_size(uint32_t t) {
    static const size_t sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t < 13 ? sz[t] : 0;
}

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
                    fwrite(kv->data + i * scalar_size(kv->atype), 1, scalar_size(kv->atype), f);
                }
            }
        } else {
            fwrite(kv->data, 1, scalar_size(kv->type), f);
        }
    }
    static const char zeros[32];
    long at = ftell(f);
    fwrite(zeros, 1, (size_t)((32 - at % 32) % 32), f);
    strata_gguf_map_close(&m);
    return fclose(f) == 0 ? 0 : -1;
}

/* name: a path under shared, optionally "+pre=X" or "+qwenlike". NULL when the file is absent (or fails: then a FAIL). */
static strata_vocab *vocab_for(const char *shared, const char *name) {
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

static int32_t *tokenize(const strata_vocab *v, const char *t, size_t n, int flags, int64_t *count) {
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
static char *detokenize(const strata_vocab *v, const int32_t *ids, size_t n, int special, size_t *len) {
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

static void show_ids(char *buf, size_t cap, const int32_t *ids, size_t n) {
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
static long json_text(const char *line, char *out) {
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
static char **docs_text = NULL;
static size_t *docs_len = NULL;
static int n_docs = 0;

/* ---- val.jsonl against val.u16 ---- */
static void test_val(const char *shared, int quick) {
    char path[1024], jpath[1024], upath[1024];
    snprintf(path, sizeof path, "%s/models/tiny-qwen3-q8_0.gguf", shared);
    snprintf(jpath, sizeof jpath, "%s/models/val.jsonl", shared);
    snprintf(upath, sizeof upath, "%s/models/val.u16", shared);
    if (!exists(path) || !exists(jpath) || !exists(upath)) {
        printf("vocab_test: val.jsonl vs val.u16: skipped (%s/models has not the tiny model and its validation split)\n",
               shared);
        return;
    }
    strata_vocab *v = vocab_for(shared, "models/tiny-qwen3-q8_0.gguf");
    if (v == NULL) return;
    size_t jl, ul;
    char *json = slurp(jpath, &jl);
    uint16_t *u16 = (uint16_t *)slurp(upath, &ul);
    CHECK(json != NULL && u16 != NULL, "cannot read the validation split");
    if (json == NULL || u16 == NULL) { free(json); free(u16); return; }
    size_t nu = ul / 2, ui = 0;
    int docs = 0, equal = 0, round = 0;
    size_t tokens = 0;
    char *text = malloc(jl + 1);
    for (char *line = json, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl == NULL) nl = line + strlen(line);
        char save = *nl;
        *nl = '\0';
        if (*line == '\0') { *nl = save; if (!save) break; continue; }
        long tl = json_text(line, text);
        *nl = save;
        CHECK(tl >= 0, "val.jsonl line %d: no \"text\" string", docs + 1);
        if (tl < 0) break;
        /* the document's tokens in val.u16: up to the next 0 */
        size_t u0 = ui;
        while (ui < nu && u16[ui] != 0) ui++;
        size_t want = ui - u0;
        ui++;
        docs++;
        docs_text = realloc(docs_text, (size_t)docs * sizeof *docs_text);
        docs_len = realloc(docs_len, (size_t)docs * sizeof *docs_len);
        docs_text[docs - 1] = malloc((size_t)tl + 1);
        memcpy(docs_text[docs - 1], text, (size_t)tl);
        docs_len[docs - 1] = (size_t)tl;
        n_docs = docs;
        if (quick && docs > 4) { if (!save) break; continue; }
        int64_t n;
        int32_t *ids = tokenize(v, text, (size_t)tl, 0, &n);
        int same = n == (int64_t)want;
        size_t first = 0;
        for (; same && first < want; first++) same = ids[first] == (int32_t)u16[u0 + first];
        if (!same) {
            size_t d = 0;
            while (d < want && (int64_t)d < n && ids[d] == (int32_t)u16[u0 + d]) d++;
            char a[256], b[256];
            size_t from = d > 3 ? d - 3 : 0;
            show_ids(a, sizeof a, ids + from, (size_t)n > from ? ((size_t)n - from < 10 ? (size_t)n - from : 10) : 0);
            uint32_t tmp[10];
            int32_t w[10];
            size_t k = 0;
            for (; k < 10 && from + k < want; k++) { tmp[k] = u16[u0 + from + k]; w[k] = (int32_t)tmp[k]; }
            show_ids(b, sizeof b, w, k);
            CHECK(0, "val doc %d: %lld tokens, llama.cpp %zu; first difference at %zu: ours [%s], llama.cpp [%s]", docs,
                  (long long)n, want, d, a, b);
        }
        equal += same;
        tokens += want + 1;
        size_t dl;
        char *back = detokenize(v, ids, (size_t)(n > 0 ? n : 0), 0, &dl);
        int rt = dl == (size_t)tl && memcmp(back, text, dl) == 0;
        CHECK(rt, "val doc %d: detokenize(tokenize(text)) != text (%zu vs %ld bytes)", docs, dl, tl);
        round += rt;
        free(back);
        free(ids);
        if (!save) break;
    }
    if (!quick) {
        CHECK(docs == 41, "val.jsonl: %d documents, want 41", docs);
        CHECK(ui == nu, "val.u16: %zu tokens, the documents account for %zu", nu, ui);
    }
    printf("vocab_test: val.jsonl through tiny-qwen3's tokenizer: %d/%d documents equal to val.u16 (%zu tokens), %d/%d "
           "round trips%s\n",
           equal, quick ? (docs < 4 ? docs : 4) : docs, tokens, round, quick ? (docs < 4 ? docs : 4) : docs,
           quick ? " (quick: first 4)" : "");
    free(text);
    free(json);
    free(u16);
}

/* ---- llama.cpp's vectors ---- */
static size_t unescape(const char *s, char *out) {
    size_t n = 0;
    while (*s) {
        if (*s != '\\') { out[n++] = *s++; continue; }
        s++;
        char c = *s++;
        if (c == 'n') out[n++] = '\n';
        else if (c == 't') out[n++] = '\t';
        else if (c == 'r') out[n++] = '\r';
        else if (c == '\\') out[n++] = '\\';
        else if (c == 'x') {
            char h[3] = {s[0], s[1], 0};
            out[n++] = (char)strtol(h, NULL, 16);
            s += 2;
        } else out[n++] = c;
    }
    return n;
}

static void test_vectors(const char *shared, const char *vectors) {
    size_t len;
    char *all = slurp(vectors, &len);
    CHECK(all != NULL, "cannot read %s", vectors);
    if (all == NULL) return;
    int rows = 0, equal = 0, skipped = 0, rt = 0, rt_rows = 0;
    char last_skip[256] = "";
    for (char *line = all, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl == NULL) nl = line + strlen(line);
        int end = *nl == '\0';
        *nl = '\0';
        char *f[4] = {line, NULL, NULL, NULL};
        for (int i = 1; i < 4; i++) {
            f[i] = f[i - 1] ? strchr(f[i - 1], '\t') : NULL;
            if (f[i]) *f[i]++ = '\0';
        }
        if (*line == '\0' || f[3] == NULL) { if (end) break; continue; }
        strata_vocab *v = vocab_for(shared, f[0]);
        if (v == NULL) {
            if (strcmp(last_skip, f[0]) != 0) {
                printf("vocab_test: vectors for %s: skipped (%s/%s is absent)\n", f[0], shared, f[0]);
                snprintf(last_skip, sizeof last_skip, "%s", f[0]);
            }
            skipped++;
            if (end) break;
            continue;
        }
        rows++;
        int parse = atoi(f[1]);
        char text[1024];
        size_t tl = unescape(f[2], text);
        int32_t want[512];
        size_t nw = 0;
        for (char *p = f[3]; *p && nw < 512;) {
            char *q;
            long x = strtol(p, &q, 10);
            if (q == p) break;
            want[nw++] = (int32_t)x;
            p = q;
        }
        int64_t n;
        int32_t *ids = tokenize(v, text, tl, parse ? STRATA_TOK_PARSE_SPECIAL : 0, &n);
        int same = n == (int64_t)nw && (nw == 0 || memcmp(ids, want, nw * sizeof *ids) == 0);
        if (!same) {
            char a[512];
            show_ids(a, sizeof a, ids, (size_t)(n > 0 ? n : 0));
            CHECK(0, "%s parse_special=%d \"%s\": ours [%s], llama.cpp [%s]", f[0], parse, f[2], a, f[3]);
        }
        equal += same;
        /* round trip: BPE gives the text back; SPM gives it with the " " prefix */
        if (!parse && tl > 0) {
            size_t dl;
            char *back = detokenize(v, ids, (size_t)n, 0, &dl);
            int spm = strstr(f[0], "ggml-vocab-llama.gguf") != NULL; /* the SPM vocabulary */
            char expect[1100];
            size_t el = 0;
            if (spm) expect[el++] = ' ';
            memcpy(expect + el, text, tl);
            el += tl;
            int ok = dl == el && memcmp(back, expect, el) == 0;
            CHECK(ok, "%s \"%s\": detokenized to \"%s\"", f[0], f[2], back);
            rt += ok;
            rt_rows++;
            free(back);
        }
        free(ids);
        if (end) break;
    }
    printf("vocab_test: llama.cpp vectors: %d/%d equal, %d/%d round trips (%d rows skipped)\n", equal, rows, rt,
           rt_rows, skipped);
    free(all);
}

/* ---- val.jsonl through the other vocabularies: llama.cpp's count and FNV-1a 64 of the ids ---- */
static uint64_t fnv_ids(const int32_t *ids, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++) {
            h ^= ((uint32_t)ids[i] >> (8 * b)) & 0xff;
            h *= 0x100000001b3ull;
        }
    return h;
}

static void test_digests(const char *shared, const char *file, int quick) {
    size_t len;
    char *all = slurp(file, &len);
    if (all == NULL) {
        printf("vocab_test: val digests: skipped (%s is absent)\n", file);
        return;
    }
    if (n_docs == 0) {
        printf("vocab_test: val digests: skipped (no val.jsonl)\n");
        free(all);
        return;
    }
    int rows = 0, equal = 0;
    size_t tokens = 0;
    for (char *line = all, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl == NULL) nl = line + strlen(line);
        int end = *nl == '\0';
        *nl = '\0';
        char name[256];
        int doc;
        long long count;
        char hex[32];
        if (sscanf(line, "%255[^\t]\t%d\t%lld\t%31s", name, &doc, &count, hex) == 4 && doc >= 1 && doc <= n_docs &&
            (!quick || doc <= 2)) {
            strata_vocab *v = vocab_for(shared, name);
            if (v != NULL) {
                int64_t n;
                int32_t *ids = tokenize(v, docs_text[doc - 1], docs_len[doc - 1], 0, &n);
                char got[32];
                snprintf(got, sizeof got, "%016llx", (unsigned long long)fnv_ids(ids, (size_t)(n > 0 ? n : 0)));
                int same = n == count && strcmp(got, hex) == 0;
                CHECK(same, "%s val doc %d: %lld tokens (fnv %s), llama.cpp %lld (fnv %s)", name, doc, (long long)n, got,
                      count, hex);
                rows++;
                equal += same;
                tokens += (size_t)(n > 0 ? n : 0);
                free(ids);
            }
        }
        if (end) break;
    }
    printf("vocab_test: val.jsonl through the other vocabularies: %d/%d documents equal to llama.cpp's (%zu tokens)%s\n",
           equal, rows, tokens, quick ? " (quick: first 2 per vocabulary)" : "");
    free(all);
}

/* ---- llama.cpp's BOS / EOS / EOT / newline and end-of-generation set ---- */
static void test_specials(const char *shared, const char *file) {
    size_t len;
    char *all = slurp(file, &len);
    if (all == NULL) {
        printf("vocab_test: special ids: skipped (%s is absent)\n", file);
        return;
    }
    int rows = 0, equal = 0;
    for (char *line = all, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl == NULL) nl = line + strlen(line);
        int end = *nl == '\0';
        *nl = '\0';
        char name[256];
        int bos, eos, eot, nlid, used;
        if (sscanf(line, "%255[^\t]\t%d\t%d\t%d\t%d\t%n", name, &bos, &eos, &eot, &nlid, &used) == 5) {
            strata_vocab *v = vocab_for(shared, name);
            if (v != NULL) {
                int same = strata_vocab_special(v, 0) == bos && strata_vocab_special(v, 1) == eos &&
                           strata_vocab_special(v, 2) == eot && strata_vocab_special(v, 5) == nlid;
                CHECK(same, "%s: bos/eos/eot/nl %d %d %d %d, llama.cpp %d %d %d %d", name, strata_vocab_special(v, 0),
                      strata_vocab_special(v, 1), strata_vocab_special(v, 2), strata_vocab_special(v, 5), bos, eos, eot,
                      nlid);
                /* the EOG set, exactly */
                int32_t n = strata_vocab_n_tokens(v), ours = 0, theirs = 0;
                for (int32_t i = 0; i < n; i++) ours += strata_vocab_is_eog(v, i);
                for (char *p = line + used; *p;) {
                    char *q;
                    long id = strtol(p, &q, 10);
                    if (q == p) break;
                    theirs++;
                    CHECK(strata_vocab_is_eog(v, (int32_t)id), "%s: %ld ends generation in llama.cpp", name, id);
                    same &= strata_vocab_is_eog(v, (int32_t)id);
                    p = q;
                }
                CHECK(ours == theirs, "%s: %d end-of-generation tokens, llama.cpp %d", name, ours, theirs);
                same &= ours == theirs;
                rows++;
                equal += same;
            }
        }
        if (end) break;
    }
    printf("vocab_test: special ids and end-of-generation sets: %d/%d vocabularies equal to llama.cpp's\n", equal, rows);
    free(all);
}

/* ---- random bytes (invalid UTF-8, stray specials) through every loaded vocabulary: ids in range, stable ---- */
static void test_fuzz(int quick) {
    uint32_t x = 0x9e3779b9u;
    int rounds = quick ? 60 : 400, ok = 0, total = 0;
    static const char *const bits[] = {"<|endoftext|>", "<s>", "</s>", "<|im_end|>", "<think>", "\xe2\x96\x81", " ", "\n",
                                       "'s", "123", "\xf0\x9f\x99\x82", "\xc3", "\xa9", "\xff", "\xed\xa0\x80"};
    for (int c = 0; c < n_cache; c++) {
        const strata_vocab *v = cache[c].v;
        int32_t n_tok = strata_vocab_n_tokens(v);
        for (int r = 0; r < rounds; r++) {
            char text[256];
            size_t len = 0;
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            size_t parts = x % 24;
            for (size_t k = 0; k < parts; k++) {
                x ^= x << 13; x ^= x >> 17; x ^= x << 5;
                if (x % 3 == 0) {
                    const char *b = bits[(x >> 8) % (sizeof bits / sizeof bits[0])];
                    size_t bl = strlen(b);
                    if (len + bl < sizeof text) { memcpy(text + len, b, bl); len += bl; }
                } else if (len + 1 < sizeof text) {
                    text[len++] = (char)(x >> 16);
                }
            }
            int flags = (int)(x >> 28) & 3;
            int64_t n;
            int32_t *ids = tokenize(v, text, len, flags, &n);
            int good = ids != NULL && n >= 0;
            for (int64_t i = 0; good && i < n; i++) {
                good = ids[i] >= 0 && ids[i] < n_tok;
                char piece[4];
                good = good && strata_token_piece(v, ids[i], flags & 1, piece, sizeof piece) >= 0;
            }
            CHECK(good, "%s: random text %d: bad ids", cache[c].name, r);
            ok += good;
            total++;
            free(ids);
        }
    }
    printf("vocab_test: random bytes: %d/%d tokenizations with every id in range\n", ok, total);
}

/* ---- behaviour beyond the ids ---- */
static void test_misc(const char *shared) {
    char path[1024];
    strata_vocab *spm = vocab_for(shared, "gguf/ggml-vocab-llama.gguf");
    if (spm != NULL) {
        int64_t n;
        int32_t *ids = tokenize(spm, "Hello world", 11, STRATA_TOK_ADD_SPECIAL, &n);
        CHECK(n == 3 && ids[0] == 1 && ids[1] == 15043 && ids[2] == 3186, "SPM add_special: BOS 1 first (n %lld)",
              (long long)n);
        free(ids);
        ids = tokenize(spm, "", 0, STRATA_TOK_ADD_SPECIAL, &n);
        CHECK(n == 1 && ids[0] == 1, "SPM: \"\" with add_special is [BOS]");
        free(ids);
        CHECK(strata_vocab_special(spm, 0) == 1 && strata_vocab_special(spm, 1) == 2 && strata_vocab_special(spm, 3) == 0,
              "SPM specials: bos %d eos %d unk %d", strata_vocab_special(spm, 0), strata_vocab_special(spm, 1),
              strata_vocab_special(spm, 3));
        CHECK(strata_vocab_special(spm, 5) == 13, "SPM newline <0x0A> = 13, got %d", strata_vocab_special(spm, 5));
        CHECK(strata_vocab_is_eog(spm, 2) && !strata_vocab_is_eog(spm, 1) && !strata_vocab_is_eog(spm, 100),
              "SPM EOG: </s> only");
        char buf[16];
        CHECK(strata_token_piece(spm, 1, 0, buf, sizeof buf) == 0, "SPM: <s> is \"\" without special");
        CHECK(strata_token_piece(spm, 1, 1, buf, sizeof buf) == 3 && memcmp(buf, "<s>", 3) == 0, "SPM: <s> with special");
        CHECK(strata_token_piece(spm, 13, 0, buf, sizeof buf) == 1 && buf[0] == '\n', "SPM: <0x0A> is \\n");
        CHECK(strata_token_piece(spm, 15043, 0, buf, sizeof buf) == 6 && memcmp(buf, " Hello", 6) == 0,
              "SPM: ▁Hello is \" Hello\"");
        memset(buf, 'x', sizeof buf);
        CHECK(strata_token_piece(spm, 15043, 0, buf, 2) == 6 && buf[0] == ' ' && buf[1] == 'H' && buf[2] == 'x',
              "SPM: a short piece buffer gets the length and nothing past cap");
        CHECK(strata_token_piece(spm, -1, 0, buf, sizeof buf) < 0 && strata_token_piece(spm, 32000, 0, buf, 1) < 0,
              "piece of an id out of range refused");
        CHECK(strata_vocab_n_tokens(spm) == 32000, "SPM n_tokens");
    } else {
        printf("vocab_test: SPM behaviour: skipped (%s/gguf/ggml-vocab-llama.gguf is absent)\n", shared);
    }
    strata_vocab *q = vocab_for(shared, "models/tiny-qwen3-q8_0.gguf");
    if (q != NULL) {
        int64_t n;
        int32_t *ids = tokenize(q, "Hello", 5, STRATA_TOK_ADD_SPECIAL, &n);
        int32_t *ids2 = tokenize(q, "Hello", 5, 0, &n);
        CHECK(n > 0 && ids[0] == ids2[0], "tiny-qwen3 add_bos false: no BOS with add_special");
        free(ids);
        free(ids2);
        CHECK(strata_vocab_is_eog(q, 0) && strata_vocab_special(q, 0) == 0 && strata_vocab_special(q, 1) == 0,
              "tiny-qwen3: <|endoftext|> is BOS = EOS and ends generation");
        ids = tokenize(q, "a<|endoftext|>b", 15, STRATA_TOK_PARSE_SPECIAL, &n);
        CHECK(n == 3 && ids[1] == 0, "tiny-qwen3: <|endoftext|> parsed as one token with parse_special");
        size_t dl;
        char *back = detokenize(q, ids, (size_t)n, 1, &dl);
        CHECK(dl == 15 && memcmp(back, "a<|endoftext|>b", 15) == 0, "tiny-qwen3: special piece with special=1");
        free(back);
        back = detokenize(q, ids, (size_t)n, 0, &dl);
        CHECK(dl == 2 && memcmp(back, "ab", 2) == 0, "tiny-qwen3: control piece empty with special=0");
        free(back);
        free(ids);
        /* invalid UTF-8: llama.cpp reads each bad byte as U+FFFD */
        ids = tokenize(q, "a\xff" "b", 3, 0, &n);
        int32_t *fffd = tokenize(q, "a\xef\xbf\xbd" "b", 5, 0, &n);
        int64_t n1 = n;
        CHECK(ids != NULL && fffd != NULL, "invalid UTF-8 tokenizes");
        if (ids && fffd) CHECK(memcmp(ids, fffd, (size_t)n1 * sizeof *ids) == 0, "a bad byte tokenizes as U+FFFD");
        free(ids);
        free(fffd);
        CHECK(strata_tokenize(q, NULL, 3, 0, NULL, 0) == -1, "NULL text with a length refused");
        CHECK(strata_tokenize(q, "", 0, 0, NULL, 0) == 0, "empty text: no tokens");
    }
    /* an unknown pre-tokenizer is refused by name */
    snprintf(path, sizeof path, "%s/gguf/ggml-vocab-gpt-neox.gguf", shared);
    if (exists(path)) {
        char dst[1024], err[1024];
        snprintf(dst, sizeof dst, "%s/unknown-pre.gguf", tmpdir);
        CHECK(derive(path, "xyz-unknown", dst) == 0, "derive");
        strata_gguf_map m;
        strata_vocab *v = NULL;
        if (strata_gguf_map_open(dst, &m, err, sizeof err) == 0) {
            int rc = strata_vocab_load(&m, &v, err, sizeof err);
            CHECK(rc == -1 && v == NULL, "unknown pre loaded");
            CHECK(strstr(err, "tokenizer.ggml.pre 'xyz-unknown' is not one strata-ref implements") != NULL &&
                      strstr(err, "qwen2") != NULL && strstr(err, "llama-bpe") != NULL && strstr(err, dst) != NULL,
                  "refusal text: %s", err);
            strata_gguf_map_close(&m);
        } else {
            CHECK(0, "%s", err);
        }
        unlink(dst);
        /* llama3's pre-tokenizer turns add_bos on (no add_bos_token key here); qwen2's and the default leave it off */
        strata_vocab *l3 = vocab_for(shared, "gguf/ggml-vocab-gpt-neox.gguf+pre=llama-bpe");
        strata_vocab *q2 = vocab_for(shared, "gguf/ggml-vocab-gpt-neox.gguf+pre=qwen2");
        if (l3 != NULL && q2 != NULL) {
            int64_t n1, n2;
            int32_t *a = tokenize(l3, "Hi", 2, STRATA_TOK_ADD_SPECIAL, &n1);
            int32_t *b = tokenize(q2, "Hi", 2, STRATA_TOK_ADD_SPECIAL, &n2);
            CHECK(n1 == n2 + 1 && a[0] == 0 && b[0] != 0, "llama-bpe adds BOS 0, qwen2 does not (%lld, %lld)",
                  (long long)n1, (long long)n2);
            free(a);
            free(b);
        }
        strata_vocab *neox = vocab_for(shared, "gguf/ggml-vocab-gpt-neox.gguf");
        if (neox != NULL) {
            CHECK(strata_vocab_special(neox, 5) == 187, "gpt-neox newline token 187, got %d", strata_vocab_special(neox, 5));
            CHECK(strata_vocab_is_eog(neox, 0), "gpt-neox: <|endoftext|> ends generation");
        }
    }
}

int main(int argc, char **argv) {
    int quick = 0, ai = 1;
    if (ai < argc && strcmp(argv[ai], "--quick") == 0) { quick = 1; ai++; }
    const char *shared = ai < argc ? argv[ai++] : NULL;
    const char *vectors = ai < argc ? argv[ai++] : "test/vocab_vectors.tsv";
    const char *digests = ai < argc ? argv[ai++] : "test/vocab_val_digests.tsv";
    const char *specials = ai < argc ? argv[ai++] : "test/vocab_specials.tsv";
    const char *env = getenv("STRATA_SHARED_DATA");
    if (shared == NULL && env != NULL && *env) shared = env;
    if (shared == NULL || !exists(shared)) {
        printf("vocab_test: skipped (no shared data: set STRATA_SHARED_DATA or put it at ../shared/data beside the "
               "repository)\n");
        return 0;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/vocab_test-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) { perror("mkdtemp"); return 1; }
    test_val(shared, quick);
    test_vectors(shared, vectors);
    test_digests(shared, digests, quick);
    test_specials(shared, specials);
    test_misc(shared);
    test_fuzz(quick);
    for (int i = 0; i < n_cache; i++) {
        strata_vocab_free(cache[i].v);
        strata_gguf_map_close(&cache[i].map);
    }
    for (int i = 0; i < 16; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/derived-%d.gguf", tmpdir, i);
        unlink(p);
    }
    rmdir(tmpdir);
    for (int i = 0; i < n_docs; i++) free(docs_text[i]);
    free(docs_text);
    free(docs_len);
    printf("vocab_test: %d checks, %d failed\n", checks, fails);
    return fails ? 1 : 0;
}

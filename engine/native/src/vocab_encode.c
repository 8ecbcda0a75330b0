/* vocab_encode.c — the tokenizer's text to tokens and back (vocab.h, vocab_internal.h), as llama.cpp's
 * llama_vocab::impl::tokenize and token_to_piece: the special-token partition, the SPM and BPE merge sessions over a
 * symbol chain, byte fallback, and the pieces of detokenization. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unicode.h"
#include "vocab_internal.h"

/* ---- token output ---- */

static int push(int32_t **out, size_t *n, size_t *cap, int32_t id) {
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        int32_t *g = realloc(*out, c * sizeof *g);
        if (g == NULL) return -1;
        *out = g;
        *cap = c;
    }
    (*out)[(*n)++] = id;
    return 0;
}

/* ---- merging: a symbol chain over one text, merged pair by pair ---- */

typedef struct { int prev, next; size_t at, n; } sym;
/* a candidate merge of symbols left and right: SPM orders by score (highest first), BPE by rank (lowest first);
 * ties go to the leftmost pair */
typedef struct { double key; int left, right; size_t size; } bigram;

static int bigram_before(const bigram *a, const bigram *b) {
    return a->key > b->key || (a->key == b->key && a->left < b->left);
}

typedef struct { bigram *h; size_t n, cap; } heap;

static int heap_push(heap *q, bigram b) {
    if (q->n == q->cap) {
        size_t c = q->cap ? q->cap * 2 : 64;
        bigram *g = realloc(q->h, c * sizeof *g);
        if (g == NULL) return -1;
        q->h = g;
        q->cap = c;
    }
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!bigram_before(&b, &q->h[p])) break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = b;
    return 0;
}

static bigram heap_pop(heap *q) {
    bigram top = q->h[0], last = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && bigram_before(&q->h[c + 1], &q->h[c])) c++;
        if (!bigram_before(&q->h[c], &last)) break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n > 0) q->h[i] = last;
    return top;
}

typedef struct {
    const strata_vocab *v;
    const char *text;
    sym *s;
    size_t n, cap;
    heap q;
} merger;

/* one symbol per UTF-8 character (by its lead byte, cut at the end of the text) */
static int split_chars(merger *g, const char *text, size_t len) {
    g->text = text;
    g->n = 0;
    g->q.n = 0;
    if (len > g->cap) {
        sym *s = realloc(g->s, len * sizeof *s);
        if (s == NULL) return -1;
        g->s = s;
        g->cap = len;
    }
    for (size_t at = 0; at < len;) {
        size_t k = strata_utf8_len((uint8_t)text[at]);
        if (k > len - at) k = len - at;
        sym *y = &g->s[g->n];
        y->at = at;
        y->n = k;
        y->prev = (int)g->n - 1;
        at += k;
        y->next = at == len ? -1 : (int)g->n + 1;
        g->n++;
    }
    return 0;
}

static int try_pair(merger *g, int left, int right) {
    if (left < 0 || right < 0) return 0;
    const strata_vocab *v = g->v;
    const sym *a = &g->s[left], *b = &g->s[right];
    bigram bg = {0, left, right, a->n + b->n};
    if (v->type == VT_SPM) {
        int32_t id = tok_find(v, g->text + a->at, a->n + b->n);
        if (id < 0) return 0;
        bg.key = (double)v->score[id];
    } else {
        int32_t r = merge_rank(v, g->text + a->at, a->n, g->text + b->at, b->n);
        if (r < 0) return 0;
        bg.key = -(double)r;
    }
    return heap_push(&g->q, bg);
}

static int merge_all(merger *g) {
    for (size_t i = 1; i < g->n; i++)
        if (try_pair(g, (int)i - 1, (int)i) != 0) return -1;
    while (g->q.n > 0) {
        bigram bg = heap_pop(&g->q);
        sym *a = &g->s[bg.left], *b = &g->s[bg.right];
        /* stale: one side already merged away or grown */
        if (a->n == 0 || b->n == 0 || a->n + b->n != bg.size || a->next != bg.right) continue;
        a->n += b->n;
        b->n = 0;
        a->next = b->next;
        if (b->next >= 0) g->s[b->next].prev = bg.left;
        if (try_pair(g, a->prev, bg.left) != 0 || try_pair(g, bg.left, a->next) != 0) return -1;
    }
    return 0;
}

static int32_t byte_token(const strata_vocab *v, uint8_t c) {
    if (v->type == VT_SPM) {
        char hex[7];
        snprintf(hex, sizeof hex, "<0x%02X>", c);
        int32_t id = tok_find(v, hex, 6);
        if (id < 0) id = tok_find(v, (const char *)&c, 1);
        return id;
    }
    return tok_find(v, v->benc[c], v->benc_len[c]);
}

/* SPM over one text fragment (spaces already "▁") */
static int spm_fragment(const strata_vocab *v, merger *g, const char *text, size_t len, int32_t **out, size_t *n,
                        size_t *cap) {
    if (len == 0) return 0;
    if (split_chars(g, text, len) != 0 || merge_all(g) != 0) return -1;
    for (int i = 0; i != -1; i = g->s[i].next) {
        const sym *y = &g->s[i];
        int32_t id = tok_find(v, text + y->at, y->n);
        if (id >= 0) {
            if (push(out, n, cap, id) != 0) return -1;
            continue;
        }
        for (size_t j = 0; j < y->n; j++) { /* byte fallback */
            id = byte_token(v, (uint8_t)text[y->at + j]);
            if (id < 0) id = v->special[SP_UNK];
            if (id >= 0 && push(out, n, cap, id) != 0) return -1;
        }
    }
    return 0;
}

/* BPE over one text fragment */
static int bpe_fragment(const strata_vocab *v, merger *g, const char *text, size_t len, int32_t **out, size_t *n,
                        size_t *cap) {
    if (len == 0) return 0;
    int rc = -1;
    uint32_t *cp = malloc(len * sizeof *cp);
    uint16_t *fl = malloc(len * sizeof *fl);
    size_t *pieces = malloc(len * sizeof *pieces), *tmp = malloc(len * sizeof *tmp);
    char *word = malloc(8 * len + 8); /* a code point: <= 4 UTF-8 bytes, each <= 2 bytes encoded */
    if (!cp || !fl || !pieces || !tmp || !word) goto done;
    size_t ncp = 0;
    for (size_t at = 0; at < len; ncp++) {
        cp[ncp] = strata_utf8_decode(text, len, &at);
        fl[ncp] = strata_ucp_flags(cp[ncp]);
    }
    size_t np = strata_pretokenize(v->pre, cp, fl, ncp, pieces, tmp);
    size_t c0 = 0;
    for (size_t p = 0; p < np; p++) {
        /* the piece's UTF-8 bytes, each through the GPT-2 byte table */
        size_t wl = 0;
        for (size_t k = c0; k < c0 + pieces[p]; k++) {
            char u[4];
            size_t ul = strata_utf8_encode(cp[k], u);
            for (size_t j = 0; j < ul; j++) {
                uint8_t c = (uint8_t)u[j];
                memcpy(word + wl, v->benc[c], v->benc_len[c]);
                wl += v->benc_len[c];
            }
        }
        c0 += pieces[p];
        if (v->ignore_merges) {
            int32_t id = tok_find(v, word, wl);
            if (id >= 0) {
                if (push(out, n, cap, id) != 0) goto done;
                continue;
            }
        }
        if (split_chars(g, word, wl) != 0 || merge_all(g) != 0) goto done;
        for (int i = 0; i != -1; i = g->s[i].next) {
            const sym *y = &g->s[i];
            int32_t id = tok_find(v, word + y->at, y->n);
            if (id >= 0) {
                if (push(out, n, cap, id) != 0) goto done;
                continue;
            }
            for (size_t j = 0; j < y->n; j++) { /* llama.cpp: each byte of the text as a token, when it is one */
                id = tok_find(v, word + y->at + j, 1);
                if (id >= 0 && push(out, n, cap, id) != 0) goto done;
            }
        }
    }
    rc = 0;
done:
    free(cp);
    free(fl);
    free(pieces);
    free(tmp);
    free(word);
    return rc;
}

/* ---- special-token partition (tokenizer_st_partition) ---- */

typedef struct { size_t at, len; int32_t tok; } frag; /* tok -1: raw text [at, at + len) */

static const char *find_bytes(const char *h, size_t hn, const char *nd, size_t nn) {
    if (nn == 0 || nn > hn) return NULL;
    for (const char *p = h, *end = h + hn - nn + 1; p < end; p++) {
        p = memchr(p, nd[0], (size_t)(end - p));
        if (p == NULL) return NULL;
        if (memcmp(p, nd, nn) == 0) return p;
    }
    return NULL;
}

static int partition(const strata_vocab *v, const char *text, size_t len, int parse_special, frag **fr, size_t *nf) {
    size_t cap = 16, n = 0;
    frag *f = malloc(cap * sizeof *f), *g = NULL;
    if (f == NULL) return -1;
    f[n++] = (frag){0, len, -1};
    for (size_t s = 0; s < v->n_spec; s++) {
        int32_t id = v->spec[s];
        if (!parse_special && (v->attr[id] & (TA_CONTROL | TA_UNKNOWN))) continue;
        const char *t = tok_text(v, id);
        size_t tl = v->len[id];
        int any = 0;
        for (size_t i = 0; i < n && !any; i++)
            any = f[i].tok < 0 && find_bytes(text + f[i].at, f[i].len, t, tl) != NULL;
        if (!any) continue;
        size_t gn = 0, gcap = n * 2 + 8;
        g = malloc(gcap * sizeof *g);
        if (g == NULL) goto oom;
        for (size_t i = 0; i < n; i++) {
            if (f[i].tok >= 0) {
                g[gn++] = f[i];
                continue;
            }
            size_t at = f[i].at, end = f[i].at + f[i].len;
            for (;;) {
                const char *p = find_bytes(text + at, end - at, t, tl);
                if (gn + 3 > gcap) {
                    frag *h = realloc(g, (gcap *= 2) * sizeof *g);
                    if (h == NULL) goto oom;
                    g = h;
                }
                if (p == NULL) {
                    if (end > at) g[gn++] = (frag){at, end - at, -1};
                    break;
                }
                size_t m = (size_t)(p - text);
                if (m > at) g[gn++] = (frag){at, m - at, -1};
                g[gn++] = (frag){m, tl, id};
                at = m + tl;
            }
        }
        free(f);
        f = g;
        g = NULL;
        n = gn;
    }
    *fr = f;
    *nf = n;
    return 0;
oom:
    free(f);
    free(g);
    return -1;
}

/* text with no special-token handling: one fragment */
int64_t strata_vocab_tokenize_raw(const strata_vocab *v, const char *text, size_t len, int32_t **out, size_t *n, size_t *cap) {
    merger g = {v, NULL, NULL, 0, 0, {NULL, 0, 0}};
    int rc = bpe_fragment(v, &g, text, len, out, n, cap);
    free(g.s);
    free(g.q.h);
    return rc;
}

int64_t strata_tokenize(const strata_vocab *v, const char *text, size_t len, int flags, int32_t *dst, size_t cap) {
    if (v == NULL || (text == NULL && len > 0) || (dst == NULL && cap > 0)) return -1;
    int32_t *out = NULL;
    size_t n = 0, ocap = 0;
    frag *fr = NULL;
    size_t nf = 0;
    merger g = {v, NULL, NULL, 0, 0, {NULL, 0, 0}};
    char *buf = NULL;
    int64_t rc = -1;
    if (len > 0 && partition(v, text, len, (flags & STRATA_TOK_PARSE_SPECIAL) != 0, &fr, &nf) != 0) goto done;
    int add = (flags & STRATA_TOK_ADD_SPECIAL) != 0;
    if (add && v->add_bos && v->special[SP_BOS] >= 0 && push(&out, &n, &ocap, v->special[SP_BOS]) != 0) goto done;
    int prev_special = 1; /* SPM: a space before the first text fragment and after each special token */
    for (size_t i = 0; i < nf; i++) {
        if (fr[i].tok >= 0) {
            if (push(&out, &n, &ocap, fr[i].tok) != 0) goto done;
            prev_special = 1;
            continue;
        }
        const char *t = text + fr[i].at;
        size_t tl = fr[i].len;
        if (v->type == VT_BPE) {
            if (bpe_fragment(v, &g, t, tl, &out, &n, &ocap) != 0) goto done;
            continue;
        }
        /* SPM: optional " " prefix, then every space as U+2581 (3 bytes) */
        int pre = v->add_space_prefix && prev_special;
        size_t bl = 0;
        free(buf);
        buf = malloc(3 * (tl + 1));
        if (buf == NULL) goto done;
        for (size_t k = 0; k < (size_t)pre + tl; k++) {
            char c = k < (size_t)pre ? ' ' : t[k - (size_t)pre];
            if (c == ' ') {
                memcpy(buf + bl, "\xe2\x96\x81", 3);
                bl += 3;
            } else {
                buf[bl++] = c;
            }
        }
        if (spm_fragment(v, &g, buf, bl, &out, &n, &ocap) != 0) goto done;
        prev_special = 0;
    }
    if (add && v->add_eos && v->special[SP_EOS] >= 0 && push(&out, &n, &ocap, v->special[SP_EOS]) != 0) goto done;
    if (n > 0 && cap > 0) memcpy(dst, out, (n < cap ? n : cap) * sizeof *dst);
    rc = (int64_t)n;
done:
    free(out);
    free(fr);
    free(buf);
    free(g.s);
    free(g.q.h);
    return rc;
}

/* ---- detokenization ---- */

static int64_t put(char *buf, size_t cap, size_t at, const char *s, size_t n) {
    if (at < cap) memcpy(buf + at, s, at + n <= cap ? n : cap - at);
    return (int64_t)(at + n);
}

int64_t strata_token_piece(const strata_vocab *v, int32_t tok, int special, char *buf, size_t cap) {
    if (v == NULL || tok < 0 || tok >= v->n || (buf == NULL && cap > 0)) return -1;
    uint16_t a = v->attr[tok];
    const char *t = tok_text(v, tok);
    size_t tl = v->len[tok];
    if (!special && (a & (TA_UNKNOWN | TA_CONTROL))) return 0;
    if (a & (TA_UNKNOWN | TA_CONTROL | TA_USER)) return put(buf, cap, 0, t, tl);
    if (a & TA_NORMAL) {
        int64_t at = 0;
        if (v->type == VT_SPM) { /* "▁" -> " " */
            for (size_t i = 0; i < tl;) {
                if (i + 3 <= tl && memcmp(t + i, "\xe2\x96\x81", 3) == 0) {
                    at = put(buf, cap, (size_t)at, " ", 1);
                    i += 3;
                } else {
                    at = put(buf, cap, (size_t)at, t + i, 1);
                    i++;
                }
            }
            return at;
        }
        /* byte-level BPE: every code point stands for one byte */
        for (size_t i = 0; i < tl;) {
            uint32_t cp = strata_utf8_decode(t, tl, &i);
            int b = strata_gpt2_cp_byte(cp);
            if (b >= 0) {
                char c = (char)b;
                at = put(buf, cap, (size_t)at, &c, 1);
            } else { /* llama.cpp's llama_decode_text: [UNK_BYTE_0x<utf-8 hex><token text>] */
                char hex[16];
                char u[4];
                size_t ul = strata_utf8_encode(cp, u);
                at = put(buf, cap, (size_t)at, "[UNK_BYTE_0x", 12);
                for (size_t j = 0; j < ul; j++) {
                    snprintf(hex, sizeof hex, "%02x", (uint8_t)u[j]);
                    at = put(buf, cap, (size_t)at, hex, 2);
                }
                at = put(buf, cap, (size_t)at, t, tl);
                at = put(buf, cap, (size_t)at, "]", 1);
            }
        }
        return at;
    }
    if (a & TA_BYTE) { /* <0xXX> */
        char c = tl >= 5 ? (char)strtol((char[3]){t[3], t[4], 0}, NULL, 16) : 0;
        return put(buf, cap, 0, &c, 1);
    }
    return 0; /* UNUSED, UNDEFINED */
}

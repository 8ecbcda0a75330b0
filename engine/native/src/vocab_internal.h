/* vocab_internal.h — the tokenizer's own state and lookups, shared by vocab.c (loading the vocabulary from the GGUF
 * keys) and vocab_encode.c (tokenizing and detokenizing). Calls go one way: vocab.c -> vocab_encode.c. */
#ifndef STRATA_VOCAB_INTERNAL_H
#define STRATA_VOCAB_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "vocab.h"

/* llama_token_attr bits */
enum { TA_UNKNOWN = 1, TA_UNUSED = 2, TA_NORMAL = 4, TA_CONTROL = 8, TA_USER = 16, TA_BYTE = 32 };
enum { VT_SPM = 1, VT_BPE = 2 };

struct strata_vocab {
    int type, pre;
    int add_bos, add_eos, add_space_prefix, ignore_merges;
    int32_t n;
    char *text;         /* every token's text, back to back */
    uint64_t *off;
    uint32_t *len;
    float *score;
    uint16_t *attr;
    uint8_t *eog;
    uint32_t *tslot;    /* text -> id + 1, open addressing */
    size_t tmask;
    /* merges: "first second" texts; (first, second) -> rank */
    char *mtext;
    uint64_t *moff;
    uint32_t *mfirst, *mlen;
    uint32_t *mslot;    /* rank + 1 */
    size_t mmask, n_merges;
    int32_t special[6]; /* BOS EOS EOT UNK PAD NL */
    int32_t *spec;      /* the special-token cache: CONTROL / USER_DEFINED / UNKNOWN, longest text first */
    size_t n_spec;
    char benc[256][2];  /* GPT-2 byte -> UTF-8 of its code point (1 or 2 bytes) */
    uint8_t benc_len[256];
};

enum { SP_BOS, SP_EOS, SP_EOT, SP_UNK, SP_PAD, SP_NL };

/* ---- the token and merge tables: FNV-1a hashed, open addressing ---- */

static inline uint64_t fnv_more(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define FNV0 0xcbf29ce484222325ull

static inline const char *tok_text(const strata_vocab *v, int32_t id) { return v->text + v->off[id]; }

static inline int32_t tok_find(const strata_vocab *v, const char *s, size_t n) {
    for (size_t i = fnv_more(FNV0, s, n) & v->tmask;; i = (i + 1) & v->tmask) {
        uint32_t e = v->tslot[i];
        if (e == 0) return -1;
        if (v->len[e - 1] == n && memcmp(tok_text(v, (int32_t)(e - 1)), s, n) == 0) return (int32_t)(e - 1);
    }
}

static inline uint64_t merge_hash(const char *a, size_t na, const char *b, size_t nb) {
    uint64_t h = fnv_more(FNV0, a, na);
    h ^= 0x9e3779b97f4a7c15ull * (na + 1);
    return fnv_more(h, b, nb);
}

static inline int32_t merge_rank(const strata_vocab *v, const char *a, size_t na, const char *b, size_t nb) {
    if (v->n_merges == 0) return -1;
    for (size_t i = merge_hash(a, na, b, nb) & v->mmask;; i = (i + 1) & v->mmask) {
        uint32_t e = v->mslot[i];
        if (e == 0) return -1;
        const char *t = v->mtext + v->moff[e - 1];
        uint32_t f = v->mfirst[e - 1];
        if (f == na && v->mlen[e - 1] == na + 1 + nb && memcmp(t, a, na) == 0 && memcmp(t + na + 1, b, nb) == 0)
            return (int32_t)(e - 1);
    }
}

/* Text with no special-token handling, one fragment, appended to *out (vocab_encode.c): its length, or -1 (out of
 * memory). */
int64_t strata_vocab_tokenize_raw(const strata_vocab *v, const char *text, size_t len, int32_t **out, size_t *n,
                                  size_t *cap);

#endif

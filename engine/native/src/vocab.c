/* vocab.c — the tokenizer of a GGUF model (vocab.h), with llama.cpp's behaviour (src/llama-vocab.cpp,
 * llama_vocab::impl::load / tokenize / token_to_piece; the llm_tokenizer_spm and llm_tokenizer_bpe sessions):
 *  - special tokens (CONTROL, USER_DEFINED, UNKNOWN) are cut out of the text first, longest first; without
 *    STRATA_TOK_PARSE_SPECIAL only USER_DEFINED ones are;
 *  - SPM: " " prefix before the first text fragment (and after a special token), spaces as "▁", merges of the
 *    adjacent pair whose joined text is the highest-scoring token, byte fallback <0xXX>;
 *  - BPE: the pre-tokenizer's pieces (gpt-2, llama3, qwen2, qwen35 and llama.cpp's "default" list), each byte-encoded (GPT-2 table) and merged by rank (tokenizer.ggml.merges).
 * Every string is copied out of the mapping: the vocabulary does not need the map once loaded. */
#include "vocab.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unicode.h"

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

static int fail(char *err, size_t errlen, const strata_gguf_map *m, const char *fmt, ...) {
    if (err != NULL && errlen > 0) {
        int k = snprintf(err, errlen, "model: %s: ", m->n_shards ? m->shards[0].path : "?");
        if (k >= 0 && (size_t)k < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static uint64_t fnv_more(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define FNV0 0xcbf29ce484222325ull

static const char *tok_text(const strata_vocab *v, int32_t id) { return v->text + v->off[id]; }

static int32_t tok_find(const strata_vocab *v, const char *s, size_t n) {
    for (size_t i = fnv_more(FNV0, s, n) & v->tmask;; i = (i + 1) & v->tmask) {
        uint32_t e = v->tslot[i];
        if (e == 0) return -1;
        if (v->len[e - 1] == n && memcmp(tok_text(v, (int32_t)(e - 1)), s, n) == 0) return (int32_t)(e - 1);
    }
}

static uint64_t merge_hash(const char *a, size_t na, const char *b, size_t nb) {
    uint64_t h = fnv_more(FNV0, a, na);
    h ^= 0x9e3779b97f4a7c15ull * (na + 1);
    return fnv_more(h, b, nb);
}

static int32_t merge_rank(const strata_vocab *v, const char *a, size_t na, const char *b, size_t nb) {
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

static size_t pow2_above(size_t n) {
    size_t c = 16;
    while (c < 2 * n) c <<= 1;
    return c;
}

/* ---- pre-tokenizer names (llama_vocab::impl::load) ---- */
typedef struct { const char *name; int pre, ignore_merges, add_bos; } pre_name;
static const pre_name PRE_NAMES[] = {
    {"default", STRATA_PRE_DEFAULT, 0, 0},
    {"gpt-2", STRATA_PRE_GPT2, 0, 0}, {"phi-2", STRATA_PRE_GPT2, 0, 0}, {"jina-es", STRATA_PRE_GPT2, 0, 0},
    {"jina-de", STRATA_PRE_GPT2, 0, 0}, {"gigachat", STRATA_PRE_GPT2, 0, 0}, {"jina-v2-es", STRATA_PRE_GPT2, 0, 0},
    {"jina-v2-de", STRATA_PRE_GPT2, 0, 0}, {"a.x-4.0", STRATA_PRE_GPT2, 0, 0}, {"mellum", STRATA_PRE_GPT2, 0, 0},
    {"exaone4", STRATA_PRE_GPT2, 0, 0}, {"mpt", STRATA_PRE_GPT2, 0, 0}, {"olmo", STRATA_PRE_GPT2, 0, 0},
    {"jais", STRATA_PRE_GPT2, 0, 0}, {"trillion", STRATA_PRE_GPT2, 0, 0},
    {"granite-docling", STRATA_PRE_GPT2, 0, 0},
    {"llama3", STRATA_PRE_LLAMA3, 1, 1}, {"llama-v3", STRATA_PRE_LLAMA3, 1, 1}, {"llama-bpe", STRATA_PRE_LLAMA3, 1, 1},
    {"falcon3", STRATA_PRE_LLAMA3, 1, 1}, {"falcon-h1", STRATA_PRE_LLAMA3, 1, 1}, {"pixtral", STRATA_PRE_LLAMA3, 1, 1},
    {"midm-2.0", STRATA_PRE_LLAMA3, 1, 1}, {"lfm2", STRATA_PRE_LLAMA3, 1, 1},
    {"jina-v5-nano", STRATA_PRE_LLAMA3, 1, 1}, {"dbrx", STRATA_PRE_LLAMA3, 0, 0},
    {"smaug-bpe", STRATA_PRE_LLAMA3, 0, 0},
    {"qwen2", STRATA_PRE_QWEN2, 0, 0}, {"deepseek-r1-qwen", STRATA_PRE_QWEN2, 0, 0}, {"kormo", STRATA_PRE_QWEN2, 0, 0},
    {"f2llmv2", STRATA_PRE_QWEN2, 0, 0}, {"megrez", STRATA_PRE_QWEN2, 0, 0}, {"stablelm2", STRATA_PRE_QWEN2, 0, 0},
    {"hunyuan", STRATA_PRE_QWEN2, 0, 0}, {"solar-open", STRATA_PRE_QWEN2, 0, 0},
    {"qwen35", STRATA_PRE_QWEN35, 0, 0},
};
#define N_PRE_NAMES (sizeof PRE_NAMES / sizeof PRE_NAMES[0])

/* token texts llama.cpp recognises as EOT / EOM / FIM / end-of-generation (llama_vocab::impl::load) */
static const char *const EOT_TEXTS[] = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                                        "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]",
                                        "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>",
                                        "<end_of_utterance>", NULL};
static const char *const EOM_TEXTS[] = {"<|eom_id|>", NULL};
static const char *const FIM_PRE_TEXTS[] = {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>",
                                            "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>", "<PRE>",
                                            "\xe2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>", NULL};
static const char *const FIM_SUF_TEXTS[] = {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>",
                                            "<\xef\xbd\x9c" "fim\xe2\x96\x81hole\xef\xbd\x9c>", "<SUF>",
                                            "\xe2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>", NULL};
static const char *const FIM_MID_TEXTS[] = {"<|fim_middle|>", "<fim-middle>", "<fim_middle>",
                                            "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>", "<MID>",
                                            "\xe2\x96\x81<MID>", "<|code_middle|>", "<|middle|>", NULL};
static const char *const FIM_PAD_TEXTS[] = {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", NULL};
static const char *const FIM_REP_TEXTS[] = {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>", NULL};
static const char *const FIM_SEP_TEXTS[] = {"<|file_sep|>", NULL};
static const char *const EOG_TEXTS[] = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
                                        "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>",
                                        "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>",
                                        "<turn|>", "<|tool_response>",
                                        "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "[e~[",
                                        NULL};

/* The first token (in the order of the list) whose text is one of texts; -1 when none. */
static int32_t find_any(const strata_vocab *v, const char *const *texts) {
    for (size_t i = 0; texts[i] != NULL; i++) {
        int32_t id = tok_find(v, texts[i], strlen(texts[i]));
        if (id >= 0) return id;
    }
    return -1;
}

static const strata_gguf_kv *arr_key(const strata_gguf_map *m, const char *key, uint32_t atype) {
    const strata_gguf_kv *kv = strata_gguf_map_key(m, key);
    return kv != NULL && kv->type == GGUF_T_ARRAY && kv->atype == atype ? kv : NULL;
}

static int load_tokens(strata_vocab *v, const strata_gguf_map *m, char *err, size_t errlen) {
    const strata_gguf_kv *toks = arr_key(m, "tokenizer.ggml.tokens", GGUF_T_STRING);
    if (toks == NULL) return fail(err, errlen, m, "tokenizer.ggml.tokens is missing or not an array of strings");
    if (toks->n == 0 || toks->n > 0x7fffffff) return fail(err, errlen, m, "tokenizer.ggml.tokens holds %llu tokens",
                                                          (unsigned long long)toks->n);
    v->n = (int32_t)toks->n;
    const strata_gguf_kv *scores = strata_gguf_map_key(m, "tokenizer.ggml.scores");
    if (scores != NULL) {
        if (scores->type != GGUF_T_ARRAY || (scores->atype != GGUF_T_F32 && scores->atype != GGUF_T_I32))
            return fail(err, errlen, m, "tokenizer.ggml.scores is not an array of f32 or i32");
        if (scores->n < toks->n)
            return fail(err, errlen, m, "tokenizer.ggml.scores has %llu entries for %d tokens",
                        (unsigned long long)scores->n, v->n);
    }
    const strata_gguf_kv *types = strata_gguf_map_key(m, "tokenizer.ggml.token_type");
    if (types != NULL) {
        if (types->type != GGUF_T_ARRAY || types->atype != GGUF_T_I32)
            return fail(err, errlen, m, "tokenizer.ggml.token_type is not an array of i32");
        if (types->n < toks->n)
            return fail(err, errlen, m, "tokenizer.ggml.token_type has %llu entries for %d tokens",
                        (unsigned long long)types->n, v->n);
    }
    size_t total = 0;
    for (int32_t i = 0; i < v->n; i++) {
        const char *s;
        size_t len;
        strata_gguf_arr_str(toks, (uint64_t)i, &s, &len);
        total += len ? len + 1 : 32;
    }
    v->text = malloc(total);
    v->off = malloc((size_t)v->n * sizeof *v->off);
    v->len = malloc((size_t)v->n * sizeof *v->len);
    v->score = malloc((size_t)v->n * sizeof *v->score);
    v->attr = malloc((size_t)v->n * sizeof *v->attr);
    v->eog = calloc((size_t)v->n, 1);
    size_t cap = pow2_above((size_t)v->n);
    v->tslot = calloc(cap, sizeof *v->tslot);
    v->tmask = cap - 1;
    if (!v->text || !v->off || !v->len || !v->score || !v->attr || !v->eog || !v->tslot)
        return fail(err, errlen, m, "out of memory for %d tokens", v->n);
    size_t at = 0;
    for (int32_t i = 0; i < v->n; i++) {
        const char *s;
        size_t len;
        strata_gguf_arr_str(toks, (uint64_t)i, &s, &len);
        v->off[i] = at;
        if (len == 0) { /* llama.cpp names an empty token [EMPTY_i] */
            len = (size_t)snprintf(v->text + at, 32, "[EMPTY_%d]", (int)i);
        } else {
            memcpy(v->text + at, s, len);
            v->text[at + len] = '\0';
        }
        v->len[i] = (uint32_t)len;
        at += len + 1;
        v->score[i] = scores == NULL ? 0.0f : strata_gguf_arr_f32(scores, (uint64_t)i);
        uint16_t a = TA_NORMAL;
        if (types != NULL) {
            switch (strata_gguf_arr_int(types, (uint64_t)i)) {
                case 1: a = TA_NORMAL; break;
                case 2: a = TA_UNKNOWN; break;
                case 3: a = TA_CONTROL; break;
                case 4: a = TA_USER; break;
                case 5: a = TA_UNUSED; break;
                case 6: a = TA_BYTE; break;
                default: a = 0; break; /* UNDEFINED */
            }
        }
        v->attr[i] = a;
        /* text -> id; a repeated text maps to its last id, as llama.cpp's token_to_id */
        size_t h = fnv_more(FNV0, v->text + v->off[i], len) & v->tmask;
        for (;; h = (h + 1) & v->tmask) {
            uint32_t e = v->tslot[h];
            if (e == 0 || (v->len[e - 1] == len && memcmp(tok_text(v, (int32_t)(e - 1)), tok_text(v, i), len) == 0)) {
                v->tslot[h] = (uint32_t)i + 1;
                break;
            }
        }
    }
    return 0;
}

static int load_merges(strata_vocab *v, const strata_gguf_map *m, char *err, size_t errlen) {
    const strata_gguf_kv *kv = strata_gguf_map_key(m, "tokenizer.ggml.merges");
    if (kv == NULL) return fail(err, errlen, m, "tokenizer.ggml.merges is missing (a gpt2 tokenizer needs its merges)");
    if (kv->type != GGUF_T_ARRAY || kv->atype != GGUF_T_STRING)
        return fail(err, errlen, m, "tokenizer.ggml.merges is not an array of strings");
    if (kv->n > 0x7ffffffe) return fail(err, errlen, m, "tokenizer.ggml.merges holds %llu merges", (unsigned long long)kv->n);
    size_t n = (size_t)kv->n, total = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s;
        size_t len;
        strata_gguf_arr_str(kv, i, &s, &len);
        total += len;
    }
    v->mtext = malloc(total + 1);
    v->moff = malloc((n + 1) * sizeof *v->moff);
    v->mfirst = malloc((n + 1) * sizeof *v->mfirst);
    v->mlen = malloc((n + 1) * sizeof *v->mlen);
    size_t cap = pow2_above(n);
    v->mslot = calloc(cap, sizeof *v->mslot);
    v->mmask = cap - 1;
    if (!v->mtext || !v->moff || !v->mfirst || !v->mlen || !v->mslot)
        return fail(err, errlen, m, "out of memory for %zu merges", n);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s;
        size_t len;
        strata_gguf_arr_str(kv, i, &s, &len);
        memcpy(v->mtext + at, s, len);
        v->moff[i] = at;
        v->mlen[i] = (uint32_t)len;
        at += len;
        /* "first second", split at the first space after the first byte; a merge without one never applies */
        const char *sp = len > 1 ? memchr(s + 1, ' ', len - 1) : NULL;
        if (sp == NULL) continue;
        size_t na = (size_t)(sp - s), nb = len - na - 1;
        v->mfirst[i] = (uint32_t)na;
        /* the first rank of a repeated pair wins (llama.cpp's bpe_ranks.emplace) */
        size_t h = merge_hash(s, na, sp + 1, nb) & v->mmask;
        for (;; h = (h + 1) & v->mmask) {
            uint32_t e = v->mslot[h];
            if (e == 0) { v->mslot[h] = (uint32_t)i + 1; break; }
            const char *t = v->mtext + v->moff[e - 1];
            if (v->mfirst[e - 1] == na && v->mlen[e - 1] == len && memcmp(t, s, len) == 0) break;
        }
    }
    v->n_merges = n;
    return 0;
}

static int load_pre(strata_vocab *v, const strata_gguf_map *m, char *err, size_t errlen) {
    const char *s;
    size_t len;
    if (!strata_gguf_kv_str(m, "tokenizer.ggml.pre", &s, &len) || len == 0) {
        v->pre = STRATA_PRE_DEFAULT; /* llama.cpp: "missing pre-tokenizer type, using: 'default'" */
        return 0;
    }
    for (size_t i = 0; i < N_PRE_NAMES; i++) {
        if (strlen(PRE_NAMES[i].name) == len && memcmp(PRE_NAMES[i].name, s, len) == 0) {
            v->pre = PRE_NAMES[i].pre;
            v->ignore_merges = PRE_NAMES[i].ignore_merges;
            v->add_bos = PRE_NAMES[i].add_bos;
            return 0;
        }
    }
    char names[1024];
    size_t at = 0;
    names[0] = '\0';
    for (size_t i = 0; i < N_PRE_NAMES && at + 32 < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", PRE_NAMES[i].name);
    return fail(err, errlen, m, "tokenizer.ggml.pre '%.*s' is not one strata-ref implements (it implements: %s)",
                (int)(len > 64 ? 64 : len), s, names);
}

static int64_t tokenize_raw(const strata_vocab *v, const char *text, size_t len, int32_t **out, size_t *n, size_t *cap);

int strata_vocab_load(const strata_gguf_map *m, strata_vocab **out, char *err, size_t errlen) {
    *out = NULL;
    const char *model;
    size_t mlen;
    if (!strata_gguf_kv_str(m, "tokenizer.ggml.model", &model, &mlen))
        return fail(err, errlen, m, "tokenizer.ggml.model is missing (the file has no tokenizer)");
    strata_vocab *v = calloc(1, sizeof *v);
    if (v == NULL) return fail(err, errlen, m, "out of memory");
    int32_t def[6] = {-1, -1, -1, -1, -1, -1};
    if (mlen == 5 && memcmp(model, "llama", 5) == 0) {
        v->type = VT_SPM;
        v->add_bos = 1;
        v->add_space_prefix = 1;
        def[SP_BOS] = 1;
        def[SP_EOS] = 2;
        def[SP_UNK] = 0;
    } else if (mlen == 4 && memcmp(model, "gpt2", 4) == 0) {
        v->type = VT_BPE;
        def[SP_BOS] = 11; /* llama.cpp's defaults for a BPE vocabulary without the keys */
        def[SP_EOS] = 11;
    } else {
        fail(err, errlen, m, "tokenizer.ggml.model '%.*s' is not one strata-ref implements (it implements: gpt2, llama)",
             (int)(mlen > 64 ? 64 : mlen), model);
        free(v);
        return -1;
    }
    if ((v->type == VT_BPE && (load_pre(v, m, err, errlen) != 0 || load_merges(v, m, err, errlen) != 0)) ||
        load_tokens(v, m, err, errlen) != 0) {
        strata_vocab_free(v);
        return -1;
    }
    int b;
    if (strata_gguf_kv_bool(m, "tokenizer.ggml.add_space_prefix", &b)) v->add_space_prefix = b;

    for (int c = 0; c < 256; c++) {
        v->benc_len[c] = (uint8_t)strata_utf8_encode(strata_gpt2_byte_cp((uint8_t)c), v->benc[c]);
    }

    /* special ids: the defaults, then the keys (an id out of range keeps the default) */
    static const char *const keys[6] = {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
                                        "tokenizer.ggml.eot_token_id", "tokenizer.ggml.unknown_token_id",
                                        "tokenizer.ggml.padding_token_id", NULL};
    for (int k = 0; k < 6; k++) {
        v->special[k] = def[k] >= 0 && def[k] < v->n ? def[k] : -1;
        uint64_t id;
        if (keys[k] != NULL && strata_gguf_kv_u64(m, keys[k], &id) && id < (uint64_t)v->n) v->special[k] = (int32_t)id;
    }
    int32_t eom = -1, fim[6] = {-1, -1, -1, -1, -1, -1};
    {
        static const char *const fkeys[6] = {"tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.fim_suf_token_id",
                                             "tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.fim_pad_token_id",
                                             "tokenizer.ggml.fim_rep_token_id", "tokenizer.ggml.fim_sep_token_id"};
        static const char *const old[3] = {"tokenizer.ggml.prefix_token_id", "tokenizer.ggml.suffix_token_id",
                                           "tokenizer.ggml.middle_token_id"};
        uint64_t id;
        if (strata_gguf_kv_u64(m, "tokenizer.ggml.eom_token_id", &id) && id < (uint64_t)v->n) eom = (int32_t)id;
        for (int k = 0; k < 6; k++) {
            if (strata_gguf_kv_u64(m, fkeys[k], &id) && id < (uint64_t)v->n) fim[k] = (int32_t)id;
            if (k < 3 && strata_gguf_kv_u64(m, old[k], &id) && id < (uint64_t)v->n) fim[k] = (int32_t)id;
        }
    }
    if (strata_gguf_kv_bool(m, "tokenizer.ggml.add_bos_token", &b)) v->add_bos = b;
    if (strata_gguf_kv_bool(m, "tokenizer.ggml.add_eos_token", &b)) v->add_eos = b;

    /* tokens found by their text when the keys do not name them; each becomes CONTROL */
    int32_t *slots[8] = {&v->special[SP_EOT], &eom, &fim[0], &fim[1], &fim[2], &fim[3], &fim[4], &fim[5]};
    const char *const *lists[8] = {EOT_TEXTS, EOM_TEXTS, FIM_PRE_TEXTS, FIM_SUF_TEXTS,
                                   FIM_MID_TEXTS, FIM_PAD_TEXTS, FIM_REP_TEXTS, FIM_SEP_TEXTS};
    for (int k = 0; k < 8; k++) {
        if (*slots[k] >= 0) continue;
        *slots[k] = find_any(v, lists[k]);
        if (*slots[k] >= 0) v->attr[*slots[k]] |= TA_CONTROL;
    }
    /* control tokens named "...unused..." are UNUSED too */
    for (int32_t i = 0; i < v->n; i++)
        if ((v->attr[i] & TA_CONTROL) && strstr(tok_text(v, i), "unused") != NULL) v->attr[i] |= TA_UNUSED;
    /* end of generation: FIM pad/rep/sep, the known texts, EOS, EOT, EOM */
    for (int k = 3; k < 6; k++)
        if (fim[k] >= 0) v->eog[fim[k]] = 1;
    for (size_t i = 0; EOG_TEXTS[i] != NULL; i++) {
        int32_t id = tok_find(v, EOG_TEXTS[i], strlen(EOG_TEXTS[i]));
        if (id >= 0) {
            v->eog[id] = 1;
            v->attr[id] |= TA_CONTROL;
        }
    }
    if (v->special[SP_EOS] >= 0) v->eog[v->special[SP_EOS]] = 1;
    if (v->special[SP_EOT] >= 0) v->eog[v->special[SP_EOT]] = 1;
    if (eom >= 0) v->eog[eom] = 1;

    /* the special-token cache, longest text first (ties: lower id first) */
    v->spec = malloc((size_t)v->n * sizeof *v->spec);
    if (v->spec == NULL) {
        strata_vocab_free(v);
        return fail(err, errlen, m, "out of memory");
    }
    for (int32_t i = 0; i < v->n; i++)
        if (v->attr[i] & (TA_CONTROL | TA_USER | TA_UNKNOWN)) v->spec[v->n_spec++] = i;
    for (size_t i = 1; i < v->n_spec; i++) { /* insertion sort: stable, and the cache is small */
        int32_t t = v->spec[i];
        size_t j = i;
        while (j > 0 && v->len[v->spec[j - 1]] < v->len[t]) {
            v->spec[j] = v->spec[j - 1];
            j--;
        }
        v->spec[j] = t;
    }

    /* newline: SPM's byte token for '\n'; BPE: the first token of "\n" */
    if (v->type == VT_SPM) {
        v->special[SP_NL] = tok_find(v, "<0x0A>", 6);
        if (v->special[SP_NL] < 0) v->special[SP_NL] = tok_find(v, "\n", 1);
        if (v->special[SP_NL] < 0) v->special[SP_NL] = v->special[SP_PAD];
    } else {
        int32_t *ids = NULL;
        size_t n = 0, cap = 0;
        if (tokenize_raw(v, "\n", 1, &ids, &n, &cap) < 0) {
            free(ids);
            strata_vocab_free(v);
            return fail(err, errlen, m, "out of memory");
        }
        v->special[SP_NL] = n > 0 ? ids[0] : v->special[SP_PAD];
        free(ids);
    }
    *out = v;
    return 0;
}

void strata_vocab_free(strata_vocab *v) {
    if (v == NULL) return;
    free(v->text);
    free(v->off);
    free(v->len);
    free(v->score);
    free(v->attr);
    free(v->eog);
    free(v->tslot);
    free(v->mtext);
    free(v->moff);
    free(v->mfirst);
    free(v->mlen);
    free(v->mslot);
    free(v->spec);
    free(v);
}

int32_t strata_vocab_n_tokens(const strata_vocab *v) { return v->n; }

int32_t strata_vocab_special(const strata_vocab *v, int which) {
    return which >= 0 && which < 6 ? v->special[which] : -1;
}

int strata_vocab_is_eog(const strata_vocab *v, int32_t tok) { return tok >= 0 && tok < v->n && v->eog[tok]; }

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
static int64_t tokenize_raw(const strata_vocab *v, const char *text, size_t len, int32_t **out, size_t *n, size_t *cap) {
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

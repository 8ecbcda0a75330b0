/* vocab.c — the tokenizer of a GGUF model (vocab.h), with llama.cpp's behaviour (src/llama-vocab.cpp,
 * llama_vocab::impl::load / tokenize / token_to_piece; the llm_tokenizer_spm and llm_tokenizer_bpe sessions):
 *  - special tokens (CONTROL, USER_DEFINED, UNKNOWN) are cut out of the text first, longest first; without
 *    STRATA_TOK_PARSE_SPECIAL only USER_DEFINED ones are;
 *  - SPM: " " prefix before the first text fragment (and after a special token), spaces as "▁", merges of the
 *    adjacent pair whose joined text is the highest-scoring token, byte fallback <0xXX>;
 *  - BPE: the pre-tokenizer's pieces (gpt-2, llama3, qwen2, qwen35 and llama.cpp's "default" list), each byte-encoded (GPT-2 table) and merged by rank (tokenizer.ggml.merges).
 * Every string is copied out of the mapping: the vocabulary does not need the map once loaded.
 * This file loads the vocabulary; vocab_encode.c tokenizes and detokenizes (vocab_internal.h). */
#include "vocab.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unicode.h"
#include "vocab_internal.h"

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
        if (strata_vocab_tokenize_raw(v, "\n", 1, &ids, &n, &cap) < 0) {
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

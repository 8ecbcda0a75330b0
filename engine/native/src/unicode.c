/* unicode.c — code point classes, UTF-8, the GPT-2 byte table and the BPE pre-tokenizers (see unicode.h).
 * Behaviour is llama.cpp's src/unicode.cpp (unicode_regex_split_custom_gpt2 / _llama3 / _qwen2 and the "default"
 * regex list); the code is our own. */
#include "unicode.h"

#include <string.h>

uint16_t strata_ucp_flags(uint32_t cp) {
    uint16_t f = STRATA_UCAT_UNDEFINED;
    if (cp < 0x110000) {
        size_t lo = 0, hi = strata_ucat_n_ranges; /* last range with start <= cp */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (strata_ucat_ranges[mid].start <= cp) lo = mid; else hi = mid;
        }
        f = strata_ucat_ranges[lo].flags;
    }
    /* White_Space (PropList.txt), as llama.cpp's gen-unicode-data.py lists it */
    if ((cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
        (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
        cp == 0x3000)
        f |= STRATA_UCAT_SPACE;
    return f;
}

uint32_t strata_ucp_tolower(uint32_t cp) {
    /* the first run starting after cp; the one before it is the only one that can hold cp */
    size_t lo = 0, hi = strata_ulower_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strata_ulower[mid].start <= cp) lo = mid + 1; else hi = mid;
    }
    if (lo == 0) return cp;
    const strata_ucase_run *r = &strata_ulower[lo - 1];
    const uint32_t off = cp - r->start;
    return off % r->stride == 0 && off / r->stride < r->count ? (uint32_t)((int64_t)cp + r->delta) : cp;
}

size_t strata_utf8_len(uint8_t lead) {
    static const uint8_t len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return len[lead >> 4];
}

uint32_t strata_utf8_decode(const char *str, size_t len, size_t *pos) {
    const uint8_t *s = (const uint8_t *)str + *pos;
    size_t left = len - *pos, n;
    uint32_t cp;
    if (s[0] < 0x80) { *pos += 1; return s[0]; }
    if ((s[0] & 0xE0) == 0xC0) { n = 2; cp = s[0] & 0x1F; }
    else if ((s[0] & 0xF0) == 0xE0) { n = 3; cp = s[0] & 0x0F; }
    else if ((s[0] & 0xF8) == 0xF0) { n = 4; cp = s[0] & 0x07; }
    else { *pos += 1; return 0xFFFD; } /* a continuation byte or F8..FF */
    if (left < n) { *pos += 1; return 0xFFFD; }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) { *pos += 1; return 0xFFFD; }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    /* llama.cpp decodes F5..F7 sequences beyond U+10FFFF and then fails to encode them; we make them U+FFFD */
    if (cp > 0x10FFFF) { *pos += 1; return 0xFFFD; }
    *pos += n;
    return cp;
}

size_t strata_utf8_encode(uint32_t cp, char *out) {
    uint8_t *o = (uint8_t *)out;
    if (cp < 0x80) { o[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) { o[0] = (uint8_t)(0xC0 | (cp >> 6)); o[1] = (uint8_t)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12)); o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (cp >> 18)); o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* bytes_to_unicode(): the printable bytes ! .. ~, ¡ .. ¬, ® .. ÿ stand for themselves; the other 68 take
 * U+0100.. in byte order. */
static int gpt2_printable(unsigned b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; }

uint32_t strata_gpt2_byte_cp(uint8_t b) {
    if (gpt2_printable(b)) return b;
    uint32_t n = 0;
    for (unsigned i = 0; i < b; i++) n += !gpt2_printable(i);
    return 256 + n;
}

int strata_gpt2_cp_byte(uint32_t cp) {
    if (cp < 256) return gpt2_printable(cp) ? (int)cp : -1;
    if (cp >= 256 + 68) return -1;
    uint32_t n = 256;
    for (unsigned b = 0; b < 256; b++)
        if (!gpt2_printable(b) && n++ == cp) return (int)b;
    return -1;
}

/* ---- pre-tokenizers ----
 * Each splitter refines a list of pieces (lengths in code points) into out and returns the new count. Inside a piece
 * [ini, end) a position at or past end reads as "no code point" (flags 0), as llama.cpp's _get_flags does; prev (where
 * the next piece starts) is ini when a splitter starts. */

#define OOR 0xFFFFFFFFu

typedef struct {
    const uint32_t *cp;
    const uint16_t *fl;
    size_t end, prev;
    size_t *out, n_out;
} split_state;

static uint32_t S_CP(const split_state *s, size_t p) { return p < s->end ? s->cp[p] : OOR; }
static uint16_t S_FL(const split_state *s, size_t p) { return p < s->end ? s->fl[p] : 0; }
static void emit(split_state *s, size_t end) {
    if (end > s->prev) s->out[s->n_out++] = end - s->prev;
    s->prev = end;
}

/* 's|'t|'re|'ve|'m|'ll|'d, case-insensitive when fold; the match length or 0 */
static size_t contraction(const split_state *s, size_t pos, int fold) {
    if (s->cp[pos] != '\'' || pos + 1 >= s->end) return 0;
    uint32_t a = s->cp[pos + 1];
    if (fold) a = strata_ucp_tolower(a);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (pos + 2 < s->end) {
        uint32_t b = s->cp[pos + 2];
        if (fold) b = strata_ucp_tolower(b);
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    }
    return 0;
}

/* A contraction at *pos is a piece of its own: emitted, *pos past it; 1, or 0 when there is none. */
static int took_contraction(split_state *s, size_t *pos, int fold) {
    size_t k = contraction(s, *pos, fold);
    if (k == 0) return 0;
    *pos += k;
    emit(s, *pos);
    return 1;
}

enum { L = STRATA_UCAT_LETTER, N = STRATA_UCAT_NUMBER, W = STRATA_UCAT_SPACE };

/* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static void split_gpt2(split_state *s, size_t ini) {
    size_t pos = ini;
    while (pos < s->end) {
        uint32_t c = s->cp[pos];
        uint16_t f = s->fl[pos];
        if (took_contraction(s, &pos, 0)) continue;
        uint16_t f2 = c == ' ' ? S_FL(s, pos + 1) : f;
        if (f2 & L) {
            pos += c == ' ';
            while (f2 & L) f2 = S_FL(s, ++pos);
            emit(s, pos);
            continue;
        }
        if (f2 & N) {
            pos += c == ' ';
            while (f2 & N) f2 = S_FL(s, ++pos);
            emit(s, pos);
            continue;
        }
        if (!(f2 & (W | L | N)) && f2) {
            pos += c == ' ';
            while (!(f2 & (W | L | N)) && f2) f2 = S_FL(s, ++pos);
            emit(s, pos);
            continue;
        }
        size_t nws = 0;
        while (S_FL(s, pos + nws) & W) nws++;
        if (nws > 1 && S_CP(s, pos + nws) != OOR) { pos += nws - 1; emit(s, pos); continue; } /* \s+(?!\S) */
        if (nws > 0) { pos += nws; emit(s, pos); continue; }
        emit(s, ++pos);
    }
}

/* llama3 (max_digits 3, word L), qwen2 (max_digits 1, word L) and qwen35 (max_digits 1, word L|M):
 * (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?WORD+|\p{N}{1,max}| ?[^\s WORD \p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
static void split_llama3(split_state *s, size_t ini, size_t max_digits, uint16_t word) {
    size_t pos = ini;
    while (pos < s->end) {
        uint32_t c = s->cp[pos];
        uint16_t f = s->fl[pos];
        if (took_contraction(s, &pos, 1)) continue;
        if (!(c == '\r' || c == '\n' || (f & N)) && ((f & word) || (S_FL(s, pos + 1) & word))) {
            pos++;
            while (S_FL(s, pos) & word) pos++;
            emit(s, pos);
            continue;
        }
        if (f & N) {
            size_t run = pos;
            while (S_FL(s, pos) & N) {
                if (++pos - run >= max_digits) { emit(s, pos); run = pos; }
            }
            emit(s, pos);
            continue;
        }
        uint16_t f2 = c == ' ' ? S_FL(s, pos + 1) : f;
        if (!(f2 & (W | word | N)) && f) {
            pos += c == ' ';
            while (!(f2 & (W | word | N)) && f2) f2 = S_FL(s, ++pos);
            uint32_t c2 = S_CP(s, pos);
            while (c2 == '\r' || c2 == '\n') c2 = S_CP(s, ++pos);
            emit(s, pos);
            continue;
        }
        size_t nws = 0, last_rn = 0;
        while (S_FL(s, pos + nws) & W) {
            uint32_t c2 = s->cp[pos + nws];
            if (c2 == '\r' || c2 == '\n') last_rn = pos + nws + 1;
            nws++;
        }
        if (last_rn) { pos = last_rn; emit(s, pos); continue; }                               /* \s*[\r\n]+ */
        if (nws > 1 && S_CP(s, pos + nws) != OOR) { pos += nws - 1; emit(s, pos); continue; } /* \s+(?!\S) */
        if (nws > 0) { pos += nws; emit(s, pos); continue; }
        emit(s, ++pos);
    }
}

/* The "default" list's regexes that llama.cpp runs through std::regex on its collapsed text. */
static int in_punct_class(uint32_t c, uint16_t f) { /* [\p{P}\$\+<=>\^~\|] */
    if (c < 128) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x5F) ||
                        (c >= 0x7B && c <= 0x7E);
    return !(f & W) && (f & STRATA_UCAT_MASK) == STRATA_UCAT_PUNCT;
}
static int in_number_class(uint32_t c, uint16_t f) { /* \p{N} */
    if (c < 128) return c >= '0' && c <= '9';
    return !(f & W) && (f & STRATA_UCAT_MASK) == STRATA_UCAT_NUMBER;
}

/* R+ for a class R: the runs of R and the stretches between them are the pieces */
static void split_runs(split_state *s, size_t ini, int (*cls)(uint32_t, uint16_t)) {
    for (size_t pos = ini + 1; pos < s->end; pos++)
        if (cls(s->cp[pos], s->fl[pos]) != cls(s->cp[pos - 1], s->fl[pos - 1])) emit(s, pos);
    emit(s, s->end);
}

/* [0-9][0-9][0-9], leftmost matches */
static void split_three_digits(split_state *s, size_t ini) {
    size_t pos = ini;
    while (pos + 3 <= s->end) {
        int m = 1;
        for (size_t i = 0; i < 3; i++) m &= s->cp[pos + i] >= '0' && s->cp[pos + i] <= '9';
        if (!m) { pos++; continue; }
        emit(s, pos);
        pos += 3;
        emit(s, pos);
    }
    emit(s, s->end);
}

enum { ST_GPT2, ST_LLAMA3, ST_QWEN2, ST_QWEN35, ST_PUNCT, ST_NUMBER, ST_DIGIT3 };

static size_t run_stage(int stage, const uint32_t *cp, const uint16_t *fl, const size_t *in, size_t n_in, size_t *out) {
    split_state s = {cp, fl, 0, 0, out, 0};
    size_t start = 0;
    for (size_t i = 0; i < n_in; i++) {
        size_t ini = start;
        s.end = start + in[i];
        s.prev = ini; /* the splitter's pieces start at ini */
        start = s.end;
        switch (stage) {
            case ST_GPT2: split_gpt2(&s, ini); break;
            case ST_LLAMA3: split_llama3(&s, ini, 3, L); break;
            case ST_QWEN2: split_llama3(&s, ini, 1, L); break;
            case ST_QWEN35: split_llama3(&s, ini, 1, L | STRATA_UCAT_MARK); break;
            case ST_PUNCT: split_runs(&s, ini, in_punct_class); break;
            case ST_NUMBER: split_runs(&s, ini, in_number_class); break;
            default: split_three_digits(&s, ini); break;
        }
    }
    return s.n_out;
}

size_t strata_pretokenize(int pre, const uint32_t *cp, const uint16_t *fl, size_t n, size_t *out, size_t *tmp) {
    static const int stages_default[] = {ST_PUNCT, ST_GPT2, ST_NUMBER, ST_DIGIT3};
    int one;
    const int *stages = &one;
    size_t n_stages = 1;
    switch (pre) {
        case STRATA_PRE_GPT2: one = ST_GPT2; break;
        case STRATA_PRE_LLAMA3: one = ST_LLAMA3; break;
        case STRATA_PRE_QWEN2: one = ST_QWEN2; break;
        case STRATA_PRE_QWEN35: one = ST_QWEN35; break;
        default: stages = stages_default; n_stages = 4; break;
    }
    if (n == 0) return 0;
    /* ping-pong between out and tmp so that the last stage writes out */
    size_t *bufs[2] = {n_stages % 2 ? tmp : out, n_stages % 2 ? out : tmp};
    bufs[0][0] = n;
    size_t count = 1;
    for (size_t i = 0; i < n_stages; i++) {
        count = run_stage(stages[i], cp, fl, bufs[i % 2], count, bufs[(i + 1) % 2]);
    }
    return count;
}

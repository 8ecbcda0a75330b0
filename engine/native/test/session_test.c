/* session_test.c — the ABI 3 session API through the shared library, as the launcher uses it (no JVM):
 *   session_test check MODEL          assertions on a real model (exit 0, or 1 with FAIL lines)
 *   session_test gen MODEL N [--kv F] [--threads T] PROMPT
 *                                     greedy generation: one line of token ids, then the text (for comparisons)
 *   session_test logits MODEL TOKENS.u16|.u32 CTX CHUNKS KV THREADS OUT
 *                                     teacher-forced logits in llama-perplexity's layout (chunk i = tokens
 *                                     [i·CTX, (i+1)·CTX) from an empty context, positions CTX/2 .. CTX-2 kept) as
 *                                     bench/llamacpp's `_lpf32__` file of raw logits (compare.py reads it)
 * The checks: tokenize → eval → greedy decode is deterministic; a prompt evaluated as one batch gives the logits of
 * the same prompt evaluated one token at a time (prompt path = decode path, within float rounding); truncate then
 * re-eval reproduces the logits; bad token ids, an overfull context and a bad sequence are refused with code 2. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata_engine.h"
#include "testkit.h"


static int quiet_errors;
static void on_line(void *user, int level, const char *line) {
    (void)user;
    if (level >= 2 && !quiet_errors) {
        fprintf(stderr, "engine: %s\n", line);
    }
}

static strata_session *open_model(const char *model, const char *kv, const char *threads, const char *ctx) {
    const char *argv[16];
    int argc = 0;
    argv[argc++] = "strata-ref";
    argv[argc++] = "--model";
    argv[argc++] = model;
    argv[argc++] = "--ctx";
    argv[argc++] = ctx;
    argv[argc++] = "--threads";
    argv[argc++] = threads;
    if (kv != NULL) {
        argv[argc++] = "--kv";
        argv[argc++] = kv;
    }
    int rc = -1;
    strata_session *s = strata_session_open(argc, argv, on_line, NULL, &rc);
    if (s == NULL) {
        fprintf(stderr, "session_test: open failed with code %d\n", rc);
    }
    return s;
}

static int argmax(const float *l, int n) {
    int b = 0;
    for (int i = 1; i < n; i++) {
        b = l[i] > l[b] ? i : b;
    }
    return b;
}

/* greedy: prompt, then n tokens; ids into out */
static int greedy(strata_session *s, const int32_t *prompt, int np, int n, int32_t *out, float *logits) {
    strata_session_truncate(s, 0, 0);
    if (strata_session_eval(s, 0, prompt, (size_t)np, (size_t)np - 1, logits) != 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        out[i] = strata_session_sample(s, logits, 0.0f, 0, 1.0f, NULL);
        if (strata_session_eval(s, 0, &out[i], 1, 0, logits) != 0) {
            return -1;
        }
    }
    return 0;
}

static int cmd_check(const char *model) {
    /* batch = one at a time holds for one arithmetic per batch size only: llama.cpp's (and so strata-ref's default)
     * q4_K GEMM and small-ubatch attention differ from its gemv and tiled path in the last bits (forward.c) */
    setenv("STRATA_ONE_ORDER", "1", 1);
    const char *formats[] = {"fp16", "int8", "q4_0"};
    for (int fi = 0; fi < 3; fi++) {
        strata_session *s = open_model(model, formats[fi], "2", "512");
        if (s == NULL) {
            return 1;
        }
        const int V = strata_session_n_vocab(s);
        const char *text = "The quick brown fox jumps over the lazy dog. In 1984, we";
        int32_t toks[128];
        int64_t n = strata_session_tokenize(s, text, strlen(text), 1, toks, 128);
        CHECK(n > 4 && n < 128, "tokenize gave %lld tokens", (long long)n);
        /* the pieces give the text back */
        char back[512] = "";
        size_t bl = 0;
        for (int64_t i = 0; i < n; i++) {
            char piece[64];
            int64_t pl = strata_session_token_piece(s, toks[i], 0, piece, sizeof piece);
            CHECK(pl >= 0 && pl < 64, "piece length %lld", (long long)pl);
            if (pl > 0 && bl + (size_t)pl < sizeof back) {
                memcpy(back + bl, piece, (size_t)pl);
                bl += (size_t)pl;
            }
        }
        back[bl] = 0;
        CHECK(strcmp(back, text) == 0, "detokenized '%s'", back);
        float *all = malloc((size_t)n * V * sizeof(float)), *one = malloc((size_t)V * sizeof(float));
        /* one batch, every position's logits */
        CHECK(strata_session_eval(s, 0, toks, (size_t)n, 0, all) == 0, "batch eval");
        CHECK(strata_session_n_past(s, 0) == n, "n_past %d", strata_session_n_past(s, 0));
        /* the same one token at a time */
        strata_session_truncate(s, 0, 0);
        double worst = 0.0;
        int same_top = 0;
        for (int64_t i = 0; i < n; i++) {
            CHECK(strata_session_eval(s, 0, &toks[i], 1, 0, one) == 0, "eval %lld", (long long)i);
            const float *a = all + (size_t)i * V;
            for (int j = 0; j < V; j++) {
                double d = fabs((double)a[j] - (double)one[j]);
                worst = d > worst ? d : worst;
            }
            same_top += argmax(a, V) == argmax(one, V);
        }
        CHECK(worst < 1e-3, "%s: batch vs one-at-a-time logits differ by %g", formats[fi], worst);
        CHECK(same_top == n, "%s: top-1 differs at %lld of %lld positions", formats[fi], (long long)(n - same_top),
              (long long)n);
        /* truncate to half and re-eval: the same logits as the first time */
        int64_t h = n / 2;
        strata_session_truncate(s, 0, (int32_t)h);
        CHECK(strata_session_eval(s, 0, toks + h, (size_t)(n - h), (size_t)(n - h - 1), one) == 0, "re-eval");
        double d2 = 0.0;
        for (int j = 0; j < V; j++) {
            double d = fabs((double)all[(size_t)(n - 1) * V + j] - (double)one[j]);
            d2 = d > d2 ? d : d2;
        }
        CHECK(d2 < 1e-3, "%s: logits after truncate+re-eval differ by %g", formats[fi], d2);
        /* greedy is deterministic */
        int32_t g1[16], g2[16];
        CHECK(greedy(s, toks, (int)n, 16, g1, one) == 0 && greedy(s, toks, (int)n, 16, g2, one) == 0, "greedy");
        CHECK(memcmp(g1, g2, sizeof g1) == 0, "%s: greedy generation differs between two runs", formats[fi]);
        /* refusals */
        quiet_errors = 1;
        int32_t bad = V;
        CHECK(strata_session_eval(s, 0, &bad, 1, 0, one) == 2, "token id %d accepted", V);
        CHECK(strata_session_eval(s, 1, toks, 1, 0, one) == 2, "sequence 1 accepted");
        strata_session_truncate(s, 0, 0);
        int32_t *many = calloc(641, sizeof *many);
        CHECK(strata_session_eval(s, 0, many, 641, 641, NULL) == 2, "641 tokens accepted in 640 cells (ctx 512 + 128)");
        CHECK(strata_session_truncate(s, 0, 5) == 2, "truncate past n_past accepted");
        quiet_errors = 0;
        free(many);
        char stats[1024];
        CHECK(strata_session_stats(s, stats, sizeof stats) > 0 && strstr(stats, "decode_tokens=") != NULL, "stats");
        free(all);
        free(one);
        strata_session_close(s);
        printf("session_test: %s pools: batch = one at a time (max |dlogit| %.2g), truncate, greedy, refusals\n",
               formats[fi], worst);
    }
    return fails == 0 ? 0 : 1;
}

static int cmd_gen(int argc, char **argv) {
    const char *model = argv[2], *kv = NULL, *threads = "2", *pfile = NULL;
    int n = atoi(argv[3]);
    int i = 4;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--kv") == 0) {
            kv = argv[i + 1];
        } else if (strcmp(argv[i], "--threads") == 0) {
            threads = argv[i + 1];
        } else if (strcmp(argv[i], "--prompt-file") == 0) {
            pfile = argv[i + 1];
        }
    }
    static char pbuf[65536];
    const char *prompt = i < argc ? argv[i] : NULL;
    if (pfile != NULL) {
        FILE *pf = fopen(pfile, "rb");
        size_t got = pf != NULL ? fread(pbuf, 1, sizeof pbuf - 1, pf) : 0;
        if (pf != NULL) {
            fclose(pf);
        }
        pbuf[got] = 0;
        prompt = pbuf;
    }
    if (prompt == NULL) {
        fprintf(stderr, "usage: session_test gen MODEL N [--kv F] [--threads T] [--prompt-file F | PROMPT]\n");
        return 2;
    }
    strata_session *s = open_model(model, kv, threads, "1024");
    if (s == NULL) {
        return 1;
    }
    const int V = strata_session_n_vocab(s);
    int32_t toks[1024], out[1024];
    int64_t np = strata_session_tokenize(s, prompt, strlen(prompt), 1, toks, 1024);
    float *logits = malloc((size_t)V * sizeof(float));
    if (np <= 0 || np > 512 || n > 512 || greedy(s, toks, (int)np, n, out, logits) != 0) {
        fprintf(stderr, "session_test: generation failed\n");
        return 1;
    }
    for (int k = 0; k < n; k++) {
        printf("%s%d", k ? " " : "", out[k]);
    }
    printf("\n");
    for (int k = 0; k < n; k++) {
        char piece[256];
        int64_t pl = strata_session_token_piece(s, out[k], 0, piece, sizeof piece);
        fwrite(piece, 1, pl > 0 && pl < 256 ? (size_t)pl : 0, stdout);
    }
    printf("\n");
    free(logits);
    strata_session_close(s);
    return 0;
}

static int cmd_logits(char **argv) {
    const char *model = argv[2], *tokpath = argv[3], *kv = argv[6], *threads = argv[7], *out = argv[8];
    int ctx = atoi(argv[4]), chunks = atoi(argv[5]);
    FILE *f = fopen(tokpath, "rb");
    if (f == NULL || ctx < 4 || chunks < 1) {
        fprintf(stderr, "session_test: cannot read %s (or bad CTX/CHUNKS)\n", tokpath);
        return 2;
    }
    size_t w = strlen(tokpath) > 4 && strcmp(tokpath + strlen(tokpath) - 4, ".u32") == 0 ? 4 : 2;
    size_t need = (size_t)ctx * (size_t)chunks;
    int32_t *toks = malloc(need * sizeof *toks);
    for (size_t i = 0; i < need; i++) {
        uint32_t v = 0;
        if (fread(&v, w, 1, f) != 1) {
            fprintf(stderr, "session_test: %s holds fewer than %zu tokens\n", tokpath, need);
            return 2;
        }
        toks[i] = (int32_t)v;
    }
    fclose(f);
    char cbuf[32];
    snprintf(cbuf, sizeof cbuf, "%d", ctx);
    strata_session *s = open_model(model, kv, threads, cbuf);
    if (s == NULL) {
        return 1;
    }
    const int V = strata_session_n_vocab(s), first = ctx / 2, scored = ctx - 1 - first;
    /* llama-perplexity replaces each chunk's first token with BOS when the model adds one (add_bos): do the same */
    int32_t bos[4];
    int has_bos = strata_session_tokenize(s, "", 0, 1, bos, 4) >= 1 && bos[0] == strata_session_token(s, 0);
    FILE *o = fopen(out, "wb");
    int32_t hdr[5] = {1, ctx, V, chunks, first};
    fwrite("_lpf32__", 1, 8, o);
    fwrite(hdr, sizeof hdr, 1, o);
    fwrite(toks, sizeof *toks, need, o);
    float *logits = malloc((size_t)(ctx - first) * V * sizeof(float));
    for (int c = 0; c < chunks; c++) {
        strata_session_truncate(s, 0, 0);
        if (has_bos) {
            toks[(size_t)c * ctx] = bos[0]; /* the file's header keeps the text's token, as llama-perplexity's */
        }
        if (strata_session_eval(s, 0, toks + (size_t)c * ctx, (size_t)ctx, (size_t)first, logits) != 0) {
            fprintf(stderr, "session_test: eval of chunk %d failed\n", c);
            return 1;
        }
        fwrite(logits, sizeof(float), (size_t)scored * V, o); /* positions first .. ctx-2 */
        fprintf(stderr, "session_test: chunk %d of %d\n", c + 1, chunks);
    }
    int bad = fclose(o) != 0;
    free(logits);
    free(toks);
    strata_session_close(s);
    return bad;
}

int main(int argc, char **argv) {
    if (argc >= 9 && strcmp(argv[1], "logits") == 0) {
        return cmd_logits(argv);
    }
    if (argc >= 3 && strcmp(argv[1], "check") == 0) {
        return cmd_check(argv[2]);
    }
    if (argc >= 4 && strcmp(argv[1], "gen") == 0) {
        return cmd_gen(argc, argv);
    }
    fprintf(stderr, "usage: session_test check MODEL | gen MODEL N [--kv F] [--threads T] PROMPT | logits MODEL TOKENS CTX "
                    "CHUNKS KV THREADS OUT\n");
    return 2;
}

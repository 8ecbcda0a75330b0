/* driver.c — strata-ref-run, a tiny command around the engine ABI (no JVM needed):
 *   strata-ref-run gguf DIR [SHARDS]     write the seed-geometry model (metadata only), print the first shard
 *   strata-ref-run run ENGINE-FLAGS...   run strata_engine_main, lines to stdout; SIGINT/SIGTERM → cancel
 *   strata-ref-run check ENGINE-FLAGS... strata_engine_check (ABI 2): the startup rules and `plan:` lines, no run
 *   strata-ref-run flows [--quick] DIR   the main flows with their expected exit codes and lines (the ASan run)
 *   strata-ref-run generate N PROMPT ENGINE-FLAGS...   greedy generation through the session API (ABI 3): the text
 *                                        alone on stdout (raw bytes), the engine's lines on stderr; the reference
 *                                        strata-launch --prompt --temp 0 is compared with
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gguf_write.h"
#include "strata_engine.h"

static void print_line(void *user, int level, const char *line) {
    (void)user;
    (void)level;
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void on_signal(int sig) {
    (void)sig;
    strata_engine_cancel(); /* async-signal-safe by contract */
}

static int cmd_run(int argc, char **argv) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* argv[0] of the engine is a program name, as for main() */
    argv[0] = "strata-ref";
    return strata_engine_main(argc, (const char *const *)argv, print_line, NULL);
}

static void stderr_line(void *user, int level, const char *line) {
    (void)user;
    (void)level;
    fputs(line, stderr);
    fputc('\n', stderr);
}

/* The loop of strata-launch --prompt (launcher Generation.java), greedy: sample; stop at EOG; print; stop after N
 * tokens or at the context's end; feed the token back. */
static int cmd_generate(int argc, char **argv) {
    long n_predict = atol(argv[2]);
    const char *prompt = argv[3];
    argv[3] = "strata-ref"; /* the engine's argv: a program name, then the flags */
    int rc = 0;
    strata_session *s = strata_session_open(argc - 3, (const char *const *)(argv + 3), stderr_line, NULL, &rc);
    if (s == NULL) {
        return rc;
    }
    size_t len = strlen(prompt);
    int32_t n_vocab = strata_session_n_vocab(s), n_ctx = strata_session_n_ctx(s);
    int64_t n = strata_session_tokenize(s, prompt, len, 3, NULL, 0);
    int32_t *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
    float *logits = malloc((size_t)n_vocab * sizeof *logits);
    char piece[256];
    if (ids == NULL || logits == NULL || n <= 0 || n >= n_ctx) {
        rc = 2;
        goto done;
    }
    strata_session_tokenize(s, prompt, len, 3, ids, (size_t)n);
    rc = strata_session_eval(s, 0, ids, (size_t)n, (size_t)n - 1, logits);
    for (long made = 0; rc == 0 && made < n_predict;) {
        int32_t tok = strata_session_sample(s, logits, 0.0f, 0, 1.0f, NULL);
        if (strata_session_is_eog(s, tok)) {
            break;
        }
        int64_t m = strata_session_token_piece(s, tok, 1, piece, sizeof piece);
        fwrite(piece, 1, (size_t)(m < (int64_t)sizeof piece ? m : (int64_t)sizeof piece), stdout);
        fflush(stdout);
        if (++made >= n_predict || strata_session_n_past(s, 0) >= n_ctx) {
            break;
        }
        rc = strata_session_eval(s, 0, &tok, 1, 0, logits);
    }
done:
    free(ids);
    free(logits);
    strata_session_close(s);
    return rc;
}

/* ---- flows ---- */

typedef struct {
    char lines[64][1024];
    int n;
    volatile int saw_kv;
} capture;

static void capture_line(void *user, int level, const char *line) {
    capture *c = user;
    (void)level;
    if (c->n < 64) {
        snprintf(c->lines[c->n++], sizeof c->lines[0], "%s", line);
    }
    if (strncmp(line, "prefill:", 8) == 0 || strncmp(line, "kv: format=", 11) == 0) {
        __atomic_store_n(&c->saw_kv, 1, __ATOMIC_SEQ_CST);
    }
}

static int has_line(const capture *c, const char *prefix) {
    for (int i = 0; i < c->n; i++) {
        if (strncmp(c->lines[i], prefix, strlen(prefix)) == 0) {
            return 1;
        }
    }
    return 0;
}

static int has_text(const capture *c, const char *text) {
    for (int i = 0; i < c->n; i++) {
        if (strstr(c->lines[i], text) != NULL) {
            return 1;
        }
    }
    return 0;
}

static int failures = 0, passes = 0;

static void check(int ok, const char *flow, const char *what, const capture *c) {
    if (ok) {
        passes++;
        return;
    }
    failures++;
    fprintf(stderr, "FAIL %s: %s\n", flow, what);
    for (int i = 0; c != NULL && i < c->n; i++) {
        fprintf(stderr, "  | %s\n", c->lines[i]);
    }
}

static int run_engine(capture *c, const char **args) {
    const char *argv[32];
    int argc = 0;
    argv[argc++] = "strata-ref";
    while (*args != NULL && argc < 31) {
        argv[argc++] = *args++;
    }
    argv[argc] = NULL;
    memset(c, 0, sizeof *c);
    return strata_engine_main(argc, argv, capture_line, c);
}

typedef struct {
    const char **args;
    capture c;
    int rc;
    int done;
} bg_run;

static void *bg(void *arg) {
    bg_run *b = arg;
    b->rc = run_engine(&b->c, b->args);
    __atomic_store_n(&b->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static int cmd_flows(int argc, char **argv) {
    int quick = 0;
    int i = 2;
    if (i < argc && strcmp(argv[i], "--quick") == 0) {
        quick = 1;
        i++;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: strata-ref-run flows [--quick] DIR\n");
        return 2;
    }
    const char *dir = argv[i];
    mkdir(dir, 0755);
    /* the runs: a tiny qwen3moe strata-ref computes (seeded weights), in 2 shards and in one; the seed geometry
     * (qwen3next, which it refuses) for the refusals that come before the architecture is read */
    char first[1024], single[1024], seed[1024];
    gguf_tiny tm = gguf_tiny_model("qwen3moe", 2);
    gguf_tiny tm1 = gguf_tiny_model("qwen3moe", 1);
    gguf_model sm = gguf_seed_model(1);
    sm.sized = 1;
    if (gguf_write_tiny(dir, "tiny", &tm, first, sizeof first) || gguf_write_tiny(dir, "one", &tm1, single, sizeof single) ||
        gguf_write_model(dir, "seed", &sm, seed, sizeof seed)) {
        fprintf(stderr, "cannot write the test models under %s\n", dir);
        return 2;
    }
    const char *ctx = quick ? "1024" : "4096";
    const char *prompt = quick ? "256" : "2048";
    const char *npred = quick ? "2" : "8";
    capture c;
    char want[256];
    unsigned long cells = strtoul(ctx, NULL, 10) + 128;

    const char *kinds[] = {"int8", "q4_0", "fp16", NULL};
    for (int k = 0; kinds[k]; k++) {
        const char *args[] = {"--model", first, "--ctx", ctx, "--kv", kinds[k], "--prompt-tokens", prompt,
                              "--n-predict", npred, "--threads", "2", NULL};
        int rc = run_engine(&c, args);
        check(rc == 0, kinds[k], "exit 0", &c);
        /* strata-ref's pools are in the format asked: fp16 too (2 heads x 256 x 2 B x K and V) */
        unsigned long cb = k == 1 ? 576 : k == 2 ? 2048 : 1056;
        snprintf(want, sizeof want, "kv: format=%s cell_bytes=%lu layers=2 cells=%lu bytes=%lu", kinds[k], cb, cells,
                 cells * cb * 2);
        check(has_line(&c, want), kinds[k], want, &c);
        check(has_line(&c, "decode: tokens="), kinds[k], "a decode line", &c);
        check(has_line(&c, "checksum: "), kinds[k], "a checksum line", &c);
        check(has_line(&c, "alloc: item=arena bytes="), kinds[k], "the arena's alloc line", &c);
        check(has_line(&c, "arena: mode=stream slots="), kinds[k], "the arena's counters", &c);
        check(has_line(&c, "memory: peak_rss_bytes="), kinds[k], "the peak RSS line", &c);
        check(has_line(&c, "alloc: item=weights bytes="), kinds[k], "the weights' alloc line", &c);
        if (k == 2) {
            check(!has_line(&c, "kv: --kv fp16 runs on the int8 pools"), "fp16", "no Metal fp16 note", &c);
        }
    }
    {
        const char *args[] = {"--model", single, "--ctx", "512", "--prompt-tokens", "64", "--n-predict", "2", NULL};
        check(run_engine(&c, args) == 0, "single shard, no --kv", "exit 0", &c);
        check(has_line(&c, "kv: format=int8 cell_bytes=1056 layers=2 cells=640 "), "single shard", "int8 default", &c);
    }
    {
        const char *args[] = {"--model", single, "--ctx", "512", "--prompt-tokens", "16", "--n-predict", "2",
                              "--experts", "resident", NULL};
        check(run_engine(&c, args) == 0, "resident experts", "exit 0", &c);
        check(has_line(&c, "arena: mode=resident "), "resident experts", "resident counters", &c);
        /* a budget too small for one token's experts: the plan's refusal, before anything is allocated */
        const char *args2[] = {"--model", single, "--ctx", "512", "--mem-budget-mb", "1", NULL};
        check(run_engine(&c, args2) == 3, "tiny budget", "exit 3", &c);
        check(has_line(&c, "stream: the expert arena cannot hold one token's experts (4 slots, "), "tiny budget",
              "the stream refusal", &c);
        check(!has_line(&c, "alloc: "), "tiny budget", "no alloc line", &c);
    }
    {
        /* an architecture strata-ref does not compute: one line naming it and what it computes, exit 3, in main
         * and in the check (ABI 2) alike */
        const char *args[] = {"--model", seed, "--ctx", "512", "--prompt-tokens", "8", "--n-predict", "1", NULL};
        char arch[1200];
        snprintf(arch, sizeof arch,
                 "model: %s: architecture qwen3next is not one strata-ref computes (it computes qwen3, qwen3moe, "
                 "qwen2, llama)", seed);
        check(run_engine(&c, args) == 3 && has_line(&c, arch), "seed geometry", "refused, exit 3", &c);
        check(!has_line(&c, "alloc: "), "seed geometry", "no alloc line", &c);
        const char *cargv[] = {"strata-ref", "--model", seed, NULL};
        memset(&c, 0, sizeof c);
        check(strata_engine_check(3, cargv, capture_line, &c) == 3 && has_line(&c, arch), "seed geometry (check)",
              "refused, exit 3", &c);
    }
    {
        const char *args[] = {"--model", first, "--kv", "k8v4", NULL};
        check(run_engine(&c, args) == 3, "k8v4", "exit 3", &c);
        check(has_line(&c, "metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or q4_0)"), "k8v4",
              "the refusal", &c);
    }
    setenv("STRATA_KV_ROT", "1", 1);
    {
        const char *args[] = {"--model", first, "--kv", "int8", NULL};
        check(run_engine(&c, args) == 3, "KV_ROT+int8", "exit 3", &c);
        check(has_line(&c, "metal window: STRATA_KV_ROT=1 with --kv int8 is refused"), "KV_ROT+int8", "the refusal", &c);
        const char *args2[] = {"--model", first, "--kv", "q4_0", "--ctx", "256", "--prompt-tokens", "16",
                               "--n-predict", "1", NULL};
        check(run_engine(&c, args2) == 0, "KV_ROT+q4_0", "exit 0 (a no-op)", &c);
    }
    unsetenv("STRATA_KV_ROT");
    {
        const char *bad[][8] = {
            {"--model", first, "--ctx", "abc", NULL},
            {"--model", first, "--bogus", NULL},
            {"--model", first, "--kv", "q8", NULL},
            {"--model", first, "--ctx", "0", NULL},
            {"--model", first, "--kv-resident", NULL},
            {"--ctx", "4096", NULL},
            {"--model", first, "--ctx", "256", "--prompt-tokens", "400", NULL},
        };
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            int rc = run_engine(&c, bad[b]);
            check(rc == 2 && c.n >= 2 && strncmp(c.lines[c.n - 1], "flags: ", 7) == 0, "bad flags", bad[b][2] ? bad[b][2] : bad[b][0], &c);
        }
    }
    {
        char path[1100];
        snprintf(path, sizeof path, "%s/notes.txt", dir);
        FILE *f = fopen(path, "w");
        fputs("this is not a model\n", f);
        fclose(f);
        const char *args[] = {"--model", path, NULL};
        check(run_engine(&c, args) == 2 && has_line(&c, "model: "), "text file as model", "exit 2 + model line", &c);
        snprintf(path, sizeof path, "%s/absent.gguf", dir);
        const char *args2[] = {"--model", path, NULL};
        check(run_engine(&c, args2) == 2 && has_line(&c, "model: "), "missing model", "exit 2", &c);
        /* a truncated first shard */
        char trunc[1100];
        snprintf(trunc, sizeof trunc, "%s/trunc.gguf", dir);
        FILE *in = fopen(single, "rb");
        FILE *out = fopen(trunc, "wb");
        char buf[300];
        size_t got = fread(buf, 1, sizeof buf, in);
        fwrite(buf, 1, got, out);
        fclose(in);
        fclose(out);
        const char *args3[] = {"--model", trunc, NULL};
        check(run_engine(&c, args3) == 2 && has_line(&c, "model: "), "truncated GGUF", "exit 2", &c);
        /* a split set with a missing shard */
        gguf_model m3 = gguf_seed_model(3);
        m3.sized = 1;
        char first3[1024], gone[1100];
        gguf_write_model(dir, "holed", &m3, first3, sizeof first3);
        snprintf(gone, sizeof gone, "%s/holed-00002-of-00003.gguf", dir);
        remove(gone);
        const char *args4[] = {"--model", first3, NULL};
        check(run_engine(&c, args4) == 2 && has_line(&c, "model: "), "missing shard", "exit 2", &c);
        /* a shard cut inside its expert data: named, before any run */
        gguf_model m5 = gguf_seed_model(1);
        char cut[1024];
        gguf_write_model(dir, "cut", &m5, cut, sizeof cut); /* not sized: the data is missing */
        const char *args5[] = {"--model", cut, "--ctx", "512", "--prompt-tokens", "8", "--n-predict", "1", NULL};
        check(run_engine(&c, args5) == 2 && has_line(&c, "model: ") && has_text(&c, "is truncated"),
              "expert data past the end", "exit 2", &c);
    }
    {
        /* cancel from another thread during a long run */
        const char *args[] = {"--model", first, "--ctx", "65536", "--prompt-tokens", "65408", "--n-predict", "128",
                              "--threads", "2", NULL};
        bg_run b;
        memset(&b, 0, sizeof b);
        b.args = args;
        pthread_t t;
        pthread_create(&t, NULL, bg, &b);
        struct timespec ms = {0, 1000000};
        for (int w = 0; w < 60000 && !__atomic_load_n(&b.c.saw_kv, __ATOMIC_SEQ_CST); w++) {
            nanosleep(&ms, NULL);
        }
        /* a cancel before the prompt's evaluation starts is not kept (strata_session_eval clears it), so it is
         * repeated until the run returns */
        for (int w = 0; w < 60000 && !__atomic_load_n(&b.done, __ATOMIC_SEQ_CST); w++) {
            strata_engine_cancel();
            nanosleep(&ms, NULL);
        }
        pthread_join(t, NULL);
        check(b.rc == 130, "cancel", "exit 130", &b.c);
    }
    printf("flows: %d checks passed, %d failed\n", passes, failures);
    return failures == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "gguf") == 0) {
        int shards = argc >= 4 ? atoi(argv[3]) : 4;
        char first[1024];
        gguf_model m = gguf_seed_model(shards);
        m.sized = 1;
        mkdir(argv[2], 0755);
        if (shards < 1 || gguf_write_model(argv[2], "seed", &m, first, sizeof first) != 0) {
            fprintf(stderr, "cannot write the model under %s\n", argv[2]);
            return 2;
        }
        puts(first);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "run") == 0) {
        return cmd_run(argc - 1, argv + 1);
    }
    if (argc >= 2 && strcmp(argv[1], "check") == 0) {
        argv[1] = "strata-ref"; /* strata_engine_check: the startup rules and the plan: lines, nothing run */
        return strata_engine_check(argc - 1, (const char *const *)(argv + 1), print_line, NULL);
    }
    if (argc >= 2 && strcmp(argv[1], "flows") == 0) {
        return cmd_flows(argc, argv);
    }
    if (argc >= 6 && strcmp(argv[1], "generate") == 0) {
        return cmd_generate(argc, argv);
    }
    fprintf(stderr, "usage: strata-ref-run gguf DIR [SHARDS] | run ENGINE-FLAGS... | check ENGINE-FLAGS... | flows [--quick] DIR | generate N PROMPT ENGINE-FLAGS...\n");
    return 2;
}

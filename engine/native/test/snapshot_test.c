/* snapshot_test.c — session snapshots (src/snapshot.c, docs/ENGINE-ABI.md "Session snapshots"):
 *   snapshot_test check DENSE.gguf MOE.gguf WORKDIR [--quick]
 *       for each model and each pool format (int8, q4_0, fp16; --quick: int8 and q4_0 on the dense model):
 *       an uninterrupted greedy run of prompt + N1 + N2 tokens in this process; then a new process runs prompt + N1
 *       and saves, and another new process loads and continues N2 tokens: its tokens must equal the uninterrupted
 *       run's, one for one. The q4_0 payload must be 576/1,056 of the int8 one for the same conversation. Then every
 *       refusal class, its exact line and code, and that a refused load leaves the sequence as it was.
 *   snapshot_test fuzz MODEL.gguf WORKDIR SECONDS [SEED]
 *       hostile snapshot files (flipped bytes with and without a recomputed checksum, truncation at every byte of the
 *       header and the token ids, huge counts): every answer is 0, 2 or 3 and one line, a refused load leaves the
 *       sequence as it was, the load allocates its one fixed buffer and nothing from the file's counts (run under
 *       ASan+UBSan by asan-quick). Time-bounded.
 *   snapshot_test save MODEL KV CTX FILE N1 / resume MODEL KV CTX FILE N2 OUT   the two child processes
 * Links the engine's objects (it patches files with the hidden strata_snapshot_sha256). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "strata_engine.h"
#include "testkit.h"

void strata_snapshot_sha256(const void *data, size_t n, uint8_t out[32]);
extern size_t strata_snapshot_last_alloc;


static const char PROMPT[] = "The quick brown fox jumps over the lazy dog. Once upon a time";
#define N1 6
#define N2 10
#define THREADS "2"

static char last_err[1024];
static int n_err;
static void on_line(void *user, int level, const char *line) {
    (void)user;
    if (level >= 2) {
        snprintf(last_err, sizeof last_err, "%s", line);
        n_err++;
    } else if (strncmp(line, "snapshot: model identity=", 25) == 0) {
        printf("  %s\n", line); /* what identifying the model cost */
    }
}

/* main's workload flags (--prompt-tokens, --n-predict) must fit the pool, defaults (512 + 64) included: the sessions
 * here run contexts as small as 8, so they ask for the smallest workload */
static strata_session *open_model(const char *model, const char *kv, const char *ctx) {
    const char *argv[] = {"strata-ref", "--model", model, "--ctx", ctx, "--threads", THREADS, "--kv", kv,
                          "--prompt-tokens", "1", "--n-predict", "0"};
    int rc = -1;
    strata_session *s = strata_session_open((int)(sizeof argv / sizeof *argv), argv, on_line, NULL, &rc);
    if (s == NULL) {
        fprintf(stderr, "snapshot_test: open %s --kv %s failed with code %d: %s\n", model, kv, rc, last_err);
    }
    return s;
}

/* prompt, then n greedy tokens (each evaluated), ids into out (may be NULL when n = 0). 0 or -1. */
static int run(strata_session *s, int n, int32_t *out) {
    int32_t toks[256];
    int64_t np = strata_session_tokenize(s, PROMPT, strlen(PROMPT), 1, toks, 256);
    float *logits = malloc((size_t)strata_session_n_vocab(s) * sizeof *logits);
    int rc = np > 0 && np <= 256 && logits != NULL ? 0 : -1;
    if (rc == 0) {
        rc = strata_session_eval(s, 0, toks, (size_t)np, (size_t)np - 1, logits);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        out[i] = strata_session_sample(s, logits, 0.0f, 0, 1.0f, NULL);
        rc = strata_session_eval(s, 0, &out[i], 1, 0, logits);
    }
    free(logits);
    return rc == 0 ? 0 : -1;
}

/* After a load: the last position again for its logits (an eval of the same token at the same position over the same
 * cells), then n greedy tokens. */
static int resume(strata_session *s, int n, int32_t *out) {
    int32_t n_past = strata_session_n_past(s, 0), last;
    int32_t *all = malloc(((size_t)n_past + 1) * sizeof *all);
    float *logits = malloc((size_t)strata_session_n_vocab(s) * sizeof *logits);
    int rc = n_past > 0 && all != NULL && logits != NULL &&
                     strata_session_tokens(s, 0, all, (size_t)n_past) == n_past
                 ? 0
                 : -1;
    if (rc == 0) {
        last = all[n_past - 1];
        rc = strata_session_truncate(s, 0, n_past - 1);
    }
    if (rc == 0) {
        rc = strata_session_eval(s, 0, &last, 1, 0, logits);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        out[i] = strata_session_sample(s, logits, 0.0f, 0, 1.0f, NULL);
        rc = strata_session_eval(s, 0, &out[i], 1, 0, logits);
    }
    free(all);
    free(logits);
    return rc == 0 ? 0 : -1;
}

static int child_save(const char *model, const char *kv, const char *ctx, const char *file, int n1) {
    strata_session *s = open_model(model, kv, ctx);
    int32_t ids[64];
    int rc = s != NULL && n1 <= 64 && run(s, n1, ids) == 0 ? strata_session_save(s, 0, file) : 1;
    strata_session_close(s);
    return rc;
}

static int child_resume(const char *model, const char *kv, const char *ctx, const char *file, int n2,
                        const char *out) {
    strata_session *s = open_model(model, kv, ctx);
    int32_t ids[64];
    int rc = s != NULL && n2 <= 64 ? strata_session_load(s, 0, file) : 1;
    if (rc == 0) {
        rc = resume(s, n2, ids) == 0 ? 0 : 1;
    }
    FILE *f = rc == 0 ? fopen(out, "w") : NULL;
    for (int i = 0; f != NULL && i < n2; i++) {
        fprintf(f, "%d\n", ids[i]);
    }
    if (f != NULL) {
        fclose(f);
    }
    strata_session_close(s);
    return rc;
}

static const char *self;

/* Runs this program with args in a new process; its exit code. */
static int spawn(const char *const *args) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execv(self, (char *const *)args);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static long file_size(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static unsigned char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    long sz = file_size(p);
    unsigned char *b = f != NULL && sz >= 0 ? malloc((size_t)sz + 1) : NULL;
    *n = b != NULL ? fread(b, 1, (size_t)sz, f) : 0;
    if (f != NULL) {
        fclose(f);
    }
    return b;
}

static void spit(const char *p, const unsigned char *b, size_t n) {
    FILE *f = fopen(p, "wb");
    if (f != NULL) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

/* The checksum again after a patch. */
static void reseal(unsigned char *b, size_t n) {
    if (n >= 32) {
        strata_snapshot_sha256(b, n - 32, b + n - 32);
    }
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

/* The uninterrupted run against save → new process → load → continue. Returns the payload bytes, or -1. */
static long round_trip(const char *model, const char *kv, const char *dir, const char *name) {
    char file[4096], out[4096];
    snprintf(file, sizeof file, "%s/%s-%s.snap", dir, name, kv);
    snprintf(out, sizeof out, "%s/%s-%s.ids", dir, name, kv);
    strata_session *s = open_model(model, kv, "256");
    int32_t ref[N1 + N2];
    int ok = s != NULL && run(s, N1 + N2, ref) == 0;
    int32_t prompt_n = s != NULL ? strata_session_n_past(s, 0) - (N1 + N2) : 0;
    strata_session_close(s);
    CHECK(ok, "%s %s: the uninterrupted run failed", name, kv);
    if (!ok) {
        return -1;
    }
    char n1[16], n2[16];
    snprintf(n1, sizeof n1, "%d", N1);
    snprintf(n2, sizeof n2, "%d", N2);
    const char *sa[] = {self, "save", model, kv, "256", file, n1, NULL};
    const char *ra[] = {self, "resume", model, kv, "256", file, n2, out, NULL};
    int rc1 = spawn(sa), rc2 = rc1 == 0 ? spawn(ra) : -1;
    CHECK(rc1 == 0 && rc2 == 0, "%s %s: save exited %d, resume %d", name, kv, rc1, rc2);
    FILE *f = fopen(out, "r");
    int same = f != NULL, got = 0;
    for (int i = 0; f != NULL && i < N2; i++) {
        int v;
        if (fscanf(f, "%d", &v) != 1) {
            same = 0;
            break;
        }
        got++;
        if (v != ref[N1 + i]) {
            same = 0;
            printf("  %s %s: token %d after the load: %d, uninterrupted %d\n", name, kv, i, v, ref[N1 + i]);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    CHECK(same && got == N2, "%s %s: the continuation after save/load differs from the uninterrupted run", name, kv);
    long cells = prompt_n + N1;
    long size = file_size(file);
    long payload = size - 128 - 4 * cells - 32;
    printf("round trip %s --kv %s: %d tokens after the load equal the uninterrupted run's: %s; file %ld bytes, "
           "%ld cells, payload %ld\n",
           name, kv, N2, same ? "yes" : "NO", size, cells, payload);
    return payload;
}

static void expect(int rc, int code, const char *line) {
    CHECK(rc == code, "code %d, expected %d (line: %s)", rc, code, last_err);
    CHECK(strcmp(last_err, line) == 0, "line\n    '%s'\n  expected\n    '%s'", last_err, line);
}

static void expect_prefix(int rc, int code, const char *prefix) {
    CHECK(rc == code, "code %d, expected %d (line: %s)", rc, code, last_err);
    CHECK(strncmp(last_err, prefix, strlen(prefix)) == 0, "line\n    '%s'\n  expected to start\n    '%s'", last_err,
          prefix);
}

/* A sequence filled past --ctx (up to the pools' ctx + 128 cells) is saved and loads into a session of the same --ctx,
 * every id as it was, and the next eval goes on from there; one of a smaller --ctx whose pools cannot hold it refuses
 * it, naming the --ctx that would. */
static void past_ctx(const char *dense, const char *dir) {
    enum { HELD = 150 }; /* --ctx 64: 150 of the 192 cells, 86 past --ctx */
    char f[4096], want[8192];
    snprintf(f, sizeof f, "%s/past-ctx.snap", dir);
    int32_t ids[HELD], back[HELD];
    float *logits = NULL;
    strata_session *s = open_model(dense, "int8", "64");
    if (s == NULL) {
        CHECK(0, "open --ctx 64 failed");
        return;
    }
    logits = malloc((size_t)strata_session_n_vocab(s) * sizeof *logits);
    for (int i = 0; i < HELD; i++) {
        ids[i] = (int32_t)(1 + (i * 37) % (strata_session_n_vocab(s) - 1));
    }
    CHECK(logits != NULL && strata_session_eval(s, 0, ids, HELD, HELD - 1, logits) == 0 &&
              strata_session_n_past(s, 0) == HELD,
          "eval of %d tokens into --ctx 64: %s", HELD, last_err);
    CHECK(strata_session_save(s, 0, f) == 0, "save past --ctx: %s", last_err);
    strata_session_close(s);
    /* its own --ctx, and the smallest the line names (22 + 128 = 150 cells) */
    const char *fits[] = {"64", "22"};
    for (int k = 0; k < 2; k++) {
        s = open_model(dense, "int8", fits[k]);
        if (s == NULL) {
            continue;
        }
        int rc = strata_session_load(s, 0, f);
        CHECK(rc == 0 && strata_session_n_past(s, 0) == HELD, "a %d-cell save does not load into --ctx %s (rc %d): %s",
              HELD, fits[k], rc, last_err);
        CHECK(strata_session_tokens(s, 0, back, HELD) == HELD && memcmp(ids, back, sizeof ids) == 0,
              "the loaded ids differ from the saved ones (--ctx %s)", fits[k]);
        if (k == 0) {
            CHECK(logits != NULL && strata_session_eval(s, 0, ids, 1, 0, logits) == 0 &&
                      strata_session_n_past(s, 0) == HELD + 1,
                  "the eval after the load: %s", last_err);
        }
        strata_session_close(s);
    }
    /* --ctx 21: 149 cells do not hold 150 */
    s = open_model(dense, "int8", "21");
    if (s != NULL) {
        snprintf(want, sizeof want, "snapshot: %s holds %d cells, more than this session's pools of 149 (--ctx 21 + "
                 "128; --ctx 22 or more loads it)", f, HELD);
        expect(strata_session_load(s, 0, f), 3, want);
        CHECK(strata_session_n_past(s, 0) == 0, "a refused load changed the sequence");
        strata_session_close(s);
    }
    free(logits);
    printf("past --ctx: %d cells saved from --ctx 64 load into --ctx 64 (and go on) and 22; --ctx 21 refuses them\n",
           HELD);
}

/* b (n bytes) with the u32 (width 4) or u64 (width 8) at byte `at` set to v and, when seal, its checksum redone, written
 * to dir/name through the scratch c; the path goes to p. */
static void patched(const unsigned char *b, size_t n, unsigned char *c, size_t at, int width, uint64_t v, int seal,
                    const char *dir, const char *name, char *p, size_t cap) {
    memcpy(c, b, n);
    if (width == 4) {
        put32(c + at, (uint32_t)v);
    } else {
        put64(c + at, v);
    }
    if (seal) {
        reseal(c, n);
    }
    snprintf(p, cap, "%s/%s", dir, name);
    spit(p, c, n);
}

static void refusals(const char *dense, const char *moe, const char *dir) {
    char f8[1024], f4[1024], p[1024];
    snprintf(f8, sizeof f8, "%s/dense-int8.snap", dir);
    snprintf(f4, sizeof f4, "%s/dense-q4_0.snap", dir);
    size_t n = 0;
    unsigned char *b = slurp(f8, &n);
    CHECK(b != NULL && n > 200, "no int8 snapshot to patch");
    if (b == NULL || n <= 200) {
        free(b);
        return;
    }
    uint32_t cells;
    memcpy(&cells, b + 100, 4);
    char want[4096];

    /* a session holding a conversation: every refused load must leave it as it was */
    strata_session *s = open_model(dense, "int8", "256");
    if (s == NULL) {
        fails++;
        free(b);
        return;
    }
    int32_t ids[4];
    run(s, 2, ids);
    int32_t held = strata_session_n_past(s, 0);
    int32_t before[256], after[256];
    strata_session_tokens(s, 0, before, 256);

    /* another KV format: q4_0 into int8, and int8 with the +16 rotation tag (the PC engine's STRATA_KV_ROT=1) */
    snprintf(want, sizeof want, "snapshot: %s holds KV format q4_0 (tag 2); this session's pools are int8 (tag 1)", f4);
    expect(strata_session_load(s, 0, f4), 3, want);
    unsigned char *c = malloc(n);
    patched(b, n, c, 12, 4, 17, 1, dir, "rot.snap", p, sizeof p);
    snprintf(want, sizeof want, "snapshot: %s holds KV format int8+rot (tag 17); this session's pools are int8 (tag 1)",
             p);
    expect(strata_session_load(s, 0, p), 3, want);
    /* a newer format version (refused before the checksum: a newer layout may seal differently) */
    patched(b, n, c, 8, 4, 2, 0, dir, "v2.snap", p, sizeof p);
    snprintf(want, sizeof want, "snapshot: %s is format version 2, newer than the version 1 this engine reads", p);
    expect(strata_session_load(s, 0, p), 3, want);
    /* recurrent state (a hybrid model's): strata-ref runs none */
    patched(b, n, c, 104, 8, 4096, 1, dir, "state.snap", p, sizeof p);
    snprintf(want, sizeof want, "snapshot: %s holds 4096 bytes of recurrent state; strata-ref runs no recurrent layer",
             p);
    expect(strata_session_load(s, 0, p), 3, want);
    /* truncated: in the payload, and inside the header */
    snprintf(p, sizeof p, "%s/cut.snap", dir);
    spit(p, b, n - 100);
    snprintf(want, sizeof want, "snapshot: %s is truncated (%zu bytes, its header describes %zu)", p, n - 100, n);
    expect(strata_session_load(s, 0, p), 2, want);
    spit(p, b, 50);
    snprintf(want, sizeof want, "snapshot: %s is truncated (50 bytes, before the end of its header)", p);
    expect(strata_session_load(s, 0, p), 2, want);
    /* corrupted: one flipped bit in the cells, and one in the model identity */
    memcpy(c, b, n);
    c[n - 200] ^= 0x10;
    snprintf(p, sizeof p, "%s/flip.snap", dir);
    spit(p, c, n);
    snprintf(want, sizeof want, "snapshot: %s is corrupted (its checksum does not match its contents)", p);
    expect(strata_session_load(s, 0, p), 2, want);
    memcpy(c, b, n);
    c[20] ^= 0x01;
    spit(p, c, n);
    expect(strata_session_load(s, 0, p), 2, want);
    /* not a snapshot at all */
    snprintf(want, sizeof want, "snapshot: %s is not a Strata session snapshot", dense);
    expect(strata_session_load(s, 0, dense), 2, want);
    snprintf(p, sizeof p, "%s/missing.snap", dir);
    snprintf(want, sizeof want, "snapshot: cannot read %s (No such file or directory)", p);
    expect(strata_session_load(s, 0, p), 2, want);
    CHECK(strata_session_n_past(s, 0) == held, "a refused load changed the sequence: %d positions, was %d",
          strata_session_n_past(s, 0), held);
    strata_session_tokens(s, 0, after, 256);
    CHECK(memcmp(before, after, (size_t)held * 4) == 0, "a refused load changed the sequence's tokens");
    /* and the good file still loads into it */
    CHECK(strata_session_load(s, 0, f8) == 0 && strata_session_n_past(s, 0) == (int32_t)cells,
          "the int8 snapshot does not load after the refusals: %s", last_err);
    /* a bad sequence */
    expect_prefix(strata_session_save(s, 1, p), 2, "snapshot: sequence 1 does not exist");
    expect_prefix(strata_session_load(s, -1, f8), 2, "snapshot: sequence -1 does not exist");
    /* a save that cannot be written: no temp file is left behind */
    snprintf(p, sizeof p, "%s/no-such-folder/x.snap", dir);
    snprintf(want, sizeof want, "snapshot: cannot write %s (No such file or directory)", p);
    expect(strata_session_save(s, 0, p), 2, want);
    strata_session_close(s);

    /* another model: the dense model's snapshot into the MoE model's session */
    s = open_model(moe, "int8", "256");
    if (s != NULL) {
        int rc = strata_session_load(s, 0, f8);
        expect_prefix(rc, 3, "snapshot: ");
        CHECK(strstr(last_err, " was saved from another model (identity ") != NULL, "line: %s", last_err);
        strata_session_close(s);
    }
    /* a context smaller than the snapshot's cells loads it while its pools (ctx + 128) hold them */
    s = open_model(dense, "int8", "8");
    if (s != NULL) {
        CHECK(cells <= 8 + 128 && strata_session_load(s, 0, f8) == 0 && strata_session_n_past(s, 0) == (int32_t)cells,
              "the %u-cell snapshot does not load into --ctx 8 (136 cells): %s", cells, last_err);
        strata_session_close(s);
    }
    past_ctx(dense, dir);
    /* fp16 pools refuse an int8 snapshot too */
    s = open_model(dense, "fp16", "256");
    if (s != NULL) {
        snprintf(want, sizeof want, "snapshot: %s holds KV format int8 (tag 1); this session's pools are fp16 (tag 0)",
                 f8);
        expect(strata_session_load(s, 0, f8), 3, want);
        strata_session_close(s);
    }
    free(c);
    free(b);
    printf("refusals: another model, another KV format (q4_0/int8/fp16, +16 rotation), a smaller context, a newer "
           "version, recurrent state, truncated, corrupted, not a snapshot, unreadable, unwritable: checked\n");
}

static int check(const char *dense, const char *moe, const char *dir, int quick) {
    if (access(dense, R_OK) != 0 || access(moe, R_OK) != 0) {
        printf("snapshot_test: skipped (no %s or %s)\n", dense, moe);
        return 0;
    }
    mkdir(dir, 0700);
    const char *kvs[] = {"int8", "q4_0", "fp16"};
    const char *models[] = {dense, moe};
    const char *names[] = {"dense", "moe"};
    for (int m = 0; m < (quick ? 1 : 2); m++) {
        long pay[3] = {0};
        for (int k = 0; k < (quick ? 2 : 3); k++) {
            pay[k] = round_trip(models[m], kvs[k], dir, names[m]);
        }
        CHECK(pay[0] > 0 && pay[1] * 1056 == pay[0] * 576, "%s: q4_0 payload %ld is not 576/1056 of int8's %ld",
              names[m], pay[1], pay[0]);
        printf("%s: q4_0 payload %ld / int8 payload %ld = %.6f (576/1056 = %.6f)%s\n", names[m], pay[1], pay[0],
               pay[0] > 0 ? (double)pay[1] / (double)pay[0] : 0.0, 576.0 / 1056.0,
               quick ? "" : "");
        if (!quick) {
            CHECK(pay[2] * 1056 == pay[0] * 2048, "%s: fp16 payload %ld is not 2048/1056 of int8's %ld", names[m],
                  pay[2], pay[0]);
        }
    }
    refusals(dense, moe, dir);
    printf("snapshot_test: %s\n", fails == 0 ? "ok" : "FAILED");
    return fails == 0 ? 0 : 1;
}


static int fuzz(const char *model, const char *dir, double seconds, uint64_t seed) {
    if (access(model, R_OK) != 0) {
        printf("snapshot_test fuzz: skipped (no %s)\n", model);
        return 0;
    }
    mkdir(dir, 0700);
    rnd_state = seed;
    char base[4096], p[4096];
    snprintf(base, sizeof base, "%s/base.snap", dir);
    snprintf(p, sizeof p, "%s/mutant.snap", dir);
    strata_session *s = open_model(model, "int8", "64");
    int32_t ids[4];
    if (s == NULL || run(s, 3, ids) != 0 || strata_session_save(s, 0, base) != 0) {
        printf("FAIL: no base snapshot: %s\n", last_err);
        strata_session_close(s);
        return 1;
    }
    size_t n = 0;
    unsigned char *b = slurp(base, &n);
    unsigned char *c = malloc(n + 64);
    uint32_t cells;
    memcpy(&cells, b + 100, 4);
    size_t tok_end = 128 + 4 * (size_t)cells;
    int32_t held = strata_session_n_past(s, 0);
    size_t fixed_alloc = 0;
    long tries = 0, loaded = 0, codes[4] = {0};
    double t0 = now_s();
    /* huge values for the header's counts, sealed so they reach the checks after the checksum */
    static const uint64_t huge[] = {0xffffffffu, 0x80000000u, 0x7fffffffu, 65, 64, 1u << 24, 0};
    static const uint64_t huge64[] = {~0ull, 1ull << 63, 1ull << 40, 0x100000000ull, 1};
    for (long it = 0; now_s() - t0 < seconds; it++) {
        memcpy(c, b, n);
        size_t len = n;
        int kind = (int)(it < (long)tok_end + 1 ? 0 : 1 + rnd() % 5);
        if (kind == 0) {
            len = (size_t)it; /* truncation at every byte of the header and the token ids */
        } else if (kind == 1) {
            c[rnd() % n] ^= (unsigned char)(1 + rnd() % 255); /* a flipped byte, checksum not resealed */
        } else if (kind == 2) {
            c[rnd() % tok_end] ^= (unsigned char)(1 + rnd() % 255); /* in the header or ids, resealed */
            reseal(c, n);
        } else if (kind == 3) {
            static const int f32[] = {8, 12, 80, 84, 88, 92, 96, 100};
            put32(c + f32[rnd() % 8], (uint32_t)huge[rnd() % 7]);
            if (rnd() % 4 != 0) {
                reseal(c, n);
            }
        } else if (kind == 4) {
            static const int f64[] = {104, 112, 120};
            put64(c + f64[rnd() % 3], huge64[rnd() % 5]);
            if (rnd() % 4 != 0) {
                reseal(c, n);
            }
        } else {
            len = 128 + rnd() % (n - 128 + 32); /* truncated or grown anywhere */
            if (len > n) {
                memset(c + n, 0, len - n);
            }
            if (rnd() % 2) {
                reseal(c, len);
            }
        }
        spit(p, c, len);
        n_err = 0;
        last_err[0] = 0;
        strata_snapshot_last_alloc = 0;
        int rc = strata_session_load(s, 0, p);
        tries++;
        if (fixed_alloc == 0) {
            fixed_alloc = strata_snapshot_last_alloc;
        }
        if (strata_snapshot_last_alloc != fixed_alloc) {
            printf("FAIL: a load allocated %zu bytes (the fixed buffer is %zu), mutation %ld kind %d\n",
                   strata_snapshot_last_alloc, fixed_alloc, it, kind);
            fails++;
        }
        if (rc != 0 && rc != 2 && rc != 3) {
            printf("FAIL: code %d for mutation %ld kind %d\n", rc, it, kind);
            fails++;
        }
        codes[rc == 0 ? 0 : rc == 2 ? 2 : rc == 3 ? 3 : 1]++;
        if (rc != 0 && (n_err != 1 || strlen(last_err) == 0)) {
            printf("FAIL: %d error lines for mutation %ld kind %d\n", n_err, it, kind);
            fails++;
        }
        if (rc != 0 && strata_session_n_past(s, 0) != held && strstr(last_err, "changed while") == NULL) {
            printf("FAIL: a refused load (%s) changed the sequence\n", last_err);
            fails++;
        }
        if (rc == 0 || strata_session_n_past(s, 0) != held) {
            loaded += rc == 0;
            if (strata_session_load(s, 0, base) != 0) {
                printf("FAIL: the base snapshot does not load again: %s\n", last_err);
                fails++;
                break;
            }
        }
        if (fails > 20) {
            break;
        }
    }
    printf("snapshot_test fuzz: %ld mutants in %.1f s (codes: 0 x%ld, 2 x%ld, 3 x%ld, other x%ld), every load "
           "allocated %zu bytes: %s\n",
           tries, now_s() - t0, codes[0], codes[2], codes[3], codes[1], fixed_alloc, fails == 0 ? "ok" : "FAILED");
    CHECK(tries > (long)tok_end, "the time bound ended the fuzz before every header truncation ran (%ld tries)", tries);
    free(b);
    free(c);
    strata_session_close(s);
    return fails == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    self = argv[0];
    if (argc >= 5 && strcmp(argv[1], "check") == 0) {
        return check(argv[2], argv[3], argv[4], argc > 5 && strcmp(argv[5], "--quick") == 0);
    }
    if (argc >= 5 && strcmp(argv[1], "fuzz") == 0) {
        return fuzz(argv[2], argv[3], atof(argv[4]), argc > 5 ? strtoull(argv[5], NULL, 10) : 1);
    }
    if (argc >= 7 && strcmp(argv[1], "save") == 0) {
        return child_save(argv[2], argv[3], argv[4], argv[5], atoi(argv[6]));
    }
    if (argc >= 8 && strcmp(argv[1], "resume") == 0) {
        return child_resume(argv[2], argv[3], argv[4], argv[5], atoi(argv[6]), argv[7]);
    }
    fprintf(stderr, "usage: snapshot_test check DENSE MOE WORKDIR [--quick] | fuzz MODEL WORKDIR SECONDS [SEED]\n");
    return 2;
}

/* drive.c — real text through strata-ref's session API for the expert-arena sweep (bench/expert-arena/run.sh).
 *
 *   drive TOKENS.u16 OFFSET PREFILL DECODE ENGINE-FLAGS...
 *
 * Opens a session with ENGINE-FLAGS (the engine's own argv, e.g. --model M --ctx 2048 --kv q4_0 --mem-budget-mb N),
 * evaluates PREFILL tokens of TOKENS.u16 (little-endian uint16, e.g. the shared val.u16) from OFFSET as one prompt,
 * then DECODE further tokens one at a time, teacher-forced (each step feeds the text's next token, not a sample: every
 * run sees the same tokens, so the routing differs between runs only by the KV format's rounding). Prints the
 * session's stats after each phase and the decode phase's own figures:
 *   after_prefill: <strata_session_stats>
 *   after_decode: <strata_session_stats>
 *   decode: tokens=N seconds=S tok_s=R lookups=L hits=H misses=M bytes_read=B read_seconds=T
 * The engine's lines (memory:, alloc:, engine:) go to stderr. Exit: the session's code, or 1 on a bad argument. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata_engine.h"

static void on_line(void *user, int level, const char *line) {
    (void)user;
    (void)level;
    fprintf(stderr, "%s\n", line);
}

typedef struct {
    unsigned long long lookups, hits, misses, bytes_read;
    double read_seconds, decode_seconds;
} stats;

static double field(const char *s, const char *key) {
    char k[64];
    snprintf(k, sizeof k, " %s=", key);
    const char *p = strstr(s, k);
    if (p == NULL && strncmp(s, k + 1, strlen(k + 1)) == 0) {
        p = s - 1;
    }
    return p == NULL ? -1.0 : strtod(p + strlen(k), NULL);
}

static stats read_stats(strata_session *s, const char *label) {
    char buf[1024];
    strata_session_stats(s, buf, sizeof buf);
    printf("%s: %s\n", label, buf);
    stats st = {(unsigned long long)field(buf, "lookups"), (unsigned long long)field(buf, "hits"),
                (unsigned long long)field(buf, "misses"),  (unsigned long long)field(buf, "bytes_read"),
                field(buf, "read_seconds"),                field(buf, "decode_seconds")};
    return st;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: drive TOKENS.u16 OFFSET PREFILL DECODE ENGINE-FLAGS...\n");
        return 1;
    }
    long off = atol(argv[2]), np = atol(argv[3]), nd = atol(argv[4]);
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL || off < 0 || np < 1 || nd < 0) {
        fprintf(stderr, "drive: cannot read %s or bad counts\n", argv[1]);
        return 1;
    }
    size_t n = (size_t)(np + nd);
    uint16_t *raw = malloc(n * sizeof *raw);
    int32_t *tok = malloc(n * sizeof *tok);
    if (raw == NULL || tok == NULL || fseek(f, off * 2, SEEK_SET) != 0 || fread(raw, 2, n, f) != n) {
        fprintf(stderr, "drive: %s holds fewer than %zu tokens from %ld\n", argv[1], n, off);
        return 1;
    }
    fclose(f);
    for (size_t i = 0; i < n; i++) {
        tok[i] = raw[i];
    }
    const char **eargv = calloc((size_t)argc, sizeof *eargv);
    int eargc = 0;
    eargv[eargc++] = "strata-ref";
    for (int i = 5; i < argc; i++) {
        eargv[eargc++] = argv[i];
    }
    int rc = -1;
    strata_session *s = strata_session_open(eargc, eargv, on_line, NULL, &rc);
    if (s == NULL) {
        return rc;
    }
    float *logits = malloc((size_t)strata_session_n_vocab(s) * sizeof *logits);
    rc = strata_session_eval(s, 0, tok, (size_t)np, (size_t)np - 1, logits);
    stats a = read_stats(s, "after_prefill");
    for (long i = 0; rc == 0 && i < nd; i++) {
        rc = strata_session_eval(s, 0, tok + np + i, 1, 0, logits);
    }
    stats b = read_stats(s, "after_decode");
    double dt = b.decode_seconds;
    printf("decode: tokens=%ld seconds=%.3f tok_s=%.2f lookups=%llu hits=%llu misses=%llu bytes_read=%llu "
           "read_seconds=%.4f\n",
           nd, dt, dt > 0 ? (double)nd / dt : 0.0, b.lookups - a.lookups, b.hits - a.hits, b.misses - a.misses,
           b.bytes_read - a.bytes_read, b.read_seconds - a.read_seconds);
    free(logits);
    free(raw);
    free(tok);
    free(eargv);
    strata_session_close(s);
    return rc;
}

/* fuzz_model.c — hostile model files against the whole startup path (gguf.c's geometry, gguf_map.c, model.c,
 * vocab.c) and, for a mutant the check accepts, a session that evaluates a few tokens: every answer must be a code
 * (0, 2, 3) and one line, never a crash, a hang or an out-of-bounds access (run under ASan+UBSan by asan-quick).
 *   fuzz_model MODEL.gguf WORKDIR SECONDS [SEED]
 * Mutations, seeded: a byte of the header, key/value and tensor-info region flipped, set to 0x00/0xff or to a
 * random value; a little-endian u64 there replaced by a huge count; the file truncated at a random point of that
 * region or of the data. Time-bounded: it stops after SECONDS and prints how many files it tried. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gguf_map.h"
#include "strata_engine.h"
#include "testkit.h"

static void quiet(void *user, int level, const char *line) {
    (void)level;
    int *n = user;
    (*n)++;
    if (strlen(line) > 1023) {
        printf("FAIL: a line of %zu bytes\n", strlen(line));
        exit(1);
    }
}


int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: fuzz_model MODEL.gguf WORKDIR SECONDS [SEED]\n");
        return 2;
    }
    double limit = atof(argv[3]);
    rnd_state = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        printf("fuzz_model: skipped (no %s)\n", argv[1]);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *orig = malloc((size_t)size), *buf = malloc((size_t)size);
    if (fread(orig, 1, (size_t)size, f) != (size_t)size) {
        return 2;
    }
    fclose(f);
    /* the header region: everything before the first tensor's data */
    strata_gguf_map m;
    char err[600];
    if (strata_gguf_map_open(argv[1], &m, err, sizeof err) != 0) {
        printf("FAIL: the original does not open: %s\n", err);
        return 1;
    }
    uint64_t head = (uint64_t)size;
    for (uint64_t i = 0; i < m.n_tensors; i++) {
        head = m.tensors[i].offset < head ? m.tensors[i].offset : head;
    }
    strata_gguf_map_close(&m);
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz.gguf", argv[2]);
    double t0 = now_s();
    long tried = 0, accepted = 0, ran = 0;
    int codes[256] = {0};
    while (now_s() - t0 < limit) {
        memcpy(buf, orig, (size_t)size);
        long len = size;
        uint64_t kind = rnd() % 8, at = rnd() % head;
        switch (kind) {
        case 0: buf[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
        case 1: buf[at] = 0; break;
        case 2: buf[at] = 0xff; break;
        case 3: buf[at] = (uint8_t)rnd(); break;
        case 4: {
            uint64_t huge = rnd() % 2 ? UINT64_MAX / (1 + rnd() % 1000) : (1ull << (32 + rnd() % 31));
            if (at + 8 <= head) {
                memcpy(buf + at, &huge, 8);
            }
            break;
        }
        case 5: len = (long)at; break;
        case 6: len = (long)(head + rnd() % ((uint64_t)size - head)); break;
        default:
            for (int k = 0; k < 4; k++) {
                buf[rnd() % head] ^= (uint8_t)rnd();
            }
        }
        FILE *o = fopen(path, "wb");
        if (o == NULL || fwrite(buf, 1, (size_t)len, o) != (size_t)len || fclose(o) != 0) {
            printf("FAIL: cannot write %s\n", path);
            return 1;
        }
        /* the smallest workload: main's defaults (512 + 64 tokens) do not fit a context of 64 and would refuse
         * every mutant before its header is read */
        const char *args[] = {"strata-ref", "--model",         path, "--ctx",       "64", "--threads", "1",
                              "--kv",       "fp16", "--prompt-tokens", "1",    "--n-predict", "0"};
        int lines = 0;
        int rc = strata_engine_check(13, args, quiet, &lines);
        tried++;
        codes[rc & 0xff]++;
        if (rc != 0 && rc != 2 && rc != 3) {
            printf("FAIL: check returned %d (mutation %llu at byte %llu, length %ld)\n", rc, (unsigned long long)kind,
                   (unsigned long long)at, len);
            return 1;
        }
        if (rc == 0) {
            accepted++;
            int orc = -1;
            strata_session *s = strata_session_open(13, args, quiet, &lines, &orc);
            if (s != NULL) {
                int32_t t[4] = {1, 2, 3, 4};
                float *lg = malloc((size_t)strata_session_n_vocab(s) * sizeof(float));
                strata_session_eval(s, 0, t, 4, 3, lg);
                char piece[64];
                strata_session_token_piece(s, 1, 1, piece, sizeof piece);
                free(lg);
                strata_session_close(s);
                ran++;
            }
        }
    }
    remove(path);
    printf("fuzz_model: %ld mutants of %s in %.1f s: check 0 x%d, 2 x%d, 3 x%d; %ld accepted, %ld evaluated\n", tried,
           argv[1], now_s() - t0, codes[0], codes[2], codes[3], accepted, ran);
    free(orig);
    free(buf);
    return 0;
}

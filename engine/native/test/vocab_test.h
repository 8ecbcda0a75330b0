/* vocab_test.h — what vocab_test.c's tests use from vocab_test_vocabs.c. */
#ifndef STRATA_VOCAB_TEST_H
#define STRATA_VOCAB_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "gguf_map.h"
#include "vocab.h"

/* a vocabulary from a file, kept open for the run */
typedef struct { char name[256]; strata_gguf_map map; strata_vocab *v; } loaded;
extern loaded cache[16];
extern int n_cache;
extern char tmpdir[256]; /* the run's scratch folder (main makes it) */

/* The whole file, NUL-terminated, its length in *len; NULL when it cannot be read. */
char *slurp(const char *path, size_t *len);
int exists(const char *path);
/* The vocab file with tokenizer.ggml.pre = pre inserted as its first key (as vocab_vectors.mjs): 0 or -1. */
int derive(const char *src, const char *pre, const char *dst);
/* name: a path under shared, optionally "+pre=X" or "+qwenlike". NULL when the file is absent (or fails: then a
 * FAIL). */
strata_vocab *vocab_for(const char *shared, const char *name);
/* The ids of t (malloc'ed, *count of them; the buffer contract checked on the way), or NULL with *count < 0. */
int32_t *tokenize(const strata_vocab *v, const char *t, size_t n, int flags, int64_t *count);
/* The pieces of ids, concatenated (malloc'ed, *len bytes). */
char *detokenize(const strata_vocab *v, const int32_t *ids, size_t n, int special, size_t *len);
/* ids as "a b c" into buf, as many as fit. */
void show_ids(char *buf, size_t cap, const int32_t *ids, size_t n);
/* The "text" member of a one-line JSON object (a val.jsonl line) into out (at least strlen(line) + 1 bytes): its
 * length, or -1. */
long json_text(const char *line, char *out);

#endif

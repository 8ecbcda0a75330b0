/* strata_engine.h — the C ABI every Strata engine exports (a contract; docs/ENGINE-ABI.md).
 * The Metal engine and strata-ref (the reference CPU engine) both implement it; strata-launch binds it
 * through java.lang.foreign and checks STRATA_ENGINE_ABI_VERSION before anything else (it loads ABI 1, 2 and 3:
 * ABI 2 added strata_engine_check, ABI 3 the session API; docs/ENGINE-ABI.md). */
#ifndef STRATA_ENGINE_H
#define STRATA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_ENGINE_ABI_VERSION 3

typedef void (*strata_log_fn)(void *user, int level, const char *line);   /* level: 0 info 1 warn 2 error */
/* Level 3 (ABI 3): a piece of generated text (UTF-8, possibly a partial character), from strata_engine_main with
 * --prompt; a caller that does not know level 3 may print it as info. */
#define STRATA_LOG_TEXT 3
int         strata_engine_abi_version(void);
const char *strata_engine_name(void);                  /* e.g. "strata-ref 0.1.0 (cpu)" */
int         strata_engine_main(int argc, const char *const *argv, strata_log_fn log, void *user);
/* ABI 2: the engine's own preflight. Parses argv as strata_engine_main does, reads the model, applies every
 * startup rule main applies (with the same environment), logs one `plan: item=<name> bytes=<n> k=v ...` line
 * per buffer main would allocate, and returns the code main would return before it starts work (0 = main
 * would start). Allocates none of the large buffers, runs nothing, leaves the cancel flag alone.
 * Absent from ABI 1 engines (docs/ENGINE-ABI.md). */
int         strata_engine_check(int argc, const char *const *argv, strata_log_fn log, void *user);
void        strata_engine_cancel(void);                /* async-signal-safe; main returns 130 soon after */
size_t      strata_kv_cell_bytes(int format, int kv_heads, int head_dim);
int         strata_kv_encode(int format, const float *src, size_t n_vectors, int head_dim, uint8_t *dst);
int         strata_kv_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim, float *dst);

/* ---- ABI 3: sessions (docs/ENGINE-ABI.md, "ABI 3"). A session is one loaded model (weights mapped read-only), its
 * tokenizer, and the KV pools of --parallel sequences (1 by default) in the format the KV rules chose. Calls on one
 * session are not concurrent (the caller serializes them); each call may use --threads threads inside. */
typedef struct strata_session strata_session;

/* Opens a session from exactly the argv strata_engine_main takes, after the same startup rules (the same refusals,
 * the same log lines, `alloc:` items). *rc gets main's code: 0 (the session is returned), 2, 3, 4. NULL otherwise. */
strata_session *strata_session_open(int argc, const char *const *argv, strata_log_fn log, void *user, int *rc);
/* Frees everything the session holds. NULL is a no-op. Lines are logged only from inside calls. */
void        strata_session_close(strata_session *s);

int32_t     strata_session_n_vocab(const strata_session *s);
int32_t     strata_session_n_ctx(const strata_session *s);    /* --ctx; a sequence may hold --ctx + 128 positions (the pools' cells) */
int32_t     strata_session_n_seq(const strata_session *s);    /* sequences (--parallel) */
/* Special token ids, -1 when the model has none: 0 BOS, 1 EOS, 2 EOT. */
int32_t     strata_session_token(const strata_session *s, int which);
int         strata_session_is_eog(const strata_session *s, int32_t tok);  /* generation ends at tok */
/* A string-valued GGUF key of the model (e.g. "tokenizer.chat_template", "general.name"), copied NUL-terminated
 * into buf when it fits. Returns its length in bytes, or -1 when the model has no such string key. */
int64_t     strata_session_meta(const strata_session *s, const char *key, char *buf, size_t cap);

/* flags: 1 add BOS/EOS as the model says, 2 parse special tokens in the text. Writes at most cap ids; returns the
 * count the text needs (> cap: call again), or -1 on a bad argument. */
int64_t     strata_session_tokenize(const strata_session *s, const char *text, size_t len, int flags, int32_t *out,
                                    size_t cap);
/* The bytes of one token (special: control tokens' text too). Returns the length (> cap: nothing past cap). */
int64_t     strata_session_token_piece(const strata_session *s, int32_t tok, int special, char *buf, size_t cap);

/* Appends n tokens to sequence seq at its next positions (prompt processing in batches when n > 1: the same
 * numbers as one at a time, up to float rounding), storing their K and V in the pools. Logits of positions
 * [logits_from, n) of this call go to logits (row-major, (n - logits_from) × n_vocab floats); logits_from >= n:
 * none. Returns 0; 2 (one line logged) for a bad argument: a token id out of range, seq out of range, or a
 * sequence that would exceed the pools' cells (n_ctx + 128); 130 when cancelled (the tokens of the call are then not kept). */
int         strata_session_eval(strata_session *s, int32_t seq, const int32_t *tokens, size_t n, size_t logits_from,
                                float *logits);
int32_t     strata_session_n_past(const strata_session *s, int32_t seq);   /* positions held by seq */
/* Keeps the first n_keep positions of seq and forgets the rest (0: clear). 0, or 2 when n_keep > n_past. */
int         strata_session_truncate(strata_session *s, int32_t seq, int32_t n_keep);
/* Picks a token from n_vocab logits: temp <= 0 greedy (the lowest id among equal maxima); else softmax(logits/temp)
 * restricted to the top_k largest (0: all) then the smallest set of probability >= top_p (>= 1: all), drawn with
 * the splitmix64 state *rng (advanced). */
int32_t     strata_session_sample(const strata_session *s, const float *logits, float temp, int32_t top_k, float top_p,
                                  uint64_t *rng);
/* Cancels the eval in progress on s, or the next one when none is (any thread, async-signal-safe): that eval returns
 * 130 soon after and the cancel is consumed. */
void        strata_session_cancel(strata_session *s);
/* One line of counters so far, `key=value` separated by spaces (prefill/decode tokens and seconds, arena lookups,
 * hits, misses, bytes_read, read_seconds, peak_rss_bytes). Returns the length (> cap: truncated). */
int64_t     strata_session_stats(const strata_session *s, char *buf, size_t cap);
/* Session snapshots (docs/ENGINE-ABI.md, "Session snapshots"). Save writes sequence seq (its token ids and the used
 * cells of its pools, exactly as in memory) to path atomically (a temp file beside it, fsync, rename, fsync of the
 * folder; mode 0600). Load replaces sequence seq with the snapshot at path after checking all of it: the file's
 * header and checksum, then that it fits this session (the same model, the same KV format tag, cells <= --ctx).
 * Both return 0; 2 (one line logged) when the file cannot be written or read, or is not an intact snapshot
 * (truncated, corrupted, not a snapshot) or seq is out of range; 3 (one line logged) when an intact snapshot is
 * refused: another model, another KV format, a context smaller than its cells, a newer format version, recurrent
 * state. A refused load leaves the sequence as it was. */
int         strata_session_save(strata_session *s, int32_t seq, const char *path);
int         strata_session_load(strata_session *s, int32_t seq, const char *path);
/* The token ids sequence seq holds, in position order (after a load: the snapshot's), at most cap into out (NULL: none).
 * Returns their count (> cap: call again), or -1 for a bad seq. */
int64_t     strata_session_tokens(const strata_session *s, int32_t seq, int32_t *out, size_t cap);
#ifdef __cplusplus
}
#endif

#endif /* STRATA_ENGINE_H */

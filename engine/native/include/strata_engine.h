/* strata_engine.h — the C ABI every Strata engine exports (a contract; docs/ENGINE-ABI.md).
 * The Metal engine and strata-ref (the reference CPU engine) both implement it; strata-launch binds it
 * through java.lang.foreign and checks STRATA_ENGINE_ABI_VERSION before anything else (it loads ABI 1 and 2:
 * ABI 2 added strata_engine_check; docs/ENGINE-ABI.md). */
#ifndef STRATA_ENGINE_H
#define STRATA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_ENGINE_ABI_VERSION 2

typedef void (*strata_log_fn)(void *user, int level, const char *line);   /* level: 0 info 1 warn 2 error */
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

#ifdef __cplusplus
}
#endif

#endif /* STRATA_ENGINE_H */

/* strata_engine.h — the C ABI every Strata engine exports (a contract; docs/ENGINE-ABI.md).
 * The Metal engine and strata-ref (the reference CPU engine) both implement it; strata-launch binds it
 * through java.lang.foreign and checks STRATA_ENGINE_ABI_VERSION before anything else. */
#ifndef STRATA_ENGINE_H
#define STRATA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_ENGINE_ABI_VERSION 1

typedef void (*strata_log_fn)(void *user, int level, const char *line);   /* level: 0 info 1 warn 2 error */
int         strata_engine_abi_version(void);
const char *strata_engine_name(void);                  /* e.g. "strata-ref 0.1.0 (cpu)" */
int         strata_engine_main(int argc, const char *const *argv, strata_log_fn log, void *user);
void        strata_engine_cancel(void);                /* async-signal-safe; main returns 130 soon after */
size_t      strata_kv_cell_bytes(int format, int kv_heads, int head_dim);
int         strata_kv_encode(int format, const float *src, size_t n_vectors, int head_dim, uint8_t *dst);
int         strata_kv_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim, float *dst);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_ENGINE_H */

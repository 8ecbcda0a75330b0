/* abi_mismatch.c — wrong engine libraries for NativeEngine's load tests:
 * built plain, every symbol is there but strata_engine_abi_version() says 999;
 * built with -DMISSING_SYMBOL, strata_kv_decode is absent (and the version is right);
 * built with -DNO_SESSION, it says ABI 3 and has every symbol of ABI 2 but none of the session API. */
#include <stddef.h>
#include <stdint.h>

#define API __attribute__((visibility("default")))

typedef void (*strata_log_fn)(void *user, int level, const char *line);

#ifdef MISSING_SYMBOL
API int strata_engine_abi_version(void) { return 1; }
#elif defined(NO_SESSION)
API int strata_engine_abi_version(void) { return 3; }
API int strata_engine_check(int argc, const char *const *argv, strata_log_fn log, void *user) { return 99; }
#else
API int strata_engine_abi_version(void) { return 999; }
#endif
API const char *strata_engine_name(void) { return "wrong-abi test library"; }
API int strata_engine_main(int argc, const char *const *argv, strata_log_fn log, void *user) { return 99; }
API void strata_engine_cancel(void) {}
API size_t strata_kv_cell_bytes(int format, int kv_heads, int head_dim) { return 0; }
API int strata_kv_encode(int format, const float *src, size_t n, int hd, uint8_t *dst) { return -1; }
#ifndef MISSING_SYMBOL
API int strata_kv_decode(int format, const uint8_t *src, size_t n, int hd, float *dst) { return -1; }
#endif

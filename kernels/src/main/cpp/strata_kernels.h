/* strata_kernels.h — the KV kernels (docs/ENGINE-CONTRACT.md, KV formats) as a C API, built from the portable .metal source.
 *
 * strata-ref links these for strata_kv_encode / strata_kv_decode and its KV pools. The bytes written
 * are the vector records of docs/ENGINE-CONTRACT.md, KV formats, identical to what the Metal kernels write (same source).
 *
 * Linking: `make -C kernels` builds kernels/target/native/libstrata_kernels.a (-O3 -fPIC, C++17,
 * x86-64-v2 / armv8-a). The library is C++ inside: link the final .so with g++, or add
 * `-lstdc++ -lpthread -lm` when linking with gcc. See docs/KERNELS.md.
 */
#ifndef STRATA_KERNELS_H
#define STRATA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Format ids: the C ABI's (docs/ENGINE-CONTRACT.md, KV formats). 3 (k8v4) is a cell-level mix, not a record format. */
#define STRATA_KERNELS_FP16 0
#define STRATA_KERNELS_INT8 1
#define STRATA_KERNELS_Q4_0 2

/* Errors (negative). */
#define STRATA_KERNELS_EBADFORMAT (-1)   /* unknown format, or k8v4 */
#define STRATA_KERNELS_EHEADDIM   (-2)   /* head_dim does not fit the format (int8: %64, q4_0: 256) */
#define STRATA_KERNELS_ENULL      (-3)   /* NULL pointer with n_vectors > 0 */

/* Rotates (q4_0) and quantizes n_vectors head vectors of head_dim floats each into n_vectors records
 * of strata_kernels_record_bytes(format, head_dim) bytes. Returns 0 or a negative error. */
int strata_kernels_encode(int format, const float *src, size_t n_vectors, int head_dim, uint8_t *dst);

/* The inverse: dequantizes n_vectors records and (q4_0) rotates back. Returns 0 or a negative error. */
int strata_kernels_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim, float *dst);

/* Bytes of one vector record: fp16 2·hd, int8 hd + 2·hd/64, q4_0 144 (hd 256); 0 when invalid. */
size_t strata_kernels_record_bytes(int format, int head_dim);

/* The code path q4_0 encode/decode take on this machine: "portable" (the .metal kernel compiled as
 * C++), "simd128" (4-lane vector path: SSE4.2 / NEON) or "avx2" (8-lane, x86-64 with AVX2, picked at
 * run time). All write the same bytes. STRATA_KERNELS_ISA=portable|simd128|avx2 (read once) selects
 * one; the default, or a path the CPU cannot run, is the fastest available. */
const char *strata_kernels_isa(void);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_KERNELS_H */

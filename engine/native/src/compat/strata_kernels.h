/* strata_kernels.h — STAND-IN used only until the KV-kernels module (kernels/src/main/cpp/strata_kernels.h,
 * built into kernels/target/native/libstrata_kernels.a) is present in the tree. The Makefile picks the real
 * header and library when they exist; this copy declares the same three functions, implemented in
 * src/kernels_local.c from DESIGN §3. */
#ifndef STRATA_KERNELS_H
#define STRATA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int strata_kernels_encode(int format, const float *src, size_t n_vectors, int head_dim, uint8_t *dst);
int strata_kernels_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim, float *dst);
size_t strata_kernels_record_bytes(int format, int head_dim);

#ifdef __cplusplus
}
#endif

#endif

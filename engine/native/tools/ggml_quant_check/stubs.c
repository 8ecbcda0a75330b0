/* stubs.c — the few ggml symbols ggml-quants.c and the CPU quants need outside their own files (check.c). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "quant.h"
float ggml_table_f32_f16[1 << 16];
float ggml_table_f32_e8m0_half[1 << 8];
float ggml_table_f32_ue4m3[1 << 8];
__attribute__((constructor)) static void init(void) { for (int i = 0; i < 65536; i++) ggml_table_f32_f16[i] = _cvtsh_ss((unsigned short)i); }
void ggml_abort(const char *f, int l, const char *fmt, ...) { fprintf(stderr, "abort %s:%d %s\n", f, l, fmt); abort(); }
size_t ggml_type_size(int t) { return strata_type(t)->bytes; }
size_t ggml_row_size(int t, int64_t n) { return strata_row_bytes(t, n); }
const char *ggml_type_name(int t) { return strata_type(t)->name; }

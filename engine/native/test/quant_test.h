/* quant_test.h — what quant_test.c and quant_test_real.c (its section 5, the real models) share. */
#ifndef STRATA_QUANT_TEST_H
#define STRATA_QUANT_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"

extern int fails, checks;
/* an f16 bit pattern's value (an independent decoder, not half.h); a little-endian u16 */
double ref_half(uint16_t h);
uint16_t ld16(const uint8_t *p);
/* a standard normal draw from the test's seeded generator */
float nrand(void);
/* value i of a row of type t straight from ggml's block layout; *mag: the largest |value| its block can hold */
double ref_value(uint32_t t, const uint8_t *row, int64_t i, double *mag);
#include "quant_impl.h"

/* random code bytes for a row of type t, n values, with finite scales in a sane range */
void rand_row(uint32_t t, uint8_t *row, int64_t n);
/* the weight types strata computes */
enum { N_COMPUTABLE = 9 };
extern const uint32_t COMPUTABLE[N_COMPUTABLE];
/* the variants under test (base, and avx2 when this CPU runs it) */
extern const strata_quant_ops *variants[2];
extern int n_variants;

/* section 4: gemm_rows (quick: fewer cases), and gemm_rows from several threads at once */
void test_gemm(int quick);
void test_threads(void);
/* section 5: the real models' tensors (quick: fewer) */
void test_real(int quick);

#endif

/* kv.h — the KV cache is the pools: per sequence and attention layer, `cells` cells of
 * [K h0]..[K h(H-1)][V h0]..[V h(H-1)], each a vector record of the pools' format (docs/ENGINE-CONTRACT.md, KV
 * formats) written by the kernels' own encoder (kernels/, the source that is also the Metal one): fp16, int8, or q4_0
 * with the FWHT-256 rotation built in. cells = --ctx + 128 (the upstream engine's pool size). */
#ifndef STRATA_KV_H
#define STRATA_KV_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int format;             /* KV_FP16, KV_INT8 or KV_Q4_0 (ref_internal.h) */
    int n_layer, n_seq, kv_heads, hd;
    size_t cells, cell_bytes, krec;
    uint8_t *mem;           /* n_seq × n_layer × cells × cell_bytes, calloc'ed: untouched pages cost nothing */
    int32_t *n_past;        /* positions held, per sequence */
} strata_kv;

/* 0, or -1 when the pools cannot be allocated. */
int strata_kv_init(strata_kv *kv, int format, int n_layer, int n_seq, int kv_heads, int hd, size_t cells);
void strata_kv_free(strata_kv *kv);
/* Bytes of every pool. */
size_t strata_kv_bytes(const strata_kv *kv);
static inline uint8_t *strata_kv_cells(const strata_kv *kv, int seq, int layer) {
    return kv->mem + (((size_t)seq * (size_t)kv->n_layer + (size_t)layer) * kv->cells) * kv->cell_bytes;
}
/* Encodes K and V (kv_heads × hd floats each) of one position into its cell. 0, or -1 (the kernels refused). */
int strata_kv_store(const strata_kv *kv, int seq, int layer, size_t pos, const float *k, const float *v);

#endif

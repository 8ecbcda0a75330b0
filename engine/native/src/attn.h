/* attn.h — attention of one query position over the cells of a pool, straight from the pool records (fused.c's
 * kernels: integer K·q against the query at 8 bits per block for int8 and q4_0, float for fp16), with an online
 * softmax per chunk of 64 cells. GQA: query head j reads KV head j / (n_head / kv_heads), as llama.cpp. q4_0: the
 * query is FWHT-rotated like K (dot(Rq, Rk) = dot(q, k)) and the weighted V is rotated back once per head. */
#ifndef STRATA_ATTN_H
#define STRATA_ATTN_H

#include <stddef.h>

#include "kv.h"
#include "ref_internal.h"

/* out[n_head × hd] = softmax(scale · q K^T) V over cells [0, n) of (seq, layer), for the query heads of groups
 * [g0, g1) (group g = query heads h·G + g of every KV head h, G = n_head / kv_heads); q is n_head × hd floats (not
 * modified). n >= 1. */
void strata_attend(const strata_kv *kv, const strata_fused_ops *ops, int seq, int layer, size_t n, const float *q,
                   int n_head, int g0, int g1, float scale, float *out);

/* fp16 pools, llama.cpp's tiled flash attention for the B tokens of a batch at positions pos0.. (token t attends
 * cells [0, pos0 + t + 1)) and the query heads of KV head h (h·G .. h·G + G-1): q and out are B rows of n_head × hd
 * floats, only those heads' part of out written. 0, or -1 out of memory. */
int strata_attend_f16(const strata_kv *kv, int seq, int layer, size_t pos0, int B, const float *q, int n_head, int h,
                      float scale, float *out);

/* The same for one token (cells [0, n)) as llama.cpp computes a ubatch of fewer than 64 rows (attn.c); nth > 0: a
 * ubatch of this one row, llama.cpp running nth threads (its split over the KV cells). */
void strata_attend_f16_row(const strata_kv *kv, int seq, int layer, size_t n, const float *q, int n_head, int h,
                           float scale, int nth, float *out);

#endif

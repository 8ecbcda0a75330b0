/* kv.c — the pools (kv.h). */
#include "kv.h"

#include <stdlib.h>
#include <string.h>

#include "strata_engine.h"
#include "strata_kernels.h"

int strata_kv_init(strata_kv *kv, int format, int n_layer, int n_seq, int kv_heads, int hd, size_t cells) {
    memset(kv, 0, sizeof *kv);
    kv->format = format;
    kv->n_layer = n_layer;
    kv->n_seq = n_seq;
    kv->kv_heads = kv_heads;
    kv->hd = hd;
    kv->cells = cells;
    kv->krec = strata_kernels_record_bytes(format, hd);
    kv->cell_bytes = 2 * (size_t)kv_heads * kv->krec;
    kv->n_past = calloc((size_t)n_seq, sizeof *kv->n_past);
    size_t bytes = strata_kv_bytes(kv);
    kv->mem = bytes > 0 ? calloc(1, bytes) : NULL;
    if (kv->krec == 0 || kv->mem == NULL || kv->n_past == NULL) {
        strata_kv_free(kv);
        return -1;
    }
    return 0;
}

void strata_kv_free(strata_kv *kv) {
    free(kv->mem);
    free(kv->n_past);
    kv->mem = NULL;
    kv->n_past = NULL;
}

size_t strata_kv_bytes(const strata_kv *kv) {
    return (size_t)kv->n_seq * (size_t)kv->n_layer * kv->cells * kv->cell_bytes;
}

int strata_kv_store(const strata_kv *kv, int seq, int layer, size_t pos, const float *k, const float *v) {
    uint8_t *cell = strata_kv_cells(kv, seq, layer) + pos * kv->cell_bytes;
    size_t heads = (size_t)kv->kv_heads;
    if (strata_kernels_encode(kv->format, k, heads, kv->hd, cell) != 0 ||
        strata_kernels_encode(kv->format, v, heads, kv->hd, cell + heads * kv->krec) != 0) {
        return -1;
    }
    return 0;
}

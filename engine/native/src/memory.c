/* memory.c — strata-ref's memory accounting: every buffer strata_engine_main allocates, as named items, so
 * strata_engine_check's `plan:` lines and the launcher's plan (dev.strata.engine.plan.PlanItems renders the
 * same line format; a differential test in tests/ compares them byte for byte) come from one computation.
 *
 * Owner note (/work/coord/NOTES.md, 2026-11-30): created by issue 14 ("one truth") with the items strata-ref
 * has today — the KV pools and the decode scratch; issue 15 ("arena") extends it (expert arena, stand-by
 * slots, recurrent state) and makes main's own allocation lines use it too. */
#include <string.h>

#include "ref_internal.h"

/* a * b, or SIZE_MAX when it overflows (never for a geometry gguf.c accepted; checked anyway) */
static size_t mul(size_t a, size_t b) {
    if (a != 0 && b > (size_t)-1 / a) {
        return (size_t)-1;
    }
    return a * b;
}

size_t strata_memory_items(const strata_geometry *g, int format, size_t cells, size_t cell_bytes,
                           strata_mem_item *items, size_t max) {
    size_t n = 0;
    /* 1. The KV pools: one per QSA layer, cells × cell_bytes each (docs/PLAN.md "KV pools"). */
    if (n < max) {
        strata_mem_item *it = &items[n];
        memset(it, 0, sizeof *it);
        it->name = "kv";
        it->bytes = mul(mul(cells, cell_bytes), g->qsa_layers);
    }
    n++;
    /* 2. The decode scratch: a query per (layer, head) and the flash-decoding partials (m, l, acc per head per
     *    split of STRATA_SPLIT_CELLS cells), floats. strata-ref only: the launcher's plan has no such item. */
    if (n < max) {
        size_t heads = g->kv_heads, hd = g->head_dim, layers = g->qsa_layers;
        size_t splits = (cells + STRATA_SPLIT_CELLS - 1) / STRATA_SPLIT_CELLS;
        size_t queries = mul(mul(layers, heads), hd);
        size_t partials = mul(mul(mul(layers, splits), heads), hd + 2);
        strata_mem_item *it = &items[n];
        memset(it, 0, sizeof *it);
        it->name = "scratch";
        it->bytes = mul(queries + partials + hd, sizeof(float));
    }
    n++;
    return n;
}

/* arena.h — strata-ref's experts at run time (arena.c): the streaming arena, resident experts, the router. */
#ifndef STRATA_REF_ARENA_H
#define STRATA_REF_ARENA_H

#include "ref_internal.h"

/* The router's popularity: Zipf with this exponent over each layer's experts (docs/ENGINE-ABI.md says why). */
#define STRATA_ROUTER_ZIPF_S 0.8
#define STRATA_ARENA_NOMEM (-2)

typedef struct {
    int resident;
    uint32_t experts, used, layers;
    uint64_t slot_bytes, plan_slots, n_slots, slots_used;
    const strata_expert_index *ix;
    uint32_t n_fds;
    int *fds;
    uint8_t **maps;      /* resident: per (layer, tensor) its data mapped read-only, from a page boundary */
    uint64_t *map_len, *map_skip; /* mapping length; bytes from the mapping's start to expert 0 */
    uint8_t *mem;        /* stream: n_slots x slot_bytes */
    uint8_t *standby;    /* stream: the prompt-GEMM stand-by slots */
    uint64_t standby_bytes;
    int32_t *slot_of;    /* per (layer, expert): its slot, or -1 */
    int32_t *key, *prev, *next; /* per slot: its (layer, expert), LRU links */
    int32_t head, tail;
    uint16_t *order;     /* per layer: experts by popularity rank */
    double *cdf;         /* cumulative Zipf share by rank */
    uint64_t tokens, hits, misses, evictions, bytes_read, checksum;
    int io_error;
    uint32_t err_layer;
} strata_arena;

/* Opens the shards (checking every expert tensor lies inside its file), maps them (resident) or maps the arena
 * and stand-by slots (stream), and builds the router. 0; -1 with a message (a model problem, exit 2);
 * STRATA_ARENA_NOMEM (exit 4). Close it in every case. */
int strata_arena_open(strata_arena *a, const strata_mem_plan *p, const strata_geometry *g,
                      const strata_expert_index *ix, const char *first, int resident, char *err, size_t errlen);
/* Routes token `pos` through every MoE layer: hits use their slot, misses pread into the LRU slot; every picked
 * expert's bytes are read. 0; 1 when cancelled() said so (checked per layer); -1 on a read error (io_error,
 * err_layer). */
int strata_arena_token(strata_arena *a, uint64_t pos, int (*cancelled)(void));
void strata_arena_close(strata_arena *a);
/* Peak resident set of this process as the OS counts it, in bytes: VmHWM of /proc/self/status on Linux, else
 * getrusage ru_maxrss. */
uint64_t strata_peak_rss_bytes(void);

#endif

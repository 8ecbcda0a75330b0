/* arena.h — strata-ref's experts at run time (arena.c): the streaming arena, resident experts, the router. */
#ifndef STRATA_REF_ARENA_H
#define STRATA_REF_ARENA_H

#include "ref_internal.h"

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
    uint64_t lookups, hits, misses, evictions, bytes_read;
    double read_seconds; /* wall time spent in pread */
    int io_error;
    uint32_t err_layer;
} strata_arena;

/* Opens the shards (checking every expert tensor lies inside its file), maps them (resident) or maps the arena
 * and stand-by slots (stream), and builds the router. 0; -1 with a message (a model problem, exit 2);
 * STRATA_ARENA_NOMEM (exit 4). Close it in every case. */
int strata_arena_open(strata_arena *a, const strata_mem_plan *p, const strata_geometry *g,
                      const strata_expert_index *ix, const char *first, int resident, char *err, size_t errlen);
/* The bytes of expert e of MoE layer l (index into ix->layers): w[0..2] = its gate, up and down slices. Resident:
 * in the tensors' own mappings (a hit). Stream: a hit uses its slot; a miss preads the three slices into the least
 * recently used slot. 0, or -1 on a read error (io_error, err_layer). */
int strata_arena_fetch(strata_arena *a, uint32_t l, uint32_t e, const uint8_t *w[3]);
void strata_arena_close(strata_arena *a);
/* Peak resident set of this process as the OS counts it, in bytes: VmHWM of /proc/self/status on Linux, else
 * getrusage ru_maxrss. */
uint64_t strata_peak_rss_bytes(void);

#endif

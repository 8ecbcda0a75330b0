/* arena.h — strata-ref's experts at run time (arena.c): the streaming arena, resident experts, the router. */
#ifndef STRATA_REF_ARENA_H
#define STRATA_REF_ARENA_H

#include <stdio.h>

#include "ref_internal.h"

#define STRATA_ARENA_NOMEM (-2)

/* The arena's replacement policy (STRATA_ARENA_POLICY, read by strata-ref only; docs/ENGINE-ABI.md):
 *   lru (default): evict the least recently used slot.
 *   lfu: evict the slot whose expert has had the fewest lookups since the session opened (counts kept for every
 *        expert, cached or not, so a popular expert read again returns with its history); ties: least recently used.
 * The page cache (STRATA_ARENA_CACHE): keep (default) reads through it; drop turns readahead off on the shards
 * (POSIX_FADV_RANDOM), drops their cached pages at open and drops each expert's pages after its read
 * (POSIX_FADV_DONTNEED), so a miss is served by the disk where the OS honours the advice (Linux; macOS has no
 * posix_fadvise: there drop uses F_NOCACHE). STRATA_ARENA_TRACE=PATH writes the router's choices (strata_arena_trace). */
enum { STRATA_ARENA_LRU = 0, STRATA_ARENA_LFU = 1 };

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
    int32_t *key;        /* per slot: its (layer, expert) */
    /* lru: per slot its links (head = most recently used). lfu: the same arrays (no new bytes in the plan's books):
     * prev = per (layer, expert) its lookups so far, next = per slot the lookup number of its last use */
    int32_t *prev, *next;
    int32_t head, tail;
    int policy, drop_cache;
    FILE *trace;         /* STRATA_ARENA_TRACE: the router's choices, one line per (forward call, MoE layer) */
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
/* The router's choices of one forward call at MoE layer l, to the trace file when one is open: B tokens × K experts
 * (sel, token-major). The line: `l <layer> <B> e,e,e,e e,e,e,e …` (one group per token, the router's order). The
 * arena then looks the distinct experts up in ascending id order (moe.c), which a replay reproduces. */
void strata_arena_trace(strata_arena *a, uint32_t l, int B, const int32_t *sel, int K);
void strata_arena_close(strata_arena *a);
/* Peak resident set of this process as the OS counts it, in bytes: VmHWM of /proc/self/status on Linux, else
 * getrusage ru_maxrss. */
uint64_t strata_peak_rss_bytes(void);
/* This process's resident set now (VmRSS on Linux; 0 where the OS does not say, e.g. macOS here). */
uint64_t strata_rss_bytes(void);

#endif

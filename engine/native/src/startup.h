/* startup.h — every rule strata-ref applies before it allocates or runs anything, in its order: flags (main's workload
 * against the pools among them), the KV rules, the model (geometry, then what strata-ref computes), the pool rules,
 * the memory plan. The one place these rules
 * live: strata_engine_check, strata_engine_main and strata_session_open all call strata_startup_run, so the check's
 * verdict is main's (docs/ENGINE-ABI.md, ABI 2). */
#ifndef STRATA_STARTUP_H
#define STRATA_STARTUP_H

#include <stddef.h>

#include "gguf_map.h"
#include "log.h"
#include "model.h"
#include "ref_internal.h"

/* Exit codes (docs/ENGINE-ABI.md). */
/* The exit codes: Java's ExitCodes (rules.def), and strata-ref's own 4, out of memory (docs/ENGINE-ABI.md). */
enum {
    RC_OK = STRATA_EXIT_OK,
    RC_USAGE = STRATA_EXIT_USAGE,
    RC_REFUSED = STRATA_EXIT_PREFLIGHT,
    RC_NOMEM = 4,
    RC_CANCELLED = STRATA_EXIT_INTERRUPTED
};

extern const char *const STRATA_FORMAT_NAMES[STRATA_KV_N_FORMATS];

/* What the startup rules found: main and the session go on from here, the check reports it. */
typedef struct {
    strata_opts o;
    strata_geometry g;
    strata_expert_index ix; /* expert tensors, for the arena */
    strata_gguf_map map;    /* the shards, mapped read-only */
    strata_model md;        /* the weights in the mapping */
    struct strata_vocab *vocab; /* the tokenizer (vocab.h) */
    int format;             /* pool format: KV_FP16, KV_INT8 or KV_Q4_0 */
    size_t cell_bytes;      /* one cell of one layer: K and V of every KV head */
    size_t cells;           /* per pool: --ctx + 128 */
    size_t swa_cells;       /* per sliding-window pool: min(--ctx, window) + 128 (planned; strata-ref runs none) */
    uint32_t n_pools;       /* attention pools: main layers + the drafter's when --spec > 0 */
    size_t total_bytes;     /* every pool */
    size_t state_bytes;     /* recurrent state of one sequence (planned; strata-ref runs no recurrent layer) */
    strata_mem_inputs mi;
    strata_mem_plan plan;
} strata_startup;

/* Applies the rules, logging as main logs. RC_OK: s holds the model (free it with strata_startup_free); else the
 * code main returns, its error logged, nothing held. */
int strata_startup_run(int argc, const char *const *argv, const logger *lg, strata_startup *s);
void strata_startup_free(strata_startup *s);

#endif

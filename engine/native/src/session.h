/* session.h — the session's insides (session.c), shared with engine.c's strata_engine_main. */
#ifndef STRATA_SESSION_H
#define STRATA_SESSION_H

#include <stdatomic.h>

#include "arena.h"
#include "forward.h"
#include "kv.h"
#include "startup.h"
#include "strata_engine.h"
#include "threads.h"
#include "vocab.h"

struct strata_session {
    logger lg;
    strata_startup st;
    int started, have_pool, have_kv, have_fwd, have_arena;
    strata_vocab *vocab;
    strata_pool pool;
    strata_kv kv;
    strata_fwd fwd;
    strata_arena arena;
    int32_t *moe_layer_of; /* block → index into the expert index (-1: a dense block) */
    const strata_fused_ops *ops;
    int32_t n_seq;
    atomic_int own_cancel;
    atomic_int *cancel;
    uint64_t prefill_tokens, decode_tokens;
    double prefill_seconds, decode_seconds;
    int32_t *tokens;        /* n_seq × --ctx: the ids each sequence holds, in position order (snapshot.c saves them) */
    uint8_t model_id[32];   /* snapshot.c: the model's identity, computed at the first save or load */
    int have_model_id;
};

/* strata_session_open with the cancel flag of the caller's choosing (NULL: the session's own). */
strata_session *strata_session_open_internal(int argc, const char *const *argv, strata_log_fn log, void *user,
                                             int *rc, atomic_int *cancel);

#endif

/* session.c — ABI 3, the session API (strata_engine.h, docs/ENGINE-ABI.md): one model, its tokenizer, the pools of
 * --parallel sequences, a thread pool; evaluation, sampling, (de)tokenization. strata_engine_main runs its workload
 * through the same functions (engine.c). */
#define _POSIX_C_SOURCE 200809L
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quant.h"
#include "sample.h"

#define API __attribute__((visibility("default")))

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The arena's MoE layer of block l (ix->layers is in block order) */
static int expert_fetch(void *user, int layer, int expert, const uint8_t *w[3]) {
    strata_session *s = user;
    int32_t ml = s->moe_layer_of[layer];
    return ml < 0 ? -1 : strata_arena_fetch(&s->arena, (uint32_t)ml, (uint32_t)expert, w);
}

static void route_trace(void *user, int layer, int B, const int32_t *sel, int K) {
    strata_session *s = user;
    int32_t ml = s->moe_layer_of[layer];
    if (ml >= 0) {
        strata_arena_trace(&s->arena, (uint32_t)ml, B, sel, K);
    }
}

strata_session *strata_session_open_internal(int argc, const char *const *argv, strata_log_fn log, void *user,
                                             int *rc, atomic_int *cancel) {
    int code = RC_OK;
    strata_session *s = calloc(1, sizeof *s);
    if (s == NULL) {
        if (rc != NULL) {
            *rc = RC_NOMEM;
        }
        return NULL;
    }
    s->lg.fn = log;
    s->lg.user = user;
    code = strata_startup_run(argc, argv, &s->lg, &s->st);
    if (code != RC_OK) {
        free(s);
        if (rc != NULL) {
            *rc = code;
        }
        return NULL;
    }
    s->started = 1;
    const strata_startup *st = &s->st;
    const strata_model *md = &st->md;
    /* each buffer logged once, before any is allocated, as `alloc: item=… bytes=…` */
    for (int i = 0; i < st->plan.n_items; i++) {
        char line[128];
        if (strata_memory_item_line(&st->plan, i, "alloc", line, sizeof line) == 0) {
            logf_(&s->lg, 0, "%s", line);
        }
    }
    char err[STRATA_GGUF_ERR_MAX + 64];
    s->vocab = st->vocab;
    int n_threads = st->o.threads > 0 ? (int)st->o.threads : strata_threads_default();
    if (strata_pool_init(&s->pool, n_threads) != 0) {
        code = RC_NOMEM;
        goto fail;
    }
    s->have_pool = 1;
    s->n_seq = (int32_t)st->o.parallel; /* --parallel: each sequence has its own pools */
    if (strata_kv_init(&s->kv, st->format, (int)md->n_layer, s->n_seq, (int)md->n_head_kv, (int)md->head_dim,
                       st->cells) != 0) {
        logf_(&s->lg, 2, "kv: out of memory allocating %zu bytes of pools (lower --ctx, or use --kv q4_0)",
              st->total_bytes);
        code = RC_NOMEM;
        goto fail;
    }
    s->have_kv = 1;
    /* a sequence holds up to the pools' cells (ctx + 128) tokens: the eval's bound */
    s->tokens = malloc((size_t)s->n_seq * st->cells * sizeof *s->tokens);
    if (s->tokens == NULL) {
        code = RC_NOMEM;
        goto fail;
    }
    s->ops = strata_fused_best();
    if (strata_fwd_init(&s->fwd, md, &s->kv, &s->pool, s->ops) != 0) {
        logf_(&s->lg, 2, "engine: out of memory allocating the forward pass's scratch");
        code = RC_NOMEM;
        goto fail;
    }
    s->have_fwd = 1;
    s->cancel = cancel != NULL ? cancel : &s->own_cancel;
    s->fwd.cancel = s->cancel;
    if (md->n_expert > 0) {
        int arc = strata_arena_open(&s->arena, &st->plan, &st->g, &st->ix, st->o.model, st->o.experts_resident, err,
                                    sizeof err);
        s->have_arena = 1;
        if (arc != 0) {
            if (arc == STRATA_ARENA_NOMEM) {
                logf_(&s->lg, 2,
                      "experts: out of memory allocating the arena (%llu slots, %llu bytes) and stand-by (%llu "
                      "bytes); lower --mem-budget-mb",
                      (unsigned long long)st->plan.arena_slots, (unsigned long long)st->plan.arena,
                      (unsigned long long)st->plan.standby);
                code = RC_NOMEM;
            } else {
                logf_(&s->lg, 2, "%s", err);
                code = RC_USAGE;
            }
            goto fail;
        }
        s->moe_layer_of = malloc(md->n_layer * sizeof *s->moe_layer_of);
        if (s->moe_layer_of == NULL) {
            code = RC_NOMEM;
            goto fail;
        }
        for (uint32_t l = 0; l < md->n_layer; l++) {
            s->moe_layer_of[l] = -1;
        }
        for (uint32_t i = 0; i < st->ix.n_layers; i++) {
            if (st->ix.layers[i].block < md->n_layer) {
                s->moe_layer_of[st->ix.layers[i].block] = (int32_t)i;
            }
        }
        s->fwd.expert = expert_fetch;
        s->fwd.expert_user = s;
        s->fwd.route = s->arena.trace != NULL ? route_trace : NULL;
    }
    logf_(&s->lg, 0, "engine: threads=%d kernels=%s weights=%s experts=%s spec=%ld suffix_draft=%ld mem_budget_mb=%ld",
          strata_pool_size(&s->pool), s->ops->isa, strata_quant_isa(), st->o.experts_resident ? "resident" : "stream",
          st->o.spec, st->o.suffix_draft, st->o.mem_budget_mb);
    if (rc != NULL) {
        *rc = RC_OK;
    }
    return s;
fail:
    strata_session_close(s);
    if (rc != NULL) {
        *rc = code;
    }
    return NULL;
}

API strata_session *strata_session_open(int argc, const char *const *argv, strata_log_fn log, void *user, int *rc) {
    return strata_session_open_internal(argc, argv, log, user, rc, NULL);
}

API void strata_session_close(strata_session *s) {
    if (s == NULL) {
        return;
    }
    if (s->have_arena) {
        strata_arena_close(&s->arena);
    }
    free(s->moe_layer_of);
    free(s->tokens);
    if (s->have_fwd) {
        strata_fwd_free(&s->fwd);
    }
    if (s->have_kv) {
        strata_kv_free(&s->kv);
    }
    if (s->have_pool) {
        strata_pool_free(&s->pool);
    }
    if (s->started) {
        strata_startup_free(&s->st);
    }
    free(s);
}

API int32_t strata_session_n_vocab(const strata_session *s) { return (int32_t)s->st.md.n_vocab; }
API int32_t strata_session_n_ctx(const strata_session *s) { return (int32_t)s->st.o.ctx; }
API int32_t strata_session_n_seq(const strata_session *s) { return s->n_seq; }

API int32_t strata_session_token(const strata_session *s, int which) {
    return which >= 0 && which <= 2 ? strata_vocab_special(s->vocab, which) : -1;
}

API int strata_session_is_eog(const strata_session *s, int32_t tok) { return strata_vocab_is_eog(s->vocab, tok); }

API int64_t strata_session_meta(const strata_session *s, const char *key, char *buf, size_t cap) {
    const char *v;
    size_t len;
    if (key == NULL || !strata_gguf_kv_str(&s->st.map, key, &v, &len)) {
        return -1;
    }
    if (buf != NULL && len < cap) {
        memcpy(buf, v, len);
        buf[len] = 0;
    }
    return (int64_t)len;
}

API int64_t strata_session_tokenize(const strata_session *s, const char *text, size_t len, int flags, int32_t *out,
                                    size_t cap) {
    if (text == NULL && len > 0) {
        return -1;
    }
    return strata_tokenize(s->vocab, text != NULL ? text : "", len, flags, out, cap);
}

API int64_t strata_session_token_piece(const strata_session *s, int32_t tok, int special, char *buf, size_t cap) {
    if (tok < 0 || tok >= (int32_t)s->st.md.n_vocab) {
        return -1;
    }
    return strata_token_piece(s->vocab, tok, special, buf, cap);
}

API int strata_session_eval(strata_session *s, int32_t seq, const int32_t *tokens, size_t n, size_t logits_from,
                            float *logits) {
    if (seq < 0 || seq >= s->n_seq) {
        logf_(&s->lg, 2, "eval: sequence %d does not exist (the session has %d)", seq, s->n_seq);
        return RC_USAGE;
    }
    if (n == 0) {
        return RC_OK;
    }
    if (tokens == NULL || (logits_from < n && logits == NULL)) {
        logf_(&s->lg, 2, "eval: no tokens or no logits buffer");
        return RC_USAGE;
    }
    size_t past = (size_t)s->kv.n_past[seq];
    if (past + n > s->st.cells) {
        logf_(&s->lg, 2, "eval: %zu positions held + %zu new exceed the pool's %zu cells (--ctx %ld + %d)", past, n,
              s->st.cells, s->st.o.ctx, STRATA_KV_EXTRA_CELLS);
        return RC_USAGE;
    }
    for (size_t i = 0; i < n; i++) {
        if (tokens[i] < 0 || tokens[i] >= (int32_t)s->st.md.n_vocab) {
            logf_(&s->lg, 2, "eval: token id %d at %zu is outside the vocabulary (0..%u)", tokens[i], i,
                  s->st.md.n_vocab - 1);
            return RC_USAGE;
        }
    }
    double t0 = now_s(), last = t0;
    /* in pieces, so a long prompt shows progress and answers a cancel between pieces */
    const size_t piece = n > 4 * STRATA_BATCH ? 4 * STRATA_BATCH : n;
    for (size_t i = 0; i < n; i += piece) {
        size_t m = n - i < piece ? n - i : piece;
        size_t lf = logits_from <= i ? 0 : (logits_from - i >= m ? m : logits_from - i);
        float *out = logits_from < i + m ? logits + (i + lf - logits_from) * s->st.md.n_vocab : NULL;
        int rc = strata_forward(&s->fwd, seq, tokens + i, m, past + i, lf, out);
        if (rc == 1) {
            atomic_store(s->cancel, 0); /* a cancel is consumed by the eval it stops */
            return RC_CANCELLED;
        }
        if (rc != 0) {
            if (s->arena.io_error != 0) {
                logf_(&s->lg, 2, "experts: reading block %u's experts from the shards failed (%s)", s->arena.err_layer,
                      strerror(s->arena.io_error));
            } else {
                logf_(&s->lg, 2, "kv: encode failed (format %s, head_dim %d)", STRATA_FORMAT_NAMES[s->kv.format],
                      s->kv.hd);
            }
            return RC_USAGE;
        }
        double t = now_s();
        if (n > 4 * STRATA_BATCH && t - last >= 0.5 && i + m < n) {
            logf_(&s->lg, 0, "progress: phase=prefill done=%zu total=%zu", i + m, n);
            last = t;
        }
    }
    memcpy(s->tokens + (size_t)seq * s->st.cells + past, tokens, n * sizeof *tokens);
    s->kv.n_past[seq] = (int32_t)(past + n);
    double dt = now_s() - t0;
    if (n > 1) {
        s->prefill_tokens += n;
        s->prefill_seconds += dt;
    } else {
        s->decode_tokens += n;
        s->decode_seconds += dt;
    }
    return RC_OK;
}

API int32_t strata_session_n_past(const strata_session *s, int32_t seq) {
    return seq >= 0 && seq < s->n_seq ? s->kv.n_past[seq] : -1;
}

API int strata_session_truncate(strata_session *s, int32_t seq, int32_t n_keep) {
    if (seq < 0 || seq >= s->n_seq || n_keep < 0 || n_keep > s->kv.n_past[seq]) {
        logf_(&s->lg, 2, "truncate: sequence %d cannot keep %d positions", seq, n_keep);
        return RC_USAGE;
    }
    s->kv.n_past[seq] = n_keep; /* the cells past n_keep are overwritten by the next eval */
    return RC_OK;
}

API int32_t strata_session_sample(const strata_session *s, const float *logits, float temp, int32_t top_k,
                                  float top_p, uint64_t *rng) {
    uint64_t local = 0;
    return strata_sample(logits, (int32_t)s->st.md.n_vocab, temp, top_k, top_p, rng != NULL ? rng : &local);
}

API void strata_session_cancel(strata_session *s) { atomic_store(s->cancel, 1); }

API int64_t strata_session_stats(const strata_session *s, char *buf, size_t cap) {
    char line[768];
    const strata_arena *a = &s->arena;
    int n = snprintf(line, sizeof line,
                     "prefill_tokens=%llu prefill_seconds=%.3f decode_tokens=%llu decode_seconds=%.3f lookups=%llu "
                     "hits=%llu misses=%llu evictions=%llu bytes_read=%llu read_seconds=%.3f slots=%llu slots_used=%llu "
                     "peak_rss_bytes=%llu policy=%s",
                     (unsigned long long)s->prefill_tokens, s->prefill_seconds, (unsigned long long)s->decode_tokens,
                     s->decode_seconds, (unsigned long long)a->lookups, (unsigned long long)a->hits,
                     (unsigned long long)a->misses, (unsigned long long)a->evictions, (unsigned long long)a->bytes_read,
                     a->read_seconds, (unsigned long long)s->st.plan.arena_slots,
                     (unsigned long long)(a->resident ? s->st.plan.arena_slots : a->slots_used),
                     (unsigned long long)strata_peak_rss_bytes(), a->policy == STRATA_ARENA_LFU ? "lfu" : "lru");
    if (n < 0) {
        return -1;
    }
    if (buf != NULL && cap > 0) {
        size_t c = (size_t)n < cap ? (size_t)n : cap - 1;
        memcpy(buf, line, c);
        buf[c] = 0;
    }
    return n;
}

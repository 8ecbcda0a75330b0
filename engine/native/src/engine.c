/* engine.c — strata-ref's C ABI entry points (strata_engine.h): the version, the check (ABI 2), main's workload, the
 * KV record functions. The rules are startup.c's, the session session.c's, the forward pass forward.c's. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ref_internal.h"
#include "session.h"
#include "strata_engine.h"
#include "strata_kernels.h"

#define API __attribute__((visibility("default")))

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "strata_engine_cancel needs a lock-free atomic int");

/* Set by strata_engine_cancel (any thread, or a signal handler: a lock-free atomic store is
 * async-signal-safe); cleared when strata_engine_main starts. */
static atomic_int g_cancel;

#ifdef STRATA_REF_ABI1
/* A test build (Makefile target test-libs): the ABI 1 engine the launcher must still run, without the check. */
API int strata_engine_abi_version(void) { return 1; }
#else
API int strata_engine_abi_version(void) { return STRATA_ENGINE_ABI_VERSION; }
#endif

API const char *strata_engine_name(void) { return STRATA_REF_NAME; }

API void strata_engine_cancel(void) { atomic_store(&g_cancel, 1); }


API size_t strata_kv_cell_bytes(int format, int kv_heads, int head_dim) {
    if (kv_heads <= 0) {
        return 0;
    }
    int kf = format == KV_K8V4 ? KV_INT8 : format;
    int vf = format == KV_K8V4 ? KV_Q4_0 : format;
    if (format < KV_FP16 || format > KV_K8V4) {
        return 0;
    }
    size_t k = strata_kernels_record_bytes(kf, head_dim);
    size_t v = strata_kernels_record_bytes(vf, head_dim);
    if (k == 0 || v == 0) {
        return 0;
    }
    return (size_t)kv_heads * (k + v);
}

API int strata_kv_encode(int format, const float *src, size_t n_vectors, int head_dim, uint8_t *dst) {
    if (format < KV_FP16 || format > KV_Q4_0) {
        return -1; /* k8v4 has no single vector record: K and V differ */
    }
    return strata_kernels_encode(format, src, n_vectors, head_dim, dst);
}

API int strata_kv_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim, float *dst) {
    if (format < KV_FP16 || format > KV_Q4_0) {
        return -1;
    }
    return strata_kernels_decode(format, src, n_vectors, head_dim, dst);
}

void strata_fwht256(float *x) {
    for (int h = 1; h < 256; h <<= 1) {
        for (int i = 0; i < 256; i += h << 1) {
            for (int j = i; j < i + h; j++) {
                float a = x[j], b = x[j + h];
                x[j] = a + b;
                x[j + h] = a - b;
            }
        }
    }
    for (int i = 0; i < 256; i++) {
        x[i] *= 0.0625f;
    }
}

#ifndef STRATA_REF_ABI1
API int strata_engine_check(int argc, const char *const *argv, strata_log_fn log, void *user) {
    logger lg = {log, user};
    strata_startup s;
    logf_(&lg, 0, "%s: checking", STRATA_REF_NAME);
    int rc = strata_startup_run(argc, argv, &lg, &s);
    if (rc != RC_OK) {
        return rc;
    }
    /* the items main would allocate, by the same plan, as `plan: item=… bytes=…` (nothing allocated here) */
    for (int i = 0; i < s.plan.n_items; i++) {
        char line[128];
        if (strata_memory_item_line(&s.plan, i, "plan", line, sizeof line) == 0) {
            logf_(&lg, 0, "%s", line);
        }
    }
    strata_startup_free(&s);
    return RC_OK;
}
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (all threads): steadier than wall time on a loaded machine. */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void inject_fault(int fault) {
    if (fault == 1) {
        volatile int *volatile p = NULL;
        *p = 11; /* a real invalid write, as a native bug would be */
        raise(SIGSEGV);
    }
    abort();
}

/* A prompt of n token ids for the benchmark workload: splitmix64 from a fixed seed, over the vocabulary. */
static void synthetic_prompt(int32_t *t, size_t n, int32_t n_vocab) {
    uint64_t s = 0x5eed5eedULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        t[i] = (int32_t)((z ^ (z >> 31)) % (uint64_t)n_vocab);
    }
}

/* main's workload: the model run for real on a synthetic prompt of --prompt-tokens ids, then --n-predict tokens
 * decoded greedily, one at a time, each from the pools (docs/ENGINE-ABI.md). Text generation from a prompt is the
 * session API's (strata-launch --prompt). */
API int strata_engine_main(int argc, const char *const *argv, strata_log_fn log, void *user) {
    logger lg = {log, user};
    atomic_store(&g_cancel, 0);
    logf_(&lg, 0, "%s: starting", STRATA_REF_NAME);
    const uint64_t start_rss = strata_rss_bytes(); /* before the engine holds anything: what the plan does not count */
    int rc = RC_OK;
    strata_session *s = strata_session_open_internal(argc, argv, log, user, &rc, &g_cancel);
    if (s == NULL) {
        return rc;
    }
    if (s->st.o.fault != 0) {
        logf_(&lg, 1, "fault: injecting %s as asked (--fault)", s->st.o.fault == 1 ? "segv" : "abort");
        inject_fault(s->st.o.fault);
    }
    const int32_t V = strata_session_n_vocab(s);
    const size_t np = (size_t)s->st.o.prompt_tokens, steps = (size_t)s->st.o.n_predict;
    int32_t *prompt = malloc((np > 0 ? np : 1) * sizeof *prompt);
    float *logits = malloc((size_t)V * sizeof *logits);
    if (prompt == NULL || logits == NULL) {
        logf_(&lg, 2, "engine: out of memory");
        rc = RC_NOMEM;
        goto done;
    }
    synthetic_prompt(prompt, np, V);
    double t0 = now_s();
    rc = strata_session_eval(s, 0, prompt, np, np > 0 ? np - 1 : 0, logits);
    if (rc != RC_OK) {
        goto done;
    }
    double t_prefill = now_s() - t0;
    logf_(&lg, 0, "prefill: tokens=%zu seconds=%.3f tok_s=%.1f", np, t_prefill,
          t_prefill > 0 ? (double)np / t_prefill : 0.0);
    /* decode: greedy, each token fed back; the checksum is the FNV-1a of the ids made */
    uint64_t fnv = 0xcbf29ce484222325ULL;
    int32_t tok = np > 0 ? strata_session_sample(s, logits, 0.0f, 0, 1.0f, NULL) : 0;
    /* the decode phase's own reads, for the plan's expectation per decoded token (PlanText "expected reads") */
    const uint64_t misses0 = s->arena.misses, read0 = s->arena.bytes_read;
    t0 = now_s();
    double c0 = cpu_s();
    for (size_t step = 0; step < steps; step++) {
        rc = strata_session_eval(s, 0, &tok, 1, 0, logits);
        if (rc != RC_OK) {
            goto done;
        }
        fnv = (fnv ^ (uint32_t)tok) * 0x100000001b3ULL;
        tok = strata_session_sample(s, logits, 0.0f, 0, 1.0f, NULL);
    }
    double t_decode = now_s() - t0, c_decode = cpu_s() - c0;
    logf_(&lg, 0, "decode: tokens=%zu seconds=%.3f tok_s=%.1f", steps, t_decode,
          t_decode > 0 ? (double)steps / t_decode : 0.0);
    logf_(&lg, 0, "decode-cpu: seconds=%.3f ms_per_token=%.2f", c_decode,
          steps > 0 ? 1000.0 * c_decode / (double)steps : 0.0);
    logf_(&lg, 0, "checksum: fnv1a64=%016llx tokens=%zu", (unsigned long long)fnv, steps);
    if (s->have_arena && s->arena.layers > 0) {
        const strata_arena *a = &s->arena;
        uint64_t tokens = np + steps;
        logf_(&lg, 0,
              "arena: mode=%s slots=%llu slots_used=%llu lookups=%llu hits=%llu misses=%llu miss_rate=%.4f "
              "bytes_read=%llu bytes_read_per_token=%llu evictions=%llu read_seconds=%.3f policy=%s cache=%s "
              "decode_tokens=%zu decode_misses=%llu decode_read_bytes=%llu",
              a->resident ? "resident" : "stream", (unsigned long long)s->st.plan.arena_slots,
              (unsigned long long)(a->resident ? s->st.plan.arena_slots : a->slots_used),
              (unsigned long long)a->lookups, (unsigned long long)a->hits, (unsigned long long)a->misses,
              a->lookups > 0 ? (double)a->misses / (double)a->lookups : 0.0, (unsigned long long)a->bytes_read,
              tokens > 0 ? (unsigned long long)(a->bytes_read / tokens) : 0ull, (unsigned long long)a->evictions,
              a->read_seconds, a->policy == STRATA_ARENA_LFU ? "lfu" : "lru", a->drop_cache ? "drop" : "keep", steps,
              (unsigned long long)(a->misses - misses0), (unsigned long long)(a->bytes_read - read0));
    }
    logf_(&lg, 0, "memory: peak_rss_bytes=%llu allocated_bytes=%llu start_rss_bytes=%llu",
          (unsigned long long)strata_peak_rss_bytes(), (unsigned long long)s->st.plan.allocated,
          (unsigned long long)start_rss);
done:
    if (rc == RC_CANCELLED) {
        logf_(&lg, 1, "cancelled: stopping (exit 130)");
    }
    free(prompt);
    free(logits);
    strata_session_close(s);
    return rc;
}

/* engine.c — strata-ref: the C ABI of strata_engine.h, the startup rules of the Metal engine, and a
 * synthetic KV workload (prefill + decode attention straight from the pools) on the model's real geometry. */
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

#include "arena.h"
#include "ref_internal.h"
#include "strata_engine.h"
#include "strata_kernels.h"

#define API __attribute__((visibility("default")))

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "strata_engine_cancel needs a lock-free atomic int");

/* Set by strata_engine_cancel (any thread, or a signal handler: a lock-free atomic store is
 * async-signal-safe); cleared when strata_engine_main starts. */
static atomic_int g_cancel;

static const char *const FORMAT_NAMES[] = {"fp16", "int8", "q4_0", "k8v4"};

/* The refusal texts of dev.strata.engine.kv.KvRules, verbatim (a Java test compares them). */
static const char K8V4_REFUSAL[] = "metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or q4_0)";
static const char KV_ROT_INT8_REFUSAL[] =
    "metal window: STRATA_KV_ROT=1 with --kv int8 is refused on Metal: the snapshot tag would"
    " claim a rotation the int8 pools do not have (unset STRATA_KV_ROT, or use --kv q4_0,"
    " whose rotation is built in)";
static const char FP16_NOTE[] = "kv: --kv fp16 runs on the int8 pools on Metal (one path: the log says KV int8)";

/* Exit codes (docs/ENGINE-ABI.md). */
enum { RC_OK = 0, RC_USAGE = 2, RC_REFUSED = 3, RC_NOMEM = 4, RC_CANCELLED = 130 };

#ifdef STRATA_REF_ABI1
/* A test build (Makefile target test-libs): the ABI 1 engine the launcher must still run, without the check. */
API int strata_engine_abi_version(void) { return 1; }
#else
/* 2 until the session API is implemented (work in progress, 2026-12-01). */
API int strata_engine_abi_version(void) { return 2; }
#endif

API const char *strata_engine_name(void) { return STRATA_REF_NAME; }

API void strata_engine_cancel(void) { atomic_store(&g_cancel, 1); }

static int cancelled(void) { return atomic_load_explicit(&g_cancel, memory_order_relaxed) != 0; }

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

/* ---- logging ---- */

typedef struct {
    strata_log_fn fn;
    void *user;
} logger;

__attribute__((format(printf, 3, 4))) static void logf_(const logger *lg, int level, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (lg->fn != NULL) {
        lg->fn(lg->user, level, line);
    } else {
        fprintf(stderr, "%s\n", line);
    }
}

/* ---- random numbers: splitmix64 per (stream, layer, position, head), so results do not depend on threads ---- */

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct {
    uint64_t s;
} rng;

static inline uint64_t next64(rng *r) { return mix64(r->s += 0x9e3779b97f4a7c15ULL); }

static rng rng_for(uint64_t stream, uint64_t layer, uint64_t pos, uint64_t head) {
    rng r = {mix64(0x5eed5eedULL ^ stream * 0x100000001b3ULL) ^ mix64(layer * 0x9e3779b97f4a7c15ULL + pos) ^
             mix64(head + 0x632be59bd9b4e019ULL * (pos + 1))};
    return r;
}

/* Approximately standard normal values: Irwin–Hall sum of four 16-bit uniforms, rescaled (cheap enough to fill
 * 32K-cell pools in the prefill; the workload needs realistic spreads, not exact tails). */
static void fill_normal(rng *r, float *x, int n) {
    const float scale = 1.7320508f / 65536.0f; /* var(sum of 4 U(0,1)) = 1/3 */
    for (int i = 0; i < n; i++) {
        uint64_t b = next64(r);
        float s = (float)((b & 0xffff) + ((b >> 16) & 0xffff) + ((b >> 32) & 0xffff) + (b >> 48));
        x[i] = (s - 131070.0f) * scale;
    }
}

/* ---- a small thread pool: items of a job are claimed with an atomic counter; the caller works too ---- */

typedef void (*job_fn)(void *ctx, size_t item);

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    pthread_t *threads;
    int n_threads, started, stop;
    unsigned long generation;
    int busy;
    job_fn fn;
    void *ctx;
    size_t n_items;
    atomic_size_t next;
} pool;

static void drain(pool *p) {
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n_items) {
            return;
        }
        p->fn(p->ctx, i);
    }
}

static void *worker(void *arg) {
    pool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->generation == seen) {
            pthread_cond_wait(&p->start, &p->mu);
        }
        if (p->stop) {
            break;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        drain(p);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int pool_init(pool *p, int n_threads) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n_threads = n_threads - 1; /* the calling thread is the last worker */
    if (p->n_threads > 0) {
        p->threads = calloc((size_t)p->n_threads, sizeof *p->threads);
        if (p->threads == NULL) {
            return -1;
        }
    }
    for (int i = 0; i < p->n_threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
            break;
        }
        p->started++;
    }
    return 0;
}

static void pool_run(pool *p, size_t n_items, job_fn fn, void *ctx) {
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n_items = n_items;
    atomic_store(&p->next, 0);
    p->busy = p->started;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    drain(p);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0) {
        pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
}

static void pool_free(pool *p) {
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; i++) {
        pthread_join(p->threads[i], NULL);
    }
    free(p->threads);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
}

/* ---- the workload ---- */

enum { PREFILL_SPAN = 256, SPLIT_CELLS = STRATA_SPLIT_CELLS, CHUNK = 64, MAX_HEADS = 64 };

typedef struct {
    int format; /* pool format: KV_INT8 or KV_Q4_0 */
    int layers, heads, hd;
    size_t cell_bytes, krec, vrec;
    uint8_t **pools;
    size_t *layer_cells; /* cells of each pool: full layers ctx + 128, sliding-window ones min(ctx, window) + 128 */
    const strata_fused_ops *ops;
    /* prefill */
    size_t prefill_tokens;
    /* decode step */
    size_t filled;      /* cells attended this step */
    size_t splits;      /* ceil(filled / SPLIT_CELLS) */
    float *queries;     /* layers × heads × hd (rotated for q4_0) */
    float *partials;    /* layers × splits × heads × (hd + 2): m, l, acc */
    int failed;
} work;

static int encode_cell(const work *w, int layer, size_t pos) {
    float kv[2 * MAX_HEADS * 256];
    float *x = kv;
    size_t n = (size_t)w->heads * (size_t)w->hd;
    if (w->hd > 256) {
        return -1; /* never: the geometry is checked against the format before */
    }
    rng r = rng_for(1, (uint64_t)layer, pos, 0);
    fill_normal(&r, x, (int)(2 * n));
    uint8_t *cell = w->pools[layer] + (pos % w->layer_cells[layer]) * w->cell_bytes; /* a window pool is a ring */
    if (strata_kernels_encode(w->format, x, (size_t)w->heads, w->hd, cell) != 0 ||
        strata_kernels_encode(w->format, x + n, (size_t)w->heads, w->hd, cell + (size_t)w->heads * w->krec) != 0) {
        return -1;
    }
    return 0;
}

static void prefill_item(void *ctx, size_t item) {
    work *w = ctx;
    size_t spans = (w->prefill_tokens + PREFILL_SPAN - 1) / PREFILL_SPAN;
    int layer = (int)(item / spans);
    size_t t0 = (item % spans) * PREFILL_SPAN;
    size_t t1 = t0 + PREFILL_SPAN < w->prefill_tokens ? t0 + PREFILL_SPAN : w->prefill_tokens;
    for (size_t t = t0; t < t1 && !cancelled(); t++) {
        if (encode_cell(w, layer, t) != 0) {
            w->failed = 1;
            return;
        }
    }
}

/* One (layer, split): flash-decoding style partial attention over cells [s0, s1) — per chunk of CHUNK cells the
 * scores of every head, a running max, exp, and the weighted V, so each cell's bytes come from memory once. */
static void decode_item(void *ctx, size_t item) {
    work *w = ctx;
    if (cancelled()) {
        return;
    }
    int layer = (int)(item / w->splits);
    size_t split = item % w->splits;
    size_t s0 = split * SPLIT_CELLS;
    size_t attended = w->filled < w->layer_cells[layer] ? w->filled : w->layer_cells[layer];
    size_t s1 = s0 + SPLIT_CELLS < attended ? s0 + SPLIT_CELLS : attended;
    const int H = w->heads, D = w->hd;
    const float *q = w->queries + (size_t)layer * H * D;
    /* partials of one item: m[H], l[H], then acc[H][D] (contiguous, as the axpy kernels want it) */
    float *part = w->partials + ((size_t)layer * w->splits + split) * H * (D + 2);
    float *m = part, *l = part + H, *acc = part + 2 * H;
    float s[MAX_HEADS * CHUNK];
    strata_qq qq[MAX_HEADS]; /* the query at 8 bits per block, for the integer score kernels */
    w->ops->quant_query(w->format, q, H, D, qq);
    for (int h = 0; h < H; h++) {
        m[h] = -INFINITY;
        l[h] = 0.0f;
    }
    memset(acc, 0, sizeof(float) * (size_t)H * (size_t)D);
    const float scale = 1.0f / sqrtf((float)D);
    const uint8_t *base = w->pools[layer];
    for (size_t c0 = s0; c0 < s1; c0 += CHUNK) {
        if (((c0 - s0) & 1023) == 0 && cancelled()) {
            return;
        }
        size_t n = c0 + CHUNK < s1 ? CHUNK : s1 - c0;
        const uint8_t *cells = base + c0 * w->cell_bytes;
        if (w->format == KV_Q4_0) {
            w->ops->score_q4(cells, w->cell_bytes, n, H, D, qq, scale, s);
        } else {
            w->ops->score_int8(cells, w->cell_bytes, n, H, D, qq, scale, s);
        }
        for (int h = 0; h < H; h++) {
            float *sh = s + (size_t)h * n;
            float cm = m[h];
            for (size_t t = 0; t < n; t++) {
                cm = sh[t] > cm ? sh[t] : cm;
            }
            if (cm > m[h]) {
                float f = expf(m[h] - cm); /* 0 on the first chunk */
                float *ah = acc + (size_t)h * D;
                for (int i = 0; i < D; i++) {
                    ah[i] *= f;
                }
                l[h] *= f;
                m[h] = cm;
            }
            l[h] += w->ops->expsum(sh, n, m[h]);
        }
        if (w->format == KV_Q4_0) {
            w->ops->axpy_q4(cells, w->cell_bytes, n, H, D, s, acc);
        } else {
            w->ops->axpy_int8(cells, w->cell_bytes, n, H, D, s, acc);
        }
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (all threads): unlike wall time it does not count the time the engine was
 * waiting for a core, so it stays meaningful on a loaded machine. */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int threads_default(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

static void inject_fault(int fault) {
    if (fault == 1) {
        volatile int *volatile p = NULL;
        *p = 11; /* a real invalid write, as a native bug would be */
        raise(SIGSEGV);
    }
    abort();
}

/* ---- the memory plan's refusal, in the words of the Java MemoryPlan (docs/PLAN.md, "Refusals") ---- */

#define GIB_BYTES (1ull << 30)

/* GiB with two decimals, rounded half-up (Java Units.gib) */
static void gib2(char *b, size_t n, uint64_t bytes) {
    unsigned __int128 v = (unsigned __int128)bytes * 100;
    uint64_t q = (uint64_t)(v / GIB_BYTES), r = (uint64_t)(v % GIB_BYTES);
    q += r * 2 >= GIB_BYTES;
    snprintf(b, n, "%llu.%02llu", (unsigned long long)(q / 100), (unsigned long long)(q % 100));
}

/* GiB with one decimal, rounded up (Java Units.gibUp) */
static void gib_up(char *b, size_t n, uint64_t bytes) {
    unsigned __int128 v = (unsigned __int128)bytes * 10;
    uint64_t q = (uint64_t)((v + GIB_BYTES - 1) / GIB_BYTES);
    snprintf(b, n, "%llu.%llu", (unsigned long long)(q / 10), (unsigned long long)(q % 10));
}

/* an exact count with thousands separators (Java Units.count) */
static void count(char *b, size_t n, uint64_t v) {
    char d[32];
    int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < len && (size_t)o + 2 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0) {
            b[o++] = ',';
        }
        b[o++] = d[i];
    }
    b[o] = '\0';
}

/* What to do when the stream arena cannot hold one token's experts (Java StreamSizing.advice). */
static void stream_advice(char *b, size_t n, const char *lead, const strata_mem_plan *p, const strata_mem_inputs *in,
                          uint64_t stream_fixed, uint64_t context_length) {
    uint64_t per_cell = p->kv_cell_bytes * (in->qsa_layers - in->swa_layers + in->drafter_layers); /* KvPools.bytesPerToken */
    int64_t room = (int64_t)p->budget - (int64_t)(stream_fixed - p->kv) - (int64_t)(p->token_slots * p->slot_bytes);
    int64_t max_ctx = per_cell > 0 ? room / (int64_t)per_cell - 128 : 0;
    int q4 = in->pools_format != KV_Q4_0 && in->head_dim == 256;
    /* --mem-budget-mb lowered the budget below the plan's own (usable - margin): it is the bound, so it is named */
    uint64_t own = p->usable > p->margin ? p->usable - p->margin : 0;
    char flag[128] = "";
    if (in->mem_budget_mb > 0 && p->budget < own) {
        char g[16];
        gib2(g, sizeof g, own);
        snprintf(flag, sizeof flag, "raise or remove --mem-budget-mb (without it the engine may use %s GiB)", g);
    }
    if (max_ctx >= 1) {
        int64_t sug = max_ctx >= 1024 ? max_ctx / 1024 * 1024 : max_ctx;
        if (context_length > 0 && (uint64_t)sug > context_length) {
            sug = (int64_t)context_length;
        }
        snprintf(b, n, "%s a smaller context (--ctx %lld fits)%s%s%s", lead, (long long)sug, q4 ? " or --kv q4_0" : "",
                 flag[0] ? ", or " : "", flag);
    } else if (flag[0]) {
        snprintf(b, n, "the model does not fit even streamed at the smallest context within --mem-budget-mb %llu; %s",
                 (unsigned long long)in->mem_budget_mb, flag);
    } else {
        snprintf(b, n, "the model does not fit even streamed at the smallest context; use a machine with more memory");
    }
}

static void plan_refusal(char *b, size_t n, const strata_mem_plan *p, const strata_mem_inputs *in,
                         uint64_t context_length) {
    char tok[32], tokg[16], dense[96], kv[16], sb[16], hr[16], bud[16], sh[16], adv[256], scr[48];
    /* the stream figures, also used to advise a refused resident plan */
    strata_mem_inputs si = *in;
    si.experts_resident = 0;
    strata_mem_plan sp;
    strata_memory_plan(&si, &sp);
    uint64_t token_bytes = p->token_slots * p->slot_bytes;
    gib2(dense, sizeof dense, p->dense);
    /* as the Java MemoryPlan names them: "dense X + recurrent state Y + MTP drafter Z" */
    if (p->ssm_state > 0) {
        char g[16];
        gib2(g, sizeof g, p->ssm_state);
        snprintf(dense + strlen(dense), sizeof dense - strlen(dense), " + recurrent state %s", g);
    }
    if (in->drafter_bytes > 0) {
        char g[16];
        gib2(g, sizeof g, in->drafter_bytes);
        snprintf(dense + strlen(dense), sizeof dense - strlen(dense), " + MTP drafter %s", g);
    }
    gib2(kv, sizeof kv, p->kv);
    gib2(bud, sizeof bud, p->budget);
    scr[0] = '\0';
    if (p->scratch > 0) { /* strata-ref's own buffers: a term of the sum only where the plan has them */
        char g[16];
        gib2(g, sizeof g, p->scratch);
        snprintf(scr, sizeof scr, " + scratch %s", g);
    }
    if (!in->experts_resident) {
        count(tok, sizeof tok, p->token_slots);
        gib2(tokg, sizeof tokg, token_bytes);
        gib2(sb, sizeof sb, p->standby);
        gib2(hr, sizeof hr, p->headroom);
        gib_up(sh, sizeof sh, p->shortfall);
        stream_advice(adv, sizeof adv, "use", p, in, sp.fixed, context_length);
        snprintf(b, n,
                 "stream: the expert arena cannot hold one token's experts (%s slots, %s GiB) after dense %s + KV %s + "
                 "stand-by %s + page-cache headroom %s%s GiB in the %s GiB the engine may use; short by %s GiB; %s",
                 tok, tokg, dense, kv, sb, hr, scr, bud, sh, adv);
        return;
    }
    char all[16], need[16], use[16], mar[16];
    gib2(all, sizeof all, p->arena);
    gib2(need, sizeof need, p->fixed + p->arena);
    gib2(use, sizeof use, p->usable);
    gib2(mar, sizeof mar, p->margin);
    gib_up(sh, sizeof sh, p->shortfall);
    if (sp.fits) {
        snprintf(adv, sizeof adv, "use --experts stream");
    } else {
        stream_advice(adv, sizeof adv, "use --experts stream with", &sp, in, sp.fixed, context_length);
    }
    snprintf(b, n,
             "resident: dense %s + KV %s + every expert %s%s = %s GiB, over the %s GiB the engine may use (%s GiB "
             "usable - %s GiB margin) by %s GiB; %s",
             dense, kv, all, scr, need, bud, use, mar, sh, adv);
}

/* What the startup rules found: main goes on from here, the check reports it. */
typedef struct {
    strata_opts o;
    strata_geometry g;
    strata_expert_index ix; /* freed by the caller when startup_rules returned RC_OK */
    int format;             /* pool format: KV_INT8 or KV_Q4_0 */
    size_t cell_bytes;      /* one cell of one layer: K and V of every KV head */
    size_t cells;           /* per full-attention pool: --ctx + 128 */
    size_t swa_cells;       /* per sliding-window pool: min(--ctx, window) + 128 */
    uint32_t n_pools;       /* attention pools: main layers + the drafter's when --spec > 0 */
    size_t total_bytes;     /* every pool */
    size_t state_bytes;     /* recurrent state of one sequence */
    strata_mem_inputs mi;
    strata_mem_plan plan;
} startup;

/* Every rule strata_engine_main applies before it allocates or runs anything, in its order, logging as main
 * logs: flags, the KV rules, the model, the pool rules, the memory plan (memory.c). The one place these rules
 * live: strata_engine_check calls it too, so the check's verdict is main's (docs/ENGINE-ABI.md, ABI 2).
 * Returns RC_OK (s->ix then holds the expert index, to free), or the code main returns, its error logged. */
static int startup_rules(int argc, const char *const *argv, const logger *lg, startup *s, char *err,
                         size_t errlen) {
    memset(s, 0, sizeof *s);
    if (argc < 0 || (argc > 0 && argv == NULL)) {
        logf_(lg, 2, "flags: bad argv (argc=%d)", argc);
        return RC_USAGE;
    }
    strata_opts *o = &s->o;
    if (strata_parse_flags(argc, argv, o, err, errlen) != 0) {
        logf_(lg, 2, "%s", err);
        return RC_USAGE;
    }

    /* The Metal engine's startup rules (docs/ENGINE-CONTRACT.md, KV formats), before anything is read or allocated. */
    const char *rot_env = getenv("STRATA_KV_ROT");
    int rot_on = rot_env != NULL && atoi(rot_env) != 0;
    if (o->kv == KV_K8V4) {
        logf_(lg, 2, "%s", K8V4_REFUSAL);
        return RC_REFUSED;
    }
    if (o->kv == KV_INT8 && rot_on) {
        logf_(lg, 2, "%s", KV_ROT_INT8_REFUSAL);
        return RC_REFUSED;
    }
    int format = o->kv == KV_Q4_0 ? KV_Q4_0 : KV_INT8;
    s->format = format;
    if (o->kv == KV_FP16) {
        logf_(lg, 0, "%s", FP16_NOTE);
    }

    strata_geometry *g = &s->g;
    if (strata_gguf_read(o->model, g, &s->ix, err, errlen) != 0) {
        logf_(lg, 2, "%s", err);
        return RC_USAGE;
    }
    logf_(lg, 0, "model: arch=%s blocks=%u qsa_layers=%u kv_heads=%u head_dim=%u shards=%u", g->arch, g->blocks,
          g->qsa_layers, g->kv_heads, g->head_dim, g->shards);
    if (g->head_dim_v != g->head_dim) {
        logf_(lg, 2, "kv: K head_dim %u and V head_dim %u differ; the Metal KV pools and strata-ref hold one head "
                      "size for K and V (the pc engine plans both)", g->head_dim, g->head_dim_v);
        strata_expert_index_free(&s->ix);
        return RC_REFUSED;
    }
    size_t cell_bytes = strata_kv_cell_bytes(format, (int)g->kv_heads, (int)g->head_dim);
    s->cell_bytes = cell_bytes;
    if (cell_bytes == 0 || g->head_dim > 256 || g->kv_heads > MAX_HEADS) {
        logf_(lg, 2, "kv: --kv %s pools cannot hold this %s model's head_dim %u with %u KV heads (int8 needs a "
                      "multiple of 64 up to 256, q4_0 exactly 256, at most %d KV heads); %s", FORMAT_NAMES[format],
              g->arch, g->head_dim, g->kv_heads, MAX_HEADS,
              g->kv_heads <= MAX_HEADS && g->head_dim == 256 ? "use --kv int8 or --kv q4_0"
              : g->kv_heads <= MAX_HEADS && g->head_dim % 64 == 0 && g->head_dim <= 256 ? "use --kv int8"
                                                                                     : "the pc engine runs it with --kv fp16");
        strata_expert_index_free(&s->ix);
        return RC_REFUSED;
    }
    size_t cells = (size_t)o->ctx + 128;
    s->cells = cells;
    if ((size_t)o->prompt_tokens + (size_t)o->n_predict > cells) {
        logf_(lg, 2, "flags: --prompt-tokens %ld + --n-predict %ld exceed the pool's %zu cells (--ctx %ld + 128)",
              o->prompt_tokens, o->n_predict, cells, o->ctx);
        strata_expert_index_free(&s->ix);
        return RC_USAGE;
    }
    /* pools: full-attention layers hold ctx + 128 cells, sliding-window ones min(ctx, window) + 128, the MTP
     * drafter's attention layers (when --spec > 0) ctx + 128 (docs/MODELS.md) */
    uint32_t drafter_layers = o->spec > 0 ? g->drafter_kv_layers : 0;
    if (o->spec > 0 && g->drafter_blocks == 0) {
        logf_(lg, 1, "spec: --spec %ld asks for MTP drafting but the model has no MTP block (%s.nextn_predict_layers);"
                      " the engine runs without drafting", o->spec, g->arch);
    }
    size_t swa_cells = g->swa_layers > 0 ? ((uint64_t)o->ctx < g->swa_window ? (size_t)o->ctx : (size_t)g->swa_window) + 128
                                        : 0;
    uint32_t full_layers = g->qsa_layers - g->swa_layers;
    uint32_t n_pools = g->qsa_layers + drafter_layers;
    size_t total_bytes = cell_bytes * (cells * (full_layers + drafter_layers) + swa_cells * g->swa_layers);
    if (g->swa_layers == 0 && drafter_layers == 0) {
        logf_(lg, 0, "kv: format=%s cell_bytes=%zu layers=%u cells=%zu bytes=%zu", FORMAT_NAMES[format], cell_bytes,
              g->qsa_layers, cells, total_bytes);
    } else {
        logf_(lg, 0, "kv: format=%s cell_bytes=%zu layers=%u cells=%zu swa_layers=%u swa_cells=%zu drafter_layers=%u "
                      "bytes=%zu", FORMAT_NAMES[format], cell_bytes, full_layers, cells, g->swa_layers, swa_cells,
              drafter_layers, total_bytes);
    }
    s->swa_cells = swa_cells;
    s->n_pools = n_pools;
    s->total_bytes = total_bytes;
    size_t state_bytes = (size_t)g->state_bytes_per_layer * g->recurrent_layers;
    if (state_bytes > 0) {
        logf_(lg, 0, "state: layers=%u bytes_per_layer=%llu bytes=%zu", g->recurrent_layers,
              (unsigned long long)g->state_bytes_per_layer, state_bytes);
    }
    s->state_bytes = state_bytes;
    /* The memory plan (memory.c): every buffer main allocates is allocated at exactly the size it gives. */
    strata_mem_inputs mi = {
        .qsa_layers = g->qsa_layers, .kv_heads = g->kv_heads, .head_dim = g->head_dim,
        .experts = g->experts, .experts_used = g->experts_used, .moe_layers = g->moe_layers,
        .expert_bytes = g->expert_bytes, .dense_bytes = g->dense_bytes, .ssm_state_bytes = state_bytes,
        .swa_layers = g->swa_layers, .swa_cells = swa_cells, .drafter_layers = drafter_layers,
        .drafter_bytes = o->spec > 0 ? g->drafter_bytes : 0,
        .context = (uint64_t)o->ctx, .experts_resident = o->experts_resident, .pools_format = format,
        .mem_budget_mb = (uint64_t)o->mem_budget_mb, .total_memory = strata_memory_total(), .k4 = 0,
        .env_prompt = getenv("STRATA_METAL_PROMPT"), .env_prompt_gemm = getenv("STRATA_METAL_PROMPT_GEMM"),
    };
    s->mi = mi;
    strata_mem_plan *plan = &s->plan;
    strata_memory_plan(&s->mi, plan);
    logf_(lg, 0,
          "memory: total=%llu budget=%llu dense=%llu headroom=%llu arena_slots=%llu model_slots=%llu token_slots=%llu "
          "slot_bytes=%llu standby_slots=%u",
          (unsigned long long)plan->total, (unsigned long long)plan->budget, (unsigned long long)plan->dense,
          (unsigned long long)plan->headroom, (unsigned long long)plan->arena_slots,
          (unsigned long long)plan->model_slots, (unsigned long long)plan->token_slots,
          (unsigned long long)plan->slot_bytes, o->experts_resident ? 0u : plan->standby_rule_slots);
    if (!plan->fits) {
        char why[1024];
        plan_refusal(why, sizeof why, plan, &s->mi, g->context_length);
        logf_(lg, 2, "%s", why);
        strata_expert_index_free(&s->ix);
        return RC_REFUSED;
    }
    return RC_OK;
}

#ifndef STRATA_REF_ABI1
API int strata_engine_check(int argc, const char *const *argv, strata_log_fn log, void *user) {
    logger lg = {log, user};
    char err[STRATA_GGUF_ERR_MAX + 64];
    startup s;
    logf_(&lg, 0, "%s: checking", STRATA_REF_NAME);
    int rc = startup_rules(argc, argv, &lg, &s, err, sizeof err);
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
    strata_expert_index_free(&s.ix);
    return RC_OK;
}
#endif

API int strata_engine_main(int argc, const char *const *argv, strata_log_fn log, void *user) {
    logger lg = {log, user};
    atomic_store(&g_cancel, 0);
    char err[STRATA_GGUF_ERR_MAX + 64];
    logf_(&lg, 0, "%s: starting", STRATA_REF_NAME);
    startup s;
    int src = startup_rules(argc, argv, &lg, &s, err, sizeof err);
    if (src != RC_OK) {
        return src;
    }
    const strata_opts o = s.o;
    const strata_geometry g = s.g;
    strata_expert_index ix = s.ix;
    const int format = s.format;
    const size_t cell_bytes = s.cell_bytes, cells = s.cells, swa_cells = s.swa_cells;
    const size_t total_bytes = s.total_bytes, state_bytes = s.state_bytes;
    const uint32_t n_pools = s.n_pools;
    strata_mem_plan plan = s.plan;
    /* each buffer logged once, before any is allocated, as `alloc: item=… bytes=…` */
    for (int i = 0; i < plan.n_items; i++) {
        char line[128];
        if (strata_memory_item_line(&plan, i, "alloc", line, sizeof line) == 0) {
            logf_(&lg, 0, "%s", line);
        }
    }
    int n_threads = o.threads > 0 ? (int)o.threads : threads_default();
    const strata_fused_ops *ops = strata_fused_best();
    logf_(&lg, 0, "engine: threads=%d kernels=%s experts=%s spec=%ld suffix_draft=%ld mem_budget_mb=%ld", n_threads,
          ops->isa, o.experts_resident ? "resident" : "stream", o.spec, o.suffix_draft, o.mem_budget_mb);
    if (o.fault != 0) {
        logf_(&lg, 1, "fault: injecting %s as asked (--fault)", o.fault == 1 ? "segv" : "abort");
        inject_fault(o.fault);
    }

    int rc = RC_OK;
    strata_arena arena;
    memset(&arena, 0, sizeof arena);
    work w;
    memset(&w, 0, sizeof w);
    w.format = format;
    w.layers = (int)n_pools;
    w.heads = (int)g.kv_heads;
    w.hd = (int)g.head_dim;
    w.cell_bytes = cell_bytes;
    w.krec = w.vrec = strata_kernels_record_bytes(format, w.hd);
    w.ops = ops;
    size_t max_splits = (cells + SPLIT_CELLS - 1) / SPLIT_CELLS;
    pool tp;
    int have_pool = 0;
    w.pools = calloc((size_t)w.layers, sizeof *w.pools);
    w.layer_cells = calloc((size_t)w.layers, sizeof *w.layer_cells);
    /* recurrent state of one sequence, zeroed as a real engine starts a sequence (so it is resident) */
    uint8_t *state = state_bytes > 0 ? malloc(state_bytes) : NULL;
    if (state != NULL) {
        memset(state, 0, state_bytes);
    }
    w.queries = malloc(sizeof(float) * (size_t)w.layers * (size_t)w.heads * (size_t)w.hd);
    w.partials = malloc(sizeof(float) * (size_t)w.layers * max_splits * (size_t)w.heads * (size_t)(w.hd + 2));
    float *out = malloc(sizeof(float) * (size_t)w.hd);
    int oom = w.pools == NULL || w.layer_cells == NULL || w.queries == NULL || w.partials == NULL || out == NULL ||
              (state_bytes > 0 && state == NULL);
    for (int i = 0; !oom && i < w.layers; i++) {
        /* the sliding-window pools first (they are the model's first attention layers in every pattern that
         * matters here: only the sizes are synthetic), then full and drafter pools */
        w.layer_cells[i] = (uint32_t)i < g.swa_layers ? swa_cells : cells;
        /* calloc: the kernel hands out zero pages lazily, so untouched cells cost no memory */
        w.pools[i] = calloc(w.layer_cells[i], cell_bytes);
        oom = w.pools[i] == NULL;
    }
    if (oom || pool_init(&tp, n_threads) != 0) {
        logf_(&lg, 2, "kv: out of memory allocating %zu bytes of pools (lower --ctx, or use --kv q4_0)", total_bytes);
        rc = RC_NOMEM;
        goto done;
    }
    have_pool = 1;
    int arc = strata_arena_open(&arena, &plan, &g, &ix, o.model, o.experts_resident, err, sizeof err);
    if (arc != 0) {
        if (arc == STRATA_ARENA_NOMEM) {
            logf_(&lg, 2, "experts: out of memory allocating the arena (%llu slots, %llu bytes) and stand-by (%llu "
                          "bytes); lower --mem-budget-mb", (unsigned long long)plan.arena_slots,
                  (unsigned long long)plan.arena, (unsigned long long)plan.standby);
            rc = RC_NOMEM;
        } else {
            logf_(&lg, 2, "%s", err);
            rc = RC_USAGE;
        }
        goto done;
    }

    /* prefill: --prompt-tokens cells per QSA layer, every KV head's K and V */
    w.prefill_tokens = (size_t)o.prompt_tokens;
    double t0 = now_s();
    if (w.prefill_tokens > 0) {
        pool_run(&tp, (size_t)w.layers * ((w.prefill_tokens + PREFILL_SPAN - 1) / PREFILL_SPAN), prefill_item, &w);
    }
    double t_prefill = now_s() - t0;
    if (cancelled()) {
        rc = RC_CANCELLED;
        goto done;
    }
    if (w.failed) {
        logf_(&lg, 2, "kv: encode failed (format %s, head_dim %d)", FORMAT_NAMES[format], w.hd);
        rc = RC_REFUSED;
        goto done;
    }
    logf_(&lg, 0, "prefill: tokens=%zu seconds=%.3f tok_s=%.1f", w.prefill_tokens, t_prefill,
          t_prefill > 0 ? (double)w.prefill_tokens / t_prefill : 0.0);

    /* decode: append one cell per layer, then attention of a rotated query over every filled cell */
    uint64_t fnv = 0xcbf29ce484222325ULL;
    double sum = 0.0;
    size_t steps = (size_t)o.n_predict;
    double t_experts = 0.0;
    t0 = now_s();
    double c0 = cpu_s();
    for (size_t step = 0; step < steps; step++) {
        size_t pos = w.prefill_tokens + step;
        for (int layer = 0; layer < w.layers; layer++) {
            if (encode_cell(&w, layer, pos) != 0) {
                w.failed = 1;
            }
            for (int h = 0; h < w.heads; h++) {
                float *q = w.queries + ((size_t)layer * w.heads + h) * w.hd;
                rng r = rng_for(2, (uint64_t)layer, pos, (uint64_t)h);
                fill_normal(&r, q, w.hd);
                if (format == KV_Q4_0) {
                    strata_fwht256(q); /* dot(Rq, Rk) = dot(q, k): K stays rotated */
                }
            }
        }
        w.filled = pos + 1;
        w.splits = (w.filled + SPLIT_CELLS - 1) / SPLIT_CELLS;
        pool_run(&tp, (size_t)w.layers * w.splits, decode_item, &w);
        if (cancelled()) {
            rc = RC_CANCELLED;
            goto done;
        }
        /* the experts of this token: every MoE layer routes, hits use their slot, misses read from the shards */
        double e0 = now_s();
        int erc = strata_arena_token(&arena, pos, cancelled);
        if (erc == 1) {
            rc = RC_CANCELLED;
            goto done;
        }
        if (erc != 0) {
            logf_(&lg, 2, "experts: reading block %u's experts from the shards failed (%s)", arena.err_layer,
                  strerror(arena.io_error));
            rc = RC_USAGE;
            goto done;
        }
        t_experts += now_s() - e0;
        /* combine the splits in a fixed order, so the outputs do not depend on --threads */
        const int H = w.heads, D = w.hd;
        for (int layer = 0; layer < w.layers; layer++) {
            for (int h = 0; h < H; h++) {
                float mmax = -INFINITY;
                for (size_t sp = 0; sp < w.splits; sp++) {
                    float *part = w.partials + ((size_t)layer * w.splits + sp) * H * (D + 2);
                    mmax = part[h] > mmax ? part[h] : mmax;
                }
                double lsum = 0.0;
                memset(out, 0, sizeof(float) * (size_t)D);
                for (size_t sp = 0; sp < w.splits; sp++) {
                    float *part = w.partials + ((size_t)layer * w.splits + sp) * H * (D + 2);
                    float f = expf(part[h] - mmax);
                    lsum += (double)(part[H + h] * f);
                    const float *acc = part + 2 * H + (size_t)h * D;
                    for (int i = 0; i < D; i++) {
                        out[i] += f * acc[i];
                    }
                }
                float inv = (float)(1.0 / lsum);
                for (int i = 0; i < D; i++) {
                    out[i] *= inv;
                }
                if (format == KV_Q4_0) {
                    strata_fwht256(out); /* the weighted V back out of the rotated domain, once per head */
                }
                for (int i = 0; i < D; i++) {
                    uint32_t bits;
                    memcpy(&bits, &out[i], sizeof bits);
                    fnv = (fnv ^ bits) * 0x100000001b3ULL;
                    sum += out[i];
                }
            }
        }
    }
    double t_decode = now_s() - t0;
    double c_decode = cpu_s() - c0;
    if (w.failed) {
        logf_(&lg, 2, "kv: encode failed (format %s, head_dim %d)", FORMAT_NAMES[format], w.hd);
        rc = RC_REFUSED;
        goto done;
    }
    logf_(&lg, 0, "decode: tokens=%zu seconds=%.3f tok_s=%.1f", steps, t_decode,
          t_decode > 0 ? (double)steps / t_decode : 0.0);
    logf_(&lg, 0, "decode-cpu: seconds=%.3f ms_per_token=%.2f cells_attended=%zu", c_decode,
          steps > 0 ? 1000.0 * c_decode / (double)steps : 0.0,
          steps > 0 ? (size_t)w.layers * (w.prefill_tokens * steps + steps * (steps + 1) / 2) : (size_t)0);
    logf_(&lg, 0, "checksum: fnv1a64=%016llx sum=%.6e", (unsigned long long)fnv, sum);
    if (arena.layers > 0) {
        uint64_t uses = arena.hits + arena.misses;
        logf_(&lg, 0,
              "arena: mode=%s slots=%llu slots_used=%llu hits=%llu misses=%llu miss_rate=%.4f bytes_read=%llu "
              "bytes_read_per_token=%llu evictions=%llu expert_seconds=%.3f",
              arena.resident ? "resident" : "stream", (unsigned long long)plan.arena_slots,
              (unsigned long long)(arena.resident ? plan.arena_slots : arena.slots_used),
              (unsigned long long)arena.hits, (unsigned long long)arena.misses,
              uses > 0 ? (double)arena.misses / (double)uses : 0.0, (unsigned long long)arena.bytes_read,
              steps > 0 ? (unsigned long long)(arena.bytes_read / steps) : 0ull, (unsigned long long)arena.evictions,
              t_experts);
    }
    logf_(&lg, 0, "memory: peak_rss_bytes=%llu allocated_bytes=%llu",
          (unsigned long long)strata_peak_rss_bytes(), (unsigned long long)plan.allocated);

done:
    if (rc == RC_CANCELLED) {
        logf_(&lg, 1, "cancelled: stopping (exit 130)");
    }
    strata_arena_close(&arena);
    strata_expert_index_free(&ix);
    if (have_pool) {
        pool_free(&tp);
    }
    if (w.pools != NULL) {
        for (int i = 0; i < w.layers; i++) {
            free(w.pools[i]);
        }
    }
    free(w.pools);
    free(w.layer_cells);
    free(state);
    free(w.queries);
    free(w.partials);
    free(out);
    return rc;
}

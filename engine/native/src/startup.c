/* startup.c — the startup rules (startup.h) and the memory plan's refusal in the words of the Java MemoryPlan. */
#define _POSIX_C_SOURCE 200809L
#include "startup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forward.h"
#include "vocab.h"
#include "strata_engine.h"

const char *const STRATA_FORMAT_NAMES[4] = {"fp16", "int8", "q4_0", "k8v4"};
#define FORMAT_NAMES STRATA_FORMAT_NAMES
#define MAX_HEADS 64

/* The refusal texts of dev.strata.engine.kv.KvRules, verbatim (a Java test compares them). */
static const char K8V4_REFUSAL[] = "metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or q4_0)";
static const char KV_ROT_INT8_REFUSAL[] =
    "metal window: STRATA_KV_ROT=1 with --kv int8 is refused on Metal: the snapshot tag would"
    " claim a rotation the int8 pools do not have (unset STRATA_KV_ROT, or use --kv q4_0,"
    " whose rotation is built in)";

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
    uint64_t per_cell = p->kv_cell_bytes * (in->qsa_layers - in->swa_layers + in->drafter_layers) *
                        (in->n_seq > 1 ? in->n_seq : 1); /* KvPools.bytesPerToken */
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

static int rules(int argc, const char *const *argv, const logger *lg, strata_startup *s, char *err, size_t errlen) {
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
    /* strata-ref's pools are in the format asked (fp16 is the quality reference); the Metal engine runs --kv fp16
     * on its int8 pools */
    int format = o->kv == KV_Q4_0 ? KV_Q4_0 : o->kv == KV_FP16 ? KV_FP16 : KV_INT8;
    s->format = format;

    strata_geometry *g = &s->g;
    if (strata_gguf_read(o->model, g, &s->ix, err, errlen) != 0) {
        logf_(lg, 2, "%s", err);
        return RC_USAGE;
    }
    logf_(lg, 0, "model: arch=%s blocks=%u qsa_layers=%u kv_heads=%u head_dim=%u shards=%u", g->arch, g->blocks,
          g->qsa_layers, g->kv_heads, g->head_dim, g->shards);
    /* what strata-ref computes: the architecture, every tensor's shape and type (model.c), from the mapped shards */
    if (strata_gguf_map_open(o->model, &s->map, err, errlen) != 0) {
        logf_(lg, 2, "%s", err);
        return RC_USAGE;
    }
    int mrc = strata_model_load(&s->map, &s->md, err, errlen);
    if (mrc != 0) {
        logf_(lg, 2, "%s", err);
        return mrc;
    }
    if (strata_vocab_load(&s->map, &s->vocab, err, errlen) != 0) {
        logf_(lg, 2, "%s", err);
        return RC_REFUSED; /* a tokenizer strata-ref does not implement (or a damaged one): named in the line */
    }
    if (g->head_dim_v != g->head_dim) {
        logf_(lg, 2, "kv: K head_dim %u and V head_dim %u differ; the Metal KV pools and strata-ref hold one head "
                      "size for K and V (the pc engine plans both)", g->head_dim, g->head_dim_v);
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
        return RC_REFUSED;
    }
    size_t cells = (size_t)o->ctx + 128;
    s->cells = cells;
    /* main's workload (the synthetic prompt and the decode steps) fits the pools, defaults included: the Java flag
     * table's PoolRule, the same words */
    if ((size_t)o->prompt_tokens + (size_t)o->n_predict > cells) {
        logf_(lg, 2, "flags: --prompt-tokens %ld + --n-predict %ld exceed the pool's %zu cells (--ctx %ld + 128)",
              o->prompt_tokens, o->n_predict, cells, o->ctx);
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
    size_t total_bytes = cell_bytes * (cells * (full_layers + drafter_layers) + swa_cells * g->swa_layers) *
                         (size_t)o->parallel;
    if (g->swa_layers == 0 && drafter_layers == 0) {
        logf_(lg, 0, "kv: format=%s cell_bytes=%zu layers=%u cells=%zu bytes=%zu", FORMAT_NAMES[format], cell_bytes,
              g->qsa_layers, cells, total_bytes);
    } else {
        logf_(lg, 0, "kv: format=%s cell_bytes=%zu layers=%u cells=%zu swa_layers=%u swa_cells=%zu drafter_layers=%u "
                      "bytes=%zu", FORMAT_NAMES[format], cell_bytes, full_layers, cells, g->swa_layers, swa_cells,
              drafter_layers, total_bytes);
    }
    if (o->parallel > 1) {
        logf_(lg, 0, "kv: sequences=%ld bytes_per_sequence=%zu", o->parallel, total_bytes / (size_t)o->parallel);
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
        .context = (uint64_t)o->ctx, .n_seq = (uint32_t)o->parallel, .experts_resident = o->experts_resident, .pools_format = format,
        .mem_budget_mb = (uint64_t)o->mem_budget_mb, .total_memory = strata_memory_total(), .k4 = 0,
        .env_prompt = getenv("STRATA_METAL_PROMPT"), .env_prompt_gemm = getenv("STRATA_METAL_PROMPT_GEMM"),
        .env_arena_bare = getenv("STRATA_ARENA_BARE"),
        .fwd_scratch_bytes = strata_fwd_scratch_bytes(&s->md) + (uint64_t)s->md.n_vocab * sizeof(float),
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
        return RC_REFUSED;
    }
    return RC_OK;
}

int strata_startup_run(int argc, const char *const *argv, const logger *lg, strata_startup *s) {
    char err[STRATA_GGUF_ERR_MAX + 64];
    memset(s, 0, sizeof *s);
    int rc = rules(argc, argv, lg, s, err, sizeof err);
    if (rc != RC_OK) {
        strata_startup_free(s);
    }
    return rc;
}

void strata_startup_free(strata_startup *s) {
    strata_vocab_free(s->vocab);
    s->vocab = NULL;
    strata_expert_index_free(&s->ix);
    strata_model_free(&s->md);
    if (s->map.shards != NULL) {
        strata_gguf_map_close(&s->map);
    }
}

/* memory.c — strata-ref's memory accounting: the one function that sizes every buffer the engine allocates.
 *
 * strata_memory_plan is the C twin of the Java dev.strata.engine.plan.MemoryPlan for backend cpu-reference
 * (docs/PLAN.md): same inputs, same order of rules, same integer arithmetic, so each item it returns equals the
 * Java plan's row byte for byte: PlanParityTest plans 3,000 random configurations with both (ref_selftest --plan)
 * and compares every figure, MemoryAccountingE2eTest in tests/ runs both on the same models. The order of rules is
 * still written here and in Planner/StreamSizing (docs/HANDOFF.md, "Open items", lists both).
 * It is pure — no I/O, no allocation — so the engine's check (ABI 2, strata_engine_check) can log the items as
 * `plan: item=… bytes=…` and strata_engine_main can log the very same list as `alloc: item=… bytes=…` before it
 * allocates exactly those sizes. */
#include <stdio.h>
#include <string.h>

#include "ref_internal.h"
#include "strata_engine.h"

#define MIB STRATA_MEM_BUDGET_UNIT_BYTES /* Java UsableMemory.MIB, from rules.def */

/* The plan's constants are the Java plan's, from rules.def (ref_internal.h): STRATA_PLAN_MARGIN_BYTES, the stand-by
 * slots STRATA_STANDBY_WITH_GEMM / _WITHOUT_GEMM (StandbySlots), the headroom STRATA_HEADROOM_MIN_BYTES and
 * _DIVISOR (StreamSizing), STRATA_KV_EXTRA_CELLS (KvFormat), STRATA_BOOK_BYTES_PER_SLOT (RefScratch). */
#define STANDBY_WITH_GEMM STRATA_STANDBY_WITH_GEMM
#define STANDBY_WITHOUT_GEMM STRATA_STANDBY_WITHOUT_GEMM

int strata_switch_on(const char *v) {
    if (v == NULL) {
        return 0;
    }
    while (*v != '\0' && strchr(STRATA_SWITCH_BLANKS, *v) != NULL) {
        v++;
    }
    if (*v == '+' || *v == '-') {
        v++;
    }
    int on = 0;
    while (*v >= '0' && *v <= '9') {
        on |= *v != '0';
        v++;
    }
    return on;
}

/* value, blanks stripped at both ends, equals word */
static int is_blank(char c) { return c != '\0' && strchr(STRATA_SWITCH_BLANKS, c) != NULL; }

/* value, blanks stripped at both ends, equals word (Java String.strip of an ASCII value) */
static int stripped_equals(const char *value, const char *word) {
    if (value == NULL) {
        return 0;
    }
    while (is_blank(*value)) {
        value++;
    }
    size_t n = strlen(value);
    while (n > 0 && is_blank(value[n - 1])) {
        n--;
    }
    return n == strlen(word) && strncmp(value, word, n) == 0;
}

uint64_t strata_memory_scratch_bytes(uint32_t experts, uint32_t moe_layers, uint64_t fwd_scratch_bytes) {
    uint64_t model_slots = (uint64_t)experts * moe_layers;
    /* the arena's books, sized by the model's slots (an arena never has more): slot of each expert (int32), and
     * per slot its expert and LRU links (3 x int32): STRATA_BOOK_BYTES_PER_SLOT, Java RefScratch's */
    _Static_assert(STRATA_BOOK_BYTES_PER_SLOT == 4 + 12, "the arena's books: 4 + 3 x 4 bytes per slot");
    uint64_t books = model_slots * STRATA_BOOK_BYTES_PER_SLOT;
    return fwd_scratch_bytes + books;
}

int strata_memory_plan(const strata_mem_inputs *in, strata_mem_plan *p) {
    memset(p, 0, sizeof *p);
    p->total = in->total_memory;
    p->usable = in->total_memory; /* cpu-reference: no GPU working-set limit (docs/PLAN.md, usable memory) */
    p->margin = STRATA_PLAN_MARGIN_BYTES;
    uint64_t budget = p->usable > p->margin ? p->usable - p->margin : 0;
    /* --mem-budget-mb lowers the budget when it is below the plan's own budget in whole MiB (what setup writes, so
     * a generated config plans exactly as before) */
    if (in->mem_budget_mb > 0 && in->mem_budget_mb < budget / MIB) {
        budget = in->mem_budget_mb * MIB;
    }
    p->budget = budget;
    p->dense = in->dense_bytes;

    size_t cell = strata_kv_cell_bytes(in->pools_format, (int)in->kv_heads, (int)in->head_dim);
    p->kv_cells = in->context + STRATA_KV_EXTRA_CELLS;
    p->kv_cell_bytes = cell;
    /* full-attention and drafter pools hold ctx + 128 cells, sliding-window ones swa_cells (docs/MODELS.md) */
    p->kv = cell * (p->kv_cells * (uint64_t)(in->qsa_layers - in->swa_layers + in->drafter_layers) +
                    in->swa_cells * in->swa_layers);
    /* --parallel N: every sequence has its own pools (Java KvPools.of's sequences) */
    p->kv *= in->n_seq > 1 ? in->n_seq : 1;

    /* stand-by: the Metal rules, which strata-ref follows so a plan made here matches the Mac's */
    if (stripped_equals(in->env_prompt, STRATA_PROMPT_WINDOW) ||
        (in->env_prompt_gemm != NULL && !strata_switch_on(in->env_prompt_gemm)) || in->k4) {
        p->standby_rule_slots = STANDBY_WITHOUT_GEMM;
        p->prompt_gemm = 0;
    } else {
        p->standby_rule_slots = STANDBY_WITH_GEMM;
        p->prompt_gemm = 1;
    }

    p->slot_bytes = in->expert_bytes;
    p->model_slots = in->expert_bytes > 0 ? (uint64_t)in->experts * in->moe_layers : 0;
    p->token_slots = in->expert_bytes > 0 ? (uint64_t)in->experts_used * in->moe_layers : 0;
    uint64_t token_bytes = p->token_slots * p->slot_bytes;
    p->ssm_state = in->ssm_state_bytes;
    p->scratch = strata_memory_scratch_bytes(in->experts, in->moe_layers, in->fwd_scratch_bytes);
    /* the MTP drafter's weights (--spec > 0) are held beside the dense ones (Java MemoryPlan) */
    uint64_t base = p->dense + in->drafter_bytes + p->kv + p->ssm_state + p->scratch;
    uint64_t all_experts = p->model_slots * p->slot_bytes;
    /* stand-by bounded by the model (Java StandbySlots.boundedBy): experts per layer + 64 with the chain, 64
     * without, and never more than the model's slots minus one token's */
    uint64_t cap = p->prompt_gemm ? (uint64_t)in->experts + STANDBY_WITHOUT_GEMM : STANDBY_WITHOUT_GEMM;
    uint64_t spare = p->model_slots > p->token_slots ? p->model_slots - p->token_slots : 0;
    cap = cap < spare ? cap : spare;
    uint32_t standby_slots = p->standby_rule_slots < cap ? p->standby_rule_slots : (uint32_t)cap;
    /* STRATA_ARENA_BARE=1 (a measurement switch, bench/expert-arena; the Java plan does not read it): the stream
     * arena with no stand-by slots and no page-cache headroom, so a small model's arena can be sized by
     * --mem-budget-mb anywhere from one token's experts to every expert (with the headroom, a budget that streams
     * holds every expert of a model whose experts weigh less than 2 GiB) */
    int bare = strata_switch_on(in->env_arena_bare);
    if (bare) {
        standby_slots = 0;
    }

    if (!in->experts_resident && p->model_slots > 0 && p->budget >= base && p->budget - base >= all_experts) {
        /* the arena holds every expert: nothing streams, no stand-by, no page-cache headroom */
        p->standby_rule_slots = 0;
        p->fixed = base;
        p->arena_slots = p->model_slots;
        p->arena = all_experts;
        p->fits = 1;
        p->free_bytes = (int64_t)p->budget - (int64_t)base - (int64_t)all_experts;
    } else if (!in->experts_resident) {
        p->standby_rule_slots = standby_slots;
        p->standby = (uint64_t)standby_slots * p->slot_bytes;
        uint64_t share = in->total_memory / STRATA_HEADROOM_DIVISOR;
        p->headroom = bare ? 0 : share > STRATA_HEADROOM_MIN_BYTES ? share : STRATA_HEADROOM_MIN_BYTES;
        p->fixed = base + p->standby + p->headroom;
        int64_t available = (int64_t)p->budget - (int64_t)p->fixed;
        uint64_t slots = 0;
        uint64_t room = p->model_slots - standby_slots;
        if (available > 0 && p->slot_bytes > 0) {
            slots = (uint64_t)available / p->slot_bytes;
            slots = slots < room ? slots : room;
        }
        p->arena_slots = slots;
        p->arena = slots * p->slot_bytes;
        p->fits = available >= (int64_t)token_bytes;
        p->shortfall = p->fits ? 0 : (uint64_t)((int64_t)token_bytes - available);
        p->free_bytes = (int64_t)p->budget - (int64_t)p->fixed - (int64_t)p->arena;
    } else {
        p->standby_rule_slots = 0; /* resident experts: no stand-by slots (Java Planner) */
        p->arena_slots = p->model_slots;
        p->arena = p->model_slots * p->slot_bytes;
        p->fixed = base;
        uint64_t need = p->fixed + p->arena;
        p->fits = need <= p->budget;
        p->shortfall = p->fits ? 0 : need - p->budget;
        p->free_bytes = (int64_t)p->budget - (int64_t)need;
    }

    /* what the engine holds, in allocation order; items of 0 bytes are not allocated and not listed. `weights` is the
     * dense tensors mapped read-only from the shards (resident once touched); the resident experts are `arena` */
    static const char *const NAMES[STRATA_PLAN_N_ITEMS] = STRATA_PLAN_ITEM_NAMES; /* Java PlanText.ITEM_NAMES */
    const uint64_t bytes[] = {p->dense, p->kv, p->ssm_state, p->standby, p->arena, p->scratch};
    _Static_assert(sizeof bytes / sizeof bytes[0] == STRATA_PLAN_N_ITEMS, "one size per item of PlanText.ITEM_NAMES");
    for (size_t i = 0; i < STRATA_PLAN_N_ITEMS; i++) {
        if (bytes[i] > 0 && p->n_items < STRATA_MEM_MAX_ITEMS) {
            p->items[p->n_items].name = NAMES[i];
            p->items[p->n_items].bytes = bytes[i];
            p->allocated += bytes[i];
            p->n_items++;
        }
    }
    return 0;
}

int strata_memory_item_line(const strata_mem_plan *p, int i, const char *prefix, char *buf, size_t cap) {
    if (i < 0 || i >= p->n_items) {
        return -1;
    }
    int n = snprintf(buf, cap, "%s: item=%s bytes=%llu", prefix, p->items[i].name,
                     (unsigned long long)p->items[i].bytes);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

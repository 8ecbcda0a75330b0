/* arena.c — strata-ref's experts: the streaming arena (LRU slots filled with pread from the shards), resident
 * experts (every expert tensor mapped), and the process's peak resident memory. The model's own router (forward.c)
 * picks the experts; strata_arena_fetch hands out their bytes. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include "arena.h"
#include "fileio.h"

static const char *const TENSOR_NAMES[3] = {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"};

uint64_t strata_memory_total(void) {
#if defined(__APPLE__)
    uint64_t mem = 0;
    size_t len = sizeof mem;
    return sysctlbyname("hw.memsize", &mem, &len, NULL, 0) == 0 ? mem : 0;
#else
    return strata_proc_kb_field("/proc/meminfo", "MemTotal");
#endif
}

uint64_t strata_rss_bytes(void) { return strata_proc_kb_field("/proc/self/status", "VmRSS"); }

uint64_t strata_peak_rss_bytes(void) {
    /* VmHWM: the peak of this process image's own memory. getrusage's ru_maxrss also keeps the peak of the image
     * before execve — for a process spawned from a JVM (posix_spawn shares the parent's memory until exec) that
     * is the JVM's, not ours. */
    uint64_t hwm = strata_proc_kb_field("/proc/self/status", "VmHWM");
    if (hwm > 0) {
        return hwm;
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        return 0;
    }
#if defined(__APPLE__)
    return (uint64_t)ru.ru_maxrss; /* bytes on macOS */
#else
    return (uint64_t)ru.ru_maxrss * 1024; /* KiB on Linux */
#endif
}


static void *map_anon(uint64_t bytes) {
    if (bytes == 0) {
        return NULL;
    }
    /* anonymous pages: reserved now, backed by memory as they are first written (like the KV pools' calloc) */
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int errf(char *err, size_t errlen, const char *fmt, const char *a, unsigned long long x, unsigned long long y,
                const char *b) {
    snprintf(err, errlen, fmt, a, x, y, b);
    return -1;
}

int strata_arena_open(strata_arena *a, const strata_mem_plan *p, const strata_geometry *g,
                      const strata_expert_index *ix, const char *first, int resident, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    a->resident = resident;
    a->experts = g->experts;
    a->used = g->experts_used;
    a->layers = ix->n_layers;
    a->slot_bytes = p->slot_bytes;
    a->plan_slots = p->arena_slots;
    a->ix = ix;
    a->n_fds = g->shards;
    const char *pol = getenv(STRATA_ENV_ARENA_POLICY), *cache = getenv("STRATA_ARENA_CACHE");
    if (pol != NULL && *pol != 0 && strcmp(pol, "lru") != 0 && strcmp(pol, "lfu") != 0) {
        snprintf(err, errlen, "experts: STRATA_ARENA_POLICY=%.32s is not a policy (lru, lfu)", pol);
        return -1;
    }
    a->policy = pol != NULL && strcmp(pol, "lfu") == 0 ? STRATA_ARENA_LFU : STRATA_ARENA_LRU;
    if (cache != NULL && *cache != 0 && strcmp(cache, "keep") != 0 && strcmp(cache, "drop") != 0) {
        snprintf(err, errlen, "experts: STRATA_ARENA_CACHE=%.32s is not a page-cache mode (keep, drop)", cache);
        return -1;
    }
    a->drop_cache = cache != NULL && strcmp(cache, "drop") == 0;
    const char *trace = getenv("STRATA_ARENA_TRACE");
    if (trace != NULL && *trace != 0) {
        a->trace = fopen(trace, "w");
        if (a->trace == NULL) {
            snprintf(err, errlen, "experts: STRATA_ARENA_TRACE: cannot write %.3000s (%s)", trace, strerror(errno));
            return -1;
        }
        fprintf(a->trace, STRATA_TRACE_HEADER "experts=%u used=%u moe_layers=%u slots=%llu policy=%s mode=%s\n",
                g->experts, g->experts_used, ix->n_layers, (unsigned long long)(resident ? 0 : p->arena_slots),
                a->policy == STRATA_ARENA_LFU ? "lfu" : "lru", resident ? "resident" : "stream");
    }
    if (a->layers == 0 || a->experts == 0 || a->slot_bytes == 0) {
        return 0; /* a dense model: nothing to stream */
    }
    a->fds = calloc(a->n_fds, sizeof *a->fds);
    if (a->fds == NULL) {
        return STRATA_ARENA_NOMEM;
    }
    for (uint32_t k = 0; k < a->n_fds; k++) {
        a->fds[k] = -1;
    }
    char path[4096];
    for (uint32_t k = 0; k < a->n_fds; k++) {
        if (strata_gguf_shard_path(first, k, a->n_fds, path, sizeof path) != 0) {
            return errf(err, errlen, "model: %s: cannot name shard %llu of %llu%s", first, k + 1ull, a->n_fds, "");
        }
        char why[128];
        a->fds[k] = strata_open_model_file(path, why, sizeof why);
        struct stat st;
        if (a->fds[k] < 0) {
            snprintf(err, errlen, "model: %s: %s", path, why);
            return -1;
        }
        if (fstat(a->fds[k], &st) != 0) {
            snprintf(err, errlen, "model: %s: %s", path, strerror(errno));
            return -1;
        }
        uint64_t size = (uint64_t)st.st_size;
        if (a->drop_cache && !resident) {
#if defined(__APPLE__)
            fcntl(a->fds[k], F_NOCACHE, 1);
#else
            posix_fadvise(a->fds[k], 0, 0, POSIX_FADV_RANDOM);
            posix_fadvise(a->fds[k], 0, 0, POSIX_FADV_DONTNEED);
#endif
        }
        /* every expert tensor's data lies inside its shard (the Java reader's rule for every tensor) */
        for (uint32_t l = 0; l < a->layers; l++) {
            for (int t = 0; t < 3; t++) {
                const strata_expert_tensor *et = &ix->layers[l].t[t];
                uint64_t end = et->offset + et->bytes_per_expert * a->experts;
                if (et->shard == k && end > size) {
                    snprintf(err, errlen,
                             "model: %s: tensor blk.%u.%s.weight ends at byte %llu but the file has %llu bytes: the "
                             "file is truncated; download it again",
                             path, ix->layers[l].block, TENSOR_NAMES[t], (unsigned long long)end,
                             (unsigned long long)size);
                    return -1;
                }
            }
        }
    }
    if (resident) {
        /* every expert tensor mapped on its own (page-aligned around its data), so the resident set holds expert
         * pages and nothing of the dense tensors beside them */
        long page = sysconf(_SC_PAGESIZE);
        uint64_t pg = page > 0 ? (uint64_t)page : 4096;
        a->maps = calloc((size_t)a->layers * 3, sizeof *a->maps);
        a->map_len = calloc((size_t)a->layers * 3, sizeof *a->map_len);
        a->map_skip = calloc((size_t)a->layers * 3, sizeof *a->map_skip);
        if (a->maps == NULL || a->map_len == NULL || a->map_skip == NULL) {
            return STRATA_ARENA_NOMEM;
        }
        for (uint32_t l = 0; l < a->layers; l++) {
            for (int t = 0; t < 3; t++) {
                const strata_expert_tensor *et = &ix->layers[l].t[t];
                uint64_t start = et->offset / pg * pg, len = et->offset + et->bytes_per_expert * a->experts - start;
                if (len == 0) {
                    continue;
                }
                void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, a->fds[et->shard], (off_t)start);
                if (m == MAP_FAILED) {
                    snprintf(err, errlen, "experts: cannot map blk.%u.%s.weight (%s)", ix->layers[l].block,
                             TENSOR_NAMES[t], strerror(errno));
                    return STRATA_ARENA_NOMEM;
                }
                madvise(m, (size_t)len, MADV_RANDOM); /* no readahead: an expert's pages come in when it is used */
                a->maps[l * 3 + t] = m;
                a->map_len[l * 3 + t] = len;
                a->map_skip[l * 3 + t] = et->offset - start;
            }
        }
    }
    uint64_t model_slots = (uint64_t)a->experts * a->layers;
    /* the books: exactly the scratch formula's arena share (strata_memory_scratch_bytes) */
    a->slot_of = malloc(model_slots * sizeof *a->slot_of);
    a->key = malloc(model_slots * sizeof *a->key);
    a->prev = malloc(model_slots * sizeof *a->prev);
    a->next = malloc(model_slots * sizeof *a->next);
    if (!a->slot_of || !a->key || !a->prev || !a->next) {
        return STRATA_ARENA_NOMEM;
    }
    for (uint64_t i = 0; i < model_slots; i++) {
        a->slot_of[i] = -1;
        a->prev[i] = a->next[i] = 0; /* lfu: no lookups yet */
    }
    a->head = a->tail = -1;
    if (!resident) {
        a->mem = map_anon(p->arena_slots * p->slot_bytes);
#ifdef MADV_HUGEPAGE
        if (a->mem != NULL) {
            /* slots fill in order: huge pages cut the first-touch faults of a cold arena 512-fold */
            madvise(a->mem, (size_t)(p->arena_slots * p->slot_bytes), MADV_HUGEPAGE);
        }
#endif
        a->standby = map_anon(p->standby);
        if ((p->arena > 0 && a->mem == NULL) || (p->standby > 0 && a->standby == NULL)) {
            return STRATA_ARENA_NOMEM;
        }
        a->n_slots = p->arena_slots;
        a->standby_bytes = p->standby;
    }
    return 0;
}

/* LRU list: head = most recently used */
static void lru_unlink(strata_arena *a, int32_t s) {
    if (a->prev[s] >= 0) a->next[a->prev[s]] = a->next[s]; else a->head = a->next[s];
    if (a->next[s] >= 0) a->prev[a->next[s]] = a->prev[s]; else a->tail = a->prev[s];
}

static void lru_push_front(strata_arena *a, int32_t s) {
    a->prev[s] = -1;
    a->next[s] = a->head;
    if (a->head >= 0) a->prev[a->head] = s;
    a->head = s;
    if (a->tail < 0) a->tail = s;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* lfu: the slot to evict — fewest lookups of its expert, then the oldest last use (lookup numbers are uint32: after
 * 2^32 lookups the tie-break, not the counts' order, may pick a newer slot) */
static int32_t lfu_victim(const strata_arena *a) {
    const uint32_t *count = (const uint32_t *)a->prev, *last = (const uint32_t *)a->next;
    uint32_t now = (uint32_t)a->lookups;
    int32_t best = 0;
    for (int32_t s = 1; s < (int32_t)a->n_slots; s++) {
        uint32_t cs = count[a->key[s]], cb = count[a->key[best]];
        if (cs < cb || (cs == cb && now - last[s] > now - last[best])) {
            best = s;
        }
    }
    return best;
}

int strata_arena_fetch(strata_arena *a, uint32_t l, uint32_t e, const uint8_t *w[3]) {
    const strata_expert_tensor *t = a->ix->layers[l].t;
    a->lookups++;
    if (a->resident) {
        for (int i = 0; i < 3; i++) {
            w[i] = a->maps[l * 3 + i] + a->map_skip[l * 3 + i] + (uint64_t)e * t[i].bytes_per_expert;
        }
        a->hits++;
        return 0;
    }
    uint64_t id = (uint64_t)l * a->experts + e;
    int lfu = a->policy == STRATA_ARENA_LFU;
    if (lfu) {
        ((uint32_t *)a->prev)[id]++;
    }
    int32_t s = a->slot_of[id];
    if (s >= 0) {
        a->hits++;
        if (!lfu) {
            lru_unlink(a, s);
        }
    } else {
        a->misses++;
        if (a->slots_used < a->n_slots) {
            s = (int32_t)a->slots_used++;
        } else {
            /* never one of this layer's picks still to be computed: each expert is computed right after its fetch */
            if (lfu) {
                s = lfu_victim(a);
            } else {
                s = a->tail; /* the least recently used slot */
                lru_unlink(a, s);
            }
            a->slot_of[a->key[s]] = -1;
            a->evictions++;
        }
        uint8_t *dst = a->mem + (uint64_t)s * a->slot_bytes;
        double t0 = now_s();
        for (int i = 0; i < 3; i++) {
            uint64_t off = t[i].offset + (uint64_t)e * t[i].bytes_per_expert;
            if (strata_pread_full(a->fds[t[i].shard], dst, t[i].bytes_per_expert, off) != 0) {
                a->io_error = errno != 0 ? errno : EIO;
                a->err_layer = a->ix->layers[l].block;
                return -1;
            }
#if !defined(__APPLE__)
            if (a->drop_cache) {
                posix_fadvise(a->fds[t[i].shard], (off_t)off, (off_t)t[i].bytes_per_expert, POSIX_FADV_DONTNEED);
            }
#endif
            dst += t[i].bytes_per_expert;
            a->bytes_read += t[i].bytes_per_expert;
        }
        a->read_seconds += now_s() - t0;
        a->key[s] = (int32_t)id;
        a->slot_of[id] = s;
    }
    if (lfu) {
        ((uint32_t *)a->next)[s] = (uint32_t)a->lookups;
    } else {
        lru_push_front(a, s);
    }
    const uint8_t *p = a->mem + (uint64_t)s * a->slot_bytes;
    for (int i = 0; i < 3; i++) {
        w[i] = p;
        p += t[i].bytes_per_expert;
    }
    return 0;
}

void strata_arena_trace(strata_arena *a, uint32_t l, int B, const int32_t *sel, int K) {
    if (a->trace == NULL) {
        return;
    }
    fprintf(a->trace, "l %u %d", l, B);
    for (int t = 0; t < B; t++) {
        for (int k = 0; k < K; k++) {
            fprintf(a->trace, "%c%d", k == 0 ? ' ' : ',', sel[(size_t)t * K + k]);
        }
    }
    fputc('\n', a->trace);
}

void strata_arena_close(strata_arena *a) {
    if (a->trace != NULL) {
        fclose(a->trace);
    }
    if (a->mem != NULL) {
        munmap(a->mem, (size_t)(a->n_slots * a->slot_bytes));
    }
    if (a->standby != NULL) {
        munmap(a->standby, (size_t)a->standby_bytes);
    }
    for (uint32_t k = 0; a->maps != NULL && k < a->layers * 3; k++) {
        if (a->maps[k] != NULL) {
            munmap(a->maps[k], (size_t)a->map_len[k]);
        }
    }
    for (uint32_t k = 0; a->fds != NULL && k < a->n_fds; k++) {
        if (a->fds[k] >= 0) {
            close(a->fds[k]);
        }
    }
    void *owned[] = {a->fds, a->maps, a->map_len, a->map_skip, a->slot_of, a->key, a->prev, a->next};
    for (size_t i = 0; i < sizeof owned / sizeof *owned; i++) {
        free(owned[i]);
    }
    memset(a, 0, sizeof *a);
}

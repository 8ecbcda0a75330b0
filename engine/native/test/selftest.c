/* selftest.c — strata-ref's internals tested directly: the fused attention kernels of every compiled variant
 * against the kernels' decode of the same records, the exp, the FWHT, the cell sizes, the GGUF reader on good,
 * truncated and mutated files, and the flag parser. `ref_selftest [--quick]`; exit 0 when all pass. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "figures.h"
#include "gguf_write.h"
#include "half.h"
#include "ref_internal.h"
#include "strata_engine.h"
#include "strata_kernels.h"
#include "testkit.h"


static uint64_t rs = 0x1234567;
static double urand(void) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}
static float nrand(void) {
    double u = urand() + 1e-12, v = urand();
    return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

static void test_half(void) {
    const float vals[] = {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        float back = strata_half_to_float(strata_float_to_half(vals[i]));
        CHECK(back == vals[i], "half round trip of %g gave %g", vals[i], back);
    }
    CHECK(strata_float_to_half(1e6f) == 0x7c00, "overflow to infinity");
    CHECK(strata_float_to_half(1.0f + 1.0f / 2048.0f) == 0x3c00, "ties to even (down)");
    CHECK(strata_float_to_half(1.0f + 3.0f / 2048.0f) == 0x3c02, "ties to even (up)");
}

static void test_fwht(void) {
    float x[256], y[256];
    for (int i = 0; i < 256; i++) {
        x[i] = y[i] = nrand();
    }
    strata_fwht256(y);
    double n0 = 0, n1 = 0;
    for (int i = 0; i < 256; i++) {
        n0 += (double)x[i] * x[i];
        n1 += (double)y[i] * y[i];
    }
    CHECK(fabs(n0 - n1) < 1e-3 * n0, "FWHT-256 is orthonormal (%g vs %g)", n0, n1);
    strata_fwht256(y);
    float md = 0;
    for (int i = 0; i < 256; i++) {
        md = fmaxf(md, fabsf(x[i] - y[i]));
    }
    CHECK(md < 1e-5f, "FWHT-256 is its own inverse (max diff %g)", md);
}

static void test_abi_sizes(void) {
    CHECK(strata_kv_cell_bytes(0, 2, 256) == 2048, "fp16 cell");
    CHECK(strata_kv_cell_bytes(1, 2, 256) == 1056, "int8 cell");
    CHECK(strata_kv_cell_bytes(2, 2, 256) == 576, "q4_0 cell");
    CHECK(strata_kv_cell_bytes(3, 2, 256) == 816, "k8v4 cell");
    CHECK(strata_kv_cell_bytes(4, 2, 256) == 0 && strata_kv_cell_bytes(2, 2, 128) == 0 &&
              strata_kv_cell_bytes(1, 2, 100) == 0 && strata_kv_cell_bytes(1, 0, 256) == 0,
          "bad format / head_dim / heads → 0");
    float x[256] = {0};
    uint8_t rec[600];
    CHECK(strata_kv_encode(3, x, 1, 256, rec) < 0, "k8v4 encode refused");
    CHECK(strata_kv_decode(3, rec, 1, 256, x) < 0, "k8v4 decode refused");
    CHECK(strata_kv_encode(2, x, 1, 128, rec) < 0, "q4_0 with head_dim 128 refused");
    CHECK(strata_kv_encode(-1, x, 1, 256, rec) < 0, "format -1 refused");
}

/* The fused kernels against decode-then-float-math on the same records. */
static void test_fused(const strata_fused_ops *ops, int format) {
    enum { H = 2, D = 256, N = 133 }; /* two full 64-cell runs and an odd tail */
    size_t rec = strata_kernels_record_bytes(format, D);
    size_t cb = 2 * H * rec;
    uint8_t *cells = calloc(N, cb);
    float kv[2 * H * D], qr[H * D], s[H * N], p[H * N], acc[H * D], ref[H * D], dec[D];
    for (int t = 0; t < N; t++) {
        for (int i = 0; i < 2 * H * D; i++) {
            kv[i] = nrand() * (i % 17 == 0 ? 4.0f : 1.0f);
        }
        strata_kernels_encode(format, kv, 2 * H, D, cells + t * cb);
    }
    for (int i = 0; i < H * D; i++) {
        qr[i] = nrand();
    }
    if (format == KV_Q4_0) {
        strata_fwht256(qr);
        strata_fwht256(qr + D);
    }
    const float scale = 0.0625f;
    /* The scores use the query at 8 bits per block (integer dot products). Two checks per score: against float
     * math on the same quantized query (the integer path itself: 1e-4 relative), and against float math on the
     * exact query within the quantization bound scale · sum_i |k_i| · d_q(block of i) / 2. */
    strata_qq qq[H];
    const int qblk = format == KV_Q4_0 ? 32 : 64;
    ops->quant_query(format, qr, H, D, qq);
    float qhat[H * D];
    for (int h = 0; h < H; h++) {
        for (int i = 0; i < D; i++) {
            CHECK(abs(qq[h].qs[i]) <= 127, "%s q8 code in range", ops->isa);
            qhat[h * D + i] = qq[h].d[i / qblk] * (float)qq[h].qs[i];
        }
    }
    if (format == KV_Q4_0) {
        ops->score_q4(cells, cb, N, H, D, qq, scale, s);
    } else {
        ops->score_int8(cells, cb, N, H, D, qq, scale, s);
    }
    for (int t = 0; t < N; t++) {
        for (int h = 0; h < H; h++) {
            /* K as the kernels decode it, in the domain the query lives in (rotated for q4_0) */
            strata_kernels_decode(format, cells + t * cb + h * rec, 1, D, dec);
            if (format == KV_Q4_0) {
                strata_fwht256(dec);
            }
            double r = 0, rq = 0, bound = 0;
            for (int i = 0; i < D; i++) {
                r += (double)qr[h * D + i] * dec[i];
                rq += (double)qhat[h * D + i] * dec[i];
                bound += fabs((double)dec[i]) * qq[h].d[i / qblk] * 0.5;
            }
            r *= scale, rq *= scale, bound *= scale;
            CHECK(fabs(rq - s[h * N + t]) < 1e-4 + 1e-4 * fabs(rq), "%s %s score (quantized q) t=%d h=%d: %g vs %g",
                  ops->isa, format == KV_Q4_0 ? "q4_0" : "int8", t, h, rq, s[h * N + t]);
            CHECK(fabs(r - s[h * N + t]) <= bound + 1e-4, "%s %s score (float q) t=%d h=%d: %g vs %g, bound %g",
                  ops->isa, format == KV_Q4_0 ? "q4_0" : "int8", t, h, r, s[h * N + t], bound);
            p[h * N + t] = (float)urand();
        }
    }
    /* The weighted V. q4_0 is compared in the rotated domain (where the kernel accumulates); the AVX2 q4_0
     * kernel quantizes the weights p·d to 16 bits per block and run of 64 cells, so its error per value is at
     * most sum over runs of (cells in run) · 8 · W_b / 2, W_b = max |p·d| of the run's block b / 32767. The int8
     * weighted V stays in float (an integer version measured slower: its codes need no nibble unpacking, and
     * the widening load + convert + FMA is already three instructions per 8 values). */
    memset(acc, 0, sizeof acc);
    memset(ref, 0, sizeof ref);
    if (format == KV_Q4_0) {
        ops->axpy_q4(cells, cb, N, H, D, p, acc);
    } else {
        ops->axpy_int8(cells, cb, N, H, D, p, acc);
    }
    double vbound[H * 8];
    memset(vbound, 0, sizeof vbound);
    for (int h = 0; h < H; h++) {
        for (int t0 = 0; t0 < N; t0 += 64) {
            int m = N - t0 < 64 ? N - t0 : 64;
            for (int b = 0; b < 8 && format == KV_Q4_0; b++) {
                double wmax = 0;
                for (int t = t0; t < t0 + m; t++) {
                    const uint8_t *r = cells + t * cb + (H + h) * rec + b * 18;
                    double w = fabs((double)p[h * N + t] * strata_half_to_float(strata_load_u16le(r)));
                    wmax = w > wmax ? w : wmax;
                }
                vbound[h * 8 + b] += m * 8.0 * (wmax / 32767.0) / 2.0;
            }
        }
    }
    for (int t = 0; t < N; t++) {
        for (int h = 0; h < H; h++) {
            strata_kernels_decode(format, cells + t * cb + (H + h) * rec, 1, D, dec);
            if (format == KV_Q4_0) {
                strata_fwht256(dec);
            }
            for (int i = 0; i < D; i++) {
                ref[h * D + i] += p[h * N + t] * dec[i];
            }
        }
    }
    int vbad = 0;
    float md = 0;
    for (int i = 0; i < H * D; i++) {
        float e = fabsf(ref[i] - acc[i]);
        md = fmaxf(md, e);
        vbad += e > 5e-4 + vbound[(i / D) * 8 + (i % D) / 32];
    }
    CHECK(vbad == 0, "%s %s weighted V: %d values beyond the bound, max diff %g", ops->isa,
          format == KV_Q4_0 ? "q4_0" : "int8", vbad, md);
    /* exp */
    float x[100], xs[100];
    for (int i = 0; i < 100; i++) {
        x[i] = xs[i] = -(float)i * 0.37f;
    }
    float sum = ops->expsum(x, 100, 0.0f);
    double want = 0;
    float worst = 0;
    for (int i = 0; i < 100; i++) {
        double e = exp((double)xs[i]);
        want += e;
        worst = fmaxf(worst, (float)(fabs(e - x[i]) / e));
    }
    CHECK(worst < 1e-6f && fabs(sum - want) < 1e-5 * want, "%s expsum: worst relative error %g", ops->isa, worst);
    free(cells);
}

static char tmpdir[256];

static int read_file(const char *path, uint8_t **buf, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc(*len);
    size_t got = fread(*buf, 1, *len, f);
    fclose(f);
    return got == *len ? 0 : -1;
}

static int write_file(const char *path, const uint8_t *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fwrite(buf, 1, len, f);
    return fclose(f);
}

static void test_gguf(int quick) {
    char first[1024], one[1024], err[600];
    gguf_model m = gguf_seed_model(4);
    gguf_model m1 = gguf_seed_model(1);
    CHECK(gguf_write_model(tmpdir, "seed", &m, first, sizeof first) == 0, "write 4 shards");
    CHECK(gguf_write_model(tmpdir, "one", &m1, one, sizeof one) == 0, "write 1 shard");
    strata_geometry g;
    int rc = strata_gguf_geometry(first, &g, err, sizeof err);
    CHECK(rc == 0, "seed model reads: %s", rc ? err : "");
    CHECK(g.qsa_layers == 12 && g.blocks == 48 && g.kv_heads == 2 && g.head_dim == 256 && g.shards == 4 &&
              strcmp(g.arch, "qwen3next") == 0,
          "seed geometry: %u qsa, %u blocks, %u heads, %u head_dim, %u shards", g.qsa_layers, g.blocks, g.kv_heads,
          g.head_dim, g.shards);
    CHECK(strata_gguf_geometry(one, &g, err, sizeof err) == 0 && g.qsa_layers == 12 && g.shards == 1, "one shard");
    gguf_model bad = gguf_seed_model(1);
    bad.interval = 3;
    CHECK(gguf_write_model(tmpdir, "badint", &bad, first, sizeof first) == 0 &&
              strata_gguf_geometry(first, &g, err, sizeof err) != 0 && strstr(err, "full_attention_interval"),
          "interval disagreeing with the tensors: %s", err);

    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(read_file(one, &buf, &len) == 0, "read back");
    char path[512];
    snprintf(path, sizeof path, "%s/mut.gguf", tmpdir);
    /* every truncation fails cleanly */
    /* every byte of the header and the first keys, then a stride through the tensor infos */
    for (size_t cut = 0; cut < len; cut += cut < 512 ? (quick ? 7 : 1) : (quick ? 211 : 13)) {
        write_file(path, buf, cut);
        CHECK(strata_gguf_geometry(path, &g, err, sizeof err) != 0 && strncmp(err, "model: ", 7) == 0,
              "truncated at %zu accepted", cut);
    }
    /* seeded mutations: any outcome but a crash, a hang or an unbounded allocation; errors are one line */
    int n_mut = quick ? 300 : 3000, rejected = 0;
    uint8_t *mut = malloc(len);
    for (int i = 0; i < n_mut; i++) {
        memcpy(mut, buf, len);
        int edits = 1 + (int)(urand() * 4);
        for (int e = 0; e < edits; e++) {
            size_t at = (size_t)(urand() * (double)len);
            int kind = (int)(urand() * 3);
            mut[at] = kind == 0 ? (uint8_t)(urand() * 256) : kind == 1 ? 0xff : 0x00;
        }
        write_file(path, mut, len);
        if (strata_gguf_geometry(path, &g, err, sizeof err) != 0) {
            rejected++;
            CHECK(strchr(err, '\n') == NULL && strncmp(err, "model: ", 7) == 0, "mutation %d: bad message %s", i, err);
        } else {
            CHECK(g.qsa_layers >= 1 && g.qsa_layers <= g.blocks && g.kv_heads >= 1 && g.kv_heads <= 64,
                  "mutation %d accepted with an impossible geometry", i);
        }
    }
    CHECK(rejected > 0, "mutations rejected: %d of %d", rejected, n_mut);
    /* absurd counts and lengths */
    memcpy(mut, buf, len);
    mut[4] = 1;
    write_file(path, mut, len);
    CHECK(strata_gguf_geometry(path, &g, err, sizeof err) != 0 && strstr(err, "version 1"), "version 1: %s", err);
    memcpy(mut, buf, len);
    mut[4] = 2; /* GGUF v2 has v3's layout: read like llama.cpp reads it */
    write_file(path, mut, len);
    CHECK(strata_gguf_geometry(path, &g, err, sizeof err) == 0 && g.qsa_layers == 12, "version 2 reads: %s", err);
    memcpy(mut, buf, len);
    memset(mut + 8, 0xff, 7); /* tensor count ~2^56 */
    write_file(path, mut, len);
    CHECK(strata_gguf_geometry(path, &g, err, sizeof err) != 0 && strstr(err, "tensor count"), "huge tensor count: %s",
          err);
    memcpy(mut, buf, len);
    memset(mut + 24, 0xff, 8); /* first key length 2^64-1 */
    write_file(path, mut, len);
    CHECK(strata_gguf_geometry(path, &g, err, sizeof err) != 0 && strstr(err, "limit"), "huge key length: %s", err);
    CHECK(strata_gguf_geometry(tmpdir, &g, err, sizeof err) != 0 && strstr(err, "not a regular file"), "folder: %s",
          err);
    /* issue 28: a FIFO or a link to /dev/zero is named for what it is, and the FIFO is not opened blocking */
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo.gguf", tmpdir);
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    CHECK(strata_gguf_geometry(fifo, &g, err, sizeof err) != 0 && strstr(err, "is a FIFO (named pipe), not a regular file"),
          "fifo: %s", err);
    unlink(fifo);
    CHECK(symlink("/dev/zero", fifo) == 0, "symlink %s", fifo);
    CHECK(strata_gguf_geometry(fifo, &g, err, sizeof err) != 0 &&
              strstr(err, "is a symlink to a character device, not a regular file"),
          "link to /dev/zero: %s", err);
    unlink(fifo);
    free(mut);
    free(buf);
}

/* memory.c: the plan's rules on the seed geometry (docs/PLAN.md); the byte-for-byte comparison with the Java
 * plan is MemoryAccountingE2eTest. */
static strata_mem_inputs seed_inputs(int format, int resident) {
    strata_mem_inputs in = {.qsa_layers = 12, .kv_heads = 2, .head_dim = 256, .experts = 512, .experts_used = 10,
                            .moe_layers = 48, .expert_bytes = 811008, .dense_bytes = 2665016320ull,
                            .context = 32768, .experts_resident = resident, .pools_format = format,
                            .total_memory = resident ? 24ull << 30 : 16ull << 30,
                            /* the forward pass's scratch of the demo model's widths (E 2048, 16 heads, expert FFN
                             * 512, vocabulary 151,936) and a logits row: Java's RefScratchTest works it by hand */
                            .fwd_scratch_bytes = 5984256};
    /* streamed on 16 GiB: on 24 GiB every expert fits beside the rest, so nothing would stream */
    return in;
}

static void test_memory(void) {
    strata_mem_plan p, q;
    strata_mem_inputs in = seed_inputs(KV_INT8, 0);
    strata_memory_plan(&in, &p);
    CHECK(p.kv == 416858112ull && p.kv_cells == 32896, "int8 pools at 32K: %llu", (unsigned long long)p.kv);
    CHECK(p.budget == (15ull << 30) && p.headroom == (2ull << 30), "budget 15 GiB, headroom max(2 GiB, memory/8)");
    CHECK(p.standby == 576ull * 811008 && p.prompt_gemm, "576 stand-by slots: %llu", (unsigned long long)p.standby);
    CHECK(p.scratch == 5984256ull + 24576 * 16, "seed scratch: the forward pass's + 16 B per slot: %llu",
          (unsigned long long)p.scratch);
    CHECK(p.scratch == 6377472, "seed scratch = Java RefScratchTest's 6,377,472 B");
    CHECK(p.fits && p.arena_slots == (p.budget - p.fixed) / 811008 && p.arena == p.arena_slots * 811008,
          "arena: whole slots of what is left");
    CHECK(p.n_items == 5 && strcmp(p.items[0].name, "weights") == 0 && strcmp(p.items[1].name, "kv") == 0 &&
              strcmp(p.items[2].name, "standby") == 0 && strcmp(p.items[3].name, "arena") == 0 &&
              strcmp(p.items[4].name, "scratch") == 0,
          "items weights, kv, standby, arena, scratch");
    char line[128];
    CHECK(strata_memory_item_line(&p, 0, "alloc", line, sizeof line) == 0 &&
              strcmp(line, "alloc: item=weights bytes=2665016320") == 0, "item line: %s", line);
    CHECK(strata_memory_item_line(&p, 1, "alloc", line, sizeof line) == 0 &&
              strcmp(line, "alloc: item=kv bytes=416858112") == 0, "item line: %s", line);
    in.pools_format = KV_Q4_0;
    strata_memory_plan(&in, &q);
    CHECK(q.kv == 227377152ull, "q4_0 pools at 32K");
    CHECK(q.arena_slots - p.arena_slots == 233 || q.arena_slots - p.arena_slots == 234,
          "q4_0 wins 189,480,960 B of 811,008-byte slots: +%llu", (unsigned long long)(q.arena_slots - p.arena_slots));
    /* --mem-budget-mb: the plan's own whole-MiB budget changes nothing, one MiB less lowers it */
    in = seed_inputs(KV_INT8, 0);
    in.mem_budget_mb = (15ull << 30) >> 20;
    strata_memory_plan(&in, &q);
    CHECK(q.budget == p.budget && q.arena_slots == p.arena_slots, "mem_budget_mb = the plan's: unchanged");
    in.mem_budget_mb = ((15ull << 30) >> 20) - 1;
    strata_memory_plan(&in, &q);
    CHECK(q.budget == in.mem_budget_mb << 20, "mem_budget_mb below: exactly that many MiB");
    in.mem_budget_mb = 1;
    strata_memory_plan(&in, &q);
    CHECK(!q.fits && q.shortfall > 0 && q.arena_slots == 0, "1 MiB: does not fit");
    /* the stand-by rule's switches, read as the engine reads them (C atoi) */
    const struct {
        const char *prompt, *gemm;
        int k4;
        uint32_t slots;
    } sw[] = {{NULL, NULL, 0, 576},   {"window", NULL, 0, 64}, {" window\n", NULL, 0, 64}, {"windowed", NULL, 0, 576},
              {NULL, "0", 0, 64},     {NULL, "00", 0, 64},     {NULL, "", 0, 64},            {NULL, " 1", 0, 576},
              {NULL, "-2", 0, 576},   {NULL, "x1", 0, 64},     {NULL, NULL, 1, 64}};
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
        in = seed_inputs(KV_INT8, 0);
        in.env_prompt = sw[i].prompt;
        in.env_prompt_gemm = sw[i].gemm;
        in.k4 = sw[i].k4;
        strata_memory_plan(&in, &q);
        CHECK(q.standby_rule_slots == sw[i].slots && q.standby == sw[i].slots * 811008ull,
              "stand-by case %zu: %u slots", i, q.standby_rule_slots);
    }
    /* streamed on 24 GiB: the arena holds every expert, so no stand-by and no headroom (Java MemoryPlan) */
    in = seed_inputs(KV_INT8, 0);
    in.total_memory = 24ull << 30;
    strata_memory_plan(&in, &q);
    CHECK(q.fits && q.standby == 0 && q.headroom == 0 && q.arena_slots == 24576, "stream, every expert held");
    /* resident: every expert, no stand-by, no headroom; 21.4 GiB fits 23 */
    in = seed_inputs(KV_INT8, 1);
    strata_memory_plan(&in, &q);
    CHECK(q.fits && q.standby == 0 && q.headroom == 0 && q.arena_slots == 24576 && q.arena == 24576ull * 811008,
          "resident plan");
    in.total_memory = 16ull << 30;
    strata_memory_plan(&in, &q);
    CHECK(!q.fits && q.shortfall == q.fixed + q.arena - q.budget, "resident on 16 GiB: short");
    /* a dense model: no arena, no stand-by bytes */
    in = seed_inputs(KV_INT8, 0);
    in.experts = in.experts_used = in.moe_layers = 0;
    in.expert_bytes = 0;
    strata_memory_plan(&in, &q);
    CHECK(q.fits && q.arena == 0 && q.standby == 0 && q.n_items == 3 && q.scratch == 5984256,
          "dense model: weights, kv and scratch (no books) only");
}

static void test_flags(void) {
    strata_opts o;
    char err[300];
    const char *ok[] = {"x", "--model", "m.gguf", "--ctx", "32768", "--kv", "q4_0", "--threads", "2", "--experts",
                        "resident", "--fault", "abort"};
    CHECK(strata_parse_flags(13, ok, &o, err, sizeof err) == 0, "good flags: %s", err);
    CHECK(o.ctx == 32768 && o.kv == KV_Q4_0 && o.threads == 2 && o.experts_resident && o.fault == 2 &&
              o.prompt_tokens == 512 && o.n_predict == 64,
          "parsed values and defaults");
    struct {
        int argc;
        const char *argv[5];
        const char *names;
    } bad[] = {
        {3, {"x", "--ctx", "4096"}, "--model"},
        {4, {"x", "--model", "m", "--ctx"}, "--ctx"},
        {5, {"x", "--model", "m", "--ctx", "1048577"}, "--ctx"},
        {5, {"x", "--model", "m", "--spec", "17"}, "--spec"},
        {5, {"x", "--model", "m", "--kv", "Q4_0"}, "--kv"},
        {4, {"x", "--model", "m", "--nope"}, "--nope"},
        {5, {"x", "--model", "m", "--model", "n"}, "--model"},
        {5, {"x", "--model", "m", "--threads", "-1"}, "--threads"},
        {5, {"x", "--model", "m", "--ctx", " 12"}, "--ctx"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = strata_parse_flags(bad[i].argc, bad[i].argv, &o, err, sizeof err);
        CHECK(rc != 0 && strstr(err, bad[i].names) != NULL, "bad flags case %zu: %s", i, rc ? err : "accepted");
    }
}

/* --figures: each size on stdin (one decimal integer a line) as "gib<TAB>gib_up<TAB>count<TAB>iec", the figures of a
 * refused plan (figures.c); FiguresParityTest compares them with Java's ByteSize.gib, gibUp, Units.count and iec. */
static int figures(void) {
    unsigned long long v;
    while (scanf("%llu", &v) == 1) {
        char g[32], u[32], c[32], i[32];
        strata_figure_format(g, sizeof g, &STRATA_GIB, v);
        strata_figure_format(u, sizeof u, &STRATA_GIB_UP, v);
        strata_count_format(c, sizeof c, v);
        strata_iec_format(i, sizeof i, v);
        printf("%s\t%s\t%s\t%s\n", g, u, c, i);
    }
    return ferror(stdin) || !feof(stdin) ? 2 : 0;
}

/* --plan: each line of stdin the inputs of strata_memory_plan (the fields of strata_mem_inputs in their order, k4
 * left 0, then the three switches, "-" for unset), answered with one line: fits budget kv standby_slots standby
 * headroom arena_slots arena scratch shortfall free, then the items as the check logs them, joined by '|'.
 * PlanParityTest plans the same configurations with the Java Planner and compares every figure. */
static const char *unset_dash(const char *v) { return strcmp(v, "-") == 0 ? NULL : v; }

static int plans(void) {
    unsigned long long f[20];
    char e[3][32];
    for (;;) {
        int got = 0;
        for (int i = 0; i < 20 && scanf("%llu", &f[i]) == 1; i++) {
            got++;
        }
        if (got == 0 && feof(stdin)) {
            return 0;
        }
        if (got != 20 || scanf("%31s %31s %31s", e[0], e[1], e[2]) != 3) {
            fprintf(stderr, "selftest --plan: a line is 20 numbers and 3 words\n");
            return 2;
        }
        strata_mem_inputs in = {
            .qsa_layers = (uint32_t)f[0], .kv_heads = (uint32_t)f[1], .head_dim = (uint32_t)f[2],
            .experts = (uint32_t)f[3], .experts_used = (uint32_t)f[4], .moe_layers = (uint32_t)f[5],
            .expert_bytes = f[6], .dense_bytes = f[7], .ssm_state_bytes = f[8], .swa_layers = (uint32_t)f[9],
            .swa_cells = f[10], .drafter_layers = (uint32_t)f[11], .drafter_bytes = f[12], .context = f[13],
            .n_seq = (uint32_t)f[14], .experts_resident = (int)f[15], .pools_format = (int)f[16],
            .mem_budget_mb = f[17], .total_memory = f[18], .fwd_scratch_bytes = f[19],
            .env_prompt = unset_dash(e[0]), .env_prompt_gemm = unset_dash(e[1]), .env_arena_bare = unset_dash(e[2]),
        };
        strata_mem_plan p;
        strata_memory_plan(&in, &p);
        printf("%d %llu %llu %u %llu %llu %llu %llu %llu %llu %lld", p.fits, (unsigned long long)p.budget,
               (unsigned long long)p.kv, p.standby_rule_slots, (unsigned long long)p.standby,
               (unsigned long long)p.headroom, (unsigned long long)p.arena_slots, (unsigned long long)p.arena,
               (unsigned long long)p.scratch, (unsigned long long)p.shortfall, (long long)p.free_bytes);
        for (int i = 0; i < p.n_items; i++) {
            char line[128];
            if (strata_memory_item_line(&p, i, "plan", line, sizeof line) == 0) {
                printf("%c%s", i == 0 ? ' ' : '|', line);
            }
        }
        printf("\n");
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--figures") == 0) {
        return figures();
    }
    if (argc > 1 && strcmp(argv[1], "--plan") == 0) {
        return plans();
    }
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/strata-ref-selftest-%ld", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmpdir);
    if (system(cmd) != 0) {
        return 2;
    }
    test_half();
    test_fwht();
    test_abi_sizes();
    test_fused(&strata_fused_base, KV_INT8);
    test_fused(&strata_fused_base, KV_Q4_0);
#if defined(__x86_64__)
    if (strata_fused_best() == &strata_fused_avx2) {
        test_fused(&strata_fused_avx2, KV_INT8);
        test_fused(&strata_fused_avx2, KV_Q4_0);
    } else {
        printf("selftest: no AVX2+FMA on this CPU: the avx2 variant is not tested\n");
    }
#endif
    test_gguf(quick);
    test_memory();
    test_flags();
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) {
        fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    printf("selftest: %d checks, %d failed (fused kernels: %s)\n", checks, fails, strata_fused_best()->isa);
    return fails == 0 ? 0 : 1;
}

/* quant_test_real.c — quant_test's section 5 (quant_test.c): the real models of ../shared/data/models (or
 * $STRATA_SHARED_DATA/models), read with a test-only GGUF reader; each quantized tensor dequantized against the F16
 * tensor of the same name, and gemm_rows on real tensors. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quant.h"
#include "quant_impl.h"
#include "quant_test.h"

/* ---- 5. the real models: a test-only GGUF reader (header, keys skipped, tensor infos) ---- */
typedef struct {
    char name[96];
    uint32_t type;
    int64_t ne[4];
    uint64_t off;
} tinfo;
typedef struct {
    uint8_t *buf;
    size_t size;
    uint64_t nt;
    tinfo *t;
    size_t data;
} gfile;

static int rd(const gfile *g, size_t *p, void *v, size_t n) {
    if (*p + n > g->size) {
        return -1;
    }
    memcpy(v, g->buf + *p, n);
    *p += n;
    return 0;
}
static int skip_value(const gfile *g, size_t *p, uint32_t type, uint64_t *u32val) {
    static const int sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    if (type > 12) {
        return -1;
    }
    if (type == 8) {
        uint64_t len;
        if (rd(g, p, &len, 8) || len > g->size - *p) {
            return -1;
        }
        *p += len;
        return 0;
    }
    if (type == 9) {
        uint32_t at;
        uint64_t n;
        if (rd(g, p, &at, 4) || rd(g, p, &n, 8) || n > g->size) {
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            if (skip_value(g, p, at, NULL)) {
                return -1;
            }
        }
        return 0;
    }
    if (u32val != NULL && type == 4) {
        uint32_t v;
        memcpy(&v, g->buf + *p, 4);
        *u32val = v;
    }
    if (*p + (size_t)sz[type] > g->size) {
        return -1;
    }
    *p += (size_t)sz[type];
    return 0;
}
static int gopen(const char *path, gfile *g) {
    memset(g, 0, sizeof *g);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }
    fseek(f, 0, SEEK_END);
    g->size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    g->buf = malloc(g->size);
    size_t got = fread(g->buf, 1, g->size, f);
    fclose(f);
    size_t p = 0;
    uint32_t magic, version;
    uint64_t nkv, align = 32;
    if (got != g->size || rd(g, &p, &magic, 4) || memcmp(&magic, "GGUF", 4) || rd(g, &p, &version, 4) ||
        rd(g, &p, &g->nt, 8) || rd(g, &p, &nkv, 8) || g->nt > 100000) {
        return -1;
    }
    for (uint64_t i = 0; i < nkv; i++) {
        uint64_t len;
        char key[128] = {0};
        uint32_t type;
        if (rd(g, &p, &len, 8) || len > g->size - p) {
            return -1;
        }
        memcpy(key, g->buf + p, len < 127 ? len : 127);
        p += len;
        uint64_t v = 0;
        if (rd(g, &p, &type, 4) || skip_value(g, &p, type, &v)) {
            return -1;
        }
        if (strcmp(key, "general.alignment") == 0 && type == 4) {
            align = v;
        }
    }
    g->t = calloc(g->nt, sizeof(tinfo));
    for (uint64_t i = 0; i < g->nt; i++) {
        uint64_t len;
        uint32_t nd;
        if (rd(g, &p, &len, 8) || len > g->size - p || len > 95) {
            return -1;
        }
        memcpy(g->t[i].name, g->buf + p, len);
        p += len;
        if (rd(g, &p, &nd, 4) || nd > 4) {
            return -1;
        }
        for (int d = 0; d < 4; d++) {
            g->t[i].ne[d] = 1;
        }
        for (uint32_t d = 0; d < nd; d++) {
            if (rd(g, &p, &g->t[i].ne[d], 8)) {
                return -1;
            }
        }
        if (rd(g, &p, &g->t[i].type, 4) || rd(g, &p, &g->t[i].off, 8)) {
            return -1;
        }
    }
    g->data = (p + align - 1) / align * align;
    return 0;
}
static const tinfo *gfind(const gfile *g, const char *name) {
    for (uint64_t i = 0; i < g->nt; i++) {
        if (strcmp(g->t[i].name, name) == 0) {
            return &g->t[i];
        }
    }
    return NULL;
}
static const uint8_t *gdata(const gfile *g, const tinfo *t) {
    size_t rows = (size_t)(t->ne[1] * t->ne[2] * t->ne[3]);
    size_t bytes = strata_row_bytes(t->type, t->ne[0]) * rows;
    if (bytes == 0 || g->data + t->off + bytes > g->size) {
        return NULL;
    }
    return g->buf + g->data + t->off;
}
static void gclose(gfile *g) {
    free(g->buf);
    free(g->t);
}

/* The relative RMS error a tensor of this type may have against f16: q8_0 1 %, q6_K 3 %, q5_K 5 %, q4_K and
 * q4_0 8 % (about half a quantization step over the block's spread: 127, 63, 31, 15 steps), q5_0 5 %. */
static double type_bound(uint32_t t) {
    switch (t) {
    case GGML_TYPE_Q8_0: return 0.01;
    case GGML_TYPE_Q6_K: return 0.03;
    case GGML_TYPE_Q5_K:
    case GGML_TYPE_Q5_0: return 0.05;
    case GGML_TYPE_Q4_K:
    case GGML_TYPE_Q4_0: return 0.08;
    default: return 1e-6; /* f32 / f16 copies of the same tensor */
    }
}

/* Against a q8_0 reference (the MoE model has no f16 file) the bounds grow by the reference's own error (1 %). */
static void compare_file(const gfile *ref, const char *refname, const char *dir, const char *file, int quick) {
    const double slack = strcmp(refname, "f16") == 0 ? 0.0 : type_bound(GGML_TYPE_Q8_0);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    gfile g;
    if (gopen(path, &g) != 0) {
        CHECK(0, "%s: cannot read", path);
        gclose(&g);
        return;
    }
    struct {
        int count;
        double worst, sum;
        const char *worst_name;
    } per[GGML_TYPE_COUNT_MAX] = {{0, 0, 0, NULL}};
    int compared_gemm = 0;
    for (uint64_t i = 0; i < g.nt; i++) {
        const tinfo *t = &g.t[i];
        const tinfo *f = gfind(ref, t->name);
        const strata_type_info *ti = strata_type(t->type);
        CHECK(ti != NULL && ti->computable, "%s: %s has type %u, which strata-ref does not compute", file, t->name,
              t->type);
        if (f == NULL || ti == NULL || !ti->computable || (quick && i % 5 != 0)) {
            continue;
        }
        CHECK(memcmp(f->ne, t->ne, sizeof f->ne) == 0, "%s: %s shape", file, t->name);
        const uint8_t *qd = gdata(&g, t), *fd = gdata(ref, f);
        CHECK(qd != NULL && fd != NULL, "%s: %s data out of the file", file, t->name);
        if (qd == NULL || fd == NULL) {
            continue;
        }
        const int64_t n = t->ne[0], rows = t->ne[1] * t->ne[2] * t->ne[3];
        const size_t qrb = strata_row_bytes(t->type, n), frb = strata_row_bytes(f->type, n);
        float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
        double se = 0, sf = 0;
        for (int64_t r = 0; r < rows; r++) {
            strata_dequant_row(t->type, qd + (size_t)r * qrb, a, n);
            strata_dequant_row(f->type, fd + (size_t)r * frb, b, n);
            for (int64_t j = 0; j < n; j++) {
                se += ((double)a[j] - b[j]) * ((double)a[j] - b[j]);
                sf += (double)b[j] * b[j];
            }
        }
        const double rel = sqrt(se / (sf > 0 ? sf : 1));
        CHECK(rel < type_bound(t->type) + slack, "%s: %s (%s) relative RMS error %.4f%% >= %.1f%%", file, t->name,
              ti->name, 100 * rel, 100 * (type_bound(t->type) + slack));
        per[t->type].count++;
        per[t->type].sum += rel;
        if (rel >= per[t->type].worst) {
            per[t->type].worst = rel;
            per[t->type].worst_name = t->name;
        }
        /* gemm on the real rows (matrices only): (a) against the dequantized double dot, and the product against
         * the f16 tensor's within the type's bound */
        if (t->ne[1] > 1 && ti->block > 1 && compared_gemm < (quick ? 2 : 8)) {
            compared_gemm++;
            const uint32_t vt = (uint32_t)ti->vec_dot_type;
            const int nc = 3, R = rows < 64 ? (int)rows : 64;
            const size_t xb = strata_row_bytes(vt, n);
            uint8_t *xq = malloc(xb * nc);
            float *x = malloc(sizeof(float) * (size_t)n * nc), *y = malloc(sizeof(float) * (size_t)R * nc);
            float *yf = malloc(sizeof(float) * (size_t)R * nc);
            for (int c = 0; c < nc; c++) {
                for (int64_t j = 0; j < n; j++) {
                    x[(size_t)c * (size_t)n + (size_t)j] = nrand();
                }
                strata_quantize_act(vt, x + (size_t)c * (size_t)n, xq + xb * (size_t)c, n);
            }
            strata_gemm_rows(t->type, n, qd, qrb, 0, R, xq, xb, nc, y, (size_t)R);
            const uint32_t fvt = (uint32_t)strata_type(f->type)->vec_dot_type;
            const size_t fxb = strata_row_bytes(fvt, n);
            uint8_t *fxq = malloc(fxb * nc);
            for (int c = 0; c < nc; c++) {
                strata_quantize_act(fvt, x + (size_t)c * (size_t)n, fxq + fxb * (size_t)c, n);
            }
            strata_gemm_rows(f->type, n, fd, frb, 0, R, fxq, fxb, nc, yf, (size_t)R);
            free(fxq);
            int bad = 0;
            double de = 0, dfsum = 0;
            for (int c = 0; c < nc; c++) {
                for (int r = 0; r < R; r++) {
                    double s = 0, m = 0, dm;
                    for (int64_t j = 0; j < n; j++) {
                        double xv = ref_value(vt, xq + xb * (size_t)c, j, &dm);
                        double wv = ref_value(t->type, qd + (size_t)r * qrb, j, &dm);
                        s += wv * xv;
                        m += dm * fabs(xv);
                    }
                    const float got = y[(size_t)c * (size_t)R + (size_t)r], ff = yf[(size_t)c * (size_t)R + (size_t)r];
                    bad += !(fabs(got - s) <= 1e-5 * m + 1e-30);
                    de += ((double)got - ff) * ((double)got - ff);
                    dfsum += (double)ff * ff;
                }
            }
            const double yrel = sqrt(de / dfsum);
            CHECK(bad == 0, "%s: %s gemm_rows: %d outputs off the dequantized dot", file, t->name, bad);
            CHECK(yrel < type_bound(t->type) + slack + 0.01, "%s: %s gemm against the %s tensor: relative RMS %.4f%%", file,
                  t->name, refname, 100 * yrel);
            printf("quant_test: %s %s gemm_rows x3 vs the %s weights: relative RMS %.3f%%\n", file, t->name, refname,
                   100 * yrel);
            free(xq);
            free(x);
            free(y);
            free(yf);
        }
        free(a);
        free(b);
    }
    for (int k = 0; k < GGML_TYPE_COUNT_MAX; k++) {
        if (per[k].count > 0) {
            printf("quant_test: %s: %d %s tensors vs %s: relative RMS error mean %.3f%%, worst %.3f%% (%s), "
                   "bound %.1f%%\n",
                   file, per[k].count, strata_type((uint32_t)k)->name, refname, 100 * per[k].sum / per[k].count,
                   100 * per[k].worst, per[k].worst_name, 100 * (type_bound((uint32_t)k) + slack));
        }
    }
    gclose(&g);
}

void test_real(int quick) {
    char dir[1024];
    const char *env = getenv("STRATA_SHARED_DATA");
    struct stat sb;
    const char *cands[] = {"../shared/data", "../../shared/data", "../../../shared/data", "../../../../shared/data",
                           "/work/shared/data"};
    dir[0] = 0;
    if (env != NULL && *env) {
        snprintf(dir, sizeof dir, "%s/models", env);
    } else {
        for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
            char p[1024];
            snprintf(p, sizeof p, "%s/models/tiny-qwen3-f16.gguf", cands[i]);
            if (stat(p, &sb) == 0) {
                snprintf(dir, sizeof dir, "%s/models", cands[i]);
                break;
            }
        }
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/tiny-qwen3-f16.gguf", dir);
    if (dir[0] == 0 || stat(path, &sb) != 0) {
        printf("quant_test: real models skipped (no tiny-qwen3-f16.gguf under $STRATA_SHARED_DATA/models or "
               "../shared/data/models)\n");
        return;
    }
    gfile ref;
    if (gopen(path, &ref) != 0) {
        CHECK(0, "%s: cannot read", path);
        gclose(&ref);
        return;
    }
    compare_file(&ref, "f16", dir, "tiny-qwen3-q8_0.gguf", quick);
    compare_file(&ref, "f16", dir, "tiny-qwen3-q4_k_m.gguf", quick);
    gclose(&ref);
    /* the MoE model: Q4_K_M with q5_0 / q8_0 expert down-projections (n = 192 is no multiple of 256), against
     * its q8_0 sibling */
    snprintf(path, sizeof path, "%s/tiny-qwen3moe-q8_0.gguf", dir);
    if (stat(path, &sb) != 0 || gopen(path, &ref) != 0) {
        printf("quant_test: MoE models skipped (no %s)\n", path);
        gclose(&ref);
        return;
    }
    compare_file(&ref, "q8_0", dir, "tiny-qwen3moe-q4_k_m.gguf", quick);
    gclose(&ref);
}


/* ops.c — the forward pass's operations (ops.h): the matrix product split over the thread pool, RMSNorm, RoPE,
 * SiLU, biases. */
#include "ops.h"

#include <math.h>
#include <string.h>

#include "ggml_vec.h"
#include "half.h"
#include "quant.h"

/* ---- matrix products, split over the pool by row ranges ---- */

typedef struct {
    uint32_t wtype;
    int64_t n_in, n_out, rows_per_item;
    const uint8_t *w;
    size_t wrow;
    const uint8_t *xq;
    size_t xstride;
    int ncols, ngemm4;
    float *y;
    size_t ystride;
} mm_job;

static void mm_item(void *ctx, size_t item) {
    const mm_job *j = ctx;
    int64_t r0 = (int64_t)item * j->rows_per_item;
    int64_t r1 = r0 + j->rows_per_item < j->n_out ? r0 + j->rows_per_item : j->n_out;
    int g = j->ngemm4;
    if (g > 0) {
        strata_gemm_rows(j->wtype | STRATA_GEMM4, j->n_in, j->w, j->wrow, r0, r1, j->xq, j->xstride, g, j->y, j->ystride);
    }
    if (g < j->ncols) {
        strata_gemm_rows(j->wtype, j->n_in, j->w, j->wrow, r0, r1, j->xq + (size_t)g * j->xstride, j->xstride,
                         j->ncols - g, j->y + (size_t)g * j->ystride, j->ystride);
    }
}

/* x rounded to bf16, nearest-even (ggml_compute_fp32_to_bf16) */
static float bf16_round(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7fffffff) > 0x7f800000) {
        u |= 0x00400000; /* a NaN stays quiet */
    } else {
        u = (u + (0x7fff + ((u >> 16) & 1))) & 0xffff0000u;
    }
    memcpy(&x, &u, 4);
    return x;
}

void strata_matmul(strata_pool *pool, uint8_t *xq, uint32_t wtype, const uint8_t *w, int64_t n_in, int64_t n_out,
                   const float *x, size_t xs, int ncols, int ngemm4, float *y, size_t ys) {
    const strata_type_info *ti = strata_type(wtype);
    uint32_t vt = (uint32_t)ti->vec_dot_type;
    size_t xrow = strata_row_bytes(vt, n_in);
    for (int c = 0; c < ncols; c++) {
        strata_quantize_act(vt, x + (size_t)c * xs, xq + (size_t)c * xrow, n_in);
        if (wtype == GGML_TYPE_F16 || wtype == GGML_TYPE_BF16) {
            /* llama.cpp's CPU backend converts the activations of an f16 (bf16) matrix product to f16 (bf16), its
             * vec_dot type: round them the same way, kept as floats (the f32 dot of the rounded values) */
            float *r = (float *)(void *)(xq + (size_t)c * xrow);
            for (int64_t i = 0; i < n_in; i++) {
                r[i] = wtype == GGML_TYPE_F16 ? strata_half_to_float(strata_float_to_half(r[i])) : bf16_round(r[i]);
            }
        }
    }
    int threads = strata_pool_size(pool);
    int64_t per = n_out / (threads * 4);
    per = per < 16 ? 16 : (per + 3) / 4 * 4;
    mm_job j = {wtype, n_in, n_out, per, w, strata_row_bytes(wtype, n_in), xq, xrow, ncols, ngemm4, y, ys};
    strata_pool_run(pool, (size_t)((n_out + per - 1) / per), mm_item, &j);
}

void strata_matmul_t(strata_pool *pool, uint8_t *xq, const strata_gguf_tensor *t, const float *x, int ncols, int ngemm4,
                     float *y) {
    strata_matmul(pool, xq, t->type, t->data, t->ne[0], t->ne[1], x, (size_t)t->ne[0], ncols, ngemm4, y,
                  (size_t)t->ne[1]);
}

void strata_add_bias(float *y, const strata_gguf_tensor *b, int ncols, size_t n) {
    if (b == NULL) {
        return;
    }
    const float *bv = (const float *)b->data;
    for (int c = 0; c < ncols; c++) {
        for (size_t i = 0; i < n; i++) {
            y[(size_t)c * n + i] += bv[i];
        }
    }
}

/* ---- elementwise ---- */

/* o = x / sqrt(mean(x²) + eps) · w (llama.cpp ggml_rms_norm then ggml_mul: the sum in double) */
void strata_rmsnorm(float *o, const float *x, const float *w, size_t n, float eps) {
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        ss += (double)(x[i] * x[i]); /* the square in float, as ggml_compute_forward_rms_norm_f32 */
    }
    float scale = 1.0f / sqrtf((float)(ss / (double)n) + eps);
    for (size_t i = 0; i < n; i++) {
        o[i] = x[i] * scale * w[i];
    }
}

/* RoPE of one head vector at position pos (llama.cpp ggml_rope_ext without YaRN: theta_i = pos · base^(-2i/n_rot),
 * divided by rope_freqs[i] when the model has them; NEOX rotates pairs (i, i + n_rot/2), NORM pairs (2i, 2i+1)). */
void strata_rope(float *x, size_t pos, const strata_model *md) {
    const int nr = (int)md->n_rot;
    /* ggml's rotate_pairs (ops.cpp) is compiled with FMA in llama.cpp's x86 variants that have it: GCC fuses the
     * first product of each line (x0*cos - x1*sin → fma(x0, cos, -(x1*sin))); measured bit-exact against the
     * shipped libggml-cpu-zen4.so */
    const int fused = strcmp(strata_ggml_isa(), "scalar") != 0;
    const float theta_scale = powf(md->rope_base, -2.0f / (float)nr);
    float theta = (float)pos;
    for (int i = 0; i < nr / 2; i++) {
        float t = md->rope_freqs != NULL ? theta / md->rope_freqs[i] : theta;
        float c = cosf(t), s = sinf(t);
        int a = md->rope_neox ? i : 2 * i;
        int b = md->rope_neox ? i + nr / 2 : 2 * i + 1;
        float x0 = x[a], x1 = x[b];
        if (fused) {
            x[a] = fmaf(x0, c, -(x1 * s));
            x[b] = fmaf(x0, s, x1 * c);
        } else {
            x[a] = x0 * c - x1 * s;
            x[b] = x0 * s + x1 * c;
        }
        theta *= theta_scale;
    }
}


// lc_dump MODEL TOKENS.u16 N OUT [BATCH] [THREADS]: llama.cpp (the libraries LC_LIBDIR names) evaluates the first N
// tokens of TOKENS as batches of BATCH (= ubatch, default 512) with flash attention and f16 KV, and writes every f32
// graph tensor its cb_eval callback sees to OUT as {char name[64]; int32 ne[4]; float data[]} records, then the
// logits of all N positions as the record "logits". NO_CB=1: no callback (to check the callback changes nothing).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "llama.h"
#include "ggml.h"
#include "ggml-backend.h"

static FILE *out;
static int want_all = 1;

static void rec(const char *name, const int64_t *ne, const float *data) {
    char nm[64] = {0};
    strncpy(nm, name, 63);
    int32_t n4[4] = {(int32_t)ne[0], (int32_t)ne[1], (int32_t)ne[2], (int32_t)ne[3]};
    fwrite(nm, 1, 64, out);
    fwrite(n4, 4, 4, out);
    fwrite(data, 4, (size_t)ne[0] * ne[1] * ne[2] * ne[3], out);
}

static bool cb(struct ggml_tensor *t, bool ask, void *ud) {
    (void)ud;
    if (ask) return want_all;
    if (t->type != GGML_TYPE_F32) return true;
    size_t n = ggml_nelements(t);
    float *buf = malloc(n * 4);
    size_t k = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++)
                    buf[k++] = *(float *)((char *)t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
    char nm[128];
    snprintf(nm, sizeof nm, "%s", t->name);
    rec(nm, t->ne, buf);
    free(buf);
    return true;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage\n"); return 2; }
    int N = atoi(argv[3]);
    int B = argc > 5 ? atoi(argv[5]) : 512;
    int T = argc > 6 ? atoi(argv[6]) : 2;
    want_all = getenv("NO_CB") == NULL;
    FILE *tf = fopen(argv[2], "rb");
    uint16_t *tk16 = malloc(N * 2);
    if (fread(tk16, 2, N, tf) != (size_t)N) return 3;
    fclose(tf);
    llama_token *tk = malloc(N * sizeof *tk);
    for (int i = 0; i < N; i++) tk[i] = tk16[i];
    ggml_backend_load_all_from_path(getenv("LC_LIBDIR"));
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *m = llama_model_load_from_file(argv[1], mp);
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 1025 > N + 1 ? 1025 : N + 1;
    cp.n_batch = B;
    cp.n_ubatch = B;
    cp.n_threads = T;
    cp.n_threads_batch = T;
    cp.flash_attn_type = getenv("NO_FA") ? LLAMA_FLASH_ATTN_TYPE_DISABLED : LLAMA_FLASH_ATTN_TYPE_ENABLED;
    cp.type_k = GGML_TYPE_F16;
    cp.type_v = GGML_TYPE_F16;
    cp.cb_eval = cb;
    cp.cb_eval_user_data = NULL;
    struct llama_context *c = llama_init_from_model(m, cp);
    out = fopen(argv[4], "wb");
    int nv = llama_vocab_n_tokens(llama_model_get_vocab(m));
    float *lg = malloc((size_t)N * nv * 4);
    for (int p = 0; p < N; p += B) {
        int nb = N - p < B ? N - p : B;
        struct llama_batch b = llama_batch_init(nb, 0, 1);
        for (int i = 0; i < nb; i++) {
            b.token[i] = tk[p + i]; b.pos[i] = p + i; b.n_seq_id[i] = 1; b.seq_id[i][0] = 0; b.logits[i] = 1;
        }
        b.n_tokens = nb;
        if (llama_decode(c, b) != 0) { fprintf(stderr, "decode failed\n"); return 4; }
        for (int i = 0; i < nb; i++) memcpy(lg + (size_t)(p + i) * nv, llama_get_logits_ith(c, i), nv * 4);
        llama_batch_free(b);
    }
    int64_t ne[4] = {nv, N, 1, 1};
    rec("logits", ne, lg);
    fclose(out);
    return 0;
}

// kld-base.cpp — an independent cross-check of logits.mjs: the same "_logits_" file written straight from
// llama.cpp's C API (the shared libraries node-llama-cpp ships), with tools/perplexity/perplexity.cpp's
// own code for the record (log_softmax, nearest_int, copied verbatim) and llama-perplexity's batching
// (one llama_decode per chunk, n_batch = n_ctx, n_ubatch = 512). Build and run: native/check.sh.
//   usage: kld-base BACKEND_DIR MODEL TOKENS.u16 N_CTX N_CHUNK N_THREADS KV(f16|q8_0|q4_0) OUT [OUT_F32]
// OUT_F32: also the "_lpf32__" file (log-softmax of the raw logits, in double, stored as float32).
// Experiments (environment): KLD_BASE_SPLIT=1 two llama_decode calls of n_ctx/2 (results unchanged);
// KLD_BASE_NCTX=N a larger KV cache (unchanged); KLD_BASE_MMAP=1 load_mode MMAP as node-llama-cpp
// (unchanged); KLD_BASE_NO_REPACK=1 no weight repacking (changes the rounding); KLD_BASE_VERBOSE=1 all logs.
#include "llama.h"
#include "ggml-backend.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

// --- tools/perplexity/perplexity.cpp, verbatim ---------------------------------------------------------
static inline int nearest_int(float fval) {
    //assert(fval <= 4194303.f);
    float val = fval + 12582912.f;
    int i; memcpy(&i, &val, sizeof(int));
    return (i & 0x007fffff) - 0x00400000;
}

static double log_softmax(int n_vocab, const float * logits, uint16_t * log_prob, int tok) {
    float max_logit = logits[0];
    float min_logit = logits[0];
    for (int i = 1; i < n_vocab; ++i) {
        max_logit = std::max(max_logit, logits[i]);
        min_logit = std::min(min_logit, logits[i]);
    }
    min_logit = std::max(min_logit, max_logit - 16);
    double sum_exp = 0.0;
    for (int i = 0; i < n_vocab; ++i) {
        sum_exp += expf(logits[i] - max_logit);
    }
    const float log_sum_exp = log(sum_exp);
    const float min_log_prob = min_logit - max_logit - log_sum_exp;
    const float scale = (max_logit - min_logit)/65535.f;
    float * d = (float *)log_prob;
    d[0] = scale;
    d[1] = min_log_prob;
    log_prob += 4;
    if (scale) {
        const float inv_scale = 1/scale;
        for (int i = 0; i < n_vocab; ++i) {
            log_prob[i] = logits[i] > min_logit ? nearest_int(inv_scale*(logits[i] - min_logit)) : 0;
        }
    } else {
        std::memset(log_prob, 0, n_vocab*sizeof(uint16_t));
    }
    return max_logit + log_sum_exp - logits[tok];
}
// ---------------------------------------------------------------------------------------------------------

static void quiet(ggml_log_level level, const char * text, void *) {
    if (level >= GGML_LOG_LEVEL_WARN || getenv("KLD_BASE_VERBOSE")) fputs(text, stderr);
}

int main(int argc, char ** argv) {
    if (argc != 9 && argc != 10) {
        fprintf(stderr, "usage: kld-base BACKEND_DIR MODEL TOKENS.u16 N_CTX N_CHUNK N_THREADS KV OUT [OUT_F32]\n");
        return 2;
    }
    const char * backend_dir = argv[1];
    const char * model_path = argv[2];
    const int n_ctx = atoi(argv[4]);
    const int n_chunk = atoi(argv[5]);
    const int n_threads = atoi(argv[6]);
    const std::string kv = argv[7];
    const ggml_type kv_type = kv == "q8_0" ? GGML_TYPE_Q8_0 : kv == "q4_0" ? GGML_TYPE_Q4_0 : GGML_TYPE_F16;

    std::ifstream tin(argv[3], std::ios::binary);
    std::vector<uint16_t> t16(size_t(n_ctx) * n_chunk);
    if (!tin.read((char *)t16.data(), t16.size() * 2)) { fprintf(stderr, "short token file\n"); return 2; }
    std::vector<llama_token> tokens(t16.begin(), t16.end());

    llama_log_set(quiet, nullptr);
    ggml_backend_load_all_from_path(backend_dir);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    if (getenv("KLD_BASE_MMAP")) mp.load_mode = LLAMA_LOAD_MODE_MMAP;
    if (getenv("KLD_BASE_NO_REPACK")) mp.use_extra_bufts = false;
    llama_model * model = llama_model_load_from_file(model_path, mp);
    if (!model) { fprintf(stderr, "cannot load %s\n", model_path); return 1; }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = getenv("KLD_BASE_NCTX") ? atoi(getenv("KLD_BASE_NCTX")) : n_ctx;
    cp.n_batch = n_ctx;
    cp.n_ubatch = 512;
    cp.n_seq_max = 1;
    cp.n_threads = n_threads;
    cp.n_threads_batch = n_threads;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED;
    cp.type_k = kv_type;
    cp.type_v = kv_type;
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) { fprintf(stderr, "cannot create the context\n"); return 1; }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

    std::ofstream out(argv[8], std::ios::binary);
    out.write("_logits_", 8);
    out.write((const char *)&n_ctx, sizeof(n_ctx));
    out.write((const char *)&n_vocab, sizeof(n_vocab));
    out.write((const char *)&n_chunk, sizeof(n_chunk));
    out.write((const char *)tokens.data(), tokens.size() * sizeof(tokens[0]));

    const int first = n_ctx / 2;
    std::ofstream out32;
    if (argc == 10) {
        out32.open(argv[9], std::ios::binary);
        const int32_t hdr[5] = {1, n_ctx, n_vocab, n_chunk, first};
        out32.write("_lpf32__", 8);
        out32.write((const char *)hdr, sizeof(hdr));
        out32.write((const char *)tokens.data(), tokens.size() * sizeof(tokens[0]));
    }
    std::vector<float> lp32(n_vocab);
    const int nv = 2 * ((n_vocab + 1) / 2) + 4;
    std::vector<uint16_t> log_probs(size_t(n_ctx) * nv);
    llama_batch batch = llama_batch_init(n_ctx, 0, 1);
    double nll = 0.0;
    int count = 0;
    for (int c = 0; c < n_chunk; ++c) {
        llama_memory_clear(llama_get_memory(ctx), true);
        batch.n_tokens = n_ctx;
        for (int k = 0; k < n_ctx; ++k) {
            batch.token[k] = tokens[size_t(c) * n_ctx + k];
            batch.pos[k] = k;
            batch.n_seq_id[k] = 1;
            batch.seq_id[k][0] = 0;
            batch.logits[k] = k >= first;
        }
        // KLD_BASE_SPLIT=1: two llama_decode calls of n_ctx/2 tokens each (what node-llama-cpp does with
        // batchSize 512) instead of llama-perplexity's one call of n_ctx tokens in ubatches of 512
        std::vector<float> kept;
        const float * all_logits = nullptr;
        if (getenv("KLD_BASE_SPLIT")) {
            const int half = n_ctx / 2;
            for (int h = 0; h < 2; ++h) {
                llama_batch view = batch;
                view.n_tokens = half;
                view.token += h * half; view.pos += h * half; view.n_seq_id += h * half;
                view.seq_id += h * half; view.logits += h * half;
                if (llama_decode(ctx, view)) { fprintf(stderr, "decode failed\n"); return 1; }
            }
            all_logits = llama_get_logits_ith(ctx, 0);
        } else {
            if (llama_decode(ctx, batch)) { fprintf(stderr, "decode failed\n"); return 1; }
            all_logits = llama_get_logits_ith(ctx, first);
        }
        const int n_token = n_ctx - 1 - first;
        for (int i = 0; i < n_token; ++i) {
            nll += log_softmax(n_vocab, all_logits + size_t(i) * n_vocab, log_probs.data() + size_t(i) * nv,
                               tokens[size_t(c) * n_ctx + first + i + 1]);
            ++count;
            if (out32.is_open()) {
                const float * lg = all_logits + size_t(i) * n_vocab;
                double mx = lg[0];
                for (int j = 1; j < n_vocab; ++j) mx = std::max(mx, (double)lg[j]);
                double se = 0.0;
                for (int j = 0; j < n_vocab; ++j) se += std::exp((double)lg[j] - mx);
                const double lse = mx + std::log(se);
                for (int j = 0; j < n_vocab; ++j) lp32[j] = (float)((double)lg[j] - lse);
                out32.write((const char *)lp32.data(), n_vocab * sizeof(float));
            }
        }
        out.write((const char *)log_probs.data(), size_t(n_token) * nv * sizeof(uint16_t));
        fprintf(stderr, "[%d/%d] ppl=%.4f\n", c + 1, n_chunk, exp(nll / count));
    }
    printf("{\"ppl\": %.6f, \"n_scored\": %d, \"n_ctx\": %d, \"n_chunk\": %d, \"kv\": \"%s\", \"threads\": %d}\n",
           exp(nll / count), count, n_ctx, n_chunk, kv.c_str(), n_threads);
    llama_batch_free(batch);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}

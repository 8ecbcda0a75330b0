#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "forward.h"
#include "gguf_map.h"
#include "model.h"
#include "kv.h"
#include "threads.h"
#include "ref_internal.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc, char **argv) {
  const char *model = argv[1], *toks = argv[2]; int ctx = atoi(argv[3]), chunks = atoi(argv[4]); int fmt = argc > 5 ? atoi(argv[5]) : 0;
  char err[600]; strata_gguf_map m; if (strata_gguf_map_open(model, &m, err, sizeof err)) { puts(err); return 1; }
  strata_model md; int rc = strata_model_load(&m, &md, err, sizeof err); if (rc) { puts(err); return rc; }
  FILE *fp = fopen(toks, "rb"); fseek(fp, 0, SEEK_END); long nb = ftell(fp); fseek(fp, 0, SEEK_SET);
  uint16_t *u = malloc(nb); fread(u, 1, nb, fp); fclose(fp);
  strata_kv kv; if (strata_kv_init(&kv, fmt, md.n_layer, 1, md.n_head_kv, md.head_dim, ctx + 128)) { puts("kv"); return 1; }
  strata_pool pool; strata_pool_init(&pool, 2);
  strata_fwd f; strata_fwd_init(&f, &md, &kv, &pool, strata_fused_best());
  int V = md.n_vocab; float *logits = malloc((size_t)ctx * V * 4); int32_t *t = malloc(ctx * 4);
  double nll = 0; long cnt = 0; double t0 = now();
  for (int c = 0; c < chunks; c++) {
    for (int i = 0; i < ctx; i++) t[i] = u[c * ctx + i];
    int first = ctx / 2;
    rc = strata_forward(&f, 0, t, ctx, 0, first, logits);
    if (rc) { printf("rc %d\n", rc); return 1; }
    for (int i = first; i < ctx - 1; i++) {
      float *l = logits + (size_t)(i - first) * V; float mx = l[0]; for (int j = 1; j < V; j++) if (l[j] > mx) mx = l[j];
      double s = 0; for (int j = 0; j < V; j++) s += exp(l[j] - mx);
      nll += -(l[t[i + 1]] - mx - log(s)); cnt++;
    }
    printf("chunk %d ppl so far %.4f (%.1fs)\n", c, exp(nll / cnt), now() - t0); fflush(stdout);
  }
  printf("ppl %.4f over %ld\n", exp(nll / cnt), cnt);
}

/* threads.h — strata-ref's thread pool: a job of n items, claimed with an atomic counter by the workers and the
 * calling thread. Workers spin briefly for the next job before they sleep (a forward pass runs ~10 jobs per layer
 * per token: waking a sleeping thread each time would cost as much as a small job). */
#ifndef STRATA_THREADS_H
#define STRATA_THREADS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

typedef void (*strata_job_fn)(void *ctx, size_t item);

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    pthread_t *threads;
    int n_threads, started, stop;
    atomic_ulong generation;
    atomic_int busy;
    strata_job_fn fn;
    void *ctx;
    size_t n_items;
    atomic_size_t next;
} strata_pool;

/* n_threads counts the caller: n_threads - 1 workers are started. 0, or -1 when none could be. */
int strata_pool_init(strata_pool *p, int n_threads);
/* Runs fn(ctx, i) for every i < n_items and returns when all are done. */
void strata_pool_run(strata_pool *p, size_t n_items, strata_job_fn fn, void *ctx);
void strata_pool_free(strata_pool *p);
/* Threads this job runs on (workers started + the caller). */
int strata_pool_size(const strata_pool *p);
/* The default thread count: the cores online (1..1024). */
int strata_threads_default(void);

#endif

/* threads.c — the thread pool (threads.h). */
#define _POSIX_C_SOURCE 200809L
#include "threads.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Spins of a worker waiting for the next job before it sleeps on the condition variable (~50 µs here). */
#define SPINS 20000

static void drain(strata_pool *p) {
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n_items) {
            return;
        }
        p->fn(p->ctx, i);
    }
}

static void *worker(void *arg) {
    strata_pool *p = arg;
    unsigned long seen = 0;
    for (;;) {
        unsigned long g = atomic_load(&p->generation);
        for (int s = 0; g == seen && s < SPINS; s++) {
            g = atomic_load_explicit(&p->generation, memory_order_acquire);
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while (!p->stop && (g = atomic_load(&p->generation)) == seen) {
                pthread_cond_wait(&p->start, &p->mu);
            }
            int stop = p->stop;
            pthread_mutex_unlock(&p->mu);
            if (stop) {
                return NULL;
            }
        }
        seen = g;
        drain(p);
        if (atomic_fetch_sub(&p->busy, 1) == 1) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

int strata_pool_init(strata_pool *p, int n_threads) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n_threads = n_threads > 1 ? n_threads - 1 : 0; /* the calling thread is the last worker */
    if (p->n_threads > 0) {
        p->threads = calloc((size_t)p->n_threads, sizeof *p->threads);
        if (p->threads == NULL) {
            return -1;
        }
    }
    for (int i = 0; i < p->n_threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
            break;
        }
        p->started++;
    }
    return 0;
}

void strata_pool_run(strata_pool *p, size_t n_items, strata_job_fn fn, void *ctx) {
    if (p->started == 0 || n_items <= 1) {
        for (size_t i = 0; i < n_items; i++) {
            fn(ctx, i);
        }
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->n_items = n_items;
    atomic_store(&p->next, 0);
    atomic_store(&p->busy, p->started);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    drain(p);
    for (int s = 0; atomic_load(&p->busy) > 0 && s < SPINS; s++) {
    }
    if (atomic_load(&p->busy) > 0) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->busy) > 0) {
            pthread_cond_wait(&p->done, &p->mu);
        }
        pthread_mutex_unlock(&p->mu);
    }
}

void strata_pool_free(strata_pool *p) {
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; i++) {
        pthread_join(p->threads[i], NULL);
    }
    free(p->threads);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    memset(p, 0, sizeof *p);
}

int strata_pool_size(const strata_pool *p) { return p->started + 1; }

int strata_threads_default(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A small persistent worker pool, owned by a context (no global state; not
 * installed). Worker threads are created on the first run that needs them and
 * then sleep on a condition variable between runs, so a multi-threaded call
 * costs a wakeup instead of a pthread_create + pthread_join per thread. */
#ifndef B2_POOL_H
#define B2_POOL_H

#include "b2_internal.h"

typedef struct b2_pool b2_pool;

/* A pool of nthreads workers in total, the calling thread included (<= 0 means 1).
 * No thread is created yet. Returns NULL when out of memory. */
B2_HIDDEN b2_pool *b2_pool_new(int nthreads);
/* Stop and join the worker threads (if any were started) and free the pool.
 * NULL is fine. Must not be called while a run is in progress. */
B2_HIDDEN void b2_pool_free(b2_pool *p);
/* The nthreads the pool was created with. */
B2_HIDDEN int b2_pool_nthreads(const b2_pool *p);

/* Call fn(arg, worker) on n workers (1 <= n <= nthreads) and return when every
 * call has returned. Worker 0 is the calling thread; helper threads 1..n-1 are
 * created now if they do not exist yet. If a thread cannot be created the run goes
 * on with fewer workers: the indices given out are still unique and < n, but some
 * of them may not be called at all, so fn must be a work-sharing loop (e.g. over an
 * atomic counter) that does not rely on every index running. Everything fn wrote
 * is visible to the caller when b2_pool_run returns.
 * Not reentrant: one run at a time per pool (a nested or concurrent call returns
 * B2_ERR_INVALID_PARAM without calling fn, unrecorded, as callers then run fn
 * themselves; p or fn NULL and n out of range give a recorded B2_ERR_INVALID_PARAM).
 * A failure a helper records (B2_FAIL) is handed to the
 * calling thread's record unless the caller recorded one itself.
 * Returns the number of workers that ran fn (1..n). */
B2_HIDDEN int b2_pool_run(b2_pool *p, int n, void (*fn)(void *arg, int worker), void *arg);

#endif

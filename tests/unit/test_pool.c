/* SPDX-License-Identifier: BSD-3-Clause */
/* Worker pool tests: many runs of tiny work-sharing jobs with 1, 2, 3 and 8
 * workers (each worker index used at most once per run and below n, every work
 * item done exactly once, the items' plain writes visible after the run); runs
 * with n < nthreads in random order; lazy thread creation; thread creation
 * failures (pthread_create is interposed below); pools freed without any run or
 * right after one; misuse. Prints (does not assert) the latency of an empty
 * 2-worker run against a pthread_create + pthread_join. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "b2_common.h"
#include "pool.h"
#include "check.h"

/* ---- pthread_create interposer: counts creations, fails on demand ---- */

/* Not with a sanitizer runtime linked into the executable (clang's default): its own
 * pthread_create must run, and RTLD_NEXT would skip it. */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__clang__) && (__has_feature(thread_sanitizer) || \
                           __has_feature(address_sanitizer) || __has_feature(memory_sanitizer))
#define NO_INTERPOSER 1
#endif

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int creates_ok, creates_allowed = -1; /* -1: unlimited */

#ifndef NO_INTERPOSER
int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
    static create_fn real;
    if (!real)
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!real)
        return EAGAIN;
    if (creates_allowed >= 0 && __atomic_load_n(&creates_ok, __ATOMIC_RELAXED) >= creates_allowed)
        return EAGAIN;
    int rc = real(t, a, f, arg);
    if (rc == 0)
        __atomic_fetch_add(&creates_ok, 1, __ATOMIC_RELAXED);
    return rc;
}
#endif

/* ---- a tiny work-sharing job ---- */

#define MAX_ITEMS 64
#define MAX_WORKERS 8

typedef struct job {
    int nitems;
    int next;                  /* next item to take (atomic) */
    int hits[MAX_ITEMS];       /* times each item was taken (atomic) */
    uint32_t out[MAX_ITEMS];   /* plain writes: the pool must publish them */
    int ran[MAX_WORKERS];      /* calls per worker index (plain: indices are unique) */
    int bad_index;             /* a worker index out of range was seen (atomic) */
    int nworkers;              /* n of the run */
    uint32_t seed;
} job;

static void job_fn(void *arg, int worker)
{
    job *j = arg;
    if (worker < 0 || worker >= j->nworkers) {
        __atomic_store_n(&j->bad_index, 1, __ATOMIC_RELAXED);
        return;
    }
    j->ran[worker]++;
    if ((j->seed + (uint32_t)worker) % 7 == 0)
        sched_yield(); /* shake up the interleavings */
    for (;;) {
        int i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (i >= j->nitems)
            break;
        __atomic_fetch_add(&j->hits[i], 1, __ATOMIC_RELAXED);
        j->out[i] = j->seed * 2654435761u + (uint32_t)i;
    }
}

/* One run of n workers over nitems items; checks it. expect_workers: the number of
 * workers b2_pool_run must report (n unless thread creation is made to fail). */
static int run_and_check(b2_pool *p, int n, int nitems, uint32_t seed, int expect_workers)
{
    job j;
    memset(&j, 0, sizeof j);
    j.nitems = nitems;
    j.nworkers = n;
    j.seed = seed;
    int rc = b2_pool_run(p, n, job_fn, &j);
    int bad = 0;
    bad |= rc != expect_workers;
    bad |= j.bad_index;
    bad |= j.next < nitems;
    for (int w = 0; w < MAX_WORKERS; w++)
        bad |= j.ran[w] != (w < rc);
    for (int i = 0; i < nitems; i++)
        bad |= j.hits[i] != 1 || j.out[i] != seed * 2654435761u + (uint32_t)i;
    CHECK(!bad, "run seed %u n %d items %d: rc %d (want %d), ran %d%d%d%d%d%d%d%d, bad index %d",
          seed, n, nitems, rc, expect_workers, j.ran[0], j.ran[1], j.ran[2], j.ran[3], j.ran[4],
          j.ran[5], j.ran[6], j.ran[7], j.bad_index);
    return !bad;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static int interposed; /* pthread_create above is the one the pool calls */

static void test_full_runs(int runs)
{
    static const int sizes[] = {1, 2, 3, 8};
    for (int s = 0; s < 4; s++) {
        int nt = sizes[s];
        int before = creates_ok;
        b2_pool *p = b2_pool_new(nt);
        CHECK(p && b2_pool_nthreads(p) == nt, "new(%d)", nt);
        if (!p)
            continue;
        CHECK(creates_ok == before, "new(%d) created threads", nt);
        int ok = 1;
        for (int r = 0; r < runs && ok; r++)
            ok = run_and_check(p, nt, 1 + (int)(rnd() % MAX_ITEMS), (uint32_t)r, nt);
        if (interposed)
            CHECK(creates_ok - before == nt - 1, "pool of %d created %d threads", nt,
                  creates_ok - before);
        b2_pool_free(p);
    }
}

/* n varies from run to run, so helpers are created part by part and sit some runs out. */
static void test_partial_runs(int runs)
{
    int before = creates_ok;
    b2_pool *p = b2_pool_new(8);
    if (!p) {
        CHECK(0, "new(8)");
        return;
    }
    for (int r = 0; r < 200; r++) /* n == 1 only: no thread at all */
        run_and_check(p, 1, 1 + r % MAX_ITEMS, (uint32_t)r, 1);
    if (interposed)
        CHECK(creates_ok == before, "n=1 runs created %d threads", creates_ok - before);
    run_and_check(p, 3, 40, 1, 3);
    if (interposed)
        CHECK(creates_ok - before == 2, "n=3 run created %d threads", creates_ok - before);
    int ok = 1;
    for (int r = 0; r < runs && ok; r++) {
        int n = 1 + (int)(rnd() % 8);
        ok = run_and_check(p, n, 1 + (int)(rnd() % MAX_ITEMS), (uint32_t)r, n);
    }
    if (interposed)
        CHECK(creates_ok - before == 7, "created %d threads in all", creates_ok - before);
    b2_pool_free(p);
}

static void test_create_failures(void)
{
    if (!interposed) {
        printf("pthread_create not interposed: creation failure tests skipped\n");
        return;
    }
    /* Only 2 of the 7 helpers can be created: runs go on with 3 workers. */
    b2_pool *p = b2_pool_new(8);
    creates_ok = 0;
    creates_allowed = 2;
    for (int r = 0; r < 100; r++)
        run_and_check(p, 8, MAX_ITEMS, (uint32_t)r, 3);
    run_and_check(p, 2, MAX_ITEMS, 7, 2);
    creates_allowed = -1; /* a later run creates the rest */
    for (int r = 0; r < 100; r++)
        run_and_check(p, 8, MAX_ITEMS, (uint32_t)r, 8);
    CHECK(creates_ok == 7, "created %d", creates_ok);
    b2_pool_free(p);

    /* No helper at all, then free right after the failed run. */
    creates_ok = 0;
    creates_allowed = 0;
    p = b2_pool_new(4);
    run_and_check(p, 4, MAX_ITEMS, 1, 1);
    run_and_check(p, 4, MAX_ITEMS, 2, 1);
    b2_pool_free(p);
    /* Failure in the middle, then free. */
    creates_allowed = 1;
    p = b2_pool_new(4);
    run_and_check(p, 4, MAX_ITEMS, 3, 2);
    b2_pool_free(p);
    creates_allowed = -1;
}

static void test_lifecycle(void)
{
    b2_pool_free(NULL);
    CHECK(b2_pool_nthreads(NULL) == 0, "nthreads(NULL)");
    for (int nt = -2; nt <= 16; nt++) { /* new and free without any run */
        int before = creates_ok;
        b2_pool *p = b2_pool_new(nt);
        CHECK(p && b2_pool_nthreads(p) == (nt < 1 ? 1 : nt), "new(%d)", nt);
        b2_pool_free(p);
        CHECK(creates_ok == before, "new/free(%d) created threads", nt);
    }
    for (int r = 0; r < 300; r++) { /* free right after the first (or second) run */
        int nt = 2 + r % 7;
        b2_pool *p = b2_pool_new(nt);
        run_and_check(p, nt, 1 + r % MAX_ITEMS, (uint32_t)r, nt);
        if (r & 1)
            run_and_check(p, 1 + r % nt, MAX_ITEMS, (uint32_t)r, 1 + r % nt);
        b2_pool_free(p);
    }
}

static int calls;
static void count_fn(void *arg, int worker) { __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED); }
typedef struct nest {
    b2_pool *p;
    int rc;
} nest;
static void nested_fn(void *arg, int worker)
{
    nest *ns = arg;
    if (worker == 0)
        ns->rc = b2_pool_run(ns->p, 1, count_fn, NULL);
}

static void test_misuse(void)
{
    b2_pool *p = b2_pool_new(4);
    calls = 0;
    CHECK(b2_pool_run(NULL, 1, count_fn, NULL) == B2_ERR_INVALID_PARAM, "NULL pool");
    CHECK(b2_pool_run(p, 1, NULL, NULL) == B2_ERR_INVALID_PARAM, "NULL fn");
    CHECK(b2_pool_run(p, 0, count_fn, NULL) == B2_ERR_INVALID_PARAM, "n = 0");
    CHECK(b2_pool_run(p, 5, count_fn, NULL) == B2_ERR_INVALID_PARAM, "n > nthreads");
    CHECK(calls == 0, "fn called %d times on bad arguments", calls);
    nest ns = {p, 0};
    CHECK(b2_pool_run(p, 2, nested_fn, &ns) == 2 && ns.rc == B2_ERR_INVALID_PARAM,
          "nested run returned %d", ns.rc);
    CHECK(calls == 0, "nested fn called");
    CHECK(b2_pool_run(p, 4, count_fn, NULL) == 4 && calls == 4, "after nested: %d calls", calls);
    b2_pool_free(p);
}

/* ---- latency ---- */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static void empty_fn(void *arg, int worker) {}
static void *empty_thread(void *arg) { return NULL; }

static void latency(void)
{
    b2_pool *p = b2_pool_new(2);
    for (int i = 0; i < 1000; i++) /* warm up (and create the helper) */
        b2_pool_run(p, 2, empty_fn, NULL);
    int runs = 20000;
    double t0 = now_us();
    for (int i = 0; i < runs; i++)
        b2_pool_run(p, 2, empty_fn, NULL);
    double pool_us = (now_us() - t0) / runs;
    t0 = now_us();
    for (int i = 0; i < runs; i++)
        b2_pool_run(p, 1, empty_fn, NULL);
    double one_us = (now_us() - t0) / runs;
    b2_pool_free(p);
    int creates = 2000;
    t0 = now_us();
    for (int i = 0; i < creates; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, empty_thread, NULL) == 0)
            pthread_join(t, NULL);
    }
    double create_us = (now_us() - t0) / creates;
    printf("empty run, 2 workers: %.2f us; 1 worker: %.3f us; pthread_create+join: %.2f us\n",
           pool_us, one_us, create_us);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 20000;
    /* Is the pool's pthread_create the one above? (Not if the library was linked
     * so that it binds to libc directly.) */
    b2_pool *p = b2_pool_new(2);
    b2_pool_run(p, 2, empty_fn, NULL);
    interposed = creates_ok == 1;
    b2_pool_free(p);
    printf("pthread_create interposed: %s\n", interposed ? "yes" : "no");

    test_lifecycle();
    test_misuse();
    test_full_runs(runs);
    test_partial_runs(runs);
    test_create_failures();
    latency();
    return b2t_summary(NULL);
}

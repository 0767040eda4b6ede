/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for programs built on libb2 (its HDF5 filter and the b2 program use
 * them): a worker pool, recording failures in libb2's per-thread error
 * record so that b2_last_error_message() tells the caller what went wrong,
 * and which SIMD kernels run.
 * Experimental: they may change or go in any release. */
#ifndef B2_HELPERS_EXPERIMENTAL_H
#define B2_HELPERS_EXPERIMENTAL_H

#include "b2_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A persistent pool of nthreads workers, the calling thread included (<= 0
 * means 1); threads start on the first run that needs them and sleep between
 * runs. NULL when out of memory. */
typedef struct b2_pool b2_pool;
B2_API b2_pool *b2_pool_new(int nthreads);
/* Join the workers and free the pool (NULL is fine); not during a run. */
B2_API void b2_pool_free(b2_pool *p);
/* The nthreads the pool was made with. */
B2_API int b2_pool_nthreads(const b2_pool *p);
/* Call fn(arg, worker) on n workers (1 <= n <= nthreads; worker 0 is the caller)
 * and return once all have returned: the number of workers that ran (a thread
 * that cannot start leaves its index unrun, so fn must share work, e.g. over an
 * atomic counter). One run at a time per pool: a nested or concurrent run returns
 * B2_ERR_INVALID_PARAM without calling fn. A failure a worker records reaches the
 * caller's record unless the caller recorded one. */
B2_API int b2_pool_run(b2_pool *p, int n, void (*fn)(void *arg, int worker), void *arg);

/* Record a failure on the calling thread: b2_last_error_message() then reads
 * "<b2_strerror(code)>: <detail>" (func only in a B2_ERROR_FUNCS build, for
 * debugging; may be NULL). Returns code. */
B2_API int b2_error_record(int code, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The detail part of the calling thread's last record ("" if none), to build on:
 * b2_error_record(rc, __func__, "chunk %d: %s", i, b2_error_detail()). */
B2_API const char *b2_error_detail(void);

/* Name of the SIMD kernels this process runs: "generic", "sse2", "avx2",
 * "avx512", "avx512gfni" or "neon" (detected once, capped by B2_SIMD). */
B2_API const char *b2_simd_name(void);

#ifdef __cplusplus
}
#endif

#endif

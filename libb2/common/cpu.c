/* SPDX-License-Identifier: BSD-3-Clause */
/* Runtime CPU feature detection for the SIMD kernels, resolved once per process
 * (pthread_once): the dispatchers ask for the level on every block row, so it
 * must cost a load, not a getenv. B2_SIMD=generic|sse2|avx2 caps the level;
 * other values are refused with a message on stderr and ignored. Builds without
 * the x86 kernels (B2_HAVE_X86_SIMD undefined) always run the portable ones. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_internal.h"

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static int detected_level;          /* written once under level_once */
static int forced_level = -1;       /* test hook (atomic); -1: none */

static void detect_level(void)
{
    int level = B2_SIMD_GENERIC;
#if defined(B2_HAVE_X86_SIMD) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse2"))
        level = B2_SIMD_SSE2;
    if (__builtin_cpu_supports("avx2"))
        level = B2_SIMD_AVX2;
#endif
    const char *cap = getenv("B2_SIMD");
    if (cap && *cap) {
        int want = !strcmp(cap, "generic") ? B2_SIMD_GENERIC
                 : !strcmp(cap, "sse2")    ? B2_SIMD_SSE2
                 : !strcmp(cap, "avx2")    ? B2_SIMD_AVX2
                                           : -1;
        if (want < 0)
            fprintf(stderr, "libb2: B2_SIMD=%s is not one of generic, sse2, avx2; ignored\n", cap);
        else if (want < level)
            level = want;
    }
    detected_level = level;
}

int b2_simd_level(void)
{
    int forced = __atomic_load_n(&forced_level, __ATOMIC_RELAXED);
    pthread_once(&level_once, detect_level);
    return forced >= 0 && forced < detected_level ? forced : detected_level;
}

void b2_simd_force_level(int level)
{
    __atomic_store_n(&forced_level, level, __ATOMIC_RELAXED);
}

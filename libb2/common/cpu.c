/* Runtime CPU feature detection for the SIMD kernels. */
#include <stdlib.h>
#include <string.h>
#include "b2_internal.h"

int b2_simd_level(void)
{
    int level = B2_SIMD_GENERIC;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse2"))
        level = B2_SIMD_SSE2;
    if (__builtin_cpu_supports("avx2"))
        level = B2_SIMD_AVX2;
#endif
    /* The environment is read every time (no cached global): tests set it to force
     * the portable code paths. */
    const char *cap = getenv("B2_SIMD");
    if (cap) {
        int want = !strcmp(cap, "generic") ? B2_SIMD_GENERIC
                 : !strcmp(cap, "sse2") ? B2_SIMD_SSE2 : B2_SIMD_AVX2;
        if (want < level)
            level = want;
    }
    return level;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Runtime CPU feature detection for the SIMD kernels, resolved once per process
 * (pthread_once) into one variant number (the level, or avx512gfni above avx512):
 * the dispatchers ask for it on every block row, so after the first call it
 * costs one load, not a getenv. A level counts only when the CPU has the
 * instructions (CPUID) and the OS saves their registers on a context switch
 * (XGETBV's XCR0): a kernel would otherwise fault or see its upper halves lost.
 * On aarch64 NEON is part of the base ISA: the level is neon whenever the build
 * has the NEON kernels (B2_HAVE_ARM_SIMD), with nothing to detect.
 * B2_SIMD=generic|sse2|avx2|avx512|avx512gfni|neon caps the variant: avx512 is
 * AVX-512 without the GFNI bit shuffles, avx512gfni (the top, as no cap) lets
 * them run where the CPU has them; a name of the other architecture's ladder
 * (neon on x86, sse2/avx2/avx512/avx512gfni on aarch64) means the portable
 * kernels. Other values are refused with a message on stderr and
 * ignored. Builds without their architecture's kernels (B2_HAVE_X86_SIMD,
 * B2_HAVE_ARM_SIMD undefined) always run the portable ones. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_helpers_experimental.h" /* b2_simd_name */
#include "b2_internal.h"

#if defined(B2_HAVE_X86_SIMD) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>

/* XCR0 state components: SSE (bit 1) and AVX (bit 2) for the YMM registers;
 * opmask (5), ZMM0-15 upper halves (6) and ZMM16-31 (7) for AVX-512. */
#define XCR0_YMM 0x06u
#define XCR0_ZMM 0xE6u

static uint32_t read_xcr0(void)
{
    uint32_t lo, hi;
    /* xgetbv with ecx = 0, as bytes so no -mxsave is needed */
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return lo;
}

/* *gfni: set when the CPU also has AVX512-VBMI and GFNI (the bit shuffle kernels
 * of filters/x86/bitshuffle_avx512gfni.c). */
static int hardware_level(int *gfni)
{
    unsigned a, b, c, d;
    *gfni = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & bit_SSE2))
        return B2_SIMD_GENERIC;
    int level = B2_SIMD_SSE2;
    /* AVX needs OSXSAVE (XGETBV usable) and the OS saving the YMM state. */
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX))
        return level;
    uint32_t xcr0 = read_xcr0();
    if ((xcr0 & XCR0_YMM) != XCR0_YMM || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return level;
    if (!(b & bit_AVX2))
        return level;
    level = B2_SIMD_AVX2;
    const unsigned avx512 = bit_AVX512F | bit_AVX512BW | bit_AVX512VL;
    if ((b & avx512) == avx512 && (xcr0 & XCR0_ZMM) == XCR0_ZMM) {
        level = B2_SIMD_AVX512;
        *gfni = (c & bit_AVX512VBMI) && (c & bit_GFNI);
    }
    return level;
}
#elif defined(B2_HAVE_ARM_SIMD) && defined(__aarch64__)
static int hardware_level(int *gfni)
{
    *gfni = 0;
    return B2_SIMD_NEON;
}
#else
static int hardware_level(int *gfni)
{
    *gfni = 0;
    return B2_SIMD_GENERIC;
}
#endif

/* This architecture's ladder, variant by variant (b2_internal.h). */
#if defined(__aarch64__)
static const char *const ladder[] = {"generic", "neon"};
#else
static const char *const ladder[] = {"generic", "sse2", "avx2", "avx512", "avx512gfni"};
#endif
#define NLADDER (int)(sizeof ladder / sizeof ladder[0])

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static int detected_variant;        /* written once under level_once */
static int forced_level = -1;       /* test hook (atomic); -1: none */
static int current_variant = -1;    /* detected, under the test cap (atomic); -1: not yet */

static int level_named(const char *name)
{
    static const char *const all[] = {"generic", "sse2", "avx2", "avx512", "avx512gfni", "neon"};
    for (int l = 0; l < NLADDER; l++)
        if (!strcmp(name, ladder[l]))
            return l;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(name, all[i]))
            return B2_SIMD_GENERIC; /* the other architecture's */
    return -1;
}

static void detect_level(void)
{
    int gfni;
    int level = hardware_level(&gfni);
    int variant = level == B2_SIMD_AVX512 && gfni ? B2_SIMD_AVX512GFNI : level;
    const char *cap = getenv("B2_SIMD");
    if (cap && *cap) {
        int want = level_named(cap);
        if (want < 0)
            fprintf(stderr, "libb2: B2_SIMD=%s is not one of generic, sse2, avx2, avx512,"
                            " avx512gfni, neon; ignored\n", cap);
        else if (want < variant)
            variant = want;
    }
    detected_variant = variant;
}

static int level_of(int variant)
{
    return variant == B2_SIMD_AVX512GFNI ? B2_SIMD_AVX512 : variant;
}

/* Detects (once) and publishes the variant under the test cap: a level forced
 * at or above the detected one leaves it, GFNI included. */
static int resolve_variant(void)
{
    pthread_once(&level_once, detect_level);
    int forced = __atomic_load_n(&forced_level, __ATOMIC_RELAXED);
    int variant = detected_variant;
    if (forced >= 0 && forced < level_of(variant))
        variant = forced;
    __atomic_store_n(&current_variant, variant, __ATOMIC_RELAXED);
    return variant;
}

int b2_simd_variant(void)
{
    int variant = __atomic_load_n(&current_variant, __ATOMIC_RELAXED);
    return variant >= 0 ? variant : resolve_variant();
}

int b2_simd_level(void)
{
    return level_of(b2_simd_variant());
}

int b2_simd_gfni(void)
{
    return b2_simd_variant() == B2_SIMD_AVX512GFNI;
}

const char *b2_simd_level_name(int level)
{
    return level >= 0 && level < NLADDER ? ladder[level] : "?";
}

const char *b2_simd_name(void)
{
    return b2_simd_level_name(b2_simd_variant());
}

/* Tests call it between runs, not while other threads dispatch. */
void b2_simd_force_level(int level)
{
    __atomic_store_n(&forced_level, level, __ATOMIC_RELAXED);
    resolve_variant();
}

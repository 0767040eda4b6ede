/* SPDX-License-Identifier: BSD-3-Clause */
/* The filters' kernel tables, and the entry points that index them (b2_shuffle,
 * b2_bitshuffle, b2_delta_encode, ...: the pipeline calls these, the kernels
 * never do, so dispatch sits above every kernel). One table per SIMD level,
 * constant from compile time:
 * the only run-time choice is the variant (common/cpu.c, detected once: the
 * level, or AVX-512 with GFNI), which picks one. A level's table names, kernel
 * by kernel, the fastest one measured on a CPU of that level: the AVX-512 table
 * keeps the AVX2 kernels where the AVX-512 ones did not pay
 * (bench/bench_kernels.c). */
#include <string.h>

#include "filters.h"
#include "simd_kernels.h"

void b2_bitunshuffle_modern_generic(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst)
{
    b2_bitunshuffle_generic(ts, n, src, dst, 0);
}

static const b2_filter_kernels tables[] = {
    {B2_SIMD_GENERIC, b2_shuffle_generic, b2_unshuffle_generic, b2_bitshuffle_generic,
     b2_bitunshuffle_modern_generic, b2_shuffle_part_generic, b2_unshuffle_part_generic,
     b2_unshuffle_planes_generic, b2_delta_encode_generic, b2_delta_decode_generic},
#ifdef B2_HAVE_X86_SIMD
    {B2_SIMD_SSE2, b2_shuffle_sse2, b2_unshuffle_sse2, b2_bitshuffle_sse2, b2_bitunshuffle_sse2,
     b2_shuffle_part_sse2, b2_unshuffle_part_sse2, b2_unshuffle_planes_sse2, b2_delta_encode_sse2,
     b2_delta_decode_sse2},
    {B2_SIMD_AVX2, b2_shuffle_avx2, b2_unshuffle_avx2, b2_bitshuffle_avx2, b2_bitunshuffle_avx2,
     b2_shuffle_part_avx2, b2_unshuffle_part_avx2, b2_unshuffle_planes_avx2, b2_delta_encode_avx2,
     b2_delta_decode_avx2},
#ifdef B2_HAVE_X86_AVX512
    {B2_SIMD_AVX512, b2_shuffle_avx512, b2_unshuffle_avx512, b2_bitshuffle_avx512,
     b2_bitunshuffle_avx512, b2_shuffle_part_avx512, b2_unshuffle_part_avx512,
     b2_unshuffle_planes_avx512, b2_delta_encode_avx512, b2_delta_decode_avx512},
#endif
#endif
#ifdef B2_HAVE_ARM_SIMD
    {B2_SIMD_NEON, b2_shuffle_neon, b2_unshuffle_neon, b2_bitshuffle_neon, b2_bitunshuffle_neon,
     b2_shuffle_part_neon, b2_unshuffle_part_neon, b2_unshuffle_planes_neon, b2_delta_encode_neon,
     b2_delta_decode_neon},
#endif
};
#define NTABLES (int)(sizeof tables / sizeof tables[0])

/* The table each variant (b2_simd_variant()) runs: a build without the x86 (or
 * the AVX-512, or the NEON, or the GFNI) kernels runs its highest table. */
#define UPTO(v) (&tables[(v) < NTABLES ? (v) : NTABLES - 1])
#ifdef B2_HAVE_X86_GFNI
/* The AVX-512 table on CPUs that also have VBMI and GFNI: their bit shuffles. */
static const b2_filter_kernels avx512_gfni = {
    B2_SIMD_AVX512, b2_shuffle_avx512, b2_unshuffle_avx512, b2_bitshuffle_avx512gfni,
    b2_bitunshuffle_avx512gfni, b2_shuffle_part_avx512, b2_unshuffle_part_avx512,
    b2_unshuffle_planes_avx512, b2_delta_encode_avx512, b2_delta_decode_avx512};
#define GFNI_TABLE (&avx512_gfni)
#else
#define GFNI_TABLE UPTO(B2_SIMD_AVX512)
#endif
static const b2_filter_kernels *const by_variant[] = {
    UPTO(0), UPTO(1), UPTO(2), UPTO(3), GFNI_TABLE,
};

const b2_filter_kernels *b2_filter_kernels_at(int level)
{
    return level >= 0 && level < NTABLES ? &tables[level] : NULL;
}

const b2_filter_kernels *b2_filter_kernels_now(void)
{
    return by_variant[b2_simd_variant()];
}

/* ---- entry points: every call indexes the table of the current level ---- */

void b2_shuffle(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst)
{
    b2_filter_kernels_now()->shuffle(unit, n, src, dst);
}

void b2_unshuffle(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst)
{
    b2_filter_kernels_now()->unshuffle(unit, n, src, dst);
}

/* Unit 1 is a copy: the portable part kernels do it without a vector setup. */
b2_part_fn b2_shuffle_part_kernel(int32_t unit)
{
    return unit > 1 ? b2_filter_kernels_now()->shuffle_part : b2_shuffle_part_generic;
}

b2_part_fn b2_unshuffle_part_kernel(int32_t unit)
{
    return unit > 1 ? b2_filter_kernels_now()->unshuffle_part : b2_unshuffle_part_generic;
}

b2_planes_fn b2_unshuffle_planes_kernel(int32_t unit)
{
    (void)unit;
    return b2_filter_kernels_now()->unshuffle_planes;
}

void b2_bitshuffle(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst)
{
    b2_filter_kernels_now()->bitshuffle(ts, n, src, dst);
}

void b2_bitunshuffle(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst, int legacy_v2)
{
    if (legacy_v2 && b2_bitshuffle_legacy_untouched(ts, n)) {
        if (n > 0)
            memcpy(dst, src, (size_t)n);
        return;
    }
    b2_filter_kernels_now()->bitunshuffle(ts, n, src, dst);
    if (legacy_v2)
        b2_bitshuffle_legacy_clear(ts, n, dst);
}

void b2_delta_encode(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
                     uint8_t *dst)
{
    b2_filter_kernels_now()->delta_encode(ref, typesize, n, src, dst);
}

void b2_delta_decode(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
                     uint8_t *dst)
{
    b2_filter_kernels_now()->delta_decode(ref, typesize, n, src, dst);
}

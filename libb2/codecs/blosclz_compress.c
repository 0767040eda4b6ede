/* SPDX-License-Identifier: BSD-3-Clause */
/* BloscLZ encoder: the portable version (8 bytes a step of the match scan) and
 * the entry point, which runs the version of the SIMD level detected once
 * (codecs/x86/blosclz_*.c scan 16, 32 or 64 bytes a step, codecs/arm/blosclz_neon.c 32). All produce
 * c-blosc2 3.3's bytes (blosclz_encode_template.h). */
#include <stdint.h>
#include <string.h>
#include "b2_internal.h"
#include "codecs.h"

/* The XOR of two little-endian 8-byte loads; its lowest set byte is the first
 * mismatch. */
static inline size_t blz_mismatch(const uint8_t *in, size_t from, size_t bound, size_t dist)
{
    size_t p = from;
    while (p + 8 <= bound) {
        uint64_t x = b2_load_le64(in + p) ^ b2_load_le64(in + p - dist);
        if (x)
            return p + (size_t)(__builtin_ctzll(x) >> 3);
        p += 8;
    }
    while (p < bound && in[p] == in[p - dist])
        p++;
    return p;
}

#define BLZ_COMPRESS b2_blosclz_compress_generic
#include "blosclz_encode_template.h"

static const b2_blosclz_compress_fn levels[] = {
    b2_blosclz_compress_generic,
#ifdef B2_HAVE_X86_SIMD
    b2_blosclz_compress_sse2,
    b2_blosclz_compress_avx2,
#ifdef B2_HAVE_X86_AVX512
    b2_blosclz_compress_avx512,
#endif
#endif
#ifdef B2_HAVE_ARM_SIMD
    b2_blosclz_compress_neon,
#endif
};
#define NLEVELS (int)(sizeof levels / sizeof levels[0])

b2_blosclz_compress_fn b2_blosclz_compress_at(int level)
{
    return level >= 0 && level < NLEVELS ? levels[level] : NULL;
}

int b2_blosclz_compress(int clevel, const uint8_t *in, int srclen, uint8_t *out, int maxout)
{
    int level = b2_simd_level(); /* a load: detected once per process */
    return levels[level < NLEVELS ? level : NLEVELS - 1](clevel, in, srclen, out, maxout);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* SIMD kernels of the shuffle filters and the portable pieces they share.
 * Every kernel accepts any (unit, n): units it has no vector code for, and the
 * elements left over after the last whole vector, go through the portable
 * helpers below, so a kernel always produces exactly the generic layout.
 * Kernels are only called through the table of a level the CPU has. */
#ifndef B2_SIMD_KERNELS_H
#define B2_SIMD_KERNELS_H

#include <stdint.h>
#include <string.h>
#include "b2_internal.h"
#include "filters.h"

/* Byte shuffle of elements [i0, i1) of a block of q whole units of s bytes:
 * in[i*s + j] -> out[j*q + i]. Spare bytes are not touched. */
B2_HIDDEN void b2_shuffle_range(int32_t s, int32_t q, int32_t i0, int32_t i1,
                                const uint8_t *in, uint8_t *out);
/* Inverse of b2_shuffle_range over the same elements. */
B2_HIDDEN void b2_unshuffle_range(int32_t s, int32_t q, int32_t i0, int32_t i1,
                                  const uint8_t *in, uint8_t *out);

/* Bit transpose of the 8-element groups [k0, k1) of a block with e8 elements
 * (e8 a multiple of 8) of ts bytes (doc/format/filters.md §3.1). Only the bits of those
 * groups are written. */
B2_HIDDEN void b2_bitshuffle_groups(int32_t ts, int32_t e8, int32_t k0, int32_t k1,
                                    const uint8_t *in, uint8_t *out);
/* Inverse of b2_bitshuffle_groups over the same groups. */
B2_HIDDEN void b2_bitunshuffle_groups(int32_t ts, int32_t e8, int32_t k0, int32_t k1,
                                      const uint8_t *in, uint8_t *out);

/* Every level's kernels behind one table (kernel_table.c), so a filter function
 * makes one indirect call instead of walking a ladder of levels. The bit
 * unshuffle entries implement the modern rule (b2_bitunshuffle handles the
 * version-2 rule, which only decides whether to transpose at all). */
typedef void (*b2_block_fn)(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
typedef struct b2_filter_kernels {
    int level; /* enum b2_simd_level of the table */
    b2_block_fn shuffle, unshuffle, bitshuffle, bitunshuffle;
    b2_part_fn shuffle_part, unshuffle_part; /* units above 1 */
    b2_planes_fn unshuffle_planes;
    b2_delta_fn delta_encode, delta_decode;
} b2_filter_kernels;
/* The table of the variant b2_simd_variant() allows now (a load and an index). */
B2_HIDDEN const b2_filter_kernels *b2_filter_kernels_now(void);
/* The table of one level, NULL when this build has no kernels for it; tests
 * compare the levels the CPU can run with the portable one. */
B2_HIDDEN const b2_filter_kernels *b2_filter_kernels_at(int level);
B2_HIDDEN void b2_bitunshuffle_modern_generic(int32_t ts, int32_t n, const uint8_t *src,
                                              uint8_t *dst);

/* The x86 kernels (filters/x86/) exist only when the build compiles them (CMake
 * defines B2_HAVE_X86_SIMD on x86 unless B2_SIMD_X86=OFF); otherwise the
 * portable ones above are all there is. */
#ifdef B2_HAVE_X86_SIMD
/* SSE2 (x86/shuffle_sse2.c, x86/bitshuffle_sse2.c). Same contracts as the
 * generic ones. */
B2_HIDDEN void b2_shuffle_sse2(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_shuffle_part_sse2(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                    uint8_t *out);
B2_HIDDEN void b2_unshuffle_part_sse2(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                      uint8_t *out);
B2_HIDDEN void b2_unshuffle_sse2(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_unshuffle_planes_sse2(int32_t unit, const uint8_t *const *pl, int32_t i0,
                                        int32_t n, uint8_t *out);
B2_HIDDEN void b2_bitshuffle_sse2(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_bitunshuffle_sse2(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);

/* AVX2 (x86/shuffle_avx2.c, x86/bitshuffle_avx2.c). */
B2_HIDDEN void b2_shuffle_avx2(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_shuffle_part_avx2(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                    uint8_t *out);
B2_HIDDEN void b2_unshuffle_part_avx2(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                      uint8_t *out);
B2_HIDDEN void b2_unshuffle_avx2(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_unshuffle_planes_avx2(int32_t unit, const uint8_t *const *pl, int32_t i0,
                                        int32_t n, uint8_t *out);
B2_HIDDEN void b2_bitshuffle_avx2(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_bitunshuffle_avx2(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);

/* AVX-512 F/BW/VL (x86/shuffle_avx512.c, x86/bitshuffle_avx512.c). */
B2_HIDDEN void b2_shuffle_avx512(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
/* b2_shuffle_avx512 with the AVX-512 steps for every unit, also those that only
 * pay in L1: for bit shuffle strips. */
B2_HIDDEN void b2_shuffle_strip_avx512(int32_t unit, int32_t n, const uint8_t *src,
                                       uint8_t *dst);
B2_HIDDEN void b2_shuffle_part_avx512(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                      uint8_t *out);
B2_HIDDEN void b2_unshuffle_part_avx512(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                        uint8_t *out);
B2_HIDDEN void b2_unshuffle_avx512(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_unshuffle_planes_avx512(int32_t unit, const uint8_t *const *pl, int32_t i0,
                                          int32_t n, uint8_t *out);
B2_HIDDEN void b2_bitshuffle_avx512(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_bitunshuffle_avx512(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
#ifdef B2_HAVE_X86_GFNI
/* bitshuffle_avx512gfni.c: AVX-512 with VBMI and GFNI (b2_simd_gfni()). */
B2_HIDDEN void b2_bitshuffle_avx512gfni(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_bitunshuffle_avx512gfni(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
#endif

/* Delta (x86/delta_*.c): the contracts of b2_delta_encode / b2_delta_decode. */
B2_HIDDEN void b2_delta_encode_sse2(const uint8_t *ref, int32_t typesize, int32_t n,
                                    const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_decode_sse2(const uint8_t *ref, int32_t typesize, int32_t n,
                                    const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_encode_avx2(const uint8_t *ref, int32_t typesize, int32_t n,
                                    const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_decode_avx2(const uint8_t *ref, int32_t typesize, int32_t n,
                                    const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_encode_avx512(const uint8_t *ref, int32_t typesize, int32_t n,
                                      const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_decode_avx512(const uint8_t *ref, int32_t typesize, int32_t n,
                                      const uint8_t *src, uint8_t *dst);
#endif /* B2_HAVE_X86_SIMD */

/* The NEON kernels (filters/arm/), built for aarch64 targets where CMake defines
 * B2_HAVE_ARM_SIMD (unless B2_SIMD_ARM=OFF). NEON is part of the AArch64 base
 * ISA, so they need no flag and no run-time check. Same contracts as the
 * generic ones. */
#ifdef B2_HAVE_ARM_SIMD
B2_HIDDEN void b2_shuffle_neon(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_shuffle_part_neon(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                    uint8_t *out);
B2_HIDDEN void b2_unshuffle_part_neon(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                      uint8_t *out);
B2_HIDDEN void b2_unshuffle_neon(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_unshuffle_planes_neon(int32_t unit, const uint8_t *const *pl, int32_t i0,
                                        int32_t n, uint8_t *out);
B2_HIDDEN void b2_bitshuffle_neon(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_bitunshuffle_neon(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_encode_neon(const uint8_t *ref, int32_t typesize, int32_t n,
                                    const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_decode_neon(const uint8_t *ref, int32_t typesize, int32_t n,
                                    const uint8_t *src, uint8_t *dst);
#endif /* B2_HAVE_ARM_SIMD */


/* ---- bit shuffle of any typesize through byte-plane strips ----
 * Row 8j+b of a bit-shuffled block is bit b of byte plane j, so a block is the
 * byte shuffle followed by a bit transpose of each plane on its own (and the
 * inverse the other way round). A strip of elements is byte-(un)shuffled in a
 * buffer that stays in L1, so every typesize runs on vector kernels. */
#define B2_BITSTRIP_BYTES 16384
/* Largest typesize the strips handle (at least 8 elements per strip). */
#define B2_BITSTRIP_MAX_TS (B2_BITSTRIP_BYTES / 8)

/* One plane's bits: rows (8 of them, rowlen apart) <-> ngroups*8 plane bytes. */
typedef void (*b2_bitrows_to_plane_fn)(const uint8_t *rows, size_t rowlen, int32_t ngroups,
                                       uint8_t *plane);
typedef void (*b2_plane_to_bitrows_fn)(const uint8_t *plane, int32_t ngroups, uint8_t *rows,
                                       size_t rowlen);
typedef void (*b2_byteshuffle_fn)(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);

/* Elements per strip for typesize ts (a multiple of 8). */
static inline int32_t b2_bitstrip_elems(int32_t ts)
{
    return (B2_BITSTRIP_BYTES / ts) & ~7;
}

/* e8 elements (a multiple of 8) of ts <= B2_BITSTRIP_MAX_TS bytes, in -> out. */
static inline __attribute__((always_inline)) void
b2_bitshuffle_strips(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out,
                     b2_byteshuffle_fn shuf, b2_plane_to_bitrows_fn to_rows)
{
    size_t rowlen = (size_t)e8 / 8;
    if (ts == 1) {
        to_rows(in, e8 / 8, out, rowlen);
        return;
    }
    uint8_t strip[B2_BITSTRIP_BYTES] __attribute__((aligned(64)));
    int32_t per = b2_bitstrip_elems(ts);
    for (int32_t i = 0; i < e8; i += per) {
        int32_t m = e8 - i < per ? e8 - i : per;
        shuf(ts, m * ts, in + (size_t)i * ts, strip);
        for (int32_t j = 0; j < ts; j++)
            to_rows(strip + (size_t)j * m, m / 8, out + (size_t)8 * j * rowlen + i / 8, rowlen);
    }
}

static inline __attribute__((always_inline)) void
b2_bitunshuffle_strips(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out,
                       b2_byteshuffle_fn unshuf, b2_bitrows_to_plane_fn to_plane)
{
    size_t rowlen = (size_t)e8 / 8;
    if (ts == 1) {
        to_plane(in, rowlen, e8 / 8, out);
        return;
    }
    uint8_t strip[B2_BITSTRIP_BYTES] __attribute__((aligned(64)));
    int32_t per = b2_bitstrip_elems(ts);
    for (int32_t i = 0; i < e8; i += per) {
        int32_t m = e8 - i < per ? e8 - i : per;
        for (int32_t j = 0; j < ts; j++)
            to_plane(in + (size_t)8 * j * rowlen + i / 8, rowlen, m / 8, strip + (size_t)j * m);
        unshuf(ts, m * ts, strip, out + (size_t)i * ts);
    }
}

/* Transpose the 8x8 bit matrix held in x (bit 8r+c <-> bit 8c+r). Seen as
 * bytes in little-endian order: byte m bit b becomes byte b bit m. */
static inline uint64_t b2_transpose8x8(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    x ^= t ^ (t << 28);
    return x;
}

/* Portable tails of the plane kernels: groups one at a time. */
static inline void b2_bitrows_to_plane_tail(const uint8_t *rows, size_t rowlen, int32_t g0,
                                            int32_t g1, uint8_t *plane)
{
    for (int32_t g = g0; g < g1; g++) {
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x |= (uint64_t)rows[(size_t)b * rowlen + g] << (8 * b);
        x = b2_transpose8x8(x);
        for (int m = 0; m < 8; m++)
            plane[(size_t)8 * g + m] = (uint8_t)(x >> (8 * m));
    }
}

static inline void b2_plane_to_bitrows_tail(const uint8_t *plane, int32_t g0, int32_t g1,
                                            uint8_t *rows, size_t rowlen)
{
    for (int32_t g = g0; g < g1; g++) {
        uint64_t x = 0;
        for (int m = 0; m < 8; m++)
            x |= (uint64_t)plane[(size_t)8 * g + m] << (8 * m);
        x = b2_transpose8x8(x);
        for (int b = 0; b < 8; b++)
            rows[(size_t)b * rowlen + g] = (uint8_t)(x >> (8 * b));
    }
}

/* ---- the loops and entry points every vector kernel file builds on (x86/, arm/);
 * the ISA's steps plug into them. ---- */
#if (defined(B2_HAVE_X86_SIMD) && defined(__SSE2__)) || defined(B2_HAVE_ARM_SIMD)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
/* Loops over the S vectors must be fully unrolled so the arrays live in registers. */
#define B2_UNROLL _Pragma("GCC unroll 16")

/* Part kernel of a byte-shuffle file: elements [0, n) of a block whose planes
 * are q bytes apart, for a unit of 2 bytes or more. Unshuffle reads in + j*q + i
 * (in already points at the first element's plane-0 byte) and writes the n
 * elements contiguously at out; shuffle is the reverse. VEC(S, q, n, in, out)
 * is the ISA's vector loop (returns how many elements it did) for units
 * 2/4/8/16; TAIL (b2_shuffle_range or b2_unshuffle_range) finishes the rest.
 * Parts let a block be (un)shuffled row by row straight from or into strided
 * places of a caller's array. */
#define B2_DEFINE_SHUFFLE_PART(NAME, VEC, TAIL)                                          \
    void NAME(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)      \
    {                                                                                    \
        int32_t done;                                                                    \
        switch (unit) {                                                                  \
        case 2: done = VEC(2, q, n, in, out); break;                                     \
        case 4: done = VEC(4, q, n, in, out); break;                                     \
        case 8: done = VEC(8, q, n, in, out); break;                                     \
        case 16: done = VEC(16, q, n, in, out); break;                                   \
        default: done = 0; break;                                                        \
        }                                                                                \
        if (done < n) /* rows are often whole vectors: skip the call */                  \
            TAIL(unit, q, done, n, in, out);                                             \
    }

/* Staging for units of 8 and 16 bytes. A block's planes are q bytes apart and q
 * is usually a power of two, so the S planes' current lines fall into the same
 * L1 sets and evict each other before they are complete. Kernels therefore
 * transpose B2_STAGE elements through a small staging area (planes B2_STAGE
 * bytes apart) and move each plane's run in one burst. */
#define B2_STAGE 256

static inline __attribute__((always_inline)) void
b2_stage_to_planes(int S, const uint8_t *stage, uint8_t *out, size_t q)
{
    for (int b = 0; b < S; b++)
        memcpy(out + (size_t)b * q, stage + B2_STAGE * b, B2_STAGE);
}

static inline __attribute__((always_inline)) void
b2_planes_to_stage(int S, const uint8_t *const *pl, int32_t off, uint8_t *stage)
{
    for (int b = 0; b < S; b++)
        memcpy(stage + B2_STAGE * b, pl[b] + off, B2_STAGE);
}

/* Planes kernel of a byte-shuffle file (filters.h): VEC(S, pl, i0, n, out) is the
 * ISA's vector loop for units 2/4/8/16 (returns how many elements it did); the
 * rest goes through the portable planes kernel. */
#define B2_DEFINE_UNSHUFFLE_PLANES(NAME, VEC)                                            \
    void NAME(int32_t unit, const uint8_t *const *pl, int32_t i0, int32_t n, uint8_t *out) \
    {                                                                                    \
        int32_t done;                                                                    \
        switch (unit) {                                                                  \
        case 2: done = VEC(2, pl, i0, n, out); break;                                    \
        case 4: done = VEC(4, pl, i0, n, out); break;                                    \
        case 8: done = VEC(8, pl, i0, n, out); break;                                    \
        case 16: done = VEC(16, pl, i0, n, out); break;                                  \
        default: done = 0; break;                                                        \
        }                                                                                \
        if (done < n)                                                                    \
            b2_unshuffle_planes_generic(unit, pl, i0 + done, n - done,                   \
                                        out + (size_t)done * unit);                      \
    }

/* Unshuffle part kernel (planes q apart from in) over a planes kernel. */
#define B2_DEFINE_UNSHUFFLE_PART(NAME, PLANES)                                           \
    void NAME(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)      \
    {                                                                                    \
        if (unit > B2_PLANES_MAX) {                                                      \
            b2_unshuffle_range(unit, q, 0, n, in, out);                                  \
            return;                                                                      \
        }                                                                                \
        const uint8_t *pl[B2_PLANES_MAX];                                                \
        for (int32_t j = 0; j < unit; j++)                                               \
            pl[j] = in + (size_t)j * q;                                                  \
        PLANES(unit, pl, 0, n, out);                                                     \
    }

/* Vector loops of a byte-shuffle file's part and planes kernels, W elements a
 * STEP (STEP(S, q, i, in, out) writes elements [i, i + W) into planes q apart;
 * STEP(S, pl, i, out) reads them from the planes pl). Shuffles of units of 8
 * bytes and more, and unshuffles of 16, go through the staging area; the last
 * step overlaps the one before (the same bytes again). They return how many
 * elements they did: all, or none when n < W. */
#define B2_DEFINE_SHUFFLE_VEC(NAME, STEP, W)                                             \
    ALWAYS_INLINE int32_t NAME(int S, int32_t q, int32_t n, const uint8_t *in, uint8_t *out) \
    {                                                                                    \
        int32_t i = 0;                                                                   \
        if (S >= 8) {                                                                    \
            uint8_t stage[16 * B2_STAGE] __attribute__((aligned(64)));                   \
            for (; i + B2_STAGE <= n; i += B2_STAGE) {                                   \
                for (int32_t k = 0; k < B2_STAGE; k += W)                                \
                    STEP(S, B2_STAGE, k, in + (size_t)i * S, stage);                     \
                b2_stage_to_planes(S, stage, out + i, (size_t)q);                        \
            }                                                                            \
        }                                                                                \
        for (; i + W <= n; i += W)                                                       \
            STEP(S, q, i, in, out);                                                      \
        if (i < n && n >= W) {                                                           \
            STEP(S, q, n - W, in, out);                                                  \
            i = n;                                                                       \
        }                                                                                \
        return i;                                                                        \
    }

/* Unshuffled output usually goes to a caller's buffer that is not in cache
 * (a chunk-sized destination, evicted since its last use): asking for its
 * lines ahead, for writing, lets their fetch overlap the shuffles instead of
 * stalling the stores (cold-destination decodes ran 5-35% faster, issue 28).
 * The address is only a hint: it may lie past the buffer. */
#define B2_PREFETCH_AHEAD 4096
static inline void b2_prefetch_for_write(const uint8_t *p, int nbytes)
{
    const uintptr_t at = (uintptr_t)p + B2_PREFETCH_AHEAD;
    for (int f = 0; f < nbytes; f += 64)
        __builtin_prefetch((const void *)(at + (uintptr_t)f), 1, 3);
}

#define B2_DEFINE_UNSHUFFLE_VEC(NAME, STEP, W)                                           \
    ALWAYS_INLINE int32_t NAME(int S, const uint8_t *const *pl, int32_t i0, int32_t n,   \
                               uint8_t *out)                                             \
    {                                                                                    \
        int32_t i = 0;                                                                   \
        if (S == 16) {                                                                   \
            uint8_t stage[16 * B2_STAGE] __attribute__((aligned(64)));                   \
            const uint8_t *spl[16];                                                      \
            for (int b = 0; b < S; b++)                                                  \
                spl[b] = stage + B2_STAGE * b;                                           \
            for (; i + B2_STAGE <= n; i += B2_STAGE) {                                   \
                b2_planes_to_stage(S, pl, i0 + i, stage);                                \
                for (int32_t k = 0; k < B2_STAGE; k += W)                                \
                    STEP(S, spl, k, out + (size_t)(i + k) * S);                          \
            }                                                                            \
        }                                                                                \
        for (; i + W <= n; i += W) {                                                     \
            b2_prefetch_for_write(out + (size_t)i * S, S * W);                           \
            STEP(S, pl, i0 + i, out + (size_t)i * S);                                    \
        }                                                                                \
        if (i < n && n >= W) {                                                           \
            STEP(S, pl, i0 + n - W, out + (size_t)(n - W) * S);                          \
            i = n;                                                                       \
        }                                                                                \
        return i;                                                                        \
    }

/* Whole-block entry point of a byte-shuffle file: the part kernel PART over all
 * q = n / unit elements, then the n % unit spare bytes copied in place. */
#define B2_DEFINE_SHUFFLE_ENTRY(NAME, PART)                                              \
    void NAME(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst)                \
    {                                                                                    \
        if (n <= 0)                                                                      \
            return;                                                                      \
        if (unit <= 1 || n < unit) {                                                     \
            memcpy(dst, src, (size_t)n);                                                 \
            return;                                                                      \
        }                                                                                \
        int32_t q = n / unit;                                                            \
        PART(unit, q, q, src, dst);                                                      \
        memcpy(dst + (size_t)q * unit, src + (size_t)q * unit, (size_t)(n - q * unit));  \
    }

/* Entry point of a bit-shuffle kernel file: ANY(ts, e8, src, dst) transposes the
 * e8 = whole groups of 8 elements for typesizes up to B2_BITSTRIP_MAX_TS, GROUPS
 * (b2_bitshuffle_groups or b2_bitunshuffle_groups) larger ones, and the bytes
 * past the last group of 8 are copied unchanged. */
#define B2_DEFINE_BITSHUFFLE_ENTRY(NAME, ANY, GROUPS)                                    \
    void NAME(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst)                  \
    {                                                                                    \
        if (ts < 1 || n <= 0) {                                                          \
            if (n > 0)                                                                   \
                memcpy(dst, src, (size_t)n);                                             \
            return;                                                                      \
        }                                                                                \
        int32_t e8 = (n / ts) & ~7;                                                      \
        if (ts <= B2_BITSTRIP_MAX_TS)                                                    \
            ANY(ts, e8, src, dst);                                                       \
        else                                                                             \
            GROUPS(ts, e8, 0, e8 / 8, src, dst);                                         \
        int32_t t = e8 * ts;                                                             \
        memcpy(dst + t, src + t, (size_t)(n - t));                                       \
    }

#endif

/* ---- in-register byte transposes shared by the shuffle and bitshuffle kernels.
 * S vectors holding consecutive elements of S bytes (S = 1, 2, 4, 8, 16) are
 * transposed by log2(S) rounds of even/odd byte unzips; the inverse zips.
 * (NEON's structured loads and stores do most of that: arm/shuffle_neon.c.) ---- */
#if defined(B2_HAVE_X86_SIMD) && defined(__SSE2__)
#include <emmintrin.h>

/* After the unzip rounds, vector p holds byte plane bitrev(p) (log2(S) bits):
 * round 1 splits on bit 0 of the byte index, round 2 on bit 1, and so on. */
ALWAYS_INLINE int plane_of(int p, int S)
{
    int r = 0;
    B2_UNROLL
    for (int b = 1; b < S; b <<= 1) {
        r <<= 1;
        if (p & b)
            r |= 1;
    }
    return r;
}

/* One round of byte interleaving over S vectors (pairs m, m + S/2). Seen as an
 * index of log2(S) bits of vector and 4 of byte, it rotates the index left by one
 * bit, so k rounds move k index bits from the byte to the vector side: a
 * transpose for the right k, at one instruction per vector and round. Wider
 * vectors do it within each 128-bit lane. */
#define B2_DEFINE_INTERLEAVE_ROUND(NAME, V, UNPACKLO, UNPACKHI)                         \
    ALWAYS_INLINE void NAME(V *v, int S)                                                 \
    {                                                                                    \
        V t[16];                                                                         \
        B2_UNROLL                                                                        \
        for (int m = 0; m < S / 2; m++) {                                                \
            t[2 * m] = UNPACKLO(v[m], v[m + S / 2]);                                     \
            t[2 * m + 1] = UNPACKHI(v[m], v[m + S / 2]);                                 \
        }                                                                                \
        B2_UNROLL                                                                        \
        for (int m = 0; m < S; m++)                                                      \
            v[m] = t[m];                                                                 \
    }

/* The unzip rounds (even bytes to one vector, odd to the other: pack the low
 * and the high bytes of the 16-bit words) and the zip rounds that undo them.
 * Packs and unpacks wider than 128 bits work within lanes: FIX(v) puts a packed
 * result's lanes back in order, and a zip's inputs first (identity at 128 bits). */
#define B2_DEFINE_TRANSPOSES(FWD, INV, V, SET1_16, AND, SRLI16, PACKUS16, UNPACKLO, UNPACKHI, \
                             FIX)                                                        \
    ALWAYS_INLINE void FWD(V *v, int S)                                                  \
    {                                                                                    \
        const V lo = SET1_16(0x00ff);                                                    \
        V t[16];                                                                         \
        B2_UNROLL                                                                        \
        for (int L = S; L > 1; L >>= 1) {                                                \
            B2_UNROLL                                                                    \
            for (int g = 0; g < S; g += L)                                               \
                B2_UNROLL                                                                \
                for (int m = 0; m < L / 2; m++) {                                        \
                    V a = v[g + 2 * m], b = v[g + 2 * m + 1];                            \
                    t[g + m] = FIX(PACKUS16(AND(a, lo), AND(b, lo)));                    \
                    t[g + L / 2 + m] = FIX(PACKUS16(SRLI16(a, 8), SRLI16(b, 8)));        \
                }                                                                        \
            B2_UNROLL                                                                    \
            for (int p = 0; p < S; p++)                                                  \
                v[p] = t[p];                                                             \
        }                                                                                \
    }                                                                                    \
    ALWAYS_INLINE void INV(V *v, int S)                                                  \
    {                                                                                    \
        V t[16];                                                                         \
        B2_UNROLL                                                                        \
        for (int L = 2; L <= S; L <<= 1) {                                               \
            B2_UNROLL                                                                    \
            for (int g = 0; g < S; g += L)                                               \
                B2_UNROLL                                                                \
                for (int m = 0; m < L / 2; m++) {                                        \
                    V e = FIX(v[g + m]), o = FIX(v[g + L / 2 + m]);                      \
                    t[g + 2 * m] = UNPACKLO(e, o);                                       \
                    t[g + 2 * m + 1] = UNPACKHI(e, o);                                   \
                }                                                                        \
            B2_UNROLL                                                                    \
            for (int p = 0; p < S; p++)                                                  \
                v[p] = t[p];                                                             \
        }                                                                                \
    }

#define B2_LANES_AS_IS(v) (v)
B2_DEFINE_INTERLEAVE_ROUND(interleave128_round, __m128i, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
B2_DEFINE_TRANSPOSES(transpose128_fwd, transpose128_inv, __m128i, _mm_set1_epi16, _mm_and_si128,
                     _mm_srli_epi16, _mm_packus_epi16, _mm_unpacklo_epi8, _mm_unpackhi_epi8,
                     B2_LANES_AS_IS)

#endif

#if defined(B2_HAVE_X86_SIMD) && defined(__AVX2__)
#include <immintrin.h>
/* The 256-bit pack/unpack work within 128-bit lanes, so each unzip result is put
 * back in order with a 64-bit permute (0,2,1,3) and each zip's inputs first. */
B2_DEFINE_INTERLEAVE_ROUND(interleave256_round, __m256i, _mm256_unpacklo_epi8,
                           _mm256_unpackhi_epi8)
#define B2_LANES_0213(v) _mm256_permute4x64_epi64((v), 0xD8)
B2_DEFINE_TRANSPOSES(transpose256_fwd, transpose256_inv, __m256i, _mm256_set1_epi16,
                     _mm256_and_si256, _mm256_srli_epi16, _mm256_packus_epi16,
                     _mm256_unpacklo_epi8, _mm256_unpackhi_epi8, B2_LANES_0213)

#endif

#endif

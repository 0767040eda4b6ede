/* SPDX-License-Identifier: BSD-3-Clause */
/* Every SIMD kernel of the shuffle filters, also those no table routes to,
 * against the portable one: typesizes 1..16 and odd larger ones, at lengths
 * shorter than a vector, not multiples of the vector width or of typesize * 8
 * (the bit shuffle's copied tail) and long enough for several strips. Kernels
 * of a level this CPU (or B2_SIMD) does not allow are not run: the test says
 * which feature is missing and passes. It prints the levels it ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"
#include "check.h"
/* b2_simd_name: in one of these two (it is moving to the helpers header) */
#include "b2_chunk_experimental.h"
#include "b2_helpers_experimental.h"

typedef struct {
    const char *name;
    int level;
    b2_block_fn fwd, inv, ref_fwd, ref_inv;
    int gfni; /* also needs AVX512-VBMI and GFNI */
} kernel_pair;

static const kernel_pair kernels[] = {
#ifdef B2_HAVE_X86_SIMD
    {"shuffle_sse2", B2_SIMD_SSE2, b2_shuffle_sse2, b2_unshuffle_sse2, b2_shuffle_generic,
     b2_unshuffle_generic, 0},
    {"bitshuffle_sse2", B2_SIMD_SSE2, b2_bitshuffle_sse2, b2_bitunshuffle_sse2,
     b2_bitshuffle_generic, b2_bitunshuffle_modern_generic, 0},
    {"shuffle_avx2", B2_SIMD_AVX2, b2_shuffle_avx2, b2_unshuffle_avx2, b2_shuffle_generic,
     b2_unshuffle_generic, 0},
    {"bitshuffle_avx2", B2_SIMD_AVX2, b2_bitshuffle_avx2, b2_bitunshuffle_avx2,
     b2_bitshuffle_generic, b2_bitunshuffle_modern_generic, 0},
#endif
#ifdef B2_HAVE_X86_AVX512
    {"shuffle_avx512", B2_SIMD_AVX512, b2_shuffle_avx512, b2_unshuffle_avx512,
     b2_shuffle_generic, b2_unshuffle_generic, 0},
    {"shuffle_strip_avx512", B2_SIMD_AVX512, b2_shuffle_strip_avx512, b2_unshuffle_avx512,
     b2_shuffle_generic, b2_unshuffle_generic, 0},
    {"bitshuffle_avx512", B2_SIMD_AVX512, b2_bitshuffle_avx512, b2_bitunshuffle_avx512,
     b2_bitshuffle_generic, b2_bitunshuffle_modern_generic, 0},
#endif
#ifdef B2_HAVE_X86_GFNI
    {"bitshuffle_avx512gfni", B2_SIMD_AVX512, b2_bitshuffle_avx512gfni, b2_bitunshuffle_avx512gfni,
     b2_bitshuffle_generic, b2_bitunshuffle_modern_generic, 1},
#endif
#ifdef B2_HAVE_ARM_SIMD
    {"shuffle_neon", B2_SIMD_NEON, b2_shuffle_neon, b2_unshuffle_neon, b2_shuffle_generic,
     b2_unshuffle_generic, 0},
    {"bitshuffle_neon", B2_SIMD_NEON, b2_bitshuffle_neon, b2_bitunshuffle_neon,
     b2_bitshuffle_generic, b2_bitunshuffle_modern_generic, 0},
#endif
    {NULL, 0, NULL, NULL, NULL, NULL, 0},
};

static const int32_t typesizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    17, 24, 31, 64, 300};
#define NTS (int)(sizeof typesizes / sizeof typesizes[0])

/* Lengths for typesize ts: below one vector, around multiples of ts * 8 and
 * of 16/32/64 elements, and past one 16 KB strip. */
static int lengths(int32_t ts, int32_t *out)
{
    const int32_t elems[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128,
                             129, 255, 257, 511, 520, 1000, 2049, 4104};
    int k = 0;
    for (size_t i = 0; i < sizeof elems / sizeof elems[0]; i++) {
        out[k++] = elems[i] * ts;
        out[k++] = elems[i] * ts + ts - 1; /* spare bytes after the last element */
    }
    out[k++] = 3;
    out[k++] = 61;
    out[k++] = 40001;
    out[k++] = 150001;
    return k;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        p[i] = (uint8_t)(rng >> 24);
    }
}

/* The kernel against its portable counterpart, both ways, with a guard byte. */
static void compare(const kernel_pair *k, int32_t ts, int32_t n, const uint8_t *in,
                    uint8_t *want, uint8_t *got)
{
    for (int dir = 0; dir < 2; dir++) {
        memset(want, 0xA5, (size_t)n + 1);
        memset(got, 0x5A, (size_t)n + 1);
        (dir ? k->ref_inv : k->ref_fwd)(ts, n, in, want);
        (dir ? k->inv : k->fwd)(ts, n, in, got);
        CHECK(!memcmp(got, want, (size_t)n) && got[n] == 0x5A, "%s%s ts %d n %d", k->name,
              dir ? " inverse" : "", ts, n);
    }
}

/* Why a level's kernels cannot run here, naming the CPU feature when it is one. */
static void say_missing(int level, int allowed)
{
    const char *name = b2_simd_level_name(level);
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const char *lacks = level == B2_SIMD_SSE2 && !__builtin_cpu_supports("sse2") ? "sse2"
                        : level == B2_SIMD_AVX2 && !__builtin_cpu_supports("avx2") ? "avx2"
                        : level == B2_SIMD_AVX512 && !__builtin_cpu_supports("avx512f") ? "avx512f"
                        : level == B2_SIMD_AVX512 && !__builtin_cpu_supports("avx512bw") ? "avx512bw"
                        : level == B2_SIMD_AVX512 && !__builtin_cpu_supports("avx512vl") ? "avx512vl"
                                                                                         : NULL;
    if (lacks) {
        printf("%s kernels not run: this CPU lacks %s\n", name, lacks);
        return;
    }
#endif
#if defined(__aarch64__)
    printf("%s kernels not run: the level allowed is %s (B2_SIMD)\n", name,
           b2_simd_level_name(allowed));
#else
    printf("%s kernels not run: the level allowed is %s (B2_SIMD, or the OS does not save "
           "the registers)\n", name, b2_simd_level_name(allowed));
#endif
}

/* The delta kernels of each level's table against the portable ones, for block 0
 * (ref NULL: a running XOR) and a later block (XOR with block 0), at buffer
 * offsets that misalign the vectors; and decode(encode) gives the input back. */
static int check_delta(int allowed, int32_t *ns, uint8_t *in, uint8_t *want, uint8_t *got)
{
    const b2_filter_kernels *g = b2_filter_kernels_at(B2_SIMD_GENERIC);
    int ran = 0;
    uint8_t *refb = malloc((size_t)150001 + 64), *back = malloc((size_t)150001 + 64);
    fill(refb, (size_t)150001 + 64);
    for (int level = B2_SIMD_GENERIC + 1; level <= allowed; level++) {
        const b2_filter_kernels *k = b2_filter_kernels_at(level);
        if (!k || k->delta_encode == g->delta_encode)
            continue;
        ran++;
        for (int t = 0; t < NTS; t++) {
            int nl = lengths(typesizes[t], ns);
            for (int i = 0; i < nl; i++) {
                if (ns[i] > 150001)
                    continue;
                size_t n = (size_t)ns[i];
                for (int off = 0; off < 3; off++) {
                    size_t o = (size_t)off * 7; /* 0, 7, 14 bytes into the buffers */
                    const uint8_t *ref = off == 1 ? NULL : refb + o;
                    fill(in + o, n);
                    memset(want, 0xA5, n + o + 1);
                    memset(got, 0x5A, n + o + 1);
                    g->delta_encode(ref, typesizes[t], ns[i], in + o, want + o);
                    k->delta_encode(ref, typesizes[t], ns[i], in + o, got + o);
                    CHECK(!memcmp(got + o, want + o, n) && got[o + n] == 0x5A,
                          "delta_encode level %d ts %d n %d ref %d", level, typesizes[t], ns[i],
                          ref != NULL);
                    memset(back, 0x5A, n + o + 1);
                    k->delta_decode(ref, typesizes[t], ns[i], want + o, back + o);
                    g->delta_decode(ref, typesizes[t], ns[i], want + o, got + o);
                    CHECK(!memcmp(back + o, got + o, n) && !memcmp(back + o, in + o, n) &&
                          back[o + n] == 0x5A,
                          "delta_decode level %d ts %d n %d ref %d", level, typesizes[t], ns[i],
                          ref != NULL);
                }
            }
        }
    }
    free(refb), free(back);
    return ran;
}

/* The part and planes kernels of each level's table against the portable ones:
 * a run of cnt elements from element i0 of a block of q, planes q bytes apart
 * (units of 8 and 16 reach the staging area from 256 elements on). */
static int check_parts(int allowed, uint8_t *in, uint8_t *want, uint8_t *got)
{
    static const int32_t qs[] = {1, 15, 16, 17, 40, 257, 530};
    const b2_filter_kernels *g = b2_filter_kernels_at(B2_SIMD_GENERIC);
    int ran = 0;
    for (int level = B2_SIMD_GENERIC + 1; level <= allowed; level++) {
        const b2_filter_kernels *k = b2_filter_kernels_at(level);
        if (!k || (k->shuffle_part == g->shuffle_part && k->unshuffle_part == g->unshuffle_part &&
                   k->unshuffle_planes == g->unshuffle_planes))
            continue;
        ran++;
        for (int t = 0; t < NTS; t++) {
            int32_t unit = typesizes[t];
            if (unit < 2)
                continue; /* the part kernels take units above 1 */
            for (size_t qi = 0; qi < sizeof qs / sizeof qs[0]; qi++) {
                int32_t q = qs[qi];
                size_t bytes = (size_t)q * unit;
                uint8_t *planes = malloc(bytes);
                fill(in, bytes);
                fill(planes, bytes);
                for (int32_t i0 = 0; i0 <= q / 3; i0 += q / 3 > 0 ? q / 3 : 1) {
                    for (int half = 0; half < 2; half++) {
                        int32_t cnt = half ? (q - i0) / 2 : q - i0;
                        size_t len = (size_t)cnt * unit;
                        memcpy(want, planes, bytes);
                        memcpy(got, planes, bytes);
                        want[bytes] = got[bytes] = 0x5A;
                        g->shuffle_part(unit, q, cnt, in + (size_t)i0 * unit, want + i0);
                        k->shuffle_part(unit, q, cnt, in + (size_t)i0 * unit, got + i0);
                        CHECK(!memcmp(got, want, bytes + 1), "shuffle_part level %d unit %d q %d"
                              " [%d,+%d)", level, unit, q, i0, cnt);
                        memset(want, 0xA5, len + 1);
                        memset(got, 0x5A, len + 1);
                        g->unshuffle_part(unit, q, cnt, planes + i0, want);
                        k->unshuffle_part(unit, q, cnt, planes + i0, got);
                        CHECK(!memcmp(got, want, len) && got[len] == 0x5A,
                              "unshuffle_part level %d unit %d q %d [%d,+%d)", level, unit, q,
                              i0, cnt);
                        if (unit > B2_PLANES_MAX)
                            continue;
                        const uint8_t *pl[B2_PLANES_MAX];
                        for (int32_t j = 0; j < unit; j++)
                            pl[j] = planes + (size_t)j * q;
                        memset(got, 0x5A, len + 1);
                        k->unshuffle_planes(unit, pl, i0, cnt, got);
                        CHECK(!memcmp(got, want, len) && got[len] == 0x5A,
                              "unshuffle_planes level %d unit %d q %d [%d,+%d)", level, unit, q,
                              i0, cnt);
                    }
                }
                free(planes);
            }
        }
    }
    return ran;
}

int main(void)
{
    int allowed = b2_simd_level();
    size_t cap = (size_t)4105 * 300 + 150001; /* above every length */
    uint8_t *in = malloc(cap), *want = malloc(cap), *got = malloc(cap);
    int32_t ns[64];
    int ran[B2_SIMD_TOP + 1] = {0}, said[B2_SIMD_TOP + 1] = {0};
    for (const kernel_pair *k = kernels; k->name; k++) {
        if (k->level > allowed) {
            if (!said[k->level]++)
                say_missing(k->level, allowed);
            continue;
        }
        if (k->gfni && !b2_simd_gfni()) {
            printf("%s kernels not run: this CPU (or B2_SIMD) lacks avx512vbmi and gfni\n", k->name);
            continue;
        }
        for (int t = 0; t < NTS; t++) {
            int nl = lengths(typesizes[t], ns);
            for (int i = 0; i < nl; i++) {
                fill(in, (size_t)ns[i]);
                compare(k, typesizes[t], ns[i], in, want, got);
            }
        }
        ran[k->level]++;
    }
    int delta_levels = check_delta(allowed, ns, in, want, got);
    printf("delta kernels checked at %d levels above generic\n", delta_levels);
    int part_levels = check_parts(allowed, in, want, got);
    printf("part and planes kernels checked at %d levels above generic\n", part_levels);
    int any = 0;
    printf("levels run:");
    for (int l = 0; l <= B2_SIMD_TOP; l++)
        if (ran[l])
            any = printf(" %s (%d kernel pairs)", b2_simd_level_name(l), ran[l]);
    if (b2_simd_gfni())
        printf(" (%s: the vbmi+gfni bit shuffles)", b2_simd_level_name(B2_SIMD_AVX512GFNI));
    printf("%s\n", any ? "" : " none (only the portable kernels are allowed or built)");
    /* the public name (b2 --version, b2 bench) is the variant the dispatch runs */
    CHECK(!strcmp(b2_simd_name(), b2_simd_level_name(b2_simd_variant())), "b2_simd_name %s",
          b2_simd_name());
    printf("b2_simd_name: %s\n", b2_simd_name());
    free(in), free(want), free(got);
    return b2t_summary("simd kernels");
}

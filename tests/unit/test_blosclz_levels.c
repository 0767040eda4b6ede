/* SPDX-License-Identifier: BSD-3-Clause */
/* The BloscLZ encoder of every SIMD level this CPU allows against the portable
 * one (which test_blosclz_vectors holds to c-blosc2's bytes): identical output
 * on inputs with matches and runs of many lengths and distances, ending at and
 * around the scan's 16/32/64-byte steps, at every clevel and with output limits
 * tight enough to make it give up. Levels the CPU or B2_SIMD does not allow are
 * named and skipped (the test passes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_internal.h"
#include "codecs.h"
#include "check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Copies of earlier bytes (random distance and length), runs of one byte, and
 * a little noise; kind 3 is a ramp of doubles as shuffled planes look. */
static void make(int kind, uint8_t *p, int n)
{
    int i = 0;
    if (kind == 3) {
        for (; i < n; i++)
            p[i] = (uint8_t)((i / 8) >> ((i % 8) * 2));
        return;
    }
    while (i < n) {
        uint32_t r = next();
        int len = 1 + (int)(r % (kind == 0 ? 8u : kind == 1 ? 80u : 300u));
        if (len > n - i)
            len = n - i;
        if (i > 0 && r % 3 == 0) {
            int dist = 1 + (int)((r >> 8) % (uint32_t)(i < 9000 ? i : 9000));
            for (int k = 0; k < len; k++, i++)
                p[i] = p[i - dist];
        } else if (r % 3 == 1) {
            uint8_t b = (uint8_t)(r >> 20);
            for (int k = 0; k < len; k++)
                p[i++] = b;
        } else {
            for (int k = 0; k < len && i < n; k++)
                p[i++] = (uint8_t)next();
        }
    }
}

int main(void)
{
    const int allowed = b2_simd_level();
    const int sizes[] = {16, 17, 63, 64, 65, 100, 127, 129, 1000, 4097, 32768, 65536, 262144};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    uint8_t *in = malloc(262144), *want = malloc(262144 + 64), *got = malloc(262144 + 64);
    b2_blosclz_compress_fn gen = b2_blosclz_compress_at(B2_SIMD_GENERIC);
    int ran = 0, compressed = 0, total = 0;
    for (int level = B2_SIMD_GENERIC + 1; level <= B2_SIMD_TOP; level++) {
        b2_blosclz_compress_fn f = b2_blosclz_compress_at(level);
        if (!f) {
            printf("blosclz %s: not in this build\n", b2_simd_level_name(level));
            continue;
        }
        if (level > allowed) {
            printf("blosclz %s: not run, the CPU or B2_SIMD allows %s\n",
                   b2_simd_level_name(level), b2_simd_level_name(allowed));
            continue;
        }
        ran++;
        for (int kind = 0; kind < 4; kind++)
            for (int s = 0; s < nsizes; s++) {
                int n = sizes[s];
                make(kind, in, n);
                for (int clevel = 1; clevel <= 9; clevel++) {
                    /* the full limit, and one that runs out part way */
                    int limits[2] = {n + 64, n / 3 > 66 ? n / 3 : 66};
                    for (int l = 0; l < 2; l++) {
                        int a = gen(clevel, in, n, want, limits[l]);
                        int b = f(clevel, in, n, got, limits[l]);
                        compressed += a > 0, total++;
                        CHECK(a == b && (a <= 0 || !memcmp(want, got, (size_t)a)),
                              "blosclz %s kind %d n %d clevel %d maxout %d: %d vs %d bytes",
                              b2_simd_level_name(level), kind, n, clevel, limits[l], b, a);
                    }
                }
            }
        printf("blosclz %s: same bytes as generic\n", b2_simd_level_name(level));
    }
    printf("blosclz levels run: %d above generic; %d of %d encodings compressed\n", ran,
           compressed, total);
    CHECK(!ran || (compressed > total / 5 && compressed < total), "the inputs exercise both outcomes");
    free(in), free(want), free(got);
    return b2t_summary("blosclz levels");
}

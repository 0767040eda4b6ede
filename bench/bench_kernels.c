/* SPDX-License-Identifier: BSD-3-Clause */
/* Side-by-side speed of two levels' shuffle-filter kernels, to decide which
 * one a kernel table routes to (filters/kernel_table.c). For each operation,
 * typesize and buffer size, rounds alternate A B A B (at least 5 each) and the
 * median of the per-round ratios B/A is printed (> 1: B faster), so load from
 * other processes hits both sides alike.
 * Usage: bench_kernels [A B [rounds [op]]], A and B among generic sse2 avx2
 * avx512 avx512-all avx512gfni, or generic neon on aarch64 (default avx2 avx512 7, on
 * aarch64 generic neon 7), op one of shuffle unshuffle bitshuffle
 * bitunshuffle shuffle_rows unshuffle_rows delta_enc0 delta_dec0 delta_enc delta_dec
 * (default all). The _rows ops run the part kernels row by row, 50 elements a
 * row, as b2nd reads a 50x50 block. delta_*0 code block 0 (a running XOR),
 * the others a later block (XOR with block 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "filters.h"
#include "simd_kernels.h"

typedef struct {
    const char *level;
    b2_block_fn shuffle, unshuffle, bitshuffle, bitunshuffle;
    b2_part_fn shuffle_part, unshuffle_part;
    b2_delta_fn delta_encode, delta_decode;
} candidates;

/* Every kernel built, routed or not (a table may keep a lower level's). */
static const candidates all[] = {
    {"generic", b2_shuffle_generic, b2_unshuffle_generic, b2_bitshuffle_generic,
     b2_bitunshuffle_modern_generic, b2_shuffle_part_generic, b2_unshuffle_part_generic,
     b2_delta_encode_generic, b2_delta_decode_generic},
#ifdef B2_HAVE_X86_SIMD
    {"sse2", b2_shuffle_sse2, b2_unshuffle_sse2, b2_bitshuffle_sse2, b2_bitunshuffle_sse2,
     b2_shuffle_part_sse2, b2_unshuffle_part_sse2, b2_delta_encode_sse2, b2_delta_decode_sse2},
    {"avx2", b2_shuffle_avx2, b2_unshuffle_avx2, b2_bitshuffle_avx2, b2_bitunshuffle_avx2,
     b2_shuffle_part_avx2, b2_unshuffle_part_avx2, b2_delta_encode_avx2, b2_delta_decode_avx2},
#endif
#ifdef B2_HAVE_X86_AVX512
    {"avx512", b2_shuffle_avx512, b2_unshuffle_avx512, b2_bitshuffle_avx512,
     b2_bitunshuffle_avx512, b2_shuffle_part_avx512, b2_unshuffle_part_avx512,
     b2_delta_encode_avx512, b2_delta_decode_avx512},
    /* the byte shuffle's AVX-512 steps for units 8 and 16 too (bit shuffle strips) */
    {"avx512-all", b2_shuffle_strip_avx512, b2_unshuffle_avx512, b2_bitshuffle_avx512,
     b2_bitunshuffle_avx512, b2_shuffle_part_avx512, b2_unshuffle_part_avx512,
     b2_delta_encode_avx512, b2_delta_decode_avx512},
#endif
#ifdef B2_HAVE_X86_GFNI
    /* AVX-512 with VBMI and GFNI: its bit shuffles (needs a CPU that has them) */
    {"avx512gfni", b2_shuffle_avx512, b2_unshuffle_avx512, b2_bitshuffle_avx512gfni,
     b2_bitunshuffle_avx512gfni, b2_shuffle_part_avx512, b2_unshuffle_part_avx512,
     b2_delta_encode_avx512, b2_delta_decode_avx512},
#endif
#ifdef B2_HAVE_ARM_SIMD
    {"neon", b2_shuffle_neon, b2_unshuffle_neon, b2_bitshuffle_neon, b2_bitunshuffle_neon,
     b2_shuffle_part_neon, b2_unshuffle_part_neon, b2_delta_encode_neon, b2_delta_decode_neon},
#endif
};

static const candidates *find(const char *level)
{
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(all[i].level, level))
            return &all[i];
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Seconds per call, best of a few bursts of about 20 ms. */
static double time_kernel(b2_block_fn f, int32_t ts, int32_t n, const uint8_t *in, uint8_t *out)
{
    int reps = (int)(((size_t)4 << 20) / (size_t)n) + 1;
    double best = 1e9;
    for (int burst = 0; burst < 3; burst++) {
        double t0 = now();
        for (int r = 0; r < reps; r++)
            f(ts, n, in, out);
        double dt = (now() - t0) / reps;
        best = dt < best ? dt : best;
    }
    return best;
}

/* A block of n bytes (un)shuffled by a part kernel in rows of ROW elements:
 * planes q = n / ts bytes apart on one side, rows contiguous on the other. */
#define ROW 50
static b2_part_fn rows_fn;
static int rows_shuffle;
static void rows_kernel(int32_t ts, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t q = n / ts;
    for (int32_t r = 0; r + ROW <= q; r += ROW) {
        if (rows_shuffle)
            rows_fn(ts, q, ROW, in + (size_t)r * ts, out + r);
        else
            rows_fn(ts, q, ROW, in + r, out + (size_t)r * ts);
    }
}

/* A delta kernel as a block kernel: block 0 (no ref) or a later one. */
static b2_delta_fn delta_fn;
static const uint8_t *delta_ref;
static void delta_kernel(int32_t ts, int32_t n, const uint8_t *in, uint8_t *out)
{
    delta_fn(delta_ref, ts, n, in, out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
#if defined(__aarch64__)
    const char *na = argc > 2 ? argv[1] : "generic", *nb = argc > 2 ? argv[2] : "neon";
#else
    const char *na = argc > 2 ? argv[1] : "avx2", *nb = argc > 2 ? argv[2] : "avx512";
#endif
    int rounds = argc > 3 ? atoi(argv[3]) : 7;
    const char *only = argc > 4 ? argv[4] : NULL;
    const candidates *a = find(na), *b = find(nb);
    if (!a || !b || rounds < 1) {
        fprintf(stderr, "bench_kernels: no kernels for %s or %s in this build\n", na, nb);
        return 2;
    }
    if (b2_simd_level() < B2_SIMD_AVX512 && (strstr(na, "avx512") || strstr(nb, "avx512"))) {
        fprintf(stderr, "bench_kernels: this CPU (or B2_SIMD) does not allow avx512\n");
        return 2;
    }
    if (!b2_simd_gfni() && (!strcmp(na, "avx512gfni") || !strcmp(nb, "avx512gfni"))) {
        fprintf(stderr, "bench_kernels: this CPU (or B2_SIMD) does not allow avx512gfni\n");
        return 2;
    }
    static const int32_t sizes[] = {16 << 10, 20000, 128 << 10, 256 << 10, 4 << 20};
    static const int32_t tss[] = {1, 2, 4, 8, 16, 3, 12};
    static const char *const ops[] = {"shuffle",      "unshuffle",    "bitshuffle",
                                      "bitunshuffle", "shuffle_rows", "unshuffle_rows",
                                      "delta_enc0",   "delta_dec0",   "delta_enc",
                                      "delta_dec"};
    uint8_t *refbuf = malloc((size_t)4 << 20);
    uint8_t *in = malloc((size_t)4 << 20), *out = malloc((size_t)4 << 20);
    for (size_t i = 0; i < (size_t)4 << 20; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 13), refbuf[i] = (uint8_t)(i * 40503u >> 7);
    printf("%-14s %3s %8s  %s/%s median (min..max) of %d rounds, MB/s of %s\n", "op", "ts",
           "bytes", nb, na, rounds, nb);
    for (int op = 0; op < 10; op++)
        for (size_t t = 0; t < sizeof tss / sizeof tss[0]; t++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                int rows = op == 4 || op == 5, delta = op >= 6;
                b2_block_fn fa = rows ? rows_kernel : delta ? delta_kernel : (&a->shuffle)[op];
                b2_block_fn fb = rows ? rows_kernel : delta ? delta_kernel : (&b->shuffle)[op];
                b2_delta_fn da = delta ? (op % 2 ? a->delta_decode : a->delta_encode) : NULL;
                b2_delta_fn db = delta ? (op % 2 ? b->delta_decode : b->delta_encode) : NULL;
                delta_ref = op >= 8 ? refbuf : NULL;
                b2_part_fn pa = rows ? (&a->shuffle_part)[op - 4] : NULL;
                b2_part_fn pb = rows ? (&b->shuffle_part)[op - 4] : NULL;
                if ((rows ? pa == pb : delta ? da == db : fa == fb) ||
                    (only && strcmp(only, ops[op])))
                    continue; /* the same kernel on both sides, or not asked for */
                double ratio[64], tb = 0;
                int nr = rounds < 64 ? rounds : 64;
                rows_shuffle = op == 4;
                for (int r = 0; r < nr; r++) {
                    rows_fn = pa;
                    delta_fn = da;
                    double ta = time_kernel(fa, tss[t], sizes[s], in, out);
                    rows_fn = pb;
                    delta_fn = db;
                    tb = time_kernel(fb, tss[t], sizes[s], in, out);
                    ratio[r] = ta / tb;
                }
                qsort(ratio, (size_t)nr, sizeof ratio[0], cmp_double);
                printf("%-14s %3d %8d  %.3f (%.3f..%.3f) %6.0f\n", ops[op], tss[t], sizes[s],
                       ratio[nr / 2], ratio[0], ratio[nr - 1], sizes[s] / tb / 1e6);
                fflush(stdout);
            }
    free(in), free(out), free(refbuf);
    return 0;
}

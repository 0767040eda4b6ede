/* SPDX-License-Identifier: BSD-3-Clause */
/* Chunk decoder checks over every reference chunk vector, beyond "decodes to the
 * expected SHA-256" (which tests/py/test_interop_chunks.py covers):
 *  - 1, 2 and 3 decoder threads give identical bytes;
 *  - the portable kernels (B2_SIMD=generic) give the same bytes as the SIMD ones;
 *  - getitem over random item ranges equals the same range of the full decode and
 *    decodes exactly the blocks that overlap the range (plus block 0 for delta
 *    chunks, whose reference block it is — the case c-blosc2 gets wrong);
 *  - every block of a VL-block chunk decodes on its own to its part of the whole;
 *  - a Blosc1 (version 2) chunk built by hand from the format notes, whose last,
 *    partial block holds an item count that is not a multiple of 8: under the old
 *    rule that block was never bitshuffled, which c-blosc2 3.4's opt-in Blosc1
 *    writer brings back (spec filters.md §3.4, chunk.md §3.5). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_chunk.h"
#include "b2_internal.h"
#include "manifest.h"
#include "check.h"
#include "b2_chunk_experimental.h"

static uint64_t rng = 0x853C49E6748FEA9Bull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int has_delta(const b2_chunk_info *in)
{
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        if (in->filters[i] == B2_FILTER_DELTA)
            return 1;
    return 0;
}

static void check_vector(const char *name, const uint8_t *c, size_t len, b2_dctx *d1,
                         b2_dctx *d2, b2_dctx *d3)
{
    b2_chunk_info in;
    if (b2_chunk_get_info(c, len, &in) < 0) {
        CHECK(0, "%s: header refused", name);
        return;
    }
    size_t n = (size_t)in.nbytes;
    uint8_t *full = calloc(n + 1, 1), *other = calloc(n + 1, 1), *part = malloc(n + 1);
    CHECK(b2_chunk_decompress(d1, c, len, full, n) == in.nbytes, "%s: decode (1 thread)", name);
    if (in.special != B2_SPECIAL_UNINIT) {
        CHECK(b2_chunk_decompress(d2, c, len, other, n) == in.nbytes && !memcmp(full, other, n),
              "%s: 2 threads differ", name);
        memset(other, 0, n);
        CHECK(b2_chunk_decompress(d3, c, len, other, n) == in.nbytes && !memcmp(full, other, n),
              "%s: 3 threads differ", name);
        b2_simd_force_level(B2_SIMD_GENERIC);
        memset(other, 0, n);
        CHECK(b2_chunk_decompress(d1, c, len, other, n) == in.nbytes && !memcmp(full, other, n),
              "%s: portable kernels differ", name);
        b2_simd_force_level(-1);
    }
    if (in.vlblocks) {
        size_t off = 0;
        for (int32_t j = 0; j < in.nblocks; j++) {
            int r = b2_chunk_vl_get_block(d1, c, len, j, part, n);
            CHECK(r > 0 && off + (size_t)r <= n && !memcmp(part, full + off, (size_t)r),
                  "%s: VL block %d", name, j);
            off += r > 0 ? (size_t)r : 0;
        }
        CHECK(off == n, "%s: VL blocks add up to %zu, not %zu", name, off, n);
    } else if (in.special != B2_SPECIAL_UNINIT && in.nbytes > 0) {
        int64_t nitems = in.nbytes / in.typesize;
        for (int k = 0; k < 24 && nitems > 0; k++) {
            int64_t start = (int64_t)(rnd() % (uint64_t)nitems);
            int64_t cnt = 1 + (int64_t)(rnd() % (uint64_t)(k < 12 ? 64 : nitems - start));
            if (start + cnt > nitems)
                cnt = nitems - start;
            int64_t before = b2_dctx_blocks_decoded(d1);
            int r = b2_chunk_getitem(d1, c, len, start, cnt, part, n);
            int64_t used = b2_dctx_blocks_decoded(d1) - before;
            int64_t lo = start * in.typesize, hi = (start + cnt) * in.typesize;
            CHECK(r == hi - lo && !memcmp(part, full + lo, (size_t)(hi - lo)),
                  "%s: getitem(%lld, %lld) differs from the full decode", name, (long long)start,
                  (long long)cnt);
            if (!in.special && !in.memcpyed) {
                int64_t bs = in.eff_blocksize, b0 = lo / bs, b1 = (hi - 1) / bs;
                int64_t want = b1 - b0 + 1 + (has_delta(&in) && b1 > 0 && b0 > 0 ? 1 : 0);
                /* with delta and block 0 in range, block 0 is decoded once as reference
                 * and reused for the output */
                CHECK(used == want, "%s: getitem(%lld, %lld) decoded %lld blocks, expected %lld",
                      name, (long long)start, (long long)cnt, (long long)used, (long long)want);
            }
        }
    }
    free(full);
    free(other);
    free(part);
}

static int run_dir(const char *dir, const char *suffix, b2_dctx *d1, b2_dctx *d2, b2_dctx *d3)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t nl = strlen(e->d_name), sl = strlen(suffix);
        if (nl < sl || strcmp(e->d_name + nl - sl, suffix))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        uint8_t *c = test_read_file(path, &len);
        if (!c)
            continue;
        check_vector(e->d_name, c, len, d1, d2, d3);
        free(c);
        count++;
    }
    closedir(dp);
    return count;
}

/* ---- a Blosc1 chunk with a partial bitshuffle block (spec filters.md §3.1, §3.4) ---- */

/* Bit transpose of e8 whole elements of ts bytes (filters.md §3.1): output bit
 * (j*8 + b)*e8 + i is bit b of byte j of element i. */
static void bitshuffle_ref(const uint8_t *in, uint8_t *out, int e8, int ts)
{
    memset(out, 0, (size_t)e8 * ts);
    for (int i = 0; i < e8; i++)
        for (int j = 0; j < ts; j++)
            for (int b = 0; b < 8; b++)
                if (in[i * ts + j] >> b & 1) {
                    long k = (long)(j * 8 + b) * e8 + i;
                    out[k / 8] |= (uint8_t)(1u << (k % 8));
                }
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* 25 int32 items, blocksize 64: block 0 holds 16 items (bitshuffled), block 1 holds
 * 9 (9 mod 8 != 0: stored as they are under the Blosc1 rule). 16-byte header,
 * flags 0x14 (bitshuffle, don't split, BloscLZ), each block one stored stream
 * (stream size == block size). */
static void check_blosc1_partial_bitshuffle(b2_dctx *d)
{
    enum { N = 25, TS = 4, NB = N * TS, BS = 64, LAST = NB - BS };
    uint8_t raw[NB], c[16 + 8 + 4 + BS + 4 + LAST], out[NB];
    for (int i = 0; i < N; i++)
        put32(raw + 4 * i, (uint32_t)(i * i * 2654435761u + 7));
    c[0] = 2, c[1] = 1, c[2] = 0x14, c[3] = TS;
    put32(c + 4, NB), put32(c + 8, BS), put32(c + 12, sizeof c);
    put32(c + 16, 24), put32(c + 20, 24 + 4 + BS);
    put32(c + 24, BS);
    bitshuffle_ref(raw, c + 28, BS / TS, TS);
    put32(c + 28 + BS, LAST);
    memcpy(c + 32 + BS, raw + BS, LAST);
    CHECK(b2_chunk_decompress(d, c, sizeof c, out, sizeof out) == NB && !memcmp(out, raw, NB),
          "Blosc1 chunk: the 9-item block is not bitshuffled, the 16-item one is");
    int32_t item[3];
    CHECK(b2_chunk_getitem(d, c, sizeof c, 20, 3, item, sizeof item) == 12 &&
          !memcmp(item, raw + 80, 12), "Blosc1 chunk: getitem in the partial block");
    /* The same bytes as a version-5 chunk follow the Blosc2 rule: 8 of the 9 items
     * of the last block get un-transposed, so they come out different. */
    c[0] = 5;
    CHECK(b2_chunk_decompress(d, c, sizeof c, out, sizeof out) == NB &&
          !memcmp(out, raw, BS) && memcmp(out + BS, raw + BS, 32) != 0 &&
          !memcmp(out + BS + 32, raw + BS + 32, 4),
          "version 5: the Blosc2 rule transposes 8 items of the partial block, copies the 9th");
}

int main(void)
{
    const char *root = getenv("B2_INTEROP_DIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/chunks", root ? root : "../test_data");
    b2_dctx *d1 = b2_dctx_new(1), *d2 = b2_dctx_new(2), *d3 = b2_dctx_new(3);
    int n = run_dir(dir, ".b2chunk", d1, d2, d3);
    if (n < 0) {
        printf("SKIP: reference vectors not found at %s (set B2_INTEROP_DIR)\n", dir);
        b2_dctx_free(d1);
        b2_dctx_free(d2);
        b2_dctx_free(d3);
        return 77;
    }
    snprintf(dir, sizeof dir, "%s/compat", root ? root : "../test_data");
    int m = run_dir(dir, ".cdata", d1, d2, d3);
    check_blosc1_partial_bitshuffle(d1);
    b2_dctx_free(d1);
    b2_dctx_free(d2);
    b2_dctx_free(d3);
    printf("chunk decode: %d reference chunks + %d compat chunks, %ld checks\n", n, m > 0 ? m : 0,
           b2t_checks);
    printf("%ld passed, %ld failed\n", b2t_checks - b2t_failures, b2t_failures);
    return b2t_failures ? 1 : 0;
}

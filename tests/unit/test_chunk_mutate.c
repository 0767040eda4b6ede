/* SPDX-License-Identifier: BSD-3-Clause */
/* Mutation test for the chunk decoder: every reference chunk vector is truncated,
 * bit-flipped and given extreme header values; each mutant must either decode or
 * return an error code — never crash, hang or touch memory it does not own (run
 * under ASan+UBSan in CI). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_chunk.h"
#include "b2_internal.h"
#include "manifest.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static long n_mutants, n_decoded, n_errors;

/* Decode one mutant into a buffer of exactly cap bytes (so ASan sees overruns). */
static void try_decode(b2_dctx *d, const uint8_t *buf, size_t len, size_t cap)
{
    /* copy to an exact-size allocation so reads past len are caught */
    uint8_t *in = malloc(len ? len : 1);
    uint8_t *out = malloc(cap ? cap : 1);
    memcpy(in, buf, len);
    int rc = b2_chunk_decompress(d, in, len, out, cap);
    if (rc >= 0) {
        n_decoded++;
        if ((size_t)rc > cap) {
            fprintf(stderr, "decoder claims %d bytes > capacity %zu\n", rc, cap);
            exit(1);
        }
    } else {
        n_errors++;
        if (!b2_strerror(rc)[0])
            exit(1);
    }
    b2_chunk_info info;
    if (b2_chunk_get_info(in, len, &info) == 0 && info.typesize > 0) {
        int64_t nitems = info.nbytes / info.typesize;
        int64_t start = nitems ? (int64_t)(rnd() % (uint64_t)nitems) : 0;
        int64_t n = nitems - start ? (int64_t)(rnd() % (uint64_t)(nitems - start + 1)) : 0;
        if ((size_t)(n * info.typesize) <= cap)
            (void)b2_chunk_getitem(d, in, len, start, n, out, cap);
    }
    n_mutants++;
    free(in);
    free(out);
}

static void mutate_vector(b2_dctx *d, const uint8_t *orig, size_t len, int budget)
{
    b2_chunk_info info;
    size_t cap = 1 << 16;
    if (b2_chunk_get_info(orig, len, &info) == 0)
        cap = (size_t)info.nbytes;
    uint8_t *buf = malloc(len + 64);
    /* truncations: every length for short chunks, spread otherwise */
    int ntrunc = budget / 4;
    for (int i = 0; i < ntrunc; i++) {
        size_t l = len <= (size_t)ntrunc ? (size_t)i : (size_t)(rnd() % len);
        if (l > len)
            break;
        try_decode(d, orig, l, cap);
    }
    /* random byte flips, 1..4 per mutant */
    for (int i = 0; i < budget / 2; i++) {
        memcpy(buf, orig, len);
        int k = 1 + (int)(rnd() % 4);
        for (int j = 0; j < k; j++) {
            /* bias towards the header and block table where the structure is */
            size_t pos = (rnd() & 1) ? rnd() % (len < 64 ? len : 64) : rnd() % len;
            buf[pos] ^= (uint8_t)(1u << (rnd() % 8)) | (uint8_t)((rnd() & 3) == 0 ? rnd() : 0);
        }
        try_decode(d, buf, len, cap);
    }
    /* extreme values in 32-bit fields of the header, bstarts and stream sizes */
    static const int32_t extremes[] = {0, 1, -1, 2, 16, 31, 32, 33, -255, -256, 255, 256,
                                       INT32_MAX, INT32_MIN, 0x7FFFFFE0, 536866816, 536866817};
    int nex = budget - ntrunc - budget / 2;
    for (int i = 0; i < nex; i++) {
        memcpy(buf, orig, len);
        size_t field = len >= 48 ? (size_t)(4 + 4 * (rnd() % 11)) : 4 + 4 * (rnd() % 3);
        if (field + 4 > len)
            continue;
        int32_t v = (rnd() % 3 == 0) ? (int32_t)(rnd() % (len + 8))
                                     : extremes[rnd() % (sizeof extremes / sizeof *extremes)];
        b2_store_le32(buf + field, (uint32_t)v);
        if (rnd() % 4 == 0)
            buf[2 + rnd() % 2] = (uint8_t)rnd(); /* flags or typesize too */
        if (rnd() % 8 == 0 && len >= 32)
            buf[30 + rnd() % 2] = (uint8_t)rnd(); /* blosc2 flags */
        try_decode(d, buf, len, cap);
    }
    free(buf);
}

static int run_dir(b2_dctx *d, const char *dir, const char *suffix, int big_budget,
                   int small_budget)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    struct dirent *e;
    int files = 0;
    while ((e = readdir(dp))) {
        size_t nl = strlen(e->d_name), sl = strlen(suffix);
        if (nl < sl || strcmp(e->d_name + nl - sl, suffix))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        uint8_t *buf = test_read_file(path, &len);
        if (!buf)
            continue;
        b2_chunk_info info;
        int big = b2_chunk_get_info(buf, len, &info) == 0 && info.nbytes > (1 << 20);
        b2_dctx_set_nthreads(d, 1 + files % 2);
        mutate_vector(d, buf, len, big ? big_budget : small_budget);
        free(buf);
        files++;
    }
    closedir(dp);
    return files;
}

int main(void)
{
    const char *root = getenv("B2_INTEROP_DIR");
    char dir[4096];
    if (!root)
        root = "../test_data";
    snprintf(dir, sizeof dir, "%s/chunks", root);
    DIR *probe = opendir(dir);
    if (!probe) {
        printf("SKIP: reference vectors not found at %s (set B2_INTEROP_DIR)\n", dir);
        return 77;
    }
    closedir(probe);
    b2_dctx *d = b2_dctx_new(1);
    int files = run_dir(d, dir, ".b2chunk", 12, 48);
    snprintf(dir, sizeof dir, "%s/compat", root);
    files += run_dir(d, dir, ".cdata", 8, 8);
    b2_dctx_free(d);
    printf("%d vectors, %ld mutated inputs: %ld decoded, %ld rejected with an error code\n",
           files, n_mutants, n_decoded, n_errors);
    if (n_mutants < 10000) {
        printf("FAIL: fewer than 10000 mutants\n");
        return 1;
    }
    printf("%ld passed, 0 failed\n", n_mutants);
    return 0;
}

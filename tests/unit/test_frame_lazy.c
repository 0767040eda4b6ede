/* SPDX-License-Identifier: BSD-3-Clause */
/* Partial reads from on-disk frames read only the blocks they need: item ranges
 * from file and sparse frames must equal the full decode for many chunk shapes
 * (compressed, memcpyed, delta, dictionary, non-monotonic bstarts from 2 threads),
 * and a small range of a large chunk must read a small fraction of its bytes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frame_internal.h"
#include "frame_open.h"

static int failures, nranges;
#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4500];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(path);
}

#define CHUNK (1 << 20) /* bytes per chunk */
#define NCH 3

static void run(const char *label, b2_cparams *cp, int sparse, const char *path)
{
    rm_rf(path);
    b2_schunk *s;
    int rc = sparse ? t_create_sparse(path, cp, &s) : t_create(path, cp, &s);
    if (rc < 0) {
        FAIL("%s: create: %s", label, b2_strerror(rc));
        return;
    }
    uint8_t *all = malloc((size_t)CHUNK * NCH), *got = malloc((size_t)CHUNK * NCH);
    int32_t *v = (int32_t *)(void *)all;
    for (size_t i = 0; i < (size_t)CHUNK * NCH / 4; i++)
        v[i] = (int32_t)(i / 3 + (rnd() % 4 == 0 ? rnd() % 16 : 0));
    for (int c = 0; c < NCH; c++)
        if (b2_schunk_append_buffer(s, all + (size_t)c * CHUNK, CHUNK) != c + 1)
            FAIL("%s: append", label);
    b2_schunk_free(s);
    if (t_open(path, B2_OPEN_READONLY, &s) < 0) {
        FAIL("%s: open", label);
        goto out;
    }
    int64_t ts = b2_schunk_typesize(s), nitems = (int64_t)CHUNK * NCH / ts;
    for (int t = 0; t < 40; t++) {
        int64_t a = (int64_t)(rnd() % (uint64_t)nitems);
        int64_t n = t < 20 ? 1 + (int64_t)(rnd() % 64) : (int64_t)(rnd() % (uint64_t)(nitems - a + 1));
        if (a + n > nitems)
            n = nitems - a;
        int64_t r = b2_schunk_get_items(s, a, n, got, (size_t)CHUNK * NCH);
        if (r != n * ts || memcmp(got, all + a * ts, (size_t)(n * ts)) != 0)
            FAIL("%s: get_items(%lld, %lld) = %lld differs", label, (long long)a, (long long)n,
                 (long long)r);
        nranges++;
    }
    /* one small range in the middle of chunk 1: a small fraction of the chunk is read */
    s->count.bytes_read = 0;
    int64_t a = (int64_t)(CHUNK + CHUNK / 2) / ts;
    if (b2_schunk_get_items(s, a, 16, got, 16 * (size_t)ts) != 16 * ts ||
        memcmp(got, all + a * ts, 16 * (size_t)ts))
        FAIL("%s: small range", label);
    int64_t cb = b2_schunk_cbytes(s) / NCH;
    printf("  %-22s %-6s: chunk ~%lld B stored, a 16-item read fetched %lld B\n", label,
           sparse ? "sparse" : "file", (long long)cb, (long long)s->count.bytes_read);
    if (s->count.bytes_read > cb / 4 + 4096)
        FAIL("%s: read %lld bytes for 16 items", label, (long long)s->count.bytes_read);
    b2_schunk_free(s);
out:
    free(all);
    free(got);
    rm_rf(path);
}

int main(void)
{
    char tmp[] = "/tmp/b2_frame_lazyXXXXXX";
    char *d = mkdtemp(tmp);
    char path[4200];
    struct { const char *label; int codec, clevel, filter, nthreads, dict; int32_t bs; } cases[] = {
        {"lz4 shuffle", B2_CODEC_LZ4, 5, B2_FILTER_SHUFFLE, 1, 0, 32768},
        {"blosclz delta+shuffle", B2_CODEC_BLOSCLZ, 5, B2_FILTER_DELTA, 1, 0, 16384},
        {"memcpyed", B2_CODEC_LZ4, 0, B2_FILTER_NONE, 1, 0, 65536},
        {"zstd dict", B2_CODEC_ZSTD, 3, B2_FILTER_SHUFFLE, 1, 1, 32768},
        {"zlib 2 threads", B2_CODEC_ZLIB, 5, B2_FILTER_SHUFFLE, 2, 0, 16384},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int sparse = 0; sparse < 2; sparse++) {
            b2_cparams cp;
            b2_cparams_init(&cp);
            cp.typesize = 4;
            cp.codec = cases[k].codec;
            cp.clevel = cases[k].clevel;
            cp.blocksize = cases[k].bs;
            cp.nthreads = cases[k].nthreads;
            cp.use_dict = cases[k].dict;
            if (cases[k].filter == B2_FILTER_DELTA)
                cp.filters[4] = B2_FILTER_DELTA;
            else
                cp.filters[5] = (uint8_t)cases[k].filter;
            snprintf(path, sizeof path, "%s/l%zu%d", d, k, sparse);
            run(cases[k].label, &cp, sparse, path);
        }
    rmdir(d);
    printf("lazy reads: %d ranges checked, %d failures\n", nranges, failures);
    return failures ? 1 : 0;
}

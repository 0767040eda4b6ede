/* SPDX-License-Identifier: BSD-3-Clause */
/* frame_file.c: build a contiguous frame file chunk by chunk, append to it after
 * reopening, then read back a single chunk and a range of items.
 *
 * Opening a frame file reads its header and chunk index only; each chunk is read
 * from the file when asked for, so reading one chunk of a large frame costs one
 * chunk. Every modification commits with one header write: after a crash the
 * file holds the old or the new state.
 *
 * Run: ./frame_file [path]   (default example.b2frame, overwritten). */
#include <b2_frame.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_ITEMS 100000 /* float64 items per chunk: 800 KB */

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "%s: %s\n", what, b2_strerror((int)rc));
    return 1;
}

/* Item i of the data set: a smooth signal, the same wherever it is computed. */
static double value(int64_t i) { return (double)(i % 1000) * 0.5; }

static void fill(double *buf, int64_t first)
{
    for (int64_t j = 0; j < CHUNK_ITEMS; j++)
        buf[j] = value(first + j);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example.b2frame";
    double *buf = malloc(CHUNK_ITEMS * sizeof(double));
    if (!buf)
        return fail("malloc", B2_ERR_NOMEM);

    /* 1. Create the file; chunks appended as buffers use these parameters. */
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = sizeof(double);
    cp.codec = B2_CODEC_LZ4;
    cp.filters[B2_MAX_FILTERS - 1] = B2_FILTER_SHUFFLE;
    b2_open_options o; /* every open and create goes through these options */
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.cparams = &cp;
    b2_schunk *s;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("create", rc);
    b2_schunk_set_sync(s, 0); /* no fsync: faster, still crash-consistent */
    for (int k = 0; k < 3; k++) {
        fill(buf, (int64_t)k * CHUNK_ITEMS);
        int64_t n = b2_schunk_append_buffer(s, buf, CHUNK_ITEMS * sizeof(double));
        if (n < 0)
            return fail("append", n);
    }
    printf("created %s: %lld chunks, %lld bytes of data in a %lld-byte frame\n", path,
           (long long)b2_schunk_nchunks(s), (long long)b2_schunk_nbytes(s),
           (long long)b2_schunk_frame_len(s));
    b2_schunk_free(s); /* nothing to flush: every append was already committed */

    /* 2. Reopen for writing and append two more chunks. */
    b2_open_options_init(&o);
    o.path = path;
    o.flags = B2_OPEN_WRITE;
    rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("open for write", rc);
    b2_schunk_set_sync(s, 0);
    for (int k = 3; k < 5; k++) {
        fill(buf, (int64_t)k * CHUNK_ITEMS);
        int64_t n = b2_schunk_append_buffer(s, buf, CHUNK_ITEMS * sizeof(double));
        if (n < 0)
            return fail("append", n);
    }
    printf("reopened and appended: %lld chunks, frame %lld bytes\n",
           (long long)b2_schunk_nchunks(s), (long long)b2_schunk_frame_len(s));
    b2_schunk_free(s);

    /* 3. Reopen read-only and decompress chunk 3 only. */
    o.flags = B2_OPEN_READONLY;
    rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("open", rc);
    if (b2_schunk_nchunks(s) != 5 || b2_schunk_typesize(s) != (int32_t)sizeof(double)) {
        fprintf(stderr, "unexpected frame: %lld chunks\n", (long long)b2_schunk_nchunks(s));
        return 1;
    }
    rc = b2_schunk_decompress_chunk(s, 3, buf, CHUNK_ITEMS * sizeof(double));
    if (rc < 0)
        return fail("decompress chunk 3", rc);
    for (int64_t j = 0; j < CHUNK_ITEMS; j++)
        if (buf[j] != value(3 * CHUNK_ITEMS + j)) {
            fprintf(stderr, "chunk 3: wrong item %lld\n", (long long)j);
            return 1;
        }
    printf("chunk 3: %d bytes decompressed, all %d items correct\n", rc, CHUNK_ITEMS);

    /* Items are addressed across chunk boundaries too (units of the typesize). */
    double few[6];
    int64_t start = 2 * CHUNK_ITEMS - 3;
    int64_t got = b2_schunk_get_items(s, start, 6, few, sizeof few);
    if (got < 0)
        return fail("get_items", got);
    for (int j = 0; j < 6; j++)
        if (few[j] != value(start + j)) {
            fprintf(stderr, "get_items: wrong item %d\n", j);
            return 1;
        }
    printf("items %lld..%lld (across chunks 1 and 2): %g .. %g\n", (long long)start,
           (long long)(start + 5), few[0], few[5]);

    /* Out-of-range requests are errors, not crashes. */
    rc = b2_schunk_decompress_chunk(s, 5, buf, CHUNK_ITEMS * sizeof(double));
    printf("chunk 5 of 5: %s\n", rc < 0 ? b2_strerror(rc) : "returned data?!");
    if (rc >= 0)
        return 1;

    b2_schunk_free(s);
    free(buf);
    printf("frame_file: OK\n");
    return 0;
}

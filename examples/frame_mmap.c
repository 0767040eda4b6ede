/* SPDX-License-Identifier: BSD-3-Clause */
/* frame_mmap.c: open a frame file mapped read-only (b2_open_options.mmap), so
 * that chunks are decoded straight from the mapping with no read into a buffer,
 * and compare with an ordinary open: same values, and how many bytes each read
 * from the file through read calls (b2_schunk_bytes_read, experimental).
 *
 * A mapped frame is read-only and sees the file as it was when opened; the file
 * must not shrink while it is mapped (the kernel then faults the process).
 *
 * Run: ./frame_mmap [path]   (default example_mmap.b2frame, overwritten). */
#include <b2_frame.h>
#include <b2_frame_experimental.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 100000

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "%s: %s (%s)\n", what, b2_strerror((int)rc), b2_last_error_message());
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example_mmap.b2frame";
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = sizeof(float);
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.cparams = &cp;
    b2_schunk *s;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("create", rc);
    b2_schunk_set_sync(s, 0);
    float *buf = malloc(ITEMS * sizeof *buf), *back = malloc(ITEMS * sizeof *back);
    for (int k = 0; k < 8; k++) {
        for (int i = 0; i < ITEMS; i++)
            buf[i] = (float)k + (float)i / ITEMS;
        int64_t n = b2_schunk_append_buffer(s, buf, ITEMS * sizeof *buf);
        if (n < 0)
            return fail("append", n);
    }
    b2_schunk_free(s);

    b2_schunk *plain, *mapped;
    b2_open_options_init(&o);
    o.path = path;
    if ((rc = b2_schunk_open_with(&o, &plain)) < 0)
        return fail("open", rc);
    o.mmap = 1;
    if ((rc = b2_schunk_open_with(&o, &mapped)) < 0)
        return fail("open mapped", rc);
    for (int64_t k = 0; k < b2_schunk_nchunks(plain); k++) {
        rc = b2_schunk_decompress_chunk(plain, k, buf, ITEMS * sizeof *buf);
        if (rc < 0)
            return fail("decompress", rc);
        rc = b2_schunk_decompress_chunk(mapped, k, back, ITEMS * sizeof *back);
        if (rc < 0)
            return fail("decompress mapped", rc);
        if (memcmp(buf, back, ITEMS * sizeof *buf)) {
            fprintf(stderr, "chunk %lld differs\n", (long long)k);
            return 1;
        }
    }
    printf("%lld chunks equal; bytes read through read calls: %lld plain, %lld mapped\n",
           (long long)b2_schunk_nchunks(plain), (long long)b2_schunk_bytes_read(plain),
           (long long)b2_schunk_bytes_read(mapped));
    rc = (int)b2_schunk_append_buffer(mapped, buf, 16);
    printf("append to the mapped frame: %s\n", b2_strerror(rc));
    if (rc != B2_ERR_READ_ONLY)
        return 1;
    b2_schunk_free(plain);
    b2_schunk_free(mapped);
    free(buf);
    free(back);
    printf("frame_mmap: OK\n");
    return 0;
}

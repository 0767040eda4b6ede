/* SPDX-License-Identifier: BSD-3-Clause */
/* frame_checksums.c: a frame file that stores an xxh64 checksum of each chunk
 * (b2_open_options.checksums = B2_CHECKSUMS_ON), read back with verification
 * (b2_open_options.verify), then damaged on purpose: one byte of chunk 2 is
 * changed, and both b2_schunk_checksum_state and a verifying read name chunk 2.
 *
 * c-blosc2 reads such files as any other (the checksums sit in a vlmetalayer it
 * ignores); doc/format/checksums.md gives the layout.
 *
 * Run: ./frame_checksums [path]   (default example_checksums.b2frame, overwritten). */
#include <b2_frame.h>
#include <b2_frame_experimental.h> /* b2_schunk_frame_info, _entry: where chunk 2 lies */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 50000
#define NCHUNKS 5

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "%s: %s (%s)\n", what, b2_strerror((int)rc), b2_last_error_message());
    return 1;
}

static int open_frame(const char *path, int verify, b2_schunk **s)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.verify = verify;
    return b2_schunk_open_with(&o, s);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example_checksums.b2frame";
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = sizeof(int32_t);
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.cparams = &cp;
    o.checksums = B2_CHECKSUMS_ON; /* each append hashes the chunk it stores */
    b2_schunk *s;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("create", rc);
    int32_t *buf = malloc(ITEMS * sizeof *buf);
    for (int k = 0; k < NCHUNKS; k++) {
        for (int i = 0; i < ITEMS; i++)
            buf[i] = k * ITEMS + i * 3;
        int64_t n = b2_schunk_append_buffer(s, buf, ITEMS * sizeof *buf);
        if (n < 0)
            return fail("append", n);
    }
    /* where chunk 2's stored bytes are, to damage them below */
    b2_frame_info fi;
    b2_frame_entry e;
    b2_schunk_frame_info(s, &fi);
    if ((rc = b2_schunk_frame_entry(s, 2, &e)) < 0)
        return fail("entry", rc);
    long where = (long)(fi.header_len + e.offset + e.stored_bytes / 2);
    b2_schunk_free(s);

    /* reopened with verification: every chunk reads */
    if ((rc = open_frame(path, 1, &s)) < 0)
        return fail("open", rc);
    for (int k = 0; k < NCHUNKS; k++)
        if ((rc = b2_schunk_decompress_chunk(s, k, buf, ITEMS * sizeof *buf)) < 0)
            return fail("verified read", rc);
    printf("%s: %d chunks, checksums %s, all verified\n", path, NCHUNKS,
           b2_schunk_has_checksums(s) ? "stored" : "missing");
    b2_schunk_free(s);

    /* one byte of chunk 2 changed, as a bad disk or a bad copy would */
    FILE *f = fopen(path, "r+b");
    if (!f || fseek(f, where, SEEK_SET) != 0)
        return fail("damage", B2_ERR_IO);
    int c = fgetc(f);
    fseek(f, where, SEEK_SET);
    fputc(c ^ 0x04, f);
    fclose(f);

    if ((rc = open_frame(path, 1, &s)) < 0)
        return fail("reopen", rc);
    int found = 0;
    for (int k = 0; k < NCHUNKS; k++) {
        int st = b2_schunk_checksum_state(s, k);
        printf("  chunk %d: %s\n", k, st == B2_CHECKSUM_OK ? "ok" : st == B2_CHECKSUM_STALE ? "stale"
                                                                    : b2_strerror(st));
        found += st == B2_ERR_CHECKSUM;
    }
    rc = b2_schunk_decompress_chunk(s, 2, buf, ITEMS * sizeof *buf);
    printf("verified read of chunk 2: %s\n  %s\n", b2_strerror(rc), b2_schunk_last_error(s));
    b2_schunk_free(s);
    free(buf);
    remove(path);
    /* the example fails unless exactly the damaged chunk was caught */
    if (found != 1 || rc != B2_ERR_CHECKSUM)
        return 1;
    printf("frame_checksums: OK\n");
    return 0;
}

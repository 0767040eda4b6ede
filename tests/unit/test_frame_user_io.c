/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames behind user I/O (b2_io) as an object store would hold them: a hash
 * map of 4 KiB pages. A frame is written there (appends, an update, a delete,
 * checksums), reread through the callbacks and compared with the same frame in
 * memory; a counting wrapper then shows that a read of a few items reads a few
 * blocks of one chunk, not the chunk or the frame, and what verification
 * (whole chunks) costs instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_frame.h"
#include "check.h"
#include "user_io.h"
#include "frame_open.h"

#define ITEMS 65536 /* int32 items per chunk: 256 KiB, 8 blocks of 32 KiB */
#define NCHUNKS 12

static void fill(int32_t *d, int c)
{
    uint32_t x = 2463534242u + (uint32_t)c;
    for (int i = 0; i < ITEMS; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        d[i] = c * ITEMS + i + (int32_t)(x & 0xff); /* compresses, not to nothing */
    }
}

static b2_schunk *open_io(const b2_io *io, void *user, int flags, const b2_cparams *cp, int verify)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.io = io;
    o.io_user = user;
    o.flags = flags;
    o.cparams = cp;
    o.verify = verify;
    if (flags & B2_OPEN_CREATE)
        o.checksums = B2_CHECKSUMS_ON;
    b2_schunk *s = NULL;
    int rc = b2_schunk_open_with(&o, &s);
    CHECK(rc == B2_OK, "open through user I/O: %d %s", rc, b2_last_error_message());
    return s;
}

/* Every item of a and b equal. */
static int same(b2_schunk *a, b2_schunk *b)
{
    int64_t n = b2_schunk_nbytes(a);
    if (n != b2_schunk_nbytes(b) || b2_schunk_nchunks(a) != b2_schunk_nchunks(b))
        return 0;
    uint8_t *x = malloc((size_t)n), *y = malloc((size_t)n);
    int ok = x && y && b2_schunk_get_items(a, 0, n / 4, x, (size_t)n) == n &&
             b2_schunk_get_items(b, 0, n / 4, y, (size_t)n) == n && !memcmp(x, y, (size_t)n);
    free(x);
    free(y);
    return ok;
}

int main(void)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    cp.codec = B2_CODEC_LZ4;
    cp.blocksize = 32768;
    test_pagemap *pm = test_pagemap_new();
    b2_schunk *s = open_io(&test_pagemap_io, pm, B2_OPEN_CREATE, &cp, 0);
    b2_schunk *ref = t_new(&cp);
    int32_t *d = malloc(ITEMS * sizeof *d);
    for (int c = 0; c < NCHUNKS; c++) {
        fill(d, c);
        CHECK(b2_schunk_append_buffer(s, d, ITEMS * 4) == c + 1, "append %d", c);
        b2_schunk_append_buffer(ref, d, ITEMS * 4);
    }
    uint8_t *chunk;
    int32_t cb;
    CHECK(b2_schunk_get_chunk(s, 9, &chunk, &cb) == B2_OK, "get chunk 9");
    CHECK(b2_schunk_update_chunk(s, 2, chunk, cb) == NCHUNKS, "update");
    b2_schunk_update_chunk(ref, 2, chunk, cb);
    free(chunk);
    CHECK(b2_schunk_delete_chunk(s, 5) == NCHUNKS - 1, "delete");
    b2_schunk_delete_chunk(ref, 5);
    CHECK(b2_schunk_storage(s) == B2_STORAGE_USER, "user storage");
    b2_schunk_free(s);
    printf("frame kept in %lld pages of 4 KiB\n", (long long)test_pagemap_pages(pm));

    /* reread through the page map: the same items, every checksum matching */
    s = open_io(&test_pagemap_io, pm, B2_OPEN_READONLY, NULL, 0);
    CHECK(same(ref, s), "the page-map frame reads as the memory one");
    for (int64_t i = 0; i < b2_schunk_nchunks(s); i++)
        CHECK(b2_schunk_checksum_state(s, i) == B2_CHECKSUM_OK, "chunk %lld checksum", (long long)i);
    int64_t flen = b2_schunk_frame_len(s);
    b2_schunk_free(s);

    /* counted: a few items of chunk 7 read a block, not the chunk */
    test_counted cnt = {&test_pagemap_io, pm, 0, 0, 0, 0};
    s = open_io(&test_counted_io, &cnt, B2_OPEN_READONLY, NULL, 0);
    int64_t opened = cnt.read_bytes, c7 = b2_schunk_chunk_cbytes(s, 7);
    int32_t few[5], want[5];
    fill(d, 8); /* chunk 7 after the delete was appended as chunk 8 */
    memcpy(want, d + 40000, sizeof want);
    cnt.read_bytes = 0;
    CHECK(b2_schunk_get_items(s, 7LL * ITEMS + 40000, 5, few, sizeof few) == (int64_t)sizeof few &&
              !memcmp(few, want, sizeof few), "5 items of chunk 7");
    int64_t partial = cnt.read_bytes;
    printf("open read %lld bytes of %lld; 5 items of chunk 7 read %lld bytes of its %lld\n",
           (long long)opened, (long long)flen, (long long)partial, (long long)c7);
    CHECK(partial > 0 && partial < c7 / 2, "a partial read stays partial: %lld of %lld bytes",
          (long long)partial, (long long)c7);
    cnt.read_bytes = 0;
    CHECK(b2_schunk_decompress_chunk(s, 7, d, ITEMS * 4) == ITEMS * 4, "whole chunk 7");
    CHECK(cnt.read_bytes >= c7, "a whole chunk reads its %lld bytes (%lld)", (long long)c7,
          (long long)cnt.read_bytes);
    b2_schunk_free(s);

    /* with verification a checksum covers the whole chunk, so it is read whole */
    cnt.read_bytes = 0;
    s = open_io(&test_counted_io, &cnt, B2_OPEN_READONLY, NULL, 1);
    cnt.read_bytes = 0;
    CHECK(b2_schunk_get_items(s, 7LL * ITEMS + 40000, 5, few, sizeof few) == (int64_t)sizeof few &&
              !memcmp(few, want, sizeof few), "5 verified items of chunk 7");
    printf("verified: 5 items of chunk 7 read %lld bytes\n", (long long)cnt.read_bytes);
    CHECK(cnt.read_bytes >= c7, "verified partial read reads the chunk");
    b2_schunk_free(s);

    b2_schunk_free(ref);
    free(d);
    test_pagemap_free(pm);
    return b2t_summary("frame user I/O");
}

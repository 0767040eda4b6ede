/* SPDX-License-Identifier: BSD-3-Clause */
/* chunk_roundtrip.c: compress one buffer into a Blosc2 chunk, inspect the chunk
 * header, decompress it whole, and decode a few items without the rest.
 *
 * Build: see README.md. Run: ./chunk_roundtrip (no arguments). Exits non-zero on
 * any failure. */
#include <b2_chunk.h>
#include <b2_chunk_experimental.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NITEMS (1000 * 1000)

int main(void)
{
    printf("libb2 %s\n", b2_version());

    /* Something compressible: a slowly growing int32 ramp. */
    size_t nbytes = NITEMS * sizeof(int32_t);
    int32_t *data = malloc(nbytes);
    int32_t *back = malloc(nbytes);
    size_t cap = b2_chunk_compress_bound(nbytes); /* always enough room */
    unsigned char *chunk = malloc(cap);
    if (!data || !back || !chunk) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int32_t i = 0; i < NITEMS; i++)
        data[i] = i / 3;

    /* Parameters start from the reference defaults; change what matters. The
     * shuffle filter (slot 5 by default) groups the bytes of each int32 by
     * significance, which is what makes integer ramps compress well. */
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = B2_CODEC_ZSTD;
    cp.clevel = 5;
    cp.typesize = sizeof(int32_t);
    cp.nthreads = 2; /* the chunk's bytes do not depend on this */

    b2_cctx *cctx = b2_cctx_new(&cp);
    if (!cctx) {
        fprintf(stderr, "bad parameters: %s\n", b2_strerror(b2_cparams_check(&cp)));
        return 1;
    }
    int cbytes = b2_chunk_compress(cctx, data, nbytes, chunk, cap);
    b2_cctx_free(cctx);
    if (cbytes < 0) {
        fprintf(stderr, "compress: %s\n", b2_strerror(cbytes));
        return 1;
    }
    printf("compressed %zu bytes into %d (ratio %.1fx) with %s\n", nbytes, cbytes,
           (double)nbytes / cbytes, b2_codec_name(cp.codec));

    /* The header alone says how to decode the chunk: no side information needed. */
    b2_chunk_info info;
    int rc = b2_chunk_get_info(chunk, (size_t)cbytes, &info);
    if (rc < 0) {
        fprintf(stderr, "get_info: %s\n", b2_strerror(rc));
        return 1;
    }
    printf("header: nbytes %d, typesize %d, blocksize %d, %d blocks, codec %s\n",
           (int)info.nbytes, info.typesize, (int)info.blocksize, (int)info.nblocks,
           b2_codec_name(info.compcode));

    /* Whole decompression. */
    b2_dctx *dctx = b2_dctx_new(2);
    if (!dctx) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    rc = b2_chunk_decompress(dctx, chunk, (size_t)cbytes, back, nbytes);
    if (rc < 0 || (size_t)rc != nbytes || memcmp(back, data, nbytes) != 0) {
        fprintf(stderr, "decompress: %s\n", rc < 0 ? b2_strerror(rc) : "wrong content");
        return 1;
    }
    printf("decompressed %d bytes: identical\n", rc);

    /* getitem decodes only the blocks holding the requested items. */
    int64_t before = b2_dctx_blocks_decoded(dctx);
    int32_t items[10];
    rc = b2_chunk_getitem(dctx, chunk, (size_t)cbytes, 500000, 10, items, sizeof items);
    if (rc < 0 || memcmp(items, data + 500000, sizeof items) != 0) {
        fprintf(stderr, "getitem: %s\n", rc < 0 ? b2_strerror(rc) : "wrong content");
        return 1;
    }
    printf("getitem: items 500000..500009 = %d..%d, %lld block(s) decoded\n", (int)items[0],
           (int)items[9], (long long)(b2_dctx_blocks_decoded(dctx) - before));

    /* Hostile input is refused with an error code, never a crash. */
    chunk[12] ^= 0xff; /* corrupt cbytes in the header */
    rc = b2_chunk_decompress(dctx, chunk, (size_t)cbytes, back, nbytes);
    printf("corrupted header: %s\n", rc < 0 ? b2_strerror(rc) : "accepted?!");
    if (rc >= 0)
        return 1;

    b2_dctx_free(dctx);
    free(chunk);
    free(back);
    free(data);
    printf("chunk_roundtrip: OK\n");
    return 0;
}

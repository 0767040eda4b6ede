/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 2.2's rules for a filter callback, checked by calling the dynamic
 * plugin's filter function directly (no HDF5 release on this machine has the
 * checks; HDFGroup/hdf5 PR #6184):
 *  1. the size returned never exceeds *buf_size after the call (when the
 *     filter replaces the buffer, the new *buf_size must hold what it returns);
 *  2. a decompressed chunk is exactly the chunk's size (typesize x chunk
 *     items), or the call fails (returns 0): checked for b2nd frames, whose
 *     shape must be the chunk's; a plain frame decodes to the size it declares
 *     (see bad_calls for why), within *buf_size.
 * Cases: chunk sizes that are no multiple of anything (1, 3, 17, 4097 bytes),
 * HDF5 buffers larger than the data (*buf_size = nbytes + 1, + 7, + 4096),
 * compressible and incompressible data, optional and mandatory; decompression
 * of a stored size smaller than its buffer; and the error paths: *buf_size below
 * nbytes, nbytes 0, a frame cut short, bytes that are no frame, and frames
 * whose chunk is not the size the dataset's cd_values say. Every failure must
 * return 0 and leave HDF5 a buffer it can free. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "check.h"
#include "plugin_filter.h"


static filter_fn filter;

/* Compressible (runs of a slow ramp) or incompressible (xorshift) bytes. */
static void fill(uint8_t *p, size_t n, int random, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[i] = random ? (uint8_t)x : (uint8_t)((i / 64 + seed) & 0x7f);
    }
}

/* cd_values as set_local writes them: 7 values for rank 1 (a plain frame), 8 +
 * rank for b2nd chunks. */
static size_t make_cd(unsigned *cd, int rank, const unsigned *dims, unsigned typesize,
                      unsigned codec, size_t *nbytes)
{
    size_t items = 1, ncd = rank >= 2 ? 8 + (size_t)rank : 7;
    unsigned v[8] = {1, 0, typesize, 0, 5, 1, codec, (unsigned)rank};
    memcpy(cd, v, sizeof v);
    for (int i = 0; i < rank; i++) {
        items *= dims[i];
        if (rank >= 2)
            cd[8 + i] = dims[i];
    }
    *nbytes = items * typesize;
    cd[3] = (unsigned)*nbytes;
    return ncd;
}

/* One chunk through both directions with an HDF5 buffer of nbytes + extra. */
static void roundtrip(int rank, const unsigned *dims, unsigned typesize, unsigned codec,
                      int random, unsigned flags, size_t extra)
{
    unsigned cd[24];
    size_t nbytes;
    size_t ncd = make_cd(cd, rank, dims, typesize, codec, &nbytes);
    char what[160];
    snprintf(what, sizeof what, "rank %d, %zu bytes, typesize %u, codec %u, %s, %s, +%zu", rank,
             nbytes, typesize, codec, random ? "random" : "ramp",
             flags & H5Z_FLAG_OPTIONAL ? "optional" : "mandatory", extra);
    uint8_t *orig = malloc(nbytes);
    size_t buf_size = nbytes + extra;
    void *buf = H5allocate_memory(buf_size, 0);
    CHECK(orig && buf, "%s: memory", what);
    if (!orig || !buf)
        return;
    fill(orig, nbytes, random, (unsigned)(nbytes + extra));
    memcpy(buf, orig, nbytes);
    size_t clen = filter(flags, ncd, cd, nbytes, &buf_size, &buf);
    CHECK(buf != NULL && clen <= buf_size, "%s: compress returned %zu, *buf_size %zu", what, clen,
          buf_size);
    /* every chunk becomes a frame, incompressible ones and chunks smaller than a
     * frame's header too (never declined: doc/format/hdf5-filter.md §3) */
    CHECK(clen > 0, "%s: compression declined", what);
    if (clen > 0) {
        /* HDF5 stores clen bytes and reads them back into a buffer of exactly
         * that size, or (extra) a larger one */
        size_t rsize = clen + extra;
        void *rbuf = H5allocate_memory(rsize, 0);
        memcpy(rbuf, buf, clen);
        size_t dlen = filter(flags | H5Z_FLAG_REVERSE, ncd, cd, clen, &rsize, &rbuf);
        CHECK(dlen == nbytes && dlen <= rsize && rbuf && !memcmp(rbuf, orig, nbytes),
              "%s: decompress returned %zu of %zu, *buf_size %zu", what, dlen, nbytes, rsize);
        H5free_memory(rbuf);
    }
    H5free_memory(buf);
    free(orig);
}

static void good_calls(void)
{
    static const unsigned sizes1[] = {1, 3, 17, 4097, 65537};
    static const size_t extras[] = {0, 1, 7, 4096};
    static const unsigned codecs[] = {0, 1, 5};
    static const unsigned flags[] = {H5Z_FLAG_OPTIONAL, H5Z_FLAG_MANDATORY};
    const unsigned d2[2] = {33, 17}, d3[3] = {5, 7, 9};
    long n = 0;
    for (size_t s = 0; s < sizeof sizes1 / sizeof *sizes1; s++)
        for (size_t e = 0; e < sizeof extras / sizeof *extras; e++)
            for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++)
                for (int f = 0; f < 2; f++)
                    for (int random = 0; random < 2; random++) {
                        roundtrip(1, &sizes1[s], 1, codecs[c], random, flags[f], extras[e]);
                        roundtrip(2, d2, 4, codecs[c], random, flags[f], extras[e]);
                        roundtrip(3, d3, 8, codecs[c], random, flags[f], extras[e]);
                        n += 3;
                    }
    printf("%ld chunks through both directions\n", n);
}

/* A failing call returns 0 and leaves a buffer HDF5 can free. */
static void expect_fail(const char *what, unsigned flags, size_t ncd, const unsigned *cd,
                        size_t nbytes, size_t *buf_size, void **buf)
{
    size_t r = filter(flags, ncd, cd, nbytes, buf_size, buf);
    CHECK(r == 0 && *buf != NULL, "%s: returned %zu (want 0 and a buffer)", what, r);
    H5Eclear2(H5E_DEFAULT);
}

/* A compressed chunk of the given shape, in HDF5 memory. */
static void *frame_of(int rank, const unsigned *dims, size_t *clen)
{
    unsigned cd[24];
    size_t nbytes;
    size_t ncd = make_cd(cd, rank, dims, 4, 1, &nbytes);
    size_t bs = nbytes;
    void *buf = H5allocate_memory(nbytes, 0);
    fill(buf, nbytes, 0, 3);
    *clen = filter(H5Z_FLAG_MANDATORY, ncd, cd, nbytes, &bs, &buf);
    CHECK(*clen > 0, "frame of rank %d", rank);
    return buf;
}

static void bad_calls(void)
{
    unsigned cd[24];
    size_t nbytes, clen;
    const unsigned d1 = 1000, d2[2] = {40, 25}, d2big[2] = {40, 26};
    size_t ncd = make_cd(cd, 1, &d1, 4, 1, &nbytes);
    size_t bs = nbytes - 1;
    void *buf = H5allocate_memory(nbytes, 0);
    fill(buf, nbytes, 0, 1);
    expect_fail("*buf_size below nbytes", H5Z_FLAG_MANDATORY, ncd, cd, nbytes, &bs, &buf);
    bs = nbytes;
    expect_fail("nbytes 0", H5Z_FLAG_MANDATORY, ncd, cd, 0, &bs, &buf);
    expect_fail("no frame", H5Z_FLAG_REVERSE, ncd, cd, nbytes, &bs, &buf);
    H5free_memory(buf);

    buf = frame_of(1, &d1, &clen);
    bs = clen;
    expect_fail("frame cut short", H5Z_FLAG_REVERSE, ncd, cd, clen - 5, &bs, &buf);
    H5free_memory(buf);

    /* rule 2. A plain frame (rank 1) decodes to the size it declares: filters
     * before ours in the pipeline (scaleoffset, nbit, fletcher32 placed first)
     * legitimately make it differ from cd_values[3], and the filter callback
     * cannot see the pipeline. HDF5 2.2 checks the pipeline's final size
     * itself. What matters here is rule 1: the returned size fits *buf_size. */
    const unsigned d1big = 2000;
    buf = frame_of(1, &d1, &clen);
    bs = clen;
    ncd = make_cd(cd, 1, &d1big, 4, 1, &nbytes);
    size_t r = filter(H5Z_FLAG_REVERSE, ncd, cd, clen, &bs, &buf);
    CHECK(r == 4000 && r <= bs && buf, "plain frame of 1000 int32 read with cd_values[3] = 8000: "
          "returned %zu, *buf_size %zu (want the frame's 4000 within *buf_size)", r, bs);
    H5free_memory(buf);
    /* a b2nd chunk has its shape in the frame: 40x25 read as 40x26 fails */
    buf = frame_of(2, d2, &clen);
    bs = clen;
    ncd = make_cd(cd, 2, d2big, 4, 1, &nbytes);
    expect_fail("b2nd frame of another chunk shape", H5Z_FLAG_REVERSE, ncd, cd, clen, &bs, &buf);
    H5free_memory(buf);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: test_h5bufsize path/to/libH5Zb2.so\n");
        return 2;
    }
    CHECK(H5open() >= 0, "H5open");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the failing calls' messages */
    filter = plugin_filter(argv[1]);
    if (filter) {
        good_calls();
        bad_calls();
    }
    return b2t_summary("test_h5bufsize");
}

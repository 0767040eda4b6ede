/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: compression round trips with parameters drawn from the input.
 *   byte 0      codec: blosclz, lz4, lz4hc, zlib, zstd, ndlz, zfp_acc, zfp_prec, zfp_rate
 *   byte 1      clevel (mod 10)        byte 2  the codec's meta byte
 *   bytes 3-8   filter slots 0-5: none, shuffle, bitshuffle, delta, trunc_prec,
 *               ndcell, ndmean, bytedelta, int_trunc, bytedelta_buggy (mod 10)
 *   bytes 9-14  the filters' meta bytes
 *   byte 15     typesize: below 128 one of 1, 2, 4, 8; 255 is 300; else 1..127
 *   bytes 16-17 blocksize (0: automatic)
 *   byte 18     bits 0-1 splitmode, 2: two threads, 3: dictionary, 4: a block
 *               geometry (bytes 19-23: ndim 1..4, extents 1..16; the blocksize is
 *               then the block's bytes), 5-7: rows of the strided passes
 *   the rest    the data
 * The chunk made must decode (b2_chunk_decompress) to the data exactly unless a
 * lossy step is in the pipeline (zfp, trunc_prec, ndmean, int_trunc), and the
 * other readers must agree with that decoding: b2_chunk_getitem of a range and
 * b2_chunk_decompress_rows into strided rows. b2_chunk_compress_rows from the
 * data laid out in strided rows must give the bytes b2_chunk_compress gives. */
#include <string.h>

#include "fuzz_common.h"
#include "b2_chunk_experimental.h"

static const int codecs[] = {B2_CODEC_BLOSCLZ, B2_CODEC_LZ4,      B2_CODEC_LZ4HC,
                             B2_CODEC_ZLIB,    B2_CODEC_ZSTD,     B2_CODEC_NDLZ,
                             B2_CODEC_ZFP_ACC, B2_CODEC_ZFP_PREC, B2_CODEC_ZFP_RATE};
static const int filters[] = {B2_FILTER_NONE,      B2_FILTER_SHUFFLE,   B2_FILTER_BITSHUFFLE,
                              B2_FILTER_DELTA,     B2_FILTER_TRUNC_PREC, B2_FILTER_NDCELL,
                              B2_FILTER_NDMEAN,    B2_FILTER_BYTEDELTA, B2_FILTER_INT_TRUNC,
                              B2_FILTER_BYTEDELTA_BUGGY};

/* Blocks as rows of `run` bytes `gap` bytes apart, each block in its own slot
 * of buf: where compress_rows reads and decompress_rows writes. */
typedef struct rows_ud {
    int32_t blocksize, nbytes;
    int64_t run, gap, slot;
    uint8_t *buf;
} rows_ud;

static int64_t block_len(const rows_ud *u, int32_t b)
{
    int64_t left = (int64_t)u->nbytes - (int64_t)b * u->blocksize;
    return left < u->blocksize ? left : u->blocksize;
}

static int rows_fn(void *ud, int32_t block, b2_block_rows *r)
{
    const rows_ud *u = ud;
    int64_t len = block_len(u, block), run = u->run < len ? u->run : len;
    r->nd = 1;
    r->cnt[0] = run ? len / run : 0;
    r->sstr[0] = run;
    r->dstr[0] = run + u->gap;
    r->run = run;
    r->user = u->buf + (int64_t)block * u->slot;
    return B2_OK;
}

/* Copy between flat data and the rows (to_rows: flat -> rows); bytes of a block
 * past its last whole row are left alone (flat side) or never read. */
static void rows_copy(const rows_ud *u, uint8_t *flat, int to_rows)
{
    int32_t nblocks = (int32_t)((u->nbytes + (int64_t)u->blocksize - 1) / u->blocksize);
    for (int32_t b = 0; b < nblocks; b++) {
        int64_t len = block_len(u, b), run = u->run < len ? u->run : len;
        for (int64_t i = 0; run && i < len / run; i++) {
            uint8_t *f = flat + (int64_t)b * u->blocksize + i * run;
            uint8_t *r = u->buf + (int64_t)b * u->slot + i * (run + u->gap);
            memcpy(to_rows ? r : f, to_rows ? f : r, (size_t)run);
        }
    }
}

/* Zero the bytes of each block that no row covers (what compress_rows reads as zeros). */
static void zero_uncovered(const rows_ud *u, uint8_t *flat)
{
    int32_t nblocks = (int32_t)((u->nbytes + (int64_t)u->blocksize - 1) / u->blocksize);
    for (int32_t b = 0; b < nblocks; b++) {
        int64_t len = block_len(u, b), run = u->run < len ? u->run : len;
        int64_t covered = run ? len / run * run : 0;
        memset(flat + (int64_t)b * u->blocksize + covered, 0, (size_t)(len - covered));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 24)
        return 0;
    fuzz_in in = {data, size};
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = codecs[fuzz_take(&in, 1) % 9];
    p.clevel = (int)(fuzz_take(&in, 1) % 10);
    p.codec_meta = (uint8_t)fuzz_take(&in, 1);
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        p.filters[i] = (uint8_t)filters[fuzz_take(&in, 1) % 10];
    int lossy = fuzz_lossy(&p);
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        p.filters_meta[i] = (uint8_t)fuzz_take(&in, 1);
    unsigned t = (unsigned)fuzz_take(&in, 1);
    static const int small[4] = {1, 2, 4, 8};
    p.typesize = t < 128 ? small[t & 3] : t == 255 ? 300 : (int32_t)(t & 127) + 1;
    p.blocksize = (int32_t)fuzz_take(&in, 2);
    unsigned opt = (unsigned)fuzz_take(&in, 1);
    p.splitmode = 1 + (int)(opt & 3);
    p.nthreads = opt & 4 ? 2 : 1;
    p.use_dict = (opt & 8) && (p.codec == B2_CODEC_LZ4 || p.codec == B2_CODEC_LZ4HC ||
                               p.codec == B2_CODEC_ZSTD);
    unsigned g[5];
    for (int i = 0; i < 5; i++)
        g[i] = (unsigned)fuzz_take(&in, 1);
    if (opt & 16) {
        p.geometry.ndim = 1 + (int)(g[0] & 3);
        int64_t bytes = p.typesize;
        for (int d = 0; d < p.geometry.ndim; d++) {
            p.geometry.blockshape[d] = 1 + (int32_t)(g[1 + d] & 15);
            bytes *= p.geometry.blockshape[d];
        }
        p.blocksize = (int32_t)bytes;
    }
    size_t n = in.n;
    b2_cctx *cc = b2_cctx_new(&p);
    if (!cc)
        return 0;
    size_t cap = b2_chunk_compress_bound(n);
    uint8_t *chunk = malloc(cap), *chunk2 = malloc(cap), *out = fuzz_calloc(n),
            *part = fuzz_calloc(n), *flat = fuzz_malloc(n);
    b2_dctx *d = b2_dctx_new(p.nthreads);
    int cb = chunk && chunk2 && out && part && flat && d ? b2_chunk_compress(cc, in.p, n, chunk, cap)
                                                          : -1;
    if (cb < 0)
        goto done;
    b2_chunk_info info;
    FUZZ_CHECK(b2_chunk_get_info(chunk, (size_t)cb, &info) >= 0 && info.cbytes == cb &&
                   info.nbytes == (int32_t)n,
               "the header of a chunk we made");
    b2_dctx_set_geometry(d, &p.geometry);
    int rc = b2_chunk_decompress(d, chunk, (size_t)cb, out, n);
    FUZZ_CHECK(rc == (int)n, "a chunk we made does not decode");
    if (!lossy)
        FUZZ_CHECK(!memcmp(out, in.p, n), "a chunk we made decodes to other data");

    /* getitem of a range: the same bytes as the whole decode */
    if (info.typesize > 0 && n >= (size_t)info.typesize) {
        int64_t items = (int64_t)n / info.typesize;
        int64_t a = (int64_t)(g[2] * 131u + g[3]) % (items + 1);
        int64_t k = (int64_t)(g[4] * 257u + g[1]) % (items - a + 1);
        rc = b2_chunk_getitem(d, chunk, (size_t)cb, a, k, part, n);
        FUZZ_CHECK(rc == k * info.typesize && !memcmp(part, out + a * info.typesize, (size_t)rc),
                   "getitem differs from the whole chunk");
    }

    /* the strided passes: rows of run bytes, gap bytes apart */
    if (n > 0 && info.eff_blocksize > 0 && !info.vlblocks) {
        rows_ud u = {info.eff_blocksize, (int32_t)n, 0, 0, 0, NULL};
        unsigned rs = opt >> 5;
        u.run = rs == 0 ? info.eff_blocksize : rs & 4 ? (int64_t)p.typesize * rs : rs * 3 + 1;
        u.gap = (g[4] >> 4) % (u.run + 1);
        u.slot = (info.eff_blocksize + u.run - 1) / u.run * (u.run + u.gap);
        int32_t nblocks = info.nblocks;
        if (u.slot * nblocks <= 4 * (int64_t)n + 4096)
            u.buf = fuzz_calloc((size_t)(u.slot * nblocks));
        if (u.buf) {
            if (b2_chunk_decompress_rows(d, chunk, (size_t)cb, NULL, 0, rows_fn, &u) >= 0) {
                memcpy(flat, out, n);
                rows_copy(&u, flat, 0);
                FUZZ_CHECK(!memcmp(flat, out, n), "decompress_rows differs from the whole chunk");
            }
            /* compress_rows reads the data from the rows (uncovered bytes: zeros) */
            memset(u.buf, 0, (size_t)(u.slot * nblocks));
            memcpy(flat, in.p, n);
            zero_uncovered(&u, flat);
            rows_copy(&u, flat, 1);
            int cb1 = b2_chunk_compress(cc, flat, n, chunk2, cap);
            int cb2 = cb1 >= 0 ? b2_chunk_compress_rows(cc, n, rows_fn, &u, chunk, cap) : -1;
            if (cb1 >= 0)
                FUZZ_CHECK(cb2 == cb1 && !memcmp(chunk, chunk2, (size_t)cb1),
                           "compress_rows differs from compress");
            free(u.buf);
        }
    }
done:
    b2_dctx_free(d);
    b2_cctx_free(cc);
    free(chunk);
    free(chunk2);
    free(out);
    free(part);
    free(flat);
    return 0;
}

/* Seeds: float data through each codec, with a shuffle, a geometry for the
 * n-dimensional ones and the plugin filters in turn. */
int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    (void)argc, (void)argv;
    int n = 0;
    uint8_t in[24 + 4096];
    for (int i = 0; i < 1024; i++) {
        float v = (float)(i % 61) * 0.75f + (float)(i / 64);
        memcpy(in + 24 + 4 * i, &v, 4);
    }
    for (int c = 0; c < 9; c++) {
        for (int f = 0; f < 10; f++) {
            memset(in, 0, 24);
            in[0] = (uint8_t)c;
            in[1] = 5;
            in[2] = c == 5 ? 4 : c >= 6 ? 20 : 0;
            in[3 + 4] = (uint8_t)f;     /* slot 4: the filter under test */
            in[3 + 5] = 1;              /* slot 5: shuffle */
            in[9 + 4] = f == 5 || f == 6 ? 2 : f == 8 ? 0xfc : f == 4 ? 10 : 0;
            in[15] = c == 5 ? 0 : 2;    /* typesize 1 (ndlz) or 4 */
            in[18] = 16 | 1 << 5;       /* a geometry; rows of 4 bytes */
            in[19] = 1;                 /* 2-D */
            in[20] = 7;                 /* 8 x 16 items */
            in[21] = 15;
            char name[32];
            snprintf(name, sizeof name, "c%d_f%d", c, f);
            n += fuzz_write_seed(outdir, name, in, sizeof in);
        }
    }
    return n;
}

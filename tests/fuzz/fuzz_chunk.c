/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: one chunk. b2_chunk_get_info, b2_chunk_decompress with 1 and 2
 * threads (same bytes), VL blocks, b2_chunk_getitem of a range (the same bytes
 * as that part of the whole), b2_chunk_decompress_rows into strided rows (the
 * same bytes again). The input's last 9 bytes (a chunk may be followed by
 * more bytes than its cbytes) choose the block geometry (byte 0), the rows (1:
 * run, 2: gap) and the range (3-5: start, 6-8: count). The geometry is what
 * the n-dimensional plugins (ndcell, ndmean, ndlz, zfp) need and a chunk read
 * on its own lacks, drawn from the blocksize (fuzz_geometry). Seeds: the reference chunks, plus the chunks of the plugin
 * b2nd vectors each with the 9 bytes naming its own geometry (fuzz_make_seeds). */
#include <string.h>

#include "b2_nd.h"
#include "fuzz_common.h"
#include "b2_chunk_experimental.h"

/* Each block as rows of `run` bytes, `gap` bytes apart, in its own slot of rbuf. */
typedef struct rows_ud {
    const b2_chunk_info *info;
    int64_t run, gap, slot;
    uint8_t *rbuf;
} rows_ud;

static int32_t block_len(const b2_chunk_info *info, int32_t b)
{
    if (b == info->nblocks - 1 && info->leftover)
        return info->leftover;
    return info->eff_blocksize;
}

static int rows_fn(void *ud, int32_t block, b2_block_rows *r)
{
    const rows_ud *u = ud;
    int64_t len = block_len(u->info, block), run = u->run < len ? u->run : len;
    r->nd = 1;
    r->cnt[0] = run ? len / run : 0;
    r->sstr[0] = run;
    r->dstr[0] = run + u->gap;
    r->run = run;
    r->user = u->rbuf + (int64_t)block * u->slot;
    return B2_OK;
}

/* Set the geometry sel names for blocks of the chunk's blocksize. */
static void set_geometry(b2_dctx *d, const b2_chunk_info *info, unsigned sel)
{
    b2_block_geometry g;
    fuzz_geometry(info->eff_blocksize / (info->typesize ? info->typesize : 1), sel, &g);
    b2_dctx_set_geometry(d, &g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    b2_chunk_info info;
    if (b2_chunk_get_info(data, size, &info) < 0 || (uint32_t)info.nbytes > FUZZ_MAX_OUTPUT)
        return 0;
    const uint8_t *tail = size >= 9 ? data + size - 9 : NULL;
    unsigned gsel = tail ? tail[0] : 0;
    size_t cap = (size_t)info.nbytes;
    uint8_t *out = fuzz_malloc(cap), *out2 = fuzz_malloc(cap);
    if (!out || !out2)
        goto done;
    int full = -1;
    /* contexts live across inputs, as an application's do (and threads are not
     * started for every input) */
    static b2_dctx *ctx[3];
    for (int t = 1; t <= 2; t++)
        if (!ctx[t] && !(ctx[t] = b2_dctx_new(t)))
            goto done;
    for (int t = 1; t <= 2; t++) {
        b2_dctx *d = ctx[t];
        set_geometry(d, &info, gsel);
        uint8_t *o = t == 1 ? out : out2;
        memset(o, 0, cap);
        int rc = b2_chunk_decompress(d, data, size, o, (size_t)info.nbytes);
        if (t == 1)
            full = rc;
        else if (rc >= 0 && full >= 0)
            FUZZ_CHECK(rc == full && !memcmp(out, out2, (size_t)rc), "2 threads decode otherwise");
        if (info.vlblocks)
            for (int32_t j = 0; j < info.nblocks && j < 64; j++)
                b2_chunk_vl_get_block(d, data, size, j, out2, (size_t)info.nbytes);
    }
    b2_dctx *d = ctx[1];
    if (tail && info.typesize > 0) {
        int64_t items = info.nbytes / info.typesize;
        int64_t start = items ? (int64_t)(fuzz_le(tail + 3, 3) % (uint64_t)(items + 1)) : 0;
        int64_t n = items ? (int64_t)(fuzz_le(tail + 6, 3) % (uint64_t)(items - start + 1)) : 0;
        int rc = b2_chunk_getitem(d, data, size, start, n, out2, (size_t)info.nbytes);
        if (rc >= 0 && full >= 0 && info.special != B2_SPECIAL_UNINIT)
            FUZZ_CHECK(rc == n * info.typesize &&
                           !memcmp(out2, out + start * info.typesize, (size_t)rc),
                       "getitem differs from the whole chunk");
    }
    if (!info.vlblocks && info.nblocks > 0 && info.eff_blocksize > 0) {
        /* rows of run bytes (a multiple of the typesize when tail[1] says so,
         * which lets the decoder unshuffle straight into them), gap bytes apart */
        unsigned rs = tail ? tail[1] : 0, gs = tail ? tail[2] : 0;
        int64_t run = (rs & 0x80) ? (int64_t)info.typesize * (1 + (rs & 7)) : 1 + (rs & 0x7f);
        if (rs == 0)
            run = info.eff_blocksize; /* the whole block in one row */
        int64_t gap = gs % (run + 1);
        int64_t rows = (info.eff_blocksize + run - 1) / run;
        rows_ud u = {&info, run, gap, rows * (run + gap), NULL};
        if (u.slot * info.nblocks <= 2 * (int64_t)FUZZ_MAX_OUTPUT && info.nbytes / run <= (1 << 16))
            u.rbuf = fuzz_calloc((size_t)(u.slot * info.nblocks));
        if (u.rbuf && b2_chunk_decompress_rows(d, data, size, NULL, 0, rows_fn, &u) >= 0 &&
            full >= 0 && info.special != B2_SPECIAL_UNINIT) {
            for (int32_t b = 0; b < info.nblocks; b++) {
                int64_t len = block_len(&info, b), r = run < len ? run : len;
                for (int64_t i = 0; r && i < len / r; i++)
                    FUZZ_CHECK(!memcmp(u.rbuf + b * u.slot + i * (r + gap),
                                       out + (int64_t)b * info.eff_blocksize + i * r, (size_t)r),
                               "decompress_rows differs from the whole chunk");
            }
        }
        free(u.rbuf);
    }
done:
    free(out);
    free(out2);
    return 0;
}

/* Seeds: chunk 0 of each b2nd array (the plugin vectors), followed by the 9
 * bytes whose geometry selector decodes it as the array does. */
static void seed_from_array(const char *path, void *ud)
{
    fuzz_seeds *out = ud;
    b2_nd_array *a = NULL;
    if (b2_nd_open(path, B2_OPEN_READONLY, &a) < 0)
        return;
    b2_schunk *s = b2_nd_schunk(a);
    uint8_t *chunk = NULL, *want = NULL, *got = NULL, *seed = NULL;
    int32_t cb = 0;
    int nb = b2_schunk_chunk_nbytes(s, 0);
    b2_chunk_info info;
    if (nb > 0 && b2_schunk_get_chunk(s, 0, &chunk, &cb) >= 0 &&
        (want = malloc((size_t)nb)) && (got = malloc((size_t)nb)) &&
        (seed = calloc(1, (size_t)cb + 9)) &&
        b2_schunk_decompress_chunk(s, 0, want, (size_t)nb) == nb &&
        b2_chunk_get_info(chunk, (size_t)cb, &info) >= 0) {
        memcpy(seed, chunk, (size_t)cb);
        for (unsigned sel = 0; sel < 256; sel++) {
            b2_dctx *d = b2_dctx_new(1);
            set_geometry(d, &info, sel);
            int rc = b2_chunk_decompress(d, chunk, (size_t)cb, got, (size_t)nb);
            b2_dctx_free(d);
            if (rc == nb && !memcmp(got, want, (size_t)nb)) {
                seed[cb] = (uint8_t)sel;
                break;
            }
        }
        seed[cb + 1] = 0x81; /* rows of 2 items */
        seed[cb + 3] = 3;    /* getitem from item 3 */
        seed[cb + 6] = 7;    /* of up to 7 items */
        char name[256];
        snprintf(name, sizeof name, "%s.chunk0", fuzz_basename(path));
        out->n += fuzz_write_seed(out->outdir, name, seed, (size_t)cb + 9);
    }
    free(seed);
    free(chunk);
    free(want);
    free(got);
    b2_nd_free(a);
}

int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    return fuzz_seeds_from(outdir, argc, argv, seed_from_array);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* ndcell (32) and ndmean (33). The reference's b2nd vectors using them
 * ($B2_INTEROP_DIR/plugins, n00..n03) decode to their sha256 through the b2nd
 * layer and through the frame layer alone (chunks placed into the array here),
 * each chunk also on its own: refused without the geometry, equal with it
 * (test_plugin_filters.c re-encodes them to the reference's files). By hand: both filters against a naive model on random blocks of ranks 1-4
 * (partial cells, sides past an extent, ndmean's skewed origins), round trips,
 * the refusals (no geometry, wrong block size, bad meta or typesize), cparams
 * checked before a geometry is known, chunks decoded on their own with
 * b2_dctx_set_geometry, and ndmean before delta. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filters.h"
#include "b2_chunk.h"
#include "b2_common.h"
#include "b2_nd.h"
#include "manifest.h"
#include "sha256.h"
#include "check.h"
#include "frame_open.h"
#include "b2_chunk_experimental.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 20);
}

/* C-order item index of coordinates x in a block of shape bs. */
static int64_t ravel(int nd, const int32_t *bs, const int64_t *x)
{
    int64_t i = 0;
    for (int d = 0; d < nd; d++)
        i = i * bs[d] + x[d];
    return i;
}

/* Coordinates of index i in a grid of shape g. */
static void unravel(int nd, const int64_t *g, int64_t i, int64_t *x)
{
    for (int d = nd - 1; d >= 0; d--) {
        x[d] = i % g[d];
        i /= g[d];
    }
}

/* Item order of the cell walk, straight from the definition: cells in C order
 * of the grid, items in C order of the cell. side[d] is the tiling side,
 * hop the origin step (ndmean's skew). order[k] = source item of output k;
 * cellof[k] = cell number. Returns the item count written. */
static int64_t model_order(const b2_block_geometry *g, const int64_t *side, int64_t hop,
                           int64_t *order, int64_t *cellof)
{
    int nd = g->ndim;
    int64_t grid[B2_GEOM_MAX_DIM], ncells = 1, k = 0;
    for (int d = 0; d < nd; d++) {
        grid[d] = (g->blockshape[d] + side[d] - 1) / side[d];
        ncells *= grid[d];
    }
    for (int64_t c = 0; c < ncells; c++) {
        int64_t at[B2_GEOM_MAX_DIM], ext[B2_GEOM_MAX_DIM], n = 1;
        unravel(nd, grid, c, at);
        for (int d = 0; d < nd; d++) {
            ext[d] = at[d] == grid[d] - 1 ? g->blockshape[d] - at[d] * side[d] : side[d];
            n *= ext[d];
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t x[B2_GEOM_MAX_DIM];
            unravel(nd, ext, i, x);
            for (int d = 0; d < nd; d++)
                x[d] += at[d] * hop;
            cellof[k] = c;
            order[k++] = ravel(nd, g->blockshape, x);
        }
    }
    return k;
}

static int64_t block_items(const b2_block_geometry *g)
{
    int64_t n = 1;
    for (int d = 0; d < g->ndim; d++)
        n *= g->blockshape[d];
    return n;
}

static void random_geometry(b2_block_geometry *g, int nd, int maxext)
{
    memset(g, 0, sizeof *g);
    g->ndim = nd;
    for (int d = 0; d < nd; d++)
        g->blockshape[d] = 1 + (int32_t)(rnd() % (uint32_t)maxext);
}

static void test_ndcell_model(void)
{
    int tried = 0, bad = 0;
    for (int t = 0; t < 400; t++) {
        int nd = 1 + t % 4, ts = (int[]){1, 2, 3, 4, 8}[rnd() % 5];
        b2_block_geometry g;
        random_geometry(&g, nd, nd == 1 ? 200 : nd == 2 ? 30 : 9);
        int side = 1 + (int)(rnd() % 6);
        int64_t items = block_items(&g), cell = 1;
        for (int d = 0; d < nd; d++)
            cell *= side;
        int32_t n = (int32_t)(items * ts);
        uint8_t *in = malloc((size_t)n), *f = malloc((size_t)n), *b = malloc((size_t)n);
        int64_t *order = malloc((size_t)items * sizeof *order);
        int64_t *cellof = malloc((size_t)items * sizeof *cellof);
        for (int32_t i = 0; i < n; i++)
            in[i] = (uint8_t)rnd();
        int rc = b2_ndcell_forward((int8_t)side, ts, &g, n, in, f);
        if (cell > items) {
            /* the reference refuses blocks smaller than one full cell */
            CHECK(rc == B2_ERR_FILTER, "ndcell side %d, %lld items: %d", side, (long long)items,
                  rc);
        } else {
            tried++;
            int64_t sides[B2_GEOM_MAX_DIM];
            for (int d = 0; d < nd; d++)
                sides[d] = side;
            int ok = rc == 0 && model_order(&g, sides, side, order, cellof) == items;
            for (int64_t k = 0; ok && k < items; k++)
                ok = !memcmp(f + k * ts, in + order[k] * ts, (size_t)ts);
            memset(b, 0xa5, (size_t)n);
            ok = ok && b2_ndcell_backward((int8_t)side, ts, &g, n, f, b) == 0 &&
                 !memcmp(in, b, (size_t)n);
            bad += !ok;
            if (!ok && bad < 4)
                CHECK(0, "ndcell nd %d side %d ts %d shape %d,%d,%d,%d", nd, side, ts,
                      (int)g.blockshape[0], (int)g.blockshape[1], (int)g.blockshape[2],
                      (int)g.blockshape[3]);
        }
        free(in), free(f), free(b), free(order), free(cellof);
    }
    CHECK(bad == 0 && tried > 200, "ndcell: %d of %d random blocks match the model", tried - bad,
          tried);
}

/* ndmean's means, summed as the reference does, from the model's order. */
static void test_ndmean_model(void)
{
    int bad = 0, skewed = 0;
    for (int t = 0; t < 400; t++) {
        int nd = 1 + t % 4, ts = t & 4 ? 8 : 4;
        b2_block_geometry g;
        random_geometry(&g, nd, nd == 1 ? 200 : nd == 2 ? 30 : 9);
        int meta = 1 + (int)(rnd() % 7);
        if (t % 10 == 9 && nd > 1) /* first extent below the side, the next above */
            g.blockshape[0] = 1 + (int32_t)(rnd() % (uint32_t)meta),
            g.blockshape[1] = meta + 1 + (int32_t)(rnd() % 9);
        int64_t items = block_items(&g), sides[B2_GEOM_MAX_DIM];
        for (int d = 0; d < nd; d++)
            sides[d] = meta < g.blockshape[d] ? meta : g.blockshape[d];
        int skew = 0;
        for (int d = 1; d < nd; d++)
            skew |= sides[d] != sides[0] && g.blockshape[d] > sides[d];
        skewed += skew;
        int32_t n = (int32_t)(items * ts);
        uint8_t *in = malloc((size_t)n), *f = malloc((size_t)n), *b = malloc((size_t)n);
        int64_t *order = malloc((size_t)items * sizeof *order);
        int64_t *cellof = malloc((size_t)items * sizeof *cellof);
        for (int64_t i = 0; i < items; i++) {
            double v = (double)(int32_t)rnd() / 1024.0;
            if (ts == 4) {
                float x = (float)v;
                memcpy(in + i * 4, &x, 4);
            } else
                memcpy(in + i * 8, &v, 8);
        }
        int ok = b2_ndmean_forward((int8_t)meta, ts, &g, n, in, f) == 0 &&
                 model_order(&g, sides, sides[0], order, cellof) == items;
        /* each cell: the running sum in its element type, then one division */
        for (int64_t k0 = 0; ok && k0 < items;) {
            int64_t k1 = k0;
            float sf = 0;
            double sd = 0;
            for (; k1 < items && cellof[k1] == cellof[k0]; k1++) {
                float xf;
                double xd;
                if (ts == 4)
                    memcpy(&xf, in + order[k1] * 4, 4), sf += xf;
                else
                    memcpy(&xd, in + order[k1] * 8, 8), sd += xd;
            }
            float mf = sf / (float)(k1 - k0);
            double md = sd / (double)(k1 - k0);
            for (int64_t k = k0; ok && k < k1; k++)
                ok = !memcmp(f + k * ts, ts == 4 ? (void *)&mf : (void *)&md, (size_t)ts);
            k0 = k1;
        }
        /* backward puts every mean where its row came from */
        memset(b, 0xa5, (size_t)n);
        ok = ok && b2_ndmean_backward((int8_t)meta, ts, &g, n, f, b) == 0;
        if (ok && !skew)
            for (int64_t k = 0; ok && k < items; k++)
                ok = !memcmp(b + order[k] * ts, f + k * ts, (size_t)ts);
        if (ok && skew) { /* items no row reaches are zero, never stale */
            uint8_t *hit = calloc((size_t)items, 1);
            for (int64_t k = 0; k < items; k++)
                hit[order[k]] = 1;
            for (int64_t i = 0; ok && i < items * ts; i++)
                ok = hit[i / ts] || b[i] == 0;
            free(hit);
        }
        bad += !ok;
        if (!ok && bad < 4)
            CHECK(0, "ndmean nd %d meta %d ts %d shape %d,%d,%d,%d", nd, meta, ts,
                  (int)g.blockshape[0], (int)g.blockshape[1], (int)g.blockshape[2],
                  (int)g.blockshape[3]);
        free(in), free(f), free(b), free(order), free(cellof);
    }
    CHECK(bad == 0 && skewed > 5, "ndmean: 400 random blocks match the model (%d skewed)", skewed);
}

static void test_refusals(void)
{
    b2_block_geometry g = {2, {4, 6}};
    uint8_t a[192], b[192];
    memset(a, 1, sizeof a);
    /* validation only (n = 0, NULL buffers): without a geometry, meta and typesize */
    CHECK(b2_ndcell_forward(3, 4, NULL, 0, NULL, NULL) == 0, "ndcell validates without geometry");
    CHECK(b2_ndcell_forward(0, 4, NULL, 0, NULL, NULL) == B2_ERR_FILTER, "ndcell meta 0");
    CHECK(b2_ndcell_forward((int8_t)200, 1, NULL, 0, NULL, NULL) == 0,
          "ndcell meta 200 (unsigned)");
    CHECK(b2_ndmean_forward(3, 4, NULL, 0, NULL, NULL) == 0, "ndmean validates without geometry");
    CHECK(b2_ndmean_forward(3, 2, NULL, 0, NULL, NULL) == B2_ERR_FILTER, "ndmean typesize 2");
    CHECK(b2_ndmean_forward(0, 8, NULL, 0, NULL, NULL) == B2_ERR_FILTER, "ndmean meta 0");
    CHECK(b2_ndmean_forward((int8_t)200, 8, NULL, 0, NULL, NULL) == B2_ERR_FILTER,
          "ndmean meta 200 (signed: -56)");
    /* with a geometry the block is judged too */
    CHECK(b2_ndcell_forward(3, 8, &g, 0, NULL, NULL) == 0, "ndcell 3 on 4x6");
    CHECK(b2_ndcell_forward(5, 8, &g, 0, NULL, NULL) == B2_ERR_FILTER, "ndcell 5x5 cell on 4x6");
    CHECK(b2_ndmean_forward(5, 8, &g, 0, NULL, NULL) == 0, "ndmean 5 on 4x6 (cut to the block)");
    /* blocks */
    CHECK(b2_ndcell_forward(2, 8, NULL, 192, a, b) == B2_ERR_FILTER, "ndcell without geometry");
    CHECK(strstr(b2_last_error_message(), "block shape") != NULL, "message: %s",
          b2_last_error_message());
    CHECK(b2_ndcell_backward(2, 8, NULL, 192, a, b) == B2_ERR_FILTER, "ndcell back w/o geometry");
    CHECK(b2_ndmean_forward(2, 8, NULL, 192, a, b) == B2_ERR_FILTER, "ndmean without geometry");
    CHECK(b2_ndmean_backward(2, 8, NULL, 192, a, b) == B2_ERR_FILTER, "ndmean back w/o geometry");
    CHECK(b2_ndcell_forward(2, 8, &g, 184, a, b) == B2_ERR_FILTER, "ndcell on a partial block");
    CHECK(b2_ndcell_backward(2, 8, &g, 200, a, b) == B2_ERR_FILTER, "ndcell on a larger block");
    CHECK(b2_ndmean_forward(2, 8, &g, 96, a, b) == B2_ERR_FILTER, "ndmean on a partial block");
    CHECK(b2_ndcell_forward(2, 8, &g, 192, a, b) == 0, "ndcell on the block");
    b2_block_geometry bad = {2, {4, 0}};
    CHECK(b2_ndcell_forward(2, 8, &bad, 0, NULL, NULL) == B2_ERR_FILTER, "blockshape 0");
    b2_block_geometry huge = {2, {65536, 65536}};
    CHECK(b2_ndcell_forward(2, 1, &huge, 0, NULL, NULL) == B2_ERR_FILTER, "block over 2^31 bytes");
}

/* Chunks through the public API: cparams without a geometry pass the check
 * (a frame's b2nd metalayer may come later) but their blocks are refused;
 * a chunk decodes on its own once b2_dctx_set_geometry gives the block shape. */
static void test_chunks(void)
{
    enum { R = 37, C = 23, N = R * C * 2 }; /* blocks of 37x23 int16, 3 of them */
    static uint8_t in[3 * N], out[3 * N], c[6 * N];
    for (int i = 0; i < 3 * N; i += 2) {
        int v = (i / 2) % C + 3 * ((i / 2) / C) + (int)(rnd() % 3);
        in[i] = (uint8_t)v, in[i + 1] = (uint8_t)(v >> 8);
    }
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_LZ4;
    p.typesize = 2;
    p.blocksize = N;
    p.filters[4] = B2_FILTER_NDCELL;
    p.filters_meta[4] = 4;
    p.filters[5] = B2_FILTER_SHUFFLE;
    b2_cctx *cc = b2_cctx_new(&p);
    CHECK(cc != NULL, "cparams with ndcell and no geometry pass the check: %s",
          b2_last_error_message());
    int len = cc ? b2_chunk_compress(cc, in, sizeof in, c, sizeof c) : -1;
    CHECK(len < 0 && strstr(b2_last_error_message(), "ndcell"), "no geometry: %d (%s)", len,
          b2_last_error_message());
    b2_cctx_free(cc);

    p.geometry = (b2_block_geometry){2, {R, C}};
    cc = b2_cctx_new(&p);
    len = cc ? b2_chunk_compress(cc, in, sizeof in, c, sizeof c) : -1;
    b2_cctx_free(cc);
    CHECK(len > 32 && len < (int)sizeof in, "ndcell chunk %d (%s)", len, b2_last_error_message());
    if (len > 32) {
        b2_dctx *d = b2_dctx_new(1);
        int r = b2_chunk_decompress(d, c, (size_t)len, out, sizeof out);
        CHECK(r < 0 && strstr(b2_last_error_message(), "ndcell"),
              "decoding without geometry refused: %d (%s)", r, b2_last_error_message());
        CHECK(b2_dctx_set_geometry(d, &p.geometry) == 0, "set_geometry");
        r = b2_chunk_decompress(d, c, (size_t)len, out, sizeof out);
        CHECK(r == (int)sizeof in && !memcmp(in, out, sizeof in), "ndcell chunk round trip %d", r);
        /* items straddling blocks 0/1 and 1/2 */
        int64_t start = R * C - 5;
        r = b2_chunk_getitem(d, c, (size_t)len, start, R * C + 10, out, sizeof out);
        CHECK(r == 2 * (R * C + 10) && !memcmp(out, in + 2 * start, (size_t)r), "getitem %d", r);
        b2_dctx_free(d);
    }

    /* a cell larger than the block is refused when the cparams are checked */
    p.filters_meta[4] = 30;
    cc = b2_cctx_new(&p);
    CHECK(cc == NULL, "ndcell 30x30 cells on a 37x23 block accepted");
    b2_cctx_free(cc);
}

/* ndmean before delta: blocks >= 1 are XORed with block 0 as the decoder sees
 * it (its means), so the chunk decodes to the means of every block. */
static void test_ndmean_delta(void)
{
    enum { R = 16, C = 12, NB = 4, N = R * C * 4 };
    static float in[NB * R * C], out[NB * R * C], ref[NB * R * C];
    static uint8_t c[2 * NB * N + 64];
    for (int i = 0; i < NB * R * C; i++)
        in[i] = (float)sin(i * 0.01) * 100.0f + (float)(rnd() % 100) * 0.01f;
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_ZSTD;
    p.typesize = 4;
    p.blocksize = N;
    p.geometry = (b2_block_geometry){2, {R, C}};
    p.filters[3] = B2_FILTER_NDMEAN;
    p.filters_meta[3] = 4;
    p.filters[4] = B2_FILTER_DELTA;
    p.filters[5] = B2_FILTER_SHUFFLE;
    b2_cctx *cc = b2_cctx_new(&p);
    int len = cc ? b2_chunk_compress(cc, in, sizeof in, c, sizeof c) : -1;
    b2_cctx_free(cc);
    b2_dctx *d = b2_dctx_new(1);
    b2_dctx_set_geometry(d, &p.geometry);
    int r = len > 0 ? b2_chunk_decompress(d, c, (size_t)len, out, sizeof out) : len;
    /* the means block by block, through the filter alone */
    uint8_t tmp[N];
    int ok = r == (int)sizeof in;
    for (int j = 0; ok && j < NB; j++)
        ok = b2_ndmean_forward(4, 4, &p.geometry, N, (const uint8_t *)(in + j * R * C), tmp) == 0 &&
             b2_ndmean_backward(4, 4, &p.geometry, N, tmp, (uint8_t *)(ref + j * R * C)) == 0;
    CHECK(ok && !memcmp(out, ref, sizeof out), "ndmean + delta decodes to the means (%d)", r);
    b2_dctx_free(d);
}

/* ---- the reference's vectors ---- */

static int sha_is(const uint8_t *p, size_t n, const char *want)
{
    char hex[65];
    test_sha256_hex(p, n, hex);
    return want && !strcmp(hex, want);
}

/* Place chunk ci of array a (the chunk padded to whole blocks, blocks one
 * after another, each in C order) into the C-order array out, skipping the
 * padding. Item by item: the vectors are small. */
static void place_chunk(b2_nd_array *a, int64_t ci, const uint8_t *chunk, uint8_t *out)
{
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    const int32_t *cs = b2_nd_chunkshape(a), *bs = b2_nd_blockshape(a);
    size_t ts = (size_t)b2_nd_typesize(a);
    int64_t cgrid[B2_ND_MAX_DIM], bgrid[B2_ND_MAX_DIM], corner[B2_ND_MAX_DIM], bsh[B2_ND_MAX_DIM];
    int64_t nblocks = 1, bitems = 1;
    for (int d = 0; d < nd; d++) {
        cgrid[d] = (shape[d] + cs[d] - 1) / cs[d];
        bgrid[d] = (cs[d] + bs[d] - 1) / bs[d];
        bsh[d] = bs[d];
        nblocks *= bgrid[d];
        bitems *= bs[d];
    }
    unravel(nd, cgrid, ci, corner);
    for (int64_t k = 0; k < nblocks * bitems; k++) {
        int64_t b[B2_ND_MAX_DIM], i[B2_ND_MAX_DIM], pos = 0;
        int inside = 1;
        unravel(nd, bgrid, k / bitems, b);
        unravel(nd, bsh, k % bitems, i);
        for (int d = 0; d < nd; d++) {
            int64_t in_chunk = b[d] * bs[d] + i[d], x = corner[d] * cs[d] + in_chunk;
            inside &= in_chunk < cs[d] && x < shape[d];
            pos = pos * shape[d] + x;
        }
        if (inside)
            memcpy(out + (size_t)pos * ts, chunk + (size_t)k * ts, ts);
    }
}

static int nfiltered; /* vector chunks whose blocks went through the filters */

/* The frame layer alone (geometry from the b2nd metalayer): every chunk decoded
 * by b2_schunk, also decoded on its own (refused without the geometry, equal
 * with it), placed into the array, which must have the vector's sha256. */
static int via_frame(const jnode *v, const uint8_t *file, size_t flen, b2_nd_array *a)
{
    const char *id = json_str(v, "id", "?");
    b2_schunk *s = NULL;
    int rc = t_open_buffer(file, flen, 0, &s);
    CHECK(rc == 0, "%s: schunk_open_buffer %d (%s)", id, rc, b2_strerror(rc));
    if (rc)
        return 0;
    b2_block_geometry g = {.ndim = b2_nd_ndim(a)};
    for (int d = 0; d < g.ndim; d++)
        g.blockshape[d] = b2_nd_blockshape(a)[d];
    b2_dctx *bare = b2_dctx_new(1), *given = b2_dctx_new(1);
    b2_dctx_set_geometry(given, &g);
    size_t n = (size_t)json_num(v, "expected.length", -1);
    uint8_t *out = calloc(n + 1, 1);
    int ok = 1;
    for (int64_t i = 0; ok && i < b2_schunk_nchunks(s); i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        uint8_t *c = malloc((size_t)(nb > 0 ? nb : 1)), *lone = malloc((size_t)(nb > 0 ? nb : 1));
        uint8_t *chunk = NULL;
        int32_t cb = 0;
        ok = nb > 0 && b2_schunk_decompress_chunk(s, i, c, (size_t)nb) == nb &&
             b2_schunk_get_chunk(s, i, &chunk, &cb) >= 0;
        CHECK(ok, "%s: frame chunk %lld: %s", id, (long long)i, b2_last_error_message());
        b2_chunk_info info;
        if (ok && b2_chunk_get_info(chunk, (size_t)cb, &info) == 0) {
            /* stored chunks (the reference's when compressing did not pay) skip the filters */
            int filtered = !info.memcpyed && info.special == B2_SPECIAL_NONE;
            nfiltered += filtered;
            int r = b2_chunk_decompress(bare, chunk, (size_t)cb, lone, (size_t)nb);
            CHECK(filtered ? r == B2_ERR_FILTER : r == nb, "%s chunk %lld without geometry: %d", id,
                  (long long)i, r);
            r = b2_chunk_decompress(given, chunk, (size_t)cb, lone, (size_t)nb);
            CHECK(r == nb && !memcmp(c, lone, (size_t)nb), "%s chunk %lld on its own: %d", id,
                  (long long)i, r);
            place_chunk(a, i, c, out);
        }
        free(chunk), free(c), free(lone);
    }
    ok = ok && sha_is(out, n, json_str(v, "expected.sha256", NULL));
    CHECK(ok, "%s: frame layer sha256", id);
    free(out);
    b2_dctx_free(bare), b2_dctx_free(given);
    b2_schunk_free(s);
    return ok;
}

static int uses(const jnode *v, int id)
{
    const jnode *f = json_path(v, "params.filters");
    for (size_t i = 0; f && i < f->nkids; i++)
        if ((int)f->kids[i].num == id)
            return 1;
    return 0;
}

/* Returns 0, or 77 when the vectors are not there. */
static int test_vectors(void)
{
    jnode *man = test_plugin_manifest();
    if (!man)
        return 77;
    char path[4096];
    const jnode *vecs = json_get(man, "vectors");
    int seen = 0, decoded = 0, framed = 0;
    for (size_t k = 0; vecs && k < vecs->nkids; k++) {
        const jnode *v = &vecs->kids[k];
        if (strcmp(json_str(v, "kind", ""), "b2nd") ||
            !(uses(v, B2_FILTER_NDCELL) || uses(v, B2_FILTER_NDMEAN)))
            continue;
        seen++;
        const char *id = json_str(v, "id", "?");
        test_plugin_path(v, "path", path, sizeof path);
        size_t flen, n = (size_t)json_num(v, "expected.length", -1);
        uint8_t *file = test_read_file(path, &flen), *out = malloc(n + 1);
        b2_nd_array *a = NULL;
        int rc = file ? b2_nd_open_buffer(file, flen, 0, &a) : -1;
        CHECK(rc == 0, "%s: open %s: %d (%s)", id, path, rc, b2_last_error_message());
        int ok = rc == 0 && b2_nd_to_cbuffer(a, out, n) == 0 &&
                 sha_is(out, n, json_str(v, "expected.sha256", NULL));
        CHECK(ok, "%s: b2nd layer sha256 (%s)", id, b2_last_error_message());
        decoded += ok;
        framed += ok && via_frame(v, file, flen, a);
        b2_nd_free(a);
        free(out), free(file);
    }
    json_free(man);
    printf("ndcell/ndmean b2nd vectors: %d, %d decode (b2nd), %d (frame layer; %d filtered "
           "chunks)\n",
           seen, decoded, framed, nfiltered);
    CHECK(seen == 4 && decoded == seen && framed == seen,
          "all 4 ndcell/ndmean vectors decode through b2nd and the frame layer");
    /* n00's chunks are stored raw; n01..n03's (14 chunks) run the filters */
    CHECK(nfiltered == 14, "%d filtered chunks", nfiltered);
    return 0;
}

int main(void)
{
    test_ndcell_model();
    test_ndmean_model();
    test_refusals();
    test_chunks();
    test_ndmean_delta();
    int skip = test_vectors();
    int rc = b2t_summary("ndcell/ndmean");
    return rc ? rc : skip;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading and writing boxes of a b2nd array (doc/format/b2nd.md §3, §6).
 *
 * A box is visited chunk by chunk (C order over the chunk grid) and, inside a
 * chunk, block by block. Reads decode only the blocks that meet the box: when
 * some blocks of a chunk are not needed each needed block is decoded on its own
 * (a getitem over exactly that block's bytes: blocks are contiguous byte ranges
 * of the decoded chunk); when all are needed the chunk is decoded at once. For
 * frames on disk, when the needed blocks are at most a quarter of the chunk, the
 * blocks are read through the frame's lazy reader so that only their compressed
 * bytes are read (c-blosc2's "compact path").
 * Writes recompress the whole chunk, as the reference does. */
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"
#include "b2_chunk_experimental.h"
#include "b2_nd_experimental.h"

/* Walking the rows of an N-d box of cnt items per dimension, the last
 * dimension being each row's contiguous run: row_next advances the counter idx
 * over dimensions 0..nd-2 in C order and returns the dimension that moved (-1
 * at the end); a pointer then moves by step[d] bytes, from row_steps for the
 * buffer's item strides str. */
static void row_steps(int nd, const int64_t *cnt, const int64_t *str, size_t ts, int64_t *step)
{
    int64_t back = 0; /* from a slab's first row to its last, dimensions after d */
    for (int d = nd - 2; d >= 0; d--) {
        step[d] = str[d] * (int64_t)ts - back;
        back += (cnt[d] - 1) * str[d] * (int64_t)ts;
    }
}

static int row_next(int nd, const int64_t *cnt, int64_t *idx)
{
    for (int d = nd - 2; d >= 0; d--) {
        if (++idx[d] < cnt[d])
            return d;
        idx[d] = 0;
    }
    return -1;
}

/* Copy an N-d box of cnt items per dimension between two C-order buffers with
 * item strides dstr/sstr. The last dimension is contiguous on both sides. */
static void copy_box(int nd, const int64_t *cnt, size_t ts, uint8_t *dst, const int64_t *dstr,
                     const uint8_t *src, const int64_t *sstr)
{
    if (nd == 0) {
        memcpy(dst, src, ts);
        return;
    }
    size_t run = (size_t)cnt[nd - 1] * ts;
    int64_t idx[B2_ND_MAX_DIM] = {0}, dstep[B2_ND_MAX_DIM], sstep[B2_ND_MAX_DIM];
    row_steps(nd, cnt, dstr, ts, dstep);
    row_steps(nd, cnt, sstr, ts, sstep);
    for (int d;;) {
        memcpy(dst, src, run);
        if ((d = row_next(nd, cnt, idx)) < 0)
            return;
        dst += dstep[d];
        src += sstep[d];
    }
}

/* Fill an N-d box of a C-order buffer (item strides dstr) with one item value. */
static void fill_box(int nd, const int64_t *cnt, size_t ts, uint8_t *dst, const int64_t *dstr,
                     const uint8_t *val)
{
    int64_t idx[B2_ND_MAX_DIM] = {0}, step[B2_ND_MAX_DIM], run = nd ? cnt[nd - 1] : 1;
    row_steps(nd, cnt, dstr, ts, step);
    for (int d;;) {
        for (int64_t j = 0; j < run; j++)
            memcpy(dst + j * (int64_t)ts, val, ts);
        if ((d = row_next(nd, cnt, idx)) < 0)
            return;
        dst += step[d];
    }
}

/* C-order item strides of an extent. */
static void strides_of(int nd, const int64_t *ext, int64_t *str)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        str[i] = s;
        s *= ext[i];
    }
}

/* Advance a C-order counter idx over [lo, hi] inclusive; 0 when wrapped around. */
static int next_index(int nd, int64_t *idx, const int64_t *lo, const int64_t *hi)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] <= hi[d])
            return 1;
        idx[d] = lo[d];
    }
    return 0;
}

/* Everything one chunk's part of a box needs. */
typedef struct chunk_part {
    int64_t nchunk;
    int64_t origin[B2_ND_MAX_DIM];   /* first element of the chunk */
    int64_t lo[B2_ND_MAX_DIM];       /* box ∩ chunk's real extent, [lo, hi) */
    int64_t hi[B2_ND_MAX_DIM];
    int64_t blo[B2_ND_MAX_DIM];      /* blocks meeting it, [blo, bhi] inclusive */
    int64_t bhi[B2_ND_MAX_DIM];
    int64_t need;                   /* number of such blocks */
} chunk_part;

static void chunk_part_init(const b2_nd_geom *g, const int64_t *cc, const int64_t *start,
                            const int64_t *stop, chunk_part *p)
{
    int64_t n = 0, need = 1;
    for (int i = 0; i < g->ndim; i++) {
        int64_t c = g->chunkshape[i], b = g->blockshape[i];
        n = n * g->chunks_in_array[i] + cc[i];
        p->origin[i] = cc[i] * c;
        p->lo[i] = start[i] > p->origin[i] ? start[i] : p->origin[i];
        p->hi[i] = stop[i] < p->origin[i] + c ? stop[i] : p->origin[i] + c;
        p->blo[i] = (p->lo[i] - p->origin[i]) / b;
        p->bhi[i] = (p->hi[i] - 1 - p->origin[i]) / b;
        need *= p->bhi[i] - p->blo[i] + 1;
    }
    p->nchunk = n;
    p->need = need;
}

/* For block bc of part p: the box to copy, its offset inside the block (items)
 * and inside the user buffer whose box starts at `start` with strides ustr. */
static void block_box(const b2_nd_geom *g, const chunk_part *p, const int64_t *bc,
                      const int64_t *start, const int64_t *ustr, int64_t *cnt,
                      int64_t *boff, int64_t *uoff)
{
    int64_t bo = 0, uo = 0, bstride = 1;
    for (int i = g->ndim - 1; i >= 0; i--) {
        int64_t b0 = p->origin[i] + bc[i] * g->blockshape[i];
        int64_t from = p->lo[i] > b0 ? p->lo[i] : b0;
        int64_t to = p->hi[i] < b0 + g->blockshape[i] ? p->hi[i] : b0 + g->blockshape[i];
        cnt[i] = to - from;
        bo += (from - b0) * bstride;
        bstride *= g->blockshape[i];
        uo += (from - start[i]) * ustr[i];
    }
    *boff = bo;
    *uoff = uo;
}

static int64_t block_number(const b2_nd_geom *g, const int64_t *bc)
{
    int64_t k = 0;
    for (int i = 0; i < g->ndim; i++)
        k = k * g->blocks_in_chunk[i] + bc[i];
    return k;
}

/* Check the box and compute its byte size. */
static int box_check(const b2_nd_geom *g, const int64_t *start, const int64_t *stop,
                     int64_t *ext, int64_t *nbytes)
{
    int64_t n = g->typesize;
    for (int i = 0; i < g->ndim; i++) {
        B2_FAIL_IF(!start || !stop, B2_ERR_INVALID_PARAM, "%s is NULL", !start ? "start" : "stop");
        B2_FAIL_IF(start[i] < 0 || stop[i] < start[i] || stop[i] > g->shape[i], B2_ERR_RANGE,
                   "dimension %d: [%lld, %lld) outside [0, %lld)", i, (long long)start[i],
                   (long long)stop[i], (long long)g->shape[i]);
        ext[i] = stop[i] - start[i];
        n *= ext[i]; /* at most nitems * typesize, which b2_nd_geom_init bounds */
    }
    *nbytes = n;
    return B2_OK;
}

/* Chunk n's stored bytes (no copy; valid until x's next view) and its header,
 * checked to decode to exactly one padded chunk. */
int b2_nd_view_chunk(b2_nd_array *a, nd_reader *x, int64_t n, const uint8_t **chunk,
                     int32_t *cbytes, b2_chunk_info *info)
{
    int rc = b2_nd_st_chunk_view(a, x, n, chunk, cbytes);
    if (rc >= 0)
        rc = b2_chunk_get_info(*chunk, (size_t)*cbytes, info);
    if (rc >= 0 && (info->nbytes != a->g.chunk_bytes || a->g.block_bytes % info->typesize))
        rc = B2_FAIL_CODE(B2_ERR_CORRUPT);
    return rc;
}

/* Copy part p out of a whole decoded (padded) chunk. */
static void copy_part_from_chunk(const b2_nd_geom *g, const chunk_part *p, const uint8_t *chunk,
                                 const int64_t *start, const int64_t *ustr, const int64_t *bstr,
                                 uint8_t *dst)
{
    size_t ts = (size_t)g->typesize;
    int64_t bc[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++)
        bc[i] = p->blo[i];
    do {
        int64_t cnt[B2_ND_MAX_DIM], boff, uoff;
        block_box(g, p, bc, start, ustr, cnt, &boff, &uoff);
        copy_box(g->ndim, cnt, ts, dst + uoff * (int64_t)ts, ustr,
                 chunk + block_number(g, bc) * g->block_bytes + boff * (int64_t)ts, bstr);
    } while (next_index(g->ndim, bc, p->blo, p->bhi));
}

/* Fill part p of the output with zeros, or (with_value) with the content of a
 * NaN or repeated-value chunk: one item repeated when the chunk's pattern is
 * whole items (always, from writers), else the decoded chunk itself. */
static int fill_part(b2_nd_array *a, nd_reader *x, const chunk_part *p, const int64_t *start,
                     const int64_t *ustr, const int64_t *bstr, void *dst, int with_value)
{
    const b2_nd_geom *g = &a->g;
    uint8_t *val = calloc(1, (size_t)g->typesize);
    if (!val)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int rc = B2_OK;
    if (with_value) {
        const uint8_t *chunk;
        int32_t cbytes;
        b2_chunk_info info;
        b2_dctx *d = x->d;
        if ((rc = b2_nd_view_chunk(a, x, p->nchunk, &chunk, &cbytes, &info)) < 0) {
            free(val);
            return rc;
        }
        int32_t period = info.special == B2_SPECIAL_VALUE ? info.cbytes - B2_HEADER_LEN : info.typesize;
        if ((period <= 0 || g->typesize % period) &&
            (rc = b2_mem_check(a->mem_limit, g->chunk_bytes, "decoding the chunk",
                               "b2_nd_set_memory_limit")) < 0) {
            free(val);
            return rc;
        }
        if (period <= 0 || g->typesize % period) {
            uint8_t *whole = malloc((size_t)g->chunk_bytes);
            rc = whole ? b2_chunk_decompress(d, chunk, (size_t)cbytes, whole,
                                             (size_t)g->chunk_bytes)
                       : B2_FAIL_CODE(B2_ERR_NOMEM);
            if (rc >= 0)
                copy_part_from_chunk(g, p, whole, start, ustr, bstr, dst);
            free(whole);
            free(val);
            return rc < 0 ? rc : B2_OK;
        }
        rc = g->typesize % info.typesize
                 ? B2_FAIL_CODE(B2_ERR_CORRUPT)
                 : b2_chunk_getitem(d, chunk, (size_t)cbytes, 0, g->typesize / info.typesize,
                                    val, (size_t)g->typesize);
    }
    if (rc >= 0) {
        int64_t cnt[B2_ND_MAX_DIM], uoff = 0;
        for (int i = 0; i < g->ndim; i++) {
            cnt[i] = p->hi[i] - p->lo[i];
            uoff += (p->lo[i] - start[i]) * ustr[i];
        }
        fill_box(g->ndim, cnt, (size_t)g->typesize, (uint8_t *)dst + uoff * g->typesize, ustr, val);
        rc = B2_OK;
    }
    free(val);
    return rc;
}

/* What the chunk decoder needs to place a block of part p in the user's box. */
typedef struct place_ctx {
    const b2_nd_geom *g;
    const chunk_part *p;
    const int64_t *start, *ustr, *bstr; /* item strides of the box and of a block */
    uint8_t *dst;
} place_ctx;

/* b2_block_rows_fn: block k's share of the box, as rows of the block's last dimension. */
static int place_block(void *ud, int32_t k, b2_block_rows *r)
{
    const place_ctx *c = ud;
    const b2_nd_geom *g = c->g;
    int nd = g->ndim;
    int64_t bc[B2_ND_MAX_DIM], cnt[B2_ND_MAX_DIM], boff, uoff, rem = k;
    for (int i = nd - 1; i >= 0; i--) {
        bc[i] = rem % g->blocks_in_chunk[i];
        rem /= g->blocks_in_chunk[i];
    }
    block_box(g, c->p, bc, c->start, c->ustr, cnt, &boff, &uoff);
    for (int i = 0; i < nd; i++)
        if (cnt[i] <= 0)
            return B2_OK; /* a padding block (writes): no rows, its bytes are zeros */
    int64_t ts = g->typesize;
    r->nd = nd > 0 ? nd - 1 : 0;
    for (int i = 0; i < r->nd; i++) {
        r->cnt[i] = cnt[i];
        r->sstr[i] = c->bstr[i] * ts;
        r->dstr[i] = c->ustr[i] * ts;
    }
    r->run = (nd > 0 ? cnt[nd - 1] : 1) * ts;
    r->soff = boff * ts;
    r->user = c->dst + uoff * ts;
    return B2_OK;
}

/* Whether an N-d box of a C-order buffer (item strides str) holds only zero bytes. */
static int box_is_zero(int nd, const int64_t *cnt, size_t ts, const uint8_t *src, const int64_t *str)
{
    size_t run = nd ? (size_t)cnt[nd - 1] * ts : ts;
    int64_t idx[B2_ND_MAX_DIM] = {0}, step[B2_ND_MAX_DIM];
    row_steps(nd, cnt, str, ts, step);
    for (int d;;) {
        for (size_t k = 0; k < run; k++)
            if (src[k])
                return 0;
        if ((d = row_next(nd, cnt, idx)) < 0)
            return 1;
        src += step[d];
    }
}

/* Compress one padded chunk into out (cap bytes) with cctx (NULL: the array's,
 * made on first use): from buf, the whole padded chunk, or when buf is NULL from
 * the user's rows c describes. zero: the content is all zeros, stored as a
 * zero-special chunk, as c-blosc2 leaves untouched zero chunks. The capacity
 * given to the compressor is at most the bound, which takes part in its memcpy
 * decision. Returns cbytes or an error. */
static int compress_into(b2_nd_array *a, b2_cctx *cctx, const uint8_t *buf, place_ctx *c,
                         int zero, uint8_t *out, size_t cap)
{
    size_t n = (size_t)a->g.chunk_bytes;
    if (cap > b2_chunk_compress_bound(n))
        cap = b2_chunk_compress_bound(n);
    if (zero)
        return b2_chunk_make_special(B2_SPECIAL_ZEROS,
                                     a->g.typesize > B2_MAX_TYPESIZE ? 1 : a->g.typesize,
                                     (int32_t)n, NULL, out, cap);
    if (!cctx && !(cctx = a->cctx) && !(cctx = a->cctx = b2_cctx_new(&a->cparams)))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    return buf ? b2_chunk_compress(cctx, buf, n, out, cap)
               : b2_chunk_compress_rows(cctx, n, place_block, c, out, cap);
}

/* compress_into a malloc'ed chunk. */
static int compress_alloc(b2_nd_array *a, const uint8_t *buf, place_ctx *c, int zero,
                          uint8_t **chunk, int32_t *cbytes)
{
    size_t cap = b2_chunk_compress_bound((size_t)a->g.chunk_bytes);
    uint8_t *out = malloc(cap);
    if (!out)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int rc = compress_into(a, NULL, buf, c, zero, out, cap);
    if (rc < 0) {
        free(out);
        return rc;
    }
    *chunk = out;
    *cbytes = rc;
    return B2_OK;
}

/* The numbers of the blocks part p needs, in C order, into *list (grown as needed). */
static int block_list(const b2_nd_geom *g, const chunk_part *p, int32_t **list, int32_t *listcap)
{
    if (p->need > *listcap) {
        int32_t *nl = realloc(*list, (size_t)p->need * sizeof *nl);
        if (!nl)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        *list = nl;
        *listcap = (int32_t)p->need;
    }
    int64_t bc[B2_ND_MAX_DIM];
    int32_t n = 0;
    for (int i = 0; i < g->ndim; i++)
        bc[i] = p->blo[i];
    do
        (*list)[n++] = (int32_t)block_number(g, bc);
    while (next_index(g->ndim, bc, p->blo, p->bhi));
    return B2_OK;
}

/* Blocks list[0..n) of a chunk on disk, few of them: read only their bytes (with
 * the header and block index) and decode them through fn. B2_ERR_UNSUPPORTED
 * (before any output) when the storage or the chunk cannot do it. */
static int decode_blocks_lazily(b2_nd_array *a, nd_reader *x, int64_t nchunk, const int32_t *list,
                                int32_t n, b2_block_rows_fn fn, void *ud)
{
    const b2_nd_geom *g = &a->g;
    b2_schunk *s = b2_nd_schunk(a);
    if (b2_schunk_storage(s) == B2_STORAGE_MEMORY)
        return B2_ERR_UNSUPPORTED;
    uint8_t *chunk;
    int32_t cbytes;
    int rc = b2_schunk_read_blocks(s, nchunk, list, n, &chunk, &cbytes);
    if (rc < 0)
        return rc;
    b2_chunk_info info;
    rc = b2_chunk_get_info(chunk, (size_t)cbytes, &info);
    /* Block k of the array must be block k of the chunk. */
    if (rc >= 0 && (info.eff_blocksize != g->block_bytes || info.nblocks != g->nblocks))
        rc = B2_FAIL_CODE(B2_ERR_CORRUPT);
    if (rc >= 0) {
        int64_t before = b2_dctx_blocks_decoded(x->d); /* x->d is this call's alone */
        rc = b2_chunk_decompress_rows(x->d, chunk, (size_t)cbytes, list, n, fn, ud);
        __atomic_fetch_add(&a->blocks_read_lazily, b2_dctx_blocks_decoded(x->d) - before,
                           __ATOMIC_RELAXED);
    }
    free(chunk);
    return rc;
}

/* A special chunk as the array's blocks: special index entries are rebuilt as
 * one-block chunks, which the postfilter would see as one block. A special
 * chunk is its header (and value), so a copy with the array's blocksize in it
 * is one (malloc'ed into *own). */
static int special_with_blocks(b2_nd_array *a, const uint8_t *chunk, const b2_chunk_info *info,
                               uint8_t **own)
{
    if (!(*own = malloc((size_t)info->cbytes)))
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    memcpy(*own, chunk, (size_t)info->cbytes);
    b2_store_le32(*own + 8, (uint32_t)a->g.block_bytes);
    return B2_OK;
}

static int decode_blocks_impl(b2_nd_array *a, nd_reader *x, int64_t nchunk, const int32_t *list,
                              int32_t n, b2_block_rows_fn fn, void *ud)
{
    const b2_nd_geom *g = &a->g;
    int rc = B2_ERR_UNSUPPORTED;
    /* On disk, few blocks: read only their bytes (the compact path, doc/format/b2nd.md §6). */
    if (list && (int64_t)n * g->block_bytes * 4 <= g->chunk_bytes)
        rc = decode_blocks_lazily(a, x, nchunk, list, n, fn, ud);
    if (rc != B2_ERR_UNSUPPORTED)
        return rc;
    const uint8_t *chunk;
    int32_t cbytes;
    b2_chunk_info info;
    if ((rc = b2_nd_view_chunk(a, x, nchunk, &chunk, &cbytes, &info)) < 0)
        return rc;
    uint8_t *own = NULL;
    if (info.special && info.eff_blocksize != g->block_bytes) {
        if ((rc = special_with_blocks(a, chunk, &info, &own)) < 0)
            return rc;
        chunk = own;
        info.eff_blocksize = g->block_bytes;
    }
    /* Block k of the array must be block k of the chunk. */
    rc = info.eff_blocksize != g->block_bytes || info.vlblocks
             ? B2_FAIL_CODE(B2_ERR_CORRUPT)
             : b2_chunk_decompress_rows(x->d, chunk, (size_t)cbytes, list, list ? n : 0, fn, ud);
    free(own);
    return rc;
}

int b2_nd_decode_blocks(b2_nd_array *a, nd_reader *x, int64_t nchunk, const int32_t *list,
                        int32_t n, b2_block_rows_fn fn, void *ud)
{
    if (!a->post)
        return decode_blocks_impl(a, x, nchunk, list, n, fn, ud);
    /* only these reads postfilter: the context is the call's own (or the lent one) */
    b2_dctx_set_postfilter(x->d, a->post, a->post_user);
    b2_dctx_set_nchunk(x->d, nchunk);
    int rc = decode_blocks_impl(a, x, nchunk, list, n, fn, ud);
    b2_dctx_set_postfilter(x->d, NULL, NULL);
    b2_dctx_set_nchunk(x->d, -1);
    return rc;
}

/* Decode the needed blocks of part p straight into the user's box. */
static int read_part(b2_nd_array *a, nd_reader *x, const chunk_part *p, place_ctx *c,
                     int32_t **list, int32_t *listcap)
{
    int rc;
    int need_all = p->need >= a->g.nblocks;
    if (!need_all && (rc = block_list(&a->g, p, list, listcap)) < 0)
        return rc;
    c->p = p;
    return b2_nd_decode_blocks(a, x, p->nchunk, need_all ? NULL : *list, (int32_t)p->need,
                               place_block, c);
}

int b2_nd_get_slice_cbuffer_body(b2_nd_array *a, const int64_t *start, const int64_t *stop, void *dst,
                           size_t cap)
{
    if (!a || (!dst && cap))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    const b2_nd_geom *g = &a->g;
    int64_t ext[B2_ND_MAX_DIM], ustr[B2_ND_MAX_DIM], nbytes;
    int rc = box_check(g, start, stop, ext, &nbytes);
    if (rc < 0)
        return rc;
    B2_FAIL_IF((uint64_t)nbytes > cap, B2_ERR_DST_TOO_SMALL, "slice of %lld bytes, dst has %zu",
               (long long)nbytes, cap);
    if (nbytes == 0)
        return 0;
    /* Every item of the box is written by exactly one block of one chunk, or by
     * a special chunk's fill: nothing is zeroed beforehand. */
    strides_of(g->ndim, ext, ustr);
    int64_t bstr[B2_ND_MAX_DIM], bext[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++)
        bext[i] = g->blockshape[i];
    strides_of(g->ndim, bext, bstr);
    int64_t clo[B2_ND_MAX_DIM], chi[B2_ND_MAX_DIM], cc[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++) {
        clo[i] = cc[i] = start[i] / g->chunkshape[i];
        chi[i] = (stop[i] - 1) / g->chunkshape[i];
    }
    place_ctx c = {.g = g, .start = start, .ustr = ustr, .bstr = bstr, .dst = dst};
    int32_t *list = NULL, listcap = 0;
    nd_reader x; /* this call's own: other threads may read the array too */
    if ((rc = b2_nd_st_reader(a, &x)) < 0)
        return rc;
    do {
        chunk_part p;
        chunk_part_init(g, cc, start, stop, &p);
        /* Special chunks are never decoded: their part is filled with zeros
         * (zeros, and uninit, whose content is unspecified) or with the value. */
        int sp = b2_nd_st_chunk_special(a, p.nchunk);
        if (sp < 0) {
            rc = sp;
        } else if (sp != B2_SPECIAL_NONE && !a->post) {
            rc = fill_part(a, &x, &p, start, ustr, bstr, dst,
                           sp == B2_SPECIAL_NAN || sp == B2_SPECIAL_VALUE);
        } else {
            rc = read_part(a, &x, &p, &c, &list, &listcap);
        }
    } while (rc >= 0 && next_index(g->ndim, cc, clo, chi));
    b2_nd_st_reader_done(a, &x);
    free(list);
    return rc < 0 ? rc : B2_OK;
}

/* Whether the compression context cc was made for the array's parameters
 * (the thread count aside). */
static int cctx_fits(const b2_cctx *cc, const b2_cparams *want)
{
    b2_cparams a = *b2_cctx_params(cc), b = *want;
    a.nthreads = b.nthreads = 1;
    return memcmp(&a, &b, sizeof a) == 0;
}

int64_t b2_nd_encode_frame_bound(const b2_nd_params *p)
{
    b2_nd_array *a;
    int rc = b2_nd_create_bare(p, NULL, &a);
    if (rc < 0)
        return rc;
    int64_t n = b2_schunk_header_len(a->sc) + a->g.chunk_bytes + B2_MAX_OVERHEAD + 256;
    b2_nd_free(a);
    return n;
}

int64_t b2_nd_encode_frame(const b2_nd_params *p, b2_cctx *cctx, const void *src, size_t len,
                          void *dst, size_t cap)
{
    return b2_nd_encode_frame_with(p, cctx, 0, src, len, dst, cap);
}

int64_t b2_nd_encode_frame_with(const b2_nd_params *p, b2_cctx *cctx, int flags, const void *src,
                               size_t len, void *dstv, size_t cap)
{
    b2_nd_array *a;
    uint8_t *dst = dstv;
    B2_FAIL_IF(flags & ~B2_ND_ENCODE_CHECKSUMS, B2_ERR_INVALID_PARAM, "flags 0x%x", flags);
    int rc = b2_nd_create_bare(p, NULL, &a);
    if (rc < 0)
        return rc;
    /* an empty frame that keeps checksums: the frame built below holds its chunk's */
    if ((flags & B2_ND_ENCODE_CHECKSUMS) && (rc = b2_schunk_set_checksums(a->sc, B2_CHECKSUMS_ON)) < 0) {
        b2_nd_free(a);
        return rc;
    }
    const b2_nd_geom *g = &a->g;
    int64_t hl = b2_schunk_header_len(a->sc), res;
    size_t room = cap > (size_t)hl ? cap - (size_t)hl : 0;
    if (g->nchunks != 1 || !src || !dst || (uint64_t)len != (uint64_t)g->nitems * (uint64_t)g->typesize ||
        (cctx && !cctx_fits(cctx, &a->cparams))) {
        res = B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    } else if (room < B2_HEADER_LEN) {
        res = B2_FAIL_CODE(B2_ERR_DST_TOO_SMALL);
    } else {
        int64_t start[B2_ND_MAX_DIM] = {0}, cc[B2_ND_MAX_DIM] = {0};
        int64_t ustr[B2_ND_MAX_DIM], bstr[B2_ND_MAX_DIM], bext[B2_ND_MAX_DIM];
        chunk_part part;
        chunk_part_init(g, cc, start, g->shape, &part);
        strides_of(g->ndim, g->shape, ustr);
        for (int d = 0; d < g->ndim; d++)
            bext[d] = g->blockshape[d];
        strides_of(g->ndim, bext, bstr);
        place_ctx c = {.g = g, .p = &part, .start = start, .ustr = ustr, .bstr = bstr,
                       .dst = (uint8_t *)src};
        int zero = box_is_zero(g->ndim, g->shape, (size_t)g->typesize, src, ustr);
        res = compress_into(a, cctx, NULL, &c, zero, dst + hl, room);
        if (res >= 0)
            res = b2_schunk_frame_around_chunk(a->sc, dst, cap, (int32_t)res);
    }
    b2_nd_free(a);
    return res;
}

int b2_nd_to_cbuffer_body(b2_nd_array *a, void *dst, size_t cap)
{
    if (!a)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int64_t start[B2_ND_MAX_DIM] = {0};
    return b2_nd_get_slice_cbuffer_body(a, start, a->g.shape, dst, cap);
}

int b2_nd_compress_chunk(b2_nd_array *a, const uint8_t *buf, uint8_t **chunk, int32_t *cbytes)
{
    size_t n = (size_t)a->g.chunk_bytes, i = 0;
    while (i < n && !buf[i])
        i++;
    return compress_alloc(a, buf, NULL, i == n, chunk, cbytes);
}

int b2_nd_set_slice_cbuffer_body(b2_nd_array *a, const int64_t *start, const int64_t *stop,
                           const void *src, size_t len)
{
    if (!a || (!src && len))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    const b2_nd_geom *g = &a->g;
    int64_t ext[B2_ND_MAX_DIM], ustr[B2_ND_MAX_DIM], nbytes;
    int rc = box_check(g, start, stop, ext, &nbytes);
    if (rc < 0)
        return rc;
    B2_FAIL_IF((uint64_t)nbytes != len, B2_ERR_INVALID_PARAM, "slice of %lld bytes, src has %zu",
               (long long)nbytes, len);
    if (nbytes == 0)
        return B2_OK;
    strides_of(g->ndim, ext, ustr);
    int64_t bstr[B2_ND_MAX_DIM], bext[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++)
        bext[i] = g->blockshape[i];
    strides_of(g->ndim, bext, bstr);
    int64_t clo[B2_ND_MAX_DIM], chi[B2_ND_MAX_DIM], cc[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++) {
        clo[i] = cc[i] = start[i] / g->chunkshape[i];
        chi[i] = (stop[i] - 1) / g->chunkshape[i];
    }
    place_ctx c = {.g = g, .start = start, .ustr = ustr, .bstr = bstr, .dst = (uint8_t *)src};
    uint8_t *buf = NULL;
    size_t ts = (size_t)g->typesize;
    do {
        chunk_part p;
        chunk_part_init(g, cc, start, stop, &p);
        int covers = 1;
        for (int i = 0; i < g->ndim && covers; i++) {
            int64_t end = p.origin[i] + g->chunkshape[i];
            covers = p.lo[i] == p.origin[i] && p.hi[i] == (end < g->shape[i] ? end : g->shape[i]);
        }
        uint8_t *chunk;
        int32_t cbytes;
        if (covers) {
            /* The write covers the chunk's whole real extent: compress it straight
             * from the user's rows (the padding is zeros), no chunk buffer. */
            int64_t cnt[B2_ND_MAX_DIM], uoff = 0;
            for (int i = 0; i < g->ndim; i++) {
                cnt[i] = p.hi[i] - p.lo[i];
                uoff += (p.lo[i] - start[i]) * ustr[i];
            }
            c.p = &p;
            int zero = box_is_zero(g->ndim, cnt, ts, (const uint8_t *)src + uoff * (int64_t)ts, ustr);
            if ((rc = compress_alloc(a, NULL, &c, zero, &chunk, &cbytes)) < 0)
                break;
        } else {
            /* A partial write: decode the chunk, copy the box in, recompress. */
            if (!buf && !(buf = malloc((size_t)g->chunk_bytes))) {
                rc = B2_FAIL_CODE(B2_ERR_NOMEM);
                break;
            }
            const uint8_t *stored;
            b2_chunk_info info;
            nd_reader x;
            if ((rc = b2_nd_st_reader(a, &x)) < 0)
                break;
            memset(buf, 0, (size_t)g->chunk_bytes); /* uninit chunks leave it as is */
            if ((rc = b2_nd_view_chunk(a, &x, p.nchunk, &stored, &cbytes, &info)) >= 0)
                rc = b2_chunk_decompress(x.d, stored, (size_t)cbytes, buf, (size_t)g->chunk_bytes);
            b2_nd_st_reader_done(a, &x);
            if (rc < 0)
                break;
            int64_t bc[B2_ND_MAX_DIM];
            for (int i = 0; i < g->ndim; i++)
                bc[i] = p.blo[i];
            do {
                int64_t cnt[B2_ND_MAX_DIM], boff, uoff;
                block_box(g, &p, bc, start, ustr, cnt, &boff, &uoff);
                uint8_t *blk = buf + block_number(g, bc) * g->block_bytes;
                copy_box(g->ndim, cnt, ts, blk + boff * (int64_t)ts, bstr,
                         (const uint8_t *)src + uoff * (int64_t)ts, ustr);
            } while (next_index(g->ndim, bc, p.blo, p.bhi));
            if ((rc = b2_nd_compress_chunk(a, buf, &chunk, &cbytes)) < 0)
                break;
        }
        rc = b2_nd_st_update_chunk(a, p.nchunk, chunk, cbytes);
        free(chunk);
    } while (rc >= 0 && next_index(g->ndim, cc, clo, chi));
    free(buf);
    return rc < 0 ? rc : B2_OK;
}


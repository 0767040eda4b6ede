/* SPDX-License-Identifier: BSD-3-Clause */
/* Chunk decoding: whole chunks, VL-block chunks and item ranges (doc/format/chunk.md §4-§11).
 *
 * Every offset and length read from the chunk is checked against the bytes that
 * are really there (min(cbytes, buffer size)) before it is used. */
#include <stdlib.h>
#include "chunk_internal.h"
#include "pool.h"
#include "registry.h"
#include "b2_chunk_experimental.h"

/* Per-thread decoding state: codec library contexts and block scratch. */
typedef struct b2_dworker {
    b2_codec_state cs;
    uint8_t *scratch;
    size_t cap;
} b2_dworker;

struct b2_dctx {
    int nthreads;
    int64_t blocks_decoded; /* updated atomically: workers share it */
    b2_dworker *workers;    /* nthreads entries */
    uint8_t *ref;           /* decoded block 0 of a delta chunk (rows decoding) */
    size_t refcap;
    uint8_t *item;          /* getitem's block buffer, kept between calls */
    size_t itemcap;
    b2_pool *pool;          /* threads kept between calls (created on first use) */
    b2_block_geometry geom; /* for the n-dimensional plugins (ndim 0: none) */
    const b2_registry *reg; /* user filters and codecs before the process table (not owned) */
    int64_t mem_limit;      /* working memory per chunk (b2_dctx_set_memory_limit; 0: default) */
    b2_postfilter_fn post;  /* b2_dctx_set_postfilter (NULL: none) */
    void *post_user;
    int64_t nchunk;         /* passed to the postfilter (b2_dctx_set_nchunk) */
    b2_errinfo err;         /* last failure of a call on this context */
};

/* A validated chunk being decoded (read-only while blocks decode in parallel). */
typedef struct chunk_view {
    const uint8_t *src;
    int32_t bound;      /* bytes that may be read: min(cbytes, size) */
    b2_chunk_info info;
    b2_pipeline pipe;
    int filtered;       /* some filter must be undone */
    int has_delta;
    const uint8_t *dict;
    int32_t dict_len;
    void *ddict;        /* digested dictionary (zstd), owned: close_view frees it */
    int32_t data_start; /* first byte after bstarts and the dictionary */
    int32_t unshuffle_unit; /* > 1: the only filter to undo is a byte shuffle of this unit */
    int bitunshuffle_only;  /* the only filter to undo is a bit shuffle */
    b2_codec_use codec;     /* blocksize set per block */
} chunk_view;

b2_dctx *b2_dctx_new(int nthreads)
{
    b2_dctx *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (b2_dctx_set_nthreads(d, nthreads) < 0) {
        free(d);
        return NULL;
    }
    d->nchunk = -1;
    return d;
}

static void free_workers(b2_dworker *w, int n)
{
    for (int i = 0; i < n; i++) {
        b2_codec_state_free(&w[i].cs);
        free(w[i].scratch);
    }
    free(w);
}

void b2_dctx_free(b2_dctx *d)
{
    if (!d)
        return;
    b2_pool_free(d->pool);
    free_workers(d->workers, d->nthreads);
    free(d->ref);
    free(d->item);
    free(d);
}

int b2_dctx_set_nthreads(b2_dctx *d, int nthreads)
{
    if (!d)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (nthreads <= 0)
        nthreads = 1;
    if (nthreads > 256)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_dworker *w = calloc((size_t)nthreads, sizeof *w);
    b2_pool *pool = b2_pool_new(nthreads);
    if (!w || !pool) {
        free(w);
        b2_pool_free(pool);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    for (int i = 0; i < nthreads; i++)
        b2_codec_state_init(&w[i].cs);
    b2_pool_free(d->pool);
    free_workers(d->workers, d->nthreads);
    d->workers = w;
    d->pool = pool;
    d->nthreads = nthreads;
    return B2_OK;
}

int b2_dctx_nthreads(const b2_dctx *d) { return d ? d->nthreads : B2_ERR_INVALID_PARAM; }

const char *b2_dctx_last_error(const b2_dctx *d) { return d ? b2_err_text(&d->err) : ""; }

int64_t b2_dctx_blocks_decoded(const b2_dctx *d)
{
    return d ? __atomic_load_n(&d->blocks_decoded, __ATOMIC_RELAXED) : 0;
}

int b2_dctx_set_geometry(b2_dctx *d, const b2_block_geometry *g)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    if (!g || g->ndim == 0) {
        memset(&d->geom, 0, sizeof d->geom);
        return B2_OK;
    }
    B2_FAIL_IF(g->ndim < 0 || g->ndim > B2_GEOM_MAX_DIM, B2_ERR_INVALID_PARAM,
               "geometry ndim %d is not 0..%d", g->ndim, B2_GEOM_MAX_DIM);
    for (int i = 0; i < g->ndim; i++)
        B2_FAIL_IF(g->blockshape[i] < 1, B2_ERR_INVALID_PARAM, "geometry blockshape[%d] = %d", i,
                   (int)g->blockshape[i]);
    d->geom = *g;
    return B2_OK;
}

int b2_dctx_set_memory_limit(b2_dctx *d, int64_t bytes)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->mem_limit = bytes > 0 ? bytes : 0;
    return B2_OK;
}

int b2_dctx_set_postfilter(b2_dctx *d, b2_postfilter_fn fn, void *user)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->post = fn;
    d->post_user = fn ? user : NULL;
    return B2_OK;
}

int b2_dctx_set_nchunk(b2_dctx *d, int64_t nchunk)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->nchunk = nchunk;
    return B2_OK;
}

int b2_dctx_set_registry(b2_dctx *d, const b2_registry *reg)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->reg = reg;
    return B2_OK;
}

static uint8_t *worker_scratch(b2_dworker *w, size_t n)
{
    if (w->cap < n) {
        uint8_t *p = realloc(w->scratch, n);
        if (!p)
            return NULL;
        w->scratch = p;
        w->cap = n;
    }
    return w->scratch;
}

/* Validate everything outside the blocks' streams (doc/format/chunk.md §9 steps 1-12). The
 * context gives the geometry the n-dimensional plugins work on and the registry
 * user filters and codecs come from. */
static int open_view(const uint8_t *src, size_t size, const b2_dctx *d, chunk_view *v)
{
    const b2_block_geometry *geom = &d->geom;
    memset(v, 0, sizeof *v);
    int rc = b2_chunk_get_info(src, size, &v->info);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    /* lazy chunks are resolved by the frame layer */
    B2_FAIL_IF(in->lazy, B2_ERR_UNSUPPORTED, "lazy chunk given to the chunk decoder");
    B2_FAIL_IF((size_t)in->cbytes > size, B2_ERR_TRUNCATED,
               "chunk cbytes %d but only %zu bytes given", (int)in->cbytes, size);
    v->src = src;
    v->bound = in->cbytes;
    b2_info_pipeline(in, &v->pipe);
    v->pipe.geom = geom->ndim > 0 ? geom : NULL;
    v->pipe.reg = d->reg;
    v->filtered = b2_pipeline_active(&v->pipe);
    v->has_delta = b2_info_has_delta(in);
    v->unshuffle_unit = b2_pipeline_single_shuffle(&v->pipe, 0);
    v->bitunshuffle_only = b2_pipeline_single_bitshuffle(&v->pipe);
    if (in->special || in->memcpyed || in->nbytes == 0)
        return B2_OK;

    /* codec format 2 (Snappy), 5 and 7 cannot be decoded here; 6 means the codec
     * id in byte 22 is a plugin's or a user codec's. */
    const b2_user_codec *uc = NULL;
    switch (in->codec_format) {
    case 0: case 1: case 3: case 4: break;
    case B2_CODEC_FORMAT_PLUGIN:
        if (b2_is_user_id(in->compcode)) {
            if (!(uc = b2_user_codec_find(d->reg, in->compcode)))
                return B2_USER_MISSING("codec", in->compcode, "");
            break;
        }
        B2_FAIL_IF(b2_codec_format_of(in->compcode) != B2_CODEC_FORMAT_PLUGIN,
                   B2_ERR_UNSUPPORTED, "codec id %d (%s) has no decoder here", in->compcode,
                   in->compcode == 36 ? "openhtj2k" : in->compcode == 37 ? "grok" : "unknown");
        break;
    default:
        return B2_FAIL(B2_ERR_UNSUPPORTED, "codec format %d (flags 0x%02x) has no decoder here",
                       in->codec_format, in->flags);
    }
    v->codec = (b2_codec_use){.compcode = in->compcode, .fmt = in->codec_format,
                              .meta = (uint8_t)in->compcode_meta, .typesize = in->typesize,
                              .geom = v->pipe.geom, .user = uc};
    /* unknown filter ids fail here, naming the id, before any block is decoded */
    if (v->filtered && (rc = b2_pipeline_check_ids(&v->pipe)) < 0)
        return rc;
    /* Working memory this chunk can make us allocate: every thread's scratch
     * (three blocks at most) plus getitem's and the delta reference's block.
     * A few hostile bytes can declare 2 GB blocks that a run fills. */
    int64_t blk = in->vlblocks ? in->nbytes : in->eff_blocksize;
    int64_t workers = d->nthreads < in->nblocks ? d->nthreads : in->nblocks;
    if ((rc = b2_mem_check(d->mem_limit, blk * (3 * (workers > 0 ? workers : 1) + 2),
                           "decoding the chunk", "b2_dctx_set_memory_limit")) < 0)
        return rc;
    int64_t pos = (int64_t)in->header_len + 4 * (int64_t)in->nblocks;
    B2_FAIL_IF(pos > v->bound, B2_ERR_TRUNCATED,
               "block offsets of %d blocks end at byte %lld, after cbytes %d", (int)in->nblocks,
               (long long)pos, (int)v->bound);
    if (in->has_dict) {
        B2_FAIL_IF(pos + 4 > v->bound, B2_ERR_TRUNCATED,
                   "dictionary size at byte %lld is past cbytes %d", (long long)pos, (int)v->bound);
        int32_t dsize = b2_load_le32s(src + pos);
        B2_FAIL_IF(dsize <= 0 || dsize > B2_MAX_DICT_SIZE, B2_ERR_INVALID_HEADER,
                   "dictionary size %d is not 1..%d", (int)dsize, B2_MAX_DICT_SIZE);
        B2_FAIL_IF(pos + 4 + dsize > v->bound, B2_ERR_TRUNCATED,
                   "dictionary of %d bytes at byte %lld runs past cbytes %d", (int)dsize,
                   (long long)pos + 4, (int)v->bound);
        v->dict = src + pos + 4;
        v->dict_len = dsize;
        v->ddict = b2_codec_ddict_new(in->codec_format, v->dict, dsize);
        pos += 4 + dsize;
    }
    v->data_start = (int32_t)pos;
    return B2_OK;
}

static void close_view(chunk_view *v) { b2_codec_ddict_free(v->ddict); }

/* open_view for the item- and block-addressed calls, which VL-block chunks do not support. */
static int open_block_view(const uint8_t *src, size_t size, const b2_dctx *d, chunk_view *v)
{
    int rc = open_view(src, size, d, v);
    if (rc >= 0 && v->info.vlblocks)
        return B2_FAIL(B2_ERR_UNSUPPORTED, "VL-block chunk: decode it whole or by block number");
    return rc;
}

/* Point a worker's codec state at the chunk's dictionary (or at none). */
static void use_dict(b2_dworker *w, const chunk_view *v)
{
    w->cs.dict = v->dict;
    w->cs.dict_len = v->dict_len;
    w->cs.zstd_ddict = v->ddict;
}

static int32_t block_size(const chunk_view *v, int32_t j)
{
    const b2_chunk_info *in = &v->info;
    return (j == in->nblocks - 1 && in->leftover) ? in->leftover : in->eff_blocksize;
}

/* Decode block j's streams into out (stream s at out + s * bsize / nstreams).
 * With pl (room for B2_PLANES_MAX), a split block's raw streams are not copied:
 * pl[s] points at stream s wherever it is, in out or in the chunk. need: the
 * bytes of each stream the caller reads (from its start), or more than the
 * stream holds for all of it; codecs that can stop early then do. */
static int decode_streams(const chunk_view *v, b2_dworker *w, int32_t j, int32_t bsize,
                          uint8_t *out, const uint8_t **pl, int32_t need)
{
    const b2_chunk_info *in = &v->info;
    int leftover_block = (j == in->nblocks - 1 && in->leftover);
    int32_t nstreams = (in->split && !leftover_block) ? in->typesize : 1;
    /* would silently lose bytes */
    B2_FAIL_IF(bsize % nstreams, B2_ERR_INVALID_HEADER,
               "block %d of %d bytes does not split into %d streams", (int)j, (int)bsize,
               (int)nstreams);
    int32_t neblock = bsize / nstreams;
    int64_t pos = b2_load_le32s(v->src + in->header_len + 4 * (int64_t)j);
    B2_FAIL_IF(pos < v->data_start || pos >= v->bound, B2_ERR_CORRUPT,
               "block %d starts at byte %lld, outside %d..%d", (int)j, (long long)pos,
               (int)v->data_start, (int)v->bound - 1);
    for (int32_t s = 0; s < nstreams; s++, out += neblock) {
        if (pl)
            pl[s] = out;
        B2_FAIL_IF(pos + 4 > v->bound, B2_ERR_TRUNCATED,
                   "block %d stream %d: size at byte %lld is past cbytes %d", (int)j, (int)s,
                   (long long)pos, (int)v->bound);
        int32_t csize = b2_load_le32s(v->src + pos);
        pos += 4;
        if (csize == 0) {
            memset(out, 0, (size_t)neblock);
        } else if (csize < 0) {
            B2_FAIL_IF(pos + 1 > v->bound, B2_ERR_TRUNCATED,
                       "block %d stream %d: run byte is past cbytes %d", (int)j, (int)s,
                       (int)v->bound);
            B2_FAIL_IF(csize < -255 || !(v->src[pos] & 0x01), B2_ERR_CORRUPT,
                       "block %d stream %d: bad run size %d (token 0x%02x)", (int)j, (int)s,
                       (int)csize, v->src[pos]);
            memset(out, (-csize) & 0xFF, (size_t)neblock);
            pos += 1;
        } else {
            B2_FAIL_IF(csize > v->bound - pos, B2_ERR_TRUNCATED,
                       "block %d stream %d: %d bytes at byte %lld run past cbytes %d", (int)j,
                       (int)s, (int)csize, (long long)pos, (int)v->bound);
            if (csize == neblock) {
                if (pl)
                    pl[s] = v->src + pos;
                else
                    memcpy(out, v->src + pos, (size_t)neblock);
            } else {
                b2_codec_use u = v->codec;
                u.blocksize = bsize;
                int r = need < neblock
                    ? b2_codec_decompress_prefix(&w->cs, &u, v->src + pos, csize, out, neblock, need)
                    : b2_codec_decompress(&w->cs, &u, v->src + pos, csize, out, neblock);
                if (need < neblock && r >= need)
                    r = neblock; /* the prefix asked for is there */
                if (r != neblock)
                    return r < 0 ? B2_FAIL(r, "block %d stream %d (%d bytes at %lld): %s", (int)j,
                                           (int)s, (int)csize, (long long)pos, b2_err_detail())
                                 : B2_FAIL(B2_ERR_CORRUPT, "block %d stream %d decodes to %d bytes, not %d",
                                           (int)j, (int)s, r, (int)neblock);
            }
            pos += csize;
        }
    }
    return B2_OK;
}

/* The unit when block j is split into one stream per byte plane and a byte
 * shuffle of that unit is the only filter to undo (streams = planes), else 0. */
static int32_t split_unshuffle_unit(const chunk_view *v, int32_t j, int32_t bsize)
{
    const b2_chunk_info *in = &v->info;
    int32_t unit = v->unshuffle_unit;
    if (unit < 2 || unit > B2_PLANES_MAX || !in->split || unit != in->typesize ||
        (j == in->nblocks - 1 && in->leftover) || bsize % unit)
        return 0;
    return unit;
}

/* Decode block j into out. ref: decoded block 0 (delta reference) or NULL for block 0. */
static int decode_block(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                        uint8_t *out, const uint8_t *ref)
{
    const b2_chunk_info *in = &v->info;
    int32_t bsize = block_size(v, j);
    __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
    if (in->memcpyed) {
        memcpy(out, v->src + in->header_len + (int64_t)j * in->eff_blocksize, (size_t)bsize);
        return B2_OK;
    }
    use_dict(w, v);
    if (!v->filtered)
        return decode_streams(v, w, j, bsize, out, NULL, INT32_MAX);
    uint8_t *tmp = worker_scratch(w, 2 * (size_t)in->eff_blocksize);
    if (!tmp)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int32_t unit = split_unshuffle_unit(v, j, bsize);
    if (unit) { /* unshuffle straight from the streams, raw ones in place */
        const uint8_t *pl[B2_PLANES_MAX];
        int rc = decode_streams(v, w, j, bsize, tmp, pl, INT32_MAX);
        if (rc < 0)
            return rc;
        b2_unshuffle_planes_kernel(unit)(unit, pl, 0, bsize / unit, out);
        return B2_OK;
    }
    int rc = decode_streams(v, w, j, bsize, tmp, NULL, INT32_MAX);
    if (rc < 0)
        return rc;
    return b2_pipeline_backward(&v->pipe, tmp, bsize, j ? ref : NULL, tmp + in->eff_blocksize,
                                out);
}

static void fill_special(const chunk_view *v, int64_t offset, uint8_t *dst, int64_t n)
{
    const b2_chunk_info *in = &v->info;
    switch (in->special) {
    case B2_SPECIAL_ZEROS:
        memset(dst, 0, (size_t)n);
        break;
    case B2_SPECIAL_NAN: {
        uint8_t pat[8];
        b2_nan_bytes(in->typesize, pat);
        for (int64_t i = 0; i < n; i++)
            dst[i] = pat[(offset + i) % in->typesize];
        break;
    }
    case B2_SPECIAL_VALUE: {
        int32_t vs = in->cbytes - B2_HEADER_LEN;
        const uint8_t *val = v->src + B2_HEADER_LEN;
        int64_t i = 0, k = offset % vs;
        /* the rest of a value cut by offset, one whole value, then doubling
         * copies of the whole values written (from where they start, so rows
         * starting inside a value keep its phase) */
        for (; i < n && k != 0; i++, k = (k + 1) % vs)
            dst[i] = val[k];
        int64_t whole = i;
        for (; i < n && k < vs; i++, k++)
            dst[i] = val[k];
        while (i < n) {
            int64_t chunk = i - whole < n - i ? i - whole : n - i;
            memcpy(dst + i, dst + whole, (size_t)chunk);
            i += chunk;
        }
        break;
    }
    default: /* uninit: content unspecified, leave dst alone */
        break;
    }
}

/* ---- postfilters ---- */

/* Run the context's postfilter on block j (size bytes at blk, offset bytes into
 * the chunk), on worker w. */
static int postfilter_block(const chunk_view *v, b2_dctx *d, const b2_dworker *w, int32_t j,
                            int64_t offset, int32_t size, uint8_t *blk)
{
    if (!d->post)
        return B2_OK;
    b2_postfilter_params pp = {.user = d->post_user, .block = blk, .size = size,
                               .typesize = v->info.typesize, .offset = (int32_t)offset,
                               .nblock = j, .tid = (int)(w - d->workers), .nchunk = d->nchunk};
    int rc = d->post(&pp);
    if (rc != 0)
        return B2_FAIL(B2_ERR_CALLBACK, "postfilter returned %d for block %d (bytes %lld..+%d)", rc,
                       (int)j, (long long)offset, (int)size);
    return B2_OK;
}

/* Block j of a fixed-block chunk, special ones included (uninit: zeros), into
 * out and through the postfilter. ref: decoded block 0 of a delta chunk. */
static int block_out(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j, uint8_t *out,
                     const uint8_t *ref)
{
    const b2_chunk_info *in = &v->info;
    int32_t bsize = block_size(v, j);
    int64_t off = (int64_t)j * in->eff_blocksize;
    int rc = B2_OK;
    if (in->special == B2_SPECIAL_UNINIT)
        memset(out, 0, (size_t)bsize);
    else if (in->special)
        fill_special(v, off, out, bsize);
    else if (j == 0 && ref)
        memcpy(out, ref, (size_t)bsize); /* the reference stays unfiltered */
    else
        rc = decode_block(v, d, w, j, out, ref);
    return rc < 0 ? rc : postfilter_block(v, d, w, j, off, bsize, out);
}

/* ---- VL-block chunks (doc/format/chunk.md §11) ---- */

/* Check the block table and compute each block's output offset (offs[nblocks+1]). */
static int vl_layout(const chunk_view *v, int64_t *offs)
{
    const b2_chunk_info *in = &v->info;
    const uint8_t *bst = v->src + B2_HEADER_LEN;
    int64_t total = 0, prev = -1;
    for (int32_t j = 0; j < in->nblocks; j++) {
        int64_t pos = b2_load_le32s(bst + 4 * (int64_t)j);
        int64_t next = j + 1 < in->nblocks ? b2_load_le32s(bst + 4 * (int64_t)j + 4) : v->bound;
        B2_FAIL_IF(pos < v->data_start || pos <= prev || pos > v->bound - 4 ||
                       next - pos - 4 <= 0 || next > v->bound,
                   B2_ERR_CORRUPT, "VL block %d spans bytes %lld..%lld of a %d-byte chunk", (int)j,
                   (long long)pos, (long long)next, (int)v->bound);
        int32_t neblock = b2_load_le32s(v->src + pos);
        B2_FAIL_IF(neblock <= 0, B2_ERR_CORRUPT, "VL block %d has size %d", (int)j, (int)neblock);
        offs[j] = total;
        total += neblock;
        B2_FAIL_IF(total > in->nbytes, B2_ERR_CORRUPT,
                   "VL blocks 0..%d hold %lld bytes, more than nbytes %d", (int)j,
                   (long long)total, (int)in->nbytes);
        prev = pos;
    }
    offs[in->nblocks] = total;
    B2_FAIL_IF(total != in->nbytes, B2_ERR_CORRUPT, "VL blocks hold %lld bytes, not nbytes %d",
               (long long)total, (int)in->nbytes);
    return B2_OK;
}

static int vl_decode_block(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                           uint8_t *out)
{
    const b2_chunk_info *in = &v->info;
    const uint8_t *bst = v->src + B2_HEADER_LEN;
    int64_t pos = b2_load_le32s(bst + 4 * (int64_t)j);
    int64_t next = j + 1 < in->nblocks ? b2_load_le32s(bst + 4 * (int64_t)j + 4) : v->bound;
    int32_t neblock = b2_load_le32s(v->src + pos);
    int32_t span = (int32_t)(next - pos - 4);
    __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
    uint8_t *tmp = out;
    if (v->filtered) {
        if (!(tmp = worker_scratch(w, 2 * (size_t)neblock)))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    if (span == neblock) {
        memcpy(tmp, v->src + pos + 4, (size_t)neblock);
    } else {
        use_dict(w, v);
        b2_codec_use u = v->codec;
        u.blocksize = neblock;
        int r = b2_codec_decompress(&w->cs, &u, v->src + pos + 4, span, tmp, neblock);
        if (r != neblock)
            return r < 0 ? B2_FAIL(r, "VL block %d (%d bytes): %s", (int)j, (int)span, b2_err_detail())
                         : B2_FAIL(B2_ERR_CORRUPT, "VL block %d decodes to %d bytes, not %d",
                                   (int)j, r, (int)neblock);
    }
    /* Every VL block is its own delta reference (doc/format/filters.md §4). */
    return v->filtered ? b2_pipeline_backward(&v->pipe, tmp, neblock, NULL, tmp + neblock, out)
                       : B2_OK;
}

/* ---- decoding blocks into strided rows (b2_chunk_decompress_rows) ---- */

/* What to do with each row: copy it from a decoded block, unshuffle it from the
 * block's planes, or fill it with a special chunk's value. */
typedef struct row_op {
    const uint8_t *src;
    int32_t unit;
    const uint8_t *const *pl; /* the block's planes (row_unshuffle) */
    b2_planes_fn unshuffle;   /* resolved once per block */
    int32_t nelem;            /* row_bitunshuffle: elements in the block */
    uint8_t *tmp;             /* row_bitunshuffle: 2 x block size of scratch */
    const chunk_view *v;
    int64_t base; /* special: the block's offset in the chunk */
} row_op;

static void row_copy(const void *op, int64_t off, uint8_t *user, int64_t len)
{
    memcpy(user, ((const row_op *)op)->src + off, (size_t)len);
}

static void row_unshuffle(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const row_op *op = arg;
    op->unshuffle(op->unit, op->pl, (int32_t)(off / op->unit), (int32_t)(len / op->unit), user);
}

/* A row of a bit-shuffled block: the bit rows hold nelem / 8 bytes each, so
 * the rows' bytes for the 8-aligned elements around the row, taken from each
 * bit row, form a bit-shuffled block of their own; only that is unshuffled. */
static void row_bitunshuffle(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const row_op *op = arg;
    int32_t ts = op->unit, e0 = (int32_t)(off / ts), e1 = (int32_t)((off + len) / ts);
    int32_t a0 = e0 & ~7, a1 = (e1 + 7) & ~7, m = a1 - a0;
    uint8_t *mini = op->tmp, *out = op->tmp + (size_t)m * (size_t)ts;
    for (int32_t r = 0; r < 8 * ts; r++)
        memcpy(mini + (size_t)r * (size_t)(m / 8),
               op->src + (size_t)r * (size_t)(op->nelem / 8) + (size_t)(a0 / 8), (size_t)(m / 8));
    b2_bitunshuffle(ts, m * ts, mini, out, op->v->pipe.version == 2);
    memcpy(user, out + (size_t)(e0 - a0) * (size_t)ts, (size_t)len);
}

static void row_special(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const row_op *op = arg;
    if (op->v->info.special == B2_SPECIAL_UNINIT)
        memset(user, 0, (size_t)len); /* defined output for what no block wrote */
    else
        fill_special(op->v, op->base + off, user, len);
}

/* Decode block j straight into the rows r. ref: decoded block 0 of a delta chunk. */
static int decode_block_rows(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                             b2_block_rows *r, const uint8_t *ref)
{
    const b2_chunk_info *in = &v->info;
    int32_t bsize = block_size(v, j);
    int rc = b2_rows_normalize(r, bsize);
    if (rc < 0 || r->run == 0)
        return rc;
    row_op op = {.v = v};
    if (d->post) {
        /* The postfilter sees the whole block: decode it (into the one
         * contiguous run when that is the block), then copy the rows. */
        if (r->nd == 0 && r->soff == 0 && r->run == bsize)
            return block_out(v, d, w, j, r->user, ref);
        uint8_t *scr = worker_scratch(w, 3 * (size_t)in->eff_blocksize);
        if (!scr)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        op.src = scr + 2 * (size_t)in->eff_blocksize;
        if ((rc = block_out(v, d, w, j, (uint8_t *)op.src, ref)) < 0)
            return rc;
        b2_rows_walk(r, row_copy, &op);
        return B2_OK;
    }
    if (in->special) {
        op.base = (int64_t)j * in->eff_blocksize;
        b2_rows_walk(r, row_special, &op);
        return B2_OK;
    }
    if (j == 0 && ref) { /* block 0 of a delta chunk is already decoded */
        op.src = ref;
        b2_rows_walk(r, row_copy, &op);
        return B2_OK;
    }
    if (r->nd == 0 && r->soff == 0 && r->run == bsize)
        return decode_block(v, d, w, j, r->user, ref); /* one contiguous run */
    if (in->memcpyed) {
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        op.src = v->src + in->header_len + (int64_t)j * in->eff_blocksize;
        b2_rows_walk(r, row_copy, &op);
        return B2_OK;
    }
    size_t eb = (size_t)in->eff_blocksize;
    uint8_t *scr = worker_scratch(w, 3 * eb);
    if (!scr)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int32_t unit = v->unshuffle_unit;
    row_fn fn = row_copy;
    const uint8_t *pl[B2_PLANES_MAX];
    if (unit && unit <= B2_PLANES_MAX && bsize % unit == 0 && b2_rows_aligned(r, unit)) {
        /* The unshuffle is the last pass: it writes each row in place, reading a
         * split block's raw streams where they are in the chunk. */
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        use_dict(w, v);
        int split = split_unshuffle_unit(v, j, bsize) != 0;
        /* Rows ending early in the block need only the start of each plane:
         * element e's bytes sit at e in every plane. Unsplit, the last plane
         * begins at (unit - 1) * nelem. */
        int64_t nelem = bsize / unit, upto = (b2_rows_end(r) + unit - 1) / unit;
        int32_t need = (int32_t)(split ? upto : (unit - 1) * nelem + upto);
        if ((rc = decode_streams(v, w, j, bsize, scr, split ? pl : NULL, need)) < 0)
            return rc;
        if (!split)
            for (int32_t s = 0; s < unit; s++)
                pl[s] = scr + (size_t)s * (size_t)(bsize / unit);
        fn = row_unshuffle;
        op.unit = unit;
        op.pl = pl;
        op.unshuffle = b2_unshuffle_planes_kernel(unit);
    } else if (v->bitunshuffle_only && bsize == in->eff_blocksize && bsize % (8 * in->typesize) == 0 &&
               b2_rows_aligned(r, in->typesize) && b2_rows_bytes(r) * 8 <= bsize) {
        /* A few rows of a bit-shuffled block: the codec decodes the block, and only
         * the rows' elements are bit-unshuffled (row_bitunshuffle). */
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        use_dict(w, v);
        if ((rc = decode_streams(v, w, j, bsize, scr + 2 * eb, NULL, INT32_MAX)) < 0)
            return rc;
        fn = row_bitunshuffle;
        op.src = scr + 2 * eb;
        op.unit = in->typesize;
        op.nelem = bsize / in->typesize;
        op.tmp = scr;
    } else if (!v->filtered && !in->split) {
        /* Codec only: the rows need the stream up to their last byte. */
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        use_dict(w, v);
        if ((rc = decode_streams(v, w, j, bsize, scr + 2 * eb, NULL, (int32_t)b2_rows_end(r))) < 0)
            return rc;
        op.src = scr + 2 * eb;
    } else {
        /* Other pipelines: decode into scratch (cache-resident), then copy. */
        if ((rc = decode_block(v, d, w, j, scr + 2 * eb, ref)) < 0)
            return rc;
        op.src = scr + 2 * eb;
    }
    b2_rows_walk(r, fn, &op);
    return B2_OK;
}

typedef struct rows_job {
    const chunk_view *v;
    b2_dctx *d;
    const int32_t *list; /* blocks to decode, or NULL: all */
    int32_t count;
    b2_block_rows_fn fn;
    void *ud;
    const uint8_t *ref;
    int32_t next;        /* next list position to take (atomic) */
    int error;           /* first error seen (atomic) */
} rows_job;

static void set_error(int *slot, int rc)
{
    int zero = 0;
    __atomic_compare_exchange_n(slot, &zero, rc, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static void run_rows(void *arg, b2_dworker *w)
{
    rows_job *job = arg;
    for (;;) {
        if (__atomic_load_n(&job->error, __ATOMIC_RELAXED))
            return;
        int32_t k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (k >= job->count)
            return;
        int32_t j = job->list ? job->list[k] : k;
        int rc = B2_ERR_RANGE;
        if (j >= 0 && j < job->v->info.nblocks) {
            b2_block_rows r;
            memset(&r, 0, sizeof r);
            rc = job->fn(job->ud, j, &r);
            if (rc >= 0)
                rc = decode_block_rows(job->v, job->d, w, j, &r, job->ref);
        }
        if (rc < 0) {
            set_error(&job->error, rc);
            return;
        }
    }
}

/* ---- parallel block loop ---- */

typedef struct block_job {
    const chunk_view *v;
    b2_dctx *d;
    uint8_t *dst;
    const int64_t *vl_offs; /* VL chunks: output offset of each block */
    const uint8_t *ref;     /* with a postfilter: block 0 of a delta chunk, decoded apart */
    int post;               /* blocks go through block_out (a postfilter is set) */
    int32_t next;           /* next block to take (atomic) */
    int error;              /* first error seen (atomic) */
} block_job;

static void run_blocks(block_job *job, b2_dworker *w)
{
    const b2_chunk_info *in = &job->v->info;
    for (;;) {
        if (__atomic_load_n(&job->error, __ATOMIC_RELAXED))
            return;
        int32_t j = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (j >= in->nblocks)
            return;
        int rc;
        if (job->vl_offs) {
            uint8_t *out = job->dst + job->vl_offs[j];
            int64_t size = job->vl_offs[j + 1] - job->vl_offs[j];
            rc = vl_decode_block(job->v, job->d, w, j, out);
            if (rc >= 0)
                rc = postfilter_block(job->v, job->d, w, j, job->vl_offs[j], (int32_t)size, out);
        } else if (job->post) {
            rc = block_out(job->v, job->d, w, j, job->dst + (int64_t)j * in->eff_blocksize,
                           job->ref);
        } else {
            rc = decode_block(job->v, job->d, w, j, job->dst + (int64_t)j * in->eff_blocksize,
                              job->dst);
        }
        if (rc < 0) {
            int zero = 0;
            __atomic_compare_exchange_n(&job->error, &zero, rc, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
            return;
        }
    }
}

typedef void (*worker_fn)(void *job, b2_dworker *w);

typedef struct pool_arg {
    worker_fn fn;
    void *job;
    b2_dworker *workers;
} pool_arg;

static void pool_main(void *p, int worker)
{
    pool_arg *a = p;
    a->fn(a->job, &a->workers[worker]);
}

/* Run fn(job, worker) on nt workers of the context's pool (the caller is worker 0)
 * and wait for all; fn shares the work through an atomic counter. */
static void run_on_threads(b2_dctx *d, int nt, worker_fn fn, void *job)
{
    pool_arg a = {fn, job, d->workers};
    if (b2_pool_run(d->pool, nt, pool_main, &a) < 0)
        fn(job, &d->workers[0]);
}

static void run_blocks_fn(void *job, b2_dworker *w) { run_blocks(job, w); }

/* Decode blocks job->next .. nblocks-1 on up to d->nthreads threads. */
static int run_parallel(block_job *job)
{
    int nt = job->d->nthreads;
    int remaining = job->v->info.nblocks - job->next;
    run_on_threads(job->d, nt > remaining ? remaining : nt, run_blocks_fn, job);
    return job->error;
}

static int decode_ref(const chunk_view *v, b2_dctx *d, const uint8_t **ref);

static int decompress_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                           void *dst, size_t dstcap)
{
    if (!d || !src || (!dst && dstcap))
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !d ? "dctx" : !src ? "src" : "dst");
    int rc = open_view(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    B2_FAIL_IF((size_t)in->nbytes > dstcap, B2_ERR_DST_TOO_SMALL,
               "chunk holds %d bytes, dst has room for %zu", (int)in->nbytes, dstcap);
    if (in->nbytes == 0)
        return 0;
    block_job job = {.v = v, .d = d, .dst = dst, .post = d->post && !in->vlblocks};
    if (job.post) {
        /* Every block, special and memcpy chunks too, through block_out; a delta
         * chunk's block 0 is decoded apart, as the reference must not be
         * postfiltered. */
        if (v->has_delta && in->nblocks > 1 && !in->special && !in->memcpyed &&
            (rc = decode_ref(v, d, &job.ref)) < 0)
            return rc;
        rc = d->nthreads > 1 && in->nblocks > 1 ? run_parallel(&job)
                                                : (run_blocks(&job, &d->workers[0]), job.error);
        return rc < 0 ? rc : in->nbytes;
    }
    if (in->special) {
        fill_special(v, 0, dst, in->nbytes);
        return in->nbytes;
    }
    if (in->memcpyed) {
        memcpy(dst, v->src + in->header_len, (size_t)in->nbytes);
        __atomic_fetch_add(&d->blocks_decoded, in->nblocks, __ATOMIC_RELAXED);
        return in->nbytes;
    }
    int64_t *offs = NULL;
    if (in->vlblocks) {
        if ((int64_t)B2_HEADER_LEN + 4 * (int64_t)in->nblocks > v->bound)
            return B2_FAIL_CODE(B2_ERR_TRUNCATED);
        if (!(offs = malloc(((size_t)in->nblocks + 1) * sizeof *offs)))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        if ((rc = vl_layout(v, offs)) < 0) {
            free(offs);
            return rc;
        }
        job.vl_offs = offs;
    } else if (v->has_delta && in->nblocks > 1) {
        /* Block 0 is the delta reference of every other block: decode it first. */
        if ((rc = decode_block(v, d, &d->workers[0], 0, dst, NULL)) < 0)
            return rc;
        job.next = 1;
    }
    rc = d->nthreads > 1 && in->nblocks - job.next > 1 ? run_parallel(&job)
                                                        : (run_blocks(&job, &d->workers[0]), job.error);
    free(offs);
    return rc < 0 ? rc : in->nbytes;
}

int b2_chunk_decompress(b2_dctx *d, const void *src, size_t srcsize, void *dst, size_t dstcap)
{
    chunk_view v = {0}; /* close_view is safe even if open_view never ran */
    int rc = decompress_impl(&v, d, src, srcsize, dst, dstcap);
    close_view(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}

static int vl_get_block_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                             int32_t nblock, void *dst, size_t dstcap)
{
    if (!d || !src)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = open_view(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(!v->info.vlblocks, B2_ERR_INVALID_PARAM, "not a VL-block chunk");
    B2_FAIL_IF(nblock < 0 || nblock >= v->info.nblocks, B2_ERR_RANGE,
               "block %d of a chunk of %d blocks", (int)nblock, (int)v->info.nblocks);
    if ((int64_t)B2_HEADER_LEN + 4 * (int64_t)v->info.nblocks > v->bound)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    int64_t *offs = malloc(((size_t)v->info.nblocks + 1) * sizeof *offs);
    if (!offs)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = vl_layout(v, offs);
    int64_t size = offs[nblock + 1] - offs[nblock], off = offs[nblock];
    free(offs);
    if (rc < 0)
        return rc;
    B2_FAIL_IF((size_t)size > dstcap, B2_ERR_DST_TOO_SMALL,
               "VL block %d holds %lld bytes, dst has room for %zu", (int)nblock, (long long)size,
               dstcap);
    rc = vl_decode_block(v, d, &d->workers[0], nblock, dst);
    if (rc >= 0)
        rc = postfilter_block(v, d, &d->workers[0], nblock, off, (int32_t)size, dst);
    return rc < 0 ? rc : (int)size;
}

int b2_chunk_vl_get_block(b2_dctx *d, const void *src, size_t srcsize, int32_t nblock,
                          void *dst, size_t dstcap)
{
    chunk_view v = {0}; /* close_view is safe even if open_view never ran */
    int rc = vl_get_block_impl(&v, d, src, srcsize, nblock, dst, dstcap);
    close_view(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}

/* Block 0 of a delta chunk, every other block's reference, decoded once into the
 * context's buffer. */
static int decode_ref(const chunk_view *v, b2_dctx *d, const uint8_t **ref)
{
    size_t eb = (size_t)v->info.eff_blocksize;
    if (d->refcap < eb) {
        uint8_t *p = realloc(d->ref, eb);
        if (!p)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        d->ref = p;
        d->refcap = eb;
    }
    *ref = d->ref;
    return decode_block(v, d, &d->workers[0], 0, d->ref, NULL);
}

static int getitem_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                        int64_t start, int64_t nitems, void *dst, size_t dstcap)
{
    if (!d || !src || (!dst && dstcap))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = open_block_view(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    int64_t ts = in->typesize;
    B2_FAIL_IF(start < 0 || nitems < 0 || start > in->nbytes / ts || nitems > in->nbytes / ts ||
                   (start + nitems) * ts > in->nbytes,
               B2_ERR_RANGE, "items %lld..+%lld outside the chunk's %lld items of %d bytes",
               (long long)start, (long long)nitems, (long long)(in->nbytes / ts), (int)ts);
    int64_t first = start * ts, stop = (start + nitems) * ts;
    B2_FAIL_IF((uint64_t)(stop - first) > dstcap, B2_ERR_DST_TOO_SMALL,
               "%lld bytes wanted, dst has room for %zu", (long long)(stop - first), dstcap);
    uint8_t *out = dst;
    if (stop == first)
        return 0;
    if (in->special && !d->post) {
        fill_special(v, first, out, stop - first);
        return (int)(stop - first);
    }
    if (in->memcpyed && !d->post) {
        memcpy(out, v->src + in->header_len + first, (size_t)(stop - first));
        return (int)(stop - first);
    }
    b2_dworker *w = &d->workers[0];
    int64_t bs = in->eff_blocksize;
    int32_t jfirst = (int32_t)(first / bs), jlast = (int32_t)((stop - 1) / bs);
    /* A block buffer of our own (decode_block's scratch is the worker's), kept in
     * the context so repeated calls allocate nothing. */
    if ((size_t)bs > d->itemcap) {
        uint8_t *p = realloc(d->item, (size_t)bs);
        if (!p)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        d->item = p;
        d->itemcap = (size_t)bs;
    }
    uint8_t *blockbuf = d->item;
    const uint8_t *ref = NULL;
    /* getitem must decode the delta reference too (the reference forgets: doc/format/chunk.md §10). */
    if (v->has_delta && jlast > 0 && !in->special && !in->memcpyed &&
        (rc = decode_ref(v, d, &ref)) < 0)
        goto done;
    for (int32_t j = jfirst; j <= jlast; j++) {
        int64_t b0 = j * bs, bsize = block_size(v, j);
        int64_t lo = first > b0 ? first : b0, hi = stop < b0 + bsize ? stop : b0 + bsize;
        const uint8_t *blk;
        if (d->post) {
            /* the postfilter sees the whole block, then the wanted bytes are copied */
            int whole = lo == b0 && hi == b0 + bsize;
            uint8_t *o = whole ? out + (b0 - first) : blockbuf;
            if ((rc = block_out(v, d, w, j, o, ref)) < 0)
                goto done;
            if (!whole)
                memcpy(out + (lo - first), blockbuf + (lo - b0), (size_t)(hi - lo));
            continue;
        }
        if (j == 0 && ref) {
            blk = ref;
        } else if (lo == b0 && hi == b0 + bsize) {
            /* whole block wanted: decode straight into the output */
            if ((rc = decode_block(v, d, w, j, out + (b0 - first), ref)) < 0)
                goto done;
            continue;
        } else {
            if ((rc = decode_block(v, d, w, j, blockbuf, ref)) < 0)
                goto done;
            blk = blockbuf;
        }
        memcpy(out + (lo - first), blk + (lo - b0), (size_t)(hi - lo));
    }
    rc = (int)(stop - first);
done:
    return rc;
}

int b2_chunk_getitem(b2_dctx *d, const void *src, size_t srcsize, int64_t start, int64_t nitems,
                     void *dst, size_t dstcap)
{
    chunk_view v = {0}; /* close_view is safe even if open_view never ran */
    int rc = getitem_impl(&v, d, src, srcsize, start, nitems, dst, dstcap);
    close_view(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}

static int rows_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                     const int32_t *blocks, int32_t nblocks, b2_block_rows_fn fn, void *ud)
{
    if (!d || !src || !fn || (blocks && nblocks < 0))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = open_block_view(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    rows_job job = {.v = v, .d = d, .list = blocks, .count = blocks ? nblocks : in->nblocks,
                    .fn = fn, .ud = ud};
    if (job.count == 0)
        return B2_OK;
    if (v->has_delta && !in->special && !in->memcpyed && (rc = decode_ref(v, d, &job.ref)) < 0)
        return rc;
    int nt = d->nthreads < job.count ? d->nthreads : job.count;
    if (nt > 1)
        run_on_threads(d, nt, run_rows, &job);
    else
        run_rows(&job, &d->workers[0]);
    return job.error;
}

int b2_chunk_decompress_rows(b2_dctx *d, const void *src, size_t srcsize, const int32_t *blocks,
                             int32_t nblocks, b2_block_rows_fn fn, void *ud)
{
    chunk_view v = {0}; /* close_view is safe even if open_view never ran */
    int rc = rows_impl(&v, d, src, srcsize, blocks, nblocks, fn, ud);
    close_view(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}

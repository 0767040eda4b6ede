/* SPDX-License-Identifier: BSD-3-Clause */
/* Derived geometry of a b2nd array (doc/format/b2nd.md §2) and the default rule for
 * chunk and block shapes. Every product is overflow-checked because the shapes
 * come from files. */
#include <string.h>

#include "b2nd_internal.h"

int b2_nd_mul_checked(int64_t a, int64_t b, int64_t limit, int64_t *out)
{
    if (a == 0 || b == 0) {
        *out = 0;
        return 0;
    }
    if (a < 0 || b < 0 || a > limit / b)
        return -1;
    *out = a * b;
    return 0;
}

int b2_nd_shapes_check(int ndim, const int64_t *shape, const int32_t *cs, const int32_t *bs)
{
    B2_FAIL_IF(ndim < 0 || ndim > B2_ND_MAX_DIM, B2_ERR_UNSUPPORTED, "ndim %d is not 0..%d", ndim,
               B2_ND_MAX_DIM);
    int64_t n = 1, cn = 1, bn = 1;
    for (int i = 0; i < ndim; i++) {
        B2_FAIL_IF(shape[i] < 0 || cs[i] < 0 || bs[i] < 0 ||
                       (shape[i] != 0 && (cs[i] == 0 || bs[i] == 0)),
                   B2_ERR_INVALID_HEADER, "dimension %d: shape %lld, chunkshape %d, blockshape %d",
                   i, (long long)shape[i], (int)cs[i], (int)bs[i]);
        /* int64 for nitems, int32 for chunk and block item counts (as c-blosc2) */
        B2_FAIL_IF(b2_nd_mul_checked(n, shape[i], INT64_MAX, &n) < 0, B2_ERR_DOES_NOT_FIT,
                   "shape overflows 64 bits at dimension %d (%lld)", i, (long long)shape[i]);
        B2_FAIL_IF(b2_nd_mul_checked(cn, cs[i], INT32_MAX, &cn) < 0, B2_ERR_DOES_NOT_FIT,
                   "chunkshape over 2^31-1 items at dimension %d (%d)", i, (int)cs[i]);
        B2_FAIL_IF(b2_nd_mul_checked(bn, bs[i], INT32_MAX, &bn) < 0, B2_ERR_DOES_NOT_FIT,
                   "blockshape over 2^31-1 items at dimension %d (%d)", i, (int)bs[i]);
    }
    return B2_OK;
}

int b2_nd_geom_init(b2_nd_geom *g, int ndim, const int64_t *shape, const int32_t *cs,
                   const int32_t *bs, int32_t typesize)
{
    int rc = b2_nd_shapes_check(ndim, shape, cs, bs);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(typesize <= 0, B2_ERR_INVALID_PARAM, "typesize %d", (int)typesize);
    memset(g, 0, sizeof *g);
    g->ndim = ndim;
    g->typesize = typesize;
    int64_t nitems = 1, nchunks = 1, cn = 1, bn = 1, en = 1;
    for (int i = 0; i < ndim; i++) {
        int64_t s = shape[i], c = cs[i], b = bs[i];
        g->shape[i] = s;
        g->chunkshape[i] = cs[i];
        g->blockshape[i] = bs[i];
        /* A zero-extent dimension may carry zero chunk/block sizes: guard divisions. */
        int64_t nb = b ? (c + b - 1) / b : 0;
        int64_t ec = nb * b;
        if (ec > INT32_MAX)
            return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
        g->extchunkshape[i] = (int32_t)ec;
        g->blocks_in_chunk[i] = (int32_t)nb;
        g->chunks_in_array[i] = c ? s / c + (s % c != 0) : 0;
        if (b2_nd_mul_checked(nitems, s, INT64_MAX, &nitems) < 0 ||
            b2_nd_mul_checked(nchunks, g->chunks_in_array[i], INT64_MAX, &nchunks) < 0 ||
            b2_nd_mul_checked(cn, c, INT32_MAX, &cn) < 0 ||
            b2_nd_mul_checked(bn, b, INT32_MAX, &bn) < 0 ||
            b2_nd_mul_checked(en, ec, INT32_MAX, &en) < 0)
            return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    }
    int64_t chunk_bytes, block_bytes, total_bytes;
    if (b2_nd_mul_checked(nitems, typesize, INT64_MAX, &total_bytes) < 0) /* byte offsets */
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    if (b2_nd_mul_checked(en, typesize, B2_MAX_BUFFERSIZE, &chunk_bytes) < 0 ||
        b2_nd_mul_checked(bn, typesize, B2_MAX_BUFFERSIZE, &block_bytes) < 0)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    g->nitems = nitems;
    g->nchunks = nchunks;
    g->chunknitems = (int32_t)cn;
    g->blocknitems = (int32_t)bn;
    g->extchunknitems = (int32_t)en;
    g->nblocks = bn ? (int32_t)(en / bn) : 0;
    g->chunk_bytes = (int32_t)chunk_bytes;
    g->block_bytes = (int32_t)block_bytes;
    return B2_OK;
}

int b2_nd_geom_chunk_is_c_order(const b2_nd_geom *g)
{
    /* Some k with block == 1 before it, block == chunk after it, and chunk[k] a
     * multiple of block[k]: then blocks tile the chunk in C order (doc/format/b2nd.md §3). */
    for (int k = 0; k < g->ndim; k++) {
        int ok = g->chunkshape[k] % g->blockshape[k] == 0;
        for (int i = 0; i < k && ok; i++)
            ok = g->blockshape[i] == 1;
        for (int i = k + 1; i < g->ndim && ok; i++)
            ok = g->blockshape[i] == g->chunkshape[i];
        if (ok)
            return 1;
    }
    return g->ndim == 0;
}

/* Fill out[i] from the last dimension backwards so that the product of out stays
 * within target items, using the whole extent while it fits and then the largest
 * divisor of the extent that is at least half the room left (else the room). */
static void fill_backwards(int ndim, const int64_t *extent, int64_t target, int32_t *out)
{
    int64_t room = target < 1 ? 1 : target;
    for (int i = ndim - 1; i >= 0; i--) {
        int64_t e = extent[i] < 1 ? 1 : extent[i];
        if (room >= e) {
            out[i] = (int32_t)(e > INT32_MAX ? INT32_MAX : e);
            room /= e;
            continue;
        }
        int64_t pick = room;
        for (int64_t d = room; d >= (room + 1) / 2 && d >= 1; d--) {
            if (e % d == 0) {
                pick = d;
                break;
            }
        }
        out[i] = (int32_t)(pick < 1 ? 1 : pick);
        room = 1;
    }
}

#define B2_ND_DEFAULT_CHUNK_BYTES (4 << 20)
#define B2_ND_DEFAULT_BLOCK_BYTES (256 << 10)

int b2_nd_default_shapes(b2_nd_params *p)
{
    B2_FAIL_IF(!p, B2_ERR_INVALID_PARAM, "params is NULL");
    B2_FAIL_IF(p->ndim < 0 || p->ndim > B2_ND_MAX_DIM, B2_ERR_INVALID_PARAM, "ndim %d is not 0..%d",
               p->ndim, B2_ND_MAX_DIM);
    B2_FAIL_IF(p->typesize <= 0, B2_ERR_INVALID_PARAM, "typesize %d", (int)p->typesize);
    int need_chunk = 0, need_block = 0;
    for (int i = 0; i < p->ndim; i++) {
        B2_FAIL_IF(p->shape[i] < 0 || p->chunkshape[i] < 0 || p->blockshape[i] < 0,
                   B2_ERR_INVALID_PARAM, "dimension %d: shape %lld, chunkshape %d, blockshape %d",
                   i, (long long)p->shape[i], (int)p->chunkshape[i], (int)p->blockshape[i]);
        need_chunk |= p->chunkshape[i] == 0;
        need_block |= p->blockshape[i] == 0;
    }
    if (need_chunk) {
        int32_t cs[B2_ND_MAX_DIM];
        fill_backwards(p->ndim, p->shape, B2_ND_DEFAULT_CHUNK_BYTES / p->typesize, cs);
        for (int i = 0; i < p->ndim; i++)
            if (p->chunkshape[i] == 0)
                p->chunkshape[i] = cs[i];
    }
    if (need_block) {
        int64_t ext[B2_ND_MAX_DIM];
        int32_t bs[B2_ND_MAX_DIM];
        for (int i = 0; i < p->ndim; i++)
            ext[i] = p->chunkshape[i];
        fill_backwards(p->ndim, ext, B2_ND_DEFAULT_BLOCK_BYTES / p->typesize, bs);
        for (int i = 0; i < p->ndim; i++)
            if (p->blockshape[i] == 0)
                p->blockshape[i] = bs[i] < p->chunkshape[i] ? bs[i] : p->chunkshape[i];
    }
    return B2_OK;
}

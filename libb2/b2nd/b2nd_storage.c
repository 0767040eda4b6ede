/* SPDX-License-Identifier: BSD-3-Clause */
/* The b2nd layer's only contact with the super-chunk: every chunk and metalayer
 * access of the array goes through these few functions, so the storage backend
 * can change without touching the geometry or slicing code. */
#include <stdlib.h>

#include "b2nd_internal.h"
#include "frame_reader.h"
#include "b2_chunk_experimental.h"

int b2_nd_st_reader(b2_nd_array *a, nd_reader *x)
{
    *x = (nd_reader){0};
    if (!(x->r = b2_frame_rd_get(a->sc)))
        return B2_ERR_NOMEM;
    int busy = 0;
    x->lent = a->lent && __atomic_compare_exchange_n(&a->lent_busy, &busy, 1, 0, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_RELAXED);
    x->d = x->lent ? a->lent : b2_frame_rd_dctx(x->r);
    /* plugins like ndcell and zfp decode blocks of this shape (also on a lent
     * context; a "caterva" array's frame does not know it) */
    b2_dctx_set_geometry(x->d, &a->cparams.geometry);
    if (a->cparams.registry) /* a lent context keeps its own otherwise */
        b2_dctx_set_registry(x->d, a->cparams.registry);
    x->before = b2_dctx_blocks_decoded(x->d);
    return B2_OK;
}

void b2_nd_st_reader_done(b2_nd_array *a, nd_reader *x)
{
    if (!x->r)
        return;
    __atomic_fetch_add(&a->blocks_decoded, b2_dctx_blocks_decoded(x->d) - x->before,
                       __ATOMIC_RELAXED);
    if (x->lent)
        __atomic_store_n(&a->lent_busy, 0, __ATOMIC_RELEASE);
    b2_frame_rd_put(a->sc, x->r);
    *x = (nd_reader){0};
}

int64_t b2_nd_st_nchunks(b2_nd_array *a)
{
    return b2_schunk_nchunks(a->sc);
}

int b2_nd_st_chunk_special(b2_nd_array *a, int64_t i)
{
    int nb = b2_schunk_chunk_nbytes(a->sc, i);
    if (nb < 0)
        return nb;
    if (nb != a->g.chunk_bytes)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    return b2_schunk_chunk_special(a->sc, i);
}

int b2_nd_st_get_chunk(b2_nd_array *a, int64_t i, uint8_t **chunk, int32_t *cbytes)
{
    *chunk = NULL;
    int rc = b2_schunk_get_chunk(a->sc, i, chunk, cbytes);
    if (rc < 0) {
        free(*chunk);
        *chunk = NULL;
        return rc;
    }
    return *chunk ? B2_OK : B2_FAIL_CODE(B2_ERR_CORRUPT);
}

int b2_nd_st_chunk_view(b2_nd_array *a, nd_reader *x, int64_t i, const uint8_t **chunk,
                        int32_t *cbytes)
{
    return b2_frame_rd_chunk_view(a->sc, x->r, i, chunk, cbytes);
}

int b2_nd_st_update_chunk(b2_nd_array *a, int64_t i, const uint8_t *chunk, int32_t cbytes)
{
    int64_t rc = b2_schunk_update_chunk(a->sc, i, chunk, cbytes);
    return rc < 0 ? (int)rc : B2_OK;
}

int b2_nd_st_insert_chunk(b2_nd_array *a, int64_t i, const uint8_t *chunk, int32_t cbytes)
{
    int64_t rc = b2_schunk_insert_chunk(a->sc, i, chunk, cbytes);
    return rc < 0 ? (int)rc : B2_OK;
}

int b2_nd_st_delete_chunk(b2_nd_array *a, int64_t i)
{
    int64_t rc = b2_schunk_delete_chunk(a->sc, i);
    return rc < 0 ? (int)rc : B2_OK;
}

int b2_nd_st_write_meta(b2_nd_array *a)
{
    uint8_t *buf;
    int32_t len;
    int rc = b2_nd_meta_encode(&a->meta, &buf, &len);
    if (rc < 0)
        return rc;
    if (!a->meta.dtype) {
        /* Legacy layouts (no dtype) keep their length: stop after blockshape. */
        len -= 1 + 5 + 3;
        if (a->meta_name[0] == 'c')
            buf[0] = 0x95;
    }
    rc = b2_schunk_meta_update(a->sc, a->meta_name, buf, len);
    free(buf);
    return rc < 0 ? rc : B2_OK;
}


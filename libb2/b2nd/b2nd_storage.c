/* The b2nd layer's only contact with the super-chunk: every chunk and metalayer
 * access of the array goes through these few functions, so the storage backend
 * can change without touching the geometry or slicing code. */
#include <stdlib.h>

#include "b2nd_internal.h"

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

int b2_nd_st_chunk_view(b2_nd_array *a, int64_t i, const uint8_t **chunk, int32_t *cbytes)
{
    return b2_schunk_chunk_view(a->sc, i, chunk, cbytes);
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


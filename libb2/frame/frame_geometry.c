/* Block geometry of a frame that holds a b2nd array: the ndcell, ndmean, ndlz
 * and zfp plugins work on blocks of the array's block shape, which only the
 * "b2nd" metalayer records (plugins.md). The frame layer reads ndim and the
 * block shape from it itself, so chunks decode and encode through the frame API
 * without the caller passing the geometry. Only those two fields are read here;
 * b2nd_meta.c decodes and checks the whole metalayer for the b2nd layer. */
#include <msgpack.h>
#include <string.h>

#include "frame_internal.h"

/* ndim and block shape from the metalayer content (msgpack array: version,
 * ndim, shape, chunkshape, blockshape, ...), or ndim 0 if it does not parse. */
static void geometry_of(const uint8_t *p, int32_t len, b2_block_geometry *g)
{
    memset(g, 0, sizeof *g);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, (const char *)p, (size_t)len, &off) == MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_ARRAY && u.data.via.array.size >= 5) {
        const msgpack_object *a = u.data.via.array.ptr;
        const msgpack_object *bs = &a[4];
        int64_t ndim = a[1].type == MSGPACK_OBJECT_POSITIVE_INTEGER ? (int64_t)a[1].via.u64 : -1;
        if (ndim > 0 && ndim <= B2_GEOM_MAX_DIM && bs->type == MSGPACK_OBJECT_ARRAY &&
            bs->via.array.size == (uint32_t)ndim) {
            int ok = 1;
            for (int i = 0; i < ndim; i++) {
                const msgpack_object *d = &bs->via.array.ptr[i];
                ok &= d->type == MSGPACK_OBJECT_POSITIVE_INTEGER && d->via.u64 >= 1 &&
                      d->via.u64 <= INT32_MAX;
                if (ok)
                    g->blockshape[i] = (int32_t)d->via.u64;
            }
            g->ndim = ok ? (int)ndim : 0;
        }
    }
    msgpack_unpacked_destroy(&u);
}

int b2_schunk_adopt_geometry(b2_schunk *s)
{
    b2_block_geometry g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < s->nmeta; i++)
        if (!strcmp(s->meta[i].name, "b2nd"))
            geometry_of(s->meta[i].content, s->meta[i].len, &g);
    if (!memcmp(&g, &s->cparams.geometry, sizeof g))
        return B2_OK;
    s->cparams.geometry = g;
    /* the append encoder was made with the old parameters */
    b2_cctx_free(s->cctx);
    s->cctx = NULL;
    return b2_dctx_set_geometry(s->dctx, &g);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Block geometry of a frame that holds a b2nd array: the ndcell, ndmean, ndlz
 * and zfp plugins work on blocks of the array's block shape, which only the
 * "b2nd" metalayer records (doc/format/plugins.md). The frame layer reads ndim and the
 * block shape from it itself, so chunks decode and encode through the frame API
 * without the caller passing the geometry. Only those two fields are used here;
 * b2nd_meta.c decodes and checks the whole metalayer for the b2nd layer. */
#include <msgpack.h>
#include <string.h>

#include "frame_internal.h"
#include "nd_shapes.h"

/* ndim and block shape from the metalayer content, or ndim 0 if it does not
 * parse (the b2nd layer reports malformed metalayers itself). */
static void geometry_of(const uint8_t *p, int32_t len, b2_block_geometry *g)
{
    memset(g, 0, sizeof *g);
    b2_nd_shapes sh;
    size_t off;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    int rc = b2_nd_shapes_read(p, (size_t)len, &sh, &off, &u);
    msgpack_unpacked_destroy(&u);
    if (rc < 0 || sh.ndim < 1 || sh.ndim > B2_GEOM_MAX_DIM)
        return;
    for (int i = 0; i < sh.ndim; i++)
        if (sh.blockshape[i] < 1)
            return;
    memcpy(g->blockshape, sh.blockshape, (size_t)sh.ndim * sizeof *g->blockshape);
    g->ndim = sh.ndim;
}

int b2_schunk_adopt_geometry(b2_schunk *s)
{
    b2_block_geometry g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < s->head.nmeta; i++)
        if (!strcmp(s->head.meta[i].name, "b2nd"))
            geometry_of(s->head.meta[i].content, s->head.meta[i].len, &g);
    if (!memcmp(&g, &s->codec.cparams.geometry, sizeof g))
        return B2_OK;
    s->codec.cparams.geometry = g;
    /* the append encoder was made with the old parameters */
    b2_cctx_free(s->codec.cctx);
    s->codec.cctx = NULL;
    b2_frame_rd_drop(s); /* readers are made again with it */
    return B2_OK;
}

/* Block geometry of a frame that holds a b2nd array: the ndcell, ndmean, ndlz
 * and zfp plugins work on blocks of this shape, which only the "b2nd"
 * metalayer records (plugins.md). The frame layer reads ndim and the block
 * shape from it itself, so chunks decode and encode through the frame API
 * without the caller passing the geometry. The metalayer is untrusted: it goes
 * through b2_nd_meta_decode, which checks every marker before msgpack-c sees a
 * container size (a bare unpack would allocate whatever an array header claims). */
#include <string.h>

#include "b2_nd.h"
#include "frame_internal.h"

/* ndim and block shape from the metalayer content, or ndim 0 if it is not a
 * valid b2nd metalayer with positive block extents. */
static void geometry_of(const uint8_t *p, int32_t len, b2_block_geometry *g)
{
    b2_nd_meta m;
    memset(g, 0, sizeof *g);
    if (len <= 0 || b2_nd_meta_decode(p, (size_t)len, &m) < 0)
        return;
    int ok = m.ndim > 0 && m.ndim <= B2_GEOM_MAX_DIM;
    for (int i = 0; ok && i < m.ndim; i++) {
        ok = m.blockshape[i] >= 1;
        g->blockshape[i] = m.blockshape[i];
    }
    if (ok)
        g->ndim = m.ndim;
    else
        memset(g, 0, sizeof *g);
    b2_nd_meta_clear(&m);
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

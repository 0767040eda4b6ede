/* SPDX-License-Identifier: BSD-3-Clause */
/* Compression parameters: their defaults, their validation and the filter
 * pipeline they describe (shared by the encoder, the tuner and special chunks,
 * so none of them calls back into another). */
#include <stdio.h>
#include "chunk_encode.h"
#include "chunk_internal.h"
#include "registry.h"

/* Defaults: blosclz level 5, shuffle, typesize 8, automatic blocksize. */
void b2_cparams_init(b2_cparams *p)
{
    memset(p, 0, sizeof *p);
    p->codec = B2_CODEC_BLOSCLZ;
    p->clevel = 5;
    p->typesize = 8;
    p->blocksize = 0;
    p->splitmode = B2_SPLIT_FORWARD_COMPAT;
    p->filters[B2_MAX_FILTERS - 1] = B2_FILTER_SHUFFLE;
    p->nthreads = 1;
    p->use_dict = 0;
}

void b2_cparams_pipeline(const b2_cparams *p, b2_pipeline *pl)
{
    memcpy(pl->filters, p->filters, B2_MAX_FILTERS);
    memcpy(pl->metas, p->filters_meta, B2_MAX_FILTERS);
    pl->typesize = b2_header_typesize(p->typesize);
    pl->version = B2_VERSION_FORMAT;
    pl->geom = p->geometry.ndim > 0 ? &p->geometry : NULL;
    pl->reg = p->registry;
}

/* B2_OK, or the first parameter out of range (user codecs and filters must be
 * registered: their absence is reported as such, not as a bad value). */
int b2_cparams_check(const b2_cparams *p)
{
    B2_FAIL_IF(!p, B2_ERR_INVALID_PARAM, "cparams is NULL");
    if (b2_is_user_id(p->codec) && !b2_user_codec_find(p->registry, p->codec))
        return B2_USER_MISSING("codec", p->codec, "");
    B2_FAIL_IF(!b2_is_user_id(p->codec) && !b2_codec_is_known(p->codec), B2_ERR_BAD_CODEC,
               "cparams codec %d", p->codec);
    B2_FAIL_IF(p->clevel < 0 || p->clevel > 9, B2_ERR_INVALID_PARAM,
               "cparams clevel %d is not 0..9", p->clevel);
    B2_FAIL_IF(p->typesize < 1 || p->typesize > B2_MAX_BLOCKSIZE, B2_ERR_INVALID_PARAM,
               "cparams typesize %d is not 1..%d", (int)p->typesize, B2_MAX_BLOCKSIZE);
    B2_FAIL_IF(p->blocksize < 0 || p->blocksize > B2_MAX_BLOCKSIZE, B2_ERR_INVALID_PARAM,
               "cparams blocksize %d is not 0..%d", (int)p->blocksize, B2_MAX_BLOCKSIZE);
    B2_FAIL_IF(p->splitmode < B2_SPLIT_ALWAYS || p->splitmode > B2_SPLIT_FORWARD_COMPAT,
               B2_ERR_INVALID_PARAM, "cparams splitmode %d is not %d..%d", p->splitmode,
               B2_SPLIT_ALWAYS, B2_SPLIT_FORWARD_COMPAT);
    B2_FAIL_IF(p->geometry.ndim < 0 || p->geometry.ndim > B2_GEOM_MAX_DIM, B2_ERR_INVALID_PARAM,
               "cparams geometry ndim %d is not 0..%d", p->geometry.ndim, B2_GEOM_MAX_DIM);
    for (int i = 0; i < p->geometry.ndim; i++)
        B2_FAIL_IF(p->geometry.blockshape[i] < 1, B2_ERR_INVALID_PARAM,
                   "cparams geometry blockshape[%d] = %d", i, (int)p->geometry.blockshape[i]);
    B2_FAIL_IF(p->use_dict && p->codec != B2_CODEC_LZ4 && p->codec != B2_CODEC_LZ4HC &&
                   p->codec != B2_CODEC_ZSTD,
               B2_ERR_INVALID_PARAM, "cparams use_dict with codec %s (only lz4, lz4hc, zstd)",
               b2_codec_name(p->codec));
    b2_pipeline pl;
    b2_cparams_pipeline(p, &pl);
    /* an unregistered user id is not a bad parameter: this process lacks it */
    for (int i = 0; i < B2_MAX_FILTERS; i++) {
        if (b2_is_user_id(p->filters[i]) && !b2_user_filter_find(p->registry, p->filters[i])) {
            char where[16];
            snprintf(where, sizeof where, " in slot %d", i);
            return B2_USER_MISSING("filter", p->filters[i], where);
        }
    }
    if (b2_pipeline_check(&pl) < 0)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "cparams filters: %s", b2_err_detail());
    return B2_OK;
}

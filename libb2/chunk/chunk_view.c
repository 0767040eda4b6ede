/* SPDX-License-Identifier: BSD-3-Clause */
/* A chunk's view: everything outside the blocks' streams validated before any
 * block is decoded (doc/format/chunk.md §9).
 *
 * Every offset and length read from the chunk is checked against the bytes that
 * are really there (min(cbytes, buffer size)) before it is used. */
#include "chunk_decode.h"
#include "registry.h"

/* Validate everything outside the blocks' streams (doc/format/chunk.md §9 steps 1-12). The
 * context gives the geometry the n-dimensional plugins work on and the registry
 * user filters and codecs come from. */
int b2_view_open(const uint8_t *src, size_t size, const b2_dctx *d, chunk_view *v)
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

/* b2_view_open for the item- and block-addressed calls, which VL-block chunks do not support. */
int b2_view_open_fixed(const uint8_t *src, size_t size, const b2_dctx *d, chunk_view *v)
{
    int rc = b2_view_open(src, size, d, v);
    if (rc >= 0 && v->info.vlblocks)
        return B2_FAIL(B2_ERR_UNSUPPORTED, "VL-block chunk: decode it whole or by block number");
    return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The offsets index (doc/format/frame.md §5): an ordinary chunk of little-endian int64
 * entries, one per logical chunk; negative entries mark special chunks. Part of
 * the format module (frame_format.h): the caller passes the decoding context,
 * so no handle is needed. */
#include <string.h>

#include "frame_format.h"

int b2_frame_index_special(int64_t entry)
{
    if (entry >= 0)
        return 0;
    for (int code = 1; code <= 4; code <<= 1)
        if (entry == FRAME_IDX_SPECIAL(code))
            return code;
    return B2_FAIL_CODE(B2_ERR_CORRUPT);
}

int b2_frame_nchunks_from_header(const frame_hdr *h, int64_t *n)
{
    if (h->nbytes == 0) {
        *n = 0;
        return B2_OK;
    }
    if (h->chunksize > 0) {
        int64_t c = (h->nbytes - 1) / h->chunksize + 1;
        if (c > FRAME_MAX_NCHUNKS)
            return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
        *n = c;
        return B2_OK;
    }
    if (h->chunksize == 0) {
        *n = -1; /* only the index knows */
        return B2_OK;
    }
    return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
}

int b2_frame_index_decode(b2_dctx *dctx, int64_t mem_limit, const uint8_t *p, int64_t avail, int64_t n,
                       int64_t **out, int64_t *nout, int64_t *uniform)
{
    b2_chunk_info info;
    *out = NULL;
    *nout = 0;
    if (avail < B2_HEADER_LEN)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    int rc = b2_chunk_get_info(p, (size_t)avail, &info);
    if (rc < 0)
        return rc;
    if (info.cbytes > avail)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    if (info.special == B2_SPECIAL_UNINIT || info.vlblocks || info.nbytes % 8 != 0)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    if (n < 0)
        n = info.nbytes / 8;
    if (n > FRAME_MAX_NCHUNKS || (int64_t)info.nbytes != n * 8)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    if (info.special == B2_SPECIAL_VALUE && info.cbytes == B2_HEADER_LEN + 8) {
        /* run-length: one value for every chunk; no need to expand it */
        *uniform = (int64_t)b2_load_le64(p + B2_HEADER_LEN);
        *nout = n;
        return B2_OK;
    }
    if (info.special == B2_SPECIAL_ZEROS && n > 0) {
        *uniform = 0;
        *nout = n;
        return B2_OK;
    }
    /* The entries and the decoder's scratch for them (a few blocks of the index
     * chunk) together, so neither is allocated when both cannot be. */
    int64_t scratch = info.memcpyed ? 0 : 5 * (int64_t)info.eff_blocksize;
    if ((rc = b2_mem_check(mem_limit, n * 8 + scratch, "the chunk index",
                           "b2_open_options.memory_limit")) < 0)
        return rc;
    uint8_t *raw = malloc(n ? (size_t)n * 8 : 1);
    if (!raw)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    if (n > 0) {
        rc = b2_chunk_decompress(dctx, p, (size_t)info.cbytes, raw, (size_t)n * 8);
        if (rc >= 0 && rc != n * 8)
            rc = B2_FAIL(B2_ERR_CORRUPT, "index chunk holds %d bytes, %lld chunks need %lld", rc,
                         (long long)n, (long long)n * 8);
        else if (rc < 0)
            rc = B2_PREFIX(rc, "index chunk");
        if (rc < 0) {
            free(raw);
            return rc;
        }
    }
    /* Decode in place: LE int64 -> host int64. */
    int64_t *idx = (int64_t *)(void *)raw;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)b2_load_le64(raw + 8 * i);
        memcpy(&idx[i], &v, 8);
    }
    *out = idx;
    *nout = n;
    return B2_OK;
}

int b2_frame_index_encode(const int64_t *idx, int64_t n, int64_t uniform, const b2_cparams *base,
                       int runlength, uint8_t **out, int32_t *len)
{
    if (n > FRAME_MAX_NCHUNKS)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    size_t raw_len = (size_t)n * 8;
    int all_equal = n > 0;
    for (int64_t i = 1; idx && i < n && all_equal; i++)
        all_equal = idx[i] == idx[0];
    if (!idx || (runlength && all_equal)) {
        uint8_t v[8];
        b2_store_le64(v, (uint64_t)(idx ? idx[0] : uniform));
        uint8_t *dst = malloc(B2_HEADER_LEN + 8);
        if (!dst)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        int rc = b2_chunk_make_special(B2_SPECIAL_VALUE, 8, (int32_t)raw_len, v, dst,
                                       B2_HEADER_LEN + 8);
        if (rc < 0) {
            free(dst);
            return rc;
        }
        *out = dst;
        *len = rc;
        return B2_OK;
    }
    uint8_t *raw = malloc(raw_len ? raw_len : 1);
    size_t cap = b2_chunk_compress_bound(raw_len);
    uint8_t *dst = malloc(cap);
    if (!raw || !dst) {
        free(raw);
        free(dst);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    for (int64_t i = 0; i < n; i++)
        b2_store_le64(raw + 8 * i, (uint64_t)idx[i]);
    /* The parameters the reference uses for every index rewrite (doc/format/frame.md §5). */
    b2_cparams p;
    b2_cparams_init(&p);
    if (base && runlength)
        memcpy(p.filters, base->filters, sizeof p.filters);
    p.codec = B2_CODEC_BLOSCLZ;
    p.clevel = 5;
    p.typesize = 8;
    p.blocksize = 16384;
    p.splitmode = B2_SPLIT_NEVER;
    p.nthreads = 1;
    int rc;
    b2_cctx *cctx = b2_cctx_new(&p);
    if (!cctx) {
        rc = b2_cparams_check(&p);
        if (rc >= 0)
            rc = B2_FAIL_CODE(B2_ERR_NOMEM);
    } else {
        rc = b2_chunk_compress(cctx, raw, raw_len, dst, cap);
        b2_cctx_free(cctx);
    }
    free(raw);
    if (rc < 0) {
        free(dst);
        return rc;
    }
    *out = dst;
    *len = rc;
    return B2_OK;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* A frame parsed into a frame_layout and serialised back (frame_format.h), with
 * no I/O and no handle: every size, offset and count of header, trailer and
 * index is checked before use (doc/format/frame.md §9.1).
 *
 * The checks are split into the steps a reader of a file frame takes as it
 * reads (fixed header, whole header with the trailer's tail, trailer, index),
 * so frame_load.c runs the same code on the pieces it reads from a store as
 * b2_frame_parse runs on a buffer, and the fuzz targets reach it directly. */
#include <string.h>

#include "frame_format.h"

int b2_frame_parse_fixed(const uint8_t *p, int sparse, frame_hdr *h)
{
    int rc = b2_frame_header_parse_fixed(p, h);
    if (rc < 0)
        return rc;
    B2_FAIL_IF((h->frame_type & 0x0f) != (sparse ? FRAME_TYPE_SPARSE : FRAME_TYPE_CONTIGUOUS),
               B2_ERR_FORMAT, "frame type %d where a %s frame is expected", h->frame_type & 0x0f,
               sparse ? "sparse" : "contiguous");
    return B2_OK;
}

int b2_frame_check_len(const frame_hdr *h, int64_t avail, int exact)
{
    B2_FAIL_IF(h->frame_len > avail, B2_ERR_TRUNCATED, "%lld of the frame's %lld bytes",
               (long long)avail, (long long)h->frame_len);
    B2_FAIL_IF(exact && h->frame_len != avail, B2_ERR_INVALID_HEADER,
               "frame_len %lld but %lld bytes given", (long long)h->frame_len, (long long)avail);
    B2_FAIL_IF(h->frame_len < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN, B2_ERR_INVALID_HEADER,
               "frame_len %lld is below the minimum %d", (long long)h->frame_len,
               FRAME_HEADER_FIXED + FRAME_TRAILER_MIN);
    return B2_OK;
}

int b2_frame_parse_head(frame_layout *L, const uint8_t *hdr, const uint8_t *last)
{
    const frame_hdr *h = &L->h;
    int rc = b2_frame_trailer_locate(last, h->frame_len, &L->trailer_len);
    if (rc < 0)
        return rc;
    L->trailer_off = h->frame_len - L->trailer_len;
    B2_FAIL_IF(h->header_len > L->trailer_off, B2_ERR_INVALID_HEADER,
               "header_len %d overlaps the trailer at %lld", (int)h->header_len,
               (long long)L->trailer_off);
    return b2_frame_meta_parse(hdr, h->header_len, L->meta, &L->nmeta);
}

int b2_frame_parse_trailer(frame_layout *L, const uint8_t *t)
{
    return b2_frame_trailer_parse(t, L->trailer_len, &L->vlmeta, &L->nvlmeta);
}

int b2_frame_index_section(frame_layout *L, int sparse)
{
    const frame_hdr *h = &L->h;
    int64_t n;
    int rc = b2_frame_nchunks_from_header(h, &n);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(!sparse && (h->cbytes > L->trailer_off - h->header_len), B2_ERR_INVALID_HEADER,
               "cbytes %lld runs past the trailer at %lld", (long long)h->cbytes,
               (long long)L->trailer_off);
    L->chunks_off = sparse ? 0 : h->header_len;
    L->chunks_len = sparse ? 0 : h->cbytes;
    int64_t ipos = h->header_len + (sparse ? 0 : h->cbytes);
    L->index_off = ipos;
    L->index_len = 0;
    if (h->nbytes > 0) {
        int64_t ilen = L->trailer_off - ipos;
        B2_FAIL_IF(ilen < B2_HEADER_LEN, B2_ERR_TRUNCATED,
                   "index chunk of %lld bytes at %lld", (long long)ilen, (long long)ipos);
        L->index_len = ilen;
    }
    return B2_OK;
}

/* A sparse frame names each chunk file once (doc/format/sframe.md §4: ids are never shared),
 * so a repeated id is corruption; refusing it also keeps a tiny run-length index
 * from making every read reopen one file millions of times. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int check_sparse_ids(const frame_layout *L, int64_t mem_limit)
{
    if (!L->index) { /* one value for every entry */
        B2_FAIL_IF(L->nchunks > 1 && b2_frame_index_special(L->index_uniform) == 0, B2_ERR_CORRUPT,
                   "all %lld index entries name chunk file %08llX", (long long)L->nchunks,
                   (unsigned long long)L->index_uniform);
        return B2_OK;
    }
    int rc = b2_mem_check(mem_limit, L->nchunks * (int64_t)sizeof(int64_t), "the chunk ids",
                          "b2_open_options.memory_limit");
    if (rc < 0)
        return rc;
    int64_t *ids = malloc((size_t)L->nchunks * sizeof *ids + 1), n = 0;
    if (!ids)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    for (int64_t i = 0; i < L->nchunks; i++)
        if (b2_frame_index_special(L->index[i]) == 0)
            ids[n++] = L->index[i];
    qsort(ids, (size_t)n, sizeof *ids, cmp_i64);
    for (int64_t i = 1; i < n && rc >= 0; i++)
        if (ids[i] == ids[i - 1])
            rc = B2_FAIL(B2_ERR_CORRUPT, "the index names chunk file %08llX twice",
                         (unsigned long long)ids[i]);
    free(ids);
    return rc;
}

int b2_frame_parse_index(frame_layout *L, int sparse, b2_dctx *dctx, int64_t mem_limit,
                         const uint8_t *ib)
{
    const frame_hdr *h = &L->h;
    int64_t n;
    int rc = b2_frame_nchunks_from_header(h, &n);
    if (rc < 0)
        return rc;
    if (h->nbytes > 0) {
        rc = b2_frame_index_decode(dctx, mem_limit, ib, L->index_len, n, &L->index, &L->nchunks,
                                   &L->index_uniform);
        if (rc < 0)
            return rc;
        B2_FAIL_IF(h->chunksize > 0 && (int64_t)L->nchunks * h->chunksize < h->nbytes,
                   B2_ERR_INVALID_HEADER, "%lld chunks of %d bytes cannot hold nbytes %lld",
                   (long long)L->nchunks, (int)h->chunksize, (long long)h->nbytes);
    }
    for (int64_t i = 0; i < (L->index ? L->nchunks : L->nchunks > 0); i++) {
        int64_t e = frame_layout_entry(L, i);
        int sp = b2_frame_index_special(e);
        if (sp < 0)
            return sp;
        /* special entries need a fixed chunk size */
        B2_FAIL_IF(sp > 0 && h->chunksize <= 0, B2_ERR_CORRUPT,
                   "index entry %lld is special but chunksize is %d", (long long)i, (int)h->chunksize);
        B2_FAIL_IF(sp == 0 && (sparse ? e > (int64_t)UINT32_MAX : e > h->cbytes - B2_HEADER_LEN),
                   B2_ERR_CORRUPT, "index entry %lld: offset %lld is past cbytes %lld",
                   (long long)i, (long long)e, (long long)h->cbytes);
    }
    return sparse ? check_sparse_ids(L, mem_limit) : B2_OK;
}

static int parse_steps(const uint8_t *buf, int64_t len, int sparse, int exact, b2_dctx *dctx,
                       int64_t mem_limit, frame_layout *L)
{
    B2_FAIL_IF(len < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN, B2_ERR_TRUNCATED,
               "%lld bytes, the smallest frame has %d", (long long)len,
               FRAME_HEADER_FIXED + FRAME_TRAILER_MIN);
    int rc = b2_frame_parse_fixed(buf, sparse, &L->h);
    if (rc >= 0)
        rc = b2_frame_check_len(&L->h, len, exact);
    if (rc >= 0)
        rc = b2_frame_parse_head(L, buf, buf + L->h.frame_len - FRAME_TRAILER_MIN);
    if (rc >= 0)
        rc = b2_frame_parse_trailer(L, buf + L->trailer_off);
    if (rc >= 0)
        rc = b2_frame_index_section(L, sparse);
    if (rc >= 0)
        rc = b2_frame_parse_index(L, sparse, dctx, mem_limit, buf + L->index_off);
    return rc;
}

int b2_frame_parse(const uint8_t *buf, int64_t len, int sparse, int exact, b2_dctx *dctx,
                   int64_t mem_limit, frame_layout *L)
{
    memset(L, 0, sizeof *L);
    b2_dctx *own = NULL;
    if (!dctx && !(dctx = own = b2_dctx_new(1)))
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int rc = parse_steps(buf, len, sparse, exact, dctx, mem_limit, L);
    b2_dctx_free(own);
    if (rc < 0)
        b2_frame_layout_free(L);
    return rc;
}

void b2_frame_layout_free(frame_layout *L)
{
    b2_frame_meta_free_all(L->meta, L->nmeta);
    b2_frame_meta_free_all(L->vlmeta, L->nvlmeta);
    free(L->vlmeta);
    free(L->index);
    memset(L, 0, sizeof *L);
}

int b2_frame_layout_parts(frame_layout *L, const b2_cparams *cp, int runlength, int sparse,
                          uint8_t **idx, int32_t *idx_len, uint8_t **trl, int64_t *trl_len)
{
    *idx = NULL;
    *idx_len = 0;
    /* Chunk offsets count from the end of the header: a header written by another
     * writer with a different size (padding) cannot be rewritten in place. */
    int64_t hl = b2_frame_header_size(L->meta, L->nmeta);
    if (hl != L->h.header_len && L->h.cbytes > 0 && !sparse)
        return B2_FAIL_CODE(B2_ERR_UNSUPPORTED);
    int rc = B2_OK;
    if (L->nchunks > 0)
        rc = b2_frame_index_encode(L->index, L->nchunks, L->index_uniform, cp, runlength, idx,
                                   idx_len);
    if (rc >= 0)
        rc = b2_frame_trailer_write(L->vlmeta, L->nvlmeta, trl, trl_len);
    if (rc < 0) {
        free(*idx);
        *idx = NULL;
        return rc;
    }
    L->h.has_vlmeta = L->nvlmeta > 0;
    int vl = (L->h.general_flags & 0x80) != 0;
    L->h.general_flags = b2_frame_general_flags(L->h.chunksize, vl);
    L->h.header_len = (int32_t)hl;
    return B2_OK;
}

int b2_frame_serialize(frame_layout *L, const b2_cparams *cp, int runlength, int sparse,
                       const uint8_t *chunks, int64_t chunks_len, uint8_t **out, int64_t *len)
{
    uint8_t *idx, *trl, *buf = NULL;
    int32_t idx_len;
    int64_t trl_len;
    *out = NULL;
    *len = 0;
    int rc = b2_frame_layout_parts(L, cp, runlength, sparse, &idx, &idx_len, &trl, &trl_len);
    if (rc < 0)
        return rc;
    frame_hdr *h = &L->h;
    h->frame_len = h->header_len + chunks_len + idx_len + trl_len;
    buf = malloc((size_t)h->frame_len);
    rc = buf ? b2_frame_header_write(h, L->meta, L->nmeta, buf)
             : B2_FAIL(B2_ERR_NOMEM, "frame of %lld bytes", (long long)h->frame_len);
    if (rc >= 0) {
        if (chunks_len)
            memcpy(buf + h->header_len, chunks, (size_t)chunks_len);
        if (idx_len)
            memcpy(buf + h->header_len + chunks_len, idx, (size_t)idx_len);
        memcpy(buf + h->header_len + chunks_len + idx_len, trl, (size_t)trl_len);
        *out = buf;
        *len = h->frame_len;
        buf = NULL;
    }
    L->trailer_len = trl_len;
    L->chunks_off = h->header_len;
    L->chunks_len = chunks_len;
    L->index_off = h->header_len + chunks_len;
    L->index_len = idx_len;
    L->trailer_off = h->frame_len - trl_len;
    free(buf);
    free(idx);
    free(trl);
    return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening a frame: validate every size, offset and count of header, trailer and
 * index before use (doc/format/frame.md §9.1), then keep the decoded state in b2_schunk. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "frame_internal.h"

/* A sparse frame names each chunk file once (doc/format/sframe.md §4: ids are never shared),
 * so a repeated id is corruption; refusing it also keeps a tiny run-length index
 * from making every read reopen one file millions of times. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int check_sparse_ids(b2_schunk *s)
{
    if (!s->index) { /* one value for every entry */
        B2_FAIL_IF(s->nchunks > 1 && b2_frame_index_special(s->index_uniform) == 0, B2_ERR_CORRUPT,
                   "all %lld index entries name chunk file %08llX", (long long)s->nchunks,
                   (unsigned long long)s->index_uniform);
        return B2_OK;
    }
    int rc = FRAME_MEM_CHECK(s, s->nchunks * (int64_t)sizeof(int64_t), "the chunk ids");
    if (rc < 0)
        return rc;
    int64_t *ids = malloc((size_t)s->nchunks * sizeof *ids + 1), n = 0;
    if (!ids)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    for (int64_t i = 0; i < s->nchunks; i++)
        if (b2_frame_index_special(s->index[i]) == 0)
            ids[n++] = s->index[i];
    qsort(ids, (size_t)n, sizeof *ids, cmp_i64);
    for (int64_t i = 1; i < n && rc >= 0; i++)
        if (ids[i] == ids[i - 1])
            rc = B2_FAIL(B2_ERR_CORRUPT, "the index names chunk file %08llX twice",
                         (unsigned long long)ids[i]);
    free(ids);
    return rc;
}

/* Default compression parameters for later appends, taken from the header. */
static void cparams_from_header(const frame_hdr *h, b2_cparams *p)
{
    b2_cparams_init(p);
    int code = h->codec_flags & 0x0f;
    p->codec = code == 6 ? h->udcodec : code;
    p->clevel = h->codec_flags >> 4;
    p->typesize = h->typesize;
    p->blocksize = h->blocksize;
    p->splitmode = (h->other_flags & 3) + 1;
    memcpy(p->filters, h->filters, 6);
    memcpy(p->filters_meta, h->filters_meta, 6);
    p->use_dict = h->other_flags2 & 1;
    p->codec_meta = h->compcode_meta;
}

/* A file frame's size now. A writer appends the bytes a commit adds before it
 * rewrites the header, so a header read after the size was taken may describe
 * more bytes than that size, all of them already there. */
static int file_avail(b2_schunk *s, int64_t *avail)
{
    return b2_fio_length(s, avail);
}

/* Parse the fixed header fields at p into s->h and check them against the
 * storage's length (refreshed for a file that grew since avail was taken). */
static int load_fixed(b2_schunk *s, const uint8_t *p, int64_t *avail)
{
    frame_hdr *h = &s->h;
    int sparse = s->storage == B2_STORAGE_SPARSE;
    int rc = b2_frame_header_parse_fixed(p, h);
    if (rc < 0)
        return rc;
    B2_FAIL_IF((h->frame_type & 0x0f) != (sparse ? FRAME_TYPE_SPARSE : FRAME_TYPE_CONTIGUOUS),
               B2_ERR_FORMAT, "frame type %d where a %s frame is expected", h->frame_type & 0x0f,
               sparse ? "sparse" : "contiguous");
    if (frame_crash_safe(s) && h->frame_len > *avail && (rc = file_avail(s, avail)) < 0)
        return rc;
    B2_FAIL_IF(s->storage == B2_STORAGE_MEMORY ? h->frame_len != *avail : h->frame_len > *avail,
               B2_ERR_INVALID_HEADER, "frame_len %lld but %lld bytes available",
               (long long)h->frame_len, (long long)*avail);
    B2_FAIL_IF(h->frame_len < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN, B2_ERR_INVALID_HEADER,
               "frame_len %lld is below the minimum %d", (long long)h->frame_len,
               FRAME_HEADER_FIXED + FRAME_TRAILER_MIN);
    return B2_OK;
}

int b2_frame_load(b2_schunk *s, int64_t avail)
{
    uint8_t fixed[FRAME_HEADER_FIXED], last[FRAME_TRAILER_MIN];
    frame_hdr *h = &s->h;
    int sparse = s->storage == B2_STORAGE_SPARSE;
    B2_FAIL_IF(avail < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN, B2_ERR_TRUNCATED,
               "%lld bytes, a frame needs at least %d", (long long)avail,
               FRAME_HEADER_FIXED + FRAME_TRAILER_MIN);
    int rc = b2_fio_read(s, 0, fixed, sizeof fixed);
    if (rc >= 0)
        rc = load_fixed(s, fixed, &avail);
    if (rc < 0)
        return rc;
    /* Then the whole header again in one read, which every field and metalayer
     * is taken from: a writer commits by rewriting the header, and two reads
     * could see two different commits. */
    int32_t hlen = h->header_len;
    if ((rc = FRAME_MEM_CHECK(s, hlen, "the frame's header")) < 0)
        return rc;
    uint8_t *hdr = malloc((size_t)hlen);
    if (!hdr)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = b2_fio_read(s, 0, hdr, (size_t)hlen);
    if (rc >= 0)
        rc = load_fixed(s, hdr, &avail);
    if (rc >= 0 && h->header_len != hlen)
        rc = B2_FAIL(B2_ERR_INVALID_HEADER, "header_len changed from %d to %d while read",
                     (int)hlen, (int)h->header_len);
    if (rc >= 0)
        rc = b2_fio_read(s, h->frame_len - FRAME_TRAILER_MIN, last, sizeof last);
    if (rc >= 0)
        rc = b2_frame_trailer_locate(last, h->frame_len, &s->trailer_len);
    int64_t trailer_start = h->frame_len - s->trailer_len;
    if (rc >= 0 && h->header_len > trailer_start)
        rc = B2_FAIL(B2_ERR_INVALID_HEADER, "header_len %d overlaps the trailer at %lld",
                     (int)h->header_len, (long long)trailer_start);
    if (rc >= 0)
        rc = b2_frame_meta_parse(hdr, h->header_len, s->meta, &s->nmeta);
    free(hdr);
    if (rc < 0)
        return rc;

    /* The trailer: bounded by frame_len <= avail (a file's size, which a sparse
     * file can make huge). */
    if ((rc = FRAME_MEM_CHECK(s, s->trailer_len, "the frame's trailer")) < 0)
        return rc;
    uint8_t *buf = malloc((size_t)s->trailer_len);
    if (!buf)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = b2_fio_read(s, trailer_start, buf, (size_t)s->trailer_len);
    if (rc >= 0)
        rc = b2_frame_trailer_parse(buf, s->trailer_len, &s->vlmeta, &s->nvlmeta);
    free(buf);
    if (rc < 0)
        return rc;
    s->vlmeta_cap = s->nvlmeta;

    /* The index. */
    int64_t n;
    rc = b2_frame_nchunks_from_header(h, &n);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(!sparse && (h->cbytes > trailer_start - h->header_len), B2_ERR_INVALID_HEADER,
               "cbytes %lld runs past the trailer at %lld", (long long)h->cbytes,
               (long long)trailer_start);
    int64_t ipos = h->header_len + (sparse ? 0 : h->cbytes);
    if (h->nbytes > 0) {
        int64_t ilen = trailer_start - ipos;
        B2_FAIL_IF(ilen < B2_HEADER_LEN, B2_ERR_TRUNCATED,
                   "index chunk of %lld bytes at %lld", (long long)ilen, (long long)ipos);
        if ((rc = FRAME_MEM_CHECK(s, ilen, "the index chunk")) < 0)
            return rc;
        uint8_t *ib = malloc((size_t)ilen);
        if (!ib)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        rc = b2_fio_read(s, ipos, ib, (size_t)ilen);
        frame_rd *r = rc >= 0 ? b2_frame_rd_get(s) : NULL;
        if (rc >= 0)
            rc = r ? b2_frame_index_decode(r->dctx, s->mem_limit, ib, ilen, n, &s->index, &s->nchunks,
                                           &s->index_uniform)
                   : B2_ERR_NOMEM;
        b2_frame_rd_put(s, r);
        free(ib);
        if (rc < 0)
            return rc;
        s->index_cap = s->nchunks;
        B2_FAIL_IF(h->chunksize > 0 && (int64_t)s->nchunks * h->chunksize < h->nbytes,
                   B2_ERR_INVALID_HEADER, "%lld chunks of %d bytes cannot hold nbytes %lld",
                   (long long)s->nchunks, (int)h->chunksize, (long long)h->nbytes);
    }
    for (int64_t i = 0; i < (s->index ? s->nchunks : s->nchunks > 0); i++) {
        int64_t e = frame_entry(s, i);
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
    if (sparse && (rc = check_sparse_ids(s)) < 0)
        return rc;
    cparams_from_header(h, &s->cparams);
    s->cparams.nthreads = s->nthreads;
    return b2_schunk_adopt_geometry(s);
}

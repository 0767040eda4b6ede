/* Opening a frame: validate every size, offset and count of header, trailer and
 * index before use (frame.md §9.1), then keep the decoded state in b2_schunk. */
#include <string.h>

#include "frame_internal.h"

b2_schunk *b2_schunk_alloc(const b2_cparams *cp)
{
    b2_cparams def;
    if (!cp) {
        b2_cparams_init(&def);
        cp = &def;
    }
    b2_schunk *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = -1;
    s->io_fail_at = -1;
    s->cparams = *cp;
    s->nthreads = cp->nthreads > 0 ? cp->nthreads : 1;
    s->dctx = b2_dctx_new(s->nthreads);
    if (!s->dctx) {
        free(s);
        return NULL;
    }
    b2_frame_header_init(&s->h, cp, 0);
    s->h.header_len = (int32_t)b2_frame_header_size(NULL, 0);
    return s;
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
}

int b2_frame_load(b2_schunk *s, int64_t avail)
{
    uint8_t fixed[FRAME_HEADER_FIXED], last[FRAME_TRAILER_MIN];
    frame_hdr *h = &s->h;
    int sparse = s->storage == B2_STORAGE_SPARSE;
    if (avail < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    int rc = b2_fio_read(s, 0, fixed, sizeof fixed);
    if (rc < 0)
        return rc;
    rc = b2_frame_header_parse_fixed(fixed, h);
    if (rc < 0)
        return rc;
    if ((h->frame_type & 0x0f) != (sparse ? FRAME_TYPE_SPARSE : FRAME_TYPE_CONTIGUOUS))
        return B2_FAIL_CODE(B2_ERR_FORMAT);
    if (s->storage == B2_STORAGE_MEMORY ? h->frame_len != avail : h->frame_len > avail)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    if (h->frame_len < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    rc = b2_fio_read(s, h->frame_len - FRAME_TRAILER_MIN, last, sizeof last);
    if (rc < 0)
        return rc;
    rc = b2_frame_trailer_locate(last, h->frame_len, &s->trailer_len);
    if (rc < 0)
        return rc;
    int64_t trailer_start = h->frame_len - s->trailer_len;
    if (h->header_len > trailer_start)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);

    /* Header with metalayers, then the trailer: both bounded by frame_len <= avail. */
    uint8_t *buf = malloc((size_t)(h->header_len > s->trailer_len ? h->header_len : s->trailer_len));
    if (!buf)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = b2_fio_read(s, 0, buf, (size_t)h->header_len);
    if (rc >= 0)
        rc = b2_frame_meta_parse(buf, h->header_len, s->meta, &s->nmeta);
    if (rc >= 0)
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
    if (!sparse && (h->cbytes > trailer_start - h->header_len))
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    int64_t ipos = h->header_len + (sparse ? 0 : h->cbytes);
    if (h->nbytes > 0) {
        int64_t ilen = trailer_start - ipos;
        if (ilen < B2_HEADER_LEN)
            return B2_FAIL_CODE(B2_ERR_TRUNCATED);
        uint8_t *ib = malloc((size_t)ilen);
        if (!ib)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        rc = b2_fio_read(s, ipos, ib, (size_t)ilen);
        if (rc >= 0)
            rc = b2_frame_index_decode(s->dctx, ib, ilen, n, &s->index, &s->nchunks, &s->index_uniform);
        free(ib);
        if (rc < 0)
            return rc;
        s->index_cap = s->nchunks;
        if (h->chunksize > 0 && (int64_t)s->nchunks * h->chunksize < h->nbytes)
            return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    }
    for (int64_t i = 0; i < (s->index ? s->nchunks : s->nchunks > 0); i++) {
        int64_t e = frame_entry(s, i);
        int sp = b2_frame_index_special(e);
        if (sp < 0)
            return sp;
        if (sp > 0 && h->chunksize <= 0)
            return B2_FAIL_CODE(B2_ERR_CORRUPT); /* special entries need a fixed chunk size */
        if (sp == 0 && (sparse ? e > (int64_t)UINT32_MAX : e > h->cbytes - B2_HEADER_LEN))
            return B2_FAIL_CODE(B2_ERR_CORRUPT);
    }
    cparams_from_header(h, &s->cparams);
    s->cparams.nthreads = s->nthreads;
    return B2_OK;
}

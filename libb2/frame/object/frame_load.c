/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening a frame: read header, trailer and index from the handle's store and
 * have the format module check and decode each piece as it is read
 * (frame_format.h; doc/format/frame.md §9.1), then move the layout into b2_schunk.
 * What stays here is the reading: which bytes, in what order, how much may be
 * allocated for them, and a file that grows while it is read. */
#include <string.h>

#include "frame_internal.h"

/* A file frame's size now. A writer appends the bytes a commit adds before it
 * rewrites the header, so a header read after the size was taken may describe
 * more bytes than that size, all of them already there. */
static int file_avail(b2_schunk *s, int64_t *avail)
{
    return b2_fio_length(s, avail);
}

/* Parse the fixed header fields at p into h and check them against the
 * storage's length (refreshed for a file that grew since avail was taken). */
static int load_fixed(b2_schunk *s, const uint8_t *p, frame_hdr *h, int64_t *avail)
{
    int rc = b2_frame_parse_fixed(p, s->io.place->chunk_files, h);
    if (rc < 0)
        return rc;
    if (frame_crash_safe(s) && h->frame_len > *avail && (rc = file_avail(s, avail)) < 0)
        return rc;
    return b2_frame_check_len(h, *avail, s->io.place->in_place);
}

/* Read the len bytes at pos into a malloc'ed *buf (what names the allocation). */
static int read_piece(b2_schunk *s, int64_t pos, int64_t len, const char *what, uint8_t **buf)
{
    *buf = NULL;
    int rc = FRAME_MEM_CHECK(s, len, what);
    if (rc < 0)
        return rc;
    if (!(*buf = malloc(len ? (size_t)len : 1)))
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    if ((rc = b2_fio_read(s, pos, *buf, (size_t)len)) < 0) {
        free(*buf);
        *buf = NULL;
    }
    return rc;
}

int b2_frame_load(b2_schunk *s, int64_t avail)
{
    uint8_t fixed[FRAME_HEADER_FIXED], last[FRAME_TRAILER_MIN];
    uint8_t *hdr = NULL, *buf = NULL, *ib = NULL;
    frame_rd *r = NULL;
    frame_layout L;
    memset(&L, 0, sizeof L);
    frame_hdr *h = &L.h;
    int sparse = s->io.place->chunk_files;
    B2_FAIL_IF(avail < FRAME_HEADER_FIXED + FRAME_TRAILER_MIN, B2_ERR_TRUNCATED,
               "%lld bytes, the smallest frame has %d", (long long)avail,
               FRAME_HEADER_FIXED + FRAME_TRAILER_MIN);
    int rc = b2_fio_read(s, 0, fixed, sizeof fixed);
    if (rc >= 0)
        rc = load_fixed(s, fixed, h, &avail);
    /* Then the whole header again in one read, which every field and metalayer
     * is taken from: a writer commits by rewriting the header, and two reads
     * could see two different commits. */
    int32_t hlen = h->header_len;
    if (rc >= 0)
        rc = read_piece(s, 0, hlen, "the frame's header", &hdr);
    if (rc >= 0)
        rc = load_fixed(s, hdr, h, &avail);
    if (rc >= 0 && h->header_len != hlen)
        rc = B2_FAIL(B2_ERR_INVALID_HEADER, "header_len changed from %d to %d while read",
                     (int)hlen, (int)h->header_len);
    if (rc >= 0)
        rc = b2_fio_read(s, h->frame_len - FRAME_TRAILER_MIN, last, sizeof last);
    if (rc >= 0)
        rc = b2_frame_parse_head(&L, hdr, last);

    /* The trailer: bounded by frame_len <= avail (a file's size, which a sparse
     * file can make huge). */
    if (rc >= 0)
        rc = read_piece(s, L.trailer_off, L.trailer_len, "the frame's trailer", &buf);
    if (rc >= 0)
        rc = b2_frame_parse_trailer(&L, buf);

    /* The index. */
    if (rc >= 0)
        rc = b2_frame_index_section(&L, sparse);
    if (rc >= 0 && L.index_len > 0) {
        rc = read_piece(s, L.index_off, L.index_len, "the index chunk", &ib);
        r = rc >= 0 ? b2_frame_rd_get(s) : NULL;
        if (rc >= 0 && !r)
            rc = B2_ERR_NOMEM;
    }
    if (rc >= 0)
        rc = b2_frame_parse_index(&L, sparse, r ? r->dctx : NULL, s->mem_limit, ib);
    b2_frame_rd_put(s, r);
    free(hdr);
    free(buf);
    free(ib);
    if (rc < 0) {
        b2_frame_layout_free(&L);
        return rc;
    }
    b2_frame_take_layout(s, &L);
    b2_frame_header_cparams(&s->head.h, &s->codec.cparams);
    s->codec.cparams.nthreads = s->codec.nthreads;
    return b2_schunk_adopt_geometry(s);
}

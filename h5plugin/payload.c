/* SPDX-License-Identifier: BSD-3-Clause */
/* What one stored HDF5 chunk holds: a contiguous Blosc2 frame, either a one-chunk
 * b2nd array (chunks of rank >= 2) or a plain one-chunk super-chunk
 * (doc/format/hdf5-filter.md §3 steps 4-5, §4, §5 steps 2-4). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_frame.h"
#include "b2_nd.h"
#include "h5context.h"
#include "h5params.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"

/* Write "what (why)" into err. lib: code comes from a failing libb2 call, whose
 * detailed message (values included) is then the why. */
static int vfail(int lib, int code, char *err, size_t cap, const char *fmt, va_list ap)
{
    int k = vsnprintf(err, cap, fmt, ap);
    if (code < 0 && k >= 0 && (size_t)k < cap)
        snprintf(err + k, cap - (size_t)k, " (%s)",
                 lib && b2_last_error_code() == code ? b2_last_error_message() : b2_strerror(code));
    return code < 0 ? code : B2_ERR_INVALID_PARAM;
}

static int fail(int code, char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(0, code, err, cap, fmt, ap);
    va_end(ap);
    return rc;
}

static int lib_fail(int code, char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(1, code, err, cap, fmt, ap);
    va_end(ap);
    return rc;
}

/* The reference's cparams: c-blosc2 defaults plus the cd_values. */
void b2_h5_make_cparams(const b2_h5_params *p, b2_cparams *cp)
{
    b2_cparams_init(cp);
    cp->codec = p->codec;
    cp->codec_meta = (uint8_t)p->codec_meta;
    cp->clevel = p->clevel;
    cp->typesize = (int32_t)p->typesize;
    cp->splitmode = B2_SPLIT_FORWARD_COMPAT;
    memset(cp->filters, 0, sizeof cp->filters);
    memset(cp->filters_meta, 0, sizeof cp->filters_meta);
    cp->filters[B2_MAX_FILTERS - 1] = (uint8_t)p->filter;
    if (p->ext) { /* the extra values after the chunk dims (or the writer's options) */
        memcpy(cp->filters, p->filters, sizeof cp->filters);
        memcpy(cp->filters_meta, p->filters_meta, sizeof cp->filters_meta);
        cp->use_dict = p->use_dict;
    }
    cp->blocksize = 0;
    cp->nthreads = p->nthreads > 0 ? p->nthreads : 1;
}

int64_t b2_h5_block_target(const b2_h5_params *p)
{
    if (p->blocksize != 0)
        return p->blocksize;
    if (p->chunkbytes > INT32_MAX)
        return B2_ERR_INVALID_PARAM;
    b2_cparams cp;
    b2_h5_make_cparams(p, &cp);
    /* the reference tunes as if shuffle were on, whatever cd_values[5] says */
    cp.filters[B2_MAX_FILTERS - 1] = B2_FILTER_SHUFFLE;
    return b2_chunk_blocksize_for(&cp, (int32_t)p->chunkbytes);
}

void b2_h5_block_shape(const b2_h5_params *p, int64_t target, int64_t *b)
{
    int r = p->rank;
    int64_t nt = target / (int64_t)p->typesize, n = 1;
    for (int i = 0; i < r; i++) {
        b[i] = p->dims[i] == 1 ? 1 : 2;
        n *= b[i];
    }
    int changed = 1;
    while (changed && n < nt) {
        changed = 0;
        for (int i = r - 1; i >= 0; i--) {
            int64_t d = (int64_t)p->dims[i];
            if (2 * b[i] <= d) {
                if (2 * n <= nt) {
                    b[i] *= 2;
                    n *= 2;
                    changed = 1;
                }
            } else if (b[i] < d) {
                int64_t m = (n / b[i]) * d;
                if (m <= nt) {
                    b[i] = d;
                    n = m;
                    changed = 1;
                }
            }
        }
    }
}

/* c-blosc2's filter serialises a super-chunk that is not a frame (its "copy to
 * buffer" path), which writes tcomp 0, tdecomp 1 and, as the header blocksize, the
 * block size the compressor last used (doc/format/frame.md §2, §10). Our frame writer gives
 * the values of an incrementally built frame (thread counts included), so patch
 * those fixed-position fields: stored bytes then never depend on the threads. */
void b2_h5_patch_frame_header(uint8_t *f, size_t len, int32_t blocksize)
{
    if (len < 68 || f[52] != 0xD2 || f[62] != 0xD1 || f[65] != 0xD1)
        return; /* not the layout we know: leave it alone */
    if (blocksize > 0) {
        f[53] = (uint8_t)(blocksize >> 24);
        f[54] = (uint8_t)(blocksize >> 16);
        f[55] = (uint8_t)(blocksize >> 8);
        f[56] = (uint8_t)blocksize;
    }
    f[63] = 0;
    f[64] = 0;
    f[66] = 0;
    f[67] = 1;
}

static int encode_b2nd(const b2_h5_params *p, b2_h5_ctx *ctx, const void *src, size_t nbytes,
                       size_t limit, const b2_h5_alloc *al, void **out, size_t *outsize,
                       size_t *outlen, char *err, size_t errcap)
{
    b2_cparams cp;
    b2_h5_make_cparams(p, &cp);
    int64_t target = b2_h5_block_target(p);
    if (target < 0)
        return fail((int)target, err, errcap, "cannot derive the block size for a "
                    "%u-byte chunk", p->chunkbytes);
    int64_t bshape[B2_H5_READ_MAXDIM];
    b2_h5_block_shape(p, target, bshape);
    if (p->blockshape[0] > 0) /* given by the extra values */
        for (int i = 0; i < p->rank; i++)
            bshape[i] = p->blockshape[i];

    b2_nd_params np;
    memset(&np, 0, sizeof np);
    np.ndim = p->rank;
    int64_t block_bytes = p->typesize;
    for (int i = 0; i < p->rank; i++) {
        if (p->dims[i] > INT32_MAX)
            return fail(B2_ERR_DOES_NOT_FIT, err, errcap, "chunk dimension %d (%llu) is "
                        "too large for b2nd", i, (unsigned long long)p->dims[i]);
        np.shape[i] = (int64_t)p->dims[i];
        np.chunkshape[i] = (int32_t)p->dims[i];
        np.blockshape[i] = (int32_t)bshape[i];
        block_bytes *= bshape[i]; /* at most the chunk's bytes */
    }
    char dtype[16];
    snprintf(dtype, sizeof dtype, "|V%u", p->typesize);
    np.typesize = (int32_t)p->typesize;
    np.dtype = dtype;
    np.cparams = &cp;
    int64_t bound = b2_nd_encode_frame_bound(&np);
    if (bound < 0)
        return lib_fail((int)bound, err, errcap, "cannot build the b2nd array for a rank-%d chunk",
                    p->rank);
    /* The compression context (threads, scratch) is this thread's, kept between
     * chunks; b2nd wants it made for the array's typesize and block bytes. */
    b2_cctx *cc = NULL;
    if (ctx) {
        b2_cparams k = cp;
        k.blocksize = (int32_t)block_bytes;
        k.geometry.ndim = p->rank;
        for (int i = 0; i < p->rank; i++)
            k.geometry.blockshape[i] = (int32_t)bshape[i];
        cc = b2_h5_ctx_cctx(ctx, &k);
    }
    if (limit && (uint64_t)bound > limit)
        bound = (int64_t)limit; /* a frame that does not fit is not wanted */
    uint8_t *buf = al->alloc((size_t)bound, al->ud);
    if (!buf)
        return fail(B2_ERR_NOMEM, err, errcap, "cannot allocate %lld bytes", (long long)bound);
    int64_t flen = b2_nd_encode_frame_with(&np, cc, p->checksums ? B2_ND_ENCODE_CHECKSUMS : 0, src,
                                           nbytes, buf, (size_t)bound);
    if (flen < 0) {
        al->release(buf, al->ud);
        if (flen == B2_ERR_DST_TOO_SMALL && limit)
            return B2_ERR_DST_TOO_SMALL;
        return lib_fail((int)flen, err, errcap, "cannot compress the rank-%d chunk as a b2nd frame",
                    p->rank);
    }
    b2_h5_patch_frame_header(buf, (size_t)flen, 0);
    *out = buf;
    *outsize = (size_t)bound;
    *outlen = (size_t)flen;
    return 0;
}

static int encode_plain(const b2_h5_params *p, b2_h5_ctx *ctx, const void *src, size_t nbytes,
                        size_t limit, const b2_h5_alloc *al, void **out, size_t *outsize,
                        size_t *outlen, char *err, size_t errcap)
{
    b2_cparams cp;
    b2_h5_make_cparams(p, &cp);
    /* c-blosc2 clamps a forced block size to the buffer size; doing it first gives
     * the same blocks and keeps huge values away from the parameter checks */
    cp.blocksize = p->blocksize > nbytes ? (int32_t)nbytes : (int32_t)p->blocksize;
    int rc = b2_cparams_check(&cp);
    if (rc < 0)
        return lib_fail(rc, err, errcap, "invalid compression parameters (codec %d, clevel %d, "
                    "filter %d, typesize %u, blocksize %u)", p->codec, p->clevel, p->filter,
                    p->typesize, p->blocksize);
    /* The empty super-chunk gives the frame's header; the chunk is compressed
     * straight to its place after it and the frame is built around it, as for
     * b2nd chunks (same bytes as appending it and serialising the super-chunk). */
    b2_open_options o; /* with checksums, the frame built below holds its chunk's */
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.cparams = &cp;
    o.checksums = p->checksums ? B2_CHECKSUMS_ON : B2_CHECKSUMS_KEEP;
    b2_schunk *s = NULL;
    if ((rc = b2_schunk_open_with(&o, &s)) < 0)
        return lib_fail(rc, err, errcap, "cannot create a super-chunk");
    int64_t hl = b2_schunk_header_len(s);
    size_t bound = (size_t)hl + b2_chunk_compress_bound(nbytes) + 256;
    if (limit && bound > limit)
        bound = limit; /* a frame that does not fit is not wanted */
    b2_cctx *own = NULL, *cc = ctx ? b2_h5_ctx_cctx(ctx, &cp) : NULL;
    if (!cc)
        cc = own = b2_cctx_new(&cp);
    uint8_t *buf = cc && hl >= 0 ? al->alloc(bound, al->ud) : NULL;
    int64_t flen = !cc ? B2_ERR_INVALID_PARAM : !buf ? B2_ERR_NOMEM : B2_ERR_DST_TOO_SMALL;
    if (buf && (size_t)hl < bound) {
        size_t room = bound - (size_t)hl, cap = b2_chunk_compress_bound(nbytes);
        flen = b2_chunk_compress(cc, src, nbytes, buf + hl, room < cap ? room : cap);
        if (flen >= 0)
            flen = b2_schunk_frame_around_chunk(s, buf, bound, (int32_t)flen);
    }
    b2_cctx_free(own);
    b2_schunk_free(s);
    if (flen < 0) {
        if (buf)
            al->release(buf, al->ud);
        if (flen == B2_ERR_DST_TOO_SMALL && limit)
            return B2_ERR_DST_TOO_SMALL;
        return lib_fail((int)flen, err, errcap, "cannot compress the %zu-byte chunk as a frame",
                    nbytes);
    }
    b2_h5_patch_frame_header(buf, (size_t)flen, b2_chunk_blocksize_for(&cp, (int32_t)nbytes));
    *out = buf;
    *outsize = bound;
    *outlen = (size_t)flen;
    return 0;
}

int b2_h5_payload_encode(const b2_h5_params *p, b2_h5_ctx *ctx, int b2nd, const void *src,
                        size_t nbytes, size_t limit, const b2_h5_alloc *al, void **out,
                        size_t *outsize, size_t *outlen, char *err, size_t errcap)
{
    *out = NULL;
    *outsize = *outlen = 0;
    if (nbytes == 0 || nbytes > B2_MAX_BUFFERSIZE)
        return fail(B2_ERR_DOES_NOT_FIT, err, errcap, "a %zu-byte chunk cannot be stored "
                    "in one Blosc2 chunk", nbytes);
    /* with checksums (flags bit 1) both build frames that hold their chunk's */
    return b2nd ? encode_b2nd(p, ctx, src, nbytes, limit, al, out, outsize, outlen, err, errcap)
                : encode_plain(p, ctx, src, nbytes, limit, al, out, outsize, outlen, err, errcap);
}

int b2_h5_frame_verify(b2_schunk *s, char *err, size_t errcap)
{
    if (!b2_schunk_has_checksums(s))
        return 0;
    int64_t n = b2_schunk_nchunks(s);
    for (int64_t i = 0; i < n; i++) {
        /* OK, STALE (a writer without checksums changed the frame) or an error
         * that decoding reports anyway: only a mismatch fails here */
        int rc = b2_schunk_checksum_state(s, i);
        if (rc == B2_ERR_CHECKSUM) {
            const char *m = b2_last_error_code() == rc ? b2_last_error_message() : "", *pre =
                "checksum mismatch: ";
            if (!strncmp(m, pre, strlen(pre)))
                m += strlen(pre); /* the library's own prefix, said once */
            if (!strncmp(m, "chunk ", 6) && strstr(m, ": "))
                m = strstr(m, ": ") + 2; /* the frame's own chunk number means nothing in HDF5 */
            snprintf(err, errcap, "checksum mismatch: the stored frame is damaged (%s)", m);
            return rc;
        }
    }
    return 0;
}

static int decode_b2nd(const b2_h5_params *p, b2_schunk *s, b2_dctx *dctx, const b2_h5_alloc *al, void **out,
                       size_t *outsize, size_t *outlen, char *err, size_t errcap)
{
    b2_nd_array *a = NULL;
    int rc = b2_nd_from_schunk(s, &a);
    if (rc < 0) {
        b2_schunk_free(s);
        return lib_fail(rc, err, errcap, "the frame's b2nd metalayer is invalid");
    }
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    if (p->rank > 0) {
        if (nd != p->rank) {
            b2_nd_free(a);
            return fail(B2_ERR_FORMAT, err, errcap, "the stored array has rank %d but the "
                        "chunk rank in cd_values is %d", nd, p->rank);
        }
        for (int i = 0; i < nd; i++)
            if ((uint64_t)shape[i] != p->dims[i]) {
                long long got = (long long)shape[i]; /* shape dies with the array */
                b2_nd_free(a);
                return fail(B2_ERR_FORMAT, err, errcap, "the stored array has shape %lld "
                            "in dimension %d but the chunk shape is %llu", got, i,
                            (unsigned long long)p->dims[i]);
            }
    }
    int32_t ts = b2_nd_typesize(a);
    if (ts <= 0 || (uint32_t)ts != p->typesize) {
        b2_nd_free(a);
        return fail(B2_ERR_FORMAT, err, errcap, "the stored array has item size %d but "
                    "cd_values[2] says %u", (int)ts, p->typesize);
    }
    int64_t nitems = b2_nd_nitems(a);
    /* the reference decodes into a cd_values[3]-byte buffer; never exceed it */
    if (nitems <= 0 || nitems > (int64_t)(p->chunkbytes / p->typesize)) {
        b2_nd_free(a);
        return fail(B2_ERR_FORMAT, err, errcap, "the stored array holds %lld items of %d "
                    "bytes, more than the %u-byte chunk", (long long)nitems, (int)ts,
                    p->chunkbytes);
    }
    size_t len = (size_t)nitems * (size_t)ts;
    b2_nd_set_memory_limit(a, p->mem_limit);
    if (dctx)
        b2_nd_set_dctx(a, dctx);
    else
        b2_nd_set_nthreads(a, p->nthreads);
    void *buf = al->alloc(len, al->ud);
    if (!buf) {
        b2_nd_free(a);
        return fail(B2_ERR_NOMEM, err, errcap, "cannot allocate %zu bytes", len);
    }
    rc = b2_nd_to_cbuffer(a, buf, len);
    b2_nd_free(a);
    if (rc < 0) {
        al->release(buf, al->ud);
        return lib_fail(rc, err, errcap, "cannot decompress the b2nd array");
    }
    *out = buf;
    *outsize = *outlen = len;
    return 0;
}

static int decode_plain(const b2_h5_params *p, b2_schunk *s, b2_dctx *dctx, const b2_h5_alloc *al, void **out,
                        size_t *outsize, size_t *outlen, char *err, size_t errcap)
{
    int rc;
    if (b2_schunk_nchunks(s) < 1) {
        b2_schunk_free(s);
        return fail(B2_ERR_FORMAT, err, errcap, "the frame holds no chunk");
    }
    int nb = b2_schunk_chunk_nbytes(s, 0);
    if (nb <= 0) {
        b2_schunk_free(s);
        return lib_fail(nb < 0 ? nb : B2_ERR_FORMAT, err, errcap, "the frame's first chunk "
                    "is unreadable or empty");
    }
    /* The output is sized from what the frame declares. Filters before ours in
     * the pipeline (fletcher32, say) make it differ from the chunk's size, so
     * the memory limit bounds it. */
    int64_t limit = p->mem_limit > 0 ? p->mem_limit : B2_DEFAULT_MEMORY_LIMIT;
    if (nb > limit) {
        b2_schunk_free(s);
        return fail(B2_ERR_LIMIT, err, errcap, "the frame's chunk holds %d bytes, over the "
                    "memory limit of %lld (B2_H5_MEMORY_LIMIT raises it)", nb, (long long)limit);
    }
    b2_schunk_set_nthreads(s, p->nthreads);
    void *buf = al->alloc((size_t)nb, al->ud);
    if (!buf) {
        b2_schunk_free(s);
        return fail(B2_ERR_NOMEM, err, errcap, "cannot allocate %d bytes", nb);
    }
    if (b2_schunk_chunk_special(s, 0) == B2_SPECIAL_UNINIT)
        memset(buf, 0, (size_t)nb); /* never hand back stale heap bytes */
    if (dctx) {
        const uint8_t *chunk;
        int32_t cbytes;
        rc = b2_schunk_chunk_view(s, 0, &chunk, &cbytes);
        if (rc >= 0)
            rc = b2_chunk_decompress(dctx, chunk, (size_t)cbytes, buf, (size_t)nb);
    } else {
        rc = b2_schunk_decompress_chunk(s, 0, buf, (size_t)nb);
    }
    b2_schunk_free(s);
    if (rc < 0 || rc != nb) {
        al->release(buf, al->ud);
        return lib_fail(rc < 0 ? rc : B2_ERR_CORRUPT, err, errcap, "cannot decompress the "
                    "frame's chunk");
    }
    *out = buf;
    *outsize = *outlen = (size_t)nb;
    return 0;
}

int b2_h5_frame_open(const void *src, size_t len, int64_t mem_limit, b2_schunk **s)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = len ? src : ""; /* an empty buffer still names the source */
    o.buffer_len = len;
    o.memory_limit = mem_limit;
    return b2_schunk_open_with(&o, s);
}

int b2_h5_payload_decode(const b2_h5_params *p, b2_dctx *dctx, const void *src, size_t len,
                        const b2_h5_alloc *al,
                        void **out, size_t *outsize, size_t *outlen, char *err, size_t errcap)
{
    *out = NULL;
    *outsize = *outlen = 0;
    b2_schunk *s = NULL;
    int rc = b2_h5_frame_open(src, len, p->mem_limit, &s);
    if (rc < 0)
        return lib_fail(rc, err, errcap, "the %zu stored bytes are not a Blosc2 frame", len);
    if ((rc = b2_h5_frame_verify(s, err, errcap)) < 0) {
        b2_schunk_free(s);
        return rc;
    }
    if (dctx)
        b2_dctx_set_memory_limit(dctx, p->mem_limit);
    int32_t mlen = 0;
    uint8_t *meta = NULL;
    int is_nd = b2_schunk_meta_get(s, B2_ND_META_NAME, &meta, &mlen) >= 0 ||
                b2_schunk_meta_get(s, B2_ND_META_LEGACY_NAME, &meta, &mlen) >= 0;
    free(meta);
    return is_nd ? decode_b2nd(p, s, dctx, al, out, outsize, outlen, err, errcap)
                 : decode_plain(p, s, dctx, al, out, outsize, outlen, err, errcap);
}


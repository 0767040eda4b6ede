/* SPDX-License-Identifier: BSD-3-Clause */
/* The filter callback: buffer handling between HDF5 and the payload codec
 * (doc/format/hdf5-filter.md §3, §5, §7). */
#include <stdlib.h>
#include <string.h>

#include "h5api.h"
#include "h5context.h"
#include "h5filter.h"
#include "h5params.h"

static void *h5_alloc(size_t n, void *ud)
{
    const b2_h5_api *api = ud;
    return api->allocate_memory(n, 0);
}

static void h5_release(void *p, void *ud)
{
    const b2_h5_api *api = ud;
    api->free_memory(p);
}

/* nbytes == typesize * product of the chunk dims, without overflow (rank 1
 * only with the one-dimensional layout: classic rank-1 values carry no dims). */
static int is_whole_chunk(const b2_h5_params *p, size_t nbytes)
{
    if (p->rank < 1)
        return 0;
    uint64_t want = p->typesize;
    for (int i = 0; i < p->rank; i++) {
        if (p->dims[i] != 0 && want > UINT64_MAX / p->dims[i])
            return 0;
        want *= p->dims[i];
    }
    return want == nbytes;
}

/* Allocator handing out the calling thread's kept output buffer. */
static void *ctx_alloc(size_t n, void *ud) { return b2_h5_ctx_buffer(ud, 0, n); }
static void ctx_release(void *p, void *ud) { (void)p, (void)ud; }

int b2_h5_filter_encode(const b2_h5_params *p, struct b2_h5_ctx *ctx, const void *src,
                        size_t nbytes, const b2_h5_alloc *al, void **out, size_t *outsize,
                        size_t *outlen, char *err, size_t errcap)
{
    *out = NULL;
    *outsize = *outlen = 0;
    /* Every chunk is stored as a frame, incompressible ones too, as the
     * reference filter does: direct-chunk readers (b2h5py, PyTables) ignore the
     * filter mask and would open a raw chunk as a frame. */
    int rc = b2_h5_payload_encode(p, ctx, is_whole_chunk(p, nbytes), src, nbytes, 0, al, out,
                                  outsize, outlen, err, errcap);
    return rc < 0 ? rc : 1;
}

static size_t compress(const b2_h5_api *api, unsigned flags, const b2_h5_params *p,
                       size_t nbytes, size_t *buf_size, void **buf)
{
    char err[400];
    b2_h5_ctx *ctx = b2_h5_ctx_get(p->nthreads);
    /* An optional filter writes its frame into this thread's kept buffer and
     * copies it over the input, which is no longer needed: no memory is allocated
     * per chunk, so the heap never grows and shrinks around chunk-sized buffers
     * (fresh pages cost more than the copy). A mandatory filter's frame goes to
     * HDF5 memory. Every chunk becomes a frame, also where it is not smaller
     * (doc/format/hdf5-filter.md §3): readers that ignore the filter mask, and
     * parallel HDF5 1.10's collective writes that drop it, need that. */
    int optional = (flags & H5Z_FLAG_OPTIONAL) != 0;
    int in_place = optional && ctx;
    b2_h5_alloc al = in_place ? (b2_h5_alloc){ctx_alloc, ctx_release, ctx}
                             : (b2_h5_alloc){h5_alloc, h5_release, (void *)api};
    void *out = NULL;
    size_t outsize = 0, flen = 0;
    int rc = b2_h5_filter_encode(p, ctx, *buf, nbytes, &al, &out, &outsize, &flen, err,
                                sizeof err);
    if (rc < 0) {
        if (optional) /* HDF5 stores the chunk as it is: not an error for the caller */
            B2_H5_NOTE(api, "blosc2 filter: compression failed: %s", err);
        else
            B2_H5_ERROR(api, "blosc2 filter: compression failed: %s", err);
        return 0;
    }
    if (in_place && flen <= *buf_size) {
        memcpy(*buf, out, flen);
        return flen;
    }
    if (in_place) { /* an incompressible frame, larger than HDF5's buffer */
        void *big = api->allocate_memory(flen, 0);
        if (!big) {
            B2_H5_ERROR(api, "blosc2 filter: cannot allocate %zu bytes", flen);
            return 0;
        }
        memcpy(big, out, flen);
        out = big;
        outsize = flen;
    }
    /* The frame was written into memory HDF5 owns from now on. */
    api->free_memory(*buf);
    *buf = out;
    *buf_size = outsize;
    return flen;
}

static size_t decompress(const b2_h5_api *api, const b2_h5_params *p, size_t nbytes,
                         size_t *buf_size, void **buf)
{
    char err[400];
    b2_h5_alloc al = {h5_alloc, h5_release, (void *)api};
    void *out = NULL;
    size_t outsize = 0, outlen = 0;
    b2_h5_ctx *ctx = b2_h5_ctx_get(p->nthreads);
    /* The stored bytes move to this thread's kept buffer and HDF5's copy is freed
     * before the output is allocated: the output can then take the space HDF5's
     * previous chunk buffers left, instead of growing the heap into fresh pages
     * (which glibc trims again, so every chunk would fault in new memory). */
    const void *src = *buf;
    uint8_t *kept = ctx ? b2_h5_ctx_buffer(ctx, 1, nbytes) : NULL;
    if (kept) {
        memcpy(kept, *buf, nbytes);
        api->free_memory(*buf);
        *buf = NULL;
        *buf_size = 0;
        src = kept;
    }
    int rc = b2_h5_payload_decode(p, ctx ? ctx->dctx : NULL, src, nbytes, &al, &out, &outsize,
                                 &outlen, err, sizeof err);
    if (rc < 0) {
        /* HDF5 does not tell a filter which chunk (nor which dataset) it decodes */
        B2_H5_ERROR(api, "blosc2 filter: decompression failed: a chunk of the dataset: %s", err);
        if (!*buf && (*buf = api->allocate_memory(1, 0)) != NULL)
            *buf_size = 1; /* HDF5 frees whatever buffer it is handed back */
        return 0;
    }
    if (*buf)
        api->free_memory(*buf);
    /* A frame may decode to fewer bytes than the chunk holds: a filter before
     * ours in the pipeline (gzip, say) made them, and HDF5 hands them on. With no
     * such filter, HDF5 1.10 copies a whole chunk out of the buffer all the same,
     * so the buffer gets the chunk's size (cd_values[3]; zeros past outlen) where
     * that is within the memory limit and can be allocated. */
    int64_t limit = p->mem_limit > 0 ? p->mem_limit : B2_DEFAULT_MEMORY_LIMIT;
    if (outsize < p->chunkbytes && (int64_t)p->chunkbytes <= limit) {
        void *big = api->allocate_memory(p->chunkbytes, 1);
        if (big) {
            memcpy(big, out, outlen);
            api->free_memory(out);
            out = big;
            outsize = p->chunkbytes;
        }
    }
    *buf = out;
    *buf_size = outsize;
    return outlen;
}

size_t b2_h5_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                   size_t *buf_size, void **buf)
{
    const b2_h5_api *api = b2_h5_api_get(NULL);
    if (!api || !buf || !*buf || !buf_size || *buf_size < nbytes)
        return 0;
    int reverse = (flags & H5Z_FLAG_REVERSE) != 0;
    b2_h5_params p;
    char err[300];
    if (b2_h5_params_parse(cd_nelmts, cd_values, !reverse, &p, err, sizeof err) < 0) {
        B2_H5_ERROR(api, "blosc2 filter: bad filter parameters: %s", err);
        return 0;
    }
    p.nthreads = b2_h5_nthreads_from_env();
    p.mem_limit = b2_h5_memory_limit_from_env();
    if (nbytes == 0) {
        B2_H5_ERROR(api, "blosc2 filter: empty chunk");
        return 0;
    }
    return reverse ? decompress(api, &p, nbytes, buf_size, buf)
                   : compress(api, flags, &p, nbytes, buf_size, buf);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Decoding whole objects to a stream: a chunk's bytes, a super-chunk's chunks in
 * order (uninit chunks as zeros: their content is unspecified, zeros are the one
 * deterministic choice), or a b2nd array in C order without padding, produced
 * slab by slab along the first dimension so memory stays about one chunk row. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "decode.h"
#include "obj.h"

static int cat_chunk(const b2cli_obj *o, int nthreads, FILE *out)
{
    b2_chunk_info info;
    b2_dctx *dctx;
    uint8_t *buf;
    int rc = b2_chunk_get_info(o->data, o->size, &info);
    if (rc < 0)
        return b2cli_data_error(o->path, "bad chunk header: %s", b2cli_err(rc)), rc;
    if (info.special == B2_SPECIAL_UNINIT) {
        rc = b2cli_write_zeros(out, (size_t)info.nbytes);
        if (rc < 0)
            b2cli_data_error(o->path, "write error on output");
        return rc;
    }
    buf = malloc(info.nbytes > 0 ? (size_t)info.nbytes : 1);
    dctx = b2_dctx_new(nthreads);
    if (!buf || !dctx) {
        free(buf);
        b2_dctx_free(dctx);
        b2cli_data_error(o->path, "out of memory (%ld bytes)", (long)info.nbytes);
        return B2_ERR_NOMEM;
    }
    rc = b2_chunk_decompress(dctx, o->data, o->size, buf, (size_t)info.nbytes);
    b2_dctx_free(dctx);
    if (rc < 0) {
        b2cli_data_error(o->path, "cannot decompress chunk: %s", b2cli_err(rc));
    } else if (rc != info.nbytes) {
        b2cli_data_error(o->path, "decompressed %d bytes, header says %ld", rc, (long)info.nbytes);
        rc = B2_ERR_CORRUPT;
    } else {
        rc = b2cli_write_all(out, buf, (size_t)info.nbytes);
        if (rc < 0)
            b2cli_data_error(o->path, "write error on output");
    }
    free(buf);
    return rc;
}

/* Decode chunk i of a super-chunk into *buf (grown as needed). Uninit chunks
 * come out as zeros. Returns its nbytes or an error (no message). */
int b2cli_schunk_decode(b2_schunk *s, int64_t i, uint8_t **buf, size_t *cap)
{
    int n = b2_schunk_chunk_nbytes(s, i), sp, rc;
    if (n < 0)
        return n;
    if ((size_t)n > *cap || !*buf) {
        uint8_t *nb = realloc(*buf, n > 0 ? (size_t)n : 1);
        if (!nb)
            return B2_ERR_NOMEM;
        *buf = nb;
        *cap = (size_t)n;
    }
    sp = b2_schunk_chunk_special(s, i);
    if (sp < 0)
        return sp;
    if (sp == B2_SPECIAL_UNINIT) {
        memset(*buf, 0, (size_t)n);
        return n;
    }
    rc = b2_schunk_decompress_chunk(s, i, *buf, *cap);
    if (rc >= 0 && rc != n)
        return B2_ERR_CORRUPT;
    return rc;
}

static int cat_schunk(const b2cli_obj *o, FILE *out)
{
    uint8_t *buf = NULL;
    size_t cap = 0;
    int64_t n = b2_schunk_nchunks(o->schunk);
    int rc = B2_OK;
    for (int64_t i = 0; i < n; i++) {
        int got = b2cli_schunk_decode(o->schunk, i, &buf, &cap);
        if (got < 0) {
            rc = got;
            b2cli_data_error(o->path, "chunk %lld: %s", (long long)i, b2cli_err(got));
            break;
        }
        if ((rc = b2cli_write_all(out, buf, (size_t)got)) < 0) {
            b2cli_data_error(o->path, "write error on output");
            break;
        }
    }
    free(buf);
    return rc;
}

int b2cli_b2nd_write_box(const b2cli_obj *o, const int64_t *start, const int64_t *stop, FILE *out)
{
    b2_nd_array *a = o->arr;
    int nd = b2_nd_ndim(a);
    int32_t ts = b2_nd_typesize(a);
    const int32_t *cs = b2_nd_chunkshape(a);
    int64_t rowbytes = ts, s0[B2_ND_MAX_DIM], s1[B2_ND_MAX_DIM];
    uint8_t *buf = NULL;
    int rc = B2_OK;

    for (int d = 0; d < nd; d++) {
        if (stop[d] <= start[d])
            return B2_OK; /* empty box */
        if (d > 0)
            rowbytes *= stop[d] - start[d];
    }
    if (nd == 0) {
        uint8_t item[256];
        uint8_t *p = ts <= (int32_t)sizeof item ? item : malloc((size_t)ts);
        if (!p)
            return b2cli_data_error(o->path, "out of memory"), B2_ERR_NOMEM;
        memset(p, 0, (size_t)ts);
        rc = b2_nd_to_cbuffer(a, p, (size_t)ts);
        if (rc < 0)
            b2cli_data_error(o->path, "cannot read array: %s", b2cli_err(rc));
        else if ((rc = b2cli_write_all(out, p, (size_t)ts)) < 0)
            b2cli_data_error(o->path, "write error on output");
        if (p != item)
            free(p);
        return rc < 0 ? rc : B2_OK;
    }
    memcpy(s0, start, sizeof(int64_t) * nd);
    memcpy(s1, stop, sizeof(int64_t) * nd);
    for (int64_t r = start[0]; r < stop[0];) {
        /* one slab: the rows up to the next chunk boundary of dimension 0 */
        int64_t next = (r / cs[0] + 1) * cs[0];
        size_t len;
        if (next > stop[0])
            next = stop[0];
        len = (size_t)((next - r) * rowbytes);
        s0[0] = r;
        s1[0] = next;
        free(buf);
        if (!(buf = calloc(len ? len : 1, 1))) {
            rc = B2_ERR_NOMEM;
            b2cli_data_error(o->path, "out of memory (%zu bytes)", len);
            break;
        }
        rc = b2_nd_get_slice_cbuffer(a, s0, s1, buf, len);
        if (rc < 0) {
            b2cli_data_error(o->path, "rows %lld..%lld: %s", (long long)r, (long long)next,
                             b2cli_err(rc));
            break;
        }
        if ((rc = b2cli_write_all(out, buf, len)) < 0) {
            b2cli_data_error(o->path, "write error on output");
            break;
        }
        r = next;
    }
    free(buf);
    return rc < 0 ? rc : B2_OK;
}

int b2cli_decode_obj(const b2cli_obj *o, int nthreads, FILE *out)
{
    int64_t start[B2_ND_MAX_DIM] = {0};
    switch (o->kind) {
    case B2_KIND_CHUNK:
        return cat_chunk(o, nthreads, out);
    case B2_KIND_FRAME:
    case B2_KIND_SFRAME:
        b2_schunk_set_nthreads(o->schunk, nthreads);
        return cat_schunk(o, out);
    case B2_KIND_B2ND:
        b2_nd_set_nthreads(o->arr, nthreads);
        return b2cli_b2nd_write_box(o, start, b2_nd_shape(o->arr), out);
    default:
        return b2cli_data_error(o->path, "unknown kind of object"), B2_ERR_FORMAT;
    }
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The "b2nd" metalayer (doc/format/b2nd.md §1): a msgpack array
 * [version, ndim, shape(int64...), chunkshape(int32...), blockshape(int32...),
 *  dtype_format, dtype(str32)] with fixed widths, plus the 5-element legacy
 * "caterva" form and the 7-element form truncated before the dtype.
 *
 * Values are decoded with msgpack-c, but every marker byte is checked first: the
 * widths are fixed by the format (c-blosc2 reads them by position), and checking
 * the marker before unpacking keeps msgpack-c from ever sizing an allocation from
 * hostile array/map headers. The array markers are "0x90 + ndim" exactly as
 * c-blosc2 writes them (for ndim 16 that byte is 0xa0). */
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"
#include "nd_shapes.h"

_Static_assert(B2_ND_MAX_DIM == B2_ND_SHAPES_MAX_DIM, "one dimension limit for b2nd metalayers");

int32_t b2_nd_meta_encoded_len(int ndim, size_t dtype_len)
{
    if (ndim < 0 || ndim > B2_ND_MAX_DIM || dtype_len > (size_t)INT32_MAX - 12 - 19 * B2_ND_MAX_DIM)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    return (int32_t)(12 + 19 * ndim + dtype_len);
}

void b2_nd_meta_clear(b2_nd_meta *m)
{
    if (!m)
        return;
    free(m->dtype);
    m->dtype = NULL;
    m->dtype_len = 0;
}

static int decode_body(const uint8_t *p, size_t len, b2_nd_meta *m, msgpack_unpacked *u)
{
    b2_nd_shapes sh;
    size_t off;
    int64_t v;
    int rc = b2_nd_shapes_read(p, len, &sh, &off, u);
    if (rc < 0)
        return rc;
    m->version = sh.version;
    m->ndim = sh.ndim;
    memcpy(m->shape, sh.shape, sizeof sh.shape);
    memcpy(m->chunkshape, sh.chunkshape, sizeof sh.chunkshape);
    memcpy(m->blockshape, sh.blockshape, sizeof sh.blockshape);
    int legacy = sh.legacy;
    if ((rc = b2_nd_shapes_check(m->ndim, m->shape, m->chunkshape, m->blockshape)) < 0)
        return rc;
    m->dtype_format = -1;
    if (legacy || off == len)
        return B2_OK; /* no dtype: the reader's legacy layout */
    if ((rc = b2_mp_read_int(p, len, &off, 0, &v, u)) < 0)
        return rc;
    m->dtype_format = (int)v;
    if (off >= len)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    if (p[off] != 0xdb)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    msgpack_object o;
    if ((rc = b2_mp_unpack_scalar(p, len, &off, &o, u)) < 0)
        return rc;
    if (o.type != MSGPACK_OBJECT_STR || o.via.str.size > (uint32_t)INT32_MAX - 1)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    m->dtype = malloc((size_t)o.via.str.size + 1);
    if (!m->dtype)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    memcpy(m->dtype, o.via.str.ptr, o.via.str.size);
    m->dtype[o.via.str.size] = 0;
    m->dtype_len = (int32_t)o.via.str.size;
    /* Bytes after the dtype are ignored, as c-blosc2 does. */
    return B2_OK;
}

int b2_nd_meta_decode(const void *buf, size_t len, b2_nd_meta *m)
{
    if (!buf || !m)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    memset(m, 0, sizeof *m);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    int rc = decode_body(buf, len, m, &u);
    msgpack_unpacked_destroy(&u);
    if (rc < 0)
        b2_nd_meta_clear(m);
    return rc;
}

/* msgpack-c write callback into a fixed buffer (sized exactly in advance). */
typedef struct fixed_buf {
    uint8_t *p;
    size_t len, cap;
} fixed_buf;

static int fixed_write(void *data, const char *src, size_t n)
{
    fixed_buf *b = data;
    if (n > b->cap - b->len)
        return -1;
    memcpy(b->p + b->len, src, n);
    b->len += n;
    return 0;
}

int b2_nd_meta_encode(const b2_nd_meta *m, uint8_t **out, int32_t *outlen)
{
    if (!m || !out || !outlen || m->ndim < 0 || m->ndim > B2_ND_MAX_DIM)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = b2_nd_shapes_check(m->ndim, m->shape, m->chunkshape, m->blockshape);
    if (rc < 0)
        return rc;
    const char *dtype = m->dtype ? m->dtype : "|u1";
    size_t dlen = m->dtype ? (size_t)m->dtype_len : 3;
    int fmt = m->dtype_format < 0 ? B2_ND_DTYPE_NUMPY : m->dtype_format;
    if (m->version < 0 || m->version > 127 || fmt > 127)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int32_t total = b2_nd_meta_encoded_len(m->ndim, dlen);
    if (total < 0)
        return total;
    fixed_buf b = {malloc((size_t)total), 0, (size_t)total};
    if (!b.p)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &b, fixed_write);
    /* c-blosc2 writes a 7-element fixarray and "0x90 + ndim" array markers; the
     * latter are written raw because 0x90 + 16 is not a msgpack fixarray. */
    uint8_t mark = (uint8_t)(0x90 + m->ndim);
    int bad = msgpack_pack_array(&pk, 7);
    bad |= msgpack_pack_int(&pk, m->version); /* positive fixint */
    bad |= msgpack_pack_int(&pk, m->ndim);
    bad |= fixed_write(&b, (const char *)&mark, 1);
    for (int i = 0; i < m->ndim; i++)
        bad |= msgpack_pack_fix_int64(&pk, m->shape[i]);
    for (int k = 0; k < 2; k++) {
        const int32_t *v = k ? m->blockshape : m->chunkshape;
        bad |= fixed_write(&b, (const char *)&mark, 1);
        for (int i = 0; i < m->ndim; i++)
            bad |= msgpack_pack_fix_int32(&pk, v[i]);
    }
    bad |= msgpack_pack_int(&pk, fmt);
    /* Always str32, however short (format requirement). */
    uint8_t h[5] = {0xdb, (uint8_t)(dlen >> 24), (uint8_t)(dlen >> 16), (uint8_t)(dlen >> 8),
                    (uint8_t)dlen};
    bad |= fixed_write(&b, (const char *)h, 5);
    bad |= msgpack_pack_str_body(&pk, dtype, dlen);
    if (bad || b.len != (size_t)total) {
        free(b.p);
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    }
    *out = b.p;
    *outlen = total;
    return B2_OK;
}

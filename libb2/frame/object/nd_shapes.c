/* SPDX-License-Identifier: BSD-3-Clause */
/* The shape part of a "b2nd" metalayer, read scalar by scalar (nd_shapes.h). */
#include "nd_shapes.h"

int b2_mp_unpack_scalar(const uint8_t *buf, size_t len, size_t *off, msgpack_object *obj,
                        msgpack_unpacked *u)
{
    size_t pos = *off;
    int rc = msgpack_unpack_next(u, (const char *)buf, len, &pos);
    if (rc == MSGPACK_UNPACK_CONTINUE)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    if (rc != MSGPACK_UNPACK_SUCCESS && rc != MSGPACK_UNPACK_EXTRA_BYTES)
        return rc == MSGPACK_UNPACK_NOMEM_ERROR ? B2_ERR_NOMEM : B2_ERR_INVALID_HEADER;
    *obj = u->data;
    *off = pos;
    return B2_OK;
}

int b2_mp_read_int(const uint8_t *buf, size_t len, size_t *off, int marker, int64_t *val,
                   msgpack_unpacked *u)
{
    if (*off >= len)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    uint8_t m = buf[*off];
    if (marker == 0 ? m > 0x7f : m != marker)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    msgpack_object o;
    int rc = b2_mp_unpack_scalar(buf, len, off, &o, u);
    if (rc < 0)
        return rc;
    if (o.type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o.via.u64 > INT64_MAX)
            return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
        *val = (int64_t)o.via.u64;
    } else if (o.type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *val = o.via.i64;
    } else {
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    }
    return B2_OK;
}

/* The "0x90 + ndim" marker and ndim values of the given marker. */
static int read_dims(const uint8_t *buf, size_t len, size_t *off, int ndim, int marker,
                     int64_t *vals, msgpack_unpacked *u)
{
    if (*off >= len)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    if (buf[*off] != 0x90 + ndim)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    (*off)++;
    for (int i = 0; i < ndim; i++) {
        int rc = b2_mp_read_int(buf, len, off, marker, &vals[i], u);
        if (rc < 0)
            return rc;
    }
    return B2_OK;
}

/* ndim int32 values of the given marker into out. */
static int read_dims32(const uint8_t *buf, size_t len, size_t *off, int ndim, int32_t *out,
                       msgpack_unpacked *u)
{
    int64_t vals[B2_ND_SHAPES_MAX_DIM];
    int rc = read_dims(buf, len, off, ndim, 0xd2, vals, u);
    for (int i = 0; rc >= 0 && i < ndim; i++) {
        if (vals[i] < INT32_MIN || vals[i] > INT32_MAX)
            return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
        out[i] = (int32_t)vals[i];
    }
    return rc;
}

int b2_nd_shapes_read(const uint8_t *p, size_t len, b2_nd_shapes *s, size_t *off,
                      msgpack_unpacked *u)
{
    if (len < 1)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    s->legacy = p[0] == 0x95;
    if (p[0] != 0x97 && !s->legacy)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    *off = 1;
    int64_t v;
    int rc;
    if ((rc = b2_mp_read_int(p, len, off, 0, &v, u)) < 0)
        return rc;
    s->version = (int)v;
    if ((rc = b2_mp_read_int(p, len, off, 0, &v, u)) < 0)
        return rc;
    if (v > B2_ND_SHAPES_MAX_DIM)
        return B2_FAIL_CODE(B2_ERR_UNSUPPORTED);
    s->ndim = (int)v;
    if ((rc = read_dims(p, len, off, s->ndim, 0xd3, s->shape, u)) < 0)
        return rc;
    if ((rc = read_dims32(p, len, off, s->ndim, s->chunkshape, u)) < 0)
        return rc;
    return read_dims32(p, len, off, s->ndim, s->blockshape, u);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame trailer (doc/format/frame.md §6): vlmetalayers (each a Blosc2 chunk), trailer length
 * and an unused fingerprint. Part of the format module (frame_format.h): bytes
 * in and out, no I/O, no handle. */
#include <string.h>

#include "frame_format.h"

#define TRAILER_TAIL 23 /* CE len32 D8 type fingerprint[16] */

int b2_frame_trailer_locate(const uint8_t *last, int64_t frame_len, int64_t *trailer_len)
{
    /* last = the frame's final FRAME_TRAILER_MIN bytes; CE sits 23 bytes from the end. */
    const uint8_t *ce = last + FRAME_TRAILER_MIN - TRAILER_TAIL;
    if (ce[0] != 0xce)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    int64_t tl = b2_load_be32(ce + 1);
    if (tl < FRAME_TRAILER_MIN || tl > frame_len - FRAME_HEADER_FIXED)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    *trailer_len = tl;
    return B2_OK;
}

int b2_frame_trailer_parse(const uint8_t *t, int64_t tlen, frame_meta **vl, int *nvl)
{
    *vl = NULL;
    *nvl = 0;
    if (tlen < TRAILER_TAIL + 2 + 10 || t[0] != 0x94 || t[1] > 0x7f)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    const uint8_t *tail = t + tlen - TRAILER_TAIL;
    if (tail[0] != 0xce || b2_load_be32(tail + 1) != (uint64_t)tlen || tail[5] != 0xd8 ||
        tail[6] > 3)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    int64_t mlen = tlen - 2 - TRAILER_TAIL;
    int n = b2_frame_check_meta_layout(t + 2, mlen, FRAME_MAX_VLMETA_READ);
    if (n < 0)
        return n;
    /* Whole-trailer decode with exact bounds: a 4-array ending in uint32 + fixext16. */
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = B2_ERR_INVALID_HEADER;
    if (msgpack_unpack_next(&u, (const char *)t, (size_t)tlen, &off) == MSGPACK_UNPACK_SUCCESS &&
        off == (size_t)tlen) {
        const msgpack_object *o = &u.data;
        if (o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size == 4 &&
            o->via.array.ptr[0].type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
            o->via.array.ptr[1].type == MSGPACK_OBJECT_ARRAY &&
            o->via.array.ptr[2].type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
            o->via.array.ptr[2].via.u64 == (uint64_t)tlen &&
            o->via.array.ptr[3].type == MSGPACK_OBJECT_EXT &&
            o->via.array.ptr[3].via.ext.size == 16)
            rc = B2_OK;
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0)
        return B2_FAIL(rc, "trailer of %lld bytes is not the 4-element msgpack array", (long long)tlen);
    frame_meta *m = calloc(n ? (size_t)n : 1, sizeof *m);
    if (!m)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = b2_frame_decode_meta(t + 2, mlen, 2, tlen, n, m);
    if (rc < 0) {
        free(m);
        return rc;
    }
    /* Every content must be one complete chunk. */
    for (int i = 0; i < n; i++) {
        b2_chunk_info info;
        if (b2_chunk_get_info(m[i].content, (size_t)m[i].len, &info) < 0 ||
            info.cbytes != m[i].len) {
            b2_frame_meta_free_all(m, n);
            free(m);
            return B2_FAIL(B2_ERR_INVALID_HEADER, "vlmetalayer %d is not one whole chunk", i);
        }
    }
    *vl = m;
    *nvl = n;
    return B2_OK;
}

int b2_frame_trailer_write(const frame_meta *vl, int nvl, uint8_t **out, int64_t *len)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    int rc = msgpack_pack_array(&pk, 4);
    rc |= msgpack_pack_int(&pk, 1); /* trailer format version */
    if (!rc)
        rc = b2_frame_pack_meta(&sb, vl, nvl, 0, 1);
    int64_t total = (int64_t)sb.size + TRAILER_TAIL;
    static const char fingerprint[16];
    if (!rc) {
        rc |= msgpack_pack_fix_uint32(&pk, (uint32_t)total);
        rc |= msgpack_pack_ext_with_body(&pk, fingerprint, 16, 0);
    }
    if (rc || (int64_t)sb.size != total) {
        msgpack_sbuffer_destroy(&sb);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    *out = (uint8_t *)msgpack_sbuffer_release(&sb);
    *len = total;
    return B2_OK;
}

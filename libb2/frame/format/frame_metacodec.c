/* SPDX-License-Identifier: BSD-3-Clause */
/* The metalayer codec the frame header (metalayers) and the trailer
 * (vlmetalayers) share: the "93 CD idx DE n {name offset}* DC n {bin32}*"
 * layout, checked, decoded and packed.
 *
 * Decoding goes through msgpack-c. Because msgpack-c allocates room for every
 * container element before reading it, a hostile array32 count could ask for
 * gigabytes; so the layout (markers and 16-bit counts) is checked first, which
 * also guarantees the fixed-width encodings the in-place rewrites rely on.
 * Part of the format module (frame_format.h). */
#include <string.h>

#include "frame_format.h"

void b2_frame_meta_free_all(frame_meta *m, int n)
{
    for (int i = 0; i < n; i++) {
        free(m[i].content);
        m[i].content = NULL;
        m[i].len = 0;
    }
}

/* Check the "93 CD idx DE n {fixstr D2 off}* DC n {C6 len bytes}*" layout used by
 * both the header metalayers and the trailer vlmetalayers, starting at p[0] = 0x93
 * (the array marker). Returns the number of entries, or an error. */
int b2_frame_check_meta_layout(const uint8_t *p, int64_t len, int maxn)
{
    B2_FAIL_IF(len < 10 || p[0] != 0x93 || p[1] != 0xcd || p[4] != 0xde, B2_ERR_INVALID_HEADER,
               "metalayer section of %lld bytes has a bad layout", (long long)len);
    int n = p[5] << 8 | p[6];
    B2_FAIL_IF(n > maxn, B2_ERR_INVALID_HEADER, "%d metalayers, at most %d", n, maxn);
    int64_t pos = 7;
    for (int i = 0; i < n; i++) {
        if (pos >= len || (p[pos] & 0xe0) != 0xa0)
            return B2_FAIL(B2_ERR_INVALID_HEADER, "metalayer %d name marker at %lld", i, (long long)pos);
        pos += 1 + (p[pos] & 0x1f);
        if (pos + 5 > len || p[pos] != 0xd2)
            return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
        pos += 5;
    }
    if (pos + 3 > len || p[pos] != 0xdc || (p[pos + 1] << 8 | p[pos + 2]) != n)
        return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
    pos += 3;
    for (int i = 0; i < n; i++) {
        if (pos + 5 > len || p[pos] != 0xc6)
            return B2_FAIL_CODE(B2_ERR_INVALID_HEADER);
        int64_t l = b2_load_be32(p + pos + 1);
        B2_FAIL_IF(l > len - pos - 5, B2_ERR_TRUNCATED,
                   "metalayer %d content of %lld bytes at %lld runs past %lld", i, (long long)l,
                   (long long)pos + 5, (long long)len);
        pos += 5 + l;
    }
    return n;
}

/* Decode the checked layout with msgpack-c: names, offsets (relative to base) and
 * contents. The content is located through the map's offset, as the reference
 * reader does, and must agree with the value array. */
int b2_frame_decode_meta(const uint8_t *p, int64_t len, int64_t base, int64_t limit, int n,
                       frame_meta *meta)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = B2_ERR_INVALID_HEADER, filled = 0;
    if (msgpack_unpack_next(&u, (const char *)p, (size_t)len, &off) != MSGPACK_UNPACK_SUCCESS)
        goto done;
    const msgpack_object *o = &u.data;
    if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        goto done;
    const msgpack_object *map = &o->via.array.ptr[1], *vals = &o->via.array.ptr[2];
    if (map->type != MSGPACK_OBJECT_MAP || map->via.map.size != (uint32_t)n ||
        vals->type != MSGPACK_OBJECT_ARRAY || vals->via.array.size != (uint32_t)n)
        goto done;
    for (int i = 0; i < n; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key, *v = &map->via.map.ptr[i].val;
        const msgpack_object *b = &vals->via.array.ptr[i];
        if (k->type != MSGPACK_OBJECT_STR || k->via.str.size > B2_FRAME_MAX_NAME ||
            b->type != MSGPACK_OBJECT_BIN)
            goto done;
        int64_t at;
        if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && v->via.u64 <= INT32_MAX)
            at = (int64_t)v->via.u64;
        else
            goto done;
        /* at is relative to base; the value's bin32 must lie inside [0, limit). */
        int64_t rel = at - base;
        if (at < 0 || at >= limit || rel < 0 || rel + 5 > len || p[rel] != 0xc6)
            goto done;
        int64_t clen = b2_load_be32(p + rel + 1);
        if (clen > len - rel - 5 || clen != (int64_t)b->via.bin.size)
            goto done;
        memset(meta[i].name, 0, sizeof meta[i].name);
        memcpy(meta[i].name, k->via.str.ptr, k->via.str.size);
        meta[i].len = (int32_t)clen;
        meta[i].content = malloc(clen ? (size_t)clen : 1);
        if (!meta[i].content) {
            rc = B2_FAIL_CODE(B2_ERR_NOMEM);
            goto done;
        }
        filled = i + 1;
        memcpy(meta[i].content, p + rel + 5, (size_t)clen);
    }
    rc = (int)off;
done:
    if (rc == B2_ERR_INVALID_HEADER)
        rc = B2_FAIL(rc, "metalayer entry %d does not decode as its layout says", filled);
    if (rc < 0)
        b2_frame_meta_free_all(meta, filled);
    msgpack_unpacked_destroy(&u);
    return rc;
}

/* msgpack-c picks the shortest encoding; the frame needs map16/array16/bin32 and
 * fixed-width integers at fixed places, so those markers are packed explicitly. */
static int put_marker16(msgpack_sbuffer *sb, uint8_t marker, int n)
{
    char b[3] = {(char)marker, (char)(n >> 8), (char)n};
    return msgpack_sbuffer_write(sb, b, 3);
}

/* Pack "93 CD idx DE n map DC n bins" with offsets = base + position in output. */
int b2_frame_pack_meta(msgpack_sbuffer *sb, const frame_meta *m, int n, int64_t base, int idx_from_cd)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    int64_t start = (int64_t)sb->size;
    int64_t idx_size = 7;
    for (int i = 0; i < n; i++)
        idx_size += 1 + (int64_t)strlen(m[i].name) + 5;
    if (idx_from_cd)
        idx_size -= 1;
    int rc = msgpack_pack_array(&pk, 3);
    rc |= msgpack_pack_fix_uint16(&pk, (uint16_t)idx_size);
    rc |= put_marker16(sb, 0xde, n);
    /* values start after the map and the array16 marker */
    int64_t vpos = start + 7;
    for (int i = 0; i < n; i++)
        vpos += 1 + (int64_t)strlen(m[i].name) + 5;
    vpos += 3;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(m[i].name);
        rc |= msgpack_pack_str(&pk, l);
        rc |= msgpack_pack_str_body(&pk, m[i].name, l);
        rc |= msgpack_pack_fix_int32(&pk, (int32_t)(base + vpos));
        vpos += 5 + m[i].len;
    }
    rc |= put_marker16(sb, 0xdc, n);
    for (int i = 0; i < n; i++) {
        char b[5] = {(char)0xc6};
        b2_store_be32((uint8_t *)b + 1, (uint32_t)m[i].len);
        rc |= msgpack_sbuffer_write(sb, b, 5);
        if (m[i].len)
            rc |= msgpack_sbuffer_write(sb, (const char *)m[i].content, (size_t)m[i].len);
    }
    return rc ? B2_FAIL_CODE(B2_ERR_NOMEM) : B2_OK;
}

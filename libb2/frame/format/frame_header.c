/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame header (doc/format/frame.md §2-§3): the fixed 87 bytes, read and rewritten by
 * position like the reference does, and the metalayers section.
 *
 * The metalayers section is read and written by the codec the trailer's
 * vlmetalayers share (frame_metacodec.c). Part of the format module
 * (frame_format.h): bytes in and out, no I/O, no handle. */
#include <string.h>

#include "frame_format.h"

static const uint8_t hdr_markers[][2] = {
    {0, 0x9e}, {1, 0xa8}, {10, 0xd2}, {15, 0xcf}, {24, 0xa4}, {29, 0xd3}, {38, 0xd3},
    {47, 0xd2}, {52, 0xd2}, {57, 0xd2}, {62, 0xd1}, {65, 0xd1}, {69, 0xd8},
};

int b2_frame_header_parse_fixed(const uint8_t *p, frame_hdr *h)
{
    B2_FAIL_IF(p[0] != 0x9e || p[1] != 0xa8 || memcmp(p + 2, FRAME_MAGIC, 8) != 0, B2_ERR_FORMAT,
               "not a Blosc2 file (no frame magic%s)", b2_looks_like(p, 10));
    for (size_t i = 0; i < sizeof hdr_markers / sizeof hdr_markers[0]; i++)
        B2_FAIL_IF(p[hdr_markers[i][0]] != hdr_markers[i][1], B2_ERR_FORMAT,
                   "frame header byte %d is 0x%02x, not 0x%02x", hdr_markers[i][0],
                   p[hdr_markers[i][0]], hdr_markers[i][1]);
    B2_FAIL_IF(memcmp(p + 2, FRAME_MAGIC, 8) != 0, B2_ERR_FORMAT, "no frame magic at byte 2");
    B2_FAIL_IF(p[68] != 0xc2 && p[68] != 0xc3, B2_ERR_INVALID_HEADER,
               "frame header byte 68 (has vlmeta) is 0x%02x", p[68]);
    memset(h, 0, sizeof *h);
    h->header_len = (int32_t)b2_load_be32(p + 11);
    h->frame_len = (int64_t)b2_load_be64(p + 16);
    h->general_flags = p[25];
    h->frame_type = p[26];
    h->codec_flags = p[27];
    h->other_flags = p[28];
    h->nbytes = (int64_t)b2_load_be64(p + 30);
    h->cbytes = (int64_t)b2_load_be64(p + 39);
    h->typesize = (int32_t)b2_load_be32(p + 48);
    h->blocksize = (int32_t)b2_load_be32(p + 53);
    h->chunksize = (int32_t)b2_load_be32(p + 58);
    h->tcomp = (int16_t)(p[63] << 8 | p[64]);
    h->tdecomp = (int16_t)(p[66] << 8 | p[67]);
    h->has_vlmeta = p[68] == 0xc3;
    memcpy(h->filters, p + 71, 6);
    h->udcodec = p[77];
    h->compcode_meta = p[78];
    memcpy(h->filters_meta, p + 79, 6);
    h->other_flags2 = p[85];
    B2_FAIL_IF((h->general_flags & 0x0f) > 3 || (h->general_flags & 0x0f) == 0, B2_ERR_UNSUPPORTED,
               "frame format version %d (general flags 0x%02x)", h->general_flags & 0x0f,
               h->general_flags);
    B2_FAIL_IF(p[70] > 6, B2_ERR_INVALID_HEADER, "frame filter count %d is over 6", p[70]);
    B2_FAIL_IF(h->header_len < FRAME_HEADER_FIXED || h->frame_len < h->header_len ||
                   h->frame_len < 0,
               B2_ERR_INVALID_HEADER, "frame header_len %d with frame_len %lld",
               (int)h->header_len, (long long)h->frame_len);
    B2_FAIL_IF(h->typesize <= 0 || h->nbytes < 0 || h->cbytes < 0, B2_ERR_INVALID_HEADER,
               "frame typesize %d, nbytes %lld, cbytes %lld", (int)h->typesize,
               (long long)h->nbytes, (long long)h->cbytes);
    B2_FAIL_IF(h->chunksize < -1 || h->blocksize < 0, B2_ERR_INVALID_HEADER,
               "frame chunksize %d, blocksize %d", (int)h->chunksize, (int)h->blocksize);
    return B2_OK;
}

int b2_frame_meta_parse(const uint8_t *p, int32_t header_len, frame_meta *meta, int *nmeta)
{
    *nmeta = 0;
    const uint8_t *m = p + FRAME_HEADER_FIXED;
    int64_t mlen = header_len - FRAME_HEADER_FIXED;
    int n = b2_frame_check_meta_layout(m, mlen, B2_FRAME_MAX_METALAYERS);
    if (n < 0)
        return n;
    /* Whole-header decode: confirms the 14-element array and the fixed fields. */
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = B2_ERR_INVALID_HEADER;
    if (msgpack_unpack_next(&u, (const char *)p, (size_t)header_len, &off) ==
        MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *o = &u.data;
        if (o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size == 14 &&
            o->via.array.ptr[0].type == MSGPACK_OBJECT_STR &&
            o->via.array.ptr[1].type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
            o->via.array.ptr[1].via.u64 == (uint64_t)header_len &&
            o->via.array.ptr[11].type == MSGPACK_OBJECT_BOOLEAN &&
            o->via.array.ptr[12].type == MSGPACK_OBJECT_EXT &&
            o->via.array.ptr[12].via.ext.size == 16 &&
            o->via.array.ptr[13].type == MSGPACK_OBJECT_ARRAY)
            rc = B2_OK;
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0)
        return B2_FAIL(rc, "header of %d bytes is not the 14-element msgpack array", (int)header_len);
    rc = b2_frame_decode_meta(m, mlen, FRAME_HEADER_FIXED, header_len, n, meta);
    if (rc < 0)
        return rc;
    *nmeta = n;
    return B2_OK;
}

int64_t b2_frame_header_size(const frame_meta *meta, int nmeta)
{
    int64_t size = FRAME_HEADER_FIXED + 10;
    for (int i = 0; i < nmeta; i++)
        size += 1 + (int64_t)strlen(meta[i].name) + 5 + 5 + meta[i].len;
    return size;
}

uint8_t b2_frame_general_flags(int32_t chunksize, int vlblocks)
{
    int version = (chunksize == 0 || vlblocks) ? 3 : 2;
    return (uint8_t)(0x10 | version | (chunksize == 0 ? 0x40 : 0) | (vlblocks ? 0x80 : 0));
}

void b2_frame_header_init(frame_hdr *h, const b2_cparams *cp, int frame_type)
{
    memset(h, 0, sizeof *h);
    h->chunksize = -1;
    h->general_flags = b2_frame_general_flags(-1, 0);
    h->frame_type = (uint8_t)frame_type;
    int code = cp->codec;
    h->codec_flags = (uint8_t)((code >= 6 ? 6 : code) | (cp->clevel << 4));
    h->other_flags = (uint8_t)((cp->splitmode - 1) & 3);
    h->typesize = cp->typesize;
    h->blocksize = cp->blocksize;
    /* informational thread counts; the reference writes its contexts' values */
    h->tcomp = (int16_t)(cp->nthreads > 0 ? cp->nthreads : 1);
    h->tdecomp = h->tcomp;
    memcpy(h->filters, cp->filters, 6);
    memcpy(h->filters_meta, cp->filters_meta, 6);
    h->udcodec = (uint8_t)code;
    h->compcode_meta = cp->codec_meta;
    h->other_flags2 = cp->use_dict ? 1 : 0;
}

int b2_frame_header_write(const frame_hdr *h, const frame_meta *meta, int nmeta, uint8_t *out)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    char flags[4] = {(char)h->general_flags, (char)h->frame_type, (char)h->codec_flags,
                     (char)h->other_flags};
    char ext[16];
    memcpy(ext, h->filters, 6);
    ext[6] = (char)h->udcodec;
    ext[7] = (char)h->compcode_meta;
    memcpy(ext + 8, h->filters_meta, 6);
    ext[14] = (char)h->other_flags2;
    ext[15] = 0;
    int rc = msgpack_pack_array(&pk, 14);
    rc |= msgpack_pack_str_with_body(&pk, FRAME_MAGIC, 8);
    rc |= msgpack_pack_fix_int32(&pk, h->header_len);
    rc |= msgpack_pack_fix_uint64(&pk, (uint64_t)h->frame_len);
    rc |= msgpack_pack_str_with_body(&pk, flags, 4);
    rc |= msgpack_pack_fix_int64(&pk, h->nbytes);
    rc |= msgpack_pack_fix_int64(&pk, h->cbytes);
    rc |= msgpack_pack_fix_int32(&pk, h->typesize);
    rc |= msgpack_pack_fix_int32(&pk, h->blocksize);
    rc |= msgpack_pack_fix_int32(&pk, h->chunksize);
    rc |= msgpack_pack_fix_int16(&pk, h->tcomp);
    rc |= msgpack_pack_fix_int16(&pk, h->tdecomp);
    rc |= h->has_vlmeta ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    rc |= msgpack_pack_ext_with_body(&pk, ext, 16, 6);
    if (!rc)
        rc = b2_frame_pack_meta(&sb, meta, nmeta, 0, 0);
    if (!rc && (int64_t)sb.size != h->header_len)
        rc = B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (!rc)
        memcpy(out, sb.data, sb.size);
    msgpack_sbuffer_destroy(&sb);
    return rc ? (rc < 0 ? rc : B2_FAIL_CODE(B2_ERR_NOMEM)) : B2_OK;
}

void b2_frame_header_cparams(const frame_hdr *h, b2_cparams *p)
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

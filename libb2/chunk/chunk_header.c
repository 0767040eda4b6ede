/* SPDX-License-Identifier: BSD-3-Clause */
/* Chunk header parsing and validation (doc/format/chunk.md §3, §7, §9, §11). The names of
 * codecs, filters and special kinds live in common/names.c. */
#include <string.h>
#include "b2_chunk.h"
#include "b2_internal.h"
#include "chunk_internal.h"

/* Codec id for a format number when the header does not store one (Blosc1). */
static int compcode_of_format(int fmt)
{
    switch (fmt) {
    case 0: return B2_CODEC_BLOSCLZ;
    case 1: return B2_CODEC_LZ4;
    case 3: return B2_CODEC_ZLIB;
    case 4: return B2_CODEC_ZSTD;
    default: return -1;
    }
}

int b2_chunk_get_info(const void *src, size_t size, b2_chunk_info *info)
{
    const uint8_t *p = src;
    if (!src || !info)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !src ? "src" : "info");
    memset(info, 0, sizeof *info);
    if (size < B2_MIN_HEADER_LEN)
        return B2_FAIL(B2_ERR_TRUNCATED, "chunk of %zu bytes, a header needs %d", size,
                       B2_MIN_HEADER_LEN);

    info->version = p[0];
    info->versionlz = p[1];
    info->flags = p[2];
    info->typesize = p[3];
    info->nbytes = b2_load_le32s(p + 4);
    info->blocksize = b2_load_le32s(p + 8);
    info->cbytes = b2_load_le32s(p + 12);
    info->codec_format = info->flags >> 5;
    info->memcpyed = (info->flags & 0x02) != 0;

    B2_FAIL_IF(info->nbytes < 0, B2_ERR_INVALID_HEADER, "chunk nbytes %d is negative",
               (int)info->nbytes);
    B2_FAIL_IF(info->cbytes < B2_MIN_HEADER_LEN, B2_ERR_INVALID_HEADER,
               "chunk cbytes %d is less than the %d-byte header", (int)info->cbytes,
               B2_MIN_HEADER_LEN);
    B2_FAIL_IF(info->typesize == 0, B2_ERR_INVALID_HEADER, "chunk typesize is 0");

    int extended = (info->flags & 0x05) == 0x05;
    if (extended) {
        B2_FAIL_IF(size < B2_HEADER_LEN, B2_ERR_TRUNCATED,
                   "chunk of %zu bytes, its extended header needs %d", size, B2_HEADER_LEN);
        B2_FAIL_IF(info->cbytes < B2_HEADER_LEN, B2_ERR_INVALID_HEADER,
                   "chunk cbytes %d is less than the %d-byte extended header",
                   (int)info->cbytes, B2_HEADER_LEN);
        info->header_len = B2_HEADER_LEN;
        memcpy(info->filters, p + 16, 6);
        memcpy(info->filters_meta, p + 24, 6);
        if (info->version == 3) {
            /* Alpha writers left slot 5 uninitialised. */
            info->filters[5] = 0;
            info->filters_meta[5] = 0;
        }
        info->compcode = p[22];
        info->compcode_meta = p[23];
        info->blosc2_flags2 = p[30];
        info->blosc2_flags = p[31];
        info->vlblocks = info->blosc2_flags2 & 0x01;
        info->lazy = (info->blosc2_flags & 0x08) != 0;
        info->special = (info->blosc2_flags >> 4) & 7;
        B2_FAIL_IF(info->version > B2_VERSION_FORMAT_VL && (info->blosc2_flags2 & ~0x01),
                   B2_ERR_UNSUPPORTED, "chunk version %d sets unknown flags2 bits 0x%02x",
                   info->version, info->blosc2_flags2 & ~0x01);
        B2_FAIL_IF(info->special > B2_SPECIAL_UNINIT, B2_ERR_INVALID_HEADER,
                   "chunk special kind %d (flags 0x%02x) is not 0..%d", info->special,
                   info->blosc2_flags, B2_SPECIAL_UNINIT);
        B2_FAIL_IF(info->vlblocks && (info->memcpyed || info->special), B2_ERR_INVALID_HEADER,
                   "VL-block chunk is also %s", info->memcpyed ? "memcpyed" : "special");
        /* Memcpy chunks never carry a dictionary, whatever bit 0 says (doc/format/chunk.md §16.5). */
        info->has_dict = !info->memcpyed && !info->special && (info->blosc2_flags & 0x01);
    } else {
        info->header_len = B2_MIN_HEADER_LEN;
        if (info->flags & 0x01)
            info->filters[5] = B2_FILTER_SHUFFLE;
        if (info->flags & 0x04)
            info->filters[5] = B2_FILTER_BITSHUFFLE;
        if (info->flags & 0x08)
            info->filters[4] = B2_FILTER_DELTA;
        info->compcode = compcode_of_format(info->codec_format);
        if (info->compcode < 0)
            info->compcode = 3 + info->codec_format; /* reported, never decodable */
    }
    if (info->vlblocks) {
        /* blocksize holds the number of blocks. */
        B2_FAIL_IF(info->blocksize <= 0 || info->nbytes == 0, B2_ERR_INVALID_HEADER,
                   "VL-block chunk with %d blocks and nbytes %d", (int)info->blocksize,
                   (int)info->nbytes);
        info->nblocks = info->blocksize;
        info->split = 0;
        return B2_OK;
    }
    B2_FAIL_IF(info->blocksize <= 0 || info->blocksize > B2_MAX_BLOCKSIZE, B2_ERR_INVALID_HEADER,
               "chunk blocksize %d is not 1..%d", (int)info->blocksize, B2_MAX_BLOCKSIZE);

    if (info->special) {
        int32_t ts = info->typesize;
        if (info->special == B2_SPECIAL_VALUE) {
            int32_t v = info->cbytes - B2_HEADER_LEN;
            B2_FAIL_IF(v < 1 || v > info->nbytes || info->nbytes % v, B2_ERR_INVALID_HEADER,
                       "repeated-value chunk: value of %d bytes for nbytes %d", (int)v,
                       (int)info->nbytes);
        } else if (info->special == B2_SPECIAL_NAN) {
            B2_FAIL_IF((ts != 4 && ts != 8) || info->nbytes % ts, B2_ERR_INVALID_HEADER,
                       "NaN chunk with typesize %d and nbytes %d", (int)ts, (int)info->nbytes);
        } else if (info->special == B2_SPECIAL_UNINIT) {
            B2_FAIL_IF(info->nbytes % ts, B2_ERR_INVALID_HEADER,
                       "uninit chunk nbytes %d is not a multiple of typesize %d",
                       (int)info->nbytes, (int)ts);
        }
    } else if (info->memcpyed) {
        B2_FAIL_IF((int64_t)info->cbytes != (int64_t)info->nbytes + info->header_len,
                   B2_ERR_INVALID_HEADER, "memcpyed chunk cbytes %d is not nbytes %d + header %d",
                   (int)info->cbytes, (int)info->nbytes, info->header_len);
    }

    int32_t bs = info->blocksize;
    if (info->nbytes > 0 && bs > info->nbytes)
        bs = info->nbytes;
    info->eff_blocksize = bs;
    info->nblocks = info->nbytes / bs + (info->nbytes % bs ? 1 : 0);
    info->leftover = info->nbytes % bs;
    info->split = !(info->flags & 0x10);
    return B2_OK;
}

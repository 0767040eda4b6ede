/* SPDX-License-Identifier: BSD-3-Clause */
/* Special-value chunks written directly (doc/format/chunk.md §7, method 1): a 32-byte
 * header, plus the value for "repeated value" chunks. */
#include "chunk_encode.h"

int b2_chunk_make_special_ex(const b2_cparams *p, int special, int32_t nbytes,
                             const void *value, void *dst, size_t dstcap)
{
    if (!p || !dst || nbytes < 0 || nbytes > B2_MAX_BUFFERSIZE || b2_cparams_check(p) != B2_OK)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int32_t ts = p->typesize;
    switch (special) {
    case B2_SPECIAL_ZEROS:
        break; /* any nbytes decodes fine as zeros */
    case B2_SPECIAL_NAN:
        if (ts != 4 && ts != 8)
            return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
        /* fall through */
    case B2_SPECIAL_UNINIT:
        if (nbytes % ts != 0)
            return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
        break;
    case B2_SPECIAL_VALUE:
        if (!value || nbytes % ts != 0)
            return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
        /* A reader refuses a value larger than nbytes; an empty chunk of zeros
         * decodes to the same (nothing). */
        if (nbytes == 0)
            special = B2_SPECIAL_ZEROS;
        break;
    default:
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    }
    size_t cbytes = B2_HEADER_LEN + (special == B2_SPECIAL_VALUE ? (size_t)ts : 0);
    if (dstcap < cbytes)
        return B2_FAIL_CODE(B2_ERR_DST_TOO_SMALL);

    uint8_t *h = dst;
    memset(h, 0, B2_HEADER_LEN);
    h[0] = B2_VERSION_FORMAT;
    h[1] = 1;
    h[2] = 0x05; /* extended header, nothing else */
    h[3] = (uint8_t)(ts > B2_MAX_TYPESIZE ? 1 : ts);
    b2_store_le32(h + 4, (uint32_t)nbytes);
    b2_store_le32(h + 8, (uint32_t)b2_tune_blocksize(p, nbytes));
    b2_store_le32(h + 12, (uint32_t)cbytes);
    h[31] = (uint8_t)(special << 4);
    if (special == B2_SPECIAL_VALUE)
        memcpy(h + B2_HEADER_LEN, value, (size_t)ts);
    return (int)cbytes;
}

int b2_chunk_make_special(int special, int32_t typesize, int32_t nbytes, const void *value,
                          void *dst, size_t dstcap)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = typesize;
    return b2_chunk_make_special_ex(&p, special, nbytes, value, dst, dstcap);
}

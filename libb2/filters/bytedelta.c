/* SPDX-License-Identifier: BSD-3-Clause */
/* Bytedelta (doc/format/plugins.md, ids 34 and 35): the block is read as `typesize`
 * consecutive streams of n / typesize bytes each (after a byte shuffle these
 * are the byte planes); every byte is stored as its difference (mod 256) from
 * the byte before it in the same stream, the first byte of a stream from 0.
 * The n % typesize tail bytes after the last stream are copied unchanged.
 *
 * Id 34 is the reference's first release, whose vector loop handled 16-byte
 * groups correctly but restarted the running value at 0 for the bytes left
 * after the last whole group of each stream (reference issue 524). Such
 * chunks exist, so we undo that variant exactly; we never produce it. */
#include <string.h>
#include "filters.h"
#include "b2_common.h"

static int check_typesize(int32_t typesize)
{
    B2_FAIL_IF(typesize < 1 || typesize > 255, B2_ERR_FILTER, "bytedelta typesize %d",
               (int)typesize);
    return 0;
}

int b2_bytedelta_encode(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst)
{
    int rc = check_typesize(typesize);
    if (rc < 0 || n <= 0)
        return rc;
    int32_t len = n / typesize;
    size_t body = (size_t)len * (size_t)typesize;
    for (int32_t s = 0; s < typesize; s++) {
        const uint8_t *in = src + (size_t)s * (size_t)len;
        uint8_t *out = dst + (size_t)s * (size_t)len;
        uint8_t prev = 0;
        for (int32_t i = 0; i < len; i++) {
            uint8_t v = in[i];
            out[i] = (uint8_t)(v - prev);
            prev = v;
        }
    }
    memcpy(dst + body, src + body, (size_t)n - body);
    return 0;
}

int b2_bytedelta_decode(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst,
                        int buggy)
{
    int rc = check_typesize(typesize);
    if (rc < 0 || n <= 0)
        return rc;
    int32_t len = n / typesize;
    /* The buggy variant restarts the sum where the whole 16-byte groups end. */
    int32_t restart = buggy ? (len / 16) * 16 : -1;
    size_t body = (size_t)len * (size_t)typesize;
    for (int32_t s = 0; s < typesize; s++) {
        const uint8_t *in = src + (size_t)s * (size_t)len;
        uint8_t *out = dst + (size_t)s * (size_t)len;
        uint8_t acc = 0;
        for (int32_t i = 0; i < len; i++) {
            if (i == restart)
                acc = 0;
            acc = (uint8_t)(acc + in[i]);
            out[i] = acc;
        }
    }
    memcpy(dst + body, src + body, (size_t)n - body);
    return 0;
}

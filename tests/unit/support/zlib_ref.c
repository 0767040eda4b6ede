/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunk walk of doc/format/chunk.md (bstarts, then per block one stream or,
 * split, typesize streams, each an int32 size and its bytes) done afresh here,
 * so that the check does not lean on the library's own decoder. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include "b2_chunk.h"
#include "zlib_ref.h"

static int32_t le32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

int b2t_zlib_ref_inflate(const uint8_t *c, size_t n)
{
    b2_chunk_info in;
    if (b2_chunk_get_info(c, n, &in) != B2_OK || (size_t)in.cbytes > n || in.vlblocks) {
        printf("zlib_ref: not a chunk this check walks\n");
        return -1;
    }
    if (in.special || in.memcpyed || in.compcode != B2_CODEC_ZLIB)
        return 0;
    uint8_t *out = malloc((size_t)in.eff_blocksize + 1);
    int count = 0;
    for (int32_t j = 0; j < in.nblocks && count >= 0; j++) {
        int last = j == in.nblocks - 1 && in.leftover;
        int32_t bsize = last ? in.leftover : in.eff_blocksize;
        int32_t ns = in.split && !last ? in.typesize : 1, neblock = bsize / ns;
        int64_t pos = le32(c + in.header_len + 4 * (size_t)j);
        for (int32_t s = 0; s < ns && count >= 0; s++) {
            int32_t cs = pos + 4 <= in.cbytes ? le32(c + pos) : -256;
            pos += 4;
            if (cs <= 0 && cs >= -255) { /* zeros, or a run with its token byte */
                pos += cs < 0;
                continue;
            }
            if (cs < 0 || pos + cs > in.cbytes) {
                printf("zlib_ref: block %d stream %d: bad size %d\n", (int)j, (int)s, (int)cs);
                count = -1;
                break;
            }
            if (cs != neblock) {
                uLongf got = (uLongf)neblock + 1; /* room for one byte too many */
                int r = uncompress(out, &got, c + pos, (uLong)cs);
                if (r != Z_OK || got != (uLongf)neblock) {
                    printf("zlib_ref: block %d stream %d: zlib says %d, %lu bytes of %d\n",
                           (int)j, (int)s, r, (unsigned long)got, (int)neblock);
                    count = -1;
                    break;
                }
                count++;
            }
            pos += cs;
        }
    }
    free(out);
    return count;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Dictionary building for one chunk, as c-blosc2 3.3 does it (doc/format/codecs.md §6):
 * Zstd trains a dictionary on equal-sized samples of the filtered blocks; LZ4 and
 * LZ4HC use the start of the filtered data as a raw prefix. */
#include <stdlib.h>
#include <zdict.h>
#include "chunk_encode.h"

#define MIN_USEFUL_DICT 256

int b2_dict_build(int codec, const uint8_t *samples, int32_t nbytes, int32_t nblocks,
                  int32_t typesize, int split, uint8_t *dict)
{
    int32_t dict_max = nbytes / 20;
    if (dict_max > B2_MAX_DICT_SIZE)
        dict_max = B2_MAX_DICT_SIZE;
    int64_t n = (int64_t)nblocks * (split ? typesize : 1);
    if (n < 8)
        n = 8;
    int64_t sample_size = nbytes / n / 16;
    if (dict_max < MIN_USEFUL_DICT || sample_size == 0)
        return 0;

    if (codec == B2_CODEC_ZSTD) {
        size_t *sizes = malloc((size_t)n * sizeof *sizes);
        if (!sizes)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        for (int64_t i = 0; i < n; i++)
            sizes[i] = (size_t)sample_size;
        size_t r = ZDICT_trainFromBuffer(dict, (size_t)dict_max, samples, sizes, (unsigned)n);
        free(sizes);
        /* A failed training just means no dictionary, as in the reference. */
        return ZDICT_isError(r) ? 0 : (int)r;
    }
    if (codec == B2_CODEC_LZ4 || codec == B2_CODEC_LZ4HC) {
        int64_t dsize = n * sample_size;
        if (dsize > dict_max)
            dsize = dict_max;
        memcpy(dict, samples, (size_t)dsize);
        /* The reference builds the samples where the chunk body goes and stores the
         * dsize field (at body offset 4*nblocks) before copying the prefix, so
         * those four dictionary bytes hold dsize. Reproduced for identical bytes;
         * the decoder uses the stored dictionary either way. */
        int64_t at = 4 * (int64_t)nblocks;
        if (at < dsize) {
            uint8_t le[4];
            b2_store_le32(le, (uint32_t)dsize);
            memcpy(dict + at, le, (size_t)(dsize - at < 4 ? dsize - at : 4));
        }
        return (int)dsize;
    }
    return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Automatic blocksize and split decision, reproducing c-blosc2 3.3's default
 * tuner (doc/format/chunk.md §13.2-13.3) so that chunks come out byte-identical. */
#include "chunk_encode.h"

#define L1 32768
#define MAX_STREAMS 16
#define MIN_BUFFERSIZE 32

static int has_filter(const b2_cparams *p, int id)
{
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        if (p->filters[i] == id)
            return 1;
    return 0;
}

/* "HCR" codecs get larger blocks: they profit from more context. */
static int is_hcr(int codec)
{
    return codec == B2_CODEC_LZ4HC || codec == B2_CODEC_ZLIB || codec == B2_CODEC_ZSTD;
}

int b2_tune_split(const b2_cparams *p, int64_t typesize, int64_t blocksize)
{
    if (p->splitmode == B2_SPLIT_ALWAYS)
        return 1;
    if (p->splitmode == B2_SPLIT_NEVER)
        return 0;
    /* AUTO, FORWARD_COMPAT (identical in 3.3) */
    int codec_ok = p->codec == B2_CODEC_BLOSCLZ || p->codec == B2_CODEC_LZ4 ||
                   (p->codec == B2_CODEC_ZSTD && p->clevel <= 5);
    return codec_ok && has_filter(p, B2_FILTER_SHUFFLE) && typesize <= MAX_STREAMS &&
           typesize > 0 && blocksize / typesize >= MIN_BUFFERSIZE;
}

int32_t b2_tune_blocksize(const b2_cparams *p, int32_t nbytes)
{
    int64_t T = p->typesize;
    if (nbytes < T)
        return 1;
    int split = b2_tune_split(p, T, nbytes);
    int64_t B;
    if (p->blocksize > 0) {
        B = p->blocksize;
    } else {
        B = nbytes;
        if (nbytes >= L1) {
            B = L1;
            if (is_hcr(p->codec))
                B *= 2;
            switch (p->clevel) {
            case 0: B /= 4; break;
            case 1: B /= 2; break;
            case 2: break;
            case 3: B *= 2; break;
            case 4: case 5: B *= 4; break;
            case 6: case 7: case 8: B *= 8; break;
            default: B *= is_hcr(p->codec) ? 16 : 8; break;
            }
        }
        if (p->clevel > 0 && split) {
            static const int64_t base[10] = {0, 32768, 32768, 32768, 65536, 65536,
                                             65536, 131072, 262144, 524288};
            B = base[p->clevel] * T;
            if (B > 4194304)
                B = 4194304;
            if (B < 32768)
                B = 32768;
        }
    }
    if (B > nbytes)
        B = nbytes;
    if (B > T)
        B = B / T * T;
    return (int32_t)B;
}

int32_t b2_chunk_blocksize_for(const b2_cparams *p, int32_t nbytes)
{
    if (!p || nbytes < 0 || b2_cparams_check(p) != B2_OK)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    return b2_tune_blocksize(p, nbytes);
}

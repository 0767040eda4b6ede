/* ndlz (codec 32): placeholder until the codec lands; refuses every stream. */
#include "codecs.h"

int b2_ndlz_compress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                     int maxout)
{
    (void)u, (void)src, (void)srclen, (void)dst, (void)maxout;
    return B2_FAIL(B2_ERR_UNSUPPORTED, "codec id 32 (ndlz) is not built in");
}

int b2_ndlz_decompress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                       int dstlen)
{
    (void)u, (void)src, (void)srclen, (void)dst, (void)dstlen;
    return B2_FAIL(B2_ERR_UNSUPPORTED, "codec id 32 (ndlz) is not built in");
}

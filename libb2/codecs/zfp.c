/* zfp (codecs 33..35): placeholder until the codec lands; refuses every stream. */
#include "codecs.h"

int b2_zfp_compress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                    int maxout)
{
    (void)src, (void)srclen, (void)dst, (void)maxout;
    return B2_FAIL(B2_ERR_UNSUPPORTED, "codec id %d (zfp) is not built in", u->compcode);
}

int b2_zfp_decompress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                      int dstlen)
{
    (void)src, (void)srclen, (void)dst, (void)dstlen;
    return B2_FAIL(B2_ERR_UNSUPPORTED, "codec id %d (zfp) is not built in", u->compcode);
}

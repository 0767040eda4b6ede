/* Fuzz target: one chunk (b2_chunk_get_info, b2_chunk_decompress with 1 and 2
 * threads, b2_chunk_getitem of a range the input's last bytes choose, VL blocks). */
#include <stdlib.h>

#include "b2_chunk.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    b2_chunk_info info;
    if (b2_chunk_get_info(data, size, &info) < 0 || (uint32_t)info.nbytes > FUZZ_MAX_OUTPUT)
        return 0;
    uint8_t *out = malloc((size_t)info.nbytes + 1);
    if (!out)
        return 0;
    for (int t = 1; t <= 2; t++) {
        b2_dctx *d = b2_dctx_new(t);
        if (!d)
            break;
        b2_chunk_decompress(d, data, size, out, (size_t)info.nbytes);
        if (info.vlblocks)
            for (int32_t j = 0; j < info.nblocks && j < 64; j++)
                b2_chunk_vl_get_block(d, data, size, j, out, (size_t)info.nbytes);
        b2_dctx_free(d);
    }
    if (size >= 8 && info.typesize > 0) {
        int64_t items = info.nbytes / info.typesize;
        int64_t start = items ? (int64_t)(fuzz_le(data + size - 8, 4) % (uint64_t)(items + 1)) : 0;
        int64_t n = items ? (int64_t)(fuzz_le(data + size - 4, 4) % (uint64_t)(items - start + 1)) : 0;
        b2_dctx *d = b2_dctx_new(1);
        if (d)
            b2_chunk_getitem(d, data, size, start, n, out, (size_t)info.nbytes);
        b2_dctx_free(d);
    }
    free(out);
    return 0;
}

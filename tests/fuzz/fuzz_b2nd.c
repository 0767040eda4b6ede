/* Fuzz target: the b2nd metalayer decoder on the raw input, then a b2nd array
 * opened from the input as a frame and sliced: the whole array and a box the
 * input's last bytes choose. */
#include <stdlib.h>

#include "b2_nd.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    b2_nd_meta m;
    if (b2_nd_meta_decode(data, size, &m) >= 0)
        b2_nd_meta_clear(&m);
    b2_nd_array *a = NULL;
    if (b2_nd_open_buffer(data, size, 0, &a) < 0)
        return 0;
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], bytes = b2_nd_typesize(a), box = bytes;
    for (int d = 0; d < nd; d++) {
        uint64_t r = size >= 2 * (size_t)nd ? fuzz_le(data + size - 2 * (size_t)(d + 1), 2) : 0;
        start[d] = shape[d] ? (int64_t)(r % (uint64_t)shape[d]) : 0;
        stop[d] = shape[d] ? start[d] + 1 + (int64_t)((r >> 8) % (uint64_t)(shape[d] - start[d])) : 0;
        bytes *= shape[d];
        box *= stop[d] - start[d];
        if (bytes > FUZZ_MAX_OUTPUT || bytes < 0)
            break;
    }
    if (bytes >= 0 && bytes <= FUZZ_MAX_OUTPUT) {
        uint8_t *out = malloc((size_t)bytes + 1);
        if (out) {
            b2_nd_to_cbuffer(a, out, (size_t)bytes);
            if (box >= 0 && box <= bytes)
                b2_nd_get_slice_cbuffer(a, start, stop, out, (size_t)box);
        }
        free(out);
    }
    b2_nd_free(a);
    return 0;
}

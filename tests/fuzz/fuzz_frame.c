/* Fuzz target: a contiguous frame in memory (b2_schunk_open_buffer), then every
 * chunk decoded, items across chunks, every metalayer and vlmetalayer read. */
#include <stdlib.h>

#include "b2_frame.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    b2_schunk *s = NULL;
    if (b2_schunk_open_buffer(data, size, 0, &s) < 0)
        return 0;
    int64_t n = b2_schunk_nchunks(s);
    for (int64_t i = 0; i < n && i < 256; i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        if (nb < 0 || (uint32_t)nb > FUZZ_MAX_OUTPUT)
            continue;
        uint8_t *out = malloc((size_t)nb + 1);
        if (out)
            b2_schunk_decompress_chunk(s, i, out, (size_t)nb);
        free(out);
    }
    int32_t ts = b2_schunk_typesize(s);
    int64_t nbytes = b2_schunk_nbytes(s);
    if (ts > 0 && nbytes > 0 && nbytes <= FUZZ_MAX_OUTPUT) {
        uint8_t *out = malloc((size_t)nbytes);
        if (out)
            b2_schunk_get_items(s, 0, nbytes / ts, out, (size_t)nbytes);
        free(out);
    }
    for (int k = 0; k < b2_schunk_meta_count(s); k++) {
        uint8_t *c = NULL;
        int32_t len;
        const char *name = b2_schunk_meta_name(s, k);
        if (name && b2_schunk_meta_get(s, name, &c, &len) >= 0)
            free(c);
    }
    for (int k = 0; k < b2_schunk_vlmeta_count(s); k++) {
        uint8_t *c = NULL;
        int32_t len;
        const char *name = b2_schunk_vlmeta_name(s, k);
        if (name && b2_schunk_vlmeta_get(s, name, &c, &len) >= 0)
            free(c);
    }
    b2_schunk_free(s);
    return 0;
}

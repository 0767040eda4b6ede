/* ndcell (filter 32): placeholder until the filter lands; refuses every block. */
#include "filters.h"

int b2_ndcell_forward(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                      const uint8_t *src, uint8_t *dst)
{
    (void)meta, (void)typesize, (void)geom, (void)n, (void)src, (void)dst;
    return B2_FAIL(B2_ERR_UNSUPPORTED, "filter id 32 (ndcell) is not built in");
}

int b2_ndcell_backward(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                       const uint8_t *src, uint8_t *dst)
{
    (void)meta, (void)typesize, (void)geom, (void)n, (void)src, (void)dst;
    return B2_FAIL(B2_ERR_UNSUPPORTED, "filter id 32 (ndcell) is not built in");
}

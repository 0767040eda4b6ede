/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: a b2nd array opened from the input as a frame (b2_nd_open_buffer),
 * read whole, then boxes the input's last bytes choose read three ways that must
 * agree: b2_nd_get_slice_cbuffer, the same box cut from the whole array, and a
 * new array made by b2_nd_get_slice read back whole. Then a writable copy gets
 * the box written back (b2_nd_set_slice_cbuffer). The metalayer decoder alone
 * has its own target (fuzz_b2nd_meta). */
#include <string.h>

#include "b2_nd.h"
#include "fuzz_common.h"

/* Copy box [start, stop) of the C-order array whole (shape, ts-byte items) to dst. */
static void cut_box(const uint8_t *whole, const int64_t *shape, int nd, int64_t ts,
                    const int64_t *start, const int64_t *stop, uint8_t *dst)
{
    int64_t idx[B2_ND_MAX_DIM], row = (nd ? stop[nd - 1] - start[nd - 1] : 1) * ts;
    if (row <= 0)
        return;
    for (int d = 0; d < nd; d++) {
        if (stop[d] <= start[d])
            return;
        idx[d] = start[d];
    }
    for (;;) {
        int64_t off = 0;
        for (int d = 0; d < nd; d++)
            off = off * shape[d] + idx[d];
        memcpy(dst, whole + off * ts, (size_t)row);
        dst += row;
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < stop[d])
                break;
            idx[d] = start[d];
        }
        if (d < 0)
            return;
    }
}

/* Whether a copy (b2_nd_get_slice) may differ from the array: a lossy pipeline
 * compresses the copy again, and uninit chunks have no defined content. */
static int copy_may_differ(b2_nd_array *a)
{
    b2_schunk *s = b2_nd_schunk(a);
    if (fuzz_lossy(b2_schunk_cparams(s)))
        return 1;
    for (int64_t i = 0; i < b2_schunk_nchunks(s); i++)
        if (b2_schunk_chunk_special(s, i) == B2_SPECIAL_UNINIT)
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    b2_nd_array *a = NULL;
    if (b2_nd_open_buffer(data, size, 0, &a) < 0)
        return 0;
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    int64_t ts = b2_nd_typesize(a), bytes = ts;
    for (int d = 0; d < nd && bytes >= 0 && bytes <= FUZZ_MAX_OUTPUT; d++)
        bytes = shape[d] && bytes > INT64_MAX / shape[d] ? -1 : bytes * shape[d];
    if (bytes < 0 || bytes > FUZZ_MAX_OUTPUT) {
        b2_nd_free(a);
        return 0;
    }
    /* zeroed: uninit chunks leave the destination untouched, in every read */
    uint8_t *whole = fuzz_calloc((size_t)bytes), *box = fuzz_malloc((size_t)bytes),
            *box2 = fuzz_malloc((size_t)bytes);
    int have_whole = whole && b2_nd_to_cbuffer(a, whole, (size_t)bytes) >= 0;
    b2_nd_array *w = NULL;
    for (int k = 0; k < 3 && box && box2; k++) {
        /* box k: two bytes per dimension from the input's end */
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], n = ts;
        for (int d = 0; d < nd; d++) {
            size_t at = 2 * ((size_t)k * (size_t)nd + (size_t)d + 1);
            uint64_t r = size >= at ? fuzz_le(data + size - at, 2) : 0;
            start[d] = shape[d] ? (int64_t)(r % (uint64_t)shape[d]) : 0;
            stop[d] = shape[d] ? start[d] + 1 + (int64_t)((r >> 8) % (uint64_t)(shape[d] - start[d])) : 0;
            n *= stop[d] - start[d];
        }
        memset(box, 0, (size_t)n);
        if (b2_nd_get_slice_cbuffer(a, start, stop, box, (size_t)n) < 0)
            continue;
        if (have_whole) {
            cut_box(whole, shape, nd, ts, start, stop, box2);
            FUZZ_CHECK(!memcmp(box, box2, (size_t)n), "a slice differs from the whole array");
        }
        b2_nd_array *sl = NULL;
        b2_nd_storage mem = {B2_STORAGE_MEMORY, NULL};
        if (k == 0 && !copy_may_differ(a) && b2_nd_get_slice(a, start, stop, NULL, NULL, &mem, &sl) >= 0) {
            memset(box2, 0, (size_t)n);
            FUZZ_CHECK(b2_nd_to_cbuffer(sl, box2, (size_t)n) >= 0 && !memcmp(box, box2, (size_t)n),
                       "b2_nd_get_slice differs from the slice read");
            b2_nd_free(sl);
        }
        if (k == 1 && (w || b2_nd_open_buffer(data, size, 1, &w) >= 0))
            b2_nd_set_slice_cbuffer(w, start, stop, box, (size_t)n);
    }
    b2_nd_free(w);
    free(whole);
    free(box);
    free(box2);
    b2_nd_free(a);
    return 0;
}

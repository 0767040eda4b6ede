/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocks described as rows of a caller's strided memory (b2_block_rows), shared
 * by the decoder (rows are destinations) and the encoder (rows are sources). */
#include "chunk_internal.h"
#include "b2_chunk_experimental.h"

/* Drop unit dimensions, check that every row lies inside the block (bsize
 * bytes), then merge trailing dimensions contiguous on both sides into the run,
 * so a box covering whole blocks becomes one run. */
int b2_rows_normalize(b2_block_rows *r, int32_t bsize)
{
    if (r->nd < 0 || r->nd > B2_ROWS_MAXDIM || r->run < 0 || r->soff < 0 || r->soff > bsize)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int64_t end = r->soff + r->run;
    int k = 0;
    for (int d = 0; d < r->nd; d++) {
        if (r->cnt[d] <= 0) {
            r->nd = 0;
            r->run = 0;
            return B2_OK;
        }
        if (r->cnt[d] == 1)
            continue;
        if (r->sstr[d] < 0 || r->sstr[d] > bsize || r->cnt[d] > bsize)
            return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
        end += (r->cnt[d] - 1) * r->sstr[d]; /* < 2^58 each: no overflow */
        r->cnt[k] = r->cnt[d];
        r->sstr[k] = r->sstr[d];
        r->dstr[k] = r->dstr[d];
        k++;
    }
    r->nd = k;
    if (end > bsize || (r->run && !r->user))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    while (r->nd > 0 && r->sstr[r->nd - 1] == r->run && r->dstr[r->nd - 1] == r->run) {
        r->run *= r->cnt[r->nd - 1];
        r->nd--;
    }
    return B2_OK;
}

void b2_rows_walk(const b2_block_rows *r, row_fn fn, const void *op)
{
    int64_t idx[B2_ROWS_MAXDIM] = {0}, off = r->soff;
    uint8_t *user = r->user;
    for (;;) {
        fn(op, off, user, r->run);
        int d = r->nd - 1;
        for (; d >= 0; d--) {
            off += r->sstr[d];
            user += r->dstr[d];
            if (++idx[d] < r->cnt[d])
                break;
            off -= r->sstr[d] * r->cnt[d];
            user -= r->dstr[d] * r->cnt[d];
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

/* Whether every row starts and ends on a whole unit. */
int b2_rows_aligned(const b2_block_rows *r, int32_t unit)
{
    if (r->soff % unit || r->run % unit)
        return 0;
    for (int d = 0; d < r->nd; d++)
        if (r->sstr[d] % unit)
            return 0;
    return 1;
}

int64_t b2_rows_bytes(const b2_block_rows *r)
{
    int64_t n = r->run;
    for (int d = 0; d < r->nd; d++)
        n *= r->cnt[d];
    return n;
}

int64_t b2_rows_end(const b2_block_rows *r)
{
    int64_t end = r->soff + r->run;
    for (int d = 0; d < r->nd; d++)
        end += (r->cnt[d] - 1) * r->sstr[d];
    return end;
}

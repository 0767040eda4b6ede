/* SPDX-License-Identifier: BSD-3-Clause */
/* The public checksum calls (b2_frame.h): applying a policy, which may hash
 * every chunk not covered yet, and checking one chunk. The table itself is
 * frame_sums.c's. */
#include "frame_internal.h"

/* ---- applying a policy ---- */

/* Hash every regular chunk no entry covers yet (reading it). */
static int cover_all(b2_schunk *s)
{
    frame_rd *r = b2_frame_rd_get(s);
    int rc = r ? B2_OK : B2_FAIL_CODE(B2_ERR_NOMEM);
    for (int64_t i = 0; i < s->ix.nchunks && rc >= 0; i++) {
        if (b2_frame_sums_covered(s, i))
            continue;
        if (b2_frame_index_special(frame_entry(s, i)) != 0) {
            rc = b2_frame_sums_put(s, i, 0, NULL, 0);
            continue;
        }
        const uint8_t *p;
        int32_t cb;
        rc = b2_schunk_chunk_bytes(s, r, i, &p, &cb); /* unchecked: they get their first sum */
        if (rc >= 0)
            rc = b2_frame_sums_put(s, i, 0, p, cb);
    }
    b2_frame_rd_put(s, r);
    return rc;
}

int b2_schunk_set_checksums_body(b2_schunk *s, int policy)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    B2_FAIL_IF(policy < B2_CHECKSUMS_KEEP || policy > B2_CHECKSUMS_IGNORE, B2_ERR_INVALID_PARAM,
               "checksum policy %d", policy);
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    int how = b2_frame_sums_apply(s, policy), rc = how; /* 1: commit; 2: cover, commit */
    if (how > 1 && ((rc = b2_frame_index_materialize(s)) < 0 || (rc = cover_all(s)) < 0))
        return rc;
    return rc < 0 ? rc : how ? b2_frame_commit(s, 0) : B2_OK;
}

int b2_schunk_has_checksums(const b2_schunk *s)
{
    return s && s->check.table ? 1 : 0;
}

int b2_schunk_set_verify(b2_schunk *s, int on)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    s->check.verify = on != 0;
    return B2_OK;
}

int b2_schunk_checksum_state_body(b2_schunk *s, int64_t i)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    B2_FAIL_IF(i < 0 || i >= s->ix.nchunks, B2_ERR_RANGE, "chunk %lld of %lld", (long long)i,
               (long long)s->ix.nchunks);
    if (!s->check.table)
        return B2_CHECKSUM_NONE;
    int sp = b2_frame_index_special(frame_entry(s, i));
    if (sp < 0)
        return sp;
    if (sp)
        return b2_frame_sums_check(s, i, NULL, 0);
    frame_rd *r = b2_frame_rd_get(s);
    const uint8_t *p;
    int32_t cb;
    int rc = r ? b2_schunk_chunk_bytes(s, r, i, &p, &cb) : B2_FAIL_CODE(B2_ERR_NOMEM);
    if (rc >= 0)
        rc = b2_frame_sums_check(s, i, p, cb);
    b2_frame_rd_put(s, r);
    return rc;
}

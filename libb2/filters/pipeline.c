/* SPDX-License-Identifier: BSD-3-Clause */
/* The six-slot filter pipeline on one block (doc/format/filters.md §1): forward applies
 * slots 0..5, backward undoes slots 5..0 (TRUNC_PREC and INT_TRUNC have no
 * inverse and are skipped). Besides the four core filters it runs the
 * registered plugin filters ndcell, ndmean, bytedelta (35; 34 backward only)
 * and int_trunc, and user filters (ids 160..255) found in the pipeline's registry
 * or the process table. Filters ping-pong between scratch buffers; the caller's input of
 * the forward direction is never written (c-blosc2's rotation does, doc/format/filters.md §6.5). */
#include <stdio.h>
#include <string.h>
#include "filters.h"
#include "b2_common.h"
#include "registry.h"

enum {
    F_NONE = 0, F_SHUFFLE = 1, F_BITSHUFFLE = 2, F_DELTA = 3, F_TRUNC_PREC = 4,
    F_NDCELL = B2_FILTER_NDCELL, F_NDMEAN = B2_FILTER_NDMEAN, F_BYTEDELTA_BUGGY = B2_FILTER_BYTEDELTA_BUGGY, F_BYTEDELTA = B2_FILTER_BYTEDELTA,
    F_INT_TRUNC = B2_FILTER_INT_TRUNC
};

/* Lossy filters whose decoding is a copy: backward skips them. (ndmean is
 * lossy too, but its output is in cell order, which decoding undoes.) */
static int no_inverse(uint8_t f)
{
    return f == F_TRUNC_PREC || f == F_INT_TRUNC;
}

/* Filter id of a slot; version-3 writers left slot 5 uninitialised (doc/format/chunk.md §3.5). */
static uint8_t slot_filter(const b2_pipeline *p, int slot)
{
    return (slot == 5 && p->version == 3) ? F_NONE : p->filters[slot];
}

static uint8_t slot_meta(const b2_pipeline *p, int slot)
{
    return (slot == 5 && p->version == 3) ? 0 : p->metas[slot];
}

/* Shuffle unit and bytedelta stream count: the slot's meta, 0 meaning the
 * typesize. (For bytedelta the reference takes the super-chunk's typesize and
 * refuses a chunk outside one; a frame's chunks carry that typesize in their
 * header, so the header's serves both.) */
static int32_t shuffle_unit(const b2_pipeline *p, int slot)
{
    uint8_t m = slot_meta(p, slot);
    return m ? m : p->typesize;
}

int b2_pipeline_active(const b2_pipeline *p)
{
    for (int s = 0; s < 6; s++)
        if (slot_filter(p, s) != F_NONE)
            return 1;
    return 0;
}

int32_t b2_pipeline_single_shuffle(const b2_pipeline *p, int forward)
{
    int32_t unit = 0;
    for (int s = 0; s < 6; s++) {
        uint8_t f = slot_filter(p, s);
        if (f == F_NONE || (no_inverse(f) && !forward))
            continue; /* trunc_prec and int_trunc have no inverse */
        if (f != F_SHUFFLE || unit)
            return 0;
        unit = shuffle_unit(p, s);
    }
    return unit > 1 ? unit : 0;
}

int b2_pipeline_single_bitshuffle(const b2_pipeline *p)
{
    int n = 0, bit = 0;
    for (int s = 0; s < 6; s++) {
        uint8_t f = slot_filter(p, s);
        if (f == F_NONE || no_inverse(f))
            continue;
        n++;
        bit = f == F_BITSHUFFLE;
    }
    return n == 1 && bit;
}

static int known_id(uint8_t f)
{
    return f <= F_TRUNC_PREC || (f >= F_NDCELL && f <= F_INT_TRUNC);
}

/* Every id must be one we implement or a registered user filter (other plugins
 * and reserved ids are refused). */
static int check_ids(const b2_pipeline *p)
{
    B2_FAIL_IF(p->typesize < 1, B2_ERR_INVALID_PARAM, "typesize %d", (int)p->typesize);
    for (int s = 0; s < 6; s++) {
        uint8_t f = slot_filter(p, s);
        if (b2_is_user_id(f) && !b2_user_filter_find(p->reg, f)) {
            char where[16];
            snprintf(where, sizeof where, " in slot %d", s);
            return B2_USER_MISSING("filter", f, where);
        }
        B2_FAIL_IF(!b2_is_user_id(f) && !known_id(f), B2_ERR_UNSUPPORTED,
                   "filter id %d in slot %d", f, s);
    }
    return 0;
}

int b2_pipeline_check_ids(const b2_pipeline *p) { return check_ids(p); }

/* Run user filter f (registered: check_ids passed) of slot s on one block. */
static int run_user(const b2_pipeline *p, int s, int forward, const uint8_t *src, uint8_t *dst,
                    int32_t n)
{
    uint8_t f = slot_filter(p, s);
    b2_plugin_call c = {.meta = slot_meta(p, s), .typesize = p->typesize, .blocksize = n,
                        .geom = p->geom};
    return b2_user_filter_run(b2_user_filter_find(p->reg, f), forward, c, src, dst, n);
}

int b2_pipeline_check(const b2_pipeline *p)
{
    int rc = check_ids(p);
    if (rc < 0)
        return rc;
    for (int s = 0; s < 6; s++) {
        uint8_t f = slot_filter(p, s);
        int8_t meta = (int8_t)slot_meta(p, s);
        /* n = 0 only validates the parameters. */
        if (f == F_TRUNC_PREC)
            rc = b2_trunc_prec(meta, p->typesize, 0, NULL, NULL);
        else if (f == F_INT_TRUNC)
            rc = b2_int_trunc(meta, p->typesize, 0, NULL, NULL);
        else if (f == F_NDCELL)
            rc = b2_ndcell_forward(meta, p->typesize, p->geom, 0, NULL, NULL);
        else if (f == F_NDMEAN)
            rc = b2_ndmean_forward(meta, p->typesize, p->geom, 0, NULL, NULL);
        else if (f == F_BYTEDELTA_BUGGY)
            rc = B2_FAIL(B2_ERR_UNSUPPORTED,
                         "filter id %d (bytedelta_buggy) in slot %d is decode-only; use %d",
                         (int)f, s, (int)F_BYTEDELTA);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int b2_pipeline_forward(const b2_pipeline *p, const uint8_t *src, int32_t n,
                        const uint8_t *delta_ref, uint8_t *tmp_a, uint8_t *tmp_b,
                        const uint8_t **out)
{
    int rc = check_ids(p);
    if (rc < 0)
        return rc;
    if (n < 0)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    const uint8_t *cur = src;
    for (int s = 0; s < 6; s++) {
        uint8_t f = slot_filter(p, s);
        if (f == F_NONE)
            continue;
        /* The output goes to whichever scratch buffer is not the current input. */
        uint8_t *dst = cur == tmp_a ? tmp_b : tmp_a;
        switch (f) {
        case F_SHUFFLE:
            b2_shuffle(shuffle_unit(p, s), n, cur, dst);
            break;
        case F_BITSHUFFLE:
            b2_bitshuffle(p->typesize, n, cur, dst);
            break;
        case F_DELTA:
            b2_delta_encode(delta_ref, p->typesize, n, cur, dst);
            break;
        case F_TRUNC_PREC:
            rc = b2_trunc_prec((int8_t)slot_meta(p, s), p->typesize, n, cur, dst);
            break;
        case F_BYTEDELTA:
            rc = b2_bytedelta_encode(shuffle_unit(p, s), n, cur, dst);
            break;
        case F_INT_TRUNC:
            rc = b2_int_trunc((int8_t)slot_meta(p, s), p->typesize, n, cur, dst);
            break;
        case F_NDCELL:
            rc = b2_ndcell_forward((int8_t)slot_meta(p, s), p->typesize, p->geom, n, cur, dst);
            break;
        case F_NDMEAN:
            rc = b2_ndmean_forward((int8_t)slot_meta(p, s), p->typesize, p->geom, n, cur, dst);
            break;
        default:
            rc = b2_is_user_id(f) ? run_user(p, s, 1, cur, dst, n)
                                  : B2_FAIL(B2_ERR_UNSUPPORTED,
                                            "filter id %d in slot %d is decode-only", (int)f, s);
            break;
        }
        if (rc < 0)
            return rc;
        cur = dst;
    }
    *out = cur;
    return 0;
}

int b2_pipeline_backward(const b2_pipeline *p, uint8_t *src, int32_t n,
                         const uint8_t *delta_ref, uint8_t *tmp, uint8_t *dst)
{
    int rc = check_ids(p);
    if (rc < 0)
        return rc;
    if (n < 0)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int slots[6], count = 0;
    for (int s = 5; s >= 0; s--) {
        uint8_t f = slot_filter(p, s);
        if (f != F_NONE && !no_inverse(f))
            slots[count++] = s;
    }
    if (count == 0) {
        if (n > 0 && dst != src)
            memcpy(dst, src, (size_t)n);
        return 0;
    }
    /* Intermediate results alternate tmp, src, tmp, ... (src may be
     * overwritten); the last inverse writes straight into dst. */
    uint8_t *cur = src;
    for (int k = 0; k < count; k++) {
        int s = slots[k];
        uint8_t *out = k == count - 1 ? dst : (cur == tmp ? src : tmp);
        if (b2_is_user_id(slot_filter(p, s))) {
            if ((rc = run_user(p, s, 0, cur, out, n)) < 0)
                return rc;
            cur = out;
            continue;
        }
        switch (slot_filter(p, s)) {
        case F_SHUFFLE:
            b2_unshuffle(shuffle_unit(p, s), n, cur, out);
            break;
        case F_BITSHUFFLE:
            b2_bitunshuffle(p->typesize, n, cur, out, p->version == 2);
            break;
        case F_BYTEDELTA:
        case F_BYTEDELTA_BUGGY:
            rc = b2_bytedelta_decode(shuffle_unit(p, s), n, cur, out,
                                     slot_filter(p, s) == F_BYTEDELTA_BUGGY);
            if (rc < 0)
                return rc;
            break;
        case F_NDCELL:
            rc = b2_ndcell_backward((int8_t)slot_meta(p, s), p->typesize, p->geom, n, cur, out);
            if (rc < 0)
                return rc;
            break;
        case F_NDMEAN:
            rc = b2_ndmean_backward((int8_t)slot_meta(p, s), p->typesize, p->geom, n, cur, out);
            if (rc < 0)
                return rc;
            break;
        default:
            b2_delta_decode(delta_ref, p->typesize, n, cur, out);
            break;
        }
        cur = out;
    }
    return 0;
}

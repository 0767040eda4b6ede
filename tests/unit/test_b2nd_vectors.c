/* SPDX-License-Identifier: BSD-3-Clause */
/* Every b2nd interop vector decodes to its manifest length and sha256, both through
 * the whole-array read and through slices; its metalayer decodes to the manifest's
 * array description and re-encodes to the same bytes. NaN special chunks are
 * typed: their items must be the machine's NaN, hashed as x86's little-endian
 * bytes (support/nan_items.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_nd.h"
#include "sha256.h"
#include "manifest.h"
#include "nan_items.h"
#include "check.h"
#include "b2_nd_experimental.h"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

/* Check the metalayer codec on the manifest's hex: decode, compare, re-encode. */
static void check_meta(const char *id, const jnode *arr)
{
    const char *hex = json_str(arr, "b2nd_meta_hex", NULL);
    if (!hex)
        return;
    size_t n = strlen(hex) / 2;
    uint8_t *bin = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        bin[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    b2_nd_meta m;
    int rc = b2_nd_meta_decode(bin, n, &m);
    CHECK(rc == 0, "%s: meta decode %d", id, rc);
    if (rc == 0) {
        CHECK(m.ndim == (int)json_num(arr, "ndim", -1), "%s: ndim", id);
        const jnode *shape = json_get(arr, "shape"), *cs = json_get(arr, "chunkshape"),
                    *bs = json_get(arr, "blockshape");
        for (int i = 0; i < m.ndim && shape && cs && bs; i++) {
            CHECK(m.shape[i] == (int64_t)shape->kids[i].num, "%s: shape[%d]", id, i);
            CHECK(m.chunkshape[i] == (int32_t)cs->kids[i].num, "%s: chunkshape[%d]", id, i);
            CHECK(m.blockshape[i] == (int32_t)bs->kids[i].num, "%s: blockshape[%d]", id, i);
        }
        const char *dt = json_str(arr, "dtype", "");
        CHECK(m.dtype && strcmp(m.dtype, dt) == 0, "%s: dtype %s vs %s", id, m.dtype, dt);
        uint8_t *enc;
        int32_t elen;
        rc = b2_nd_meta_encode(&m, &enc, &elen);
        CHECK(rc == 0 && (size_t)elen == n && memcmp(enc, bin, n) == 0, "%s: re-encode", id);
        if (rc == 0)
            free(enc);
        b2_nd_meta_clear(&m);
    }
    free(bin);
}

/* NaN special chunks of a decode to the machine's typed NaNs; the manifest hashed
 * x86's (nan_items.h). Rewrites their items in out (the whole array, C order) as
 * little-endian bytes; returns how many were not the machine's NaN. */
static size_t nan_chunks_to_le(b2_nd_array *a, uint8_t *out)
{
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    const int32_t *cs = b2_nd_chunkshape(a);
    int ts = (int)b2_nd_typesize(a);
    b2_schunk *s = b2_nd_schunk(a);
    size_t bad = 0;
    for (int64_t c = 0; c < b2_schunk_nchunks(s); c++) {
        if (b2_schunk_chunk_special(s, c) != B2_SPECIAL_NAN)
            continue;
        /* the chunk's box [lo, hi) from its C-order index in the chunk grid */
        int64_t lo[B2_ND_MAX_DIM], hi[B2_ND_MAX_DIM], idx[B2_ND_MAX_DIM], rest = c;
        int empty = 0;
        for (int i = nd - 1; i >= 0; i--) {
            int64_t nc = (shape[i] + cs[i] - 1) / cs[i];
            lo[i] = nc ? rest % nc * cs[i] : 0;
            rest = nc ? rest / nc : 0;
            hi[i] = lo[i] + cs[i] < shape[i] ? lo[i] + cs[i] : shape[i];
            idx[i] = lo[i];
            empty |= lo[i] >= hi[i];
        }
        if (empty)
            continue;
        /* rows along the last axis are contiguous in out */
        size_t run = (size_t)ts * (size_t)(nd ? hi[nd - 1] - lo[nd - 1] : 1);
        for (;;) {
            int64_t off = 0;
            for (int i = 0; i < nd; i++)
                off = off * shape[i] + idx[i];
            bad += test_nan_items_to_le(out + off * ts, run, ts);
            int i = nd - 2;
            for (; i >= 0; i--) {
                if (++idx[i] < hi[i])
                    break;
                idx[i] = lo[i];
            }
            if (i < 0)
                break;
        }
    }
    return bad;
}

int main(void)
{
    jnode *man = test_interop_manifest();
    if (!man)
        return 77;
    const char *dir = getenv("B2_INTEROP_DIR");
    char path[4096];
    const jnode *vecs = json_get(man, "vectors");
    int nvec = 0, nslices = 0;
    for (size_t v = 0; vecs && v < vecs->nkids; v++) {
        const jnode *vec = &vecs->kids[v];
        if (strcmp(json_str(vec, "kind", ""), "b2nd") != 0)
            continue;
        const char *id = json_str(vec, "id", "?");
        nvec++;
        check_meta(id, json_get(vec, "array"));
        snprintf(path, sizeof path, "%s/%s", dir, json_str(vec, "path", ""));
        size_t flen;
        unsigned char *file = test_read_file(path, &flen);
        CHECK(file, "%s: cannot read %s", id, path);
        if (!file)
            continue;
        b2_nd_array *a = NULL;
        int rc = b2_nd_open_buffer(file, flen, 0, &a);
        CHECK(rc == 0, "%s: open_buffer %d (%s)", id, rc, b2_strerror(rc));
        if (rc == 0) {
            int64_t explen = (int64_t)json_num(vec, "expected.length", -1);
            int64_t nbytes = b2_nd_nitems(a) * b2_nd_typesize(a);
            CHECK(nbytes == explen, "%s: length %lld vs %lld", id, (long long)nbytes,
                  (long long)explen);
            CHECK(b2_nd_typesize(a) == (int)json_num(vec, "array.typesize", -1), "%s: typesize", id);
            uint8_t *out = malloc((size_t)nbytes + 1);
            rc = b2_nd_to_cbuffer(a, out, (size_t)nbytes);
            CHECK(rc == 0, "%s: to_cbuffer %d", id, rc);
            char hex[65];
            uint8_t *h = malloc((size_t)nbytes + 1);
            memcpy(h, out, (size_t)nbytes);
            size_t bad = nan_chunks_to_le(a, h);
            CHECK(bad == 0, "%s: %zu items of NaN chunks are not the machine's NaN", id, bad);
            test_sha256_hex(h, (size_t)nbytes, hex);
            free(h);
            const char *want = json_str(vec, "expected.sha256", "");
            CHECK(strcmp(hex, want) == 0, "%s: sha256 %s vs %s", id, hex, want);
            /* A few sub-boxes against the full read. */
            int nd = b2_nd_ndim(a);
            const int64_t *shape = b2_nd_shape(a);
            uint64_t seed = 12345 + v;
            for (int t = 0; t < 20 && nbytes > 0; t++) {
                int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], ext[B2_ND_MAX_DIM], n = 1;
                for (int i = 0; i < nd; i++) {
                    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                    int64_t x = (int64_t)((seed >> 33) % (uint64_t)shape[i]);
                    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                    int64_t y = (int64_t)((seed >> 33) % (uint64_t)shape[i]);
                    start[i] = x < y ? x : y;
                    stop[i] = (x < y ? y : x) + 1;
                    ext[i] = stop[i] - start[i];
                    n *= ext[i];
                }
                size_t ts = (size_t)b2_nd_typesize(a);
                uint8_t *sl = malloc(n * ts);
                rc = b2_nd_get_slice_cbuffer(a, start, stop, sl, n * ts);
                CHECK(rc == 0, "%s: get_slice %d", id, rc);
                /* compare item by item against the full C-order read */
                int64_t idx[B2_ND_MAX_DIM] = {0};
                for (int64_t k = 0; k < n && rc == 0; k++) {
                    int64_t off = 0;
                    for (int i = 0; i < nd; i++)
                        off = off * shape[i] + start[i] + idx[i];
                    if (memcmp(sl + k * ts, out + off * ts, ts)) {
                        CHECK(0, "%s: slice item %lld differs", id, (long long)k);
                        break;
                    }
                    for (int i = nd - 1; i >= 0; i--) {
                        if (++idx[i] < ext[i])
                            break;
                        idx[i] = 0;
                    }
                }
                free(sl);
                nslices++;
            }
            free(out);
            b2_nd_free(a);
        }
        free(file);
    }
    json_free(man);
    printf("b2nd vectors: %d checked, %d sub-slices compared, %ld failures\n", nvec, nslices,
           b2t_failures);
    if (nvec == 0) {
        printf("FAIL: no b2nd vectors in the manifest\n");
        return 1;
    }
    return b2t_failures ? 1 : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Mutation test over the b2nd interop vectors: mutate the "b2nd" metalayer (bytes
 * flipped, fields set to edge values, truncated) and, less often, the rest of the
 * frame; opening and reading each mutant must fail cleanly or succeed, never crash,
 * hang or read out of bounds (run it under ASan/UBSan). The metalayer codec is also
 * fuzzed on its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_nd.h"
#include "manifest.h"
#include "test_rng.h"
#include "b2_nd_experimental.h"


static long opened, refused, read_ok, read_err, meta_ok, meta_bad;

/* Open a mutant and read what is affordable; outcomes are only counted. */
static void try_frame(const uint8_t *buf, size_t len)
{
    b2_nd_array *a;
    if (b2_nd_open_buffer(buf, len, 0, &a) < 0) {
        refused++;
        return;
    }
    opened++;
    int64_t nbytes = b2_nd_nitems(a) * b2_nd_typesize(a);
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    if (nbytes <= (1 << 20)) {
        uint8_t *out = malloc((size_t)nbytes + 1);
        int rc = out ? b2_nd_to_cbuffer(a, out, (size_t)nbytes) : -1;
        rc < 0 ? read_err++ : read_ok++;
        free(out);
    }
    /* the last item alone */
    int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
    int empty = 0;
    for (int i = 0; i < nd; i++) {
        empty |= shape[i] == 0;
        start[i] = shape[i] ? shape[i] - 1 : 0;
        stop[i] = shape[i];
    }
    if (!empty && b2_nd_typesize(a) <= 4096) {
        uint8_t item[4096];
        b2_nd_get_slice_cbuffer(a, start, stop, item, sizeof item) < 0 ? read_err++ : read_ok++;
    }
    b2_nd_free(a);
}

static void try_meta(const uint8_t *buf, size_t len)
{
    b2_nd_meta m;
    if (b2_nd_meta_decode(buf, len, &m) < 0) {
        meta_bad++;
        return;
    }
    meta_ok++;
    uint8_t *enc;
    int32_t elen;
    if (b2_nd_meta_encode(&m, &enc, &elen) == 0)
        free(enc);
    b2_nd_meta_clear(&m);
}

/* Mutate the metalayer span [off, off+mlen) of a copy of the frame. */
static void mutate_meta(uint8_t *m, size_t mlen, int kind)
{
    static const uint8_t edge[][4] = {{0, 0, 0, 0},       {0xff, 0xff, 0xff, 0xff},
                                      {0x7f, 0xff, 0xff, 0xff}, {0x80, 0, 0, 0},
                                      {0, 0, 0, 1},       {0, 1, 0, 0}};
    size_t at = rnd() % mlen;
    switch (kind) {
    case 0: /* flip bits of 1..3 bytes */
        for (int k = (int)(rnd() % 3); k >= 0; k--)
            m[rnd() % mlen] ^= (uint8_t)(1u << (rnd() % 8));
        break;
    case 1: /* random byte */
        m[at] = (uint8_t)rnd();
        break;
    case 2: /* an edge value over 4 bytes */
        if (mlen >= 4) {
            at = rnd() % (mlen - 3);
            memcpy(m + at, edge[rnd() % 6], 4);
        }
        break;
    case 3: /* ndim / version / marker bytes */
        m[rnd() % (mlen < 4 ? mlen : 4)] = (uint8_t)rnd();
        break;
    default: /* a small increment of one byte (shape tweaks that keep markers) */
        m[at] = (uint8_t)(m[at] + 1 + rnd() % 3);
        break;
    }
}

static int hexval(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

int main(void)
{
    test_rng_seed(0xD1B54A32D192ED03ULL);
    jnode *man = test_interop_manifest();
    if (!man)
        return 77;
    const char *dir = getenv("B2_INTEROP_DIR");
    char path[4096];
    const jnode *vecs = json_get(man, "vectors");
    int nvec = 0;
    long mutants = 0;
    for (size_t v = 0; vecs && v < vecs->nkids; v++) {
        const jnode *vec = &vecs->kids[v];
        if (strcmp(json_str(vec, "kind", ""), "b2nd") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, json_str(vec, "path", ""));
        size_t flen;
        uint8_t *file = test_read_file(path, &flen);
        const char *hex = json_str(vec, "array.b2nd_meta_hex", "");
        size_t mlen = strlen(hex) / 2;
        uint8_t *meta = malloc(mlen + 1);
        for (size_t i = 0; i < mlen; i++)
            meta[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
        /* where the metalayer sits in the frame */
        size_t moff = SIZE_MAX;
        for (size_t i = 0; file && mlen && i + mlen <= flen && moff == SIZE_MAX; i++)
            if (memcmp(file + i, meta, mlen) == 0)
                moff = i;
        if (!file || moff == SIZE_MAX) {
            printf("FAIL: %s: file or metalayer not found\n", path);
            return 1;
        }
        nvec++;
        uint8_t *mut = malloc(flen);
        /* metalayer mutants inside the frame */
        for (int k = 0; k < 60; k++) {
            memcpy(mut, file, flen);
            mutate_meta(mut + moff, mlen, k % 5);
            try_frame(mut, flen);
            mutants++;
        }
        /* frame truncations and random bytes anywhere */
        for (int k = 0; k < 15; k++) {
            memcpy(mut, file, flen);
            size_t n = flen;
            if (k % 3 == 0)
                n = rnd() % flen;
            else
                for (int j = (int)(rnd() % 4); j >= 0; j--)
                    mut[rnd() % flen] = (uint8_t)rnd();
            try_frame(mut, n);
            mutants++;
        }
        /* the metalayer codec alone: mutants and every truncation */
        uint8_t *mm = malloc(mlen);
        for (int k = 0; k < 150; k++) {
            memcpy(mm, meta, mlen);
            mutate_meta(mm, mlen, k % 5);
            try_meta(mm, mlen);
            mutants++;
        }
        for (size_t n = 0; n <= mlen; n++) {
            try_meta(meta, n);
            mutants++;
        }
        free(mm);
        free(mut);
        free(meta);
        free(file);
    }
    json_free(man);
    printf("b2nd mutants: %ld over %d vectors; frames: %ld opened (%ld reads ok, %ld reads "
           "refused), %ld refused; metalayers: %ld decoded, %ld refused\n",
           mutants, nvec, opened, read_ok, read_err, refused, meta_ok, meta_bad);
    return nvec ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: the "b2nd" metalayer on its own. b2_nd_meta_decode (the b2nd
 * layer's full decoder), then b2_nd_meta_encode of what it decoded and a second
 * decode, which must give the same array description; the frame layer's shape
 * reader (b2_nd_shapes_read, which gives frames their block geometry); the dtype
 * parser on the decoded dtype and on the raw input. Seeds: the metalayers of the
 * b2nd reference vectors (fuzz_make_seeds). */
#include <string.h>

#include "b2_nd.h"
#include "fuzz_common.h"
#include "nd_shapes.h"
#include "b2_nd_experimental.h"

static void roundtrip(const b2_nd_meta *m)
{
    uint8_t *enc = NULL;
    int32_t len = 0;
    if (b2_nd_meta_encode(m, &enc, &len) < 0)
        return; /* e.g. a version above 127: decodable, not encodable */
    b2_nd_meta m2;
    FUZZ_CHECK(len == b2_nd_meta_encoded_len(m->ndim, m->dtype ? (size_t)m->dtype_len : 3),
               "encoded length");
    FUZZ_CHECK(b2_nd_meta_decode(enc, (size_t)len, &m2) >= 0, "our own metalayer does not decode");
    FUZZ_CHECK(m2.version == m->version && m2.ndim == m->ndim &&
                   !memcmp(m2.shape, m->shape, sizeof m->shape[0] * (size_t)m->ndim) &&
                   !memcmp(m2.chunkshape, m->chunkshape, sizeof m->chunkshape[0] * (size_t)m->ndim) &&
                   !memcmp(m2.blockshape, m->blockshape, sizeof m->blockshape[0] * (size_t)m->ndim),
               "shapes changed through encode/decode");
    if (m->dtype)
        FUZZ_CHECK(m2.dtype_format == m->dtype_format && m2.dtype_len == m->dtype_len &&
                       !memcmp(m2.dtype, m->dtype, (size_t)m->dtype_len),
                   "dtype changed through encode/decode");
    b2_nd_meta_clear(&m2);
    free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    b2_nd_meta m;
    if (b2_nd_meta_decode(data, size, &m) >= 0) {
        roundtrip(&m);
        if (m.dtype)
            b2_nd_dtype_itemsize(m.dtype);
        b2_nd_meta_clear(&m);
    }
    b2_nd_shapes sh;
    size_t off;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    b2_nd_shapes_read(data, size, &sh, &off, &u);
    msgpack_unpacked_destroy(&u);
    /* the dtype parser on the input as a string (up to its first NUL) */
    char *str = malloc(size + 1);
    if (str) {
        memcpy(str, data, size);
        str[size] = 0;
        b2_nd_dtype_itemsize(str);
        free(str);
    }
    return 0;
}

/* Seeds: the "b2nd" (or "caterva") metalayer of each array. */
static void seed_from_array(const char *path, void *ud)
{
    fuzz_seeds *out = ud;
    b2_schunk *s = NULL;
    if (fuzz_open_path(path, &s) < 0)
        return;
    uint8_t *c = NULL;
    int32_t len = 0;
    if (b2_schunk_meta_get(s, B2_ND_META_NAME, &c, &len) >= 0 ||
        b2_schunk_meta_get(s, B2_ND_META_LEGACY_NAME, &c, &len) >= 0) {
        char name[256];
        snprintf(name, sizeof name, "%s.meta", fuzz_basename(path));
        out->n += fuzz_write_seed(out->outdir, name, c, (size_t)len);
    }
    free(c);
    b2_schunk_free(s);
}

int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    return fuzz_seeds_from(outdir, argc, argv, seed_from_array);
}

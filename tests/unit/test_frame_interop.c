/* SPDX-License-Identifier: BSD-3-Clause */
/* Every cframe/sframe vector written by c-blosc2 (manifest.json and
 * compat/manifest.json) must decode to its recorded SHA-256, through the file
 * reader and the in-memory reader, with matching header properties, metalayers
 * and vlmetalayers; partial reads (get_items) must agree with full decoding, and
 * serializing a contiguous frame must give back the file's exact bytes. NaN
 * special chunks are typed: their items must be the machine's NaN, hashed as
 * x86's little-endian bytes (support/nan_items.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_frame.h"
#include "sha256.h"
#include "manifest.h"
#include "nan_items.h"
#include "frame_open.h"

static int failures;
static int nchecked, nmeta_checked, nitems_checked;

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

static int sha_eq(const void *p, size_t n, const char *want)
{
    char hex[65];
    test_sha256_hex(p, n, hex);
    return want && strcmp(hex, want) == 0;
}

static void check_metas(b2_schunk *s, const jnode *v, const char *id)
{
    const jnode *ml = json_path(v, "frame.metalayers");
    if (ml && (int)ml->nkids != b2_schunk_meta_count(s))
        FAIL("%s: %d metalayers, expected %zu", id, b2_schunk_meta_count(s), ml->nkids);
    for (size_t k = 0; ml && k < ml->nkids; k++) {
        uint8_t *c;
        int32_t len;
        const char *name = json_str(&ml->kids[k], "name", "");
        if (b2_schunk_meta_get(s, name, &c, &len) < 0) {
            FAIL("%s: metalayer %s missing", id, name);
            continue;
        }
        if (len != (int32_t)json_num(&ml->kids[k], "length", -1) ||
            !sha_eq(c, (size_t)len, json_str(&ml->kids[k], "sha256", NULL)))
            FAIL("%s: metalayer %s differs", id, name);
        free(c);
        nmeta_checked++;
    }
    const jnode *vl = json_path(v, "frame.vlmetalayers");
    if (vl && (int)vl->nkids != b2_schunk_vlmeta_count(s))
        FAIL("%s: %d vlmetalayers, expected %zu", id, b2_schunk_vlmeta_count(s), vl->nkids);
    for (size_t k = 0; vl && k < vl->nkids; k++) {
        uint8_t *c;
        int32_t len;
        const char *name = json_str(&vl->kids[k], "name", "");
        int rc = b2_schunk_vlmeta_get(s, name, &c, &len);
        if (rc < 0) {
            FAIL("%s: vlmetalayer %s: %s", id, name, b2_strerror(rc));
            continue;
        }
        if (len != (int32_t)json_num(&vl->kids[k], "length", -1) ||
            !sha_eq(c, (size_t)len, json_str(&vl->kids[k], "sha256", NULL)))
            FAIL("%s: vlmetalayer %s differs", id, name);
        free(c);
        nmeta_checked++;
    }
}

/* Decode all chunks of s and compare with the vector's expectation. */
static void check_content(b2_schunk *s, const jnode *v, const char *id, const char *how)
{
    const jnode *exp = json_get(v, "expected");
    size_t length = (size_t)json_num(exp, "length", -1);
    const jnode *fr = json_get(v, "frame");
    if (fr) {
        if (b2_schunk_nchunks(s) != (int64_t)json_num(fr, "nchunks", -2) ||
            b2_schunk_nbytes(s) != (int64_t)json_num(fr, "nbytes", -2) ||
            b2_schunk_typesize(s) != (int32_t)json_num(fr, "typesize", -2) ||
            b2_schunk_chunksize(s) != (int32_t)json_num(fr, "chunksize", -2))
            FAIL("%s (%s): header properties differ (nchunks %lld chunksize %d)", id, how,
                 (long long)b2_schunk_nchunks(s), b2_schunk_chunksize(s));
    }
    if ((size_t)b2_schunk_nbytes(s) != length) {
        FAIL("%s (%s): nbytes %lld, expected %zu", id, how, (long long)b2_schunk_nbytes(s), length);
        return;
    }
    uint8_t *out = calloc(length + 1, 1);
    size_t pos = 0;
    for (int64_t i = 0; i < b2_schunk_nchunks(s); i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        if (nb < 0 || pos + (size_t)nb > length) {
            FAIL("%s (%s): chunk %lld nbytes %d", id, how, (long long)i, nb);
            free(out);
            return;
        }
        int rc = b2_schunk_decompress_chunk(s, i, out + pos, (size_t)nb);
        if (rc != nb) {
            FAIL("%s (%s): chunk %lld: %s", id, how, (long long)i, rc < 0 ? b2_strerror(rc) : "short");
            free(out);
            return;
        }
        uint8_t *raw = NULL;
        int32_t cb = -1;
        int got = b2_schunk_get_chunk(s, i, &raw, &cb);
        if (got < 0 || b2_schunk_chunk_cbytes(s, i) != cb)
            FAIL("%s (%s): chunk %lld: cbytes from the header %d, chunk copy %d", id, how,
                 (long long)i, b2_schunk_chunk_cbytes(s, i), cb);
        free(raw);
        pos += (size_t)nb;
    }
    const jnode *ranges = json_get(exp, "unspecified_ranges");
    for (size_t k = 0; ranges && k < ranges->nkids; k++) {
        size_t off = (size_t)ranges->kids[k].kids[0].num, n = (size_t)ranges->kids[k].kids[1].num;
        if (off + n <= length)
            memset(out + off, 0, n);
    }
    /* NaN special chunks hold the machine's typed NaNs; the manifest hashed x86's
     * (nan_items.h): hash a copy with those items as little-endian bytes. */
    uint8_t *h = out;
    size_t cpos = 0;
    for (int64_t i = 0; i < b2_schunk_nchunks(s); i++) {
        size_t nb = (size_t)b2_schunk_chunk_nbytes(s, i);
        if (b2_schunk_chunk_special(s, i) == B2_SPECIAL_NAN) {
            if (h == out) {
                h = malloc(length + 1);
                memcpy(h, out, length);
            }
            size_t bad = test_nan_items_to_le(h + cpos, nb, b2_schunk_typesize(s));
            if (bad)
                FAIL("%s (%s): NaN chunk %lld: %zu items are not the machine's NaN", id, how,
                     (long long)i, bad);
        }
        cpos += nb;
    }
    const char *want = json_str(exp, "sha256", NULL);
    if (!want)
        want = json_str(exp, "sha256_unspecified_as_zero", NULL);
    if (pos != length || (want && !sha_eq(h, length, want)))
        FAIL("%s (%s): decoded content differs", id, how);
    if (h != out)
        free(h);
    /* Partial reads across chunk boundaries agree with the full decode (outside
     * unspecified ranges; the frame typesize is the unit). */
    int32_t ts = b2_schunk_typesize(s);
    int64_t nitems = (int64_t)length / ts;
    if (nitems > 0 && !ranges) {
        uint64_t seed = 0x9e3779b97f4a7c15ull ^ length;
        uint8_t *part = malloc(length + 1);
        for (int t = 0; t < 8; t++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int64_t a = (int64_t)((seed >> 33) % (uint64_t)nitems);
            int64_t n = (int64_t)((seed >> 13) % (uint64_t)(nitems - a + 1));
            int64_t rc = b2_schunk_get_items(s, a, n, part, length);
            if (rc != n * ts || memcmp(part, out + a * ts, (size_t)(n * ts)) != 0)
                FAIL("%s (%s): get_items(%lld, %lld) = %lld differs", id, how, (long long)a,
                     (long long)n, (long long)rc);
            nitems_checked++;
        }
        free(part);
    }
    free(out);
    check_metas(s, v, id);
    nchecked++;
}

static void check_vector(const char *dir, const jnode *v)
{
    const char *kind = json_str(v, "kind", "");
    const char *id = json_str(v, "id", "?");
    if (strcmp(kind, "cframe") != 0 && strcmp(kind, "sframe") != 0)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, json_str(v, "path", ""));
    b2_schunk *s;
    int rc = t_open(path, B2_OPEN_READONLY, &s);
    if (rc < 0) {
        FAIL("%s: open: %s", id, b2_strerror(rc));
        return;
    }
    check_content(s, v, id, strcmp(kind, "sframe") == 0 ? "sparse" : "file");
    uint8_t *ser;
    size_t serlen;
    rc = b2_schunk_to_buffer(s, &ser, &serlen);
    b2_schunk_free(s);
    if (rc < 0) {
        FAIL("%s: to_buffer: %s", id, b2_strerror(rc));
        return;
    }
    if (strcmp(kind, "cframe") == 0) {
        size_t flen;
        unsigned char *fb = test_read_file(path, &flen);
        if (!fb || flen != serlen || memcmp(fb, ser, flen) != 0)
            FAIL("%s: to_buffer differs from the file", id);
        free(fb);
    }
    /* The serialized frame (for an sframe: rebuilt contiguous) reads back the same. */
    rc = t_open_buffer(ser, serlen, 0, &s);
    if (rc < 0) {
        FAIL("%s: open_buffer: %s", id, b2_strerror(rc));
    } else {
        check_content(s, v, id, "memory");
        b2_schunk_free(s);
    }
    free(ser);
}

static int run_manifest(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    jnode *root = json_load(path);
    if (!root)
        return -1;
    const jnode *vs = json_get(root, "vectors");
    int n = 0;
    for (size_t i = 0; vs && i < vs->nkids; i++) {
        const char *kind = json_str(&vs->kids[i], "kind", "");
        if (strcmp(kind, "cframe") == 0 || strcmp(kind, "sframe") == 0) {
            check_vector(dir, &vs->kids[i]);
            n++;
        }
    }
    json_free(root);
    return n;
}

int main(void)
{
    const char *dir = getenv("B2_INTEROP_DIR");
    char mpath[4096];
    snprintf(mpath, sizeof mpath, "%s/manifest.json", dir ? dir : "");
    FILE *f = dir ? fopen(mpath, "rb") : NULL;
    if (!f) {
        printf("SKIP: B2_INTEROP_DIR not set or has no manifest.json\n");
        return 77;
    }
    fclose(f);
    int n1 = run_manifest(dir, "manifest.json");
    char cdir[4096];
    snprintf(cdir, sizeof cdir, "%s/compat", dir);
    int n2 = run_manifest(cdir, "manifest.json");
    printf("frame vectors: %d in manifest.json, %d in compat; %d decodes checked, "
           "%d metalayers, %d partial reads; %d failures\n",
           n1, n2, nchecked, nmeta_checked, nitems_checked, failures);
    if (n1 < 37)
        FAIL("expected at least 37 frame vectors, found %d", n1);
    return failures ? 1 : 0;
}

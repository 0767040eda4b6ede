/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame format module on its own (libb2/frame/format/frame_format.h): no handle,
 * no store, bytes in and bytes out.
 *
 * Every contiguous and sparse frame of the interop set (test_data/manifest.json,
 * written by c-blosc2) is parsed into a frame_layout; its header, index chunk
 * and trailer are serialised again and must equal the original sections byte
 * for byte, and so must the whole frame serialised from the layout and the
 * original chunk bytes. The piecewise parse (what frame_load.c runs on what it
 * reads) must agree with the whole-buffer parse. Then truncated copies must
 * fail with a negative error, and copies with one byte of the header, index or
 * trailer changed must either parse or fail with a negative B2_ERR_* code: never
 * crash or read outside the buffer (each copy is its own exact allocation, so
 * ASan sees any overread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frame_format.h"
#include "manifest.h"

static int is_b2_err(int rc)
{
    return rc < 0 && rc >= B2_ERR_LIMIT;
}

/* Whole-buffer parse of an exact copy of n bytes of buf (n may be shorter). */
static int parse_copy(const uint8_t *buf, size_t n, int sparse, int exact, b2_dctx *dctx)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return B2_ERR_NOMEM;
    memcpy(copy, buf, n);
    frame_layout L;
    int rc = b2_frame_parse(copy, (int64_t)n, sparse, exact, dctx, 0, &L);
    if (rc >= 0)
        b2_frame_layout_free(&L);
    free(copy);
    return rc;
}

/* The piecewise steps on separate copies of each piece, as a reader does. */
static int parse_pieces(const uint8_t *buf, int64_t len, int sparse, b2_dctx *dctx, frame_layout *L)
{
    memset(L, 0, sizeof *L);
    uint8_t last[FRAME_TRAILER_MIN];
    int rc = b2_frame_parse_fixed(buf, sparse, &L->h);
    if (rc >= 0)
        rc = b2_frame_check_len(&L->h, len, 1);
    if (rc < 0)
        return rc;
    uint8_t *hdr = malloc((size_t)L->h.header_len);
    memcpy(hdr, buf, (size_t)L->h.header_len);
    memcpy(last, buf + L->h.frame_len - FRAME_TRAILER_MIN, sizeof last);
    rc = b2_frame_parse_head(L, hdr, last);
    free(hdr);
    if (rc >= 0) {
        uint8_t *t = malloc((size_t)L->trailer_len);
        memcpy(t, buf + L->trailer_off, (size_t)L->trailer_len);
        rc = b2_frame_parse_trailer(L, t);
        free(t);
    }
    if (rc >= 0)
        rc = b2_frame_index_section(L, sparse);
    if (rc >= 0) {
        uint8_t *ib = L->index_len ? malloc((size_t)L->index_len) : NULL;
        if (ib)
            memcpy(ib, buf + L->index_off, (size_t)L->index_len);
        rc = b2_frame_parse_index(L, sparse, dctx, 0, ib);
        free(ib);
    }
    if (rc < 0)
        b2_frame_layout_free(L);
    return rc;
}

static int same_layout(const frame_layout *a, const frame_layout *b)
{
    if (memcmp(&a->h, &b->h, sizeof a->h) || a->nmeta != b->nmeta || a->nvlmeta != b->nvlmeta ||
        a->nchunks != b->nchunks || (a->index == NULL) != (b->index == NULL) ||
        a->trailer_len != b->trailer_len || a->index_off != b->index_off ||
        a->index_len != b->index_len || a->trailer_off != b->trailer_off)
        return 0;
    for (int64_t i = 0; i < a->nchunks; i++)
        if (frame_layout_entry(a, i) != frame_layout_entry(b, i))
            return 0;
    for (int i = 0; i < a->nmeta; i++)
        if (strcmp(a->meta[i].name, b->meta[i].name) || a->meta[i].len != b->meta[i].len ||
            memcmp(a->meta[i].content, b->meta[i].content, (size_t)a->meta[i].len))
            return 0;
    for (int i = 0; i < a->nvlmeta; i++)
        if (strcmp(a->vlmeta[i].name, b->vlmeta[i].name) || a->vlmeta[i].len != b->vlmeta[i].len ||
            memcmp(a->vlmeta[i].content, b->vlmeta[i].content, (size_t)a->vlmeta[i].len))
            return 0;
    return 1;
}

/* Frames whose index chunk another writer path made: c-blosc2's chunk deletion
 * stores the index compressed with other parameters (a shuffled, split stream)
 * than every other path of the set, and than ours. Their index must decode to
 * the same entries; every other section must still match byte for byte. */
static const char *const foreign_index[] = {"cframe/f18"};

static int index_is_foreign(const char *id)
{
    for (size_t i = 0; i < sizeof foreign_index / sizeof foreign_index[0]; i++)
        if (strcmp(id, foreign_index[i]) == 0)
            return 1;
    return 0;
}

/* Serialise each section of L again and compare with buf's. */
static void check_roundtrip(const char *id, const uint8_t *buf, int64_t len, int sparse,
                            const frame_layout *L)
{
    const frame_hdr *h = &L->h;
    CHECK(b2_frame_header_size(L->meta, L->nmeta) == h->header_len, "%s: header size", id);
    uint8_t *hdr = malloc((size_t)h->header_len);
    CHECK(b2_frame_header_write(h, L->meta, L->nmeta, hdr) == B2_OK &&
              memcmp(hdr, buf, (size_t)h->header_len) == 0,
          "%s: header bytes differ", id);
    free(hdr);

    uint8_t *trl = NULL;
    int64_t trl_len = 0;
    CHECK(b2_frame_trailer_write(L->vlmeta, L->nvlmeta, &trl, &trl_len) == B2_OK &&
              trl_len == L->trailer_len && L->trailer_off + trl_len == len &&
              memcmp(trl, buf + L->trailer_off, (size_t)trl_len) == 0,
          "%s: trailer bytes differ", id);
    free(trl);

    /* The index: run-length when the frame stored it so. */
    b2_cparams cp;
    b2_frame_header_cparams(h, &cp);
    int runlength = L->index == NULL, foreign = index_is_foreign(id);
    if (L->nchunks > 0) {
        uint8_t *idx = NULL;
        int32_t idx_len = 0;
        int rc = b2_frame_index_encode(L->index, L->nchunks, L->index_uniform, &cp, runlength, &idx,
                                       &idx_len);
        CHECK(rc == B2_OK, "%s: index encode gives %d", id, rc);
        if (!foreign)
            CHECK(rc == B2_OK && idx_len == L->index_len &&
                      memcmp(idx, buf + L->index_off, (size_t)idx_len) == 0,
                  "%s: index bytes differ (%d vs %lld)", id, (int)idx_len, (long long)L->index_len);
        free(idx);
    }

    /* The whole frame from a shallow copy of the layout (the copy owns nothing). */
    frame_layout W = *L;
    uint8_t *out = NULL;
    int64_t out_len = 0;
    int rc = b2_frame_serialize(&W, &cp, runlength, sparse, buf + L->chunks_off, L->chunks_len,
                                &out, &out_len);
    if (!foreign) {
        CHECK(rc == B2_OK && out_len == len && memcmp(out, buf, (size_t)len) == 0,
              "%s: serialised frame differs (%d, %lld of %lld bytes)", id, rc, (long long)out_len,
              (long long)len);
        CHECK(W.index_off == L->index_off && W.trailer_off == L->trailer_off,
              "%s: serialised sections moved", id);
    } else {
        /* the same chunks, metalayers and entries, in our index encoding */
        frame_layout R;
        CHECK(rc == B2_OK && b2_frame_parse(out, out_len, sparse, 1, NULL, 0, &R) == B2_OK,
              "%s: serialised frame does not parse", id);
        if (rc == B2_OK) {
            W.index_len = R.index_len; /* all that may differ */
            W.trailer_off = R.trailer_off;
            W.index = L->index;
            CHECK(same_layout(&W, &R) &&
                      memcmp(out, buf, 16) == 0 && /* then frame_len (8 bytes) differs */
                      memcmp(out + 24, buf + 24, (size_t)L->index_off - 24) == 0 &&
                      memcmp(out + R.trailer_off, buf + L->trailer_off, (size_t)L->trailer_len) == 0,
                  "%s: serialised frame differs beyond its index", id);
            b2_frame_layout_free(&R);
        }
    }
    free(out);
}

static void check_damage(const char *id, const uint8_t *buf, int64_t len, int sparse,
                         const frame_layout *L, b2_dctx *dctx)
{
    /* Truncated: every cut that ends inside a section boundary's neighbourhood. */
    int64_t cuts[] = {0, 1, FRAME_HEADER_FIXED - 1, FRAME_HEADER_FIXED,
                      FRAME_HEADER_FIXED + FRAME_TRAILER_MIN, L->h.header_len - 1, L->h.header_len,
                      L->index_off + 1, L->trailer_off, L->trailer_off + 1, len - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        if (cuts[k] < 0 || cuts[k] >= len)
            continue;
        for (int exact = 0; exact <= 1; exact++) {
            int rc = parse_copy(buf, (size_t)cuts[k], sparse, exact, dctx);
            CHECK(is_b2_err(rc), "%s: cut at %lld (exact %d) gives %d", id, (long long)cuts[k],
                  exact, rc);
        }
    }
    /* One byte changed in the header, the index or the trailer: a clean result. */
    uint8_t *copy = malloc((size_t)len);
    memcpy(copy, buf, (size_t)len);
    int64_t ilen = L->index_len < 256 ? L->index_len : 256;
    for (int64_t pos = 0; pos < len; pos++) {
        int in_hdr = pos < L->h.header_len, in_idx = pos >= L->index_off && pos < L->index_off + ilen;
        if (!in_hdr && !in_idx && pos < L->trailer_off)
            continue;
        for (int flip = 0; flip < 2; flip++) {
            uint8_t old = copy[pos];
            copy[pos] = flip ? (uint8_t)~old : (uint8_t)(old + 1);
            frame_layout D;
            int rc = b2_frame_parse(copy, len, sparse, 1, dctx, 0, &D);
            CHECK(rc == B2_OK || is_b2_err(rc), "%s: byte %lld changed gives %d", id,
                  (long long)pos, rc);
            if (rc == B2_OK)
                b2_frame_layout_free(&D);
            copy[pos] = old;
        }
    }
    /* Fields that must be refused when wrong. */
    struct { int64_t pos; const char *what; } must[] = {
        {2, "magic"}, {16, "frame_len"}, {len - 23, "trailer marker"}, {len - 22, "trailer length"}};
    for (size_t k = 0; k < sizeof must / sizeof must[0]; k++) {
        uint8_t old = copy[must[k].pos];
        copy[must[k].pos] = (uint8_t)(old ^ 0x40);
        frame_layout D;
        int rc = b2_frame_parse(copy, len, sparse, 1, dctx, 0, &D);
        CHECK(is_b2_err(rc), "%s: wrong %s accepted (%d)", id, must[k].what, rc);
        if (rc == B2_OK)
            b2_frame_layout_free(&D);
        copy[must[k].pos] = old;
    }
    free(copy);
}

static void check_frame(const char *id, const char *path, int sparse, b2_dctx *dctx)
{
    size_t n;
    uint8_t *buf = test_read_file(path, &n);
    CHECK(buf != NULL, "%s: cannot read %s", id, path);
    if (!buf)
        return;
    frame_layout L, P;
    int rc = b2_frame_parse(buf, (int64_t)n, sparse, 1, dctx, 0, &L);
    CHECK(rc == B2_OK, "%s: parse gives %d", id, rc);
    if (rc == B2_OK) {
        CHECK(L.h.frame_len == (int64_t)n && L.trailer_off + L.trailer_len == (int64_t)n &&
                  L.index_off + L.index_len == L.trailer_off,
              "%s: sections do not tile the frame", id);
        CHECK(b2_frame_parse(buf, (int64_t)n, sparse, 1, NULL, 0, &P) == B2_OK &&
                  same_layout(&L, &P),
              "%s: parse with its own decoder differs", id);
        b2_frame_layout_free(&P);
        CHECK(parse_pieces(buf, (int64_t)n, sparse, dctx, &P) == B2_OK && same_layout(&L, &P),
              "%s: piecewise parse differs", id);
        b2_frame_layout_free(&P);
        CHECK(is_b2_err(b2_frame_parse(buf, (int64_t)n, !sparse, 1, dctx, 0, &P)),
              "%s: parsed as the other frame type", id);
        check_roundtrip(id, buf, (int64_t)n, sparse, &L);
        check_damage(id, buf, (int64_t)n, sparse, &L, dctx);
        b2_frame_layout_free(&L);
        CHECK(L.index == NULL && L.vlmeta == NULL && L.nmeta == 0, "%s: free leaves state", id);
    }
    free(buf);
}

int main(void)
{
    jnode *m = test_interop_manifest();
    if (!m)
        return 77;
    const char *dir = getenv("B2_INTEROP_DIR");
    b2_dctx *dctx = b2_dctx_new(1);
    const jnode *vs = json_get(m, "vectors");
    int nframes = 0;
    for (size_t i = 0; vs && i < vs->nkids; i++) {
        const jnode *v = &vs->kids[i];
        const char *kind = json_str(v, "kind", "");
        int sparse = strcmp(kind, "sframe") == 0;
        if (!sparse && strcmp(kind, "cframe") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s%s", dir, json_str(v, "path", ""),
                 sparse ? "/chunks.b2frame" : "");
        check_frame(json_str(v, "id", "?"), path, sparse, dctx);
        nframes++;
    }
    CHECK(nframes >= 30, "only %d frames in the manifest", nframes);
    /* Below the smallest frame: refused before any field is read. */
    static const uint8_t tiny[8];
    frame_layout L;
    CHECK(b2_frame_parse(tiny, sizeof tiny, 0, 1, dctx, 0, &L) == B2_ERR_TRUNCATED, "tiny input");
    b2_dctx_free(dctx);
    json_free(m);
    printf("%d frames\n", nframes);
    return b2t_summary("test_frame_format");
}

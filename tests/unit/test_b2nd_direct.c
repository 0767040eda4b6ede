/* SPDX-License-Identifier: BSD-3-Clause */
/* b2nd reads against a "plain decode" oracle built in this file.
 *
 * The oracle never calls the b2nd read path: for each chunk it takes the stored
 * chunk (b2_schunk_get_chunk), decompresses it whole (b2_chunk_decompress) into a
 * padded chunk buffer, and un-blocks that buffer itself (doc/format/b2nd.md §3: blocks
 * in C order over the block grid, items in C order inside each block) into a
 * C-order copy of the whole array. Every b2nd read must give exactly those bytes,
 * and for arrays the test built itself, exactly the input.
 *
 * 1. Random arrays: ranks 1..8, typesizes 1..16, 24 and 300 (above 255 the chunk
 *    header records typesize 1), filters none / shuffle / bitshuffle / delta /
 *    delta+shuffle / delta+bitshuffle, codecs blosclz / lz4 / zstd, 1 and 2
 *    threads, edge chunks, blocks not dividing chunks, blocks == chunks, blocks
 *    whose trailing dimensions equal the chunk's (contiguous runs, C-order chunks),
 *    zero, uninit and repeated-value chunks. Checked: b2_nd_to_cbuffer, and
 *    b2_nd_get_slice_cbuffer of many boxes (empty, single items, whole chunks,
 *    whole blocks, boxes crossing chunk and block edges, thin slabs, random ones)
 *    into sentinel-filled buffers: exactly the box's bytes are written (canary
 *    tail), zero/uninit chunks read as zeros, a too-small capacity is refused
 *    without writing. Also the same arrays reopened from a frame buffer, a frame
 *    file (lazy block reads) and a sparse frame.
 * 2. Hostile geometry: valid frames whose b2nd metalayer (or frame typesize /
 *    chunksize field) is rewritten so that shapes disagree with the chunks, and
 *    frames with flipped / overwritten / truncated chunk bytes. Opening and
 *    reading must fail with a negative code or give the oracle's bytes, never
 *    crash (run under ASan/UBSan) nor write past the box; the same from files.
 * 3. Deterministic cases for what the hostile pass found: repeated-value chunks
 *    whose value is not one item (fixed in 667c39a), and overlapping bstarts read
 *    lazily from a file (fixed in frame_lazy.c, see lazy_overlapping_bstarts).
 * Deterministic (fixed seeds; argv[1] overrides the number of random arrays).
 * Prints the number of checks; exits 1 on failure. B2_DIRECT_VERBOSE=1 prints the
 * outcome per kind of damage; B2_DIRECT_DUMP=<dir> saves frames that failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "b2_nd.h"
#include "check.h"
#include "nd_model.h"
#include "scratch.h"
#include "b2_nd_experimental.h"
#include "frame_open.h"

/* ---- deterministic random numbers ---- */

static uint64_t rng = 0x6A09E667F3BCC909ULL;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static int64_t rnd_in(int64_t lo, int64_t hi) /* inclusive */
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)(((uint64_t)rnd() << 32 | rnd()) % (uint64_t)(hi - lo + 1));
}

/* ---- the test's own geometry (doc/format/b2nd.md §2), independent of libb2 ---- */

#define MAXD B2_ND_MAX_DIM
#define BIG ((int64_t)1 << 40)

typedef struct geo {
    int nd;
    int64_t ts;
    int64_t shape[MAXD], cs[MAXD], bs[MAXD];
    int64_t ext[MAXD], cia[MAXD], bic[MAXD];
    int64_t nitems, nchunks, blocknitems, extnitems, chunk_bytes, block_bytes;
} geo;

static int mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || (b && a > BIG / b))
        return 0;
    *out = a * b;
    return 1;
}

/* 1 when the geometry is meaningful and every size stays below 2^40; 0 otherwise. */
static int geo_init(geo *g, int nd, const int64_t *shape, const int64_t *cs, const int64_t *bs,
                    int64_t ts)
{
    memset(g, 0, sizeof *g);
    if (nd < 0 || nd > MAXD || ts <= 0 || ts > BIG)
        return 0;
    g->nd = nd;
    g->ts = ts;
    g->nitems = g->nchunks = g->blocknitems = g->extnitems = 1;
    for (int i = 0; i < nd; i++) {
        g->shape[i] = shape[i];
        g->cs[i] = cs[i];
        g->bs[i] = bs[i];
        if (shape[i] < 0 || cs[i] < 0 || bs[i] < 0 || shape[i] > BIG || cs[i] > BIG || bs[i] > BIG)
            return 0;
        if (shape[i] == 0) {
            g->nitems = g->nchunks = 0;
            if (cs[i] == 0 || bs[i] == 0)
                continue;
        }
        if (cs[i] == 0 || bs[i] == 0)
            return 0;
        g->bic[i] = (cs[i] + bs[i] - 1) / bs[i];
        g->ext[i] = g->bic[i] * bs[i];
        g->cia[i] = (shape[i] + cs[i] - 1) / cs[i];
        if (!mul_ok(g->nitems, shape[i], &g->nitems) ||
            !mul_ok(g->nchunks, g->cia[i], &g->nchunks) ||
            !mul_ok(g->blocknitems, bs[i], &g->blocknitems) ||
            !mul_ok(g->extnitems, g->ext[i], &g->extnitems))
            return 0;
    }
    for (int i = 0; i < nd; i++) /* zero dims with zero chunk/block sizes */
        if (g->cs[i] == 0 || g->bs[i] == 0) {
            g->blocknitems = g->extnitems = 0;
        }
    int64_t t;
    if (!mul_ok(g->extnitems, ts, &g->chunk_bytes) ||
        !mul_ok(g->blocknitems, ts, &g->block_bytes) ||
        !mul_ok(g->nitems, ts, &t))
        return 0;
    return 1;
}

/* ---- the plain-decode oracle ---- */

typedef struct oracle {
    geo g;
    uint8_t *data;     /* nitems * ts bytes, C order */
    uint8_t *chunk_ok; /* per chunk: whole decompression gave exactly chunk_bytes */
    uint8_t *special;  /* per chunk: enum b2_special from the chunk header */
    int64_t nbad;
} oracle;

static void oracle_free(oracle *o)
{
    free(o->data);
    free(o->chunk_ok);
    free(o->special);
    memset(o, 0, sizeof *o);
}

/* Chunk grid coordinates of chunk ci (C order over cia). */
static void chunk_coords(const geo *g, int64_t ci, int64_t *cc)
{
    for (int d = g->nd - 1; d >= 0; d--) {
        cc[d] = ci % g->cia[d];
        ci /= g->cia[d];
    }
}

/* Copy the real extent of decoded padded chunk ci (cbuf) to its place in out. */
static void unblock(const geo *g, int64_t ci, const uint8_t *cbuf, uint8_t *out)
{
    int nd = g->nd;
    size_t ts = (size_t)g->ts;
    if (nd == 0) {
        memcpy(out, cbuf, ts);
        return;
    }
    int64_t cc[MAXD], e[MAXD], org[MAXD], astr[MAXD], gstr[MAXD], istr[MAXD];
    chunk_coords(g, ci, cc);
    int64_t a = 1, gb = 1, ib = 1;
    for (int d = nd - 1; d >= 0; d--) {
        org[d] = cc[d] * g->cs[d];
        e[d] = g->shape[d] - org[d] < g->cs[d] ? g->shape[d] - org[d] : g->cs[d];
        if (e[d] <= 0)
            return;
        astr[d] = a;
        a *= g->shape[d];
        gstr[d] = gb;
        gb *= g->bic[d];
        istr[d] = ib;
        ib *= g->bs[d];
    }
    int64_t x[MAXD] = {0};
    int L = nd - 1;
    for (;;) {
        /* the row x[0..L-1], all of dimension L, in runs that stay inside one block */
        int64_t nblock = 0, initem = 0, aidx = 0;
        for (int d = 0; d < L; d++) {
            nblock += (x[d] / g->bs[d]) * gstr[d];
            initem += (x[d] % g->bs[d]) * istr[d];
            aidx += (org[d] + x[d]) * astr[d];
        }
        for (int64_t xl = 0; xl < e[L];) {
            int64_t bl = xl / g->bs[L], il = xl % g->bs[L];
            int64_t run = g->bs[L] - il;
            if (run > e[L] - xl)
                run = e[L] - xl;
            int64_t src = (nblock + bl * gstr[L]) * g->blocknitems + initem + il;
            memcpy(out + (aidx + org[L] + xl) * (int64_t)ts, cbuf + src * (int64_t)ts,
                   (size_t)run * ts);
            xl += run;
        }
        int d = L - 1;
        for (; d >= 0; d--) {
            if (++x[d] < e[d])
                break;
            x[d] = 0;
        }
        if (d < 0)
            return;
    }
}

/* Geometry of an open array from its stored metalayer and frame typesize (not
 * from the b2nd object). 1 when meaningful. */
static int geo_of_array(b2_nd_array *a, geo *g)
{
    b2_schunk *s = b2_nd_schunk(a);
    uint8_t *m = NULL;
    int32_t mlen = 0;
    int rc = b2_schunk_meta_get(s, B2_ND_META_NAME, &m, &mlen);
    if (rc < 0)
        rc = b2_schunk_meta_get(s, B2_ND_META_LEGACY_NAME, &m, &mlen);
    b2_nd_meta meta;
    memset(&meta, 0, sizeof meta);
    if (rc >= 0)
        rc = b2_nd_meta_decode(m, (size_t)mlen, &meta);
    free(m);
    if (rc < 0)
        return 0;
    int64_t cs[MAXD], bs[MAXD];
    for (int i = 0; i < meta.ndim; i++) {
        cs[i] = meta.chunkshape[i];
        bs[i] = meta.blockshape[i];
    }
    int ok = geo_init(g, meta.ndim, meta.shape, cs, bs, b2_schunk_typesize(s));
    b2_nd_meta_clear(&meta);
    return ok;
}

static b2_dctx *odctx;

/* Build the oracle; 0 when the sizes are beyond what the test handles (limit on
 * the whole array's bytes). Chunks that do not decode whole to chunk_bytes are
 * marked bad and left as zeros. */
static int oracle_build(b2_nd_array *a, oracle *o, int64_t limit)
{
    memset(o, 0, sizeof *o);
    if (!geo_of_array(a, &o->g))
        return 0;
    geo *g = &o->g;
    int64_t bytes = g->nitems * g->ts;
    if (bytes > limit || g->nchunks > 1000000 || (g->nchunks && g->chunk_bytes > (64 << 20)))
        return 0;
    b2_schunk *s = b2_nd_schunk(a);
    o->data = calloc((size_t)bytes + 1, 1);
    o->chunk_ok = calloc((size_t)g->nchunks + 1, 1);
    o->special = calloc((size_t)g->nchunks + 1, 1);

    uint8_t *cbuf = malloc((size_t)g->chunk_bytes + 1);
    int64_t have = b2_schunk_nchunks(s);
    for (int64_t i = 0; i < g->nchunks; i++) {
        uint8_t *chunk = NULL;
        int32_t cbytes = 0;
        int ok = i < have && b2_schunk_get_chunk(s, i, &chunk, &cbytes) >= 0 && chunk;
        b2_chunk_info info;
        if (ok && b2_chunk_get_info(chunk, (size_t)cbytes, &info) >= 0)
            o->special[i] = (uint8_t)info.special; /* also when its size is wrong */
        else
            ok = 0;
        ok = ok && info.nbytes == g->chunk_bytes;
        if (ok) {
            memset(cbuf, 0, (size_t)g->chunk_bytes); /* uninit chunks leave it as is */
            ok = b2_chunk_decompress(odctx, chunk, (size_t)cbytes, cbuf, (size_t)g->chunk_bytes) ==
                 g->chunk_bytes;
        }
        free(chunk);
        o->chunk_ok[i] = (uint8_t)ok;
        if (ok)
            unblock(g, i, cbuf, o->data);
        else
            o->nbad++;
    }
    free(cbuf);
    return 1;
}

/* Compare got (the box, C order) with the oracle, run by run, skipping chunks the
 * oracle could not decode. Returns the number of mismatching runs; *bad_touched
 * says whether the box meets a bad chunk, *zero_touched whether it meets a zero or
 * uninit chunk. */
static int64_t compare_box(const oracle *o, const int64_t *start, const int64_t *stop,
                           const uint8_t *got, int *bad_touched, int *zero_touched)
{
    const geo *g = &o->g;
    int nd = g->nd;
    size_t ts = (size_t)g->ts;
    int64_t mism = 0;
    *bad_touched = *zero_touched = 0;
    int64_t idx[MAXD];
    for (int i = 0; i < nd; i++) {
        if (stop[i] <= start[i])
            return 0;
        idx[i] = start[i];
    }
    if (nd == 0) {
        *bad_touched = !o->chunk_ok[0]; /* (0-D arrays only come from the test itself) */
        *zero_touched = o->special[0] == B2_SPECIAL_ZEROS || o->special[0] == B2_SPECIAL_UNINIT;
        return o->chunk_ok[0] && memcmp(got, o->data, ts) != 0;
    }
    int L = nd - 1;
    for (;;) {
        int64_t off = 0, cprefix = 0;
        for (int i = 0; i < L; i++) {
            off = off * g->shape[i] + idx[i];
            cprefix = cprefix * g->cia[i] + idx[i] / g->cs[i];
        }
        for (int64_t x = start[L]; x < stop[L];) {
            int64_t cl = x / g->cs[L], end = (cl + 1) * g->cs[L];
            if (end > stop[L])
                end = stop[L];
            int64_t ci = cprefix * g->cia[L] + cl;
            if (o->special[ci] == B2_SPECIAL_ZEROS || o->special[ci] == B2_SPECIAL_UNINIT)
                *zero_touched = 1;
            if (!o->chunk_ok[ci]) {
                /* A zeros/uninit chunk whose size disagrees with the geometry may
                 * still read as zeros; anything else from it is wrong. */
                int zeros = o->special[ci] == B2_SPECIAL_ZEROS ||
                            o->special[ci] == B2_SPECIAL_UNINIT;
                for (int64_t b = 0; zeros && b < (end - x) * (int64_t)ts; b++)
                    zeros = got[b] == 0;
                if (!zeros)
                    *bad_touched = 1;
            }
            else if (memcmp(got + 0, o->data + (off * g->shape[L] + x) * (int64_t)ts,
                            (size_t)(end - x) * ts) != 0)
                mism++;
            got += (end - x) * (int64_t)ts;
            x = end;
        }
        int d = L - 1;
        for (; d >= 0; d--) {
            if (++idx[d] < stop[d])
                break;
            idx[d] = start[d];
        }
        if (d < 0)
            return mism;
    }
}

/* ---- sentinel-filled output buffers ---- */

#define SLACK 67

static void fill_sentinel(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(0x80 | ((i * 37 + seed) & 0x7f)); /* never 0 */
}
static int sentinel_intact(const uint8_t *p, size_t from, size_t n, uint8_t seed)
{
    for (size_t i = from; i < n; i++)
        if (p[i] != (uint8_t)(0x80 | ((i * 37 + seed) & 0x7f)))
            return 0;
    return 1;
}

static int64_t box_items(int nd, const int64_t *start, const int64_t *stop)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= stop[i] - start[i];
    return n;
}

static long n_boxes, n_zero_boxes, n_refused_small, n_empty;

/* Read box [start, stop) of a in one of several output-buffer styles and check
 * it against the oracle and (when given) the original input. */
static void check_box(b2_nd_array *a, const oracle *o, const uint8_t *model, const int64_t *start,
                      const int64_t *stop, const char *tag)
{
    const geo *g = &o->g;
    size_t ts = (size_t)g->ts;
    int64_t n = box_items(g->nd, start, stop);
    size_t bytes = (size_t)n * ts;
    int style = (int)(rnd() % 5);
    uint8_t seed = (uint8_t)rnd();
    n_boxes++;
    if (bytes == 0) {
        n_empty++;
        uint8_t small[16];
        fill_sentinel(small, sizeof small, seed);
        int rc = b2_nd_get_slice_cbuffer(a, start, stop, small, sizeof small);
        CHECK(rc == 0 && sentinel_intact(small, 0, sizeof small, seed),
              "%s: empty box: rc %d, buffer touched %d", tag, rc,
              !sentinel_intact(small, 0, sizeof small, seed));
        rc = b2_nd_get_slice_cbuffer(a, start, stop, NULL, 0);
        CHECK(rc == 0, "%s: empty box into NULL: rc %d", tag, rc);
        return;
    }
    size_t alloc = bytes + (style == 1 ? 0 : SLACK), off = style == 3 ? 1 : 0;
    uint8_t *raw = malloc(alloc + off), *buf = raw + off;
    fill_sentinel(buf, alloc, seed);
    if (style == 2) { /* one byte too small: refused, nothing written */
        int rc = b2_nd_get_slice_cbuffer(a, start, stop, buf, bytes - 1);
        CHECK(rc < 0 && sentinel_intact(buf, 0, alloc, seed),
              "%s: capacity %zu < %zu: rc %d, buffer touched %d", tag, bytes - 1, bytes, rc,
              !sentinel_intact(buf, 0, alloc, seed));
        n_refused_small++;
        free(raw);
        return;
    }
    int rc = b2_nd_get_slice_cbuffer(a, start, stop, buf, alloc);
    int bad = 0, zero = 0;
    int64_t mism = rc == 0 ? compare_box(o, start, stop, buf, &bad, &zero) : -1;
    CHECK(rc == 0 && mism == 0 && !bad, "%s: box get_slice rc %d, %lld mismatching runs vs the "
          "plain decode (bad chunk touched %d)", tag, rc, (long long)mism, bad);
    CHECK(sentinel_intact(buf, bytes, alloc, seed), "%s: bytes written past the %zu-byte box",
          tag, bytes);
    if (model) {
        uint8_t *want = malloc(bytes);
        ndt_box_get(model, g->shape, g->nd, ts, start, stop, want);
        CHECK(rc == 0 && memcmp(buf, want, bytes) == 0, "%s: box differs from the input", tag);
        free(want);
    }
    if (zero)
        n_zero_boxes++;
    free(raw);
}

/* A box of one of ten kinds, chosen per dimension: random, single item, whole
 * chunk, crossing chunk edges, crossing block edges, one block, whole array,
 * thin slab, chunk-aligned span, empty. */
static void make_box(const geo *g, int kind, int64_t *start, int64_t *stop)
{
    int nd = g->nd;
    int64_t ci[MAXD];
    for (int i = 0; i < nd; i++)
        ci[i] = rnd_in(0, g->cia[i] - 1);
    int thin = nd ? (int)rnd_in(0, nd - 1) : 0;
    for (int i = 0; i < nd; i++) {
        int64_t s = g->shape[i], c = g->cs[i], b = g->bs[i], org = ci[i] * c;
        int64_t cend = org + c < s ? org + c : s;
        int64_t lo = 0, hi = s;
        switch (kind) {
        case 0: { /* random */
            int64_t x = rnd_in(0, s - 1), y = rnd_in(0, s - 1);
            lo = x < y ? x : y;
            hi = (x < y ? y : x) + 1;
            break;
        }
        case 1: /* single item */
            lo = rnd_in(0, s - 1);
            hi = lo + 1;
            break;
        case 2: /* one whole chunk (clipped at the edge) */
            lo = org;
            hi = cend;
            break;
        case 3: { /* crossing a chunk edge */
            int64_t e = g->cia[i] > 1 ? rnd_in(1, g->cia[i] - 1) * c : rnd_in(0, s);
            lo = e - rnd_in(1, 3);
            hi = e + rnd_in(1, 3);
            break;
        }
        case 4: { /* crossing a block edge inside a chunk */
            int64_t nb = (cend - org + b - 1) / b;
            int64_t e = org + (nb > 1 ? rnd_in(1, nb - 1) : 0) * b;
            lo = e - rnd_in(0, 2);
            hi = e + rnd_in(1, 2);
            break;
        }
        case 5: { /* exactly one block (clipped) */
            int64_t nb = (cend - org + b - 1) / b;
            lo = org + rnd_in(0, nb - 1) * b;
            hi = lo + b < cend ? lo + b : cend;
            break;
        }
        case 6: /* whole array */
            break;
        case 7: /* thin slab: one dimension whole, the others single items */
            if (i != thin) {
                lo = rnd_in(0, s - 1);
                hi = lo + 1;
            }
            break;
        case 8: { /* chunk-aligned span of several chunks */
            int64_t c0 = rnd_in(0, g->cia[i] - 1), c1 = rnd_in(c0, g->cia[i] - 1);
            lo = c0 * c;
            hi = (c1 + 1) * c < s ? (c1 + 1) * c : s;
            break;
        }
        case 9: /* empty in one dimension */
            if (i == thin) {
                lo = hi = rnd_in(0, s);
            } else {
                lo = rnd_in(0, s - 1);
                hi = rnd_in(lo, s);
            }
            break;
        }
        if (lo < 0)
            lo = 0;
        if (hi > s)
            hi = s;
        if (hi < lo)
            hi = lo;
        if (hi == lo && kind != 9 && s > 0) { /* at least one item */
            if (hi < s)
                hi++;
            else
                lo--;
        }
        start[i] = lo;
        stop[i] = hi;
    }
}

/* Read the whole array and nboxes boxes of every kind; compare with the plain
 * decode and the input. Returns 0 if the oracle could not be built. */
static int verify_array(b2_nd_array *a, const uint8_t *model, int nboxes, const char *tag)
{
    oracle o;
    if (!oracle_build(a, &o, (int64_t)1 << 30)) {
        CHECK(0, "%s: cannot build the plain-decode oracle", tag);
        return 0;
    }
    geo *g = &o.g;
    size_t bytes = (size_t)(g->nitems * g->ts);
    CHECK(o.nbad == 0, "%s: %lld chunks do not decode whole", tag, (long long)o.nbad);
    CHECK(b2_nd_nitems(a) == g->nitems && b2_nd_typesize(a) == g->ts && b2_nd_ndim(a) == g->nd,
          "%s: properties", tag);
    if (model)
        CHECK(memcmp(o.data, model, bytes) == 0, "%s: the plain decode differs from the input",
              tag);
    /* whole array, sentinel and canary */
    uint8_t seed = (uint8_t)rnd();
    uint8_t *buf = malloc(bytes + SLACK);
    fill_sentinel(buf, bytes + SLACK, seed);
    int rc = b2_nd_to_cbuffer(a, buf, bytes + SLACK);
    CHECK(rc == 0 && memcmp(buf, o.data, bytes) == 0, "%s: to_cbuffer rc %d / differs", tag, rc);
    CHECK(sentinel_intact(buf, bytes, bytes + SLACK, seed), "%s: to_cbuffer wrote past the end",
          tag);
    if (bytes) {
        fill_sentinel(buf, bytes + SLACK, seed);
        rc = b2_nd_to_cbuffer(a, buf, bytes - 1);
        CHECK(rc < 0 && sentinel_intact(buf, 0, bytes + SLACK, seed),
              "%s: to_cbuffer with a short buffer: rc %d", tag, rc);
    }
    free(buf);
    /* boxes: every kind at least once, then random kinds */
    char t[160];
    for (int k = 0; k < nboxes; k++) {
        int kind = k < 10 ? k : (int)(rnd() % 10);
        int64_t start[MAXD], stop[MAXD];
        make_box(g, kind, start, stop);
        snprintf(t, sizeof t, "%s box kind %d #%d", tag, kind, k);
        check_box(a, &o, model, start, stop, t);
    }
    oracle_free(&o);
    return 1;
}

/* ---- random arrays ---- */

/* Largest m with m^k <= limit. */
static int64_t iroot(int64_t limit, int k)
{
    int64_t m = 1;
    for (;;) {
        int64_t x = 1, n = m + 1;
        int ok = 1;
        for (int i = 0; i < k && ok; i++) {
            if (x > limit / n)
                ok = 0;
            else
                x *= n;
        }
        if (!ok)
            return m;
        m = n;
    }
}

enum { BL_RANDOM, BL_EQUAL, BL_TRAILING, BL_DIVIDES, BL_ONE, BL_MODES };

/* Random shape/chunkshape/blockshape for nd dimensions within budget bytes. */
static void gen_geometry(b2_nd_params *p, int nd, int32_t ts, int mode, int64_t budget)
{
    int64_t T = budget / ts < 1 ? 1 : budget / ts;
    for (int attempt = 0;; attempt++) {
        int64_t m = iroot(T, nd), items = 1;
        for (int i = 0; i < nd; i++) {
            p->shape[i] = rnd_in(1, 2 * m);
            items *= p->shape[i];
        }
        while (items > T) {
            int big = 0;
            for (int i = 1; i < nd; i++)
                if (p->shape[i] > p->shape[big])
                    big = i;
            items = items / p->shape[big];
            p->shape[big] = (p->shape[big] + 1) / 2;
            items *= p->shape[big];
        }
        int k = (int)rnd_in(0, nd - 1);
        int64_t nchunks = 1, nblocks = 1, ext = 1;
        for (int i = 0; i < nd; i++) {
            int64_t s = p->shape[i], c;
            switch (rnd() % 8) {
            case 0: c = s; break;
            case 1: c = s + rnd_in(1, 3); break; /* chunk larger than the array */
            case 2: c = 1; break;
            default: c = rnd_in(s / 4 > 1 ? s / 4 : 1, s); break;
            }
            int64_t b = 1;
            switch (mode) {
            case BL_RANDOM: b = rnd_in(1, c); break;
            case BL_EQUAL: b = c; break;
            case BL_TRAILING: /* blocks are contiguous runs of the chunk */
                b = i > k ? c : i == k ? rnd_in(1, c) : (rnd() % 3 ? 1 : rnd_in(1, c));
                break;
            case BL_DIVIDES:
                do
                    b = rnd_in(1, c);
                while (c % b);
                break;
            case BL_ONE: b = rnd() % 4 ? 1 : 2; break;
            }
            if (b > c)
                b = c;
            p->chunkshape[i] = (int32_t)c;
            p->blockshape[i] = (int32_t)b;
            nchunks *= (s + c - 1) / c;
            nblocks *= (c + b - 1) / b;
            ext *= (c + b - 1) / b * b;
        }
        if ((nchunks <= 300 && nblocks <= 1500 && ext * ts <= 200000) || attempt > 60)
            break;
    }
}

/* Fill the real extent of every chunk with data of a per-chunk kind. */
static void gen_data(const b2_nd_params *p, uint8_t *out, int allow_zero)
{
    geo g;
    int64_t cs[MAXD], bs[MAXD];
    for (int i = 0; i < p->ndim; i++) {
        cs[i] = p->chunkshape[i];
        bs[i] = p->blockshape[i];
    }
    geo_init(&g, p->ndim, p->shape, cs, bs, p->typesize);
    size_t ts = (size_t)p->typesize;
    int64_t n = g.nitems;
    /* kind per chunk, then per item by its chunk */
    uint8_t *kind = malloc((size_t)g.nchunks + 1);
    uint64_t *base = malloc(((size_t)g.nchunks + 1) * sizeof *base);
    for (int64_t c = 0; c < g.nchunks; c++) {
        int r = (int)(rnd() % 20);
        kind[c] = r < 3 && allow_zero ? 0 : r < 11 ? 1 : r < 15 ? 2 : r < 17 ? 3 : 4;
        base[c] = (uint64_t)rnd() << 32 | rnd();
    }
    int64_t idx[MAXD] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t c = 0;
        for (int i = 0; i < p->ndim; i++)
            c = c * g.cia[i] + idx[i] / g.cs[i];
        uint8_t *it = out + k * (int64_t)ts;
        switch (kind[c]) {
        case 0: memset(it, 0, ts); break;
        case 1: { /* smooth ramp with a little noise */
            uint64_t v = base[c] % 1000 + (uint64_t)k * 3 + (rnd() % 4 == 0);
            for (size_t j = 0; j < ts; j++)
                it[j] = j < 8 ? (uint8_t)(v >> (8 * j)) : (uint8_t)(k / 61 + j);
            break;
        }
        case 2:
            for (size_t j = 0; j < ts; j++)
                it[j] = (uint8_t)rnd();
            break;
        case 3: /* one value repeated */
            for (size_t j = 0; j < ts; j++)
                it[j] = (uint8_t)(base[c] >> (8 * (j % 8)));
            break;
        case 4: /* mostly zeros */
            memset(it, 0, ts);
            if (rnd() % 16 == 0)
                it[rnd() % ts] = (uint8_t)(rnd() | 1);
            break;
        }
        for (int i = p->ndim - 1; i >= 0; i--) {
            if (++idx[i] < p->shape[i])
                break;
            idx[i] = 0;
        }
    }
    free(kind);
    free(base);
}

static const int32_t TYPESIZES[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 300};
#define NTS ((int)(sizeof TYPESIZES / sizeof TYPESIZES[0]))
#define NFILT 6
static const char *FILT_NAMES[NFILT] = {"none", "shuffle", "bitshuffle", "delta",
                                        "delta+shuffle", "delta+bitshuffle"};
static const int CODECS[3] = {B2_CODEC_BLOSCLZ, B2_CODEC_LZ4, B2_CODEC_ZSTD};
static const char *MODE_NAMES[BL_MODES] = {"random", "equal", "trailing", "divides", "ones"};

static void set_filters(b2_cparams *cp, int f)
{
    memset(cp->filters, 0, sizeof cp->filters);
    memset(cp->filters_meta, 0, sizeof cp->filters_meta);
    switch (f) {
    case 1: cp->filters[5] = B2_FILTER_SHUFFLE; break;
    case 2: cp->filters[5] = B2_FILTER_BITSHUFFLE; break;
    case 3: cp->filters[5] = B2_FILTER_DELTA; break;
    case 4:
        cp->filters[4] = B2_FILTER_DELTA;
        cp->filters[5] = B2_FILTER_SHUFFLE;
        break;
    case 5:
        cp->filters[4] = B2_FILTER_DELTA;
        cp->filters[5] = B2_FILTER_BITSHUFFLE;
        break;
    }
}

static char tmpdir[] = "/tmp/b2_nd_direct_XXXXXX";
static int have_tmpdir;
static long n_arrays, n_special_chunks[5], n_reopened[3];

static int write_file(const char *path, const uint8_t *buf, size_t len);

/* Store a as a frame file (written here, without the library's fsyncs) or as a
 * sparse frame, then open it. */
static int save_and_open(b2_nd_array *a, const char *path, int sparse, b2_nd_array **out)
{
    *out = NULL;
    if (sparse) {
        /* b2_nd_save's copy, without the per-chunk fsyncs (slow on some disks) */
        b2_schunk *src = b2_nd_schunk(a), *s = NULL;
        int rc = t_create_sparse(path, b2_schunk_cparams(src), &s);
        if (rc < 0)
            return rc;
        b2_schunk_set_sync(s, 0);
        for (int i = 0; rc >= 0 && i < b2_schunk_meta_count(src); i++) {
            uint8_t *c = NULL;
            int32_t len = 0;
            const char *name = b2_schunk_meta_name(src, i);
            if ((rc = b2_schunk_meta_get(src, name, &c, &len)) >= 0)
                rc = b2_schunk_meta_add(s, name, c, len);
            free(c);
        }
        for (int64_t i = 0; rc >= 0 && i < b2_schunk_nchunks(src); i++) {
            uint8_t *c = NULL;
            int32_t cb = 0;
            if ((rc = b2_schunk_get_chunk(src, i, &c, &cb)) >= 0) {
                int64_t r = b2_schunk_append_chunk(s, c, cb);
                rc = r < 0 ? (int)r : 0;
            }
            free(c);
        }
        b2_schunk_free(s);
        return rc < 0 ? rc : b2_nd_open(path, B2_OPEN_READONLY, out);
    }
    uint8_t *frame = NULL;
    size_t flen = 0;
    int rc = b2_nd_to_frame_buffer(a, &frame, &flen);
    if (rc == 0 && write_file(path, frame, flen) < 0)
        rc = B2_ERR_IO;
    free(frame);
    return rc < 0 ? rc : b2_nd_open(path, B2_OPEN_READONLY, out);
}

/* One random array: build it, then verify it in memory and (sometimes) reopened
 * from a frame buffer, a file and a sparse frame. */
static void one_array(int r, int64_t budget)
{
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    int32_t ts = TYPESIZES[r % NTS];
    int filt = (r / NTS) % NFILT, codec = CODECS[(r / (NTS * NFILT)) % 3];
    int nd = 1 + (int)(rnd() % 8);
    int mode = (int)(rnd() % BL_MODES);
    p.ndim = nd;
    p.typesize = ts;
    gen_geometry(&p, nd, ts, mode, ts > 100 ? budget * 2 : budget);
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = codec;
    cp.clevel = rnd() % 10 == 0 ? 0 : (int)rnd_in(1, 9);
    set_filters(&cp, filt);
    p.cparams = &cp;
    int nthreads = rnd() % 3 == 0 ? 2 : 1;
    char tag[200];
    int k = snprintf(tag, sizeof tag, "array %d (nd %d ts %d %s %s clevel %d blocks %s, %d thr, "
                     "shape", r, nd, ts, FILT_NAMES[filt], b2_codec_name(codec), cp.clevel,
                     MODE_NAMES[mode], nthreads);
    for (int i = 0; i < nd && k < (int)sizeof tag - 40; i++)
        k += snprintf(tag + k, sizeof tag - (size_t)k, "%s%lld/%d/%d", i ? "," : " ",
                      (long long)p.shape[i], p.chunkshape[i], p.blockshape[i]);
    snprintf(tag + k, sizeof tag - (size_t)k, ")");

    int64_t nitems = 1;
    for (int i = 0; i < nd; i++)
        nitems *= p.shape[i];
    size_t bytes = (size_t)nitems * (size_t)ts;
    uint8_t *model = calloc(bytes + 1, 1);
    b2_nd_array *a = NULL;
    int how = (int)(rnd() % 4); /* 0,1: from_cbuffer; 2: fill + writes; 3: uninit + writes */
    int rc;
    if (how < 2) {
        gen_data(&p, model, 1);
        rc = b2_nd_from_cbuffer(&p, NULL, model, bytes, &a);
    } else {
        int fill = how == 3 ? B2_ND_FILL_UNINIT : rnd() % 2 ? B2_ND_FILL_VALUE
                                                                           : B2_ND_FILL_ZEROS;
        uint8_t value[300];
        for (int i = 0; i < ts; i++)
            value[i] = (uint8_t)(rnd() | 1);
        rc = b2_nd_create(&p, NULL, fill, value, &a);
        if (fill == B2_ND_FILL_VALUE)
            for (int64_t i = 0; i < nitems; i++)
                memcpy(model + i * ts, value, (size_t)ts);
        if (rc == 0) {
            uint8_t *src = malloc(bytes + 1);
            gen_data(&p, src, 1);
            geo g;
            int64_t cs[MAXD], bs[MAXD];
            for (int i = 0; i < nd; i++) {
                cs[i] = p.chunkshape[i];
                bs[i] = p.blockshape[i];
            }
            geo_init(&g, nd, p.shape, cs, bs, ts);
            int nw = (int)rnd_in(1, 4);
            for (int w = 0; w < nw && rc == 0; w++) {
                int64_t start[MAXD], stop[MAXD];
                make_box(&g, (int[]){0, 2, 8, 3}[rnd() % 4], start, stop);
                int64_t n = box_items(nd, start, stop);
                uint8_t *box = malloc((size_t)n * ts + 1);
                ndt_box_get(src, p.shape, nd, (size_t)ts, start, stop, box);
                rc = b2_nd_set_slice_cbuffer(a, start, stop, box, (size_t)n * ts);
                /* the model takes the box */
                int64_t idx[MAXD];
                for (int i = 0; i < nd; i++)
                    idx[i] = start[i];
                for (int64_t q = 0; q < n; q++) {
                    int64_t off = 0;
                    for (int i = 0; i < nd; i++)
                        off = off * p.shape[i] + idx[i];
                    memcpy(model + off * ts, box + q * ts, (size_t)ts);
                    for (int i = nd - 1; i >= 0; i--) {
                        if (++idx[i] < stop[i])
                            break;
                        idx[i] = start[i];
                    }
                }
                free(box);
            }
            free(src);
        }
    }
    CHECK(rc == 0, "%s: build rc %d", tag, rc);
    if (rc != 0) {
        b2_nd_free(a);
        free(model);
        return;
    }
    n_arrays++;
    b2_schunk *s = b2_nd_schunk(a);
    for (int64_t i = 0; i < b2_schunk_nchunks(s); i++) {
        int sp = b2_schunk_chunk_special(s, i);
        if (sp >= 0 && sp < 5)
            n_special_chunks[sp]++;
    }
    CHECK(b2_nd_set_nthreads(a, nthreads) == 0, "%s: set_nthreads", tag);
    verify_array(a, model, 34, tag);
    if (rnd() % 3 == 0) { /* the other thread count on the same object */
        b2_nd_set_nthreads(a, 3 - nthreads);
        verify_array(a, model, 12, tag);
    }
    /* reopened from a frame buffer */
    if (rnd() % 3 == 0) {
        uint8_t *frame = NULL;
        size_t flen = 0;
        b2_nd_array *b = NULL;
        rc = b2_nd_to_frame_buffer(a, &frame, &flen);
        if (rc == 0)
            rc = b2_nd_open_buffer(frame, flen, 0, &b);
        CHECK(rc == 0, "%s: frame buffer reopen rc %d", tag, rc);
        if (rc == 0) {
            b2_nd_set_nthreads(b, 1 + (int)(rnd() % 2));
            verify_array(b, model, 16, tag);
            n_reopened[0]++;
        }
        b2_nd_free(b);
        free(frame);
    }
    /* saved to a file (lazy block reads) or a sparse frame */
    if (have_tmpdir && rnd() % 4 == 0) {
        int sparse = rnd() % 3 == 0;
        char path[128];
        snprintf(path, sizeof path, "%s/a%d.%s", tmpdir, r, sparse ? "b2dir" : "b2nd");
        b2_nd_array *b = NULL;
        rc = save_and_open(a, path, sparse, &b);
        CHECK(rc == 0, "%s: save/open %s rc %d", tag, sparse ? "sframe" : "file", rc);
        if (rc == 0) {
            b2_nd_set_nthreads(b, 1 + (int)(rnd() % 2));
            char t2[240];
            snprintf(t2, sizeof t2, "%s [%s]", tag, sparse ? "sframe" : "file");
            verify_array(b, model, 20, t2);
            n_reopened[sparse ? 2 : 1]++;
        }
        b2_nd_free(b);
        test_rm_tree(path);
    }
    b2_nd_free(a);
    free(model);
}

/* Arrays worth a deterministic case of their own. */
static void fixed_arrays(void)
{
    static const struct {
        int nd;
        int64_t shape[4];
        int32_t cs[4], bs[4], ts;
        int filt;
        int fill;
    } t[] = {
        /* C-order chunks: whole interior chunks take the straight-into-output path */
        {2, {40, 30}, {10, 30}, {2, 30}, 4, 1, -1},
        {3, {9, 8, 7}, {3, 8, 7}, {1, 4, 7}, 8, 2, -1},
        {3, {9, 8, 7}, {3, 8, 7}, {1, 3, 7}, 2, 3, -1}, /* 8 % 3: padded, not C order */
        /* one block per chunk, edge chunks */
        {2, {37, 23}, {8, 5}, {8, 5}, 16, 4, -1},
        /* blocks of one item */
        {3, {7, 6, 5}, {3, 4, 5}, {1, 1, 1}, 3, 1, -1},
        /* chunk larger than the whole array */
        {2, {5, 7}, {8, 9}, {3, 4}, 8, 0, -1},
        /* special chunks only */
        {3, {10, 11, 12}, {4, 5, 6}, {2, 3, 4}, 4, 1, B2_ND_FILL_ZEROS},
        {3, {10, 11, 12}, {4, 5, 6}, {2, 3, 4}, 4, 1, B2_ND_FILL_UNINIT},
        {3, {10, 11, 12}, {4, 5, 6}, {2, 3, 4}, 8, 1, B2_ND_FILL_NANS},
        {2, {10, 11}, {4, 5}, {3, 2}, 24, 2, B2_ND_FILL_VALUE},
        {2, {10, 11}, {4, 5}, {3, 2}, 300, 1, B2_ND_FILL_ZEROS},
        /* typesize above 255 with real data */
        {2, {9, 7}, {4, 3}, {3, 2}, 300, 1, -1},
        {1, {1000}, {300}, {7}, 256, 2, -1},
        /* long runs through the shuffle / bitshuffle kernels (unshuffle in place) */
        {1, {20011}, {8000}, {2000}, 2, 1, -1},
        {1, {20011}, {8000}, {1999}, 4, 1, -1},
        {1, {9001}, {4000}, {1000}, 8, 2, -1},
        {1, {5003}, {2000}, {512}, 16, 1, -1},
        {2, {300, 257}, {128, 200}, {32, 200}, 4, 1, -1},
        {2, {150, 301}, {64, 256}, {16, 64}, 8, 1, -1},
        {2, {50, 333}, {20, 300}, {7, 150}, 12, 1, -1},
        {2, {61, 129}, {32, 128}, {8, 128}, 16, 2, -1},
        {3, {20, 30, 97}, {8, 16, 96}, {2, 8, 96}, 4, 4, -1},
        {2, {100, 100}, {64, 64}, {64, 64}, 2, 5, -1},
        /* zero-extent dimension and 0-D */
        {2, {0, 5}, {3, 2}, {2, 2}, 4, 1, -1},
        {0, {0}, {0}, {0}, 8, 1, -1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        b2_nd_params p;
        ndt_params(&p, t[i].nd, t[i].shape, t[i].cs, t[i].bs, t[i].ts);
        b2_cparams cp;
        b2_cparams_init(&cp);
        cp.codec = CODECS[i % 3];
        set_filters(&cp, t[i].filt);
        p.cparams = &cp;
        int64_t n = 1;
        for (int d = 0; d < p.ndim; d++)
            n *= p.shape[d];
        size_t bytes = (size_t)n * (size_t)p.typesize;
        uint8_t *model = calloc(bytes + 1, 1);
        b2_nd_array *a = NULL;
        int rc;
        char tag[64];
        snprintf(tag, sizeof tag, "fixed array %zu", i);
        if (t[i].fill < 0) {
            gen_data(&p, model, 1);
            rc = b2_nd_from_cbuffer(&p, NULL, model, bytes, &a);
        } else {
            uint8_t value[300];
            memset(value, 0x5A, sizeof value);
            rc = b2_nd_create(&p, NULL, t[i].fill, value, &a);
            if (t[i].fill == B2_ND_FILL_VALUE)
                for (int64_t k = 0; k < n; k++)
                    memcpy(model + k * p.typesize, value, (size_t)p.typesize);
            if (t[i].fill == B2_ND_FILL_NANS)
                for (int64_t k = 0; k < n; k++) {
                    if (p.typesize == 8) {
                        double nan = __builtin_nan("");
                        memcpy(model + k * 8, &nan, 8);
                    } else {
                        float nan = __builtin_nanf("");
                        memcpy(model + k * 4, &nan, 4);
                    }
                }
        }
        CHECK(rc == 0, "%s: build rc %d", tag, rc);
        if (rc == 0) {
            for (int thr = 1; thr <= 4; thr *= 2) { /* 1, 2 and (here only) 4 threads */
                b2_nd_set_nthreads(a, thr);
                /* NaN fills: the oracle, not the model, says which NaN bits */
                verify_array(a, t[i].fill == B2_ND_FILL_NANS ? NULL : model, 40, tag);
            }
            if (have_tmpdir) {
                char path[128];
                snprintf(path, sizeof path, "%s/fixed%zu.b2nd", tmpdir, i);
                b2_nd_array *b = NULL;
                rc = save_and_open(a, path, 0, &b);
                CHECK(rc == 0, "%s: save/open rc %d", tag, rc);
                if (rc == 0)
                    verify_array(b, t[i].fill == B2_ND_FILL_NANS ? NULL : model, 30, tag);
                b2_nd_free(b);
                remove(path);
            }
        }
        b2_nd_free(a);
        free(model);
    }
}

/* A bigger file-backed array with many blocks per chunk, so that small boxes go
 * through the frame's lazy block reader; the block count decoded stays small. */
static void lazy_file_array(void)
{
    if (!have_tmpdir)
        return;
    b2_nd_params p;
    ndt_params(&p, 3, (const int64_t[]){61, 47, 29}, (const int32_t[]){20, 24, 29},
               (const int32_t[]){3, 5, 29}, 4);
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = B2_CODEC_LZ4;
    p.cparams = &cp;
    size_t bytes = 61 * 47 * 29 * 4;
    uint8_t *model = malloc(bytes);
    gen_data(&p, model, 1);
    b2_nd_array *a = NULL, *b = NULL;
    char path[128];
    snprintf(path, sizeof path, "%s/lazy.b2nd", tmpdir);
    int rc = b2_nd_from_cbuffer(&p, NULL, model, bytes, &a);
    CHECK(rc == 0, "lazy file array: build rc %d", rc);
    if (rc == 0)
        rc = save_and_open(a, path, 0, &b);
    b2_nd_free(a);
    CHECK(rc == 0, "lazy file array: save/open rc %d", rc);
    if (rc == 0) {
        for (int thr = 1; thr <= 2; thr++) {
            b2_nd_set_nthreads(b, thr);
            int64_t before = b2_nd_blocks_decoded(b);
            verify_array(b, model, 120, "lazy file array");
            CHECK(b2_nd_blocks_decoded(b) > before, "lazy file array: blocks counted");
        }
    }
    b2_nd_free(b);
    remove(path);
    free(model);
}

/* ---- hostile geometry and damaged chunks ---- */

static long n_hostile, n_hostile_refused_open, n_hostile_read_err, n_hostile_data_ok,
    n_hostile_file_mism;

/* Outcomes per kind of damage (printed with B2_DIRECT_VERBOSE=1). */
static struct {
    char what[64];
    long frames, refused, read_err, data_ok;
} kinds[64];
static int nkinds;
static int kind_of(const char *tag)
{
    const char *w = strchr(tag, ':');
    w = w ? w + 2 : tag;
    char key[64];
    snprintf(key, sizeof key, "%s", w);
    /* "shape[1] = 5" -> "shape", "frame typesize 300" -> "frame typesize" */
    for (char *c = key; *c; c++)
        if (*c == '[' || *c == '(' || (*c >= '0' && *c <= '9') || (*c == '-' && c[1] != '>')) {
            while (c > key && c[-1] == ' ')
                c--;
            *c = 0;
            break;
        }
    for (int i = 0; i < nkinds; i++)
        if (!strcmp(kinds[i].what, key))
            return i;
    if (nkinds == 64)
        return 63;
    snprintf(kinds[nkinds].what, sizeof kinds[nkinds].what, "%s", key);
    return nkinds++;
}

/* Encode a b2nd metalayer in the fixed layout; values are written as given
 * (negative, huge, ...). Returns the length. */
static int32_t meta_write(uint8_t *out, int nd, const int64_t *shape, const int64_t *cs,
                          const int64_t *bs, const char *dtype, int dlen)
{
    int32_t n = 0;
    out[n++] = 0x97;
    out[n++] = 0;
    out[n++] = (uint8_t)nd;
    out[n++] = (uint8_t)(0x90 + nd);
    for (int i = 0; i < nd; i++) {
        out[n++] = 0xd3;
        for (int j = 7; j >= 0; j--)
            out[n++] = (uint8_t)((uint64_t)shape[i] >> (8 * j));
    }
    const int64_t *v[2] = {cs, bs};
    for (int q = 0; q < 2; q++) {
        out[n++] = (uint8_t)(0x90 + nd);
        for (int i = 0; i < nd; i++) {
            out[n++] = 0xd2;
            for (int j = 3; j >= 0; j--)
                out[n++] = (uint8_t)((uint32_t)v[q][i] >> (8 * j));
        }
    }
    out[n++] = 0;
    out[n++] = 0xdb;
    for (int j = 3; j >= 0; j--)
        out[n++] = (uint8_t)((uint32_t)dlen >> (8 * j));
    for (int i = 0; i < dlen; i++)
        out[n++] = (uint8_t)(dtype && dtype[i] ? dtype[i] : 'x');
    return n;
}

static void be_store(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static int write_file(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(buf, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

/* Open (memory, or a file when on_disk) and read a possibly hostile frame. Any
 * read must fail or agree with the plain decode on every chunk that decodes whole
 * to the geometry's chunk size, and never write past the box. strict: the chunk
 * bytes are intact, so a successful read must not cover a chunk whose size
 * disagrees with the geometry either (unless it is a zeros/uninit chunk and reads
 * as zeros). */
static void hostile_check(const uint8_t *frame, size_t len, int strict, int on_disk,
                          const char *tag)
{
    n_hostile++;
    long fails_before = b2t_failures;
    int kd = kind_of(tag);
    kinds[kd].frames++;
    uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees over-reads */
    memcpy(copy, frame, len);
    b2_nd_array *a = NULL;
    int rc;
    char path[128];
    if (on_disk) {
        snprintf(path, sizeof path, "%s/hostile.b2nd", tmpdir);
        if (write_file(path, copy, len) < 0) {
            CHECK(0, "%s: cannot write %s", tag, path);
            free(copy);
            return;
        }
        rc = b2_nd_open(path, B2_OPEN_READONLY, &a);
    } else {
        rc = b2_nd_open_buffer(copy, len, (int)(rnd() % 2), &a);
    }
    b2t_checks++;
    if (rc < 0) {
        n_hostile_refused_open++;
        kinds[kd].refused++;
        free(copy);
        if (on_disk)
            remove(path);
        return;
    }
    b2_nd_set_nthreads(a, 1 + (int)(rnd() % 2));
    oracle o;
    int have = oracle_build(a, &o, 16 << 20);
    int nd = b2_nd_ndim(a);
    const int64_t *shape = b2_nd_shape(a);
    int64_t ts = b2_nd_typesize(a);
    if (have && !(o.g.nd == nd && o.g.ts == ts && memcmp(o.g.shape, shape, (size_t)nd * 8) == 0)) {
        CHECK(0, "%s: the array's geometry is not its metalayer's", tag);
        oracle_free(&o);
        have = 0;
    }
    for (int r = 0; r < 7; r++) {
        int64_t start[MAXD], stop[MAXD], n = 1;
        int whole = r == 0;
        for (int i = 0; i < nd; i++) {
            if (whole) {
                start[i] = 0;
                stop[i] = shape[i];
            } else {
                int64_t x = rnd_in(0, shape[i] > 0 ? shape[i] - 1 : 0);
                int64_t w = rnd_in(1, 40);
                start[i] = x;
                stop[i] = x + w < shape[i] ? x + w : shape[i];
            }
            if (stop[i] - start[i] > 0 && n > (int64_t)(16 << 20) / (stop[i] - start[i]))
                n = (int64_t)1 << 40;
            else
                n *= stop[i] - start[i];
        }
        if (ts <= 0 || n > (int64_t)(16 << 20) / ts) /* too big to try */
            continue;
        size_t bytes = (size_t)(n * ts);
        uint8_t seed = (uint8_t)rnd();
        uint8_t *buf = malloc(bytes + SLACK);
        fill_sentinel(buf, bytes + SLACK, seed);
        rc = whole ? b2_nd_to_cbuffer(a, buf, bytes + SLACK)
                   : b2_nd_get_slice_cbuffer(a, start, stop, buf, bytes + SLACK);
        CHECK(sentinel_intact(buf, bytes, bytes + SLACK, seed),
              "%s: read (rc %d) wrote past the %zu-byte box", tag, rc, bytes);
        if (rc < 0) {
            n_hostile_read_err++;
            kinds[kd].read_err++;
        } else if (have) {
            int bad = 0, zero = 0;
            int64_t mism = compare_box(&o, start, stop, buf, &bad, &zero);
            n_hostile_file_mism += on_disk && mism;
            CHECK(mism == 0, "%s%s: read %d succeeded with %lld runs differing from the plain "
                  "decode", tag, on_disk ? " [file: lazy block reads]" : "", r, (long long)mism);
            CHECK(!(strict && bad), "%s%s: read %d succeeded over a chunk whose size disagrees "
                  "with the geometry", tag, on_disk ? " [file]" : "", r);
            if (mism == 0 && !bad) {
                n_hostile_data_ok++;
                kinds[kd].data_ok++;
            }
        }
        free(buf);
    }
    if (have)
        oracle_free(&o);
    b2_nd_free(a);
    const char *dump = getenv("B2_DIRECT_DUMP");
    if (dump && b2t_failures > fails_before) { /* keep the frame for a reproducer */
        char out[300];
        snprintf(out, sizeof out, "%s/hostile_%ld.b2frame", dump, n_hostile);
        if (write_file(out, frame, len) == 0)
            printf("  frame saved as %s\n", out);
    }
    free(copy);
    if (on_disk)
        remove(path);
}

/* Where the metalayer content sits in the frame (first occurrence). */
static int64_t find_bytes(const uint8_t *hay, size_t hlen, const uint8_t *needle, size_t nlen)
{
    if (nlen == 0 || nlen > hlen)
        return -1;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
            return (int64_t)i;
    return -1;
}

/* Smallest d with ceil(c/d)*d == e (any divisor of e with e - d < c), picked at random. */
static int64_t alt_block(int64_t c, int64_t e)
{
    int64_t cand[64];
    int n = 0;
    for (int64_t d = 1; d <= e && n < 64; d++)
        if (e % d == 0 && e - d < c)
            cand[n++] = d;
    return n ? cand[rnd() % n] : e;
}

typedef struct base {
    uint8_t *frame;
    size_t len;
    int64_t meta_off;
    int32_t meta_len, dlen;
    char dtype[64];
    geo g;
} base;

/* Rewrite the metalayer of b's frame with the given geometry (same length: the
 * dtype absorbs a change of ndim) and check the result. */
static void meta_variant(const base *b, int nd, const int64_t *shape, const int64_t *cs,
                         const int64_t *bs, const char *what, int idx)
{
    int dlen = b->meta_len - 12 - 19 * nd;
    if (dlen < 0 || nd > 15)
        return;
    uint8_t *f = malloc(b->len);
    memcpy(f, b->frame, b->len);
    uint8_t m[512];
    char dt[300];
    memset(dt, ' ', sizeof dt);
    memcpy(dt, b->dtype, (size_t)(b->dlen < dlen ? b->dlen : dlen));
    int32_t n = meta_write(m, nd, shape, cs, bs, dt, dlen);
    if (n == b->meta_len) {
        memcpy(f + b->meta_off, m, (size_t)n);
        char tag[160];
        snprintf(tag, sizeof tag, "hostile base %d: %s", idx, what);
        hostile_check(f, b->len, 1, 0, tag);
        if (have_tmpdir && rnd() % 3 == 0)
            hostile_check(f, b->len, 1, 1, tag);
    }
    free(f);
}

/* Frames with a bigger dtype label so that ndim can be raised in place. */
static int make_base(int idx, base *b)
{
    memset(b, 0, sizeof *b);
    static const int32_t tss[] = {1, 2, 4, 8, 3, 16, 300, 12};
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.ndim = 1 + idx % 5;
    p.typesize = tss[idx % 8];
    gen_geometry(&p, p.ndim, p.typesize, idx % 2 ? BL_RANDOM : (int)(rnd() % BL_MODES),
                 p.typesize > 100 ? 12000 : 4000);
    /* a long opaque label: room for more dimensions */
    snprintf(b->dtype, sizeof b->dtype, "[('f0', '|V%d'), ('pad', '|V0'), ('x', '|V0')]",
             p.typesize);
    p.dtype = b->dtype;
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = CODECS[idx % 3];
    set_filters(&cp, idx % NFILT);
    p.cparams = &cp;
    int64_t n = 1;
    for (int i = 0; i < p.ndim; i++)
        n *= p.shape[i];
    size_t bytes = (size_t)n * (size_t)p.typesize;
    uint8_t *data = calloc(bytes + 1, 1);
    gen_data(&p, data, 1);
    b2_nd_array *a = NULL;
    int rc = b2_nd_from_cbuffer(&p, NULL, data, bytes, &a);
    free(data);
    if (rc == 0 && idx % 4 == 3) { /* one repeated-value chunk and one uninit-free zero run */
        int64_t start[MAXD] = {0}, stop[MAXD];
        for (int i = 0; i < p.ndim; i++)
            stop[i] = p.chunkshape[i] < p.shape[i] ? p.chunkshape[i] : p.shape[i];
        int64_t m = box_items(p.ndim, start, stop);
        uint8_t *z = calloc((size_t)m * p.typesize + 1, 1);
        rc = b2_nd_set_slice_cbuffer(a, start, stop, z, (size_t)m * p.typesize);
        free(z);
    }
    CHECK(rc == 0, "hostile base %d: build rc %d", idx, rc);
    if (rc < 0) {
        b2_nd_free(a);
        return 0;
    }
    uint8_t *meta = NULL;
    int32_t mlen = 0;
    rc = b2_nd_to_frame_buffer(a, &b->frame, &b->len);
    if (rc == 0)
        rc = b2_schunk_meta_get(b2_nd_schunk(a), B2_ND_META_NAME, &meta, &mlen);
    if (rc >= 0) {
        b->meta_off = find_bytes(b->frame, b->len, meta, (size_t)mlen);
        b->meta_len = mlen;
        b->dlen = (int32_t)strlen(b->dtype);
        geo_of_array(a, &b->g);
    }
    free(meta);
    b2_nd_free(a);
    CHECK(rc >= 0 && b->meta_off > 0 && b->meta_len == 12 + 19 * p.ndim + b->dlen,
          "hostile base %d: frame / metalayer", idx);
    return rc >= 0 && b->meta_off > 0;
}

static void hostile_meta(const base *b, int idx)
{
    const geo *g = &b->g;
    int nd = g->nd;
    int64_t sh[MAXD], cs[MAXD], bs[MAXD];
#define RESET()                                                                                  \
    do {                                                                                         \
        memcpy(sh, g->shape, sizeof sh);                                                         \
        memcpy(cs, g->cs, sizeof cs);                                                            \
        memcpy(bs, g->bs, sizeof bs);                                                            \
    } while (0)
    /* unchanged: must read back exactly */
    RESET();
    meta_variant(b, nd, sh, cs, bs, "unchanged", idx);
    /* dimensions permuted: same chunk count and sizes, another layout */
    for (int t = 0; t < 2 && nd > 1; t++) {
        int perm[MAXD];
        for (int i = 0; i < nd; i++)
            perm[i] = i;
        for (int i = nd - 1; i > 0; i--) {
            int j = (int)(rnd() % (unsigned)(i + 1)), x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (int i = 0; i < nd; i++) {
            sh[i] = g->shape[perm[i]];
            cs[i] = g->cs[perm[i]];
            bs[i] = g->bs[perm[i]];
        }
        meta_variant(b, nd, sh, cs, bs, "dimensions permuted", idx);
    }
    /* another blockshape with the same padded chunk: the chunks' blocksize no
     * longer matches the block's byte size (may be larger than the chunkshape) */
    for (int t = 0; t < 4; t++) {
        RESET();
        for (int i = 0; i < nd; i++)
            bs[i] = alt_block(g->cs[i], g->ext[i]);
        meta_variant(b, nd, sh, cs, bs, "blockshape with the same padded chunk", idx);
    }
    RESET();
    for (int i = 0; i < nd; i++)
        bs[i] = g->ext[i];
    meta_variant(b, nd, sh, cs, bs, "one block per chunk", idx);
    /* blockshape larger than the chunkshape (padded chunk grows) */
    RESET();
    bs[nd - 1] = g->cs[nd - 1] + rnd_in(1, 5);
    meta_variant(b, nd, sh, cs, bs, "blockshape > chunkshape", idx);
    RESET();
    for (int i = 0; i < nd; i++)
        bs[i] = 1;
    meta_variant(b, nd, sh, cs, bs, "blocks of one item", idx);
    /* shape moved inside the edge chunks: legal, padding becomes visible */
    for (int t = 0; t < 3; t++) {
        RESET();
        int i = (int)rnd_in(0, nd - 1);
        int64_t lo = (g->cia[i] - 1) * g->cs[i] + 1, hi = g->cia[i] * g->cs[i];
        sh[i] = rnd_in(lo, hi);
        meta_variant(b, nd, sh, cs, bs, "shape within the edge chunk", idx);
    }
    /* chunkshape changed, shape scaled to keep the chunk count */
    RESET();
    {
        int i = (int)rnd_in(0, nd - 1);
        cs[i] = g->cs[i] + 1;
        sh[i] = g->cia[i] * cs[i];
        meta_variant(b, nd, sh, cs, bs, "chunkshape + 1 (chunk count kept)", idx);
        cs[i] = g->cs[i] > 1 ? g->cs[i] - 1 : 1;
        sh[i] = g->cia[i] * cs[i];
        meta_variant(b, nd, sh, cs, bs, "chunkshape - 1 (chunk count kept)", idx);
    }
    /* zeros, negatives and huge values in every field */
    static const int64_t odd[] = {0, -1, 1, 2, INT32_MAX, (int64_t)INT32_MAX + 1, (int64_t)1 << 40,
                                  INT64_MAX, INT64_MIN, 65536, 3};
    for (int t = 0; t < 12; t++) {
        RESET();
        int i = (int)rnd_in(0, nd - 1), field = (int)(rnd() % 3);
        int64_t v = odd[rnd() % (sizeof odd / sizeof odd[0])];
        if (field == 0)
            sh[i] = v;
        else if (field == 1)
            cs[i] = v;
        else
            bs[i] = v;
        char what[96];
        static const char *const fname[3] = {"shape", "chunkshape", "blockshape"};
        snprintf(what, sizeof what, "%s[%d] = %lld", fname[field], i, (long long)v);
        meta_variant(b, nd, sh, cs, bs, what, idx);
    }
    /* ndim changed (the dtype label absorbs the length) */
    for (int t = 0; t < 3; t++) {
        int nd2 = (int)rnd_in(0, nd + 2);
        for (int i = 0; i < nd2; i++) {
            int j = i < nd ? i : nd - 1;
            sh[i] = i < nd ? g->shape[j] : 1;
            cs[i] = i < nd ? g->cs[j] : 1;
            bs[i] = i < nd ? g->bs[j] : 1;
        }
        if (nd2 > 0 && rnd() % 2) { /* merge the last two into one */
            sh[nd2 - 1] *= rnd_in(1, 3);
        }
        char what[64];
        snprintf(what, sizeof what, "ndim %d -> %d", nd, nd2);
        meta_variant(b, nd2, sh, cs, bs, what, idx);
    }
    /* random geometries */
    for (int t = 0; t < 6; t++) {
        for (int i = 0; i < nd; i++) {
            sh[i] = rnd_in(0, 3 * g->shape[i] + 2);
            cs[i] = rnd_in(0, 2 * g->cs[i] + 2);
            bs[i] = rnd_in(0, 2 * g->bs[i] + 2);
        }
        meta_variant(b, nd, sh, cs, bs, "random geometry", idx);
    }
#undef RESET
}

/* Frame header fields: typesize (offset 48) and chunksize (58), both BE32. */
static void hostile_header(const base *b, int idx)
{
    const geo *g = &b->g;
    int64_t tsv[] = {1, 2, 3, g->ts + 1, g->ts * 2, g->ts > 1 ? g->ts / 2 : 5, 255, 256, 300,
                     65536, INT32_MAX, 0, -1};
    char tag[128];
    for (size_t t = 0; t < sizeof tsv / sizeof tsv[0]; t++) {
        uint8_t *f = malloc(b->len);
        memcpy(f, b->frame, b->len);
        be_store(f + 48, (uint64_t)tsv[t], 4);
        snprintf(tag, sizeof tag, "hostile base %d: frame typesize %lld", idx, (long long)tsv[t]);
        hostile_check(f, b->len, 1, 0, tag);
        free(f);
    }
    /* typesize doubled with the last dimension halved: same chunk bytes, the chunks'
     * own typesize disagrees with the array's */
    int L = g->nd - 1;
    if (g->cs[L] % 2 == 0 && g->bs[L] % 2 == 0 && g->shape[L] % 2 == 0 && g->ts <= 128) {
        int64_t sh[MAXD], cs[MAXD], bs[MAXD];
        memcpy(sh, g->shape, sizeof sh);
        memcpy(cs, g->cs, sizeof cs);
        memcpy(bs, g->bs, sizeof bs);
        sh[L] /= 2;
        cs[L] /= 2;
        bs[L] /= 2;
        uint8_t m[512];
        char dt[300];
        memset(dt, ' ', sizeof dt);
        memcpy(dt, b->dtype, (size_t)b->dlen);
        int32_t n = meta_write(m, g->nd, sh, cs, bs, dt, b->dlen);
        if (n == b->meta_len) {
            uint8_t *f = malloc(b->len);
            memcpy(f, b->frame, b->len);
            memcpy(f + b->meta_off, m, (size_t)n);
            be_store(f + 48, (uint64_t)(g->ts * 2), 4);
            snprintf(tag, sizeof tag, "hostile base %d: typesize x2, last dim / 2", idx);
            hostile_check(f, b->len, 1, 0, tag);
            if (have_tmpdir)
                hostile_check(f, b->len, 1, 1, tag);
            free(f);
        }
    }
    int64_t csv[] = {g->chunk_bytes - 1, g->chunk_bytes + 1, g->chunk_bytes * 2, 0, -1, 1,
                     g->block_bytes};
    for (size_t t = 0; t < sizeof csv / sizeof csv[0]; t++) {
        uint8_t *f = malloc(b->len);
        memcpy(f, b->frame, b->len);
        be_store(f + 58, (uint64_t)csv[t], 4);
        snprintf(tag, sizeof tag, "hostile base %d: frame chunksize %lld", idx, (long long)csv[t]);
        hostile_check(f, b->len, 1, 0, tag);
        if (have_tmpdir)
            hostile_check(f, b->len, 1, 1, tag);
        free(f);
    }
    /* random bytes in the metalayer */
    for (int t = 0; t < 8; t++) {
        uint8_t *f = malloc(b->len);
        memcpy(f, b->frame, b->len);
        int nflip = (int)rnd_in(1, 3);
        for (int k = 0; k < nflip; k++)
            f[b->meta_off + rnd_in(0, b->meta_len - 1)] = (uint8_t)rnd();
        snprintf(tag, sizeof tag, "hostile base %d: metalayer bytes", idx);
        hostile_check(f, b->len, 1, 0, tag);
        free(f);
    }
}

/* Damaged chunks: bit flips, overwritten header fields, cut chunks, a cut frame. */
static void hostile_chunks(const base *b, int idx)
{
    b2_nd_array *a = NULL;
    if (b2_nd_open_buffer(b->frame, b->len, 0, &a) < 0)
        return;
    b2_schunk *s = b2_nd_schunk(a);
    int64_t nch = b2_schunk_nchunks(s);
    /* where each stored (non-index-special) chunk lives in the frame */
    int64_t offs[64], lens[64];
    int nloc = 0;
    for (int64_t i = 0; i < nch && nloc < 64; i++) {
        uint8_t *c = NULL;
        int32_t cb = 0;
        if (b2_schunk_get_chunk(s, i, &c, &cb) >= 0 && cb > 32) {
            int64_t o = find_bytes(b->frame, b->len, c, (size_t)cb);
            if (o > 0) {
                offs[nloc] = o;
                lens[nloc++] = cb;
            }
        }
        free(c);
    }
    b2_nd_free(a);
    char tag[192];
    for (int t = 0; t < 40; t++) {
        uint8_t *f = malloc(b->len);
        memcpy(f, b->frame, b->len);
        size_t flen = b->len;
        const char *what;
        int kind = (int)(rnd() % 7);
        if (nloc == 0 && kind < 5)
            kind = 5;
        int c = nloc ? (int)(rnd() % (unsigned)nloc) : 0;
        switch (kind) {
        case 0: /* one bit anywhere in a chunk */
        case 1: {
            int64_t pos = offs[c] + rnd_in(0, lens[c] - 1);
            f[pos] ^= (uint8_t)(1u << (rnd() % 8));
            what = "bit flip in a chunk";
            break;
        }
        case 2: /* a header byte of a chunk */
            f[offs[c] + rnd_in(0, 31)] = (uint8_t)rnd();
            what = "chunk header byte";
            break;
        case 3: { /* nbytes / blocksize / cbytes fields */
            int field = 4 + 4 * (int)(rnd() % 3);
            uint32_t v;
            memcpy(&v, f + offs[c] + field, 4);
            static const int32_t delta[] = {-1, 1, -4, 4, 7};
            uint32_t nv = rnd() % 3 == 0 ? rnd() : v + (uint32_t)delta[rnd() % 5];
            for (int k = 0; k < 4; k++)
                f[offs[c] + field + k] = (uint8_t)(nv >> (8 * k));
            what = field == 4 ? "chunk nbytes" : field == 8 ? "chunk blocksize" : "chunk cbytes";
            break;
        }
        case 4: { /* a chunk cut short: its cbytes says fewer bytes */
            int64_t nv = rnd_in(16, lens[c] - 1);
            for (int k = 0; k < 4; k++)
                f[offs[c] + 12 + k] = (uint8_t)((uint64_t)nv >> (8 * k));
            what = "chunk truncated (cbytes)";
            break;
        }
        case 5: /* a random byte anywhere after the metalayer */
            f[rnd_in(b->meta_off + b->meta_len, (int64_t)b->len - 1)] = (uint8_t)rnd();
            what = "random frame byte";
            break;
        default: { /* the frame cut short, frame_len patched to match */
            flen = (size_t)rnd_in(b->meta_off + b->meta_len, (int64_t)b->len - 1);
            be_store(f + 16, flen, 8);
            what = "frame truncated";
            break;
        }
        }
        /* the first changed byte, for reproducing a failure */
        size_t at = 0;
        while (at < flen && f[at] == b->frame[at])
            at++;
        snprintf(tag, sizeof tag, "hostile base %d: %s (frame byte %zu: 0x%02x -> 0x%02x)", idx,
                 what, at, at < flen ? b->frame[at] : 0, at < flen ? f[at] : 0);
        hostile_check(f, flen, 0, 0, tag);
        if (have_tmpdir && t % 5 == 0)
            hostile_check(f, flen, 0, 1, tag);
        free(f);
    }
}

/* Repeated-value chunks (doc/format/chunk.md §7) whose value V = cbytes - 32 is not one item:
 * e.g. 6 bytes in an array of typesize 2 (header typesize 2, nbytes 48, a multiple
 * of V: a valid header that b2_chunk_get_info accepts). The plain decode repeats
 * the V bytes; b2nd reads must do the same or refuse. (Found by this test's
 * damaged-chunk pass: reads used to repeat the first item; fixed in 667c39a.) */
static void value_chunk_periods(void)
{
    static const struct {
        int32_t ts, v;
    } t[] = {{2, 6}, {4, 1}, {4, 2}, {4, 8}, {3, 6}, {4, 12}, {1, 3}, {8, 16}, {2, 48}};
    for (size_t q = 0; q < sizeof t / sizeof t[0]; q++) {
        int32_t ts = t[q].ts, v = t[q].v, nbytes = 48;
        int32_t w = nbytes / ts / 2;
        b2_nd_params p;
        ndt_params(&p, 2, (const int64_t[]){2, w}, (const int32_t[]){2, w},
                   (const int32_t[]){1, w / 2}, ts);
        b2_nd_array *a = NULL;
        int rc = b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &a);
        CHECK(rc == 0, "value chunk ts %d V %d: create rc %d", ts, v, rc);
        if (rc < 0)
            continue;
        uint8_t value[64], chunk[128];
        for (int i = 0; i < v; i++)
            value[i] = (uint8_t)(i + 1);
        int cb = b2_chunk_make_special(B2_SPECIAL_VALUE, v, nbytes, value, chunk, sizeof chunk);
        CHECK(cb == 32 + v, "value chunk ts %d V %d: make_special %d", ts, v, cb);
        int32_t bb = ts * p.blockshape[1];
        chunk[3] = (uint8_t)ts; /* header typesize: the array's */
        for (int k = 0; k < 4; k++) /* blocksize: one b2nd block, as b2_nd_create writes it */
            chunk[8 + k] = (uint8_t)(bb >> (8 * k));
        b2_chunk_info info;
        CHECK(b2_chunk_get_info(chunk, (size_t)cb, &info) == 0 && info.special == B2_SPECIAL_VALUE,
              "value chunk ts %d V %d: header accepted", ts, v);
        rc = (int)b2_schunk_update_chunk(b2_nd_schunk(a), 0, chunk, cb);
        CHECK(rc >= 0, "value chunk ts %d V %d: update_chunk %d", ts, v, rc);
        uint8_t plain[48], got[48 + SLACK];
        rc = b2_schunk_decompress_chunk(b2_nd_schunk(a), 0, plain, sizeof plain);
        int spec_ok = rc == 48;
        for (int i = 0; i < 48; i++)
            spec_ok &= plain[i] == value[i % v];
        CHECK(spec_ok, "value chunk ts %d V %d: plain decode is V bytes repeated (rc %d)", ts, v,
              rc);
        int64_t n1 = p.shape[1];
        const int64_t boxes[][4] = {
            {0, 0, 2, n1}, {0, 1, 1, n1 - 1}, {1, 0, 2, 1}, {0, n1 / 2, 2, n1}};
        for (size_t k = 0; k < sizeof boxes / sizeof boxes[0]; k++) {
            int64_t start[2] = {boxes[k][0], boxes[k][1]}, stop[2] = {boxes[k][2], boxes[k][3]};
            size_t n = (size_t)((stop[0] - start[0]) * (stop[1] - start[1]) * ts);
            uint8_t want[48];
            ndt_box_get(plain, p.shape, 2, (size_t)ts, start, stop, want);
            fill_sentinel(got, sizeof got, 7);
            rc = b2_nd_get_slice_cbuffer(a, start, stop, got, sizeof got);
            CHECK(sentinel_intact(got, n, sizeof got, 7),
                  "value chunk ts %d V %d: wrote past the box", ts, v);
            CHECK(rc < 0 || memcmp(got, want, n) == 0,
                  "value chunk ts %d V %d: get_slice [%lld:%lld, %lld:%lld) got %02x %02x %02x "
                  "%02x..., plain decode %02x %02x %02x %02x...", ts, v, (long long)start[0],
                  (long long)stop[0], (long long)start[1], (long long)stop[1], got[0], got[1],
                  got[2], got[3], want[0], want[1], want[2], want[3]);
        }
        b2_nd_free(a);
    }
}

/* Regression (frame_lazy.c, read_block; fixed: it now reads every byte the
 * block's streams span), found by the damaged-chunk pass below. Before the fix, reading a few blocks of a chunk on disk, the frame's
 * lazy reader mallocs a chunk-sized buffer and reads block j's bytes only up to
 * the next larger bstarts entry. When another (damaged) entry points inside block
 * j's streams, the span is cut short and the decoder reads the rest of block j
 * from the uninitialized part of the buffer: stale heap bytes (here the same
 * block of the previously read chunk) come back as data with rc 0. The plain
 * decode of that chunk succeeds and differs. (Under ASan fresh blocks are filled
 * with 0xbe, which does not decode: the read fails and this check passes.)
 * Deterministic case: typesize 8, shuffle, split streams, lz4; chunk 1 equals
 * chunk 0 except plane 1 of block 2 (run-length streams 0x22 vs 0x11, same sizes);
 * chunk 1's bstarts[5] := the offset of block 2's second stream. */
static void lazy_overlapping_bstarts(void)
{
    if (!have_tmpdir)
        return;
    b2_nd_params p;
    ndt_params(&p, 1, (const int64_t[]){128}, (const int32_t[]){64}, (const int32_t[]){8}, 8);
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = B2_CODEC_LZ4;
    cp.splitmode = B2_SPLIT_ALWAYS;
    p.cparams = &cp;
    uint64_t v[128];
    for (int i = 0; i < 128; i++)
        v[i] = (uint64_t)(i & 0xff) | (uint64_t)(i >= 80 && i < 88 ? 0x22 : 0x11) << 8;
    b2_nd_array *a = NULL, *b = NULL;
    uint8_t *frame = NULL, *c1 = NULL;
    size_t flen = 0;
    int32_t n1 = 0;
    int rc = b2_nd_from_cbuffer(&p, NULL, v, sizeof v, &a);
    if (rc == 0)
        rc = b2_nd_to_frame_buffer(a, &frame, &flen);
    if (rc == 0)
        rc = b2_schunk_get_chunk(b2_nd_schunk(a), 1, &c1, &n1);
    int64_t off = rc >= 0 ? find_bytes(frame, flen, c1, (size_t)n1) : -1;
    CHECK(rc >= 0 && off > 0 && n1 > 32 + 32, "lazy overlapping bstarts: build (rc %d)", rc);
    if (off > 0 && n1 > 64) {
        uint8_t *bst = frame + off + 32;
        int32_t b2s, cs;
        memcpy(&b2s, bst + 8, 4);
        memcpy(&cs, frame + off + b2s, 4);
        int32_t s1 = b2s + (cs > 0 ? 4 + cs : cs < 0 ? 5 : 4); /* block 2, stream 1 */
        memcpy(bst + 20, &s1, 4);                             /* bstarts[5] */
        char path[128];
        snprintf(path, sizeof path, "%s/lazy_bstarts.b2nd", tmpdir);
        rc = write_file(path, frame, flen) == 0 ? b2_nd_open(path, B2_OPEN_READONLY, &b) : B2_ERR_IO;
        CHECK(rc == 0, "lazy overlapping bstarts: open rc %d", rc);
        if (rc == 0) {
            uint8_t plain[512];
            int pr = b2_schunk_decompress_chunk(b2_nd_schunk(b), 1, plain, sizeof plain);
            CHECK(pr == 512, "lazy overlapping bstarts: plain decode of chunk 1 rc %d", pr);
            int64_t s0 = 16, e0 = 24, s = 80, e = 88;
            uint64_t g0[8], g[8];
            b2_nd_get_slice_cbuffer(b, &s0, &e0, g0, sizeof g0); /* block 2 of chunk 0 */
            memset(g, 0, sizeof g);
            rc = b2_nd_get_slice_cbuffer(b, &s, &e, g, sizeof g); /* block 2 of chunk 1 */
            uint64_t want;
            memcpy(&want, plain + 16 * 8, 8);
            CHECK(pr != 512 || rc < 0 || memcmp(g, plain + 16 * 8, sizeof g) == 0,
                  "frame_lazy.c: lazy block reads decode unread buffer bytes when "
                  "bstarts overlap: file-backed get_slice [80, 88) rc %d, item 80 = %016llx, "
                  "plain decode %016llx", rc, (unsigned long long)g[0], (unsigned long long)want);
        }
        b2_nd_free(b);
        remove(path);
    }
    free(c1);
    free(frame);
    b2_nd_free(a);
}

static void hostile(int nbases)
{
    for (int i = 0; i < nbases; i++) {
        base b;
        if (make_base(i, &b)) {
            hostile_meta(&b, i);
            hostile_header(&b, i);
            hostile_chunks(&b, i);
        }
        free(b.frame);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    double t0 = now();
    /* every typesize x filter x codec, three times */
    int narrays = argc > 1 ? atoi(argv[1]) : 3 * 3 * NTS * NFILT;
    have_tmpdir = mkdtemp(tmpdir) != NULL;
    odctx = b2_dctx_new(1);
    fixed_arrays();
    lazy_file_array();
    double t1 = now() - t0;
    for (int r = 0; r < narrays; r++)
        one_array(r, 16000 + (int64_t)(rnd() % 4) * 16000);
    double t2 = now() - t0;
    value_chunk_periods();
    lazy_overlapping_bstarts();
    hostile(48);
    double t3 = now() - t0;
    b2_dctx_free(odctx);
    if (have_tmpdir)
        test_rm_tree(tmpdir);
    printf("random arrays: %ld (reopened: %ld frame buffer, %ld file, %ld sframe); chunks "
           "stored as none/zeros/nan/value/uninit: %ld/%ld/%ld/%ld/%ld\n",
           n_arrays, n_reopened[0], n_reopened[1], n_reopened[2], n_special_chunks[0],
           n_special_chunks[1], n_special_chunks[2], n_special_chunks[3], n_special_chunks[4]);
    printf("boxes read: %ld (%ld empty, %ld over zero/uninit chunks, %ld refused for a short "
           "buffer)\n", n_boxes, n_empty, n_zero_boxes, n_refused_small);
    printf("hostile frames: %ld (%ld refused on open, %ld reads failed, %ld reads matched the "
           "plain decode)\n", n_hostile, n_hostile_refused_open, n_hostile_read_err,
           n_hostile_data_ok);
    if (getenv("B2_DIRECT_VERBOSE"))
        for (int i = 0; i < nkinds; i++)
            printf("  %-44s frames %5ld refused %5ld, reads failed %5ld, reads ok %5ld\n",
                   kinds[i].what, kinds[i].frames, kinds[i].refused, kinds[i].read_err,
                   kinds[i].data_ok);
    if (n_hostile_file_mism)
        printf("note: %ld file-backed reads of damaged frames differed from the plain decode: "
               "see lazy_overlapping_bstarts()\n", n_hostile_file_mism);
    printf("seconds: fixed %.1f, random %.1f, hostile %.1f\n", t1, t2 - t1, t3 - t2);
    return b2t_summary("b2nd direct");
}

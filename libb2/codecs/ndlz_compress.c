/* SPDX-License-Identifier: BSD-3-Clause */
/* ndlz encoder (format in ndlz.h). It takes the reference's decisions one by
 * one (what it tries for each cell and in which order, its hash tables and when
 * they change, when it gives up), so a block gives the reference's bytes. The
 * hashes are XXH32 from libxxhash; built without it, encoding refuses. */
#include <stdlib.h>
#include "ndlz.h"

#ifdef B2_HAVE_NDLZ
#include <xxhash.h>

#define HASH_LOG 12
#define HASH_SIZE (1u << HASH_LOG)

/* Each table maps the hash of a whole cell, of three rows or of two rows to
 * where those bytes were written as part of a literal cell (0: nothing). Only
 * literal cells add entries, all at once when the cell is written. */
typedef struct ndlz_enc {
    const uint8_t *out; /* stream start */
    int64_t a;          /* position of the current cell's record */
    uint32_t cell_tab[HASH_SIZE], triple_tab[HASH_SIZE], pair_tab[HASH_SIZE];
    /* Entries the current cell adds if it goes literal: position and slot per
     * first row. A slot keeps its value from earlier cells when this cell sets
     * no position for it: the reference then stores 0 in that old slot, and so
     * must we (see add_literal). */
    uint32_t triple_at[6], pair_at[7];
    uint32_t triple_slot[6], pair_slot[7];
} ndlz_enc;

static uint32_t hash_of(const uint8_t *p, size_t n)
{
    return XXH32(p, n, 1) >> (32 - HASH_LOG);
}

/* Whether table entry `at` holds an earlier copy of p[0..n) starting no more
 * than the maximum distance before the current record (plus `ahead` bytes). */
static int usable(const ndlz_enc *e, uint32_t at, const uint8_t *p, int n, int ahead)
{
    return at && !memcmp(e->out + at, p, (size_t)n) && e->a + ahead - at < NDLZ_MAX_DISTANCE;
}

/* Literal record of the current cell: its entries go into the tables. */
static void add_literal(ndlz_enc *e, uint32_t cell_slot, int ntriples, int npairs)
{
    e->cell_tab[cell_slot] = (uint32_t)(e->a + 1);
    if (e->triple_at[0])
        for (int h = 0; h < ntriples; h++)
            e->triple_tab[e->triple_slot[h]] = e->triple_at[h];
    if (e->pair_at[0])
        for (int h = 0; h < npairs; h++)
            e->pair_tab[e->pair_slot[h]] = e->pair_at[h];
}

/* Note three (or two) rows starting at row i of the cell as a future entry when
 * their slot is empty. */
static void note(uint32_t *at, uint32_t *slot, int i, int64_t pos, uint32_t h)
{
    at[i] = (uint32_t)pos;
    slot[i] = h;
}

/* Row matches of a 4x4 cell, in the reference's order: two pairs (rows 0 and j,
 * then the two others), any three rows, any two rows. Writes the record at op
 * and returns its length, or 0 when nothing matches (the cell goes literal). */
static int rows4(ndlz_enc *e, const uint8_t *cell, uint8_t *op)
{
    static const int tri[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    uint8_t buf[12];
    const int64_t a = e->a;
    for (int j = 1; j < 4; j++) {
        memcpy(buf, cell, 4);
        memcpy(buf + 4, cell + 4 * j, 4);
        uint32_t p1 = e->pair_tab[hash_of(buf, 8)];
        if (!usable(e, p1, buf, 8, 0))
            continue;
        int l = j == 1 ? 2 : 1, m = j == 3 ? 2 : 3;
        memcpy(buf, cell + 4 * l, 4);
        memcpy(buf + 4, cell + 4 * m, 4);
        uint32_t p2 = e->pair_tab[hash_of(buf, 8)];
        if (!usable(e, p2, buf, 8, 4 * l))
            continue;
        op[0] = (uint8_t)(NDLZ4_TOK_TWO_PAIRS | j << 3);
        ndlz_store16(op + 1, (uint32_t)(a - p1));
        ndlz_store16(op + 3, (uint32_t)(a - p2));
        return 5;
    }
    for (int t = 0; t < 4; t++) {
        int i = tri[t][0], j = tri[t][1], k = tri[t][2];
        memcpy(buf, cell + 4 * i, 4);
        memcpy(buf + 4, cell + 4 * j, 4);
        memcpy(buf + 8, cell + 4 * k, 4);
        uint32_t h = hash_of(buf, 12), at = e->triple_tab[h];
        if (!at) {
            if (k - i == 2) /* consecutive rows: a literal would add them */
                note(e->triple_at, e->triple_slot, i, a + 1 + 4 * i, h);
            continue;
        }
        if (!usable(e, at, buf, 12, 4 * i))
            continue;
        op[0] = (uint8_t)(i == 1 ? NDLZ4_TOK_TRIPLE : NDLZ4_TOK_TRIPLE | (j + k - 2) << 3);
        ndlz_store16(op + 1, (uint32_t)(a - at));
        memcpy(op + 3, cell + 4 * (6 - i - j - k), 4); /* the row left out */
        return 7;
    }
    for (int i = 0; i < 3; i++) {
        for (int j = i + 1; j < 4; j++) {
            memcpy(buf, cell + 4 * i, 4);
            memcpy(buf + 4, cell + 4 * j, 4);
            uint32_t h = hash_of(buf, 8), at = e->pair_tab[h];
            if (!at) {
                if (j == i + 1)
                    note(e->pair_at, e->pair_slot, i, a + 1 + 4 * i, h);
                continue;
            }
            if (!usable(e, at, buf, 8, 4 * i))
                continue;
            op[0] = (uint8_t)(i == 2 ? NDLZ4_TOK_PAIR : NDLZ4_TOK_PAIR | i << 5 | j << 3);
            ndlz_store16(op + 1, (uint32_t)(a - at));
            int n = 3;
            for (int r = 0; r < 4; r++) {
                if (r != i && r != j) {
                    memcpy(op + n, cell + 4 * r, 4);
                    n += 4;
                }
            }
            return n;
        }
    }
    return 0;
}

/* Row matches of an 8x8 cell: three consecutive rows, then two; as rows4. */
static int rows8(ndlz_enc *e, const uint8_t *cell, uint8_t *op)
{
    const int64_t a = e->a;
    for (int span = 3; span >= 2; span--) {
        uint32_t *tab = span == 3 ? e->triple_tab : e->pair_tab;
        uint32_t *at_of = span == 3 ? e->triple_at : e->pair_at;
        uint32_t *slot_of = span == 3 ? e->triple_slot : e->pair_slot;
        for (int i = 0; i + span <= 8; i++) {
            const uint8_t *p = cell + 8 * i;
            uint32_t h = hash_of(p, (size_t)(8 * span)), at = tab[h];
            if (!at) {
                note(at_of, slot_of, i, a + 1 + 8 * i, h);
                continue;
            }
            if (!usable(e, at, p, 8 * span, 8 * i))
                continue;
            op[0] = (uint8_t)((span == 3 ? NDLZ8_TOK_TRIPLE : NDLZ8_TOK_PAIR) + i);
            ndlz_store16(op + 1, (uint32_t)(a - at));
            int n = 3;
            for (int r = 0; r < 8; r++) {
                if (r < i || r >= i + span) {
                    memcpy(op + n, cell + 8 * r, 8);
                    n += 8;
                }
            }
            return n;
        }
    }
    return 0;
}

static int all_same(const uint8_t *p, int n)
{
    for (int i = 1; i < n; i++)
        if (p[i] != p[0])
            return 0;
    return 1;
}

/* The whole block; 0 when it does not fit in maxout or does not shrink. */
static int encode(ndlz_enc *e, int c, int32_t b0, int32_t b1, const uint8_t *src, int srclen,
                  uint8_t *dst, int maxout)
{
    const int n = c * c;
    uint8_t cell[64];
    e->out = dst;
    dst[0] = 2;
    b2_store_le32(dst + 1, (uint32_t)b0);
    b2_store_le32(dst + 5, (uint32_t)b1);
    int64_t op = NDLZ_HEADER_LEN;
    for (int32_t y = 0; y < b0; y += c) {
        int nr = b0 - y < c ? b0 - y : c;
        for (int32_t x = 0; x < b1; x += c) {
            int nc = b1 - x < c ? b1 - x : c;
            const uint8_t *in = src + (int64_t)y * b1 + x;
            memset(e->triple_at, 0, sizeof e->triple_at);
            memset(e->pair_at, 0, sizeof e->pair_at);
            if (op + n + 1 > maxout) /* room for the longest record */
                return 0;
            if (nr < c || nc < c) { /* edge cells are always literal */
                dst[op++] = NDLZ_TOK_LITERAL;
                for (int r = 0; r < nr; r++, op += nc)
                    memcpy(dst + op, in + (int64_t)r * b1, (size_t)nc);
                goto next;
            }
            for (int r = 0; r < c; r++)
                memcpy(cell + r * c, in + (int64_t)r * b1, (size_t)c);
            e->a = op;
            uint32_t slot = hash_of(cell, (size_t)n);
            if (all_same(cell, n)) {
                dst[op] = NDLZ_TOK_RUN;
                dst[op + 1] = cell[0];
                op += 2;
            } else if (usable(e, e->cell_tab[slot], cell, n, 0)) {
                dst[op] = NDLZ_TOK_CELL;
                ndlz_store16(dst + op + 1, (uint32_t)(op - e->cell_tab[slot]));
                op += 3;
            } else {
                int len = c == 4 ? rows4(e, cell, dst + op) : rows8(e, cell, dst + op);
                if (!len) {
                    add_literal(e, slot, c == 4 ? 2 : 6, c == 4 ? 3 : 7);
                    dst[op] = NDLZ_TOK_LITERAL;
                    memcpy(dst + op + 1, cell, (size_t)n);
                    len = n + 1;
                }
                op += len;
            }
        next:
            if (op > srclen)
                return 0;
        }
    }
    return (int)op;
}
#endif /* B2_HAVE_NDLZ */

int b2_ndlz_compress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                     int maxout)
{
#ifndef B2_HAVE_NDLZ
    (void)src, (void)srclen, (void)dst, (void)maxout, (void)u;
    return B2_FAIL(B2_ERR_UNSUPPORTED,
                   "codec id 32 (ndlz): encoding needs libxxhash, and this libb2 was built "
                   "without it (decoding works)");
#else
    int c, rc;
    int32_t b0, b1;
    if ((rc = b2_ndlz_setup(u, "encoding", &c, &b0, &b1)) < 0)
        return rc;
    /* as the reference: one byte per item, so wider types need split streams */
    B2_FAIL_IF((int64_t)b0 * b1 != srclen, B2_ERR_INVALID_PARAM,
               "ndlz: a stream of %d bytes is not one byte per item of the %d x %d block "
               "(typesize %d: items wider than a byte need split streams)",
               srclen, (int)b0, (int)b1, (int)u->typesize);
    /* The reference fails the chunk when maxout < 9; giving up lets it be
     * stored instead. */
    if (maxout < NDLZ_HEADER_LEN || srclen < c * c || maxout < 17 + (srclen / (c * c) - 1) * 2)
        return 0;
    ndlz_enc *e = calloc(1, sizeof *e);
    if (!e)
        return B2_FAIL(B2_ERR_NOMEM, "ndlz: %zu bytes of hash tables", sizeof *e);
    int r = encode(e, c, b0, b1, src, srclen, dst, maxout);
    free(e);
    return r;
#endif
}

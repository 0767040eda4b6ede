/* SPDX-License-Identifier: BSD-3-Clause */
/* Body of the BloscLZ encoder (doc/format/blosclz.md §5), which reproduces
 * c-blosc2 3.3's output byte for byte: the entropy probe, hash, off-by-one
 * match length and output-space checks all follow the spec literally. It is
 * compiled once per instruction set, as libdeflate does its templates: the
 * including file defines
 *   blz_mismatch(in, from, bound, dist): the first p >= from with
 *     in[p] != in[p - dist], or bound if none before bound;
 *   BLZ_COMPRESS: the name of the entry point (b2_blosclz_compress's contract).
 * Every version finds the same first mismatch, so the bytes are the same. */
#include <string.h>
#include "b2_common.h"
#include "codecs.h"

#define BLZ_MAX_COPY 32
#define BLZ_MAX_DISTANCE 8191         /* largest near d = D - 1, exclusive */
#define BLZ_MAX_FARDISTANCE 73725     /* D from here on is never used */
#define BLZ_HASH_LOG_MAX 14

static inline uint32_t blz_hash(uint32_t v, int hb)
{
    return (v * 2654435761u) >> (32 - hb);
}

/* Length value k of doc/format/blosclz.md §5.3 step 3 for a candidate at anchor with distance dist
 * (the 4 bytes at anchor already match). */
static inline size_t blz_match_k(const uint8_t *in, size_t anchor, size_t bound, size_t dist)
{
    size_t p = blz_mismatch(in, anchor + 4, bound, dist);
    size_t end = p < bound ? p + 1 : bound;
    return end - 4 - anchor;
}

/* Entropy probe (doc/format/blosclz.md §5.2): estimated ratio on the last w bytes. */
static double blz_probe(const uint8_t *in, size_t n, size_t w, int hb, uint32_t *table)
{
    size_t m = w < ((size_t)1 << hb) ? w : ((size_t)1 << hb);
    if (m <= 12)
        return 0.0;
    const uint8_t *base = in + (n - w);
    const size_t limit = m - 12, bound = m - 1;
    memset(table, 0, sizeof(uint32_t) << hb);

    long oc = 5;
    unsigned copy = 4;
    size_t pos = 0;
    while (pos < limit) {
        size_t anchor = pos;
        uint32_t seq = b2_load_le32(base + anchor);
        uint32_t h = blz_hash(seq, hb);
        size_t ref = table[h];
        size_t dist = anchor - ref;
        table[h] = (uint32_t)anchor;
        size_t k = 0;
        if (dist != 0 && dist < BLZ_MAX_FARDISTANCE && b2_load_le32(base + ref) == seq)
            k = blz_match_k(base, anchor, bound, dist);
        if (k < 4) {
            oc++;
            if (++copy == BLZ_MAX_COPY) {
                copy = 0;
                oc++;
            }
            pos = anchor + 1;
            continue;
        }
        if (copy == 0)
            oc--;
        copy = 0;
        if (k >= 7)
            oc += (long)((k - 7) / 255 + 1);
        oc += (dist - 1 < BLZ_MAX_DISTANCE) ? 2 : 4;
        table[blz_hash(b2_load_le32(base + anchor + k), hb)] = (uint32_t)(anchor + k);
        pos = anchor + k + 2;
        oc++;
    }
    return (double)pos / (double)oc;
}

/* Main loop and tail (doc/format/blosclz.md §5.3-5.5); n >= 16, lim >= 66. */
static inline __attribute__((always_inline)) int
blz_encode(int extra_insert, const uint8_t *in, size_t n, uint8_t *out, size_t lim,
           uint32_t *table, const int hb)
{
    memset(table, 0, sizeof(uint32_t) << hb);
    const size_t ip_limit = n - 12, bound = n - 1;
    size_t op = 0, ip = 4;
    unsigned copy = 4;

    out[op++] = BLZ_MAX_COPY - 1; /* placeholder control byte of the first run */
    memcpy(out + op, in, 4);
    op += 4;

    while (ip < ip_limit) {
        const size_t anchor = ip;
        uint32_t seq = b2_load_le32(in + anchor);
        uint32_t h = blz_hash(seq, hb);
        size_t ref = table[h];
        size_t dist = anchor - ref;
        table[h] = (uint32_t)anchor;

        size_t k = 0;
        if (dist != 0 && dist < BLZ_MAX_FARDISTANCE && b2_load_le32(in + ref) == seq) {
            k = blz_match_k(in, anchor, bound, dist);
            if (k <= 5 && dist >= 8192)
                k = 0;
        }
        if (k < 4) {
            /* Literal step. */
            if (lim - op < 2)
                return 0;
            out[op++] = in[anchor];
            ip = anchor + 1;
            if (++copy == BLZ_MAX_COPY) {
                copy = 0;
                out[op++] = BLZ_MAX_COPY - 1;
            }
            continue;
        }

        /* Close the pending literal run: fix its control byte, or drop an
         * unused placeholder. */
        if (copy)
            out[op - copy - 1] = (uint8_t)(copy - 1);
        else
            op--;
        copy = 0;

        const size_t d = dist - 1;
        if (d < BLZ_MAX_DISTANCE) {
            if (k < 7) {
                if (lim - op < 2)
                    return 0;
                out[op++] = (uint8_t)((k << 5) + (d >> 8));
                out[op++] = (uint8_t)d;
            } else {
                if (lim - op < 1)
                    return 0;
                out[op++] = (uint8_t)(0xE0 + (d >> 8));
                size_t rem = k - 7;
                for (; rem >= 255; rem -= 255) {
                    if (lim - op < 1)
                        return 0;
                    out[op++] = 255;
                }
                if (lim - op < 2)
                    return 0;
                out[op++] = (uint8_t)rem;
                out[op++] = (uint8_t)d;
            }
        } else {
            const size_t e = d - BLZ_MAX_DISTANCE;
            if (k < 7) {
                if (lim - op < 4)
                    return 0;
                out[op++] = (uint8_t)((k << 5) + 31);
            } else {
                if (lim - op < 1)
                    return 0;
                out[op++] = 0xFF;
                size_t rem = k - 7;
                for (; rem >= 255; rem -= 255) {
                    if (lim - op < 1)
                        return 0;
                    out[op++] = 255;
                }
                if (lim - op < 4)
                    return 0;
                out[op++] = (uint8_t)rem;
            }
            out[op++] = 255;
            out[op++] = (uint8_t)(e >> 8);
            out[op++] = (uint8_t)e;
        }

        /* Update the hash table at the match end (and one more at level 9). */
        ip = anchor + k;
        seq = b2_load_le32(in + ip);
        table[blz_hash(seq, hb)] = (uint32_t)ip;
        ip++;
        if (extra_insert) {
            table[blz_hash(seq >> 8, hb)] = (uint32_t)ip;
        }
        ip++;

        if (lim - op < 1)
            return 0;
        out[op++] = BLZ_MAX_COPY - 1;
    }

    /* Tail: the remaining bytes as literals. */
    for (; ip < n; ip++) {
        if (lim - op < 2)
            return 0;
        out[op++] = in[ip];
        if (++copy == BLZ_MAX_COPY) {
            copy = 0;
            out[op++] = BLZ_MAX_COPY - 1;
        }
    }
    if (copy)
        out[op - copy - 1] = (uint8_t)(copy - 1);
    else
        op--;
    out[0] |= 0x20;
    return (int)op;
}

int BLZ_COMPRESS(int clevel, const uint8_t *in, int srclen, uint8_t *out, int maxout)
{
    uint32_t table[1u << BLZ_HASH_LOG_MAX];

    if (!in || !out || srclen < 0 || clevel < 1 || clevel > 9)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    const size_t n = (size_t)srclen;

    /* doc/format/blosclz.md §5.1 parameters. */
    static const unsigned char hbits[10] = {0, 12, 13, 14, 14, 14, 14, 14, 14, 14};
    static const unsigned char wshift[10] = {0, 3, 2, 2, 1, 1, 1, 0, 0, 0};
    static const double minratio[10] = {0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0};
    const int hb = hbits[clevel];
    const size_t w = n >> wshift[clevel];

    if (blz_probe(in, n, w, hb, table) < minratio[clevel])
        return 0;
    if (n < 16 || maxout < 66)
        return 0;

    /* Specialise the main loop for each hash size: a constant shift. */
    switch (hb) {
    case 12: return blz_encode(clevel == 9, in, n, out, (size_t)maxout, table, 12);
    case 13: return blz_encode(clevel == 9, in, n, out, (size_t)maxout, table, 13);
    default: return blz_encode(clevel == 9, in, n, out, (size_t)maxout, table, 14);
    }
}


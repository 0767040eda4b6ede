/* SPDX-License-Identifier: BSD-3-Clause */
/* BloscLZ decoder (doc/format/blosclz.md §2-3).
 *
 * Every read of src and every write of dst is checked against srclen/dstcap
 * before it happens, so hostile input can never cause an out-of-bounds access.
 * Wide copies are used only when the whole copied span (including any rounding
 * up to the copy width) lies inside dst; otherwise copies are exact. Bytes of
 * dst past the returned length may be overwritten (always inside dstcap). */
#include <string.h>

#include "b2_common.h"
#include "codecs.h"

/* A mask of the n (0..7) low bytes. */
static inline uint64_t low_bytes(size_t n)
{
    return ((uint64_t)1 << (8 * n)) - 1;
}

/* The short-period copies build their pattern with shifts on little-endian
 * words (b2_load_le64 / b2_store_le64: one load or store on x86), so the bytes
 * come out the same on any byte order. */

/* Forward copy of a match of len bytes at distance dist (1 <= dist <= op).
 * 'room' is how many bytes may be written from d (>= len). */
static inline void match_copy(uint8_t *d, size_t dist, size_t len, size_t room)
{
    const uint8_t *s = d - dist;
    if (dist >= 32 && room >= ((len + 31) & ~(size_t)31)) {
        /* as below, 32 bytes a step (long matches of sparse data) */
        for (size_t i = 0; i < len; i += 32)
            memcpy(d + i, s + i, 32);
        return;
    }
    if (dist == 1) {
        memset(d, s[0], len);
        return;
    }
    if (dist < 32 && room >= len + 32) {
        /* Short period. An overlapping copy from 'dist' back would wait on
         * store-to-load forwarding at every step, so the pattern goes into
         * registers once and the loop only stores, a whole number of periods
         * a step. At most 31 bytes past len, inside room. */
        /* bytes in a whole number of periods, up to 16 and up to 32 (no division) */
        static const uint8_t whole16[16] = {0, 16, 16, 15, 16, 15, 12, 14,
                                            16, 9, 10, 11, 12, 13, 14, 15};
        static const uint8_t whole32[32] = {0,  32, 32, 30, 32, 30, 30, 28, 32, 27, 30,
                                            22, 24, 26, 28, 30, 32, 17, 18, 19, 20, 21,
                                            22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
        if (dist < 16) {
            /* the pattern's first 16 bytes as two words; for dist >= 8 the second
             * is the rest of the period from s (read from s + 8 only where it
             * lies before d), then the period's start again */
            uint64_t a, b;
            if (dist < 8) {
                a = b2_load_le64(s) & low_bytes(dist);
                for (unsigned sh = 8 * (unsigned)dist; sh < 64; sh *= 2)
                    a |= a << sh;
                /* byte 8 + i has phase r + i: a's byte r + i while that
                 * exists, then a's byte i + 2r - 8 (8 - r periods back) */
                static const uint8_t phase8[8] = {0, 0, 0, 2, 0, 3, 2, 1}; /* 8 % dist */
                const unsigned r = phase8[dist];
                b = r ? a >> (8 * r) | (a << (8 * (8 - 2 * r)) & ~low_bytes(8 - r)) : a;
            } else {
                a = b2_load_le64(s);
                b = (b2_load_le64(s + 8) & low_bytes(dist - 8)) | a << (8 * (dist - 8));
            }
            if (len <= 32) {
                const size_t step = whole16[dist];
                for (size_t i = 0; i < len; i += step) {
                    b2_store_le64(d + i, a);
                    b2_store_le64(d + i + 8, b);
                }
                return;
            }
            /* Longer runs: 32 pattern bytes (the compiler keeps them in vector
             * registers), stored every whole number of periods (22..32 bytes). */
            uint8_t pattern[48];
            for (size_t i = 0; i < 32; i += whole16[dist]) {
                b2_store_le64(pattern + i, a);
                b2_store_le64(pattern + i + 8, b);
            }
            const size_t step = whole32[dist];
            for (size_t i = 0; i < len; i += step)
                memcpy(d + i, pattern, 32);
        } else {
            if (len <= 32) {
                /* a short match: two copies, the second reading what the first wrote */
                memcpy(d, s, 16);
                memcpy(d + 16, s + 16, 16);
                return;
            }
            /* bytes 16..dist-1 of the period from s, then its start again (the
             * bytes read from s + 16 at and past d are overwritten) */
            uint8_t pattern[48];
            memcpy(pattern, s, 16);
            memcpy(pattern + 16, s + 16, 16);
            memcpy(pattern + dist, pattern, 16);
            for (size_t i = 0; i < len; i += dist)
                memcpy(d + i, pattern, 32);
        }
        return;
    }
    if (dist >= 16 && room >= ((len + 15) & ~(size_t)15)) {
        /* Each 16-byte chunk reads only bytes at least 16 behind what it
         * writes, all already final; the rounded-up tail stays inside dst. */
        for (size_t i = 0; i < len; i += 16)
            memcpy(d + i, s + i, 16);
        return;
    }
    if (dist >= len) {
        /* Source entirely before destination: no overlap. */
        memcpy(d, s, len);
        return;
    }
    if (dist >= 8) {
        size_t i = 0;
        if (room >= ((len + 7) & ~(size_t)7)) {
            for (; i < len; i += 8)
                memcpy(d + i, s + i, 8);
            return;
        }
        for (; i + 8 <= len; i += 8)
            memcpy(d + i, s + i, 8);
        for (; i < len; i++)
            d[i] = s[i];
        return;
    }
    /* Near the end of dst: write one period by hand, then keep doubling the
     * written pattern with non-overlapping copies of whole periods. */
    size_t i = 0;
    for (; i < dist; i++)
        d[i] = s[i];
    while (i < len) {
        size_t n = i - (i % dist); /* whole periods already written after d */
        size_t chunk = n < len - i ? n : len - i;
        memcpy(d + i, d + i - n, chunk); /* distance n >= chunk: no overlap */
        i += chunk;
    }
}

/* Decode until the stream ends, or once need bytes are out (need > dstcap: never). */
static int decode(const uint8_t *src, int srclen, uint8_t *dst, int dstcap, size_t need)
{
    if (!src || !dst || srclen <= 0 || dstcap < 0)
        return srclen == 0 ? B2_FAIL(B2_ERR_CORRUPT, "blosclz: empty stream")
                           : B2_FAIL(B2_ERR_INVALID_PARAM, "blosclz: srclen %d, dstcap %d", srclen, dstcap);

    const size_t in_len = (size_t)srclen;
    const size_t cap = (size_t)dstcap;
    size_t ip = 1, op = 0;
    unsigned t = src[0] & 31u; /* bits 5-7 of the first byte are a marker only */

    for (;;) {
        if (t < 32) {
            size_t n = (size_t)t + 1;
            if (op + n > cap || ip + n > in_len)
                return B2_FAIL(B2_ERR_CORRUPT, "blosclz: literal run of %zu at input byte %zu overflows", n, ip);
            /* A literal run is at most 32 bytes: copy a fixed 32 when both
             * buffers have the room (fast path), else exactly n. */
            if (ip + 32 <= in_len && op + 32 <= cap)
                memcpy(dst + op, src + ip, 32);
            else
                memcpy(dst + op, src + ip, n);
            ip += n;
            op += n;
            if (ip >= in_len || op >= need)
                return (int)op;
            t = src[ip++];
            continue;
        }

        /* Match item. */
        size_t len = (size_t)(t >> 5) + 2;
        if ((t >> 5) == 7) {
            unsigned c;
            do {
                if (ip + 1 >= in_len)
                    return B2_FAIL(B2_ERR_CORRUPT, "blosclz: stream ends inside an item at byte %zu", ip);
                c = src[ip++];
                len += c;
                /* Stop early on absurd lengths: the bound also keeps len from
                 * overflowing however many 255 bytes follow. */
                if (len > cap)
                    return B2_FAIL(B2_ERR_CORRUPT, "blosclz: match length %zu exceeds output %zu", len, cap);
            } while (c == 255);
        } else if (ip + 1 >= in_len) {
            return B2_FAIL(B2_ERR_CORRUPT, "blosclz: stream ends inside an item at byte %zu", ip);
        }
        unsigned c = src[ip++];
        size_t dist = ((size_t)(t & 31) << 8) + c + 1;
        if (c == 255 && (t & 31) == 31) {
            if (ip + 1 >= in_len)
                return B2_FAIL(B2_ERR_CORRUPT, "blosclz: stream ends inside an item at byte %zu", ip);
            dist = 8192 + ((size_t)src[ip] << 8 | src[ip + 1]);
            ip += 2;
        }
        if (op + len > cap || dist > op)
            return B2_FAIL(B2_ERR_CORRUPT, "blosclz: match of %zu at distance %zu, output byte %zu of %zu",
                           len, dist, op, cap);
        /* A stream never ends with a match (doc/format/blosclz.md §1.4). */
        if (ip >= in_len)
            return B2_FAIL(B2_ERR_CORRUPT, "blosclz: stream ends inside an item at byte %zu", ip);
        t = src[ip++];
        match_copy(dst + op, dist, len, cap - op);
        op += len;
        if (op >= need)
            return (int)op;
    }
}

int b2_blosclz_decompress(const uint8_t *src, int srclen, uint8_t *dst, int dstcap)
{
    return decode(src, srclen, dst, dstcap, SIZE_MAX);
}

int b2_blosclz_decompress_prefix(const uint8_t *src, int srclen, uint8_t *dst, int dstcap, int need)
{
    return decode(src, srclen, dst, dstcap, need > 0 ? (size_t)need : 1);
}

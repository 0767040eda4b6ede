/* SPDX-License-Identifier: BSD-3-Clause */
/* ndlz decoder (format in ndlz.h). It needs no hashing, so it is built with or
 * without libxxhash. The reference's decoder trusts parts of the stream; this
 * one checks every read against the stream and writes only inside the block,
 * and it follows offsets as 16-bit distances (the reference adds its token
 * length in 16 bits, which wraps for offsets within 5 of 65535). */
#include "ndlz.h"

typedef struct ndlz_in {
    const uint8_t *src;
    int64_t len;
    int64_t pos; /* next byte to read */
} ndlz_in;

/* Start of `n` bytes at offset `off` back from the token at `at`, or -1. */
static int64_t back_ref(const ndlz_in *in, int64_t at, uint32_t off, int64_t n)
{
    int64_t p = at - (int64_t)off;
    return p >= 0 && p + n <= in->len ? p : -1;
}

/* Read a u16 offset and resolve it to n bytes behind the token at `at`. */
static int read_ref(ndlz_in *in, int64_t at, int64_t n, int64_t *ref)
{
    B2_FAIL_IF(in->pos + 2 > in->len, B2_ERR_CORRUPT,
               "ndlz: stream of %lld bytes ends inside the offset at byte %lld",
               (long long)in->len, (long long)in->pos);
    uint32_t off = ndlz_load16(in->src + in->pos);
    in->pos += 2;
    *ref = back_ref(in, at, off, n);
    B2_FAIL_IF(*ref < 0, B2_ERR_CORRUPT,
               "ndlz: offset %u from byte %lld points outside the %lld-byte stream", off,
               (long long)at, (long long)in->len);
    return B2_OK;
}

/* Cell rows listed in rows[0..n) (stride c) get n consecutive rows of the stream at ref. */
static unsigned put_rows(const ndlz_in *in, uint8_t *cell, int c, const int *rows, int n,
                         int64_t ref)
{
    unsigned taken = 0;
    for (int k = 0; k < n; k++) {
        memcpy(cell + rows[k] * c, in->src + ref + (int64_t)k * c, (size_t)c);
        taken |= 1u << rows[k];
    }
    return taken;
}

/* The rows not in `taken`, in ascending order, from the literal payload. */
static int literal_rows(ndlz_in *in, uint8_t *cell, int c, unsigned taken)
{
    for (int r = 0; r < c; r++) {
        if (taken >> r & 1)
            continue;
        B2_FAIL_IF(in->pos + c > in->len, B2_ERR_CORRUPT,
                   "ndlz: stream of %lld bytes ends inside a literal row at byte %lld",
                   (long long)in->len, (long long)in->pos);
        memcpy(cell + r * c, in->src + in->pos, (size_t)c);
        in->pos += c;
    }
    return B2_OK;
}

/* Row tokens of 4x4 cells into cell (stride 4); the token at `at`. */
static int rows4(ndlz_in *in, int tok, int64_t at, uint8_t *cell)
{
    int rows[3], rc;
    int64_t ref;
    if (tok >= 0xE0) { /* three rows */
        static const int sets[4][3] = {{1, 2, 3}, {0, 1, 2}, {0, 1, 3}, {0, 2, 3}};
        const int *s = sets[(tok >> 3) - 28];
        if ((rc = read_ref(in, at, 12, &ref)) < 0)
            return rc;
        return literal_rows(in, cell, 4, put_rows(in, cell, 4, s, 3, ref));
    }
    if (tok >= 0x80 && tok < 0xC0) { /* two rows */
        if (tok == NDLZ4_TOK_PAIR) {
            rows[0] = 2, rows[1] = 3;
        } else {
            rows[0] = (tok - 0x80) >> 5;
            rows[1] = ((tok - 0x80) >> 3) - 4 * rows[0];
        }
        B2_FAIL_IF(rows[0] == rows[1], B2_ERR_CORRUPT,
                   "ndlz: token 0x%02x at byte %lld names row %d twice", tok, (long long)at,
                   rows[0]);
        if ((rc = read_ref(in, at, 8, &ref)) < 0)
            return rc;
        return literal_rows(in, cell, 4, put_rows(in, cell, 4, rows, 2, ref));
    }
    if (tok >= 0x28 && tok < 0x40) { /* rows 0, j from one place; the others from another */
        int j = (tok >> 3) - 4, other[2], n = 0;
        for (int r = 1; r < 4; r++)
            if (r != j)
                other[n++] = r;
        int64_t ref2;
        rows[0] = 0, rows[1] = j;
        if ((rc = read_ref(in, at, 8, &ref)) < 0 || (rc = read_ref(in, at, 8, &ref2)) < 0)
            return rc;
        put_rows(in, cell, 4, rows, 2, ref);
        put_rows(in, cell, 4, other, 2, ref2);
        return B2_OK;
    }
    return B2_FAIL(B2_ERR_CORRUPT, "ndlz: invalid token 0x%02x at byte %lld (4x4 cells)", tok,
                   (long long)at);
}

/* Row tokens of 8x8 cells into cell (stride 8). */
static int rows8(ndlz_in *in, int tok, int64_t at, uint8_t *cell)
{
    int n = (tok >> 3) == (NDLZ8_TOK_TRIPLE >> 3) ? 3 : (tok >> 3) == (NDLZ8_TOK_PAIR >> 3) ? 2 : 0;
    int first = tok & 7, rows[3], rc;
    B2_FAIL_IF(n == 0 || first + n > 8, B2_ERR_CORRUPT,
               "ndlz: invalid token 0x%02x at byte %lld (8x8 cells)", tok, (long long)at);
    for (int k = 0; k < n; k++)
        rows[k] = first + k;
    int64_t ref;
    if ((rc = read_ref(in, at, 8 * n, &ref)) < 0)
        return rc;
    return literal_rows(in, cell, 8, put_rows(in, cell, 8, rows, n, ref));
}

/* One cell of `nr` x `nc` bytes: its bytes, rows packed `nc` apart, in *bytes. */
static int decode_cell(ndlz_in *in, int c, int nr, int nc, uint8_t *cell, const uint8_t **bytes)
{
    int64_t at = in->pos, need = (int64_t)nr * nc;
    B2_FAIL_IF(at >= in->len, B2_ERR_CORRUPT, "ndlz: stream of %lld bytes ends before a cell",
               (long long)in->len);
    int tok = in->src[in->pos++], rc;
    int64_t ref;
    switch (tok) {
    case NDLZ_TOK_LITERAL:
        B2_FAIL_IF(in->pos + need > in->len, B2_ERR_CORRUPT,
                   "ndlz: literal cell of %lld bytes at byte %lld runs past the %lld-byte stream",
                   (long long)need, (long long)at, (long long)in->len);
        *bytes = in->src + in->pos;
        in->pos += need;
        return B2_OK;
    case NDLZ_TOK_RUN:
        B2_FAIL_IF(in->pos >= in->len, B2_ERR_CORRUPT,
                   "ndlz: stream ends inside the run cell at byte %lld", (long long)at);
        memset(cell, in->src[in->pos++], (size_t)(c * c));
        *bytes = cell;
        return B2_OK;
    case NDLZ_TOK_CELL:
        if ((rc = read_ref(in, at, need, &ref)) < 0)
            return rc;
        *bytes = in->src + ref;
        return B2_OK;
    default:
        /* the reference reads a row-built cell with the edge cell's row
         * length too; the encoder only puts literals at the edges */
        *bytes = cell;
        return c == 4 ? rows4(in, tok, at, cell) : rows8(in, tok, at, cell);
    }
}

int b2_ndlz_decompress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                       int dstlen)
{
    int c, rc;
    int32_t b0, b1;
    if ((rc = b2_ndlz_setup(u, "decoding", &c, &b0, &b1)) < 0)
        return rc;
    B2_FAIL_IF(srclen < NDLZ_HEADER_LEN, B2_ERR_CORRUPT,
               "ndlz: stream of %d bytes is shorter than its %d-byte header", srclen,
               NDLZ_HEADER_LEN);
    int32_t s0 = b2_load_le32s(src + 1), s1 = b2_load_le32s(src + 5);
    B2_FAIL_IF(src[0] != 2, B2_ERR_CORRUPT, "ndlz: stream header says ndim %d, not 2", src[0]);
    B2_FAIL_IF(s0 != b0 || s1 != b1, B2_ERR_CORRUPT,
               "ndlz: stream block shape %d x %d differs from the geometry's %d x %d", (int)s0,
               (int)s1, (int)b0, (int)b1);
    B2_FAIL_IF((int64_t)b0 * b1 != dstlen, B2_ERR_CORRUPT,
               "ndlz: a %d x %d block is not the %d bytes expected (one byte per item)", (int)b0,
               (int)b1, dstlen);

    ndlz_in in = {src, srclen, NDLZ_HEADER_LEN};
    uint8_t cell[64];
    for (int32_t y = 0; y < b0; y += c) {
        int nr = b0 - y < c ? b0 - y : c;
        for (int32_t x = 0; x < b1; x += c) {
            int nc = b1 - x < c ? b1 - x : c;
            const uint8_t *bytes;
            if ((rc = decode_cell(&in, c, nr, nc, cell, &bytes)) < 0)
                return rc;
            uint8_t *o = dst + (int64_t)y * b1 + x;
            for (int r = 0; r < nr; r++)
                memcpy(o + (int64_t)r * b1, bytes + r * nc, (size_t)nc);
        }
    }
    B2_FAIL_IF(in.pos != in.len, B2_ERR_CORRUPT,
               "ndlz: %lld bytes left after the last cell of the %d-byte stream",
               (long long)(in.len - in.pos), srclen);
    return dstlen;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* ndlz (codec 32), the stream format shared by ndlz_compress.c and
 * ndlz_decompress.c (doc/format/plugins.md; c-blosc2's plugins/codecs/ndlz).
 *
 * A stream encodes one 2-D block of b0 x b1 bytes (one byte per item: typesize
 * 1, or one split stream of a wider type) cut into cells of c x c bytes, c being
 * the codec meta (4 or 8). Cells at the bottom and right edges keep only the
 * rows and columns inside the block. Layout:
 *   byte 0      2 (ndim)
 *   bytes 1..8  b0, b1 as little-endian int32
 *   then one record per cell, cells in row-major order of the cell grid, each a
 *   token byte and its payload. Offsets are little-endian u16 counted back from
 *   the record's token to bytes earlier in the stream (payload of a literal
 *   record). Edge cells are always written as literals (token 0).
 *
 * Tokens (c = 4):
 *   0x00        literal: rows x cols bytes, rows packed without gaps
 *   0x40        every byte of the cell is the one byte that follows
 *   0xC0        whole cell at offset
 *   0x28..0x3F  rows 0 and j (j = token >> 3 & 3, 1..3) at offset 1, the two other
 *               rows at offset 2 (two u16s)
 *   0x80..0xBF  rows i = token >> 5 & 1 and j = token >> 3 & 3 at offset (in that
 *               order; 0x80 means rows 2 and 3), the two others literal
 *   0xE0..0xFF  three rows at offset (token >> 3: 28 rows 1-3, 29 rows 0-2,
 *               30 rows 0,1,3, 31 rows 0,2,3), the fourth literal
 * Tokens (c = 8):
 *   0x00, 0x40, 0xC0 as above (64-byte cells)
 *   0xA8 + r    rows r..r+2 (r <= 5) at offset, the five other rows literal
 *   0x88 + r    rows r..r+1 (r <= 6) at offset, the six other rows literal
 * Rows copied from an offset are consecutive in the stream. */
#ifndef B2_NDLZ_H
#define B2_NDLZ_H

#include "codecs.h"

#define NDLZ_HEADER_LEN 9

#define NDLZ_TOK_LITERAL 0x00
#define NDLZ_TOK_RUN 0x40
#define NDLZ_TOK_CELL 0xC0
/* c = 4 */
#define NDLZ4_TOK_TWO_PAIRS 0x20 /* | j << 3 */
#define NDLZ4_TOK_PAIR 0x80      /* | i << 5 | j << 3 */
#define NDLZ4_TOK_TRIPLE 0xE0    /* | (j + k - 2) << 3 */
/* c = 8 */
#define NDLZ8_TOK_PAIR 0x88   /* + first row */
#define NDLZ8_TOK_TRIPLE 0xA8 /* + first row */

/* Matches reach back at most this far (the reference's limit, exclusive). */
#define NDLZ_MAX_DISTANCE 65535

/* Check u's meta (cell side 4 or 8) and geometry (2-D); set *cell and the
 * block shape. what names the operation in messages. */
B2_HIDDEN int b2_ndlz_setup(const b2_codec_use *u, const char *what, int *cell, int32_t *b0,
                            int32_t *b1);

static inline uint16_t ndlz_load16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline void ndlz_store16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

#endif

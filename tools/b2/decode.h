/* SPDX-License-Identifier: BSD-3-Clause */
/* Decoding any opened object, or a box of a b2nd array, to a stream (decode.c). */
#ifndef B2CLI_DECODE_H
#define B2CLI_DECODE_H

#include "b2cli.h"
#include "obj.h"

/* Write the decoded content of o to out (messages printed). */
int b2cli_decode_obj(const b2cli_obj *o, int nthreads, FILE *out);
/* Write the box [start, stop) of a b2nd object in C order to out. */
int b2cli_b2nd_write_box(const b2cli_obj *o, const int64_t *start, const int64_t *stop, FILE *out);
/* Decode chunk i of s into *buf (grown to *cap as needed; uninit -> zeros).
 * Returns the chunk's nbytes or an error code (no message). */
int b2cli_schunk_decode(b2_schunk *s, int64_t i, uint8_t **buf, size_t *cap);

#endif
